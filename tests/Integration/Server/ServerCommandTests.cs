using System.Diagnostics;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>TIME, LASTSAVE, DEBUG, SHUTDOWN and CLUSTER over the wire.</summary>
public class ServerCommandTests
{
    private const string DebugNotAllowed =
        "-ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.\r\n";

    [Fact]
    public void Time_TwoBulkNumbers_CloseToNow()
    {
        using var c = TestServer.Shared.Connect();
        var m = Regex.Match(c.Call("TIME"), @"^\*2\r\n\$\d+\r\n(\d+)\r\n\$\d+\r\n(\d+)\r\n$");
        Assert.True(m.Success);
        long seconds = long.Parse(m.Groups[1].Value);
        Assert.InRange(long.Parse(m.Groups[2].Value), 0, 999_999);
        Assert.InRange(seconds, DateTimeOffset.UtcNow.ToUnixTimeSeconds() - 5, DateTimeOffset.UtcNow.ToUnixTimeSeconds() + 5);
        Assert.Equal("-ERR wrong number of arguments for 'time' command\r\n", c.Call("TIME", "x"));
    }

    /// <summary>ROLE: a master with no replicas, as a fresh redis-server reports itself.</summary>
    [RedisFact]
    public void Role_MatchesRedis()
    {
        Differential.AssertSame("ROLE", "ROLE x");
        Differential.AssertSameResp3(["ROLE"]);
    }

    [Fact]
    public void LastSave_StartTime()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal($":{TestServer.Shared.Server.Rdb.LastSaveUnix}\r\n", c.Call("LASTSAVE"));
    }

    [Fact]
    public void Debug_DisabledByDefault_RedisError()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal(DebugNotAllowed, c.Call("DEBUG", "SLEEP", "0"));
        Assert.Equal(DebugNotAllowed, c.Call("DEBUG", "JMAP"));
        Assert.Equal("-ERR wrong number of arguments for 'debug' command\r\n", c.Call("DEBUG"));
    }

    [Fact]
    public async Task Debug_Local_AllowedFromLoopback()
    {
        await using var server = TestServer.Start(1, "--enable-debug-command", "local");
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SLEEP", "0"));
    }

    [Fact]
    public async Task DebugSleep_BlocksOtherClientsKeys()
    {
        await using var server = TestServer.Start(4, "--enable-debug-command", "yes");
        using var a = server.Connect();
        using var b = server.Connect();
        b.Call("SET", "k", "v");
        var sw = Stopwatch.StartNew();
        a.Send("DEBUG", "SLEEP", "1");
        // Until the sleep holds the keyspace: every shard's gate taken (nothing else takes them in
        // this server). A fixed 50 ms let the GET run first on a loaded machine.
        var shards = server.Server.Shards;
        await Eventually.WaitFor(() => Enumerable.Range(0, shards.Count).All(s => IsHeld(shards[s].Gate)), () => "DEBUG SLEEP never held the gates");
        Assert.Equal("$1\r\nv\r\n", b.Call("GET", "k"));
        long blocked = sw.ElapsedMilliseconds;
        Assert.Equal("+OK\r\n", a.ReadReply());
        Assert.True(blocked >= 1000, $"GET answered after {blocked} ms, during the sleep");
    }

    /// <summary>True when another thread holds <paramref name="gate"/> (taken and given back at once otherwise).</summary>
    private static bool IsHeld(Lock gate)
    {
        if (!gate.TryEnter()) return true;
        gate.Exit();
        return false;
    }

    [Fact]
    public async Task Debug_SubcommandsAndErrors()
    {
        await using var server = TestServer.Start(2, "--enable-debug-command", "yes");
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SLEEP", "x"));
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "sleep", "-1"));
        Assert.Equal("-ERR unknown subcommand or wrong number of arguments for 'JMAP'. Try DEBUG HELP.\r\n", c.Call("DEBUG", "JMAP"));
        Assert.Equal("-ERR unknown subcommand or wrong number of arguments for 'SLEEP'. Try DEBUG HELP.\r\n", c.Call("DEBUG", "SLEEP"));
        Assert.Equal("-ERR unknown subcommand or wrong number of arguments for 'OBJECT'. Try DEBUG HELP.\r\n", c.Call("DEBUG", "OBJECT"));
        Assert.Equal("-ERR no such key\r\n", c.Call("DEBUG", "OBJECT", "missing"));
        Assert.Matches(@"^\*\d+\r\n\+DEBUG <subcommand> \[<arg> \[value\] \[opt\] \.\.\.\]\. Subcommands are:\r\n", c.Call("DEBUG", "HELP"));

        c.Call("SET", "s", "bar");
        c.Call("SET", "n", "123");
        c.Call("SET", "big", new string('x', 100));
        Assert.Matches(@"^\+Value at:0x[0-9a-f]+ refcount:1 encoding:embstr serializedlength:4 lru:\d+ lru_seconds_idle:\d+\r\n$", c.Call("DEBUG", "OBJECT", "s"));
        Assert.Matches(@"^\+Value at:0x[0-9a-f]+ refcount:2147483647 encoding:int serializedlength:2 lru:\d+ lru_seconds_idle:\d+\r\n$", c.Call("DEBUG", "OBJECT", "n"));
        Assert.Matches(@"^\+Value at:0x[0-9a-f]+ refcount:1 encoding:raw serializedlength:\d+ lru:\d+ lru_seconds_idle:\d+\r\n$", c.Call("DEBUG", "OBJECT", "big"));

        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
        Assert.False(server.Server.Shards[0].ActiveExpiry);
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "1"));
        Assert.True(server.Server.Shards[1].ActiveExpiry);
    }

    [Fact]
    public async Task Shutdown_StopsServerWithoutReply()
    {
        var server = TestServer.Start(2);
        try
        {
            using var a = server.Connect();
            using var b = server.Connect();
            a.Send("SHUTDOWN", "NOSAVE");
            Assert.True(a.IsClosedByServer());
            Assert.True(b.IsClosedByServer());
            await server.Server.Stopped.WaitAsync(TimeSpan.FromSeconds(5));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public void Shutdown_BadArguments_ErrorsAndServerRuns()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("-ERR syntax error\r\n", c.Call("SHUTDOWN", "FOO"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SHUTDOWN", "NOSAVE", "SAVE"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SHUTDOWN", "ABORT", "NOW"));
        Assert.Equal("-ERR No shutdown in progress.\r\n", c.Call("SHUTDOWN", "ABORT"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void Cluster_EverySubcommand_SupportDisabled()
    {
        using var c = TestServer.Shared.Connect();
        foreach (var args in new[] { new[] { "INFO" }, ["NODES"], ["HELP"], ["SLOTS"], ["SHARDS"], ["MYID"], ["KEYSLOT", "a"], ["RESET"] })
            Assert.Equal("-ERR This instance has cluster support disabled\r\n", c.Call(new[] { "CLUSTER" }.Concat(args).ToArray()));
        Assert.Equal("-ERR unknown subcommand 'FOO'. Try CLUSTER HELP.\r\n", c.Call("CLUSTER", "FOO"));
        Assert.Equal("-ERR wrong number of arguments for 'cluster|keyslot' command\r\n", c.Call("CLUSTER", "KEYSLOT"));
        Assert.Equal("-ERR wrong number of arguments for 'cluster' command\r\n", c.Call("CLUSTER"));
    }
}
