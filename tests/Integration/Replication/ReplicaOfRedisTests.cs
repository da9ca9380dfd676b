using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Replication;

/// <summary>
/// This server as the replica of Debian's redis-server (the master): REPLICAOF, the full sync (a
/// payload through a file, or streamed with an EOF mark by a diskless master), the stream applied
/// (DEBUG DIGEST equal once the offsets are), partial resyncs after a lost link and after a
/// restart, and the replica's rules for its own clients.
/// </summary>
public sealed class ReplicaOfRedisTests
{
    private const int WaitSeconds = 25;

    /// <summary>
    /// redis-server as the master, in a directory of its own: a sync through a file writes dump.rdb
    /// there (in the tests' directory the shared reference server would load it, replication info and all).
    /// </summary>
    private static Master StartMaster(bool diskless)
    {
        string dir = Directory.CreateTempSubdirectory("replica-master").FullName;
        var redis = ReferenceRedis.StartOrNull($"--dir {dir} --enable-debug-command yes --repl-diskless-sync {(diskless ? "yes" : "no")} --repl-diskless-sync-delay 0")
                    ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        return new Master(redis, dir);
    }

    /// <summary>The master process and its directory, both gone on Dispose.</summary>
    private sealed class Master(ReferenceRedis redis, string dir) : IDisposable
    {
        public int Port => redis.Port;

        public RespClient Connect() => redis.Connect();

        public void Dispose()
        {
            redis.Dispose();
            Thread.Sleep(100); // the process lets its files go
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { } catch (UnauthorizedAccessException) { }
        }
    }

    private static TestServer StartReplica(params string[] extra)
        => TestServer.Start(4, ["--enable-debug-command", "yes", .. extra]);

    /// <summary>A field of INFO's replication (or another) section, or null.</summary>
    internal static string? Info(RespClient c, string field, string section = "replication")
    {
        string reply = c.Call("INFO", section);
        foreach (string line in reply.Split("\r\n"))
            if (line.StartsWith(field + ":", StringComparison.Ordinal)) return line[(field.Length + 1)..];
        return null;
    }

    private static void WaitLinkUp(RespClient replica)
        => Eventually.Wait(() => Info(replica, "master_link_status") == "up", () => $"link up: {replica.Call("INFO", "replication")}", WaitSeconds);

    /// <summary>Waits until the replica applied everything the master wrote.</summary>
    private static void WaitInSync(RespClient master, RespClient replica)
        => Eventually.Wait(() => Info(master, "master_repl_offset") is { } m && m == Info(replica, "slave_repl_offset"),
            () => $"offsets: master {Info(master, "master_repl_offset")}, replica {Info(replica, "slave_repl_offset")}", WaitSeconds);

    /// <summary>Keys of every type, some with a TTL, in three databases.</summary>
    private static void LoadEveryType(RespClient m)
    {
        foreach (string db in new[] { "0", "2", "9" })
        {
            Assert.Equal("+OK\r\n", m.Call("SELECT", db));
            m.Call("SET", "str", "value" + db);
            m.Call("SET", "int", "12345");
            m.Call("SET", "ttl", "v", "EX", "1000");
            m.Call("RPUSH", "list", "a", "b", "c", "1", "2");
            m.Call("SADD", "intset", "1", "2", "3");
            m.Call("SADD", "set", "x", "y", "z");
            m.Call("ZADD", "zset", "1", "a", "2.5", "b", "-3", "c");
            m.Call("HSET", "hash", "f1", "v1", "f2", "v2");
            m.Call("HSET", "hashttl", "f", "v");
            m.Call("PEXPIRE", "hashttl", "900000");
            m.Call("XADD", "stream", "1-1", "a", "1");
            m.Call("XADD", "stream", "2-1", "b", "2");
            m.Call("XGROUP", "CREATE", "stream", "g", "0");
            m.Call("XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", "stream", ">");
            m.Call("PFADD", "hll", "a", "b", "c");
            m.Call("SETBIT", "bits", "100", "1");
            m.Call("GEOADD", "geo", "13.361389", "38.115556", "Palermo");
        }
        for (int i = 0; i < 300; i++) m.Call("SET", $"many:{i}", new string('x', i % 50));
        m.Call("SELECT", "0");
    }

    /// <summary>Writes of many kinds while the link streams: a transaction, a script, expiries, deletes.</summary>
    private static void StreamWrites(RespClient m)
    {
        m.Call("SELECT", "2");
        m.Call("SET", "s:ex", "v", "EX", "500");
        m.Call("EXPIRE", "str", "700");
        m.Call("DEL", "list");
        m.Call("INCRBY", "int", "10");
        Assert.Equal("+OK\r\n", m.Call("MULTI"));
        m.Call("LPUSH", "tx:list", "1", "2");
        m.Call("SELECT", "9");
        m.Call("HSET", "tx:hash", "a", "b");
        m.Call("ZINCRBY", "zset", "4", "a");
        Assert.StartsWith("*4", m.Call("EXEC"));
        m.Call("EVAL", "redis.call('set', KEYS[1], ARGV[1]); redis.call('pexpire', KEYS[1], 100000); return redis.call('incr', KEYS[2])",
            "2", "script:k", "script:n", "val");
        m.Call("SELECT", "0");
        m.Call("XADD", "stream", "3-1", "c", "3");
        m.Call("XACK", "stream", "g", "1-1");
        m.Call("SPOP", "set");
        m.Call("RENAME", "hash", "hash2");
        m.Call("SET", "big", new string('b', 200_000));
        for (int i = 0; i < 100; i++) m.Call("INCR", "counter");
    }

    private static void AssertSameDigest(RespClient master, RespClient replica)
    {
        WaitInSync(master, replica);
        string expected = master.Call("DEBUG", "DIGEST");
        Assert.Equal(expected, replica.Call("DEBUG", "DIGEST"));
        Assert.NotEqual("+0000000000000000000000000000000000000000\r\n", expected);
    }

    [RedisTheory]
    [InlineData(false, "disabled")]
    [InlineData(true, "disabled")]
    [InlineData(true, "swapdb")]
    [InlineData(false, "on-empty-db")]
    public async Task ReplicaOf_RedisMaster_FullSyncAndStreamMatchDigest(bool diskless, string disklessLoad)
    {
        using var redis = StartMaster(diskless);
        await using var server = StartReplica("--repl-diskless-load", disklessLoad);
        using var m = redis.Connect();
        using var r = server.Connect();
        LoadEveryType(m);
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", redis.Port.ToString()));
        WaitLinkUp(r);
        AssertSameDigest(m, r);
        StreamWrites(m);
        AssertSameDigest(m, r);
        // The key with a TTL kept it.
        r.Call("SELECT", "2");
        Assert.Matches(@"^:\d+\r\n$", r.Call("TTL", "s:ex"));
        Assert.NotEqual(":-1\r\n", r.Call("TTL", "s:ex"));
        // ROLE and INFO as a connected replica.
        string role = r.Call("ROLE");
        Assert.StartsWith($"*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:{redis.Port}\r\n$9\r\nconnected\r\n:", role);
        Assert.Equal("slave", Info(r, "role"));
        Assert.Equal(Info(m, "master_replid"), Info(r, "master_replid"));
        Assert.Equal("0", Info(r, "master_sync_in_progress"));
        Assert.Null(Info(r, "master_link_down_since_seconds"));
        // WAIT on the master counts this replica once it acknowledged (REPLCONF ACK / GETACK).
        m.Call("SET", "acked", "1");
        Assert.Equal(":1\r\n", m.Call("WAIT", "1", "10000"));
        // The master client shows in CLIENT LIST as flag M.
        Assert.Contains("flags=M", r.Call("CLIENT", "LIST", "TYPE", "MASTER"));
    }

    [RedisFact]
    public async Task Info_DuringFullSync_SyncFieldsAsRedis()
    {
        string dir = Directory.CreateTempSubdirectory("replica-slow-master").FullName;
        // Each key takes the master's save 50 ms: the sync lasts long enough to be seen.
        using var redis = ReferenceRedis.StartOrNull($"--dir {dir} --repl-diskless-sync no --rdb-key-save-delay 50000")!;
        try
        {
            using var m = redis.Connect();
            for (int i = 0; i < 60; i++) m.Call("SET", $"k{i}", "v");
            await using var server = StartReplica();
            using var r = server.Connect();
            r.Call("REPLICAOF", "127.0.0.1", redis.Port.ToString());
            Eventually.Wait(() => Info(r, "master_sync_in_progress") == "1", () => "the sync to start", WaitSeconds);
            // The master is still saving: the payload's size is not known yet (redis-server prints the same).
            string info = r.Call("INFO", "replication");
            Assert.Contains("\r\nmaster_link_status:down\r\n", info);
            Assert.Contains("\r\nmaster_sync_total_bytes:-1\r\nmaster_sync_read_bytes:0\r\nmaster_sync_left_bytes:-1\r\nmaster_sync_perc:-0.00\r\n", info);
            Assert.Contains("\r\nmaster_sync_last_io_seconds_ago:", info);
            Assert.Matches(@"\$4\r\nsync\r\n:-1\r\n$", r.Call("ROLE"));
            WaitLinkUp(r);
            Assert.Equal(":60\r\n", r.Call("DBSIZE"));
        }
        finally
        {
            redis.Dispose();
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    [RedisFact]
    public async Task ClientKillTypeMaster_LinkComesBack_PartialResync()
    {
        using var redis = StartMaster(diskless: false);
        await using var server = StartReplica();
        using var m = redis.Connect();
        using var r = server.Connect();
        m.Call("SET", "before", "1");
        r.Call("REPLICAOF", "127.0.0.1", redis.Port.ToString());
        WaitLinkUp(r);
        WaitInSync(m, r);
        string full = Info(m, "sync_full", "stats")!, partial = Info(m, "sync_partial_ok", "stats")!;
        Assert.Equal(":1\r\n", r.Call("CLIENT", "KILL", "TYPE", "MASTER"));
        m.Call("SET", "during", "2");
        Eventually.Wait(() => Info(m, "sync_partial_ok", "stats") != partial, () => "a partial resync", WaitSeconds);
        WaitLinkUp(r);
        m.Call("SET", "after", "3");
        AssertSameDigest(m, r);
        Assert.Equal(full, Info(m, "sync_full", "stats"));
        Assert.Equal("$1\r\n2\r\n", r.Call("GET", "during"));
    }

    [RedisFact]
    public async Task ReplicaReadOnly_WriteFromClient_ReadOnlyError()
    {
        using var redis = StartMaster(diskless: false);
        await using var server = StartReplica();
        using var r = server.Connect();
        r.Call("REPLICAOF", "127.0.0.1", redis.Port.ToString());
        Assert.Equal("-READONLY You can't write against a read only replica.\r\n", r.Call("SET", "k", "v"));
        Assert.Equal("+OK\r\n", r.Call("MULTI"));
        Assert.Equal("-READONLY You can't write against a read only replica.\r\n", r.Call("INCR", "k"));
        Assert.StartsWith("-EXECABORT", r.Call("EXEC"));
        Assert.Equal("$-1\r\n", r.Call("GET", "k"));
        // replica-read-only no: a writable replica takes the write (and keeps it to itself).
        Assert.Equal("+OK\r\n", r.Call("CONFIG", "SET", "replica-read-only", "no"));
        Assert.Equal("+OK\r\n", r.Call("SET", "k", "v"));
        Assert.Equal("0", Info(r, "slave_read_only"));
    }

    [RedisFact]
    public async Task ReplicaOf_ChainedRedisReplica_StreamPassesThrough()
    {
        using var top = StartMaster(diskless: false);
        using var middle = StartMaster(diskless: false);
        await using var server = StartReplica();
        using var a = top.Connect();
        using var b = middle.Connect();
        using var r = server.Connect();
        LoadEveryType(a);
        Assert.Equal("+OK\r\n", b.Call("REPLICAOF", "127.0.0.1", top.Port.ToString()));
        WaitLinkUp(b);
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", middle.Port.ToString()));
        WaitLinkUp(r);
        StreamWrites(a);
        // The middle replica passes the top master's stream on verbatim: same offsets, same id.
        WaitInSync(a, b);
        Eventually.Wait(() => Info(a, "master_repl_offset") == Info(r, "slave_repl_offset"), () => "the chain in sync", WaitSeconds);
        Assert.Equal(a.Call("DEBUG", "DIGEST"), r.Call("DEBUG", "DIGEST"));
        Assert.Equal(Info(a, "master_replid"), Info(r, "master_replid"));
    }

    [RedisFact]
    public async Task ReplicaOf_TlsReplication_SyncsOverTls()
    {
        using var files = new TlsFiles();
        int tlsPort = ReferenceRedis.FreePort();
        string dir = Directory.CreateTempSubdirectory("replica-tls-master").FullName;
        using var redis = ReferenceRedis.StartOrNull($"--dir {dir} --enable-debug-command yes --repl-diskless-sync no --tls-port {tlsPort} " +
                                                     $"--tls-cert-file {files.Path("server.crt")} --tls-key-file {files.Path("server.key")} " +
                                                     $"--tls-ca-cert-file {files.Path("ca.crt")} --tls-auth-clients yes")!;
        try
        {
            await using var server = StartReplica("--tls-replication", "yes", "--tls-cert-file", files.Path("server.crt"),
                "--tls-key-file", files.Path("server.key"), "--tls-ca-cert-file", files.Path("ca.crt"),
                "--tls-client-cert-file", files.Path("client.crt"), "--tls-client-key-file", files.Path("client.key"));
            using var m = redis.Connect();
            using var r = server.Connect();
            LoadEveryType(m);
            r.Call("REPLICAOF", "127.0.0.1", tlsPort.ToString());
            WaitLinkUp(r);
            StreamWrites(m);
            AssertSameDigest(m, r);
        }
        finally
        {
            redis.Dispose();
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    [RedisFact]
    public async Task ReplicaOf_MasterWithPassword_MasterAuthAndMasterUser()
    {
        string dir = Directory.CreateTempSubdirectory("replica-auth-master").FullName;
        using var redis = ReferenceRedis.StartOrNull($"--dir {dir} --enable-debug-command yes --repl-diskless-sync no --requirepass topsecret " +
                                                     "--user repl on >replpass +psync +replconf +ping")!;
        try
        {
            using var m = redis.Connect();
            Assert.Equal("+OK\r\n", m.Call("AUTH", "topsecret"));
            m.Call("SET", "k", "v");
            await using var server = StartReplica();
            using var r = server.Connect();
            // Without the password the handshake fails (and is retried every second).
            r.Call("REPLICAOF", "127.0.0.1", redis.Port.ToString());
            Assert.Equal("down", Info(r, "master_link_status"));
            Assert.Equal("+OK\r\n", r.Call("CONFIG", "SET", "masterauth", "topsecret"));
            WaitLinkUp(r);
            Assert.Equal("$1\r\nv\r\n", r.Call("GET", "k"));
            // AUTH user password with masteruser.
            Assert.Equal("+OK\r\n", r.Call("CONFIG", "SET", "masteruser", "repl", "masterauth", "replpass"));
            Assert.Equal(":1\r\n", r.Call("CLIENT", "KILL", "TYPE", "MASTER"));
            m.Call("SET", "k2", "v2");
            Eventually.Wait(() => r.Call("GET", "k2") == "$2\r\nv2\r\n", () => "the link back with masteruser", WaitSeconds);
            Assert.Contains("user=repl", m.Call("CLIENT", "LIST", "TYPE", "REPLICA"));
        }
        finally
        {
            redis.Dispose();
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    [Fact]
    public async Task ConfigRewrite_WhileReplica_WritesReplicaOfLine()
    {
        string dir = Directory.CreateTempSubdirectory("replica-conf").FullName;
        string conf = Path.Combine(dir, "redis.conf");
        int nobody = ReferenceRedis.FreePort();
        File.WriteAllText(conf, $"dir {dir}\nreplicaof 127.0.0.1 1\n");
        try
        {
            await using var server = TestServer.StartWithConfig(conf);
            using var r = server.Connect();
            Assert.Equal("slave", Info(r, "role"));
            Assert.Equal("1", Info(r, "master_port"));
            Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", nobody.ToString()));
            Assert.Equal("+OK\r\n", r.Call("CONFIG", "REWRITE"));
            Assert.Contains($"\nreplicaof 127.0.0.1 {nobody}\n", File.ReadAllText(conf));
            Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "NO", "ONE"));
            Assert.Equal("+OK\r\n", r.Call("CONFIG", "REWRITE"));
            Assert.DoesNotContain("replicaof", File.ReadAllText(conf));
        }
        finally
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    [RedisFact]
    public async Task ReplicaWithAof_AfterSyncAndStream_RestartHasTheData()
    {
        using var redis = StartMaster(diskless: false);
        string dir = Directory.CreateTempSubdirectory("replica-aof").FullName;
        try
        {
            using var m = redis.Connect();
            LoadEveryType(m);
            string digest;
            await using (var server = StartReplica("--dir", dir, "--appendonly", "yes"))
            {
                using var r = server.Connect();
                r.Call("REPLICAOF", "127.0.0.1", redis.Port.ToString());
                WaitLinkUp(r);
                StreamWrites(m);
                AssertSameDigest(m, r);
                // Redis's restartAOFAfterSync: the synced data went into the AOF by a rewrite.
                Eventually.Wait(() => Info(r, "aof_rewrite_in_progress", "persistence") == "0" && Info(r, "aof_rewrite_scheduled", "persistence") == "0"
                                      && Info(r, "aof_rewrites", "persistence") != "0", () => "the rewrite after the sync", WaitSeconds);
                m.Call("SET", "after-rewrite", "1"); // the stream's writes reach the AOF too
                AssertSameDigest(m, r);
                digest = r.Call("DEBUG", "DIGEST");
                r.Call("REPLICAOF", "NO", "ONE");
            }
            await using var again = StartReplica("--dir", dir, "--appendonly", "yes");
            using var r2 = again.Connect();
            Assert.Equal(digest, r2.Call("DEBUG", "DIGEST"));
        }
        finally
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    [RedisFact]
    public async Task ReplicaReadOnly_ScriptWrite_ReadOnlyError()
    {
        int nobody = ReferenceRedis.FreePort();
        await using var server = StartReplica();
        using var r = server.Connect();
        r.Call("REPLICAOF", "127.0.0.1", nobody.ToString());
        // As redis-server 7.0 replies (a script with flags is refused before it runs).
        Assert.Equal("-READONLY You can't write against a read only replica. script: 8b2ae6dd76cda7fc3e27f97431ae27d7b08a221d, on @user_script:1.\r\n",
            r.Call("EVAL", "return redis.call('set','x','1')", "0"));
        Assert.Equal("-READONLY You can't write against a read only replica.\r\n", r.Call("EVAL", "#!lua\nreturn redis.call('set','x','1')", "0"));
        Assert.Equal(":0\r\n", r.Call("EXISTS", "x"));
    }

    [RedisFact]
    public async Task ExpiredKey_OnReplica_HiddenUntilTheMastersDel()
    {
        using var redis = StartMaster(diskless: false);
        await using var server = StartReplica();
        using var m = redis.Connect();
        using var r = server.Connect();
        Assert.Equal("+OK\r\n", m.Call("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
        r.Call("REPLICAOF", "127.0.0.1", redis.Port.ToString());
        WaitLinkUp(r);
        m.Call("SET", "soon", "v", "PX", "200");
        m.Call("SET", "stays", "v");
        WaitInSync(m, r);
        // Past its expiry (the master has not deleted it: no active expiry, nobody read it there).
        Eventually.Wait(() => r.Call("PTTL", "soon") == ":-2\r\n", () => "the key's TTL to pass", WaitSeconds);
        Assert.Equal("$-1\r\n", r.Call("GET", "soon"));
        Assert.Equal(":0\r\n", r.Call("EXISTS", "soon"));
        Assert.Equal(":2\r\n", r.Call("DBSIZE")); // hidden, not deleted
        Assert.Equal("0", Info(r, "expired_keys", "stats"));
        for (int i = 0; i < 20; i++) Assert.Equal("$5\r\nstays\r\n", r.Call("RANDOMKEY"));
        Assert.Equal("*2\r\n$1\r\n0\r\n*1\r\n$5\r\nstays\r\n", r.Call("SCAN", "0"));
        Assert.Equal(":2\r\n", r.Call("DBSIZE"));
        // The master's access deletes it and sends DEL: then it is gone here too.
        Assert.Equal("$-1\r\n", m.Call("GET", "soon"));
        WaitInSync(m, r);
        Assert.Equal(":1\r\n", r.Call("DBSIZE"));
    }

    [Fact]
    public async Task ServeStaleDataNo_LinkDown_MasterDownError()
    {
        int nobody = ReferenceRedis.FreePort();
        await using var server = StartReplica();
        using var r = server.Connect();
        Assert.Equal("+OK\r\n", r.Call("CONFIG", "SET", "replica-serve-stale-data", "no"));
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", nobody.ToString()));
        const string MasterDown = "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.\r\n";
        Assert.Equal(MasterDown, r.Call("GET", "k"));
        Assert.Equal(MasterDown, r.Call("PING")); // as Redis: PING has no stale flag
        Assert.Equal("down", Info(r, "master_link_status")); // INFO has
        Assert.Equal("+OK\r\n", r.Call("MULTI"));
        Assert.Equal(MasterDown, r.Call("GET", "k"));
        Assert.StartsWith("-EXECABORT", r.Call("EXEC"));
        Assert.Equal("+OK\r\n", r.Call("CONFIG", "SET", "replica-serve-stale-data", "yes"));
        Assert.Equal("$-1\r\n", r.Call("GET", "k"));
        // The link retries (connect / connecting); ROLE says so, with -1 for the offset.
        Assert.Matches($@"^\*5\r\n\$5\r\nslave\r\n\$9\r\n127\.0\.0\.1\r\n:{nobody}\r\n\$\d+\r\n(connect|connecting|handshake)\r\n:-1\r\n$", r.Call("ROLE"));
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "NO", "ONE"));
        Assert.Equal("$-1\r\n", r.Call("GET", "k"));
    }

    [Fact]
    public async Task ReplicaOf_BlockedClients_UnblockedErrorThenClosed()
    {
        int nobody = ReferenceRedis.FreePort();
        await using var server = StartReplica();
        using var blocked = server.Connect();
        using var waiting = server.Connect();
        using var r = server.Connect();
        blocked.Send("BLPOP", "list", "0");
        waiting.Send("WAIT", "1", "0");
        Eventually.Wait(() => Info(r, "blocked_clients", "clients") == "2", () => "two blocked clients", WaitSeconds);
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", nobody.ToString()));
        const string Unblocked = "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)\r\n";
        Assert.Equal(Unblocked, blocked.ReadReply());
        Assert.Equal(Unblocked, waiting.ReadReply());
        Assert.True(blocked.IsClosedByServer());
        Assert.True(waiting.IsClosedByServer());
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "NO", "ONE"));
    }

    [Fact]
    public async Task ReplicaOf_BadPortOrSameMaster_RedisReplies()
    {
        int nobody = ReferenceRedis.FreePort();
        await using var server = StartReplica();
        using var r = server.Connect();
        Assert.Equal("-ERR Invalid master port\r\n", r.Call("REPLICAOF", "127.0.0.1", "abc"));
        Assert.Equal("-ERR Invalid master port\r\n", r.Call("REPLICAOF", "127.0.0.1", "65536"));
        Assert.Equal("-ERR Invalid master port\r\n", r.Call("SLAVEOF", "127.0.0.1", "-1"));
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "NO", "ONE")); // already a master: nothing to do
        Assert.Equal("master", Info(r, "role"));
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", nobody.ToString()));
        Assert.Equal("+OK Already connected to specified master\r\n", r.Call("SLAVEOF", "127.0.0.1", nobody.ToString()));
        // As redis-server 7.0 replies, before it looks at the arguments.
        const string WaitError = "-ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is " +
                                 "configured to be writable (which is not the default) writes to replicas are just local and are not propagated.\r\n";
        Assert.Equal(WaitError, r.Call("WAIT", "1", "0"));
        Assert.Equal(WaitError, r.Call("WAIT", "x", "0"));
        // WAITAOF (Redis 7.2): its arguments first, then the replica's error.
        Assert.Equal("-ERR value is not an integer or out of range\r\n", r.Call("WAITAOF", "x", "0", "0"));
        Assert.Equal("-ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated.\r\n",
            r.Call("WAITAOF", "0", "0", "0"));
        Assert.Equal($"*2\r\n$9\r\nreplicaof\r\n$15\r\n127.0.0.1 {nobody}\r\n", r.Call("CONFIG", "GET", "replicaof"));
        Assert.Equal("-1", Info(r, "master_link_down_since_seconds"));
        // A master that became a replica resumes from its own history (Redis's cached master "using myself").
        Assert.Equal("0", Info(r, "slave_repl_offset"));
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "no", "one"));
        Assert.Equal("*2\r\n$9\r\nreplicaof\r\n$0\r\n\r\n", r.Call("CONFIG", "GET", "replicaof"));
    }

    [RedisFact]
    public async Task ReplicaOfNoOne_KeepsDataAndShiftsReplicationId()
    {
        using var redis = StartMaster(diskless: false);
        await using var server = StartReplica();
        using var m = redis.Connect();
        using var r = server.Connect();
        m.Call("SET", "k", "v");
        r.Call("REPLICAOF", "127.0.0.1", redis.Port.ToString());
        WaitLinkUp(r);
        WaitInSync(m, r);
        string id = Info(r, "master_replid")!;
        long offset = long.Parse(Info(r, "master_repl_offset")!);
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "NO", "ONE"));
        Assert.Equal("master", Info(r, "role"));
        Assert.Equal(id, Info(r, "master_replid2"));
        Assert.NotEqual(id, Info(r, "master_replid"));
        Assert.Equal((offset + 1).ToString(), Info(r, "second_repl_offset"));
        Assert.Equal("$1\r\nv\r\n", r.Call("GET", "k"));
        Assert.Equal("+OK\r\n", r.Call("SET", "mine", "1"));
        Assert.StartsWith("*3\r\n$6\r\nmaster\r\n", r.Call("ROLE"));
    }

    [RedisFact]
    public async Task Restart_FromOwnRdb_PartialResync()
    {
        using var redis = StartMaster(diskless: false);
        string dir = Directory.CreateTempSubdirectory("replica-restart").FullName;
        try
        {
            using var m = redis.Connect();
            m.Call("SET", "k", "v");
            var server = StartReplica("--dir", dir, "--replicaof", "127.0.0.1", redis.Port.ToString());
            try
            {
                using var r = server.Connect();
                WaitLinkUp(r);
                m.Call("SET", "k2", "v2");
                WaitInSync(m, r);
                Assert.Equal("+OK\r\n", r.Call("SAVE"));
            }
            finally
            {
                await server.DisposeAsync();
            }
            string full = Info(m, "sync_full", "stats")!, partial = Info(m, "sync_partial_ok", "stats")!;
            m.Call("SET", "k3", "while down");
            await using var again = StartReplica("--dir", dir, "--replicaof", "127.0.0.1", redis.Port.ToString());
            using var r2 = again.Connect();
            WaitLinkUp(r2);
            AssertSameDigest(m, r2);
            Assert.Equal(full, Info(m, "sync_full", "stats"));
            Assert.NotEqual(partial, Info(m, "sync_partial_ok", "stats"));
            Assert.Equal("$10\r\nwhile down\r\n", r2.Call("GET", "k3"));
        }
        finally
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }
}
