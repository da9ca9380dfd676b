using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Sort;

/// <summary>
/// SORT and SORT_RO over a raw socket on the shared 4-shard server, asserting exact reply bytes.
/// Keys carry a per-test prefix, so the keys BY and GET patterns name land on every shard.
/// </summary>
public class SortWireTests
{
    private const string WrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
    private const string Syntax = "-ERR syntax error\r\n";
    private const string NotInteger = "-ERR value is not an integer or out of range\r\n";
    private const string NotDoubles = "-ERR One or more scores can't be converted into double\r\n";

    private static TestServer Server => TestServer.Shared;

    /// <summary>An array reply of bulk strings; null items are nil bulks.</summary>
    internal static string Arr(params string?[] items)
    {
        var sb = new StringBuilder().Append('*').Append(items.Length).Append("\r\n");
        foreach (var item in items)
        {
            if (item == null) sb.Append("$-1\r\n");
            else sb.Append('$').Append(Encoding.UTF8.GetByteCount(item)).Append("\r\n").Append(item).Append("\r\n");
        }
        return sb.ToString();
    }

    // ------------------------------------------------------------ plain sorting

    [Fact]
    public void Sort_ListOfNumbers_AscendingAndDescending()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("sort") + "l";
        c.Call("RPUSH", k, "3", "-1", "2.5", "10", "1e1", "inf", "-inf", "0x10");
        // Equal scores (10 and 1e1) are ordered by their bytes; DESC reverses that too.
        Assert.Equal(Arr("-inf", "-1", "2.5", "3", "10", "1e1", "0x10", "inf"), c.Call("SORT", k));
        Assert.Equal(Arr("inf", "0x10", "1e1", "10", "3", "2.5", "-1", "-inf"), c.Call("SORT", k, "DESC"));
    }

    [Fact]
    public void Sort_Alpha_ComparesBytes()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("sort") + "l";
        c.Call("RPUSH", k, "b", "B", "a", "10", "9", "ab");
        Assert.Equal(NotDoubles, c.Call("SORT", k));
        Assert.Equal(Arr("10", "9", "B", "a", "ab", "b"), c.Call("SORT", k, "ALPHA"));
        Assert.Equal(Arr("b", "ab", "a", "B", "9", "10"), c.Call("sort", k, "alpha", "desc"));
    }

    [Fact]
    public void Sort_MissingKey_ReturnsEmptyArray()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("sort") + "none";
        Assert.Equal("*0\r\n", c.Call("SORT", k));
        Assert.Equal("*0\r\n", c.Call("SORT_RO", k, "BY", "nosort", "GET", "#", "LIMIT", "0", "10"));
    }

    [Fact]
    public void Sort_Set_SortsMembers()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("SADD", p + "ints", "30", "-2", "7", "100");
        Assert.Equal(Arr("-2", "7", "30", "100"), c.Call("SORT", p + "ints"));
        Assert.Equal(Arr("100", "30", "7", "-2"), c.Call("SORT", p + "ints", "DESC"));
        Assert.Equal(Arr("-2", "100", "30", "7"), c.Call("SORT", p + "ints", "ALPHA"));
        c.Call("SADD", p + "words", "pear", "apple", "fig");
        Assert.Equal(Arr("apple", "fig", "pear"), c.Call("SORT", p + "words", "ALPHA"));
    }

    // ------------------------------------------------------------ LIMIT

    [Fact]
    public void Sort_Limit_ClampsOffsetAndCount()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("sort") + "l";
        c.Call("RPUSH", k, "5", "4", "3", "2", "1");
        Assert.Equal(Arr("2", "3"), c.Call("SORT", k, "LIMIT", "1", "2"));
        Assert.Equal(Arr("4", "3"), c.Call("SORT", k, "LIMIT", "1", "2", "DESC"));
        Assert.Equal(Arr("1", "2"), c.Call("SORT", k, "LIMIT", "-5", "2"));
        Assert.Equal(Arr("2", "3", "4", "5"), c.Call("SORT", k, "LIMIT", "1", "-1"));
        Assert.Equal("*0\r\n", c.Call("SORT", k, "LIMIT", "0", "0"));
        Assert.Equal("*0\r\n", c.Call("SORT", k, "LIMIT", "5", "1"));
        Assert.Equal(Arr("3", "4", "5"), c.Call("SORT", k, "LIMIT", "2", "9223372036854775807"));
        Assert.Equal("*0\r\n", c.Call("SORT", k, "LIMIT", "9223372036854775807", "9223372036854775807"));
        Assert.Equal(Arr("1", "2", "3", "4", "5"), c.Call("SORT", k, "LIMIT", "-9223372036854775808", "-9223372036854775808"));
    }

    [Fact]
    public void Sort_LimitNotInteger_ErrorsAtParseTime()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("sort") + "l";
        c.Call("RPUSH", k, "1");
        Assert.Equal(NotInteger, c.Call("SORT", k, "LIMIT", "a", "1"));
        Assert.Equal(NotInteger, c.Call("SORT", k, "LIMIT", "1", "1.5"));
        Assert.Equal(NotInteger, c.Call("SORT", k, "LIMIT", "+1", "1"));
        Assert.Equal(NotInteger, c.Call("SORT", k, "LIMIT", "1", "99999999999999999999"));
        // Options are read left to right: the first problem met is the one reported.
        Assert.Equal(Syntax, c.Call("SORT", k, "FOO", "LIMIT", "a", "1"));
        Assert.Equal(NotInteger, c.Call("SORT", k, "LIMIT", "a", "1", "FOO"));
        Assert.Equal(Syntax, c.Call("SORT", k, "LIMIT", "1"));
    }

    // ------------------------------------------------------------ BY and GET

    [Fact]
    public void Sort_ByStringKeys_OrdersByWeights()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("RPUSH", p + "l", "a", "b", "c", "d");
        c.Call("MSET", p + "w_a", "3", p + "w_b", "1", p + "w_c", "2");
        // d has no weight: it sorts as 0.
        Assert.Equal(Arr("d", "b", "c", "a"), c.Call("SORT", p + "l", "BY", p + "w_*"));
        Assert.Equal(Arr("a", "c", "b", "d"), c.Call("SORT", p + "l", "BY", p + "w_*", "DESC"));
        // ALPHA by weights: a missing weight sorts first.
        Assert.Equal(Arr("d", "b", "c", "a"), c.Call("SORT", p + "l", "BY", p + "w_*", "ALPHA"));
        c.Call("SET", p + "w_d", "heavy");
        Assert.Equal(NotDoubles, c.Call("SORT", p + "l", "BY", p + "w_*"));
    }

    [Fact]
    public void Sort_GetPatterns_ReturnValuesAndNils()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("RPUSH", p + "l", "2", "1", "3");
        c.Call("MSET", p + "o_1", "one", p + "o_2", "two");
        c.Call("HSET", p + "h_1", "name", "uno");
        c.Call("HSET", p + "h_3", "name", "tres");
        Assert.Equal(Arr("one", "1", "uno", "two", "2", null, null, "3", "tres"),
            c.Call("SORT", p + "l", "GET", p + "o_*", "GET", "#", "GET", p + "h_*->name"));
        // A pattern without '*' names no key; a hash read as a string, or a string read as a hash, is nil.
        Assert.Equal(Arr(null, null, null), c.Call("SORT", p + "l", "GET", p + "o_1"));
        Assert.Equal(Arr(null, null, null), c.Call("SORT", p + "l", "GET", p + "h_*"));
        Assert.Equal(Arr(null, null, null), c.Call("SORT", p + "l", "GET", p + "o_*->name"));
    }

    [Fact]
    public void Sort_ByHashField_OrdersByField()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("SADD", p + "s", "x", "y", "z");
        c.Call("HSET", p + "u_x", "age", "40", "name", "Xavier");
        c.Call("HSET", p + "u_y", "age", "25", "name", "Yves");
        c.Call("HSET", p + "u_z", "age", "33", "name", "Zoe");
        Assert.Equal(Arr("Yves", "Zoe", "Xavier"), c.Call("SORT", p + "s", "BY", p + "u_*->age", "GET", p + "u_*->name"));
        Assert.Equal(Arr("Xavier", "Zoe"), c.Call("SORT", p + "s", "BY", p + "u_*->age", "GET", p + "u_*->name", "DESC", "LIMIT", "0", "2"));
    }

    [Fact]
    public void Sort_ByNosort_KeepsListOrderAndAppliesLimit()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("sort") + "l";
        c.Call("RPUSH", k, "c", "a", "b", "e", "d");
        Assert.Equal(Arr("c", "a", "b", "e", "d"), c.Call("SORT", k, "BY", "nosort"));
        Assert.Equal(Arr("d", "e", "b", "a", "c"), c.Call("SORT", k, "BY", "nosort", "DESC"));
        Assert.Equal(Arr("a", "b"), c.Call("SORT", k, "BY", "nosort", "LIMIT", "1", "2"));
        Assert.Equal(Arr("e", "b"), c.Call("SORT", k, "BY", "nosort", "LIMIT", "1", "2", "DESC"));
        Assert.Equal(Arr("c"), c.Call("SORT", k, "BY", "nosort", "LIMIT", "4", "9223372036854775807", "DESC"));
    }

    [Fact]
    public void Sort_SortedSet_ByNosortUsesScoreOrderAndConvertsEncoding()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("sort") + "z";
        c.Call("ZADD", k, "3", "c", "1", "a", "2", "b", "5", "e", "4", "d");
        Assert.Equal("$8\r\nlistpack\r\n", c.Call("OBJECT", "ENCODING", k));
        Assert.Equal(Arr("a", "b", "c", "d", "e"), c.Call("SORT", k, "BY", "nosort"));
        // Redis converts a listpack sorted set to a skiplist for SORT, for good.
        Assert.Equal("$8\r\nskiplist\r\n", c.Call("OBJECT", "ENCODING", k));
        Assert.Equal("*10\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\nd\r\n$1\r\n4\r\n$1\r\ne\r\n$1\r\n5\r\n",
            c.Call("ZRANGE", k, "0", "-1", "WITHSCORES"));
        Assert.Equal(Arr("d", "c"), c.Call("SORT", k, "BY", "nosort", "LIMIT", "1", "2", "DESC"));
        Assert.Equal(Arr("a"), c.Call("SORT", k, "BY", "nosort", "LIMIT", "4", "10", "DESC"));
        Assert.Equal(Arr("e", "d", "c", "b", "a"), c.Call("SORT", k, "ALPHA", "DESC"));
        Assert.Equal(NotDoubles, c.Call("SORT", k));
    }

    // ------------------------------------------------------------ STORE

    [Fact]
    public void Sort_Store_WritesListAndReturnsLength()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("RPUSH", p + "l", "3", "1", "2");
        c.Call("SET", p + "dst", "old", "EX", "1000");
        Assert.Equal(":3\r\n", c.Call("SORT", p + "l", "STORE", p + "dst"));
        Assert.Equal("+list\r\n", c.Call("TYPE", p + "dst"));
        Assert.Equal(":-1\r\n", c.Call("TTL", p + "dst"));
        Assert.Equal(Arr("1", "2", "3"), c.Call("LRANGE", p + "dst", "0", "-1"));
        // Missing GET values are stored as empty strings.
        c.Call("SET", p + "o_2", "two");
        Assert.Equal(":6\r\n", c.Call("SORT", p + "l", "GET", "#", "GET", p + "o_*", "STORE", p + "dst"));
        Assert.Equal(Arr("1", "", "2", "two", "3", ""), c.Call("LRANGE", p + "dst", "0", "-1"));
        // An empty result deletes the destination.
        Assert.Equal(":0\r\n", c.Call("SORT", p + "l", "LIMIT", "5", "5", "STORE", p + "dst"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "dst"));
        Assert.Equal(":0\r\n", c.Call("SORT", p + "none", "STORE", p + "l"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "l"));
    }

    [Fact]
    public void Sort_StoreOverSource_ReplacesIt()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("sort") + "s";
        c.Call("SADD", k, "b", "c", "a");
        Assert.Equal(":3\r\n", c.Call("SORT", k, "ALPHA", "STORE", k));
        Assert.Equal("+list\r\n", c.Call("TYPE", k));
        Assert.Equal(Arr("a", "b", "c"), c.Call("LRANGE", k, "0", "-1"));
    }

    [Fact]
    public void Sort_SetByNosortWithStore_SortsAlphabetically()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("SADD", p + "s", "10", "9", "x", "a");
        Assert.Equal(":4\r\n", c.Call("SORT", p + "s", "BY", "nosort", "STORE", p + "d"));
        Assert.Equal(Arr("10", "9", "a", "x"), c.Call("LRANGE", p + "d", "0", "-1"));
        Assert.Equal(":4\r\n", c.Call("SORT", p + "s", "BY", "nosort", "DESC", "STORE", p + "d"));
        Assert.Equal(Arr("x", "a", "9", "10"), c.Call("LRANGE", p + "d", "0", "-1"));
    }

    [Fact]
    public void Sort_LastStoreWins()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("RPUSH", p + "l", "1");
        Assert.Equal(":1\r\n", c.Call("SORT", p + "l", "STORE", p + "d1", "STORE", p + "d2"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "d1"));
        Assert.Equal(":1\r\n", c.Call("EXISTS", p + "d2"));
    }

    // ------------------------------------------------------------ errors

    [Fact]
    public void Sort_WrongTypeAndSyntax_Errors()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("SET", p + "str", "x");
        c.Call("HSET", p + "h", "f", "v");
        Assert.Equal(WrongType, c.Call("SORT", p + "str"));
        Assert.Equal(WrongType, c.Call("SORT", p + "h", "BY", "nosort"));
        Assert.Equal(WrongType, c.Call("SORT_RO", p + "str"));
        // Options are checked before the key's type.
        Assert.Equal(Syntax, c.Call("SORT", p + "str", "FOO"));
        Assert.Equal(Syntax, c.Call("SORT", p + "str", "STORE"));
        Assert.Equal(Syntax, c.Call("SORT", p + "str", "GET"));
        Assert.Equal(Syntax, c.Call("SORT", p + "str", "BY"));
        Assert.Equal("-ERR wrong number of arguments for 'sort' command\r\n", c.Call("SORT"));
        Assert.Equal("-ERR wrong number of arguments for 'sort_ro' command\r\n", c.Call("SORT_RO"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void SortRo_Store_IsSyntaxError()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("RPUSH", p + "l", "2", "1");
        Assert.Equal(Syntax, c.Call("SORT_RO", p + "l", "STORE", p + "d"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "d"));
        Assert.Equal(Arr("1", "2"), c.Call("SORT_RO", p + "l"));
    }

    [Fact]
    public void Sort_Pipelined_RepliesInOrder()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        var batch = new MemoryStream();
        foreach (var cmd in new[]
        {
            new[] { "RPUSH", p + "l", "b", "a" },
            ["SET", p + "w_a", "2"],
            ["SET", p + "w_b", "1"],
            ["SORT", p + "l", "BY", p + "w_*"],
            ["SORT", p + "l", "ALPHA", "STORE", p + "d"],
            ["SORT_RO", p + "l", "STORE", p + "d"],
            ["LRANGE", p + "d", "0", "-1"],
            ["PING"],
        })
            batch.Write(RespClient.Encode(cmd));
        c.SendRaw(batch.ToArray());
        Assert.Equal(":2\r\n", c.ReadReply());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal(Arr("b", "a"), c.ReadReply());
        Assert.Equal(":2\r\n", c.ReadReply());
        Assert.Equal(Syntax, c.ReadReply());
        Assert.Equal(Arr("a", "b"), c.ReadReply());
        Assert.Equal("+PONG\r\n", c.ReadReply());
    }

    [Fact]
    public void Sort_Resp3_MissingGetValueIsNull()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("HELLO", "3");
        c.Call("RPUSH", p + "l", "1");
        Assert.Equal("*2\r\n$1\r\n1\r\n_\r\n", c.Call("SORT", p + "l", "GET", "#", "GET", p + "o_*"));
    }

    [Fact]
    public async Task Sort_ExpiredKeys_AreMissing()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("RPUSH", p + "l", "b", "a");
        c.Call("SET", p + "w_a", "2");
        c.Call("SET", p + "w_b", "1", "PX", "20");
        c.Call("RPUSH", p + "gone", "1");
        c.Call("PEXPIRE", p + "gone", "20");
        await Task.Delay(100);
        // b's weight expired: it sorts as 0 and GET shows nil.
        Assert.Equal(Arr("b", "a"), c.Call("SORT", p + "l", "BY", p + "w_*"));
        Assert.Equal(Arr(null, "2"), c.Call("SORT", p + "l", "BY", p + "w_*", "GET", p + "w_*"));
        Assert.Equal("*0\r\n", c.Call("SORT", p + "gone"));
        Assert.Equal(":0\r\n", c.Call("SORT", p + "gone", "STORE", p + "d"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "d"));
    }

    // ------------------------------------------------------------ transactions and counters

    [Fact]
    public void Sort_InMultiExec_WithPatterns_RunsAtomically()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("RPUSH", p + "l", "b", "a", "c");
        c.Call("MSET", p + "w_a", "3", p + "w_b", "1", p + "w_c", "2", p + "o_a", "A");
        Assert.Equal("+OK\r\n", c.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", c.Call("SORT", p + "l", "BY", p + "w_*", "GET", p + "o_*", "GET", "#"));
        Assert.Equal("+QUEUED\r\n", c.Call("SORT", p + "l", "BY", p + "w_*", "STORE", p + "d"));
        Assert.Equal("+QUEUED\r\n", c.Call("LRANGE", p + "d", "0", "-1"));
        Assert.Equal("*3\r\n" + Arr(null, "b", null, "c", "A", "a") + ":3\r\n" + Arr("b", "c", "a"), c.Call("EXEC"));
    }

    [Fact]
    public void Sort_Watch_OnlyARealStoreBreaksTheTransaction()
    {
        using var c = Server.Connect();
        using var other = Server.Connect();
        var p = TestServer.KeyPrefix("sort");
        c.Call("RPUSH", p + "l", "2", "1");

        // Reading the watched key changes nothing.
        c.Call("WATCH", p + "l");
        other.Call("SORT", p + "l");
        c.Call("MULTI");
        c.Call("PING");
        Assert.Equal("*1\r\n+PONG\r\n", c.Call("EXEC"));

        // An empty result on a missing destination deletes nothing.
        c.Call("WATCH", p + "d");
        other.Call("SORT", p + "l", "LIMIT", "0", "0", "STORE", p + "d");
        c.Call("MULTI");
        c.Call("PING");
        Assert.Equal("*1\r\n+PONG\r\n", c.Call("EXEC"));

        // Storing into the watched key does.
        c.Call("WATCH", p + "d");
        other.Call("SORT", p + "l", "STORE", p + "d");
        c.Call("MULTI");
        c.Call("PING");
        Assert.Equal("*-1\r\n", c.Call("EXEC"));
    }

    [Fact]
    public async Task Sort_PatternLookups_CountKeyspaceHitsAndMisses()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        c.Call("RPUSH", "l", "a", "b", "c");
        c.Call("MSET", "w_a", "1", "w_b", "2", "o_a", "x");
        c.Call("CONFIG", "RESETSTAT");
        // The sorted key: 1 hit. BY: 2 hits, 1 miss. GET o_*: 1 hit, 2 misses. "#" and a pattern
        // without '*' look nothing up.
        c.Call("SORT", "l", "BY", "w_*", "GET", "o_*", "GET", "#", "GET", "nostar");
        var info = c.Call("INFO", "stats");
        Assert.Contains("keyspace_hits:4\r\n", info);
        Assert.Contains("keyspace_misses:3\r\n", info);
    }

    [Fact]
    public async Task Sort_Store_NotifiesSortstoreOrDel()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        using var sub = server.Connect();
        c.Call("RPUSH", "l", "2", "1");
        c.Call("CONFIG", "SET", "notify-keyspace-events", "KEA");
        sub.Call("PSUBSCRIBE", "__keyevent@0__:*");
        c.Call("SORT", "l", "STORE", "d");
        c.Call("SORT", "l", "LIMIT", "0", "0", "STORE", "d");
        c.Call("SORT", "l", "LIMIT", "0", "0", "STORE", "d"); // nothing to delete: no event
        c.Call("SORT", "l", "BY", "nosort"); // a read: no event
        c.Call("SET", "end", "1");
        static string Event(string name, string key) =>
            $"*4\r\n$8\r\npmessage\r\n$16\r\n__keyevent@0__:*\r\n${15 + name.Length}\r\n__keyevent@0__:{name}\r\n${key.Length}\r\n{key}\r\n";
        Assert.Equal(Event("sortstore", "d"), sub.ReadReply());
        Assert.Equal(Event("del", "d"), sub.ReadReply());
        Assert.Equal(Event("set", "end"), sub.ReadReply());
    }

    // ------------------------------------------------------------ keys

    [Fact]
    public void CommandGetKeys_Sort_ListsSortedKeyAndDestination()
    {
        using var c = Server.Connect();
        Assert.Equal(Arr("l"), c.Call("COMMAND", "GETKEYS", "SORT", "l", "BY", "w_*", "GET", "o_*"));
        Assert.Equal(Arr("l", "d"), c.Call("COMMAND", "GETKEYS", "SORT", "l", "BY", "w_*", "STORE", "d"));
        Assert.Equal(Arr("l", "e"), c.Call("COMMAND", "GETKEYS", "SORT", "l", "STORE", "d", "STORE", "e"));
        Assert.Equal(Arr("l"), c.Call("COMMAND", "GETKEYS", "SORT_RO", "l", "GET", "x*"));
        Assert.Equal("*2\r\n*2\r\n$1\r\nl\r\n*2\r\n+RO\r\n+access\r\n*2\r\n$1\r\nd\r\n*2\r\n+OW\r\n+update\r\n",
            c.Call("COMMAND", "GETKEYSANDFLAGS", "SORT", "l", "GET", "x*", "STORE", "d"));
    }

    [Fact]
    public async Task Sort_PatternsAcrossShards_SeeConcurrentWritesAtomically()
    {
        // Weights are rewritten in pairs by MSET (atomic across shards) while SORT reads them by
        // pattern: with every gate held, SORT must never see one weight of a pair updated and the
        // other not, so the order it returns is always one of the two consistent orders.
        var p = TestServer.KeyPrefix("sortatomic");
        using (var setup = Server.Connect())
        {
            setup.Call("RPUSH", p + "l", "a", "b");
            setup.Call("MSET", p + "w_a", "1", p + "w_b", "2");
        }
        using var stop = new CancellationTokenSource();
        var writer = Task.Run(() =>
        {
            using var w = Server.Connect();
            for (int i = 0; i < 2000 && !stop.IsCancellationRequested; i++)
            {
                if (i % 2 == 0) w.Call("MSET", p + "w_a", "3", p + "w_b", "4");
                else w.Call("MSET", p + "w_a", "4", p + "w_b", "3");
            }
        });
        using var r = Server.Connect();
        for (int i = 0; i < 500; i++)
        {
            var reply = r.Call("SORT", p + "l", "BY", p + "w_*", "GET", p + "w_*");
            // Sorted by the weights it returns: they must come out ascending.
            Assert.True(reply == Arr("1", "2") || reply == Arr("3", "4"), reply);
        }
        stop.Cancel();
        await writer;
    }
}
