using System.Text;
using RedisClone.Commands;

namespace RedisClone.Tests.Geo;

/// <summary>
/// Distances print as Redis 7.2's fixedpoint_d2string(d, 4): d * 10^4 rounded to the nearest integer
/// (ties to even), where 7.0 (the differential tests' reference) printed "%.4f" of the exact value.
/// </summary>
public sealed class GeoDistanceFormatTests
{
    [Theory]
    [InlineData(0.0, "0.0000")]
    [InlineData(1.0, "1.0000")]
    [InlineData(123.45678, "123.4568")]
    [InlineData(0.00025, "0.0002")]   // a hair over in binary, so "%.4f" (7.0) gives 0.0003; times 10^4 it is 2.5 exactly: ties to even
    [InlineData(0.00035, "0.0004")]
    [InlineData(20037508.342789244, "20037508.3428")]
    [InlineData(0.00004, "0.0000")]
    public void FormatDistance_RoundsAsRedis72(double meters, string expected)
    {
        Span<byte> text = stackalloc byte[48];
        int n = GeoCommands.FormatDistance(meters, text);
        Assert.Equal(expected, Encoding.ASCII.GetString(text[..n]));
    }
}
