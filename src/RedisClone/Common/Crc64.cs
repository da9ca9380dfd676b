using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace RedisClone.Common;

/// <summary>
/// The CRC64 Redis appends to DUMP payloads and RDB files: the "Jones" polynomial
/// 0xad93d23594c935a9, input and output reflected, initial value 0, no final xor
/// (CRC64("123456789") is 0xe9c6d914c4b8d9ca). Redis writes it little-endian.
/// </summary>
/// <remarks>
/// Computed in the reflected domain (table built from the bit-reversed polynomial), so a running
/// value chains: <c>Update(Update(0, a), b) == Compute(a ++ b)</c>, as Redis's crc64(crc, ...) does
/// when an RDB file is written in pieces. Slicing-by-8, as <see cref="Crc16"/>: RDB files are long.
/// </remarks>
internal static class Crc64
{
    /// <summary>0xad93d23594c935a9 with its 64 bits reversed.</summary>
    private const ulong ReflectedPolynomial = 0x95ac9329ac4bc9b5;

    /// <summary><c>Tables[k * 256 + x]</c>: the contribution of byte x followed by k zero bytes.</summary>
    private static readonly ulong[] Tables = BuildTables();

    /// <summary>CRC64 of <paramref name="data"/> from the initial value 0.</summary>
    public static ulong Compute(ReadOnlySpan<byte> data) => Update(0, data);

    /// <summary>Continues <paramref name="crc"/> (a previous result, or 0) over <paramref name="data"/>.</summary>
    public static ulong Update(ulong crc, ReadOnlySpan<byte> data)
    {
        ref ulong t = ref MemoryMarshal.GetArrayDataReference(Tables);
        int i = 0, n = data.Length;
        for (; i + 8 <= n; i += 8)
        {
            ulong x = crc ^ BinaryPrimitives.ReadUInt64LittleEndian(data.Slice(i, 8));
            crc = Unsafe.Add(ref t, 7 * 256 + (int)(x & 0xFF)) ^ Unsafe.Add(ref t, 6 * 256 + (int)((x >> 8) & 0xFF))
                ^ Unsafe.Add(ref t, 5 * 256 + (int)((x >> 16) & 0xFF)) ^ Unsafe.Add(ref t, 4 * 256 + (int)((x >> 24) & 0xFF))
                ^ Unsafe.Add(ref t, 3 * 256 + (int)((x >> 32) & 0xFF)) ^ Unsafe.Add(ref t, 2 * 256 + (int)((x >> 40) & 0xFF))
                ^ Unsafe.Add(ref t, 1 * 256 + (int)((x >> 48) & 0xFF)) ^ Unsafe.Add(ref t, (int)(x >> 56));
        }
        for (; i < n; i++)
            crc = Unsafe.Add(ref t, (int)((crc ^ data[i]) & 0xFF)) ^ (crc >> 8);
        return crc;
    }

    private static ulong[] BuildTables()
    {
        var tables = new ulong[8 * 256];
        for (int i = 0; i < 256; i++)
        {
            ulong crc = (ulong)i;
            for (int bit = 0; bit < 8; bit++)
                crc = (crc & 1) != 0 ? (crc >> 1) ^ ReflectedPolynomial : crc >> 1;
            tables[i] = crc;
        }
        for (int k = 1; k < 8; k++)
            for (int i = 0; i < 256; i++)
            {
                ulong previous = tables[(k - 1) * 256 + i];
                tables[k * 256 + i] = (previous >> 8) ^ tables[(int)(previous & 0xFF)];
            }
        return tables;
    }
}
