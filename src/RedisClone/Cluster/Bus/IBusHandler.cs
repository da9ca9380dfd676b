namespace RedisClone.Cluster.Bus;

/// <summary>
/// What the node's cluster state (the next slice) implements to hear from its bus links.
/// </summary>
/// <remarks>
/// <para>Threads: each link calls from its own receive loop (a thread-pool thread), one call at a
/// time per link, so different links call at the same time: the state serializes them itself (a
/// lock). A call may send on any link, close any link or open new ones; none of those calls back
/// into the handler on the same thread (a link closed from here reports
/// <see cref="OnLinkClosed"/> later, from its own loop).</para>
/// <para>A handler that throws has its link closed (<see cref="BusLinkCloseReason.HandlerError"/>)
/// and the exception logged: a bug in message handling loses a link, not the server.</para>
/// </remarks>
internal interface IBusHandler
{
    /// <summary>
    /// The listener accepted a connection (Redis's clusterConnAcceptHandler: a link without a node
    /// until a message names its sender). False closes it at once without further calls (Redis
    /// does not accept cluster connections while loading data as a master).
    /// </summary>
    bool OnInboundLink(BusLink link);

    /// <summary>A well-formed message arrived; <paramref name="message"/> is valid only during the call.</summary>
    void OnMessage(BusLink link, in BusMessage message);

    /// <summary>
    /// A framed message failed <see cref="BusMessage.TryParse"/> and was dropped; the link stays, as
    /// in Redis. <paramref name="type"/> is its raw type: Redis counts it in
    /// cluster_stats_messages_*_received before checking the message.
    /// </summary>
    void OnInvalidMessage(BusLink link, ushort type, BusMessageError error);

    /// <summary>The link is gone (once per link that was started): forget it, reconnect later as Redis's cron does.</summary>
    void OnLinkClosed(BusLink link, BusLinkCloseReason reason);
}
