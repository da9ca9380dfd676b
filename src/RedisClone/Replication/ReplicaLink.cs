using System.Buffers;
using System.Collections.Concurrent;
using System.IO.Pipelines;
using System.Text;
using RedisClone.Commands;

namespace RedisClone.Replication;

/// <summary>Where a replica is in its sync (Redis's SLAVE_STATE_*), as INFO names them.</summary>
internal enum ReplicaState
{
    /// <summary>Waiting for a snapshot to start (wait_bgsave).</summary>
    WaitBgsaveStart,
    /// <summary>Its snapshot is being written (wait_bgsave).</summary>
    WaitBgsaveEnd,
    /// <summary>The RDB file is being sent (send_bulk; disk-based syncs only).</summary>
    SendBulk,
    /// <summary>Synchronized: the stream goes to it (online).</summary>
    Online,
    /// <summary>REPLCONF rdb-only: its RDB is sent and it is about to be closed.</summary>
    RdbTransmitted,
}

/// <summary>
/// A connection that asked for the replication stream (or set REPLCONF options first): its
/// settings, its state, the acknowledged offsets, and what is to be written to it. Everything it
/// receives goes through one FIFO queue (the sync's reply lines, the RDB's chunks or file, markers
/// that change its state) and then its cursor in the backlog; the connection's read loop writes it
/// (<see cref="PumpAsync"/>) between batches, as pub/sub pushes, so the socket sees one writer and
/// the output pipe's flush pushes back on the producers.
/// </summary>
internal sealed class ReplicaLink
{
    /// <summary>Bytes written to the output per pump before the read loop gets a turn (ACKs keep coming in).</summary>
    private const int PumpBudget = 256 * 1024;

    private const int FlushEvery = 64 * 1024;

    private readonly ConcurrentQueue<object> _queue = new();
    private readonly object _roomLock = new();
    private long _queuedBytes;

    public ReplicaLink(ClientSession session)
    {
        Session = session;
    }

    public ClientSession Session { get; }

    // ---- REPLCONF settings (before SYNC/PSYNC)

    public long ListeningPort;
    public string? AnnouncedIp;
    public bool CapaEof, CapaPsync2, RdbOnly;

    /// <summary>REPLCONF rdb-filter-only: the RDB holds no keys, and no functions unless asked.</summary>
    public bool ExcludeData, ExcludeFunctions;

    /// <summary>Came with the old SYNC (redis-cli --replica): no +FULLRESYNC, no ACKs expected.</summary>
    public bool PrePsync;

    // ---- As a replica

    /// <summary>True once SYNC/PSYNC made it a replica (CLIENT LIST flag S, INFO slaveN).</summary>
    public bool Attached;

    public volatile ReplicaState State;

    /// <summary>When it asked for its sync (repl-diskless-sync-delay counts from here).</summary>
    public long SyncRequestedMs;

    /// <summary>master_repl_offset of its snapshot's instant (the +FULLRESYNC offset).</summary>
    public long InitialOffset;

    /// <summary>The full sync its RDB comes from, while it runs.</summary>
    public FullSync? Sync;

    /// <summary>Its place in the stream; null until the snapshot's instant (and for rdb-only).</summary>
    public ReplicationBacklog.Cursor? Cursor { get; private set; }

    public ReplicationBacklog? Backlog { get; private set; }

    private readonly object _cursorLock = new();

    /// <summary>
    /// Gives the link its place in <paramref name="backlog"/> from <paramref name="position"/>; false
    /// when those bytes are gone, or the link closed meanwhile (its cursor would pin the backlog forever).
    /// </summary>
    public bool AttachCursor(ReplicationBacklog backlog, long position)
    {
        var cursor = backlog.Attach(position, WakeForStream);
        if (cursor == null) return false;
        lock (_cursorLock)
        {
            if (!_closed)
            {
                Backlog = backlog;
                Cursor = cursor;
                return true;
            }
        }
        backlog.Detach(cursor);
        return false;
    }

    /// <summary>The stream's bytes go out (after the RDB, or at once after +CONTINUE).</summary>
    public volatile bool Streaming;

    /// <summary>Diskless: the stream starts with its first REPLCONF ACK, as Redis (repl_start_cmd_stream_on_ack).</summary>
    public volatile bool StartStreamOnAck;

    private long _ackOffset, _aofOffset, _ackTimeMs;

    /// <summary>repl_ack_off: the greatest offset it acknowledged.</summary>
    public long AckOffset => Volatile.Read(ref _ackOffset);

    /// <summary>repl_aof_off: the greatest offset it has in its AOF (REPLCONF ACK ... FACK).</summary>
    public long AofOffset => Volatile.Read(ref _aofOffset);

    /// <summary>repl_ack_time (unix ms): its last ACK, or when it went online.</summary>
    public long AckTimeMs
    {
        get => Volatile.Read(ref _ackTimeMs);
        set => Volatile.Write(ref _ackTimeMs, value);
    }

    /// <summary>When the pump last wrote RDB bytes (a diskless sync stuck on it times out).</summary>
    public long LastRdbWriteMs;

    /// <summary>When its pending stream bytes first went over the soft output limit (-1: not over).</summary>
    public long SoftLimitSinceMs = -1;

    /// <summary>Set while pumping (an rdb-only replica got its RDB): the connection closes once what is written is flushed.</summary>
    public bool CloseAfterPump;

    private volatile bool _closed;

    public bool Closed => _closed;

    public void Acknowledge(long offset, long aofOffset, long nowMs)
    {
        long seen;
        while (offset > (seen = Volatile.Read(ref _ackOffset)) && Interlocked.CompareExchange(ref _ackOffset, offset, seen) != seen) { }
        while (aofOffset > (seen = Volatile.Read(ref _aofOffset)) && Interlocked.CompareExchange(ref _aofOffset, aofOffset, seen) != seen) { }
        AckTimeMs = nowMs;
    }

    /// <summary>The name Redis logs it by (replicationGetSlaveName): "ip:listening-port".</summary>
    public string Name
    {
        get
        {
            string ip = Ip;
            if (ip.Length == 0) return $"client id #{Session.Id}";
            return ListeningPort != 0 ? $"{ip}:{ListeningPort}" : $"{ip}:<unknown-replica-port>";
        }
    }

    /// <summary>REPLCONF ip-address, else the connection's peer address.</summary>
    public string Ip
    {
        get
        {
            if (AnnouncedIp != null) return AnnouncedIp;
            string address = Session.Address;
            int colon = address.LastIndexOf(':');
            return colon > 0 ? address[..colon] : address;
        }
    }

    /// <summary>Stream bytes it has not been sent yet (its share of the replication buffer: its output buffer).</summary>
    public long PendingStreamBytes
    {
        get
        {
            var cursor = Cursor;
            var backlog = Backlog;
            return cursor != null && backlog != null ? backlog.Pending(cursor) : 0;
        }
    }

    /// <summary>Bytes queued for it and not yet written (the RDB's chunks and the sync's lines).</summary>
    public long QueuedBytes => Interlocked.Read(ref _queuedBytes);

    // ---- Output

    public void Enqueue(string line) => Enqueue(Encoding.ASCII.GetBytes(line));

    public void Enqueue(byte[] bytes)
    {
        if (Closed) return;
        Interlocked.Add(ref _queuedBytes, bytes.Length);
        _queue.Enqueue(bytes);
        Wake();
    }

    /// <summary>
    /// Writes <paramref name="bytes"/>, then runs <paramref name="then"/> in the same pump step: one
    /// queue item, so the pump can never write the bytes (a diskless RDB's end mark) and give the loop
    /// a turn before the state change is queued; the replica's answer to those bytes (its first
    /// REPLCONF ACK) would then find it not yet online and be ignored.
    /// </summary>
    public void EnqueueThen(byte[] bytes, Action then)
    {
        if (Closed) return;
        Interlocked.Add(ref _queuedBytes, bytes.Length);
        _queue.Enqueue(new BytesThen(bytes, then));
        Wake();
    }

    private sealed record BytesThen(byte[] Bytes, Action Then);

    /// <summary>Runs <paramref name="action"/> on the connection's loop once everything queued before it is written.</summary>
    public void EnqueueAction(Action action)
    {
        if (Closed) return;
        _queue.Enqueue(action);
        Wake();
    }

    /// <summary>Sends a file's contents (a disk-based sync's RDB) from its current position to its end.</summary>
    public void EnqueueFile(FileStream file)
    {
        if (Closed)
        {
            file.Dispose();
            return;
        }
        _queue.Enqueue(file);
        Wake();
        if (Closed && _queue.TryDequeue(out _)) file.Dispose();
    }

    /// <summary>Wakes the connection's read loop (coalesced by the pipe's pending-read cancellation).</summary>
    public void Wake() => Session.WakeReader?.Invoke();

    /// <summary>New stream bytes: <see cref="Wake"/>, which the event loop may put off for a few busy cycles.</summary>
    private void WakeForStream() => (Session.WakeReaderSoon ?? Session.WakeReader)?.Invoke();

    /// <summary>Something to write now: queued items, or stream bytes once streaming.</summary>
    public bool HasWork => !_queue.IsEmpty || (Streaming && PendingStreamBytes > 0);

    /// <summary>
    /// For a diskless sync's saver thread: waits while more than <paramref name="limit"/> bytes are
    /// queued (the replica reads slower than the snapshot is written). False once the link is closed.
    /// </summary>
    public bool WaitForRoom(long limit)
    {
        lock (_roomLock)
        {
            while (!Closed && Interlocked.Read(ref _queuedBytes) > limit) Monitor.Wait(_roomLock, 100);
        }
        return !Closed;
    }

    /// <summary>
    /// On the connection's read loop: writes what is queued, then stream bytes, flushing as it goes
    /// (a flush waits while the client does not read: that is the backpressure). Stops after
    /// <see cref="PumpBudget"/> bytes and wakes the loop again, so input is read in between.
    /// False when the connection is gone or is to close (an rdb-only replica has its RDB).
    /// </summary>
    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<bool> PumpAsync(PipeWriter output)
    {
        int budget = PumpBudget;
        // An action right after the last bytes runs in this turn even when the budget is spent: the
        // RDB's end then never reaches the replica before its state says so (an ACK read between
        // two turns would otherwise find the replica not yet online and be ignored).
        while ((budget > 0 || _queue.TryPeek(out var next) && next is Action) && !Closed)
        {
            if (_queue.TryPeek(out var item))
            {
                switch (item)
                {
                    case byte[] bytes:
                        output.Write(bytes);
                        _queue.TryDequeue(out _);
                        budget -= bytes.Length;
                        LastRdbWriteMs = Environment.TickCount64;
                        if (Interlocked.Add(ref _queuedBytes, -bytes.Length) >= 0)
                            lock (_roomLock) Monitor.PulseAll(_roomLock);
                        break;
                    case BytesThen last:
                        output.Write(last.Bytes);
                        _queue.TryDequeue(out _);
                        Interlocked.Add(ref _queuedBytes, -last.Bytes.Length);
                        last.Then();
                        if (CloseAfterPump)
                        {
                            await output.FlushAsync();
                            return false;
                        }
                        break;
                    case Action action:
                        _queue.TryDequeue(out _);
                        action();
                        if (CloseAfterPump)
                        {
                            await output.FlushAsync();
                            return false;
                        }
                        break;
                    case FileStream file:
                        var span = output.GetSpan(FlushEvery);
                        int n = file.Read(span[..Math.Min(span.Length, budget)]);
                        if (n == 0)
                        {
                            file.Dispose();
                            _queue.TryDequeue(out _);
                        }
                        else
                        {
                            output.Advance(n);
                            budget -= n;
                        }
                        break;
                    default:
                        _queue.TryDequeue(out _);
                        break;
                }
            }
            else if (Streaming && Cursor is { } cursor && Backlog is { } backlog)
            {
                int n = backlog.Read(cursor, output, budget);
                if (n == 0) break;
                budget -= n;
            }
            else
            {
                break;
            }
            if (output.UnflushedBytes >= FlushEvery)
            {
                var flushed = await output.FlushAsync();
                if (flushed.IsCompleted || flushed.IsCanceled) return false;
            }
        }
        if (budget <= 0 && !Closed) Wake(); // more to write: come back without waiting for input
        return true;
    }

    /// <summary>The connection ended: no more output; the cursor lets go of the backlog; a saver waiting on it goes on.</summary>
    public void Close()
    {
        ReplicationBacklog.Cursor? cursor;
        lock (_cursorLock)
        {
            if (_closed) return;
            _closed = true;
            cursor = Cursor;
            Cursor = null;
        }
        Streaming = false;
        if (cursor != null) Backlog?.Detach(cursor);
        while (_queue.TryDequeue(out var item))
            if (item is FileStream file) file.Dispose();
        Interlocked.Exchange(ref _queuedBytes, 0);
        lock (_roomLock) Monitor.PulseAll(_roomLock);
    }
}
