using System.Buffers.Binary;
using System.Text;

namespace RedisClone.Cluster.Bus;

/// <summary>
/// Builds cluster bus messages byte for byte as Redis builds them: every field it does not set is
/// zero (Redis allocates its send blocks zeroed), numbers big-endian, and totlen exactly the bytes
/// that go on the wire. One writer is reused message after message; what a method returns lives
/// in the writer's buffer until its next message, and is copied by <see cref="BusLink.Send"/>.
/// </summary>
/// <remarks>
/// <para>PING, PONG and MEET are built in steps: <see cref="StartPing"/>, the gossip sections
/// (<see cref="AddGossip"/>), the extensions in Redis 7.2's order (hostname when one is announced,
/// human nodename when set, one forgotten node per entry of the FORGET list, then the shard id,
/// which 7.2 always sends; a 7.0 node sends only the hostname), then <see cref="Finish"/>, which
/// sets count, extensions, totlen and the EXT_DATA flag when there is an extension. Every
/// extension is padded with zeros to a multiple of 8 bytes.</para>
/// <para>Not thread-safe: one writer per thread, or under the state's lock.</para>
/// </remarks>
internal sealed class BusMessageWriter
{
    private byte[] _buffer = new byte[BusLayout.FullMessageLength + 16 * BusLayout.GossipLength];
    private int _length;
    private int _gossipCount;
    private int _extensionCount;
    private bool _building; // a PING/PONG/MEET between StartPing and Finish

    /// <summary>The message last written (valid until the next one starts).</summary>
    public ReadOnlySpan<byte> Written => _buffer.AsSpan(0, _length);

    /// <summary>Starts a PING, PONG or MEET with <paramref name="header"/>.</summary>
    public void StartPing(BusMessageType type, in BusHeader header)
    {
        if (type is not (BusMessageType.Ping or BusMessageType.Pong or BusMessageType.Meet))
            throw new ArgumentOutOfRangeException(nameof(type), type, "not a PING, PONG or MEET");
        Begin(type, header, BusLayout.HeaderLength);
        _gossipCount = 0;
        _extensionCount = 0;
        _building = true;
    }

    /// <summary>Appends a gossip section; all of them come before the first extension.</summary>
    public void AddGossip(in GossipEntry entry)
    {
        if (!_building || _extensionCount > 0) throw new InvalidOperationException("gossip sections go after StartPing and before the extensions");
        if (_gossipCount == ushort.MaxValue - 1) throw new InvalidOperationException("too many gossip sections"); // Redis asserts count < USHRT_MAX
        var g = Grow(BusLayout.GossipLength);
        entry.Name.CopyTo(g);
        BinaryPrimitives.WriteUInt32BigEndian(g[BusLayout.GossipPingSentOffset..], entry.PingSentSeconds);
        BinaryPrimitives.WriteUInt32BigEndian(g[BusLayout.GossipPongReceivedOffset..], entry.PongReceivedSeconds);
        WriteAscii(g.Slice(BusLayout.GossipIpOffset, BusLayout.IpLength), entry.Ip, BusLayout.IpLength);
        BinaryPrimitives.WriteUInt16BigEndian(g[BusLayout.GossipPortOffset..], entry.Port);
        BinaryPrimitives.WriteUInt16BigEndian(g[BusLayout.GossipCportOffset..], entry.Cport);
        BinaryPrimitives.WriteUInt16BigEndian(g[BusLayout.GossipFlagsOffset..], (ushort)entry.Flags);
        BinaryPrimitives.WriteUInt16BigEndian(g[BusLayout.GossipPportOffset..], entry.Pport);
        _gossipCount++;
    }

    /// <summary>The hostname extension (cluster-announce-hostname); Redis sends none when it is empty.</summary>
    public void AddHostname(ReadOnlySpan<byte> hostname) => AddText(PingExtensionType.Hostname, hostname);

    /// <summary>The human nodename extension (cluster-announce-human-nodename, 7.2); none when empty.</summary>
    public void AddHumanNodename(ReadOnlySpan<byte> name) => AddText(PingExtensionType.HumanNodename, name);

    /// <summary>A forgotten node (7.2): its name and the seconds left before it may be added again.</summary>
    public void AddForgottenNode(in NodeName name, ulong ttlSeconds)
    {
        var data = AddExtension(PingExtensionType.ForgottenNode, BusLayout.ForgottenNodeLength);
        name.CopyTo(data);
        BinaryPrimitives.WriteUInt64BigEndian(data[BusLayout.NameLength..], ttlSeconds);
    }

    /// <summary>The sender's shard id (7.2 sends it in every PING, PONG and MEET, last).</summary>
    public void AddShardId(in NodeName shardId) => shardId.CopyTo(AddExtension(PingExtensionType.ShardId, BusLayout.NameLength));

    /// <summary>
    /// An extension of any type with <paramref name="data"/> as its content, zero-padded: for types
    /// this version does not know (tests send them to see what a peer does).
    /// </summary>
    public void AddRawExtension(ushort type, ReadOnlySpan<byte> data) => data.CopyTo(AddExtension((PingExtensionType)type, data.Length));

    /// <summary>Completes the PING/PONG/MEET started with <see cref="StartPing"/>.</summary>
    public ReadOnlySpan<byte> Finish()
    {
        if (!_building) throw new InvalidOperationException("no PING, PONG or MEET started");
        _building = false;
        var m = _buffer.AsSpan(0, _length);
        BinaryPrimitives.WriteUInt16BigEndian(m[BusLayout.CountOffset..], (ushort)_gossipCount);
        BinaryPrimitives.WriteUInt16BigEndian(m[BusLayout.ExtensionsOffset..], (ushort)_extensionCount);
        if (_extensionCount != 0) m[BusLayout.MFlagsOffset] |= (byte)BusMessageFlags.ExtensionData;
        BinaryPrimitives.WriteUInt32BigEndian(m[BusLayout.TotLenOffset..], (uint)_length);
        return m;
    }

    /// <summary>FAIL: <paramref name="failing"/> is failing (Redis's clusterSendFail).</summary>
    public ReadOnlySpan<byte> Fail(in BusHeader header, in NodeName failing)
    {
        Begin(BusMessageType.Fail, header, BusLayout.HeaderLength + BusLayout.FailLength);
        failing.CopyTo(_buffer.AsSpan(BusLayout.HeaderLength));
        return Written;
    }

    /// <summary>PUBLISH (or PUBLISHSHARD when <paramref name="sharded"/>): a channel and a message (clusterCreatePublishMsgBlock).</summary>
    public ReadOnlySpan<byte> Publish(in BusHeader header, bool sharded, ReadOnlySpan<byte> channel, ReadOnlySpan<byte> message)
    {
        long length = (long)BusLayout.HeaderLength + BusLayout.PublishFixedLength + channel.Length + message.Length;
        if (length > int.MaxValue - 64) throw new ArgumentException("a PUBLISH message over 2 GB");
        Begin(sharded ? BusMessageType.PublishShard : BusMessageType.Publish, header, (int)length);
        var d = _buffer.AsSpan(BusLayout.HeaderLength);
        BinaryPrimitives.WriteUInt32BigEndian(d, (uint)channel.Length);
        BinaryPrimitives.WriteUInt32BigEndian(d[4..], (uint)message.Length);
        channel.CopyTo(d[8..]);
        message.CopyTo(d[(8 + channel.Length)..]);
        return Written;
    }

    /// <summary>UPDATE: <paramref name="node"/> serves <paramref name="slots"/> (2048 bytes) at <paramref name="configEpoch"/> (clusterSendUpdate).</summary>
    public ReadOnlySpan<byte> Update(in BusHeader header, ulong configEpoch, in NodeName node, ReadOnlySpan<byte> slots)
    {
        Begin(BusMessageType.Update, header, BusLayout.HeaderLength + BusLayout.UpdateLength);
        var d = _buffer.AsSpan(BusLayout.HeaderLength);
        BinaryPrimitives.WriteUInt64BigEndian(d, configEpoch);
        node.CopyTo(d[8..]);
        slots[..BusLayout.SlotBytes].CopyTo(d[(8 + BusLayout.NameLength)..]);
        return Written;
    }

    /// <summary>
    /// A message that is only a header: FAILOVER_AUTH_REQUEST (with <see cref="BusMessageFlags.ForceAck"/>
    /// in the header's flags for a manual failover), FAILOVER_AUTH_ACK or MFSTART.
    /// </summary>
    public ReadOnlySpan<byte> HeaderOnly(BusMessageType type, in BusHeader header)
    {
        if (type is not (BusMessageType.FailoverAuthRequest or BusMessageType.FailoverAuthAck or BusMessageType.MfStart))
            throw new ArgumentOutOfRangeException(nameof(type), type, "not a header-only message");
        Begin(type, header, BusLayout.HeaderLength);
        return Written;
    }

    /// <summary>MODULE: <paramref name="moduleId"/> goes as its 8 bytes in memory order (Redis does not convert it).</summary>
    public ReadOnlySpan<byte> Module(in BusHeader header, ulong moduleId, byte type, ReadOnlySpan<byte> payload)
    {
        Begin(BusMessageType.Module, header, BusLayout.HeaderLength + BusLayout.ModuleFixedLength + payload.Length);
        var d = _buffer.AsSpan(BusLayout.HeaderLength);
        BitConverter.TryWriteBytes(d, moduleId);
        BinaryPrimitives.WriteUInt32BigEndian(d[8..], (uint)payload.Length);
        d[12] = type;
        payload.CopyTo(d[13..]);
        return Written;
    }

    /// <summary>Zeroes <paramref name="length"/> bytes and writes the header's common fields (clusterBuildMessageHdr).</summary>
    private void Begin(BusMessageType type, in BusHeader h, int length)
    {
        _building = false;
        EnsureCapacity(length);
        var m = _buffer.AsSpan(0, length);
        m.Clear();
        _length = length;
        BusLayout.Signature.CopyTo(m);
        BinaryPrimitives.WriteUInt32BigEndian(m[BusLayout.TotLenOffset..], (uint)length);
        BinaryPrimitives.WriteUInt16BigEndian(m[BusLayout.VersionOffset..], BusLayout.ProtocolVersion);
        BinaryPrimitives.WriteUInt16BigEndian(m[BusLayout.PortOffset..], h.Port);
        BinaryPrimitives.WriteUInt16BigEndian(m[BusLayout.TypeOffset..], (ushort)type);
        BinaryPrimitives.WriteUInt64BigEndian(m[BusLayout.CurrentEpochOffset..], h.CurrentEpoch);
        BinaryPrimitives.WriteUInt64BigEndian(m[BusLayout.ConfigEpochOffset..], h.ConfigEpoch);
        BinaryPrimitives.WriteUInt64BigEndian(m[BusLayout.ReplOffsetOffset..], h.Offset);
        h.Sender.CopyTo(m[BusLayout.SenderOffset..]);
        h.Slots?.Bytes.CopyTo(m[BusLayout.MySlotsOffset..]);
        h.ReplicaOf.CopyTo(m[BusLayout.SlaveOfOffset..]);
        WriteAscii(m.Slice(BusLayout.MyIpOffset, BusLayout.IpLength), h.MyIp, BusLayout.IpLength - 1);
        BinaryPrimitives.WriteUInt16BigEndian(m[BusLayout.PportOffset..], h.Pport);
        BinaryPrimitives.WriteUInt16BigEndian(m[BusLayout.CportOffset..], h.Cport);
        BinaryPrimitives.WriteUInt16BigEndian(m[BusLayout.FlagsOffset..], (ushort)h.Flags);
        m[BusLayout.StateOffset] = h.State;
        m[BusLayout.MFlagsOffset] = (byte)(h.MessageFlags & ~BusMessageFlags.ExtensionData);
    }

    private void AddText(PingExtensionType type, ReadOnlySpan<byte> text)
    {
        // The text and its terminating zero, padded (getHostnamePingExtSize).
        var data = AddExtension(type, text.Length + 1);
        text.CopyTo(data);
    }

    /// <summary>Appends an extension whose content is <paramref name="dataLength"/> bytes (zeroed, padded to 8); returns the content.</summary>
    private Span<byte> AddExtension(PingExtensionType type, int dataLength)
    {
        if (!_building) throw new InvalidOperationException("extensions go between StartPing and Finish");
        if (_extensionCount == ushort.MaxValue) throw new InvalidOperationException("too many extensions");
        int length = BusLayout.ExtensionHeaderLength + BusLayout.AlignToEight(dataLength);
        var e = Grow(length);
        BinaryPrimitives.WriteUInt32BigEndian(e, (uint)length);
        BinaryPrimitives.WriteUInt16BigEndian(e[4..], (ushort)type);
        _extensionCount++;
        return e.Slice(BusLayout.ExtensionHeaderLength, dataLength);
    }

    /// <summary>Appends <paramref name="n"/> zero bytes; returns them.</summary>
    private Span<byte> Grow(int n)
    {
        EnsureCapacity(_length + n);
        var s = _buffer.AsSpan(_length, n);
        s.Clear();
        _length += n;
        return s;
    }

    private void EnsureCapacity(int length)
    {
        if (length <= _buffer.Length) return;
        var bigger = new byte[Math.Max(length, Math.Min(int.MaxValue - 64, (long)_buffer.Length * 2))];
        _buffer.AsSpan(0, _length).CopyTo(bigger);
        _buffer = bigger;
    }

    /// <summary>Gives back a buffer a big PUBLISH grew, keeping the usual size.</summary>
    public void Trim()
    {
        if (_buffer.Length > 64 * 1024 && !_building) _buffer = new byte[BusLayout.FullMessageLength + 16 * BusLayout.GossipLength];
    }

    /// <summary>ASCII text into a zeroed field, at most <paramref name="max"/> bytes (non-ASCII characters become '?').</summary>
    private static void WriteAscii(Span<byte> field, string? text, int max)
    {
        if (string.IsNullOrEmpty(text)) return;
        int n = Math.Min(text.Length, max);
        Encoding.ASCII.GetBytes(text.AsSpan(0, n), field);
    }
}
