using RedisClone.Tests.Cluster.Bus;
using RedisClone.Tests.Infrastructure;
using static RedisClone.Tests.Cluster.ClusterTools;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// The real redis-cli --cluster tools (check, info, call, fix, reshard, rebalance, add-node,
/// del-node) driving clusters of this server and mixed ones with redis-server 7.0.15, each checked
/// by its effect: the slot table every node shows, and every key still there with its value and
/// TTL. Skipped when redis-cli (or, for the mixed ones, redis-server) is missing.
/// </summary>
public sealed class ClusterToolsTests
{
    private static bool NoCli => ReferenceRedis.CliPath == null;

    /// <summary>Three masters of this server made by redis-cli --cluster create.</summary>
    private static async Task<OurCluster> CreateOursAsync(int extra = 0)
    {
        var c = OurCluster.Start(3 + extra);
        Cli($"--cluster create 127.0.0.1:{c[0].Port} 127.0.0.1:{c[1].Port} 127.0.0.1:{c[2].Port} --cluster-yes", timeoutMs: 120_000);
        await WaitCheckedAsync(c[0].Port);
        return c;
    }

    private static int[] Ports(OurCluster c, int count) => Enumerable.Range(0, count).Select(i => c[i].Port).ToArray();

    [Fact]
    public async Task RedisCliCheckInfoCall_OurCluster_ReportKeysAndRunEverywhere()
    {
        if (NoCli) return;
        await using var c = await CreateOursAsync();
        Fill(c[0].Port, "ci", 900);

        string info = Cli($"--cluster info 127.0.0.1:{c[1].Port}");
        Assert.Contains("[OK] 900 keys in 3 masters.", info);
        long listed = 0;
        foreach (var port in Ports(c, 3))
        {
            var m = System.Text.RegularExpressions.Regex.Match(info, $@"127\.0\.0\.1:{port} \(\w+\.\.\.\) -> (\d+) keys \| (\d+) slots \| 0 slaves\.");
            Assert.True(m.Success, info);
            listed += long.Parse(m.Groups[1].Value);
            Assert.Equal(long.Parse(Call(port, "DBSIZE")[1..]), long.Parse(m.Groups[1].Value));
        }
        Assert.Equal(900, listed);

        string called = Cli($"--cluster call 127.0.0.1:{c[0].Port} CONFIG SET cluster-node-timeout 6000");
        foreach (var port in Ports(c, 3))
        {
            Assert.Contains($"127.0.0.1:{port}: OK", called);
            Assert.Contains("6000", Call(port, "CONFIG", "GET", "cluster-node-timeout"));
        }
        called = Cli($"--cluster call 127.0.0.1:{c[0].Port} DBSIZE");
        foreach (var port in Ports(c, 3)) Assert.Contains($"127.0.0.1:{port}: {Call(port, "DBSIZE")[1..]}", called);

        string check = Cli($"--cluster check 127.0.0.1:{c[2].Port}");
        Assert.Contains("[OK] All nodes agree about slots configuration.", check);
        Assert.Contains("[OK] All 16384 slots covered.", check);
        VerifyFill(c[0].Port, "ci", 900);
    }

    [Fact]
    public async Task RedisCliReshard_OurNodesBigListAndTtls_EveryKeyMovesWithValue()
    {
        if (NoCli) return;
        await using var c = await CreateOursAsync();
        Fill(c[0].Port, "rs", 3000);
        // A list of 100,000 elements in a slot among the first 120 of node 0 (redis-cli takes a source's slots in order).
        string big = KeyInSlot("big", 77);
        for (int at = 0; at < 100_000; at += 5000)
        {
            var args = new List<string> { "RPUSH", big };
            args.AddRange(Enumerable.Range(at, 5000).Select(i => i.ToString()));
            Call(c[0].Port, args.ToArray());
        }
        Assert.Equal(":100000", Call(c[0].Port, "LLEN", big));
        string id0 = Call(c[0].Port, "CLUSTER", "MYID"), id1 = Call(c[1].Port, "CLUSTER", "MYID");

        string output = Cli($"--cluster reshard 127.0.0.1:{c[2].Port} --cluster-from {id0} --cluster-to {id1} --cluster-slots 120 --cluster-yes --cluster-pipeline 7");
        Assert.Contains("Moving slot 77 from", output);
        await WaitCheckedAsync(c[0].Port);

        var counts = SlotCounts(c[2].Port);
        Assert.Equal(5461 - 120, counts[c[0].Port]);
        Assert.Equal(5462 + 120, counts[c[1].Port]);
        for (int s = 0; s < 120; s++) Assert.Equal(":0", Call(c[0].Port, "CLUSTER", "COUNTKEYSINSLOT", s.ToString()));
        Assert.Equal(":100000", Call(c[1].Port, "LLEN", big));
        Assert.Equal("99999", Call(c[1].Port, "LINDEX", big, "-1"));
        Assert.Equal($"-MOVED 77 127.0.0.1:{c[1].Port}", Call(c[0].Port, "LLEN", big));
        VerifyFill(c[0].Port, "rs", 3000);
        Assert.Equal(3001, MasterKeys(Ports(c, 3)));
    }

    [RedisFact]
    public async Task RedisCliReshard_MixedWithRedisServer_SlotsMoveBothWaysWithTheirKeys()
    {
        if (NoCli) return;
        using var redis = ClusterRedis.Start("--cluster-node-timeout 5000");
        Assert.NotNull(redis);
        await using var c = OurCluster.Start(2);
        Cli($"--cluster create 127.0.0.1:{redis.Port} 127.0.0.1:{c[0].Port} 127.0.0.1:{c[1].Port} --cluster-yes", timeoutMs: 120_000);
        await WaitCheckedAsync(c[0].Port);
        Fill(c[0].Port, "mx", 3000);
        // A key of each type, checked by content after both moves.
        var owners = SlotOwners(redis.Port);
        string[] typed = ["mx-hash", "mx-set", "mx-zset", "mx-list", "mx-stream"];
        Call(owners[Slot("mx-hash")], "HSET", "mx-hash", "f1", "a", "f2", "b");
        Call(owners[Slot("mx-set")], "SADD", "mx-set", "x", "y", "1", "2");
        Call(owners[Slot("mx-zset")], "ZADD", "mx-zset", "1.5", "a", "2", "b");
        Call(owners[Slot("mx-list")], "RPUSH", "mx-list", "a", "b", "c");
        Call(owners[Slot("mx-stream")], "XADD", "mx-stream", "1-1", "f", "v");
        string theirId = Call(redis.Port, "CLUSTER", "MYID"), ourId = Call(c[0].Port, "CLUSTER", "MYID");

        // Every slot of redis-server to our node 0, then 2,000 of ours back to redis-server.
        Cli($"--cluster reshard 127.0.0.1:{c[1].Port} --cluster-from {theirId} --cluster-to {ourId} --cluster-slots 5461 --cluster-yes --cluster-pipeline 50");
        await WaitCheckedAsync(redis.Port);
        Assert.False(SlotCounts(c[1].Port).ContainsKey(redis.Port));
        VerifyFill(c[0].Port, "mx", 3000);
        // redis-server, left without slots, became a replica of the node that took them (7.0's replica migration).
        await Eventually.WaitFor(() => Nodes(redis.Port).Any(n => n.Flags.Contains("myself,slave") && n.Master == ourId), () => Call(redis.Port, "CLUSTER", "NODES"), 30);

        Cli($"--cluster reshard 127.0.0.1:{redis.Port} --cluster-from {ourId} --cluster-to {Call(c[1].Port, "CLUSTER", "MYID")} --cluster-slots 2000 --cluster-yes");
        await WaitCheckedAsync(c[1].Port);
        VerifyFill(redis.Port, "mx", 3000);
        foreach (var key in typed) Assert.NotEqual(0, SlotOwners(c[0].Port)[Slot(key)]);
        owners = SlotOwners(c[0].Port);
        Assert.Equal("*4\r\n$2\r\nf1\r\n$1\r\na\r\n$2\r\nf2\r\n$1\r\nb\r\n", Raw(owners[Slot("mx-hash")], "HGETALL", "mx-hash"));
        Assert.Equal(":4", Call(owners[Slot("mx-set")], "SCARD", "mx-set"));
        Assert.Equal("1.5", Call(owners[Slot("mx-zset")], "ZSCORE", "mx-zset", "a"));
        Assert.Equal("c", Call(owners[Slot("mx-list")], "LINDEX", "mx-list", "2"));
        Assert.Equal(":1", Call(owners[Slot("mx-stream")], "XLEN", "mx-stream"));
        Assert.Equal(3005, MasterKeys([redis.Port, c[0].Port, c[1].Port]));
    }

    /// <summary>Both directions between a redis-server master and ours, the slots of redis-server given back to it.</summary>
    [RedisFact]
    public async Task RedisCliReshard_FromOursToRedisServer_KeysLandThereWithTtls()
    {
        if (NoCli) return;
        using var r1 = ClusterRedis.Start("--cluster-node-timeout 5000");
        using var r2 = ClusterRedis.Start("--cluster-node-timeout 5000");
        Assert.NotNull(r1);
        Assert.NotNull(r2);
        await using var c = OurCluster.Start(1);
        Cli($"--cluster create 127.0.0.1:{c[0].Port} 127.0.0.1:{r1.Port} 127.0.0.1:{r2.Port} --cluster-yes", timeoutMs: 120_000);
        await WaitCheckedAsync(c[0].Port);
        Fill(r1.Port, "fo", 2000);
        string ourId = Call(c[0].Port, "CLUSTER", "MYID"), r1Id = Call(r1.Port, "CLUSTER", "MYID");
        long ourKeys = long.Parse(Call(c[0].Port, "DBSIZE")[1..]);
        Assert.True(ourKeys > 0);

        Cli($"--cluster reshard 127.0.0.1:{r2.Port} --cluster-from {ourId} --cluster-to {r1Id} --cluster-slots 3000 --cluster-yes --cluster-pipeline 10");
        await WaitCheckedAsync(r1.Port);
        VerifyFill(r2.Port, "fo", 2000);
        Assert.Equal(2000, MasterKeys([c[0].Port, r1.Port, r2.Port]));
        Assert.True(long.Parse(Call(c[0].Port, "DBSIZE")[1..]) < ourKeys);
    }

    private static string Raw(int port, params string[] args)
    {
        using var r = new RespClient(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, port));
        return r.Call(args);
    }

    [Fact]
    public async Task RedisCliRebalance_WeightsEmptyMastersThreshold_SlotsFollowTheWeights()
    {
        if (NoCli) return;
        await using var c = await CreateOursAsync(extra: 1);
        Fill(c[0].Port, "rb", 2000);
        Cli($"--cluster add-node 127.0.0.1:{c[3].Port} 127.0.0.1:{c[0].Port}");
        await WaitKnownAsync(Ports(c, 4), 4);
        await WaitCheckedAsync(c[0].Port);

        // Without --cluster-use-empty-masters the empty master takes nothing; the others are balanced.
        string output = Cli($"--cluster rebalance 127.0.0.1:{c[0].Port}");
        Assert.Contains("No rebalancing needed!", output);
        // Weight 1.1 for node 0 asks it to hold 5,813 slots instead of 5,461 (6.4% more): under a
        // threshold of 10% nothing moves. (An empty master is always over any threshold: redis-cli
        // divides by its slot count.)
        string id0 = Call(c[0].Port, "CLUSTER", "MYID"), id3 = Call(c[3].Port, "CLUSTER", "MYID");
        output = Cli($"--cluster rebalance 127.0.0.1:{c[0].Port} --cluster-weight {id0}=1.1 --cluster-threshold 10");
        Assert.Contains("No rebalancing needed! All nodes are within the 10.00% threshold.", output);
        Assert.Equal(5461, SlotCounts(c[1].Port)[c[0].Port]);

        // Weight 0.1 against 1 for the others: the empty master gets about 16384 * 0.1 / 3.1 = 528 slots.
        output = Cli($"--cluster rebalance 127.0.0.1:{c[0].Port} --cluster-weight {id3}=0.1 --cluster-use-empty-masters --cluster-pipeline 5");
        Assert.Contains("Rebalancing across 4 nodes", output);
        await WaitCheckedAsync(c[1].Port);
        var counts = SlotCounts(c[2].Port);
        Assert.InRange(counts[c[3].Port], 480, 580);
        Assert.Equal(16384, counts.Values.Sum());
        VerifyFill(c[3].Port, "rb", 2000);
        Assert.True(long.Parse(Call(c[3].Port, "DBSIZE")[1..]) > 0);
        Assert.Equal(2000, MasterKeys(Ports(c, 4)));
    }

    [RedisFact]
    public async Task RedisCliAddNodeDelNode_MastersAndReplicasOfBothKinds_JoinAndLeave()
    {
        if (NoCli) return;
        using var redis = ClusterRedis.Start("--cluster-node-timeout 5000");
        Assert.NotNull(redis);
        await using var c = await CreateOursAsync(extra: 2);
        Fill(c[0].Port, "ad", 1000);
        string id0 = Call(c[0].Port, "CLUSTER", "MYID");

        // redis-server as a replica of our node 0, named; our node 3 as a replica of whichever master redis-cli picks; our node 4 as a master.
        Cli($"--cluster add-node 127.0.0.1:{redis.Port} 127.0.0.1:{c[1].Port} --cluster-slave --cluster-master-id {id0}");
        await WaitKnownAsync([.. Ports(c, 3), redis.Port], 4);
        await WaitCheckedAsync(c[0].Port);
        Cli($"--cluster add-node 127.0.0.1:{c[3].Port} 127.0.0.1:{c[0].Port} --cluster-slave");
        await WaitKnownAsync([.. Ports(c, 4), redis.Port], 5);
        await WaitCheckedAsync(c[0].Port);
        Cli($"--cluster add-node 127.0.0.1:{c[4].Port} 127.0.0.1:{redis.Port}");
        int[] all = [.. Ports(c, 5), redis.Port];
        await WaitKnownAsync(all, 6);
        await WaitCheckedAsync(c[4].Port);

        string theirId = Call(redis.Port, "CLUSTER", "MYID"), id3 = Call(c[3].Port, "CLUSTER", "MYID"), id4 = Call(c[4].Port, "CLUSTER", "MYID");
        await Eventually.WaitFor(() => all.All(port =>
        {
            var nodes = Nodes(port);
            return nodes.Any(n => n.Id == theirId && n.Flags.Contains("slave") && n.Master == id0)
                   && nodes.Any(n => n.Id == id3 && n.Flags.Contains("slave") && n.Master != "-")
                   && nodes.Any(n => n.Id == id4 && n.Flags.Contains("master") && n.Slots.Length == 0);
        }), () => string.Join("\n--\n", all.Select(p => Call(p, "CLUSTER", "NODES"))), 60);
        string master3 = Nodes(c[0].Port).First(n => n.Id == id3).Master;
        int master3Port = Nodes(c[0].Port).First(n => n.Id == master3).Port;
        await Eventually.WaitFor(() => Call(redis.Port, "DBSIZE") == Call(c[0].Port, "DBSIZE") && Call(c[3].Port, "DBSIZE") == Call(master3Port, "DBSIZE"),
            () => Call(redis.Port, "INFO", "replication") + Call(c[3].Port, "INFO", "replication"), 60);

        // del-node: the empty master, redis-server's replica and our replica leave every node's table, and stay out.
        Cli($"--cluster del-node 127.0.0.1:{c[0].Port} {id4}");
        Cli($"--cluster del-node 127.0.0.1:{c[0].Port} {theirId}");
        Cli($"--cluster del-node 127.0.0.1:{c[1].Port} {id3}");
        int[] left = Ports(c, 3);
        await WaitKnownAsync(left, 3);
        await Task.Delay(3000); // gossip rounds in which a forgotten node must not come back
        foreach (int port in left)
        {
            string nodes = Call(port, "CLUSTER", "NODES");
            Assert.DoesNotContain(id4, nodes);
            Assert.DoesNotContain(theirId, nodes);
            Assert.DoesNotContain(id3, nodes);
        }
        // The deleted nodes were reset: each knows only itself.
        foreach (int port in new[] { c[3].Port, c[4].Port, redis.Port })
            Assert.Single(Call(port, "CLUSTER", "NODES").Split('\n', StringSplitOptions.RemoveEmptyEntries));
        await WaitCheckedAsync(c[0].Port);
        VerifyFill(c[0].Port, "ad", 1000);
    }

    [Fact]
    public async Task RedisCliFix_OpenSlotAndUnassignedSlots_Repaired()
    {
        if (NoCli) return;
        await using var c = await CreateOursAsync();
        Fill(c[0].Port, "fx", 2000);
        string id0 = Call(c[0].Port, "CLUSTER", "MYID"), id1 = Call(c[1].Port, "CLUSTER", "MYID");

        // An open slot: node 0 migrating it to node 1, which imports it, half of its keys moved.
        var keysPerSlot = Enumerable.Range(0, 2000).GroupBy(i => Slot(FillKey("fx", i))).ToDictionary(g => g.Key, g => g.Count());
        int open = keysPerSlot.Where(kv => kv.Key < 5461 && kv.Value >= 2).Select(kv => kv.Key).Min();
        Assert.Equal("+OK", Call(c[1].Port, "CLUSTER", "SETSLOT", open.ToString(), "IMPORTING", id0));
        Assert.Equal("+OK", Call(c[0].Port, "CLUSTER", "SETSLOT", open.ToString(), "MIGRATING", id1));
        string firstKey = FillKey("fx", Enumerable.Range(0, 2000).First(i => Slot(FillKey("fx", i)) == open));
        Assert.Equal("+OK", Call(c[0].Port, "MIGRATE", "127.0.0.1", c[1].Port.ToString(), "", "0", "5000", "KEYS", firstKey));
        Assert.Contains("open", Ansi2(c[0].Port));

        // fix moves the slot's keys to the node holding most of them (node 0) and closes the slot everywhere.
        string output = Cli($"--cluster fix 127.0.0.1:{c[0].Port}");
        Assert.Contains($"Fixing open slot {open}", output);
        await WaitCheckedAsync(c[2].Port);
        Assert.Equal(c[0].Port, SlotOwners(c[1].Port)[open]);
        Assert.Equal($":{keysPerSlot[open]}", Call(c[0].Port, "CLUSTER", "COUNTKEYSINSLOT", open.ToString()));

        // Unassigned slots: one without keys (no node claims it), one whose keys are on node 2. (Not
        // together with the open slot: while a slot is unassigned the cluster is down, and the
        // importing node, ours as redis-server, refuses the MIGRATE that closes it with CLUSTERDOWN.)
        int emptySlot = Enumerable.Range(5461, 5462).First(s => !keysPerSlot.ContainsKey(s));
        int keyedSlot = Enumerable.Range(10923, 5461).First(keysPerSlot.ContainsKey);
        foreach (int port in Ports(c, 3))
        {
            Assert.Equal("+OK", Call(port, "CLUSTER", "DELSLOTS", emptySlot.ToString()));
            Assert.Equal("+OK", Call(port, "CLUSTER", "DELSLOTS", keyedSlot.ToString()));
        }
        // fix asks before covering each kind of slot: yes, twice.
        output = Cli($"--cluster fix 127.0.0.1:{c[0].Port}", stdin: "yes\nyes\n");
        Assert.Contains($"Covering slot {emptySlot} with", output);
        Assert.Contains($"Covering slot {keyedSlot} with 127.0.0.1:{c[2].Port}", output);
        await WaitCheckedAsync(c[2].Port);
        var owners = SlotOwners(c[1].Port);
        Assert.NotEqual(0, owners[emptySlot]);
        Assert.Equal(c[2].Port, owners[keyedSlot]);
        VerifyFill(c[0].Port, "fx", 2000);
        Assert.Equal(2000, MasterKeys(Ports(c, 3)));
    }

    /// <summary>redis-cli --cluster check's output (it exits non-zero on an open slot).</summary>
    private static string Ansi2(int port)
    {
        var (_, output) = ToolRunner.Run(ReferenceRedis.CliPath!, $"--cluster check 127.0.0.1:{port}", timeoutMs: 60_000);
        return output;
    }

    [Fact]
    public async Task Migrate_WriteToKeyInFlightInMigratingSlot_TryAgainUntilDoneThenAsk()
    {
        await using var c = OurCluster.Start(2);
        c.Call(0, "CLUSTER", "ADDSLOTSRANGE", "0", "16383");
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", c[1].Port.ToString()));
        await c.WaitFormedAsync(2);
        string id1 = c.Call(1, "CLUSTER", "MYID");
        Assert.Equal("+OK", c.Call(0, "SET", "foo", "before"));
        Assert.Equal("+OK", c.Call(1, "CLUSTER", "SETSLOT", "12182", "IMPORTING", c.Call(0, "CLUSTER", "MYID")));
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "SETSLOT", "12182", "MIGRATING", id1));

        // A target that takes the RESTORE and answers only when told: the MIGRATE stays in flight.
        using var target = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        target.Start();
        int targetPort = ((System.Net.IPEndPoint)target.LocalEndpoint).Port;
        using var migrating = c[0].Connect();
        migrating.Send("MIGRATE", "127.0.0.1", targetPort.ToString(), "", "0", "10000", "KEYS", "foo");
        using var accepted = await target.AcceptSocketAsync().WaitAsync(TimeSpan.FromSeconds(10));
        var buffer = new byte[4096];
        int got = 0;
        while (!System.Text.Encoding.Latin1.GetString(buffer, 0, got).Contains("RESTORE-ASKING"))
            got += await accepted.ReceiveAsync(buffer.AsMemory(got)).AsTask().WaitAsync(TimeSpan.FromSeconds(10));

        // Meanwhile a write to the key is refused with TRYAGAIN (it would be lost: the target has the value sent); a read is served.
        Assert.StartsWith("-TRYAGAIN", c.Call(0, "SET", "foo", "during"));
        Assert.Equal("before", c.Call(0, "GET", "foo"));
        Assert.StartsWith("-TRYAGAIN", c.Call(0, "APPEND", "foo", "x"));

        // The target acknowledges: the key is deleted here and a write is sent to the target.
        // (SELECT first on a new connection, as Redis's MIGRATE: one reply for it, one for the RESTORE.)
        bool select = System.Text.Encoding.Latin1.GetString(buffer, 0, got).Contains("SELECT");
        accepted.Send(select ? "+OK\r\n+OK\r\n"u8 : "+OK\r\n"u8);
        Assert.Equal("+OK\r\n", migrating.ReadReply());
        Assert.Equal($"-ASK 12182 127.0.0.1:{c[1].Port}", c.Call(0, "SET", "foo", "after"));
    }

    [Fact]
    public async Task SlotClaimedWithHigherEpoch_KeysStillHere_DeletedAndReplicaToo()
    {
        await using var c = OurCluster.Start(3);
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "ADDSLOTSRANGE", "0", "8191"));
        Assert.Equal("+OK", c.Call(1, "CLUSTER", "ADDSLOTSRANGE", "8192", "16383"));
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", c[1].Port.ToString()));
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", c[2].Port.ToString()));
        await WaitKnownAsync(Ports(c, 3), 3);
        string id0 = c.Call(0, "CLUSTER", "MYID"), id1 = c.Call(1, "CLUSTER", "MYID");
        Assert.Equal("+OK", c.Call(2, "CLUSTER", "REPLICATE", id0));
        await c.WaitFormedAsync(3);

        // Keys in slot 100 (taken below) and in slot 200 (kept) on node 0, replicated to node 2.
        string taken = KeyInSlot("dirty", 100), kept = KeyInSlot("kept", 200);
        for (int i = 0; i < 50; i++)
        {
            Assert.Equal("+OK", c.Call(0, "SET", $"{taken}:{i}", "x"));
            Assert.Equal("+OK", c.Call(0, "SET", $"{kept}:{i}", "y"));
        }
        await Eventually.WaitFor(() => c.Call(2, "DBSIZE") == ":100", () => c.Call(2, "INFO", "replication"), 30);

        // Node 1 takes slot 100 on its own and bumps its epoch above node 0's: node 0 gives the slot
        // up on the next claim it hears, and deletes the 50 keys it still held there.
        await Eventually.WaitFor(() => OurCluster.Epochs(c.Call(0, "CLUSTER", "NODES")).Where(e => e.Key != c.Call(2, "CLUSTER", "MYID")).Select(e => e.Value).Distinct().Count() == 2,
            c.Describe, 30);
        Assert.Equal("+OK", c.Call(1, "CLUSTER", "SETSLOT", "100", "NODE", id1));
        c.Call(1, "CLUSTER", "BUMPEPOCH"); // BUMPED, or STILL when its epoch is the greatest already
        Assert.True(ulong.Parse(OurCluster.Epochs(c.Call(1, "CLUSTER", "NODES"))[id1]) > ulong.Parse(OurCluster.Epochs(c.Call(1, "CLUSTER", "NODES"))[id0]));
        await Eventually.WaitFor(() => SlotOwners(c[0].Port)[100] == c[1].Port, c.Describe, 30);
        await Eventually.WaitFor(() => c.Call(0, "CLUSTER", "COUNTKEYSINSLOT", "100") == ":0", () => c.Call(0, "CLUSTER", "COUNTKEYSINSLOT", "100"), 30);
        Assert.Equal(":50", c.Call(0, "DBSIZE"));
        Assert.Equal(":50", c.Call(0, "CLUSTER", "COUNTKEYSINSLOT", "200"));
        // The replica got the deletions as DELs.
        await Eventually.WaitFor(() => c.Call(2, "DBSIZE") == ":50", () => c.Call(2, "DBSIZE"), 30);
        Assert.Equal(":0", c.Call(2, "CLUSTER", "COUNTKEYSINSLOT", "100"));
        Assert.Equal(":50", c.Call(2, "CLUSTER", "COUNTKEYSINSLOT", "200"));
    }
}
