using System.Buffers;
using System.IO.Pipelines;
using System.Net.Security;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using Pipelines.Sockets.Unofficial;
using RedisClone.Commands;
using RedisClone.Server;

namespace RedisClone.Network;

/// <summary>
/// A client socket served by Pipelines.Sockets.Unofficial (<c>--transport sockets</c>; the only
/// transport off Linux): its <see cref="SocketConnection"/> runs the receive and send loops over
/// .NET's asynchronous sockets between two pipes; for TLS clients (on every platform) its
/// <see cref="StreamConnection"/> does the same over an <see cref="SslStream"/>. This class adds
/// what the server needs on top: the byte counters of INFO, CLIENT LIST's buffer sizes, wake-ups
/// that never run the connection on a foreign thread, a close that waits for the last replies, and
/// the end of the sending side a graceful stop needs (<see cref="FinishSendingAsync"/>).
/// </summary>
/// <remarks>
/// <para>Threads: every scheduler is inline, so a receive that completes runs the connection's read
/// loop on the thread that completed it (the runtime's socket engine thread, as Program asks for
/// inline socket completions; a thread-pool thread otherwise), and the replies it flushes are sent
/// from there too, much as one epoll loop serves its sockets: no thread hop per
/// batch, and nothing queued to the pool (which would allocate) on the way. The exceptions are the
/// wake-ups other threads cause (a pub/sub publisher, CLIENT KILL): they go through the thread pool,
/// or the connection's loop would run on the publisher's thread, inside whatever it holds; and a
/// receive loop paused by backpressure resumes on the pool.</para>
/// <para>Backpressure as with the epoll loops: the read loop stops reading while the replies back
/// up (its flush waits while 64 KB are queued for the socket), the input pipe then pauses the receive
/// loop at 1 MB, and TCP pushes back on the client.</para>
/// <para>CLIENT LIST: qbuf is what the input pipe holds, the bytes the receive loop put in (its
/// counter) less those the connection consumed (counted here, as the epoll transport's input buffer
/// counts them); qbuf-free and the input's size are those of the pipe's 16 KB segments; omem is the
/// replies written and not yet sent, shown as 16 KB reply blocks.</para>
/// <para>TLS differs in one thing: the connection's read loop resumes on the thread pool, not inline,
/// so that decrypting, running and encrypting batches spreads over the cores. With inline resumption
/// redis-benchmark --tls at pipeline 16 (50 clients) made 0.2-0.4x the requests per second of the
/// hand-written stream loops this replaced; scheduled on the pool, about the same (0.72x-1.42x in
/// one noisy run, CPU per request within 10%), as hand-written loops over the same pipes were.</para>
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

    // TLS: the connection's read loop resumes on the thread pool (see the remarks above).
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
    private readonly IMeasuredDuplexPipe? _tlsPipe; // TLS: the library's stream pipes over _ssl
    private readonly SslStream? _ssl;
    private readonly PipeReader _pipeInput;
    private readonly PipeWriter _pipeOutput;
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
        _outputCounter = stats.NetOutputBytes;
        Fd = (int)socket.SafeHandle.DangerousGetHandle(); // as EpollTransport: Socket.Handle would mark it exposed
        if (ssl == null)
        {
            // Inline reads and writes: the socket operations' completions run the loops where they
            // complete, instead of being queued to a scheduler (see the remarks).
            _connection = SocketConnection.Create(socket, OutputOptions, InputOptions,
                SocketConnectionOptions.InlineReads | SocketConnectionOptions.InlineWrites);
            _pipeInput = _connection.Input;
            _pipeOutput = _connection.Output;
        }
        else
        {
            _tlsPipe = (IMeasuredDuplexPipe)StreamConnection.GetDuplex(ssl, OutputOptions, TlsInputOptions);
            _pipeInput = _tlsPipe.Input;
            _pipeOutput = _tlsPipe.Output;
        }
        // The end of each loop, without reading or writing. Obsolete (a PipeReader or PipeWriter other
        // than Pipe's may not call them), but both the socket and the stream pipes are Pipe's:
        // half-closed and killed clients, blocked ones among them, and the last replies before a close
        // are tested under this transport, TLS included.
#pragma warning disable CS0618
        _pipeInput.OnWriterCompleted(static (_, state) => ((PipelinesTransport)state!).InputEnded(), this);
        _pipeOutput.OnReaderCompleted(static (_, state) => ((PipelinesTransport)state!)._sendEnded.TrySetResult(), this);
#pragma warning restore CS0618
        _input = new CountingReader(this, _pipeInput);
        _output = new CountingWriter(this, _pipeOutput);
    }

    /// <summary>A plain TCP client.</summary>
    public static PipelinesTransport ForSocket(Socket socket, ServerStats stats) => new(socket, null, stats);

    /// <summary>A TLS client whose handshake is done: the pipes go through <paramref name="ssl"/>, which this transport then owns.</summary>
    public static PipelinesTransport ForTls(Socket socket, SslStream ssl, ServerStats stats) => new(socket, ssl, stats);

    /// <summary>True for a client of the TLS port.</summary>
    public bool IsTls => _ssl != null;

    public PipeReader Input => _input;

    public PipeWriter Output => _output;

    public int Fd { get; }

    private Common.StripedCounter _outputCounter;

    public void DisableNoDelay()
    {
        try { _socket.NoDelay = false; }
        catch (Exception ex) when (ex is System.Net.Sockets.SocketException or ObjectDisposedException) { } // as Redis: not critical
    }

    public void CountOutputAsReplication() => _outputCounter = _stats.NetReplOutputBytes;

    /// <summary>Canceled once the client is gone (its side closed, or we closed the socket).</summary>
    public CancellationToken Closed => _closedSource.Token;

    /// <summary>Bytes the send loop has handed to the socket (or the TLS stream).</summary>
    /// <remarks>The stream pipes' two counters are named the other way round (2.2.16):
    /// TotalBytesReceived is what they wrote to the stream.</remarks>
    private long SentBytes => _connection?.BytesSent ?? _tlsPipe!.TotalBytesReceived;

    /// <summary>Bytes the receive loop has taken from the socket (or the TLS stream); see <see cref="SentBytes"/>.</summary>
    private long ReceivedBytes => _connection?.BytesRead ?? _tlsPipe!.TotalBytesSent;

    /// <summary>The buffers as CLIENT LIST reports them; any thread.</summary>
    public ClientBufferUsage Measure()
    {
        // Replies written and not yet flushed count too: the output limits are checked before a flush.
        long pending = Math.Max(0, Volatile.Read(ref _output.Flushed) + _output.UnflushedBytes - SentBytes);
        long blocks = (pending + Segment - 1) / Segment;
        // Received, less consumed: the receive loop counts before it flushes into the pipe, so the
        // difference is never below what the pipe holds (a read racing this may make it a moment old).
        long query = Math.Max(0, ReceivedBytes - Volatile.Read(ref _input.Consumed));
        long allocated = InputAllocation(query);
        return new ClientBufferUsage(query, allocated - query, allocated, 0, 0, 0, 0, 0, blocks, pending, pending > 0);
    }

    /// <summary>
    /// The input pipe's size for <paramref name="unconsumed"/> bytes: the 16 KB segments they fill and the
    /// one the receive loop writes into (it always holds one, leased for the next receive). The pipe
    /// does not show its segments; its writer fills each before taking the next, so this is the shape
    /// it has when the unconsumed bytes start a segment, as they do whenever the reader had caught up.
    /// </summary>
    private static long InputAllocation(long unconsumed) => (unconsumed / Segment + 1) * Segment;

    /// <summary>
    /// The server stops and the replies are flushed: ends the output, waits until the send loop has
    /// sent all of it, then ends the sending side (TLS: close_notify, then TCP FIN), as the epoll
    /// transport's FIN after its last send; the connection then reads on (see ClientConnection's
    /// drain). A client that never reads its replies holds this until it is killed, which ends the send.
    /// </summary>
    public async ValueTask FinishSendingAsync()
    {
        _output.Complete(); // the send loop sends what the pipe holds, then ends
        try { await _sendEnded.Task; } catch (Exception) { }
        if (Volatile.Read(ref _closed) == 1) return;
        if (_ssl != null)
        {
            // The read side stays open: SslStream allows a shutdown beside a pending read.
            try { await _ssl.ShutdownAsync(); } catch (Exception) { }
        }
        try { _socket.Shutdown(SocketShutdown.Send); } catch (Exception) { }
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
        _socket.Dispose(); // _closedSource stays: the session may still look at its token while it ends
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

    /// <summary>
    /// The input pipe's reader: counts what was read as it is consumed (INFO's input counters, and the
    /// consumed bytes CLIENT LIST's qbuf is measured from); wake-ups from other threads go through the pool.
    /// </summary>
    private sealed class CountingReader(PipelinesTransport transport, PipeReader inner) : PipeReader
    {
        /// <summary>Bytes consumed so far; written by the connection's loop, read by any thread.</summary>
        public long Consumed;

        // The buffer the last read handed out, which AdvanceTo's positions point into (the connection's loop only).
        private ReadOnlySequence<byte> _read;

        public override bool TryRead(out ReadResult result)
        {
            if (!inner.TryRead(out result)) return false;
            Seen(result.Buffer);
            return true;
        }

        public override ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default)
        {
            var read = inner.ReadAsync(cancellationToken);
            if (!read.IsCompletedSuccessfully) return SeenAsync(read);
            var result = read.Result;
            Seen(result.Buffer);
            return new ValueTask<ReadResult>(result);
        }

        /// <summary>A read that waited for data; pooled, so waiting allocates nothing.</summary>
        [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
        private async ValueTask<ReadResult> SeenAsync(ValueTask<ReadResult> read)
        {
            var result = await read.ConfigureAwait(false);
            Seen(result.Buffer);
            return result;
        }

        private void Seen(in ReadOnlySequence<byte> buffer)
        {
            _read = buffer;
            // INFO's client_recent_max_input_buffer, as the epoll input buffer reports its growth: only
            // past one segment, the size every connection has.
            if (buffer.Length >= Segment) transport._stats.RecentMaxInput.Observe(InputAllocation(buffer.Length));
        }

        public override void AdvanceTo(SequencePosition consumed) => AdvanceTo(consumed, consumed);

        public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
        {
            long n = _read.Slice(_read.Start, consumed).Length;
            _read = default;
            Volatile.Write(ref Consumed, Consumed + n);
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
                transport._outputCounter.Add(n);
                transport._stats.WritesProcessed.Add(1);
            }
            return inner.FlushAsync(cancellationToken);
        }

        public override void CancelPendingFlush() => inner.CancelPendingFlush();

        public override void Complete(Exception? exception = null) => inner.Complete(exception);
    }
}
