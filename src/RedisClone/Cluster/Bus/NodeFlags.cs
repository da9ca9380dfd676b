namespace RedisClone.Cluster.Bus;

/// <summary>A node's flags as Redis's CLUSTER_NODE_* bits: the header's and a gossip section's <c>flags</c>.</summary>
[Flags]
internal enum NodeFlags : ushort
{
    None = 0,
    Master = 1,
    Slave = 2,
    PFail = 4,
    Fail = 8,
    Myself = 16,
    Handshake = 32,
    NoAddr = 64,
    Meet = 128,
    MigrateTo = 256,
    NoFailover = 512,
}
