using System.Buffers;

namespace RedisClone.Replication;

/// <summary>
/// The replication stream's bytes, kept once for everyone who needs them: the backlog (the last
/// <c>repl-backlog-size</c> bytes, for partial resyncs) and every replica's bytes not yet sent. This
/// is Redis 7's shared replication buffer: a chain of blocks that replicas read through cursors,
/// freed only when neither the backlog window nor any cursor still covers them.
/// </summary>
/// <remarks>
/// <para>Offsets are Redis's: <see cref="Offset"/> is master_repl_offset, the offset of the last
/// byte appended; the history is [<see cref="FirstByteOffset"/>, <see cref="Offset"/>]; a cursor's
/// <see cref="Cursor.Position"/> is the offset of the next byte it reads (a PSYNC's offset).</para>
/// <para>Appends come from any thread (the threads that ran the commands, holding their shards'
/// gates) under one lock, which also orders them: writes to one key reach the stream in the order
/// they ran. Readers copy out under the same lock, a block at a time.</para>
/// </remarks>
internal sealed class ReplicationBacklog
{
    private const int BlockSize = 64 * 1024;

    /// <summary>CONFIG_REPL_BACKLOG_MIN_SIZE: Redis keeps at least 16 KB of history whatever repl-backlog-size says.</summary>
    public const long MinSize = 16 * 1024;

    private sealed class Block(long start)
    {
        public readonly byte[] Data = ArrayPool<byte>.Shared.Rent(BlockSize);
        public long Start = start;
        public int Used;
        public Block? Next;
        public long End => Start + Used; // offset just past the last byte
    }

    /// <summary>Freed blocks kept for reuse (a few), so a steady stream allocates nothing.</summary>
    private readonly Stack<Block> _spare = new();
    private const int SpareBlocks = 4;

    private Block NewBlock(long start)
    {
        if (!_spare.TryPop(out var block)) return new Block(start);
        block.Start = start;
        block.Used = 0;
        block.Next = null;
        return block;
    }

    private void FreeBlock(Block block)
    {
        if (_spare.Count < SpareBlocks) _spare.Push(block);
        else ArrayPool<byte>.Shared.Return(block.Data);
    }

    /// <summary>A reader of the stream (one replica): where it is, and how it is woken when bytes arrive.</summary>
    internal sealed class Cursor
    {
        private readonly Action? _wake;
        private int _signalled;
        internal long _position;

        internal Cursor(long position, Action? wake)
        {
            _position = position;
            _wake = wake;
        }

        /// <summary>The offset of the next byte to read.</summary>
        public long Position => Volatile.Read(ref _position);

        /// <summary>Called by the appender: wakes the reader once until it reads again.</summary>
        internal void Signal()
        {
            if (_wake != null && Interlocked.Exchange(ref _signalled, 1) == 0) _wake();
        }

        /// <summary>The reader is about to read: the next append wakes it again.</summary>
        internal void Rearm() => Volatile.Write(ref _signalled, 0);
    }

    private readonly object _lock = new();
    private Block _head, _tail;
    private long _offset;
    private long _firstByte;
    private long _size;
    private Cursor[] _cursors = [];

    /// <param name="offset">master_repl_offset when the backlog is created: the history starts after it.</param>
    public ReplicationBacklog(long offset, long size)
    {
        _offset = offset;
        _firstByte = offset + 1;
        _size = Math.Max(MinSize, size);
        _head = _tail = new Block(offset + 1);
    }

    /// <summary>master_repl_offset: the offset of the last byte appended.</summary>
    public long Offset
    {
        get { lock (_lock) return _offset; }
    }

    /// <summary>repl_backlog_first_byte_offset.</summary>
    public long FirstByteOffset
    {
        get { lock (_lock) return _firstByte; }
    }

    /// <summary>repl_backlog_histlen: bytes of history kept for partial resyncs.</summary>
    public long HistoryLength
    {
        get { lock (_lock) return _offset - _firstByte + 1; }
    }

    /// <summary>Bytes held in blocks (mem_total_replication_buffers).</summary>
    public long AllocatedBytes
    {
        get
        {
            lock (_lock)
            {
                long bytes = 0;
                for (var b = _head; b != null; b = b.Next) bytes += b.Data.Length;
                return bytes;
            }
        }
    }

    /// <summary>repl-backlog-size: changing it trims the history at once when it shrinks.</summary>
    public long Size
    {
        get { lock (_lock) return _size; }
        set
        {
            lock (_lock)
            {
                _size = Math.Max(MinSize, value);
                TrimLocked();
            }
        }
    }

    /// <summary>Appends bytes of the stream; returns master_repl_offset after them. Wakes the readers.</summary>
    public long Append(ReadOnlySpan<byte> bytes)
    {
        Cursor[] cursors;
        long offset;
        lock (_lock)
        {
            AppendLocked(bytes);
            offset = _offset;
            cursors = _cursors;
        }
        foreach (var c in cursors) c.Signal();
        return offset;
    }

    private void AppendLocked(ReadOnlySpan<byte> bytes)
    {
        if (bytes.IsEmpty) return;
        while (!bytes.IsEmpty)
        {
            int room = BlockSize - _tail.Used;
            if (room == 0)
            {
                var next = NewBlock(_tail.End);
                _tail.Next = next;
                _tail = next;
                room = BlockSize;
            }
            int n = Math.Min(room, bytes.Length);
            bytes[..n].CopyTo(_tail.Data.AsSpan(_tail.Used));
            _tail.Used += n;
            _offset += n;
            bytes = bytes[n..];
        }
        TrimLocked();
    }

    /// <summary>
    /// A reader from <paramref name="position"/> (the offset of the first byte it wants), or null
    /// when those bytes are gone (a partial resync cannot be served) or not yet written.
    /// </summary>
    public Cursor? Attach(long position, Action? wake)
    {
        lock (_lock)
        {
            if (position < _firstByte || position > _offset + 1) return null;
            var cursor = new Cursor(position, wake);
            _cursors = [.. _cursors, cursor];
            return cursor;
        }
    }

    /// <summary>A reader at the current end of the stream (a full sync's snapshot instant).</summary>
    public Cursor AttachAtEnd(Action? wake)
    {
        lock (_lock)
        {
            var cursor = new Cursor(_offset + 1, wake);
            _cursors = [.. _cursors, cursor];
            return cursor;
        }
    }

    public void Detach(Cursor cursor)
    {
        lock (_lock)
        {
            int i = Array.IndexOf(_cursors, cursor);
            if (i < 0) return;
            _cursors = [.. _cursors[..i], .. _cursors[(i + 1)..]];
            TrimLocked();
        }
    }

    /// <summary>Bytes appended that <paramref name="cursor"/> has not read (a replica's output buffer).</summary>
    public long Pending(Cursor cursor)
    {
        lock (_lock) return _offset + 1 - cursor._position;
    }

    /// <summary>
    /// Copies up to <paramref name="max"/> bytes from the cursor's position into <paramref name="output"/>
    /// and moves the cursor past them; 0 when it is at the end.
    /// </summary>
    public int Read(Cursor cursor, IBufferWriter<byte> output, int max)
    {
        cursor.Rearm();
        lock (_lock)
        {
            long pos = cursor._position;
            // A cursor detached while its reader was on the way (the replica was disconnected and
            // the backlog released or restarted): nothing of its stream is left.
            if (pos < _head.Start) return 0;
            int copied = 0;
            for (var b = _head; b != null && copied < max; b = b.Next)
            {
                if (b.End <= pos) continue;
                int from = (int)(pos - b.Start);
                int n = Math.Min(b.Used - from, max - copied);
                var span = output.GetSpan(n);
                b.Data.AsSpan(from, n).CopyTo(span);
                output.Advance(n);
                copied += n;
                pos += n;
            }
            cursor._position = pos;
            if (copied > 0) TrimLocked();
            return copied;
        }
    }

    /// <summary>Copies the history from <paramref name="position"/> to the end (tests, chained replicas' diagnostics).</summary>
    public byte[] CopyFrom(long position)
    {
        lock (_lock)
        {
            if (position < _firstByte || position > _offset + 1) return [];
            var result = new byte[_offset + 1 - position];
            int copied = 0;
            for (var b = _head; b != null; b = b.Next)
            {
                if (b.End <= position) continue;
                int from = (int)Math.Max(0, position - b.Start);
                b.Data.AsSpan(from, b.Used - from).CopyTo(result.AsSpan(copied));
                copied += b.Used - from;
            }
            return result;
        }
    }

    /// <summary>Frees every block (the backlog is dropped); cursors must be detached first.</summary>
    public void Release()
    {
        lock (_lock)
        {
            for (var b = _head; b != null; b = b.Next) ArrayPool<byte>.Shared.Return(b.Data);
            while (_spare.TryPop(out var spare)) ArrayPool<byte>.Shared.Return(spare.Data);
            _head = _tail = new Block(_offset + 1);
            _firstByte = _offset + 1;
        }
    }

    private void TrimLocked()
    {
        long windowStart = _offset + 1 - _size;
        if (windowStart > _firstByte) _firstByte = windowStart;
        long needed = _firstByte;
        foreach (var c in _cursors) needed = Math.Min(needed, c._position);
        while (_head != _tail && _head.End <= needed)
        {
            var old = _head;
            _head = old.Next!;
            FreeBlock(old);
        }
    }
}
