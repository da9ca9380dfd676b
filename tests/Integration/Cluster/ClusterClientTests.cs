using System.Diagnostics;
using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// Cluster-aware clients against three masters of this server: reads and writes over every slot,
/// multi-key commands with hash tags, the server's CROSSSLOT, pipelines and transactions on one slot,
/// sharded pub/sub where the client has it, and a slot moved by the test (CLUSTER SETSLOT and
/// MIGRATE): the client follows an ASK while it moves and a MOVED after. redis-py's and ioredis's
/// checks live in scripts under tests/clients; each test skips when its client is missing.
/// </summary>
public sealed class ClusterClientTests
{
    private static async Task<OurCluster> ThreeMastersAsync()
    {
        var c = OurCluster.Start(3);
        try
        {
            c.AssignThirdsAndMeet();
            await c.WaitFormedAsync(3);
            await c.WaitEpochsSettledAsync(); // the tests move slots by hand
            return c;
        }
        catch
        {
            await c.DisposeAsync();
            throw;
        }
    }

    private static string Ports(OurCluster c) => string.Join(' ', Enumerable.Range(0, c.Nodes.Count).Select(i => c[i].Port));

    /// <summary>Three masters, then nodes 3-5 replicas of 0-2, settled (replication offsets known: replicas listed in SLOTS).</summary>
    private static async Task<OurCluster> ThreeMastersThreeReplicasAsync()
    {
        var c = OurCluster.Start(6);
        try
        {
            c.AssignThirdsAndMeet();
            await c.WaitFormedAsync(6);
            await c.WaitEpochsSettledAsync();
            for (int i = 3; i < 6; i++) Assert.Equal("+OK", c.Call(i, "CLUSTER", "REPLICATE", c.Call(i - 3, "CLUSTER", "MYID")));
            await Eventually.WaitFor(() => Enumerable.Range(0, 6).All(i =>
                System.Text.RegularExpressions.Regex.Matches(c.Call(i, "CLUSTER", "NODES"), "[ ,]slave ").Count == 3
                && !c.Call(i, "CLUSTER", "SHARDS").Contains("loading")
                && (i < 3 || c.Call(i, "INFO", "replication").Contains("master_link_status:up"))), c.Describe, seconds: 60);
            return c;
        }
        catch
        {
            await c.DisposeAsync();
            throw;
        }
    }

    [RedisPyClusterFact]
    public async Task RedisPy_RedisClusterReadFromReplicas_ReadsServedByReplicasWithReadonly()
    {
        await using var c = await ThreeMastersThreeReplicasAsync();
        string script = Path.Combine(Repository.Root, "tests", "clients", "python", "cluster_replicas.py");
        var (code, output) = ToolRunner.Run(RedisPyClusterFactAttribute.Python, $"\"{script}\" {Ports(c)}", timeoutMs: 120_000);
        Assert.True(code == 0 && output.Split('\n').Contains("OK"), output + "\n" + c.Describe());
    }

    [IoredisFact]
    public async Task Ioredis_ClusterScaleReadsSlave_ReadsServedByReplicasWithReadonly()
    {
        await using var c = await ThreeMastersThreeReplicasAsync();
        string dir = Path.Combine(Repository.Root, "tests", "clients", "node");
        var (code, output) = ToolRunner.Run(IoredisFactAttribute.Node!, $"cluster_replicas.js {Ports(c)}", timeoutMs: 120_000, workingDirectory: dir);
        Assert.True(code == 0 && output.Split('\n').Contains("OK"), output + "\n" + c.Describe());
    }

    [RedisPyClusterFact]
    public async Task RedisPy_RedisCluster_AllSlotsHashTagsPipelinesAndMovedAsk()
    {
        await using var c = await ThreeMastersAsync();
        string script = Path.Combine(Repository.Root, "tests", "clients", "python", "cluster_client.py");
        var (code, output) = ToolRunner.Run(RedisPyClusterFactAttribute.Python, $"\"{script}\" {Ports(c)}", timeoutMs: 120_000);
        Assert.True(code == 0 && output.Split('\n').Contains("OK"), output + "\n" + c.Describe());
    }

    [IoredisFact]
    public async Task Ioredis_Cluster_AllSlotsHashTagsPipelinesShardedPubSubAndMovedAsk()
    {
        await using var c = await ThreeMastersAsync();
        string dir = Path.Combine(Repository.Root, "tests", "clients", "node");
        var (code, output) = ToolRunner.Run(IoredisFactAttribute.Node!, $"cluster_client.js {Ports(c)}", timeoutMs: 120_000, workingDirectory: dir);
        Assert.True(code == 0 && output.Split('\n').Contains("OK"), output + "\n" + c.Describe());
    }

    [Fact]
    public async Task StackExchangeRedis_Cluster_HashTagsTransactionsShardedPubSubAndMovedAfterReshard()
    {
        await using var c = await ThreeMastersAsync();
        var options = ConfigurationOptions.Parse($"127.0.0.1:{c[0].Port},127.0.0.1:{c[1].Port},127.0.0.1:{c[2].Port}");
        options.ConnectTimeout = 10_000;
        options.AbortOnConnectFail = false;
        await using var mux = await ConnectionMultiplexer.ConnectAsync(options);
        var db = mux.GetDatabase();

        // Multi-key commands on one hash tag; the server's CROSSSLOT for keys of two slots.
        Assert.True(await db.StringSetAsync([new("{user1}:a", "1"), new("{user1}:b", "2")]));
        Assert.Equal(["1", "2", null], (await db.StringGetAsync(["{user1}:a", "{user1}:b", "{user1}:c"])).Select(v => (string?)v));
        Assert.Equal(2, await db.KeyDeleteAsync(["{user1}:a", "{user1}:b"]));
        var crossSlot = await Assert.ThrowsAsync<RedisServerException>(() => db.ExecuteAsync("MSET", "a", "1", "b", "2"));
        Assert.Equal("CROSSSLOT Keys in request don't hash to the same slot", crossSlot.Message);

        // A transaction and a batch on one slot.
        var tran = db.CreateTransaction();
        tran.AddCondition(Condition.KeyNotExists("{t}guard"));
        var set = tran.StringSetAsync("{t}1", "y");
        var incr = tran.StringIncrementAsync("{t}n", 5);
        Assert.True(await tran.ExecuteAsync());
        Assert.True(await set);
        Assert.Equal(5, await incr);
        var batch = db.CreateBatch();
        var b1 = batch.StringSetAsync("{p}1", "x");
        var b2 = batch.StringIncrementAsync("{p}n");
        var b3 = batch.StringGetAsync("{p}1");
        batch.Execute();
        Assert.True(await b1);
        Assert.Equal(1, await b2);
        Assert.Equal("x", (string?)await b3);

        // Sharded pub/sub: SSUBSCRIBE on the slot's owner, SPUBLISH routed there.
        var channel = RedisChannel.Sharded("{news}ch");
        var received = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        await mux.GetSubscriber().SubscribeAsync(channel, (_, m) => received.TrySetResult(m!));
        long receivers = 0;
        await Eventually.WaitFor(() => (receivers = mux.GetSubscriber().Publish(channel, "hello")) == 1, () => $"receivers {receivers}", seconds: 10);
        Assert.Equal("hello", await received.Task.WaitAsync(TimeSpan.FromSeconds(10)));

        // Slot of "foo" moved by hand to another master: ASK while its keys move, MOVED after.
        int slot = int.Parse(c.Call(0, "CLUSTER", "KEYSLOT", "foo")[1..]);
        int src = Enumerable.Range(0, 3).First(i => Owns(c.Call(i, "CLUSTER", "NODES"), slot));
        int dst = (src + 1) % 3;
        string srcId = c.Call(src, "CLUSTER", "MYID"), dstId = c.Call(dst, "CLUSTER", "MYID");
        Assert.True(await db.StringSetAsync("foo", "bar"));
        Assert.True(await db.StringSetAsync("{foo}2", "baz"));
        Assert.Equal("+OK", c.Call(dst, "CLUSTER", "SETSLOT", slot.ToString(), "IMPORTING", srcId));
        Assert.Equal("+OK", c.Call(src, "CLUSTER", "SETSLOT", slot.ToString(), "MIGRATING", dstId));
        Assert.Equal("+OK", c.Call(src, "MIGRATE", "127.0.0.1", c[dst].Port.ToString(), "", "0", "5000", "KEYS", "{foo}2"));
        Assert.Equal("baz", (string?)await db.StringGetAsync("{foo}2")); // ASK, then asked on the target
        Assert.True(await db.StringSetAsync("{foo}new", "n")); // missing on the source: written on the target
        Assert.Equal("bar", (string?)await db.StringGetAsync("foo")); // still on the source
        Assert.Equal("+OK", c.Call(src, "MIGRATE", "127.0.0.1", c[dst].Port.ToString(), "", "0", "5000", "KEYS", "foo"));
        for (int i = 0; i < 3; i++) Assert.Equal("+OK", c.Call(i, "CLUSTER", "SETSLOT", slot.ToString(), "NODE", dstId));
        Assert.Equal("bar", (string?)await db.StringGetAsync("foo")); // MOVED, followed
        Assert.Equal(["bar", "baz", "n"], (await db.StringGetAsync(["foo", "{foo}2", "{foo}new"])).Select(v => (string?)v));
        Assert.Equal(":3", c.Call(dst, "CLUSTER", "COUNTKEYSINSLOT", slot.ToString()));
        Assert.Equal(":0", c.Call(src, "CLUSTER", "COUNTKEYSINSLOT", slot.ToString()));
        Assert.Equal(dstId, c.Call(src, "CLUSTER", "NODES").Split('\n').First(l => Owns(l, slot)).Split(' ')[0]);
    }

    /// <summary>Whether the myself line of a CLUSTER NODES text (or the one line given) lists <paramref name="slot"/>.</summary>
    internal static bool Owns(string nodes, int slot)
    {
        var lines = nodes.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        string? line = lines.Length == 1 ? lines[0] : lines.FirstOrDefault(l => l.Contains("myself"));
        if (line == null) return false;
        foreach (var range in line.Split(' ').Skip(8))
        {
            if (range.StartsWith('[')) continue;
            var parts = range.Split('-');
            int lo = int.Parse(parts[0]), hi = parts.Length > 1 ? int.Parse(parts[1]) : lo;
            if (slot >= lo && slot <= hi) return true;
        }
        return false;
    }
}

/// <summary>A fact skipped, with the reason, when Debian's python3 with redis-py's cluster client (python3-redis) is missing.</summary>
public sealed class RedisPyClusterFactAttribute : FactAttribute
{
    /// <summary>Debian's python3: the pyenv one on PATH lacks redis-py.</summary>
    public const string Python = "/usr/bin/python3";

    private static readonly Lazy<bool> HasRedisPy = new(() =>
    {
        if (!File.Exists(Python)) return false;
        try
        {
            using var probe = Process.Start(new ProcessStartInfo(Python, ["-c", "import redis.cluster"])
            {
                RedirectStandardError = true,
                RedirectStandardOutput = true,
            })!;
            if (!probe.WaitForExit(30_000)) probe.Kill();
            return probe.HasExited && probe.ExitCode == 0;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return false;
        }
    });

    public RedisPyClusterFactAttribute()
    {
        if (!HasRedisPy.Value) Skip = $"redis-py's RedisCluster is missing ({Python} with python3-redis: apt-get install -y python3-redis)";
    }
}

/// <summary>A fact skipped, with the reason, when node or ioredis (npm ci in tests/clients/node) is missing.</summary>
public sealed class IoredisFactAttribute : FactAttribute
{
    public static string? Node => ReferenceRedis.FindOnPath("node");

    public IoredisFactAttribute()
    {
        if (Node == null) Skip = "node is not installed (ioredis's Cluster needs node and npm)";
        else if (!Directory.Exists(Path.Combine(Repository.Root, "tests", "clients", "node", "node_modules", "ioredis")))
            Skip = "ioredis is not installed: run `npm ci` in tests/clients/node";
    }
}
