using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Replication;

/// <summary>
/// RedisClone as the master of Debian's redis-server 7.0 (started with --replicaof our port): full
/// syncs from the fork-free snapshot (to disk, and diskless), the stream after them (transactions,
/// scripts, expiries), partial resyncs from the backlog after the link is cut, a full one when the
/// backlog no longer covers the replica, WAIT, min-replicas-to-write, ROLE, INFO, CLIENT LIST, and
/// redis-cli --rdb / --replica. Both sides are compared with DEBUG DIGEST (the same algorithm).
/// </summary>
public class MasterReplicationTests
{
    private static string[] MasterArgs(bool diskless, params string[] more) =>
    [
        "--enable-debug-command", "yes", "--repl-diskless-sync", diskless ? "yes" : "no",
        "--repl-diskless-sync-delay", "0", .. more,
    ];

    /// <summary>
    /// redis-server replicating our <paramref name="port"/>, in a directory of its own (a replica
    /// writes the RDB it receives, and one left behind would make the next replica try a partial
    /// resync from it); disposed (killed, its directory removed) by the caller.
    /// </summary>
    private static Replica StartReplica(int port, string extra = "")
    {
        string dir = Path.Combine(Path.GetTempPath(), "rc-replica-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        var server = ReferenceRedis.StartOrNull($"--dir {dir} --replicaof 127.0.0.1 {port} --enable-debug-command yes {extra}");
        if (server == null)
        {
            Directory.Delete(dir, recursive: true);
            throw new InvalidOperationException("redis-server did not start");
        }
        return new Replica(server, dir);
    }

    private sealed class Replica(ReferenceRedis server, string dir) : IDisposable
    {
        public int Port => server.Port;

        public RespClient Connect() => server.Connect();

        public void Dispose()
        {
            server.Dispose();
            // The process may take a moment to let go of its files.
            for (int i = 0; i < 50 && Directory.Exists(dir); i++)
            {
                try { Directory.Delete(dir, recursive: true); }
                catch (IOException) { Thread.Sleep(100); }
            }
        }
    }

    private static string Info(RespClient c, string section) => c.Call("INFO", section);

    private static long Field(string info, string name)
    {
        var m = Regex.Match(info, $"^{Regex.Escape(name)}:(-?\\d+)", RegexOptions.Multiline);
        return m.Success ? long.Parse(m.Groups[1].Value) : -1;
    }

    /// <summary>Waits until the replica is linked and has processed everything the master wrote.</summary>
    private static void WaitInSync(RespClient master, RespClient replica, int seconds = 20)
    {
        Eventually.Wait(() =>
        {
            string r = Info(replica, "replication");
            return r.Contains("master_link_status:up") && Field(r, "slave_repl_offset") == Field(Info(master, "replication"), "master_repl_offset");
        }, () => "replica in sync: " + Info(replica, "replication") + " / " + Info(master, "replication"), seconds);
    }

    private static string Digest(RespClient c) => c.Call("DEBUG", "DIGEST");

    /// <summary>Keys of every type, with and without TTLs, in three databases, big and small encodings.</summary>
    private static void Fill(RespClient c, string tag)
    {
        for (int db = 0; db < 3; db++)
        {
            c.Call("SELECT", db.ToString());
            c.Call("SET", $"{tag}:s", "value");
            c.Call("SET", $"{tag}:n", "12345");
            c.Call("SET", $"{tag}:ttl", "v", "EX", "1000");
            c.Call("RPUSH", $"{tag}:l", "a", "b", "c");
            c.Call("HSET", $"{tag}:h", "f1", "v1", "f2", "v2");
            c.Call("SADD", $"{tag}:si", "1", "2", "3");
            c.Call("SADD", $"{tag}:ss", "x", "y", "z");
            c.Call("ZADD", $"{tag}:z", "1", "a", "2.5", "b");
            c.Call("XADD", $"{tag}:x", "1-1", "f", "v");
            c.Call("XADD", $"{tag}:x", "2-1", "f", "w");
            c.Call("XGROUP", "CREATE", $"{tag}:x", "g", "0");
            c.Call("XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", $"{tag}:x", ">");
            c.Call("PEXPIRE", $"{tag}:h", "5000000");
        }
        c.Call("SELECT", "0");
        var big = new List<string> { "RPUSH", $"{tag}:bigl" };
        var hash = new List<string> { "HSET", $"{tag}:bigh" };
        var zset = new List<string> { "ZADD", $"{tag}:bigz" };
        var set = new List<string> { "SADD", $"{tag}:bigs" };
        for (int i = 0; i < 600; i++)
        {
            big.Add("element-" + i);
            hash.Add("field-" + i);
            hash.Add("value-" + i);
            zset.Add(i.ToString());
            zset.Add("member-" + i);
            set.Add("member-" + i);
        }
        c.Call([.. big]);
        c.Call([.. hash]);
        c.Call([.. zset]);
        c.Call([.. set]);
        c.Call("SET", $"{tag}:large", new string('q', 100_000));
    }

    /// <summary>Writes after the sync: a transaction, a script, TTLs, a key that expires, commands in other databases.</summary>
    private static void WriteStream(RespClient c, string tag)
    {
        c.Call("SELECT", "1");
        c.Call("MULTI");
        c.Call("INCR", $"{tag}:n");
        c.Call("LPUSH", $"{tag}:l", "m");
        c.Call("SET", $"{tag}:ex", "1", "EX", "500");
        Assert.StartsWith("*3", c.Call("EXEC"));
        c.Call("SELECT", "0");
        c.Call("EVAL", "redis.call('set', KEYS[1], 'from-script'); return redis.call('hincrby', KEYS[2], 'f', 3)", "2", $"{tag}:e", $"{tag}:h");
        c.Call("SET", $"{tag}:px", "gone", "PX", "50");
        c.Call("EXPIRE", $"{tag}:s", "900");
        c.Call("ZINCRBY", $"{tag}:z", "10", "a");
        c.Call("XADD", $"{tag}:x", "*", "f", "new");
        c.Call("XACK", $"{tag}:x", "g", "1-1");
        c.Call("SELECT", "2");
        c.Call("DEL", $"{tag}:si");
        c.Call("SELECT", "0");
        Thread.Sleep(200); // tag:px expires: its DEL goes to the replica
        c.Call("GET", $"{tag}:px");
    }

    [RedisTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task FullSync_ThenStream_ReplicaDigestEqualsOurs(bool diskless)
    {
        await using var server = TestServer.Start(4, MasterArgs(diskless));
        using var master = server.Connect();
        Fill(master, "t");
        using var replicaServer = StartReplica(server.Port);
        using var replica = replicaServer.Connect();
        WaitInSync(master, replica);
        Assert.Equal(Digest(master), Digest(replica));

        WriteStream(master, "t");
        Assert.Equal(":1\r\n", master.Call("WAIT", "1", "5000"));
        WaitInSync(master, replica);
        Assert.Equal(Digest(master), Digest(replica));
        string stats = Info(master, "stats");
        Assert.Equal(1, Field(stats, "sync_full"));
        Assert.Equal(0, Field(stats, "sync_partial_ok"));
    }

    [RedisFact]
    public async Task FullSync_WhileWriting_ReplicaEqualsOurs()
    {
        await using var server = TestServer.Start(4, MasterArgs(diskless: true));
        using var master = server.Connect();
        master.Call("DEBUG", "POPULATE", "20000", "k", "50");
        using var replicaServer = StartReplica(server.Port);
        // Writes while the snapshot is taken and sent: each lands in the RDB or in the stream, once.
        using var writer = server.Connect();
        for (int i = 0; i < 3000; i++) writer.Call("SET", "k:" + (i * 7 % 20000), "changed-" + i);
        using var replica = replicaServer.Connect();
        WaitInSync(master, replica);
        Assert.Equal(Digest(master), Digest(replica));
    }

    /// <summary>
    /// Four clients writing at once on a 4-shard master (single keys, MSET across shards, INCRs on
    /// shared keys, transactions): the stream's order is the order the writes ran, so the replica
    /// ends equal.
    /// </summary>
    [RedisFact]
    public async Task ConcurrentWriters_AcrossShards_ReplicaEqualsOurs()
    {
        await using var server = TestServer.Start(4, MasterArgs(diskless: true));
        using var master = server.Connect();
        using var replicaServer = StartReplica(server.Port);
        using var replica = replicaServer.Connect();
        WaitInSync(master, replica);
        var writers = Enumerable.Range(0, 4).Select(w => Task.Run(() =>
        {
            using var c = server.Connect();
            for (int i = 0; i < 500; i++)
            {
                c.Call("INCR", "shared:" + (i % 7));
                c.Call("MSET", $"a:{i % 13}", $"{w}-{i}", $"b:{i % 11}", $"{w}-{i}", $"c:{i % 5}", $"{w}-{i}");
                c.Call("RPUSH", "list:" + (i % 3), $"{w}-{i}");
                if (i % 50 == 0)
                {
                    c.Call("MULTI");
                    c.Call("INCRBY", "shared:0", "100");
                    c.Call("DEL", $"a:{i % 13}");
                    c.Call("EXEC");
                }
            }
        })).ToArray();
        await Task.WhenAll(writers);
        WaitInSync(master, replica);
        Assert.Equal(Digest(master), Digest(replica));
    }

    /// <summary>
    /// A replica that asks while a BGSAVE runs waits for it to end (one snapshot at a time), then
    /// gets a sync of its own; the BGSAVE is not broken.
    /// </summary>
    [RedisFact]
    public async Task FullSync_WhileBgsaveRuns_WaitsThenSyncs()
    {
        await using var server = TestServer.Start(4, MasterArgs(diskless: true, "--dir", Path.GetTempPath(), "--dbfilename", $"rc-bgsave-{Guid.NewGuid():N}.rdb"));
        using var master = server.Connect();
        master.Call("DEBUG", "POPULATE", "3000", "k", "10");
        master.Call("CONFIG", "SET", "rdb-key-save-delay", "300"); // about a second for the BGSAVE
        Assert.Equal("+Background saving started\r\n", master.Call("BGSAVE"));
        using var replicaServer = StartReplica(server.Port);
        using var replica = replicaServer.Connect();
        Eventually.Wait(() => Info(master, "replication").Contains("state=wait_bgsave"), () => Info(master, "replication"));
        master.Call("SET", "during", "bgsave");
        WaitInSync(master, replica);
        master.Call("CONFIG", "SET", "rdb-key-save-delay", "0");
        Assert.Equal(Digest(master), Digest(replica));
        string persistence = Info(master, "persistence");
        Assert.Contains("rdb_last_bgsave_status:ok", persistence);
        Assert.Equal(1, Field(Info(master, "stats"), "sync_full"));
        File.Delete(Path.Combine(Path.GetTempPath(), Regex.Match(master.Call("CONFIG", "GET", "dbfilename"), "rc-bgsave-\\w+\\.rdb").Value));
    }

    /// <summary>Disk-based: a replica asking while another's RDB file is being written joins that sync (one save for both).</summary>
    [RedisFact]
    public async Task DiskSync_SecondReplicaDuringTheSave_JoinsIt()
    {
        await using var server = TestServer.Start(4, MasterArgs(diskless: false, "--dir", Path.GetTempPath(), "--dbfilename", $"rc-join-{Guid.NewGuid():N}.rdb"));
        using var master = server.Connect();
        master.Call("DEBUG", "POPULATE", "3000", "k", "10");
        master.Call("CONFIG", "SET", "rdb-key-save-delay", "300"); // about a second for the save
        using var first = StartReplica(server.Port);
        Eventually.Wait(() => Info(master, "replication").Contains("state=wait_bgsave"), () => Info(master, "replication"));
        using var second = StartReplica(server.Port);
        using var a = first.Connect();
        using var b = second.Connect();
        WaitInSync(master, a);
        WaitInSync(master, b);
        master.Call("CONFIG", "SET", "rdb-key-save-delay", "0");
        Assert.Equal(Digest(master), Digest(a));
        Assert.Equal(Digest(master), Digest(b));
        Assert.Equal(2, Field(Info(master, "stats"), "sync_full"));
        Assert.Equal(1, Field(Info(master, "persistence"), "rdb_saves"));
        File.Delete(Path.Combine(Path.GetTempPath(), Regex.Match(master.Call("CONFIG", "GET", "dbfilename"), "rc-join-\\w+\\.rdb").Value));
    }

    [RedisFact]
    public async Task LinkCut_ReplicaReconnects_PartialResync()
    {
        await using var server = TestServer.Start(4, MasterArgs(diskless: false));
        using var master = server.Connect();
        Fill(master, "p");
        using var replicaServer = StartReplica(server.Port);
        using var replica = replicaServer.Connect();
        WaitInSync(master, replica);

        Assert.Equal(":1\r\n", master.Call("CLIENT", "KILL", "TYPE", "replica"));
        WriteStream(master, "p");
        Eventually.Wait(() => Field(Info(master, "stats"), "sync_partial_ok") == 1, () => Info(master, "stats"));
        WaitInSync(master, replica);
        Assert.Equal(Digest(master), Digest(replica));
        string stats = Info(master, "stats");
        Assert.Equal(1, Field(stats, "sync_full"));

        // And from the replica's side: it drops its master link, then continues where it was.
        replica.Call("CLIENT", "KILL", "TYPE", "master");
        master.Call("SET", "p:after", "1");
        Eventually.Wait(() => Field(Info(master, "stats"), "sync_partial_ok") == 2, () => Info(master, "stats"));
        WaitInSync(master, replica);
        Assert.Equal("$1\r\n1\r\n", replica.Call("GET", "p:after"));
        Assert.Equal(1, Field(Info(master, "stats"), "sync_full"));
    }

    [RedisFact]
    public async Task LinkCut_BacklogTooSmall_FullResync()
    {
        await using var server = TestServer.Start(4, MasterArgs(diskless: false, "--repl-backlog-size", "16kb"));
        using var master = server.Connect();
        Fill(master, "b");
        using var replicaServer = StartReplica(server.Port);
        using var replica = replicaServer.Connect();
        WaitInSync(master, replica);

        // The kill and 64 KB of writes in one pipeline: the replica cannot be back before them.
        var pipeline = new List<byte>(RespClient.Encode("CLIENT", "KILL", "TYPE", "replica"));
        for (int i = 0; i < 4; i++) pipeline.AddRange(RespClient.Encode("SET", "b:big" + i, new string('w', 16_000)));
        master.SendRaw([.. pipeline]);
        for (int i = 0; i < 5; i++) master.ReadReply();

        Eventually.Wait(() => Field(Info(master, "stats"), "sync_full") == 2, () => Info(master, "stats"));
        WaitInSync(master, replica);
        Assert.Equal(Digest(master), Digest(replica));
        string stats = Info(master, "stats");
        Assert.Equal(0, Field(stats, "sync_partial_ok"));
        Assert.Equal(1, Field(stats, "sync_partial_err"));
    }

    [RedisFact]
    public async Task Wait_RoleInfoClientList_ShowTheReplica()
    {
        await using var server = TestServer.Start(4, MasterArgs(diskless: true));
        using var master = server.Connect();
        using var replicaServer = StartReplica(server.Port);
        using var replica = replicaServer.Connect();
        master.Call("SET", "w", "1");
        Assert.Equal(":1\r\n", master.Call("WAIT", "1", "5000"));
        // Two asked for, one there: the timeout answers with the count.
        Assert.Equal(":1\r\n", master.Call("WAIT", "2", "200"));
        WaitInSync(master, replica);

        long offset = Field(Info(master, "replication"), "master_repl_offset");
        string port = replicaServer.Port.ToString();
        Eventually.Wait(() => master.Call("ROLE") == $"*3\r\n$6\r\nmaster\r\n:{offset}\r\n*1\r\n*3\r\n$9\r\n127.0.0.1\r\n${port.Length}\r\n{port}\r\n${offset.ToString().Length}\r\n{offset}\r\n",
            () => master.Call("ROLE"));
        string info = Info(master, "replication");
        Assert.Contains("connected_slaves:1\r\n", info);
        Assert.Matches($"slave0:ip=127\\.0\\.0\\.1,port={port},state=online,offset=\\d+,lag=\\d+\r\n", info);
        string list = master.Call("CLIENT", "LIST", "TYPE", "replica");
        Assert.Contains("flags=S ", list);
        Assert.Single(Regex.Matches(list, "^id=", RegexOptions.Multiline));
        Assert.DoesNotContain("flags=S", master.Call("CLIENT", "LIST", "TYPE", "normal"));
    }

    [RedisFact]
    public async Task MinReplicasToWrite_WithoutThenWithReplica_NoReplicasThenOk()
    {
        await using var server = TestServer.Start(4, MasterArgs(diskless: true, "--min-replicas-to-write", "1"));
        using var master = server.Connect();
        Assert.Equal("-NOREPLICAS Not enough good replicas to write.\r\n", master.Call("SET", "k", "v"));
        // From a script, as Redis 7: the error with the script's location.
        Assert.StartsWith("-NOREPLICAS Not enough good replicas to write. script: ", master.Call("EVAL", "return redis.call('set','k','v')", "0"));
        Assert.Equal("-NOREPLICAS Not enough good replicas to write.\r\n", master.Call("EVAL", "#!lua\nreturn redis.call('set','k','v')", "0"));
        Assert.Equal("+OK\r\n", master.Call("MULTI"));
        Assert.Equal("-NOREPLICAS Not enough good replicas to write.\r\n", master.Call("SET", "k", "v"));
        Assert.StartsWith("-EXECABORT", master.Call("EXEC"));
        Assert.Equal("$-1\r\n", master.Call("GET", "k")); // reads go on
        Assert.Contains("min_slaves_good_slaves:0\r\n", Info(master, "replication"));
        using var replicaServer = StartReplica(server.Port);
        Eventually.Wait(() => master.Call("SET", "k", "v") == "+OK\r\n", () => Info(master, "replication"));
        Assert.Contains("min_slaves_good_slaves:1\r\n", Info(master, "replication"));
    }

    [RedisCliFact]
    public async Task RedisCliRdb_FileLoadsInRedis()
    {
        if (!ReferenceRedis.Available) return;
        await using var server = TestServer.Start(4, MasterArgs(diskless: true));
        using var master = server.Connect();
        Fill(master, "c");
        string dir = Path.Combine(Path.GetTempPath(), "rc-cli-rdb-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            string file = Path.Combine(dir, "dump.rdb");
            var (code, output) = ToolRunner.Run(ReferenceRedis.CliPath!, $"-p {server.Port} --rdb {file}", timeoutMs: 20_000);
            Assert.True(code == 0, output);
            if (ReferenceRedis.FindOnPath("redis-check-rdb") is { } check)
            {
                var (checkCode, checkOutput) = ToolRunner.Run(check, file, timeoutMs: 20_000);
                Assert.True(checkCode == 0 && checkOutput.Contains("RDB looks OK!"), checkOutput);
            }
            using var loaded = ReferenceRedis.StartOrNull($"--dir {dir} --enable-debug-command yes")!;
            using var theirs = loaded.Connect();
            Assert.Equal(Digest(master), Digest(theirs));
            // An rdb-only replica is gone once its file is sent.
            Eventually.Wait(() => Field(Info(master, "replication"), "connected_slaves") == 0, () => Info(master, "replication"));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>redis-cli --functions-rdb: REPLCONF rdb-filter-only functions, an RDB with the libraries and no keys (even with disk-based syncs).</summary>
    [RedisCliFact]
    public async Task RedisCliFunctionsRdb_OnlyTheLibraries()
    {
        if (!ReferenceRedis.Available) return;
        await using var server = TestServer.Start(2, MasterArgs(diskless: false));
        using var master = server.Connect();
        master.Call("SET", "not", "in-the-file");
        Assert.Equal("$5\r\nmylib\r\n", master.Call("FUNCTION", "LOAD", "#!lua name=mylib\nredis.register_function('f', function() return 1 end)"));
        string dir = Path.Combine(Path.GetTempPath(), "rc-cli-frdb-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            string file = Path.Combine(dir, "dump.rdb");
            var (code, output) = ToolRunner.Run(ReferenceRedis.CliPath!, $"-p {server.Port} --functions-rdb {file}", timeoutMs: 20_000);
            Assert.True(code == 0, output);
            using var loaded = ReferenceRedis.StartOrNull($"--dir {dir}")!;
            using var theirs = loaded.Connect();
            Assert.Equal(":0\r\n", theirs.Call("DBSIZE"));
            Assert.Contains("mylib", theirs.Call("FUNCTION", "LIST"));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [RedisCliFact]
    public async Task RedisCliReplica_PrintsTheStream()
    {
        await using var server = TestServer.Start(4, MasterArgs(diskless: true));
        using var master = server.Connect();
        var cli = System.Diagnostics.Process.Start(new System.Diagnostics.ProcessStartInfo(ReferenceRedis.CliPath!, $"-p {server.Port} --replica")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        })!;
        try
        {
            var lines = new System.Collections.Concurrent.ConcurrentQueue<string>();
            cli.OutputDataReceived += (_, e) => { if (e.Data != null) lines.Enqueue(e.Data); };
            cli.BeginOutputReadLine();
            cli.BeginErrorReadLine();
            Eventually.Wait(() => Field(Info(master, "replication"), "connected_slaves") == 1, () => Info(master, "replication"));
            Eventually.Wait(() =>
            {
                master.Call("SET", "cli:k", "v");
                return lines.Any(l => l.Equals("\"set\",\"cli:k\",\"v\"", StringComparison.OrdinalIgnoreCase));
            }, () => string.Join("\n", lines), seconds: 15);
        }
        finally
        {
            cli.Kill();
            cli.WaitForExit(5000);
            cli.Dispose();
        }
    }

    /// <summary>The master side's parameters take any valid value now (no longer refused as a missing feature), as Redis reads them back.</summary>
    [RedisFact]
    public void Config_MasterParameters_AcceptedAsRedis() => Differential.AssertSameOnPrivateServers(2,
    [
        ["CONFIG", "SET", "repl-backlog-size", "1000"],
        ["CONFIG", "GET", "repl-backlog-size"],
        ["CONFIG", "SET", "repl-backlog-size", "2mb", "repl-backlog-ttl", "10", "repl-diskless-sync", "no", "repl-diskless-sync-delay", "1"],
        ["CONFIG", "SET", "repl-diskless-sync-max-replicas", "2", "repl-ping-replica-period", "3", "repl-timeout", "30"],
        ["CONFIG", "SET", "min-replicas-to-write", "0", "min-replicas-max-lag", "5", "repl-disable-tcp-nodelay", "yes"],
        ["CONFIG", "GET", "repl-backlog-size"],
        ["CONFIG", "GET", "repl-timeout"],
        ["CONFIG", "GET", "min-slaves-max-lag"],
        ["CONFIG", "SET", "repl-timeout", "0"],
    ]);

    /// <summary>repl-diskless-sync-max-replicas: with that many replicas waiting, the sync starts without waiting out the delay.</summary>
    [Fact]
    public async Task DisklessSync_MaxReplicasWaiting_StartsBeforeTheDelay()
    {
        await using var server = TestServer.Start(2, "--repl-diskless-sync-delay", "60", "--repl-diskless-sync-max-replicas", "1");
        using var replica = RawReplica(server); // would wait a minute for the delay; 10 s is the read timeout
        using var master = server.Connect();
        Eventually.Wait(() => Info(master, "replication").Contains("state=online"), () => Info(master, "replication"));
    }

    /// <summary>REPLCONF's replies and errors, byte for byte against redis-server.</summary>
    [RedisFact]
    public void ReplConf_Options_MatchRedis() => Differential.AssertSame(new string[][]
    {
        ["REPLCONF", "listening-port", "6380"],
        ["REPLCONF", "listening-port", "abc"],
        ["REPLCONF", "capa", "eof", "capa", "psync2", "capa", "whatever"],
        ["REPLCONF", "ip-address", "10.0.0.1"],
        ["REPLCONF", "ip-address", new string('a', 300)],
        ["REPLCONF", "rdb-only", "1"],
        ["REPLCONF", "rdb-only", "2"],
        ["REPLCONF", "rdb-only", "x"],
        ["REPLCONF", "rdb-filter-only", "functions"],
        ["REPLCONF", "rdb-filter-only", "foo"],
        ["REPLCONF", "rdb-filter-only", ""],
        ["REPLCONF", "nosuchoption", "1"],
        ["REPLCONF", "listening-port"],
        ["REPLCONF"],
    });

    /// <summary>REPLCONF ACK from a connection that is not a replica, and GETACK, get no reply at all (a PING after them answers first).</summary>
    [Fact]
    public void ReplConf_AckAndGetAck_NoReply()
    {
        using var c = TestServer.Shared.Connect();
        c.SendRaw([.. RespClient.Encode("REPLCONF", "ACK", "5"), .. RespClient.Encode("REPLCONF", "GETACK", "*"), .. RespClient.Encode("PING")]);
        Assert.Equal("+PONG\r\n", c.ReadReply());
    }

    /// <summary>PSYNC answers +FULLRESYNC with the id and offset, then the RDB ($EOF: diskless), over a raw socket.</summary>
    [Fact]
    public async Task Psync_RawClient_FullResyncThenRdbThenStream()
    {
        await using var server = TestServer.Start(2, MasterArgs(diskless: true));
        // The snapshot starts on the thread pool: under the whole suite's load that can take seconds.
        using var c = new RespClient(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, server.Port), 60_000);
        c.Call("SET", "raw", "1");
        Assert.Equal("+OK\r\n", c.Call("REPLCONF", "capa", "eof", "capa", "psync2"));
        c.Send("PSYNC", "?", "-1");
        string line = ReadLine(c);
        Assert.Matches("^\\+FULLRESYNC [0-9a-f]{40} 0$", line);
        string header = ReadLine(c);
        Assert.Matches("^\\$EOF:[0-9a-f]{40}$", header);
        string mark = header[5..];
        var rdb = ReadUntil(c, mark);
        Assert.StartsWith("REDIS0010", rdb);
        Assert.Contains("repl-offset", rdb);
        c.Send("REPLCONF", "ACK", "0");
        using var writer = server.Connect();
        writer.Call("SET", "raw", "2");
        string stream = ReadUntil(c, "$3\r\nraw\r\n$1\r\n2\r\n");
        Assert.Contains("SELECT", stream);
        Assert.Equal(1, Field(writer.Call("INFO", "stats"), "sync_full"));
    }

    /// <summary>PSYNC pipelined after a command whose reply is still pending is refused, as Redis's clientHasPendingReplies check.</summary>
    [Fact]
    public async Task Psync_AfterAPendingReply_Refused()
    {
        await using var server = TestServer.Start(2, MasterArgs(diskless: true));
        using var c = server.Connect();
        c.SendRaw([.. RespClient.Encode("GET", "nothing"), .. RespClient.Encode("PSYNC", "?", "-1")]);
        Assert.Equal("$-1\r\n", c.ReadReply());
        Assert.Equal("-ERR SYNC and PSYNC are invalid with pending output\r\n", c.ReadReply());
        Assert.Equal("+PONG\r\n", c.Call("PING")); // still a normal client
        Assert.DoesNotContain("slave0:", c.Call("INFO", "replication"));
    }

    /// <summary>
    /// Redis 7.2: a replica's link carries acknowledgements only; a command that would be answered
    /// there (a GET after the sync) closes it, while REPLCONF ACK and a repeated PSYNC do not.
    /// </summary>
    [Fact]
    public async Task ReplicaLink_CommandWithAReply_Disconnected()
    {
        await using var server = TestServer.Start(2, MasterArgs(diskless: true));
        using var c = new RespClient(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, server.Port), 60_000);
        Assert.Equal("+OK\r\n", c.Call("REPLCONF", "capa", "eof", "capa", "psync2"));
        c.Send("PSYNC", "?", "-1");
        Assert.StartsWith("+FULLRESYNC", ReadLine(c));
        string mark = ReadLine(c)[5..];
        ReadUntil(c, mark);
        c.Send("REPLCONF", "ACK", "0");
        c.Send("PSYNC", "?", "-1");
        using var writer = server.Connect();
        writer.Call("SET", "k", "v");
        ReadUntil(c, "$1\r\nk\r\n$1\r\nv\r\n"); // still linked
        Assert.Contains("slave0:", writer.Call("INFO", "replication"));
        c.Send("GET", "k");
        Action readToEnd = () => { while (true) c.ReadByte(); };
        Assert.ThrowsAny<IOException>(readToEnd); // closed (EndOfStreamException) or reset
        Eventually.Wait(() => !writer.Call("INFO", "replication").Contains("slave0:"), () => "the replica is gone", 30);
    }

    /// <summary>
    /// A master restarted from its own RDB (saved with a backlog: repl-id, repl-offset) keeps its
    /// replicas' history as its secondary id: a redis-server replica resyncs partially, as with Redis 7.
    /// </summary>
    [RedisFact]
    public async Task Restart_FromOwnRdbWithBacklog_ReplicaResyncsPartially()
    {
        string dir = Directory.CreateTempSubdirectory("master-restart").FullName;
        int port = ReferenceRedis.FreePort();
        // No PINGs into the stream between the SAVE and the stop: the file must end at the offset.
        string[] args = MasterArgs(diskless: true, "--port", port.ToString(), "--dir", dir, "--repl-ping-replica-period", "3600");
        try
        {
            var master = TestServer.Start(2, args);
            using var replica = StartReplica(port);
            using var r = replica.Connect();
            string savedId;
            try
            {
                using var m = master.Connect();
                Fill(m, "a");
                // Expired by the restart: the master's load leaves it out and streams its DEL.
                m.Call("SET", "short-lived", "v", "PX", "1000");
                WaitInSync(m, r);
                savedId = Regex.Match(Info(m, "replication"), "master_replid:([0-9a-f]{40})").Groups[1].Value;
                Assert.Equal("+OK\r\n", m.Call("SAVE"));
            }
            finally
            {
                await master.DisposeAsync();
            }
            Eventually.Wait(() => Info(r, "replication").Contains("master_link_status:down"), () => "the link down", 20);
            Thread.Sleep(1100); // "short-lived" is expired when the master loads
            await using var again = TestServer.Start(2, args);
            using var m2 = again.Connect();
            Eventually.Wait(() => Field(Info(m2, "stats"), "sync_partial_ok") == 1, () => Info(m2, "stats") + Info(m2, "replication"), 30);
            Assert.Equal(0, Field(Info(m2, "stats"), "sync_full"));
            Assert.Contains($"master_replid2:{savedId}", Info(m2, "replication"));
            WriteStream(m2, "b");
            WaitInSync(m2, r);
            Assert.Equal(Digest(m2), Digest(r));
            Assert.Equal("+OK\r\n", m2.Call("SELECT", "0"));
            Assert.Equal(m2.Call("DBSIZE"), r.Call("DBSIZE"));
        }
        finally
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    /// <summary>
    /// REPLICAOF host port from a connection that is a replica of this server is refused: Redis 7.2
    /// answers "Command is not valid when client is a replica." and, since that is a reply on a
    /// replica's link, closes the link; here the link is closed before the command runs.
    /// </summary>
    [Fact]
    public async Task ReplicaOf_SentByAReplica_Refused()
    {
        await using var server = TestServer.Start(2, MasterArgs(diskless: true));
        using var replica = RawReplica(server);
        using var c = server.Connect();
        int nobody = ReferenceRedis.FreePort();
        replica.Send("REPLICAOF", "127.0.0.1", nobody.ToString());
        Eventually.Wait(() => !c.Call("INFO", "replication").Contains("slave0:"), () => c.Call("CLIENT", "LIST"), 20);
        Assert.Contains("role:master\r\n", c.Call("INFO", "replication"));
        Assert.Equal("*2\r\n$9\r\nreplicaof\r\n$0\r\n\r\n", c.Call("CONFIG", "GET", "replicaof"));
    }

    /// <summary>A raw replica: the handshake, the diskless RDB read to its end mark, then its first ACK (the stream starts).</summary>
    private static RespClient RawReplica(TestServer server)
    {
        // The snapshot starts on the thread pool: under the whole suite's load that can take seconds.
        var c = new RespClient(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, server.Port), 60_000);
        Assert.Equal("+OK\r\n", c.Call("REPLCONF", "listening-port", "1"));
        Assert.Equal("+OK\r\n", c.Call("REPLCONF", "capa", "eof", "capa", "psync2"));
        c.Send("PSYNC", "?", "-1");
        Assert.StartsWith("+FULLRESYNC", ReadLine(c));
        string header = ReadLine(c);
        ReadUntil(c, header[5..]);
        c.Send("REPLCONF", "ACK", "0");
        return c;
    }

    [Fact]
    public async Task ReplTimeout_ReplicaStopsAcking_Dropped()
    {
        await using var server = TestServer.Start(2, MasterArgs(diskless: true, "--repl-timeout", "1"));
        using var master = server.Connect();
        using var replica = RawReplica(server);
        Eventually.Wait(() => Info(master, "replication").Contains("state=online"), () => Info(master, "replication"));
        // No ACK for more than repl-timeout: the master drops it.
        Eventually.Wait(() => Field(Info(master, "replication"), "connected_slaves") == 0, () => Info(master, "replication"));
    }

    [Fact]
    public async Task PingPeriod_StreamCarriesPings()
    {
        await using var server = TestServer.Start(2, MasterArgs(diskless: true, "--repl-ping-replica-period", "1"));
        using var replica = RawReplica(server);
        string stream = ReadUntil(replica, "*1\r\n$4\r\nPING\r\n");
        Assert.EndsWith("PING\r\n", stream);
    }

    [Fact]
    public async Task OutputLimit_ReplicaNotReading_Disconnected()
    {
        await using var server = TestServer.Start(2, MasterArgs(diskless: true, "--client-output-buffer-limit", "replica 1mb 0 0"));
        using var master = server.Connect();
        using var replica = RawReplica(server);
        Eventually.Wait(() => Info(master, "replication").Contains("state=online"), () => Info(master, "replication"));
        string value = new('v', 1 << 20);
        // The replica reads nothing more: its socket and pipe fill, then the stream it has not taken passes 1 MB.
        for (int i = 0; i < 64 && Field(Info(master, "replication"), "connected_slaves") != 0; i++) master.Call("SET", "big" + i, value);
        Eventually.Wait(() => Field(Info(master, "replication"), "connected_slaves") == 0, () => Info(master, "replication"));
    }

    [Fact]
    public async Task BacklogTtl_NoReplicas_BacklogFreedAndIdChanged()
    {
        await using var server = TestServer.Start(2, MasterArgs(diskless: true, "--repl-backlog-ttl", "1"));
        using var master = server.Connect();
        string id;
        using (var replica = RawReplica(server))
        {
            Eventually.Wait(() => Info(master, "replication").Contains("state=online"), () => Info(master, "replication"));
            string info = Info(master, "replication");
            Assert.Contains("repl_backlog_active:1", info);
            id = Regex.Match(info, "master_replid:(\\w+)").Groups[1].Value;
        }
        Eventually.Wait(() => Info(master, "replication").Contains("repl_backlog_active:0"), () => Info(master, "replication"));
        Assert.DoesNotContain(id, Info(master, "replication"));
    }

    /// <summary>
    /// WAITAOF counts replicas by the AOF offset of their ACKs (REPLCONF ACK offset FACK aofoffset,
    /// which 7.2 replicas send; Debian's 7.0 does not, so a raw replica plays one here).
    /// </summary>
    [Fact]
    public async Task WaitAof_ReplicaAcksWithFack_CountsIt()
    {
        await using var server = TestServer.Start(2, MasterArgs(diskless: true));
        using var master = server.Connect();
        using var replica = RawReplica(server);
        Eventually.Wait(() => Info(master, "replication").Contains("state=online"), () => Info(master, "replication"));
        master.Call("SET", "aof", "1");
        Assert.Equal("*2\r\n:0\r\n:0\r\n", master.Call("WAITAOF", "0", "1", "100"));
        master.Send("WAITAOF", "0", "1", "10000");
        replica.Send("REPLCONF", "ACK", "1000000", "FACK", "1000000");
        Assert.Equal("*2\r\n:0\r\n:1\r\n", master.ReadReply());
        Assert.Equal(":1\r\n", master.Call("WAIT", "1", "100"));
    }

    /// <summary>WAIT after EXEC waits for the transaction's writes: a replica that acknowledged none of them does not count.</summary>
    [Fact]
    public async Task Wait_AfterExec_CountsOnlyReplicasThatHaveTheTransaction()
    {
        await using var server = TestServer.Start(2, MasterArgs(diskless: true));
        using var master = server.Connect();
        using var replica = RawReplica(server);
        Eventually.Wait(() => Info(master, "replication").Contains("state=online"), () => Info(master, "replication"));
        Assert.Equal("+OK\r\n", master.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", master.Call("SET", "tx", "1"));
        Assert.Equal("+QUEUED\r\n", master.Call("SET", "tx", "2"));
        Assert.Equal("*2\r\n+OK\r\n+OK\r\n", master.Call("EXEC"));
        Assert.Equal(":0\r\n", master.Call("WAIT", "1", "100"));
        master.Send("WAIT", "1", "10000");
        replica.Send("REPLCONF", "ACK", "1000000");
        Assert.Equal(":1\r\n", master.ReadReply());
    }

    /// <summary>
    /// A master set before the start-up load ended (a cluster's UPDATE did it) keeps its one link:
    /// the end of the load starts none beside it (two ran two syncs at once, each failing on the other's temp file).
    /// </summary>
    [Fact]
    public async Task StartAfterLoad_LinkAlreadyStarted_NoSecondLink()
    {
        await using var server = TestServer.Start(2);
        var role = server.Server.Replica;
        Assert.True(role.SetMaster("127.0.0.1", 1));
        var link = role.Link;
        Assert.NotNull(link);
        role.StartAfterLoad(null);
        Assert.Same(link, role.Link);
        Assert.False(link!.Completion.IsCompleted);
        Assert.True(role.UnsetMaster());
    }

    /// <summary>SHUTDOWN with a replica behind: the master asks it for an ACK (GETACK) and waits up to shutdown-timeout before it goes.</summary>
    [Fact]
    public async Task Shutdown_ReplicaBehind_AskedForAckBeforeTheStop()
    {
        await using var server = TestServer.Start(2, MasterArgs(diskless: true, "--shutdown-timeout", "2"));
        using var master = server.Connect();
        using var replica = RawReplica(server);
        Eventually.Wait(() => Info(master, "replication").Contains("state=online"), () => Info(master, "replication"));
        master.Call("SET", "last", "1");
        ReadUntil(replica, "$4\r\nlast\r\n$1\r\n1\r\n");
        master.Send("SHUTDOWN", "NOSAVE");
        ReadUntil(replica, "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n");
        // It acknowledges everything: the stop goes on at once.
        long offset = server.Server.Replication.Offset;
        replica.Send("REPLCONF", "ACK", offset.ToString());
        Assert.True(master.IsClosedByServer(10_000));
    }

    private static string ReadLine(RespClient c)
    {
        var sb = new System.Text.StringBuilder();
        while (true)
        {
            byte b = c.ReadByte();
            if (b == '\n')
            {
                if (sb.Length == 0) continue; // a keep-alive newline
                return sb.ToString().TrimEnd('\r');
            }
            sb.Append((char)b);
        }
    }

    private static string ReadUntil(RespClient c, string end)
    {
        var sb = new System.Text.StringBuilder();
        while (sb.Length < 10_000_000)
        {
            sb.Append((char)c.ReadByte());
            if (sb.Length >= end.Length && sb.ToString(sb.Length - end.Length, end.Length) == end) return sb.ToString();
        }
        throw new InvalidOperationException("no end");
    }
}
