using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>PING, ECHO, SELECT, QUIT, RESET, HELLO and AUTH over the wire, asserting exact bytes.</summary>
public class ConnectionCommandTests
{
    private static TestServer Server => TestServer.Shared;

    private const string HelloHead = "$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$5\r\n8.2.0\r\n$5\r\nproto\r\n";

    private static string HelloReply(int proto, string id)
        => (proto == 3 ? "%7\r\n" : "*14\r\n") + HelloHead + $":{proto}\r\n$2\r\nid\r\n{id}" +
           "$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n";

    [Fact]
    public void Ping_NoArgumentOrMessage_PongOrBulk()
    {
        using var c = Server.Connect();
        Assert.Equal("+PONG\r\n", c.Call("PING"));
        Assert.Equal("$5\r\nhello\r\n", c.Call("PING", "hello"));
        Assert.Equal("$0\r\n\r\n", c.Call("PING", ""));
        Assert.Equal("-ERR wrong number of arguments for 'ping' command\r\n", c.Call("PING", "a", "b"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void Ping_Resp3_SameReplies()
    {
        using var c = Server.Connect();
        c.Call("HELLO", "3");
        Assert.Equal("+PONG\r\n", c.Call("PING"));
        Assert.Equal("$1\r\nx\r\n", c.Call("PING", "x"));
    }

    [Fact]
    public void Echo_BinaryMessage_ReturnedAsIs()
    {
        using var c = Server.Connect();
        Assert.Equal("$5\r\na\0\u00ffb\n\r\n", c.Call(new[] { "ECHO"u8.ToArray(), new byte[] { (byte)'a', 0, 0xff, (byte)'b', (byte)'\n' } }));
        Assert.Equal("$0\r\n\r\n", c.Call("ECHO", ""));
        Assert.Equal("-ERR wrong number of arguments for 'echo' command\r\n", c.Call("ECHO"));
        Assert.Equal("-ERR wrong number of arguments for 'echo' command\r\n", c.Call("ECHO", "a", "b"));
    }

    [Fact]
    public void Select_ValidAndInvalidIndexes_SwitchesOrErrors()
    {
        using var c = Server.Connect();
        var key = TestServer.KeyPrefix("select") + "k";
        Assert.Equal("+OK\r\n", c.Call("SELECT", "3"));
        Assert.Equal("+OK\r\n", c.Call("SET", key, "in3"));
        Assert.Equal("+OK\r\n", c.Call("SELECT", "0"));
        Assert.Equal("$-1\r\n", c.Call("GET", key));
        Assert.Equal("+OK\r\n", c.Call("SELECT", "3"));
        Assert.Equal("$3\r\nin3\r\n", c.Call("GET", key));
        Assert.Equal("-ERR DB index is out of range\r\n", c.Call("SELECT", "16"));
        Assert.Equal("-ERR DB index is out of range\r\n", c.Call("SELECT", "-1"));
        Assert.Equal("-ERR value is not an integer or out of range\r\n", c.Call("SELECT", "x"));
        Assert.Equal("-ERR value is not an integer or out of range\r\n", c.Call("SELECT", "1.0"));
        Assert.Equal("-ERR value is not an integer or out of range\r\n", c.Call("SELECT", "99999999999"));
        Assert.Equal("$3\r\nin3\r\n", c.Call("GET", key)); // still in 3
        c.Call("DEL", key);
    }

    [Fact]
    public void Quit_RepliesOkThenCloses()
    {
        using var c = Server.Connect();
        Assert.Equal("+OK\r\n", c.Call("QUIT"));
        Assert.True(c.IsClosedByServer());
    }

    [Fact]
    public void Quit_InPipeline_LaterCommandsNotRun()
    {
        using var c = Server.Connect();
        var key = TestServer.KeyPrefix("quit") + "k";
        c.SendRaw(RespClient.Encode("PING").Concat(RespClient.Encode("QUIT")).Concat(RespClient.Encode("SET", key, "v")).ToArray());
        Assert.Equal("+PONG\r\n", c.ReadReply());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.True(c.IsClosedByServer());
        using var d = Server.Connect();
        Assert.Equal("$-1\r\n", d.Call("GET", key));
    }

    [Fact]
    public void Reset_AfterStateChanges_BackToFreshConnection()
    {
        using var c = Server.Connect();
        c.Call("HELLO", "3");
        Assert.Equal("+OK\r\n", c.Call("SELECT", "5"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "SETNAME", "before-reset"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "NO-EVICT", "on"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "SETINFO", "LIB-NAME", "lib"));
        c.Send("CLIENT", "REPLY", "OFF");
        Assert.Equal("+RESET\r\n", c.Call("RESET"));
        Assert.Equal("$-1\r\n", c.Call("CLIENT", "GETNAME"));
        string info = c.Call("CLIENT", "INFO");
        Assert.StartsWith("$", info); // RESP2 again: a bulk string, not verbatim
        Assert.Contains(" db=0 ", info);
        Assert.Contains(" flags=N ", info);
        Assert.Contains(" resp=2 ", info);
        Assert.Contains(" lib-name=lib ", info); // library info survives RESET, as in Redis
        Assert.Equal("-ERR wrong number of arguments for 'reset' command\r\n", c.Call("RESET", "x"));
    }

    [Fact]
    public void Hello3_MapReply_SwitchesProtocol()
    {
        using var c = Server.Connect();
        string id = c.Call("CLIENT", "ID");
        Assert.Equal(HelloReply(3, id), c.Call("HELLO", "3"));
        Assert.Equal("_\r\n", c.Call("GET", TestServer.KeyPrefix("hello") + "missing"));
        // No version: same protocol, map in it.
        Assert.Equal(HelloReply(3, id), c.Call("HELLO"));
        Assert.Equal(HelloReply(2, id), c.Call("HELLO", "2"));
        Assert.Equal("$-1\r\n", c.Call("GET", TestServer.KeyPrefix("hello") + "missing"));
        Assert.Equal(HelloReply(2, id), c.Call("HELLO"));
    }

    [Fact]
    public void Hello_AuthAndSetName_AppliedInOrder()
    {
        using var c = Server.Connect();
        string id = c.Call("CLIENT", "ID");
        Assert.Equal(HelloReply(3, id), c.Call("HELLO", "3", "AUTH", "default", "anything", "SETNAME", "hello-name"));
        Assert.Equal("$10\r\nhello-name\r\n", c.Call("CLIENT", "GETNAME"));
        Assert.Equal(HelloReply(2, id), c.Call("HELLO", "2", "setname", "a", "SETNAME", "b"));
        Assert.Equal("$1\r\nb\r\n", c.Call("CLIENT", "GETNAME"));
        Assert.Equal(HelloReply(2, id), c.Call("HELLO", "2", "SETNAME", ""));
        Assert.Equal("$-1\r\n", c.Call("CLIENT", "GETNAME"));
    }

    [Fact]
    public void Hello_Errors_MatchRedis()
    {
        using var c = Server.Connect();
        Assert.Equal("-NOPROTO unsupported protocol version\r\n", c.Call("HELLO", "4"));
        Assert.Equal("-NOPROTO unsupported protocol version\r\n", c.Call("HELLO", "1"));
        Assert.Equal("-NOPROTO unsupported protocol version\r\n", c.Call("HELLO", "-1"));
        Assert.Equal("-ERR Protocol version is not an integer or out of range\r\n", c.Call("HELLO", "abc"));
        Assert.Equal("-ERR Protocol version is not an integer or out of range\r\n", c.Call("HELLO", "3.0"));
        Assert.Equal("-ERR Syntax error in HELLO option 'AUTH'\r\n", c.Call("HELLO", "3", "AUTH", "default"));
        Assert.Equal("-ERR Syntax error in HELLO option 'SETNAME'\r\n", c.Call("HELLO", "3", "SETNAME"));
        Assert.Equal("-ERR Syntax error in HELLO option 'foo'\r\n", c.Call("HELLO", "3", "foo"));
        Assert.Equal("-WRONGPASS invalid username-password pair or user is disabled.\r\n", c.Call("HELLO", "3", "AUTH", "nobody", "x"));
        Assert.Equal("-ERR Client names cannot contain spaces, newlines or special characters.\r\n",
            c.Call("HELLO", "3", "SETNAME", "a b"));
        // None of the failed HELLOs switched the protocol.
        Assert.Equal("$-1\r\n", c.Call("GET", TestServer.KeyPrefix("hello") + "missing"));
    }

    [Fact]
    public void Auth_NoPasswordConfigured_RedisErrors()
    {
        using var c = Server.Connect();
        Assert.Equal("-ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?\r\n",
            c.Call("AUTH", "secret"));
        Assert.Equal("+OK\r\n", c.Call("AUTH", "default", "whatever"));
        Assert.Equal("-WRONGPASS invalid username-password pair or user is disabled.\r\n", c.Call("AUTH", "someone", "x"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("AUTH", "a", "b", "c"));
        Assert.Equal("-ERR wrong number of arguments for 'auth' command\r\n", c.Call("AUTH"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }
}
