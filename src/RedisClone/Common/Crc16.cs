using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace RedisClone.Common;

/// <summary>
/// The CRC16 Redis Cluster hashes keys with (CCITT polynomial 0x1021, initial value 0, no
/// reflection, no final xor — the XMODEM variant; CRC16("123456789") is 0x31C3), and the
/// key → slot mapping built on it.
/// </summary>
internal static class Crc16
{
    /// <summary>Number of hash slots in Redis Cluster; slots are CRC16 modulo this.</summary>
    public const int SlotCount = 16384;

    private const ushort Polynomial = 0x1021;

    /// <summary>
    /// Slicing-by-8 tables: <c>Tables[k][x]</c> is the CRC contribution of byte x followed by k zero
    /// bytes (k = 0 is the classic byte-at-a-time table). CRC is linear over GF(2), so eight bytes
    /// fold in with eight independent lookups instead of a chain of eight dependent ones; keys are
    /// hashed once per command for routing, and the chain was the routing's main cost.
    /// </summary>
    private static readonly ushort[] Tables = BuildTables();

    /// <summary>CRC16/XMODEM of <paramref name="data"/>.</summary>
    public static ushort Compute(ReadOnlySpan<byte> data)
    {
        ref ushort t = ref MemoryMarshal.GetArrayDataReference(Tables);
        ref byte p = ref MemoryMarshal.GetReference(data);
        int n = data.Length, i = 0;
        uint crc = 0;
        for (; i + 8 <= n; i += 8)
        {
            uint b0 = Unsafe.Add(ref p, i) ^ (crc >> 8), b1 = Unsafe.Add(ref p, i + 1) ^ (crc & 0xFF);
            crc = (uint)(Unsafe.Add(ref t, 7 * 256 + (int)b0) ^ Unsafe.Add(ref t, 6 * 256 + (int)b1)
                         ^ Unsafe.Add(ref t, 5 * 256 + Unsafe.Add(ref p, i + 2)) ^ Unsafe.Add(ref t, 4 * 256 + Unsafe.Add(ref p, i + 3))
                         ^ Unsafe.Add(ref t, 3 * 256 + Unsafe.Add(ref p, i + 4)) ^ Unsafe.Add(ref t, 2 * 256 + Unsafe.Add(ref p, i + 5))
                         ^ Unsafe.Add(ref t, 1 * 256 + Unsafe.Add(ref p, i + 6)) ^ Unsafe.Add(ref t, Unsafe.Add(ref p, i + 7)));
        }
        // The tail by four, two, then one byte: a 13-byte key is 8 + 4 + 1, three steps in a chain, not eight.
        if (n - i >= 4)
        {
            uint b0 = Unsafe.Add(ref p, i) ^ (crc >> 8), b1 = Unsafe.Add(ref p, i + 1) ^ (crc & 0xFF);
            crc = (uint)(Unsafe.Add(ref t, 3 * 256 + (int)b0) ^ Unsafe.Add(ref t, 2 * 256 + (int)b1)
                         ^ Unsafe.Add(ref t, 1 * 256 + Unsafe.Add(ref p, i + 2)) ^ Unsafe.Add(ref t, Unsafe.Add(ref p, i + 3)));
            i += 4;
        }
        if (n - i >= 2)
        {
            uint b0 = Unsafe.Add(ref p, i) ^ (crc >> 8), b1 = Unsafe.Add(ref p, i + 1) ^ (crc & 0xFF);
            crc = (uint)(Unsafe.Add(ref t, 1 * 256 + (int)b0) ^ Unsafe.Add(ref t, (int)b1));
            i += 2;
        }
        if (i < n)
            crc = ((crc << 8) ^ Unsafe.Add(ref t, (int)(((crc >> 8) ^ Unsafe.Add(ref p, i)) & 0xFF))) & 0xFFFF;
        return (ushort)crc;
    }

    /// <summary>
    /// The cluster slot of a key. If the key has a '{' followed later by a '}' with at least one
    /// byte between them, only the bytes between the first '{' and the first '}' after it are
    /// hashed (a "hash tag", so related keys can share a slot); otherwise the whole key is.
    /// </summary>
    public static int HashSlot(ReadOnlySpan<byte> key)
    {
        int open = key.IndexOf((byte)'{');
        if (open >= 0)
        {
            int close = key[(open + 1)..].IndexOf((byte)'}');
            if (close > 0)
            {
                key = key.Slice(open + 1, close);
            }
        }

        return Compute(key) & (SlotCount - 1);
    }

    private static ushort[] BuildTables()
    {
        var tables = new ushort[8 * 256];
        for (int i = 0; i < 256; i++)
        {
            int crc = i << 8;
            for (int bit = 0; bit < 8; bit++)
            {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ Polynomial : crc << 1;
            }

            tables[i] = (ushort)crc;
        }
        for (int k = 1; k < 8; k++)
        {
            for (int i = 0; i < 256; i++)
            {
                int previous = tables[(k - 1) * 256 + i]; // byte i then k-1 zero bytes; one more zero byte:
                tables[k * 256 + i] = (ushort)((previous << 8) ^ tables[previous >> 8]);
            }
        }

        return tables;
    }
}
