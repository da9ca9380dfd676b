using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Wire;

/// <summary>
/// Raw-socket behaviour: pipelining, fragmentation, protocol errors, isolation of clients, slow
/// readers and half-closed sockets; run against both transports (<see cref="EventLoopWireTests"/>,
/// <see cref="SocketEngineWireTests"/>).
/// </summary>
public abstract class WireTests
{
    protected abstract TestServer Server { get; }

    [Fact]
    public void Pipeline_HundredCommandsInOneWrite_RepliesInOrder()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("pipe");
        var batch = new MemoryStream();
        for (int i = 0; i < 100; i++)
        {
            batch.Write(RespClient.Encode("SET", p + i, "v" + i));
            batch.Write(RespClient.Encode("GET", p + i));
        }
        batch.Write(RespClient.Encode("PING"));
        c.SendRaw(batch.ToArray());
        for (int i = 0; i < 100; i++)
        {
            Assert.Equal("+OK\r\n", c.ReadReply());
            Assert.Equal($"${("v" + i).Length}\r\nv{i}\r\n", c.ReadReply());
        }
        Assert.Equal("+PONG\r\n", c.ReadReply());
    }

    [Fact]
    public void Command_SentByteByByte_GetsOneReply()
    {
        using var c = Server.Connect();
        var frame = RespClient.Encode("ECHO", "hello");
        foreach (byte b in frame)
        {
            c.SendRaw(new[] { b });
            Thread.Sleep(1);
        }
        Assert.Equal("$5\r\nhello\r\n", c.ReadReply());
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void Inline_Ping_ReturnsPong()
    {
        using var c = Server.Connect();
        c.SendRaw("PING\r\n");
        Assert.Equal("+PONG\r\n", c.ReadReply());
        c.SendRaw("ECHO \"a b\"\r\n");
        Assert.Equal("$3\r\na b\r\n", c.ReadReply());
    }

    [Fact]
    public void UnknownCommand_ReturnsRedisError()
    {
        using var c = Server.Connect();
        Assert.Equal("-ERR unknown command 'foo', with args beginning with: 'a' 'b' \r\n", c.Call("foo", "a", "b"));
        Assert.Equal("-ERR unknown command 'foo', with args beginning with: \r\n", c.Call("foo"));
        Assert.Equal("-ERR wrong number of arguments for 'get' command\r\n", c.Call("GET"));
        Assert.Equal("-ERR unknown subcommand 'foo'. Try CLIENT HELP.\r\n", c.Call("CLIENT", "foo"));
        Assert.Equal("-ERR wrong number of arguments for 'client' command\r\n", c.Call("CLIENT"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Theory]
    [InlineData("*abc\r\n", "-ERR Protocol error: invalid multibulk length\r\n")]
    [InlineData("*1\r\n+PING\r\n", "-ERR Protocol error: expected '$', got '+'\r\n")]
    [InlineData("*1\r\n$-5\r\n", "-ERR Protocol error: invalid bulk length\r\n")]
    [InlineData("ECHO \"x\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n")]
    public void ProtocolError_RepliesThenCloses_OthersUnaffected(string input, string expected)
    {
        using var bystander = Server.Connect();
        var key = TestServer.KeyPrefix("bystander") + "k";
        Assert.Equal("+OK\r\n", bystander.Call("SET", key, "1"));

        using var bad = Server.Connect();
        bad.SendRaw(RespClient.Encode("PING"));
        bad.SendRaw(input);
        Assert.Equal("+PONG\r\n", bad.ReadReply());
        Assert.Equal(expected, bad.ReadReply());
        Assert.True(bad.IsClosedByServer());

        Assert.Equal("$1\r\n1\r\n", bystander.Call("GET", key));
    }

    [Fact]
    public void ClientDisconnectingMidCommand_DoesNotHarmServer()
    {
        for (int i = 0; i < 20; i++)
        {
            using var c = Server.Connect();
            c.SendRaw("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nabc");
        }
        using var ok = Server.Connect();
        Assert.Equal("+PONG\r\n", ok.Call("PING"));
    }

    [Fact]
    public void LargeValue_RoundTrips()
    {
        using var c = Server.Connect();
        var key = TestServer.KeyPrefix("large") + "k";
        var value = new string('z', 3 * 1024 * 1024);
        Assert.Equal("+OK\r\n", c.Call("SET", key, value));
        Assert.Equal($"${value.Length}\r\n{value}\r\n", c.Call("GET", key));
    }

    [Fact]
    public async Task ClientThatNeverReads_IsThrottled_OthersServed()
    {
        var key = TestServer.KeyPrefix("slowreader") + "k";
        using (var setup = Server.Connect()) setup.Call("SET", key, new string('v', 64 * 1024));

        // Pipeline 2,000 GETs of a 64 KB value (128 MB of replies) and never read them.
        using var slow = Server.Connect();
        var one = RespClient.Encode("GET", key);
        var burst = new byte[one.Length * 100];
        for (int i = 0; i < 100; i++) one.CopyTo(burst, i * one.Length);
        var sendTask = Task.Run(() =>
        {
            try { for (int i = 0; i < 20; i++) slow.SendRaw(burst); }
            catch (Exception) { /* the socket's send buffer fills up: that is the point */ }
        });
        await Task.WhenAny(sendTask, Task.Delay(3000));

        using var other = Server.Connect();
        Assert.Equal("+PONG\r\n", other.Call("PING"));
        long managed = GC.GetTotalMemory(forceFullCollection: true);
        Assert.True(managed < 512L * 1024 * 1024, $"server heap grew to {managed} bytes");
    }

    [Fact]
    public void SlowReader_ReadsLater_GetsEveryReplyInOrder()
    {
        var key = TestServer.KeyPrefix("catchup") + "k";
        var value = new string('w', 64 * 1024);
        using (var setup = Server.Connect()) setup.Call("SET", key, value);

        // 1,000 GETs (64 MB of replies), then 30 SETs of 100 KB (3 MB of input), sent by one thread
        // while nobody reads: the server's sends hit a full socket buffer and wait, its input
        // buffer passes the 1 MB pause threshold and it stops receiving; then the client reads
        // everything and both sides resume.
        using var slow = Server.Connect();
        var requests = new StringBuilder();
        for (int i = 0; i < 1000; i++) requests.Append(Encoding.ASCII.GetString(RespClient.Encode("GET", key)));
        var big = new string('b', 100 * 1024);
        for (int i = 0; i < 30; i++) requests.Append(Encoding.ASCII.GetString(RespClient.Encode("SET", key + ":big", big)));
        requests.Append(Encoding.ASCII.GetString(RespClient.Encode("ECHO", "last")));
        var sender = new Thread(() => slow.SendRaw(requests.ToString())) { IsBackground = true };
        sender.Start();
        Thread.Sleep(300);

        string expected = $"${value.Length}\r\n{value}\r\n";
        for (int i = 0; i < 1000; i++) Assert.Equal(expected, slow.ReadReply());
        for (int i = 0; i < 30; i++) Assert.Equal("+OK\r\n", slow.ReadReply());
        Assert.Equal("$4\r\nlast\r\n", slow.ReadReply());
        Assert.True(sender.Join(10_000));
    }

    [Fact]
    public void QuietConnection_ServesAgainAfterItsBuffersWereGivenBack()
    {
        using var c = Server.Connect();
        var key = TestServer.KeyPrefix("quiet") + "k";
        Assert.Equal("+OK\r\n", c.Call("SET", key, "before"));
        Thread.Sleep(2500); // the event loop sweeps once a second; two sweeps trim a quiet connection
        Assert.Equal("$6\r\nbefore\r\n", c.Call("GET", key));
        c.SendRaw("*3\r\n$3\r\nSET\r\n$" + key.Length + "\r\n" + key + "\r\n$5\r\nafter\r\n*2\r\n$3\r\nGET\r\n$" + key.Length + "\r\n" + key + "\r\n");
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal("$5\r\nafter\r\n", c.ReadReply());
    }

    [Fact]
    public void CommandsThenHalfClose_RepliesArriveThenConnectionCloses()
    {
        using var socket = new System.Net.Sockets.Socket(System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
        socket.Connect(System.Net.IPAddress.Loopback, Server.Port);
        // The commands and the end of stream arrive together, as from `printf ... | nc -N`.
        socket.Send("PING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n"u8.ToArray());
        socket.Shutdown(System.Net.Sockets.SocketShutdown.Send);
        socket.ReceiveTimeout = 10_000;
        var received = new MemoryStream();
        var buffer = new byte[256];
        int n;
        while ((n = socket.Receive(buffer)) > 0) received.Write(buffer, 0, n);
        Assert.Equal("+PONG\r\n$2\r\nhi\r\n", Encoding.ASCII.GetString(received.ToArray()));
    }
}

/// <summary>The wire tests over the epoll event loops (Linux), the transport the server uses there.</summary>
public sealed class EventLoopWireTests : WireTests
{
    protected override TestServer Server => TestServer.Shared;
}

/// <summary>The wire tests over .NET's socket engine, the transport used where epoll is not available.</summary>
public sealed class SocketEngineWireTests : WireTests, IAsyncLifetime
{
    private TestServer? _server;

    protected override TestServer Server => _server!;

    public Task InitializeAsync()
    {
        _server = TestServer.StartWithSocketEngine();
        return Task.CompletedTask;
    }

    public async Task DisposeAsync() => await _server!.DisposeAsync();
}
