using System.Diagnostics;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// Every parameter Redis 7.2 lets CONFIG SET change (not IMMUTABLE_CONFIG in its config.c) set to a
/// valid value other than its default, here and on redis-server: the same reply, and the same value
/// read back. Left out, each tested elsewhere: port and bind (Network/ListenerRebindTests), dir,
/// tls-* (TlsTests), replication (repl-*, replica-*, min-replicas-*, masterauth, masteruser) and
/// cluster-* (Cluster/ClusterDifferentialTests, on cluster nodes). The tests here share this class because oom-score-adj
/// writes the test process's own score: xUnit runs one class's tests one at a time.
/// </summary>
public class ConfigSetSweepTests
{
    /// <summary>(parameter, a valid value that is not its default), in Redis 7.2's table order.</summary>
    public static readonly (string Name, string Value)[] Modifiable =
    [
        ("protected-mode", "no"),
        ("rdbcompression", "no"),
        ("rdb-del-sync-files", "yes"),
        ("activerehashing", "no"),
        ("stop-writes-on-bgsave-error", "no"),
        ("dynamic-hz", "no"),
        ("lazyfree-lazy-eviction", "yes"),
        ("lazyfree-lazy-expire", "yes"),
        ("lazyfree-lazy-server-del", "yes"),
        ("lazyfree-lazy-user-del", "yes"),
        ("lazyfree-lazy-user-flush", "yes"),
        ("aof-rewrite-incremental-fsync", "no"),
        ("no-appendfsync-on-rewrite", "yes"),
        ("rdb-save-incremental-fsync", "no"),
        ("aof-load-truncated", "no"),
        ("aof-use-rdb-preamble", "no"),
        ("aof-timestamp-enabled", "yes"),
        ("jemalloc-bg-thread", "no"),
        // Redis built without its own jemalloc (Debian's) refuses this one with its own error.
        ("activedefrag", "yes"),
        ("appendonly", "yes"),
        ("crash-log-enabled", "no"),
        ("crash-memcheck-enabled", "no"),
        ("use-exit-on-panic", "yes"),
        ("latency-tracking", "no"),
        ("aof-disable-auto-gc", "yes"),
        ("dbfilename", "other.rdb"),
        ("ignore-warnings", "ARM64-COW-BUG"),
        ("proc-title-template", "{title} {port}"),
        ("bind-source-addr", "127.0.0.1"),
        ("requirepass", "sweep-secret"),
        ("loglevel", "warning"),
        ("maxmemory-policy", "allkeys-lfu"),
        ("appendfsync", "always"),
        ("oom-score-adj", "yes"),
        ("acl-pubsub-default", "allchannels"),
        ("sanitize-dump-payload", "clients"),
        ("propagation-error-behavior", "panic-on-replicas"),
        ("shutdown-on-sigint", "nosave now"),
        ("shutdown-on-sigterm", "save force"),
        ("auto-aof-rewrite-percentage", "150"),
        ("list-max-listpack-size", "-3"),
        ("list-max-ziplist-size", "64"),
        ("tcp-keepalive", "60"),
        ("active-defrag-cycle-min", "5"),
        ("active-defrag-cycle-max", "50"),
        ("active-defrag-threshold-lower", "20"),
        ("active-defrag-threshold-upper", "200"),
        ("lfu-log-factor", "20"),
        ("lfu-decay-time", "5"),
        ("maxmemory-samples", "7"),
        ("maxmemory-eviction-tenacity", "30"),
        ("timeout", "3600"),
        ("list-compress-depth", "2"),
        ("rdb-key-save-delay", "10"),
        ("key-load-delay", "10"),
        ("active-expire-effort", "5"),
        ("hz", "20"),
        ("watchdog-period", "100"), // Redis raises it to two cron periods (200 at hz 10)
        ("shutdown-timeout", "20"),
        ("maxclients", "500"),
        ("active-defrag-max-scan-fields", "2000"),
        ("slowlog-max-len", "64"),
        ("acllog-max-len", "64"),
        ("busy-reply-threshold", "6000"),
        ("lua-time-limit", "7000"),
        ("slowlog-log-slower-than", "-1"),
        ("latency-monitor-threshold", "100"),
        ("proto-max-bulk-len", "2mb"),
        ("stream-node-max-entries", "50"),
        ("maxmemory", "1gb"),
        ("hash-max-listpack-entries", "256"),
        ("hash-max-ziplist-value", "32"),
        ("set-max-intset-entries", "256"),
        ("zset-max-listpack-entries", "64"),
        ("active-defrag-ignore-bytes", "50mb"),
        ("hash-max-listpack-value", "128"),
        ("stream-node-max-bytes", "8kb"),
        ("zset-max-ziplist-value", "32"),
        ("hll-sparse-max-bytes", "2000"),
        ("tracking-table-max-keys", "500"),
        ("client-query-buffer-limit", "2mb"),
        ("maxmemory-clients", "10%"),
        ("auto-aof-rewrite-min-size", "32mb"),
        ("loading-process-events-interval-bytes", "4096"),
        ("save", "100 10 50 1000"),
        ("client-output-buffer-limit", "normal 1mb 512kb 10 pubsub 64mb 16mb 30"),
        ("oom-score-adj-values", "0 300 900"),
        ("notify-keyspace-events", "KEA"),
        ("latency-tracking-info-percentiles", "50 90 99.99"),
    ];

    private static string Get(RespClient c, string name) => c.Call("CONFIG", "GET", name);

    [RedisFact]
    public async Task ConfigSet_EveryModifiableParameter_SameReplyAndValueAsRedis()
    {
        string dir = Directory.CreateTempSubdirectory("rc-sweep").FullName;
        try
        {
            using var reference = ReferenceRedis.StartOrNull($"--enable-protected-configs yes --dir {dir}")!;
            await using var server = TestServer.Start(1, "--enable-protected-configs", "yes", "--dir", dir);
            using var theirs = reference.Connect();
            using var ours = server.Connect();
            var differences = new List<string>();
            foreach (var (name, value) in Modifiable)
            {
                string theirsBefore = Get(theirs, name), oursBefore = Get(ours, name);
                string theirsReply = theirs.Call("CONFIG", "SET", name, value);
                string oursReply = ours.Call("CONFIG", "SET", name, value);
                if (theirsReply != oursReply)
                    differences.Add($"{name} {value}: redis {theirsReply.TrimEnd()} / ours {oursReply.TrimEnd()}");
                string theirsAfter = Get(theirs, name), oursAfter = Get(ours, name);
                if (theirsAfter != oursAfter)
                    differences.Add($"{name} {value}: redis reads {theirsAfter.Replace("\r\n", " ")} / ours {oursAfter.Replace("\r\n", " ")}");
                // Back to the default, so that one parameter's effect does not meet the next.
                if (Restore(theirs, theirsBefore) is { } theirsError) differences.Add($"{name}: redis restore {theirsError}");
                if (Restore(ours, oursBefore) is { } oursError) differences.Add($"{name}: ours restore {oursError}");
            }
            Assert.Empty(differences);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>CONFIG SET of the (name, value) a CONFIG GET reply holds; null, or what went wrong.</summary>
    private static string? Restore(RespClient c, string getReply)
    {
        var lines = getReply.Split("\r\n");
        if (lines.Length < 5) return "nothing to restore: the parameter is unknown";
        // *2 $n name $n value
        string reply = c.Call("CONFIG", "SET", lines[2], lines[4]);
        return reply == "+OK\r\n" ? null : reply.TrimEnd();
    }

    /// <summary>Redis 7.2's parameters that 7.0.15 lacks, against 7.2's behaviour as its config.c has it.</summary>
    [Fact]
    public async Task ConfigSet_Redis72Parameters_AsRedis72()
    {
        await using var server = TestServer.Start(1);
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "set-max-listpack-entries", "64", "set-max-listpack-value", "32"));
        Assert.Equal("*4\r\n$24\r\nset-max-listpack-entries\r\n$2\r\n64\r\n$22\r\nset-max-listpack-value\r\n$2\r\n32\r\n",
            c.Call("CONFIG", "GET", "set-max-listpack-*"));
        // locale-collate goes to setlocale(LC_COLLATE): a name the C library does not know is refused.
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "locale-collate", "C"));
        Assert.Equal("*2\r\n$14\r\nlocale-collate\r\n$1\r\nC\r\n", c.Call("CONFIG", "GET", "locale-collate"));
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'locale-collate') - Invalid locale name\r\n",
            c.Call("CONFIG", "SET", "locale-collate", "xx_NOWHERE.NOTHING"));
        Assert.Equal("*2\r\n$14\r\nlocale-collate\r\n$1\r\nC\r\n", c.Call("CONFIG", "GET", "locale-collate"));
        // The hidden debugging parameters are found by their exact name only.
        Assert.Equal("*0\r\n", c.Call("CONFIG", "GET", "key-load-*"));
        Assert.Equal("*2\r\n$14\r\nkey-load-delay\r\n$1\r\n0\r\n", c.Call("CONFIG", "GET", "key-load-delay"));
    }

    /// <summary>oom-score-adj writes the process's /proc/self/oom_score_adj, relative to the value it found, and puts it back.</summary>
    [Fact]
    public async Task ConfigSet_OomScoreAdj_WritesProcessScoreAndRestores()
    {
        if (!OperatingSystem.IsLinux()) return; // /proc/self/oom_score_adj is Linux's
        static int Score() => int.Parse(File.ReadAllText("/proc/self/oom_score_adj").Trim());
        int before = Score();
        if (before > 990) return; // no room to raise it
        await using var server = TestServer.Start(1);
        using var c = server.Connect();
        try
        {
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "oom-score-adj-values", "7 200 800", "oom-score-adj", "relative"));
            Assert.Equal(before + 7, Score());
            Assert.Equal("*2\r\n$13\r\noom-score-adj\r\n$3\r\nyes\r\n", c.Call("CONFIG", "GET", "oom-score-adj"));
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "oom-score-adj-values", "9 200 800"));
            Assert.Equal(before + 9, Score());
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "oom-score-adj", "no"));
            Assert.Equal(before, Score());
        }
        finally
        {
            c.Call("CONFIG", "SET", "oom-score-adj", "no");
        }
    }

    /// <summary>
    /// CONFIG REWRITE after CONFIG SET of the parameters this sweep made settable or effective: the
    /// same lines as redis-server writes (after its signature line, in its own order).
    /// </summary>
    [RedisFact]
    public async Task ConfigRewrite_ParametersMadeSettable_SameLinesAsRedis()
    {
        string dir = Directory.CreateTempSubdirectory("rc-sweep-rw").FullName;
        int redisPort = ReferenceRedis.FreePort();
        string redisConf = Path.Combine(dir, "redis.conf"), oursConf = Path.Combine(dir, "ours.conf");
        File.WriteAllText(redisConf, $"port {redisPort}\nbind 127.0.0.1\nsave \"\"\n");
        File.WriteAllText(oursConf, "port 0\nbind 127.0.0.1\nsave \"\"\n");
        using var redis = Process.Start(new ProcessStartInfo(ReferenceRedis.ServerPath!, [redisConf, "--dir", dir])
        {
            RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
        })!;
        try
        {
            await using var server = TestServer.StartWithConfig(oursConf, "--dir", dir);
            using var theirs = ConnectWhenUp(redisPort);
            using var ours = server.Connect();
            string[] set =
            [
                "CONFIG", "SET", "active-defrag-cycle-min", "5", "active-defrag-ignore-bytes", "50mb", "oom-score-adj-values", "0 300 900",
                "aof-timestamp-enabled", "yes", "bind-source-addr", "127.0.0.1", "use-exit-on-panic", "yes", "aof-disable-auto-gc", "yes",
                "key-load-delay", "10", "watchdog-period", "100", "loading-process-events-interval-bytes", "4096", "hz", "20",
                "dynamic-hz", "no", "active-expire-effort", "3", "no-appendfsync-on-rewrite", "yes",
                "propagation-error-behavior", "panic-on-replicas",
            ];
            Assert.Equal("+OK\r\n", theirs.Call(set));
            Assert.Equal("+OK\r\n", ours.Call(set));
            Assert.Equal("+OK\r\n", theirs.Call("CONFIG", "REWRITE"));
            Assert.Equal("+OK\r\n", ours.Call("CONFIG", "REWRITE"));
            // Redis 7.2 describes the default user with sanitize-payload (as its ACL LIST does); 7.0 did not.
            var redisLines = File.ReadAllText(redisConf).Replace("user default on nopass ~*", "user default on nopass sanitize-payload ~*")
                .Split("# Generated by CONFIG REWRITE\n")[1].Split('\n').Where(l => l.Length > 0).Order();
            var ourLines = File.ReadAllText(oursConf).Split("# Generated by CONFIG REWRITE\n")[1].Split('\n').Where(l => l.Length > 0).Order();
            // watchdog-period 100 reads back as 200 on both: the floor is taken from the hz in force before this call.
            Assert.Equal(redisLines, ourLines);
        }
        finally
        {
            redis.Kill();
            redis.WaitForExit();
            Directory.Delete(dir, recursive: true);
        }
    }

    private static RespClient ConnectWhenUp(int port)
    {
        var sw = Stopwatch.StartNew();
        while (true)
        {
            try
            {
                return new RespClient(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, port));
            }
            catch (System.Net.Sockets.SocketException) when (sw.ElapsedMilliseconds < 10_000)
            {
                Thread.Sleep(50);
            }
        }
    }
}
