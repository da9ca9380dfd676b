using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// DEBUG over the wire without a reference server: exact bytes for PROTOCOL in both protocols,
/// ERROR, digests pinned to values computed with Redis's algorithm outside this code base (a
/// Python SHA1 script; for strings also checked against redis-server), POPULATE, the settings
/// subcommands and the subcommands left out on purpose.
/// </summary>
public class DebugCommandTests : IAsyncLifetime
{
    private const string Zeros = "0000000000000000000000000000000000000000";
    private TestServer _server = null!;

    public Task InitializeAsync()
    {
        _server = TestServer.Start(4, "--enable-debug-command", "yes");
        return Task.CompletedTask;
    }

    public async Task DisposeAsync() => await _server.DisposeAsync();

    [Fact]
    public void Protocol_Resp2_RedisDowngrades()
    {
        using var c = _server.Connect();
        Assert.Equal("$11\r\nHello World\r\n", c.Call("DEBUG", "PROTOCOL", "string"));
        Assert.Equal(":12345\r\n", c.Call("DEBUG", "PROTOCOL", "integer"));
        Assert.Equal("$5\r\n3.141\r\n", c.Call("DEBUG", "PROTOCOL", "double"));
        Assert.Equal("$37\r\n1234567999999999999999999999999999999\r\n", c.Call("DEBUG", "PROTOCOL", "bignum"));
        Assert.Equal("$-1\r\n", c.Call("DEBUG", "PROTOCOL", "null"));
        Assert.Equal("*3\r\n:0\r\n:1\r\n:2\r\n", c.Call("DEBUG", "PROTOCOL", "array"));
        Assert.Equal("*3\r\n:0\r\n:1\r\n:2\r\n", c.Call("DEBUG", "PROTOCOL", "set"));
        Assert.Equal("*6\r\n:0\r\n:0\r\n:1\r\n:1\r\n:2\r\n:0\r\n", c.Call("DEBUG", "PROTOCOL", "map"));
        Assert.Equal("$39\r\nSome real reply following the attribute\r\n", c.Call("DEBUG", "PROTOCOL", "attrib"));
        Assert.Equal("-ERR RESP2 is not supported by this command\r\n", c.Call("DEBUG", "PROTOCOL", "push"));
        Assert.Equal("$25\r\nThis is a verbatim\nstring\r\n", c.Call("DEBUG", "PROTOCOL", "verbatim"));
        Assert.Equal(":1\r\n", c.Call("DEBUG", "PROTOCOL", "true"));
        Assert.Equal(":0\r\n", c.Call("DEBUG", "PROTOCOL", "FALSE"));
        Assert.Equal("-ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false\r\n",
            c.Call("DEBUG", "PROTOCOL", "nope"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void Protocol_Resp3_NativeTypes()
    {
        using var c = _server.Connect();
        c.Call("HELLO", "3");
        Assert.Equal("$11\r\nHello World\r\n", c.Call("DEBUG", "PROTOCOL", "string"));
        Assert.Equal(":12345\r\n", c.Call("DEBUG", "PROTOCOL", "integer"));
        Assert.Equal(",3.141\r\n", c.Call("DEBUG", "PROTOCOL", "double"));
        Assert.Equal("(1234567999999999999999999999999999999\r\n", c.Call("DEBUG", "PROTOCOL", "bignum"));
        Assert.Equal("_\r\n", c.Call("DEBUG", "PROTOCOL", "null"));
        Assert.Equal("*3\r\n:0\r\n:1\r\n:2\r\n", c.Call("DEBUG", "PROTOCOL", "array"));
        Assert.Equal("~3\r\n:0\r\n:1\r\n:2\r\n", c.Call("DEBUG", "PROTOCOL", "set"));
        Assert.Equal("%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n", c.Call("DEBUG", "PROTOCOL", "map"));
        Assert.Equal("|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n", c.Call("DEBUG", "PROTOCOL", "attrib"));
        Assert.Equal("$39\r\nSome real reply following the attribute\r\n", c.ReadReply());
        Assert.Equal(">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n", c.Call("DEBUG", "PROTOCOL", "push"));
        Assert.Equal("$40\r\nSome real reply following the push reply\r\n", c.ReadReply());
        Assert.Equal("=29\r\ntxt:This is a verbatim\nstring\r\n", c.Call("DEBUG", "PROTOCOL", "verbatim"));
        Assert.Equal("#t\r\n", c.Call("DEBUG", "PROTOCOL", "true"));
        Assert.Equal("#f\r\n", c.Call("DEBUG", "PROTOCOL", "false"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void Error_RepliesStringVerbatim_NotCountedAsFailure()
    {
        using var c = _server.Connect();
        c.Call("CONFIG", "RESETSTAT");
        Assert.Equal("-MYERR something went wrong\r\n", c.Call("DEBUG", "ERROR", "MYERR something went wrong"));
        Assert.Equal("-\r\n", c.Call("DEBUG", "ERROR", ""));
        Assert.Equal("-a  b\r\n", c.Call("DEBUG", "ERROR", "a\r\nb"));
        Assert.Equal("-ERR unknown subcommand or wrong number of arguments for 'ERROR'. Try DEBUG HELP.\r\n", c.Call("DEBUG", "ERROR"));
        // Redis writes DEBUG ERROR's reply as plain bytes: errorstats and failed_calls do not see it.
        string stats = c.Call("INFO", "errorstats");
        Assert.DoesNotContain("MYERR", stats);
        Assert.Contains("errorstat_ERR:count=1", stats);
        Assert.Contains("cmdstat_debug:calls=4,", c.Call("INFO", "commandstats"));
        Assert.Matches(@"cmdstat_debug:calls=4,.*failed_calls=1\r\n", c.Call("INFO", "commandstats"));
    }

    [Fact]
    public void Digest_EmptyServer_FortyZeros()
    {
        using var c = _server.Connect();
        c.Call("FLUSHALL");
        Assert.Equal($"+{Zeros}\r\n", c.Call("DEBUG", "DIGEST"));
        Assert.Equal("*0\r\n", c.Call("DEBUG", "DIGEST-VALUE"));
        Assert.Equal($"*2\r\n+{Zeros}\r\n+{Zeros}\r\n", c.Call("DEBUG", "DIGEST-VALUE", "a", "b"));
    }

    [Fact]
    public void Digest_KnownValues()
    {
        using var c = _server.Connect();
        c.Call("FLUSHALL");
        // Seen from redis-server for the same two keys.
        c.Call("SET", "a", "1");
        c.Call("SET", "b", "hello");
        Assert.Equal("+2539797405e828ad7a3aa48c536b3eaf2803a421\r\n", c.Call("DEBUG", "DIGEST"));

        // Computed with a Python script that follows Redis's debug.c.
        c.Call("RPUSH", "l", "a", "b", "1");
        c.Call("SET", "t", "hello", "EX", "1000");
        Assert.Equal("*2\r\n+981fd62c1655c074205cff40b800bd5a5bfdcd41\r\n+d037c4eb8a8b36b602fbced4000daeab0714c1e3\r\n",
            c.Call("DEBUG", "DIGEST-VALUE", "l", "t"));
        c.Call("FLUSHALL");
        c.Call("SET", "k", "v");
        c.Call("SELECT", "2");
        c.Call("ZADD", "z", "1.1", "a");
        Assert.Equal("+ef39950cce2ed87d9836683aa63fd66e3bb91217\r\n", c.Call("DEBUG", "DIGEST"));
    }

    [Fact]
    public void DigestValue_SortedSetScores_PrintedAsRedis72()
    {
        // Redis 7.2 digests scores in their shortest form with fpconv's layout ("1.1", "1e+8",
        // "0.00003"); 7.0 used %.17g ("1.1000000000000001"), so this is pinned here, not compared.
        using var c = _server.Connect();
        c.Call("ZADD", "scores72", "1.1", "a", "100000000", "b", "3e-5", "c");
        Assert.Equal("*1\r\n+438257088665e5aa1fb6fc18892114d4bd74eb84\r\n", c.Call("DEBUG", "DIGEST-VALUE", "scores72"));
    }

    [Fact]
    public async Task Digest_OrderRulesTtlAndShards()
    {
        using var c = _server.Connect();
        c.Call("FLUSHALL");
        c.Call("SADD", "s1", "a", "b", "c");
        c.Call("SADD", "s2", "c", "a", "b");
        c.Call("RPUSH", "l1", "a", "b");
        c.Call("RPUSH", "l2", "b", "a");
        c.Call("HSET", "h1", "f", "v", "g", "w");
        c.Call("HSET", "h2", "g", "w", "f", "v");
        string[] d = Lines(c.Call("DEBUG", "DIGEST-VALUE", "s1", "s2", "l1", "l2", "h1", "h2"));
        Assert.Equal(d[0], d[1]);
        Assert.NotEqual(d[2], d[3]);
        Assert.Equal(d[4], d[5]);

        string before = c.Call("DEBUG", "DIGEST");
        c.Call("EXPIRE", "s1", "1000");
        Assert.NotEqual(before, c.Call("DEBUG", "DIGEST"));
        c.Call("EXPIRE", "s1", "2000"); // only the presence of a TTL counts, not its value
        string withTtl = c.Call("DEBUG", "DIGEST");
        c.Call("PERSIST", "s1");
        Assert.Equal(before, c.Call("DEBUG", "DIGEST"));
        Assert.NotEqual(before, withTtl);

        // The same data in a server of one shard: the digest does not depend on where keys live.
        var script = new[]
        {
            new[] { "MSET", "k1", "v1", "k2", "v2", "{t}x", "1", "{t}y", "2" },
            ["RPUSH", "list", "1", "2", "three"],
            ["ZADD", "z", "1", "a", "2", "b"],
        };
        c.Call("FLUSHALL");
        foreach (var cmd in script) c.Call(cmd);
        string sharded = c.Call("DEBUG", "DIGEST");
        Assert.NotEqual($"+{Zeros}\r\n", sharded);
        var single = TestServer.Start(1, "--enable-debug-command", "yes");
        try
        {
            using var s = single.Connect();
            foreach (var cmd in script) s.Call(cmd);
            Assert.Equal(sharded, s.Call("DEBUG", "DIGEST"));
        }
        finally
        {
            await single.DisposeAsync();
        }
    }

    [Fact]
    public void Populate_CreatesKeysSkipsExistingAndChecksArguments()
    {
        using var c = _server.Connect();
        c.Call("FLUSHALL");
        c.Call("SET", "key:2", "mine");
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "POPULATE", "1000"));
        Assert.Equal(":1000\r\n", c.Call("DBSIZE"));
        Assert.Equal("*3\r\n$7\r\nvalue:0\r\n$4\r\nmine\r\n$9\r\nvalue:999\r\n", c.Call("MGET", "key:0", "key:2", "key:999"));
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "POPULATE", "2", "p", "10"));
        Assert.Equal("$10\r\nvalue:1\0\0\0\r\n", c.Call("GET", "p:1"));
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "POPULATE", "1", "q", "3"));
        Assert.Equal("$3\r\nval\r\n", c.Call("GET", "q:0"));
        // Key names are cut at 127 bytes, as Redis's 128-byte buffer cuts them.
        string longPrefix = new('x', 200);
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "POPULATE", "1", longPrefix));
        Assert.Equal("$7\r\nvalue:0\r\n", c.Call("GET", new string('x', 127)));
        c.Call("SELECT", "5");
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "POPULATE", "3"));
        Assert.Equal(":3\r\n", c.Call("DBSIZE"));

        const string NotPositive = "-ERR value is out of range, must be positive\r\n";
        Assert.Equal(NotPositive, c.Call("DEBUG", "POPULATE", "-1"));
        Assert.Equal(NotPositive, c.Call("DEBUG", "POPULATE", "x"));
        Assert.Equal(NotPositive, c.Call("DEBUG", "POPULATE", "1", "k", "-5"));
        Assert.Equal("-ERR OOM in dictTryExpand\r\n", c.Call("DEBUG", "POPULATE", "99999999999", "k", "-5"));
        Assert.Equal("-ERR unknown subcommand or wrong number of arguments for 'POPULATE'. Try DEBUG HELP.\r\n", c.Call("DEBUG", "POPULATE", "1", "a", "b", "c"));
        Assert.Equal(":3\r\n", c.Call("DBSIZE"));
    }

    [Fact]
    public void Populate_BreaksWatch()
    {
        using var c = _server.Connect();
        using var other = _server.Connect();
        c.Call("FLUSHALL");
        c.Call("WATCH", "w:1");
        Assert.Equal("+OK\r\n", other.Call("DEBUG", "POPULATE", "2", "w"));
        c.Call("MULTI");
        c.Call("PING");
        Assert.Equal("*-1\r\n", c.Call("EXEC"));
    }

    [Fact]
    public void Help_ListsExactlyTheSupportedSubcommands()
    {
        using var c = _server.Connect();
        string help = c.Call("DEBUG", "HELP");
        string[] lines = help.Split("\r\n", StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal($"*{lines.Length - 1}", lines[0]);
        Assert.Equal("+DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", lines[1]);
        Assert.Equal("+HELP", lines[^2]);
        Assert.StartsWith("+    ", lines[^1]);
        var names = lines.Skip(2).Where(l => !l.StartsWith("+ ")).Select(l => l.Substring(1).Split(' ')[0]).Distinct().ToArray();
        Assert.Equal(
            ["CHANGE-REPL-ID", "DIGEST", "DIGEST-VALUE", "ERROR", "LOG", "OBJECT", "POPULATE", "PROTOCOL", "RELOAD",
             "SET-ACTIVE-EXPIRE", "QUICKLIST-PACKED-THRESHOLD", "SLEEP", "STRINGMATCH-TEST", "LISTPACK", "QUICKLIST",
             "PAUSE-CRON", "REPLYBUFFER", "HELP"],
            names);
    }

    [Fact]
    public void LeftOutSubcommands_UnknownAndServerKeepsRunning()
    {
        using var c = _server.Connect();
        foreach (var sub in new[] { "SEGFAULT", "PANIC", "ASSERT", "OOM", "RESTART", "CRASH-AND-RECOVER", "LOADAOF",
                     "SDSLEN", "LEAK", "JMAP", "STRUCTSIZE", "HTSTATS", "CLIENT-EVICTION", "SET-DISABLE-DENY-SCRIPTS" })
        {
            Assert.Equal($"-ERR unknown subcommand or wrong number of arguments for '{sub}'. Try DEBUG HELP.\r\n", c.Call("DEBUG", sub));
            Assert.Equal($"-ERR unknown subcommand or wrong number of arguments for '{sub}'. Try DEBUG HELP.\r\n", c.Call("DEBUG", sub, "1"));
        }
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void SettingsSubcommands_CheckedAndApplied()
    {
        using var c = _server.Connect();
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "PAUSE-CRON", "1"));
        Assert.True(_server.Server.Shards[3].CronPaused);
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "PAUSE-CRON", "0"));
        Assert.False(_server.Server.Shards[0].CronPaused);
        // atoi: 4294967296 is 0 once cut to an int, "2x" is 2.
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "4294967296"));
        Assert.False(_server.Server.Shards[0].ActiveExpiry);
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "2x"));
        Assert.True(_server.Server.Shards[0].ActiveExpiry);

        string before = ReplId(c);
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "CHANGE-REPL-ID"));
        string after = ReplId(c);
        Assert.Matches("^[0-9a-f]{40}$", after);
        Assert.NotEqual(before, after);

        Assert.Equal("+OK\r\n", c.Call("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "4095mb"));
        Assert.Equal("-ERR argument must be a memory value bigger than 1 and smaller than 4gb\r\n", c.Call("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "4gb"));
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "NEVER"));
        Assert.Equal("-ERR value is not an integer or out of range\r\n", c.Call("DEBUG", "REPLYBUFFER", "PEAK-RESET-TIME", "soon"));
        Assert.Equal("-ERR unknown subcommand or wrong number of arguments for 'REPLYBUFFER'. Try DEBUG HELP.\r\n", c.Call("DEBUG", "REPLYBUFFER", "SIZE", "1"));
        Assert.Equal("+Apparently Redis did not crash: test passed\r\n", c.Call("DEBUG", "STRINGMATCH-TEST"));
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "LOG", "hello from a test"));
    }

    [Fact]
    public void ListpackAndQuicklist_ByEncoding()
    {
        using var c = _server.Connect();
        c.Call("DEL", "small", "large", "str");
        c.Call("RPUSH", "small", "a", "b");
        c.Call(["RPUSH", "large", .. Enumerable.Range(0, 1000).Select(i => $"element-{i}")]);
        c.Call("SET", "str", "x");
        Assert.Equal("+Listpack structure printed on stdout\r\n", c.Call("DEBUG", "LISTPACK", "small"));
        Assert.Equal("-ERR Not a listpack encoded object.\r\n", c.Call("DEBUG", "LISTPACK", "large"));
        Assert.Equal("-ERR Not a listpack encoded object.\r\n", c.Call("DEBUG", "LISTPACK", "str"));
        Assert.Equal("-ERR no such key\r\n", c.Call("DEBUG", "LISTPACK", "nosuch"));
        Assert.Equal("+Quicklist structure printed on stdout\r\n", c.Call("DEBUG", "QUICKLIST", "large", "1"));
        Assert.Equal("-ERR Not a quicklist encoded object.\r\n", c.Call("DEBUG", "QUICKLIST", "small"));
        Assert.Matches(@" ql_nodes:\d+ ql_avg_node:\d+\.\d\d ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:\d+\r\n$",
            c.Call("DEBUG", "OBJECT", "large"));
        Assert.DoesNotContain("ql_", c.Call("DEBUG", "OBJECT", "small"));
    }

    private static string ReplId(RespClient c)
        => Regex.Match(c.Call("INFO", "replication"), @"master_replid:([0-9a-f]+)\r\n").Groups[1].Value;

    private static string[] Lines(string arrayOfStatus)
        => arrayOfStatus.Split("\r\n", StringSplitOptions.RemoveEmptyEntries).Skip(1).ToArray();

    [Fact]
    public void Errors_NulInName_HugePopulateSize()
    {
        using var c = _server.Connect();
        // %s in Redis's error stops at the NUL.
        Assert.Equal("-ERR unknown subcommand or wrong number of arguments for 'nosuch'. Try DEBUG HELP.\r\n",
            c.Call(System.Text.Encoding.Latin1.GetBytes("DEBUG"), System.Text.Encoding.Latin1.GetBytes("nosuch\0x")));
        Assert.Equal("-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n",
            c.Call("DEBUG", "POPULATE", "1", "huge:", "10000000000"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", "huge:0"));
    }
}
