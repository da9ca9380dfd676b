using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Replication;

/// <summary>
/// Replication traffic in INFO stats as Redis counts it: bytes to replicas in
/// total_net_repl_output_bytes and bytes from the master in total_net_repl_input_bytes, neither in
/// the client totals; the replica's master client shows its socket in CLIENT LIST.
/// </summary>
public sealed class ReplicationStatsTests
{
    private const int WaitSeconds = 30;

    private static string? Info(RespClient c, string field, string section = "replication")
        => ReplicaOfRedisTests.Info(c, field, section);

    private static long Stat(RespClient c, string field) => long.Parse(Info(c, field, "stats")!);

    [Fact]
    public async Task ReplicationBytes_CountedApartFromClientTraffic()
    {
        string[] args = ["--repl-diskless-sync-delay", "0"];
        await using var master = TestServer.Start(2, args);
        await using var replica = TestServer.Start(2, args);
        using var m = master.Connect();
        using var r = replica.Connect();
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", master.Port.ToString()));
        Eventually.Wait(() => Info(r, "master_link_status") == "up", () => r.Call("INFO", "replication"), WaitSeconds);

        long replOut = Stat(m, "total_net_repl_output_bytes");
        long clientOut = Stat(m, "total_net_output_bytes");
        long replIn = Stat(r, "total_net_repl_input_bytes");
        long clientIn = Stat(r, "total_net_input_bytes");
        Assert.True(replOut > 0, "the RDB went to the replica");
        Assert.True(replIn > 0, "the replica read its RDB");

        string big = new('v', 100_000);
        Assert.Equal("+OK\r\n", m.Call("SET", "big", big));
        Eventually.Wait(() => Info(m, "master_repl_offset") == Info(r, "slave_repl_offset"), () => "the replica in sync", WaitSeconds);

        // The value went to the replica once: the master's replication output and the replica's
        // replication input grew by at least its size; the client totals only by the small replies
        // and INFO calls in between.
        Assert.InRange(Stat(m, "total_net_repl_output_bytes") - replOut, 100_000, 200_000);
        Assert.InRange(Stat(m, "total_net_output_bytes") - clientOut, 0, 50_000);
        Assert.InRange(Stat(r, "total_net_repl_input_bytes") - replIn, 100_000, 200_000);
        Assert.InRange(Stat(r, "total_net_input_bytes") - clientIn, 0, 50_000);
    }

    [Fact]
    public async Task ClientList_MasterClient_ShowsItsSocket()
    {
        string[] args = ["--repl-diskless-sync-delay", "0"];
        await using var master = TestServer.Start(2, args);
        await using var replica = TestServer.Start(2, args);
        using var r = replica.Connect();
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", master.Port.ToString()));
        Eventually.Wait(() => Info(r, "master_link_status") == "up", () => r.Call("INFO", "replication"), WaitSeconds);
        string list = r.Call("CLIENT", "LIST", "TYPE", "master");
        var fd = System.Text.RegularExpressions.Regex.Match(list, " fd=(-?[0-9]+) ");
        Assert.True(fd.Success, list);
        Assert.True(int.Parse(fd.Groups[1].Value) > 0, list);
        Assert.Contains(" flags=M ", list);
    }

    [System.Runtime.InteropServices.DllImport("libc", SetLastError = true)]
    private static extern int getsockopt(int fd, int level, int optname, out int optval, ref int optlen);

    private static bool NoDelay(int fd)
    {
        int len = sizeof(int);
        Assert.Equal(0, getsockopt(fd, 6 /* IPPROTO_TCP */, 1 /* TCP_NODELAY */, out int on, ref len));
        return on != 0;
    }

    private static int ReplicaFd(RespClient master)
    {
        string list = master.Call("CLIENT", "LIST", "TYPE", "replica");
        var fd = System.Text.RegularExpressions.Regex.Match(list, " fd=([0-9]+) ");
        Assert.True(fd.Success, list);
        return int.Parse(fd.Groups[1].Value);
    }

    /// <summary>
    /// repl-disable-tcp-nodelay yes: the master turns Nagle back on for a replica's socket at its
    /// full sync (the servers run in this process, so the test reads the socket's option by its fd).
    /// </summary>
    [Theory]
    [InlineData("yes", false)]
    [InlineData("no", true)]
    public async Task ReplDisableTcpNoDelay_FullSync_SetsTheReplicaSocket(string disable, bool expectedNoDelay)
    {
        await using var master = TestServer.Start(2, "--repl-diskless-sync-delay", "0", "--repl-disable-tcp-nodelay", disable);
        await using var replica = TestServer.Start(2, "--repl-diskless-sync-delay", "0");
        using var m = master.Connect();
        using var r = replica.Connect();
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", master.Port.ToString()));
        Eventually.Wait(() => Info(r, "master_link_status") == "up", () => r.Call("INFO", "replication"), WaitSeconds);
        Assert.Equal(expectedNoDelay, NoDelay(ReplicaFd(m)));
    }

    /// <summary>
    /// replica-ignore-maxmemory no: a replica over its maxmemory evicts while applying its master's
    /// writes (the master has no limit); with the default (yes) it keeps everything its master has.
    /// No client command runs on the replica while the master writes (each would evict first): a
    /// subscriber to its evicted events, subscribed before, sees what its master's commands did.
    /// </summary>
    [Theory]
    [InlineData("no", true)]
    [InlineData("yes", false)]
    public async Task ReplicaIgnoreMaxmemory_Setting_DecidesWhetherTheReplicaEvicts(string ignore, bool evicts)
    {
        await using var master = TestServer.Start(2, "--repl-diskless-sync-delay", "0");
        await using var replica = TestServer.Start(2, "--repl-diskless-sync-delay", "0", "--maxmemory", "2mb",
            "--maxmemory-policy", "allkeys-random", "--replica-ignore-maxmemory", ignore, "--notify-keyspace-events", "Ee");
        using var m = master.Connect();
        using var r = replica.Connect();
        using var events = replica.Connect();
        events.Call("SUBSCRIBE", "__keyevent@0__:evicted");
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", master.Port.ToString()));
        Eventually.Wait(() => Info(r, "master_link_status") == "up", () => r.Call("INFO", "replication"), WaitSeconds);
        string value = new('x', 1000);
        for (int batch = 0; batch < 10; batch++)
        {
            var args = new List<string> { "MSET" };
            for (int k = 0; k < 1000; k++) args.AddRange([$"k:{batch}:{k}", value]);
            Assert.Equal("+OK\r\n", m.Call([.. args]));
        }
        // In sync, as the master sees the replica's acknowledgements.
        Eventually.Wait(() => Info(m, "slave0") is { } s && s.Contains($"offset={Info(m, "master_repl_offset")},"),
            () => m.Call("INFO", "replication"), WaitSeconds);
        Assert.Equal(":10000\r\n", m.Call("DBSIZE"));
        if (evicts)
        {
            string message = events.ReadReply();
            Assert.Contains("evicted", message);
        }
        else
        {
            Assert.Equal(":10000\r\n", r.Call("DBSIZE"));
            Assert.Equal(0, Stat(r, "evicted_keys"));
        }
    }

    /// <summary>
    /// A command of the master's stream that fails on the replica (a writable replica whose own
    /// write made the key another type) is logged as Redis's "== CRITICAL ==" line and counted in
    /// unexpected_error_replies.
    /// </summary>
    [Fact]
    public async Task StreamCommandFails_OnWritableReplica_LoggedAsCriticalAndCounted()
    {
        string dir = Directory.CreateTempSubdirectory("repl-critical").FullName;
        string log = Path.Combine(dir, "replica.log");
        try
        {
            await using var master = TestServer.Start(2, "--repl-diskless-sync-delay", "0");
            await using (var replica = TestServer.Start(2, "--repl-diskless-sync-delay", "0", "--replica-read-only", "no", "--logfile", log))
            {
                using var m = master.Connect();
                using var r = replica.Connect();
                Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", master.Port.ToString()));
                Eventually.Wait(() => Info(r, "master_link_status") == "up", () => r.Call("INFO", "replication"), WaitSeconds);
                Assert.Equal("+OK\r\n", r.Call("SET", "mine", "string"));
                Assert.Equal(":1\r\n", m.Call("LPUSH", "mine", "a"));
                Assert.Equal(":1\r\n", m.Call("HSET", "h", "f", "v"));
                Eventually.Wait(() => Info(m, "master_repl_offset") == Info(r, "slave_repl_offset"), () => "the replica in sync", WaitSeconds);
                Assert.Equal(1, Stat(r, "unexpected_error_replies"));
                Assert.Equal("$1\r\nv\r\n", r.Call("HGET", "h", "f")); // the stream went on
            }
            Assert.Contains("== CRITICAL == This replica is sending an error to its master: " +
                            "'WRONGTYPE Operation against a key holding the wrong kind of value' after processing the command 'lpush'",
                File.ReadAllText(log));
        }
        finally
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }
}
