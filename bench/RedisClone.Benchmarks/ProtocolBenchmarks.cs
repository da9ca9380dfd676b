using System.Buffers;
using System.Text;
using BenchmarkDotNet.Attributes;
using RedisClone.Commands;
using RedisClone.Protocol;

namespace RedisClone.Benchmarks;

/// <summary>RESP parsing of 100 pipelined commands, contiguous and split into small segments.</summary>
[MemoryDiagnoser]
public class RespReaderBenchmarks
{
    private readonly RespParser _parser = new();
    private readonly CommandBuffer _commands = new();
    private ReadOnlySequence<byte> _single;
    private ReadOnlySequence<byte> _segmented;

    [GlobalSetup]
    public void Setup()
    {
        var sb = new StringBuilder();
        for (int i = 0; i < 50; i++)
        {
            sb.Append($"*3\r\n$3\r\nSET\r\n$10\r\nkey:{i:D6}\r\n$32\r\n{new string('v', 32)}\r\n");
            sb.Append($"*2\r\n$3\r\nGET\r\n$10\r\nkey:{i:D6}\r\n");
        }
        var bytes = Encoding.ASCII.GetBytes(sb.ToString());
        _single = new ReadOnlySequence<byte>(bytes);
        _segmented = Segments.Split(bytes, 61);
    }

    [Benchmark(OperationsPerInvoke = 100, Description = "parse 100 commands, one segment")]
    public int SingleSegment() => Parse(_single);

    [Benchmark(OperationsPerInvoke = 100, Description = "parse 100 commands, 61-byte segments")]
    public int MultiSegment() => Parse(_segmented);

    private int Parse(ReadOnlySequence<byte> input)
    {
        var reader = new SequenceReader<byte>(input);
        _parser.Parse(ref reader, _commands);
        int n = _commands.Count;
        _commands.Clear();
        return n;
    }
}

/// <summary>Reply encoding into a reused buffer.</summary>
[MemoryDiagnoser]
public class RespWriterBenchmarks
{
    private readonly ReplyBuffer _buffer = new(1 << 16);
    private readonly byte[] _value = Encoding.ASCII.GetBytes(new string('v', 32));

    [Benchmark(OperationsPerInvoke = 100, Description = "100 replies: OK, bulk, integer")]
    public int Replies()
    {
        _buffer.Clear();
        var w = new RespWriter(_buffer, 2);
        for (int i = 0; i < 33; i++)
        {
            w.Ok();
            w.Bulk(_value);
            w.Integer(i * 1234567L);
        }
        w.NullBulk();
        return _buffer.Written;
    }
}

/// <summary>Command lookup by name bytes, in the case clients send.</summary>
[MemoryDiagnoser]
public class CommandLookupBenchmarks
{
    private readonly byte[][] _names = ["GET"u8.ToArray(), "set"u8.ToArray(), "IncrBy"u8.ToArray(), "CLIENT"u8.ToArray()];

    [Benchmark(OperationsPerInvoke = 4, Description = "lookup GET/set/IncrBy/CLIENT")]
    public int Lookup()
    {
        int arity = 0;
        foreach (var n in _names) arity += CommandTable.Instance.Find(n)!.Arity;
        return arity;
    }
}

/// <summary>Builds multi-segment sequences for the parser benchmarks.</summary>
internal static class Segments
{
    public static ReadOnlySequence<byte> Split(byte[] data, int size)
    {
        Segment? first = null, last = null;
        for (int start = 0; start < data.Length; start += size)
        {
            var seg = new Segment(data.AsMemory(start, Math.Min(size, data.Length - start)));
            if (first == null) first = last = seg;
            else last = last!.Append(seg);
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
}
