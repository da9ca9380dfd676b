using System.Globalization;
using System.Text;
using RedisClone.Commands;
using RedisClone.Server;

namespace RedisClone.Replication;

/// <summary>Redis's repl_state, as ROLE names it: connect, connecting, handshake, sync, connected.</summary>
internal enum LinkState
{
    /// <summary>Not a replica.</summary>
    None,
    /// <summary>Must connect (after a failure, once a second).</summary>
    Connect,
    /// <summary>The TCP connection is being made.</summary>
    Connecting,
    /// <summary>PING, AUTH, REPLCONF, PSYNC and their replies.</summary>
    Handshake,
    /// <summary>Receiving (and loading) the master's RDB payload.</summary>
    Transfer,
    /// <summary>Applying the master's stream.</summary>
    Connected,
}

/// <summary>
/// The replica side of replication: which master this server follows (REPLICAOF, the replicaof
/// directive), the link to it (<see cref="MasterLink"/>), the cached master a partial resync starts
/// from, and what ROLE, INFO and the read-only / stale-data checks read of it.
/// </summary>
/// <remarks>
/// Changes of master run under one lock: a new link first waits for the previous one to have
/// stopped, so two links never apply streams at once. Readers (INFO, the checks) read volatile
/// fields without the lock.
/// </remarks>
internal sealed class ReplicaRole
{
    private readonly RedisServer _server;
    private readonly object _lock = new();
    private volatile MasterLink? _link;
    private volatile string? _host;
    private volatile int _port;

    public ReplicaRole(RedisServer server) => _server = server;

    /// <summary>The master's host while a replica, else null.</summary>
    public string? MasterHost => _host;

    public int MasterPort => _port;

    /// <summary>The link to the master, while a replica.</summary>
    public MasterLink? Link => _link;

    /// <summary>The link is up (master_link_status:up): the stream is being applied.</summary>
    public bool LinkUp => _link?.State == LinkState.Connected;

    /// <summary>
    /// Held by the master link from the first command of a batch of its master's stream until the
    /// batch's bytes are passed on (fed to our own stream), so that a snapshot, whose instant
    /// records the stream offset beside the data, never falls between commands the link applied and
    /// bytes it has not fed yet: a sub-replica or a restart from that RDB would apply them twice.
    /// Taken before any gate (the link takes gates while holding it).
    /// </summary>
    private readonly SemaphoreSlim _applyLock = new(1, 1);

    public ValueTask EnterApplyAsync(CancellationToken token) => new(_applyLock.WaitAsync(token));

    public void ExitApply() => _applyLock.Release();

    /// <summary>A batch of the master's stream is being applied (read under every gate: it is then mid-batch).</summary>
    public bool ApplyInProgress => _applyLock.CurrentCount == 0;

    /// <summary>
    /// Runs <paramref name="action"/> (which takes every gate for a snapshot's instant) between
    /// batches of the master's stream. Blocks: never on an event loop, never holding a gate.
    /// </summary>
    public T BetweenBatches<T>(Func<T> action)
    {
        _applyLock.Wait();
        try
        {
            return action();
        }
        finally
        {
            _applyLock.Release();
        }
    }

    /// <summary>
    /// A command of the master's stream answered with an error (the reply goes nowhere): logged and
    /// counted in unexpected_error_replies as Redis's afterErrorReply does for its master client, a
    /// sign of a script error or of data that differs from the master's. Redis's
    /// propagation-error-behavior panic modes are not followed here: the replica logs and goes on.
    /// </summary>
    public void ErrorToMaster(ReadOnlySpan<char> error, string? command)
    {
        if (error.StartsWith("-")) error = error[1..];
        if (error.EndsWith("\r\n")) error = error[..^2];
        if (error.Length > 4096) error = error[..4096];
        _server.Log.Warning($"== CRITICAL == This replica is sending an error to its master: '{error}' after processing the command '{command ?? "<unknown>"}'");
        Interlocked.Increment(ref _server.Stats.UnexpectedErrorReplies);
    }

    /// <summary>
    /// Redis's cached master: the replication id and offset this server's data stands at are a valid
    /// place to resume from (PSYNC id offset+1) rather than "PSYNC ? -1". Set when a connected link
    /// is lost, when a master becomes a replica, when a replica's RDB had its replication info.
    /// </summary>
    public volatile bool HasCachedMaster;

    /// <summary>The master client's database when the cached master is resurrected (repl-stream-db).</summary>
    public int CachedStreamDb;

    /// <summary>CONFIG GET replicaof: "host port" while a replica, else empty.</summary>
    public string ConfigValue => _host is { } host ? $"{host} {_port}" : "";

    /// <summary>The replicaof directive's port: strtol's digits (a sign allowed), 0 to 65535.</summary>
    public static bool TryParseConfigPort(string text, out int port)
    {
        port = 0;
        return long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long value)
               && value is >= 0 and <= 65535 && (port = (int)value) == value;
    }

    /// <summary>
    /// Before the data loads at start-up: a replicaof directive makes this server a replica (keys
    /// already expired in its RDB file are kept, as a replica's are: its master deletes them).
    /// </summary>
    public void ConfigureAtStartup()
    {
        string value = _server.Config.Value("replicaof");
        if (value.Length == 0) return;
        int space = value.LastIndexOf(' ');
        _host = value[..space];
        _port = int.Parse(value[(space + 1)..], CultureInfo.InvariantCulture);
        SetReplica(true);
    }

    /// <summary>
    /// After the data loaded at start-up: the RDB file's replication info (a replica's own save)
    /// makes its data a cached master, so the first sync can be partial; then the link starts.
    /// </summary>
    public void StartAfterLoad(Persistence.RdbLoader.Result? loaded)
    {
        if (_host == null)
        {
            // A master: the saved history stays valid for its replicas (Redis 7's loadDataFromDisk,
            // which wants a stream database too: older versions could save -1 there).
            if (loaded is { ReplicationId: { } saved } info && info.ReplicationOffset >= 0 && info.ReplicationStreamDb >= 0)
                _server.Replication.LoadedAsMaster(saved, info.ReplicationOffset, info.ExpiredKeys);
            return;
        }
        if (loaded is { ReplicationId: { } id } result && result.ReplicationOffset >= 0)
        {
            _server.Replication.Adopt(id, result.ReplicationOffset);
            CachedStreamDb = Math.Max(0, result.ReplicationStreamDb);
            HasCachedMaster = true;
        }
        lock (_lock)
        {
            // Only if nothing started one meanwhile: two links to one master run two syncs at once,
            // and each one's transfer fails on the other's temp file, endlessly.
            if (_host == null || _link != null) return;
            StartLinkLocked(Task.CompletedTask);
        }
        PromotionWarmup.Start();
    }

    /// <summary>
    /// REPLICAOF host port: follows that master from now on (the data stays until a full sync
    /// replaces it). False when it is already the master followed (nothing changes).
    /// </summary>
    public bool SetMaster(string host, int port)
    {
        lock (_lock)
        {
            if (_host != null && string.Equals(_host, host, StringComparison.OrdinalIgnoreCase) && _port == port)
            {
                _server.Log.Notice("REPLICAOF would result into synchronization with the master we are already connected with. No operation performed.");
                return false;
            }
            bool wasMaster = _host == null;
            var previous = _link;
            previous?.Stop();
            _host = host;
            _port = port;
            if (wasMaster)
            {
                // Redis's replicationCacheMasterUsingMyself: our own history is where a PSYNC to
                // the new master starts (it succeeds when the new master shares it: PSYNC2).
                HasCachedMaster = true;
                CachedStreamDb = 0;
                SetReplica(true);
            }
            // Redis's disconnectAllBlockedClients: what they wait for comes from a master now.
            foreach (var client in _server.Clients.Values)
                if (client.Blocked is { } blocked) blocked.TryFinish(Storage.BlockedClient.UnblockedRoleChange);
            StartLinkLocked(previous?.Completion ?? Task.CompletedTask);
            PromotionWarmup.Start();
            return true;
        }
    }

    /// <summary>
    /// Is a replica or not: the propagation feed ignores local writes, and keys expire only through
    /// the master's DELs (no active expiry; lookups hide expired keys without deleting them).
    /// </summary>
    private void SetReplica(bool replica)
    {
        _server.Replication.IsReplica = replica;
        var shards = _server.Shards;
        for (int s = 0; s < shards.Count; s++) shards[s].Store.ExpiryByMaster = replica;
    }

    private void StartLinkLocked(Task previous)
    {
        var link = new MasterLink(_server, this, _host!, _port);
        _link = link;
        link.Start(previous);
    }

    /// <summary>
    /// REPLICAOF NO ONE: a master again, with the data it has. The replication id becomes the
    /// secondary one (valid up to the current offset) and a new one starts, so former siblings may
    /// still resync partially with this server (PSYNC2). False when it was no replica.
    /// </summary>
    public bool UnsetMaster()
    {
        lock (_lock)
        {
            if (_host == null) return false;
            var link = _link;
            _link = null;
            _host = null;
            _port = 0;
            bool connected = link?.State == LinkState.Connected;
            link?.Stop();
            if (connected)
            {
                _server.Log.Warning("Connection with master lost.");
                _server.Log.Notice("Caching the disconnected master state.");
            }
            if (HasCachedMaster || connected) _server.Log.Notice("Discarding previously cached master state.");
            HasCachedMaster = false;
            var repl = _server.Replication;
            SetReplica(false);
            repl.ShiftReplicationId();
            _server.Log.Warning($"Setting secondary replication ID to {repl.ReplicationId2}, valid up to offset: {repl.SecondReplicationOffset}. " +
                                $"New replication ID is {repl.ReplicationId}");
            // Redis's replicationUnsetMaster: the replicas reconnect and learn the new id with
            // PSYNC (a partial resync: the old id is our secondary one).
            repl.Master.DisconnectAll();
            return true;
        }
    }

    /// <summary>
    /// Redis's rdbPopulateSaveInfo on a replica: with a master client (its database) or a cached
    /// master, the save records the replication id and offset the data stands at; null otherwise.
    /// A master's own case (with a backlog) is <see cref="ReplicationState.MasterSaveInfo"/>.
    /// </summary>
    public Persistence.RdbReplicationInfo? RdbSaveInfo()
    {
        if (_host == null) return _server.Replication.MasterSaveInfo();
        var repl = _server.Replication;
        if (_link is { State: LinkState.Connected } link && link.MasterDb is int db) return new(db, repl.ReplicationId, repl.Offset);
        if (HasCachedMaster) return new(CachedStreamDb, repl.ReplicationId, repl.Offset);
        return null;
    }

    /// <summary>The server stops: the link goes (its socket closed; a load in progress finishes).</summary>
    public void Stop() => _link?.Stop();

    /// <summary>ROLE on a replica: ["slave", host, port, state, the offset applied (-1 without a master client)].</summary>
    public void Role(ref CommandContext ctx)
    {
        var link = _link;
        string host = _host ?? "";
        ctx.Reply.ArrayHeader(5);
        ctx.Reply.Bulk("slave"u8);
        ctx.Reply.Bulk(Encoding.UTF8.GetBytes(host));
        ctx.Reply.Integer(_port);
        ctx.Reply.Bulk(Encoding.ASCII.GetBytes(StateName(link?.State ?? LinkState.Connect)));
        ctx.Reply.Integer(link?.State == LinkState.Connected ? _server.Replication.Offset : -1);
    }

    /// <summary>Redis's replstateToString (ROLE's names).</summary>
    public static string StateName(LinkState state) => state switch
    {
        LinkState.Connect => "connect",
        LinkState.Connecting => "connecting",
        LinkState.Handshake => "handshake",
        LinkState.Transfer => "sync",
        LinkState.Connected => "connected",
        _ => "none",
    };

    /// <summary>INFO replication's replica fields, from master_host to replica_announced, as Redis 7.2 prints them.</summary>
    public void AppendInfo(StringBuilder sb)
    {
        var link = _link;
        var state = link?.State ?? LinkState.Connect;
        long nowMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        bool connected = state == LinkState.Connected;
        Line(sb, "master_host", _host ?? "");
        Line(sb, "master_port", _port.ToString(CultureInfo.InvariantCulture));
        Line(sb, "master_link_status", connected ? "up" : "down");
        Line(sb, "master_last_io_seconds_ago", connected && link != null ? ((nowMs - link.LastIoMs) / 1000).ToString(CultureInfo.InvariantCulture) : "-1");
        Line(sb, "master_sync_in_progress", state == LinkState.Transfer ? "1" : "0");
        // As Redis: the master client's offsets, or the cached master's, else 1.
        long applied = connected || HasCachedMaster ? _server.Replication.Offset : 1;
        long read = connected && link != null ? Math.Max(applied, link.ReadOffset) : applied;
        Line(sb, "slave_read_repl_offset", read.ToString(CultureInfo.InvariantCulture));
        Line(sb, "slave_repl_offset", applied.ToString(CultureInfo.InvariantCulture));
        if (state == LinkState.Transfer && link != null)
        {
            long total = link.SyncTotalBytes, done = link.SyncReadBytes;
            // Redis's arithmetic: -0.00 while the size is unknown (-1: a diskless master's EOF mark).
            double perc = total != 0 ? (double)done / total * 100 : 0;
            Line(sb, "master_sync_total_bytes", total.ToString(CultureInfo.InvariantCulture));
            Line(sb, "master_sync_read_bytes", done.ToString(CultureInfo.InvariantCulture));
            Line(sb, "master_sync_left_bytes", (total - done).ToString(CultureInfo.InvariantCulture));
            Line(sb, "master_sync_perc", perc.ToString("0.00", CultureInfo.InvariantCulture));
            Line(sb, "master_sync_last_io_seconds_ago", ((nowMs - link.LastIoMs) / 1000).ToString(CultureInfo.InvariantCulture));
        }
        if (!connected)
        {
            long downSince = link?.DownSinceMs ?? 0;
            Line(sb, "master_link_down_since_seconds", downSince != 0 ? ((nowMs - downSince) / 1000).ToString(CultureInfo.InvariantCulture) : "-1");
        }
        Line(sb, "slave_priority", _server.Config.Number("replica-priority").ToString(CultureInfo.InvariantCulture));
        Line(sb, "slave_read_only", _server.Config.ReplicaReadOnly ? "1" : "0");
        Line(sb, "replica_announced", _server.Config.Number("replica-announced") != 0 ? "1" : "0");
    }

    private static void Line(StringBuilder sb, string key, string value) => sb.Append(key).Append(':').Append(value).Append("\r\n");
}
