using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Keys;

/// <summary>
/// Whole-keyspace commands (FLUSHDB, FLUSHALL, SWAPDB, DBSIZE, KEYS, RANDOMKEY) and active expiry,
/// each on a private server since they see or change every key.
/// </summary>
public class KeyspaceTests
{
    private static void SetMany(RespClient c, string prefix, int n, params string[] extra)
        => Assert.All(KeyReplies.Pipeline(c, Enumerable.Range(0, n).Select(i => (string[])["SET", prefix + i, "v", .. extra])),
            r => Assert.Equal("+OK\r\n", r));

    [Fact]
    public async Task DbSize_KeysOnAllShards_CountsThemAll()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        Assert.Equal(":0\r\n", c.Call("DBSIZE"));
        SetMany(c, "k", 100);
        Assert.Equal(":100\r\n", c.Call("DBSIZE"));
        c.Call("SELECT", "1");
        Assert.Equal(":0\r\n", c.Call("DBSIZE"));
    }

    [Fact]
    public async Task FlushDb_SelectedDatabaseOnly_OthersKept()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        SetMany(c, "a", 20);
        c.Call("SELECT", "2");
        SetMany(c, "b", 10);
        Assert.Equal("-ERR syntax error\r\n", c.Call("FLUSHDB", "LATER"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("FLUSHDB", "ASYNC", "SYNC"));
        Assert.Equal(":10\r\n", c.Call("DBSIZE"));
        Assert.Equal("+OK\r\n", c.Call("FLUSHDB", "async"));
        Assert.Equal(":0\r\n", c.Call("DBSIZE"));
        c.Call("SELECT", "0");
        Assert.Equal(":20\r\n", c.Call("DBSIZE"));
        Assert.Equal("+OK\r\n", c.Call("FLUSHDB"));
        Assert.Equal(":0\r\n", c.Call("DBSIZE"));
    }

    [Fact]
    public async Task FlushAll_EveryDatabase_Emptied()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        SetMany(c, "a", 20);
        c.Call("SELECT", "15");
        SetMany(c, "b", 10);
        Assert.Equal("-ERR syntax error\r\n", c.Call("FLUSHALL", "foo"));
        Assert.Equal("+OK\r\n", c.Call("FLUSHALL", "SYNC"));
        Assert.Equal(":0\r\n", c.Call("DBSIZE"));
        c.Call("SELECT", "0");
        Assert.Equal(":0\r\n", c.Call("DBSIZE"));
    }

    [Fact]
    public async Task SwapDb_TwoDatabases_ContentsAndTtlsExchanged()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        SetMany(c, "zero", 30, "EX", "1000");
        c.Call("SELECT", "1");
        SetMany(c, "one", 5);
        Assert.Equal("+OK\r\n", c.Call("SWAPDB", "0", "1"));
        Assert.Equal(":30\r\n", c.Call("DBSIZE"));
        KeyReplies.AssertTtl(1000, c.Call("TTL", "zero7"));
        c.Call("SELECT", "0");
        Assert.Equal(":5\r\n", c.Call("DBSIZE"));
        Assert.Equal("$1\r\nv\r\n", c.Call("GET", "one3"));
        Assert.Equal("-ERR invalid first DB index\r\n", c.Call("SWAPDB", "x", "1"));
        Assert.Equal("-ERR invalid second DB index\r\n", c.Call("SWAPDB", "0", "1.5"));
        Assert.Equal("-ERR DB index is out of range\r\n", c.Call("SWAPDB", "0", "16"));
        Assert.Equal("+OK\r\n", c.Call("SWAPDB", "0", "0"));
    }

    [Fact]
    public async Task Keys_PatternAcrossShards_AllMatchesOnly()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        SetMany(c, "user:", 50);
        SetMany(c, "item:", 50);
        var users = KeyReplies.Strings(c.Call("KEYS", "user:*"));
        Assert.Equal(Enumerable.Range(0, 50).Select(i => "user:" + i).Order(), users.Order());
        Assert.Equal(100, KeyReplies.Strings(c.Call("KEYS", "*")).Count);
        Assert.Equal(["item:7"], KeyReplies.Strings(c.Call("KEYS", "item:[7]")));
        Assert.Equal("*0\r\n", c.Call("KEYS", "nothing*"));
    }

    [Fact]
    public async Task Keys_ExpiredKey_NotListedNorDeleted()
    {
        await using var server = TestServer.Start(shards: 2);
        // Only lazy expiry may remove the key, so DBSIZE shows whether KEYS deleted it: as in Redis
        // (keyIsExpired, not expireIfNeeded), it does not.
        for (int i = 0; i < server.Server.Shards.Count; i++) server.Server.Shards[i].ActiveExpiry = false;
        using var c = server.Connect();
        c.Call("SET", "live", "v");
        c.Call("SET", "dying", "v", "PX", "20");
        Thread.Sleep(60);
        Assert.Equal(":2\r\n", c.Call("DBSIZE"));
        Assert.Equal(["live"], KeyReplies.Strings(c.Call("KEYS", "*")));
        Assert.Equal(":2\r\n", c.Call("DBSIZE"));
    }

    [Fact]
    public async Task RandomKey_EmptyThenPopulated_NilThenAnExistingKey()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        Assert.Equal("$-1\r\n", c.Call("RANDOMKEY"));
        SetMany(c, "r", 10);
        var seen = new HashSet<string>();
        for (int i = 0; i < 200; i++)
        {
            var key = (string)KeyReplies.Parse(c.Call("RANDOMKEY"))!;
            Assert.StartsWith("r", key);
            seen.Add(key);
        }
        Assert.True(seen.Count > 3, $"RANDOMKEY returned only {seen.Count} distinct keys");
    }

    [Fact]
    public async Task RandomKey_OnlyExpiredKeys_Nil()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        SetMany(c, "e", 10, "PX", "10");
        Thread.Sleep(40);
        Assert.Equal("$-1\r\n", c.Call("RANDOMKEY"));
    }

    [Fact]
    public async Task ObjectFreqIdleTime_LfuPolicy_FreqAnswersIdleTimeErrors()
    {
        await using var server = TestServer.Start(shards: 2, "--maxmemory-policy", "allkeys-lfu", "--lfu-decay-time", "0");
        using var c = server.Connect();
        c.Call("SET", "k", "v");
        Assert.Equal(":5\r\n", c.Call("OBJECT", "FREQ", "k")); // a new key's LFU counter, as Redis's LFU_INIT_VAL
        Assert.Equal("-ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when " +
            "switching between policies at runtime LRU and LFU data will take some time to adjust.\r\n",
            c.Call("OBJECT", "IDLETIME", "k"));
        Assert.Equal("$-1\r\n", c.Call("OBJECT", "IDLETIME", "missing"));
    }

    [Fact]
    public async Task ActiveExpiry_UntouchedKeys_DbSizeReachesZero()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        SetMany(c, "ttl", 100, "PX", "50");
        string size = c.Call("DBSIZE");
        for (int i = 0; i < 100 && size != ":0\r\n"; i++)
        {
            Thread.Sleep(50);
            size = c.Call("DBSIZE");
        }
        Assert.Equal(":0\r\n", size);
    }

    [Fact]
    public async Task Keys_HostileGlobOverLongKeys_ReturnsTheOneMatch()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        string a = new('a', 2000);
        Assert.All(KeyReplies.Pipeline(c, Enumerable.Range(0, 100).Select(i => new[] { "SET", a + i, "v" })),
            r => Assert.Equal("+OK\r\n", r));
        c.Call("SET", a + "b", "v");
        var matches = KeyReplies.Strings(c.Call("KEYS", "*a*a*a*a*a*a*a*a*a*a*b"));
        Assert.Equal([a + "b"], matches);
    }
}
