using System.IO.Pipelines;
using System.Net.Sockets;
using RedisClone.Commands;
using RedisClone.Server;

namespace RedisClone.Network;

/// <summary>
/// A socket between two pipes, Kestrel-style: a receive loop fills the input pipe, a send loop drains
/// the output pipe. The pipes' thresholds give backpressure in both directions. TLS connections use
/// it on every platform, with an SslStream between the socket and the pipes.
/// </summary>
/// <remarks>
/// CLIENT LIST sees less here than with the epoll transport: a Pipe does not tell how much it holds,
/// so qbuf is 0, and the replies being sent show as one reply-list block (oll=1, omem) while a send
/// waits for the socket.
/// </remarks>
internal sealed class SocketTransport : IDuplexPipe, IClientBuffers
{
    private const int InputPause = 1 << 20, InputResume = 1 << 19;
    private const int OutputPause = 1 << 20, OutputResume = 1 << 19;

    // The read loop resumes on the thread pool, as in Kestrel: with an inline reader scheduler a
    // CancelPendingRead from another thread (a pub/sub publisher, CLIENT KILL) would run this
    // connection's loop on that thread, inside whatever locks it holds. (Linux uses the event loops
    // in Network/Epoll instead, which deliver such wake-ups on the loop thread.)
    private static readonly PipeOptions InputOptions = new(
        pauseWriterThreshold: InputPause, resumeWriterThreshold: InputResume,
        readerScheduler: PipeScheduler.ThreadPool, writerScheduler: PipeScheduler.Inline,
        minimumSegmentSize: 16 * 1024, useSynchronizationContext: false);

    private static readonly PipeOptions OutputOptions = new(
        pauseWriterThreshold: OutputPause, resumeWriterThreshold: OutputResume,
        readerScheduler: PipeScheduler.Inline, writerScheduler: PipeScheduler.Inline,
        minimumSegmentSize: 16 * 1024, useSynchronizationContext: false);

    private readonly Socket _socket;
    private readonly Stream? _stream; // TLS: the SslStream over the socket; null: the socket itself
    private readonly ServerStats _stats;
    private readonly Pipe _input = new(InputOptions);
    private readonly Pipe _output = new(OutputOptions);
    private int _closed;
    private long _sending; // bytes of the send in progress, for CLIENT LIST
    private readonly CancellationTokenSource _closedSource = new();

    /// <summary>Canceled once the client is gone (its side closed, or we closed the socket).</summary>
    public CancellationToken Closed => _closedSource.Token;

    /// <param name="stream">A stream over <paramref name="socket"/> to read and write instead (TLS); the
    /// socket is still what <see cref="Close"/> shuts down.</param>
    public SocketTransport(Socket socket, ServerStats stats, Stream? stream = null)
    {
        _socket = socket;
        _stream = stream;
        _stats = stats;
        Fd = (int)socket.SafeHandle.DangerousGetHandle(); // as EpollTransport: Socket.Handle would mark it exposed
    }

    public PipeReader Input => _input.Reader;

    public int Fd { get; }

    public ClientBufferUsage Measure()
    {
        long sending = Volatile.Read(ref _sending);
        return new ClientBufferUsage(0, 0, 0, 0, 0, 0, 0, 0, sending > 0 ? 1 : 0, sending, sending > 0);
    }

    public PipeWriter Output => _output.Writer;

    /// <summary>Starts both loops; the task completes when both have ended.</summary>
    public Task RunAsync() => Task.WhenAll(ReceiveLoopAsync(), SendLoopAsync());

    /// <summary>Closes the socket; both loops then end. Safe from any thread, more than once.</summary>
    public void Close()
    {
        if (Interlocked.Exchange(ref _closed, 1) == 1) return;
        try { _closedSource.Cancel(); } catch (ObjectDisposedException) { }
        try { _socket.Shutdown(SocketShutdown.Both); } catch (Exception) { }
        _input.Reader.CancelPendingRead();
        _output.Writer.CancelPendingFlush();
    }

    private async Task ReceiveLoopAsync()
    {
        var writer = _input.Writer;
        try
        {
            while (true)
            {
                var memory = writer.GetMemory(8192);
                int n = _stream != null
                    ? await _stream.ReadAsync(memory)
                    : await _socket.ReceiveAsync(memory, SocketFlags.None);
                if (n == 0) break;
                writer.Advance(n);
                _stats.NetInputBytes.Add(n);
                _stats.ReadsProcessed.Add(1);
                var flush = await writer.FlushAsync();
                if (flush.IsCompleted || flush.IsCanceled) break;
            }
        }
        catch (SocketException) { }
        catch (ObjectDisposedException) { }
        catch (IOException) { } // the stream's way of saying the socket failed (or a TLS record was bad)
        try { _closedSource.Cancel(); } catch (ObjectDisposedException) { }
        await writer.CompleteAsync();
    }

    private async Task SendLoopAsync()
    {
        var reader = _output.Reader;
        try
        {
            while (true)
            {
                var result = await reader.ReadAsync();
                var buffer = result.Buffer;
                Volatile.Write(ref _sending, buffer.Length);
                foreach (var segment in buffer)
                {
                    if (_stream != null)
                    {
                        await _stream.WriteAsync(segment);
                        continue;
                    }
                    int sent = 0;
                    while (sent < segment.Length)
                        sent += await _socket.SendAsync(segment.Slice(sent), SocketFlags.None);
                }
                Volatile.Write(ref _sending, 0);
                if (!buffer.IsEmpty)
                {
                    _stats.NetOutputBytes.Add(buffer.Length);
                    _stats.WritesProcessed.Add(1);
                }
                reader.AdvanceTo(buffer.End);
                if (result.IsCompleted || result.IsCanceled) break;
            }
            await reader.CompleteAsync();
        }
        catch (Exception ex)
        {
            await reader.CompleteAsync(ex);
        }
        Close();
    }
}
