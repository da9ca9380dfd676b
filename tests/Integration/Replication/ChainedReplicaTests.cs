using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Replication;

/// <summary>
/// Chains: a redis-server master, this server as its replica, a redis-server sub-replica of this
/// server. When the middle's history changes (a full sync with a master, a new id from its master,
/// REPLICAOF NO ONE) its sub-replicas are disconnected, as Redis's disconnectSlaves does, and come
/// back with a PSYNC that tells them the new history.
/// </summary>
public sealed class ChainedReplicaTests
{
    private const int WaitSeconds = 25;

    /// <summary>A redis-server in a directory of its own (a sync through a file writes there), both gone on Dispose.</summary>
    private sealed class Redis : IDisposable
    {
        private readonly ReferenceRedis _redis;
        private readonly string _dir;

        public Redis(string extra = "")
        {
            _dir = Directory.CreateTempSubdirectory("chain-redis").FullName;
            _redis = ReferenceRedis.StartOrNull($"--dir {_dir} --enable-debug-command yes --repl-diskless-sync yes --repl-diskless-sync-delay 0 {extra}")
                     ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        }

        public int Port => _redis.Port;

        public RespClient Connect() => _redis.Connect();

        public void Dispose()
        {
            _redis.Dispose();
            Thread.Sleep(100); // the process lets its files go
            try { Directory.Delete(_dir, recursive: true); } catch (IOException) { } catch (UnauthorizedAccessException) { }
        }
    }

    private static TestServer StartMiddle()
        => TestServer.Start(4, ["--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0"]);

    private static string? Info(RespClient c, string field, string section = "replication")
        => ReplicaOfRedisTests.Info(c, field, section);

    private static void WaitLinkUp(RespClient replica)
        => Eventually.Wait(() => Info(replica, "master_link_status") == "up", () => $"link up: {replica.Call("INFO", "replication")}", WaitSeconds);

    /// <summary>Waits until <paramref name="replica"/> applied everything <paramref name="master"/> has, then compares the data.</summary>
    private static void AssertSameData(RespClient master, RespClient replica)
    {
        Eventually.Wait(() => Info(master, "master_repl_offset") is { } m && m == Info(replica, "slave_repl_offset") && Info(replica, "master_link_status") == "up",
            () => $"offsets: master {Info(master, "master_repl_offset")}, replica {Info(replica, "slave_repl_offset")} ({Info(replica, "master_link_status")})", WaitSeconds);
        string expected = master.Call("DEBUG", "DIGEST");
        Assert.NotEqual("+0000000000000000000000000000000000000000\r\n", expected);
        Assert.Equal(expected, replica.Call("DEBUG", "DIGEST"));
    }

    /// <summary>top -> middle (this server) -> sub, all in sync.</summary>
    private static void Chain(RespClient top, int topPort, RespClient middle, int middlePort, RespClient sub)
    {
        top.Call("SET", "before", "1");
        Assert.Equal("+OK\r\n", middle.Call("REPLICAOF", "127.0.0.1", topPort.ToString()));
        WaitLinkUp(middle);
        Assert.Equal("+OK\r\n", sub.Call("REPLICAOF", "127.0.0.1", middlePort.ToString()));
        WaitLinkUp(sub);
        top.Call("SET", "chained", "2");
        AssertSameData(top, sub);
    }

    /// <summary>
    /// Sub-replicas full sync with the middle again and again while its master streams pipelined
    /// INCRs: each snapshot must be taken where the middle's data and its stream offset agree (not
    /// between commands of a batch it has applied but not yet passed on), or the sub-replica
    /// applies part of a batch twice and its counters run ahead.
    /// </summary>
    [RedisFact]
    public async Task ChainedReplica_RepeatedFullSyncsUnderPipelinedLoad_SubReplicaMatches()
    {
        using var top = new Redis();
        await using var server = StartMiddle();
        using var t = top.Connect();
        using var m = server.Connect();
        using var sub = new Redis();
        using var s = sub.Connect();
        Chain(t, top.Port, m, server.Port, s);
        using var stop = new CancellationTokenSource();
        var load = Task.Run(() =>
        {
            using var c = top.Connect();
            var batch = new List<byte>();
            for (int i = 0; i < 200; i++) batch.AddRange(RespClient.Encode("INCR", $"counter:{i % 7}"));
            byte[] bytes = [.. batch];
            for (int round = 0; round < 100_000 && !stop.IsCancellationRequested; round++)
            {
                c.SendRaw(bytes);
                for (int i = 0; i < 200; i++) c.ReadReplyBytes();
            }
        });
        try
        {
            for (int round = 0; round < 10; round++)
            {
                // A new history of its own: its next PSYNC to the middle is a full sync.
                Assert.Equal("+OK\r\n", s.Call("REPLICAOF", "NO", "ONE"));
                long fullBefore = long.Parse(Info(m, "sync_full", "stats")!);
                Assert.Equal("+OK\r\n", s.Call("REPLICAOF", "127.0.0.1", server.Port.ToString()));
                WaitLinkUp(s);
                Assert.True(long.Parse(Info(m, "sync_full", "stats")!) > fullBefore, "a full sync");
            }
        }
        finally
        {
            stop.Cancel();
            await load;
        }
        AssertSameData(t, s);
    }

    [RedisFact]
    public async Task ChainedReplica_MiddleFullSyncsWithAnotherMaster_SubReplicaResyncs()
    {
        using var top = new Redis();
        using var other = new Redis();
        await using var server = StartMiddle();
        using var t = top.Connect();
        using var o = other.Connect();
        using var m = server.Connect();
        using var sub = new Redis();
        using var s = sub.Connect();
        Chain(t, top.Port, m, server.Port, s);
        o.Call("SET", "other", "history");
        // Another history: the middle must full sync (its backlog goes), the sub-replica with it.
        Assert.Equal("+OK\r\n", m.Call("REPLICAOF", "127.0.0.1", other.Port.ToString()));
        Eventually.Wait(() => Info(m, "master_replid") == Info(o, "master_replid") && Info(m, "master_link_status") == "up",
            () => "the middle follows the other master", WaitSeconds);
        o.Call("SET", "after", "3");
        AssertSameData(o, s);
        Assert.Equal("$7\r\nhistory\r\n", s.Call("GET", "other"));
    }

    [RedisFact]
    public async Task ChainedReplica_MasterContinuesWithNewId_SubReplicaLearnsIt()
    {
        using var top = new Redis();
        using var sibling = new Redis();
        await using var server = StartMiddle();
        using var t = top.Connect();
        using var b = sibling.Connect();
        using var m = server.Connect();
        using var sub = new Redis();
        using var s = sub.Connect();
        Chain(t, top.Port, m, server.Port, s);
        Assert.Equal("+OK\r\n", b.Call("REPLICAOF", "127.0.0.1", top.Port.ToString()));
        WaitLinkUp(b);
        AssertSameData(t, b);
        // The sibling is promoted: a new id, the old one its secondary; the middle follows it and
        // gets +CONTINUE <new id>.
        Assert.Equal("+OK\r\n", b.Call("REPLICAOF", "NO", "ONE"));
        string partial = Info(b, "sync_partial_ok", "stats")!;
        Assert.Equal("+OK\r\n", m.Call("REPLICAOF", "127.0.0.1", sibling.Port.ToString()));
        Eventually.Wait(() => Info(b, "sync_partial_ok", "stats") != partial, () => "the middle resyncs partially with the sibling", WaitSeconds);
        string newId = Info(b, "master_replid")!;
        b.Call("SET", "after", "3");
        AssertSameData(b, s);
        Assert.Equal(newId, Info(m, "master_replid"));
        Assert.Equal(newId, Info(s, "master_replid"));
    }

    [RedisFact]
    public async Task ChainedReplica_MiddleReplicaOfNoOne_SubReplicaResyncsPartially()
    {
        using var top = new Redis();
        await using var server = StartMiddle();
        using var t = top.Connect();
        using var m = server.Connect();
        using var sub = new Redis();
        using var s = sub.Connect();
        Chain(t, top.Port, m, server.Port, s);
        string partial = Info(m, "sync_partial_ok", "stats")!, full = Info(m, "sync_full", "stats")!;
        Assert.Equal("+OK\r\n", m.Call("REPLICAOF", "NO", "ONE"));
        Eventually.Wait(() => Info(m, "sync_partial_ok", "stats") != partial, () => $"a partial resync of the sub-replica: {m.Call("INFO", "stats")}", WaitSeconds);
        m.Call("SET", "mine", "4");
        AssertSameData(m, s);
        Assert.Equal(full, Info(m, "sync_full", "stats"));
        Assert.Equal(Info(m, "master_replid"), Info(s, "master_replid"));
    }

    [RedisFact]
    public async Task ChainedReplica_FullSyncWhileMasterStreamInDb3_SubReplicaWritesThere()
    {
        using var top = new Redis();
        await using var server = StartMiddle();
        using var t = top.Connect();
        using var m = server.Connect();
        using var sub = new Redis();
        using var s = sub.Connect();
        t.Call("SET", "before", "1");
        Assert.Equal("+OK\r\n", m.Call("REPLICAOF", "127.0.0.1", top.Port.ToString()));
        WaitLinkUp(m);
        // The master's stream selects db 3 once; everything after goes there without a SELECT.
        Assert.Equal("+OK\r\n", t.Call("SELECT", "3"));
        t.Call("SET", "in3", "a");
        Eventually.Wait(() => Info(t, "master_repl_offset") == Info(m, "slave_repl_offset"), () => "the middle in sync", WaitSeconds);
        // The sub-replica's full sync from the middle: its stream continues in db 3 (repl-stream-db).
        Assert.Equal("+OK\r\n", s.Call("REPLICAOF", "127.0.0.1", server.Port.ToString()));
        WaitLinkUp(s);
        for (int i = 0; i < 20; i++) t.Call("SET", $"after:{i}", "b");
        AssertSameData(t, s);
        Assert.Equal("+OK\r\n", s.Call("SELECT", "3"));
        Assert.Equal("$1\r\nb\r\n", s.Call("GET", "after:7"));
    }
}
