using RedisClone.Cluster.Bus;

namespace RedisClone.Cluster;

/// <summary>
/// One node of the cluster as this node knows it: its ids, addresses, flags, master, epochs and the
/// slots it serves. Fields are written only under <see cref="ClusterState.Sync"/>; readers that do
/// not hold it (the redirection check) read only <see cref="Ip"/>, <see cref="Port"/>,
/// <see cref="TlsPort"/> and <see cref="Hostname"/>, each a single reference or int.
/// </summary>
internal sealed class ClusterNode
{
    public ClusterNode(string id, string shardId)
    {
        Id = id;
        ShardId = shardId;
    }

    /// <summary>The 40 hex characters naming the node.</summary>
    public string Id { get; internal set; }

    /// <summary>The shard id (Redis 7.2): a master's own, copied by its replicas.</summary>
    public string ShardId { get; internal set; }

    public volatile string Ip = "";
    public volatile int Port;
    public volatile int TlsPort;
    public int BusPort;
    public volatile string Hostname = "";
    public string HumanNodename = "";

    public NodeFlags Flags;
    public ClusterNode? Master;
    public readonly List<ClusterNode> Replicas = new();

    /// <summary>Unix ms of the last PING sent and PONG received (0 for none).</summary>
    public long PingSent, PongReceived;

    public ulong ConfigEpoch;

    /// <summary>Whether the bus has a link to the node (CLUSTER NODES' connected/disconnected).</summary>
    public bool LinkConnected;

    /// <summary>Slots this node serves (kept with the slot table).</summary>
    public int SlotCount;

    /// <summary>Nodes that reported this one as failing (id → Unix ms of the report); the bus fills it.</summary>
    public readonly Dictionary<string, long> FailureReports = new(StringComparer.Ordinal);

    /// <summary>When the node was added (Environment.TickCount64 ms): a handshake times out from it.</summary>
    public long CreatedMs;

    /// <summary>The replication offset the bus last heard from the node.</summary>
    public long ReplOffset;

    /// <summary>Unix ms when the node was marked FAIL, and when the bus last heard anything from it.</summary>
    public long FailTime, DataReceived;

    /// <summary>
    /// Environment.TickCount64 ms when this node (a master) last had my vote for one of its replicas
    /// (Redis's voted_time), and since when it is an orphaned master (orphaned_time); 0 for never.
    /// </summary>
    public long VotedTime, OrphanedTime;

    /// <summary>The bus link this node opened to the node (Redis's node->link), and the one the node opened to it.</summary>
    internal Bus.BusLink? Link, InboundLink;

    /// <summary>An outgoing connection to the node is being made (the cron does not start another).</summary>
    internal bool Connecting;

    public bool IsMyself => (Flags & NodeFlags.Myself) != 0;
    public bool IsMaster => (Flags & NodeFlags.Master) != 0;
    public bool IsReplica => (Flags & NodeFlags.Slave) != 0;
    public bool Failed => (Flags & NodeFlags.Fail) != 0;
    public bool TimedOut => (Flags & NodeFlags.PFail) != 0;

    /// <summary>The master of a replica with a known master, else the node itself.</summary>
    public ClusterNode MasterOrSelf => IsReplica && Master != null ? Master : this;

    public override string ToString() => Id;
}
