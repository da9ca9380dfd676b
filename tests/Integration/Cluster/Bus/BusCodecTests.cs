using System.Buffers.Binary;
using System.Text;
using RedisClone.Cluster.Bus;

namespace RedisClone.Tests.Cluster.Bus;

/// <summary>
/// The cluster bus codec against Redis's wire format: golden encodings built here field by field
/// from the offsets cluster.h asserts (not from the codec's constants), round trips of every message
/// type, and the checks clusterProcessPacket makes, with hostile input that must be dropped without
/// an exception.
/// </summary>
public sealed class BusCodecTests
{
    private static readonly NodeName Me = NodeName.Parse("0123456789abcdef0123456789abcdef01234567");
    private static readonly NodeName Other = NodeName.Parse("fedcba9876543210fedcba9876543210fedcba98");
    private static readonly NodeName Shard = NodeName.Parse("aaaaaaaaaabbbbbbbbbbccccccccccdddddddddd");

    private static BusHeader Header()
    {
        var slots = new SlotBitmap();
        slots.SetRange(0, 99);
        slots.Set(16383);
        return new BusHeader
        {
            Port = 7000, Pport = 0, Cport = 17000, CurrentEpoch = 5, ConfigEpoch = 3, Offset = 0x0102030405060708,
            Sender = Me, Slots = slots, MyIp = "127.0.0.1", Flags = NodeFlags.Master | NodeFlags.Myself, State = 1,
        };
    }

    private static void Put16(byte[] b, int at, int v) => BinaryPrimitives.WriteUInt16BigEndian(b.AsSpan(at), (ushort)v);
    private static void Put32(byte[] b, int at, uint v) => BinaryPrimitives.WriteUInt32BigEndian(b.AsSpan(at), v);
    private static void Put64(byte[] b, int at, ulong v) => BinaryPrimitives.WriteUInt64BigEndian(b.AsSpan(at), v);
    private static void PutText(byte[] b, int at, string s) => Encoding.ASCII.GetBytes(s).CopyTo(b, at);

    /// <summary>The header Redis's clusterBuildMessageHdr writes for <see cref="Header"/>, by cluster.h's offsets.</summary>
    private static byte[] GoldenHeader(int totlen, int type, int count = 0, int extensions = 0, byte mflags0 = 0)
    {
        var b = new byte[totlen];
        PutText(b, 0, "RCmb");
        Put32(b, 4, (uint)totlen);
        Put16(b, 8, 1);
        Put16(b, 10, 7000);
        Put16(b, 12, type);
        Put16(b, 14, count);
        Put64(b, 16, 5);
        Put64(b, 24, 3);
        Put64(b, 32, 0x0102030405060708);
        PutText(b, 40, Me.ToString());
        for (int slot = 0; slot <= 99; slot++) b[80 + slot / 8] |= (byte)(1 << (slot % 8));
        b[80 + 2047] |= 0x80; // slot 16383
        PutText(b, 2168, "127.0.0.1");
        Put16(b, 2214, extensions);
        Put16(b, 2246, 0);
        Put16(b, 2248, 17000);
        Put16(b, 2250, 1 | 16);
        b[2252] = 1;
        b[2253] = mflags0;
        return b;
    }

    [Fact]
    public void Ping_GossipAndExtensions_MatchRedisBytes()
    {
        var w = new BusMessageWriter();
        var h = Header();
        w.StartPing(BusMessageType.Ping, h);
        w.AddGossip(new GossipEntry
        {
            Name = Other, PingSentSeconds = 0x11223344, PongReceivedSeconds = 0x55667788, Ip = "10.0.0.2",
            Port = 7001, Cport = 17001, Flags = NodeFlags.Slave | NodeFlags.PFail, Pport = 6380,
        });
        w.AddHostname("host-a"u8);            // 6 + 1 → 8 bytes of content
        w.AddHumanNodename("eight-ch"u8);     // 8 + 1 → 16
        w.AddForgottenNode(Other, 57);
        w.AddShardId(Shard);
        var bytes = w.Finish().ToArray();

        int total = 2256 + 104 + (8 + 8) + (8 + 16) + (8 + 48) + (8 + 40);
        var g = GoldenHeader(total, 0, count: 1, extensions: 4, mflags0: 4);
        int at = 2256;
        PutText(g, at, Other.ToString());
        Put32(g, at + 40, 0x11223344);
        Put32(g, at + 44, 0x55667788);
        PutText(g, at + 48, "10.0.0.2");
        Put16(g, at + 94, 7001);
        Put16(g, at + 96, 17001);
        Put16(g, at + 98, 2 | 4);
        Put16(g, at + 100, 6380);
        at += 104;
        Put32(g, at, 16); Put16(g, at + 4, 0); PutText(g, at + 8, "host-a"); at += 16;
        Put32(g, at, 24); Put16(g, at + 4, 1); PutText(g, at + 8, "eight-ch"); at += 24;
        Put32(g, at, 56); Put16(g, at + 4, 2); PutText(g, at + 8, Other.ToString()); Put64(g, at + 48, 57); at += 56;
        Put32(g, at, 48); Put16(g, at + 4, 3); PutText(g, at + 8, Shard.ToString()); at += 48;
        Assert.Equal(total, at);
        Assert.Equal(Convert.ToHexString(g), Convert.ToHexString(bytes));
        Assert.Equal("52436D62000009C800011B58", Convert.ToHexString(bytes, 0, 12)); // "RCmb", totlen 2504, ver 1, port 7000
    }

    [Fact]
    public void Pong_NoGossipNoExtensions_IsTheHeaderAlone()
    {
        var w = new BusMessageWriter();
        w.StartPing(BusMessageType.Pong, Header());
        var bytes = w.Finish().ToArray();
        Assert.Equal(Convert.ToHexString(GoldenHeader(2256, 1)), Convert.ToHexString(bytes));
    }

    [Fact]
    public void FixedTypes_MatchRedisBytes()
    {
        var w = new BusMessageWriter();
        var h = Header();

        var fail = GoldenHeader(2296, 3);
        PutText(fail, 2256, Other.ToString());
        Assert.Equal(Convert.ToHexString(fail), Convert.ToHexString(w.Fail(h, Other)));

        var publish = GoldenHeader(2256 + 8 + 2 + 5, 4);
        Put32(publish, 2256, 2); Put32(publish, 2260, 5); PutText(publish, 2264, "chhello");
        Assert.Equal(Convert.ToHexString(publish), Convert.ToHexString(w.Publish(h, false, "ch"u8, "hello"u8)));
        Put16(publish, 12, 10);
        Assert.Equal(Convert.ToHexString(publish), Convert.ToHexString(w.Publish(h, true, "ch"u8, "hello"u8)));

        var slots = new SlotBitmap();
        slots.Set(8);
        var update = GoldenHeader(4352, 7);
        Put64(update, 2256, 42); PutText(update, 2264, Other.ToString()); update[2304 + 1] = 1;
        Assert.Equal(Convert.ToHexString(update), Convert.ToHexString(w.Update(h, 42, Other, slots.Bytes)));

        var authReq = GoldenHeader(2256, 5, mflags0: 2);
        h.MessageFlags = BusMessageFlags.ForceAck;
        Assert.Equal(Convert.ToHexString(authReq), Convert.ToHexString(w.HeaderOnly(BusMessageType.FailoverAuthRequest, h)));
        h.MessageFlags = BusMessageFlags.None;
        Assert.Equal(Convert.ToHexString(GoldenHeader(2256, 6)), Convert.ToHexString(w.HeaderOnly(BusMessageType.FailoverAuthAck, h)));
        Assert.Equal(Convert.ToHexString(GoldenHeader(2256, 8)), Convert.ToHexString(w.HeaderOnly(BusMessageType.MfStart, h)));

        var module = GoldenHeader(2256 + 13 + 3, 9);
        BitConverter.TryWriteBytes(module.AsSpan(2256), 0xAABBCCDDEEFF0011UL); Put32(module, 2264, 3); module[2268] = 7; PutText(module, 2269, "abc");
        Assert.Equal(Convert.ToHexString(module), Convert.ToHexString(w.Module(h, 0xAABBCCDDEEFF0011UL, 7, "abc"u8)));
    }

    [Theory]
    [InlineData("", 0)]
    [InlineData("a", 16)]
    [InlineData("seven77", 16)]
    [InlineData("eight888", 24)]
    [InlineData("a-name-of-23-characters", 32)]
    public void Hostname_PaddedToEightWithTerminator(string hostname, int extensionLength)
    {
        var w = new BusMessageWriter();
        w.StartPing(BusMessageType.Meet, Header());
        if (hostname.Length > 0) w.AddHostname(Encoding.ASCII.GetBytes(hostname));
        var bytes = w.Finish();
        Assert.Equal(2256 + extensionLength, bytes.Length);
        Assert.True(BusMessage.TryParse(bytes, out var m, out var error), error.ToString());
        Assert.Equal(hostname.Length > 0 ? 1 : 0, m.ExtensionCount);
        Assert.Equal(hostname.Length > 0, (m.MessageFlags & BusMessageFlags.ExtensionData) != 0);
        foreach (var ext in m.Extensions)
        {
            Assert.Equal(PingExtensionType.Hostname, ext.Type);
            Assert.Equal(hostname, Encoding.ASCII.GetString(ext.Text));
            Assert.Equal(extensionLength, ext.Length);
        }
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(2)]
    public void PingLike_RoundTrip(int typeValue)
    {
        var type = (BusMessageType)typeValue;
        var w = new BusMessageWriter();
        var h = Header();
        h.ReplicaOf = Other;
        h.Flags = NodeFlags.Slave | NodeFlags.Myself | NodeFlags.NoFailover;
        h.MessageFlags = BusMessageFlags.Paused;
        w.StartPing(type, h);
        for (int i = 0; i < 3; i++)
        {
            w.AddGossip(new GossipEntry
            {
                Name = NodeName.Parse($"{i}".PadLeft(40, 'e')), PingSentSeconds = (uint)i, PongReceivedSeconds = 1000 + (uint)i,
                Ip = "2001:db8::" + i, Port = (ushort)(7000 + i), Cport = (ushort)(17000 + i), Flags = NodeFlags.Master, Pport = (ushort)i,
            });
        }
        w.AddHostname("h"u8);
        w.AddForgottenNode(Other, 60);
        w.AddForgottenNode(Me, 0);
        w.AddShardId(Shard);
        w.AddRawExtension(99, "opaque!"u8);
        var bytes = w.Finish();

        Assert.True(BusMessage.TryParse(bytes, out var m, out var error), error.ToString());
        Assert.Equal(type, m.Type);
        Assert.Equal(1, m.Version);
        Assert.Equal((uint)bytes.Length, m.TotalLength);
        Assert.Equal(7000, m.Port);
        Assert.Equal(17000, m.Cport);
        Assert.Equal(0, m.Pport);
        Assert.Equal(5UL, m.CurrentEpoch);
        Assert.Equal(3UL, m.ConfigEpoch);
        Assert.Equal(0x0102030405060708UL, m.Offset);
        Assert.True(Me == m.SenderName);
        Assert.True(m.IsReplica);
        Assert.True(Other.Equals(m.ReplicaOf));
        Assert.Equal("127.0.0.1", BusMessage.Text(m.MyIp));
        Assert.Equal(NodeFlags.Slave | NodeFlags.Myself | NodeFlags.NoFailover, m.Flags);
        Assert.Equal(1, m.State);
        Assert.Equal(BusMessageFlags.Paused | BusMessageFlags.ExtensionData, m.MessageFlags);
        Assert.True(h.Slots!.SameAs(m.MySlots));
        Assert.Equal(101, new SlotBitmap(m.MySlots).Count());
        Assert.Equal(3, m.Count);
        for (int i = 0; i < 3; i++)
        {
            var g = m.Gossip(i);
            Assert.Equal($"{i}".PadLeft(40, 'e'), g.NodeName.ToString());
            Assert.Equal((uint)i, g.PingSentSeconds);
            Assert.Equal(1000 + (uint)i, g.PongReceivedSeconds);
            Assert.Equal("2001:db8::" + i, BusMessage.Text(g.Ip));
            Assert.Equal(7000 + i, g.Port);
            Assert.Equal(17000 + i, g.Cport);
            Assert.Equal(NodeFlags.Master, g.Flags);
            Assert.Equal(i, g.Pport);
        }
        var seen = new List<string>();
        foreach (var ext in m.Extensions)
        {
            seen.Add(ext.Type switch
            {
                PingExtensionType.Hostname => "hostname " + Encoding.ASCII.GetString(ext.Text),
                PingExtensionType.ForgottenNode => $"forgotten {Encoding.ASCII.GetString(ext.Name)} {ext.TtlSeconds}",
                PingExtensionType.ShardId => "shard " + Encoding.ASCII.GetString(ext.Name),
                _ => $"type {ext.RawType} {Encoding.ASCII.GetString(ext.Data)}",
            });
        }
        Assert.Equal(new[]
        {
            "hostname h", $"forgotten {Other} 60", $"forgotten {Me} 0", $"shard {Shard}", "type 99 opaque!\0",
        }, seen);
    }

    [Fact]
    public void OtherTypes_RoundTrip()
    {
        var w = new BusMessageWriter();
        var h = Header();

        Assert.True(BusMessage.TryParse(w.Fail(h, Other), out var fail, out _));
        Assert.Equal(BusMessageType.Fail, fail.Type);
        Assert.True(Other.Equals(fail.FailingNode));

        var big = new byte[100_000];
        new Random(5).NextBytes(big);
        Assert.True(BusMessage.TryParse(w.Publish(h, true, "news"u8, big), out var pub, out _));
        Assert.Equal(BusMessageType.PublishShard, pub.Type);
        Assert.Equal("news", Encoding.ASCII.GetString(pub.PublishChannel));
        Assert.True(pub.PublishMessage.SequenceEqual(big));
        Assert.True(BusMessage.TryParse(w.Publish(h, false, default, default), out var empty, out _));
        Assert.Equal(BusMessageType.Publish, empty.Type);
        Assert.Equal(0, empty.PublishChannel.Length + empty.PublishMessage.Length);

        var slots = new SlotBitmap();
        slots.SetRange(5000, 5999);
        Assert.True(BusMessage.TryParse(w.Update(h, 77, Other, slots.Bytes), out var update, out _));
        Assert.Equal(BusMessageType.Update, update.Type);
        Assert.Equal(77UL, update.UpdateConfigEpoch);
        Assert.True(Other.Equals(update.UpdateNode));
        Assert.True(slots.SameAs(update.UpdateSlots));
        Assert.True(SlotBitmap.Get(update.UpdateSlots, 5999) && !SlotBitmap.Get(update.UpdateSlots, 6000));

        foreach (var type in new[] { BusMessageType.FailoverAuthRequest, BusMessageType.FailoverAuthAck, BusMessageType.MfStart })
        {
            Assert.True(BusMessage.TryParse(w.HeaderOnly(type, h), out var m, out _));
            Assert.Equal(type, m.Type);
            Assert.Equal(2256u, m.TotalLength);
        }

        Assert.True(BusMessage.TryParse(w.Module(h, 12345, 200, "payload"u8), out var module, out _));
        Assert.Equal(BusMessageType.Module, module.Type);
        Assert.Equal(12345UL, module.ModuleId);
        Assert.Equal(200, module.ModuleType);
        Assert.Equal("payload", Encoding.ASCII.GetString(module.ModulePayload));
    }

    [Fact]
    public void UnknownType_AnyLength_IsWellFormed()
    {
        var bytes = GoldenHeader(2256 + 13, 42);
        Assert.True(BusMessage.TryParse(bytes, out var m, out _));
        Assert.Equal(42, m.RawType);
        Assert.Equal("unknown", BusMessage.TypeName(m.RawType));
    }

    private static byte[] Ping(Action<BusMessageWriter>? extensions = null, int gossip = 0)
    {
        var w = new BusMessageWriter();
        w.StartPing(BusMessageType.Ping, Header());
        for (int i = 0; i < gossip; i++) w.AddGossip(new GossipEntry { Name = Other });
        extensions?.Invoke(w);
        return w.Finish().ToArray();
    }

    private static BusMessageError Error(byte[] bytes)
    {
        Assert.False(BusMessage.TryParse(bytes, out _, out var error));
        return error;
    }

    [Fact]
    public void Parse_WrongVersion_Dropped()
    {
        var bytes = Ping();
        Put16(bytes, 8, 2);
        Assert.Equal(BusMessageError.BadVersion, Error(bytes));
    }

    [Fact]
    public void Parse_ShortOrBadSignatureOrTotlenNotLength_Truncated()
    {
        var bytes = Ping();
        Assert.Equal(BusMessageError.Truncated, Error(bytes[..2255]));
        var bad = (byte[])bytes.Clone();
        bad[0] = (byte)'X';
        Assert.Equal(BusMessageError.Truncated, Error(bad));
        var longer = new byte[bytes.Length + 8];
        bytes.CopyTo(longer, 0);
        Assert.Equal(BusMessageError.Truncated, Error(longer)); // totlen says less than given
    }

    [Theory]
    [InlineData(3, 2256 + 40 + 1)]   // FAIL one byte long
    [InlineData(7, 4351)]            // UPDATE one byte short
    [InlineData(5, 2257)]            // AUTH_REQUEST with data
    [InlineData(6, 2260)]            // AUTH_ACK with data
    [InlineData(8, 2264)]            // MFSTART with data
    public void Parse_FixedTypeWrongLength_LengthMismatch(int type, int length)
    {
        Assert.Equal(BusMessageError.LengthMismatch, Error(GoldenHeader(length, type)));
    }

    [Fact]
    public void Parse_HugeGossipCount_LengthMismatchWithoutReadingPastTheEnd()
    {
        var bytes = Ping(gossip: 1);
        Put16(bytes, 14, 65535);
        Assert.Equal(BusMessageError.LengthMismatch, Error(bytes));
        Put16(bytes, 14, 0);
        Assert.Equal(BusMessageError.LengthMismatch, Error(bytes));
    }

    [Fact]
    public void Parse_ExtensionsClaimedButMissing_Overflow()
    {
        var bytes = Ping(w => w.AddShardId(Shard));
        Put16(bytes, 2214, 2); // two claimed, one present
        Assert.Equal(BusMessageError.ExtensionOverflow, Error(bytes));
        Put16(bytes, 2214, 65535);
        Assert.Equal(BusMessageError.ExtensionOverflow, Error(bytes));
    }

    [Fact]
    public void Parse_ExtensionLengths_CheckedAsRedisAndStricter()
    {
        var bytes = Ping(w => w.AddHostname("abc"u8));
        int ext = 2256;
        Put32(bytes, ext, 12);
        Assert.Equal(BusMessageError.ExtensionPadding, Error(bytes));
        Put32(bytes, ext, 24); // past the end
        Assert.Equal(BusMessageError.ExtensionOverflow, Error(bytes));
        Put32(bytes, ext, 0x10010); // Redis checks only the low 16 bits (16): here the whole length counts
        Assert.Equal(BusMessageError.ExtensionOverflow, Error(bytes));
        Put32(bytes, ext, 0); // Redis takes a zero length and walks the same extension again
        Assert.Equal(BusMessageError.ExtensionTooShort, Error(bytes));
        Put32(bytes, ext, 8); // 8 bytes short of the message end
        Assert.Equal(BusMessageError.LengthMismatch, Error(bytes));

        var forgotten = Ping(w => w.AddRawExtension((ushort)PingExtensionType.ForgottenNode, new byte[40]));
        Assert.Equal(BusMessageError.ExtensionTooShort, Error(forgotten));
        var shard = Ping(w => w.AddRawExtension((ushort)PingExtensionType.ShardId, new byte[32]));
        Assert.Equal(BusMessageError.ExtensionTooShort, Error(shard));
    }

    [Fact]
    public void Parse_ExtensionsWithoutFlag_NotWalked()
    {
        var bytes = Ping();
        Put16(bytes, 2214, 3); // extensions claimed, EXT_DATA clear: Redis checks nothing and walks garbage
        Assert.True(BusMessage.TryParse(bytes, out var m, out _));
        Assert.Equal(0, m.ExtensionCount);
        foreach (var _ in m.Extensions) Assert.Fail("no extension expected");
    }

    [Fact]
    public void Parse_PublishLengthsWrapping_LengthMismatch()
    {
        var bytes = GoldenHeader(2256 + 8 + 16, 4);
        // 0xFFFFFFF8 + 0x18 wraps to 16 in Redis's 32-bit sum, matching totlen there.
        Put32(bytes, 2256, 0xFFFFFFF8);
        Put32(bytes, 2260, 0x18);
        Assert.Equal(BusMessageError.LengthMismatch, Error(bytes));
        Assert.Equal(BusMessageError.LengthMismatch, Error(GoldenHeader(2260, 4))); // too short for the two lengths
        var module = GoldenHeader(2256 + 13 + 4, 9);
        Put32(module, 2264, 0xFFFFFFFF);
        Assert.Equal(BusMessageError.LengthMismatch, Error(module));
        Assert.Equal(BusMessageError.LengthMismatch, Error(GoldenHeader(2260, 9)));
    }

    [Fact]
    public void Frame_Prefix_AsRedisReadHandler()
    {
        var bytes = Ping();
        Assert.Equal(BusFrameStatus.NeedMore, BusFrame.ReadPrefix(bytes.AsSpan(0, 7), 1 << 20, out _));
        Assert.Equal(BusFrameStatus.Ok, BusFrame.ReadPrefix(bytes, 1 << 20, out uint totlen));
        Assert.Equal((uint)bytes.Length, totlen);
        Assert.Equal(BusFrameStatus.TooLong, BusFrame.ReadPrefix(bytes, 2000, out _));
        var bad = (byte[])bytes.Clone();
        bad[3] = (byte)'B';
        Assert.Equal(BusFrameStatus.BadSignatureOrLength, BusFrame.ReadPrefix(bad, 1 << 20, out _));
        Put32(bytes, 4, 2255);
        Assert.Equal(BusFrameStatus.BadSignatureOrLength, BusFrame.ReadPrefix(bytes, 1 << 20, out _));
    }

    [Fact]
    public void Parse_RandomCorruption_NeverThrows()
    {
        var valid = new List<byte[]>
        {
            Ping(w => { w.AddHostname("x"u8); w.AddForgottenNode(Other, 1); w.AddShardId(Shard); }, gossip: 2),
        };
        var w = new BusMessageWriter();
        var h = Header();
        valid.Add(w.Publish(h, false, "c"u8, "m"u8).ToArray());
        valid.Add(w.Update(h, 1, Other, new SlotBitmap().Bytes).ToArray());
        valid.Add(w.Module(h, 1, 1, "p"u8).ToArray());
        valid.Add(w.Fail(h, Other).ToArray());
        var random = new Random(1234);
        int accepted = 0;
        for (int i = 0; i < 4000; i++)
        {
            var bytes = (byte[])valid[i % valid.Count].Clone();
            // Corrupt a few bytes in the fields that steer parsing, and anywhere.
            int[] hot = [12, 13, 14, 15, 2214, 2215, 2253, 2256, 2257, 2258, 2259, 2260, 2261, 2262, 2263, 2264, 2265, 2266, 2267];
            for (int k = 0; k < 3; k++)
            {
                int at = random.Next(2) == 0 ? hot[random.Next(hot.Length)] : random.Next(bytes.Length);
                if (at < bytes.Length) bytes[at] = (byte)random.Next(256);
            }
            if (BusMessage.TryParse(bytes, out var m, out _))
            {
                accepted++;
                Touch(m);
            }
        }
        Assert.True(accepted > 0);
    }

    /// <summary>Reads everything a handler could read of an accepted message.</summary>
    private static int Touch(BusMessage m)
    {
        int sum = m.Sender.Length + m.MySlots.Length + m.ReplicaOf.Length + m.MyIp.Length + (int)m.Flags;
        switch (m.Type)
        {
            case BusMessageType.Ping or BusMessageType.Pong or BusMessageType.Meet:
                for (int i = 0; i < m.Count; i++) sum += m.Gossip(i).Ip.Length + m.Gossip(i).Port;
                foreach (var ext in m.Extensions)
                {
                    sum += ext.Text.Length;
                    if (ext.Type is PingExtensionType.ForgottenNode) sum += (int)ext.TtlSeconds + ext.Name.Length;
                    if (ext.Type is PingExtensionType.ShardId) sum += ext.Name.Length;
                }
                break;
            case BusMessageType.Fail: sum += m.FailingNode.Length; break;
            case BusMessageType.Publish or BusMessageType.PublishShard: sum += m.PublishChannel.Length + m.PublishMessage.Length; break;
            case BusMessageType.Update: sum += m.UpdateNode.Length + m.UpdateSlots.Length; break;
            case BusMessageType.Module: sum += m.ModulePayload.Length + m.ModuleType; break;
        }
        return sum;
    }
}
