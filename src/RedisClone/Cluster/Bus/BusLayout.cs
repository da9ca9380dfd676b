namespace RedisClone.Cluster.Bus;

/// <summary>
/// Where each field of a cluster bus message sits: Redis's clusterMsg, which C lays out with these
/// offsets (cluster.h asserts them so that every release speaks the same wire format). Every
/// multi-byte number is big-endian (network order) except MODULE's module id, which Redis sends as
/// the module gave it.
/// </summary>
/// <remarks>
/// <code>
///    0 sig "RCmb"        4 totlen u32         8 ver u16 (1)       10 port u16
///   12 type u16         14 count u16         16 currentEpoch u64  24 configEpoch u64
///   32 offset u64       40 sender [40]       80 myslots [2048]  2128 slaveof [40]
/// 2168 myip [46]      2214 extensions u16  2216 unused [30]     2246 pport u16
/// 2248 cport u16      2250 flags u16       2252 state u8        2253 mflags [3]
/// 2256 data: gossip sections (104 bytes each) then extensions | FAIL | PUBLISH | UPDATE | MODULE
/// </code>
/// </remarks>
internal static class BusLayout
{
    public const int NameLength = 40;
    public const int SlotCount = 16384;
    public const int SlotBytes = SlotCount / 8;
    public const int IpLength = 46; // NET_IP_STR_LEN
    public const ushort ProtocolVersion = 1;

    public static ReadOnlySpan<byte> Signature => "RCmb"u8;

    // The header.
    public const int SigOffset = 0;
    public const int TotLenOffset = 4;
    public const int VersionOffset = 8;
    public const int PortOffset = 10;
    public const int TypeOffset = 12;
    public const int CountOffset = 14;
    public const int CurrentEpochOffset = 16;
    public const int ConfigEpochOffset = 24;
    public const int ReplOffsetOffset = 32;
    public const int SenderOffset = 40;
    public const int MySlotsOffset = 80;
    public const int SlaveOfOffset = 2128;
    public const int MyIpOffset = 2168;
    public const int ExtensionsOffset = 2214;
    public const int PportOffset = 2246;
    public const int CportOffset = 2248;
    public const int FlagsOffset = 2250;
    public const int StateOffset = 2252;
    public const int MFlagsOffset = 2253;

    /// <summary>The header's length, where the type's data starts: Redis's CLUSTERMSG_MIN_LEN.</summary>
    public const int HeaderLength = 2256;

    /// <summary>sizeof(clusterMsg): the header and its largest data (UPDATE's).</summary>
    public const int FullMessageLength = HeaderLength + UpdateLength;

    /// <summary>The signature and totlen: what the reader needs to frame a message.</summary>
    public const int FramePrefixLength = 8;

    // A gossip section (clusterMsgDataGossip).
    public const int GossipLength = 104;
    public const int GossipNameOffset = 0;
    public const int GossipPingSentOffset = 40;
    public const int GossipPongReceivedOffset = 44;
    public const int GossipIpOffset = 48;
    public const int GossipPortOffset = 94;
    public const int GossipCportOffset = 96;
    public const int GossipFlagsOffset = 98;
    public const int GossipPportOffset = 100;

    // A ping extension: length u32 (the whole extension, header included, a multiple of 8), type u16, unused u16, data.
    public const int ExtensionHeaderLength = 8;
    public const int ForgottenNodeLength = NameLength + 8; // name, then the TTL in seconds (u64)

    // FAIL: the failing node's name.
    public const int FailLength = NameLength;

    // PUBLISH / PUBLISHSHARD: channel_len u32, message_len u32, channel bytes then message bytes.
    public const int PublishFixedLength = 8;

    // UPDATE: configEpoch u64, node name [40], slots [2048].
    public const int UpdateLength = 8 + NameLength + SlotBytes;

    // MODULE: module_id u64 (as the module gave it), len u32, type u8, payload.
    public const int ModuleFixedLength = 13;

    /// <summary>Redis's EIGHT_BYTE_ALIGN.</summary>
    public static int AlignToEight(int size) => (size + 7) / 8 * 8;
}
