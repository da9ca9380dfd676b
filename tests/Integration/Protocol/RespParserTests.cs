using System.Buffers;
using System.Text;
using RedisClone.Protocol;

namespace RedisClone.Tests.Protocol;

public class RespParserTests
{
    private static (ParseStatus Status, List<string[]> Commands, long Consumed, string? Error) ParseAll(
        RespParser parser, CommandBuffer buffer, ReadOnlySequence<byte> input)
    {
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

    private static (ParseStatus Status, List<string[]> Commands, string? Error) Parse(string input)
    {
        var r = ParseAll(new RespParser(), new CommandBuffer(), new ReadOnlySequence<byte>(Encoding.Latin1.GetBytes(input)));
        return (r.Status, r.Commands, r.Error);
    }

    /// <summary>Builds a sequence whose segments split the input at every given offset.</summary>
    private static ReadOnlySequence<byte> Segmented(byte[] data, params int[] cuts)
    {
        var points = cuts.Where(c => c > 0 && c < data.Length).Distinct().OrderBy(c => c).Append(data.Length).ToArray();
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

        public Segment Append(ReadOnlyMemory<byte> memory) => Append(new Segment(memory));

        public Segment Append(Segment next)
        {
            next.RunningIndex = RunningIndex + Memory.Length;
            Next = next;
            return next;
        }
    }

    [Fact]
    public void Parse_Multibulk_ReturnsArguments()
    {
        var r = Parse("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n");
        Assert.Equal(ParseStatus.NeedMore, r.Status);
        Assert.Equal(new[] { "SET", "k", "hello" }, Assert.Single(r.Commands));
    }

    [Fact]
    public void Parse_EveryPrefixOfAFrame_IsIncomplete()
    {
        const string frame = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$10\r\n0123456789\r\n";
        for (int len = 0; len < frame.Length; len++)
        {
            var r = Parse(frame.Substring(0, len));
            Assert.Equal(ParseStatus.NeedMore, r.Status);
            Assert.Empty(r.Commands);
        }
        Assert.Single(Parse(frame).Commands);
    }

    [Fact]
    public void Parse_ByteByByteWithSameParser_ProducesOneCommand()
    {
        var data = Encoding.ASCII.GetBytes("*2\r\n$4\r\nECHO\r\n$11\r\nhello world\r\nPING\r\n");
        var parser = new RespParser();
        var buffer = new CommandBuffer();
        var pending = new List<byte>();
        var seen = new List<string[]>();
        foreach (byte b in data)
        {
            pending.Add(b);
            var r = ParseAll(parser, buffer, new ReadOnlySequence<byte>(pending.ToArray()));
            seen.AddRange(r.Commands);
            pending.RemoveRange(0, (int)r.Consumed);
            buffer.Clear();
        }
        Assert.Equal(2, seen.Count);
        Assert.Equal(new[] { "ECHO", "hello world" }, seen[0]);
        Assert.Equal(new[] { "PING" }, seen[1]);
    }

    [Fact]
    public void Parse_SplitAcrossSegmentsAtEveryOffset_ProducesSameCommand()
    {
        var data = Encoding.ASCII.GetBytes("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n");
        for (int cut1 = 1; cut1 < data.Length; cut1++)
            for (int cut2 = cut1; cut2 < data.Length; cut2 += 3)
            {
                var r = ParseAll(new RespParser(), new CommandBuffer(), Segmented(data, cut1, cut2));
                Assert.Equal(new[] { "SET", "key", "value" }, Assert.Single(r.Commands));
                Assert.Equal(data.Length, r.Consumed);
            }
    }

    [Fact]
    public void Parse_HundredPipelinedCommands_AllParsedInOrder()
    {
        var sb = new StringBuilder();
        for (int i = 0; i < 100; i++) sb.Append($"*3\r\n$3\r\nSET\r\n${$"k{i}".Length}\r\nk{i}\r\n$1\r\nv\r\n");
        var r = Parse(sb.ToString());
        Assert.Equal(100, r.Commands.Count);
        for (int i = 0; i < 100; i++) Assert.Equal($"k{i}", r.Commands[i][1]);
    }

    [Fact]
    public void Parse_LargeBulkArrivingInPieces_IsConsumedAsItArrives()
    {
        var value = new string('x', 200_000);
        var data = Encoding.ASCII.GetBytes($"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n${value.Length}\r\n{value}\r\n");
        var parser = new RespParser();
        var buffer = new CommandBuffer();
        int offset = 0;
        string[]? command = null;
        while (offset < data.Length)
        {
            int take = Math.Min(7_000, data.Length - offset);
            var r = ParseAll(parser, buffer, new ReadOnlySequence<byte>(data, offset, take));
            // Apart from a short header line, everything offered is consumed.
            Assert.True(take - r.Consumed < 16, $"held back {take - r.Consumed} bytes");
            if (r.Commands.Count > 0) command = r.Commands[0];
            offset += (int)r.Consumed;
            if (r.Consumed == 0) break;
        }
        Assert.NotNull(command);
        Assert.Equal(value, command![2]);
    }

    [Theory]
    [InlineData("PING\r\n", new[] { "PING" })]
    [InlineData("PING\n", new[] { "PING" })]
    [InlineData("  set   a   b  \r\n", new[] { "set", "a", "b" })]
    [InlineData("SET \"a b\" 'c d'\r\n", new[] { "SET", "a b", "c d" })]
    [InlineData("ECHO \"\\x41\\n\"\r\n", new[] { "ECHO", "A\n" })]
    [InlineData("ECHO 'it\\'s'\r\n", new[] { "ECHO", "it's" })]
    [InlineData("ECHO a\"b c\" d\r\n", new[] { "ECHO", "ab c", "d" })]
    public void Parse_Inline_SplitsLikeRedis(string line, string[] expected)
    {
        var r = Parse(line);
        Assert.Equal(expected, Assert.Single(r.Commands));
    }

    [Fact]
    public void Parse_EmptyInlineLinesAndZeroCounts_AreIgnored()
    {
        var r = Parse("\r\n\n*0\r\n*-1\r\nPING\r\n");
        Assert.Equal(new[] { "PING" }, Assert.Single(r.Commands));
    }

    [Theory]
    [InlineData("*abc\r\n", "Protocol error: invalid multibulk length")]
    [InlineData("*3000000000\r\n", "Protocol error: invalid multibulk length")]
    [InlineData("*1\r\n+PING\r\n", "Protocol error: expected '$', got '+'")]
    [InlineData("*1\r\n$-1\r\n", "Protocol error: invalid bulk length")]
    [InlineData("*1\r\n$abc\r\n", "Protocol error: invalid bulk length")]
    [InlineData("*1\r\n$536870913\r\n", "Protocol error: invalid bulk length")]
    [InlineData("ECHO \"abc\r\n", "Protocol error: unbalanced quotes in request")]
    [InlineData("ECHO \"abc\"def\r\n", "Protocol error: unbalanced quotes in request")]
    [InlineData("ECHO 'abc\r\n", "Protocol error: unbalanced quotes in request")]
    [InlineData("ECHO a\"b c\"d\r\n", "Protocol error: unbalanced quotes in request")]
    public void Parse_MalformedInput_ReportsRedisError(string input, string error)
    {
        var r = Parse(input);
        Assert.Equal(ParseStatus.Malformed, r.Status);
        Assert.Equal(error, r.Error);
    }

    [Fact]
    public void Parse_HugeMultibulkCount_DoesNotPreallocate()
    {
        // A client claiming 2^31-1 arguments must not make the server reserve room for them.
        long before = GC.GetAllocatedBytesForCurrentThread();
        var r = Parse("*2147483647\r\n$1\r\na\r\n");
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(ParseStatus.NeedMore, r.Status);
        Assert.True(allocated < 1_000_000, $"allocated {allocated} bytes");
    }

    [Fact]
    public void Parse_InlineLineOver64KWithoutNewline_IsTooBig()
    {
        var r = Parse(new string('a', 64 * 1024 + 1));
        Assert.Equal(ParseStatus.Malformed, r.Status);
        Assert.Equal("Protocol error: too big inline request", r.Error);
    }

    [Fact]
    public void Parse_MultibulkHeaderOver64KWithoutCr_IsTooBig()
    {
        var r = Parse("*" + new string('1', 64 * 1024 + 1));
        Assert.Equal("Protocol error: too big mbulk count string", r.Error);
        r = Parse("*1\r\n$" + new string('1', 64 * 1024 + 1));
        Assert.Equal("Protocol error: too big bulk count string", r.Error);
    }
}
