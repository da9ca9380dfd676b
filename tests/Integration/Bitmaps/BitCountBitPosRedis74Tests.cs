using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Bitmaps;

/// <summary>
/// BITCOUNT and BITPOS check their arguments before the key, as Redis 7.4 does (#11734, #12394):
/// a missing key or another type with bad arguments is the argument's error, and BITCOUNT reads the
/// unit before it answers an empty negative range. redis-server 7.0 answers 0 / -1 / WRONGTYPE for
/// these; every other case stays differential-tested in BitmapDifferentialTests.
/// </summary>
public class BitCountBitPosRedis74Tests
{
    private const string NotInteger = "-ERR value is not an integer or out of range\r\n";
    private const string Syntax = "-ERR syntax error\r\n";
    private const string WrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

    [Fact]
    public void BitCount_BadArgumentsOnMissingOrOtherKey_ErrorBeforeLookup()
    {
        using var c = TestServer.Shared.Connect();
        var p = TestServer.KeyPrefix("bitcount74");
        string missing = p + "missing", s = p + "s", l = p + "l";
        c.Call("SET", s, "foobar");
        c.Call("LPUSH", l, "a");
        Assert.Equal(Syntax, c.Call("BITCOUNT", missing, "0"));
        Assert.Equal(Syntax, c.Call("BITCOUNT", missing, "0", "1", "2", "3"));
        Assert.Equal(NotInteger, c.Call("BITCOUNT", missing, "a", "b"));
        Assert.Equal(Syntax, c.Call("BITCOUNT", missing, "0", "1", "WORD"));
        Assert.Equal(Syntax, c.Call("BITCOUNT", l, "0"));
        Assert.Equal(NotInteger, c.Call("BITCOUNT", l, "a", "1"));
        Assert.Equal(WrongType, c.Call("BITCOUNT", l, "0", "1", "BIT"));
        // The unit is read before an empty negative range answers 0.
        Assert.Equal(Syntax, c.Call("BITCOUNT", s, "-1", "-2", "FOO"));
        Assert.Equal(":0\r\n", c.Call("BITCOUNT", s, "-1", "-2", "BIT"));
        // Good arguments on a missing key: still 0.
        Assert.Equal(":0\r\n", c.Call("BITCOUNT", missing, "0", "-1", "BIT"));
        Assert.Equal(":0\r\n", c.Call("BITCOUNT", missing));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void BitPos_BadArgumentsOnMissingOrOtherKey_ErrorBeforeLookup()
    {
        using var c = TestServer.Shared.Connect();
        var p = TestServer.KeyPrefix("bitpos74");
        string missing = p + "missing", l = p + "l";
        c.Call("LPUSH", l, "a");
        Assert.Equal(NotInteger, c.Call("BITPOS", missing, "1", "x"));
        Assert.Equal(NotInteger, c.Call("BITPOS", missing, "0", "0", "y"));
        Assert.Equal(Syntax, c.Call("BITPOS", missing, "1", "0", "1", "WORD"));
        Assert.Equal(Syntax, c.Call("BITPOS", missing, "1", "0", "1", "BIT", "x"));
        // The unit comes before the end: a bad unit and a bad end is the syntax error.
        Assert.Equal(Syntax, c.Call("BITPOS", missing, "1", "0", "z", "WORD"));
        Assert.Equal(NotInteger, c.Call("BITPOS", l, "1", "x"));
        Assert.Equal(Syntax, c.Call("BITPOS", l, "1", "0", "1", "BIT", "x"));
        Assert.Equal(WrongType, c.Call("BITPOS", l, "1", "0"));
        // Good arguments on a missing key: -1 for a one, 0 for a zero, as before.
        Assert.Equal(":-1\r\n", c.Call("BITPOS", missing, "1", "0", "-1", "BIT"));
        Assert.Equal(":0\r\n", c.Call("BITPOS", missing, "0", "5"));
        Assert.Equal("-ERR The bit argument must be 1 or 0.\r\n", c.Call("BITPOS", missing, "2"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }
}
