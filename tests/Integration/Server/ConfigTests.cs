using RedisClone.Server;
using RedisClone.Server.Config;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// CONFIG GET/SET/RESETSTAT/REWRITE/HELP over the wire, and the registry's parsing rules. Tests
/// that change settings start a private server so the shared one keeps its defaults.
/// </summary>
public class ConfigTests
{
    private static string Pair(string name, string value) => $"*2\r\n${name.Length}\r\n{name}\r\n${value.Length}\r\n{value}\r\n";

    [Theory]
    [InlineData("databases", "16")]
    [InlineData("maxmemory", "0")]
    [InlineData("maxmemory-policy", "noeviction")]
    [InlineData("appendonly", "no")]
    [InlineData("appendfsync", "everysec")]
    [InlineData("timeout", "0")]
    [InlineData("tcp-keepalive", "300")]
    [InlineData("proto-max-bulk-len", "536870912")]
    [InlineData("client-query-buffer-limit", "1073741824")]
    [InlineData("hz", "10")]
    [InlineData("notify-keyspace-events", "")]
    [InlineData("list-max-listpack-size", "-2")]
    [InlineData("list-max-ziplist-size", "-2")]
    [InlineData("list-compress-depth", "0")]
    [InlineData("hash-max-listpack-entries", "512")]
    [InlineData("hash-max-ziplist-value", "64")]
    [InlineData("set-max-intset-entries", "512")]
    [InlineData("set-max-listpack-entries", "128")]
    [InlineData("set-max-listpack-value", "64")]
    [InlineData("zset-max-listpack-entries", "128")]
    [InlineData("zset-max-ziplist-value", "64")]
    [InlineData("lua-time-limit", "5000")]
    [InlineData("busy-reply-threshold", "5000")]
    [InlineData("slowlog-log-slower-than", "10000")]
    [InlineData("slowlog-max-len", "128")]
    [InlineData("latency-monitor-threshold", "0")]
    [InlineData("dbfilename", "dump.rdb")]
    [InlineData("activerehashing", "yes")]
    [InlineData("lazyfree-lazy-user-del", "no")]
    [InlineData("loglevel", "notice")]
    [InlineData("logfile", "")]
    [InlineData("protected-mode", "yes")]
    [InlineData("io-threads", "1")]
    [InlineData("cluster-enabled", "no")]
    [InlineData("replica-read-only", "yes")]
    [InlineData("slave-read-only", "yes")]
    [InlineData("maxclients", "10000")]
    [InlineData("enable-debug-command", "no")]
    [InlineData("client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60")]
    public void ConfigGet_Defaults_AsRedis(string name, string value)
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal(Pair(name, value), c.Call("CONFIG", "GET", name));
    }

    [Fact]
    public void ConfigGet_PortBindDir_ReflectTheRunningServer()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal(Pair("port", TestServer.Shared.Port.ToString()), c.Call("CONFIG", "GET", "port"));
        Assert.Equal(Pair("bind", "127.0.0.1"), c.Call("CONFIG", "GET", "bind"));
        // Test servers get a directory of their own (see TestServer.Start).
        Assert.Equal(Pair("dir", TestServer.Shared.Server.Config.Dir), c.Call("CONFIG", "GET", "dir"));
    }

    /// <summary>Save points default to Redis's; test servers run without them, so a server is started here with no options.</summary>
    [Fact]
    public async Task ConfigGet_SaveDefault_AsRedis()
    {
        var server = new RedisServer(ServerOptions.Parse(["--port", "0", "--bind", "127.0.0.1", "--dir", Directory.CreateTempSubdirectory("redisclone-test-").FullName]));
        await using var _ = server;
        server.Start();
        using var c = new RespClient(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, server.Port));
        Assert.Equal(Pair("save", "3600 1 300 100 60 10000"), c.Call("CONFIG", "GET", "save"));
    }

    [Fact]
    public void ConfigGet_NamesAsTypedPatternsAndUnknown()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal(Pair("MAXMEMORY", "0"), c.Call("CONFIG", "GET", "MAXMEMORY"));
        Assert.Equal(Pair("maxmemory", "0"), c.Call("CONFIG", "GET", "maxmemory", "MAXMEMORY"));
        Assert.Equal("*0\r\n", c.Call("CONFIG", "GET", "no-such-parameter"));
        Assert.Equal("*0\r\n", c.Call("CONFIG", "GET", "no-such-*"));
        // Both the name and its alias match a pattern.
        Assert.Equal("*4\r\n$17\r\nreplica-read-only\r\n$3\r\nyes\r\n$15\r\nslave-read-only\r\n$3\r\nyes\r\n",
            c.Call("CONFIG", "GET", "*read-only"));
        string many = c.Call("CONFIG", "GET", "maxmemory*", "hz", "maxmemory");
        Assert.StartsWith("*12\r\n", many); // maxmemory, -clients, -eviction-tenacity, -policy, -samples, hz
        Assert.Contains("$2\r\nhz\r\n$2\r\n10\r\n", many);
        string all = c.Call("CONFIG", "GET", "*");
        Assert.Contains("$9\r\ndatabases\r\n$2\r\n16\r\n", all);
        Assert.True(int.Parse(all.Substring(1, all.IndexOf('\r') - 1)) > 300);
        Assert.Equal("-ERR wrong number of arguments for 'config|get' command\r\n", c.Call("CONFIG", "GET"));
    }

    [Fact]
    public void ConfigGet_Resp3_Map()
    {
        using var c = TestServer.Shared.Connect();
        c.Call("HELLO", "3");
        Assert.Equal("%1\r\n$9\r\ndatabases\r\n$2\r\n16\r\n", c.Call("CONFIG", "GET", "databases"));
        Assert.Equal("%0\r\n", c.Call("CONFIG", "GET", "nothing-here"));
    }

    [Fact]
    public async Task ConfigSet_RoundTrips_InCanonicalForm()
    {
        await using var server = TestServer.Start(shards: 1);
        using var c = server.Connect();
        (string Name, string Set, string Get)[] cases =
        [
            ("maxmemory", "1gb", "1073741824"),
            ("maxmemory", "100mb", "104857600"),
            ("maxmemory", "5KB", "5120"),
            ("maxmemory", "2k", "2000"),
            ("maxmemory", "", "0"),
            ("maxmemory-policy", "ALLKEYS-LRU", "allkeys-lru"),
            ("timeout", "300", "300"),
            ("hz", "0", "1"),
            ("hz", "100000", "500"),
            ("hz", "20", "20"),
            ("appendfsync", "Always", "always"),
            ("activerehashing", "NO", "no"),
            ("zset-max-ziplist-entries", "100", "100"),
            ("replica-read-only", "yes", "yes"),
            ("save", "900 1 300 10", "900 1 300 10"),
            ("save", "", ""),
            ("notify-keyspace-events", "KEA", "AKE"),
            ("notify-keyspace-events", "Kx", "xK"),
            ("notify-keyspace-events", "Eg$", "g$E"),
            ("notify-keyspace-events", "Anm", "Am"),
            ("notify-keyspace-events", "", ""),
            ("client-output-buffer-limit", "normal 1mb 2mb 3", "normal 1048576 2097152 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
            ("client-output-buffer-limit", "replica 1 2 3 pubsub 4 5 6", "normal 1048576 2097152 3 slave 1 2 3 pubsub 4 5 6"),
            ("maxmemory-clients", "10%", "10%"),
            ("maxmemory-clients", "0", "0"),
            ("list-max-ziplist-size", "-5", "-5"),
            ("hash-max-ziplist-entries", "1000", "1000"),
            ("proto-max-bulk-len", "1mb", "1048576"),
            ("oom-score-adj", "no", "no"),
            ("maxclients", "500", "500"),
            ("slowlog-log-slower-than", "-1", "-1"),
            ("loglevel", "WARNING", "warning"),
        ];
        foreach (var (name, set, get) in cases)
        {
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", name, set));
            Assert.Equal(Pair(name, get), c.Call("CONFIG", "GET", name));
        }
        // The alias reads the same value.
        Assert.Equal(Pair("hash-max-listpack-entries", "1000"), c.Call("CONFIG", "GET", "hash-max-listpack-entries"));
        Assert.Equal(500, server.Server.Options.MaxClients);
        Assert.Equal(1048576, server.Server.Config.ProtoMaxBulkLen);
        Assert.Equal(20, server.Server.Config.Hz);
    }

    [Fact]
    public async Task ConfigSet_SeveralPairs_AllOrNothing()
    {
        await using var server = TestServer.Start(shards: 1);
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "hz", "15", "timeout", "60", "maxmemory", "1mb"));
        Assert.Equal(Pair("hz", "15"), c.Call("CONFIG", "GET", "hz"));
        Assert.Equal(Pair("timeout", "60"), c.Call("CONFIG", "GET", "timeout"));
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value\r\n",
            c.Call("CONFIG", "SET", "hz", "30", "timeout", "90", "maxmemory", "lots"));
        Assert.Equal(Pair("hz", "15"), c.Call("CONFIG", "GET", "hz"));
        Assert.Equal(Pair("timeout", "60"), c.Call("CONFIG", "GET", "timeout"));
        // An alias is a parameter of its own: naming both is not a duplicate, the last one wins.
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "hash-max-ziplist-entries", "7", "hash-max-listpack-entries", "8"));
        Assert.Equal(Pair("hash-max-ziplist-entries", "8"), c.Call("CONFIG", "GET", "hash-max-ziplist-entries"));
    }

    [Fact]
    public async Task ConfigSet_Errors_ExactRedisTexts()
    {
        await using var server = TestServer.Start(shards: 1);
        using var c = server.Connect();
        (string[] Args, string Error)[] cases =
        [
            (["foo", "bar"], "Unknown option or number of arguments for CONFIG SET - 'foo'"),
            (["maxmemory", "x", "foo", "bar"], "Unknown option or number of arguments for CONFIG SET - 'foo'"),
            (["foo", "bar", "maxmemory", "x"], "Unknown option or number of arguments for CONFIG SET - 'foo'"),
            (["maxmemory", "foo"], "CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value"),
            (["MAXMEMORY", "-1"], "CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value"),
            (["maxmemory", "1.5gb"], "CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value"),
            (["hz", "x"], "CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer"),
            (["hz", "-5"], "CONFIG SET failed (possibly related to argument 'hz') - argument must be between 0 and 2147483647 inclusive"),
            (["hz", "5", "HZ", "6"], "CONFIG SET failed (possibly related to argument 'HZ') - duplicate parameter"),
            (["databases", "5"], "CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config"),
            (["DATABASES", "5"], "CONFIG SET failed (possibly related to argument 'DATABASES') - can't set immutable config"),
            (["unixsocket", "/tmp/x.sock"], "CONFIG SET failed (possibly related to argument 'unixsocket') - can't set immutable config"),
            (["io-threads", "2"], "CONFIG SET failed (possibly related to argument 'io-threads') - can't set immutable config"),
            (["cluster-enabled", "yes"], "CONFIG SET failed (possibly related to argument 'cluster-enabled') - can't set immutable config"),
            (["dir", "/tmp"], "CONFIG SET failed (possibly related to argument 'dir') - can't set protected config"),
            (["dbfilename", "x.rdb"], "CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config"),
            (["SLAVE-READ-ONLY", "x"], "CONFIG SET failed (possibly related to argument 'slave-read-only') - argument must be 'yes' or 'no'"),
            (["maxmemory-policy", "foo"], "CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"),
            (["appendfsync", "x"], "CONFIG SET failed (possibly related to argument 'appendfsync') - argument(s) must be one of the following: everysec, always, no"),
            (["maxclients", "-1"], "CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive"),
            (["hash-max-listpack-entries", "-1"], "CONFIG SET failed (possibly related to argument 'hash-max-listpack-entries') - argument must be between 0 and 9223372036854775807 inclusive"),
            (["proto-max-bulk-len", "10"], "CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be between 1048576 and 9223372036854775807 inclusive"),
            (["list-max-listpack-size", "-99999999999"], "CONFIG SET failed (possibly related to argument 'list-max-listpack-size') - argument must be between -2147483648 and 2147483647 inclusive"),
            (["maxmemory-clients", "101%"], "CONFIG SET failed (possibly related to argument 'maxmemory-clients') - percentage argument must be less or equal to 100"),
            (["maxmemory-clients", "x"], "CONFIG SET failed (possibly related to argument 'maxmemory-clients') - argument must be a memory or percent value"),
            (["save", "10"], "CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"),
            (["save", "0 5"], "CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"),
            (["save", "100  5"], "CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters"),
            (["notify-keyspace-events", "q"], "CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'."),
            (["client-output-buffer-limit", "normal 1mb 2mb"], "CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Wrong number of arguments in buffer limit configuration."),
            (["client-output-buffer-limit", "master 1 2 3"], "CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Invalid client class specified in buffer limit configuration."),
            (["client-output-buffer-limit", "normal 1 2 -3"], "CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Error in hard, soft or soft_seconds setting in buffer limit configuration."),
            (["activedefrag", "yes"], "CONFIG SET failed (possibly related to argument 'activedefrag') - Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution"),
        ];
        foreach (var (args, error) in cases)
            Assert.Equal("-ERR " + error + "\r\n", c.Call(new[] { "CONFIG", "SET" }.Concat(args).ToArray()));
        Assert.Equal("-ERR syntax error\r\n", c.Call("CONFIG", "SET", "hz", "10", "timeout"));
        Assert.Equal("-ERR wrong number of arguments for 'config|set' command\r\n", c.Call("CONFIG", "SET", "hz"));
        // Nothing above changed anything.
        Assert.Equal(Pair("maxmemory", "0"), c.Call("CONFIG", "GET", "maxmemory"));
        Assert.Equal(Pair("hz", "10"), c.Call("CONFIG", "GET", "hz"));
    }

    [Fact]
    public async Task ConfigSet_ProtoMaxBulkLen_AppliesToNewConnections()
    {
        await using var server = TestServer.Start(shards: 1);
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "proto-max-bulk-len", "1mb"));
        using var d = server.Connect();
        d.SendRaw("*2\r\n$4\r\nECHO\r\n$2000000\r\n");
        Assert.Equal("-ERR Protocol error: invalid bulk length\r\n", d.ReadReply());
    }

    /// <summary>Parameters of features this server lacks take their default only; the rest are refused, not kept.</summary>
    [Fact]
    public async Task ConfigSet_MissingFeature_OnlyDefaultAccepted()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "replica-read-only", "yes", "repl-backlog-size", "1mb"));
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'replica-ignore-disk-write-errors') - replication is not supported by this server: " +
                     "only the default value (no) is accepted\r\n", c.Call("CONFIG", "SET", "replica-ignore-disk-write-errors", "yes"));
        Assert.StartsWith("-ERR CONFIG SET failed (possibly related to argument 'replica-ignore-disk-write-errors') - replication is not supported by this " +
                          "server: only the default value (no) is accepted\r\n", c.Call("CONFIG", "SET", "hz", "11", "replica-ignore-disk-write-errors", "yes"));
        Assert.Equal(Pair("hz", "10"), c.Call("CONFIG", "GET", "hz")); // all or nothing
        Assert.Equal(Pair("replica-read-only", "yes"), c.Call("CONFIG", "GET", "replica-read-only"));
        await Task.CompletedTask;
    }

    /// <summary>hz and active-expire-effort pace every shard's active expiry cycle; INFO hz shows the hz in use.</summary>
    [Fact]
    public async Task ConfigSet_HzAndExpireEffort_ReachTheShards()
    {
        await using var server = TestServer.Start(2, "--hz", "20", "--active-expire-effort", "3");
        var shards = server.Server.Shards;
        Assert.All(Enumerable.Range(0, shards.Count), i => Assert.Equal((20, 3), (shards[i].CronHz, shards[i].ExpireEffort)));
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "hz", "100", "active-expire-effort", "10"));
        Assert.All(Enumerable.Range(0, shards.Count), i => Assert.Equal((100, 10), (shards[i].CronHz, shards[i].ExpireEffort)));
        string info = c.Call("INFO", "server");
        Assert.Contains("\r\nhz:100\r\n", info);
        Assert.Contains("\r\nconfigured_hz:100\r\n", info);
        // Keys with a TTL still go at hz 100 and effort 10.
        for (int i = 0; i < 100; i++) c.Call("SET", $"k{i}", "v", "PX", "1");
        await Eventually.WaitFor(() => c.Call("DBSIZE") == ":0\r\n", () => "keys with a TTL never expired: " + c.Call("DBSIZE"));
    }

    /// <summary>dynamic-hz: with more than 200 clients per tick the hz in use doubles (INFO hz), as Redis's serverCron does.</summary>
    [Fact]
    public async Task ConfigSet_DynamicHz_RaisesHzWithManyClients()
    {
        await using var server = TestServer.Start(1, "--hz", "1");
        using var c = server.Connect();
        var clients = new List<RespClient>();
        try
        {
            for (int i = 0; i < 201; i++)
            {
                var extra = server.Connect();
                clients.Add(extra);
                Assert.Equal("+PONG\r\n", extra.Call("PING"));
            }
            await Eventually.WaitFor(() => c.Call("INFO", "server").Contains("\r\nhz:2\r\n"), () => c.Call("INFO", "server"));
            Assert.Contains("\r\nconfigured_hz:1\r\n", c.Call("INFO", "server"));
            Assert.Equal(2, server.Server.Shards[0].CronHz);
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "dynamic-hz", "no"));
            Assert.Contains("\r\nhz:1\r\n", c.Call("INFO", "server"));
            Assert.Equal(1, server.Server.Shards[0].CronHz);
        }
        finally
        {
            foreach (var extra in clients) extra.Dispose();
        }
    }

    [Fact]
    public async Task CommandLine_MissingFeature_RefusedByFinalValue()
    {
        // A later line may undo an earlier one, as an option after a file's setting does.
        await using (var _ = TestServer.Start(1, "--daemonize", "yes", "--daemonize", "no")) { }
        var ex = Assert.Throws<ConfigFileException>(() => TestServer.Start(1, "--daemonize", "no", "--replica-ignore-disk-write-errors", "yes"));
        Assert.Equal("replica-ignore-disk-write-errors \"yes\"", ex.Text);
        Assert.Equal("replication is not supported by this server: only the default value (no) is accepted", ex.Message);
    }

    [Fact]
    public async Task CommandLine_KnownSettings_AppliedAtStartup()
    {
        await using var server = TestServer.Start(1, "--maxmemory", "2gb", "--save", "", "--hz", "50",
            "--enable-debug-command", "yes", "--hash-max-ziplist-entries", "99", "--client-output-buffer-limit", "pubsub", "1mb", "2mb", "3");
        using var c = server.Connect();
        Assert.Equal(Pair("maxmemory", "2147483648"), c.Call("CONFIG", "GET", "maxmemory"));
        Assert.Equal(Pair("save", ""), c.Call("CONFIG", "GET", "save"));
        Assert.Equal(Pair("hz", "50"), c.Call("CONFIG", "GET", "hz"));
        Assert.Equal(Pair("enable-debug-command", "yes"), c.Call("CONFIG", "GET", "enable-debug-command"));
        Assert.Equal(Pair("hash-max-listpack-entries", "99"), c.Call("CONFIG", "GET", "hash-max-listpack-entries"));
        Assert.Equal(Pair("client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 2097152 3"),
            c.Call("CONFIG", "GET", "client-output-buffer-limit"));
    }

    [Fact]
    public void CommandLine_BadValue_Throws()
    {
        ArgumentException ex = Assert.ThrowsAny<ArgumentException>(() => TestServer.Start(1, "--maxmemory", "lots"));
        Assert.Contains("argument must be a memory value", ex.Message);
    }

    [Fact]
    public void ConfigRewrite_NoConfigFile_Error()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("-ERR The server is running without a config file\r\n", c.Call("CONFIG", "REWRITE"));
    }

    [Fact]
    public void ConfigHelp_RedisSyntaxLines()
    {
        using var c = TestServer.Shared.Connect();
        string[] lines = c.Call("CONFIG", "HELP").Split("\r\n", StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal($"*{lines.Length - 1}", lines[0]);
        Assert.Equal("+CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", lines[1]);
        Assert.Equal(["+GET <pattern>", "+SET <directive> <value>", "+RESETSTAT", "+REWRITE", "+HELP"],
            lines.Skip(2).Where(l => !l.StartsWith("+ ")));
        Assert.Equal("-ERR unknown subcommand 'FOO'. Try CONFIG HELP.\r\n", c.Call("CONFIG", "FOO"));
    }

    [Theory]
    [InlineData("0", 0UL)]
    [InlineData("", 0UL)]
    [InlineData("123", 123UL)]
    [InlineData("1b", 1UL)]
    [InlineData("1k", 1000UL)]
    [InlineData("1KB", 1024UL)]
    [InlineData("3m", 3_000_000UL)]
    [InlineData("3mb", 3UL * 1024 * 1024)]
    [InlineData("2g", 2_000_000_000UL)]
    [InlineData("2Gb", 2UL * 1024 * 1024 * 1024)]
    [InlineData("99999999999999999999", ulong.MaxValue)]
    public void TryParseMemory_RedisUnits(string text, ulong expected)
    {
        Assert.True(ConfigRegistry.TryParseMemory(text, out ulong bytes));
        Assert.Equal(expected, bytes);
    }

    [Theory]
    [InlineData("-1")]
    [InlineData("1.5gb")]
    [InlineData("1tb")]
    [InlineData(" 1")]
    [InlineData("+1")]
    [InlineData("1 gb")]
    public void TryParseMemory_Invalid_False(string text) => Assert.False(ConfigRegistry.TryParseMemory(text, out _));

    [Fact]
    public void IsKnown_NamesAndAliases()
    {
        Assert.True(ConfigRegistry.IsKnown("maxmemory"));
        Assert.True(ConfigRegistry.IsKnown("slave-read-only"));
        Assert.True(ConfigRegistry.IsKnown("HASH-MAX-ZIPLIST-ENTRIES"));
        Assert.False(ConfigRegistry.IsKnown("no-such-thing"));
        Assert.True(ConfigRegistry.IsKnown("requirepass"));
    }
}
