using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Transactions;

/// <summary>MULTI/EXEC/DISCARD/WATCH: replies, WATCH aborts, atomicity across shards.</summary>
public class TransactionTests
{
    private static TestServer Server => TestServer.Shared;

    [Fact]
    public void Exec_QueuedCommands_RunInOrderWithRuntimeErrorsInline()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("tx");
        Assert.Equal("+OK\r\n", c.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", c.Call("SET", p + "a", "1"));
        Assert.Equal("+QUEUED\r\n", c.Call("INCR", p + "a"));
        Assert.Equal("+QUEUED\r\n", c.Call("INCR", p + "missing:notint"));
        Assert.Equal("+QUEUED\r\n", c.Call("GET", p + "a"));
        Assert.Equal("*4\r\n+OK\r\n:2\r\n:1\r\n$1\r\n2\r\n", c.Call("EXEC"));
    }

    [Fact]
    public void Exec_AfterQueueTimeError_AbortsWholeTransaction()
    {
        using var c = Server.Connect();
        var key = TestServer.KeyPrefix("txabort") + "k";
        Assert.Equal("+OK\r\n", c.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", c.Call("SET", key, "1"));
        Assert.Equal("-ERR unknown command 'NOPE', with args beginning with: \r\n", c.Call("NOPE"));
        Assert.Equal("-ERR wrong number of arguments for 'get' command\r\n", c.Call("GET"));
        Assert.Equal("-EXECABORT Transaction discarded because of previous errors.\r\n", c.Call("EXEC"));
        Assert.Equal("$-1\r\n", c.Call("GET", key));
    }

    [Fact]
    public void Multi_ControlErrors_MatchRedis()
    {
        using var c = Server.Connect();
        Assert.Equal("-ERR EXEC without MULTI\r\n", c.Call("EXEC"));
        Assert.Equal("-ERR DISCARD without MULTI\r\n", c.Call("DISCARD"));
        Assert.Equal("+OK\r\n", c.Call("MULTI"));
        Assert.Equal("-ERR MULTI calls can not be nested\r\n", c.Call("MULTI"));
        Assert.Equal("-ERR WATCH inside MULTI is not allowed\r\n", c.Call("WATCH", "x"));
        Assert.Equal("+OK\r\n", c.Call("DISCARD"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void Watch_KeyChangedByAnotherClient_ExecReturnsNil()
    {
        using var a = Server.Connect();
        using var b = Server.Connect();
        var key = TestServer.KeyPrefix("watch") + "k";
        Assert.Equal("+OK\r\n", a.Call("WATCH", key));
        Assert.Equal("+OK\r\n", b.Call("SET", key, "other"));
        Assert.Equal("+OK\r\n", a.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", a.Call("SET", key, "mine"));
        Assert.Equal("*-1\r\n", a.Call("EXEC"));
        Assert.Equal("$5\r\nother\r\n", a.Call("GET", key));

        // After EXEC the watch is gone: the next transaction runs.
        Assert.Equal("+OK\r\n", a.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", a.Call("SET", key, "mine"));
        Assert.Equal("*1\r\n+OK\r\n", a.Call("EXEC"));
    }

    [Fact]
    public async Task Watch_ExpiryDeletionAndFlush_AbortExec()
    {
        var server = TestServer.Start(shards: 2);
        try
        {
            using var a = server.Connect();
            using var b = server.Connect();
            a.Call("SET", "e", "1", "PX", "50");
            Assert.Equal("+OK\r\n", a.Call("WATCH", "e"));
            Thread.Sleep(120);
            a.Call("MULTI");
            a.Call("PING");
            Assert.Equal("*-1\r\n", a.Call("EXEC"));

            a.Call("SET", "d", "1");
            a.Call("WATCH", "d");
            b.Call("DEL", "d");
            a.Call("MULTI");
            a.Call("PING");
            Assert.Equal("*-1\r\n", a.Call("EXEC"));

            a.Call("SET", "f", "1");
            a.Call("WATCH", "f");
            b.Call("FLUSHDB");
            a.Call("MULTI");
            a.Call("PING");
            Assert.Equal("*-1\r\n", a.Call("EXEC"));

            // UNWATCH forgets: a later change does not abort.
            a.Call("WATCH", "g");
            a.Call("UNWATCH");
            b.Call("SET", "g", "1");
            a.Call("MULTI");
            a.Call("PING");
            Assert.Equal("*1\r\n+PONG\r\n", a.Call("EXEC"));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public async Task Select_InsideMulti_AppliesToLaterQueuedCommandsAndAfter()
    {
        var server = TestServer.Start(shards: 2);
        try
        {
            using var c = server.Connect();
            c.Call("MULTI");
            c.Call("SELECT", "1");
            c.Call("SET", "q", "1");
            Assert.Equal("*2\r\n+OK\r\n+OK\r\n", c.Call("EXEC"));
            Assert.Equal("$1\r\n1\r\n", c.Call("GET", "q"));
            c.Call("SELECT", "0");
            Assert.Equal("$-1\r\n", c.Call("GET", "q"));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public async Task MultiShardTransactions_NeverTornAndNeverDeadlock()
    {
        await using var server = TestServer.Start(shards: 4);
        string[] keys = Enumerable.Range(0, 6).Select(i => $"t{i}").ToArray();
        using (var setup = server.Connect())
            foreach (var k in keys) setup.Call("SET", k, "0");

        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(3));
        long torn = 0, transactions = 0;
        // Dedicated threads: blocking test clients must not starve the in-process server's thread pool.
        var writers = Enumerable.Range(0, 6).Select(id => Task.Factory.StartNew(() =>
        {
            var random = new Random(id);
            using var c = server.Connect();
            for (int r = 0; !stop.IsCancellationRequested && r < 3000; r++)
            {
                // Set every key to one generation inside one transaction, in a random key order.
                string gen = $"{id}-{r}";
                c.Call("MULTI");
                foreach (var k in keys.OrderBy(_ => random.Next())) c.Call("SET", k, gen);
                string exec = c.Call("EXEC");
                Assert.StartsWith($"*{keys.Length}\r\n", exec);
                Interlocked.Increment(ref transactions);
            }
        }, TaskCreationOptions.LongRunning)).ToArray();
        var readers = Enumerable.Range(0, 3).Select(_ => Task.Factory.StartNew(() =>
        {
            using var c = server.Connect();
            while (!stop.IsCancellationRequested)
            {
                string reply = c.Call(new[] { "MGET" }.Concat(keys).ToArray());
                var values = reply.Split("\r\n").Where((_, idx) => idx > 0 && idx % 2 == 0).ToArray();
                if (values.Distinct().Count() != 1) Interlocked.Increment(ref torn);
            }
        }, TaskCreationOptions.LongRunning)).ToArray();

        var all = Task.WhenAll(writers.Concat(readers));
        var finished = await Task.WhenAny(all, Task.Delay(TimeSpan.FromSeconds(90)));
        Assert.True(finished == all, "transactions did not finish: deadlock?");
        await all;
        Assert.Equal(0, torn);
        Assert.True(transactions > 100, $"only {transactions} transactions ran");
    }
}
