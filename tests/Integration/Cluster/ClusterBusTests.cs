using System.Text.RegularExpressions;
using RedisClone.Tests.Cluster.Bus;
using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// Nodes of this server forming a cluster over the bus: handshake, gossip, slot claims, epochs,
/// failure detection, PUBLISH across nodes, and the tools and clients that drive a cluster.
/// </summary>
public sealed class ClusterBusTests
{
    [Fact]
    public async Task Meet_ThreeNodes_AgreeOnNodesSlotsAndRedirect()
    {
        await using var c = OurCluster.Start(3);
        c.AssignThirdsAndMeet();
        await c.WaitFormedAsync(3);

        // Every node sees the same nodes, addresses, roles, epochs and slots; the epochs are unique.
        string first = OurCluster.Normalized(c.Call(0, "CLUSTER", "NODES"));
        await Eventually.WaitFor(() =>
        {
            var views = Enumerable.Range(0, 3).Select(i => OurCluster.Normalized(c.Call(i, "CLUSTER", "NODES"))).ToList();
            var epochs = OurCluster.Epochs(c.Call(0, "CLUSTER", "NODES")).Values.ToList();
            return views.Distinct().Count() == 1 && epochs.Distinct().Count() == 3;
        }, c.Describe, seconds: 20);
        string nodes = c.Call(1, "CLUSTER", "NODES");
        for (int i = 0; i < 3; i++) Assert.Contains($"127.0.0.1:{c[i].Port}@{c[i].Port + 10000}", nodes);
        var slots = Enumerable.Range(0, 3).Select(i => { using var r = c[i].Connect(); return r.Call("CLUSTER", "SLOTS"); }).ToList();
        Assert.Single(slots.Distinct());
        var shards = c.Call(2, "CLUSTER", "SHARDS");
        foreach (var id in OurCluster.Epochs(nodes).Keys) Assert.Contains(id, shards);

        // MOVED to the owner, and a key set through the owner is read back there.
        string reply = c.Call(0, "SET", "foo", "bar"); // slot 12182: node 2
        var m = OurCluster.Moved.Match(reply);
        Assert.True(m.Success, reply);
        Assert.Equal("12182", m.Groups[1].Value);
        Assert.Equal(c[2].Port.ToString(), m.Groups[2].Value);
        Assert.Equal("+OK", c.Call(2, "SET", "foo", "bar"));
        Assert.Equal("bar", c.Call(2, "GET", "foo"));

        // The bus counted what went over it, and each node has its links.
        string info = c.Call(1, "CLUSTER", "INFO");
        Assert.Matches(@"cluster_stats_messages_ping_sent:[1-9]", info);
        Assert.Matches(@"cluster_stats_messages_pong_received:[1-9]", info);
        using (var r = c[0].Connect())
        {
            string links = r.Call("CLUSTER", "LINKS");
            Assert.StartsWith("*", links);
            Assert.Contains("direction", links);
            Assert.Contains("send-buffer-used", links);
        }
    }

    [Fact]
    public async Task Restart_WhileItsDataLoads_BusAnswersNoPeerUntilLoaded()
    {
        // A node with 300 keys saved; restarted with 10 ms per key to load (3 s), a peer meets it meanwhile.
        string dir = Directory.CreateTempSubdirectory("clu-load-").FullName;
        int port = OurCluster.PickPortPair();
        string[] args = ["--port", port.ToString(), "--cluster-enabled", "yes", "--dir", dir,
            "--cluster-config-file", Path.Combine(dir, "nodes.conf"), "--cluster-node-timeout", "15000"];
        await using (var first = TestServer.Start(2, args))
        {
            using var client = first.Connect();
            Assert.Equal("+OK\r\n", client.Call("CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
            await Eventually.WaitFor(() => Text(first, "CLUSTER", "INFO").Contains("cluster_state:ok"), () => Text(first, "CLUSTER", "INFO"), seconds: 30);
            for (int k = 0; k < 300; k++) Assert.Equal("+OK\r\n", client.Call("SET", $"{{x}}{k}", "v"));
            Assert.Equal("+OK\r\n", client.Call("SAVE"));
        }
        await using var peer = OurCluster.Start(1, 15000);
        var loading = Task.Run(() => TestServer.Start(2, [.. args, "--key-load-delay", "10000"]));
        TestServer? restarted = null;
        try
        {
            string Persistence() { using var r = new RespClient(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, port)); return r.Call("INFO", "persistence"); }
            await Eventually.WaitFor(() => { try { return Persistence().Contains("loading:1"); } catch (System.Net.Sockets.SocketException) { return false; } },
                () => "the restarted node never reported loading", seconds: 30);
            Assert.Equal("+OK", peer.Call(0, "CLUSTER", "MEET", "127.0.0.1", port.ToString()));
            await Task.Delay(1000); // the peer's cron connects and sends MEET within 100 ms
            string during = peer.Call(0, "CLUSTER", "NODES");
            Assert.Contains("loading:1", Persistence()); // still loading: the view above was taken during the load
            // Only the handshake entry: the loading node answered nothing, so the peer knows no name for it.
            Assert.Contains("handshake", during);
            Assert.Equal(2, during.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);

            restarted = await loading;
            Assert.Equal(":300", Text(restarted, "DBSIZE"));
            string id = Text(restarted, "CLUSTER", "MYID");
            await Eventually.WaitFor(() => peer.Call(0, "CLUSTER", "NODES").Contains($"{id} 127.0.0.1:{port}@{port + 10000} master"),
                () => peer.Call(0, "CLUSTER", "NODES"), seconds: 30);
        }
        finally
        {
            try { restarted ??= await loading; } catch (Exception) { }
            if (restarted != null) await restarted.DisposeAsync();
        }
    }

    private static string Text(TestServer s, params string[] args) => OurCluster.Text(s.Connect(), args);

    [Fact]
    public async Task FailureDetection_NodeStopped_OthersMarkItFailAndStateFails()
    {
        await using var c = OurCluster.Start(3, nodeTimeoutMs: 1000);
        c.AssignThirdsAndMeet();
        await c.WaitFormedAsync(3);
        string deadId = c.Call(2, "CLUSTER", "MYID");
        await c.StopAsync(2);

        await Eventually.WaitFor(() =>
        {
            for (int i = 0; i < 2; i++)
            {
                string line = c.Call(i, "CLUSTER", "NODES").Split('\n').First(l => l.StartsWith(deadId));
                if (!line.Split(' ')[2].Split(',').Contains("fail")) return false;
                if (!c.Call(i, "CLUSTER", "INFO").Contains("cluster_state:fail")) return false;
            }
            return true;
        }, c.Describe, seconds: 30);
        Assert.StartsWith("-CLUSTERDOWN", c.Call(0, "GET", "foo"));
    }

    [Fact]
    public async Task Publish_OnOneNode_ReachesSubscriberOnAnother()
    {
        await using var c = OurCluster.Start(3);
        c.AssignThirdsAndMeet();
        await c.WaitFormedAsync(3);

        using var sub = c[2].Connect();
        Assert.StartsWith("*3", sub.Call("SUBSCRIBE", "news"));
        // Every node must have a link to node 2 for the message to get there; a few tries are allowed.
        string? got = null;
        for (int attempt = 0; attempt < 20 && got == null; attempt++)
        {
            c.Call(0, "PUBLISH", "news", "hello");
            got = sub.TryReadReply(500);
        }
        Assert.Equal("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n", got);
    }

    [Fact]
    public async Task Forget_OnOneNode_SpreadsToTheOthersByTheForgottenNodeExtension()
    {
        await using var c = OurCluster.Start(3);
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", c[1].Port.ToString()));
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", c[2].Port.ToString()));
        await c.WaitFormedAsync(3);
        string id2 = c.Call(2, "CLUSTER", "MYID");

        Assert.Equal("+OK", c.Call(0, "CLUSTER", "FORGET", id2));
        // Node 1 hears of it in node 0's next PING or PONG (Redis 7.2) and forgets it too, for a while.
        await Eventually.WaitFor(() => !c.Call(1, "CLUSTER", "NODES").Contains(id2), c.Describe, seconds: 20);
        Assert.DoesNotContain(id2, c.Call(0, "CLUSTER", "NODES"));
        Assert.StartsWith("-ERR Unknown node", c.Call(1, "CLUSTER", "COUNT-FAILURE-REPORTS", id2));
        Assert.Equal(":0", c.Call(0, "CLUSTER", "COUNT-FAILURE-REPORTS", c.Call(1, "CLUSTER", "MYID")));

        // CLUSTER RESET closes the links: node 1 then shows node 0's links gone (no inbound from it).
        string id0 = c.Call(0, "CLUSTER", "MYID");
        Assert.Equal("+OK", c.Call(1, "CLUSTER", "RESET"));
        using var r = c[1].Connect();
        Assert.Equal("*0\r\n", r.Call("CLUSTER", "LINKS"));
        Assert.DoesNotContain(id0, c.Call(1, "CLUSTER", "NODES"));
    }

    [Fact]
    public async Task StackExchangeRedis_ThreeNodeCluster_SetsAndGetsKeysOfManySlots()
    {
        await using var c = OurCluster.Start(3);
        c.AssignThirdsAndMeet();
        await c.WaitFormedAsync(3);

        var options = ConfigurationOptions.Parse($"127.0.0.1:{c[0].Port}");
        options.ConnectTimeout = 10_000;
        options.AbortOnConnectFail = false;
        await using var mux = await ConnectionMultiplexer.ConnectAsync(options);
        var db = mux.GetDatabase();
        for (int i = 0; i < 200; i++) await db.StringSetAsync($"key:{i}", i);
        for (int i = 0; i < 200; i++) Assert.Equal(i, (int)await db.StringGetAsync($"key:{i}"));
        // The keys landed on all three nodes.
        for (int i = 0; i < 3; i++) Assert.NotEqual(":0", c.Call(i, "DBSIZE"));
    }

    [Fact]
    public async Task RedisCliClusterCreate_ThreeNodes_CheckCoversAllSlots()
    {
        if (ReferenceRedis.CliPath is not { } cli) return; // redis-cli missing: nothing to drive
        await using var c = OurCluster.Start(3);
        var (code, output) = ToolRunner.Run(cli,
            $"--cluster create 127.0.0.1:{c[0].Port} 127.0.0.1:{c[1].Port} 127.0.0.1:{c[2].Port} --cluster-yes", timeoutMs: 60_000);
        Assert.True(code == 0, output);
        Assert.Contains("[OK] All 16384 slots covered.", output);
        await c.WaitFormedAsync(3);
        (code, output) = ToolRunner.Run(cli, $"--cluster check 127.0.0.1:{c[1].Port}", timeoutMs: 30_000);
        Assert.True(code == 0, output);
        Assert.Contains("[OK] All nodes agree about slots configuration.", output);
        Assert.Contains("[OK] All 16384 slots covered.", output);
    }

    [Fact]
    public async Task RedisCliClusterCreate_ThreeMastersThreeReplicas_ReplicasShownAndServeReadonly()
    {
        if (ReferenceRedis.CliPath is not { } cli) return; // redis-cli missing: nothing to drive
        await using var c = OurCluster.Start(6);
        string addresses = string.Join(' ', Enumerable.Range(0, 6).Select(i => $"127.0.0.1:{c[i].Port}"));
        var (code, output) = ToolRunner.Run(cli, $"--cluster create {addresses} --cluster-replicas 1 --cluster-yes", timeoutMs: 90_000);
        Assert.True(code == 0, output);
        await c.WaitFormedAsync(6);
        await Eventually.WaitFor(() => Enumerable.Range(0, 6).All(i => Replicas(c.Call(i, "CLUSTER", "NODES")) == 3),
            c.Describe, seconds: 30);
        (code, output) = ToolRunner.Run(cli, $"--cluster check 127.0.0.1:{c[0].Port}", timeoutMs: 30_000);
        Assert.True(code == 0, output);
        Assert.Contains("[OK] All nodes agree about slots configuration.", output);
        Assert.Contains("[OK] All 16384 slots covered.", output);
        Assert.True(Regex.Matches(output, "1 additional replica").Count == 3, output);

        // Every node lists three replicas, each of a master; a key written on its master is read on a replica with READONLY.
        string nodes = c.Call(0, "CLUSTER", "NODES");
        Assert.True(Replicas(nodes) == 3, nodes + output);
        string fooMaster = c.Call(0, "CLUSTER", "NODES").Split('\n').First(l => l.Contains("master") && l.Split(' ').Skip(8).Any(r => r.Contains('-') && int.Parse(r.Split('-')[0]) <= 12182 && int.Parse(r.Split('-')[1]) >= 12182)).Split(' ')[0];
        int masterIndex = Enumerable.Range(0, 6).First(i => c.Call(i, "CLUSTER", "MYID") == fooMaster);
        Assert.Equal("+OK", c.Call(masterIndex, "SET", "foo", "bar"));
        int replicaIndex = Enumerable.Range(0, 6).First(i => c.Call(i, "CLUSTER", "NODES").Split('\n').Any(l => l.Contains("myself,slave " + fooMaster)));
        using var r = c[replicaIndex].Connect();
        Assert.StartsWith("-MOVED 12182", r.Call("GET", "foo"));
        Assert.Equal("+OK\r\n", r.Call("READONLY"));
        await Eventually.WaitFor(() => r.Call("GET", "foo") == "$3\r\nbar\r\n", () => r.Call("GET", "foo") + c.Call(replicaIndex, "INFO", "replication"), seconds: 20);
    }

    [RedisFact]
    public async Task Replicate_OurNodeOfRedisServerMaster_ReplicatesAndTakesOver()
    {
        using var redis = ClusterRedis.Start("--cluster-node-timeout 5000");
        Assert.NotNull(redis);
        await using var c = OurCluster.Start(1);
        Assert.Equal("OK", redis.Call("CLUSTER", "ADDSLOTSRANGE", "0", "16383").TrimStart('+'));
        string theirId = redis.Call("CLUSTER", "MYID");
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", redis.Port.ToString()));
        await Eventually.WaitFor(() => c.Call(0, "CLUSTER", "NODES").Contains(theirId + " 127.0.0.1:" + redis.Port), c.Describe, seconds: 20);

        Assert.Equal("+OK", c.Call(0, "CLUSTER", "REPLICATE", theirId));
        string ourId = c.Call(0, "CLUSTER", "MYID");
        await Eventually.WaitFor(() => redis.Call("CLUSTER", "NODES").Split('\n').Any(l => l.StartsWith(ourId) && l.Contains(" slave " + theirId)),
            () => redis.Call("CLUSTER", "NODES"), seconds: 20);
        await Eventually.WaitFor(() => redis.Call("CLUSTER", "INFO").Contains("cluster_state:ok") && c.Call(0, "CLUSTER", "INFO").Contains("cluster_state:ok"),
            () => redis.Call("CLUSTER", "INFO") + c.Describe(), seconds: 20);
        Assert.Equal("OK", redis.Call("SET", "foo", "bar").TrimStart('+'));
        using var r = c[0].Connect();
        Assert.Equal("+OK\r\n", r.Call("READONLY"));
        await Eventually.WaitFor(() => r.Call("GET", "foo") == "$3\r\nbar\r\n", () => r.Call("GET", "foo") + c.Call(0, "INFO", "replication"), seconds: 20);
        Assert.Contains($"-MOVED 12182 127.0.0.1:{redis.Port}", c.Call(0, "SET", "foo", "x"));

        // CLUSTER FAILOVER TAKEOVER on our replica: the new configuration reaches redis-server, which follows it as a replica.
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "FAILOVER", "TAKEOVER"));
        await Eventually.WaitFor(() => redis.Call("CLUSTER", "NODES").Split('\n').Any(l => l.StartsWith(theirId) && l.Contains("myself,slave " + ourId)),
            () => redis.Call("CLUSTER", "NODES") + "\n" + c.Describe(), seconds: 20);
        Assert.Equal($"-MOVED 12182 127.0.0.1:{c[0].Port}", redis.Call("SET", "foo", "y"));
    }

    [RedisFact]
    public async Task Replicate_RedisServerReplicaOfOurMaster_BothShowItAndItReplicates()
    {
        using var redis = ClusterRedis.Start("--cluster-node-timeout 5000");
        Assert.NotNull(redis);
        await using var c = OurCluster.Start(1);
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
        string ourId = c.Call(0, "CLUSTER", "MYID");
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", redis.Port.ToString()));
        await Eventually.WaitFor(() => redis.Call("CLUSTER", "NODES").Contains(ourId + " 127.0.0.1:" + c[0].Port), () => redis.Call("CLUSTER", "NODES"), seconds: 20);

        Assert.Equal("OK", redis.Call("CLUSTER", "REPLICATE", ourId).TrimStart('+'));
        string theirId = redis.Call("CLUSTER", "MYID");
        await Eventually.WaitFor(() => c.Call(0, "CLUSTER", "NODES").Split('\n').Any(l => l.StartsWith(theirId) && l.Contains(" slave " + ourId)),
            c.Describe, seconds: 20);
        await Eventually.WaitFor(() => c.Call(0, "CLUSTER", "INFO").Contains("cluster_state:ok"), c.Describe, seconds: 20);
        Assert.Equal("+OK", c.Call(0, "SET", "foo", "bar"));
        using var r = redis.Connect();
        Assert.Equal("+OK\r\n", r.Call("READONLY"));
        await Eventually.WaitFor(() => r.Call("GET", "foo") == "$3\r\nbar\r\n", () => r.Call("GET", "foo") + redis.Call("INFO", "replication"), seconds: 20);
    }

    private static int Replicas(string nodes)
        => nodes.Split('\n', StringSplitOptions.RemoveEmptyEntries).Count(l => l.Split(' ')[2].Split(',').Contains("slave"));

    [RedisFact]
    public async Task Meet_MixedWithRedisServer_AllConnectedAndMovedAcross()
    {
        using var redis = ClusterRedis.Start("--cluster-node-timeout 5000");
        Assert.NotNull(redis);
        await using var c = OurCluster.Start(2);
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "ADDSLOTSRANGE", "0", "5460"));
        Assert.Equal("+OK", c.Call(1, "CLUSTER", "ADDSLOTSRANGE", "5461", "10922"));
        Assert.Equal("OK", redis.Call("CLUSTER", "ADDSLOTSRANGE", "10923", "16383").TrimStart('+'));
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", redis.Port.ToString()));
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", c[1].Port.ToString()));

        await Eventually.WaitFor(() =>
        {
            foreach (var text in new[] { c.Call(0, "CLUSTER", "NODES"), c.Call(1, "CLUSTER", "NODES"), redis.Call("CLUSTER", "NODES") })
            {
                var lines = text.Split('\n', StringSplitOptions.RemoveEmptyEntries);
                if (lines.Length != 3 || lines.Any(l => l.Contains("handshake") || l.Contains("disconnected") || l.Contains("fail"))) return false;
            }
            return c.Call(0, "CLUSTER", "INFO").Contains("cluster_state:ok") && c.Call(1, "CLUSTER", "INFO").Contains("cluster_state:ok")
                   && redis.Call("CLUSTER", "INFO").Contains("cluster_state:ok");
        }, () => c.Describe() + "\n----\nredis:\n" + redis.Call("CLUSTER", "NODES") + redis.Call("CLUSTER", "INFO"), seconds: 30);

        // The same slot table on both implementations, and MOVED across them both ways.
        await Eventually.WaitFor(() => OurCluster.Normalized(redis.Call("CLUSTER", "NODES")) == OurCluster.Normalized(c.Call(0, "CLUSTER", "NODES"))
                                       && OurCluster.Normalized(redis.Call("CLUSTER", "NODES")) == OurCluster.Normalized(c.Call(1, "CLUSTER", "NODES")),
            () => c.Describe() + "\n----\nredis:\n" + redis.Call("CLUSTER", "NODES"), seconds: 20);
        Assert.Equal($"-MOVED 12182 127.0.0.1:{redis.Port}", c.Call(0, "SET", "foo", "bar"));
        Assert.Equal($"-MOVED 5061 127.0.0.1:{c[0].Port}", "-" + redis.Call("SET", "bar", "x").TrimStart('-'));
        Assert.Equal("OK", redis.Call("SET", "foo", "bar").TrimStart('+'));
        Assert.Equal("+OK", c.Call(0, "SET", "bar", "x"));

        // PUBLISH crosses implementations both ways.
        using var theirSub = redis.Connect();
        Assert.StartsWith("*3", theirSub.Call("SUBSCRIBE", "news"));
        using var ourSub = c[1].Connect();
        Assert.StartsWith("*3", ourSub.Call("SUBSCRIBE", "news"));
        c.Call(0, "PUBLISH", "news", "from-ours");
        Assert.Equal("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$9\r\nfrom-ours\r\n", theirSub.TryReadReply(10_000));
        Assert.Equal("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$9\r\nfrom-ours\r\n", ourSub.TryReadReply(10_000));
        redis.Call("PUBLISH", "news", "from-redis");
        Assert.Equal("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$10\r\nfrom-redis\r\n", ourSub.TryReadReply(10_000));
    }
}
