using System.Buffers;
using System.IO.Pipelines;
using System.Text;
using BenchmarkDotNet.Attributes;
using RedisClone.Network;
using RedisClone.Server;

namespace RedisClone.Benchmarks;

/// <summary>
/// A whole batch through the real connection code: 100 pipelined commands written into an
/// in-memory pipe, parsed, dispatched to the shards, and every reply read back. Allocation per
/// operation must be zero in steady state.
/// </summary>
[MemoryDiagnoser]
public class BatchBenchmarks
{
    private RedisServer _server = null!;
    private Pipe _toServer = null!;
    private Pipe _fromServer = null!;
    private Task _loop = null!;
    private byte[] _setGetBatch = null!;
    private byte[] _incrBatch = null!;
    private int _setGetReplyBytes;
    private int _incrReplyBytes;

    [Params(1, 2)]
    public int Shards { get; set; }

    /// <summary>With a propagation listener attached, as when a replica or the AOF is on (the listener discards the units).</summary>
    [Params(false, true)]
    public bool Propagating { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _server = new RedisServer(ServerOptions.Parse(["--port", "0", "--shards", Shards.ToString()]));
        _server.Shards.Start();
        if (Propagating) _server.PropagationListener = new DiscardingListener();
        _toServer = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        _fromServer = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        var connection = new ClientConnection(_server, new DuplexPipe(_toServer.Reader, _fromServer.Writer), null, null, () => { });
        _loop = connection.ProcessLoopAsync();

        var sb = new StringBuilder();
        for (int i = 0; i < 50; i++)
        {
            sb.Append($"*3\r\n$3\r\nSET\r\n$10\r\nkey:{i:D6}\r\n$32\r\n{new string('v', 32)}\r\n");
            sb.Append($"*2\r\n$3\r\nGET\r\n$10\r\nkey:{i:D6}\r\n");
        }
        _setGetBatch = Encoding.ASCII.GetBytes(sb.ToString());
        _setGetReplyBytes = 50 * ("+OK\r\n".Length + "$32\r\n".Length + 32 + 2);

        sb.Clear();
        for (int i = 0; i < 100; i++) sb.Append($"*2\r\n$4\r\nINCR\r\n$10\r\nctr:{i % 10:D6}\r\n");
        _incrBatch = Encoding.ASCII.GetBytes(sb.ToString());
        // Warm the keys so INCR replies have a stable size: set each counter to 10^12.
        var warm = new StringBuilder();
        for (int i = 0; i < 10; i++) warm.Append($"*3\r\n$3\r\nSET\r\n$10\r\nctr:{i:D6}\r\n$13\r\n1000000000000\r\n");
        RoundTrip(Encoding.ASCII.GetBytes(warm.ToString()), 10 * 5).AsTask().GetAwaiter().GetResult();
        _incrReplyBytes = 100 * ":1000000000001\r\n".Length;
    }

    [Benchmark(OperationsPerInvoke = 100, Description = "100 pipelined SET/GET")]
    public ValueTask SetGet() => RoundTrip(_setGetBatch, _setGetReplyBytes);

    [Benchmark(OperationsPerInvoke = 100, Description = "100 pipelined INCR")]
    public ValueTask Incr() => RoundTrip(_incrBatch, _incrReplyBytes);

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask RoundTrip(byte[] batch, int replyBytes)
    {
        await _toServer.Writer.WriteAsync(batch);
        long seen = 0;
        while (true)
        {
            var result = await _fromServer.Reader.ReadAsync();
            long length = result.Buffer.Length;
            // INCR replies grow by a digit now and then; read whatever is complete.
            if (length >= replyBytes && EndsWithCrLf(result.Buffer))
            {
                _fromServer.Reader.AdvanceTo(result.Buffer.End);
                seen += length;
                break;
            }
            _fromServer.Reader.AdvanceTo(result.Buffer.Start, result.Buffer.End);
        }
    }

    private static bool EndsWithCrLf(in ReadOnlySequence<byte> buffer)
    {
        var tail = buffer.Slice(buffer.Length - 2);
        Span<byte> two = stackalloc byte[2];
        tail.CopyTo(two);
        return two[0] == '\r' && two[1] == '\n';
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _toServer.Writer.Complete();
        _loop.Wait(2000);
        _server.Shards.Dispose();
    }

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;
        public PipeWriter Output { get; } = output;
    }

    private sealed class DiscardingListener : Storage.IPropagationListener
    {
        public void Propagate(Storage.PropagatedUnit unit)
        {
        }
    }
}
