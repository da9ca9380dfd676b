using System.IO.Pipelines;
using System.Net.Security;
using System.Net.Sockets;
using Pipelines.Sockets.Unofficial;
using RedisClone.Commands;
using RedisClone.Server;

namespace RedisClone.Network;

/// <summary>
/// A client socket served by Pipelines.Sockets.Unofficial (<c>--transport sockets</c>; the only
/// transport off Linux): its <see cref="SocketConnection"/> runs the receive and send loops over
/// .NET's asynchronous sockets between two pipes. TLS clients (on every platform) get the same two
/// loops here, over an <see cref="SslStream"/>. This class adds what the server needs on top: the
/// byte counters of INFO, CLIENT LIST's buffer sizes, wake-ups that never run the connection on a
/// foreign thread, and a close that waits for the last replies.
/// </summary>
/// <remarks>
/// <para>Threads: every scheduler is inline, so a receive that completes runs the connection's read
/// loop on the thread that completed it (a thread-pool thread: .NET's socket engine hands
/// completions to the pool), and the replies it flushes are sent from there too: no thread hop per
/// batch, and nothing queued to the pool (which would allocate) on the way. The exceptions are the
/// wake-ups other threads cause (a pub/sub publisher, CLIENT KILL): they go through the thread pool,
/// or the connection's loop would run on the publisher's thread, inside whatever it holds; and a
/// receive loop paused by backpressure resumes on the pool.</para>
/// <para>Backpressure as with the epoll loops: the read loop stops reading while the replies back
/// up (its flush waits once 1 MB is queued for the socket), the input pipe then pauses the receive
/// loop at 1 MB, and TCP pushes back on the client.</para>
/// <para>CLIENT LIST: qbuf is what the input pipe holds, omem the replies written and not yet sent,
/// shown as 16 KB reply blocks.</para>
/// <para>Why TLS does not use the library's stream adapter (<c>StreamConnection.GetDuplex</c>): it
/// reads into whatever room is left in the pipe's current segment (a few bytes, at times), so a
/// pipelined batch reaches the connection in pieces, each answered with its own flush and TLS record.
/// Measured against the loops below with redis-benchmark --tls at pipeline 16 (50 clients), it gave
/// 0.32x (SET) and 0.22x (GET) of their requests per second, and 1.2-1.5x their CPU per request
/// (see the README's TLS section).</para>
/// </remarks>
internal sealed class PipelinesTransport : IDuplexPipe, IClientBuffers
{
    private const int Segment = 16 * 1024;

    // Input: the receive loop pauses at 1 MB not yet consumed, as the epoll loops stop receiving.
    // Output: a flush waits while 64 KB or more wait to be sent (the epoll transport's bound too, see
    // ClientConnection's FlushThreshold), so a client that does not read holds about one reply here.
    private static readonly PipeOptions InputOptions = new(
        pauseWriterThreshold: 1 << 20, resumeWriterThreshold: 1 << 19,
        readerScheduler: PipeScheduler.Inline, writerScheduler: PipeScheduler.ThreadPool,
        minimumSegmentSize: Segment, useSynchronizationContext: false);

    // TLS: the connection's read loop resumes on the thread pool, not inline on the thread that
    // completed the read: decrypting, running and encrypting a batch is heavy enough that spreading TLS
    // clients over the pool's threads pays (measured: see the remarks above).
    private static readonly PipeOptions TlsInputOptions = new(
        pauseWriterThreshold: 1 << 20, resumeWriterThreshold: 1 << 19,
        readerScheduler: PipeScheduler.ThreadPool, writerScheduler: PipeScheduler.ThreadPool,
        minimumSegmentSize: Segment, useSynchronizationContext: false);

    private static readonly PipeOptions OutputOptions = new(
        pauseWriterThreshold: 64 * 1024, resumeWriterThreshold: 32 * 1024,
        readerScheduler: PipeScheduler.Inline, writerScheduler: PipeScheduler.Inline,
        minimumSegmentSize: Segment, useSynchronizationContext: false);

    private readonly Socket _socket;
    private readonly SocketConnection? _connection; // plain sockets
    private readonly Pipe? _tlsInput; // TLS: the pipes our own loops fill from and drain into _ssl
    private readonly SslStream? _ssl;
    private readonly PipeReader _pipeInput;
    private readonly PipeWriter _pipeOutput;
    private long _tlsSent, _tlsReceived;
    private readonly ServerStats _stats;
    private readonly CountingReader _input;
    private readonly CountingWriter _output;
    private readonly CancellationTokenSource _closedSource = new();
    private readonly TaskCompletionSource _sendEnded = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _closed;

    private PipelinesTransport(Socket socket, SslStream? ssl, ServerStats stats)
    {
        _socket = socket;
        _ssl = ssl;
        _stats = stats;
        Fd = (int)socket.SafeHandle.DangerousGetHandle(); // as EpollTransport: Socket.Handle would mark it exposed
        if (ssl == null)
        {
            // Inline reads and writes: the socket operations' completions run the loops where they
            // complete, instead of being queued to a scheduler (see the remarks).
            _connection = SocketConnection.Create(socket, OutputOptions, InputOptions,
                SocketConnectionOptions.InlineReads | SocketConnectionOptions.InlineWrites);
            _pipeInput = _connection.Input;
            _pipeOutput = _connection.Output;
            // The end of each of its loops, without reading or writing. Obsolete (a PipeReader or
            // PipeWriter other than Pipe's may not call them), but these are Pipe's: half-closed and
            // killed clients, blocked ones among them, and the last replies before a close are tested
            // under this transport.
#pragma warning disable CS0618
            _pipeInput.OnWriterCompleted(static (_, state) => ((PipelinesTransport)state!).InputEnded(), this);
            _pipeOutput.OnReaderCompleted(static (_, state) => ((PipelinesTransport)state!)._sendEnded.TrySetResult(), this);
#pragma warning restore CS0618
        }
        else
        {
            _tlsInput = new Pipe(TlsInputOptions);
            var tlsOutput = new Pipe(OutputOptions);
            _pipeInput = _tlsInput.Reader;
            _pipeOutput = tlsOutput.Writer;
            _ = ReceiveFromStreamAsync(ssl, _tlsInput.Writer);
            _ = SendToStreamAsync(ssl, tlsOutput.Reader);
        }
        _input = new CountingReader(this, _pipeInput);
        _output = new CountingWriter(this, _pipeOutput);
    }

    /// <summary>A plain TCP client.</summary>
    public static PipelinesTransport ForSocket(Socket socket, ServerStats stats) => new(socket, null, stats);

    /// <summary>A TLS client whose handshake is done: the pipes go through <paramref name="ssl"/>, which this transport then owns.</summary>
    public static PipelinesTransport ForTls(Socket socket, SslStream ssl, ServerStats stats) => new(socket, ssl, stats);

    public PipeReader Input => _input;

    public PipeWriter Output => _output;

    public int Fd { get; }

    /// <summary>Canceled once the client is gone (its side closed, or we closed the socket).</summary>
    public CancellationToken Closed => _closedSource.Token;

    /// <summary>Bytes the send loop has handed to the socket (or the TLS stream).</summary>
    private long SentBytes => _connection?.BytesSent ?? Interlocked.Read(ref _tlsSent);

    /// <summary>Bytes the receive loop has taken from the socket (or the TLS stream).</summary>
    private long ReceivedBytes => _connection?.BytesRead ?? Interlocked.Read(ref _tlsReceived);

    /// <summary>The buffers as CLIENT LIST reports them; any thread.</summary>
    public ClientBufferUsage Measure()
    {
        // Replies written and not yet flushed count too: the output limits are checked before a flush.
        long pending = Math.Max(0, Volatile.Read(ref _output.Flushed) + _output.UnflushedBytes - SentBytes);
        long blocks = (pending + Segment - 1) / Segment;
        long query = 0;
        try
        {
            query = _connection?.GetCounters().BytesWaitingToBeRead ?? SocketConnection.Counters.GetPipeLength(_tlsInput!);
        }
        catch (ObjectDisposedException)
        {
        }
        return new ClientBufferUsage(query, 0, query, 0, 0, 0, 0, 0, blocks, pending, pending > 0);
    }

    /// <summary>Closes the socket; both loops then end. Safe from any thread, more than once.</summary>
    public void Close()
    {
        if (Interlocked.Exchange(ref _closed, 1) == 1) return;
        try { _closedSource.Cancel(); } catch (ObjectDisposedException) { }
        // Both directions: a receive in progress ends, a send stuck on a client that does not read fails.
        try { _socket.Shutdown(SocketShutdown.Both); } catch (Exception) { }
        ThreadPool.UnsafeQueueUserWorkItem(static t =>
        {
            t._pipeInput.CancelPendingRead();
            t._pipeOutput.CancelPendingFlush();
        }, this, preferLocal: false);
    }

    /// <summary>
    /// After the connection completed its output: waits until the send loop has sent the last replies
    /// (a QUIT's +OK, the replies to a client that closed its sending side) or failed, then lets the
    /// socket go. A client that never reads them is held, as Redis holds it, until it is killed
    /// (CLIENT KILL, timeout), which ends the send.
    /// </summary>
    public async Task DisposeAsync()
    {
        try { await _sendEnded.Task; } catch (Exception) { }
        // The end of stream after the last reply. Also what keeps the close below graceful: .NET closes
        // a socket with a receive still pending (the TLS adapter's) abortively, with a reset that can
        // overtake replies still in the kernel's buffer, unless its sending side was shut down first.
        try { _socket.Shutdown(SocketShutdown.Send); } catch (Exception) { }
        CountInput();
        if (_ssl != null) await _ssl.DisposeAsync();
        _connection?.Dispose();
        _socket.Dispose();
        _closedSource.Dispose();
    }

    /// <summary>TLS: decrypted bytes into the input pipe, at least 8 KB of room per read.</summary>
    private async Task ReceiveFromStreamAsync(SslStream ssl, PipeWriter writer)
    {
        try
        {
            while (true)
            {
                int n = await ssl.ReadAsync(writer.GetMemory(8192));
                if (n == 0) break;
                writer.Advance(n);
                Interlocked.Add(ref _tlsReceived, n);
                var flush = await writer.FlushAsync();
                if (flush.IsCompleted || flush.IsCanceled) break;
            }
        }
        catch (Exception ex) when (ex is IOException or SocketException or ObjectDisposedException or InvalidOperationException)
        {
            // The socket failed or was closed (a bad TLS record is an IOException too).
        }
        InputEnded();
        await writer.CompleteAsync();
    }

    /// <summary>TLS: every flushed reply through the stream, a record per pipe segment.</summary>
    private async Task SendToStreamAsync(SslStream ssl, PipeReader reader)
    {
        try
        {
            while (true)
            {
                var result = await reader.ReadAsync();
                var buffer = result.Buffer;
                foreach (var segment in buffer) await ssl.WriteAsync(segment);
                Interlocked.Add(ref _tlsSent, buffer.Length);
                reader.AdvanceTo(buffer.End);
                if (result.IsCompleted || result.IsCanceled) break;
            }
        }
        catch (Exception ex) when (ex is IOException or SocketException or ObjectDisposedException or InvalidOperationException)
        {
        }
        await reader.CompleteAsync();
        _sendEnded.TrySetResult();
    }

    private void InputEnded()
    {
        try { _closedSource.Cancel(); } catch (ObjectDisposedException) { }
    }

    private long _countedInput;

    /// <summary>INFO's input counters, brought up to date: called as the connection consumes what it read.</summary>
    private void CountInput()
    {
        long total = ReceivedBytes;
        long n = total - _countedInput;
        if (n <= 0) return;
        _countedInput = total;
        _stats.NetInputBytes.Add(n);
        _stats.ReadsProcessed.Add(1);
    }

    /// <summary>The input pipe's reader: counts what was read as it is consumed; wake-ups from other threads go through the pool.</summary>
    private sealed class CountingReader(PipelinesTransport transport, PipeReader inner) : PipeReader
    {
        public override bool TryRead(out ReadResult result) => inner.TryRead(out result);

        public override ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default) => inner.ReadAsync(cancellationToken);

        public override void AdvanceTo(SequencePosition consumed) => AdvanceTo(consumed, consumed);

        public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
        {
            transport.CountInput();
            inner.AdvanceTo(consumed, examined);
        }

        /// <summary>Called by publishers and killers on their own threads: with inline scheduling the
        /// read loop would run right here.</summary>
        public override void CancelPendingRead()
            => ThreadPool.UnsafeQueueUserWorkItem(static r => r.CancelPendingRead(), inner, preferLocal: false);

        public override void Complete(Exception? exception = null) => inner.Complete(exception);
    }

    /// <summary>The output pipe's writer: counts what each flush hands to the send loop (INFO's
    /// output counters, and the replies not yet sent for CLIENT LIST and the output buffer limits).</summary>
    private sealed class CountingWriter(PipelinesTransport transport, PipeWriter inner) : PipeWriter
    {
        /// <summary>Bytes flushed so far; written by the connection's loop, read by any thread.</summary>
        public long Flushed;

        public override bool CanGetUnflushedBytes => true;

        public override long UnflushedBytes => inner.UnflushedBytes;

        public override Span<byte> GetSpan(int sizeHint = 0) => inner.GetSpan(sizeHint);

        public override Memory<byte> GetMemory(int sizeHint = 0) => inner.GetMemory(sizeHint);

        public override void Advance(int bytes) => inner.Advance(bytes);

        public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
        {
            long n = inner.UnflushedBytes;
            if (n > 0)
            {
                Volatile.Write(ref Flushed, Flushed + n);
                transport._stats.NetOutputBytes.Add(n);
                transport._stats.WritesProcessed.Add(1);
            }
            return inner.FlushAsync(cancellationToken);
        }

        public override void CancelPendingFlush() => inner.CancelPendingFlush();

        public override void Complete(Exception? exception = null) => inner.Complete(exception);
    }
}
