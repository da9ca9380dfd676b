using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Strings;

/// <summary>The string family over a raw socket on the shared server, asserting exact reply bytes.</summary>
public class StringWireTests
{
    private const string WrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
    private const string NotInteger = "-ERR value is not an integer or out of range\r\n";

    private static TestServer Server => TestServer.Shared;

    private static long Now => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();

    // ------------------------------------------------------------ GET / SET

    [Fact]
    public void Get_MissingKey_ReturnsNil()
    {
        using var c = Server.Connect();
        Assert.Equal("$-1\r\n", c.Call("GET", TestServer.KeyPrefix("get") + "none"));
    }

    [Fact]
    public void Set_ThenGet_ReturnsValue()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("set") + "k";
        Assert.Equal("+OK\r\n", c.Call("SET", k, "hello"));
        Assert.Equal("$5\r\nhello\r\n", c.Call("GET", k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, ""));
        Assert.Equal("$0\r\n\r\n", c.Call("GET", k));
    }

    [Fact]
    public void Set_BinaryValue_RoundTripsEveryByte()
    {
        using var c = Server.Connect();
        var k = Encoding.UTF8.GetBytes(TestServer.KeyPrefix("bin") + "k");
        var value = Enumerable.Range(0, 256).Select(i => (byte)i).ToArray();
        Assert.Equal("+OK\r\n", c.Call("SET"u8.ToArray(), k, value));
        var reply = Encoding.Latin1.GetBytes(c.Call("GET"u8.ToArray(), k));
        Assert.Equal(Encoding.ASCII.GetBytes("$256\r\n").Concat(value).Concat("\r\n"u8.ToArray()), reply);
    }

    [Fact]
    public void Set_NxAndXx_SetOnlyWhenAllowed()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("nxxx") + "k";
        Assert.Equal("$-1\r\n", c.Call("SET", k, "a", "XX"));
        Assert.Equal("$-1\r\n", c.Call("GET", k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "a", "nx"));
        Assert.Equal("$-1\r\n", c.Call("SET", k, "b", "NX"));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "c", "XX"));
        Assert.Equal("$1\r\nc\r\n", c.Call("GET", k));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SET", k, "d", "NX", "XX"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SET", k, "d", "XX", "NX"));
    }

    [Fact]
    public void Set_WithGet_ReturnsOldValueEvenWhenNxStopsIt()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("setget") + "k";
        Assert.Equal("$-1\r\n", c.Call("SET", k, "one", "GET"));
        Assert.Equal("$3\r\none\r\n", c.Call("SET", k, "two", "GET"));
        Assert.Equal("$3\r\ntwo\r\n", c.Call("SET", k, "three", "NX", "GET"));
        Assert.Equal("$3\r\ntwo\r\n", c.Call("GET", k));
        Assert.Equal("$-1\r\n", c.Call("SET", k + "x", "v", "XX", "GET"));
        Assert.Equal("$-1\r\n", c.Call("GET", k + "x"));
    }

    [Fact]
    public void Set_ExpireOptions_SetExpireTimeAndKeepTtlKeepsIt()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("setex") + "k";
        long before = Now;
        Assert.Equal("+OK\r\n", c.Call("SET", k, "v", "EX", "100"));
        long at = KeyspacePeek.ExpireAt(Server, k);
        Assert.InRange(at, before + 100_000, Now + 100_000);
        Assert.Equal("+OK\r\n", c.Call("SET", k, "w", "KEEPTTL"));
        Assert.Equal(at, KeyspacePeek.ExpireAt(Server, k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "x"));
        Assert.Equal(0, KeyspacePeek.ExpireAt(Server, k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "v", "PX", "5000"));
        Assert.InRange(KeyspacePeek.ExpireAt(Server, k), before + 5000, Now + 5000);
        Assert.Equal("+OK\r\n", c.Call("SET", k, "v", "EXAT", "4000000000"));
        Assert.Equal(4_000_000_000_000, KeyspacePeek.ExpireAt(Server, k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "v", "PXAT", "4000000000123"));
        Assert.Equal(4_000_000_000_123, KeyspacePeek.ExpireAt(Server, k));
        // Repeating the same expire option is allowed; the last value wins.
        Assert.Equal("+OK\r\n", c.Call("SET", k, "v", "EXAT", "4000000000", "EXAT", "4000000001"));
        Assert.Equal(4_000_000_001_000, KeyspacePeek.ExpireAt(Server, k));
    }

    [Fact]
    public void Set_AbsoluteExpireInPast_LeavesNoKey()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("setpast") + "k";
        Assert.Equal("+OK\r\n", c.Call("SET", k, "v"));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "w", "EXAT", "1"));
        Assert.Null(KeyspacePeek.Value(Server, k));
        Assert.Equal("$-1\r\n", c.Call("GET", k));
        Assert.Equal("$-1\r\n", c.Call("SET", k, "x", "PXAT", "1000", "GET"));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "y"));
        Assert.Equal("$1\r\ny\r\n", c.Call("SET", k, "z", "PXAT", "1000", "GET"));
        Assert.Null(KeyspacePeek.Value(Server, k));
    }

    [Fact]
    public void Set_InvalidExpire_ReturnsRedisErrors()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("setbad") + "k";
        const string Invalid = "-ERR invalid expire time in 'set' command\r\n";
        Assert.Equal(Invalid, c.Call("SET", k, "v", "EX", "0"));
        Assert.Equal(Invalid, c.Call("SET", k, "v", "PX", "-1"));
        Assert.Equal(Invalid, c.Call("SET", k, "v", "EX", "9223372036854775"));
        Assert.Equal(Invalid, c.Call("SET", k, "v", "EXAT", "9223372036854776"));
        Assert.Equal(Invalid, c.Call("SET", k, "v", "PX", "9223372036854775807"));
        Assert.Equal(NotInteger, c.Call("SET", k, "v", "EX", "1.5"));
        Assert.Equal(NotInteger, c.Call("SET", k, "v", "PX", "99999999999999999999"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SET", k, "v", "EX"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SET", k, "v", "EX", "10", "PX", "10"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SET", k, "v", "KEEPTTL", "EX", "10"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SET", k, "v", "EX", "10", "KEEPTTL"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SET", k, "v", "PERSIST"));
        // Syntax is checked over all options before any expire value is parsed.
        Assert.Equal("-ERR syntax error\r\n", c.Call("SET", k, "v", "EX", "abc", "FOO"));
        Assert.Equal("$-1\r\n", c.Call("GET", k));
    }

    [Fact]
    public void Set_OverOtherType_OverwritesButGetOptionRefuses()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("setother") + "k";
        KeyspacePeek.PlantForeign(Server, k);
        Assert.Equal(WrongType, c.Call("GET", k));
        Assert.Equal(WrongType, c.Call("SET", k, "v", "GET"));
        Assert.IsType<KeyspacePeek.ForeignValue>(KeyspacePeek.Value(Server, k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "v"));
        Assert.Equal("$1\r\nv\r\n", c.Call("GET", k));
    }

    [Fact]
    public void Set_SameLengthOverwrite_ReusesTheStoredArray()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("reuse") + "k";
        c.Call("SET", k, "aaaa");
        var first = KeyspacePeek.Value(Server, k);
        Assert.Equal("+OK\r\n", c.Call("SET", k, "bbbb"));
        Assert.Same(first, KeyspacePeek.Value(Server, k));
        Assert.Equal("$4\r\nbbbb\r\n", c.Call("GET", k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "ccccc"));
        Assert.NotSame(first, KeyspacePeek.Value(Server, k));
    }

    [Fact]
    public void SetNx_ReturnsOneThenZero()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("setnx") + "k";
        Assert.Equal(":1\r\n", c.Call("SETNX", k, "a"));
        Assert.Equal(":0\r\n", c.Call("SETNX", k, "b"));
        Assert.Equal("$1\r\na\r\n", c.Call("GET", k));
    }

    [Fact]
    public void SetExAndPSetEx_SetTtl_AndNameThemselvesInErrors()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("setex2") + "k";
        long before = Now;
        Assert.Equal("+OK\r\n", c.Call("SETEX", k, "10", "v"));
        Assert.InRange(KeyspacePeek.ExpireAt(Server, k), before + 10_000, Now + 10_000);
        Assert.Equal("+OK\r\n", c.Call("PSETEX", k, "1500", "w"));
        Assert.InRange(KeyspacePeek.ExpireAt(Server, k), before + 1500, Now + 1500);
        Assert.Equal("$1\r\nw\r\n", c.Call("GET", k));
        Assert.Equal("-ERR invalid expire time in 'setex' command\r\n", c.Call("SETEX", k, "0", "v"));
        Assert.Equal("-ERR invalid expire time in 'setex' command\r\n", c.Call("SETEX", k, "9223372036854775", "v"));
        Assert.Equal("-ERR invalid expire time in 'psetex' command\r\n", c.Call("PSETEX", k, "-5", "v"));
        Assert.Equal(NotInteger, c.Call("SETEX", k, "ten", "v"));
        Assert.Equal("-ERR wrong number of arguments for 'setex' command\r\n", c.Call("SETEX", k, "10"));
    }

    [Fact]
    public void GetSet_ReturnsOldValueAndClearsTtl()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("getset") + "k";
        Assert.Equal("$-1\r\n", c.Call("GETSET", k, "a"));
        c.Call("SET", k, "b", "EX", "100");
        Assert.Equal("$1\r\nb\r\n", c.Call("GETSET", k, "c"));
        Assert.Equal(0, KeyspacePeek.ExpireAt(Server, k));
        Assert.Equal("$1\r\nc\r\n", c.Call("GET", k));
        KeyspacePeek.PlantForeign(Server, k);
        Assert.Equal(WrongType, c.Call("GETSET", k, "d"));
    }

    [Fact]
    public void GetDel_ReturnsValueAndDeletes()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("getdel") + "k";
        Assert.Equal("$-1\r\n", c.Call("GETDEL", k));
        c.Call("SET", k, "v");
        Assert.Equal("$1\r\nv\r\n", c.Call("GETDEL", k));
        Assert.Equal("$-1\r\n", c.Call("GET", k));
        KeyspacePeek.PlantForeign(Server, k);
        Assert.Equal(WrongType, c.Call("GETDEL", k));
        Assert.NotNull(KeyspacePeek.Value(Server, k));
    }

    [Fact]
    public void GetEx_ChangesTtlAsAsked()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("getex") + "k";
        Assert.Equal("$-1\r\n", c.Call("GETEX", k, "EX", "0"));
        c.Call("SET", k, "v");
        long before = Now;
        Assert.Equal("$1\r\nv\r\n", c.Call("GETEX", k, "EX", "50"));
        Assert.InRange(KeyspacePeek.ExpireAt(Server, k), before + 50_000, Now + 50_000);
        Assert.Equal("$1\r\nv\r\n", c.Call("GETEX", k));
        Assert.NotEqual(0, KeyspacePeek.ExpireAt(Server, k));
        Assert.Equal("$1\r\nv\r\n", c.Call("GETEX", k, "PERSIST"));
        Assert.Equal(0, KeyspacePeek.ExpireAt(Server, k));
        Assert.Equal("$1\r\nv\r\n", c.Call("GETEX", k, "PXAT", "4000000000000"));
        Assert.Equal(4_000_000_000_000, KeyspacePeek.ExpireAt(Server, k));
        Assert.Equal("-ERR invalid expire time in 'getex' command\r\n", c.Call("GETEX", k, "EX", "0"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("GETEX", k, "PERSIST", "EX", "1"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("GETEX", k, "KEEPTTL"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("GETEX", k, "NX"));
        Assert.Equal("$1\r\nv\r\n", c.Call("GETEX", k, "EXAT", "1"));
        Assert.Equal("$-1\r\n", c.Call("GET", k));
        KeyspacePeek.PlantForeign(Server, k);
        Assert.Equal(WrongType, c.Call("GETEX", k, "EX", "0"));
    }

    // ------------------------------------------------------------ MGET / MSET

    [Fact]
    public void MGet_MixedKeys_ReturnsValuesAndNils()
    {
        using var c = Server.Connect();
        var keys = KeyspacePeek.KeysOnDistinctShards(Server, TestServer.KeyPrefix("mget"), 4);
        Assert.Equal("+OK\r\n", c.Call("MSET", keys[0], "a", keys[1], "bb"));
        KeyspacePeek.PlantForeign(Server, keys[2]);
        Assert.Equal("*4\r\n$1\r\na\r\n$-1\r\n$-1\r\n$2\r\nbb\r\n", c.Call("MGET", keys[0], keys[3], keys[2], keys[1]));
    }

    [Fact]
    public void MSet_OddArgumentCount_ReturnsArityError()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("msetarity");
        Assert.Equal("-ERR wrong number of arguments for 'mset' command\r\n", c.Call("MSET", p + "a", "1", p + "b"));
        Assert.Equal("-ERR wrong number of arguments for 'msetnx' command\r\n", c.Call("MSETNX", p + "a", "1", p + "b"));
        Assert.Equal("*2\r\n$-1\r\n$-1\r\n", c.Call("MGET", p + "a", p + "b"));
    }

    [Fact]
    public void MSet_ClearsTtlAndOverwritesOtherTypes()
    {
        using var c = Server.Connect();
        var keys = KeyspacePeek.KeysOnDistinctShards(Server, TestServer.KeyPrefix("msetttl"), 2);
        c.Call("SET", keys[0], "old", "EX", "100");
        KeyspacePeek.PlantForeign(Server, keys[1]);
        Assert.Equal("+OK\r\n", c.Call("MSET", keys[0], "x", keys[1], "y"));
        Assert.Equal(0, KeyspacePeek.ExpireAt(Server, keys[0]));
        Assert.Equal("*2\r\n$1\r\nx\r\n$1\r\ny\r\n", c.Call("MGET", keys[0], keys[1]));
    }

    [Fact]
    public void MSetNx_AnyKeyExists_SetsNothing()
    {
        using var c = Server.Connect();
        var keys = KeyspacePeek.KeysOnDistinctShards(Server, TestServer.KeyPrefix("msetnx"), 3);
        Assert.Equal(":1\r\n", c.Call("MSETNX", keys[0], "1", keys[1], "2"));
        Assert.Equal(":0\r\n", c.Call("MSETNX", keys[2], "3", keys[1], "4"));
        Assert.Equal("*3\r\n$1\r\n1\r\n$1\r\n2\r\n$-1\r\n", c.Call("MGET", keys[0], keys[1], keys[2]));
    }

    // ------------------------------------------------------------ counters

    [Fact]
    public void Incr_Family_CountsFromZero()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("incr") + "k";
        Assert.Equal(":1\r\n", c.Call("INCR", k));
        Assert.Equal(":11\r\n", c.Call("INCRBY", k, "10"));
        Assert.Equal(":10\r\n", c.Call("DECR", k));
        Assert.Equal(":-90\r\n", c.Call("DECRBY", k, "100"));
        Assert.Equal(":0\r\n", c.Call("INCRBY", k, "90"));
        Assert.Equal("$1\r\n0\r\n", c.Call("GET", k));
    }

    [Fact]
    public void Incr_KeepsTtlAndClearsRawFlag()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("incrttl") + "k";
        c.Call("SET", k, "5", "EX", "100");
        c.Call("APPEND", k, "0");
        Assert.True(KeyspacePeek.IsRaw(Server, k));
        long at = KeyspacePeek.ExpireAt(Server, k);
        Assert.Equal(":51\r\n", c.Call("INCR", k));
        Assert.Equal(at, KeyspacePeek.ExpireAt(Server, k));
        Assert.False(KeyspacePeek.IsRaw(Server, k));
    }

    [Fact]
    public void Incr_SameDigitCount_RewritesArrayInPlace()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("incrinplace") + "k";
        c.Call("SET", k, "10");
        var array = KeyspacePeek.Value(Server, k);
        Assert.Equal(":11\r\n", c.Call("INCR", k));
        Assert.Same(array, KeyspacePeek.Value(Server, k));
        Assert.Equal(":-9\r\n", c.Call("DECRBY", k, "20"));
        Assert.Same(array, KeyspacePeek.Value(Server, k));
        Assert.Equal(":-109\r\n", c.Call("DECRBY", k, "100"));
        Assert.NotSame(array, KeyspacePeek.Value(Server, k));
        Assert.Equal("$4\r\n-109\r\n", c.Call("GET", k));
    }

    [Fact]
    public void Incr_Overflow_ReturnsRedisErrors()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("incrovf") + "k";
        const string Overflow = "-ERR increment or decrement would overflow\r\n";
        c.Call("SET", k, "9223372036854775806");
        Assert.Equal(":9223372036854775807\r\n", c.Call("INCR", k));
        Assert.Equal(Overflow, c.Call("INCR", k));
        Assert.Equal(Overflow, c.Call("DECRBY", k, "-1"));
        c.Call("SET", k, "-9223372036854775807");
        Assert.Equal(":-9223372036854775808\r\n", c.Call("DECR", k));
        Assert.Equal(Overflow, c.Call("DECR", k));
        Assert.Equal(Overflow, c.Call("INCRBY", k, "-1"));
        Assert.Equal("-ERR decrement would overflow\r\n", c.Call("DECRBY", k, "-9223372036854775808"));
        Assert.Equal("$20\r\n-9223372036854775808\r\n", c.Call("GET", k));
    }

    [Fact]
    public void Incr_NotAnInteger_ReturnsRedisError()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("incrnan") + "k";
        foreach (var bad in new[] { "abc", "", " 1", "1 ", "+1", "01", "-0", "1.0", "9223372036854775808" })
        {
            c.Call("SET", k, bad);
            Assert.Equal(NotInteger, c.Call("INCR", k));
        }
        Assert.Equal(NotInteger, c.Call("INCRBY", k, "1.5"));
        Assert.Equal(NotInteger, c.Call("DECRBY", k, "x"));
        KeyspacePeek.PlantForeign(Server, k);
        Assert.Equal(WrongType, c.Call("INCR", k));
        Assert.Equal(WrongType, c.Call("DECRBY", k, "2"));
    }

    [Fact]
    public void IncrByFloat_UsesLongDoublePrecision()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("incrfloat") + "k";
        Assert.Equal("$4\r\n10.5\r\n", c.Call("INCRBYFLOAT", k, "10.5"));
        Assert.Equal("$4\r\n10.6\r\n", c.Call("INCRBYFLOAT", k, "0.1"));
        // x87 rounding shows, exactly as redis-server prints it.
        Assert.Equal("$23\r\n-4989.39999999999999991\r\n", c.Call("INCRBYFLOAT", k, "-5.0e3"));
        c.Call("SET", k, "1");
        Assert.Equal("$19\r\n1.33333333333333333\r\n", c.Call("INCRBYFLOAT", k, "0.3333333333333333333"));
        c.Call("SET", k, "5.0e3");
        Assert.Equal("$4\r\n5200\r\n", c.Call("INCRBYFLOAT", k, "2.0e2"));
        Assert.Equal("-ERR value is not a valid float\r\n", c.Call("INCRBYFLOAT", k, "abc"));
        Assert.Equal("-ERR increment would produce NaN or Infinity\r\n", c.Call("INCRBYFLOAT", k, "inf"));
        c.Call("SET", k, "x");
        Assert.Equal("-ERR value is not a valid float\r\n", c.Call("INCRBYFLOAT", k, "1"));
        KeyspacePeek.PlantForeign(Server, k);
        Assert.Equal(WrongType, c.Call("INCRBYFLOAT", k, "1"));
    }

    // ------------------------------------------------------------ APPEND, STRLEN, ranges

    [Fact]
    public void Append_GrowsStringAndMarksItRaw()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("append") + "k";
        Assert.Equal(":5\r\n", c.Call("APPEND", k, "hello"));
        Assert.False(KeyspacePeek.IsRaw(Server, k));
        Assert.Equal(":11\r\n", c.Call("APPEND", k, " world"));
        Assert.True(KeyspacePeek.IsRaw(Server, k));
        Assert.Equal("$11\r\nhello world\r\n", c.Call("GET", k));
        Assert.Equal(":11\r\n", c.Call("STRLEN", k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "x"));
        Assert.False(KeyspacePeek.IsRaw(Server, k));
        Assert.Equal(":1\r\n", c.Call("APPEND", k, ""));
        Assert.True(KeyspacePeek.IsRaw(Server, k));
        KeyspacePeek.PlantForeign(Server, k);
        Assert.Equal(WrongType, c.Call("APPEND", k, "x"));
        Assert.Equal(WrongType, c.Call("STRLEN", k));
    }

    [Fact]
    public void StrLen_MissingKey_ReturnsZero()
    {
        using var c = Server.Connect();
        Assert.Equal(":0\r\n", c.Call("STRLEN", TestServer.KeyPrefix("strlen") + "none"));
    }

    [Fact]
    public void GetRange_NegativeIndexes_FollowRedis()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("getrange") + "k";
        c.Call("SET", k, "Hello World");
        Assert.Equal("$5\r\nHello\r\n", c.Call("GETRANGE", k, "0", "4"));
        Assert.Equal("$5\r\nWorld\r\n", c.Call("GETRANGE", k, "-5", "-1"));
        Assert.Equal("$11\r\nHello World\r\n", c.Call("GETRANGE", k, "0", "-1"));
        Assert.Equal("$11\r\nHello World\r\n", c.Call("GETRANGE", k, "-100", "100"));
        Assert.Equal("$0\r\n\r\n", c.Call("GETRANGE", k, "-1", "-5"));
        Assert.Equal("$0\r\n\r\n", c.Call("GETRANGE", k, "5", "2"));
        Assert.Equal("$1\r\nH\r\n", c.Call("GETRANGE", k, "0", "-100"));
        Assert.Equal("$0\r\n\r\n", c.Call("GETRANGE", k, "100", "200"));
        Assert.Equal("$11\r\nHello World\r\n", c.Call("GETRANGE", k, "-9223372036854775808", "9223372036854775807"));
        Assert.Equal("$3\r\nell\r\n", c.Call("SUBSTR", k, "1", "3"));
        Assert.Equal(NotInteger, c.Call("GETRANGE", k, "a", "1"));
        Assert.Equal("$0\r\n\r\n", c.Call("GETRANGE", k + "none", "0", "-1"));
        c.Call("SET", k, "");
        Assert.Equal("$0\r\n\r\n", c.Call("GETRANGE", k, "0", "-1"));
    }

    [Fact]
    public void SetRange_PadsWithZeros_AndMarksRaw()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("setrange") + "k";
        Assert.Equal(":0\r\n", c.Call("SETRANGE", k, "5", ""));
        Assert.Null(KeyspacePeek.Value(Server, k));
        Assert.Equal(":7\r\n", c.Call("SETRANGE", k, "2", "hello"));
        Assert.True(KeyspacePeek.IsRaw(Server, k));
        Assert.Equal("$7\r\n\0\0hello\r\n", c.Call("GET", k));
        var array = KeyspacePeek.Value(Server, k);
        Assert.Equal(":7\r\n", c.Call("SETRANGE", k, "0", "HE"));
        Assert.Same(array, KeyspacePeek.Value(Server, k));
        Assert.Equal(":7\r\n", c.Call("SETRANGE", k, "1000", ""));
        Assert.Equal(":9\r\n", c.Call("SETRANGE", k, "6", "XYZ"));
        Assert.Equal("$9\r\nHEhellXYZ\r\n", c.Call("GET", k));
        Assert.Equal("-ERR offset is out of range\r\n", c.Call("SETRANGE", k, "-1", "x"));
        Assert.Equal(NotInteger, c.Call("SETRANGE", k, "x", "x"));
        const string TooBig = "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n";
        Assert.Equal(TooBig, c.Call("SETRANGE", k, "536870911", "xx"));
        Assert.Equal(TooBig, c.Call("SETRANGE", k + "new", "536870912", "x"));
        Assert.Equal(TooBig, c.Call("SETRANGE", k, "9223372036854775807", "x"));
        Assert.Null(KeyspacePeek.Value(Server, k + "new"));
        KeyspacePeek.PlantForeign(Server, k);
        Assert.Equal(WrongType, c.Call("SETRANGE", k, "0", "x"));
        Assert.Equal(WrongType, c.Call("SETRANGE", k, "0", ""));
        Assert.Equal(WrongType, c.Call("GETRANGE", k, "0", "1"));
    }

    // ------------------------------------------------------------ LCS

    [Fact]
    public void Lcs_KeysOnDifferentShards_AllReplyShapes()
    {
        using var c = Server.Connect();
        var keys = KeyspacePeek.KeysOnDistinctShards(Server, TestServer.KeyPrefix("lcs"), 3);
        c.Call("MSET", keys[0], "ohmytext", keys[1], "mynewtext");
        Assert.Equal("$6\r\nmytext\r\n", c.Call("LCS", keys[0], keys[1]));
        Assert.Equal(":6\r\n", c.Call("LCS", keys[0], keys[1], "LEN"));
        Assert.Equal(
            "*4\r\n$7\r\nmatches\r\n*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n$3\r\nlen\r\n:6\r\n",
            c.Call("LCS", keys[0], keys[1], "IDX"));
        Assert.Equal(
            "*4\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n$3\r\nlen\r\n:6\r\n",
            c.Call("LCS", keys[0], keys[1], "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"));
        Assert.Equal("$0\r\n\r\n", c.Call("LCS", keys[0], keys[2]));
        Assert.Equal("*4\r\n$7\r\nmatches\r\n*0\r\n$3\r\nlen\r\n:0\r\n", c.Call("LCS", keys[2], keys[1], "IDX"));
        Assert.Equal("-ERR If you want both the length and indexes, please just use IDX.\r\n",
            c.Call("LCS", keys[0], keys[1], "LEN", "IDX"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("LCS", keys[0], keys[1], "MINMATCHLEN"));
        Assert.Equal(NotInteger, c.Call("LCS", keys[0], keys[1], "MINMATCHLEN", "x"));
        KeyspacePeek.PlantForeign(Server, keys[2]);
        Assert.Equal("-ERR The specified keys must contain string values\r\n", c.Call("LCS", keys[0], keys[2], "FOO"));
    }

    [Fact]
    public async Task Lcs_TableOverProtoMaxBulkLen_IsRefused()
    {
        // 2 × 16 KB strings need a 1 GB table: over the 512 MB limit, refused before allocating.
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        string big = new('a', 16 * 1024);
        c.Call("SET", "{x}a", big);
        c.Call("SET", "{x}b", big);
        Assert.Equal("-ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len\r\n",
            c.Call("LCS", "{x}a", "{x}b", "LEN"));
    }

    // ------------------------------------------------------------ counters of the keyspace

    [Fact]
    public async Task ReadCommands_CountKeyspaceHitsAndMisses_WriteCommandsDoNot()
    {
        await using var server = TestServer.Start(shards: 1);
        using var c = server.Connect();
        var store = server.Server.Shards[0].Store;
        c.Call("SET", "a", "1");
        c.Call("GET", "a");
        c.Call("GET", "b");
        c.Call("MGET", "a", "b", "c");
        c.Call("STRLEN", "a");
        c.Call("GETRANGE", "a", "0", "1");
        c.Call("SET", "a", "2", "GET");
        c.Call("INCR", "a");
        c.Call("APPEND", "a", "x");
        c.Call("SETNX", "b", "x");
        c.Call("LCS", "a", "zz");
        Assert.Equal(6, store.KeyspaceHits);
        Assert.Equal(4, store.KeyspaceMisses);
    }

    [Fact]
    public void Pipeline_ManyStringCommandsInOneWrite_RepliesInOrder()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("strpipe");
        var batch = new MemoryStream();
        for (int i = 0; i < 50; i++)
        {
            batch.Write(RespClient.Encode("INCR", p + (i % 5)));
            batch.Write(RespClient.Encode("SET", p + "s" + i, "v", "EX", "0"));
            batch.Write(RespClient.Encode("APPEND", p + "s" + i, "ab"));
        }
        batch.Write(RespClient.Encode("MGET", p + "0", p + "4", p + "s49"));
        c.SendRaw(batch.ToArray());
        for (int i = 0; i < 50; i++)
        {
            Assert.Equal($":{i / 5 + 1}\r\n", c.ReadReply());
            Assert.Equal("-ERR invalid expire time in 'set' command\r\n", c.ReadReply());
            Assert.Equal(":2\r\n", c.ReadReply());
        }
        Assert.Equal("*3\r\n$2\r\n10\r\n$2\r\n10\r\n$2\r\nab\r\n", c.ReadReply());
    }
}
