using System.Net;
using System.Text;
using System.Text.RegularExpressions;
using RedisClone.Cluster.Bus;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster.Bus;

/// <summary>
/// The codec and links against a real redis-server 7.0.15 in cluster mode, as a fake node would
/// meet it: its PONG decodes to what CLUSTER MYID/INFO say; it connects back to the port the MEET
/// announced and PINGs; and once the fake node answered with PONGs, CLUSTER NODES lists it as a
/// master with the id, address, hostname and slots it sent, which shows redis-server accepted every
/// byte. 7.2-only extensions (shard id, human nodename) and an unknown one are sent too: 7.0.15
/// logs "Received unknown extension type N" for each and processes the rest of the message.
/// </summary>
public sealed class RedisBusInteropTests
{
    /// <summary>A node that only speaks the bus: answers every PING and MEET with a PONG, as clusterProcessPacket does.</summary>
    private sealed class FakeNode : IBusHandler
    {
        private readonly BusMessageWriter _writer = new();
        private readonly Lock _lock = new();
        public readonly RecordingHandler Record = new();
        public BusHeader Header;
        public bool SendExtensions = true;

        public bool OnInboundLink(BusLink link) => Record.OnInboundLink(link);

        public void OnMessage(BusLink link, in BusMessage message)
        {
            Record.OnMessage(link, message);
            if (message.Type is BusMessageType.Ping or BusMessageType.Meet)
            {
                lock (_lock) link.Send(Build(BusMessageType.Pong));
            }
        }

        public void OnInvalidMessage(BusLink link, ushort type, BusMessageError error) => Record.OnInvalidMessage(link, type, error);

        public void OnLinkClosed(BusLink link, BusLinkCloseReason reason) => Record.OnLinkClosed(link, reason);

        /// <summary>A PING-like message from this node (call under the lock, or before links exist).</summary>
        public ReadOnlySpan<byte> Build(BusMessageType type)
        {
            _writer.StartPing(type, Header);
            if (SendExtensions)
            {
                _writer.AddHostname("fake-host"u8);
                _writer.AddHumanNodename("fake-human"u8);   // 7.2 only
                _writer.AddShardId(NodeName.Parse("5".PadLeft(40, 'a'))); // 7.2 only
                _writer.AddRawExtension(77, "future"u8);     // no version knows it
            }
            return _writer.Finish();
        }

        public byte[] BuildCopy(BusMessageType type)
        {
            lock (_lock) return Build(type).ToArray();
        }

        /// <summary>Changes the header while links may be answering with it.</summary>
        public void Change(Action<FakeNode> change)
        {
            lock (_lock) change(this);
        }

        /// <summary>Another message from this node, built under the lock.</summary>
        public byte[] Message(Func<BusMessageWriter, BusHeader, byte[]> build)
        {
            lock (_lock) return build(new BusMessageWriter(), Header);
        }
    }

    /// <summary>
    /// Writes again, with <see cref="BusMessageWriter"/>, what a PING/PONG/MEET from redis-server says:
    /// the same bytes come out when the writer builds messages exactly as Redis does.
    /// </summary>
    private static byte[] Reencode(byte[] bytes)
    {
        Assert.True(BusMessage.TryParse(bytes, out var m, out var error), error.ToString());
        var header = new BusHeader
        {
            Port = m.Port, Pport = m.Pport, Cport = m.Cport, CurrentEpoch = m.CurrentEpoch, ConfigEpoch = m.ConfigEpoch,
            Offset = m.Offset, Sender = m.SenderName, ReplicaOf = NodeName.From(m.ReplicaOf), Slots = new SlotBitmap(m.MySlots),
            MyIp = BusMessage.Text(m.MyIp), Flags = m.Flags, State = m.State, MessageFlags = m.MessageFlags,
        };
        var w = new BusMessageWriter();
        w.StartPing(m.Type, header);
        for (int i = 0; i < m.Count; i++)
        {
            var g = m.Gossip(i);
            w.AddGossip(new GossipEntry
            {
                Name = g.NodeName, PingSentSeconds = g.PingSentSeconds, PongReceivedSeconds = g.PongReceivedSeconds,
                Ip = BusMessage.Text(g.Ip), Port = g.Port, Cport = g.Cport, Flags = g.Flags, Pport = g.Pport,
            });
        }
        foreach (var ext in m.Extensions)
        {
            switch (ext.Type)
            {
                case PingExtensionType.Hostname: w.AddHostname(ext.Text); break;
                case PingExtensionType.HumanNodename: w.AddHumanNodename(ext.Text); break;
                case PingExtensionType.ForgottenNode: w.AddForgottenNode(NodeName.From(ext.Name), ext.TtlSeconds); break;
                case PingExtensionType.ShardId: w.AddShardId(NodeName.From(ext.Name)); break;
                default: w.AddRawExtension(ext.RawType, ext.Data); break;
            }
        }
        return w.Finish().ToArray();
    }

    private static Dictionary<string, string> Info(ClusterRedis redis)
    {
        var info = new Dictionary<string, string>();
        foreach (var line in redis.Call("CLUSTER", "INFO").Split("\r\n"))
        {
            int colon = line.IndexOf(':');
            if (colon > 0) info[line[..colon]] = line[(colon + 1)..];
        }
        return info;
    }

    private static async Task<byte[]> FirstAsync(RecordingHandler record, BusMessageType type, Func<BusLink, bool> onLink, string what, int seconds = 30)
    {
        byte[]? found = null;
        await Eventually.WaitFor(() =>
        {
            foreach (var (link, bytes) in record.Messages)
            {
                if (onLink(link) && BusMessage.TryParse(bytes, out var m, out _) && m.Type == type)
                {
                    found = bytes;
                    return true;
                }
            }
            return false;
        }, () => what, seconds);
        return found!;
    }

    [RedisFact]
    public async Task Meet_RedisAnswersPong_AsClusterInfoSays()
    {
        using var redis = ClusterRedis.Start("--cluster-announce-hostname redis-a");
        Assert.NotNull(redis);
        Assert.Equal("OK", redis.Call("CLUSTER", "ADDSLOTSRANGE", "0", "99").TrimStart('+'));
        string myId = redis.Call("CLUSTER", "MYID");

        var fake = new FakeNode { SendExtensions = false };
        int fakePort = ClusterRedis.PickPortPair();
        fake.Header = new BusHeader
        {
            Port = (ushort)fakePort, Cport = (ushort)(fakePort + 10000), Sender = NodeName.Random(),
            Flags = NodeFlags.Master | NodeFlags.Myself,
        };
        var options = new BusOptions();
        var connect = await BusLink.ConnectAsync("127.0.0.1", redis.BusPort, fake, options);
        Assert.True(connect.Link != null, connect.Error);
        var link = connect.Link!;
        try
        {
            Assert.True(link.Send(fake.BuildCopy(BusMessageType.Meet)));
            var pong = await FirstAsync(fake.Record, BusMessageType.Pong, l => l == link, "no PONG to the MEET");
            var info = Info(redis);

            Assert.True(BusMessage.TryParse(pong, out var m, out var error), error.ToString());
            Assert.Equal(BusMessageType.Pong, m.Type);
            Assert.Equal(1, m.Version);
            Assert.Equal(myId, Encoding.ASCII.GetString(m.Sender));
            var slots = new SlotBitmap(m.MySlots);
            Assert.Equal(100, slots.Count());
            for (int slot = 0; slot <= 99; slot++) Assert.True(slots.Get(slot), $"slot {slot}");
            Assert.Equal(redis.Port, m.Port);
            Assert.Equal(redis.BusPort, m.Cport);
            Assert.Equal(0, m.Pport); // no TLS port
            Assert.Equal(NodeFlags.Master | NodeFlags.Myself, m.Flags);
            Assert.Equal(ulong.Parse(info["cluster_current_epoch"]), m.CurrentEpoch);
            Assert.Equal(ulong.Parse(info["cluster_my_epoch"]), m.ConfigEpoch);
            Assert.Equal(info["cluster_state"] == "ok" ? 0 : 1, m.State);
            Assert.False(m.IsReplica);
            Assert.Equal(0, m.MyIp.Length); // no cluster-announce-ip: the receiver uses the socket's address
            Assert.Equal(0, m.Count); // the only other node (us) is still in handshake: not gossiped
            // 7.0.15 sends the hostname extension, and only that, when one is announced.
            Assert.Equal(BusMessageFlags.ExtensionData, m.MessageFlags);
            Assert.Equal(1, m.ExtensionCount);
            foreach (var ext in m.Extensions)
            {
                Assert.Equal(PingExtensionType.Hostname, ext.Type);
                Assert.Equal("redis-a", Encoding.ASCII.GetString(ext.Text));
                Assert.Equal(16, ext.Length);
            }
            Assert.Equal(Convert.ToHexString(pong), Convert.ToHexString(Reencode(pong)));
            Assert.Empty(fake.Record.Invalid);
        }
        finally
        {
            link.Close();
        }
    }

    [RedisFact]
    public async Task Meet_FakeNodeAnswersPings_RedisListsItAsMaster()
    {
        using var redis = ClusterRedis.Start("--cluster-announce-hostname redis-a");
        Assert.NotNull(redis);
        Assert.Equal("OK", redis.Call("CLUSTER", "ADDSLOTSRANGE", "0", "99").TrimStart('+'));
        string myId = redis.Call("CLUSTER", "MYID");

        var fake = new FakeNode();
        var options = new BusOptions();
        int fakePort = ClusterRedis.PickPortPair();
        using var listener = new BusListener(new IPEndPoint(IPAddress.Loopback, fakePort + 10000), fake, options);
        listener.Start();
        var mySlots = new SlotBitmap();
        mySlots.SetRange(200, 299);
        var fakeName = NodeName.Random();
        fake.Header = new BusHeader
        {
            Port = (ushort)fakePort, Cport = (ushort)(fakePort + 10000), Sender = fakeName, MyIp = "127.0.0.1",
            Flags = NodeFlags.Master | NodeFlags.Myself, CurrentEpoch = 1, ConfigEpoch = 1, Slots = mySlots,
        };

        var connect = await BusLink.ConnectAsync("127.0.0.1", redis.BusPort, fake, options);
        Assert.True(connect.Link != null, connect.Error);
        var link = connect.Link!;
        try
        {
            Assert.True(link.Send(fake.BuildCopy(BusMessageType.Meet)));

            // Redis adds us in handshake, connects to the announced bus port and PINGs there.
            var ping = await FirstAsync(fake.Record, BusMessageType.Ping, l => l.Inbound, "redis-server never PINGed the announced bus port");
            Assert.True(BusMessage.TryParse(ping, out var m, out var error), error.ToString());
            Assert.Equal(myId, Encoding.ASCII.GetString(m.Sender));
            Assert.Equal(redis.Port, m.Port);
            Assert.Equal(redis.BusPort, m.Cport);
            Assert.Equal(1, m.ExtensionCount);
            foreach (var ext in m.Extensions) Assert.Equal("redis-a", Encoding.ASCII.GetString(ext.Text));
            Assert.Equal(Convert.ToHexString(ping), Convert.ToHexString(Reencode(ping)));

            // Our PONG to that PING ends the handshake: redis renames the node to the id we sent.
            string? line = null;
            await Eventually.WaitFor(() =>
            {
                line = redis.Call("CLUSTER", "NODES").Split('\n').FirstOrDefault(l => l.StartsWith(fakeName.ToString(), StringComparison.Ordinal));
                return line != null && Regex.IsMatch(line, @" master - \d+ \d+ 1 connected 200-299$");
            }, () => $"CLUSTER NODES: {redis.Call("CLUSTER", "NODES")}", seconds: 30);
            Assert.StartsWith($"{fakeName} 127.0.0.1:{fakePort}@{fakePort + 10000},fake-host master - ", line);
            Assert.DoesNotContain("handshake", line);
            Assert.Equal("2", Info(redis)["cluster_known_nodes"]);

            // Keep talking: our PINGs get PONGs, and the node stays known (not PFAIL) meanwhile.
            for (int i = 0; i < 3; i++) Assert.True(link.Send(fake.BuildCopy(BusMessageType.Ping)));
            await Eventually.WaitFor(() => fake.Record.OfType(BusMessageType.Pong).Count >= 4, () => "no PONGs to our PINGs");
            // Every message redis-server sent, the later ones knowing us, writes again byte for byte.
            foreach (var (_, bytes) in fake.Record.Messages) Assert.Equal(Convert.ToHexString(bytes), Convert.ToHexString(Reencode(bytes)));
            Assert.Empty(fake.Record.Invalid);

            // A second fake node meets it too: redis-server then gossips about each fake node to the other.
            var other = new FakeNode { SendExtensions = false };
            int otherPort = ClusterRedis.PickPortPair();
            using var otherListener = new BusListener(new IPEndPoint(IPAddress.Loopback, otherPort + 10000), other, options);
            otherListener.Start();
            var otherName = NodeName.Random();
            other.Header = new BusHeader
            {
                Port = (ushort)otherPort, Cport = (ushort)(otherPort + 10000), Pport = 1234, Sender = otherName,
                Flags = NodeFlags.Master | NodeFlags.Myself,
            };
            var otherConnect = await BusLink.ConnectAsync("127.0.0.1", redis.BusPort, other, options);
            Assert.True(otherConnect.Link != null, otherConnect.Error);
            try
            {
                Assert.True(otherConnect.Link!.Send(other.BuildCopy(BusMessageType.Meet)));
                await Eventually.WaitFor(() => redis.Call("CLUSTER", "NODES").Contains($"{otherName} 127.0.0.1:{otherPort}@{otherPort + 10000} master - "),
                    () => $"CLUSTER NODES: {redis.Call("CLUSTER", "NODES")}", seconds: 30);
                byte[]? gossiping = null;
                await Eventually.WaitFor(() =>
                {
                    foreach (var (_, bytes) in fake.Record.Messages)
                    {
                        if (BusMessage.TryParse(bytes, out var g, out _) && g.IsPingLike && g.Count == 1 && otherName.Equals(g.Gossip(0).Name))
                        {
                            gossiping = bytes;
                            return true;
                        }
                    }
                    return false;
                }, () => "redis-server never gossiped about the second node", seconds: 30);
                Assert.True(BusMessage.TryParse(gossiping, out var withGossip, out _));
                var section = withGossip.Gossip(0);
                Assert.Equal("127.0.0.1", BusMessage.Text(section.Ip));
                Assert.Equal(otherPort, section.Port);
                Assert.Equal(otherPort + 10000, section.Cport);
                Assert.Equal(1234, section.Pport); // the header's pport, kept as the node's TLS port
                Assert.Equal(NodeFlags.Master, section.Flags);
                Assert.Equal(Convert.ToHexString(gossiping!), Convert.ToHexString(Reencode(gossiping!)));
            }
            finally
            {
                otherConnect.Link!.Close();
                foreach (var inbound in other.Record.Inbound) inbound.Close();
            }

            // 7.0.15 and the extensions it does not know: logged at warning, skipped, the message processed.
            string log = redis.LogText;
            Assert.Contains("Received unknown extension type 1", log); // human nodename
            Assert.Contains("Received unknown extension type 3", log); // shard id
            Assert.Contains("Received unknown extension type 77", log);
            Assert.DoesNotContain("Received unknown extension type 0", log); // hostname: known
            Assert.DoesNotContain("without proper padding", log);
            Assert.DoesNotContain("invalid", log);
        }
        finally
        {
            link.Close();
            foreach (var inbound in fake.Record.Inbound) inbound.Close();
        }
    }

    /// <summary>A fake node listening on its bus port, met by redis-server and listed by it as a known node.</summary>
    private static async Task<(FakeNode Fake, BusListener Listener, BusLink Link, int Port)> JoinAsync(
        ClusterRedis redis, BusOptions options, NodeName name, Func<int, BusHeader> header, string expectedRole)
    {
        var fake = new FakeNode { SendExtensions = false };
        int port = ClusterRedis.PickPortPair();
        var listener = new BusListener(new IPEndPoint(IPAddress.Loopback, port + 10000), fake, options);
        listener.Start();
        fake.Header = header(port);
        var connect = await BusLink.ConnectAsync("127.0.0.1", redis.BusPort, fake, options);
        Assert.True(connect.Link != null, connect.Error);
        Assert.True(connect.Link!.Send(fake.BuildCopy(BusMessageType.Meet)));
        await Eventually.WaitFor(() => redis.Call("CLUSTER", "NODES").Contains($"{name} 127.0.0.1:{port}@{port + 10000} {expectedRole}"),
            () => $"CLUSTER NODES: {redis.Call("CLUSTER", "NODES")}", seconds: 30);
        return (fake, listener, connect.Link, port);
    }

    private static string? NodeLine(ClusterRedis redis, NodeName name)
        => redis.Call("CLUSTER", "NODES").Split('\n').FirstOrDefault(l => l.StartsWith(name.ToString(), StringComparison.Ordinal));

    /// <summary>
    /// The other message types both ways with redis-server 7.0.15: PUBLISH and PUBLISHSHARD reach its
    /// subscribers; its own PUBLISH reaches the fake nodes; MODULE is ignored; FAIL marks a node as
    /// failing; a replica's FAILOVER_AUTH_REQUEST gets its vote (FAILOVER_AUTH_ACK); UPDATE moves
    /// slots to the new master, and the old master, still claiming them, is sent an UPDATE.
    /// </summary>
    [RedisFact]
    public async Task KnownNodes_OtherMessageTypes_UnderstoodBothWays()
    {
        using var redis = ClusterRedis.Start();
        Assert.NotNull(redis);
        Assert.Equal("OK", redis.Call("CLUSTER", "ADDSLOTSRANGE", "0", "99").TrimStart('+'));
        string myId = redis.Call("CLUSTER", "MYID");
        var options = new BusOptions();
        var slotsA = new SlotBitmap();
        slotsA.SetRange(200, 299);
        var nameA = NodeName.Random();
        var nameB = NodeName.Random();
        var (a, listenerA, linkA, _) = await JoinAsync(redis, options, nameA, port => new BusHeader
        {
            Port = (ushort)port, Cport = (ushort)(port + 10000), Sender = nameA, Flags = NodeFlags.Master | NodeFlags.Myself,
            CurrentEpoch = 1, ConfigEpoch = 1, Slots = slotsA,
        }, "master");
        var (b, listenerB, linkB, _) = await JoinAsync(redis, options, nameB, port => new BusHeader
        {
            Port = (ushort)port, Cport = (ushort)(port + 10000), Sender = nameB, Flags = NodeFlags.Slave | NodeFlags.Myself,
            ReplicaOf = nameA, CurrentEpoch = 1, ConfigEpoch = 1, Slots = slotsA,
        }, "slave " + nameA);
        using (listenerA)
        using (listenerB)
        {
            try
            {
                // A's slots come with its first PONG after the handshake (the handshake's own does not
                // carry them to the renamed node): waited for, not assumed to be there already.
                await Eventually.WaitFor(() => Regex.IsMatch(NodeLine(redis, nameA) ?? "", " master - \\d+ \\d+ 1 connected 200-299$"),
                    () => $"A's line: {NodeLine(redis, nameA)}", seconds: 30);

                // PUBLISH and PUBLISHSHARD from a known node reach redis-server's subscribers.
                int n = 0;
                while (RedisClone.Common.Crc16.HashSlot(Encoding.ASCII.GetBytes("sch" + n)) > 99) n++;
                string shardChannel = "sch" + n;
                using var subscriber = redis.Connect();
                Assert.StartsWith("*3\r\n$9\r\nsubscribe", subscriber.Call("SUBSCRIBE", "news"));
                Assert.StartsWith("*3\r\n$10\r\nssubscribe", subscriber.Call("SSUBSCRIBE", shardChannel));
                Assert.True(linkA.Send(a.Message((w, h) => w.Publish(h, false, "news"u8, "from fake"u8).ToArray())));
                Assert.Equal("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$9\r\nfrom fake\r\n", subscriber.TryReadReply(30_000));
                Assert.True(linkA.Send(a.Message((w, h) => w.Publish(h, true, Encoding.ASCII.GetBytes(shardChannel), "sharded"u8).ToArray())));
                Assert.Equal($"*3\r\n$8\r\nsmessage\r\n${shardChannel.Length}\r\n{shardChannel}\r\n$7\r\nsharded\r\n", subscriber.TryReadReply(30_000));

                // redis-server's PUBLISH goes to every node it has a link to.
                Assert.Equal(":1", redis.Call("PUBLISH", "news", "from redis"));
                var published = await FirstAsync(a.Record, BusMessageType.Publish, l => l.Inbound, "no PUBLISH from redis-server");
                Assert.True(BusMessage.TryParse(published, out var pub, out _));
                Assert.Equal(myId, Encoding.ASCII.GetString(pub.Sender));
                Assert.Equal("news", Encoding.ASCII.GetString(pub.PublishChannel));
                Assert.Equal("from redis", Encoding.ASCII.GetString(pub.PublishMessage));

                // MODULE: no module listens; the message is ignored and the link lives on.
                Assert.True(linkA.Send(a.Message((w, h) => w.Module(h, 0x1234, 1, "to nobody"u8).ToArray())));

                // FAIL about A, from B: redis-server marks A as failing (a master with slots stays so for 2 node timeouts).
                Assert.True(linkB.Send(b.Message((w, h) => w.Fail(h, nameA).ToArray())));
                await Eventually.WaitFor(() => NodeLine(redis, nameA)?.Contains(" master,fail ") == true,
                    () => $"A not failing: {NodeLine(redis, nameA)}", seconds: 30);

                // B asks for a vote for epoch 2 and gets it.
                b.Change(f => f.Header.CurrentEpoch = 2);
                Assert.True(linkB.Send(b.Message((w, h) => w.HeaderOnly(BusMessageType.FailoverAuthRequest, h).ToArray())));
                var ack = await FirstAsync(b.Record, BusMessageType.FailoverAuthAck, _ => true, $"no vote; log: {redis.LogText}");
                Assert.True(BusMessage.TryParse(ack, out var vote, out _));
                Assert.Equal(myId, Encoding.ASCII.GetString(vote.Sender));
                Assert.Equal(2UL, vote.CurrentEpoch);
                Assert.Equal(2256u, vote.TotalLength);
                Assert.Contains($"Failover auth granted to {nameB} for epoch 2", redis.LogText);

                // B took over (as a winner would announce itself), and A tells redis-server so with an UPDATE.
                b.Change(f =>
                {
                    f.Header.Flags = NodeFlags.Master | NodeFlags.Myself;
                    f.Header.ReplicaOf = default;
                    f.Header.ConfigEpoch = 2;
                });
                Assert.True(linkA.Send(a.Message((w, h) => w.Update(h, 2, nameB, slotsA.Bytes).ToArray())));
                await Eventually.WaitFor(() => NodeLine(redis, nameB)?.EndsWith(" 2 connected 200-299", StringComparison.Ordinal) == true,
                    () => $"B did not get the slots: {NodeLine(redis, nameB)}", seconds: 30);
                Assert.Contains(" master - ", NodeLine(redis, nameB));

                // A still claims them at epoch 1: redis-server sends A an UPDATE about B.
                var update = await FirstAsync(a.Record, BusMessageType.Update, _ => true, "no UPDATE to the stale master");
                Assert.True(BusMessage.TryParse(update, out var upd, out _));
                Assert.True(nameB.Equals(upd.UpdateNode));
                Assert.Equal(2UL, upd.UpdateConfigEpoch);
                Assert.True(slotsA.SameAs(upd.UpdateSlots));

                Assert.Empty(a.Record.Invalid);
                Assert.Empty(b.Record.Invalid);
                string log = redis.LogText;
                Assert.DoesNotContain("Received invalid", log);
                Assert.DoesNotContain("Bad message", log);
            }
            finally
            {
                linkA.Close();
                linkB.Close();
                foreach (var inbound in a.Record.Inbound) inbound.Close();
                foreach (var inbound in b.Record.Inbound) inbound.Close();
            }
        }
    }

    /// <summary>
    /// MFSTART from a fake replica of redis-server: it starts a manual failover (pauses its writers,
    /// logs it) and at once PINGs the replica with the PAUSED flag and its frozen offset.
    /// </summary>
    [RedisFact]
    public async Task MfStart_FromFakeReplica_RedisPingsWithPausedFlag()
    {
        using var redis = ClusterRedis.Start();
        Assert.NotNull(redis);
        Assert.Equal("OK", redis.Call("CLUSTER", "ADDSLOTSRANGE", "0", "99").TrimStart('+'));
        var myId = NodeName.Parse(redis.Call("CLUSTER", "MYID"));
        var masterSlots = new SlotBitmap();
        masterSlots.SetRange(0, 99);
        var options = new BusOptions();
        var name = NodeName.Random();
        var (replica, listener, link, _) = await JoinAsync(redis, options, name, port => new BusHeader
        {
            Port = (ushort)port, Cport = (ushort)(port + 10000), Sender = name, Flags = NodeFlags.Slave | NodeFlags.Myself,
            ReplicaOf = myId, Slots = masterSlots,
        }, "slave " + myId);
        using (listener)
        {
            try
            {
                Assert.True(link.Send(replica.Message((w, h) => w.HeaderOnly(BusMessageType.MfStart, h).ToArray())));
                byte[]? paused = null;
                await Eventually.WaitFor(() =>
                {
                    foreach (var (l, bytes) in replica.Record.Messages)
                    {
                        if (l == link && BusMessage.TryParse(bytes, out var m, out _) && m.Type == BusMessageType.Ping
                            && (m.MessageFlags & BusMessageFlags.Paused) != 0)
                        {
                            paused = bytes;
                            return true;
                        }
                    }
                    return false;
                }, () => $"no PING with PAUSED; log: {redis.LogText}", seconds: 30);
                Assert.True(BusMessage.TryParse(paused, out var ping, out _));
                Assert.True(myId.Equals(ping.Sender));
                // A master that has a replica is flagged MIGRATE_TO (clusterNodeAddSlave), and sends it.
                Assert.Equal(NodeFlags.Master | NodeFlags.Myself | NodeFlags.MigrateTo, ping.Flags);
                Assert.Contains($"Manual failover requested by replica {name}", redis.LogText);
                Assert.Empty(replica.Record.Invalid);
            }
            finally
            {
                link.Close();
                foreach (var inbound in replica.Record.Inbound) inbound.Close();
            }
        }
    }
}
