using System.Text;
using RedisClone.Common;

namespace RedisClone.Tests.Common;

/// <summary>Redis's CRC64 (Jones polynomial, reflected, initial 0): check value, chaining, the slicing-by-8 path.</summary>
public class Crc64Tests
{
    [Fact]
    public void Compute_CheckString_IsRedisCheckValue()
        => Assert.Equal(0xe9c6d914c4b8d9caUL, Crc64.Compute("123456789"u8));

    [Fact]
    public void Compute_Empty_IsZero() => Assert.Equal(0UL, Crc64.Compute([]));

    [Fact]
    public void Update_InPieces_EqualsWhole()
    {
        var data = new byte[1000];
        new Random(42).NextBytes(data);
        ulong whole = Crc64.Compute(data);
        foreach (int split in new[] { 0, 1, 7, 8, 9, 500, 999, 1000 })
            Assert.Equal(whole, Crc64.Update(Crc64.Compute(data.AsSpan(0, split)), data.AsSpan(split)));
    }

    [Fact]
    public void Compute_EveryLength_MatchesBitwiseDefinition()
    {
        var data = new byte[40];
        new Random(7).NextBytes(data);
        for (int n = 0; n <= data.Length; n++)
            Assert.Equal(Bitwise(data.AsSpan(0, n)), Crc64.Compute(data.AsSpan(0, n)));
    }

    /// <summary>The CRC as Redis's crc64.c defines it bit by bit: non-reflected register fed LSB first, output reflected.</summary>
    private static ulong Bitwise(ReadOnlySpan<byte> data)
    {
        const ulong poly = 0xad93d23594c935a9;
        ulong crc = 0;
        foreach (byte c in data)
            for (int i = 1; (i & 0xFF) != 0; i <<= 1)
            {
                bool bit = (crc & 0x8000000000000000) != 0;
                if ((c & i) != 0) bit = !bit;
                crc <<= 1;
                if (bit) crc ^= poly;
            }
        ulong reflected = 0;
        for (int i = 0; i < 64; i++)
            if ((crc & (1UL << i)) != 0) reflected |= 1UL << (63 - i);
        return reflected;
    }

    [Fact]
    public void Compute_DoesNotAllocate()
    {
        var data = Encoding.ASCII.GetBytes(new string('x', 4096));
        Crc64.Compute(data);
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 100; i++) Crc64.Compute(data);
        Assert.Equal(before, GC.GetAllocatedBytesForCurrentThread());
    }
}
