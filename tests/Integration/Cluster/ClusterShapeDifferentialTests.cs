using System.Text;
using System.Text.RegularExpressions;
using RedisClone.Tests.Cluster.Bus;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// Whole clusters compared: three masters (and three replicas) of redis-server 7.0.15 and the same
/// shape of this server, formed the same way (ADDSLOTSRANGE thirds, MEET, REPLICATE); the replies
/// of CLUSTER NODES / SLOTS / SHARDS / INFO / REPLICAS, redirections (MOVED, ASK, TRYAGAIN,
/// CROSSSLOT, CLUSTERDOWN), READONLY on a replica, COUNTKEYSINSLOT / GETKEYSINSLOT and the ASKING
/// flow of a MIGRATE of big keys, with ids, ports, epochs and timings masked.
/// </summary>
public sealed class ClusterShapeDifferentialTests
{
    /// <summary>A formed cluster of either server: node i's port, its client factory and its id.</summary>
    private sealed class Shape : IAsyncDisposable
    {
        private readonly List<IAsyncDisposable> _owned = new();
        public readonly List<(int Port, Func<RespClient> Connect)> Nodes = new();
        public string[] Ids = [];

        public static async Task<Shape> OursAsync(int count)
        {
            var shape = new Shape();
            var cluster = OurCluster.Start(count);
            shape._owned.Add(cluster);
            for (int i = 0; i < count; i++)
            {
                var node = cluster[i];
                shape.Nodes.Add((node.Port, node.Connect));
            }
            await shape.FormAsync();
            return shape;
        }

        public static async Task<Shape> TheirsAsync(int count)
        {
            var shape = new Shape();
            for (int i = 0; i < count; i++)
            {
                var node = ClusterRedis.Start("--cluster-node-timeout 5000") ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
                shape._owned.Add(new Disposer(node.Dispose));
                shape.Nodes.Add((node.Port, node.Connect));
            }
            await shape.FormAsync();
            return shape;
        }

        public string Call(int i, params string[] args)
        {
            using var c = Nodes[i].Connect();
            return c.Call(args);
        }

        private static string Bulk(string reply) => reply.StartsWith('$') ? reply.Split("\r\n")[1] : reply;

        /// <summary>Thirds of the slots on nodes 0-2, node 0 meets the rest, nodes 3.. replicate 0.. in turn.</summary>
        private async Task FormAsync()
        {
            int count = Nodes.Count;
            Ids = Enumerable.Range(0, count).Select(i => Bulk(Call(i, "CLUSTER", "MYID"))).ToArray();
            int[][] ranges = [[0, 5460], [5461, 10922], [10923, 16383]];
            for (int i = 0; i < 3; i++) Assert.Equal("+OK\r\n", Call(i, "CLUSTER", "ADDSLOTSRANGE", ranges[i][0].ToString(), ranges[i][1].ToString()));
            for (int i = 1; i < count; i++) Assert.Equal("+OK\r\n", Call(0, "CLUSTER", "MEET", "127.0.0.1", Nodes[i].Port.ToString()));
            await Eventually.WaitFor(() => Enumerable.Range(0, count).All(i =>
            {
                var lines = Bulk(Call(i, "CLUSTER", "NODES")).Split('\n', StringSplitOptions.RemoveEmptyEntries);
                return lines.Length == count && lines.All(l => l.Contains(" connected") && !l.Contains("handshake"));
            }), Describe, seconds: 60);
            for (int i = 3; i < count; i++) Assert.Equal("+OK\r\n", Call(i, "CLUSTER", "REPLICATE", Ids[i - 3]));
            await Eventually.WaitFor(() => Enumerable.Range(0, count).All(i =>
                Regex.Matches(Bulk(Call(i, "CLUSTER", "NODES")), "[ ,]slave ").Count == count - 3
                && Call(i, "CLUSTER", "INFO").Contains("cluster_state:ok")
                && (i < 3 || Call(i, "INFO", "replication").Contains("master_link_status:up"))
                // Replicas count in SLOTS and SHARDS once their replication offset is known (a
                // master's first PING to its replicas moves it off 0): settled then.
                && !Call(i, "CLUSTER", "SHARDS").Contains("loading")), Describe, seconds: 60);
        }

        public string Describe() => string.Join("\n---\n", Enumerable.Range(0, Nodes.Count).Select(i => Bulk(Call(i, "CLUSTER", "NODES")) + Call(i, "CLUSTER", "INFO")));

        /// <summary>Ids as N0.., ports as P0.. and bus ports as B0.. (node order), epochs and times as E and T.</summary>
        public string Mask(string reply)
        {
            string s = reply;
            for (int i = 0; i < Nodes.Count; i++)
                s = s.Replace(Ids[i], $"<N{i}>").Replace((Nodes[i].Port + 10000).ToString(), $"<B{i}>").Replace(Nodes[i].Port.ToString(), $"<P{i}>");
            return s;
        }

        public async ValueTask DisposeAsync()
        {
            foreach (var o in _owned) await o.DisposeAsync();
        }

        private sealed class Disposer(Action dispose) : IAsyncDisposable
        {
            public ValueTask DisposeAsync()
            {
                dispose();
                return ValueTask.CompletedTask;
            }
        }
    }

    // ------------------------------------------------------------------ a small RESP reader for shapes

    /// <summary>A reply as nested lists of strings (bulks, simple strings, numbers as text, null as "(nil)").</summary>
    private static object Parse(string raw)
    {
        int at = 0;
        return Read(raw, ref at);
    }

    private static object Read(string s, ref int at)
    {
        char kind = s[at];
        int end = s.IndexOf("\r\n", at, StringComparison.Ordinal);
        string line = s[(at + 1)..end];
        at = end + 2;
        switch (kind)
        {
            case '$':
            case '=':
            {
                int n = int.Parse(line);
                if (n < 0) return "(nil)";
                string value = s.Substring(at, n);
                at += n + 2;
                return value;
            }
            case '*':
            case '%':
            case '~':
            case '>':
            {
                int n = int.Parse(line);
                if (n < 0) return "(nil)";
                if (kind == '%') n *= 2;
                var list = new List<object>(n);
                for (int i = 0; i < n; i++) list.Add(Read(s, ref at));
                return list;
            }
            case '_':
                return "(nil)";
            default:
                return line;
        }
    }

    private static string Show(object o) => o is List<object> l ? "[" + string.Join(", ", l.Select(Show)) + "]" : (string)o;

    /// <summary>CLUSTER NODES masked: ping/pong times and epochs out, lines sorted.</summary>
    private static string Nodes(Shape s, int i)
    {
        string text = (string)Parse(s.Call(i, "CLUSTER", "NODES"));
        return string.Join("\n", text.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Select(l => s.Mask(Regex.Replace(l, @"^(\S+ \S+ \S+ \S+) \d+ \d+ \d+ ", "$1 T T E ")))
            .Order(StringComparer.Ordinal));
    }

    /// <summary>CLUSTER SLOTS masked, its ranges in slot order (Redis lists them in its node dict's order).</summary>
    private static string Slots(Shape s, int i)
    {
        var slots = (List<object>)Parse(s.Call(i, "CLUSTER", "SLOTS"));
        return s.Mask(string.Join("\n", slots.Cast<List<object>>().OrderBy(r => int.Parse((string)r[0])).Select(Show)));
    }

    /// <summary>CLUSTER SHARDS masked (replication offsets out), shards in slot order, their nodes in id order.</summary>
    private static string Shards(Shape s, int i)
    {
        var shards = (List<object>)Parse(s.Call(i, "CLUSTER", "SHARDS"));
        var shown = new List<(int, string)>();
        foreach (List<object> shard in shards)
        {
            var slots = (List<object>)shard[1];
            var nodes = ((List<object>)shard[3]).Cast<List<object>>().Select(n =>
            {
                var copy = new List<object>(n);
                int off = copy.IndexOf("replication-offset");
                if (off >= 0) copy[off + 1] = "<offset>";
                return s.Mask(Show(copy)); // masked before ordering: ids are random
            }).Order(StringComparer.Ordinal);
            shown.Add((slots.Count > 0 ? int.Parse((string)slots[0]) : -1, $"{shard[0]} {Show(slots)} {shard[2]} [{string.Join(", ", nodes)}]"));
        }
        return s.Mask(string.Join("\n", shown.OrderBy(x => x.Item1).Select(x => x.Item2)));
    }

    private static string Info(Shape s, int i)
        => Regex.Replace(Regex.Replace((string)Parse(s.Call(i, "CLUSTER", "INFO")), @"cluster_stats_messages_[a-z_-]+:\d+\r\n", ""),
            @"(cluster_current_epoch|cluster_my_epoch):\d+", "$1:E");

    [RedisFact]
    public async Task SixNodes_NodesSlotsShardsInfoReplicas_SameShapeAsRedis()
    {
        await using var theirs = await Shape.TheirsAsync(6);
        await using var ours = await Shape.OursAsync(6);
        var failures = new StringBuilder();
        void Same(string what, Func<Shape, string> reply)
        {
            string t = reply(theirs), o = reply(ours);
            if (t != o) failures.AppendLine($"{what}\n  redis:      {Differential.Show(t)}\n  redisclone: {Differential.Show(o)}");
        }
        foreach (int i in new[] { 0, 4 })
        {
            Same($"CLUSTER NODES on node {i}", s => Nodes(s, i));
            Same($"CLUSTER SLOTS on node {i}", s => Slots(s, i));
            Same($"CLUSTER SHARDS on node {i}", s => Shards(s, i));
            Same($"CLUSTER INFO on node {i}", s => Info(s, i));
        }
        Same("CLUSTER REPLICAS", s => string.Join("\n", ((List<object>)Parse(s.Call(2, "CLUSTER", "REPLICAS", s.Ids[1])))
            .Select(l => s.Mask(Regex.Replace((string)l, @"^(\S+ \S+ \S+ \S+) \d+ \d+ \d+ ", "$1 T T E ")))));
        Same("CLUSTER REPLICAS of a replica", s => s.Call(0, "CLUSTER", "REPLICAS", s.Ids[3]));
        Same("CLUSTER COUNT-FAILURE-REPORTS", s => s.Call(0, "CLUSTER", "COUNT-FAILURE-REPORTS", s.Ids[2]));

        // Redirections on node 0 (slots 0-5460): {t21117} is slot 5000 here, foo 12182 on node 2, {a} 15495 on node 2.
        string[][] script =
        [
            ["SET", "{t21117}a", "1"], ["SET", "{t21117}b", "2"], ["SET", "{t21117}c", "3"], ["GET", "foo"], ["SET", "foo", "x"],
            ["MSET", "{t21117}a", "1", "foo", "2"], ["MGET", "{t21117}a", "{t21117}b"], ["DEL", "foo", "{a}"], ["EXISTS", "{a}x", "{a}y"],
            ["CLUSTER", "COUNTKEYSINSLOT", "5000"], ["CLUSTER", "COUNTKEYSINSLOT", "12182"], ["CLUSTER", "COUNTKEYSINSLOT", "16383"],
            ["CLUSTER", "GETKEYSINSLOT", "5000", "0"], ["CLUSTER", "GETKEYSINSLOT", "5000", "1"], ["CLUSTER", "GETKEYSINSLOT", "12182", "10"],
            ["CLUSTER", "GETKEYSINSLOT", "5000", "-1"], ["CLUSTER", "GETKEYSINSLOT", "5000", "x"], ["CLUSTER", "GETKEYSINSLOT", "-1", "1"],
            ["CLUSTER", "GETKEYSINSLOT", "16384", "1"], ["CLUSTER", "COUNTKEYSINSLOT", "16384"], ["CLUSTER", "GETKEYSINSLOT", "5000", "99999999999999999999"],
            // Slot 5000 migrating to node 1: a present key is served, a missing one asked there; keys split: TRYAGAIN.
            ["CLUSTER", "SETSLOT", "5000", "MIGRATING", "<N1>"], ["GET", "{t21117}a"], ["GET", "{t21117}zz"], ["MGET", "{t21117}a", "{t21117}zz"],
            ["MGET", "{t21117}y", "{t21117}zz"], ["SET", "{t21117}new", "1"], ["CLUSTER", "SETSLOT", "5000", "STABLE"],
            ["PUBLISH", "ch", "m"], ["SPUBLISH", "{t21117}", "m"], ["SPUBLISH", "foo", "m"], ["SSUBSCRIBE", "foo"],
        ];
        foreach (var cmd in script)
            Same(string.Join(' ', cmd), s => s.Mask(s.Call(0, cmd.Select(a => Regex.Replace(a, @"^<N(\d)>$", m => s.Ids[int.Parse(m.Groups[1].Value)])).ToArray())));

        // Node 1 importing slot 5000: MOVED without ASKING, served with it.
        foreach (var (cmds, what) in new[]
                 {
                     (new[] { new[] { "CLUSTER", "SETSLOT", "5000", "IMPORTING", "<N0>" }, ["GET", "{t21117}a"], ["ASKING"], ["GET", "{t21117}a"], ["ASKING"], ["SET", "{t21117}q", "1"], ["GET", "{t21117}q"], ["CLUSTER", "SETSLOT", "5000", "STABLE"], ["DEL", "{t21117}q"] }, "node 1 importing"),
                     // READONLY on node 3 (replica of node 0): reads served, writes and other slots MOVED.
                     (new[] { new[] { "GET", "{t21117}a" }, ["READONLY"], ["GET", "{t21117}a"], ["MGET", "{t21117}a", "{t21117}b"], ["SET", "{t21117}a", "9"], ["GET", "foo"], ["READWRITE"], ["GET", "{t21117}a"], ["CLUSTER", "COUNTKEYSINSLOT", "5000"] }, "replica with READONLY"),
                 })
        {
            int node = what.StartsWith("node 1") ? 1 : 3;
            if (node == 3)
                await Eventually.WaitFor(() => theirs.Call(3, "DBSIZE") == ":3\r\n" && ours.Call(3, "DBSIZE") == ":3\r\n",
                    () => theirs.Call(3, "DBSIZE") + ours.Call(3, "DBSIZE"), seconds: 20);
            string Run(Shape s)
            {
                using var c = s.Nodes[node].Connect();
                return string.Join("\n", cmds.Select(cmd => s.Mask(c.Call(cmd.Select(a => Regex.Replace(a, @"^<N(\d)>$", m => s.Ids[int.Parse(m.Groups[1].Value)])).ToArray()))));
            }
            Same(what, Run);
        }

        // CLUSTERDOWN on node 0 after it unassigns a slot: the cluster is down; with reads allowed
        // when down, writes get their own text. Only node 0's replies are compared: Redis 7.2 also
        // makes the other nodes drop slot 1 once its owner stops claiming it (7.0 keeps it).
        foreach (var s in new[] { theirs, ours })
        {
            Assert.Equal("+OK\r\n", s.Call(0, "CLUSTER", "DELSLOTS", "1"));
            await Eventually.WaitFor(() => s.Call(0, "CLUSTER", "INFO").Contains("cluster_state:fail"), () => s.Call(0, "CLUSTER", "INFO"), seconds: 20);
        }
        string[][] down =
        [
            ["GET", "{t21117}a"], ["SET", "{t21117}a", "1"], ["CONFIG", "SET", "cluster-allow-reads-when-down", "yes"], ["GET", "{t21117}a"],
            ["SET", "{t21117}a", "1"], ["GET", "foo"], ["SPUBLISH", "{t21117}", "m"], ["CONFIG", "SET", "cluster-allow-pubsubshard-when-down", "no"],
            ["SPUBLISH", "{t21117}", "m"],
        ];
        foreach (var cmd in down) Same("down: " + string.Join(' ', cmd), s => s.Mask(s.Call(0, cmd)));
        Assert.True(failures.Length == 0, "replies differ from redis-server:\n" + failures);
    }
    /// <summary>
    /// A list and a sorted set of 200,000 elements each in slot 6392 (node 1's) moved to node 2 with
    /// one MIGRATE while a client keeps reading the list as a cluster client would (following ASK
    /// with ASKING): every read sees the whole list, from the source or, once moved, from the
    /// target; then the replies of both nodes during and after the migration are Redis's.
    /// </summary>
    [RedisFact]
    public async Task Migrate_BigListAndZsetWhileAClientReads_AskingFlowAsRedis()
    {
        await using var theirs = await Shape.TheirsAsync(3);
        await using var ours = await Shape.OursAsync(3);
        var t = await BigKeyFlowAsync(theirs);
        var o = await BigKeyFlowAsync(ours);
        Assert.Equal(string.Join("\n", t.Select(Differential.Show)), string.Join("\n", o.Select(Differential.Show)));
    }

    private static async Task<List<string>> BigKeyFlowAsync(Shape s)
    {
        const int Elements = 200_000, Batch = 10_000;
        const string Slot = "6392";
        RespClient Connect(int i) => new(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, s.Nodes[i].Port), 120_000);
        string Id(int i) => s.Ids[i];
        using (var c = Connect(1))
        {
            for (int b = 0; b < Elements / Batch; b++)
            {
                Assert.StartsWith(":", c.Call(["RPUSH", "{big}l", .. Enumerable.Range(b * Batch, Batch).Select(n => "e" + n)]));
                Assert.StartsWith(":", c.Call(["ZADD", "{big}z", .. Enumerable.Range(b * Batch, Batch).SelectMany(n => new[] { n.ToString(), "m" + n })]));
            }
        }
        Assert.Equal("+OK\r\n", s.Call(2, "CLUSTER", "SETSLOT", Slot, "IMPORTING", Id(1)));
        Assert.Equal("+OK\r\n", s.Call(1, "CLUSTER", "SETSLOT", Slot, "MIGRATING", Id(2)));

        // The reader: LLEN on the source, ASKING + LLEN on the target after an ASK; anything else is an error.
        var seen = new System.Collections.Concurrent.ConcurrentQueue<string>();
        using var stop = new CancellationTokenSource();
        var reader = Task.Run(() =>
        {
            using var src = Connect(1);
            RespClient? dst = null;
            try
            {
                for (int n = 0; n < 1_000_000 && !stop.IsCancellationRequested; n++)
                {
                    string r = src.Call("LLEN", "{big}l");
                    if (r.StartsWith("-ASK " + Slot + " 127.0.0.1:" + s.Nodes[2].Port + "\r\n", StringComparison.Ordinal))
                    {
                        dst ??= Connect(2);
                        string a = dst.Call("ASKING"), r2 = dst.Call("LLEN", "{big}l");
                        seen.Enqueue(a == "+OK\r\n" && r2 == $":{Elements}\r\n" ? "asked" : "error after ASK: " + a + r2);
                    }
                    else seen.Enqueue(r == $":{Elements}\r\n" ? "here" : "error: " + r);
                }
            }
            finally
            {
                dst?.Dispose();
            }
        });
        await Eventually.WaitFor(() => seen.Contains("here"), () => string.Join(",", seen.Distinct()), seconds: 30);
        using (var c = Connect(1))
            Assert.Equal("+OK\r\n", c.Call("MIGRATE", "127.0.0.1", s.Nodes[2].Port.ToString(), "", "0", "60000", "KEYS", "{big}l", "{big}z"));
        await Eventually.WaitFor(() => seen.Contains("asked"), () => string.Join(",", seen.Distinct()), seconds: 30);
        stop.Cancel();
        await reader.WaitAsync(TimeSpan.FromSeconds(60));
        Assert.Equal(["here", "asked"], seen.Distinct().ToList());

        var replies = new List<string>();
        void Run(int node, params string[][] cmds)
        {
            using var c = Connect(node);
            foreach (var cmd in cmds) replies.Add(s.Mask($"node {node}: {string.Join(' ', cmd)} -> {c.Call(cmd)}"));
        }
        Run(1, ["LLEN", "{big}l"], ["ZCARD", "{big}z"], ["EXISTS", "{big}l"], ["TYPE", "{big}z"], ["MGET", "{big}l", "{big}x"],
            ["CLUSTER", "COUNTKEYSINSLOT", Slot], ["CLUSTER", "GETKEYSINSLOT", Slot, "10"],
            ["MIGRATE", "127.0.0.1", s.Nodes[2].Port.ToString(), "", "0", "5000", "KEYS", "{big}l"],
            ["MIGRATE", "127.0.0.1", s.Nodes[2].Port.ToString(), "{big}l", "0", "5000"]);
        Run(2, ["LLEN", "{big}l"], ["ASKING"], ["LLEN", "{big}l"], ["ASKING"], ["ZCARD", "{big}z"], ["ASKING"], ["LRANGE", "{big}l", "0", "2"],
            ["ASKING"], ["ZRANGE", "{big}z", "-2", "-1", "WITHSCORES"], ["ASKING"], ["LINDEX", "{big}l", "-1"], ["ASKING"], ["TYPE", "{big}l"],
            ["CLUSTER", "COUNTKEYSINSLOT", Slot], ["CLUSTER", "GETKEYSINSLOT", Slot, "1"], ["ASKING"], ["MGET", "{big}l", "{big}z"]);
        for (int i = 2; i >= 0; i--) replies.Add(s.Mask(s.Call(i, "CLUSTER", "SETSLOT", Slot, "NODE", Id(2))));
        Run(1, ["LLEN", "{big}l"], ["CLUSTER", "COUNTKEYSINSLOT", Slot]);
        Run(2, ["LLEN", "{big}l"], ["ZSCORE", "{big}z", "m199999"], ["DEL", "{big}l"], ["CLUSTER", "COUNTKEYSINSLOT", Slot]);
        return replies;
    }
}
