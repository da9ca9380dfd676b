using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Lists;

/// <summary>The list family over a raw socket on the shared server, asserting exact reply bytes.</summary>
public class ListWireTests
{
    private const string WrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
    private const string NotInteger = "-ERR value is not an integer or out of range\r\n";

    private static TestServer Server => TestServer.Shared;

    private static string Key(string test) => TestServer.KeyPrefix(test) + "l";

    [Fact]
    public void Push_ThenRange_ReturnsElementsInOrder()
    {
        using var c = Server.Connect();
        var k = Key("push");
        Assert.Equal(":3\r\n", c.Call("LPUSH", k, "a", "b", "c"));
        Assert.Equal(":5\r\n", c.Call("RPUSH", k, "d", "12"));
        Assert.Equal("*5\r\n$1\r\nc\r\n$1\r\nb\r\n$1\r\na\r\n$1\r\nd\r\n$2\r\n12\r\n", c.Call("LRANGE", k, "0", "-1"));
        Assert.Equal(":5\r\n", c.Call("LLEN", k));
        Assert.Equal("+list\r\n", c.Call("TYPE", k));
    }

    [Fact]
    public void PushX_MissingKey_ReturnsZeroAndCreatesNothing()
    {
        using var c = Server.Connect();
        var k = Key("pushx");
        Assert.Equal(":0\r\n", c.Call("LPUSHX", k, "a"));
        Assert.Equal(":0\r\n", c.Call("RPUSHX", k, "a", "b"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", k));
        c.Call("RPUSH", k, "x");
        Assert.Equal(":3\r\n", c.Call("RPUSHX", k, "y", "z"));
        Assert.Equal(":4\r\n", c.Call("LPUSHX", k, "w"));
        Assert.Equal("*4\r\n$1\r\nw\r\n$1\r\nx\r\n$1\r\ny\r\n$1\r\nz\r\n", c.Call("LRANGE", k, "0", "-1"));
    }

    [Fact]
    public void Pop_SingleAndCount_RepliesBulkOrArray()
    {
        using var c = Server.Connect();
        var k = Key("pop");
        c.Call("RPUSH", k, "a", "b", "c", "d", "e");
        Assert.Equal("$1\r\na\r\n", c.Call("LPOP", k));
        Assert.Equal("$1\r\ne\r\n", c.Call("RPOP", k));
        Assert.Equal("*0\r\n", c.Call("LPOP", k, "0"));
        Assert.Equal("*2\r\n$1\r\nd\r\n$1\r\nc\r\n", c.Call("RPOP", k, "2"));
        Assert.Equal("*1\r\n$1\r\nb\r\n", c.Call("LPOP", k, "10"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", k));
        Assert.Equal("$-1\r\n", c.Call("LPOP", k));
        Assert.Equal("*-1\r\n", c.Call("LPOP", k, "0"));
        Assert.Equal("*-1\r\n", c.Call("RPOP", k, "3"));
    }

    [Fact]
    public void Pop_BadCount_ErrorsBeforeLookup()
    {
        using var c = Server.Connect();
        var k = Key("popbad");
        Assert.Equal("-ERR value is out of range, must be positive\r\n", c.Call("LPOP", k, "-1"));
        Assert.Equal("-ERR value is out of range, must be positive\r\n", c.Call("RPOP", k, "x"));
        Assert.Equal("-ERR wrong number of arguments for 'lpop' command\r\n", c.Call("LPOP", k, "1", "2"));
        Assert.Equal("-ERR wrong number of arguments for 'rpop' command\r\n", c.Call("RPOP", k, "1", "2"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void Resp3_NilShapes_AreNull()
    {
        using var c = Server.Connect();
        c.Call("HELLO", "3");
        var k = Key("resp3");
        Assert.Equal("_\r\n", c.Call("LPOP", k));
        Assert.Equal("_\r\n", c.Call("RPOP", k, "2"));
        Assert.Equal("_\r\n", c.Call("LINDEX", k, "0"));
        Assert.Equal("_\r\n", c.Call("LPOS", k, "a"));
        Assert.Equal("*0\r\n", c.Call("LPOS", k, "a", "COUNT", "0"));
        Assert.Equal("_\r\n", c.Call("LMPOP", "1", k, "LEFT"));
        Assert.Equal("_\r\n", c.Call("LMOVE", k, k, "LEFT", "LEFT"));
        Assert.Equal("*0\r\n", c.Call("LRANGE", k, "0", "-1"));
    }

    [Fact]
    public void Index_NegativeAndOutOfRange_ElementOrNil()
    {
        using var c = Server.Connect();
        var k = Key("index");
        Assert.Equal("$-1\r\n", c.Call("LINDEX", k, "notanumber"));
        c.Call("RPUSH", k, "a", "-12", "c");
        Assert.Equal("$1\r\na\r\n", c.Call("LINDEX", k, "0"));
        Assert.Equal("$3\r\n-12\r\n", c.Call("LINDEX", k, "-2"));
        Assert.Equal("$-1\r\n", c.Call("LINDEX", k, "3"));
        Assert.Equal("$-1\r\n", c.Call("LINDEX", k, "-4"));
        Assert.Equal(NotInteger, c.Call("LINDEX", k, "x"));
    }

    [Fact]
    public void Set_Errors_NoSuchKeyAndOutOfRange()
    {
        using var c = Server.Connect();
        var k = Key("lset");
        Assert.Equal("-ERR no such key\r\n", c.Call("LSET", k, "0", "x"));
        c.Call("RPUSH", k, "a", "b");
        Assert.Equal("+OK\r\n", c.Call("LSET", k, "-1", "z"));
        Assert.Equal("-ERR index out of range\r\n", c.Call("LSET", k, "2", "x"));
        Assert.Equal(NotInteger, c.Call("LSET", k, "one", "x"));
        Assert.Equal("*2\r\n$1\r\na\r\n$1\r\nz\r\n", c.Call("LRANGE", k, "0", "-1"));
    }

    [Fact]
    public void Insert_BeforeAfterMissingPivot_ReturnsLengthOrMinusOne()
    {
        using var c = Server.Connect();
        var k = Key("linsert");
        Assert.Equal(":0\r\n", c.Call("LINSERT", k, "BEFORE", "a", "b"));
        c.Call("RPUSH", k, "a", "c");
        Assert.Equal(":3\r\n", c.Call("LINSERT", k, "after", "a", "b"));
        Assert.Equal(":4\r\n", c.Call("LINSERT", k, "BEFORE", "a", "0"));
        Assert.Equal(":-1\r\n", c.Call("LINSERT", k, "BEFORE", "zz", "x"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("LINSERT", k, "NEAR", "a", "x"));
        Assert.Equal("*4\r\n$1\r\n0\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", c.Call("LRANGE", k, "0", "-1"));
    }

    [Fact]
    public void Rem_AndTrim_EmptiedListDeletesKey()
    {
        using var c = Server.Connect();
        var k = Key("lrem");
        c.Call("RPUSH", k, "a", "b", "a", "a");
        Assert.Equal(":2\r\n", c.Call("LREM", k, "-2", "a"));
        Assert.Equal("*2\r\n$1\r\na\r\n$1\r\nb\r\n", c.Call("LRANGE", k, "0", "-1"));
        Assert.Equal("+OK\r\n", c.Call("LTRIM", k, "1", "0"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", k));
        Assert.Equal("+OK\r\n", c.Call("LTRIM", k, "0", "1"));
        Assert.Equal(":0\r\n", c.Call("LREM", k, "0", "a"));
    }

    [Fact]
    public void Pos_RankCountMaxLen_AndErrorTexts()
    {
        using var c = Server.Connect();
        var k = Key("lpos");
        c.Call("RPUSH", k, "a", "b", "c", "1", "2", "3", "c", "c");
        Assert.Equal(":2\r\n", c.Call("LPOS", k, "c"));
        Assert.Equal(":6\r\n", c.Call("LPOS", k, "c", "RANK", "2"));
        Assert.Equal(":7\r\n", c.Call("LPOS", k, "c", "RANK", "-1"));
        Assert.Equal("*2\r\n:6\r\n:2\r\n", c.Call("LPOS", k, "c", "RANK", "-2", "COUNT", "0"));
        Assert.Equal("*0\r\n", c.Call("LPOS", k, "c", "MAXLEN", "2", "COUNT", "0"));
        Assert.Equal(":3\r\n", c.Call("LPOS", k, "1"));
        Assert.Equal("-ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list\r\n",
            c.Call("LPOS", k, "c", "RANK", "0"));
        // Redis 7.2's text for the one rank whose negation overflows.
        Assert.Equal("-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n",
            c.Call("LPOS", k, "c", "RANK", "-9223372036854775808"));
        Assert.Equal("-ERR COUNT can't be negative\r\n", c.Call("LPOS", k, "c", "COUNT", "-1"));
        Assert.Equal("-ERR MAXLEN can't be negative\r\n", c.Call("LPOS", k, "c", "MAXLEN", "x"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("LPOS", k, "c", "RANK"));
    }

    [Fact]
    public void MPop_ErrorsAndReplyShape()
    {
        using var c = Server.Connect();
        var k = Key("lmpop");
        var other = k + "2";
        c.Call("RPUSH", other, "x", "y", "z");
        Assert.Equal("*2\r\n$" + other.Length + "\r\n" + other + "\r\n*2\r\n$1\r\nz\r\n$1\r\ny\r\n",
            c.Call("LMPOP", "2", k, other, "RIGHT", "COUNT", "2"));
        Assert.Equal("-ERR numkeys should be greater than 0\r\n", c.Call("LMPOP", "0", k, "LEFT"));
        Assert.Equal("-ERR numkeys should be greater than 0\r\n", c.Call("LMPOP", "x", k, "LEFT"));
        Assert.Equal("-ERR count should be greater than 0\r\n", c.Call("LMPOP", "1", k, "LEFT", "COUNT", "0"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("LMPOP", "3", k, "LEFT"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("LMPOP", "1", k, "UP"));
        Assert.Equal("*-1\r\n", c.Call("LMPOP", "1", k, "LEFT"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void Move_SameList_Rotates()
    {
        using var c = Server.Connect();
        var k = Key("rotate");
        c.Call("RPUSH", k, "1", "2", "3");
        Assert.Equal("$1\r\n3\r\n", c.Call("RPOPLPUSH", k, k));
        Assert.Equal("$1\r\n3\r\n", c.Call("LMOVE", k, k, "LEFT", "RIGHT"));
        Assert.Equal("*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n", c.Call("LRANGE", k, "0", "-1"));
        Assert.Equal("$-1\r\n", c.Call("LMOVE", k + "none", k, "LEFT", "RIGHT"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("LMOVE", k, k, "LEFT", "UP"));
    }

    [Fact]
    public void WrongType_EveryCommand_RepliesWrongType()
    {
        using var c = Server.Connect();
        var s = Key("wrongtype");
        var l = s + "list";
        c.Call("SET", s, "v");
        c.Call("RPUSH", l, "a");
        string[][] commands =
        [
            ["LPUSH", s, "a"], ["RPUSH", s, "a"], ["LPUSHX", s, "a"], ["RPUSHX", s, "a"], ["LPOP", s], ["RPOP", s, "1"],
            ["LLEN", s], ["LRANGE", s, "0", "-1"], ["LINDEX", s, "0"], ["LSET", s, "0", "a"], ["LINSERT", s, "BEFORE", "a", "b"],
            ["LREM", s, "0", "a"], ["LTRIM", s, "0", "1"], ["LPOS", s, "a"], ["RPOPLPUSH", s, l], ["RPOPLPUSH", l, s],
            ["LMOVE", s, l, "LEFT", "LEFT"], ["LMOVE", l, s, "LEFT", "LEFT"], ["LMPOP", "1", s, "LEFT"], ["GET", l],
        ];
        foreach (var cmd in commands) Assert.Equal(WrongType, c.Call(cmd));
        // The failed moves left the source alone.
        Assert.Equal("*1\r\n$1\r\na\r\n", c.Call("LRANGE", l, "0", "-1"));
    }

    [Fact]
    public void Watch_OnlyRealChangesAbortExec()
    {
        using var watcher = Server.Connect();
        using var other = Server.Connect();
        var p = TestServer.KeyPrefix("lwatch");
        string empty = p + "empty", full = p + "full";
        other.Call("RPUSH", full, "a", "b");

        // Writes that change nothing keep the WATCH.
        watcher.Call("WATCH", empty, full);
        other.Call("LPUSHX", empty, "x");
        other.Call("LREM", full, "0", "nomatch");
        other.Call("LINSERT", full, "BEFORE", "nomatch", "x");
        other.Call("LPOP", full, "0");
        other.Call("LMPOP", "1", empty, "LEFT");
        watcher.Call("MULTI");
        watcher.Call("PING");
        Assert.Equal("*1\r\n+PONG\r\n", watcher.Call("EXEC"));

        // LMPOP touches only the key it popped from.
        watcher.Call("WATCH", empty);
        other.Call("LMPOP", "2", empty, full, "LEFT");
        watcher.Call("MULTI");
        watcher.Call("PING");
        Assert.Equal("*1\r\n+PONG\r\n", watcher.Call("EXEC"));
        watcher.Call("WATCH", full);
        other.Call("LMPOP", "2", empty, full, "LEFT");
        watcher.Call("MULTI");
        watcher.Call("PING");
        Assert.Equal("*-1\r\n", watcher.Call("EXEC"));
    }

    [Fact]
    public void Pipeline_ManyCommandsInOneWrite_RepliesInOrder()
    {
        using var c = Server.Connect();
        var k = Key("pipeline");
        var batch = new List<byte>();
        for (int i = 0; i < 50; i++) batch.AddRange(RespClient.Encode("RPUSH", k, "v" + i));
        batch.AddRange(RespClient.Encode("LRANGE", k, "48", "-1"));
        batch.AddRange(RespClient.Encode("LPOP", k, "x"));
        batch.AddRange(RespClient.Encode("PING"));
        c.SendRaw(batch.ToArray());
        for (int i = 0; i < 50; i++) Assert.Equal($":{i + 1}\r\n", c.ReadReply());
        Assert.Equal("*2\r\n$3\r\nv48\r\n$3\r\nv49\r\n", c.ReadReply());
        Assert.Equal("-ERR value is out of range, must be positive\r\n", c.ReadReply());
        Assert.Equal("+PONG\r\n", c.ReadReply());
    }

    [Fact]
    public void BigElements_RoundTrip()
    {
        using var c = Server.Connect();
        var k = Key("bigelements");
        var big = new string('q', 100_000);
        var mid = new string('m', 5000);
        c.Call("RPUSH", k, "small", big, mid, "-9223372036854775808");
        Assert.Equal($"${big.Length}\r\n{big}\r\n", c.Call("LINDEX", k, "1"));
        Assert.Equal($"${mid.Length}\r\n{mid}\r\n", c.Call("LINDEX", k, "-2"));
        Assert.Equal("$20\r\n-9223372036854775808\r\n", c.Call("RPOP", k));
        Assert.Equal("$5\r\nsmall\r\n", c.Call("LMOVE", k, k + "x", "LEFT", "LEFT"));
        Assert.Equal($"${big.Length}\r\n{big}\r\n", c.Call("LMOVE", k, k, "LEFT", "RIGHT"));
        Assert.Equal($"${big.Length}\r\n{big}\r\n", c.Call("LINDEX", k, "-1"));
        Assert.Equal(":1\r\n", c.Call("LREM", k, "0", big));
        Assert.Equal("*1\r\n$5000\r\n" + mid + "\r\n", c.Call("LRANGE", k, "0", "-1"));
    }
}
