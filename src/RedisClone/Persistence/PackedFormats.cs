using System.Buffers.Binary;
using RedisClone.Common;

namespace RedisClone.Persistence;

/// <summary>
/// Reading the packed blobs an RDB value may hold — listpack, ziplist, zipmap, intset — from bytes
/// that came from outside (a file, a DUMP payload a client sent), so every step checks its bounds
/// and the whole blob is validated before anything of it is used: a forged blob is refused, never
/// read past its end.
/// </summary>
/// <remarks>
/// Redis validates these shallowly unless <c>sanitize-dump-payload</c> asks for more; here the
/// walk is always complete (it is also how the elements are read), so a blob Redis would take but
/// whose entries are inconsistent is refused.
/// </remarks>
internal static class PackedFormats
{
    /// <summary>One element: an integer, or a byte range of the blob.</summary>
    internal readonly struct Element(bool isInt, long integer, int start, int length)
    {
        public readonly bool IsInt = isInt;
        public readonly long Int = integer;
        public readonly int Start = start;
        public readonly int Length = length;

        /// <summary>The element as Redis would give it back: its bytes, or an integer's decimal text.</summary>
        public byte[] ToBytes(ReadOnlySpan<byte> blob)
        {
            if (!IsInt) return blob.Slice(Start, Length).ToArray();
            Span<byte> text = stackalloc byte[20];
            return text[..RedisNumbers.FormatInt64(Int, text)].ToArray();
        }

        /// <summary>The element's bytes, or an integer's text written into <paramref name="scratch"/> (20 bytes).</summary>
        public ReadOnlySpan<byte> Text(ReadOnlySpan<byte> blob, Span<byte> scratch)
            => IsInt ? scratch[..RedisNumbers.FormatInt64(Int, scratch)] : blob.Slice(Start, Length);
    }

    // ---------------------------------------------------------------- listpack

    private const int ListpackHeader = 6;

    /// <summary>
    /// Validates a whole listpack (header size and count, every entry and its back-length, the end
    /// byte) and returns its elements; false when anything is off.
    /// </summary>
    public static bool TryReadListpack(ReadOnlySpan<byte> lp, List<Element> elements)
    {
        elements.Clear();
        if (lp.Length < ListpackHeader + 1) return false;
        if (BinaryPrimitives.ReadUInt32LittleEndian(lp) != (uint)lp.Length) return false;
        int declared = BinaryPrimitives.ReadUInt16LittleEndian(lp[4..]);
        int p = ListpackHeader;
        while (true)
        {
            if (p >= lp.Length) return false;
            if (lp[p] == 0xFF) break;
            if (!TryListpackEntry(lp, p, out var element, out int entryLength)) return false;
            int backLength = BackLengthSize(entryLength);
            if (p + entryLength + backLength > lp.Length - 1) return false;
            if (!BackLengthMatches(lp.Slice(p + entryLength, backLength), entryLength)) return false;
            elements.Add(element);
            p += entryLength + backLength;
        }
        if (p != lp.Length - 1) return false;
        return declared == 0xFFFF || declared == elements.Count;
    }

    /// <summary>Decodes the entry at <paramref name="p"/>: its element and its size without the back-length.</summary>
    private static bool TryListpackEntry(ReadOnlySpan<byte> lp, int p, out Element element, out int length)
    {
        element = default;
        length = 0;
        int b = lp[p];
        long stringLength;
        int header;
        if ((b & 0x80) == 0)
        {
            element = new Element(true, b & 0x7F, 0, 0);
            length = 1;
            return true;
        }
        if ((b & 0xC0) == 0x80)
        {
            header = 1;
            stringLength = b & 0x3F;
        }
        else if ((b & 0xE0) == 0xC0)
        {
            if (p + 2 > lp.Length) return false;
            long v = ((b & 0x1F) << 8) | lp[p + 1];
            element = new Element(true, v >= 1 << 12 ? v - (1 << 13) : v, 0, 0);
            length = 2;
            return true;
        }
        else if ((b & 0xF0) == 0xE0)
        {
            if (p + 2 > lp.Length) return false;
            header = 2;
            stringLength = ((b & 0x0F) << 8) | lp[p + 1];
        }
        else
        {
            int bytes;
            switch (b)
            {
                case 0xF0:
                    if (p + 5 > lp.Length) return false;
                    header = 5;
                    stringLength = BinaryPrimitives.ReadUInt32LittleEndian(lp[(p + 1)..]);
                    goto String;
                case 0xF1: bytes = 2; break;
                case 0xF2: bytes = 3; break;
                case 0xF3: bytes = 4; break;
                case 0xF4: bytes = 8; break;
                default: return false;
            }
            if (p + 1 + bytes > lp.Length) return false;
            long raw = 0;
            for (int i = bytes - 1; i >= 0; i--) raw = (raw << 8) | lp[p + 1 + i];
            int shift = 64 - bytes * 8;
            element = new Element(true, (raw << shift) >> shift, 0, 0);
            length = 1 + bytes;
            return true;
        }
    String:
        if (stringLength > lp.Length - p - header) return false;
        element = new Element(false, 0, p + header, (int)stringLength);
        length = header + (int)stringLength;
        return true;
    }

    private static int BackLengthSize(int length)
        => length < 128 ? 1 : length < 16384 ? 2 : length < 2097152 ? 3 : length < 268435456 ? 4 : 5;

    /// <summary>The back-length is the entry size in 7-bit groups, most significant first, every group but the first with bit 7 set.</summary>
    private static bool BackLengthMatches(ReadOnlySpan<byte> encoded, int length)
    {
        int n = encoded.Length;
        for (int i = 0; i < n; i++)
        {
            int shift = 7 * (n - 1 - i);
            int expected = (length >> shift) & 0x7F;
            if (i > 0) expected |= 0x80;
            if (encoded[i] != expected) return false;
        }
        return true;
    }

    // ---------------------------------------------------------------- ziplist (RDB types before 7.0)

    private const int ZiplistHeader = 10;

    /// <summary>Validates a whole ziplist (header, every entry's previous-length and encoding, the end byte) and returns its elements.</summary>
    public static bool TryReadZiplist(ReadOnlySpan<byte> zl, List<Element> elements)
    {
        elements.Clear();
        if (zl.Length < ZiplistHeader + 1) return false;
        if (BinaryPrimitives.ReadUInt32LittleEndian(zl) != (uint)zl.Length) return false;
        uint tail = BinaryPrimitives.ReadUInt32LittleEndian(zl[4..]);
        int declared = BinaryPrimitives.ReadUInt16LittleEndian(zl[8..]);
        int p = ZiplistHeader, previous = 0, last = ZiplistHeader;
        while (true)
        {
            if (p >= zl.Length) return false;
            if (zl[p] == 0xFF) break;
            int start = p;
            int prevLength;
            if (zl[p] < 254)
            {
                prevLength = zl[p];
                p++;
            }
            else if (zl[p] == 254)
            {
                if (p + 5 > zl.Length) return false;
                uint v = BinaryPrimitives.ReadUInt32LittleEndian(zl[(p + 1)..]);
                if (v > int.MaxValue) return false;
                prevLength = (int)v;
                p += 5;
            }
            else return false;
            if (prevLength != previous) return false;
            if (p >= zl.Length) return false;
            int e = zl[p];
            long stringLength = -1;
            int dataBytes = 0;
            long value = 0;
            switch (e >> 6)
            {
                case 0:
                    stringLength = e & 0x3F;
                    p += 1;
                    break;
                case 1:
                    if (p + 2 > zl.Length) return false;
                    stringLength = ((e & 0x3F) << 8) | zl[p + 1];
                    p += 2;
                    break;
                case 2:
                    if (e != 0x80 || p + 5 > zl.Length) return false;
                    stringLength = BinaryPrimitives.ReadUInt32BigEndian(zl[(p + 1)..]);
                    p += 5;
                    break;
                default:
                    p += 1;
                    switch (e)
                    {
                        case 0xC0: dataBytes = 2; break;
                        case 0xD0: dataBytes = 4; break;
                        case 0xE0: dataBytes = 8; break;
                        case 0xF0: dataBytes = 3; break;
                        case 0xFE: dataBytes = 1; break;
                        default:
                            if (e < 0xF1 || e > 0xFD) return false;
                            value = (e & 0x0F) - 1;
                            break;
                    }
                    break;
            }
            if (stringLength >= 0)
            {
                if (stringLength > zl.Length - p) return false;
                elements.Add(new Element(false, 0, p, (int)stringLength));
                p += (int)stringLength;
            }
            else
            {
                if (p + dataBytes > zl.Length) return false;
                if (dataBytes > 0)
                {
                    long raw = 0;
                    for (int i = dataBytes - 1; i >= 0; i--) raw = (raw << 8) | zl[p + i];
                    int shift = 64 - dataBytes * 8;
                    value = (raw << shift) >> shift;
                }
                elements.Add(new Element(true, value, 0, 0));
                p += dataBytes;
            }
            previous = p - start;
            last = start;
        }
        if (p != zl.Length - 1) return false;
        if (elements.Count > 0 && tail != (uint)last) return false;
        return declared == 0xFFFF || declared == elements.Count;
    }

    // ---------------------------------------------------------------- zipmap (hashes before 2.6)

    /// <summary>Reads a zipmap's field/value pairs (flattened); false when malformed.</summary>
    public static bool TryReadZipmap(ReadOnlySpan<byte> zm, List<Element> elements)
    {
        elements.Clear();
        if (zm.Length < 2) return false;
        int p = 1;
        while (true)
        {
            if (p >= zm.Length) return false;
            if (zm[p] == 0xFF) break;
            if (!TryZipmapLength(zm, ref p, out int keyLength) || keyLength > zm.Length - p) return false;
            elements.Add(new Element(false, 0, p, keyLength));
            p += keyLength;
            if (!TryZipmapLength(zm, ref p, out int valueLength)) return false;
            if (p >= zm.Length) return false;
            int free = zm[p++];
            if ((long)valueLength + free > zm.Length - p) return false;
            elements.Add(new Element(false, 0, p, valueLength));
            p += valueLength + free;
        }
        if (p != zm.Length - 1) return false;
        int declared = zm[0];
        return declared >= 254 || declared == elements.Count / 2;
    }

    private static bool TryZipmapLength(ReadOnlySpan<byte> zm, ref int p, out int length)
    {
        length = 0;
        if (p >= zm.Length) return false;
        if (zm[p] < 254)
        {
            length = zm[p++];
            return true;
        }
        if (zm[p] != 254 || p + 5 > zm.Length) return false;
        uint v = BinaryPrimitives.ReadUInt32LittleEndian(zm[(p + 1)..]);
        if (v > int.MaxValue) return false;
        length = (int)v;
        p += 5;
        return true;
    }

    // ---------------------------------------------------------------- intset

    /// <summary>Reads an intset's integers: a valid width, a size that adds up, strictly ascending.</summary>
    public static bool TryReadIntset(ReadOnlySpan<byte> blob, List<long> values)
    {
        values.Clear();
        if (blob.Length < 8) return false;
        uint width = BinaryPrimitives.ReadUInt32LittleEndian(blob);
        uint count = BinaryPrimitives.ReadUInt32LittleEndian(blob[4..]);
        if (width != 2 && width != 4 && width != 8) return false;
        if ((ulong)count * width + 8 != (ulong)blob.Length) return false;
        for (int i = 0; i < count; i++)
        {
            var at = blob[(8 + i * (int)width)..];
            long v = width == 2 ? BinaryPrimitives.ReadInt16LittleEndian(at)
                : width == 4 ? BinaryPrimitives.ReadInt32LittleEndian(at)
                : BinaryPrimitives.ReadInt64LittleEndian(at);
            if (values.Count > 0 && v <= values[^1]) return false;
            values.Add(v);
        }
        return true;
    }
}
