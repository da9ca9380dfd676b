namespace RedisClone.Protocol;

internal static partial class RespErrors
{
    // CLUSTER subcommands (Redis 7.2's cluster.c).
    public static ReadOnlySpan<byte> InvalidSlot => "-ERR Invalid or out of range slot\r\n"u8;
    public static ReadOnlySpan<byte> InvalidSlotShort => "-ERR Invalid slot\r\n"u8;
    public static ReadOnlySpan<byte> InvalidSlotOrCount => "-ERR Invalid slot or number of keys\r\n"u8;
    public static string SlotAlreadyUnassigned(int slot) => $"ERR Slot {slot} is already unassigned";
    public static string SlotAlreadyBusy(int slot) => $"ERR Slot {slot} is already busy";
    public static string SlotSpecifiedMultipleTimes(int slot) => $"ERR Slot {slot} specified multiple times";
    public static string StartSlotGreater(int start, int end) => $"ERR start slot number {start} is greater than end slot number {end}";
    public static ReadOnlySpan<byte> FlushSlotsNotEmpty => "-ERR DB must be empty to perform CLUSTER FLUSHSLOTS.\r\n"u8;
    public static ReadOnlySpan<byte> SetSlotOnReplica => "-ERR Please use SETSLOT only with masters.\r\n"u8;
    public static string NotSlotOwner(int slot) => $"ERR I'm not the owner of hash slot {slot}";
    public static string AlreadySlotOwner(int slot) => $"ERR I'm already the owner of hash slot {slot}";
    public static string DontKnowNode(ReadOnlySpan<byte> id) => $"ERR I don't know about node {Latin(UpToNul(id))}";
    public static string UnknownNode(ReadOnlySpan<byte> id) => $"ERR Unknown node {Latin(UpToNul(id))}";
    public static ReadOnlySpan<byte> TargetNotMaster => "-ERR Target node is not a master\r\n"u8;
    public static string SlotStillHasKeys(int slot) => $"ERR Can't assign hashslot {slot} to a different node while I still hold keys for this hash slot.";
    public static ReadOnlySpan<byte> InvalidSetSlotAction => "-ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP\r\n"u8;
    public static string SavingClusterConfig(string reason) => $"ERR error saving the cluster node config: {reason}";
    public static ReadOnlySpan<byte> CantForgetMyself => "-ERR I tried hard but I can't forget myself...\r\n"u8;
    public static ReadOnlySpan<byte> CantForgetMaster => "-ERR Can't forget my master!\r\n"u8;
    public static ReadOnlySpan<byte> CantReplicateMyself => "-ERR Can't replicate myself\r\n"u8;
    public static ReadOnlySpan<byte> CanOnlyReplicateMaster => "-ERR I can only replicate a master, not a replica.\r\n"u8;
    public static ReadOnlySpan<byte> ReplicateNotEmpty => "-ERR To set a master the node must be empty and without assigned slots.\r\n"u8;
    public static ReadOnlySpan<byte> NodeNotMaster => "-ERR The specified node is not a master\r\n"u8;
    public static ReadOnlySpan<byte> FailoverOnMaster => "-ERR You should send CLUSTER FAILOVER to a replica\r\n"u8;
    public static ReadOnlySpan<byte> FailoverMasterUnknown => "-ERR I'm a replica but my master is unknown to me\r\n"u8;
    public static ReadOnlySpan<byte> FailoverMasterDown => "-ERR Master is down or failed, please use CLUSTER FAILOVER FORCE\r\n"u8;
    public static string InvalidConfigEpoch(long epoch) => $"ERR Invalid config epoch specified: {epoch}";
    public static ReadOnlySpan<byte> ConfigEpochOtherNodes => "-ERR The user can assign a config epoch only when the node does not know any other node.\r\n"u8;
    public static ReadOnlySpan<byte> ConfigEpochNonZero => "-ERR Node config epoch is already non-zero\r\n"u8;
    public static ReadOnlySpan<byte> ResetMasterWithKeys => "-ERR CLUSTER RESET can't be called with master nodes containing keys\r\n"u8;
    public static string InvalidBasePort(ReadOnlySpan<byte> port) => $"ERR Invalid base port specified: {Latin(UpToNul(port))}";
    public static string InvalidBusPort(ReadOnlySpan<byte> port) => $"ERR Invalid bus port specified: {Latin(UpToNul(port))}";
    public static string InvalidNodeAddress(ReadOnlySpan<byte> ip, ReadOnlySpan<byte> port) => $"ERR Invalid node address specified: {Latin(UpToNul(ip))}:{Latin(UpToNul(port))}";

    // Redirections (Redis's clusterRedirectClient) and cluster mode's refusals. Strings: the
    // dispatcher's checks hand their error on as text.
    public const string CrossSlot = "CROSSSLOT Keys in request don't hash to the same slot";
    public const string TryAgain = "TRYAGAIN Multiple keys request during rehashing of slot";
    public const string ClusterDown = "CLUSTERDOWN The cluster is down";
    public const string ClusterDownReadOnly = "CLUSTERDOWN The cluster is down and only accepts read commands";
    public const string ClusterDownUnbound = "CLUSTERDOWN Hash slot not served";
    public static ReadOnlySpan<byte> SelectInClusterMode => "-ERR SELECT is not allowed in cluster mode\r\n"u8;
    public static ReadOnlySpan<byte> MoveInClusterMode => "-ERR MOVE is not allowed in cluster mode\r\n"u8;
    public static ReadOnlySpan<byte> CopyDbInClusterMode => "-ERR Copying to another database is not allowed in cluster mode\r\n"u8;
    public static ReadOnlySpan<byte> SwapDbInClusterMode => "-ERR SWAPDB is not allowed in cluster mode\r\n"u8;
    public static ReadOnlySpan<byte> FailoverInClusterMode => "-ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.\r\n"u8;
    public static ReadOnlySpan<byte> ReplicaOfInClusterMode => "-ERR REPLICAOF not allowed in cluster mode.\r\n"u8;

    // A script's command refused by the cluster check (Redis 7.2's scriptVerifyClusterState).
    public const string ScriptClusterDownReadOnly = "ERR Script attempted to execute a write command while the cluster is down and readonly";
    public const string ScriptClusterDown = "ERR Script attempted to execute a command while the cluster is down";
    public static string ScriptCrossSlot(string fullName) => $"ERR Command '{fullName}' in script attempted to access keys that do not hash to the same slot";
    public const string ScriptNonLocalKey = "ERR Script attempted to access a non local key in a cluster node";
    public const string ScriptUndeclaredCrossSlot = "ERR Script attempted to access keys that do not hash to the same slot";
}
