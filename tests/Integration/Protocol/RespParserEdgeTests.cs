using System.Buffers;
using System.Text;
using RedisClone.Protocol;

namespace RedisClone.Tests.Protocol;

/// <summary>
/// Parser cases behind the wire differential tests that a socket cannot pin down: lines split across
/// pipe segments, the 64 KB line window, and NUL bytes that stop Redis's line search.
/// </summary>
public class RespParserEdgeTests
{
    private static (ParseStatus Status, List<string[]> Commands, long Consumed, string? Error) Parse(ReadOnlySequence<byte> input)
    {
        var parser = new RespParser();
        var buffer = new CommandBuffer();
        var reader = new SequenceReader<byte>(input);
        var status = parser.Parse(ref reader, buffer);
        var commands = new List<string[]>();
        for (int c = 0; c < buffer.Count; c++)
        {
            var args = new string[buffer.ArgCount(c)];
            for (int a = 0; a < args.Length; a++) args[a] = Encoding.Latin1.GetString(buffer.Arg(c, a));
            commands.Add(args);
        }
        return (status, commands, reader.Consumed, parser.Error);
    }

    private static (ParseStatus Status, List<string[]> Commands, long Consumed, string? Error) Parse(string input, params int[] cuts)
        => Parse(Segmented(Encoding.Latin1.GetBytes(input), cuts));

    private static ReadOnlySequence<byte> Segmented(byte[] data, params int[] cuts)
    {
        var points = cuts.Where(c => c > 0 && c < data.Length).Distinct().Order().Append(data.Length).ToArray();
        Segment? first = null, last = null;
        int start = 0;
        foreach (int end in points)
        {
            var seg = new Segment(data.AsMemory(start, end - start));
            if (first == null) first = last = seg;
            else last = last!.Append(seg);
            start = end;
        }
        return new ReadOnlySequence<byte>(first!, 0, last!, last!.Memory.Length);
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory) => Memory = memory;

        public Segment Append(Segment next)
        {
            next.RunningIndex = RunningIndex + Memory.Length;
            Next = next;
            return next;
        }
    }

    [Fact]
    public void Parse_InlineSplitAcrossSegmentsAtEveryOffset_SameArguments()
    {
        // A short line (copied to the stack) and a long one (copied to a rented buffer).
        foreach (var line in new[] { "SET \"a b\" 'it\\'s'\r\n", "SET k " + new string('v', 700) + "\r\n" })
        {
            var whole = Parse(line);
            for (int cut = 1; cut < line.Length; cut += line.Length > 100 ? 37 : 1)
            {
                var r = Parse(line, cut);
                Assert.Equal(whole.Commands, r.Commands);
                Assert.Equal(line.Length, r.Consumed);
            }
        }
    }

    [Fact]
    public void Parse_HeaderSplitAcrossSegments_ParsedOrRejectedAsWhole()
    {
        const string frame = "*2\r\n$4\r\nECHO\r\n$11\r\nhello world\r\n";
        for (int a = 1; a < frame.Length; a++)
            Assert.Equal(new[] { "ECHO", "hello world" }, Assert.Single(Parse(frame, a, a + 1).Commands));

        // A split header longer than the parser's scratch copy is still an invalid number.
        var longCount = "*" + new string('1', 100) + "\r\n";
        Assert.Equal("Protocol error: invalid multibulk length", Parse(longCount, 50).Error);
        var longLength = "*1\r\n$" + new string('2', 100) + "\r\n";
        Assert.Equal("Protocol error: invalid bulk length", Parse(longLength, 30, 90).Error);
    }

    [Theory]
    [InlineData("PING\0\r\n")]
    [InlineData("\0\r\n")]
    [InlineData("*1\0\r\n$4\r\nPING\r\n")]
    [InlineData("*1\r\n\0\r\n")]
    [InlineData("*1\r\n$4\0\r\nPING\r\n")]
    public void Parse_NulBeforeLineEnd_WaitsLikeRedisStrchr(string input)
    {
        var r = Parse(input);
        Assert.Equal(ParseStatus.NeedMore, r.Status);
        Assert.Empty(r.Commands);
    }

    [Fact]
    public void Parse_NulStuckLineGrowingPast64K_IsTooBig()
    {
        Assert.Equal("Protocol error: too big inline request", Parse("PING\0" + new string('x', 65_532)).Error);
        Assert.Equal(ParseStatus.NeedMore, Parse("PING\0" + new string('x', 65_531)).Status);
        Assert.Equal("Protocol error: too big mbulk count string", Parse("*1\0" + new string('x', 65_534)).Error);
    }

    [Fact]
    public void Parse_LineEndWithin64KWindow_AcceptedBeyondIt_TooBig()
    {
        var ok = Parse(new string('x', 65_536) + "\n");
        Assert.Equal(ParseStatus.NeedMore, ok.Status);
        Assert.Single(ok.Commands);

        // Redis rejects this whenever its reads stop before the newline; we always do.
        var tooBig = Parse(new string('x', 65_537) + "\n", 40_000);
        Assert.Equal("Protocol error: too big inline request", tooBig.Error);
        Assert.Equal("Protocol error: too big mbulk count string", Parse("*" + new string('1', 65_536) + "\r\n").Error);
    }

    [Fact]
    public void Parse_HeaderCrAtEndOfInput_WaitsForTheNextByte()
    {
        var r = Parse("*1\r\n$4\r");
        Assert.Equal(ParseStatus.NeedMore, r.Status);
        var done = Parse("*1\r\n$4\rXPING\r\n");
        Assert.Equal(new[] { "PING" }, Assert.Single(done.Commands));
    }
}
