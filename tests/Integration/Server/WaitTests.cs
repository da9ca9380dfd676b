using System.Diagnostics;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>WAIT and WAITAOF on a server without replicas.</summary>
public sealed class WaitTests
{
    [RedisFact]
    public void Wait_Arguments_SameAsRedis() => Differential.AssertSame(
        "WAIT 0 0",
        "WAIT -1 100",
        "WAIT x 0",
        "WAIT 1 x",
        "WAIT 1 -1",
        "WAIT 1 1.5",
        "WAIT 0 -1",
        "WAIT 1",
        "MULTI",
        "WAIT 5 0",
        "EXEC",
        "PING");

    /// <summary>Redis 7.2 lets scripts call WAIT (7.0 flagged it noscript): inside one it answers at once.</summary>
    [Fact]
    public void Wait_FromScript_AnswersAtOnce()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal(":0\r\n", c.Call("EVAL", "return redis.call('wait', 1, 0)", "0"));
        Assert.Equal(":0\r\n", c.Call("EVAL", "return redis.call('wait', 0, 0)", "0"));
    }

    /// <summary>Replicas asked for and none there: the client waits out the timeout, or until CLIENT UNBLOCK.</summary>
    [RedisFact]
    public void Wait_ForReplicas_BlocksUntilTimeoutOrUnblock()
    {
        using var servers = new PairedServers();
        Check(servers.ConnectTheirs);
        Check(servers.ConnectOurs);

        static void Check(Func<RespClient> connect)
        {
            using var c = connect();
            using var admin = connect();
            var watch = Stopwatch.StartNew();
            Assert.Equal(":0\r\n", c.Call("WAIT", "1", "300"));
            Assert.True(watch.ElapsedMilliseconds >= 250, $"WAIT returned after {watch.ElapsedMilliseconds} ms");

            string id = c.Call("CLIENT", "ID")[1..^2];
            c.Send("WAIT", "2", "0");
            Assert.Null(c.TryReadReply(300));
            Assert.Contains("blocked_clients:1\r\n", admin.Call("INFO", "clients"));
            Assert.Equal(":1\r\n", admin.Call("CLIENT", "UNBLOCK", id));
            Assert.Equal(":0\r\n", c.ReadReply());

            c.Send("WAIT", "1", "0");
            Assert.Null(c.TryReadReply(200));
            Assert.Equal(":1\r\n", admin.Call("CLIENT", "UNBLOCK", id, "ERROR"));
            Assert.Equal("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n", c.ReadReply());
            Assert.Contains("blocked_clients:0\r\n", admin.Call("INFO", "clients"));
            Assert.Equal("+PONG\r\n", c.Call("PING"));
        }
    }

    /// <summary>WAITAOF is Redis 7.2's (the reference redis-server is 7.0): its errors and replies are checked as 7.2's replication.c words them.</summary>
    [Fact]
    public async Task WaitAof_WithoutAof_RefusesLocalAndCountsNothing()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        Assert.Equal("-ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.\r\n", c.Call("WAITAOF", "1", "0", "0"));
        Assert.Equal("-ERR value is out of range, value must between 0 and 1\r\n", c.Call("WAITAOF", "2", "0", "0"));
        Assert.Equal("-ERR value is not an integer or out of range\r\n", c.Call("WAITAOF", "x", "0", "0"));
        Assert.Equal("-ERR value is out of range, must be positive\r\n", c.Call("WAITAOF", "0", "-1", "0"));
        Assert.Equal("-ERR timeout is negative\r\n", c.Call("WAITAOF", "0", "0", "-1"));
        Assert.Equal("-ERR wrong number of arguments for 'waitaof' command\r\n", c.Call("WAITAOF", "0", "0"));
        Assert.Equal("*2\r\n:0\r\n:0\r\n", c.Call("WAITAOF", "0", "0", "0"));
        var watch = Stopwatch.StartNew();
        Assert.Equal("*2\r\n:0\r\n:0\r\n", c.Call("WAITAOF", "0", "1", "200"));
        Assert.True(watch.ElapsedMilliseconds >= 150, $"WAITAOF returned after {watch.ElapsedMilliseconds} ms");
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public async Task WaitAof_WithAof_CountsTheLocalWriteOnceInTheFile()
    {
        await using var server = TestServer.Start(2, "--appendonly", "yes", "--appendfsync", "always");
        using var c = server.Connect();
        Assert.Equal("*2\r\n:1\r\n:0\r\n", c.Call("WAITAOF", "1", "0", "0"));   // nothing written yet: nothing to wait for
        Assert.Equal("+OK\r\n", c.Call("SET", "wa:k", "v"));
        Assert.Equal("*2\r\n:1\r\n:0\r\n", c.Call("WAITAOF", "1", "0", "0"));
        var watch = Stopwatch.StartNew();
        Assert.Equal("*2\r\n:1\r\n:0\r\n", c.Call("WAITAOF", "1", "1", "200"));   // no replica ever acknowledges
        Assert.True(watch.ElapsedMilliseconds >= 150, $"WAITAOF returned after {watch.ElapsedMilliseconds} ms");
        Assert.Equal("+OK\r\n", c.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", c.Call("WAITAOF", "0", "3", "0"));
        Assert.Equal("*1\r\n*2\r\n:1\r\n:0\r\n", c.Call("EXEC"));
    }
}
