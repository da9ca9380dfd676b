using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Replication;

/// <summary>
/// FAILOVER: the coordinated switch of a master and one of its replicas, with this server on either
/// side and Debian's redis-server 7.0 on the other (it speaks PSYNC ... FAILOVER too), and the
/// command's errors compared with redis-server's.
/// </summary>
public class FailoverTests
{
    private static string Info(RespClient c, string section = "replication") => c.Call("INFO", section);

    private static long Field(string info, string name)
    {
        var m = Regex.Match(info, $"^{Regex.Escape(name)}:(-?\\d+)", RegexOptions.Multiline);
        return m.Success ? long.Parse(m.Groups[1].Value) : -1;
    }

    private static void WaitLinked(RespClient replica, int masterPort, int seconds = 30)
        => Eventually.Wait(() => Info(replica) is var text && text.Contains($"master_port:{masterPort}\r\n") && text.Contains("master_link_status:up"),
            () => "linked: " + Info(replica), seconds);

    /// <summary>Writes, FAILOVER on the master; the replica becomes the master with every write, the old master its replica, and writes go on.</summary>
    private static void SwitchAndCheck(RespClient master, int masterPort, RespClient replica, int replicaPort, string failoverArgs)
    {
        for (int i = 0; i < 200; i++) Assert.Equal("+OK\r\n", master.Call("SET", $"k{i}", i.ToString()));
        Assert.Equal(":1\r\n", master.Call("WAIT", "1", "5000"));
        var args = new List<string> { "FAILOVER" };
        args.AddRange(failoverArgs.Split(' ', StringSplitOptions.RemoveEmptyEntries));
        Assert.Equal("+OK\r\n", master.Call([.. args]));
        Eventually.Wait(() => Info(replica).Contains("role:master"), () => "the replica took over: " + Info(replica), 30);
        WaitLinked(master, replicaPort);
        Assert.Contains("master_failover_state:no-failover", Info(master));
        Assert.Equal("$3\r\n199\r\n", replica.Call("GET", "k199"));
        Assert.Equal(":200\r\n", replica.Call("DBSIZE"));
        // Writes on the new master reach the old one.
        Assert.Equal("+OK\r\n", replica.Call("SET", "after", "1"));
        Eventually.Wait(() => master.Call("GET", "after") == "$1\r\n1\r\n", () => "the old master follows the new one", 20);
        // The old master's data agreed with the new one's before it became its replica: a partial resync.
        Assert.Equal(replica.Call("DEBUG", "DIGEST"), master.Call("DEBUG", "DIGEST"));
    }

    [RedisFact]
    public async Task Failover_OursToOurReplica_RolesSwapWithEveryWrite()
    {
        await using var a = TestServer.Start(4, "--enable-debug-command", "yes");
        await using var b = TestServer.Start(4, "--enable-debug-command", "yes");
        using var master = a.Connect();
        using var replica = b.Connect();
        Assert.Equal("+OK\r\n", replica.Call("REPLICAOF", "127.0.0.1", a.Port.ToString()));
        WaitLinked(replica, a.Port);
        SwitchAndCheck(master, a.Port, replica, b.Port, "");
        Assert.Equal(1, Field(Info(replica, "stats"), "sync_partial_ok"));
    }

    [RedisFact]
    public async Task Failover_OursToRedisReplica_WithTargetAndTimeout()
    {
        await using var a = TestServer.Start(4, "--enable-debug-command", "yes");
        string dir = Directory.CreateTempSubdirectory("rc-failover-").FullName;
        using var redis = ReferenceRedis.StartOrNull($"--dir {dir} --replicaof 127.0.0.1 {a.Port} --enable-debug-command yes")!;
        try
        {
            using var master = a.Connect();
            using var replica = redis.Connect();
            WaitLinked(replica, a.Port);
            SwitchAndCheck(master, a.Port, replica, redis.Port, $"TO 127.0.0.1 {redis.Port} TIMEOUT 10000");
        }
        finally
        {
            redis.Dispose();
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    [RedisFact]
    public async Task Failover_RedisMasterToOurReplica_WeTakeOver()
    {
        string dir = Directory.CreateTempSubdirectory("rc-failover-").FullName;
        using var redis = ReferenceRedis.StartOrNull($"--dir {dir} --enable-debug-command yes")!;
        await using var b = TestServer.Start(4, "--enable-debug-command", "yes");
        try
        {
            using var master = redis.Connect();
            using var replica = b.Connect();
            Assert.Equal("+OK\r\n", replica.Call("REPLICAOF", "127.0.0.1", redis.Port.ToString()));
            WaitLinked(replica, redis.Port);
            SwitchAndCheck(master, redis.Port, replica, b.Port, "");
        }
        finally
        {
            redis.Dispose();
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    /// <summary>While FAILOVER waits for a replica to catch up, writes wait; ABORT lets them go and the server stays a master.</summary>
    [RedisFact]
    public async Task Failover_WritesHeldUntilAbort()
    {
        await using var a = TestServer.Start(4);
        await using var b = TestServer.Start(4, "--enable-debug-command", "yes");
        using var master = a.Connect();
        using var replica = b.Connect();
        Assert.Equal("+OK\r\n", replica.Call("REPLICAOF", "127.0.0.1", a.Port.ToString()));
        WaitLinked(replica, a.Port);
        // A target that is not a replica, then one that is, but with a timeout too short to matter: abort by hand.
        Assert.Equal("-ERR FAILOVER target HOST and PORT is not a replica.\r\n", master.Call("FAILOVER", "TO", "127.0.0.1", "1"));
        using var sleeper = b.Connect();
        sleeper.Send("DEBUG", "SLEEP", "6"); // the replica stops applying the stream, so its acknowledgements lag
        Assert.Equal("+OK\r\n", master.Call("SET", "x", "1"));
        Assert.Equal("+OK\r\n", master.Call("FAILOVER"));
        Assert.Contains("master_failover_state:waiting-for-sync", Info(master));
        Assert.Equal("-ERR FAILOVER already in progress.\r\n", master.Call("FAILOVER"));
        Assert.Equal("-ERR REPLICAOF not allowed while failing over.\r\n", master.Call("REPLICAOF", "NO", "ONE"));
        using var writer = a.Connect();
        writer.Send("SET", "y", "2");
        Assert.Null(writer.TryReadReply(300)); // held
        Assert.Equal("$1\r\n1\r\n", master.Call("GET", "x")); // reads go on
        Assert.Equal("+OK\r\n", master.Call("FAILOVER", "ABORT"));
        Assert.Equal("+OK\r\n", writer.ReadReply());
        Assert.Contains("role:master", Info(master));
        Assert.Contains("master_failover_state:no-failover", Info(master));
        Assert.Equal("-ERR No failover in progress.\r\n", master.Call("FAILOVER", "ABORT"));
        Assert.Equal("+OK\r\n", sleeper.ReadReply());
    }

    /// <summary>A timeout without FORCE aborts the failover once it passes.</summary>
    [RedisFact]
    public async Task Failover_TimeoutWithoutForce_Aborts()
    {
        await using var a = TestServer.Start(4);
        await using var b = TestServer.Start(4, "--enable-debug-command", "yes");
        using var master = a.Connect();
        using var replica = b.Connect();
        Assert.Equal("+OK\r\n", replica.Call("REPLICAOF", "127.0.0.1", a.Port.ToString()));
        WaitLinked(replica, a.Port);
        using var sleeper = b.Connect();
        sleeper.Send("DEBUG", "SLEEP", "2"); // the replica stops applying the stream, so its acknowledgements lag
        Assert.Equal("+OK\r\n", master.Call("SET", "x", "1"));
        Assert.Equal("+OK\r\n", master.Call("FAILOVER", "TIMEOUT", "200"));
        Eventually.Wait(() => Info(master).Contains("master_failover_state:no-failover"), () => Info(master), 10);
        Assert.Contains("role:master", Info(master));
        Assert.Equal("+OK\r\n", master.Call("SET", "y", "1"));
        Assert.Equal("+OK\r\n", sleeper.ReadReply());
    }

    /// <summary>The argument and state errors, byte for byte as redis-server's (both without replicas).</summary>
    [RedisTheory]
    [InlineData("FAILOVER")]
    [InlineData("FAILOVER", "ABORT")]
    [InlineData("FAILOVER", "TIMEOUT", "0")]
    [InlineData("FAILOVER", "TIMEOUT", "-5")]
    [InlineData("FAILOVER", "TIMEOUT", "abc")]
    [InlineData("FAILOVER", "TO")]
    [InlineData("FAILOVER", "TO", "h", "x")]
    [InlineData("FAILOVER", "FORCE")]
    [InlineData("FAILOVER", "FORCE", "FORCE")]
    [InlineData("FAILOVER", "TIMEOUT", "5", "TIMEOUT", "6")]
    [InlineData("FAILOVER", "bogus")]
    [InlineData("PSYNC", "0123456789012345678901234567890123456789", "5", "FAILOVER")]
    public void Failover_Errors_AsRedis(params string[] args)
    {
        var reference = ReferenceRedis.Shared!;
        using var ours = TestServer.Shared.Connect();
        using var theirs = reference.Connect();
        Assert.Equal(theirs.Call(args), ours.Call(args));
    }
}
