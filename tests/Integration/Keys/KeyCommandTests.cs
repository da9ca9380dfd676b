using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Keys;

/// <summary>
/// The keyspace commands over the wire on the shared server, each test in its own keys. Keys are
/// spread over the shards on purpose (no hash tags), so multi-key commands cross shards.
/// </summary>
public class KeyCommandTests
{
    private static TestServer Server => TestServer.Shared;

    [Fact]
    public void Del_KeysOnSeveralShardsWithRepeats_CountsEachKeyOnce()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("del");
        for (int i = 0; i < 8; i++) Assert.Equal("+OK\r\n", c.Call("SET", p + i, "v"));
        Assert.Equal(":8\r\n", c.Call("DEL", p + 0, p + 1, p + 2, p + 3, p + 4, p + 5, p + 6, p + 7, p + 0, p + "missing"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + 0, p + 7));
        Assert.Equal("+OK\r\n", c.Call("SET", p + 0, "v"));
        Assert.Equal(":1\r\n", c.Call("UNLINK", p + 0, p + 0));
    }

    [Fact]
    public void Exists_RepeatedKey_CountsEachTime()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("exists");
        c.Call("SET", p + "a", "1");
        c.Call("SET", p + "b", "1");
        Assert.Equal(":5\r\n", c.Call("EXISTS", p + "a", p + "a", p + "b", p + "nope", p + "a", p + "b"));
        Assert.Equal(":3\r\n", c.Call("TOUCH", p + "a", p + "a", p + "b", p + "nope"));
    }

    [Fact]
    public void Type_StringAndMissing_SimpleStrings()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("type");
        c.Call("SET", p + "s", "x");
        Assert.Equal("+string\r\n", c.Call("TYPE", p + "s"));
        Assert.Equal("+none\r\n", c.Call("TYPE", p + "missing"));
    }

    [Fact]
    public void Rename_AcrossShards_MovesValueAndTtl()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("rename");
        // Enough pairs that some source/destination pairs land on different shards.
        for (int i = 0; i < 8; i++)
        {
            Assert.Equal("+OK\r\n", c.Call("SET", p + "src" + i, "value" + i, "EX", "1000"));
            Assert.Equal("+OK\r\n", c.Call("RENAME", p + "src" + i, p + "dst" + i));
            Assert.Equal($"$6\r\nvalue{i}\r\n", c.Call("GET", p + "dst" + i));
            KeyReplies.AssertTtl(1000, c.Call("TTL", p + "dst" + i));
            Assert.Equal(":0\r\n", c.Call("EXISTS", p + "src" + i));
        }
        Assert.Equal("-ERR no such key\r\n", c.Call("RENAME", p + "src0", p + "x"));
        c.Call("SET", p + "a", "1");
        c.Call("SET", p + "b", "2");
        Assert.Equal(":0\r\n", c.Call("RENAMENX", p + "a", p + "b"));
        Assert.Equal(":1\r\n", c.Call("RENAMENX", p + "a", p + "c"));
        Assert.Equal("+OK\r\n", c.Call("RENAME", p + "c", p + "b"));
        Assert.Equal("$1\r\n1\r\n", c.Call("GET", p + "b"));
        Assert.Equal(":-1\r\n", c.Call("TTL", p + "b"));
    }

    [Fact]
    public void Copy_ThenOverwriteCopy_SourceUnchanged()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("copy");
        c.Call("SET", p + "src", "hello");
        Assert.Equal(":1\r\n", c.Call("COPY", p + "src", p + "dst"));
        // Same length: the string family writes into the existing array, so a shared array would leak.
        c.Call("SET", p + "dst", "world");
        Assert.Equal("$5\r\nhello\r\n", c.Call("GET", p + "src"));
        c.Call("SETRANGE", p + "dst", "0", "J");
        Assert.Equal("$5\r\nhello\r\n", c.Call("GET", p + "src"));
        Assert.Equal("$5\r\nJorld\r\n", c.Call("GET", p + "dst"));
        Assert.Equal(":0\r\n", c.Call("COPY", p + "src", p + "dst"));
        Assert.Equal(":1\r\n", c.Call("COPY", p + "src", p + "dst", "REPLACE"));
        Assert.Equal("$5\r\nhello\r\n", c.Call("GET", p + "dst"));
    }

    [Fact]
    public void Copy_DbOptionAndTtl_CopiedToOtherDatabase()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("copydb");
        c.Call("SET", p + "k", "v", "EX", "500");
        Assert.Equal(":1\r\n", c.Call("COPY", p + "k", p + "k", "DB", "3"));
        Assert.Equal("+OK\r\n", c.Call("SELECT", "3"));
        Assert.Equal("$1\r\nv\r\n", c.Call("GET", p + "k"));
        KeyReplies.AssertTtl(500, c.Call("TTL", p + "k"));
        Assert.Equal(":1\r\n", c.Call("DEL", p + "k"));
    }

    [Fact]
    public void Move_ToOtherDatabase_KeyLeavesThisOne()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("move");
        c.Call("SET", p + "k", "v", "PX", "900000");
        c.Call("APPEND", p + "k", "w");
        Assert.Equal(":1\r\n", c.Call("MOVE", p + "k", "4"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "k"));
        Assert.Equal(":0\r\n", c.Call("MOVE", p + "k", "4"));
        c.Call("SELECT", "4");
        Assert.Equal("$2\r\nvw\r\n", c.Call("GET", p + "k"));
        Assert.Equal("$3\r\nraw\r\n", c.Call("OBJECT", "ENCODING", p + "k"));
        Assert.True(long.Parse(c.Call("PTTL", p + "k")[1..^2]) > 800_000);
        c.Call("SET", p + "other", "x");
        Assert.Equal(":1\r\n", c.Call("MOVE", p + "k", "0"));
        Assert.Equal(":1\r\n", c.Call("DEL", p + "other"));
    }

    [Fact]
    public void Expire_OptionsAndPastTime_AsRedis()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("expire");
        var k = p + "k";
        c.Call("SET", k, "v");
        Assert.Equal(":-1\r\n", c.Call("TTL", k));
        Assert.Equal(":0\r\n", c.Call("EXPIRE", k, "100", "XX"));
        Assert.Equal(":1\r\n", c.Call("EXPIRE", k, "100", "NX"));
        Assert.Equal(":0\r\n", c.Call("EXPIRE", k, "50", "GT"));
        Assert.Equal(":1\r\n", c.Call("EXPIRE", k, "200", "GT"));
        Assert.Equal(":1\r\n", c.Call("EXPIRE", k, "150", "LT"));
        KeyReplies.AssertTtl(150, c.Call("TTL", k));
        Assert.Equal(":1\r\n", c.Call("PERSIST", k));
        Assert.Equal(":0\r\n", c.Call("PERSIST", k));
        Assert.Equal(":1\r\n", c.Call("PEXPIREAT", k, "4102444800000"));
        Assert.Equal(":4102444800\r\n", c.Call("EXPIRETIME", k));
        Assert.Equal(":4102444800000\r\n", c.Call("PEXPIRETIME", k));
        Assert.Equal(":1\r\n", c.Call("EXPIRE", k, "-5"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", k));
        Assert.Equal(":-2\r\n", c.Call("TTL", k));
        Assert.Equal(":-2\r\n", c.Call("PEXPIRETIME", k));
    }

    [Fact]
    public void Pexpire_ShortTtl_KeyGoneAfterwards()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("pexpire") + "k";
        c.Call("SET", k, "v");
        Assert.Equal(":1\r\n", c.Call("PEXPIRE", k, "30"));
        Thread.Sleep(80);
        Assert.Equal("$-1\r\n", c.Call("GET", k));
        Assert.Equal(":-2\r\n", c.Call("PTTL", k));
    }

    [Fact]
    public void ObjectEncoding_Strings_IntEmbstrRaw()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("encoding");
        c.Call("SET", p + "int", "-12345");
        c.Call("SET", p + "notint", "007");
        c.Call("SET", p + "big", "123456789012345678901");
        c.Call("SET", p + "emb", new string('x', 44));
        c.Call("SET", p + "raw", new string('x', 45));
        c.Call("SET", p + "edited", "12");
        c.Call("SETRANGE", p + "edited", "0", "3");
        Assert.Equal("$3\r\nint\r\n", c.Call("OBJECT", "ENCODING", p + "int"));
        Assert.Equal("$6\r\nembstr\r\n", c.Call("OBJECT", "ENCODING", p + "notint"));
        Assert.Equal("$6\r\nembstr\r\n", c.Call("OBJECT", "ENCODING", p + "big"));
        Assert.Equal("$6\r\nembstr\r\n", c.Call("OBJECT", "ENCODING", p + "emb"));
        Assert.Equal("$3\r\nraw\r\n", c.Call("OBJECT", "ENCODING", p + "raw"));
        Assert.Equal("$3\r\nraw\r\n", c.Call("OBJECT", "ENCODING", p + "edited"));
        Assert.Equal("$-1\r\n", c.Call("OBJECT", "ENCODING", p + "missing"));
        Assert.Equal(":1\r\n", c.Call("OBJECT", "REFCOUNT", p + "edited"));
        c.Call("SET", p + "shared", "9999");
        Assert.Equal(":2147483647\r\n", c.Call("OBJECT", "REFCOUNT", p + "shared"));
        Assert.Equal(":1\r\n", c.Call("OBJECT", "REFCOUNT", p + "int"));
    }

    [Fact]
    public void ObjectIdleTime_GrowsUntilTouched()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("idle") + "k";
        c.Call("SET", k, "v");
        Thread.Sleep(2100);
        // TYPE, TTL, EXISTS and OBJECT do not count as an access (Redis's LOOKUP_NOTOUCH).
        c.Call("TYPE", k);
        c.Call("TTL", k);
        c.Call("EXISTS", k);
        long idle = long.Parse(c.Call("OBJECT", "IDLETIME", k)[1..^2]);
        Assert.InRange(idle, 2, 60);
        Assert.Equal(":1\r\n", c.Call("TOUCH", k));
        Assert.InRange(long.Parse(c.Call("OBJECT", "IDLETIME", k)[1..^2]), 0, 1);
    }

    [Fact]
    public void ObjectFreq_NoLfuPolicy_RedisError()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("freq") + "k";
        Assert.Equal("$-1\r\n", c.Call("OBJECT", "FREQ", k));
        c.Call("SET", k, "v");
        Assert.StartsWith("-ERR An LFU maxmemory policy is not selected", c.Call("OBJECT", "FREQ", k));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }
}
