using System.Net;
using System.Net.Sockets;
using RedisClone.Tests.Cluster.Bus;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// Replica elections over the cluster bus (ClusterFailover): automatic failover when a master
/// stops, CLUSTER FAILOVER and FAILOVER FORCE, replica migration to an orphaned master; all of
/// this server's nodes, and mixed with redis-server 7.0.15 nodes voting and being voted for.
/// </summary>
public sealed class ClusterFailoverTests
{
    private const int NodeTimeout = 3000;

    // ------------------------------------------------------------------ helpers

    /// <summary>One command sent to the node on <paramref name="port"/>, following MOVED (at most 5 hops); the raw reply.</summary>
    private static string Follow(int port, params string[] args)
    {
        for (int hop = 0; hop < 5; hop++)
        {
            string reply;
            try
            {
                using var c = new RespClient(new IPEndPoint(IPAddress.Loopback, port));
                reply = c.Call(args);
            }
            catch (Exception e) when (e is SocketException or IOException)
            {
                return "-CONN " + e.Message;
            }
            var m = OurCluster.Moved.Match(reply.TrimEnd('\r', '\n'));
            if (!m.Success) return reply;
            port = int.Parse(m.Groups[2].Value);
        }
        return "-TOO MANY HOPS";
    }

    private static string Safe(Func<string> call)
    {
        try
        {
            return call();
        }
        catch (Exception e) when (e is SocketException or IOException or InvalidOperationException)
        {
            return "";
        }
    }

    private static string NodesLine(string nodes, string id) => nodes.Split('\n').FirstOrDefault(l => l.StartsWith(id, StringComparison.Ordinal)) ?? "";

    private static bool IsMasterIn(string nodes, string id) => NodesLine(nodes, id).Split(' ') is { Length: > 2 } f && f[2].Split(',').Contains("master");

    private static bool IsReplicaOfIn(string nodes, string id, string master) => NodesLine(nodes, id).Split(' ') is { Length: > 3 } f && f[2].Split(',').Contains("slave") && f[3] == master;

    /// <summary>Three masters of this server with thirds of the slots, node i+3 a replica of node i.</summary>
    private static async Task<OurCluster> SixNodesAsync(int replicas = 3, params string[] replicaOf)
    {
        var c = OurCluster.Start(3 + replicas, NodeTimeout);
        try
        {
            c.AssignThirdsAndMeet();
            await c.WaitFormedAsync(3 + replicas);
            for (int i = 0; i < replicas; i++)
            {
                string masterId = c.Call(replicaOf.Length > i ? int.Parse(replicaOf[i]) : i, "CLUSTER", "MYID");
                Assert.Equal("+OK", c.Call(3 + i, "CLUSTER", "REPLICATE", masterId));
            }
            await WaitReplicasAsync(c, replicas);
            return c;
        }
        catch
        {
            await c.DisposeAsync();
            throw;
        }
    }

    private static async Task WaitReplicasAsync(OurCluster c, int replicas)
    {
        await Eventually.WaitFor(() => Enumerable.Range(0, c.Nodes.Count).Where(i => c.Nodes[i] != null).All(i =>
        {
            string nodes = Safe(() => c.Call(i, "CLUSTER", "NODES"));
            return nodes.Split('\n').Count(l => l.Contains(" slave ") || l.Contains(",slave ")) == replicas
                   && Safe(() => c.Call(i, "CLUSTER", "INFO")).Contains("cluster_state:ok")
                   && (!Safe(() => c.Call(i, "ROLE")).StartsWith("*5") || Safe(() => c.Call(i, "INFO", "replication")).Contains("master_link_status:up"));
        }), c.Describe, seconds: 60);
    }

    private static void WriteKeys(int port, string prefix, int count)
    {
        for (int k = 0; k < count; k++)
            Assert.Equal("+OK\r\n", Follow(port, "SET", $"{prefix}{k}", $"v{k}"));
    }

    private static void AssertKeys(int port, string prefix, int count)
    {
        for (int k = 0; k < count; k++)
        {
            string v = $"v{k}";
            Assert.Equal($"${v.Length}\r\n{v}\r\n", Follow(port, "GET", $"{prefix}{k}"));
        }
    }

    /// <summary>Every master's writes reached its replicas (WAIT on each master).</summary>
    private static void WaitReplicated(OurCluster c, params int[] masters)
    {
        foreach (int m in masters)
        {
            using var client = c[m].Connect();
            Assert.Equal(":1\r\n", client.Call("WAIT", "1", "10000"));
        }
    }

    // ------------------------------------------------------------------ automatic failover

    [Fact]
    public async Task AutomaticFailover_MasterStopped_ReplicaTakesOverAndEveryKeyReadable()
    {
        await using var c = await SixNodesAsync();
        WriteKeys(c[0].Port, "auto:", 300);
        WaitReplicated(c, 0, 1, 2);
        string oldId = c.Call(0, "CLUSTER", "MYID"), replicaId = c.Call(3, "CLUSTER", "MYID");
        string epochBefore = OurCluster.Epochs(c.Call(1, "CLUSTER", "NODES"))[oldId];

        await c.StopAsync(0); // its links close with it, as a crashed process's would
        await Eventually.WaitFor(() => Enumerable.Range(1, 5).All(i =>
        {
            string nodes = Safe(() => c.Call(i, "CLUSTER", "NODES"));
            return IsMasterIn(nodes, replicaId) && Safe(() => c.Call(i, "CLUSTER", "INFO")).Contains("cluster_state:ok");
        }), c.Describe, seconds: 60);

        // The winner: a master in ROLE, INFO, CLUSTER INFO, with the old master's slots and a newer configEpoch.
        Assert.StartsWith("*3\r\n$6\r\nmaster\r\n", c[3].Connect().Call("ROLE"));
        Assert.Contains("role:master", c.Call(3, "INFO", "replication"));
        string myNodes = c.Call(3, "CLUSTER", "NODES");
        Assert.Contains("myself,master", NodesLine(myNodes, replicaId));
        Assert.EndsWith(" 0-5460", NodesLine(myNodes, replicaId).TrimEnd());
        Assert.True(long.Parse(OurCluster.Epochs(myNodes)[replicaId]) > long.Parse(epochBefore), myNodes);
        Assert.Contains("cluster_state:ok", c.Call(3, "CLUSTER", "INFO"));
        AssertKeys(c[3].Port, "auto:", 300);
        Assert.Equal("+OK\r\n", Follow(c[3].Port, "SET", "auto:0", "v0"));

        // The old master comes back with its old configuration: told its slots are the winner's, it becomes its replica.
        c.Restart(0);
        await Eventually.WaitFor(() => IsReplicaOfIn(Safe(() => c.Call(0, "CLUSTER", "NODES")), oldId, replicaId)
                                       && IsReplicaOfIn(Safe(() => c.Call(3, "CLUSTER", "NODES")), oldId, replicaId)
                                       && Safe(() => c.Call(0, "INFO", "replication")).Contains($"master_port:{c[3].Port}")
                                       && Safe(() => c.Call(0, "INFO", "replication")).Contains("master_link_status:up"),
            c.Describe, seconds: 60);
        string key = Enumerable.Range(0, 300).Select(k => $"auto:{k}").First(k => int.Parse(c.Call(0, "CLUSTER", "KEYSLOT", k).TrimStart(':')) <= 5460);
        string slot = c.Call(0, "CLUSTER", "KEYSLOT", key).TrimStart(':');
        Assert.Equal($"-MOVED {slot} 127.0.0.1:{c[3].Port}", c.Call(0, "SET", key, "y"));
    }

    [RedisFact]
    public async Task AutomaticFailover_OurReplicaOfRedisServerMaster_RedisAndOurMastersVoteForIt()
    {
        // Masters: redis-server (0-5460, killed), ours (5461-10922), ours (10923-16383); our replica of the redis-server master.
        using var redis = ClusterRedis.Start($"--cluster-node-timeout {NodeTimeout}");
        Assert.NotNull(redis);
        await using var c = OurCluster.Start(3, NodeTimeout);
        Assert.Equal("OK", redis.Call("CLUSTER", "ADDSLOTSRANGE", "0", "5460").TrimStart('+'));
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "ADDSLOTSRANGE", "5461", "10922"));
        Assert.Equal("+OK", c.Call(1, "CLUSTER", "ADDSLOTSRANGE", "10923", "16383"));
        for (int i = 1; i < 3; i++) Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", c[i].Port.ToString()));
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", redis.Port.ToString()));
        string theirId = redis.Call("CLUSTER", "MYID"), ourReplica = c.Call(2, "CLUSTER", "MYID");
        await Eventually.WaitFor(() => c.Call(2, "CLUSTER", "NODES").Contains(theirId + " 127.0.0.1:" + redis.Port), c.Describe, seconds: 30);
        Assert.Equal("+OK", c.Call(2, "CLUSTER", "REPLICATE", theirId));
        await Eventually.WaitFor(() => IsReplicaOfIn(redis.Call("CLUSTER", "NODES"), ourReplica, theirId)
                                       && redis.Call("CLUSTER", "INFO").Contains("cluster_state:ok")
                                       && c.Call(2, "INFO", "replication").Contains("master_link_status:up")
                                       && Enumerable.Range(0, 3).All(i => c.Call(i, "CLUSTER", "INFO").Contains("cluster_state:ok")),
            () => redis.Call("CLUSTER", "NODES") + c.Describe(), seconds: 60);
        WriteKeys(redis.Port, "mixa:", 200);
        Assert.Equal(":1", redis.Call("WAIT", "1", "10000"));

        redis.Dispose(); // SIGKILL
        await Eventually.WaitFor(() => Enumerable.Range(0, 3).All(i =>
            IsMasterIn(Safe(() => c.Call(i, "CLUSTER", "NODES")), ourReplica) && Safe(() => c.Call(i, "CLUSTER", "INFO")).Contains("cluster_state:ok")),
            c.Describe, seconds: 60);
        Assert.Contains("role:master", c.Call(2, "INFO", "replication"));
        AssertKeys(c[0].Port, "mixa:", 200);
    }

    [RedisFact]
    public async Task AutomaticFailover_RedisServerReplicaOfOurMaster_PromotedByOurAndRedisVotes()
    {
        // Masters: ours (0-5460, stopped), ours (5461-10922), redis-server (10923-16383); a redis-server replica of our first master.
        using var redisMaster = ClusterRedis.Start($"--cluster-node-timeout {NodeTimeout}");
        using var redisReplica = ClusterRedis.Start($"--cluster-node-timeout {NodeTimeout}");
        Assert.NotNull(redisMaster);
        Assert.NotNull(redisReplica);
        await using var c = OurCluster.Start(2, NodeTimeout);
        Assert.Equal("+OK", c.Call(0, "CLUSTER", "ADDSLOTSRANGE", "0", "5460"));
        Assert.Equal("+OK", c.Call(1, "CLUSTER", "ADDSLOTSRANGE", "5461", "10922"));
        Assert.Equal("OK", redisMaster.Call("CLUSTER", "ADDSLOTSRANGE", "10923", "16383").TrimStart('+'));
        foreach (int port in new[] { c[1].Port, redisMaster.Port, redisReplica.Port })
            Assert.Equal("+OK", c.Call(0, "CLUSTER", "MEET", "127.0.0.1", port.ToString()));
        string ourMaster = c.Call(0, "CLUSTER", "MYID"), theirReplica = redisReplica.Call("CLUSTER", "MYID");
        await Eventually.WaitFor(() => redisReplica.Call("CLUSTER", "NODES").Contains(ourMaster + " 127.0.0.1:" + c[0].Port), () => redisReplica.Call("CLUSTER", "NODES"), seconds: 30);
        Assert.Equal("OK", redisReplica.Call("CLUSTER", "REPLICATE", ourMaster).TrimStart('+'));
        await Eventually.WaitFor(() => IsReplicaOfIn(c.Call(1, "CLUSTER", "NODES"), theirReplica, ourMaster)
                                       && IsReplicaOfIn(redisMaster.Call("CLUSTER", "NODES"), theirReplica, ourMaster)
                                       && redisReplica.Call("INFO", "replication").Contains("master_link_status:up")
                                       && redisMaster.Call("CLUSTER", "INFO").Contains("cluster_state:ok")
                                       && c.Call(1, "CLUSTER", "INFO").Contains("cluster_state:ok"),
            () => redisReplica.Call("CLUSTER", "NODES") + c.Describe(), seconds: 60);
        WriteKeys(c[0].Port, "mixb:", 200);
        using (var client = c[0].Connect()) Assert.Equal(":1\r\n", client.Call("WAIT", "1", "10000"));

        await c.StopAsync(0);
        await Eventually.WaitFor(() => IsMasterIn(Safe(() => c.Call(1, "CLUSTER", "NODES")), theirReplica)
                                       && redisReplica.Call("INFO", "replication").Contains("role:master")
                                       && Safe(() => c.Call(1, "CLUSTER", "INFO")).Contains("cluster_state:ok")
                                       && redisMaster.Call("CLUSTER", "INFO").Contains("cluster_state:ok"),
            () => redisReplica.Call("CLUSTER", "NODES") + "\n" + c.Describe(), seconds: 60);
        // Our surviving master voted (its log says so through the grant), and every key is there.
        AssertKeys(c[1].Port, "mixb:", 200);
    }

    // ------------------------------------------------------------------ manual failover

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ClusterFailover_OnOurReplica_BecomesMasterWithNoWriteLost(bool force)
    {
        await using var c = await SixNodesAsync(replicas: 1);
        string oldId = c.Call(0, "CLUSTER", "MYID"), replicaId = c.Call(3, "CLUSTER", "MYID");
        WriteKeys(c[0].Port, "man:", 200);
        // A hash tag of node 0's slots (0-5460) for the writer's keys.
        string tag = Enumerable.Range(0, 1000).Select(t => $"t{t}").First(t => int.Parse(c.Call(0, "CLUSTER", "KEYSLOT", t).TrimStart(':')) <= 5460);
        if (force) WaitReplicated(c, 0); // FORCE does not wait for the master: the writes are in the replica first

        // The default failover: a writer keeps writing to the master's slots; every write answered +OK must survive.
        var acked = new List<int>();
        using var stop = new CancellationTokenSource();
        var writer = force ? Task.CompletedTask : Task.Run(() =>
        {
            for (int k = 0; k < 100_000 && !stop.IsCancellationRequested; k++)
            {
                if (Follow(c.Nodes[0]!.Port, "SET", $"{{{tag}}}w{k}", $"w{k}") == "+OK\r\n") lock (acked) acked.Add(k);
            }
        });
        await Task.Delay(200);
        Assert.Equal("+OK", force ? c.Call(3, "CLUSTER", "FAILOVER", "FORCE") : c.Call(3, "CLUSTER", "FAILOVER"));
        await Eventually.WaitFor(() => IsMasterIn(c.Call(3, "CLUSTER", "NODES"), replicaId) && IsReplicaOfIn(c.Call(0, "CLUSTER", "NODES"), oldId, replicaId)
                                       && Enumerable.Range(0, 4).All(i => c.Call(i, "CLUSTER", "INFO").Contains("cluster_state:ok")),
            c.Describe, seconds: 60);
        await Task.Delay(300);
        stop.Cancel();
        await writer;

        Assert.Contains("role:master", c.Call(3, "INFO", "replication"));
        Assert.Contains("role:slave", c.Call(0, "INFO", "replication"));
        // The default asked the master first (MFSTART); both asked the masters for votes.
        Assert.Equal(!force, c.Call(3, "CLUSTER", "INFO").Contains("cluster_stats_messages_mfstart_sent:1\r\n"));
        Assert.Equal(!force, c.Call(0, "CLUSTER", "INFO").Contains("cluster_stats_messages_mfstart_received:1\r\n"));
        Assert.Contains("cluster_stats_messages_auth-req_sent:", c.Call(3, "CLUSTER", "INFO"));
        Assert.Contains("cluster_stats_messages_auth-ack_received:", c.Call(3, "CLUSTER", "INFO"));
        AssertKeys(c[3].Port, "man:", 200);
        int[] ackedNow;
        lock (acked) ackedNow = [.. acked];
        foreach (int k in ackedNow)
            Assert.Equal($"${$"w{k}".Length}\r\nw{k}\r\n", Follow(c[3].Port, "GET", $"{{{tag}}}w{k}"));
    }

    // ------------------------------------------------------------------ replica migration

    [Theory]
    [InlineData("0")]
    [InlineData("1")]
    public async Task ReplicaMigration_OrphanedMaster_ReplicaOfTheRichestMasterMovesToIt(string barrier)
    {
        // Master 0 with two replicas (nodes 3 and 4), master 1 with one (node 5), master 2 none; node 5 stops.
        // Master 0 keeps one replica, more than a barrier of 0; and its two are more than a barrier of 1.
        await using var c = await SixNodesAsync(replicas: 3, "0", "0", "1");
        for (int i = 3; i < 5; i++) Assert.Equal("+OK", c.Call(i, "CONFIG", "SET", "cluster-migration-barrier", barrier));
        string orphan = c.Call(1, "CLUSTER", "MYID");
        string[] candidates = [c.Call(3, "CLUSTER", "MYID"), c.Call(4, "CLUSTER", "MYID")];
        string expected = string.CompareOrdinal(candidates[0], candidates[1]) < 0 ? candidates[0] : candidates[1];
        await c.StopAsync(5);
        await Eventually.WaitFor(() => Enumerable.Range(0, 5).All(i => IsReplicaOfIn(c.Call(i, "CLUSTER", "NODES"), expected, orphan)),
            c.Describe, seconds: 60);
        int moved = expected == candidates[0] ? 3 : 4;
        await Eventually.WaitFor(() => c.Call(moved, "INFO", "replication").Contains("master_link_status:up")
                                       && c.Call(moved, "INFO", "replication").Contains($"master_port:{c[1].Port}"),
            () => c.Call(moved, "INFO", "replication"), seconds: 30);
        string other = expected == candidates[0] ? candidates[1] : candidates[0];
        Assert.True(IsReplicaOfIn(c.Call(0, "CLUSTER", "NODES"), other, c.Call(0, "CLUSTER", "MYID")), c.Describe());
    }

    [Theory]
    [InlineData("cluster-allow-replica-migration", "no")]
    [InlineData("cluster-migration-barrier", "2")] // master 0 would keep 1 replica, fewer than 2
    public async Task ReplicaMigration_NotAllowedOrBarrier_ReplicaStays(string parameter, string value)
    {
        await using var c = await SixNodesAsync(replicas: 3, "0", "0", "1");
        for (int i = 3; i < 5; i++) Assert.Equal("+OK", c.Call(i, "CONFIG", "SET", parameter, value));
        string master0 = c.Call(0, "CLUSTER", "MYID");
        string[] candidates = [c.Call(3, "CLUSTER", "MYID"), c.Call(4, "CLUSTER", "MYID")];
        await c.StopAsync(5);
        // Node 5 marked FAIL by everyone, then the migration delay (5 s) and some more: both replicas still follow master 0.
        await Eventually.WaitFor(() => Enumerable.Range(0, 5).All(i => c.Call(i, "CLUSTER", "NODES").Split('\n').Count(l => l.Contains("slave,fail ") || l.Contains(",fail ")) == 1),
            c.Describe, seconds: 60);
        await Task.Delay(8000);
        foreach (string id in candidates)
            Assert.True(IsReplicaOfIn(c.Call(0, "CLUSTER", "NODES"), id, master0), c.Describe());
    }
}
