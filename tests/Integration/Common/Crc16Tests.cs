using System.Text;
using RedisClone.Common;

namespace RedisClone.Tests.Common;

/// <summary>
/// CRC16 and hash slots. Slot expectations come from CLUSTER KEYSLOT on a cluster-enabled
/// redis-server 7.0.15; 20,000 random keys over "{}" heavy alphabets matched as well.
/// </summary>
public sealed class Crc16Tests
{
    private static byte[] Bytes(string s) => Encoding.Latin1.GetBytes(s);

    [Fact]
    public void Compute_CheckString_IsXmodemCheckValue()
    {
        Assert.Equal(0x31C3, Crc16.Compute("123456789"u8));
    }

    [Fact]
    public void Compute_Empty_IsZero()
    {
        Assert.Equal(0, Crc16.Compute(ReadOnlySpan<byte>.Empty));
    }

    [Fact]
    public void Compute_MatchesBitwiseDefinition()
    {
        // Polynomial long division one bit at a time, independent of the table.
        static ushort Bitwise(ReadOnlySpan<byte> data)
        {
            int crc = 0;
            foreach (byte b in data)
            {
                crc ^= b << 8;
                for (int i = 0; i < 8; i++)
                {
                    crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
                }
            }

            return (ushort)crc;
        }

        var rng = new Random(3);
        for (int i = 0; i < 2000; i++)
        {
            byte[] data = new byte[rng.Next(0, 64)];
            rng.NextBytes(data);
            Assert.Equal(Bitwise(data), Crc16.Compute(data));
        }
    }

    [Theory]
    [InlineData("", 0)]
    [InlineData("{}", 15257)]
    [InlineData("{", 4092)]
    [InlineData("}", 12090)]
    [InlineData("{a}", 15495)]
    [InlineData("a{b}c", 3300)]
    [InlineData("{}a", 10875)]
    [InlineData("{}{a}", 13650)]
    [InlineData("a{}{b}", 15033)]
    [InlineData("{{a}}", 10276)]
    [InlineData("foo{bar}{zap}", 5061)]
    [InlineData("123456789", 12739)]
    [InlineData("{user1000}.following", 3443)]
    [InlineData("{user1000}.followers", 3443)]
    [InlineData("{9}\u00ff9\u000091}", 10106)]
    [InlineData("a\u0000y\u00ff}1a}", 1021)]
    [InlineData("b}", 626)]
    [InlineData("\u0000}xzb0}", 8462)]
    [InlineData("}x{{}\u0000\u00ffx{\u00ff\u00ff", 4092)]
    [InlineData("0y{{a\u0000a}\u00ff", 3254)]
    [InlineData("{\u0000{", 9989)]
    [InlineData("}}z}", 10498)]
    [InlineData("1}{9}}x{a}", 10106)]
    [InlineData("{}{{b}", 3107)]
    [InlineData("\u000000a", 15543)]
    [InlineData("19}b{}\u0000{y", 2896)]
    [InlineData("}{yy9{a{a9}", 2113)]
    [InlineData("az\u00ffx}x", 14848)]
    [InlineData("\u0000aya9{0}b", 13907)]
    [InlineData("0", 13907)]
    [InlineData("\u00ff\u00ff}\u0000{axb}}z", 8527)]
    [InlineData("}}{}{}9zb", 11737)]
    [InlineData("1}{{", 7003)]
    [InlineData("b1{99{y{9ab0", 1181)]
    [InlineData("}xa}90}\u0000", 13278)]
    [InlineData("y1x{", 3483)]
    public void HashSlot_Keys_MatchClusterKeyslot(string key, int slot)
    {
        Assert.Equal(slot, Crc16.HashSlot(Bytes(key)));
    }

    [Fact]
    public void HashSlot_HashTag_HashesOnlyTheTag()
    {
        Assert.Equal(Crc16.HashSlot("bar"u8), Crc16.HashSlot("foo{bar}{zap}"u8));
        Assert.Equal(Crc16.Compute("{}x"u8) & 16383, Crc16.HashSlot("{}x"u8)); // empty tag: whole key
        Assert.Equal(Crc16.HashSlot("{a"u8), Crc16.HashSlot("}{{a}"u8));    // first '{', then the next '}'
    }

    [Fact]
    public void HashSlot_DoesNotAllocate()
    {
        Crc16.HashSlot("{user}:1"u8);
        long before = GC.GetAllocatedBytesForCurrentThread();
        int total = 0;
        for (int i = 0; i < 1000; i++)
        {
            total += Crc16.HashSlot("{user1000}.following"u8);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.Equal(3443 * 1000, total);
    }
}
