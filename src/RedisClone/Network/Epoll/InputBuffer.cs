using System.Buffers;
using System.IO.Pipelines;
using System.Threading.Tasks.Sources;

namespace RedisClone.Network.Epoll;

/// <summary>
/// The input side of an <see cref="EpollTransport"/>: what a Pipe does for one writer (the event
/// loop) and one reader (the connection's read loop), with a managed <see cref="Lock"/> instead of
/// the Pipe's monitor and no scheduler: a commit runs a waiting reader inline on the event loop, as
/// <c>PipeScheduler.Inline</c> would; a cancellation from another thread is delivered by the loop too. Reader semantics are PipeReader's: <c>AdvanceTo(consumed,
/// examined)</c> with examined at the end makes the next read wait for new data; a cancelled
/// pending read returns <c>IsCanceled</c>; completion of the writer ends the reads.
/// </summary>
/// <remarks>
/// Backpressure as with the Pipe: past <see cref="PauseThreshold"/> unconsumed bytes
/// <see cref="Commit"/> reports the writer paused, and the reader's <see cref="AdvanceTo(SequencePosition, SequencePosition)"/>
/// below <see cref="ResumeThreshold"/> calls the resume callback. The reader never releases the last
/// segment (the writer may be receiving into it); the writer starts that segment over once the
/// reader has consumed it all, and releases it when the connection goes quiet (<see cref="TrimIfIdle"/>).
/// </remarks>
internal sealed class InputBuffer : PipeReader, IValueTaskSource<ReadResult>
{
    public const int PauseThreshold = 1 << 20, ResumeThreshold = 1 << 19;
    private const int SegmentSize = 16 * 1024;

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public byte[] Array = System.Array.Empty<byte>();
        public int End;

        public void Start(byte[] array, long runningIndex)
        {
            Array = array;
            End = 0;
            Memory = default;
            Next = null;
            RunningIndex = runningIndex;
        }

        public void Link(Segment next) => Next = next;

        public void Commit(int bytes)
        {
            End += bytes;
            Memory = Array.AsMemory(0, End);
        }
    }

    public enum WriteState { Open, Paused, ReaderDone }

    private readonly Lock _sync = new();
    private readonly Action _resume;
    private readonly Stack<Segment> _spare = new();
    private Segment? _head, _tail;
    private int _headStart;
    private long _unconsumed;
    private bool _examinedAll, _cancelRead, _writerDone, _readerDone, _readerWaiting, _writerPaused, _wakePosted;
    private readonly Action _wakeReader;
    private readonly Action _wakeReaderSoon;
    private readonly Common.RecentPeak? _recentMax;
    private long _allocated; // bytes of the arrays held, under the lock
    private ManualResetValueTaskSourceCore<ReadResult> _read; // continuations run inline

    /// <param name="resume">Called (on the reader's thread) when a paused writer may write again.</param>
    /// <param name="wakeReader">Asks the event loop to call <see cref="DeliverCancellation"/>.</param>
    /// <param name="wakeReaderSoon"><paramref name="wakeReader"/> that the loop may put off for a few cycles (<see cref="CancelPendingReadSoon"/>).</param>
    /// <param name="recentMax">Told the buffer's size whenever it grows (INFO's client_recent_max_input_buffer).</param>
    public InputBuffer(Action resume, Action wakeReader, Action wakeReaderSoon, Common.RecentPeak? recentMax = null)
    {
        _resume = resume;
        _wakeReader = wakeReader;
        _wakeReaderSoon = wakeReaderSoon;
        _recentMax = recentMax;
    }

    /// <summary>
    /// For CLIENT LIST (any thread): bytes received and not yet consumed by the parser, the room
    /// the next receive has without a new block (all of the last block once everything is consumed,
    /// since it is then started over), and the bytes of the blocks held.
    /// </summary>
    public (long Unconsumed, long Free, long Allocated) Measure()
    {
        lock (_sync)
        {
            var tail = _tail;
            long free = tail == null ? 0 : _unconsumed == 0 ? tail.Array.Length : tail.Array.Length - tail.End;
            return (_unconsumed, free, _allocated);
        }
    }

    // ---- writer (the event loop thread) ----

    /// <summary>Room to receive into: at least <paramref name="minimum"/> bytes at the end of the data.</summary>
    public Memory<byte> GetWriteMemory(int minimum)
    {
        var tail = _tail;
        if (tail != null && tail.Array.Length - tail.End >= minimum) return tail.Array.AsMemory(tail.End);
        lock (_sync)
        {
            if (tail != null && _unconsumed == 0)
            {
                // The reader has consumed everything and holds nothing: start the last buffer over.
                for (var s = _head!; s != tail;)
                {
                    var next = (Segment)s.Next!;
                    Release(s);
                    s = next;
                }
                tail.Start(tail.Array, 0);
                _head = tail;
                _headStart = 0;
                if (tail.Array.Length >= minimum) return tail.Array.AsMemory();
            }
            var segment = _spare.Count > 0 ? _spare.Pop() : new Segment();
            segment.Start(Common.BufferPool.Rent(Math.Max(minimum, SegmentSize)), tail == null ? 0 : tail.RunningIndex + tail.End);
            _allocated += segment.Array.Length;
            if (tail == null || _unconsumed == 0)
            {
                if (tail != null) Release(tail);
                _head = segment;
                _headStart = 0;
            }
            else
            {
                tail.Link(segment);
            }
            _tail = segment;
            _recentMax?.Observe(_allocated);
            return segment.Array.AsMemory();
        }
    }

    /// <summary>Makes <paramref name="bytes"/> received bytes readable; a waiting reader runs now, on this thread.</summary>
    public WriteState Commit(int bytes)
    {
        ReadResult result;
        lock (_sync)
        {
            if (_readerDone) return WriteState.ReaderDone;
            _tail!.Commit(bytes);
            _unconsumed += bytes;
            _examinedAll = false;
            if (!_readerWaiting) return CheckPause();
            _readerWaiting = false;
            result = new ReadResult(BufferLocked(), false, _writerDone);
        }
        _read.SetResult(result);
        // The reader usually consumed everything it was given; take the lock only to pause.
        if (Volatile.Read(ref _unconsumed) < PauseThreshold && !Volatile.Read(ref _readerDone)) return WriteState.Open;
        lock (_sync)
        {
            return _readerDone ? WriteState.ReaderDone : CheckPause();
        }
    }

    private WriteState CheckPause()
    {
        if (_unconsumed < PauseThreshold) return WriteState.Open;
        _writerPaused = true;
        return WriteState.Paused;
    }

    /// <summary>Whether the reader finished while the writer was paused (call after a resume).</summary>
    public bool ReaderDone
    {
        get { lock (_sync) return _readerDone; }
    }

    /// <summary>
    /// For a connection that has been quiet for a while (called by the event loop, between
    /// receives): gives the input buffers back if the reader has consumed everything, and, if the
    /// reader is parked waiting for input (so it is writing nothing), runs <paramref name="whileParked"/>
    /// with the reader held there. An active connection keeps its last buffer and starts it over
    /// (see <see cref="GetWriteMemory"/>).
    /// </summary>
    public void TrimIfIdle(Action whileParked)
    {
        lock (_sync)
        {
            if (_unconsumed == 0 && _head != null) ReleaseAllLocked();
            if (_readerWaiting) whileParked(); // a commit or cancel that would wake it waits for this lock
        }
    }

    /// <summary>No more input (end of stream, or the connection failed).</summary>
    public void CompleteWriter()
    {
        bool wake;
        ReadResult result = default;
        lock (_sync)
        {
            if (_writerDone) return;
            _writerDone = true;
            wake = _readerWaiting;
            if (wake)
            {
                _readerWaiting = false;
                result = new ReadResult(BufferLocked(), false, true);
            }
            else if (_readerDone)
            {
                ReleaseAllLocked();
            }
        }
        if (wake) _read.SetResult(result);
    }

    // ---- reader (the connection's read loop) ----

    public override bool TryRead(out ReadResult result)
    {
        // Nothing new since the last read, seen without the lock: the common answer after a batch
        // (one lock less per request). Data committed meanwhile is found by the ReadAsync that follows.
        if (Volatile.Read(ref _examinedAll) && !Volatile.Read(ref _cancelRead) && !Volatile.Read(ref _writerDone)
            && !Volatile.Read(ref _readerDone))
        {
            result = default;
            return false;
        }
        lock (_sync) return TryReadLocked(out result);
    }

    public override ValueTask<ReadResult> ReadAsync(CancellationToken cancellationToken = default)
    {
        if (cancellationToken.CanBeCanceled)
            throw new NotSupportedException("InputBuffer reads are cancelled with CancelPendingRead, not a token.");
        lock (_sync)
        {
            if (TryReadLocked(out var result)) return new ValueTask<ReadResult>(result);
            _read.Reset();
            _readerWaiting = true;
            return new ValueTask<ReadResult>(this, _read.Version);
        }
    }

    private bool TryReadLocked(out ReadResult result)
    {
        if (_readerDone) throw new InvalidOperationException("Reading after the reader completed.");
        if (_cancelRead)
        {
            _cancelRead = false;
            result = new ReadResult(BufferLocked(), true, _writerDone);
            return true;
        }
        if ((_unconsumed > 0 && !_examinedAll) || _writerDone)
        {
            result = new ReadResult(BufferLocked(), false, _writerDone);
            return true;
        }
        result = default;
        return false;
    }

    private ReadOnlySequence<byte> BufferLocked()
        => _unconsumed == 0 ? ReadOnlySequence<byte>.Empty : new ReadOnlySequence<byte>(_head!, _headStart, _tail!, _tail!.End);

    public override void AdvanceTo(SequencePosition consumed) => AdvanceTo(consumed, consumed);

    public override void AdvanceTo(SequencePosition consumed, SequencePosition examined)
    {
        bool resume = false;
        lock (_sync)
        {
            // Positions of an empty buffer carry no segment: the reader consumed and saw nothing. Data
            // committed since it read must stay unconsumed and unexamined.
            if (consumed.GetObject() is not Segment segment) return;
            int index = consumed.GetInteger();
            long consumedEnd = segment.RunningIndex + index;
            _unconsumed -= consumedEnd - (_head!.RunningIndex + _headStart);
            while (_head != segment) // whole segments before the consumed position go back to the pool
            {
                var next = (Segment)_head!.Next!;
                Release(_head);
                _head = next;
            }
            _headStart = index;
            while (_head != _tail && _headStart == _head.End)
            {
                var next = (Segment)_head.Next!;
                Release(_head);
                _head = next;
                _headStart = 0;
            }

            var examinedSegment = examined.GetObject() as Segment ?? segment;
            long examinedEnd = examinedSegment.RunningIndex + examined.GetInteger();
            _examinedAll = examinedEnd >= _tail!.RunningIndex + _tail.End;

            if (_writerPaused && _unconsumed < ResumeThreshold)
            {
                _writerPaused = false;
                resume = true;
            }
        }
        if (resume) _resume();
    }

    /// <summary>
    /// Wakes a waiting reader with <c>IsCanceled</c> (or makes the next read return at once). Called
    /// from any thread (a publisher, a CLIENT KILL): the reader is resumed on the event loop through
    /// <c>wakeReader</c>, never on the caller's thread, which may hold shard gates or the pub/sub
    /// registry's lock.
    /// </summary>
    public override void CancelPendingRead()
    {
        if (PostCancellation()) _wakeReader();
    }

    /// <summary>
    /// <see cref="CancelPendingRead"/> for a wake-up that may wait a few event-loop cycles while the
    /// loop is busy (a replica's stream: one send per several cycles instead of one per cycle).
    /// </summary>
    public void CancelPendingReadSoon()
    {
        if (PostCancellation()) _wakeReaderSoon();
    }

    /// <summary>Marks the read cancelled; true when the loop is to be asked to deliver it.</summary>
    private bool PostCancellation()
    {
        lock (_sync)
        {
            _cancelRead = true;
            if (!_readerWaiting || _wakePosted) return false;
            _wakePosted = true;
            return true;
        }
    }

    /// <summary>On the event loop thread: delivers a cancellation posted by <see cref="CancelPendingRead"/>.</summary>
    public void DeliverCancellation()
    {
        ReadResult result;
        lock (_sync)
        {
            _wakePosted = false;
            if (!_readerWaiting || !_cancelRead) return; // data or another wake-up got there first
            _cancelRead = false;
            _readerWaiting = false;
            result = new ReadResult(BufferLocked(), true, _writerDone);
        }
        _read.SetResult(result);
    }

    public override void Complete(Exception? exception = null)
    {
        bool resume;
        lock (_sync)
        {
            if (_readerDone) return;
            _readerDone = true;
            resume = _writerPaused;
            _writerPaused = false;
            if (_writerDone) ReleaseAllLocked();
        }
        if (resume) _resume();
    }

    private void ReleaseAllLocked()
    {
        for (var s = _head; s != null;)
        {
            var next = (Segment?)s.Next;
            Release(s);
            s = next;
        }
        _head = _tail = null;
        _headStart = 0;
        _unconsumed = 0;
    }

    private void Release(Segment segment)
    {
        _allocated -= segment.Array.Length;
        Common.BufferPool.Return(segment.Array);
        segment.Start(System.Array.Empty<byte>(), 0);
        if (_spare.Count < 8) _spare.Push(segment);
    }

    ReadResult IValueTaskSource<ReadResult>.GetResult(short token) => _read.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource<ReadResult>.GetStatus(short token) => _read.GetStatus(token);

    void IValueTaskSource<ReadResult>.OnCompleted(Action<object?> continuation, object? state, short token,
        ValueTaskSourceOnCompletedFlags flags) => _read.OnCompleted(continuation, state, token, flags);
}
