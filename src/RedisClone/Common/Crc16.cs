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

    /// <summary>Byte-at-a-time table: the CRC of each byte value shifted into the top of the register.</summary>
    private static readonly ushort[] Table = BuildTable();

    /// <summary>CRC16/XMODEM of <paramref name="data"/>.</summary>
    public static ushort Compute(ReadOnlySpan<byte> data)
    {
        ushort[] table = Table;
        int crc = 0;
        foreach (byte b in data)
        {
            crc = (crc << 8) ^ table[((crc >> 8) ^ b) & 0xFF];
        }

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

    private static ushort[] BuildTable()
    {
        var table = new ushort[256];
        for (int i = 0; i < 256; i++)
        {
            int crc = i << 8;
            for (int bit = 0; bit < 8; bit++)
            {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ Polynomial : crc << 1;
            }

            table[i] = (ushort)crc;
        }

        return table;
    }
}
