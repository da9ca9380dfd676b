using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// The parameters Redis 7.4 added to config.c: hide-user-data-from-log (bool, no),
/// max-new-connections-per-cycle (1..1000, 10) and max-new-tls-connections-per-cycle (1..1000, 1),
/// read, set and refused as Redis does (redis-server 7.0 does not know them).
/// </summary>
public class ConfigRedis74Tests
{
    [Fact]
    public async Task Config_Redis74Parameters_DefaultsSetAndBounds()
    {
        await using var server = TestServer.Start(shards: 1);
        using var c = server.Connect();
        Assert.Equal("*2\r\n$23\r\nhide-user-data-from-log\r\n$2\r\nno\r\n", c.Call("CONFIG", "GET", "hide-user-data-from-log"));
        Assert.Equal("*2\r\n$29\r\nmax-new-connections-per-cycle\r\n$2\r\n10\r\n", c.Call("CONFIG", "GET", "max-new-connections-per-cycle"));
        Assert.Equal("*2\r\n$33\r\nmax-new-tls-connections-per-cycle\r\n$1\r\n1\r\n", c.Call("CONFIG", "GET", "max-new-tls-connections-per-cycle"));

        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "hide-user-data-from-log", "yes", "max-new-connections-per-cycle", "1000"));
        Assert.Equal("*2\r\n$23\r\nhide-user-data-from-log\r\n$3\r\nyes\r\n", c.Call("CONFIG", "GET", "hide-user-data-from-log"));
        Assert.Equal("*2\r\n$29\r\nmax-new-connections-per-cycle\r\n$4\r\n1000\r\n", c.Call("CONFIG", "GET", "max-new-connections-per-cycle"));
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'max-new-connections-per-cycle') - argument must be between 1 and 1000 inclusive\r\n",
            c.Call("CONFIG", "SET", "max-new-connections-per-cycle", "0"));
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'max-new-tls-connections-per-cycle') - argument must be between 1 and 1000 inclusive\r\n",
            c.Call("CONFIG", "SET", "max-new-tls-connections-per-cycle", "1001"));
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'hide-user-data-from-log') - argument must be 'yes' or 'no'\r\n",
            c.Call("CONFIG", "SET", "hide-user-data-from-log", "maybe"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public async Task Config_Redis74Parameters_FromCommandLine()
    {
        await using var server = TestServer.Start(1, "--max-new-tls-connections-per-cycle", "5", "--hide-user-data-from-log", "yes");
        using var c = server.Connect();
        Assert.Equal("*2\r\n$33\r\nmax-new-tls-connections-per-cycle\r\n$1\r\n5\r\n", c.Call("CONFIG", "GET", "max-new-tls-connections-per-cycle"));
        Assert.Equal("*2\r\n$23\r\nhide-user-data-from-log\r\n$3\r\nyes\r\n", c.Call("CONFIG", "GET", "hide-user-data-from-log"));
    }
}
