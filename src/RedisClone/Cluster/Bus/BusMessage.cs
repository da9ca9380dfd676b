using System.Buffers.Binary;
using System.Text;

namespace RedisClone.Cluster.Bus;

/// <summary>
/// A received cluster bus message, read in place: every accessor reads the message's bytes, so a
/// message costs no allocation. Valid only while its bytes are (during
/// <see cref="IBusHandler.OnMessage"/>): copy what must outlive the call.
/// </summary>
/// <remarks>
/// <para><see cref="TryParse"/> checks what Redis's clusterProcessPacket checks before it trusts a
/// message, in its order: the version, then the length the type calls for (header + 104 bytes per
/// gossip section + each extension for PING/PONG/MEET; the fixed data of FAIL and UPDATE; the
/// header plus the two lengths of PUBLISH; MODULE's length; only the header for the failover
/// messages and MFSTART). A type it does not know is well formed whatever its length.</para>
/// <para>Where Redis trusts a peer more than it should, this is stricter, so a hostile message
/// cannot make it read past the message: lengths are summed in 64 bits (Redis's 32-bit sum of a
/// PUBLISH's two lengths can wrap around to match totlen); an extension header must lie inside the
/// message and be at least 8 bytes long (Redis takes 0, and reads only the low 16 bits of the length
/// when it checks it); forgotten-node and shard-id extensions must hold their fixed content; and
/// extensions count only when the EXT_DATA flag is set (Redis skips checking them without the flag
/// but still walks as many as the header claims).</para>
/// </remarks>
internal readonly ref struct BusMessage
{
    private readonly ReadOnlySpan<byte> _bytes;
    private readonly int _extensionCount;

    private BusMessage(ReadOnlySpan<byte> bytes, int extensionCount)
    {
        _bytes = bytes;
        _extensionCount = extensionCount;
    }

    /// <summary>The whole message, header included.</summary>
    public ReadOnlySpan<byte> Bytes => _bytes;

    public uint TotalLength => BinaryPrimitives.ReadUInt32BigEndian(_bytes[BusLayout.TotLenOffset..]);
    public ushort Version => U16(BusLayout.VersionOffset);

    /// <summary>The raw type: may be past the types this version knows.</summary>
    public ushort RawType => U16(BusLayout.TypeOffset);
    public BusMessageType Type => (BusMessageType)RawType;
    public ushort Port => U16(BusLayout.PortOffset);
    public ushort Count => U16(BusLayout.CountOffset);
    public ulong CurrentEpoch => U64(BusLayout.CurrentEpochOffset);
    public ulong ConfigEpoch => U64(BusLayout.ConfigEpochOffset);
    public ulong Offset => U64(BusLayout.ReplOffsetOffset);
    public ReadOnlySpan<byte> Sender => _bytes.Slice(BusLayout.SenderOffset, BusLayout.NameLength);
    public NodeName SenderName => NodeName.From(Sender);
    public ReadOnlySpan<byte> MySlots => _bytes.Slice(BusLayout.MySlotsOffset, BusLayout.SlotBytes);

    /// <summary>The master's name when the sender is a replica; all zero for a master.</summary>
    public ReadOnlySpan<byte> ReplicaOf => _bytes.Slice(BusLayout.SlaveOfOffset, BusLayout.NameLength);
    public bool IsReplica => _bytes.Slice(BusLayout.SlaveOfOffset, BusLayout.NameLength).ContainsAnyExcept((byte)0);

    /// <summary>The 46-byte myip field as sent.</summary>
    public ReadOnlySpan<byte> MyIpField => _bytes.Slice(BusLayout.MyIpOffset, BusLayout.IpLength);

    /// <summary>myip up to its first zero byte (at most 45 bytes, as Redis's nodeIp2String terminates it); empty: use the peer address.</summary>
    public ReadOnlySpan<byte> MyIp => UpToZero(_bytes.Slice(BusLayout.MyIpOffset, BusLayout.IpLength - 1));

    /// <summary>The header's extensions field as sent (see <see cref="Extensions"/> for the ones that count).</summary>
    public ushort ExtensionsField => U16(BusLayout.ExtensionsOffset);
    public ushort Pport => U16(BusLayout.PportOffset);
    public ushort Cport => U16(BusLayout.CportOffset);
    public NodeFlags Flags => (NodeFlags)U16(BusLayout.FlagsOffset);
    public byte State => _bytes[BusLayout.StateOffset];
    public BusMessageFlags MessageFlags => (BusMessageFlags)_bytes[BusLayout.MFlagsOffset];

    /// <summary>Whether this is a PING, PONG or MEET (the types with gossip and extensions).</summary>
    public bool IsPingLike => Type is BusMessageType.Ping or BusMessageType.Pong or BusMessageType.Meet;

    /// <summary>The i-th gossip section of a PING/PONG/MEET (0 ≤ i &lt; <see cref="Count"/>).</summary>
    public GossipSection Gossip(int i)
    {
        if (!IsPingLike || (uint)i >= Count) throw new ArgumentOutOfRangeException(nameof(i));
        return new GossipSection(_bytes.Slice(BusLayout.HeaderLength + i * BusLayout.GossipLength, BusLayout.GossipLength));
    }

    /// <summary>The extensions of a PING/PONG/MEET that set EXT_DATA, in order.</summary>
    public PingExtensionEnumerator Extensions
        => new(IsPingLike ? _bytes[(BusLayout.HeaderLength + Count * BusLayout.GossipLength)..] : default, _extensionCount);

    /// <summary>The number of extensions <see cref="Extensions"/> walks.</summary>
    public int ExtensionCount => _extensionCount;

    /// <summary>FAIL: the failing node's name.</summary>
    public ReadOnlySpan<byte> FailingNode => _bytes.Slice(BusLayout.HeaderLength, BusLayout.NameLength);

    /// <summary>PUBLISH/PUBLISHSHARD: the channel.</summary>
    public ReadOnlySpan<byte> PublishChannel => _bytes.Slice(BusLayout.HeaderLength + BusLayout.PublishFixedLength, (int)U32(BusLayout.HeaderLength));

    /// <summary>PUBLISH/PUBLISHSHARD: the message.</summary>
    public ReadOnlySpan<byte> PublishMessage
        => _bytes.Slice(BusLayout.HeaderLength + BusLayout.PublishFixedLength + (int)U32(BusLayout.HeaderLength), (int)U32(BusLayout.HeaderLength + 4));

    /// <summary>UPDATE: the config epoch of the node it is about.</summary>
    public ulong UpdateConfigEpoch => U64(BusLayout.HeaderLength);

    /// <summary>UPDATE: the node it is about.</summary>
    public ReadOnlySpan<byte> UpdateNode => _bytes.Slice(BusLayout.HeaderLength + 8, BusLayout.NameLength);

    /// <summary>UPDATE: that node's slots (2048 bytes).</summary>
    public ReadOnlySpan<byte> UpdateSlots => _bytes.Slice(BusLayout.HeaderLength + 8 + BusLayout.NameLength, BusLayout.SlotBytes);

    /// <summary>MODULE: the sender module's id, its 8 bytes in memory order as Redis passes it on.</summary>
    public ulong ModuleId => BitConverter.ToUInt64(_bytes.Slice(BusLayout.HeaderLength, 8));

    /// <summary>MODULE: the module's message type.</summary>
    public byte ModuleType => _bytes[BusLayout.HeaderLength + 12];

    /// <summary>MODULE: the payload.</summary>
    public ReadOnlySpan<byte> ModulePayload => _bytes.Slice(BusLayout.HeaderLength + BusLayout.ModuleFixedLength, (int)U32(BusLayout.HeaderLength + 8));

    /// <summary>Redis's name for a message type in its log lines (clusterGetMessageTypeString).</summary>
    public static string TypeName(ushort type) => (BusMessageType)type switch
    {
        BusMessageType.Ping => "ping",
        BusMessageType.Pong => "pong",
        BusMessageType.Meet => "meet",
        BusMessageType.Fail => "fail",
        BusMessageType.Publish => "publish",
        BusMessageType.PublishShard => "publishshard",
        BusMessageType.FailoverAuthRequest => "auth-req",
        BusMessageType.FailoverAuthAck => "auth-ack",
        BusMessageType.Update => "update",
        BusMessageType.MfStart => "mfstart",
        BusMessageType.Module => "module",
        _ => "unknown",
    };

    /// <summary>
    /// Checks one whole message (<paramref name="bytes"/> is exactly totlen bytes) as Redis does
    /// before processing it. False with the reason when Redis would drop it (the link stays).
    /// </summary>
    public static bool TryParse(ReadOnlySpan<byte> bytes, out BusMessage message, out BusMessageError error)
    {
        message = default;
        if (bytes.Length < BusLayout.HeaderLength || !bytes.StartsWith(BusLayout.Signature)
            || BinaryPrimitives.ReadUInt32BigEndian(bytes[BusLayout.TotLenOffset..]) != (uint)bytes.Length)
        {
            error = BusMessageError.Truncated;
            return false;
        }
        if (BinaryPrimitives.ReadUInt16BigEndian(bytes[BusLayout.VersionOffset..]) != BusLayout.ProtocolVersion)
        {
            error = BusMessageError.BadVersion;
            return false;
        }
        long totlen = bytes.Length;
        long expected;
        int extensions = 0;
        var type = (BusMessageType)BinaryPrimitives.ReadUInt16BigEndian(bytes[BusLayout.TypeOffset..]);
        switch (type)
        {
            case BusMessageType.Ping or BusMessageType.Pong or BusMessageType.Meet:
                {
                    int count = BinaryPrimitives.ReadUInt16BigEndian(bytes[BusLayout.CountOffset..]);
                    expected = BusLayout.HeaderLength + (long)count * BusLayout.GossipLength;
                    if ((bytes[BusLayout.MFlagsOffset] & (byte)BusMessageFlags.ExtensionData) != 0)
                    {
                        extensions = BinaryPrimitives.ReadUInt16BigEndian(bytes[BusLayout.ExtensionsOffset..]);
                        error = CheckExtensions(bytes, extensions, ref expected);
                        if (error != BusMessageError.None) return false;
                    }
                    break;
                }
            case BusMessageType.Fail:
                expected = BusLayout.HeaderLength + BusLayout.FailLength;
                break;
            case BusMessageType.Publish or BusMessageType.PublishShard:
                expected = BusLayout.HeaderLength + BusLayout.PublishFixedLength;
                if (totlen >= expected)
                {
                    expected += BinaryPrimitives.ReadUInt32BigEndian(bytes[BusLayout.HeaderLength..]);
                    expected += BinaryPrimitives.ReadUInt32BigEndian(bytes[(BusLayout.HeaderLength + 4)..]);
                }
                break;
            case BusMessageType.FailoverAuthRequest or BusMessageType.FailoverAuthAck or BusMessageType.MfStart:
                expected = BusLayout.HeaderLength;
                break;
            case BusMessageType.Update:
                expected = BusLayout.HeaderLength + BusLayout.UpdateLength;
                break;
            case BusMessageType.Module:
                expected = BusLayout.HeaderLength + BusLayout.ModuleFixedLength;
                if (totlen >= expected) expected += BinaryPrimitives.ReadUInt32BigEndian(bytes[(BusLayout.HeaderLength + 8)..]);
                break;
            default:
                expected = totlen; // a type this version does not know: well formed, as Redis assumes
                break;
        }
        if (expected != totlen)
        {
            error = BusMessageError.LengthMismatch;
            return false;
        }
        message = new BusMessage(bytes, extensions);
        error = BusMessageError.None;
        return true;
    }

    /// <summary>Walks <paramref name="count"/> extensions from the end of the gossip sections, adding each one's length to <paramref name="expected"/>.</summary>
    private static BusMessageError CheckExtensions(ReadOnlySpan<byte> bytes, int count, ref long expected)
    {
        long totlen = bytes.Length;
        for (int i = 0; i < count; i++)
        {
            if (expected + BusLayout.ExtensionHeaderLength > totlen) return BusMessageError.ExtensionOverflow;
            var ext = bytes[(int)expected..];
            uint length = BinaryPrimitives.ReadUInt32BigEndian(ext);
            if (length % 8 != 0) return BusMessageError.ExtensionPadding;
            if (totlen - expected < length) return BusMessageError.ExtensionOverflow;
            if (length < BusLayout.ExtensionHeaderLength) return BusMessageError.ExtensionTooShort;
            int needed = (PingExtensionType)BinaryPrimitives.ReadUInt16BigEndian(ext[4..]) switch
            {
                PingExtensionType.ForgottenNode => BusLayout.ForgottenNodeLength,
                PingExtensionType.ShardId => BusLayout.NameLength,
                _ => 0,
            };
            if (length < BusLayout.ExtensionHeaderLength + needed) return BusMessageError.ExtensionTooShort;
            expected += length;
        }
        return BusMessageError.None;
    }

    private ushort U16(int offset) => BinaryPrimitives.ReadUInt16BigEndian(_bytes[offset..]);
    private uint U32(int offset) => BinaryPrimitives.ReadUInt32BigEndian(_bytes[offset..]);
    private ulong U64(int offset) => BinaryPrimitives.ReadUInt64BigEndian(_bytes[offset..]);

    private static ReadOnlySpan<byte> UpToZero(ReadOnlySpan<byte> field)
    {
        int end = field.IndexOf((byte)0);
        return end < 0 ? field : field[..end];
    }

    /// <summary>Text of a field read up to its zero (Latin-1: one character per byte, whatever was sent).</summary>
    public static string Text(ReadOnlySpan<byte> field) => Encoding.Latin1.GetString(UpToZero(field));

    /// <summary>One gossip section: another node as the sender sees it.</summary>
    internal readonly ref struct GossipSection(ReadOnlySpan<byte> bytes)
    {
        private readonly ReadOnlySpan<byte> _bytes = bytes;

        public ReadOnlySpan<byte> Name => _bytes[..BusLayout.NameLength];
        public NodeName NodeName => NodeName.From(_bytes);
        public uint PingSentSeconds => BinaryPrimitives.ReadUInt32BigEndian(_bytes[BusLayout.GossipPingSentOffset..]);
        public uint PongReceivedSeconds => BinaryPrimitives.ReadUInt32BigEndian(_bytes[BusLayout.GossipPongReceivedOffset..]);

        /// <summary>The 46-byte ip field as sent.</summary>
        public ReadOnlySpan<byte> IpField => _bytes.Slice(BusLayout.GossipIpOffset, BusLayout.IpLength);

        /// <summary>The ip up to its first zero (at most 45 bytes: Redis copies the field and treats it as a C string).</summary>
        public ReadOnlySpan<byte> Ip => UpToZero(_bytes.Slice(BusLayout.GossipIpOffset, BusLayout.IpLength - 1));
        public ushort Port => BinaryPrimitives.ReadUInt16BigEndian(_bytes[BusLayout.GossipPortOffset..]);
        public ushort Cport => BinaryPrimitives.ReadUInt16BigEndian(_bytes[BusLayout.GossipCportOffset..]);
        public NodeFlags Flags => (NodeFlags)BinaryPrimitives.ReadUInt16BigEndian(_bytes[BusLayout.GossipFlagsOffset..]);
        public ushort Pport => BinaryPrimitives.ReadUInt16BigEndian(_bytes[BusLayout.GossipPportOffset..]);
    }

    /// <summary>One PING/PONG/MEET extension.</summary>
    internal readonly ref struct PingExtension(ReadOnlySpan<byte> bytes)
    {
        private readonly ReadOnlySpan<byte> _bytes = bytes;

        /// <summary>The raw type: types past <see cref="PingExtensionType.ShardId"/> are unknown, and skipped by Redis.</summary>
        public ushort RawType => BinaryPrimitives.ReadUInt16BigEndian(_bytes[4..]);
        public PingExtensionType Type => (PingExtensionType)RawType;

        /// <summary>The whole extension's length, header and padding included.</summary>
        public int Length => _bytes.Length;

        /// <summary>The content after the 8-byte extension header, padding included.</summary>
        public ReadOnlySpan<byte> Data => _bytes[BusLayout.ExtensionHeaderLength..];

        /// <summary>Hostname / human nodename: the text up to its terminating zero (the whole content if a peer left it out).</summary>
        public ReadOnlySpan<byte> Text => UpToZero(Data);

        /// <summary>Forgotten node / shard id: the 40-byte name.</summary>
        public ReadOnlySpan<byte> Name => Data[..BusLayout.NameLength];

        /// <summary>Forgotten node: the seconds it stays forgotten.</summary>
        public ulong TtlSeconds => BinaryPrimitives.ReadUInt64BigEndian(Data[BusLayout.NameLength..]);
    }

    /// <summary>Walks the extensions (already checked by <see cref="TryParse"/>).</summary>
    internal ref struct PingExtensionEnumerator
    {
        private ReadOnlySpan<byte> _rest;
        private int _left;
        private PingExtension _current;

        public PingExtensionEnumerator(ReadOnlySpan<byte> rest, int count)
        {
            _rest = rest;
            _left = count;
            _current = default;
        }

        public readonly PingExtension Current => _current;

        public readonly PingExtensionEnumerator GetEnumerator() => this;

        public bool MoveNext()
        {
            if (_left == 0) return false;
            _left--;
            int length = (int)BinaryPrimitives.ReadUInt32BigEndian(_rest);
            _current = new PingExtension(_rest[..length]);
            _rest = _rest[length..];
            return true;
        }
    }
}
