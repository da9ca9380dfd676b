using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// What client libraries send when they connect, replayed as raw bytes in one write (they pipeline
/// their handshake), with every reply asserted in order.
/// </summary>
public class ClientHandshakeTests
{
    private static TestServer Server => TestServer.Shared;

    private static byte[] Batch(params string[][] commands) => commands.SelectMany(c => RespClient.Encode(c)).ToArray();

    [Fact]
    public void StackExchangeRedis_ConnectSequence_AllAnswered()
    {
        using var c = Server.Connect();
        c.SendRaw(Batch(
            ["CLIENT", "SETNAME", "MyApp(SE.Redis-v2.8.16.12844)"],
            ["CLIENT", "SETINFO", "lib-name", "SE.Redis"],
            ["CLIENT", "SETINFO", "lib-ver", "2.8.16.12844"],
            ["CLIENT", "ID"],
            ["CONFIG", "GET", "databases"],
            ["CONFIG", "GET", "slave-read-only"],
            ["INFO", "replication"],
            ["INFO", "server"],
            ["CLUSTER", "NODES"],
            ["ECHO", "RxmZ3eNkSiu5Gx7bDHuWuQ=="],
            ["SENTINEL", "MASTERS"],
            ["GET", "__Booksleeve_TieBreak"],
            ["PING"]));
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Matches(@"^:\d+\r\n$", c.ReadReply());
        Assert.Equal("*2\r\n$9\r\ndatabases\r\n$2\r\n16\r\n", c.ReadReply());
        Assert.Equal("*2\r\n$15\r\nslave-read-only\r\n$3\r\nyes\r\n", c.ReadReply());
        string replication = c.ReadReply();
        Assert.Matches(@"^\$\d+\r\n# Replication\r\nrole:master\r\nconnected_slaves:0\r\n", replication);
        string server = c.ReadReply();
        Assert.Matches(@"^\$\d+\r\n# Server\r\nredis_version:8\.2\.0\r\n", server);
        Assert.Contains("\r\nredis_mode:standalone\r\n", server);
        Assert.Equal("-ERR This instance has cluster support disabled\r\n", c.ReadReply());
        Assert.Equal("$24\r\nRxmZ3eNkSiu5Gx7bDHuWuQ==\r\n", c.ReadReply());
        Assert.Equal("-ERR unknown command 'SENTINEL', with args beginning with: 'MASTERS' \r\n", c.ReadReply());
        Assert.Equal("$-1\r\n", c.ReadReply());
        Assert.Equal("+PONG\r\n", c.ReadReply());

        string info = c.Call("CLIENT", "INFO");
        Assert.Contains(" name=MyApp(SE.Redis-v2.8.16.12844) ", info);
        Assert.Contains(" lib-name=SE.Redis lib-ver=2.8.16.12844\n", info);
    }

    [Fact]
    public void RedisPy_Resp3Handshake_AllAnswered()
    {
        using var c = Server.Connect();
        c.SendRaw(Batch(
            ["HELLO", "3"],
            ["CLIENT", "SETINFO", "LIB-NAME", "redis-py"],
            ["CLIENT", "SETINFO", "LIB-VER", "5.0.1"],
            ["SELECT", "2"],
            ["PING"]));
        Assert.StartsWith("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n", c.ReadReply());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal("+PONG\r\n", c.ReadReply());
    }

    [Fact]
    public void RedisBenchmark_ConfigProbe_Answered()
    {
        using var c = Server.Connect();
        c.SendRaw(Batch(["CONFIG", "GET", "save"], ["CONFIG", "GET", "appendonly"]));
        // Test servers run without save points (see TestServer.Start).
        Assert.Equal("*2\r\n$4\r\nsave\r\n$0\r\n\r\n", c.ReadReply());
        Assert.Equal("*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n", c.ReadReply());
    }

    [Fact]
    public void RedisCli_InfoServer_BulkString()
    {
        using var c = Server.Connect();
        string reply = c.Call("INFO", "SERVER");
        var m = Regex.Match(reply, @"^\$(\d+)\r\n");
        Assert.True(m.Success);
        Assert.Equal(reply.Length - m.Length - 2, int.Parse(m.Groups[1].Value));
    }
}
