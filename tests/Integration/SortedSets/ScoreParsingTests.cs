using System.Text;
using RedisClone.Common;

namespace RedisClone.Tests.SortedSets;

/// <summary>
/// <see cref="RedisNumbers.TryParseStrtod"/>: C's strtod as Redis's score range parser uses it, which
/// accepts more than string2d (ZADD's scores) does.
/// </summary>
public class ScoreParsingTests
{
    [Theory]
    [InlineData("1.5", 1.5)]
    [InlineData("", 0.0)]
    [InlineData(" 2", 2.0)]
    [InlineData("\t\n-3", -3.0)]
    [InlineData("0x10", 16.0)]
    [InlineData("1e400", double.PositiveInfinity)]
    [InlineData("-1e400", double.NegativeInfinity)]
    [InlineData("1e-400", 0.0)]
    [InlineData("+inf", double.PositiveInfinity)]
    [InlineData("-Infinity", double.NegativeInfinity)]
    [InlineData("5.", 5.0)]
    [InlineData(".5e1", 5.0)]
    [InlineData("7\0junk", 7.0)]
    public void TryParseStrtod_Accepted(string text, double expected)
    {
        Assert.True(RedisNumbers.TryParseStrtod(Encoding.Latin1.GetBytes(text), out double value));
        Assert.Equal(expected, value);
    }

    [Theory]
    [InlineData("  ")]
    [InlineData("1 ")]
    [InlineData("nan")]
    [InlineData("-nan")]
    [InlineData("infinit")]
    [InlineData("0x")]
    [InlineData("1e")]
    [InlineData("-")]
    [InlineData("(1")]
    public void TryParseStrtod_Refused(string text)
        => Assert.False(RedisNumbers.TryParseStrtod(Encoding.Latin1.GetBytes(text), out _));

    [Fact]
    public void TryParseStrtod_UnderflowKeepsTheSign()
    {
        Assert.True(RedisNumbers.TryParseStrtod("-1e-400"u8, out double value));
        Assert.True(value == 0 && double.IsNegative(value));
        Assert.False(RedisNumbers.TryParseDouble("-1e-400"u8, out _));
        Assert.False(RedisNumbers.TryParseDouble(" 1"u8, out _));
    }
}
