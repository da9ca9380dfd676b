using System.Globalization;
using System.Net;
using System.Text;
using RedisClone.Commands;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;

namespace RedisClone.Cluster;

/// <summary>
/// The CLUSTER subcommands (Redis 7.2's clusterCommand), and ASKING, READONLY and READWRITE. Without
/// cluster-enabled every one answers that cluster support is disabled, as Redis does. The
/// subcommands that look at keys (COUNTKEYSINSLOT, GETKEYSINSLOT, SETSLOT, FLUSHSLOTS, RESET,
/// REPLICATE) are routed to every shard, so they run holding the gates; the rest run on the
/// connection's thread and hold <see cref="ClusterState.Sync"/> while they change the table.
/// </summary>
/// <remarks>
/// MEET records a node in handshake that <see cref="ClusterBus"/> connects to; LINKS and INFO's
/// message counters come from the bus. FAILOVER TAKEOVER takes the master's slots here; FAILOVER
/// and FAILOVER FORCE start the bus's manual failover (<see cref="ClusterFailover"/>).
/// </remarks>
internal static class ClusterCommands
{
    private static readonly HelpReply Help = new("CLUSTER",
        "ADDSLOTS <slot> [<slot> ...]", "    Assign slots to this node.",
        "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]", "    Assign the slots of each range to this node.",
        "BUMPEPOCH", "    Advance this node's config epoch.",
        "COUNT-FAILURE-REPORTS <node-id>", "    The number of failure reports about <node-id>.",
        "COUNTKEYSINSLOT <slot>", "    The number of keys in <slot>.",
        "DELSLOTS <slot> [<slot> ...]", "    Unassign slots.",
        "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]", "    Unassign the slots of each range.",
        "FAILOVER [FORCE|TAKEOVER]", "    Make this replica the master of its shard.",
        "FORGET <node-id>", "    Remove a node from this node's table.",
        "GETKEYSINSLOT <slot> <count>", "    Up to <count> key names of <slot> stored here.",
        "FLUSHSLOTS", "    Unassign every slot of this node.",
        "INFO", "    The state of the cluster as this node sees it.",
        "KEYSLOT <key>", "    The hash slot of <key>.",
        "MEET <ip> <port> [<bus-port>]", "    Join the node at <ip>:<port> to the cluster.",
        "MYID", "    This node's id.",
        "MYSHARDID", "    This node's shard id.",
        "NODES", "    The cluster as this node sees it, one node per line:",
        "    <id> <ip:port@bus-port[,hostname]> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
        "REPLICATE <node-id>", "    Make this node a replica of <node-id>.",
        "RESET [HARD|SOFT]", "    Forget the cluster (SOFT by default; HARD also takes a new id and zeroes the epochs).",
        "SET-CONFIG-EPOCH <epoch>", "    Set the config epoch of a fresh node.",
        "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)", "    Change the state of a slot.",
        "REPLICAS <node-id>", "    The replicas of <node-id>.",
        "SAVECONFIG", "    Write nodes.conf now.",
        "SLOTS", "    The slot ranges with the addresses and ids of their master and replicas.",
        "SHARDS", "    The shards: their slot ranges and their nodes.",
        "LINKS", "    This node's links on the cluster bus, one map per link.");

    /// <summary>The cluster state, or null after replying the disabled error.</summary>
    private static ClusterState? Enabled(ref CommandContext ctx)
    {
        var state = ctx.Server.Cluster;
        if (state == null) ctx.Error(RespErrors.ClusterDisabled);
        return state;
    }

    /// <summary>CLUSTER subcommand ... — dispatches by subcommand (each row points here or to its own handler).</summary>
    public static void Cluster(ref CommandContext ctx)
    {
        if (Enabled(ref ctx) is not { } state) return;
        var sub = ctx.Arg(1);
        int argc = ctx.ArgCount;
        if (Ascii.EqualsIgnoreCase(sub, "help"u8) && argc == 2) Help.Write(ref ctx);
        else if (Ascii.EqualsIgnoreCase(sub, "meet"u8) && argc is 4 or 5) Meet(ref ctx, state);
        else if (Ascii.EqualsIgnoreCase(sub, "nodes"u8) && argc == 2) ctx.Reply.Verbatim(Encoding.Latin1.GetBytes(NodesFile.Describe(state, forFile: false, tlsPrimary: (ctx.Client.ScriptCaller ?? ctx.Client).Tls)));
        else if (Ascii.EqualsIgnoreCase(sub, "myid"u8) && argc == 2) ctx.Reply.Bulk(state.Myself.Id);
        else if (Ascii.EqualsIgnoreCase(sub, "myshardid"u8) && argc == 2) ctx.Reply.Bulk(state.Myself.ShardId);
        else if (Ascii.EqualsIgnoreCase(sub, "slots"u8) && argc == 2) Slots(ref ctx, state);
        else if (Ascii.EqualsIgnoreCase(sub, "shards"u8) && argc == 2) Shards(ref ctx, state);
        else if (Ascii.EqualsIgnoreCase(sub, "flushslots"u8) && argc == 2) FlushSlots(ref ctx, state);
        else if ((Ascii.EqualsIgnoreCase(sub, "addslots"u8) || Ascii.EqualsIgnoreCase(sub, "delslots"u8)) && argc >= 3)
            AddDelSlots(ref ctx, state, del: Ascii.EqualsIgnoreCase(sub, "delslots"u8));
        else if ((Ascii.EqualsIgnoreCase(sub, "addslotsrange"u8) || Ascii.EqualsIgnoreCase(sub, "delslotsrange"u8)) && argc >= 4)
            AddDelSlotsRange(ref ctx, state, del: Ascii.EqualsIgnoreCase(sub, "delslotsrange"u8));
        else if (Ascii.EqualsIgnoreCase(sub, "setslot"u8) && argc >= 4) SetSlot(ref ctx, state);
        else if (Ascii.EqualsIgnoreCase(sub, "bumpepoch"u8) && argc == 2)
        {
            bool bumped = state.BumpConfigEpochWithoutConsensus();
            ctx.Reply.SimpleString($"{(bumped ? "BUMPED" : "STILL")} {state.Myself.ConfigEpoch}");
            if (bumped) state.Changed();
        }
        else if (Ascii.EqualsIgnoreCase(sub, "info"u8) && argc == 2) ctx.Reply.Verbatim(Encoding.ASCII.GetBytes(Info(state)));
        else if (Ascii.EqualsIgnoreCase(sub, "saveconfig"u8) && argc == 2)
        {
            if (state.Save(out string? error)) ctx.Reply.Ok();
            else ctx.Error(RespErrors.SavingClusterConfig(error ?? "unknown error"));
        }
        else if (Ascii.EqualsIgnoreCase(sub, "keyslot"u8) && argc == 3) ctx.Reply.Integer(Crc16.HashSlot(ctx.Arg(2)));
        else if (Ascii.EqualsIgnoreCase(sub, "countkeysinslot"u8) && argc == 3) CountKeysInSlot(ref ctx);
        else if (Ascii.EqualsIgnoreCase(sub, "getkeysinslot"u8) && argc == 4) GetKeysInSlot(ref ctx);
        else if (Ascii.EqualsIgnoreCase(sub, "forget"u8) && argc == 3) Forget(ref ctx, state);
        else if (Ascii.EqualsIgnoreCase(sub, "replicate"u8) && argc == 3) Replicate(ref ctx, state);
        else if ((Ascii.EqualsIgnoreCase(sub, "slaves"u8) || Ascii.EqualsIgnoreCase(sub, "replicas"u8)) && argc == 3) Replicas(ref ctx, state);
        else if (Ascii.EqualsIgnoreCase(sub, "count-failure-reports"u8) && argc == 3)
        {
            if (state.Lookup(ctx.Arg(2)) is not { } n) ctx.Error(RespErrors.UnknownNode(ctx.Arg(2)));
            else lock (state.Sync) ctx.Reply.Integer(n.FailureReports.Count);
        }
        else if (Ascii.EqualsIgnoreCase(sub, "failover"u8) && argc is 2 or 3) Failover(ref ctx, state);
        else if (Ascii.EqualsIgnoreCase(sub, "set-config-epoch"u8) && argc == 3) SetConfigEpoch(ref ctx, state);
        else if (Ascii.EqualsIgnoreCase(sub, "reset"u8) && argc is 2 or 3) Reset(ref ctx, state);
        else if (Ascii.EqualsIgnoreCase(sub, "links"u8) && argc == 2) Links(ref ctx, state);
        else ctx.Error(RespErrors.SubcommandSyntax(ctx.Arg(0), sub));
    }

    /// <summary>Redis's getSlotOrReply: an integer in [0, 16383], or -1 after replying.</summary>
    private static int SlotOrReply(ref CommandContext ctx, int arg)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(arg), out long slot) || slot < 0 || slot >= ClusterState.Slots)
        {
            ctx.Error(RespErrors.InvalidSlot);
            return -1;
        }
        return (int)slot;
    }

    /// <summary>Redis's checkSlotAssignmentsOrReply over [start, end]; false after replying.</summary>
    private static bool CheckAssignments(ref CommandContext ctx, ClusterState state, byte[] seen, bool del, int start, int end)
    {
        for (int slot = start; slot <= end; slot++)
        {
            if (del && state.Owner(slot) == null)
            {
                ctx.Error(RespErrors.SlotAlreadyUnassigned(slot));
                return false;
            }
            if (!del && state.Owner(slot) != null)
            {
                ctx.Error(RespErrors.SlotAlreadyBusy(slot));
                return false;
            }
            if (seen[slot]++ == 1)
            {
                ctx.Error(RespErrors.SlotSpecifiedMultipleTimes(slot));
                return false;
            }
        }
        return true;
    }

    /// <summary>Redis's clusterUpdateSlots: assigns (or unassigns) the marked slots, ending imports of them.</summary>
    private static void UpdateSlots(ClusterState state, byte[] marked, bool del)
    {
        lock (state.Sync)
        {
            for (int j = 0; j < ClusterState.Slots; j++)
            {
                if (marked[j] == 0) continue;
                if (state.ImportingFrom(j) != null) state.SetImporting(j, null);
                if (del) state.DelSlot(j);
                else state.AddSlot(state.Myself, j);
            }
        }
        state.Changed(fsync: false);
    }

    /// <summary>CLUSTER ADDSLOTS slot [slot ...] / DELSLOTS slot [slot ...].</summary>
    private static void AddDelSlots(ref CommandContext ctx, ClusterState state, bool del)
    {
        for (int j = 2; j < ctx.ArgCount; j++)
            if (SlotOrReply(ref ctx, j) < 0) return;
        var seen = new byte[ClusterState.Slots];
        lock (state.Sync)
        {
            for (int j = 2; j < ctx.ArgCount; j++)
            {
                int slot = SlotOrReply(ref ctx, j);
                if (!CheckAssignments(ref ctx, state, seen, del, slot, slot)) return;
            }
            UpdateSlots(state, seen, del);
        }
        ctx.Reply.Ok();
    }

    /// <summary>CLUSTER ADDSLOTSRANGE start end [start end ...] / DELSLOTSRANGE start end [start end ...].</summary>
    private static void AddDelSlotsRange(ref CommandContext ctx, ClusterState state, bool del)
    {
        if (ctx.ArgCount % 2 == 1)
        {
            ctx.Error(RespErrors.WrongArity(del ? "cluster|delslotsrange" : "cluster|addslotsrange"));
            return;
        }
        var seen = new byte[ClusterState.Slots];
        lock (state.Sync)
        {
            for (int j = 2; j < ctx.ArgCount; j += 2)
            {
                int start = SlotOrReply(ref ctx, j);
                if (start < 0) return;
                int end = SlotOrReply(ref ctx, j + 1);
                if (end < 0) return;
                if (start > end)
                {
                    ctx.Error(RespErrors.StartSlotGreater(start, end));
                    return;
                }
                if (!CheckAssignments(ref ctx, state, seen, del, start, end)) return;
            }
            UpdateSlots(state, seen, del);
        }
        ctx.Reply.Ok();
    }

    /// <summary>Keys in database 0 on every shard (the caller holds every gate).</summary>
    private static long KeyCount(ref CommandContext ctx)
    {
        long n = 0;
        var shards = ctx.Server.Shards;
        for (int i = 0; i < shards.Count; i++) n += shards[i].Store[0].Count;
        return n;
    }

    /// <summary>Redis's countKeysInSlot (the caller holds the slot's shard's gate).</summary>
    internal static int CountKeysInSlot(Sharding.ShardSet shards, int slot)
        => shards[shards.ShardOfSlot(slot)].Store[0].Table.HashSlots?.Count(slot) ?? 0;

    /// <summary>The node SETSLOT ... MIGRATING|IMPORTING names: known and a master, else Redis's error (null).</summary>
    private static ClusterNode? SetSlotTarget(ref CommandContext ctx, ClusterState state)
    {
        if (state.Lookup(ctx.Arg(4)) is not { } n)
        {
            ctx.Error(RespErrors.DontKnowNode(ctx.Arg(4)));
            return null;
        }
        if (n.IsReplica)
        {
            ctx.Error(RespErrors.TargetNotMaster);
            return null;
        }
        return n;
    }

    /// <summary>CLUSTER FLUSHSLOTS — unassigns every slot of this node; database 0 must be empty.</summary>
    private static void FlushSlots(ref CommandContext ctx, ClusterState state)
    {
        if (KeyCount(ref ctx) != 0)
        {
            ctx.Error(RespErrors.FlushSlotsNotEmpty);
            return;
        }
        state.DelNodeSlots(state.Myself);
        state.Changed(fsync: false);
        ctx.Reply.Ok();
    }

    /// <summary>CLUSTER COUNTKEYSINSLOT slot — O(1) from the shard's slot index.</summary>
    private static void CountKeysInSlot(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long slot))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (slot < 0 || slot >= ClusterState.Slots)
        {
            ctx.Error(RespErrors.InvalidSlotShort);
            return;
        }
        ctx.Reply.Integer(CountKeysInSlot(ctx.Server.Shards, (int)slot));
    }

    /// <summary>CLUSTER GETKEYSINSLOT slot count — up to count keys of the slot, walking its list (O(count)).</summary>
    private static void GetKeysInSlot(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long slot) || !RedisNumbers.TryParseInt64(ctx.Arg(3), out long max))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (slot < 0 || slot >= ClusterState.Slots || max < 0)
        {
            ctx.Error(RespErrors.InvalidSlotOrCount);
            return;
        }
        var shards = ctx.Server.Shards;
        var table = shards[shards.ShardOfSlot((int)slot)].Store[0].Table;
        var index = table.HashSlots;
        int count = index?.Count((int)slot) ?? 0;
        long n = Math.Min(max, count);
        ctx.Reply.ArrayHeader(n);
        int at = n > 0 ? index!.First((int)slot) : -1;
        for (long j = 0; j < n; j++)
        {
            ctx.Reply.Bulk(table.At(at).Key);
            at = index!.Next(at);
        }
    }

    /// <summary>CLUSTER SETSLOT slot IMPORTING node-id | MIGRATING node-id | STABLE | NODE node-id.</summary>
    private static void SetSlot(ref CommandContext ctx, ClusterState state)
    {
        var me = state.Myself;
        if (me.IsReplica)
        {
            ctx.Error(RespErrors.SetSlotOnReplica);
            return;
        }
        int slot = SlotOrReply(ref ctx, 2);
        if (slot < 0) return;
        int argc = ctx.ArgCount;
        bool bumped = false; // a new configEpoch is fsynced (clusterBumpConfigEpochWithoutConsensus)
        if (ctx.ArgIs(3, "MIGRATING") && argc == 5)
        {
            if (state.Owner(slot) != me)
            {
                ctx.Error(RespErrors.NotSlotOwner(slot));
                return;
            }
            if (SetSlotTarget(ref ctx, state) is not { } n) return;
            state.SetMigrating(slot, n);
        }
        else if (ctx.ArgIs(3, "IMPORTING") && argc == 5)
        {
            if (state.Owner(slot) == me)
            {
                ctx.Error(RespErrors.AlreadySlotOwner(slot));
                return;
            }
            if (SetSlotTarget(ref ctx, state) is not { } n) return;
            state.SetImporting(slot, n);
        }
        else if (ctx.ArgIs(3, "STABLE") && argc == 4)
        {
            lock (state.Sync)
            {
                state.SetImporting(slot, null);
                state.SetMigrating(slot, null);
            }
        }
        else if (ctx.ArgIs(3, "NODE") && argc == 5)
        {
            if (state.Lookup(ctx.Arg(4)) is not { } n)
            {
                ctx.Error(RespErrors.UnknownNode(ctx.Arg(4)));
                return;
            }
            if (n.IsReplica)
            {
                ctx.Error(RespErrors.TargetNotMaster);
                return;
            }
            int keys = CountKeysInSlot(ctx.Server.Shards, slot);
            lock (state.Sync)
            {
                if (state.Owner(slot) == me && n != me && keys != 0)
                {
                    ctx.Error(RespErrors.SlotStillHasKeys(slot));
                    return;
                }
                if (keys == 0 && state.MigratingTo(slot) != null) state.SetMigrating(slot, null);
                bool wasMine = state.Owner(slot) == me;
                state.DelSlot(slot);
                state.AddSlot(n, slot);
                // A master left without slots follows the new owner (cluster-allow-replica-migration).
                if (wasMine && n != me && me.SlotCount == 0 && ctx.Server.Config.Value("cluster-allow-replica-migration") == "yes")
                {
                    ctx.Server.Log.Notice($"Configuration change detected. Reconfiguring myself as a replica of {n.Id} ({n.HumanNodename})");
                    BecomeReplicaOf(ref ctx, state, n);
                }
                if (n == me && state.ImportingFrom(slot) != null)
                {
                    // Closing a manual migration: a new epoch without consensus so the change wins
                    // (and a PONG tells every node at once, as Redis does).
                    bumped = state.BumpConfigEpochWithoutConsensus();
                    if (bumped) ctx.Server.Log.Notice($"configEpoch updated after importing slot {slot}");
                    state.Bus?.BroadcastPong();
                    state.SetImporting(slot, null);
                }
            }
        }
        else
        {
            ctx.Error(RespErrors.InvalidSetSlotAction);
            return;
        }
        state.Changed(fsync: bumped);
        ctx.Reply.Ok();
    }

    /// <summary>Redis's clusterSetMaster: the table says myself replicates <paramref name="master"/>, and replication follows it.</summary>
    private static void BecomeReplicaOf(ref CommandContext ctx, ClusterState state, ClusterNode master)
    {
        state.SetReplicaOf(state.Myself, master);
        // The link itself: the replication slice's replica side, at the master's announced address.
        if (master.Ip.Length > 0) ctx.Server.Replica.SetMaster(master.Ip, state.ReplicationPort(master));
    }

    /// <summary>CLUSTER MEET ip port [cport] — checks the address as Redis's clusterStartHandshake; the bus connects.</summary>
    private static void Meet(ref CommandContext ctx, ClusterState state)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(3), out long port))
        {
            ctx.Error(RespErrors.InvalidBasePort(ctx.Arg(3)));
            return;
        }
        long cport = port + 10000;
        if (ctx.ArgCount == 5 && !RedisNumbers.TryParseInt64(ctx.Arg(4), out cport))
        {
            ctx.Error(RespErrors.InvalidBusPort(ctx.Arg(4)));
            return;
        }
        string ip = ctx.ArgString(2);
        if (!TryNormalizeIp(ip, out string normalized) || port <= 0 || port > 65535 || cport <= 0 || cport > 65535)
        {
            ctx.Error(RespErrors.InvalidNodeAddress(ctx.Arg(2), ctx.Arg(3)));
            return;
        }
        state.StartHandshake(normalized, (int)port, (int)cport);
        ctx.Reply.Ok();
    }

    /// <summary>inet_pton then inet_ntop, as Redis checks a MEET address: a numeric IPv4 or IPv6 address only.</summary>
    private static bool TryNormalizeIp(string ip, out string normalized)
    {
        normalized = "";
        bool v6 = ip.Contains(':');
        if (!v6 && (ip.Split('.').Length != 4 || !ip.All(c => char.IsAsciiDigit(c) || c == '.'))) return false;
        if (!IPAddress.TryParse(ip, out var address)) return false;
        normalized = address.ToString();
        return true;
    }

    /// <summary>CLUSTER SLOTS — each run of slots with one owner, its master then its available replicas.</summary>
    private static void Slots(ref CommandContext ctx, ClusterState state)
    {
        var server = ctx.Server;
        string endpointType = server.Config.Value("cluster-preferred-endpoint-type");
        lock (state.Sync)
        {
            var runs = new List<(int Start, int End, ClusterNode Node)>();
            int start = 0;
            for (int i = 1; i <= ClusterState.Slots; i++)
            {
                if (i < ClusterState.Slots && state.Owner(i) == state.Owner(start)) continue;
                if (state.Owner(start) is { } n) runs.Add((start, i - 1, n));
                start = i;
            }
            ctx.Reply.ArrayHeader(runs.Count);
            foreach (var (s, e, n) in runs)
            {
                var replicas = n.Replicas.Where(r => ReplicaAvailable(server, r)).ToList();
                ctx.Reply.ArrayHeader(3 + replicas.Count);
                ctx.Reply.Integer(s);
                ctx.Reply.Integer(e);
                NodeEntry(ref ctx, n, endpointType);
                foreach (var r in replicas) NodeEntry(ref ctx, r, endpointType);
            }
        }
    }

    /// <summary>Redis's isReplicaAvailable: not failed, and some replication offset known.</summary>
    private static bool ReplicaAvailable(Server.RedisServer server, ClusterNode node)
    {
        if (node.Failed) return false;
        long offset = node.IsMyself ? server.Replication.Offset : node.ReplOffset;
        return offset != 0;
    }

    /// <summary>Redis's addNodeToNodeReply: endpoint, port, id, then a map of the other known addresses.</summary>
    private static void NodeEntry(ref CommandContext ctx, ClusterNode node, string endpointType)
    {
        ctx.Reply.ArrayHeader(4);
        switch (endpointType)
        {
            case "ip": ctx.Reply.Bulk(node.Ip); break;
            case "hostname": ctx.Reply.Bulk(node.Hostname.Length > 0 ? node.Hostname : "?"); break;
            default: ctx.Reply.NullBulk(); break;
        }
        ctx.Reply.Integer(ClientPort(ctx.Client, node));
        ctx.Reply.Bulk(node.Id);
        bool ip = endpointType != "ip", hostname = endpointType != "hostname" && node.Hostname.Length > 0;
        ctx.Reply.MapHeader((ip ? 1 : 0) + (hostname ? 1 : 0));
        if (ip)
        {
            ctx.Reply.Bulk("ip"u8);
            ctx.Reply.Bulk(node.Ip);
        }
        if (hostname)
        {
            ctx.Reply.Bulk("hostname"u8);
            ctx.Reply.Bulk(node.Hostname);
        }
    }

    /// <summary>The preferred endpoint of a node (Redis's getPreferredEndpoint): MOVED, ASK and CLUSTER SHARDS.</summary>
    /// <summary>
    /// Redis 7.2's getNodeClientPort(node, shouldReturnTlsInfo()): the TLS port to a client of the
    /// TLS port (a script's caller decides for the script), the plain one otherwise.
    /// </summary>
    internal static int ClientPort(ClientSession session, ClusterNode node) => (session.ScriptCaller ?? session).Tls ? node.TlsPort : node.Port;

    internal static string PreferredEndpoint(Server.RedisServer server, ClusterNode node) => server.Config.Value("cluster-preferred-endpoint-type") switch
    {
        "ip" => node.Ip,
        "hostname" => node.Hostname.Length > 0 ? node.Hostname : "?",
        _ => "",
    };

    /// <summary>CLUSTER SHARDS — per shard: its slot ranges, then each node's details.</summary>
    private static void Shards(ref CommandContext ctx, ClusterState state)
    {
        lock (state.Sync)
        {
            var ranges = state.SlotRanges();
            var shards = new Dictionary<string, List<ClusterNode>>(StringComparer.Ordinal);
            foreach (var n in state.Nodes)
            {
                if (!shards.TryGetValue(n.ShardId, out var list)) shards[n.ShardId] = list = new List<ClusterNode>();
                list.Add(n);
            }
            ctx.Reply.ArrayHeader(shards.Count);
            foreach (var nodes in shards.Values)
            {
                ctx.Reply.MapHeader(2);
                ctx.Reply.Bulk("slots"u8);
                var master = nodes[0].MasterOrSelf;
                if (ranges.TryGetValue(master, out var list))
                {
                    ctx.Reply.ArrayHeader(list.Count * 2);
                    foreach (var (s, e) in list)
                    {
                        ctx.Reply.Integer(s);
                        ctx.Reply.Integer(e);
                    }
                }
                else ctx.Reply.ArrayHeader(0);
                ctx.Reply.Bulk("nodes"u8);
                ctx.Reply.ArrayHeader(nodes.Count);
                foreach (var n in nodes) ShardNode(ref ctx, n);
            }
        }
    }

    /// <summary>Redis's addNodeDetailsToShardReply.</summary>
    private static void ShardNode(ref CommandContext ctx, ClusterNode node)
    {
        int fields = 6 + (node.Port != 0 ? 1 : 0) + (node.TlsPort != 0 ? 1 : 0) + (node.Hostname.Length > 0 ? 1 : 0);
        var r = ctx.Reply;
        r.MapHeader(fields);
        r.Bulk("id"u8);
        r.Bulk(node.Id);
        if (node.Port != 0)
        {
            r.Bulk("port"u8);
            r.Integer(node.Port);
        }
        if (node.TlsPort != 0)
        {
            r.Bulk("tls-port"u8);
            r.Integer(node.TlsPort);
        }
        r.Bulk("ip"u8);
        r.Bulk(node.Ip);
        r.Bulk("endpoint"u8);
        r.Bulk(PreferredEndpoint(ctx.Server, node));
        if (node.Hostname.Length > 0)
        {
            r.Bulk("hostname"u8);
            r.Bulk(node.Hostname);
        }
        long offset = node.IsMyself ? ctx.Server.Replication.Offset : node.ReplOffset;
        r.Bulk("role"u8);
        r.Bulk(node.IsReplica ? "replica"u8 : "master"u8);
        r.Bulk("replication-offset"u8);
        r.Integer(offset);
        r.Bulk("health"u8);
        r.Bulk(node.Failed ? "fail"u8 : node.IsReplica && offset == 0 ? "loading"u8 : "online"u8);
    }

    /// <summary>CLUSTER INFO's text (Redis's genClusterInfoString).</summary>
    internal static string Info(ClusterState state)
    {
        int assigned = 0, ok = 0, pfail = 0, fail = 0;
        ulong myEpoch;
        int known;
        lock (state.Sync)
        {
            for (int j = 0; j < ClusterState.Slots; j++)
            {
                if (state.Owner(j) is not { } n) continue;
                assigned++;
                if (n.Failed) fail++;
                else if (n.TimedOut) pfail++;
                else ok++;
            }
            var me = state.Myself;
            myEpoch = me.IsReplica && me.Master != null ? me.Master.ConfigEpoch : me.ConfigEpoch;
            known = state.Nodes.Count;
        }
        var sb = new StringBuilder();
        var inv = CultureInfo.InvariantCulture;
        sb.Append("cluster_state:").Append(state.StateOk ? "ok" : "fail").Append("\r\n")
          .Append("cluster_slots_assigned:").Append(assigned.ToString(inv)).Append("\r\n")
          .Append("cluster_slots_ok:").Append(ok.ToString(inv)).Append("\r\n")
          .Append("cluster_slots_pfail:").Append(pfail.ToString(inv)).Append("\r\n")
          .Append("cluster_slots_fail:").Append(fail.ToString(inv)).Append("\r\n")
          .Append("cluster_known_nodes:").Append(known.ToString(inv)).Append("\r\n")
          .Append("cluster_size:").Append(state.Size.ToString(inv)).Append("\r\n")
          .Append("cluster_current_epoch:").Append(state.CurrentEpoch.ToString(inv)).Append("\r\n")
          .Append("cluster_my_epoch:").Append(myEpoch.ToString(inv)).Append("\r\n");
        // The bus's message counters, by type.
        if (state.Bus is { } bus) bus.AppendStats(sb);
        else
            sb.Append("cluster_stats_messages_sent:0\r\n")
              .Append("cluster_stats_messages_received:0\r\n")
              .Append("total_cluster_links_buffer_limit_exceeded:0\r\n");
        return sb.ToString();
    }

    /// <summary>CLUSTER LINKS: one map per bus link (Redis's addReplyClusterLinkDescription).</summary>
    private static void Links(ref CommandContext ctx, ClusterState state)
    {
        var links = state.Bus?.Links() ?? [];
        ctx.Reply.ArrayHeader(links.Count);
        foreach (var l in links)
        {
            ctx.Reply.MapHeader(6);
            ctx.Reply.Bulk("direction"u8);
            ctx.Reply.Bulk(l.Direction);
            ctx.Reply.Bulk("node"u8);
            ctx.Reply.Bulk(l.Node);
            ctx.Reply.Bulk("create-time"u8);
            ctx.Reply.Integer(l.CreateTime);
            ctx.Reply.Bulk("events"u8);
            ctx.Reply.Bulk("r"u8);
            ctx.Reply.Bulk("send-buffer-allocated"u8);
            ctx.Reply.Integer(l.SendBufferAllocated);
            ctx.Reply.Bulk("send-buffer-used"u8);
            ctx.Reply.Integer(l.SendBufferUsed);
        }
    }

    /// <summary>CLUSTER FORGET node-id.</summary>
    private static void Forget(ref CommandContext ctx, ClusterState state)
    {
        var n = state.Lookup(ctx.Arg(2));
        if (n == null)
        {
            if (state.IsForgotten(ctx.ArgString(2))) ctx.Reply.Ok();
            else ctx.Error(RespErrors.UnknownNode(ctx.Arg(2)));
            return;
        }
        if (n == state.Myself)
        {
            ctx.Error(RespErrors.CantForgetMyself);
            return;
        }
        if (state.Myself.IsReplica && state.Myself.Master == n)
        {
            ctx.Error(RespErrors.CantForgetMaster);
            return;
        }
        state.RemoveNode(n, forget: true);
        state.Changed(fsync: false);
        ctx.Reply.Ok();
    }

    /// <summary>CLUSTER REPLICATE node-id.</summary>
    private static void Replicate(ref CommandContext ctx, ClusterState state)
    {
        var n = state.Lookup(ctx.Arg(2));
        if (n == null)
        {
            ctx.Error(RespErrors.UnknownNode(ctx.Arg(2)));
            return;
        }
        if (n == state.Myself)
        {
            ctx.Error(RespErrors.CantReplicateMyself);
            return;
        }
        if (n.IsReplica)
        {
            ctx.Error(RespErrors.CanOnlyReplicateMaster);
            return;
        }
        if (state.Myself.IsMaster && (state.Myself.SlotCount != 0 || KeyCount(ref ctx) != 0))
        {
            ctx.Error(RespErrors.ReplicateNotEmpty);
            return;
        }
        BecomeReplicaOf(ref ctx, state, n);
        state.Changed(fsync: false);
        ctx.Reply.Ok();
    }

    /// <summary>CLUSTER REPLICAS node-id / SLAVES node-id — one CLUSTER NODES line per replica.</summary>
    private static void Replicas(ref CommandContext ctx, ClusterState state)
    {
        var n = state.Lookup(ctx.Arg(2));
        if (n == null)
        {
            ctx.Error(RespErrors.UnknownNode(ctx.Arg(2)));
            return;
        }
        if (n.IsReplica)
        {
            ctx.Error(RespErrors.NodeNotMaster);
            return;
        }
        lock (state.Sync)
        {
            var ranges = state.SlotRanges();
            ctx.Reply.ArrayHeader(n.Replicas.Count);
            foreach (var r in n.Replicas)
            {
                var sb = new StringBuilder();
                NodesFile.DescribeNode(sb, state, r, forFile: false, (ctx.Client.ScriptCaller ?? ctx.Client).Tls, ranges);
                ctx.Reply.Bulk(Encoding.Latin1.GetBytes(sb.ToString()));
            }
        }
    }

    /// <summary>CLUSTER FAILOVER [FORCE|TAKEOVER] — the checks; TAKEOVER at once; the others started on the bus.</summary>
    private static void Failover(ref CommandContext ctx, ClusterState state)
    {
        bool force = false, takeover = false;
        if (ctx.ArgCount == 3)
        {
            if (ctx.ArgIs(2, "FORCE")) force = true;
            else if (ctx.ArgIs(2, "TAKEOVER")) takeover = force = true;
            else
            {
                ctx.Syntax();
                return;
            }
        }
        var me = state.Myself;
        if (me.IsMaster)
        {
            ctx.Error(RespErrors.FailoverOnMaster);
            return;
        }
        if (me.Master == null)
        {
            ctx.Error(RespErrors.FailoverMasterUnknown);
            return;
        }
        if (!force && (me.Master.Failed || !me.Master.LinkConnected))
        {
            ctx.Error(RespErrors.FailoverMasterDown);
            return;
        }
        if (takeover)
        {
            ctx.Server.Log.Notice("Taking over the master (user request).");
            state.BumpConfigEpochWithoutConsensus();
            state.ReplaceMyMaster();
            ctx.Server.Replica.UnsetMaster();
            state.Changed();
            state.Bus?.BroadcastPong(); // clusterFailoverReplaceYourMaster tells everyone at once
        }
        else
        {
            if (state.Bus is { } bus) bus.ManualFailover(force);
            else state.RequestManualFailover(force);
        }
        ctx.Reply.Ok();
    }

    /// <summary>CLUSTER SET-CONFIG-EPOCH epoch — only on a node that knows no other node and has epoch 0.</summary>
    private static void SetConfigEpoch(ref CommandContext ctx, ClusterState state)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long epoch))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        lock (state.Sync)
        {
            if (epoch < 0) ctx.Error(RespErrors.InvalidConfigEpoch(epoch));
            else if (state.Nodes.Count > 1) ctx.Error(RespErrors.ConfigEpochOtherNodes);
            else if (state.Myself.ConfigEpoch != 0) ctx.Error(RespErrors.ConfigEpochNonZero);
            else
            {
                state.Myself.ConfigEpoch = (ulong)epoch;
                ctx.Server.Log.Notice($"configEpoch set to {epoch} via CLUSTER SET-CONFIG-EPOCH");
                if (state.CurrentEpoch < (ulong)epoch) state.CurrentEpoch = (ulong)epoch;
                ctx.Reply.Ok();
            }
        }
        if (!ctx.Failed) state.Changed();
    }

    /// <summary>CLUSTER RESET [HARD|SOFT] — a master must hold no keys.</summary>
    private static void Reset(ref CommandContext ctx, ClusterState state)
    {
        bool hard = false;
        if (ctx.ArgCount == 3)
        {
            if (ctx.ArgIs(2, "HARD")) hard = true;
            else if (!ctx.ArgIs(2, "SOFT"))
            {
                ctx.Syntax();
                return;
            }
        }
        if (state.Myself.IsMaster && KeyCount(ref ctx) != 0)
        {
            ctx.Error(RespErrors.ResetMasterWithKeys);
            return;
        }
        if (state.Myself.IsReplica)
        {
            // A replica becomes an empty master (Redis's clusterReset: replicationUnsetMaster, emptyData).
            ctx.Server.Replica.UnsetMaster();
            var shards = ctx.Server.Shards;
            for (int i = 0; i < shards.Count; i++) shards[i].Store[0].Clear();
        }
        state.Reset(hard);
        ctx.Reply.Ok();
    }

    // ------------------------------------------------------------------ ASKING, READONLY, READWRITE

    /// <summary>ASKING — the next command may use a slot this node is importing.</summary>
    public static void Asking(ref CommandContext ctx)
    {
        if (Enabled(ref ctx) == null) return;
        ctx.Client.ClusterFlags |= ClientClusterFlags.Asking;
        ctx.Reply.Ok();
    }

    /// <summary>READONLY — a replica serves this client's reads of its master's slots.</summary>
    public static void ReadOnly(ref CommandContext ctx)
    {
        if (Enabled(ref ctx) == null) return;
        ctx.Client.ClusterFlags |= ClientClusterFlags.ReadOnly;
        ctx.Reply.Ok();
    }

    /// <summary>READWRITE — ends READONLY.</summary>
    public static void ReadWrite(ref CommandContext ctx)
    {
        if (Enabled(ref ctx) == null) return;
        ctx.Client.ClusterFlags &= ~ClientClusterFlags.ReadOnly;
        ctx.Reply.Ok();
    }
}
