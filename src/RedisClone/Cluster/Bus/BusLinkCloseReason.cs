namespace RedisClone.Cluster.Bus;

/// <summary>Why a bus link ended.</summary>
internal enum BusLinkCloseReason
{
    /// <summary>This side closed it (<see cref="BusLink.Close"/>).</summary>
    Closed,

    /// <summary>The peer closed the connection.</summary>
    PeerClosed,

    /// <summary>A socket error.</summary>
    IoError,

    /// <summary>A message without the "RCmb" signature, or with totlen shorter than a header (Redis frees the link too).</summary>
    BadFrame,

    /// <summary>A message announcing more than <see cref="BusOptions.MaxMessageLength"/>.</summary>
    FrameTooLong,

    /// <summary>More than cluster-link-sendbuf-limit bytes waited to be sent (stat_cluster_links_buffer_limit_exceeded).</summary>
    SendBufferLimit,

    /// <summary>The handler threw while processing a message.</summary>
    HandlerError,
}
