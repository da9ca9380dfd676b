using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// CLIENT KILL ... MAXAGE (Redis 7.4): only connections open for at least maxage seconds are
/// closed; it combines with the other filters (all must hold) and exists only in the filter form.
/// There is no reference server for it here (Debian's redis-server is 7.0), so the facts come from
/// Redis's networking.c and its introspection tests. Waits are bounded polls on CLIENT LIST's age.
/// </summary>
public class ClientKillMaxAgeTests
{
    private static TestServer Server => TestServer.Shared;

    private static long Id(RespClient c) => long.Parse(c.Call("CLIENT", "ID").TrimStart(':').TrimEnd());

    /// <summary>The age= field of the client <paramref name="id"/> in CLIENT LIST, or -1 when it is gone.</summary>
    private static long AgeOf(RespClient asker, long id)
    {
        foreach (var line in asker.Call("CLIENT", "LIST", "ID", id.ToString()).Split('\n'))
        {
            int at = line.IndexOf(" age=", StringComparison.Ordinal);
            if (at < 0) continue;
            var rest = line.AsSpan(at + 5);
            return long.Parse(rest[..rest.IndexOf(' ')]);
        }
        return -1;
    }

    [Fact]
    public void ClientKill_MaxAgeWithYoungerClient_KillsNothing()
    {
        using var killer = Server.Connect();
        using var target = Server.Connect();
        long id = Id(target);
        // No connection of this server is a day old: nothing matches, the filter form replies 0.
        Assert.Equal(":0\r\n", killer.Call("CLIENT", "KILL", "ID", id.ToString(), "MAXAGE", "86400"));
        Assert.Equal(":0\r\n", killer.Call("CLIENT", "KILL", "ID", id.ToString(), "MAXAGE", "9223372036854775807"));
        Assert.Equal("+PONG\r\n", target.Call("PING"));
    }

    [Fact]
    public void ClientKill_MaxAgeOlderClient_KilledAndCounted()
    {
        using var killer = Server.Connect();
        using var target = Server.Connect();
        long id = Id(target);
        Eventually.Wait(() => AgeOf(killer, id) >= 1, () => $"client {id} still younger than 1 s (age {AgeOf(killer, id)})");
        // Every filter must hold: the right ID but a maxage it has not reached spares it...
        Assert.Equal(":0\r\n", killer.Call("CLIENT", "KILL", "ID", id.ToString(), "MAXAGE", "86400"));
        // ...another type spares it too...
        Assert.Equal(":0\r\n", killer.Call("CLIENT", "KILL", "ID", id.ToString(), "TYPE", "pubsub", "MAXAGE", "1"));
        // ...and with every filter met it goes, counted once.
        Assert.Equal(":1\r\n", killer.Call("CLIENT", "KILL", "ID", id.ToString(), "TYPE", "normal", "USER", "default", "MAXAGE", "1"));
        Assert.True(target.IsClosedByServer());
        Assert.Equal("+PONG\r\n", killer.Call("PING"));
    }

    [Fact]
    public void ClientKill_MaxAgeSelf_SkipMeDecides()
    {
        using var c = Server.Connect();
        long id = Id(c);
        Eventually.Wait(() => AgeOf(c, id) >= 1, () => $"client {id} still younger than 1 s");
        // SKIPME yes (the default) spares the caller even when it is old enough.
        Assert.Equal(":0\r\n", c.Call("CLIENT", "KILL", "ID", id.ToString(), "MAXAGE", "1"));
        // SKIPME no: the caller gets its count, then the connection closes.
        Assert.Equal(":1\r\n", c.Call("CLIENT", "KILL", "ID", id.ToString(), "MAXAGE", "1", "SKIPME", "no"));
        Assert.True(c.IsClosedByServer());
    }

    [Fact]
    public void ClientKill_MaxAgeErrors_MatchRedis()
    {
        using var c = Server.Connect();
        Assert.Equal("-ERR maxage is not an integer or out of range\r\n", c.Call("CLIENT", "KILL", "MAXAGE", "str"));
        Assert.Equal("-ERR maxage is not an integer or out of range\r\n", c.Call("CLIENT", "KILL", "MAXAGE", "9999999999999999999"));
        Assert.Equal("-ERR maxage is not an integer or out of range\r\n", c.Call("CLIENT", "KILL", "MAXAGE", "1.5"));
        Assert.Equal("-ERR maxage should be greater than 0\r\n", c.Call("CLIENT", "KILL", "MAXAGE", "-1"));
        Assert.Equal("-ERR maxage should be greater than 0\r\n", c.Call("CLIENT", "KILL", "MAXAGE", "0"));
        // The filters are checked as they come: the first bad one answers.
        Assert.Equal("-ERR maxage should be greater than 0\r\n", c.Call("CLIENT", "KILL", "MAXAGE", "0", "TYPE", "foo"));
        Assert.Equal("-ERR Unknown client type 'foo'\r\n", c.Call("CLIENT", "KILL", "TYPE", "foo", "MAXAGE", "0"));
        // MAXAGE without its value is a syntax error; it is a filter, so the old form reads it as an address.
        Assert.Equal("-ERR syntax error\r\n", c.Call("CLIENT", "KILL", "ID", "1", "MAXAGE"));
        Assert.Equal("-ERR No such client\r\n", c.Call("CLIENT", "KILL", "MAXAGE"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void CommandDocs_ClientKill_ListsMaxAgeSince74()
    {
        using var c = Server.Connect();
        string docs = c.Call("COMMAND", "DOCS", "client|kill");
        Assert.Contains("$4\r\nname\r\n$6\r\nmaxage\r\n$4\r\ntype\r\n$7\r\ninteger\r\n$5\r\ntoken\r\n$6\r\nMAXAGE\r\n"
            + "$5\r\nsince\r\n$5\r\n7.4.0\r\n$5\r\nflags\r\n*1\r\n+optional\r\n", docs);
        Assert.Contains("*2\r\n$5\r\n7.4.0\r\n$13\r\nMAXAGE filter\r\n", docs);
    }

    [Fact]
    public void ClientHelp_Kill_DescribesMaxAge()
    {
        using var c = Server.Connect();
        string help = c.Call("CLIENT", "HELP");
        Assert.Contains("+    * MAXAGE <maxage>\r\n", help);
        Assert.Contains("+    * ID <client-id>\r\n", help);
    }
}
