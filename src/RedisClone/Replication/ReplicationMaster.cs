using System.Text;
using RedisClone.Commands;
using RedisClone.Persistence;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Replication;

/// <summary>
/// The master side of replication: the replicas, their syncs (partial from the backlog, or full
/// from a fork-free snapshot, see <see cref="FullSync"/>), the once-a-second duties of Redis's
/// replicationCron (PING, keep-alive newlines, repl-timeout, output limits, repl-backlog-ttl),
/// the acknowledged offsets WAIT and WAITAOF wait for, and the good-replica count of
/// min-replicas-to-write.
/// </summary>
internal sealed class ReplicationMaster
{
    private readonly RedisServer _server;
    private readonly object _lock = new();
    private readonly List<ReplicaLink> _replicas = [];
    private readonly List<AckWaiter> _waiters = [];
    private readonly object _startLock = new();
    private FullSync? _running;
    private long _noReplicasSinceMs = Environment.TickCount64;
    private int _goodReplicas;
    private long _lastPingMs = Environment.TickCount64, _lastSecondMs = Environment.TickCount64;
    private long _lastGetAckEnd = -1;

    public long SyncFull, SyncPartialOk, SyncPartialErr;

    /// <summary>CONFIG RESETSTAT: the sync counters back to 0.</summary>
    public void ResetStats()
    {
        Interlocked.Exchange(ref SyncFull, 0);
        Interlocked.Exchange(ref SyncPartialOk, 0);
        Interlocked.Exchange(ref SyncPartialErr, 0);
    }

    public ReplicationMaster(RedisServer server, ReplicationState state)
    {
        _server = server;
        State = state;
    }

    public RedisServer Server => _server;
    public ReplicationState State { get; }
    public ServerLog Log => _server.Log;

    /// <summary>The replicas (attached with SYNC/PSYNC), in the order they came.</summary>
    public ReplicaLink[] Replicas
    {
        get
        {
            lock (_lock) return [.. _replicas];
        }
    }

    public int Count
    {
        get
        {
            lock (_lock) return _replicas.Count;
        }
    }

    /// <summary>min_slaves_good_slaves: online replicas that acknowledged within min-replicas-max-lag.</summary>
    public int GoodReplicas => Volatile.Read(ref _goodReplicas);

    /// <summary>Redis's checkGoodReplicasStatus: false when min-replicas-to-write refuses writes now.</summary>
    public bool EnoughGoodReplicas
    {
        get
        {
            var config = _server.Config;
            long min = config.MinReplicasToWrite;
            return min == 0 || config.MinReplicasMaxLag == 0 || State.IsReplica || Volatile.Read(ref _goodReplicas) >= min;
        }
    }

    // ------------------------------------------------------------------ SYNC / PSYNC

    /// <summary>SYNC and PSYNC: the connection becomes a replica, partially resynced or queued for a full sync.</summary>
    public void Sync(ref CommandContext ctx)
    {
        var session = ctx.Client;
        var link = session.ReplicaLink ??= new ReplicaLink(session);
        if (link.Attached || session.IsMonitor) return; // Redis ignores SYNC from a replica (or a monitor)
        // PSYNC replid offset FAILOVER: our master hands its role to us (FAILOVER on its side); we
        // take it when it shares our history, then serve its PSYNC as any replica's.
        if (ctx.ArgCount > 3 && ctx.ArgIs(0, "PSYNC") && ctx.ArgIs(3, "FAILOVER"))
        {
            string requested = ctx.ArgString(1);
            Log.Notice($"Failover request received for replid {requested}.");
            if (!State.IsReplica)
            {
                ctx.Error(RespErrors.PsyncFailoverToMaster);
                return;
            }
            if (!requested.Equals(State.ReplicationId, StringComparison.OrdinalIgnoreCase))
            {
                ctx.Error(RespErrors.PsyncFailoverReplId);
                return;
            }
            _server.Replica.UnsetMaster();
            Log.Notice($"MASTER MODE enabled (failover request from '{ConnectionCommands.ClientInfoLine(session)}')");
        }
        if (State.Failover.State != FailoverState.None)
        {
            ctx.Error(RespErrors.SyncWhileFailingOver);
            return;
        }
        if (State.IsReplica && !_server.Replica.LinkUp)
        {
            ctx.Error(RespErrors.SyncWithoutMasterLink);
            return;
        }
        // Its stream must start on an empty reply buffer (Redis: the replies to commands before it
        // in the same read are still pending).
        if (ctx.Reply.HasPendingReplies)
        {
            ctx.Error(RespErrors.SyncWithPendingOutput);
            return;
        }
        if ((link.ExcludeData || link.ExcludeFunctions) && !link.CapaEof)
        {
            ctx.Error("ERR Filtered replica requires EOF capability");
            return;
        }
        Log.Notice($"Replica {link.Name} asks for synchronization");
        bool psync = ctx.ArgIs(0, "PSYNC");
        if (psync)
        {
            if (!Common.RedisNumbers.TryParseInt64(ctx.Arg(2), out long offset))
            {
                ctx.Error(RespErrors.NotInteger);
                Log.Warning($"Replica {link.Name} asks for synchronization but with a wrong offset");
                return;
            }
            string replid = ctx.ArgString(1);
            if (TryPartialResync(link, replid, offset))
            {
                Interlocked.Increment(ref SyncPartialOk);
                TurnIntoReplica(session);
                return;
            }
            if (!replid.StartsWith('?')) Interlocked.Increment(ref SyncPartialErr);
        }
        else
        {
            link.PrePsync = true;
        }
        Interlocked.Increment(ref SyncFull);
        TurnIntoReplica(session);
        if (_server.Config.ReplDisableTcpNoDelay) session.Buffers?.DisableNoDelay(); // full syncs only, as Redis
        link.State = ReplicaState.WaitBgsaveStart;
        link.SyncRequestedMs = Environment.TickCount64;
        Attach(link);
        if (State.Backlog == null)
        {
            // A backlog made from nothing starts a new history: a new id, no secondary one (as Redis).
            // A replica keeps its master's id: its stream is the master's (chained replicas).
            if (!State.IsReplica) State.ChangeReplicationId();
            State.EnsureBacklog();
            Log.Notice($"Replication backlog created, my new replication IDs are '{State.ReplicationId}' and '{State.ReplicationId2}'");
        }
        bool diskless = _server.Config.ReplDisklessSync && link.CapaEof;
        if (_server.Rdb.InProgress)
        {
            var running = Volatile.Read(ref _running);
            if (running is { Socket: false } && running.TryJoin(link))
                Log.Notice("Waiting for end of BGSAVE for SYNC");
            else if (running is { Socket: true })
                Log.Notice("Current BGSAVE has socket target. Waiting for next BGSAVE for SYNC");
            else
                Log.Notice("Can't attach the replica to the current BGSAVE. Waiting for next BGSAVE for SYNC");
            return;
        }
        if (diskless && _server.Config.ReplDisklessSyncDelay > 0)
        {
            Log.Notice("Delay next BGSAVE for diskless SYNC");
            return;
        }
        // The snapshot's instant needs every gate: taken off the event loop.
        ThreadPool.UnsafeQueueUserWorkItem(static m => m.StartPendingSync(), this, preferLocal: false);
    }

    /// <summary>Replies go nowhere from now on: a replica's link carries the stream only.</summary>
    private static void TurnIntoReplica(ClientSession session)
    {
        session.ReplyMode = ReplyMode.Off;
        session.Buffers?.CountOutputAsReplication();
    }

    private void Attach(ReplicaLink link)
    {
        link.Attached = true;
        lock (_lock) _replicas.Add(link);
    }

    /// <summary>Redis's masterTryPartialResynchronization: +CONTINUE and the backlog from the offset, or false for a full sync.</summary>
    private bool TryPartialResync(ReplicaLink link, string replid, long offset)
    {
        string id1 = State.ReplicationId, id2 = State.ReplicationId2;
        if (!replid.Equals(id1, StringComparison.OrdinalIgnoreCase)
            && (!replid.Equals(id2, StringComparison.OrdinalIgnoreCase) || offset > State.SecondReplicationOffset))
        {
            if (!replid.StartsWith('?'))
            {
                if (!replid.Equals(id1, StringComparison.OrdinalIgnoreCase) && !replid.Equals(id2, StringComparison.OrdinalIgnoreCase))
                    Log.Notice($"Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '{replid}', my replication IDs are '{id1}' and '{id2}')");
                else
                    Log.Notice($"Partial resynchronization not accepted: Requested offset for second ID was {offset}, but I can reply up to {State.SecondReplicationOffset}");
            }
            else
            {
                Log.Notice($"Full resync requested by replica {link.Name}");
            }
            return false;
        }
        var backlog = State.Backlog;
        if (backlog == null || !link.AttachCursor(backlog, offset))
        {
            Log.Notice($"Unable to partial resync with replica {link.Name} for lack of backlog (Replica request was: {offset}).");
            if (offset > State.Offset)
                Log.Warning($"Warning: replica {link.Name} tried to PSYNC with an offset that is greater than the master replication offset.");
            return false;
        }
        link.State = ReplicaState.Online;
        link.AckTimeMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        link.Enqueue(link.CapaPsync2 ? $"+CONTINUE {id1}\r\n" : "+CONTINUE\r\n");
        link.Streaming = true;
        Attach(link);
        Log.Notice($"Partial resynchronization request from {link.Name} accepted. Sending {link.PendingStreamBytes} bytes of backlog starting from offset {offset}.");
        RefreshGoodReplicas();
        return true;
    }

    /// <summary>
    /// Starts a full sync for the replicas waiting for one when Redis would (shouldStartChildReplication):
    /// not while a save or rewrite runs; diskless, once the oldest has waited repl-diskless-sync-delay
    /// seconds or repl-diskless-sync-max-replicas are waiting. Never on an event loop (takes every gate).
    /// </summary>
    public void StartPendingSync()
    {
        if (!Monitor.TryEnter(_startLock)) return;
        try
        {
            if (_server.Rdb.InProgress || _server.AofFiles?.RewriteInProgress == true || Volatile.Read(ref _running) != null) return;
            var waiting = new List<ReplicaLink>();
            long maxIdleMs = 0;
            bool capaEof = true;
            foreach (var link in Replicas)
            {
                if (link.State != ReplicaState.WaitBgsaveStart || link.Closed) continue;
                if (waiting.Count > 0 && (link.ExcludeData != waiting[0].ExcludeData || link.ExcludeFunctions != waiting[0].ExcludeFunctions)) continue;
                waiting.Add(link);
                capaEof &= link.CapaEof;
                maxIdleMs = Math.Max(maxIdleMs, Environment.TickCount64 - link.SyncRequestedMs);
            }
            if (waiting.Count == 0) return;
            var config = _server.Config;
            bool diskless = config.ReplDisklessSync;
            long maxReplicas = config.ReplDisklessSyncMaxReplicas;
            if (diskless && capaEof && !(maxReplicas > 0 && waiting.Count >= maxReplicas) && maxIdleMs / 1000 < config.ReplDisklessSyncDelay)
                return;
            // A filtered RDB (rdb-filter-only) always goes to the sockets: it must not replace the dump file.
            bool socket = (diskless || waiting[0].ExcludeData || waiting[0].ExcludeFunctions) && capaEof;
            Log.Notice($"Starting BGSAVE for SYNC with target: {(socket ? "replicas sockets" : "disk")}");
            var sync = new FullSync(this, waiting, socket);
            Volatile.Write(ref _running, sync);
            bool started = _server.Replica.BetweenBatches(() => _server.WithAllGates(() => _server.Rdb.TryStartBackground(sync)));
            if (!started) Volatile.Write(ref _running, null);
        }
        finally
        {
            Monitor.Exit(_startLock);
        }
    }

    /// <summary>The running full sync ended (its replicas have their RDB queued, or were dropped).</summary>
    public void SyncEnded()
    {
        Volatile.Write(ref _running, null);
        // Replicas that came during a save they could not join: their turn (or a disk save's next one).
        if (Replicas.Any(l => l.State == ReplicaState.WaitBgsaveStart))
            ThreadPool.UnsafeQueueUserWorkItem(static m => m.StartPendingSync(), this, preferLocal: false);
    }

    /// <summary>On the replica's connection, once its whole RDB is written: online, as Redis's replicaPutOnline.</summary>
    public void RdbSent(ReplicaLink link, bool socket)
    {
        link.Sync = null;
        if (socket)
            Log.Notice($"Streamed RDB transfer with replica {link.Name} succeeded (socket). Waiting for REPLCONF ACK from replica to enable streaming");
        if (link.RdbOnly)
        {
            link.State = ReplicaState.RdbTransmitted;
            Log.Notice($"RDB transfer completed, rdb only replica ({link.Name}) should be disconnected asap");
            link.CloseAfterPump = true; // the pump flushes the RDB's end, then the connection closes
            return;
        }
        link.State = ReplicaState.Online;
        link.AckTimeMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        // Diskless: the stream waits for the replica's first ACK, so it never follows the RDB's end
        // mark in the same read (redis-cli --replica sends one too); from a file it starts at once.
        if (socket) link.StartStreamOnAck = true;
        else link.Streaming = true;
        RefreshGoodReplicas();
        Log.Notice($"Synchronization with replica {link.Name} succeeded");
        link.Wake();
    }

    /// <summary>The replica's connection ended.</summary>
    public void Remove(ReplicaLink link)
    {
        bool was;
        lock (_lock)
        {
            was = _replicas.Remove(link);
            if (was && _replicas.Count == 0) _noReplicasSinceMs = Environment.TickCount64;
        }
        link.Close();
        if (!was) return;
        if (link.State != ReplicaState.RdbTransmitted) Log.Notice($"Connection with replica {link.Name} lost.");
        RefreshGoodReplicas();
    }

    /// <summary>
    /// Redis's disconnectSlaves: every replica's connection closes and its cursor lets go of the
    /// backlog at once (before the backlog is replaced or freed). A chained server does this when
    /// its history changes under its replicas (a full sync with its master, a new id from its
    /// master, REPLICAOF NO ONE); they reconnect and learn the new history with PSYNC.
    /// </summary>
    public void DisconnectAll()
    {
        ReplicaLink[] links;
        lock (_lock)
        {
            links = [.. _replicas];
            if (links.Length == 0) return;
            _replicas.Clear();
            _noReplicasSinceMs = Environment.TickCount64;
        }
        foreach (var link in links)
        {
            link.Close(); // detaches the cursor now; the session's own end finds it gone
            link.Session.Kill();
            if (link.State != ReplicaState.RdbTransmitted) Log.Notice($"Connection with replica {link.Name} lost.");
        }
        RefreshGoodReplicas();
        CheckWaiters();
    }

    // ------------------------------------------------------------------ REPLCONF

    /// <summary>REPLCONF ACK offset [FACK aofoffset]: no reply; the stream starts on a diskless replica's first.</summary>
    public void Ack(ReplicaLink link, long offset, long aofOffset)
    {
        link.Acknowledge(offset, aofOffset, DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());
        if (link.StartStreamOnAck && link.State == ReplicaState.Online)
        {
            link.StartStreamOnAck = false;
            link.Streaming = true;
            link.Wake();
        }
        CheckWaiters();
    }

    // ------------------------------------------------------------------ WAIT, WAITAOF

    private sealed record AckWaiter(long Offset, long Count, bool Aof, TaskCompletionSource Done, Task Abandoned);

    /// <summary>Online replicas that acknowledged <paramref name="offset"/> (in their AOF with <paramref name="aof"/>).</summary>
    public long CountAcks(long offset, bool aof = false)
    {
        long count = 0;
        foreach (var link in Replicas)
        {
            if (link.State != ReplicaState.Online) continue;
            if ((aof ? link.AofOffset : link.AckOffset) >= offset) count++;
        }
        return count;
    }

    /// <summary>
    /// Completes once <paramref name="count"/> replicas acknowledged <paramref name="offset"/>; the
    /// waiter is dropped when <paramref name="abandoned"/> completes (the client stopped waiting).
    /// Asks the replicas for an ACK now, as Redis's WAIT does before it sleeps.
    /// </summary>
    public Task WaitForAcks(long offset, long count, bool aof, Task abandoned)
    {
        var waiter = new AckWaiter(offset, count, aof, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously), abandoned);
        lock (_waiters) _waiters.Add(waiter);
        CheckWaiters();
        RequestAcks();
        return waiter.Done.Task;
    }

    /// <summary>REPLCONF GETACK * into the stream, unless one already went after the last byte.</summary>
    public void RequestAcks()
    {
        if (Count == 0) return;
        long end = State.FeedGetAck(Volatile.Read(ref _lastGetAckEnd));
        if (end >= 0) Volatile.Write(ref _lastGetAckEnd, end);
    }

    private void CheckWaiters()
    {
        lock (_waiters)
        {
            if (_waiters.Count == 0) return;
            for (int i = _waiters.Count - 1; i >= 0; i--)
            {
                var w = _waiters[i];
                if (w.Abandoned.IsCompleted || CountAcks(w.Offset, w.Aof) >= w.Count)
                {
                    _waiters.RemoveAt(i);
                    w.Done.TrySetResult();
                }
            }
        }
    }

    /// <summary>
    /// The server stops (writes held): waits up to <paramref name="seconds"/> for every replica to
    /// acknowledge master_repl_offset, asking them with GETACK, as Redis 7's shutdown does; logs
    /// the ones still lagging. Called off the event loops.
    /// </summary>
    public void WaitBeforeShutdown(long seconds)
    {
        if (seconds <= 0 || Count == 0 || State.IsReplica || CaughtUp()) return;
        Log.Notice("Waiting for replicas before shutting down.");
        RequestAcks();
        long deadline = Environment.TickCount64 + seconds * 1000;
        while (!CaughtUp() && Environment.TickCount64 < deadline) Thread.Sleep(10);
        long offset = State.Offset, nowSeconds = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        foreach (var link in Replicas)
        {
            if (link.AckOffset == offset) continue;
            Log.Warning($"Lagging replica {link.Name} reported offset {offset - link.AckOffset} behind master, lag={nowSeconds - link.AckTimeMs / 1000}, state={StateName(link.State)}.");
        }
    }

    private bool CaughtUp()
    {
        long offset = State.Offset;
        foreach (var link in Replicas)
            if (link.AckOffset != offset) return false;
        return true;
    }

    // ------------------------------------------------------------------ ROLE, INFO

    /// <summary>ROLE on a master: ["master", offset, [[ip, port, acked offset], ...]] for the online replicas.</summary>
    public void Role(ref CommandContext ctx)
    {
        var online = Replicas.Where(l => l.State == ReplicaState.Online).ToArray();
        ctx.Reply.ArrayHeader(3);
        ctx.Reply.Bulk("master"u8);
        ctx.Reply.Integer(State.Offset);
        ctx.Reply.ArrayHeader(online.Length);
        foreach (var link in online)
        {
            ctx.Reply.ArrayHeader(3);
            ctx.Reply.Bulk(Encoding.ASCII.GetBytes(link.Ip));
            ctx.Reply.Bulk(Encoding.ASCII.GetBytes(link.ListeningPort.ToString(System.Globalization.CultureInfo.InvariantCulture)));
            ctx.Reply.Bulk(Encoding.ASCII.GetBytes(link.AckOffset.ToString(System.Globalization.CultureInfo.InvariantCulture)));
        }
    }

    /// <summary>INFO's state= for a replica ("" for an rdb-only one that is done: not listed).</summary>
    public static string StateName(ReplicaState state) => state switch
    {
        ReplicaState.WaitBgsaveStart or ReplicaState.WaitBgsaveEnd => "wait_bgsave",
        ReplicaState.SendBulk => "send_bulk",
        ReplicaState.Online => "online",
        _ => "",
    };

    // ------------------------------------------------------------------ cron

    /// <summary>
    /// Every 100 ms from the server's cron: pending full syncs, good replicas; once a second the
    /// keep-alive newlines, repl-timeout, repl-backlog-ttl; PING every repl-ping-replica-period.
    /// </summary>
    public void Cron()
    {
        var replicas = Replicas;
        long now = Environment.TickCount64;
        var config = _server.Config;
        if (replicas.Length > 0)
        {
            if (replicas.Any(l => l.State == ReplicaState.WaitBgsaveStart)) StartPendingSync();
            CheckOutputLimits(replicas, now);
        }
        RefreshGoodReplicas();
        CheckWaiters();
        State.Failover.Cron();
        if (now - _lastSecondMs < 1000) return;
        _lastSecondMs = now;

        if (replicas.Length > 0 && now - _lastPingMs >= config.ReplPingReplicaPeriod * 1000 && State.Failover.State == FailoverState.None
            && !_server.Pause.HoldsForFailover)
        {
            _lastPingMs = now;
            State.FeedPing();
        }
        long timeoutMs = config.ReplTimeout * 1000;
        long nowUnixMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        foreach (var link in replicas)
        {
            var sync = link.Sync;
            // Before their RDB: a newline each second keeps the link alive (ignored by the replica).
            if (link.State == ReplicaState.WaitBgsaveStart || (link.State == ReplicaState.WaitBgsaveEnd && sync is { Socket: false }))
                link.Enqueue("\n"u8.ToArray());
            if (link.State == ReplicaState.Online && !link.PrePsync && nowUnixMs - link.AckTimeMs > timeoutMs)
            {
                Log.Warning($"Disconnecting timedout replica (streaming sync): {link.Name}");
                link.Session.Kill();
            }
            else if (link.State == ReplicaState.WaitBgsaveEnd && sync is { Socket: true } && link.QueuedBytes > 0
                     && now - link.LastRdbWriteMs > timeoutMs)
            {
                Log.Warning($"Disconnecting timedout replica (full sync): {link.Name}");
                link.Session.Kill();
            }
        }
        long ttl = config.ReplBacklogTtl;
        if (replicas.Length == 0 && ttl > 0 && State.Backlog != null && !State.IsReplica)
        {
            long idle;
            lock (_lock) idle = _replicas.Count == 0 ? now - _noReplicasSinceMs : 0;
            if (idle > ttl * 1000)
            {
                State.ChangeReplicationId();
                State.FreeBacklog();
                Log.Notice($"Replication backlog freed after {ttl} seconds without connected replicas.");
            }
        }
    }

    /// <summary>client-output-buffer-limit replica: the stream bytes a replica has not taken, against hard and soft limits.</summary>
    private void CheckOutputLimits(ReplicaLink[] replicas, long now)
    {
        var (hard, soft, seconds) = _server.Config.ReplicaOutputLimits;
        if (hard == 0 && soft == 0) return;
        foreach (var link in replicas)
        {
            if (link.Closed || link.Session.Killed) continue;
            long pending = link.PendingStreamBytes;
            bool over = hard > 0 && pending >= hard;
            if (!over && soft > 0 && pending >= soft)
            {
                if (link.SoftLimitSinceMs < 0) link.SoftLimitSinceMs = now;
                else if (now - link.SoftLimitSinceMs >= seconds * 1000L) over = true;
            }
            else if (!over)
            {
                link.SoftLimitSinceMs = -1;
            }
            if (!over) continue;
            Log.Warning($"Client {ConnectionCommands.ClientInfoLine(link.Session)} scheduled to be closed ASAP for overcoming of output buffer limits.");
            if (link.Session.KillForLimit()) Interlocked.Increment(ref _server.Stats.OutputBufferLimitDisconnections);
        }
    }

    private void RefreshGoodReplicas()
    {
        long maxLagMs = _server.Config.MinReplicasMaxLag * 1000;
        long nowUnixMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        int good = 0;
        foreach (var link in Replicas)
        {
            // Whole seconds, as Redis compares its unixtime clock.
            if (link.State == ReplicaState.Online && nowUnixMs / 1000 - link.AckTimeMs / 1000 <= maxLagMs / 1000) good++;
        }
        Volatile.Write(ref _goodReplicas, good);
    }
}
