using RedisClone.Server;
using RedisClone.Cluster.Bus;

namespace RedisClone.Cluster;

/// <summary>
/// This node's view of the cluster (Redis's clusterState): myself, the nodes known, the epochs, the
/// slot table with the slots being migrated or imported, and the cluster's state and size. It
/// exists only with <c>cluster-enabled yes</c> (<see cref="RedisServer.Cluster"/> is null otherwise).
/// </summary>
/// <remarks>
/// <para>
/// Threading. Every change is made holding <see cref="Sync"/>: CLUSTER commands on connection
/// threads, and the bus (<see cref="ClusterBus"/>) applying messages and running its cron. The check that runs before every
/// command with keys (<see cref="ClusterRouting"/>) takes no lock: it reads one slot's owner and its
/// migrating/importing entries, each a single reference read with <see cref="Volatile.Read{T}(ref T)"/>
/// from arrays that are changed in place, and the node's address fields, which are volatile. A
/// command racing a change sees either the old owner or the new one, as a Redis client racing a
/// reconfiguration sees the state before or after it.
/// </para>
/// <para>
/// Persistence. What Redis saves in nodes.conf is saved by the mutators' callers through
/// <see cref="Save"/> (atomically, fsynced), as Redis's clusterBeforeSleep would before replying.
/// </para>
/// </remarks>
internal sealed class ClusterState : IDisposable
{
    public const int Slots = 16384;

    /// <summary>Redis's CLUSTER_WRITABLE_DELAY: a master stays down this long after its first state check.</summary>
    private const long WritableDelayMs = 2000;

    private readonly RedisServer _server;
    private readonly Dictionary<string, ClusterNode> _nodes = new(StringComparer.Ordinal);
    // Nodes CLUSTER FORGET removed, with the Unix second until which gossip may not add them again.
    private readonly Dictionary<string, long> _forgotten = new(StringComparer.Ordinal);
    private readonly ClusterNode?[] _slots = new ClusterNode?[Slots];
    private readonly ClusterNode?[] _migrating = new ClusterNode?[Slots];
    private readonly ClusterNode?[] _importing = new ClusterNode?[Slots];
    private volatile bool _ok;
    private long _firstUpdateMs;
    private NodesFile? _file;

    /// <summary>Every change holds this lock.</summary>
    public readonly object Sync = new();

    public ClusterState(RedisServer server)
    {
        _server = server;
    }

    /// <summary>This node.</summary>
    public ClusterNode Myself { get; private set; } = null!;

    public ulong CurrentEpoch;
    public ulong LastVoteEpoch;

    /// <summary>Masters serving at least one slot (Redis's cluster->size).</summary>
    public int Size { get; private set; }

    /// <summary>cluster_state: ok or fail.</summary>
    public bool StateOk => _ok;

    /// <summary>The nodes known, myself included (read under <see cref="Sync"/>).</summary>
    public IReadOnlyCollection<ClusterNode> Nodes => _nodes.Values;

    /// <summary>The path of nodes.conf, resolved at start.</summary>
    public string ConfigPath => _file?.Path ?? "";

    // ------------------------------------------------------------------ lock-free reads (the hot path)

    /// <summary>The node serving <paramref name="slot"/>, or null when unassigned.</summary>
    public ClusterNode? Owner(int slot) => Volatile.Read(ref _slots[slot]);

    /// <summary>The node <paramref name="slot"/> is being migrated to, or null.</summary>
    public ClusterNode? MigratingTo(int slot) => Volatile.Read(ref _migrating[slot]);

    /// <summary>The node <paramref name="slot"/> is being imported from, or null.</summary>
    public ClusterNode? ImportingFrom(int slot) => Volatile.Read(ref _importing[slot]);

    // ------------------------------------------------------------------ start-up

    /// <summary>
    /// Redis's clusterInit: locks nodes.conf (another process holding it stops the start), loads it,
    /// or creates myself with new ids and writes it; then takes the announced addresses.
    /// </summary>
    public void Initialize()
    {
        string path = Path.GetFullPath(Path.Combine(_server.Config.Dir, _server.Config.Value("cluster-config-file")));
        lock (Sync)
        {
            _file = NodesFile.Lock(path, _server.Log);
            string? text = _file.ReadAll();
            bool loaded = false;
            if (!string.IsNullOrEmpty(text))
            {
                NodesFile.Load(this, text, TlsCluster);
                loaded = true;
                _server.Log.Notice($"Node configuration loaded, I'm {Myself.Id[..40]}");
            }
            if (!loaded)
            {
                var me = new ClusterNode(Common.RandomHex.Next40(), Common.RandomHex.Next40()) { Flags = NodeFlags.Myself | NodeFlags.Master };
                Myself = me;
                _nodes.Add(me.Id, me);
                _server.Log.Notice($"No cluster configuration found, I'm {me.Id}");
                SaveOrThrow();
            }
            RefreshMyself();
        }
    }

    /// <summary>
    /// Redis's verifyClusterConfigWithData, once the data is loaded at start (the caller holds every
    /// gate): a master with keys in a slot it neither owns nor imports takes the slot when nobody owns
    /// it, or marks it importing from its owner (so the keys can be migrated or the slot fixed with
    /// redis-cli --cluster fix), and saves. A replica is left alone: its master's stream decides.
    /// </summary>
    public void VerifyWithData()
    {
        lock (Sync)
        {
            if (Myself.IsReplica) return;
            bool changed = false;
            for (int j = 0; j < Slots; j++)
            {
                if (ClusterCommands.CountKeysInSlot(_server.Shards, j) == 0) continue;
                var owner = _slots[j];
                if (owner == Myself || _importing[j] != null) continue;
                changed = true;
                if (owner == null)
                {
                    _server.Log.Notice($"I have keys for unassigned slot {j}. Taking responsibility for it.");
                    AddSlot(Myself, j);
                }
                else
                {
                    _server.Log.Notice($"I have keys for slot {j}, but the slot is assigned to another node. Setting it to importing state.");
                    Volatile.Write(ref _importing[j], owner);
                }
            }
            if (changed)
            {
                UpdateState();
                SaveOrThrow();
            }
        }
    }

    /// <summary>Adds a node read from nodes.conf (or about to be: <see cref="NodesFile.Load"/>).</summary>
    internal ClusterNode GetOrAddForLoad(string id)
    {
        if (_nodes.TryGetValue(id, out var n)) return n;
        n = new ClusterNode(id, "");
        _nodes.Add(id, n);
        return n;
    }

    internal void SetMyselfForLoad(ClusterNode n) => Myself = n;

    /// <summary>
    /// Myself's addresses and flags from the configuration (Redis's deriveAnnouncedPorts and
    /// clusterUpdateMyself*): at start and after CONFIG SET of a cluster-announce-* parameter or
    /// cluster-replica-no-failover.
    /// </summary>
    public void RefreshMyself()
    {
        lock (Sync)
        {
            var me = Myself;
            if (me == null) return;
            var config = _server.Config;
            long announcedPort = config.Number("cluster-announce-port"), announcedTls = config.Number("cluster-announce-tls-port");
            long announcedBus = config.Number("cluster-announce-bus-port"), clusterPort = config.Number("cluster-port");
            int port = _server.Port, tlsPort = config.TlsPort;
            me.Port = announcedPort != 0 ? (int)announcedPort : port;
            me.TlsPort = announcedTls != 0 ? (int)announcedTls : tlsPort;
            me.BusPort = announcedBus != 0 ? (int)announcedBus : clusterPort != 0 ? (int)clusterPort : BoundBusPort != 0 ? BoundBusPort : (TlsCluster ? tlsPort : port) + 10000;
            string ip = config.Value("cluster-announce-ip");
            // Without an announced address myself's stays what the bus learned (empty until then).
            if (ip.Length > 0) me.Ip = ip;
            else if ((me.Flags & NodeFlags.NoAddr) == 0 && _announcedIp) me.Ip = "";
            _announcedIp = ip.Length > 0;
            me.Hostname = config.Value("cluster-announce-hostname");
            me.HumanNodename = config.Value("cluster-announce-human-nodename");
            if (config.Value("cluster-replica-no-failover") == "yes") me.Flags |= NodeFlags.NoFailover;
            else me.Flags &= ~NodeFlags.NoFailover;
        }
    }

    private bool _announcedIp;

    /// <summary>
    /// The bus port the system chose when the data port was too (port 0, as tests start servers;
    /// Redis has no port 0 for a cluster node); 0 otherwise.
    /// </summary>
    internal int BoundBusPort;

    // ------------------------------------------------------------------ nodes

    /// <summary>The node named <paramref name="id"/> (Redis's clusterLookupNode: the whole 40 characters), or null.</summary>
    public ClusterNode? Lookup(ReadOnlySpan<byte> id)
    {
        if (id.Length != 40) return null;
        Span<char> chars = stackalloc char[40];
        for (int i = 0; i < 40; i++) chars[i] = (char)id[i];
        lock (Sync) return _nodes.GetAlternateLookup<ReadOnlySpan<char>>().TryGetValue(chars, out var n) ? n : null;
    }

    public ClusterNode? Lookup(string id)
    {
        lock (Sync) return _nodes.TryGetValue(id, out var n) ? n : null;
    }

    /// <summary>Adds a node (gossip, MEET): the bus slice's entry point. The caller then saves.</summary>
    public void AddNode(ClusterNode node)
    {
        lock (Sync) _nodes[node.Id] = node;
    }

    /// <summary>The bus (null until the server started it).</summary>
    public ClusterBus? Bus { get; internal set; }

    // ------------------------------------------------------------------ keys of a MIGRATE in flight

    private readonly Dictionary<byte[], int> _inFlight = new(Storage.ByteArrayComparer.Instance); // under itself
    private int _inFlightCount;

    /// <summary>
    /// A MIGRATE sent these keys and waits for the target (see Commands/MigrateCommands): until it
    /// ends, a write to one of them in a slot this node is migrating is answered -TRYAGAIN. Redis
    /// runs MIGRATE inside its one thread, so no write can land between the DUMP it sends and the
    /// DEL after it; here one could, and the target would keep the old value while this node kept
    /// the new one (redis-cli then stops the reshard: "Found key(s) in both source node and target
    /// node having different values"). Called with the keys' gates held, as is the check.
    /// </summary>
    public void MigrationStarted(List<byte[]> keys)
    {
        lock (_inFlight)
        {
            foreach (var k in keys) _inFlight[k] = _inFlight.GetValueOrDefault(k) + 1;
            Volatile.Write(ref _inFlightCount, _inFlight.Count);
        }
    }

    /// <summary>The MIGRATE of <see cref="MigrationStarted"/> is over.</summary>
    public void MigrationEnded(List<byte[]> keys)
    {
        lock (_inFlight)
        {
            foreach (var k in keys)
            {
                if (!_inFlight.TryGetValue(k, out int n)) continue;
                if (n <= 1) _inFlight.Remove(k);
                else _inFlight[k] = n - 1;
            }
            Volatile.Write(ref _inFlightCount, _inFlight.Count);
        }
    }

    /// <summary>Whether a MIGRATE in flight sent <paramref name="key"/> (nothing is locked when none is).</summary>
    public bool MigrationInFlight(ReadOnlySpan<byte> key)
    {
        if (Volatile.Read(ref _inFlightCount) == 0) return false;
        lock (_inFlight) return _inFlight.GetAlternateLookup<ReadOnlySpan<byte>>().ContainsKey(key);
    }

    /// <summary>The forgotten nodes still blacklisted and the seconds left for each (the forgotten-node extension).</summary>
    internal List<(string Id, long TtlSeconds)> ForgottenNodes()
    {
        lock (Sync)
        {
            long now = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
            var list = new List<(string, long)>();
            foreach (var (k, until) in _forgotten)
                if (until >= now) list.Add((k, until - now));
            return list;
        }
    }

    /// <summary>A forgotten-node extension: <paramref name="node"/> is removed and may not come back for <paramref name="ttlSeconds"/>.</summary>
    internal void ForgetFor(ClusterNode node, long ttlSeconds)
    {
        lock (Sync)
        {
            RemoveNode(node, forget: false);
            _forgotten[node.Id] = DateTimeOffset.UtcNow.ToUnixTimeSeconds() + ttlSeconds;
        }
    }

    /// <summary>Whether CLUSTER FORGET removed <paramref name="id"/> less than a minute ago (Redis's blacklist).</summary>
    public bool IsForgotten(string id)
    {
        lock (Sync)
        {
            long now = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
            foreach (var (k, until) in _forgotten.ToArray())
                if (until < now) _forgotten.Remove(k);
            return _forgotten.ContainsKey(id);
        }
    }

    /// <summary>
    /// Redis's clusterDelNode: unassigns its slots, ends migrations to or from it, drops the reports
    /// it made and removes it from its master's replicas. With <paramref name="forget"/> it may not be
    /// added again by gossip for a minute (CLUSTER FORGET).
    /// </summary>
    public void RemoveNode(ClusterNode node, bool forget)
    {
        lock (Sync)
        {
            if (forget) _forgotten[node.Id] = DateTimeOffset.UtcNow.ToUnixTimeSeconds() + 60;
            for (int j = 0; j < Slots; j++)
            {
                if (_importing[j] == node) Volatile.Write(ref _importing[j], null);
                if (_migrating[j] == node) Volatile.Write(ref _migrating[j], null);
                if (_slots[j] == node) DelSlot(j);
            }
            foreach (var other in _nodes.Values) other.FailureReports.Remove(node.Id);
            // Redis's freeClusterNode frees both of its links.
            node.Link?.Close();
            node.InboundLink?.Close();
            node.Link = node.InboundLink = null;
            node.LinkConnected = false;
            if (node.Master != null) node.Master.Replicas.Remove(node);
            foreach (var replica in node.Replicas) if (replica.Master == node) replica.Master = null;
            _nodes.Remove(node.Id);
        }
    }

    /// <summary>Renames a node met by address once its real id is known (the bus's handshake).</summary>
    public void Rename(ClusterNode node, string id)
    {
        lock (Sync)
        {
            _nodes.Remove(node.Id);
            node.Id = id;
            _nodes[id] = node;
        }
    }

    /// <summary>
    /// Makes <paramref name="replica"/> a replica of <paramref name="master"/> in the table (flags,
    /// master, shard id): the local part of CLUSTER REPLICATE and of gossip about roles.
    /// </summary>
    public void SetReplicaOf(ClusterNode replica, ClusterNode master)
    {
        lock (Sync)
        {
            replica.Master?.Replicas.Remove(replica);
            replica.Flags = (replica.Flags & ~(NodeFlags.Master | NodeFlags.MigrateTo)) | NodeFlags.Slave;
            replica.Master = master;
            if (!master.Replicas.Contains(replica)) master.Replicas.Add(replica);
            // Redis's clusterNodeAddSlave: a master that had a replica is worth migrating a replica to.
            master.Flags |= NodeFlags.MigrateTo;
            replica.ShardId = master.ShardId;
            if (replica == Myself) CloseAllSlots();
            _slotsVersion++;
        }
    }

    /// <summary>Makes <paramref name="node"/> a master without a master (failover, REPLICAOF NO ONE in cluster terms).</summary>
    public void SetMaster(ClusterNode node)
    {
        lock (Sync)
        {
            node.Master?.Replicas.Remove(node);
            node.Master = null;
            node.Flags = (node.Flags & ~NodeFlags.Slave) | NodeFlags.Master;
            _slotsVersion++;
        }
    }

    /// <summary>
    /// CLUSTER MEET's local part (Redis's clusterStartHandshake): a node with a random id in
    /// handshake, flagged MEET, at the address given; the bus slice connects to it and learns its id.
    /// False when a handshake with that address is already under way.
    /// </summary>
    public bool StartHandshake(string ip, int port, int busPort)
    {
        lock (Sync)
        {
            bool tls = TlsCluster; // the port given is the TLS one then
            foreach (var n in _nodes.Values)
                if ((n.Flags & NodeFlags.Handshake) != 0 && n.Ip == ip && (tls ? n.TlsPort : n.Port) == port && n.BusPort == busPort) return false;
            var node = new ClusterNode(Common.RandomHex.Next40(), Common.RandomHex.Next40())
            {
                Flags = NodeFlags.Handshake | NodeFlags.Meet, Ip = ip, BusPort = busPort,
                CreatedMs = Environment.TickCount64,
            };
            if (tls) node.TlsPort = port;
            else node.Port = port;
            _nodes.Add(node.Id, node);
            return true;
        }
    }

    /// <summary>CLUSTER FAILOVER [FORCE] was accepted: the bus slice runs it (Redis's mf_end, mf_can_start).</summary>
    public void RequestManualFailover(bool force)
    {
        lock (Sync)
        {
            ManualFailoverDeadlineMs = Environment.TickCount64 + 5000; // Redis's CLUSTER_MF_TIMEOUT
            ManualFailoverCanStart = force;
        }
    }

    /// <summary>A manual failover's deadline (Environment.TickCount64 ms), 0 when none is running.</summary>
    public long ManualFailoverDeadlineMs;

    /// <summary>Whether the manual failover may start (FORCE, or the master paused and the offsets match).</summary>
    public bool ManualFailoverCanStart;

    /// <summary>
    /// Redis's clusterFailoverReplaceYourMaster, its local part: myself becomes a master and takes
    /// every slot of its old master. The bus slice broadcasts the new configuration.
    /// </summary>
    public void ReplaceMyMaster()
    {
        lock (Sync)
        {
            var old = Myself.Master;
            if (Myself.IsMaster || old == null) return;
            SetMaster(Myself);
            for (int j = 0; j < Slots; j++)
            {
                if (_slots[j] != old) continue;
                DelSlot(j);
                AddSlot(Myself, j);
            }
            ManualFailoverDeadlineMs = 0;
            ManualFailoverCanStart = false;
        }
        UpdateState();
    }

    /// <summary>The highest config epoch known (Redis's clusterGetMaxEpoch), at least currentEpoch.</summary>
    public ulong MaxEpoch()
    {
        lock (Sync)
        {
            ulong max = 0;
            foreach (var n in _nodes.Values) max = Math.Max(max, n.ConfigEpoch);
            return Math.Max(max, CurrentEpoch);
        }
    }

    /// <summary>
    /// Redis's clusterBumpConfigEpochWithoutConsensus: a new epoch for myself unless its epoch is
    /// already the highest and not zero. True when bumped.
    /// </summary>
    public bool BumpConfigEpochWithoutConsensus()
    {
        lock (Sync)
        {
            ulong max = MaxEpoch();
            if (Myself.ConfigEpoch == 0 || Myself.ConfigEpoch != max)
            {
                CurrentEpoch++;
                Myself.ConfigEpoch = CurrentEpoch;
                _server.Log.Notice($"New configEpoch set to {Myself.ConfigEpoch}");
                return true;
            }
            return false;
        }
    }

    // ------------------------------------------------------------------ slots

    /// <summary>Assigns <paramref name="slot"/> to <paramref name="node"/>; false when already assigned.</summary>
    public bool AddSlot(ClusterNode node, int slot)
    {
        lock (Sync)
        {
            if (_slots[slot] != null) return false;
            node.SlotCount++;
            Volatile.Write(ref _slots[slot], node);
            _slotsVersion++;
            return true;
        }
    }

    /// <summary>Unassigns <paramref name="slot"/>; false when it was not assigned.</summary>
    public bool DelSlot(int slot)
    {
        lock (Sync)
        {
            var n = _slots[slot];
            if (n == null) return false;
            n.SlotCount--;
            Volatile.Write(ref _slots[slot], null);
            _slotsVersion++;
            // Redis 7.2's removeChannelsInSlot: the slot's shard channels lose their subscribers,
            // each told with a sunsubscribe push (a slot taken over by another node passes here too).
            _server.PubSub.UnsubscribeShardSlot(slot);
            return true;
        }
    }

    /// <summary>Unassigns every slot of <paramref name="node"/> (CLUSTER FLUSHSLOTS, RESET); how many there were.</summary>
    public int DelNodeSlots(ClusterNode node)
    {
        lock (Sync)
        {
            int deleted = 0;
            for (int j = 0; j < Slots; j++)
                if (_slots[j] == node && DelSlot(j)) deleted++;
            return deleted;
        }
    }

    public void SetMigrating(int slot, ClusterNode? node)
    {
        lock (Sync) Volatile.Write(ref _migrating[slot], node);
    }

    public void SetImporting(int slot, ClusterNode? node)
    {
        lock (Sync)
        {
            Volatile.Write(ref _importing[slot], node);
            _slotsVersion++;
        }
    }

    /// <summary>Redis's clusterCloseAllSlots: no slot is migrating or importing.</summary>
    public void CloseAllSlots()
    {
        lock (Sync)
        {
            for (int j = 0; j < Slots; j++)
            {
                Volatile.Write(ref _migrating[j], null);
                Volatile.Write(ref _importing[j], null);
            }
        }
    }

    /// <summary>The slots each node serves as ranges [start, end], in slot order (one pass over the table).</summary>
    public Dictionary<ClusterNode, List<(int Start, int End)>> SlotRanges()
    {
        var ranges = new Dictionary<ClusterNode, List<(int, int)>>(ReferenceEqualityComparer.Instance);
        lock (Sync)
        {
            int start = 0;
            for (int i = 1; i <= Slots; i++)
            {
                if (i < Slots && _slots[i] == _slots[start]) continue;
                if (_slots[start] is { } n)
                {
                    if (!ranges.TryGetValue(n, out var list)) ranges[n] = list = new List<(int, int)>();
                    list.Add((start, i - 1));
                }
                start = i;
            }
        }
        return ranges;
    }

    // ------------------------------------------------------------------ state

    /// <summary>
    /// Redis's clusterUpdateState: fail when a slot is unassigned or its owner failed (with
    /// cluster-require-full-coverage) or when fewer than a majority of the slot-serving masters are
    /// reachable; a master waits 2 s after its first check before it turns ok (rejoining writable
    /// after a restart before the cluster could reconfigure it is unsafe).
    /// </summary>
    public void UpdateState()
    {
        lock (Sync)
        {
            long now = Environment.TickCount64;
            if (_firstUpdateMs == 0) _firstUpdateMs = now;
            if (Myself.IsMaster && !_ok && now - _firstUpdateMs < WritableDelayMs) return;
            bool ok = true;
            if (_server.Config.Value("cluster-require-full-coverage") == "yes")
            {
                for (int j = 0; j < Slots; j++)
                {
                    if (_slots[j] is not { } n || n.Failed)
                    {
                        ok = false;
                        break;
                    }
                }
            }
            int size = 0, reachable = 0;
            foreach (var n in _nodes.Values)
            {
                if (!n.IsMaster || n.SlotCount == 0) continue;
                size++;
                if ((n.Flags & (NodeFlags.Fail | NodeFlags.PFail)) == 0) reachable++;
            }
            Size = size;
            if (reachable < size / 2 + 1)
            {
                ok = false;
                _minorityAtMs = now;
            }
            if (ok != _ok)
            {
                // A master partitioned away with the minority waits before it serves again (Redis's
                // rejoin delay: cluster-node-timeout within [500 ms, 5 s]).
                long rejoin = Math.Clamp(_server.Config.Number("cluster-node-timeout"), 500, 5000);
                if (ok && Myself.IsMaster && _minorityAtMs != 0 && now - _minorityAtMs < rejoin) return;
                _server.Log.Notice($"Cluster state changed: {(ok ? "ok" : "fail")}");
                _ok = ok;
                _slotsVersion++;
            }
        }
    }

    private long _minorityAtMs;

    // Bumped (under Sync) by every change that can move a blocked client's slot away: slot owners,
    // imports, the state, roles. The cron looks at blocked clients only when it moved.
    private int _slotsVersion, _blockedScanVersion = -1;

    /// <summary>
    /// Redis's clusterRedirectBlockedClientIfNeeded (run by its clientsCron, here by the cluster cron
    /// after a change): a client blocked on a list, sorted set or stream whose slot this node no
    /// longer serves (nor imports) is unblocked with -MOVED, or -CLUSTERDOWN Hash slot not served
    /// when nobody does; every blocked client with -CLUSTERDOWN The cluster is down when the state
    /// is fail (a write that would serve it may never come).
    /// </summary>
    private void RedirectBlockedClients()
    {
        if (Volatile.Read(ref _slotsVersion) == _blockedScanVersion) return;
        lock (Sync)
        {
            // The state as Redis's clusterBeforeSleep leaves it after the change, before its clientsCron looks.
            UpdateState();
            _blockedScanVersion = _slotsVersion;
            foreach (var session in _server.Clients.Values)
            {
                if (session.Blocked is not { Kind: Storage.BlockedOn.List or Storage.BlockedOn.SortedSet or Storage.BlockedOn.Stream } blocked
                    || blocked.Keys.Length == 0) continue;
                if (BlockedRedirect(session, blocked) is { } error) blocked.TryRedirect(error);
            }
        }
    }

    private string? BlockedRedirect(Commands.ClientSession session, Storage.BlockedClient blocked)
    {
        if (!_ok) return Protocol.RespErrors.ClusterDown;
        // Every key of a blocking command is in one slot: the first one's decides.
        int slot = Common.Crc16.HashSlot(blocked.Keys[0]);
        var node = Owner(slot);
        var me = Myself;
        // A READONLY client's read (XREAD; the list and sorted set pops write) on my master's slot stays here.
        if ((session.ClusterFlags & ClientClusterFlags.ReadOnly) != 0 && blocked.Kind == Storage.BlockedOn.Stream && blocked.Group == null
            && me.IsReplica && me.Master == node)
            node = me;
        if (node == me || ImportingFrom(slot) != null) return null;
        return node == null ? Protocol.RespErrors.ClusterDownUnbound : $"MOVED {slot} {ClusterCommands.PreferredEndpoint(_server, node)}:{ClusterCommands.ClientPort(session, node)}";
    }

    /// <summary>Every 100 ms (the server's cron thread), as Redis's clusterCron: a failed state is looked at again.</summary>
    public void Cron()
    {
        try
        {
            RemoveStaleHandshakes();
            Bus?.Cron();
            if (!_ok) UpdateState();
            RedirectBlockedClients();
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            _server.Log.Warning($"Cluster state update failed: {ex.Message}");
        }
    }

    /// <summary>Nodes still in handshake after max(cluster-node-timeout, 1 s) are dropped, as Redis's clusterCron does.</summary>
    private void RemoveStaleHandshakes()
    {
        lock (Sync)
        {
            long timeout = Math.Max(_server.Config.Number("cluster-node-timeout"), 1000), now = Environment.TickCount64;
            foreach (var n in _nodes.Values.ToArray())
                if ((n.Flags & NodeFlags.Handshake) != 0 && now - n.CreatedMs > timeout) RemoveNode(n, forget: false);
        }
    }

    // ------------------------------------------------------------------ persistence

    /// <summary>Redis's getNodeDefaultReplicationPort: where a replica of <paramref name="master"/> connects (its TLS port under tls-replication).</summary>
    public int ReplicationPort(ClusterNode master) => _server.Config.Value("tls-replication") == "yes" ? master.TlsPort : master.Port;

    /// <summary>tls-cluster: nodes.conf names each node's TLS port after its address.</summary>
    private bool TlsCluster => _server.Config.Value("tls-cluster") == "yes";

    /// <summary>Writes nodes.conf (atomically, fsynced unless <paramref name="fsync"/> is false); false with the error when it could not.</summary>
    public bool Save(out string? error, bool fsync = true)
    {
        lock (Sync)
        {
            error = null;
            if (_file == null) return true;
            return _file.Save(NodesFile.Describe(this, forFile: true, tlsPrimary: TlsCluster), out error, fsync);
        }
    }

    /// <summary>Redis's clusterSaveConfigOrDie for the changes a client made: a failure is logged as fatal.</summary>
    public void SaveOrThrow()
    {
        if (!Save(out string? error))
        {
            _server.Log.Warning($"Fatal: can't update cluster config file. {error}");
            throw new ClusterStartException($"can't update cluster config file: {error}");
        }
    }

    /// <summary>
    /// After a change made by a client: the state is updated and the configuration saved. As Redis,
    /// only a change of epochs (BUMPEPOCH, SET-CONFIG-EPOCH, an import closed with a new epoch, a
    /// takeover) or a RESET is fsynced; slot assignments, SETSLOT, FORGET and REPLICATE are written
    /// without (CLUSTER_TODO_SAVE_CONFIG without CLUSTER_TODO_FSYNC_CONFIG): with an fsync each
    /// SETSLOT took 10 ms here against 0.13 ms on redis-server, and redis-cli --cluster reshard sends
    /// several per slot.
    /// </summary>
    public void Changed(bool fsync = true)
    {
        UpdateState();
        if (!Save(out string? error, fsync)) _server.Log.Warning($"Could not save the cluster configuration: {error}");
    }

    /// <summary>
    /// Redis's clusterReset: a replica becomes an empty master; slots are unassigned, migrations
    /// closed, every other node forgotten. HARD also zeroes the epochs and takes a new node id.
    /// </summary>
    public void Reset(bool hard)
    {
        lock (Sync)
        {
            if (Myself.IsReplica) SetMaster(Myself);
            CloseAllSlots();
            for (int j = 0; j < Slots; j++) DelSlot(j);
            foreach (var n in _nodes.Values.ToArray())
                if (n != Myself) RemoveNode(n, forget: false);
            _forgotten.Clear();
            if (hard)
            {
                CurrentEpoch = 0;
                LastVoteEpoch = 0;
                Myself.ConfigEpoch = 0;
                _server.Log.Warning("configEpoch set to 0 via CLUSTER RESET HARD");
                _nodes.Remove(Myself.Id);
                Myself.Id = Common.RandomHex.Next40();
                Myself.ShardId = Common.RandomHex.Next40();
                _nodes[Myself.Id] = Myself;
                _server.Log.Notice($"Node hard reset, now I'm {Myself.Id}");
            }
        }
        Changed();
    }

    public void Dispose()
    {
        _file?.Dispose();
    }
}
