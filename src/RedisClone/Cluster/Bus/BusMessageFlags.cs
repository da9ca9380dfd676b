namespace RedisClone.Cluster.Bus;

/// <summary>The header's <c>mflags[0]</c> bits (Redis's CLUSTERMSG_FLAG0_*); mflags[1] and [2] are unused and zero.</summary>
[Flags]
internal enum BusMessageFlags : byte
{
    None = 0,

    /// <summary>The sending master paused its clients for a manual failover (its offset is final).</summary>
    Paused = 1 << 0,

    /// <summary>A FAILOVER_AUTH_REQUEST of a manual failover: vote even though the master is up.</summary>
    ForceAck = 1 << 1,

    /// <summary>A PING, PONG or MEET carries extensions after its gossip sections. Set by the writer.</summary>
    ExtensionData = 1 << 2,
}
