using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Strings;

/// <summary>
/// Valkey's conditional writes: SET ... IFEQ comparison-value (Valkey 8.1) and DELIFEQ key value
/// (Valkey 9.0). No reference server has them here (Debian's redis-server is 7.0), so the facts come
/// from Valkey's t_string.c, its command JSON and tests/unit/type/string.tcl: IFEQ needs the key to
/// exist and hold a string equal to the comparison value (WRONGTYPE for another type, nil on a
/// mismatch or a missing key), excludes NX and XX, combines with GET and the expiry options; DELIFEQ
/// replies 1 or 0 and propagates as DEL.
/// </summary>
public class SetIfEqTests
{
    private static TestServer Server => TestServer.Shared;

    private static string K(string name) => $"ifeq:{Guid.NewGuid():N}:{name}";

    // ---------------------------------------------------------------- SET ... IFEQ

    [Fact]
    public void SetIfEq_MatchMismatchMissing_SetsOnlyOnMatch()
    {
        using var c = Server.Connect();
        string k = K("a");
        Assert.Equal("$-1\r\n", c.Call("SET", k, "v1", "IFEQ", "anything"));
        Assert.Equal("$-1\r\n", c.Call("GET", k)); // a missing key is not created
        c.Call("SET", k, "initial");
        Assert.Equal("+OK\r\n", c.Call("SET", k, "new", "IFEQ", "initial"));
        Assert.Equal("$3\r\nnew\r\n", c.Call("GET", k));
        Assert.Equal("$-1\r\n", c.Call("SET", k, "other", "ifeq", "wrong"));
        Assert.Equal("$-1\r\n", c.Call("SET", k, "other", "IfEq", "NEW")); // byte for byte, case counts
        Assert.Equal("$-1\r\n", c.Call("SET", k, "other", "IFEQ", "ne"));
        Assert.Equal("$3\r\nnew\r\n", c.Call("GET", k));
        // An integer-encoded value compares as its digits; an empty value is a value like any other.
        c.Call("SET", k, "10");
        Assert.Equal("$-1\r\n", c.Call("SET", k, "x", "IFEQ", "010"));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "", "IFEQ", "10"));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "y", "IFEQ", ""));
        Assert.Equal("$1\r\ny\r\n", c.Call("GET", k));
    }

    [Fact]
    public void SetIfEq_OtherType_WrongTypeAndKeyKept()
    {
        using var c = Server.Connect();
        string k = K("set");
        c.Call("SADD", k, "some_set_value");
        const string wrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
        Assert.Equal(wrongType, c.Call("SET", k, "new", "IFEQ", "some_set_value"));
        Assert.Equal(wrongType, c.Call("SET", k, "new", "IFEQ", "x", "GET"));
        Assert.Equal(wrongType, c.Call("SET", k, "new", "GET", "IFEQ", "x", "EX", "10"));
        Assert.Equal("+set\r\n", c.Call("TYPE", k));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void SetIfEq_WithGet_OldValueWhetherOrNotSet()
    {
        using var c = Server.Connect();
        string k = K("get");
        Assert.Equal("$-1\r\n", c.Call("SET", k, "new", "IFEQ", "initial", "GET"));
        Assert.Equal("$-1\r\n", c.Call("GET", k));
        c.Call("SET", k, "initial");
        Assert.Equal("$7\r\ninitial\r\n", c.Call("SET", k, "new", "GET", "IFEQ", "wrong"));
        Assert.Equal("$7\r\ninitial\r\n", c.Call("GET", k));
        Assert.Equal("$7\r\ninitial\r\n", c.Call("SET", k, "new", "IFEQ", "initial", "GET"));
        Assert.Equal("$3\r\nnew\r\n", c.Call("GET", k));
    }

    [Fact]
    public void SetIfEq_Syntax_ExcludesNxXxAndNeedsAValue()
    {
        using var c = Server.Connect();
        string k = K("syntax");
        c.Call("SET", k, "v");
        const string syntax = "-ERR syntax error\r\n";
        Assert.Equal(syntax, c.Call("SET", k, "n", "IFEQ", "v", "XX"));
        Assert.Equal(syntax, c.Call("SET", k, "n", "IFEQ", "v", "NX"));
        Assert.Equal(syntax, c.Call("SET", k, "n", "XX", "IFEQ", "v"));
        Assert.Equal(syntax, c.Call("SET", k, "n", "nx", "ifeq", "v"));
        Assert.Equal(syntax, c.Call("SET", k, "n", "IFEQ"));
        Assert.Equal(syntax, c.Call("SET", k, "n", "GET", "IFEQ"));
        Assert.Equal(syntax, c.Call("SET", k, "n", "IFEQ", "v", "EX"));
        Assert.Equal(syntax, c.Call("SET", k, "n", "IFEQ", "v", "KEEPTTL", "EX", "10"));
        // Not a GETEX option.
        Assert.Equal(syntax, c.Call("GETEX", k, "IFEQ", "v"));
        // The comparison value is taken as it is, even when it spells an option.
        c.Call("SET", k, "NX");
        Assert.Equal("+OK\r\n", c.Call("SET", k, "n", "IFEQ", "NX"));
        // Given twice, the last one counts.
        Assert.Equal("+OK\r\n", c.Call("SET", k, "m", "IFEQ", "zzz", "IFEQ", "n"));
        Assert.Equal("$1\r\nm\r\n", c.Call("GET", k));
        // The expire value is checked before the key is looked at.
        Assert.Equal("-ERR invalid expire time in 'set' command\r\n", c.Call("SET", k, "n", "IFEQ", "nope", "EX", "0"));
        Assert.Equal("$1\r\nm\r\n", c.Call("GET", k));
    }

    [Fact]
    public void SetIfEq_WithExpiryOptions_AsPlainSet()
    {
        using var c = Server.Connect();
        string k = K("ttl");
        c.Call("SET", k, "a", "EX", "1000");
        Assert.Equal("+OK\r\n", c.Call("SET", k, "b", "IFEQ", "a", "KEEPTTL"));
        Assert.NotEqual(":-1\r\n", c.Call("TTL", k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "c", "IFEQ", "b"));
        Assert.Equal(":-1\r\n", c.Call("TTL", k)); // a successful SET drops the TTL unless KEEPTTL
        Assert.Equal("+OK\r\n", c.Call("SET", k, "d", "IFEQ", "c", "PX", "500000"));
        Assert.Equal("$-1\r\n", c.Call("SET", k, "e", "IFEQ", "c", "PX", "1"));
        Assert.Equal("$1\r\nd\r\n", c.Call("GET", k));
        // A match with an absolute time in the past: OK, and the key is gone.
        Assert.Equal("+OK\r\n", c.Call("SET", k, "e", "IFEQ", "d", "PXAT", "1"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", k));
    }

    [Fact]
    public void SetIfEq_InMultiAndScripts_SameOutcome()
    {
        using var c = Server.Connect();
        string k = K("tx");
        c.Call("SET", k, "v");
        Assert.Equal("+OK\r\n", c.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", c.Call("SET", k, "w", "IFEQ", "v"));
        Assert.Equal("+QUEUED\r\n", c.Call("SET", k, "x", "IFEQ", "v"));
        Assert.Equal("*2\r\n+OK\r\n$-1\r\n", c.Call("EXEC"));
        Assert.Equal("+OK\r\n", c.Call("EVAL", "return redis.call('SET', KEYS[1], 'y', 'IFEQ', 'w')", "1", k));
        Assert.Equal("$1\r\ny\r\n", c.Call("GET", k));
    }

    [Fact]
    public async Task SetIfEq_Propagation_PlainSetWithoutIfEq()
    {
        await using var server = TestServer.Start(2);
        var recorder = new PropagationRecorder();
        server.Server.PropagationListener = recorder;
        using var c = server.Connect();
        c.Call("SET", "k", "a");
        c.Call("SET", "k", "b", "IFEQ", "a");
        c.Call("SET", "k", "c", "IFEQ", "zz"); // stopped: nothing
        c.Call("SET", "k", "GET", "IFEQ", "b", "GET");
        c.Call("SET", "k", "d", "GET", "IFEQ", "GET");
        c.Call("SET", "k", "e", "IFEQ", "d", "KEEPTTL");
        c.Call("SET", "k", "f", "IFEQ", "e", "PXAT", "99999999999999");
        c.Call("SET", "k", "g", "IFEQ", "f", "EXAT", "99999999999");
        c.Call("SET", "k", "h", "IFEQ", "g", "PXAT", "1"); // born expired: the key goes
        c.Call("SET", "k", "i", "IFEQ", "nothing-there");
        Assert.Equal(
            [
                "0 SET k a", "0 SET k b", "0 SET k GET", "0 SET k d", "0 SET k e KEEPTTL",
                "0 SET k f PXAT 99999999999999", "0 SET k g PXAT 99999999999000", "0 DEL k",
            ],
            recorder.Take());
    }

    [Fact]
    public void SetIfEq_KeysAndFlagsAndAcl_ReadsTheValue()
    {
        using var c = Server.Connect();
        Assert.Equal("*1\r\n*2\r\n$1\r\nk\r\n*3\r\n+RW\r\n+access\r\n+update\r\n", c.Call("COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v", "IFEQ", "x"));
        Assert.Equal("*1\r\n*2\r\n$1\r\nk\r\n*2\r\n+OW\r\n+update\r\n", c.Call("COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v", "EX", "10"));
        string docs = c.Call("COMMAND", "DOCS", "set");
        Assert.Contains("$4\r\nname\r\n$16\r\ncomparison-value\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\ntoken\r\n$4\r\nIFEQ\r\n$5\r\nsince\r\n$5\r\n8.1.0\r\n", docs);
    }

    [Fact]
    public async Task SetIfEqAndDelIfEq_WriteOnlyKeyPermission_NoPerm()
    {
        await using var server = TestServer.Start(2);
        using var admin = server.Connect();
        admin.Call("SET", "w1", "v");
        Assert.Equal("+OK\r\n", admin.Call("ACL", "SETUSER", "wo", "on", ">pw", "%W~w*", "%RW~rw*", "+@all"));
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("AUTH", "wo", "pw"));
        const string noPerm = "-NOPERM No permissions to access a key\r\n";
        // A plain SET only writes; IFEQ and DELIFEQ tell whether the value equals a guess, so they read.
        Assert.Equal("+OK\r\n", c.Call("SET", "w1", "v"));
        Assert.Equal(noPerm, c.Call("SET", "w1", "x", "IFEQ", "v"));
        Assert.Equal(noPerm, c.Call("DELIFEQ", "w1", "v"));
        Assert.Equal("$-1\r\n", c.Call("SET", "rw1", "x", "IFEQ", "v"));
        Assert.Equal(":0\r\n", c.Call("DELIFEQ", "rw1", "v"));
        // The same check inside MULTI and scripts.
        Assert.Equal("+OK\r\n", c.Call("MULTI"));
        Assert.Equal(noPerm, c.Call("SET", "w1", "x", "IFEQ", "v"));
        Assert.Equal(noPerm, c.Call("DELIFEQ", "w1", "v"));
        Assert.StartsWith("-EXECABORT", c.Call("EXEC"));
        Assert.Contains("No permissions to access a key",
            c.Call("EVAL", "return redis.pcall('SET', KEYS[1], 'x', 'IFEQ', 'v')", "1", "w1"));
        Assert.Contains("No permissions to access a key",
            c.Call("EVAL", "return redis.pcall('DELIFEQ', KEYS[1], 'v')", "1", "w1"));
        Assert.Equal("$1\r\nv\r\n", admin.Call("GET", "w1"));
    }

    // ---------------------------------------------------------------- DELIFEQ

    [Fact]
    public void DelIfEq_MissingMatchMismatchWrongType()
    {
        using var c = Server.Connect();
        string k = K("del");
        Assert.Equal(":0\r\n", c.Call("DELIFEQ", k, "test"));
        c.Call("SET", k, "test");
        Assert.Equal(":0\r\n", c.Call("DELIFEQ", k, "TEST"));
        Assert.Equal(":0\r\n", c.Call("DELIFEQ", k, "tes"));
        Assert.Equal(":1\r\n", c.Call("DELIFEQ", k, "test"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", k));
        Assert.Equal(":0\r\n", c.Call("DELIFEQ", k, "test"));
        c.Call("SET", k, "12345");
        Assert.Equal(":1\r\n", c.Call("delifeq", k, "12345"));
        c.Call("SADD", k, "test");
        Assert.Equal("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", c.Call("DELIFEQ", k, "test"));
        Assert.Equal(":1\r\n", c.Call("EXISTS", k));
        Assert.Equal("-ERR wrong number of arguments for 'delifeq' command\r\n", c.Call("DELIFEQ", k));
        Assert.Equal("-ERR wrong number of arguments for 'delifeq' command\r\n", c.Call("DELIFEQ", k, "a", "b"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void DelIfEq_ExpiredKey_CountsAsMissing()
    {
        using var c = Server.Connect();
        string k = K("exp");
        c.Call("SET", k, "v", "PX", "1");
        Eventually.Wait(() => c.Call("PTTL", k) == ":-2\r\n", () => "the key has not expired");
        Assert.Equal(":0\r\n", c.Call("DELIFEQ", k, "v"));
    }

    [Fact]
    public void DelIfEq_Watched_MatchAbortsExecMismatchDoesNot()
    {
        using var c = Server.Connect();
        using var other = Server.Connect();
        string k = K("watch");
        c.Call("SET", k, "v");
        c.Call("WATCH", k);
        Assert.Equal(":0\r\n", other.Call("DELIFEQ", k, "nope"));
        c.Call("MULTI");
        c.Call("PING");
        Assert.Equal("*1\r\n+PONG\r\n", c.Call("EXEC"));
        c.Call("WATCH", k);
        Assert.Equal(":1\r\n", other.Call("DELIFEQ", k, "v"));
        c.Call("MULTI");
        c.Call("PING");
        Assert.Equal("*-1\r\n", c.Call("EXEC"));
    }

    [Fact]
    public async Task DelIfEq_PropagatesAsDel_EventDel()
    {
        await using var server = TestServer.Start(2);
        var recorder = new PropagationRecorder();
        server.Server.PropagationListener = recorder;
        using var c = server.Connect();
        using var sub = server.Connect();
        c.Call("CONFIG", "SET", "notify-keyspace-events", "KEA");
        sub.Call("PSUBSCRIBE", "__key*@0__:*");
        c.Call("SET", "k", "bar");
        c.Call("DELIFEQ", "k", "nope");
        c.Call("DELIFEQ", "k", "bar");
        Assert.Equal(["0 SET k bar", "0 DEL k"], recorder.Take());
        c.Call("PUBLISH", "__keyspace@0__:k", "end"); // matched by the pattern too: the end of the events
        var got = new List<string>();
        for (int i = 0; i < 100; i++)
        {
            // *4 $8 pmessage $n pattern $n channel $n payload
            var parts = sub.ReadReply().Split("\r\n");
            string text = parts[6] + " " + parts[8];
            if (text == "__keyspace@0__:k end") break;
            got.Add(text);
        }
        Assert.Equal(["__keyspace@0__:k set", "__keyevent@0__:set k", "__keyspace@0__:k del", "__keyevent@0__:del k"], got);
    }

    [Fact]
    public void CommandInfo_DelIfEq_ValkeysRow()
    {
        using var c = Server.Connect();
        Assert.Equal("*1\r\n*10\r\n$7\r\ndelifeq\r\n:3\r\n*2\r\n+write\r\n+fast\r\n:1\r\n:1\r\n:1\r\n"
            + "*3\r\n+@write\r\n+@string\r\n+@fast\r\n*0\r\n"
            + "*1\r\n*6\r\n$5\r\nflags\r\n*3\r\n+RM\r\n+access\r\n+delete\r\n"
            + "$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n"
            + "$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n"
            + "*0\r\n",
            c.Call("COMMAND", "INFO", "delifeq"));
        Assert.Equal("*1\r\n*2\r\n$1\r\nk\r\n*3\r\n+RM\r\n+access\r\n+delete\r\n", c.Call("COMMAND", "GETKEYSANDFLAGS", "DELIFEQ", "k", "v"));
        string docs = c.Call("COMMAND", "DOCS", "delifeq");
        Assert.Contains("$5\r\nsince\r\n$5\r\n9.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n", docs);
        Assert.EndsWith("$9\r\narguments\r\n*2\r\n*6\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n"
            + "*4\r\n$4\r\nname\r\n$5\r\nvalue\r\n$4\r\ntype\r\n$6\r\nstring\r\n", docs);
    }
}
