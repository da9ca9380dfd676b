using System.Buffers.Binary;

namespace RedisClone.Common;

/// <summary>
/// Austin Appleby's MurmurHash64A, the 64-bit hash Redis's HyperLogLog feeds its elements through:
/// the same bytes and seed must give the same hash as Redis so the same elements land in the same
/// registers. Words are read little-endian, as Redis does on every platform.
/// </summary>
internal static class MurmurHash64A
{
    public static ulong Hash(ReadOnlySpan<byte> data, uint seed)
    {
        const ulong m = 0xc6a4a7935bd1e995UL;
        const int r = 47;
        ulong h = seed ^ ((ulong)data.Length * m);
        int whole = data.Length & ~7;
        for (int i = 0; i < whole; i += 8)
        {
            ulong k = BinaryPrimitives.ReadUInt64LittleEndian(data.Slice(i, 8));
            k *= m;
            k ^= k >> r;
            k *= m;
            h ^= k;
            h *= m;
        }
        int rest = data.Length & 7;
        if (rest != 0)
        {
            var tail = data[whole..];
            for (int i = rest - 1; i >= 0; i--) h ^= (ulong)tail[i] << (8 * i);
            h *= m;
        }
        h ^= h >> r;
        h *= m;
        h ^= h >> r;
        return h;
    }
}
