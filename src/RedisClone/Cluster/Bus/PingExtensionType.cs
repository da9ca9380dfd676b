namespace RedisClone.Cluster.Bus;

/// <summary>The type of a PING/PONG/MEET extension (Redis's CLUSTERMSG_EXT_TYPE_*).</summary>
/// <remarks>Redis 7.0 knows only <see cref="Hostname"/> and logs and skips the others
/// ("Received unknown extension type N"); 7.2 added the rest and always sends <see cref="ShardId"/>.</remarks>
internal enum PingExtensionType : ushort
{
    /// <summary>cluster-announce-hostname, NUL-terminated, padded to 8 bytes.</summary>
    Hostname = 0,

    /// <summary>cluster-announce-human-nodename (7.2), NUL-terminated, padded to 8 bytes.</summary>
    HumanNodename = 1,

    /// <summary>A node removed by CLUSTER FORGET (7.2): its 40-byte name, then the seconds it stays forgotten.</summary>
    ForgottenNode = 2,

    /// <summary>The sender's 40-byte shard id (7.2).</summary>
    ShardId = 3,
}
