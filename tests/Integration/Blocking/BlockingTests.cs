using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Blocking;

/// <summary>BLPOP/BRPOP/BRPOPLPUSH/BLMOVE: waiting, wake-up by writes, FIFO, timeouts, CLIENT UNBLOCK.</summary>
public class BlockingTests
{
    private static TestServer Server => TestServer.Shared;

    [Fact]
    public void BLPop_WithData_ReturnsAtOnce()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("bl") + "k";
        c.Call("RPUSH", k, "a", "b");
        Assert.Equal($"*2\r\n${k.Length}\r\n{k}\r\n$1\r\na\r\n", c.Call("BLPOP", k, "0"));
        Assert.Equal($"*2\r\n${k.Length}\r\n{k}\r\n$1\r\nb\r\n", c.Call("BRPOP", k, "0"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", k));
    }

    [Fact]
    public void BLPop_Empty_WaitsForPushFromAnotherClient()
    {
        using var waiter = Server.Connect();
        using var pusher = Server.Connect();
        var k = TestServer.KeyPrefix("blwait") + "k";
        Blocked.Send(waiter, pusher, "BLPOP", "other-" + k, k, "5");
        Assert.Equal(":1\r\n", pusher.Call("LPUSH", k, "x"));
        Assert.Equal($"*2\r\n${k.Length}\r\n{k}\r\n$1\r\nx\r\n", waiter.ReadReply());
        Assert.Equal(":0\r\n", pusher.Call("EXISTS", k));
        // The waiter's connection goes on with later commands.
        Assert.Equal("+PONG\r\n", waiter.Call("PING"));
    }

    [Fact]
    public void BLPop_Timeout_RepliesNil()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("bltimeout") + "k";
        Assert.Equal("*-1\r\n", c.Call("BLPOP", k, "0.1"));
        Assert.Equal("*-1\r\n", c.Call("BRPOPLPUSH", k, k + "d", "0.05")); // Redis: a null array, not a null bulk
        c.Call("HELLO", "3");
        Assert.Equal("_\r\n", c.Call("BRPOP", k, "0.05"));
    }

    [Fact]
    public void BlockedClients_ServedFirstComeFirstServed()
    {
        using var first = Server.Connect();
        using var second = Server.Connect();
        using var pusher = Server.Connect();
        var k = TestServer.KeyPrefix("blfifo") + "k";
        Blocked.Send(first, pusher, "BLPOP", k, "5");
        Blocked.Send(second, pusher, "BLPOP", k, "5");
        pusher.Call("RPUSH", k, "one");
        Assert.Equal($"*2\r\n${k.Length}\r\n{k}\r\n$3\r\none\r\n", first.ReadReply());
        pusher.Call("RPUSH", k, "two");
        Assert.Equal($"*2\r\n${k.Length}\r\n{k}\r\n$3\r\ntwo\r\n", second.ReadReply());
    }

    [Fact]
    public void BLMove_Blocked_MovesWhenSourceGetsElement()
    {
        using var waiter = Server.Connect();
        using var pusher = Server.Connect();
        var p = TestServer.KeyPrefix("blmove");
        Blocked.Send(waiter, pusher, "BLMOVE", p + "src", p + "dst", "RIGHT", "LEFT", "5");
        pusher.Call("RPUSH", p + "src", "v");
        Assert.Equal("$1\r\nv\r\n", waiter.ReadReply());
        Assert.Equal("*1\r\n$1\r\nv\r\n", pusher.Call("LRANGE", p + "dst", "0", "-1"));
    }

    [Fact]
    public void ClientList_BlockedClient_HasFlagB()
    {
        using var waiter = Server.Connect();
        using var admin = Server.Connect();
        var k = TestServer.KeyPrefix("blflag") + "k";
        string id = waiter.Call("CLIENT", "ID").Trim(':', '\r', '\n');
        Assert.Contains(" flags=N ", admin.Call("CLIENT", "LIST", "ID", id));
        waiter.Send("BLPOP", k, "5");
        // Bounded: fails if the flag never shows (as Redis 7.2 shows it, flags=b).
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (!admin.Call("CLIENT", "LIST", "ID", id).Contains(" flags=b ") && DateTime.UtcNow < deadline) Thread.Sleep(5);
        Assert.Contains(" flags=b ", admin.Call("CLIENT", "LIST", "ID", id));
        admin.Call("RPUSH", k, "x");
        Assert.Equal($"*2\r\n${k.Length}\r\n{k}\r\n$1\r\nx\r\n", waiter.ReadReply());
        Assert.Contains(" flags=N ", admin.Call("CLIENT", "LIST", "ID", id));
    }

    [Fact]
    public void BLPop_InsideMulti_DoesNotBlock()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("blmulti") + "k";
        c.Call("MULTI");
        c.Call("BLPOP", k, "0");
        Assert.Equal("*1\r\n*-1\r\n", c.Call("EXEC"));
    }

    [Fact]
    public void ClientUnblock_TimeoutAndError()
    {
        using var waiter = Server.Connect();
        using var admin = Server.Connect();
        var k = TestServer.KeyPrefix("blunblock") + "k";
        string id = waiter.Call("CLIENT", "ID").Trim(':', '\r', '\n');
        Blocked.Send(waiter, admin, "BLPOP", k, "0");
        Assert.Contains("blocked_clients:", admin.Call("INFO", "clients"));
        Assert.Equal(":1\r\n", admin.Call("CLIENT", "UNBLOCK", id));
        Assert.Equal("*-1\r\n", waiter.ReadReply());
        Assert.Equal(":0\r\n", admin.Call("CLIENT", "UNBLOCK", id));

        Blocked.Send(waiter, admin, "BRPOP", k, "0");
        Assert.Equal(":1\r\n", admin.Call("CLIENT", "UNBLOCK", id, "ERROR"));
        Assert.Equal("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n", waiter.ReadReply());
    }

    [Fact]
    public async Task BlockedClientThatDisconnects_IsForgotten()
    {
        await using var server = TestServer.Start(shards: 2);
        using var pusher = server.Connect();
        using (var gone = server.Connect())
        {
            Blocked.Send(gone, pusher, "BLPOP", "k", "0");
            Assert.Contains("blocked_clients:1\r\n", pusher.Call("INFO", "clients"));
        }
        // The server notices the disconnect and drops the waiter (bounded wait).
        Blocked.WaitForCount(pusher, 0);
        pusher.Call("RPUSH", "k", "kept");
        Thread.Sleep(100);
        Assert.Equal(":1\r\n", pusher.Call("LLEN", "k"));
    }

    [Fact]
    public async Task ThousandBlockedClients_OnKeysOverAllShards_EachServedExactlyOnce()
    {
        await using var server = TestServer.Start(shards: 4);
        const int Clients = 1000;
        var waiters = new List<RespClient>();
        try
        {
            for (int i = 0; i < Clients; i++)
            {
                var c = server.Connect();
                waiters.Add(c);
                c.Send("BLPOP", $"q{i % 37}", "30");
            }
            using var pusher = server.Connect();
            Blocked.WaitForCount(pusher, Clients, seconds: 30);
            // Exactly one element per waiter, queue by queue.
            for (int i = 0; i < Clients; i++) pusher.Call("RPUSH", $"q{i % 37}", $"e{i}");

            var received = new HashSet<string>();
            foreach (var c in waiters)
            {
                string reply = c.ReadReply();
                Assert.StartsWith("*2\r\n", reply);
                string element = reply.Split("\r\n")[4];
                Assert.True(received.Add(element), $"{element} served twice");
            }
            Assert.Equal(Clients, received.Count);
            for (int q = 0; q < 37; q++) Assert.Equal(":0\r\n", pusher.Call("LLEN", $"q{q}"));
        }
        finally
        {
            foreach (var c in waiters) c.Dispose();
        }
    }

    [Fact]
    public void BZPopMinAndMPop_WaitThenServe()
    {
        using var waiter = Server.Connect();
        using var pusher = Server.Connect();
        var p = TestServer.KeyPrefix("bz");
        Blocked.Send(waiter, pusher, "BZPOPMIN", p + "z1", p + "z2", "5");
        pusher.Call("ZADD", p + "z2", "2", "b", "1", "a");
        string z2 = p + "z2";
        Assert.Equal($"*3\r\n${z2.Length}\r\n{z2}\r\n$1\r\na\r\n$1\r\n1\r\n", waiter.ReadReply());

        Blocked.Send(waiter, pusher, "BLMPOP", "5", "2", p + "l1", p + "l2", "LEFT", "COUNT", "2");
        pusher.Call("RPUSH", p + "l2", "x", "y", "z");
        string l2 = p + "l2";
        Assert.Equal($"*2\r\n${l2.Length}\r\n{l2}\r\n*2\r\n$1\r\nx\r\n$1\r\ny\r\n", waiter.ReadReply());

        Blocked.Send(waiter, pusher, "BZMPOP", "5", "1", p + "z3", "MAX");
        pusher.Call("ZADD", p + "z3", "7", "m");
        string z3 = p + "z3";
        Assert.Equal($"*2\r\n${z3.Length}\r\n{z3}\r\n*1\r\n*2\r\n$1\r\nm\r\n$1\r\n7\r\n", waiter.ReadReply());
        // A list push does not wake a sorted-set waiter: it times out.
        Blocked.Send(waiter, pusher, "BZPOPMAX", p + "k4", "0.5");
        pusher.Call("RPUSH", p + "k4", "x");
        Assert.Equal("*-1\r\n", waiter.ReadReply());
    }

    [RedisFact]
    public void BlockingErrorsAndTimeouts_SameAsRedis()
    {
        Differential.AssertSame(
            "BLPOP k -1", "BLPOP k abc", "BLPOP k 0.01", "BRPOP k inf", "SET s x", "BLPOP s 0", "BLPOP k s 0",
            "LPUSH k a", "BLPOP nothing k 0", "BLMOVE k d LEFT UP 0", "BLMOVE k d LEFT RIGHT -1",
            "BRPOPLPUSH nothing d 0.01", "BLMOVE nothing d LEFT LEFT 0.01", "RPUSH k b c", "BRPOPLPUSH k d 0",
            "BLMOVE k d LEFT LEFT 0", "LRANGE d 0 -1", "CLIENT UNBLOCK abc", "CLIENT UNBLOCK 999999 FOO",
            "CLIENT UNBLOCK 999999", "CLIENT UNBLOCK 999999 ERROR",
            "BZPOPMIN z -1", "BZPOPMIN z 0.01", "BZPOPMIN s 0", "ZADD z 1 a 2 b", "BZPOPMIN z 0", "BZPOPMAX z 0", "BZPOPMIN z 0.01",
            "BLMPOP 0.01 1 nolist LEFT", "BLMPOP 0 0 k LEFT", "BLMPOP 0 1 k UP", "BLMPOP x 1 k LEFT", "BLMPOP 0 1 s LEFT",
            "RPUSH k p q r", "BLMPOP 0 2 nolist k RIGHT COUNT 2", "BLMPOP 0 1 k LEFT COUNT 0",
            "BZMPOP 0.01 1 z MIN", "ZADD z 5 e 6 f", "BZMPOP 0 1 z MAX COUNT 5", "BZMPOP 0 1 z FOO", "BZMPOP 0 1 s MIN",
            "MULTI", "BLMPOP 0 1 none LEFT", "BZPOPMIN none 0", "EXEC");
    }
}
