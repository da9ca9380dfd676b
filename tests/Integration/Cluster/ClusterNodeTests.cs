using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// A cluster node on its own: nodes.conf written in Redis 7.2's format and loaded back at restart
/// (id, slots, migrations, epochs), the file's lock, the per-slot key index behind COUNTKEYSINSLOT
/// and GETKEYSINSLOT, and what cluster mode changes for clients (INFO, HELLO, CLIENT LIST, SELECT).
/// </summary>
public sealed class ClusterNodeTests
{
    /// <summary>
    /// A nodes.conf a running node holds: its exclusive flock keeps .NET's readers out (they take a
    /// shared one), as it keeps a second node out; cat takes none.
    /// </summary>
    internal static string ReadLocked(string path)
    {
        using var cat = System.Diagnostics.Process.Start(new System.Diagnostics.ProcessStartInfo("cat", [path]) { RedirectStandardOutput = true })!;
        string text = cat.StandardOutput.ReadToEnd();
        Assert.True(cat.WaitForExit(10_000));
        return text;
    }

    private static TestServer StartNode(string dir, int shards = 2, params string[] extra)
        => TestServer.Start(shards, [.. PortPair(extra), "--cluster-enabled", "yes", "--dir", dir, .. extra]);

    /// <summary>A data port whose bus port (+10000) is free too, unless the test names a port.</summary>
    private static string[] PortPair(string[] extra) => extra.Contains("--port") ? [] : ["--port", OurCluster.PickPortPair().ToString()];

    [Fact]
    public async Task NodesConf_WrittenAsRedis72_AndLoadedAtRestart()
    {
        string dir = Directory.CreateTempSubdirectory("clu-conf-").FullName;
        try
        {
            string id, other = new string('b', 40);
            await using (var server = StartNode(dir))
            {
                using var c = server.Connect();
                id = c.Call("CLUSTER", "MYID").Split("\r\n")[1];
                string shard = c.Call("CLUSTER", "MYSHARDID").Split("\r\n")[1];
                Assert.Matches("^[0-9a-f]{40}$", id);
                Assert.Matches("^[0-9a-f]{40}$", shard);
                // A fresh node's file: myself, no slots, 7.2's aux fields, the vars line.
                string text = ReadLocked(Path.Combine(dir, "nodes.conf"));
                Assert.Matches($"^{id} :\\d+@\\d+,,tls-port=0,shard-id={shard} myself,master - 0 0 0 connected\nvars currentEpoch 0 lastVoteEpoch 0\n$", text);
                Assert.Equal("+OK\r\n", c.Call("CLUSTER", "ADDSLOTSRANGE", "0", "99", "200", "200"));
                Assert.Equal("+OK\r\n", c.Call("CLUSTER", "SET-CONFIG-EPOCH", "9"));
                Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "cluster-announce-hostname", "node-1"));
                Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "cluster-announce-human-nodename", "first"));
                Assert.Equal("+OK\r\n", c.Call("CLUSTER", "SETSLOT", "50", "MIGRATING", id));
                Assert.Equal("+STILL 9\r\n", c.Call("CLUSTER", "BUMPEPOCH")); // already the highest epoch
                Assert.Equal("+OK\r\n", c.Call("CLUSTER", "SAVECONFIG"));
                text = ReadLocked(Path.Combine(dir, "nodes.conf"));
                int port = server.Port;
                Assert.Matches($"^{id} :{port}@{port + 10000},node-1,tls-port=0,nodename=first,shard-id={shard} myself,master - 0 0 9 connected 0-99 200 \\[50->-{id}\\]\n" +
                               "vars currentEpoch 9 lastVoteEpoch 0\n$", text);
                // CLUSTER NODES shows the hostname, not the aux fields.
                Assert.Contains($"{id} :{port}@{port + 10000},node-1 myself,master - 0 0 9 connected 0-99 200 [50->-{id}]\n", c.Call("CLUSTER", "NODES"));
            }
            // A file with another master and a replica (as Redis 7.0 writes it: no aux fields).
            string conf = ReadLocked(Path.Combine(dir, "nodes.conf"));
            conf = conf.Replace("vars currentEpoch 9", $"{other} 127.0.0.1:30001@40001 master - 0 0 3 disconnected 300-400\n" +
                                $"{new string('c', 40)} 127.0.0.1:30002@40002 slave {other} 0 0 3 disconnected\nvars currentEpoch 9");
            File.WriteAllText(Path.Combine(dir, "nodes.conf"), conf);
            await using (var server = StartNode(dir))
            {
                using var c = server.Connect();
                Assert.Equal($"${id.Length}\r\n{id}\r\n", c.Call("CLUSTER", "MYID"));
                string nodes = c.Call("CLUSTER", "NODES");
                Assert.Contains($" myself,master - 0 0 9 connected 0-99 200 [50->-{id}]\n", nodes);
                Assert.Contains($"{other} 127.0.0.1:30001@40001 master - 0 0 3 disconnected 300-400\n", nodes);
                Assert.Contains($"{new string('c', 40)} 127.0.0.1:30002@40002 slave {other} 0 0 3 disconnected\n", nodes);
                string info = c.Call("CLUSTER", "INFO");
                Assert.Contains("cluster_slots_assigned:202\r\n", info);
                Assert.Contains("cluster_known_nodes:3\r\n", info);
                Assert.Contains("cluster_current_epoch:9\r\n", info);
                Assert.Contains("cluster_my_epoch:9\r\n", info);
                Assert.Equal("*1\r\n", c.Call("CLUSTER", "REPLICAS", other)[..4]);
                // The replica takes its master's shard id; the file written again keeps every node.
                Assert.Equal("+OK\r\n", c.Call("CLUSTER", "SAVECONFIG"));
                string text = ReadLocked(Path.Combine(dir, "nodes.conf"));
                var shardOf = Regex.Matches(text, @"^(\S+) \S*shard-id=(\S+) ", RegexOptions.Multiline).ToDictionary(m => m.Groups[1].Value, m => m.Groups[2].Value);
                Assert.Equal(3, shardOf.Count);
                Assert.Equal(shardOf[other], shardOf[new string('c', 40)]);
            }
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task NodesConf_LockedByARunningNode_SecondServerRefused()
    {
        string dir = Directory.CreateTempSubdirectory("clu-lock-").FullName;
        try
        {
            await using var first = StartNode(dir);
            var ex = Assert.ThrowsAny<Exception>(() => StartNode(dir));
            Assert.Contains("locked", ex.Message);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [RedisFact]
    public async Task NodesConf_HeldByRedisServer_StartRefused()
    {
        string dir = Directory.CreateTempSubdirectory("clu-lock-redis-").FullName;
        try
        {
            using var redis = ReferenceRedis.StartOrNull($"--cluster-enabled yes --dir {dir}") ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
            var ex = Assert.ThrowsAny<Exception>(() => StartNode(dir));
            Assert.Contains("locked", ex.Message);
            await Task.CompletedTask;
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task NodesConf_Corrupt_StartRefused()
    {
        string dir = Directory.CreateTempSubdirectory("clu-bad-").FullName;
        try
        {
            File.WriteAllText(Path.Combine(dir, "nodes.conf"), "abc 127.0.0.1:1@2 myself,master - 0 0 0 connected\n");
            var ex = Assert.ThrowsAny<Exception>(() => StartNode(dir));
            Assert.Equal("Unrecoverable error: corrupted cluster config file \"abc 127.0.0.1:1@2 myself,master - 0 0 0 connected\".", ex.Message);
            await Task.CompletedTask;
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task CountAndGetKeysInSlot_FollowWritesDeletesExpiryAndFlush()
    {
        string dir = Directory.CreateTempSubdirectory("clu-keys-").FullName;
        try
        {
            await using var server = StartNode(dir, shards: 4);
            using var c = server.Connect();
            Assert.Equal("+OK\r\n", c.Call("CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
            await Eventually.WaitFor(() => c.Call("CLUSTER", "INFO").Contains("cluster_state:ok"), () => c.Call("CLUSTER", "INFO"));
            for (int i = 0; i < 200; i++) Assert.Equal("+OK\r\n", c.Call("SET", $"{{t10648}}k{i}", "v"));
            Assert.Equal("+OK\r\n", c.Call("SET", "{t21117}x", "v"));
            Assert.Equal(":200\r\n", c.Call("CLUSTER", "COUNTKEYSINSLOT", "100"));
            Assert.Equal(":1\r\n", c.Call("CLUSTER", "COUNTKEYSINSLOT", "5000"));
            Assert.Equal(":0\r\n", c.Call("CLUSTER", "COUNTKEYSINSLOT", "101"));
            // Paging as redis-cli --cluster reshard does: GETKEYSINSLOT, delete what it gave, again.
            var seen = new HashSet<string>();
            for (int round = 0; round < 50; round++)
            {
                string reply = c.Call("CLUSTER", "GETKEYSINSLOT", "100", "10");
                var keys = Regex.Matches(reply, @"\$\d+\r\n([^\r]*)\r\n").Select(m => m.Groups[1].Value).ToList();
                if (keys.Count == 0) break;
                Assert.True(keys.Count <= 10);
                foreach (var k in keys)
                {
                    Assert.True(seen.Add(k), "key given twice: " + k);
                    Assert.Equal(":1\r\n", c.Call("DEL", k));
                }
            }
            Assert.Equal(200, seen.Count);
            Assert.Equal(":0\r\n", c.Call("CLUSTER", "COUNTKEYSINSLOT", "100"));
            Assert.Equal("*0\r\n", c.Call("CLUSTER", "GETKEYSINSLOT", "100", "10"));
            // Expired keys leave the index when they are removed; FLUSHALL empties it.
            Assert.Equal("+OK\r\n", c.Call("SET", "{t10648}e", "v", "PX", "1"));
            await Eventually.WaitFor(() => c.Call("CLUSTER", "COUNTKEYSINSLOT", "100") == ":0\r\n", () => c.Call("CLUSTER", "COUNTKEYSINSLOT", "100"));
            Assert.Equal("+OK\r\n", c.Call("RENAME", "{t21117}x", "{t21117}y"));
            Assert.Equal(":1\r\n", c.Call("CLUSTER", "COUNTKEYSINSLOT", "5000"));
            Assert.Equal("*1\r\n$9\r\n{t21117}y\r\n", c.Call("CLUSTER", "GETKEYSINSLOT", "5000", "5"));
            Assert.Equal("+OK\r\n", c.Call("FLUSHALL"));
            Assert.Equal(":0\r\n", c.Call("CLUSTER", "COUNTKEYSINSLOT", "5000"));
            Assert.Equal("+OK\r\n", c.Call("SET", "{t21117}z", "v"));
            Assert.Equal(":1\r\n", c.Call("CLUSTER", "COUNTKEYSINSLOT", "5000"));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task ClientFacing_ClusterMode_ShownAsRedis()
    {
        string dir = Directory.CreateTempSubdirectory("clu-client-").FullName;
        try
        {
            await using var server = StartNode(dir, 2, "--databases", "16");
            using var c = server.Connect();
            Assert.Contains("\r\ncluster_enabled:1\r\n", c.Call("INFO", "cluster"));
            Assert.Contains("\r\nredis_mode:cluster\r\n", c.Call("INFO", "server"));
            Assert.Contains("$4\r\nmode\r\n$7\r\ncluster\r\n", c.Call("HELLO", "2"));
            Assert.Equal("*2\r\n$9\r\ndatabases\r\n$1\r\n1\r\n", c.Call("CONFIG", "GET", "databases"));
            Assert.Equal("-ERR SELECT is not allowed in cluster mode\r\n", c.Call("SELECT", "1"));
            Assert.Equal("+OK\r\n", c.Call("READONLY"));
            Assert.Matches(@"flags=r ", c.Call("CLIENT", "INFO"));
            Assert.Equal("+OK\r\n", c.Call("READWRITE"));
            Assert.Matches(@"flags=N ", c.Call("CLIENT", "INFO"));
            Assert.Equal("+OK\r\n", c.Call("READONLY"));
            Assert.Equal("+RESET\r\n", c.Call("RESET"));
            Assert.Matches(@"flags=N ", c.Call("CLIENT", "INFO"));
            // COMMAND GETKEYS does not care about slots.
            Assert.Equal("*2\r\n$1\r\na\r\n$1\r\nb\r\n", c.Call("COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2"));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task Standalone_AskingReadonlyReadwrite_ClusterSupportDisabled()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("-ERR This instance has cluster support disabled\r\n", c.Call("ASKING"));
        Assert.Equal("-ERR This instance has cluster support disabled\r\n", c.Call("READONLY"));
        Assert.Equal("-ERR This instance has cluster support disabled\r\n", c.Call("READWRITE"));
        Assert.Equal("-ERR This instance has cluster support disabled\r\n", c.Call("CLUSTER", "MYSHARDID"));
        await Task.CompletedTask;
    }

    [Fact]
    public async Task Start_KeysInSlotsNotOwned_TakenWhenUnassignedImportingWhenAnotherOwns()
    {
        string dir = Directory.CreateTempSubdirectory("clu-verify-").FullName;
        try
        {
            // The data, saved by a standalone server: "foo" is in slot 12182, "bar" in 5061.
            await using (var standalone = TestServer.Start(2, "--dir", dir))
            {
                using var c = standalone.Connect();
                Assert.Equal("+OK\r\n", c.Call("SET", "foo", "1"));
                Assert.Equal("+OK\r\n", c.Call("SET", "bar", "2"));
                Assert.Equal("+OK\r\n", c.Call("SAVE"));
            }
            // A node that knows another master owning slot 5061 and nothing about 12182.
            string id = new string('a', 40), other = new string('b', 40);
            int port = OurCluster.PickPortPair();
            File.WriteAllText(Path.Combine(dir, "nodes.conf"),
                $"{id} 127.0.0.1:{port}@{port + 10000} myself,master - 0 0 1 connected\n" +
                $"{other} 127.0.0.1:1@2 master - 0 0 2 disconnected 5061\n" +
                "vars currentEpoch 2 lastVoteEpoch 0\n");
            await using (var node = StartNode(dir, 2, "--port", port.ToString(), "--cluster-require-full-coverage", "no"))
            {
                using var c = node.Connect();
                // Redis's verifyClusterConfigWithData: the unassigned slot is taken, the other marked importing.
                Assert.Contains($"{id} 127.0.0.1:{port}@{port + 10000} myself,master - 0 0 1 connected 12182 [5061-<-{other}]\n",
                    c.Call("CLUSTER", "NODES"));
                // A master turns ok 2 s after start (the writable delay).
                await Eventually.WaitFor(() => c.Call("GET", "foo") == "$1\r\n1\r\n", () => c.Call("CLUSTER", "INFO"), 20);
                Assert.Equal("-MOVED 5061 127.0.0.1:1\r\n", c.Call("GET", "bar"));
                Assert.Contains("[5061-<-", ReadLocked(Path.Combine(dir, "nodes.conf")));
            }
        }
        finally
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }
}
