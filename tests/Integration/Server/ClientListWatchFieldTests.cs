using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// CLIENT LIST / CLIENT INFO's watch=N field (Redis 7.4, after multi=): the keys the client WATCHes,
/// each counted once, back to 0 after EXEC, DISCARD or UNWATCH.
/// </summary>
public class ClientListWatchFieldTests
{
    private static string Watch(string line) => Regex.Match(line, @" multi=-?\d+ watch=(\d+) qbuf=").Groups[1].Value;

    [Fact]
    public void ClientInfo_WatchField_CountsWatchedKeys()
    {
        using var c = TestServer.Shared.Connect();
        using var other = TestServer.Shared.Connect();
        var p = TestServer.KeyPrefix("watchfield");
        Assert.Equal("0", Watch(c.Call("CLIENT", "INFO")));
        c.Call("WATCH", p + "a", p + "b");
        c.Call("WATCH", p + "a"); // already watched: not twice
        Assert.Equal("2", Watch(c.Call("CLIENT", "INFO")));
        c.Call("SELECT", "3");
        c.Call("WATCH", p + "a"); // the same name in another database is another key
        Assert.Equal("3", Watch(c.Call("CLIENT", "INFO")));
        string id = c.Call("CLIENT", "ID").Trim(':', '\r', '\n');
        Assert.Equal("3", Watch(other.Call("CLIENT", "LIST", "ID", id)));
        c.Call("MULTI");
        c.Call("EXEC");
        Assert.Equal("0", Watch(c.Call("CLIENT", "INFO")));
        c.Call("WATCH", p + "c");
        c.Call("UNWATCH");
        Assert.Equal("0", Watch(c.Call("CLIENT", "INFO")));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }
}
