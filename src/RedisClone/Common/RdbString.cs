using System.Buffers;
using System.Buffers.Binary;

namespace RedisClone.Common;

/// <summary>
/// Strings as Redis writes them in RDB files and DUMP payloads: a length then the bytes, or a small
/// integer in 2, 3 or 5 bytes, or an LZF-compressed blob (strings over 20 bytes, when compression
/// saves at least 4 bytes), as rdb.c's rdbSaveRawString and rdbGenericLoadStringObject.
/// </summary>
/// <remarks>
/// Lengths: 00xxxxxx (6 bits), 01xxxxxx xxxxxxxx (14 bits, big-endian), 0x80 + 4 bytes or 0x81 + 8
/// bytes big-endian; 11xxxxxx is a special encoding: 0, 1, 2 are 8, 16, 32-bit little-endian
/// integers, 3 is LZF (compressed length, original length, data).
/// </remarks>
internal static class RdbString
{
    /// <summary>
    /// The newest RDB format version read: Redis 8.2's 12 (7.0 writes 10 and refuses 11, 7.2 writes
    /// 11, 7.4 and later 12, whose additions are the hash types with field TTLs and the slot-info opcode).
    /// </summary>
    public const int Version = 12;

    /// <summary>The version FUNCTION DUMP's payloads carry, as Redis 7.2 writes them.</summary>
    public const int FunctionDumpVersion = 11;

    private const int EncodedInt8 = 0, EncodedInt16 = 1, EncodedInt32 = 2, EncodedLzf = 3;

    /// <summary>
    /// Appends <paramref name="value"/> encoded as Redis's rdbSaveRawString encodes it; LZF is tried
    /// only when <paramref name="compress"/> (rdbcompression).
    /// </summary>
    public static void Write(IBufferWriter<byte> output, ReadOnlySpan<byte> value, bool compress = true)
    {
        if (value.Length <= 11 && RedisNumbers.TryParseInt64(value, out long integer) && TryWriteInteger(output, integer)) return;
        if (compress && value.Length > 20)
        {
            int budget = value.Length - 4; // compression must save at least four bytes
            var compressed = ArrayPool<byte>.Shared.Rent(budget);
            try
            {
                int length = Lzf.Compress(value, compressed.AsSpan(0, budget));
                if (length > 0)
                {
                    var span = output.GetSpan(1);
                    span[0] = 0xC0 | EncodedLzf;
                    output.Advance(1);
                    WriteLength(output, (ulong)length);
                    WriteLength(output, (ulong)value.Length);
                    output.Write(compressed.AsSpan(0, length));
                    return;
                }
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(compressed);
            }
        }
        WriteLength(output, (ulong)value.Length);
        output.Write(value);
    }

    private static bool TryWriteInteger(IBufferWriter<byte> output, long value)
    {
        var span = output.GetSpan(5);
        int n;
        if (value is >= sbyte.MinValue and <= sbyte.MaxValue)
        {
            span[0] = 0xC0 | EncodedInt8;
            span[1] = (byte)value;
            n = 2;
        }
        else if (value is >= short.MinValue and <= short.MaxValue)
        {
            span[0] = 0xC0 | EncodedInt16;
            BinaryPrimitives.WriteInt16LittleEndian(span[1..], (short)value);
            n = 3;
        }
        else if (value is >= int.MinValue and <= int.MaxValue)
        {
            span[0] = 0xC0 | EncodedInt32;
            BinaryPrimitives.WriteInt32LittleEndian(span[1..], (int)value);
            n = 5;
        }
        else
        {
            return false;
        }
        output.Advance(n);
        return true;
    }

    /// <summary>
    /// A DUMP-style payload's footer: the RDB <paramref name="version"/> (2 bytes) and the CRC64 of
    /// everything written before it (8 bytes), both little-endian.
    /// </summary>
    public static void AppendFooter(ArrayBufferWriter<byte> output, int version)
    {
        BinaryPrimitives.WriteUInt16LittleEndian(output.GetSpan(2), (ushort)version);
        output.Advance(2);
        ulong crc = Crc64.Compute(output.WrittenSpan);
        BinaryPrimitives.WriteUInt64LittleEndian(output.GetSpan(8), crc);
        output.Advance(8);
    }

    /// <summary>
    /// Redis's verifyDumpPayload: room for the footer, a version this server reads (up to
    /// <see cref="Version"/>), and a matching CRC64 (a payload that carries 0 there is checked like any other).
    /// </summary>
    public static bool VerifyPayload(ReadOnlySpan<byte> payload)
    {
        if (payload.Length < 10) return false;
        var footer = payload[^10..];
        if (BinaryPrimitives.ReadUInt16LittleEndian(footer) > Version) return false;
        return Crc64.Compute(payload[..^8]) == BinaryPrimitives.ReadUInt64LittleEndian(footer[2..]);
    }

    /// <summary>Appends a length in RDB's 1, 2, 5 or 9-byte form.</summary>
    public static void WriteLength(IBufferWriter<byte> output, ulong length)
        => output.Advance(FormatLength(output.GetSpan(9), length));

    /// <summary>Writes a length in RDB's 1, 2, 5 or 9-byte form into <paramref name="span"/> (9 bytes of room); returns its size.</summary>
    public static int FormatLength(Span<byte> span, ulong length)
    {
        int n;
        if (length < 1 << 6)
        {
            span[0] = (byte)length;
            n = 1;
        }
        else if (length < 1 << 14)
        {
            span[0] = (byte)(0x40 | (length >> 8));
            span[1] = (byte)length;
            n = 2;
        }
        else if (length <= uint.MaxValue)
        {
            span[0] = 0x80;
            BinaryPrimitives.WriteUInt32BigEndian(span[1..], (uint)length);
            n = 5;
        }
        else
        {
            span[0] = 0x81;
            BinaryPrimitives.WriteUInt64BigEndian(span[1..], length);
            n = 9;
        }
        return n;
    }

    /// <summary>
    /// Reads a length at <paramref name="position"/>; false when the input ends first. A special
    /// encoding (11xxxxxx) sets <paramref name="encoded"/> and returns its type in <paramref name="length"/>.
    /// </summary>
    public static bool TryReadLength(ReadOnlySpan<byte> input, ref int position, out ulong length, out bool encoded)
    {
        length = 0;
        encoded = false;
        if (position >= input.Length) return false;
        byte first = input[position];
        switch (first >> 6)
        {
            case 0:
                length = (ulong)(first & 0x3F);
                position++;
                return true;
            case 1:
                if (position + 2 > input.Length) return false;
                length = (ulong)(((first & 0x3F) << 8) | input[position + 1]);
                position += 2;
                return true;
            case 3:
                encoded = true;
                length = (ulong)(first & 0x3F);
                position++;
                return true;
        }
        if (first == 0x80)
        {
            if (position + 5 > input.Length) return false;
            length = BinaryPrimitives.ReadUInt32BigEndian(input.Slice(position + 1));
            position += 5;
            return true;
        }
        if (first == 0x81)
        {
            if (position + 9 > input.Length) return false;
            length = BinaryPrimitives.ReadUInt64BigEndian(input.Slice(position + 1));
            position += 9;
            return true;
        }
        return false; // Redis: "Unknown length encoding"
    }

    /// <summary>Reads one string at <paramref name="position"/>; false when it is malformed or cut short.</summary>
    public static bool TryRead(ReadOnlySpan<byte> input, ref int position, out byte[] value)
    {
        value = [];
        int p = position;
        if (!TryReadLength(input, ref p, out ulong length, out bool encoded)) return false;
        if (encoded && length == EncodedLzf)
        {
            // Decompressed straight into the array kept.
            if (!TryLzfHeader(input, ref p, out int compressed, out int original)) return false;
            var decompressed = new byte[original];
            if (Lzf.Decompress(input.Slice(p, compressed), decompressed) != original) return false;
            value = decompressed;
            position = p + compressed;
            return true;
        }
        Span<byte> digits = stackalloc byte[20];
        if (!TryReadUnpacked(input, ref p, length, encoded, digits, out var span)) return false;
        value = span.ToArray();
        position = p;
        return true;
    }

    /// <summary>
    /// Reads one string at <paramref name="position"/> without copying it where it can: a plain
    /// string is a slice of <paramref name="input"/>; an integer's text or a decompressed LZF
    /// string is written into <paramref name="scratch"/> (at least 20 bytes; replaced by a larger
    /// array when a string does not fit). The value is valid until <paramref name="scratch"/> is
    /// used again. False when it is malformed or cut short.
    /// </summary>
    public static bool TryReadSpan(ReadOnlySpan<byte> input, scoped ref int position, scoped ref byte[] scratch, out ReadOnlySpan<byte> value)
    {
        value = default;
        int p = position;
        if (!TryReadLength(input, ref p, out ulong length, out bool encoded)) return false;
        if (encoded && length == EncodedLzf)
        {
            if (!TryLzfHeader(input, ref p, out int compressed, out int original)) return false;
            if (scratch.Length < original) scratch = new byte[Math.Max(original, Math.Min(scratch.Length * 2, Array.MaxLength))];
            if (Lzf.Decompress(input.Slice(p, compressed), scratch.AsSpan(0, original)) != original) return false;
            value = scratch.AsSpan(0, original);
            position = p + compressed;
            return true;
        }
        if (!TryReadUnpacked(input, ref p, length, encoded, scratch, out value)) return false;
        position = p;
        return true;
    }

    /// <summary>A plain string (a slice of the input) or an integer's text (in <paramref name="digits"/>), after its length byte(s).</summary>
    private static bool TryReadUnpacked(ReadOnlySpan<byte> input, scoped ref int p, ulong length, bool encoded, Span<byte> digits,
        out ReadOnlySpan<byte> value)
    {
        value = default;
        if (!encoded)
        {
            if (length > (ulong)(input.Length - p)) return false;
            value = input.Slice(p, (int)length);
            p += (int)length;
            return true;
        }
        long integer;
        switch ((int)length)
        {
            case EncodedInt8:
                if (p + 1 > input.Length) return false;
                integer = (sbyte)input[p];
                p += 1;
                break;
            case EncodedInt16:
                if (p + 2 > input.Length) return false;
                integer = BinaryPrimitives.ReadInt16LittleEndian(input.Slice(p));
                p += 2;
                break;
            case EncodedInt32:
                if (p + 4 > input.Length) return false;
                integer = BinaryPrimitives.ReadInt32LittleEndian(input.Slice(p));
                p += 4;
                break;
            default:
                return false;
        }
        value = digits[..RedisNumbers.FormatInt64(integer, digits)];
        return true;
    }

    /// <summary>An LZF string's compressed and original lengths, checked against the input.</summary>
    private static bool TryLzfHeader(ReadOnlySpan<byte> input, ref int p, out int compressed, out int original)
    {
        compressed = original = 0;
        if (!TryReadLength(input, ref p, out ulong compressedLength, out bool e1) || e1) return false;
        if (!TryReadLength(input, ref p, out ulong originalLength, out bool e2) || e2) return false;
        // An LZF run of three bytes can stand for at most 264: a larger claim is malformed, and
        // refusing it keeps a forged payload from allocating gigabytes.
        if (compressedLength > (ulong)(input.Length - p) || originalLength > compressedLength * 88 + 32
            || originalLength > (ulong)Array.MaxLength) return false;
        compressed = (int)compressedLength;
        original = (int)originalLength;
        return true;
    }
}
