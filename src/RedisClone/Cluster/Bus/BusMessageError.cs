namespace RedisClone.Cluster.Bus;

/// <summary>Why a framed message was dropped. The link stays open, as Redis's clusterProcessPacket keeps it.</summary>
internal enum BusMessageError
{
    None = 0,

    /// <summary>Not a whole message: shorter than the header, or totlen not its length. (The framer never hands these over.)</summary>
    Truncated,

    /// <summary>The protocol version is not 1.</summary>
    BadVersion,

    /// <summary>totlen is not the length the type, gossip count, extensions or payload lengths call for.</summary>
    LengthMismatch,

    /// <summary>An extension's length is not a multiple of 8 (Redis: "packet without proper padding").</summary>
    ExtensionPadding,

    /// <summary>An extension reaches past totlen (Redis: "extension data that exceeds total packet length").</summary>
    ExtensionOverflow,

    /// <summary>
    /// An extension shorter than its own header, or than its type's fixed content (a forgotten node
    /// needs 48 bytes, a shard id 40). Redis does not check this and reads past the extension; here
    /// the message is dropped.
    /// </summary>
    ExtensionTooShort,
}
