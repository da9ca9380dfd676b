using RedisClone.Cluster.Bus;
using RedisClone.Server;

namespace RedisClone.Cluster;

/// <summary>
/// Replica election and failover as Redis 7.2 runs them over the cluster bus: the replica's side
/// (clusterHandleSlaveFailover: a delayed election when its master is FAIL, votes asked with
/// FAILOVER_AUTH_REQUEST and counted from FAILOVER_AUTH_ACK, the master's slots taken on winning),
/// the voting master's side (clusterSendFailoverAuthIfNeeded), manual failover (CLUSTER FAILOVER
/// [FORCE]: MFSTART, the master pausing writes and announcing its offset flagged PAUSED) and
/// replica migration to orphaned masters (clusterHandleSlaveMigration).
/// </summary>
/// <remarks>
/// Every method runs holding <see cref="ClusterState.Sync"/>, called by <see cref="ClusterBus"/>
/// while it processes a message or runs its cron; sending goes through the bus. Timers use
/// <see cref="Environment.TickCount64"/>; the manual failover's deadline and can-start flag are
/// <see cref="ClusterState.ManualFailoverDeadlineMs"/> and <see cref="ClusterState.ManualFailoverCanStart"/>.
/// </remarks>
internal sealed class ClusterFailover
{
    /// <summary>Redis's CLUSTER_MF_TIMEOUT.</summary>
    private const long ManualTimeoutMs = 5000;

    /// <summary>Redis's CLUSTER_SLAVE_MIGRATION_DELAY.</summary>
    private const long MigrationDelayMs = 5000;

    /// <summary>Redis's CLUSTER_CANT_FAILOVER_RELOG_PERIOD (seconds there).</summary>
    private const long CantFailoverRelogMs = 10_000;

    private enum CantFailover { None, DataAge, WaitingDelay, Expired, WaitingVotes }

    private readonly RedisServer _server;
    private readonly ClusterState _state;
    private readonly ClusterBus _bus;

    // The replica's election (Redis's failover_auth_*).
    private long _authTime = long.MinValue / 2;
    private int _authCount, _authRank;
    private bool _authSent;
    private ulong _authEpoch;
    private CantFailover _cantReason;
    private long _cantLoggedAt = long.MinValue / 2;

    // Manual failover: the master's replica asking (mf_slave) and the offset the master paused at (mf_master_offset).
    private ClusterNode? _manualReplica;
    private long _manualMasterOffset = -1;
    private bool _pausing;

    public ClusterFailover(RedisServer server, ClusterState state, ClusterBus bus)
    {
        _server = server;
        _state = state;
        _bus = bus;
    }

    private static long Tick => Environment.TickCount64;

    private long NodeTimeout => Math.Max(1, _server.Config.Number("cluster-node-timeout"));

    /// <summary>A master in a manual failover flags its messages PAUSED (clusterBuildMessageHdr).</summary>
    public bool MasterPaused => _state.Myself.IsMaster && _state.ManualFailoverDeadlineMs != 0;

    /// <summary>The replica a master in a manual failover pings every cron run.</summary>
    public bool PingContinuously(ClusterNode node) => MasterPaused && _manualReplica == node;

    /// <summary>The offset of this replica's data (Redis's replicationGetSlaveOffset).</summary>
    private long MyReplicaOffset => Math.Max(0, _server.Replication.Offset);

    // ------------------------------------------------------------------ manual failover

    /// <summary>
    /// CLUSTER FAILOVER [FORCE] accepted (the command checked the preconditions): FORCE may start
    /// the election at once; the default asks the master to pause with MFSTART.
    /// </summary>
    public void StartManual(bool force)
    {
        Reset();
        _state.RequestManualFailover(force);
        if (force)
        {
            _server.Log.Notice("Forced failover user request accepted.");
            return;
        }
        _server.Log.Notice("Manual failover user request accepted.");
        if (_state.Myself.Master?.Link is { } link) _bus.SendHeaderOnly(link, BusMessageType.MfStart, 0);
    }

    /// <summary>Redis's resetManualFailover: a master in one lets its clients write again.</summary>
    public void Reset()
    {
        if (_pausing)
        {
            _pausing = false;
            _server.Pause.HoldWritesForFailover(false);
        }
        _state.ManualFailoverDeadlineMs = 0;
        _state.ManualFailoverCanStart = false;
        _manualReplica = null;
        _manualMasterOffset = -1;
    }

    /// <summary>MFSTART: from one of my replicas only; writes are held and my offset goes to it flagged PAUSED.</summary>
    public void OnManualFailoverStart(BusLink link, ClusterNode? sender)
    {
        var me = _state.Myself;
        if (sender == null || sender.Master != me || !me.IsMaster) return;
        Reset();
        _state.ManualFailoverDeadlineMs = Tick + ManualTimeoutMs;
        _manualReplica = sender;
        // Redis pauses for CLUSTER_MF_TIMEOUT * CLUSTER_MF_PAUSE_MULT (10 s); the failover's own
        // timeout (5 s) ends the pause earlier through Reset, as resetManualFailover unpauses.
        _pausing = true;
        _server.Pause.HoldWritesForFailover(true);
        _server.Log.Notice($"Manual failover requested by replica {sender.Id} ({sender.HumanNodename}).");
        _bus.SendPingOn(link);
    }

    /// <summary>Every message's header: my master's offset once it says it is paused for my manual failover.</summary>
    public void OnHeader(ClusterNode sender, in BusMessage msg)
    {
        var me = _state.Myself;
        if (_state.ManualFailoverDeadlineMs == 0 || !me.IsReplica || me.Master != sender
            || (msg.MessageFlags & BusMessageFlags.Paused) == 0 || _manualMasterOffset != -1) return;
        _manualMasterOffset = (long)msg.Offset;
        _server.Log.Notice($"Received replication offset for paused master manual failover: {_manualMasterOffset}");
        HandleManual();
        HandleReplicaFailover();
    }

    /// <summary>Redis's clusterHandleManualFailover: the election may start once my offset is the paused master's.</summary>
    private void HandleManual()
    {
        if (_state.ManualFailoverDeadlineMs == 0 || _state.ManualFailoverCanStart || _manualMasterOffset == -1) return;
        if (_manualMasterOffset != MyReplicaOffset) return;
        _state.ManualFailoverCanStart = true;
        _server.Log.Notice("All master replication stream processed, manual failover can start.");
    }

    // ------------------------------------------------------------------ voting (a master)

    /// <summary>Redis's clusterSendFailoverAuthIfNeeded: my vote for a replica of a failed master (or a manual failover's, FORCEACK).</summary>
    public void OnAuthRequest(ClusterNode sender, in BusMessage msg)
    {
        var me = _state.Myself;
        if (me.IsReplica || me.SlotCount == 0) return;
        ulong requestCurrent = msg.CurrentEpoch, requestConfig = msg.ConfigEpoch;
        bool forceAck = (msg.MessageFlags & BusMessageFlags.ForceAck) != 0;
        var master = sender.Master;
        string who = $"{sender.Id} ({sender.HumanNodename})";
        if (requestCurrent < _state.CurrentEpoch)
        {
            _server.Log.Warning($"Failover auth denied to {who}: reqEpoch ({requestCurrent}) < curEpoch({_state.CurrentEpoch})");
            return;
        }
        if (_state.LastVoteEpoch == _state.CurrentEpoch)
        {
            _server.Log.Warning($"Failover auth denied to {who}: already voted for epoch {_state.CurrentEpoch}");
            return;
        }
        if (sender.IsMaster || master == null || (!master.Failed && !forceAck))
        {
            string why = sender.IsMaster ? "it is a master node" : master == null ? "I don't know its master" : "its master is up";
            _server.Log.Warning($"Failover auth denied to {who}: {why}");
            return;
        }
        long now = Tick, timeout = NodeTimeout;
        if (master.VotedTime != 0 && now - master.VotedTime < timeout * 2)
        {
            _server.Log.Warning($"Failover auth denied to {sender.Id} {sender.HumanNodename}: can't vote about this master before {timeout * 2 - (now - master.VotedTime)} milliseconds");
            return;
        }
        var claimed = msg.MySlots;
        for (int j = 0; j < ClusterState.Slots; j++)
        {
            if (!SlotBitmap.Get(claimed, j)) continue;
            var owner = _state.Owner(j);
            if (owner == null || owner.ConfigEpoch <= requestConfig) continue;
            _server.Log.Warning($"Failover auth denied to {who}: slot {j} epoch ({owner.ConfigEpoch}) > reqEpoch ({requestConfig})");
            return;
        }
        _state.LastVoteEpoch = _state.CurrentEpoch;
        master.VotedTime = now;
        _bus.RequestSave();
        if (sender.Link is { } link) _bus.SendHeaderOnly(link, BusMessageType.FailoverAuthAck, 0);
        _server.Log.Notice($"Failover auth granted to {who} for epoch {_state.CurrentEpoch}");
    }

    /// <summary>A vote: counted from a master with slots whose currentEpoch is at least my election's.</summary>
    public void OnAuthAck(ClusterNode sender, in BusMessage msg)
    {
        if (!sender.IsMaster || sender.SlotCount == 0 || msg.CurrentEpoch < _authEpoch) return;
        _authCount++;
        HandleReplicaFailover(); // maybe the quorum is reached: at once, as Redis's beforeSleep does
    }

    // ------------------------------------------------------------------ the replica's election

    /// <summary>Every 100 ms (clusterCron's end): the manual failover's timeout, the election, replica migration.</summary>
    public void Cron()
    {
        if (_state.ManualFailoverDeadlineMs != 0 && _state.ManualFailoverDeadlineMs < Tick)
        {
            _server.Log.Warning("Manual failover timed out.");
            Reset();
        }
        var me = _state.Myself;
        if (!me.IsReplica) return;
        HandleManual();
        HandleReplicaFailover();
        CheckReplicaMigration();
    }

    /// <summary>Redis's clusterGetSlaveRank: how many replicas of my master, able to fail over, have more data than I do.</summary>
    private int Rank()
    {
        var me = _state.Myself;
        if (me.Master == null) return 0;
        long mine = MyReplicaOffset;
        int rank = 0;
        foreach (var r in me.Master.Replicas)
            if (r != me && (r.Flags & NodeFlags.NoFailover) == 0 && r.ReplOffset > mine) rank++;
        return rank;
    }

    /// <summary>How long my data has been without news from the master (Redis's data_age), less the node timeout.</summary>
    private long DataAge()
    {
        long nowUnix = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        var link = _server.Replica.Link;
        long age;
        if (_server.Replica.LinkUp && link != null) age = nowUnix - link.LastIoMs;
        else age = nowUnix - (link?.DownSinceMs ?? 0); // never connected: as Redis's repl_down_since of 0, too old
        long timeout = NodeTimeout;
        return age > timeout ? age - timeout : age;
    }

    /// <summary>Redis's clusterHandleSlaveFailover.</summary>
    private void HandleReplicaFailover()
    {
        var me = _state.Myself;
        var master = me.Master;
        bool manual = _state.ManualFailoverDeadlineMs != 0 && _state.ManualFailoverCanStart;
        long timeout = NodeTimeout;
        long authTimeout = Math.Max(timeout * 2, 2000), authRetry = authTimeout * 2;
        bool noFailover = _server.Config.Value("cluster-replica-no-failover") == "yes";
        if (me.IsMaster || master == null || (!master.Failed && !manual) || (noFailover && !manual) || master.SlotCount == 0)
        {
            _cantReason = CantFailover.None;
            return;
        }

        long validity = _server.Config.Number("cluster-replica-validity-factor");
        if (validity != 0 && !manual
            && DataAge() > _server.Config.ReplPingReplicaPeriod * 1000L + timeout * validity)
        {
            LogCantFailover(CantFailover.DataAge, master);
            return;
        }

        long now = Tick, authAge = now - _authTime;
        if (authAge > authRetry)
        {
            _authTime = now + 500 + Random.Shared.Next(500); // let the FAIL spread, then a random delay
            _authCount = 0;
            _authSent = false;
            _authRank = Rank();
            _authTime += _authRank * 1000L; // replicas with less data wait longer
            if (_state.ManualFailoverDeadlineMs != 0)
            {
                _authTime = now;
                _authRank = 0;
            }
            _server.Log.Notice($"Start of election delayed for {_authTime - now} milliseconds (rank #{_authRank}, offset {MyReplicaOffset}).");
            // My offset to the other replicas of my master, so their ranks account for it.
            _bus.PongToAll(localReplicasOnly: true);
            if (_state.ManualFailoverDeadlineMs == 0) return;
            authAge = 0; // a manual failover goes on at once
        }

        if (!_authSent && _state.ManualFailoverDeadlineMs == 0)
        {
            int rank = Rank();
            if (rank > _authRank)
            {
                long added = (rank - _authRank) * 1000L;
                _authTime += added;
                _authRank = rank;
                _server.Log.Notice($"Replica rank updated to #{rank}, added {added} milliseconds of delay.");
            }
        }

        if (now < _authTime)
        {
            LogCantFailover(CantFailover.WaitingDelay, master);
            return;
        }
        if (authAge > authTimeout)
        {
            LogCantFailover(CantFailover.Expired, master);
            return;
        }

        if (!_authSent)
        {
            _state.CurrentEpoch++;
            _authEpoch = _state.CurrentEpoch;
            _server.Log.Notice($"Starting a failover election for epoch {_authEpoch}.");
            _bus.BroadcastHeaderOnly(BusMessageType.FailoverAuthRequest,
                _state.ManualFailoverDeadlineMs != 0 ? BusMessageFlags.ForceAck : 0);
            _authSent = true;
            _bus.RequestSaveAndUpdate();
            return;
        }

        int quorum = _state.Size / 2 + 1;
        if (_authCount < quorum)
        {
            LogCantFailover(CantFailover.WaitingVotes, master);
            return;
        }
        _server.Log.Notice("Failover election won: I'm the new master.");
        if (me.ConfigEpoch < _authEpoch)
        {
            me.ConfigEpoch = _authEpoch;
            _server.Log.Notice($"configEpoch set to {me.ConfigEpoch} after successful failover");
        }
        ReplaceMyMaster();
    }

    /// <summary>
    /// Redis's clusterFailoverReplaceYourMaster: a master with my old master's slots, replication
    /// stopped (the data and the replication id history kept, so the other replicas resync
    /// partially), the configuration saved and sent to every node.
    /// </summary>
    public void ReplaceMyMaster()
    {
        if (_state.Myself.IsMaster || _state.Myself.Master == null) return;
        _state.ReplaceMyMaster();
        _server.Replica.UnsetMaster();
        _state.UpdateState();
        if (!_state.Save(out string? error)) _server.Log.Warning($"Could not save the cluster configuration: {error}");
        _bus.PongToAll(localReplicasOnly: false);
        Reset();
    }

    /// <summary>Redis's clusterLogCantFailover: why no failover, once per reason and at most every 10 s, and only for a stalled one.</summary>
    private void LogCantFailover(CantFailover reason, ClusterNode master)
    {
        long now = Tick;
        if (reason == _cantReason && now - _cantLoggedAt < CantFailoverRelogMs) return;
        _cantReason = reason;
        long quiet = NodeTimeout + 5000;
        if (master.Failed && DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() - master.FailTime < quiet) return;
        string text = reason switch
        {
            CantFailover.DataAge => "Disconnected from master for longer than allowed. Please check the 'cluster-replica-validity-factor' configuration option.",
            CantFailover.WaitingDelay => "Waiting the delay before I can start a new failover.",
            CantFailover.Expired => "Failover attempt expired.",
            CantFailover.WaitingVotes => "Waiting for votes, but majority still not reached.",
            _ => "Unknown reason code.",
        };
        _cantLoggedAt = now;
        _server.Log.Notice($"Currently unable to failover: {text}");
        if (reason is CantFailover.WaitingVotes or CantFailover.Expired)
            _server.Log.Notice($"Needed quorum: {_state.Size / 2 + 1}. Number of votes received so far: {_authCount}");
    }

    // ------------------------------------------------------------------ replica migration

    private static int NonFailingReplicas(ClusterNode master)
    {
        int ok = 0;
        foreach (var r in master.Replicas)
            if (!r.Failed) ok++;
        return ok;
    }

    /// <summary>
    /// clusterCron's orphaned-master count and Redis's clusterHandleSlaveMigration: a replica of a
    /// master with the most working replicas (more than cluster-migration-barrier), the one with
    /// the smallest id, moves to a master with slots left without working replicas for 5 s.
    /// </summary>
    private void CheckReplicaMigration()
    {
        var me = _state.Myself;
        int orphaned = 0, maxReplicas = 0, mine = 0;
        foreach (var n in _state.Nodes)
        {
            if ((n.Flags & (NodeFlags.Myself | NodeFlags.NoAddr | NodeFlags.Handshake)) != 0) continue;
            if (!n.IsMaster || n.Failed) continue;
            int ok = NonFailingReplicas(n);
            if (ok == 0 && n.SlotCount > 0 && (n.Flags & NodeFlags.MigrateTo) != 0) orphaned++;
            if (ok > maxReplicas) maxReplicas = ok;
            if (me.Master == n) mine = ok;
        }
        if (orphaned == 0 || maxReplicas < 2 || mine != maxReplicas
            || _server.Config.Value("cluster-allow-replica-migration") != "yes") return;
        HandleMigration(maxReplicas);
    }

    private void HandleMigration(int maxReplicas)
    {
        var me = _state.Myself;
        var myMaster = me.Master;
        if (!_state.StateOk || myMaster == null) return;
        int okReplicas = 0;
        foreach (var r in myMaster.Replicas)
            if (!r.Failed && !r.TimedOut) okReplicas++;
        if (okReplicas <= _server.Config.Number("cluster-migration-barrier")) return;

        ClusterNode? target = null;
        var candidate = me;
        long now = Tick;
        foreach (var n in _state.Nodes)
        {
            int ok = 0;
            bool isOrphaned = !n.IsReplica && !n.Failed && (n.Flags & NodeFlags.MigrateTo) != 0;
            if (n.IsMaster) ok = NonFailingReplicas(n);
            if (ok > 0) isOrphaned = false;
            if (isOrphaned)
            {
                if (target == null && n.SlotCount > 0) target = n;
                if (n.OrphanedTime == 0) n.OrphanedTime = now;
            }
            else n.OrphanedTime = 0;
            if (ok == maxReplicas)
            {
                foreach (var r in n.Replicas)
                    if (string.CompareOrdinal(r.Id, candidate.Id) < 0) candidate = r;
            }
        }
        if (target != null && candidate == me && now - target.OrphanedTime > MigrationDelayMs)
        {
            _server.Log.Notice($"Migrating to orphaned master {target.Id}");
            _bus.BecomeReplicaOf(target);
        }
    }
}
