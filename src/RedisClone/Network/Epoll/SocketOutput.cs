using System.Buffers;
using System.IO.Pipelines;
using System.Net.Sockets;
using System.Threading.Tasks.Sources;
using RedisClone.Server;

namespace RedisClone.Network.Epoll;

/// <summary>
/// The connection's output: replies are written into pooled segments and <see cref="FlushAsync"/>
/// sends them on the calling thread with a non-blocking send(2). The flush completes at once when
/// the kernel took everything (nearly always); otherwise it stays pending until the event loop sees
/// the socket writable and sends the rest. A pending flush is the connection's backpressure: its
/// read loop waits in it, so a client that does not read its replies stops being read from.
/// </summary>
/// <remarks>
/// Only the connection's read loop writes and flushes, and it never writes while its flush is
/// pending; the lock orders that loop's send against the event loop's send on a writable event.
/// </remarks>
internal sealed class SocketOutput : PipeWriter, IValueTaskSource<FlushResult>
{
    private const int SegmentSize = 16 * 1024;

    private readonly Socket _socket;
    private readonly SafeSocketHandle _handle;
    private readonly ServerStats _stats;
    private Common.StripedCounter _outputCounter;

    /// <summary>A replica's link: what is sent counts as replication output from now on.</summary>
    public void CountAsReplication() => _outputCounter = _stats.NetReplOutputBytes;
    private readonly Lock _sync = new();
    private readonly List<byte[]> _segments = new();
    private readonly List<int> _lengths = new();
    private int _sendSegment, _sendOffset; // what is sent: whole segments before _sendSegment, _sendOffset bytes of it
    private long _unflushed;
    private volatile bool _pending;
    private bool _failed, _ended, _cancelRequested; // _ended is also read without the lock
    private bool _completed; // the writer is done: a pending flush that ends gives the blocks back
    private readonly Action _finishOnLoop;
    private readonly Common.RecentPeak? _recentMax;
    // For CLIENT LIST; changed only where blocks are rented or returned, never per reply.
    private long _blockBytes;   // bytes of the blocks that are not the reply buffer (see IsReplyBuffer)
    private int _bufferPeak;    // the most the reply buffer held when it overflowed into a new block
    // Completed only on the event loop thread, so the read loop resumes there (never on a thread
    // that called Close while holding shard gates, and never waiting for the thread pool).
    private ManualResetValueTaskSourceCore<FlushResult> _flush;

    /// <param name="finishOnLoop">Asks the event loop to call <see cref="FinishPending"/>.</param>
    /// <param name="recentMax">Told the reply blocks' size whenever it grows (INFO's client_recent_max_output_buffer).</param>
    public SocketOutput(Socket socket, ServerStats stats, Action finishOnLoop, Common.RecentPeak? recentMax = null)
    {
        _socket = socket;
        _handle = socket.SafeHandle;
        _stats = stats;
        _outputCounter = stats.NetOutputBytes;
        _finishOnLoop = finishOnLoop;
        _recentMax = recentMax;
    }

    /// <summary>
    /// The first block, when it has the standard size, plays Redis's 16 KB reply buffer (its
    /// PROTO_REPLY_CHUNK_BYTES is the same size); every other block, and a first one rented larger
    /// for a big reply, plays its reply list, as Redis puts a reply that does not fit its buffer there.
    /// </summary>
    private static bool IsReplyBuffer(int index, byte[] block) => index == 0 && block.Length == SegmentSize;

    /// <summary>
    /// For CLIENT LIST (any thread): the reply buffer's size, peak and unsent bytes, the other
    /// blocks' count and size, and whether a flush waits for the socket. Block changes happen under
    /// the lock, so the lists are whole here; lengths and send offsets written meanwhile without it
    /// are single ints, at worst a moment old.
    /// </summary>
    public (long BufferSize, long BufferPeak, long BufferUnsent, long Blocks, long BlockBytes, bool Pending) Measure()
    {
        lock (_sync)
        {
            int count = _segments.Count, sendSegment = _sendSegment, sendOffset = _sendOffset;
            if (count == 0) return (0, 0, 0, 0, 0, _pending);
            bool hasBuffer = IsReplyBuffer(0, _segments[0]);
            long size = hasBuffer ? SegmentSize : 0, used = hasBuffer ? _lengths[0] : 0;
            long unsent = !hasBuffer || sendSegment > 0 ? 0 : Math.Max(0, used - sendOffset);
            return (size, hasBuffer ? Math.Max(_bufferPeak, used) : 0, unsent, hasBuffer ? count - 1 : count, _blockBytes, _pending);
        }
    }

    public override bool CanGetUnflushedBytes => true;

    public override long UnflushedBytes => _unflushed;

    public override void Advance(int bytes)
    {
        _lengths[^1] += bytes;
        _unflushed += bytes;
    }

    public override Memory<byte> GetMemory(int sizeHint = 0) => Tail(sizeHint).AsMemory(_lengths[^1]);

    public override Span<byte> GetSpan(int sizeHint = 0) => Tail(sizeHint).AsSpan(_lengths[^1]);

    /// <summary>The last segment, with at least <paramref name="sizeHint"/> bytes (at least one) free.</summary>
    private byte[] Tail(int sizeHint)
    {
        int need = Math.Max(sizeHint, 1);
        if (_segments.Count > 0 && _segments[^1].Length - _lengths[^1] >= need) return _segments[^1];
        var segment = Common.BufferPool.Rent(Math.Max(need, SegmentSize));
        lock (_sync) // CLIENT LIST reads the lists from other threads
        {
            if (_segments.Count > 0 && IsReplyBuffer(0, _segments[0]) && _lengths[0] > _bufferPeak) _bufferPeak = _lengths[0];
            if (!IsReplyBuffer(_segments.Count, segment)) _blockBytes += segment.Length;
            _segments.Add(segment);
            _lengths.Add(0);
        }
        if (_blockBytes > 0) _recentMax?.Observe(_blockBytes);
        return segment;
    }

    public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
    {
        _unflushed = 0;
        // No flush is pending (this loop waited for the last one), so the event loop touches none of
        // the send state: the first attempt needs no lock. A concurrent Abort is seen below, or by
        // the next flush.
        if (TrySendAll()) return new ValueTask<FlushResult>(new FlushResult(false, _failed || Volatile.Read(ref _ended)));
        lock (_sync)
        {
            if (_ended) return new ValueTask<FlushResult>(new FlushResult(false, true));
            _flush.Reset();
            _pending = true;
            // The event loop checks _pending without the lock: had the socket become writable between
            // the EAGAIN and the line above, it would have ignored that edge, so try once more.
            if (TrySendAll())
            {
                _pending = false;
                return new ValueTask<FlushResult>(new FlushResult(false, _failed));
            }
            return new ValueTask<FlushResult>(this, _flush.Version);
        }
    }

    /// <summary>The event loop saw the socket writable: send the rest of a pending flush.</summary>
    public void OnWritable()
    {
        if (!_pending) return; // the usual case: every readable event reports the socket writable too
        FlushResult result;
        lock (_sync)
        {
            if (!_pending) return;
            if (_ended) result = new FlushResult(false, true);
            else if (TrySendAll()) result = new FlushResult(false, _failed);
            else return;
            _pending = false;
            _cancelRequested = false; // a cancellation still queued must not hit a later flush
            if (_completed) ReleaseBlocksLocked();
        }
        _flush.SetResult(result);
    }

    /// <summary>The socket is closing: a pending flush ends as if the reader had gone, later ones at once.</summary>
    public void Abort()
    {
        lock (_sync)
        {
            _ended = true;
            if (!_pending) return;
        }
        _finishOnLoop();
    }

    public override void CancelPendingFlush()
    {
        lock (_sync)
        {
            if (!_pending) return;
            _cancelRequested = true;
        }
        _finishOnLoop();
    }

    /// <summary>On the event loop thread: ends a pending flush that <see cref="Abort"/> or <see cref="CancelPendingFlush"/> asked to end.</summary>
    public void FinishPending()
    {
        FlushResult result;
        lock (_sync)
        {
            if (!_pending) return;
            result = _ended ? new FlushResult(false, true) : new FlushResult(_cancelRequested, false);
            _cancelRequested = false;
            _pending = false;
            if (_completed) ReleaseBlocksLocked();
        }
        _flush.SetResult(result);
    }

    /// <summary>Gives the (empty) reply buffer back; only while the connection's read loop is parked.</summary>
    public void TrimIdle()
    {
        lock (_sync)
        {
            if (_pending || _unflushed != 0 || _segments.Count != 1 || _lengths[0] != 0) return;
            Common.BufferPool.Return(_segments[0]);
            _segments.Clear();
            _lengths.Clear();
            _blockBytes = 0;
            _bufferPeak = 0;
        }
    }

    public override void Complete(Exception? exception = null)
    {
        lock (_sync)
        {
            _ended = true;
            _completed = true;
            if (_pending) return; // the event loop's Abort finishes it, and gives the blocks back then
            ReleaseBlocksLocked();
        }
    }

    private void ReleaseBlocksLocked()
    {
        foreach (var segment in _segments) Common.BufferPool.Return(segment);
        _segments.Clear();
        _lengths.Clear();
        _blockBytes = 0;
        _sendSegment = _sendOffset = 0;
    }

    /// <summary>Sends everything written; false when the socket's buffer is full (EAGAIN). Under the lock.</summary>
    private bool TrySendAll()
    {
        while (_sendSegment < _segments.Count)
        {
            byte[] segment = _segments[_sendSegment];
            int length = _lengths[_sendSegment];
            while (_sendOffset < length)
            {
                int sent = Send(segment.AsSpan(_sendOffset, length - _sendOffset), out var error);
                if (sent > 0)
                {
                    _sendOffset += sent;
                    _outputCounter.Add(sent);
                    _stats.WritesProcessed.Add(1);
                    if (EventLoop.OnSecondaryLoop) _stats.ThreadedWritesProcessed.Add(1);
                    continue;
                }
                if (error == SocketError.Interrupted) continue;
                if (error == SocketError.WouldBlock) return false;
                _failed = true; // the client is gone: drop what is left, the reader will see completion
                _sendSegment = _segments.Count;
                break;
            }
            if (_sendSegment == _segments.Count) break;
            if (_sendSegment == _segments.Count - 1) break; // the tail stays for the next writes
            _sendSegment++;
            _sendOffset = 0;
        }
        Reset();
        return true;
    }

    /// <summary>
    /// One send(2). The flushing thread may be any thread, and the event loop closes the descriptor
    /// when it stops: the handle's reference count keeps the number from being closed (and reused
    /// by another client) during the call.
    /// </summary>
    private int Send(ReadOnlySpan<byte> data, out SocketError error)
    {
        if (!Libc.DirectSocketCalls) return _socket.Send(data, SocketFlags.None, out error);
        var handle = _handle;
        bool added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            return Libc.Send((int)handle.DangerousGetHandle(), data, out error);
        }
        catch (ObjectDisposedException)
        {
            error = SocketError.OperationAborted;
            return -1;
        }
        finally
        {
            if (added) handle.DangerousRelease();
        }
    }

    /// <summary>All sent: keep the first segment (emptied) for the next replies, return the others.</summary>
    /// <remarks>
    /// Dropping blocks takes the lock (CLIENT LIST reads the lists); the usual case, one block
    /// emptied, does not need it. The lock is reentrant, for the callers that hold it already.
    /// </remarks>
    private void Reset()
    {
        if (_segments.Count > 1 || (_segments.Count == 1 && _segments[0].Length > SegmentSize * 4))
        {
            lock (_sync)
            {
                for (int i = 1; i < _segments.Count; i++) Common.BufferPool.Return(_segments[i]);
                if (_segments.Count > 1)
                {
                    _segments.RemoveRange(1, _segments.Count - 1);
                    _lengths.RemoveRange(1, _lengths.Count - 1);
                }
                if (_segments[0].Length > SegmentSize * 4)
                {
                    Common.BufferPool.Return(_segments[0]);
                    _segments.Clear();
                    _lengths.Clear();
                }
                _blockBytes = _segments.Count == 1 && !IsReplyBuffer(0, _segments[0]) ? _segments[0].Length : 0;
            }
        }
        if (_lengths.Count == 1) _lengths[0] = 0;
        _sendSegment = 0;
        _sendOffset = 0;
    }

    FlushResult IValueTaskSource<FlushResult>.GetResult(short token) => _flush.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource<FlushResult>.GetStatus(short token) => _flush.GetStatus(token);

    void IValueTaskSource<FlushResult>.OnCompleted(Action<object?> continuation, object? state, short token,
        ValueTaskSourceOnCompletedFlags flags) => _flush.OnCompleted(continuation, state, token, flags);
}
