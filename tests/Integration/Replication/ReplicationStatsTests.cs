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
}
