namespace RedisClone.Cluster.Bus;

/// <summary>One gossip section to write: what the sender knows of another node (Redis's clusterSetGossipEntry).</summary>
/// <remarks>Times are Unix seconds (Redis sends its milliseconds divided by 1000, truncated to 32 bits);
/// ports as in <see cref="BusHeader"/> (<see cref="Port"/> is the TLS one under tls-cluster).</remarks>
internal struct GossipEntry
{
    public NodeName Name;
    public uint PingSentSeconds;
    public uint PongReceivedSeconds;

    /// <summary>The node's address as text; at most 46 bytes are sent, zero-padded.</summary>
    public string? Ip;

    public ushort Port;
    public ushort Cport;
    public NodeFlags Flags;
    public ushort Pport;
}
