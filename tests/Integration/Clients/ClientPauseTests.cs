using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Clients;

/// <summary>
/// CLIENT PAUSE / UNPAUSE: each scenario's assertions hold on a private redis-server and on a private
/// RedisClone alike (what is held, what is served, when replies arrive and in which order).
/// </summary>
public sealed class ClientPauseTests
{
    /// <summary>How long a held client is watched for a reply it must not get.</summary>
    private const int HeldMs = 300;

    private static void OnBoth(Action<Func<RespClient>> scenario)
    {
        using var reference = ReferenceRedis.StartOrNull() ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        var server = TestServer.Start(2);
        try
        {
            scenario(reference.Connect);
            scenario(server.Connect);
        }
        finally
        {
            server.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    private static string Info(RespClient c, string field)
    {
        var line = c.Call("INFO", "clients").Split("\r\n").First(l => l.StartsWith(field + ":"));
        return line[(field.Length + 1)..];
    }

    [RedisFact]
    public void ClientPause_Write_ServesReadsHoldsWritesUntilUnpause()
    {
        OnBoth(connect =>
        {
            using var admin = connect();
            using var writer = connect();
            using var reader = connect();
            Assert.Equal("+OK\r\n", admin.Call("SET", "pw:k", "old"));
            using var queued = connect();
            Assert.Equal("+OK\r\n", queued.Call("MULTI"));
            Assert.Equal("+QUEUED\r\n", queued.Call("INCR", "pw:q"));
            Assert.Equal("+OK\r\n", admin.Call("CLIENT", "PAUSE", "100000", "WRITE"));
            Assert.Equal("$3\r\nold\r\n", reader.Call("GET", "pw:k"));
            Assert.Equal("+PONG\r\n", reader.Call("PING"));
            // A pipeline: the read before the write is answered, the write and what follows wait.
            writer.SendRaw(RespClient.Encode("GET", "pw:k").Concat(RespClient.Encode("SET", "pw:k", "new")).Concat(RespClient.Encode("GET", "pw:k")).ToArray());
            Assert.Equal("$3\r\nold\r\n", writer.ReadReply());
            Assert.Null(writer.TryReadReply(HeldMs));
            Assert.Equal("1", Info(admin, "blocked_clients"));
            Assert.Contains(" flags=b ", admin.Call("CLIENT", "LIST"));
            // PUBLISH and PFCOUNT may replicate, EVAL may write: held too. A no-writes script is not.
            using var publisher = connect();
            publisher.Send("PUBLISH", "pw:ch", "m");
            Assert.Null(publisher.TryReadReply(HeldMs));
            using var scripter = connect();
            Assert.Equal(":1\r\n", scripter.Call("EVAL", "#!lua flags=no-writes\nreturn 1", "0"));
            scripter.Send("EVAL", "return 2", "0");
            Assert.Null(scripter.TryReadReply(HeldMs));
            // A transaction of reads runs; a write waits even to be queued; one queued before waits at EXEC.
            using var tx = connect();
            Assert.Equal("+OK\r\n", tx.Call("MULTI"));
            Assert.Equal("+QUEUED\r\n", tx.Call("GET", "pw:k"));
            Assert.Equal("*1\r\n$3\r\nold\r\n", tx.Call("EXEC"));
            Assert.Equal("+OK\r\n", tx.Call("MULTI"));
            tx.Send("INCR", "pw:n");
            Assert.Null(tx.TryReadReply(HeldMs));
            queued.Send("EXEC");
            Assert.Null(queued.TryReadReply(HeldMs));
            Assert.Equal("5", Info(admin, "blocked_clients"));

            Assert.Equal("+OK\r\n", admin.Call("CLIENT", "UNPAUSE"));
            Assert.Equal("+OK\r\n", writer.ReadReply());
            Assert.Equal("$3\r\nnew\r\n", writer.ReadReply());
            Assert.Equal(":0\r\n", publisher.ReadReply());
            Assert.Equal(":2\r\n", scripter.ReadReply());
            Assert.Equal("+QUEUED\r\n", tx.ReadReply());
            Assert.Equal("*1\r\n:1\r\n", tx.Call("EXEC"));
            Assert.Equal("*1\r\n:1\r\n", queued.ReadReply());
            Assert.Equal("0", Info(admin, "blocked_clients"));
        });
    }

    [RedisFact]
    public void ClientPause_All_HoldsEveryCommandUntilTheTimeout()
    {
        OnBoth(connect =>
        {
            using var admin = connect();
            using var other = connect();
            Assert.Equal("+OK\r\n", admin.Call("CLIENT", "PAUSE", "500"));
            var started = System.Diagnostics.Stopwatch.StartNew();
            other.Send("GET", "pa:k");
            Assert.Null(other.TryReadReply(HeldMs));
            Assert.Equal("$-1\r\n", other.ReadReply());
            Assert.True(started.ElapsedMilliseconds >= 400, $"replied after {started.ElapsedMilliseconds} ms");
            // A WRITE pause after an ALL pause keeps ALL (the stricter) and the later end.
            Assert.Equal("+OK\r\n", admin.Call("CLIENT", "PAUSE", "400", "ALL"));
            started.Restart();
            admin.Send("CLIENT", "PAUSE", "10", "WRITE");   // itself held until the ALL pause ends
            Assert.Equal("+OK\r\n", admin.ReadReply());
            Assert.True(started.ElapsedMilliseconds >= 300, $"replied after {started.ElapsedMilliseconds} ms");
            Assert.Equal("+PONG\r\n", other.Call("PING"));
        });
    }

    [RedisFact]
    public void ClientUnpause_ResumesHeldClientsInTheOrderTheyWereHeld()
    {
        OnBoth(connect =>
        {
            using var admin = connect();
            admin.Call("DEL", "po:list");
            Assert.Equal("+OK\r\n", admin.Call("CLIENT", "PAUSE", "100000", "WRITE"));
            var clients = Enumerable.Range(0, 6).Select(_ => connect()).ToList();
            try
            {
                for (int i = 0; i < clients.Count; i++)
                {
                    clients[i].Send("RPUSH", "po:list", "c" + i);
                    Assert.Null(clients[i].TryReadReply(100));
                }
                Assert.Equal("+OK\r\n", admin.Call("CLIENT", "UNPAUSE"));
                for (int i = 0; i < clients.Count; i++) Assert.Equal($":{i + 1}\r\n", clients[i].ReadReply());
                Assert.Equal("*6\r\n$2\r\nc0\r\n$2\r\nc1\r\n$2\r\nc2\r\n$2\r\nc3\r\n$2\r\nc4\r\n$2\r\nc5\r\n",
                    admin.Call("LRANGE", "po:list", "0", "-1"));
            }
            finally
            {
                foreach (var c in clients) c.Dispose();
            }
        });
    }

    [RedisFact]
    public void ClientPause_StopsExpiry_KeysReadAsMissingButStay()
    {
        OnBoth(connect =>
        {
            using var c = connect();
            c.Call("FLUSHALL");
            Assert.Equal("+OK\r\n", c.Call("SET", "pe:k", "v", "PX", "100"));
            Assert.Equal("+OK\r\n", c.Call("CLIENT", "PAUSE", "100000", "WRITE"));
            Thread.Sleep(400);
            Assert.Equal("$-1\r\n", c.Call("GET", "pe:k"));
            Assert.Equal(":0\r\n", c.Call("EXISTS", "pe:k"));
            Assert.Equal(":1\r\n", c.Call("DBSIZE"));       // neither a lookup nor the active cycle deleted it
            Assert.Equal("+OK\r\n", c.Call("CLIENT", "UNPAUSE"));
            Assert.Equal("$-1\r\n", c.Call("GET", "pe:k"));
            Assert.Equal(":0\r\n", c.Call("DBSIZE"));
        });
    }
}
