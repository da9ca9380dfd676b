using System.Text.RegularExpressions;
using RedisClone.Sharding;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Execution;

/// <summary>
/// The executor's contract: an event loop keeps serving while a shard is busy, nothing a blocked
/// client sent after its blocking command runs once it is gone, and a wake-up that finds the wrong
/// type leaves the client blocked.
/// </summary>
public sealed class ExecutionTests
{
    /// <summary>Holds a shard's thread (and so its gate) until released.</summary>
    private sealed class BusyShard : ShardWork
    {
        public readonly ManualResetEventSlim Entered = new();
        public readonly ManualResetEventSlim Release = new();

        public override void Execute(Shard shard)
        {
            Entered.Set();
            Release.Wait(TimeSpan.FromSeconds(30));
        }
    }

    private static string KeyOnShard(TestServer server, int shard, string prefix)
    {
        for (int i = 0; ; i++)
        {
            var key = prefix + i;
            if (server.Server.Shards.ShardOf(System.Text.Encoding.UTF8.GetBytes(key)) == shard) return key;
        }
    }

    /// <summary>
    /// SCAN takes the gates of its cursor's shard and the later ones (a call goes on into the next
    /// shard while COUNT allows), never an earlier shard's: a cursor in the last shard proceeds while
    /// shard 0 is busy, and cursor 0 waits for shard 0, then returns both shards' keys at once.
    /// </summary>
    [Fact]
    public async Task Scan_CursorInLastShard_ProceedsWhileShard0IsBusy()
    {
        await using var server = TestServer.Start(2, "--io-threads", "1");
        var k0 = KeyOnShard(server, 0, "scan0:");
        var k1 = KeyOnShard(server, 1, "scan1:");
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("SET", k0, "a"));
        Assert.Equal("+OK\r\n", c.Call("SET", k1, "b"));

        var busy = new BusyShard();
        server.Server.Shards[0].Post(busy);
        Assert.True(busy.Entered.Wait(TimeSpan.FromSeconds(10)));
        string? first;
        try
        {
            // Cursor 1 is shard 1's first slot: only shard 1's gate is taken.
            c.Send("SCAN", "1", "COUNT", "1000");
            first = c.TryReadReply(5000);
            Assert.Equal($"*2\r\n$1\r\n0\r\n*1\r\n${k1.Length}\r\n{k1}\r\n", first);
            // Cursor 0 starts in shard 0: it waits for the gate.
            c.Send("SCAN", "0", "COUNT", "1000");
            Assert.Null(c.TryReadReply(200));
        }
        finally
        {
            busy.Release.Set();
        }
        Assert.Equal($"*2\r\n$1\r\n0\r\n*2\r\n${k0.Length}\r\n{k0}\r\n${k1.Length}\r\n{k1}\r\n", c.ReadReply());
    }

    private static int InfoField(RespClient c, string field)
    {
        var m = Regex.Match(c.Call("INFO", "clients"), field + @":(\d+)");
        return int.Parse(m.Groups[1].Value);
    }

    private static Task WaitForBlocked(RespClient observer, int count)
        => Eventually.WaitFor(() => InfoField(observer, "blocked_clients") == count,
            () => $"blocked_clients is {InfoField(observer, "blocked_clients")}, expected {count}");

    [Fact]
    public async Task MultiShardCommand_OnBusyShard_LoopKeepsServingOthers()
    {
        await using var server = TestServer.Start(2, "--io-threads", "1");
        var k0 = KeyOnShard(server, 0, "ms0:");
        var k1 = KeyOnShard(server, 1, "ms1:");
        using var writer = server.Connect();
        using var other = server.Connect();
        Assert.Equal("+PONG\r\n", writer.Call("PING"));
        Assert.Equal("+PONG\r\n", other.Call("PING"));

        var busy = new BusyShard();
        server.Server.Shards[1].Post(busy);
        Assert.True(busy.Entered.Wait(TimeSpan.FromSeconds(10)));
        try
        {
            // Needs shard 1's gate, which its thread holds: the loop must not wait for it.
            writer.Send("MSET", k0, "a", k1, "b");
            writer.Send("EXEC"); // a second command behind it, to be answered in order
            // Same event loop (one io thread): still answering.
            Assert.Equal("+PONG\r\n", other.Call("PING"));
            Assert.Equal("$5\r\nhello\r\n", other.Call("ECHO", "hello"));
            Assert.Null(writer.TryReadReply(200)); // the MSET is still waiting for the gate
        }
        finally
        {
            busy.Release.Set();
        }
        Assert.Equal("+OK\r\n", writer.ReadReply());
        Assert.Equal("-ERR EXEC without MULTI\r\n", writer.ReadReply());
        Assert.Equal("*2\r\n$1\r\na\r\n$1\r\nb\r\n", other.Call("MGET", k0, k1));
    }

    /// <summary>
    /// CONFIG SET appendonly yes starts the AOF at an instant of the whole dataset, with every gate
    /// held: while a shard is busy it waits for the gates off the event loop, which keeps answering
    /// its other clients (it used to take the gates on the loop and stall them all).
    /// </summary>
    [Fact]
    public async Task ConfigSetAppendOnly_OnBusyShard_LoopKeepsServingOthers()
    {
        await using var server = TestServer.Start(2, "--io-threads", "1");
        using var admin = server.Connect();
        using var other = server.Connect();
        Assert.Equal("+PONG\r\n", admin.Call("PING"));
        Assert.Equal("+PONG\r\n", other.Call("PING"));

        var busy = new BusyShard();
        server.Server.Shards[1].Post(busy);
        Assert.True(busy.Entered.Wait(TimeSpan.FromSeconds(10)));
        try
        {
            admin.Send("CONFIG", "SET", "appendonly", "yes");
            admin.Send("PING"); // behind it, answered in order
            // Same event loop (one io thread): still answering.
            Assert.Equal("+PONG\r\n", other.Call("PING"));
            Assert.Equal("$5\r\nhello\r\n", other.Call("ECHO", "hello"));
            Assert.Null(admin.TryReadReply(200)); // CONFIG SET is still waiting for the gate
        }
        finally
        {
            busy.Release.Set();
        }
        Assert.Equal("+OK\r\n", admin.ReadReply());
        Assert.Equal("+PONG\r\n", admin.ReadReply());
        Assert.Contains("aof_enabled:1", other.Call("INFO", "persistence"));
        // And off again, the same way.
        Assert.Equal("+OK\r\n", admin.Call("CONFIG", "SET", "appendonly", "no"));
        Assert.Contains("aof_enabled:0", other.Call("INFO", "persistence"));
    }

    [Fact]
    public async Task Exec_OnBusyShard_LoopKeepsServingOthers()
    {
        await using var server = TestServer.Start(2, "--io-threads", "1");
        var k1 = KeyOnShard(server, 1, "tx1:");
        using var tx = server.Connect();
        using var other = server.Connect();
        Assert.Equal("+OK\r\n", tx.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", tx.Call("INCR", k1));
        Assert.Equal("+PONG\r\n", other.Call("PING"));

        var busy = new BusyShard();
        server.Server.Shards[1].Post(busy);
        Assert.True(busy.Entered.Wait(TimeSpan.FromSeconds(10)));
        try
        {
            tx.Send("EXEC");
            Assert.Equal("+PONG\r\n", other.Call("PING"));
            Assert.Null(tx.TryReadReply(200));
        }
        finally
        {
            busy.Release.Set();
        }
        Assert.Equal("*1\r\n:1\r\n", tx.ReadReply());
    }

    [Fact]
    public async Task BlockedClient_Disconnects_LaterCommandsNeverRun()
    {
        await using var server = TestServer.Start(2);
        using var observer = server.Connect();
        using (var blocked = server.Connect())
        {
            blocked.Send("BLPOP", "dc:list", "0");
            await WaitForBlocked(observer, 1);
            blocked.SendRaw(RespClient.Encode("SET", "dc:key", "v").Concat(RespClient.Encode("INCR", "dc:counter")).ToArray());
        }
        await WaitForBlocked(observer, 0);
        await Eventually.WaitFor(() => InfoField(observer, "connected_clients") == 1, () => "the blocked client is still connected");
        Assert.Equal(":0\r\n", observer.Call("EXISTS", "dc:key", "dc:counter"));
        // The list still works for later waiters.
        Assert.Equal(":1\r\n", observer.Call("RPUSH", "dc:list", "x"));
        Assert.Equal("*2\r\n$7\r\ndc:list\r\n$1\r\nx\r\n", observer.Call("BLPOP", "dc:list", "1"));
    }

    [Fact]
    public async Task BlockedClient_KeyBecomesWrongTypeInTransaction_StaysBlocked()
    {
        await using var server = TestServer.Start(2);
        using var waiter = server.Connect();
        using var tx = server.Connect();
        waiter.Send("BLPOP", "wt:l", "0");
        await WaitForBlocked(tx, 1);
        Assert.Equal("+OK\r\n", tx.Call("MULTI"));
        tx.Call("LPUSH", "wt:l", "a");
        tx.Call("DEL", "wt:l");
        tx.Call("SET", "wt:l", "foo");
        Assert.Equal("*3\r\n:1\r\n:1\r\n+OK\r\n", tx.Call("EXEC"));
        Assert.Equal(1, InfoField(tx, "blocked_clients"));
        Assert.Null(waiter.TryReadReply(100));
        // Served later by a real push, with the element pushed then.
        Assert.Equal(":1\r\n", tx.Call("DEL", "wt:l"));
        Assert.Equal(":1\r\n", tx.Call("RPUSH", "wt:l", "x"));
        Assert.Equal("*2\r\n$4\r\nwt:l\r\n$1\r\nx\r\n", waiter.ReadReply());
        Assert.Equal(0, InfoField(tx, "blocked_clients"));
    }

    [Fact]
    public async Task BlockedClient_ElementTakenByAnother_StaysBlockedInPlace()
    {
        await using var server = TestServer.Start(1);
        using var first = server.Connect();
        using var second = server.Connect();
        using var tx = server.Connect();
        first.Send("BLPOP", "ip:l", "0");
        await WaitForBlocked(tx, 1);
        second.Send("BLPOP", "ip:l", "0");
        await WaitForBlocked(tx, 2);
        // Pushed and popped again before the woken client runs: it keeps its place in the queue.
        Assert.Equal("*2\r\n:1\r\n$1\r\na\r\n", MultiPushPop(tx));
        Assert.Equal(2, InfoField(tx, "blocked_clients"));
        Assert.Equal(":1\r\n", tx.Call("RPUSH", "ip:l", "x"));
        Assert.Equal("*2\r\n$4\r\nip:l\r\n$1\r\nx\r\n", first.ReadReply());
        Assert.Equal(":1\r\n", tx.Call("RPUSH", "ip:l", "y"));
        Assert.Equal("*2\r\n$4\r\nip:l\r\n$1\r\ny\r\n", second.ReadReply());
    }

    private static string MultiPushPop(RespClient tx)
    {
        tx.Call("MULTI");
        tx.Call("LPUSH", "ip:l", "a");
        tx.Call("LPOP", "ip:l");
        return tx.Call("EXEC");
    }
}

/// <summary>CLIENT REPLY and subscription confirmations, as Redis 7.2 sends them.</summary>
public sealed class ReplyModePushTests
{
    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public void Subscribe_UnderReplyOff_ConfirmationsStillSent(int protocol)
    {
        using var c = TestServer.Shared.Connect();
        var ch = TestServer.KeyPrefix("rpoff") + "ch";
        if (protocol == 3) c.Call("HELLO", "3");
        c.Send("CLIENT", "REPLY", "OFF");
        c.Send("SUBSCRIBE", ch);
        string kind = protocol == 3 ? ">" : "*";
        Assert.Equal($"{kind}3\r\n$9\r\nsubscribe\r\n${ch.Length}\r\n{ch}\r\n:1\r\n", c.ReadReply());
        c.Send("PSUBSCRIBE", ch + "*");
        Assert.Equal($"{kind}3\r\n$10\r\npsubscribe\r\n${ch.Length + 1}\r\n{ch}*\r\n:2\r\n", c.ReadReply());
        c.Send("UNSUBSCRIBE", ch);
        Assert.Equal($"{kind}3\r\n$11\r\nunsubscribe\r\n${ch.Length}\r\n{ch}\r\n:1\r\n", c.ReadReply());
        // PING's own reply is still dropped; RESET answers.
        c.Send("PING");
        c.Send("RESET");
        Assert.Equal("+RESET\r\n", c.ReadReply());
    }
}
