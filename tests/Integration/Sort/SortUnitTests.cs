using System.Text;
using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Sort;

/// <summary>
/// SORT's pieces without a socket: the key finder the dispatcher routes by, and the strtod
/// emulation numeric sorting scores with (expected results measured on Debian's redis-server 7.0).
/// </summary>
public class SortUnitTests
{
    private static int FindKeys(string[] command, Span<int> positions)
    {
        var buffer = new CommandBuffer();
        buffer.BeginCommand();
        foreach (var arg in command)
        {
            var bytes = Encoding.UTF8.GetBytes(arg);
            bytes.CopyTo(buffer.AddArg(bytes.Length));
        }
        buffer.EndCommand();
        var session = new ClientSession(0, null, null, () => { });
        var ctx = new CommandContext(buffer, 0, new RespWriter(NullBufferWriter.Instance, 2), session,
            TestServer.Shared.Server, 0);
        var def = TestServer.Shared.Server.Commands.Find(Encoding.UTF8.GetBytes(command[0]))!;
        return def.KeyFinder!(ref ctx, positions);
    }

    [Theory]
    [InlineData(new[] { "SORT", "l" }, new[] { 1 })]
    [InlineData(new[] { "SORT", "l", "STORE", "d" }, new[] { 1, 3 })]
    [InlineData(new[] { "SORT", "l", "STORE", "d", "STORE", "e" }, new[] { 1, 5 })]
    [InlineData(new[] { "SORT", "l", "BY", "nosort", "GET", "#", "STORE", "d" }, new[] { 1, 7 })]
    [InlineData(new[] { "SORT", "l", "GET", "nostar", "ALPHA" }, new[] { 1 })]
    [InlineData(new[] { "SORT", "l", "GET", "#\0*", "ALPHA" }, new[] { 1 })]
    [InlineData(new[] { "SORT", "l", "BY", "w\0*" }, new[] { 1 })]
    // The lenient scan Redis's COMMAND GETKEYS uses and the real parse disagree: both are claimed.
    [InlineData(new[] { "SORT", "l", "STORE", "get", "STORE", "d" }, new[] { 1, 3, 5 })]
    // A command that will fail to parse touches nothing: the lenient scan's answer suffices.
    [InlineData(new[] { "SORT", "l", "FOO", "STORE", "e" }, new[] { 1, 4 })]
    [InlineData(new[] { "SORT_RO", "l", "GET", "#" }, new[] { 1 })]
    [InlineData(new[] { "SORT_RO", "l", "STORE", "d" }, new[] { 1 })]
    public void SortKeys_WithoutPatterns_NamesOwnKeys(string[] command, int[] expected)
    {
        Span<int> positions = stackalloc int[256];
        int count = FindKeys(command, positions);
        Assert.Equal(expected, positions.Slice(0, count).ToArray());
    }

    [Theory]
    [InlineData(new[] { "SORT", "l", "BY", "w_*" }, new[] { 1 })]
    [InlineData(new[] { "SORT", "l", "GET", "o_*" }, new[] { 1 })]
    [InlineData(new[] { "SORT", "l", "GET", "#", "GET", "h_*->f", "STORE", "d" }, new[] { 1, 7 })]
    [InlineData(new[] { "SORT_RO", "l", "BY", "*" }, new[] { 1 })]
    public void SortKeys_WithPatterns_ClaimsEveryShard(string[] command, int[] own)
    {
        Span<int> positions = stackalloc int[256];
        int count = FindKeys(command, positions);
        // More keys than the span: the dispatcher takes every gate. The span holds only real keys.
        Assert.Equal(positions.Length + 1, count);
        foreach (int p in positions) Assert.Contains(p, own);
        foreach (int p in own) Assert.Contains(p, positions.ToArray());
    }

    [Theory]
    [InlineData("5", 5.0)]
    [InlineData("", 0.0)]
    [InlineData("\0", 0.0)]
    [InlineData("7\0junk", 7.0)]
    [InlineData(" \t\n\v\f\r-2", -2.0)]
    [InlineData("+4", 4.0)]
    [InlineData(".5", 0.5)]
    [InlineData("5.", 5.0)]
    [InlineData("-.5e1", -5.0)]
    [InlineData("0X1A", 26.0)]
    [InlineData("0x1.8p1", 3.0)]
    [InlineData("0x.8", 0.5)]
    [InlineData("1E2", 100.0)]
    [InlineData("INF", double.PositiveInfinity)]
    [InlineData("-Infinity", double.NegativeInfinity)]
    [InlineData("0e99999999999999999999", 0.0)]
    [InlineData("2.2250738585072014e-308", 2.2250738585072014e-308)]
    [InlineData("1.7976931348623157e308", double.MaxValue)]
    [InlineData("0x1p-1074", double.Epsilon)]
    [InlineData("0x1.9p-1070", 25 * double.Epsilon)]
    [InlineData("0x0.0000000000001p-1022", double.Epsilon)]
    public void SortScore_Numbers_ParseAsStrtod(string text, double expected)
    {
        Assert.True(SortCommands.SortScore.TryParse(Encoding.Latin1.GetBytes(text), out double value));
        Assert.Equal(expected, value);
    }

    [Theory]
    [InlineData("   ")]
    [InlineData("abc")]
    [InlineData("1 ")]
    [InlineData("1_000")]
    [InlineData("0x")]
    [InlineData("0x1p")]
    [InlineData("1e")]
    [InlineData("1.5e")]
    [InlineData("- 1")]
    [InlineData("+-1")]
    [InlineData("nan")]
    [InlineData("-nan")]
    [InlineData("nan(123)")]
    [InlineData("1e400")]
    [InlineData("1.7976931348623159e308")]
    [InlineData("0x1p1024")]
    [InlineData("1e-400")]
    // Inexact subnormals: glibc's strtod sets ERANGE, and Redis refuses them.
    [InlineData("4.9e-324")]
    [InlineData("1e-310")]
    [InlineData("2.2250738585072011e-308")]
    [InlineData("0x1.01p-1070")]
    [InlineData("0x1.0000000000001p-1060")]
    public void SortScore_NotNumbers_Fail(string text)
    {
        Assert.False(SortCommands.SortScore.TryParse(Encoding.Latin1.GetBytes(text), out _));
    }

    [Fact]
    public void SortScore_ExactDecimalSubnormal_Passes()
    {
        // 3 * 2^-1074 written out in full is exact, so strtod raises no ERANGE; one more digit is not.
        var exact = System.Numerics.BigInteger.Pow(5, 1074) * 3;
        string digits = exact.ToString();
        string text = "0." + new string('0', 1074 - digits.Length) + digits;
        Assert.True(SortCommands.SortScore.TryParse(Encoding.ASCII.GetBytes(text), out double value));
        Assert.Equal(3 * double.Epsilon, value);
        Assert.False(SortCommands.SortScore.TryParse(Encoding.ASCII.GetBytes(text + "1"), out _));
        Assert.True(SortCommands.SortScore.TryParse(Encoding.ASCII.GetBytes(text + "000"), out _));
    }
}
