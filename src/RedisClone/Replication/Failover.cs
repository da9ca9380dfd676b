using RedisClone.Commands;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Replication;

/// <summary>Where a coordinated failover stands (INFO's master_failover_state).</summary>
internal enum FailoverState { None, WaitForSync, InProgress }

/// <summary>
/// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms]: a master hands its role to one of its
/// replicas without losing a write, as Redis 6.2+ does it. Writes are paused; once a replica
/// (the one named, or any) has acknowledged the whole stream, this server becomes its replica and
/// asks it with <c>PSYNC replid offset FAILOVER</c> to take over; the replica, finding its own
/// replication id, becomes a master and answers with a partial resync, and the pause ends. A
/// timeout aborts (or, with FORCE, fails over to the named replica even if it lags); FAILOVER
/// ABORT goes back to being a master.
/// </summary>
internal sealed class Failover
{
    private readonly RedisServer _server;
    private readonly object _lock = new();
    private volatile FailoverState _state;
    private string? _host;
    private int _port;
    private long _endMs;
    private bool _force;

    public Failover(RedisServer server) => _server = server;

    public FailoverState State => _state;

    /// <summary>master_failover_state.</summary>
    public string StateName => _state switch
    {
        FailoverState.WaitForSync => "waiting-for-sync",
        FailoverState.InProgress => "failover-in-progress",
        _ => "no-failover",
    };

    /// <summary>The FAILOVER command.</summary>
    public static void Command(ref CommandContext ctx)
    {
        if (ctx.Server.Cluster != null)
        {
            ctx.Error(RespErrors.FailoverInClusterMode);
            return;
        }
        var failover = ctx.Server.Replication.Failover;
        int argc = ctx.ArgCount;
        if (argc == 2 && ctx.ArgIs(1, "ABORT"))
        {
            if (failover._state == FailoverState.None)
            {
                ctx.Error(RespErrors.FailoverNotInProgress);
                return;
            }
            failover.Abort("Failover manually aborted");
            ctx.Reply.Ok();
            return;
        }
        long timeoutMs = 0, port = 0;
        bool force = false;
        string? host = null;
        for (int j = 1; j < argc; j++)
        {
            if (ctx.ArgIs(j, "TIMEOUT") && j + 1 < argc && timeoutMs == 0)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out timeoutMs))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (timeoutMs <= 0)
                {
                    ctx.Error(RespErrors.FailoverTimeoutNotPositive);
                    return;
                }
                j++;
            }
            else if (ctx.ArgIs(j, "TO") && j + 2 < argc && host == null)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 2), out port))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                host = ctx.ArgString(j + 1);
                j += 2;
            }
            else if (ctx.ArgIs(j, "FORCE") && !force)
            {
                force = true;
            }
            else
            {
                ctx.Error(RespErrors.Syntax);
                return;
            }
        }
        var server = ctx.Server;
        if (failover._state != FailoverState.None)
        {
            ctx.Error(RespErrors.FailoverInProgress);
            return;
        }
        if (server.Replication.IsReplica)
        {
            ctx.Error(RespErrors.FailoverOnReplica);
            return;
        }
        var replicas = server.Replication.Master.Replicas;
        if (replicas.Length == 0)
        {
            ctx.Error(RespErrors.FailoverNoReplicas);
            return;
        }
        if (force && (timeoutMs == 0 || host == null))
        {
            ctx.Error(RespErrors.FailoverForceNeedsTarget);
            return;
        }
        if (host != null)
        {
            var target = Find(replicas, host, port);
            if (target == null)
            {
                ctx.Error(RespErrors.FailoverTargetUnknown);
                return;
            }
            if (target.State != ReplicaState.Online)
            {
                ctx.Error(RespErrors.FailoverTargetNotOnline);
                return;
            }
            server.Log.Notice($"FAILOVER requested to {host}:{port}.");
        }
        else
        {
            server.Log.Notice("FAILOVER requested to any replica.");
        }
        lock (failover._lock)
        {
            failover._host = host;
            failover._port = (int)port;
            failover._endMs = timeoutMs > 0 ? DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() + timeoutMs : 0;
            failover._force = force;
            failover._state = FailoverState.WaitForSync;
        }
        // Writes wait (and with them the stream, expiry and eviction) until the failover ends.
        server.Pause.HoldWritesForFailover(true);
        ctx.Reply.Ok();
    }

    /// <summary>Redis's findReplica: the replica announcing (or connecting from) <paramref name="host"/> and listening on <paramref name="port"/>.</summary>
    private static ReplicaLink? Find(ReplicaLink[] replicas, string host, long port)
    {
        foreach (var link in replicas)
            if (link.ListeningPort == port && string.Equals(link.Ip, host, StringComparison.OrdinalIgnoreCase)) return link;
        return null;
    }

    /// <summary>
    /// From the replication cron: while waiting for a replica to catch up, the timeout (abort, or
    /// fail over anyway with FORCE), and the switch once a replica has acknowledged everything.
    /// </summary>
    public void Cron()
    {
        if (_state != FailoverState.WaitForSync) return;
        string host;
        int port;
        lock (_lock)
        {
            if (_state != FailoverState.WaitForSync) return;
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            if (_endMs != 0 && _endMs <= now)
            {
                if (!_force)
                {
                    AbortLocked("Replica never caught up before timeout");
                    return;
                }
                _server.Log.Notice($"FAILOVER to {_host}:{_port} time out exceeded, failing over.");
                _state = FailoverState.InProgress;
                host = _host!;
                port = _port;
            }
            else
            {
                long offset = _server.Replication.Offset;
                var replicas = _server.Replication.Master.Replicas;
                ReplicaLink? ready = null;
                if (_host != null)
                {
                    var target = Find(replicas, _host, _port);
                    if (target != null && target.AckOffset == offset) ready = target;
                }
                else
                {
                    ready = replicas.FirstOrDefault(l => l.State == ReplicaState.Online && l.AckOffset == offset);
                    if (ready != null)
                    {
                        _host = ready.Ip;
                        _port = (int)ready.ListeningPort;
                    }
                }
                if (ready == null) return;
                _state = FailoverState.InProgress;
                _server.Log.Notice($"Failover target {_host}:{_port} is synced, failing over.");
                host = _host!;
                port = _port;
            }
        }
        // As Redis's replicationSetMaster: this server follows the target, whose link sends PSYNC ... FAILOVER.
        _server.Replica.SetMaster(host, port);
    }

    /// <summary>True while this server's link to its new master must ask with PSYNC ... FAILOVER.</summary>
    public bool AskTargetToTakeOver => _state == FailoverState.InProgress;

    /// <summary>
    /// The target answered the PSYNC FAILOVER: with +CONTINUE or +FULLRESYNC the failover is done
    /// (this server is its replica now), any other answer aborts it.
    /// </summary>
    public void TargetAnswered(bool accepted)
    {
        lock (_lock)
        {
            if (_state != FailoverState.InProgress) return;
            if (accepted) ClearLocked();
            else AbortLocked("Failover target rejected psync request");
        }
    }

    /// <summary>The link to the target failed before it answered (Redis aborts on a write error to it).</summary>
    public void TargetUnreachable(string why)
    {
        lock (_lock)
        {
            if (_state == FailoverState.InProgress) AbortLocked(why);
        }
    }

    public void Abort(string reason)
    {
        lock (_lock) AbortLocked(reason);
    }

    private void AbortLocked(string reason)
    {
        if (_state == FailoverState.None) return;
        if (_host != null) _server.Log.Notice($"FAILOVER to {_host}:{_port} aborted: {reason}");
        else _server.Log.Notice($"FAILOVER to any replica aborted: {reason}");
        bool following = _state == FailoverState.InProgress;
        ClearLocked();
        if (following) _server.Replica.UnsetMaster();
    }

    private void ClearLocked()
    {
        _host = null;
        _port = 0;
        _endMs = 0;
        _force = false;
        _state = FailoverState.None;
        _server.Pause.HoldWritesForFailover(false);
    }
}
