using System.IO.Pipelines;
using System.Net.Sockets;
using RedisClone.Commands;
using RedisClone.Server;

namespace RedisClone.Network.Epoll;

/// <summary>
/// A client socket served by an <see cref="EventLoop"/>: received bytes go into an
/// <see cref="InputBuffer"/> whose reader (the connection's read loop) runs inline on the event loop
/// thread; replies go out through <see cref="SocketOutput"/>, sent by the thread that flushes them.
/// </summary>
/// <remarks>
/// Backpressure: when the read loop falls 1 MB behind (it waits for a client that does not read, or
/// for a shard), the input buffer reports the writer paused and the loop stops receiving from this
/// socket until the reader has caught up, so TCP pushes back on the client.
/// Receives use edge-triggered readiness: a read that fills less than the buffer has taken all the
/// kernel held, and any later data raises a new edge.
/// </remarks>
internal sealed class EpollTransport : IDuplexPipe, IClientBuffers
{
    private const int MinimumReceive = 2048; // less room than this left in the buffer: receive into a fresh one

    private readonly Socket _socket;
    private readonly EventLoop _loop;
    private readonly ServerStats _stats;
    private readonly InputBuffer _input;
    private readonly SocketOutput _output;
    private readonly Action _trimOutput;
    private readonly CancellationTokenSource _closedSource = new();
    private int _closed;

    // Event loop thread only.
    private bool _inputPaused, _inputEnded;

    public EpollTransport(Socket socket, EventLoop loop, ServerStats stats)
    {
        socket.Blocking = false;
        _socket = socket;
        _loop = loop;
        _stats = stats;
        Fd = (int)socket.SafeHandle.DangerousGetHandle();
        _output = new SocketOutput(socket, stats, () => _loop.FinishFlush(this), stats.RecentMaxOutput);
        _input = new InputBuffer(() => _loop.Resume(this), () => _loop.WakeReader(this), () => _loop.WakeReaderSoon(this), stats.RecentMaxInput);
        _trimOutput = _output.TrimIdle;
    }

    public int Fd { get; }

    public void DisableNoDelay()
    {
        try { _socket.NoDelay = false; }
        catch (Exception ex) when (ex is System.Net.Sockets.SocketException or ObjectDisposedException) { } // as Redis: not critical
    }

    public void CountOutputAsReplication() => _output.CountAsReplication();

    /// <summary>The input and reply buffers as CLIENT LIST reports them; any thread.</summary>
    public ClientBufferUsage Measure()
    {
        var input = _input.Measure();
        var output = _output.Measure();
        return new ClientBufferUsage(input.Unconsumed, input.Free, input.Allocated, 0, 0,
            output.BufferSize, output.BufferPeak, output.BufferUnsent, output.Blocks, output.BlockBytes, output.Pending);
    }

    /// <summary>The loop's slot for this socket; -1 once removed. Event loop thread only.</summary>
    internal int Slot { get; set; } = -1;

    public PipeReader Input => _input;

    public PipeWriter Output => _output;

    /// <summary>Canceled once the client is gone (its side closed, or we closed the socket).</summary>
    public CancellationToken Closed => _closedSource.Token;

    public void Start() => _loop.Register(this);

    /// <summary>Shuts the socket down; the event loop then ends the input. Safe from any thread, more than once.</summary>
    public void Close()
    {
        if (Interlocked.Exchange(ref _closed, 1) == 1) return;
        try { _closedSource.Cancel(); } catch (ObjectDisposedException) { }
        try { _socket.Shutdown(SocketShutdown.Both); } catch (Exception) { }
        _output.Abort();
        _input.CancelPendingRead();
    }

    /// <summary>
    /// Ends the sending side (FIN after what the kernel holds); receiving goes on. Any thread. Completes
    /// at once: a flush here has already handed every reply to the kernel (see <see cref="SocketOutput"/>).
    /// </summary>
    public ValueTask FinishSendingAsync()
    {
        if (Volatile.Read(ref _closed) == 1) return ValueTask.CompletedTask;
        try { _socket.Shutdown(SocketShutdown.Send); } catch (Exception) { }
        return ValueTask.CompletedTask;
    }

    /// <summary>The connection is done with the transport: close it and let the loop release the socket.</summary>
    public void Release()
    {
        Close();
        _loop.Remove(this);
    }

    /// <param name="hangUp">The peer closed or the socket failed: read on to the end, not just one buffer.</param>
    internal void OnReadable(bool hangUp)
    {
        if (!_inputPaused && !_inputEnded) Receive(untilEmpty: hangUp);
    }

    internal void OnWritable() => _output.OnWritable();

    internal void OnFinishFlush() => _output.FinishPending();

    internal void OnWakeReader() => _input.DeliverCancellation();

    /// <summary>Registration generation of <see cref="Slot"/>: events for an earlier holder of the slot are dropped.</summary>
    internal uint Generation { get; set; }

    /// <summary>Set by every receive, cleared by the loop's sweep (event loop thread only).</summary>
    internal bool ActiveSinceSweep { get; set; }

    /// <summary>Quiet since the last sweep: give the input and reply buffers back (Redis frees idle query buffers too).</summary>
    internal void TrimIfIdle() => _input.TrimIfIdle(_trimOutput);

    internal void OnResumed()
    {
        _inputPaused = false;
        if (_input.ReaderDone) EndInput();
        else if (!_inputEnded) Receive(untilEmpty: true); // edges seen while paused were not acted on
    }

    internal void OnRemoved()
    {
        EndInput();
        _socket.Dispose();
    }

    /// <summary>
    /// Receives and hands data to the reader. A read that fills less than the buffer took all the
    /// kernel held and the next data raises a new edge, so it stops there, saving the recv that
    /// would answer EAGAIN; after a hang-up (or a pause) it reads on until EAGAIN or end of stream,
    /// because an end of stream that came with the data raises no further edge.
    /// </summary>
    private void Receive(bool untilEmpty)
    {
        while (true)
        {
            var memory = _input.GetWriteMemory(MinimumReceive);
            // The descriptor is closed only on this thread (OnRemoved), so it stays valid for the call.
            int n = Libc.DirectSocketCalls
                ? Libc.Receive(Fd, memory.Span, out var error)
                : _socket.Receive(memory.Span, SocketFlags.None, out error);
            if (n > 0)
            {
                ActiveSinceSweep = true;
                _stats.NetInputBytes.Add(n);
                _stats.ReadsProcessed.Add(1);
                if (EventLoop.OnSecondaryLoop) _stats.ThreadedReadsProcessed.Add(1);
                var state = _input.Commit(n); // runs the connection's read loop, inline
                if (state == InputBuffer.WriteState.ReaderDone)
                {
                    EndInput();
                    return;
                }
                if (state == InputBuffer.WriteState.Paused)
                {
                    _inputPaused = true; // until the reader catches up and calls Resume
                    return;
                }
                if (n < memory.Length && !untilEmpty) return;
                continue;
            }
            if (error == SocketError.WouldBlock) return;
            if (error == SocketError.Interrupted) continue;
            EndInput(); // end of stream, or the connection failed
            return;
        }
    }

    private void EndInput()
    {
        if (_inputEnded) return;
        _inputEnded = true;
        try { _closedSource.Cancel(); } catch (ObjectDisposedException) { }
        _input.CompleteWriter();
    }
}
