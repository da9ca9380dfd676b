using RedisClone.Storage;

namespace RedisClone.Tests.Hashes;

/// <summary><see cref="Leb128"/>, the length prefix of packed collections and arena records: sizes at each byte boundary, and a value read back as written.</summary>
public class Leb128Tests
{
    [Theory]
    [InlineData(0, 1)]
    [InlineData(127, 1)]
    [InlineData(128, 2)]
    [InlineData(16_383, 2)]
    [InlineData(16_384, 3)]
    [InlineData(2_097_151, 3)]
    [InlineData(2_097_152, 4)]
    [InlineData(268_435_455, 4)]
    [InlineData(268_435_456, 5)]
    [InlineData(int.MaxValue, 5)]
    public void WriteRead_RoundTripsInItsSize(int value, int size)
    {
        Assert.Equal(size, Leb128.Size(value));
        Assert.Equal(size, Leb128.Size((long)value));
        var buffer = new byte[8];
        buffer[0] = 0xEE; // a byte before it stays
        int at = 1;
        Leb128.Write(buffer, ref at, value);
        Assert.Equal(1 + size, at);
        Assert.Equal(0xEE, buffer[0]);
        at = 1;
        Assert.Equal(value, Leb128.Read(buffer, ref at));
        Assert.Equal(1 + size, at);
        for (int i = 1; i < size; i++) Assert.True(buffer[i] >= 0x80, $"byte {i} of {value} continues");
        Assert.True(buffer[size] < 0x80);
    }

    [Fact]
    public void Write_LowestSevenBitsFirst()
    {
        var buffer = new byte[2];
        int at = 0;
        Leb128.Write(buffer, ref at, 300); // 0b1_0010_1100
        Assert.Equal(new byte[] { 0xAC, 0x02 }, buffer);
    }
}
