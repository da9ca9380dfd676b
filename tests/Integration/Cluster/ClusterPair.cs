using System.Text;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// A pair of cluster nodes for differential tests: a redis-server started with
/// <c>--cluster-enabled yes</c> and a RedisClone server, each with its own nodes.conf in a temporary
/// directory (optionally written from the same prepared text first), and a way to compare their
/// replies with node ids, ports and the bus's ping/pong times masked.
/// </summary>
internal sealed class ClusterPair : IAsyncDisposable
{
    public const string Me = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    public const string Other = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    public const string OtherReplica = "cccccccccccccccccccccccccccccccccccccccc";

    /// <summary>
    /// This node (0-8000, migrating 7000 to B, importing 9000 from B), a master B at 127.0.0.1:24999
    /// with hostname host-b serving 8001-16383 and a replica C of B; nothing listens at B or C.
    /// </summary>
    public const string TwoMasters =
        Me + " 127.0.0.1:1@10001 myself,master - 0 0 1 connected 0-8000 [7000->-" + Other + "] [9000-<-" + Other + "]\n" +
        Other + " 127.0.0.1:24999@34999,host-b master - 0 1700000000000 2 disconnected 8001-16383\n" +
        OtherReplica + " 127.0.0.1:24998@34998 slave " + Other + " 0 0 2 disconnected\n" +
        "vars currentEpoch 5 lastVoteEpoch 3\n";

    private readonly string _theirDir, _ourDir;

    private ClusterPair(ReferenceRedis theirs, TestServer ours, string theirDir, string ourDir)
    {
        Theirs = theirs;
        Ours = ours;
        _theirDir = theirDir;
        _ourDir = ourDir;
    }

    public ReferenceRedis Theirs { get; }
    public TestServer Ours { get; }
    public string OurDir => _ourDir;

    /// <summary>Starts both nodes (a long node timeout: nobody answers at B, and it must not be marked failing).</summary>
    public static ClusterPair Start(string? nodesConf = null, string extra = "")
    {
        string theirDir = Directory.CreateTempSubdirectory("clu-redis-").FullName;
        string ourDir = Directory.CreateTempSubdirectory("clu-ours-").FullName;
        if (nodesConf != null)
        {
            File.WriteAllText(Path.Combine(theirDir, "nodes.conf"), nodesConf);
            File.WriteAllText(Path.Combine(ourDir, "nodes.conf"), nodesConf);
        }
        var theirs = ReferenceRedis.StartOrNull($"--cluster-enabled yes --dir {theirDir} --cluster-node-timeout 600000 {extra}")
                     ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        var args = new List<string> { "--port", OurCluster.PickPortPair().ToString(), "--cluster-enabled", "yes", "--dir", ourDir, "--cluster-node-timeout", "600000" };
        args.AddRange(extra.Split(' ', StringSplitOptions.RemoveEmptyEntries));
        var ours = TestServer.Start(2, [.. args]);
        return new ClusterPair(theirs, ours, theirDir, ourDir);
    }

    /// <summary>Waits until both say cluster_state:ok (a master waits 2 s after start, as Redis does).</summary>
    public async Task WaitForOkAsync()
    {
        using var t = Theirs.Connect();
        using var o = Ours.Connect();
        await Eventually.WaitFor(() => t.Call("CLUSTER", "INFO").Contains("cluster_state:ok") && o.Call("CLUSTER", "INFO").Contains("cluster_state:ok"),
            () => "theirs: " + t.Call("CLUSTER", "INFO") + "\nours: " + o.Call("CLUSTER", "INFO"), seconds: 30);
    }

    /// <summary>
    /// Runs <paramref name="script"/> (one command per entry) on one connection to each and asserts
    /// the replies are the same once masked (see <see cref="Mask"/>).
    /// </summary>
    public void AssertSame(params string[][] script)
    {
        using var t = Theirs.Connect();
        using var o = Ours.Connect();
        var failures = new StringBuilder();
        foreach (var cmd in script)
        {
            string expected = Mask(t.Call(cmd), Theirs.Port, IdsOf(t), cmd);
            string actual = Mask(o.Call(cmd), Ours.Port, IdsOf(o), cmd);
            if (expected != actual)
                failures.AppendLine($"{string.Join(' ', cmd)}\n  redis:      {Differential.Show(expected)}\n  redisclone: {Differential.Show(actual)}");
        }
        Assert.True(failures.Length == 0, "replies differ from redis-server:\n" + failures);
    }

    public void AssertSame(params string[] script) => AssertSame(script.Select(Differential.SplitLine).ToArray());

    private static (string Id, string Shard) IdsOf(RespClient c)
    {
        string reply = c.Call("CLUSTER", "MYID");
        return (reply.StartsWith('$') ? reply.Split("\r\n")[1] : "<no id: " + reply + ">", "");
    }

    /// <summary>
    /// Myself's id becomes &lt;ME&gt;, the port and bus port &lt;P&gt; and &lt;BP&gt;; in CLUSTER NODES
    /// the ping/pong fields of other nodes become &lt;T&gt; (the bus's clock) and the lines are
    /// sorted (Redis lists nodes in its dict's order).
    /// </summary>
    public static string Mask(string reply, int port, (string Id, string Shard) ids, string[] cmd)
    {
        string s = reply.Replace(ids.Id, "<ME>").Replace((port + 10000).ToString(), "<BP>").Replace(port.ToString(), "<P>");
        // Redis 7.0 starts with cluster_size:1, 7.2 with 0 until its first state update (2 s after
        // start): compared where both have settled (see the tests).
        s = Regex.Replace(s, @"cluster_size:\d+", "cluster_size:<N>");
        // The bus's message counters (redis-server pings the nodes of a prepared nodes.conf).
        if (s.Contains("cluster_stats_messages_sent:"))
            s = Regex.Replace(Regex.Replace(s, @"cluster_stats_messages_[a-z-]+_(sent|received):\d+\r\n", ""), @"cluster_stats_messages_(sent|received):\d+", "cluster_stats_messages_$1:<N>")
                .Replace(s[..s.IndexOf('\r')], "$<len>");
        if (cmd.Length >= 2 && cmd[0].Equals("CLUSTER", StringComparison.OrdinalIgnoreCase)
            && (cmd[1].Equals("NODES", StringComparison.OrdinalIgnoreCase) || cmd[1].Equals("REPLICAS", StringComparison.OrdinalIgnoreCase)))
        {
            var lines = Regex.Matches(s, @"[0-9a-f<][^\r\n]*? (?:connected|disconnected)[^\r\n]*")
                .Select(m => Regex.Replace(m.Value, @"^(\S+ \S+ \S+ \S+) \d+ \d+ ", "$1 <T> <T> "))
                .Order(StringComparer.Ordinal);
            return string.Join("\n", lines);
        }
        return s;
    }

    public async ValueTask DisposeAsync()
    {
        Theirs.Dispose();
        await Ours.DisposeAsync();
        foreach (var d in new[] { _theirDir, _ourDir })
        {
            try { Directory.Delete(d, recursive: true); } catch (IOException) { } catch (UnauthorizedAccessException) { }
        }
    }
}
