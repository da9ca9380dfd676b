using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Transactions;

/// <summary>
/// client-query-buffer-limit: a client holding more than the limit in commands not yet run (a
/// command still arriving, or its MULTI queue, as Redis 7.4 counts it) is closed on its next read,
/// with nothing written; other clients do not notice.
/// </summary>
public class QueryBufferLimitTests
{
    private const int Limit = 1 << 20; // the smallest limit Redis accepts (1mb)

    [Fact]
    public async Task Multi_QueuePastQueryBufferLimit_ClosesClient()
    {
        var server = TestServer.Start(shards: 2, "--client-query-buffer-limit", "1mb");
        try
        {
            using var c = server.Connect();
            var value = new string('v', 100 * 1024);
            Assert.Equal("+OK\r\n", c.Call("MULTI"));
            // Ten 100 KB values fit in 1 MB; the eleventh, counted with the queue when it arrives
            // (as Redis counts the query buffer with it), does not.
            for (int i = 0; i < 10; i++) Assert.Equal("+QUEUED\r\n", c.Call("SET", "k" + i, value));
            c.Send("SET", "k10", value);
            Assert.True(c.IsClosedByServer(), "the client over the limit was not closed");

            using var other = server.Connect();
            Assert.Equal("+PONG\r\n", other.Call("PING"));
            Assert.Equal("$-1\r\n", other.Call("GET", "k0")); // nothing of the transaction ran
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public async Task Multi_QueueUnderQueryBufferLimit_Executes()
    {
        var server = TestServer.Start(shards: 2, "--client-query-buffer-limit", "1mb");
        try
        {
            using var c = server.Connect();
            var value = new string('v', 100 * 1024);
            Assert.Equal("+OK\r\n", c.Call("MULTI"));
            for (int i = 0; i < 9; i++) Assert.Equal("+QUEUED\r\n", c.Call("SET", "k" + i, value));
            Assert.StartsWith("*9\r\n+OK\r\n", c.Call("EXEC"));
            // The queue was let go after EXEC: the same again fits.
            Assert.Equal("+OK\r\n", c.Call("MULTI"));
            for (int i = 0; i < 9; i++) Assert.Equal("+QUEUED\r\n", c.Call("SET", "k" + i, value));
            Assert.StartsWith("*9\r\n", c.Call("EXEC"));
            Assert.Equal("+PONG\r\n", c.Call("PING"));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public async Task Command_ArgumentLargerThanQueryBufferLimit_ClosesClient()
    {
        var server = TestServer.Start(shards: 2, "--client-query-buffer-limit", "1mb");
        try
        {
            using var c = server.Connect();
            // As Redis 7.2: a big argument is held in the query buffer until it is complete, and
            // the limit closes the client before it is.
            var header = System.Text.Encoding.ASCII.GetBytes($"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n${2 * Limit}\r\n");
            c.SendRaw(header);
            var chunk = new byte[64 * 1024];
            Assert.True(SendUntilClosed(c, chunk, 2 * Limit), "the client over the limit was not closed");

            using var other = server.Connect();
            Assert.Equal("$-1\r\n", other.Call("GET", "k"));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public void Multi_AfterQueueError_StoresNoMoreCommands()
    {
        // As Redis: a transaction bound to EXECABORT replies QUEUED but keeps nothing (CLIENT LIST's multi=).
        using var c = TestServer.Shared.Connect();
        using var observer = TestServer.Shared.Connect();
        string id = c.Call("CLIENT", "ID")[1..^2];
        Assert.Equal("+OK\r\n", c.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", c.Call("PING"));
        Assert.StartsWith("-ERR unknown command", c.Call("NOPE"));
        Assert.Equal("+QUEUED\r\n", c.Call("PING"));
        Assert.Equal("+QUEUED\r\n", c.Call("PING"));
        Assert.Contains(" multi=1 ", observer.Call("CLIENT", "LIST", "ID", id));
        Assert.StartsWith("-EXECABORT", c.Call("EXEC"));
    }

    /// <summary>Sends the rest of the argument and its CRLF; true when the server closed the connection instead of replying.</summary>
    private static bool SendUntilClosed(RespClient c, byte[] chunk, long total)
    {
        try
        {
            for (long sent = 0; sent < total; sent += chunk.Length) c.SendRaw(chunk);
            c.SendRaw("\r\n");
            return c.TryReadReply(5000) == null;
        }
        catch (System.Net.Sockets.SocketException)
        {
            return true;
        }
    }
}
