using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using RedisClone.Cluster.Bus;
using RedisClone.Server;

namespace RedisClone.Cluster;

/// <summary>
/// The cluster bus wired to the node (Redis's clusterProcessPacket, clusterCron and the senders):
/// it listens on the bus port, keeps a link to every node it knows, pings them on Redis's
/// schedule, applies what their messages say to <see cref="ClusterState"/> (handshakes, roles,
/// slot claims, epochs, gossip, failure reports, FAIL, UPDATE, PUBLISH) and says what this node
/// knows in its own PING/PONG/MEET.
/// </summary>
/// <remarks>
/// <para>Threads: every link's receive loop, the server's cron and the CLUSTER commands meet here;
/// everything runs holding <see cref="ClusterState.Sync"/>, the one lock of the cluster state, so
/// messages are applied one at a time as Redis's single thread applies them. Sending only queues
/// bytes (<see cref="BusLink.Send"/> never waits), so it is done under the lock too, and so is the
/// one <see cref="BusMessageWriter"/>.</para>
/// <para>What Redis defers to clusterBeforeSleep (saving nodes.conf, updating the state) is done
/// once at the end of each message and each cron run.</para>
/// <para>Elections, manual failover and replica migration are <see cref="ClusterFailover"/>'s: this
/// class hands it FAILOVER_AUTH_REQUEST/ACK, MFSTART and every header, and runs it at the end of
/// each cron run.</para>
/// </remarks>
internal sealed class ClusterBus : IBusHandler, IDisposable
{
    /// <summary>Message types Redis counts (CLUSTERMSG_TYPE_COUNT).</summary>
    private const int MessageTypes = 11;

    private readonly RedisServer _server;
    private readonly ClusterState _state;
    private readonly BusOptions _options;
    private readonly List<BusListener> _listeners = new();
    private readonly HashSet<BusLink> _links = new(ReferenceEqualityComparer.Instance); // under Sync
    private readonly BusMessageWriter _writer = new(); // under Sync
    private readonly SlotBitmap _headerSlots = new(); // under Sync
    private readonly bool[] _notClaiming = new bool[ClusterState.Slots]; // Redis's owner_not_claiming_slot, under Sync
    private readonly long[] _sent = new long[MessageTypes], _received = new long[MessageTypes];
    private long _iteration;
    private bool _stopped, _saveNeeded, _stateNeeded;
    private long _bufferLimitExceeded;
    private readonly ClusterFailover _failover;

    public ClusterBus(RedisServer server, ClusterState state)
    {
        _server = server;
        _state = state;
        _options = new BusOptions
        {
            Log = (level, text) => server.Log.Write(level switch
            {
                BusLogLevel.Debug => ServerLog.Level.Debug,
                BusLogLevel.Verbose => ServerLog.Level.Verbose,
                BusLogLevel.Notice => ServerLog.Level.Notice,
                _ => ServerLog.Level.Warning,
            }, text),
        };
        RefreshOptions();
        _failover = new ClusterFailover(server, state, this);
    }

    private static long Now => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();

    private long NodeTimeout => Math.Max(1, _server.Config.Number("cluster-node-timeout"));

    /// <summary>The port the bus listens on: cluster-port, or the data port + 10000 (the TLS port's under tls-cluster, as Redis's defaultClientPort).</summary>
    public int ListenPort
    {
        get
        {
            long clusterPort = _server.Config.Number("cluster-port");
            return clusterPort != 0 ? (int)clusterPort : (TlsCluster ? _server.TlsPort : _server.Port) + 10000;
        }
    }

    /// <summary>
    /// The server's TLS handshakes for the bus (its certificate, CAs and tls-auth-clients for accepted
    /// links; tls-client-cert-file or its own certificate when connecting out), used while tls-cluster
    /// is on; the server composes them, as this layer does not know its TLS context.
    /// </summary>
    public void UseTls(Func<System.Net.Security.SslServerAuthenticationOptions?> accept,
        Func<string, System.Net.Security.SslClientAuthenticationOptions?> connect)
    {
        _options.ServerTls = () => TlsCluster ? accept() : null;
        _options.ClientTls = host => TlsCluster ? connect(host) : null;
    }

    /// <summary>cluster-link-sendbuf-limit and the connect timeout from the configuration (at start and after CONFIG SET).</summary>
    public void RefreshOptions()
    {
        _options.SendBufferLimit = _server.Config.Number("cluster-link-sendbuf-limit");
        _options.ConnectTimeout = TimeSpan.FromMilliseconds(Math.Clamp(NodeTimeout, 1000, 15000));
        _options.KeepAliveSeconds = (int)Math.Max(1, NodeTimeout / 1000 * 2);
    }

    // ------------------------------------------------------------------ start and stop

    /// <summary>Listens on the bus port on each bind address (as the data port binds them); throws when one cannot be bound.</summary>
    public void Bind(string[] bind, bool systemChosenPort)
    {
        // A data port the system chose gets a bus port the system chooses (unless cluster-port says one).
        bool anyPort = systemChosenPort && _server.Config.Number("cluster-port") == 0;
        int port = anyPort ? 0 : ListenPort;
        if (port < 0 || port > 65535 || (port == 0 && !anyPort)) throw new ClusterStartException($"Cluster bus port {port} is out of range (port + 10000 must be at most 65535, or set cluster-port)");
        try
        {
            foreach (string configured in bind.Length > 0 ? bind : ["*", "-::*"])
            {
                bool optional = configured.StartsWith('-');
                string address = optional ? configured[1..] : configured;
                IPAddress ip = address switch
                {
                    "*" => IPAddress.Any,
                    "::*" => IPAddress.IPv6Any,
                    "localhost" => IPAddress.Loopback,
                    _ => IPAddress.TryParse(address, out var parsed) ? parsed : Dns.GetHostAddresses(address)[0],
                };
                try
                {
                    var listener = new BusListener(new IPEndPoint(ip, _listeners.Count > 0 ? _listeners[0].EndPoint.Port : port), this, _options);
                    _listeners.Add(listener);
                }
                catch (SocketException ex) when (optional && ex.SocketErrorCode is SocketError.AddressNotAvailable
                                                     or SocketError.AddressFamilyNotSupported or SocketError.ProtocolNotSupported)
                {
                }
                catch (SocketException ex)
                {
                    _server.Log.Warning($"Could not bind to {address}:{port}: {ex.Message}");
                    throw new ClusterStartException($"Could not bind the cluster bus port {port}: {ex.Message}");
                }
            }
        }
        catch
        {
            foreach (var l in _listeners) l.Dispose();
            _listeners.Clear();
            throw;
        }
        if (anyPort && _listeners.Count > 0)
        {
            _state.BoundBusPort = _listeners[0].EndPoint.Port;
            _state.RefreshMyself();
            _state.SaveOrThrow(); // nodes.conf names the bus port actually bound
        }
    }

    /// <summary>
    /// Accepts the peers' connections, once the data has loaded: as in Redis, whose event loop
    /// serves the bus only after loadDataFromDisk, no message (an UPDATE making this node a replica,
    /// a slot count) is handled while the keyspace is still being filled. Peers that connect
    /// meanwhile wait in the listen backlog.
    /// </summary>
    public void StartAccepting()
    {
        foreach (var l in _listeners) l.Start();
    }

    /// <summary>Stops listening and closes every link.</summary>
    public void Dispose()
    {
        BusLink[] links;
        lock (_state.Sync)
        {
            _stopped = true;
            links = [.. _links];
            _links.Clear();
            foreach (var n in _state.Nodes)
            {
                n.Link = n.InboundLink = null;
                n.LinkConnected = false;
            }
        }
        foreach (var l in _listeners) l.Dispose();
        foreach (var link in links) link.Close();
    }

    // ------------------------------------------------------------------ IBusHandler

    public bool OnInboundLink(BusLink link)
    {
        lock (_state.Sync)
        {
            if (_stopped) return false;
            _links.Add(link);
            return true;
        }
    }

    public void OnInvalidMessage(BusLink link, ushort type, BusMessageError error)
    {
        lock (_state.Sync)
            if (type < MessageTypes) _received[type]++;
    }

    public void OnLinkClosed(BusLink link, BusLinkCloseReason reason)
    {
        lock (_state.Sync)
        {
            _links.Remove(link);
            if (reason == BusLinkCloseReason.SendBufferLimit) _bufferLimitExceeded++;
            if (link.Owner is ClusterNode n)
            {
                if (n.Link == link)
                {
                    n.Link = null;
                    n.LinkConnected = false;
                }
                if (n.InboundLink == link) n.InboundLink = null;
            }
        }
    }

    public void OnMessage(BusLink link, in BusMessage message)
    {
        lock (_state.Sync)
        {
            if (_stopped) return;
            Process(link, message);
            Flush();
        }
    }

    /// <summary>What Redis's clusterBeforeSleep does: the state updated, nodes.conf saved (fsynced), when a change asked for it.</summary>
    private void Flush()
    {
        if (_stateNeeded)
        {
            _stateNeeded = false;
            _state.UpdateState();
        }
        if (_saveNeeded)
        {
            _saveNeeded = false;
            if (!_state.Save(out string? error)) _server.Log.Warning($"Could not save the cluster configuration: {error}");
        }
    }

    private void SaveAndUpdate()
    {
        _saveNeeded = true;
        _stateNeeded = true;
    }

    /// <summary>nodes.conf saved at the end of this message or cron run (under Sync).</summary>
    internal void RequestSave() => _saveNeeded = true;

    /// <summary>nodes.conf saved and the state updated at the end of this message or cron run (under Sync).</summary>
    internal void RequestSaveAndUpdate() => SaveAndUpdate();

    // ------------------------------------------------------------------ processing (clusterProcessPacket)

    private static bool InHandshake(ClusterNode n) => (n.Flags & NodeFlags.Handshake) != 0;

    private static string Text(ReadOnlySpan<byte> bytes) => Encoding.Latin1.GetString(bytes);

    private void Process(BusLink link, in BusMessage msg)
    {
        ushort rawType = msg.RawType;
        if (rawType < MessageTypes) _received[rawType]++;
        long now = Now;
        var type = msg.Type;
        var me = _state.Myself;

        // The sender: the link's node unless it is still in handshake (its name is not the real one yet).
        var linkNode = link.Owner as ClusterNode;
        ClusterNode? sender;
        if (linkNode != null && !InHandshake(linkNode)) sender = linkNode;
        else
        {
            sender = _state.Lookup(msg.Sender);
            if (sender != null && linkNode == null && link.Inbound)
            {
                // Redis's setClusterNodeToInboundClusterLink: one inbound link per node, the older one goes.
                if (sender.InboundLink != null && sender.InboundLink != link) sender.InboundLink.Close();
                sender.InboundLink = link;
                link.Owner = sender;
                linkNode = sender;
            }
        }
        if (sender != null) sender.DataReceived = now;

        if (sender != null && !InHandshake(sender))
        {
            if (msg.CurrentEpoch > _state.CurrentEpoch)
            {
                _state.CurrentEpoch = msg.CurrentEpoch;
                _saveNeeded = true;
            }
            if (msg.ConfigEpoch > sender.ConfigEpoch)
            {
                sender.ConfigEpoch = msg.ConfigEpoch;
                SaveAndUpdate();
            }
            sender.ReplOffset = (long)msg.Offset;
            _failover.OnHeader(sender, msg);
        }

        if (msg.IsPingLike)
        {
            ProcessPingLike(link, linkNode, sender, msg, now);
            return;
        }
        switch (type)
        {
            case BusMessageType.Fail:
                {
                    if (sender == null) return;
                    var failing = _state.Lookup(msg.FailingNode);
                    if (failing == null || (failing.Flags & (NodeFlags.Fail | NodeFlags.Myself)) != 0) return;
                    _server.Log.Notice($"FAIL message received from {sender.Id} ({sender.HumanNodename}) about {failing.Id} ({failing.HumanNodename})");
                    failing.Flags = (failing.Flags | NodeFlags.Fail) & ~NodeFlags.PFail;
                    failing.FailTime = now;
                    SaveAndUpdate();
                    return;
                }
            case BusMessageType.Publish or BusMessageType.PublishShard:
                if (sender == null) return;
                _server.PubSub.Publish(msg.PublishChannel, msg.PublishMessage, shard: type == BusMessageType.PublishShard);
                return;
            case BusMessageType.Update:
                {
                    if (sender == null) return;
                    var node = _state.Lookup(msg.UpdateNode);
                    ulong epoch = msg.UpdateConfigEpoch;
                    if (node == null || node.ConfigEpoch >= epoch) return;
                    if (node.IsReplica) SetNodeAsMaster(node);
                    node.ConfigEpoch = epoch;
                    SaveAndUpdate();
                    UpdateSlotsConfigWith(node, epoch, msg.UpdateSlots);
                    return;
                }
            case BusMessageType.FailoverAuthRequest:
                if (sender == null) return;
                _failover.OnAuthRequest(sender, msg);
                return;
            case BusMessageType.FailoverAuthAck:
                if (sender == null) return;
                _failover.OnAuthAck(sender, msg);
                return;
            case BusMessageType.MfStart:
                _failover.OnManualFailoverStart(link, sender);
                return;
            default:
                // MODULE: no modules here.
                return;
        }
    }

    private void ProcessPingLike(BusLink link, ClusterNode? linkNode, ClusterNode? sender, in BusMessage msg, long now)
    {
        var type = msg.Type;
        var me = _state.Myself;
        if (type is BusMessageType.Ping or BusMessageType.Meet)
        {
            // This node learns its own address from the socket a MEET (or the first PING) came in on.
            if ((type == BusMessageType.Meet || me.Ip.Length == 0) && _server.Config.Value("cluster-announce-ip").Length == 0
                && link.LocalEndPoint is { } local)
            {
                string ip = local.Address.ToString();
                if (ip != me.Ip)
                {
                    me.Ip = ip;
                    _server.Log.Notice($"IP address for this node updated to {ip}");
                    _saveNeeded = true;
                }
            }
            if (sender == null && type == BusMessageType.Meet)
            {
                // A node met us: it is added in handshake; our PING to it will learn its name.
                string ip = msg.MyIp.Length > 0 ? Text(msg.MyIp) : link.RemoteEndPoint?.Address.ToString() ?? "";
                var (tcp, tls) = ClientPorts(msg.Port, msg.Pport);
                var node = new ClusterNode(Common.RandomHex.Next40(), Common.RandomHex.Next40())
                {
                    Flags = NodeFlags.Handshake, Ip = ip, Port = tcp, TlsPort = tls, BusPort = msg.Cport,
                    CreatedMs = Environment.TickCount64,
                };
                _state.AddNode(node);
                _saveNeeded = true;
                ProcessGossip(link.Owner as ClusterNode, msg, now);
            }
            SendPing(link, null, BusMessageType.Pong);
        }

        if (!link.Inbound && linkNode != null)
        {
            if (InHandshake(linkNode))
            {
                if (sender != null)
                {
                    // We knew this node under its real name already: drop the handshake node.
                    if (UpdateAddressIfNeeded(sender, link, msg)) SaveAndUpdate();
                    _state.RemoveNode(linkNode, forget: false);
                    _saveNeeded = true;
                    return;
                }
                _state.Rename(linkNode, Text(msg.Sender));
                linkNode.Flags = (linkNode.Flags & ~NodeFlags.Handshake) | (msg.Flags & (NodeFlags.Master | NodeFlags.Slave));
                _server.Log.Notice($"Handshake with node {linkNode.Id} completed.");
                SaveAndUpdate();
            }
            else if (!msg.Sender.SequenceEqual(Encoding.Latin1.GetBytes(linkNode.Id)))
            {
                _server.Log.Notice($"PONG contains mismatching sender ID. About node {linkNode.Id} added {Environment.TickCount64 - linkNode.CreatedMs} ms ago, having flags {(ushort)linkNode.Flags}");
                linkNode.Flags |= NodeFlags.NoAddr;
                linkNode.Ip = "";
                linkNode.Port = linkNode.TlsPort = linkNode.BusPort = 0;
                FreeLink(linkNode);
                _saveNeeded = true;
                return;
            }
        }

        if (sender != null)
            sender.Flags = (sender.Flags & ~NodeFlags.NoFailover) | (msg.Flags & NodeFlags.NoFailover);

        if (sender != null && type == BusMessageType.Ping && !InHandshake(sender) && UpdateAddressIfNeeded(sender, link, msg))
            SaveAndUpdate();

        if (!link.Inbound && linkNode != null && type == BusMessageType.Pong)
        {
            linkNode.PongReceived = now;
            linkNode.PingSent = 0;
            if (linkNode.TimedOut)
            {
                linkNode.Flags &= ~NodeFlags.PFail;
                SaveAndUpdate();
            }
            else if (linkNode.Failed) ClearFailureIfNeeded(linkNode, now);
        }

        if (sender == null) return;

        // Roles.
        if (!msg.IsReplica) SetNodeAsMaster(sender);
        else
        {
            var master = _state.Lookup(msg.ReplicaOf);
            if (sender.IsMaster)
            {
                _server.Log.Notice($"Node {sender.Id} ({sender.HumanNodename}) is now a replica");
                _state.DelNodeSlots(sender);
                sender.Flags = (sender.Flags & ~(NodeFlags.Master | NodeFlags.MigrateTo)) | NodeFlags.Slave;
                SaveAndUpdate();
            }
            if (master != null && sender.Master != master)
            {
                _state.SetReplicaOf(sender, master);
                SaveAndUpdate();
            }
        }

        // Slots: apply the claim of a master; tell a node with a stale view who owns what it claims.
        var senderMaster = sender.IsMaster ? sender : sender.Master;
        var claimed = msg.MySlots;
        bool dirty = senderMaster != null && !SameSlots(senderMaster, claimed);
        if (sender.IsMaster && dirty) UpdateSlotsConfigWith(sender, msg.ConfigEpoch, claimed);
        if (senderMaster != null && dirty)
        {
            for (int j = 0; j < ClusterState.Slots; j++)
            {
                if (!SlotBitmap.Get(claimed, j)) continue;
                var owner = _state.Owner(j);
                if (owner == null || owner == sender) continue;
                if (owner.ConfigEpoch <= msg.ConfigEpoch) continue;
                _server.Log.Write(ServerLog.Level.Verbose,
                    $"Node {sender.Id} has old slots configuration, sending an UPDATE message about {owner.Id}");
                SendUpdate(link, owner);
                break;
            }
        }

        if (sender.IsMaster && me.IsMaster && msg.ConfigEpoch == me.ConfigEpoch) HandleConfigEpochCollision(sender);

        ProcessGossip(link.Owner as ClusterNode ?? sender, msg, now);
        ProcessExtensions(sender, msg);
    }

    /// <summary>Redis's clusterSetNodeAsMaster.</summary>
    private void SetNodeAsMaster(ClusterNode n)
    {
        if (n.IsMaster) return;
        bool hadMaster = n.Master != null;
        _state.SetMaster(n);
        if (hadMaster && n != _state.Myself) n.Flags |= NodeFlags.MigrateTo;
        SaveAndUpdate();
    }

    /// <summary>Whether <paramref name="node"/> serves exactly the slots of <paramref name="bitmap"/>.</summary>
    private bool SameSlots(ClusterNode node, ReadOnlySpan<byte> bitmap)
    {
        for (int j = 0; j < ClusterState.Slots; j++)
            if (SlotBitmap.Get(bitmap, j) != (_state.Owner(j) == node)) return false;
        return true;
    }

    /// <summary>Redis's nodeUpdateAddressIfNeeded: the address a message came from replaces the one known.</summary>
    private bool UpdateAddressIfNeeded(ClusterNode node, BusLink link, in BusMessage msg)
    {
        if (link == node.Link) return false;
        string? ip = msg.MyIp.Length > 0 ? Text(msg.MyIp) : link.RemoteEndPoint?.Address.ToString();
        if (ip == null) return false;
        var (tcp, tls) = ClientPorts(msg.Port, msg.Pport);
        int cport = msg.Cport;
        if (node.Port == tcp && node.TlsPort == tls && node.BusPort == cport && node.Ip == ip) return false;
        node.Ip = ip;
        node.Port = tcp;
        node.TlsPort = tls;
        node.BusPort = cport;
        FreeLink(node);
        node.Flags &= ~NodeFlags.NoAddr;
        _server.Log.Notice($"Address updated for node {node.Id} ({node.HumanNodename}), now {ip}:{tcp}");
        var me = _state.Myself;
        if (me.IsReplica && me.Master == node) _server.Replica.SetMaster(ip, tcp);
        return true;
    }

    private static void FreeLink(ClusterNode node)
    {
        node.Link?.Close();
        node.Link = null;
        node.LinkConnected = false;
    }

    /// <summary>Redis's clearNodeFailureIfNeeded: a FAIL node is back.</summary>
    private void ClearFailureIfNeeded(ClusterNode node, long now)
    {
        if (!node.Failed) return;
        if (node.IsReplica || node.SlotCount == 0)
        {
            _server.Log.Notice($"Clear FAIL state for node {node.Id} ({node.HumanNodename}):{(node.IsReplica ? "replica" : "master without slots")} is reachable again.");
            node.Flags &= ~NodeFlags.Fail;
            SaveAndUpdate();
        }
        else if (now - node.FailTime > NodeTimeout * 2)
        {
            _server.Log.Notice($"Clear FAIL state for node {node.Id} ({node.HumanNodename}): is reachable again and nobody is serving its slots after some time.");
            node.Flags &= ~NodeFlags.Fail;
            SaveAndUpdate();
        }
    }

    /// <summary>Redis's clusterHandleConfigEpochCollision: of two masters with one configEpoch, the one with the smaller name takes a new one.</summary>
    private void HandleConfigEpochCollision(ClusterNode sender)
    {
        var me = _state.Myself;
        if (sender.ConfigEpoch != me.ConfigEpoch || !sender.IsMaster || !me.IsMaster) return;
        if (string.CompareOrdinal(sender.Id, me.Id) <= 0) return;
        _state.CurrentEpoch++;
        me.ConfigEpoch = _state.CurrentEpoch;
        _saveNeeded = true;
        _server.Log.Write(ServerLog.Level.Verbose,
            $"WARNING: configEpoch collision with node {sender.Id} ({sender.HumanNodename}). configEpoch set to {me.ConfigEpoch}");
    }

    /// <summary>
    /// Redis's clusterUpdateSlotsConfigWith: the slots <paramref name="sender"/> claims at
    /// <paramref name="senderConfigEpoch"/> become its own where the owner's epoch is lower.
    /// </summary>
    private void UpdateSlotsConfigWith(ClusterNode sender, ulong senderConfigEpoch, ReadOnlySpan<byte> slots)
    {
        var me = _state.Myself;
        if (sender == me)
        {
            _server.Log.Notice("Discarding UPDATE message about myself.");
            return;
        }
        var curMaster = me.IsMaster ? me : me.Master;
        ClusterNode? newMaster = null;
        int senderSlots = 0, migratedOurSlots = 0;
        List<int>? dirty = null;
        for (int j = 0; j < ClusterState.Slots; j++)
        {
            var owner = _state.Owner(j);
            if (SlotBitmap.Get(slots, j))
            {
                senderSlots++;
                if (owner == sender)
                {
                    _notClaiming[j] = false;
                    continue;
                }
                if (_state.ImportingFrom(j) != null) continue;
                if (owner == null || _notClaiming[j] || owner.ConfigEpoch < senderConfigEpoch)
                {
                    // A slot of mine taken while it still has keys here is dirty: its keys go below,
                    // unless I become a replica (the full sync replaces them all).
                    if (owner == me && ClusterCommands.CountKeysInSlot(_server.Shards, j) > 0) (dirty ??= new()).Add(j);
                    if (owner != null && owner == curMaster)
                    {
                        newMaster = sender;
                        migratedOurSlots++;
                    }
                    _state.DelSlot(j);
                    _state.AddSlot(sender, j);
                    _notClaiming[j] = false;
                    SaveAndUpdate();
                }
            }
            else if (owner == sender) _notClaiming[j] = true;
        }
        if (newMaster != null && curMaster != null && curMaster.SlotCount == 0
            && (_server.Config.Value("cluster-allow-replica-migration") == "yes" || senderSlots == migratedOurSlots))
        {
            _server.Log.Notice($"Configuration change detected. Reconfiguring myself as a replica of {sender.Id} ({sender.HumanNodename})");
            BecomeReplicaOf(sender);
        }
        else if (me.Master is { Master: { } grand } && grand != me)
        {
            _server.Log.Notice($"I'm a sub-replica! Reconfiguring myself as a replica of grandmaster {grand.Id} ({grand.HumanNodename})");
            BecomeReplicaOf(grand);
        }
        else if (dirty != null)
        {
            // Redis's delKeysInSlot for each dirty slot (the count above is read without the gate;
            // the deletion itself runs under it and finds what is there then).
            SlotKeysDeletion.Post(_server, dirty);
        }
    }

    /// <summary>Redis's clusterSetMaster: myself becomes a replica of <paramref name="master"/> and replicates from it.</summary>
    internal void BecomeReplicaOf(ClusterNode master)
    {
        var me = _state.Myself;
        if (me.IsMaster) _state.DelNodeSlots(me);
        _state.SetReplicaOf(me, master);
        if (master.Ip.Length > 0) _server.Replica.SetMaster(master.Ip, _state.ReplicationPort(master));
        // Writes held by a manual failover go on only now: they find the slots moved (MOVED) and
        // the node a replica, so none is applied here and then lost.
        _failover.Reset();
        SaveAndUpdate();
    }

    // ------------------------------------------------------------------ gossip and extensions

    /// <summary>Redis's clusterProcessGossipSection.</summary>
    private void ProcessGossip(ClusterNode? sender, in BusMessage msg, long now)
    {
        var me = _state.Myself;
        for (int i = 0; i < msg.Count; i++)
        {
            var g = msg.Gossip(i);
            var flags = g.Flags;
            var node = _state.Lookup(g.Name);
            bool gossipFailing = (flags & (NodeFlags.Fail | NodeFlags.PFail)) != 0;
            if (node != null)
            {
                if (sender != null && sender.IsMaster && node != me)
                {
                    if (gossipFailing)
                    {
                        if (AddFailureReport(node, sender, now))
                            _server.Log.Write(ServerLog.Level.Verbose,
                                $"Node {sender.Id} ({sender.HumanNodename}) reported node {node.Id} ({node.HumanNodename}) as not reachable.");
                        MarkFailingIfNeeded(node, now);
                    }
                    else if (node.FailureReports.Remove(sender.Id))
                    {
                        _server.Log.Write(ServerLog.Level.Verbose,
                            $"Node {sender.Id} ({sender.HumanNodename}) reported node {node.Id} ({node.HumanNodename}) is back online.");
                    }
                }
                if (!gossipFailing && node.PingSent == 0 && FailureReportCount(node, now) == 0)
                {
                    long pong = g.PongReceivedSeconds * 1000L;
                    if (pong <= now + 500 && pong > node.PongReceived) node.PongReceived = pong;
                }
                if ((node.Flags & (NodeFlags.Fail | NodeFlags.PFail)) != 0 && (flags & NodeFlags.NoAddr) == 0 && !gossipFailing)
                {
                    string ip = Text(g.Ip);
                    var (tcp, tls) = ClientPorts(g.Port, g.Pport);
                    if (!string.Equals(node.Ip, ip, StringComparison.OrdinalIgnoreCase) || node.Port != tcp
                        || node.TlsPort != tls || node.BusPort != g.Cport)
                    {
                        FreeLink(node);
                        node.Ip = ip;
                        node.Port = tcp;
                        node.TlsPort = tls;
                        node.BusPort = g.Cport;
                        node.Flags &= ~NodeFlags.NoAddr;
                    }
                }
            }
            else if (sender != null && (flags & NodeFlags.NoAddr) == 0)
            {
                string id = Text(g.Name);
                if (_state.IsForgotten(id)) continue;
                // 7.x adds a gossiped node under its own name at once (no handshake); the cron connects to it.
                var (tcp, tls) = ClientPorts(g.Port, g.Pport);
                var n = new ClusterNode(id, Common.RandomHex.Next40())
                {
                    Flags = flags & ~(NodeFlags.Myself | NodeFlags.Meet), Ip = Text(g.Ip), Port = tcp, TlsPort = tls,
                    BusPort = g.Cport, CreatedMs = Environment.TickCount64,
                };
                _state.AddNode(n);
                SaveAndUpdate();
            }
        }
    }

    private static bool AddFailureReport(ClusterNode node, ClusterNode sender, long now)
    {
        bool added = !node.FailureReports.ContainsKey(sender.Id);
        node.FailureReports[sender.Id] = now;
        return added;
    }

    /// <summary>Failure reports still valid (younger than 2 x node-timeout); older ones are dropped.</summary>
    private int FailureReportCount(ClusterNode node, long now)
    {
        if (node.FailureReports.Count == 0) return 0;
        long maxAge = NodeTimeout * 2;
        List<string>? old = null;
        foreach (var (id, time) in node.FailureReports)
            if (now - time > maxAge) (old ??= new()).Add(id);
        if (old != null) foreach (var id in old) node.FailureReports.Remove(id);
        return node.FailureReports.Count;
    }

    /// <summary>Redis's markNodeAsFailingIfNeeded: PFAIL becomes FAIL when a majority of masters agree; then everyone is told.</summary>
    private void MarkFailingIfNeeded(ClusterNode node, long now)
    {
        int needed = _state.Size / 2 + 1;
        if (!node.TimedOut || node.Failed) return;
        int failures = FailureReportCount(node, now);
        if (_state.Myself.IsMaster) failures++;
        if (failures < needed) return;
        _server.Log.Notice($"Marking node {node.Id} ({node.HumanNodename}) as failing (quorum reached).");
        node.Flags = (node.Flags & ~NodeFlags.PFail) | NodeFlags.Fail;
        node.FailTime = now;
        Broadcast(BusMessageType.Fail, _writer.Fail(Header(), Name(node.Id)));
        SaveAndUpdate();
    }

    /// <summary>Redis's clusterProcessPingExt.</summary>
    private void ProcessExtensions(ClusterNode sender, in BusMessage msg)
    {
        string? hostname = null, human = null, shardId = null;
        var me = _state.Myself;
        foreach (var ext in msg.Extensions)
        {
            switch (ext.RawType)
            {
                case (ushort)PingExtensionType.Hostname:
                    hostname = Text(ext.Text);
                    break;
                case (ushort)PingExtensionType.HumanNodename:
                    human = Text(ext.Text);
                    break;
                case (ushort)PingExtensionType.ForgottenNode:
                    {
                        var n = _state.Lookup(ext.Name);
                        if (n != null && n != me && !(me.IsReplica && me.Master == n))
                        {
                            _state.ForgetFor(n, (long)Math.Min(ext.TtlSeconds, int.MaxValue));
                            SaveAndUpdate();
                        }
                        break;
                    }
                case (ushort)PingExtensionType.ShardId:
                    shardId = Text(ext.Name);
                    break;
                default:
                    _server.Log.Write(ServerLog.Level.Warning, $"Received unknown extension type {ext.RawType}");
                    break;
            }
        }
        if (sender.Hostname != (hostname ?? ""))
        {
            sender.Hostname = hostname ?? "";
            _saveNeeded = true;
        }
        if (sender.HumanNodename != (human ?? ""))
        {
            sender.HumanNodename = human ?? "";
            _saveNeeded = true;
        }
        if (shardId != null && sender.ShardId != shardId)
        {
            // Redis's updateShardId: a master's shard id is its replicas' too (mine included).
            var master = sender.MasterOrSelf;
            master.ShardId = shardId;
            foreach (var r in master.Replicas) r.ShardId = shardId;
            sender.ShardId = shardId;
            _saveNeeded = true;
        }
    }

    // ------------------------------------------------------------------ sending

    private static NodeName Name(string id)
    {
        Span<byte> bytes = stackalloc byte[BusLayout.NameLength];
        bytes.Clear();
        Encoding.Latin1.GetBytes(id.AsSpan(0, Math.Min(id.Length, BusLayout.NameLength)), bytes);
        return NodeName.From(bytes);
    }

    /// <summary>Redis's clusterBuildMessageHdr: myself (a replica sends its master's slots and configEpoch).</summary>
    private BusHeader Header()
    {
        var me = _state.Myself;
        var master = me.IsReplica && me.Master != null ? me.Master : me;
        bool tlsCluster = TlsCluster;
        _headerSlots.ClearAll();
        for (int j = 0; j < ClusterState.Slots; j++)
            if (_state.Owner(j) == master) _headerSlots.Set(j);
        var h = new BusHeader
        {
            Port = (ushort)(tlsCluster ? me.TlsPort : me.Port), Pport = (ushort)(tlsCluster ? me.Port : me.TlsPort), Cport = (ushort)me.BusPort,
            CurrentEpoch = _state.CurrentEpoch, ConfigEpoch = master.ConfigEpoch,
            Offset = (ulong)Math.Max(0, _server.Replication.Offset),
            Sender = Name(me.Id), Slots = _headerSlots, MyIp = _server.Config.Value("cluster-announce-ip"),
            Flags = me.Flags, State = _state.StateOk ? (byte)0 : (byte)1,
            MessageFlags = _failover.MasterPaused ? BusMessageFlags.Paused : 0,
        };
        if (me.IsReplica && me.Master != null) h.ReplicaOf = Name(me.Master.Id);
        return h;
    }

    private static GossipEntry Gossip(ClusterNode n, bool tlsCluster) => new()
    {
        Name = Name(n.Id), PingSentSeconds = (uint)(n.PingSent / 1000), PongReceivedSeconds = (uint)(n.PongReceived / 1000),
        Ip = n.Ip, Cport = (ushort)n.BusPort, Flags = n.Flags,
        Port = (ushort)(tlsCluster ? n.TlsPort : n.Port), Pport = (ushort)(tlsCluster ? n.Port : n.TlsPort),
    };

    /// <summary>tls-cluster: the bus runs over TLS and its messages name the TLS port first.</summary>
    private bool TlsCluster => _server.Config.Value("tls-cluster") == "yes";

    /// <summary>
    /// Redis's getClientPortFromClusterMsg / getClientPortFromGossip: a message's port is the TLS one
    /// under tls-cluster and its pport the plain one; the other way round otherwise.
    /// </summary>
    private (int Tcp, int Tls) ClientPorts(ushort port, ushort pport) => TlsCluster ? (pport, port) : (port, pport);

    /// <summary>Redis's clusterSendPing: the header, gossip about a tenth of the nodes (at least 3) and every PFAIL one, then the extensions.</summary>
    private void SendPing(BusLink link, ClusterNode? node, BusMessageType type)
    {
        if (node != null && type == BusMessageType.Ping) node.PingSent = Now;
        var me = _state.Myself;
        var all = _state.Nodes.ToArray();
        int freshNodes = all.Length - 2;
        int wanted = Math.Min(Math.Max(3, all.Length / 10), freshNodes);
        bool tlsCluster = TlsCluster;
        _writer.StartPing(type, Header());
        var chosen = new HashSet<ClusterNode>(ReferenceEqualityComparer.Instance);
        for (int tries = wanted * 3; tries > 0 && chosen.Count < wanted; tries--)
        {
            var n = all[Random.Shared.Next(all.Length)];
            if (n == me || n.TimedOut) continue; // PFAIL nodes go below, all of them
            if ((n.Flags & (NodeFlags.Handshake | NodeFlags.NoAddr)) != 0 || (n.Link == null && n.SlotCount == 0)) continue;
            if (!chosen.Add(n)) continue;
            _writer.AddGossip(Gossip(n, tlsCluster));
        }
        foreach (var n in all)
        {
            if (!n.TimedOut || (n.Flags & (NodeFlags.Handshake | NodeFlags.NoAddr)) != 0 || n == me) continue;
            _writer.AddGossip(Gossip(n, tlsCluster));
        }
        if (me.Hostname.Length > 0) _writer.AddHostname(Encoding.Latin1.GetBytes(me.Hostname));
        if (me.HumanNodename.Length > 0) _writer.AddHumanNodename(Encoding.Latin1.GetBytes(me.HumanNodename));
        foreach (var (id, ttl) in _state.ForgottenNodes()) _writer.AddForgottenNode(Name(id), (ulong)ttl);
        _writer.AddShardId(Name(me.ShardId));
        Send(link, type, _writer.Finish());
    }

    private void Send(BusLink link, BusMessageType type, ReadOnlySpan<byte> bytes)
    {
        if (link.Send(bytes)) _sent[(int)type]++;
    }

    /// <summary>Redis's clusterBroadcastMessage: every connected node out of handshake.</summary>
    private void Broadcast(BusMessageType type, ReadOnlySpan<byte> bytes)
    {
        foreach (var n in _state.Nodes)
        {
            if (n.IsMyself || InHandshake(n) || n.Link == null) continue;
            Send(n.Link, type, bytes);
        }
    }

    /// <summary>A message that is only a header (FAILOVER_AUTH_ACK, MFSTART) to one node (under Sync).</summary>
    internal void SendHeaderOnly(BusLink link, BusMessageType type, BusMessageFlags flags)
    {
        var h = Header();
        h.MessageFlags |= flags;
        Send(link, type, _writer.HeaderOnly(type, h));
    }

    /// <summary>A message that is only a header (FAILOVER_AUTH_REQUEST) to every node (under Sync).</summary>
    internal void BroadcastHeaderOnly(BusMessageType type, BusMessageFlags flags)
    {
        var h = Header();
        h.MessageFlags |= flags;
        Broadcast(type, _writer.HeaderOnly(type, h));
    }

    /// <summary>A PING on <paramref name="link"/> (MFSTART's answer on the link it came by), under Sync.</summary>
    internal void SendPingOn(BusLink link) => SendPing(link, null, BusMessageType.Ping);

    /// <summary>
    /// Redis's clusterBroadcastPong under Sync: to every connected node, or (CLUSTER_BROADCAST_LOCAL_SLAVES)
    /// only to the other replicas of my master.
    /// </summary>
    internal void PongToAll(bool localReplicasOnly)
    {
        var me = _state.Myself;
        foreach (var n in _state.Nodes.ToArray())
        {
            if (n.IsMyself || InHandshake(n) || n.Link == null) continue;
            if (localReplicasOnly && !(n.IsReplica && n.Master != null && n.Master == me.Master)) continue;
            SendPing(n.Link, null, BusMessageType.Pong);
        }
    }

    /// <summary>CLUSTER FAILOVER [FORCE] accepted: the manual failover starts (MFSTART to the master unless forced).</summary>
    public void ManualFailover(bool force)
    {
        lock (_state.Sync)
        {
            if (_stopped) return;
            _failover.StartManual(force);
            Flush();
        }
    }

    /// <summary>
    /// Redis's clusterBroadcastPong(CLUSTER_BROADCAST_ALL): a PONG to every connected node, so a new
    /// configuration (a slot imported, a failover) spreads at once instead of at the next ping.
    /// </summary>
    public void BroadcastPong()
    {
        lock (_state.Sync)
        {
            if (_stopped) return;
            foreach (var n in _state.Nodes.ToArray())
                if (!n.IsMyself && !InHandshake(n) && n.Link != null) SendPing(n.Link, null, BusMessageType.Pong);
        }
    }

    /// <summary>Redis's clusterSendUpdate: tells a node with a stale view that <paramref name="node"/> owns its slots.</summary>
    private void SendUpdate(BusLink link, ClusterNode node)
    {
        var slots = new SlotBitmap();
        for (int j = 0; j < ClusterState.Slots; j++)
            if (_state.Owner(j) == node) slots.Set(j);
        Send(link, BusMessageType.Update, _writer.Update(Header(), node.ConfigEpoch, Name(node.Id), slots.Bytes));
    }

    /// <summary>
    /// PUBLISH spreads over the bus to every node (clusterPropagatePublish); SPUBLISH to the other
    /// nodes of this node's shard (clusterPropagatePublishShard).
    /// </summary>
    public void PropagatePublish(ReadOnlySpan<byte> channel, ReadOnlySpan<byte> message, bool sharded)
    {
        lock (_state.Sync)
        {
            if (_stopped) return;
            var type = sharded ? BusMessageType.PublishShard : BusMessageType.Publish;
            var bytes = _writer.Publish(Header(), sharded, channel, message);
            if (!sharded) Broadcast(type, bytes);
            else
            {
                var master = _state.Myself.MasterOrSelf;
                foreach (var n in master.Replicas.Append(master))
                    if (!n.IsMyself && !InHandshake(n) && n.Link != null) Send(n.Link, type, bytes);
            }
            _writer.Trim();
        }
    }

    // ------------------------------------------------------------------ cron (clusterCron)

    /// <summary>Every 100 ms: links made, nodes pinged on Redis's schedule, silent nodes marked PFAIL.</summary>
    public void Cron()
    {
        lock (_state.Sync)
        {
            if (_stopped) return;
            _iteration++;
            if (_iteration % 10 == 0) RefreshOptions(); // CONFIG SET of the limit or the timeout
            long now = Now, timeout = NodeTimeout;
            var me = _state.Myself;
            var all = _state.Nodes.ToArray();
            foreach (var n in all)
            {
                if (n == me || (n.Flags & NodeFlags.NoAddr) != 0) continue;
                if (n.Link == null && !n.Connecting && n.Ip.Length > 0 && n.BusPort > 0) StartConnect(n);
            }
            // Once a second, the node with the oldest pong of five random ones is pinged.
            if (_iteration % 10 == 0 && all.Length > 1)
            {
                ClusterNode? oldest = null;
                for (int i = 0; i < 5; i++)
                {
                    var n = all[Random.Shared.Next(all.Length)];
                    if (n.Link == null || n.PingSent != 0 || n == me || InHandshake(n)) continue;
                    if (oldest == null || n.PongReceived < oldest.PongReceived) oldest = n;
                }
                if (oldest?.Link != null) SendPing(oldest.Link, oldest, BusMessageType.Ping);
            }
            foreach (var n in all)
            {
                if (n == me || (n.Flags & (NodeFlags.NoAddr | NodeFlags.Handshake)) != 0) continue;
                long pingDelay = now - n.PingSent, dataDelay = now - n.DataReceived;
                // A link that carried nothing for half the timeout while a ping waits is made again.
                if (n.Link != null && now - n.Link.CreatedAtMs > timeout && n.PingSent != 0
                    && pingDelay > timeout / 2 && dataDelay > timeout / 2)
                    FreeLink(n);
                if (n.Link != null && n.PingSent == 0 && now - n.PongReceived > timeout / 2)
                {
                    SendPing(n.Link, n, BusMessageType.Ping);
                    continue;
                }
                // A master in a manual failover pings the replica asking continuously (its offset, PAUSED).
                if (n.Link != null && _failover.PingContinuously(n))
                {
                    SendPing(n.Link, n, BusMessageType.Ping);
                    continue;
                }
                if (n.PingSent == 0) continue;
                long nodeDelay = Math.Min(pingDelay, dataDelay);
                if (nodeDelay > timeout && (n.Flags & (NodeFlags.PFail | NodeFlags.Fail)) == 0)
                {
                    _server.Log.Write(ServerLog.Level.Debug, $"*** NODE {n.Id} possibly failing");
                    n.Flags |= NodeFlags.PFail;
                    _stateNeeded = true;
                }
            }
            // A replica whose replication is not pointed at its master (the master's address came late).
            if (me.IsReplica && me.Master is { } master && master.Ip.Length > 0 && _server.Replica.MasterHost == null)
                _server.Replica.SetMaster(master.Ip, _state.ReplicationPort(master));
            _failover.Cron();
            Flush();
        }
    }

    private void StartConnect(ClusterNode n)
    {
        n.Connecting = true;
        string ip = n.Ip;
        int port = n.BusPort;
        _ = ConnectAsync(n, ip, port);
    }

    private async Task ConnectAsync(ClusterNode n, string ip, int port)
    {
        BusConnectResult result;
        try
        {
            result = await BusLink.ConnectAsync(ip, port, this, _options, owner: n).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            result = new BusConnectResult(null, ex.Message);
        }
        lock (_state.Sync)
        {
            n.Connecting = false;
            if (result.Link is not { } link)
            {
                if (n.PingSent == 0) n.PingSent = Now;
                _server.Log.Write(ServerLog.Level.Verbose, $"Connection with Node {n.Id} at {ip}:{port} failed: {result.Error}");
                return;
            }
            if (_stopped || _state.Lookup(n.Id) != n || n.Link != null || n.Ip != ip || n.BusPort != port || !link.IsOpen)
            {
                link.Close();
                return;
            }
            _links.Add(link);
            n.Link = link;
            n.LinkConnected = true;
            // Redis's clusterLinkConnectHandler: MEET once if asked, else PING; a ping pending before stays pending.
            long oldPing = n.PingSent;
            SendPing(link, n, (n.Flags & NodeFlags.Meet) != 0 ? BusMessageType.Meet : BusMessageType.Ping);
            if (oldPing != 0) n.PingSent = oldPing;
            n.Flags &= ~NodeFlags.Meet;
            _server.Log.Write(ServerLog.Level.Verbose, $"Connecting with Node {n.Id} at {ip}:{port}");
        }
    }

    // ------------------------------------------------------------------ CLUSTER INFO, LINKS

    /// <summary>CLUSTER INFO's message counters (genClusterInfoString): the types with a count, then the totals.</summary>
    public void AppendStats(StringBuilder sb)
    {
        lock (_state.Sync)
        {
            var inv = CultureInfo.InvariantCulture;
            long total = 0;
            for (int i = 0; i < MessageTypes; i++)
            {
                if (_sent[i] == 0) continue;
                total += _sent[i];
                sb.Append("cluster_stats_messages_").Append(BusMessage.TypeName((ushort)i)).Append("_sent:").Append(_sent[i].ToString(inv)).Append("\r\n");
            }
            sb.Append("cluster_stats_messages_sent:").Append(total.ToString(inv)).Append("\r\n");
            total = 0;
            for (int i = 0; i < MessageTypes; i++)
            {
                if (_received[i] == 0) continue;
                total += _received[i];
                sb.Append("cluster_stats_messages_").Append(BusMessage.TypeName((ushort)i)).Append("_received:").Append(_received[i].ToString(inv)).Append("\r\n");
            }
            sb.Append("cluster_stats_messages_received:").Append(total.ToString(inv)).Append("\r\n");
            sb.Append("total_cluster_links_buffer_limit_exceeded:").Append(_bufferLimitExceeded.ToString(inv)).Append("\r\n");
        }
    }

    /// <summary>One link as CLUSTER LINKS shows it.</summary>
    internal readonly record struct LinkInfo(string Direction, string Node, long CreateTime, long SendBufferAllocated, long SendBufferUsed);

    /// <summary>CLUSTER LINKS: for each node, its outbound link ("to") then its inbound one ("from").</summary>
    public List<LinkInfo> Links()
    {
        var list = new List<LinkInfo>();
        lock (_state.Sync)
        {
            foreach (var n in _state.Nodes)
            {
                if (n.Link is { } to)
                {
                    long used = to.SendQueueBytes;
                    list.Add(new LinkInfo("to", n.Id, to.CreatedAtMs, used, used));
                }
                if (n.InboundLink is { } from)
                {
                    long used = from.SendQueueBytes;
                    list.Add(new LinkInfo("from", n.Id, from.CreatedAtMs, used, used));
                }
            }
        }
        return list;
    }
}
