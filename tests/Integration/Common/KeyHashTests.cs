using RedisClone.Storage;

namespace RedisClone.Tests.Common;

/// <summary>The hash every key, field and member table uses (<see cref="KeyTable.HashOf"/>).</summary>
public sealed class KeyHashTests
{
    [Fact]
    public void EqualBytes_HashEqually_WhereverTheyLie()
    {
        var rng = new Random(5);
        for (int length = 0; length <= 70; length++)
        {
            var data = new byte[length];
            rng.NextBytes(data);
            var shifted = new byte[length + 3];
            data.CopyTo(shifted, 3);
            Assert.Equal(KeyTable.HashOf(data), KeyTable.HashOf(shifted.AsSpan(3)));
            Assert.InRange(KeyTable.HashOf(data), 0, int.MaxValue);
        }
    }

    [Fact]
    public void EveryByteAndTheLength_ChangeTheHash()
    {
        // Flipping any bit of any byte, at every length that takes a different path (short, one or
        // two words, overlapping reads, 16-byte blocks), gives a different hash; so does appending a zero byte.
        var rng = new Random(7);
        for (int length = 0; length <= 70; length++)
        {
            var data = new byte[length];
            rng.NextBytes(data);
            int hash = KeyTable.HashOf(data);
            for (int i = 0; i < length; i++)
            {
                for (int bit = 0; bit < 8; bit++)
                {
                    data[i] ^= (byte)(1 << bit);
                    Assert.NotEqual(hash, KeyTable.HashOf(data));
                    data[i] ^= (byte)(1 << bit);
                }
            }
            var longer = new byte[length + 1];
            data.CopyTo(longer, 0);
            Assert.NotEqual(hash, KeyTable.HashOf(longer));
        }
    }

    [Theory]
    [InlineData("key:{0:D6}")]
    [InlineData("memtier-{0}")]
    [InlineData("{0}")]
    [InlineData("user:session:0000000000000000:{0}:payload")]
    public void SequentialKeys_SpreadOverTheBuckets(string pattern)
    {
        // Tables index buckets with the low bits: 100,000 similar keys in 2^17 buckets should fill
        // them as a random function would: 2^17 * (1 - e^(-100000/2^17)) = 69,954 buckets used
        // (standard deviation about 110), longest chain 7 or 8.
        const int keys = 100_000, buckets = 1 << 17;
        var counts = new int[buckets];
        for (int i = 0; i < keys; i++)
            counts[KeyTable.HashOf(System.Text.Encoding.ASCII.GetBytes(string.Format(pattern, i))) & (buckets - 1)]++;
        int used = counts.Count(c => c > 0);
        Assert.InRange(counts.Max(), 1, 12);
        Assert.InRange(used, 69_000, 70_900);
    }
}
