namespace RedisClone.Cluster.Bus;

/// <summary>
/// What a node puts in the header of every message it sends (Redis's clusterBuildMessageHdr): the
/// writer fills the signature, version, type, totlen, count and extensions itself.
/// </summary>
/// <remarks>
/// The state slice builds one from its own node: a replica sends its master's slots and
/// configEpoch and its master's name in <see cref="ReplicaOf"/>; <see cref="Port"/> is the TLS
/// port and <see cref="Pport"/> the TCP one when tls-cluster is on, the other way round otherwise;
/// <see cref="MyIp"/> is cluster-announce-ip or empty (the receiver then takes the socket's peer
/// address); <see cref="Flags"/> is the node's whole flag word, MYSELF included, as Redis sends it.
/// </remarks>
internal struct BusHeader
{
    public ushort Port;
    public ushort Pport;
    public ushort Cport;
    public ulong CurrentEpoch;
    public ulong ConfigEpoch;

    /// <summary>The master's replication offset, or a replica's processed offset.</summary>
    public ulong Offset;

    public NodeName Sender;

    /// <summary>The master's name for a replica; all zero (default) for a master.</summary>
    public NodeName ReplicaOf;

    /// <summary>The slots (the master's, for a replica); null sends none.</summary>
    public SlotBitmap? Slots;

    /// <summary>cluster-announce-ip, or null/empty: at most 45 bytes are sent (strlcpy into 46).</summary>
    public string? MyIp;

    public NodeFlags Flags;

    /// <summary>The cluster state from the sender's view: 0 ok, 1 fail.</summary>
    public byte State;

    /// <summary><see cref="BusMessageFlags.Paused"/> and <see cref="BusMessageFlags.ForceAck"/>; the writer adds ExtensionData.</summary>
    public BusMessageFlags MessageFlags;
}
