using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Wire;

/// <summary>Raw-socket behaviour: pipelining, fragmentation, protocol errors, isolation of clients.</summary>
public class WireTests
{
    private static TestServer Server => TestServer.Shared;

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
    public void ClientThatNeverReads_IsThrottled_OthersServed()
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
        sendTask.Wait(3000);

        using var other = Server.Connect();
        Assert.Equal("+PONG\r\n", other.Call("PING"));
        long managed = GC.GetTotalMemory(forceFullCollection: true);
        Assert.True(managed < 512L * 1024 * 1024, $"server heap grew to {managed} bytes");
    }
}
