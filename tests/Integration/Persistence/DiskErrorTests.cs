using System.Diagnostics;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Persistence;

/// <summary>
/// Persisting fails (a background save that cannot open its file, an AOF that cannot be written):
/// as in Redis, write commands and PING get MISCONF until persisting works again, INFO says so,
/// and the log names what failed. Tests run as root, so the failures are made real without
/// permissions: the save directory removed after the server was pointed at it, an incremental AOF
/// file that is a link to /dev/full (ENOSPC). Each scenario runs against redis-server too.
/// </summary>
public class DiskErrorTests
{
    private const string Misconf =
        "-MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.\r\n";

    private const string MisconfAof = "-MISCONF Errors writing to the AOF file: No space left on device\r\n";

    /// <summary>INFO persistence's field, polled until no save or rewrite runs.</summary>
    private static string Field(RespClient c, string name)
    {
        string info = "";
        var sw = Stopwatch.StartNew();
        while (sw.Elapsed < TimeSpan.FromSeconds(30))
        {
            info = c.Call("INFO", "persistence");
            if (info.Contains("rdb_bgsave_in_progress:0") && info.Contains("aof_rewrite_in_progress:0")
                && !info.Contains("aof_rewrite_scheduled:1")) break;
            Thread.Sleep(20);
        }
        foreach (var line in info.Split("\r\n"))
            if (line.StartsWith(name + ":", StringComparison.Ordinal)) return line;
        return "missing " + name;
    }

    /// <summary>
    /// The failed-BGSAVE scenario on one server whose dir is <paramref name="dir"/> (with save points
    /// set): what each step answered, in order.
    /// </summary>
    private static List<string> BgSaveScenario(RespClient c, string dir, string goodDir)
    {
        var replies = new List<string>();
        replies.Add(c.Call("SET", "k", "1"));
        Directory.Delete(dir);
        replies.Add(c.Call("BGSAVE"));
        replies.Add(Field(c, "rdb_last_bgsave_status"));
        replies.Add(c.Call("SET", "k", "2"));
        replies.Add(c.Call("PING"));
        replies.Add(c.Call("GET", "k"));
        replies.Add(c.Call("INCR", "n"));
        // redis.call of a write in a script: MISCONF with the script's location.
        replies.Add(c.Call("EVAL", "return redis.call('set','x','1')", "0"));
        replies.Add(c.Call("EVAL", "return 1", "0"));
        // A script that declared flags without no-writes is a write command itself.
        replies.Add(c.Call("EVAL", "#!lua\nreturn 1", "0"));
        replies.Add(c.Call("EVAL", "#!lua flags=no-writes\nreturn 1", "0"));
        replies.Add(c.Call("MULTI"));
        replies.Add(c.Call("SET", "k", "3"));
        replies.Add(c.Call("EXEC"));
        // stop-writes-on-bgsave-error no, or no save points, lifts it.
        replies.Add(c.Call("CONFIG", "SET", "stop-writes-on-bgsave-error", "no"));
        replies.Add(c.Call("SET", "k", "4"));
        replies.Add(c.Call("CONFIG", "SET", "stop-writes-on-bgsave-error", "yes"));
        replies.Add(c.Call("SET", "k", "5"));
        replies.Add(c.Call("CONFIG", "SET", "save", ""));
        replies.Add(c.Call("SET", "k", "6"));
        replies.Add(c.Call("CONFIG", "SET", "save", "3600 1"));
        replies.Add(c.Call("SET", "k", "7"));
        // A save that works ends it.
        replies.Add(c.Call("CONFIG", "SET", "dir", goodDir));
        replies.Add(c.Call("BGSAVE"));
        replies.Add(Field(c, "rdb_last_bgsave_status"));
        replies.Add(c.Call("SET", "k", "8"));
        replies.Add(c.Call("PING"));
        string errors = c.Call("INFO", "errorstats");
        replies.Add(errors.Split("\r\n").FirstOrDefault(l => l.StartsWith("errorstat_MISCONF", StringComparison.Ordinal)) ?? "no errorstat_MISCONF");
        return replies;
    }

    [RedisFact]
    public async Task BgSave_Failed_WritesAndPingRefusedWithMisconfUntilASaveWorks()
    {
        string theirsDir = RdbFileTests.NewDir(), oursDir = RdbFileTests.NewDir();
        string theirsGood = RdbFileTests.NewDir(), oursGood = RdbFileTests.NewDir();
        string log = Path.Combine(oursGood, "server.log");
        List<string> theirs, ours;
        using (var redis = ReferenceRedis.StartOrNull($"--dir {theirsDir} --save \"3600 1\" --enable-protected-configs yes"))
        {
            Assert.NotNull(redis);
            using var c = redis.Connect();
            theirs = BgSaveScenario(c, theirsDir, theirsGood);
        }
        await using (var server = TestServer.Start(4, "--dir", oursDir, "--save", "3600 1", "--enable-protected-configs", "yes", "--logfile", log))
        {
            using var c = server.Connect();
            ours = BgSaveScenario(c, oursDir, oursGood);
        }
        Assert.Equal(theirs, ours);
        Assert.Equal(Misconf, ours[3]);
        Assert.Equal(Misconf, ours[4]);
        Assert.Equal("rdb_last_bgsave_status:err", ours[2]);
        Assert.Equal("rdb_last_bgsave_status:ok", ours[^4]);
        // Redis's child names the temporary file it could not open, then the parent says the save failed.
        string lines = File.ReadAllText(log);
        Assert.Matches(@"Failed opening the temp RDB file temp-[0-9a-f-]+\.rdb \(in server root dir .+\) for saving: No such file or directory", lines);
        Assert.Contains("# Background saving error", lines);
    }

    /// <summary>SAVE that works ends the MISCONF of a failed background save too (Redis's rdbSave sets the status).</summary>
    [RedisFact]
    public async Task Save_AfterFailedBgSave_EndsMisconf()
    {
        foreach (bool theirs in new[] { true, false })
        {
            string dir = RdbFileTests.NewDir(), good = RdbFileTests.NewDir();
            using var redis = theirs ? ReferenceRedis.StartOrNull($"--dir {dir} --save \"3600 1\" --enable-protected-configs yes") : null;
            await using var server = theirs ? null : TestServer.Start(2, "--dir", dir, "--save", "3600 1", "--enable-protected-configs", "yes");
            using var c = theirs ? redis!.Connect() : server!.Connect();
            Directory.Delete(dir);
            Assert.Equal("+Background saving started\r\n", c.Call("BGSAVE"));
            Assert.Equal("rdb_last_bgsave_status:err", Field(c, "rdb_last_bgsave_status"));
            Assert.Equal(Misconf, c.Call("SET", "k", "1"));
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "dir", good));
            Assert.Equal("+OK\r\n", c.Call("SAVE"));
            Assert.Equal("rdb_last_bgsave_status:ok", Field(c, "rdb_last_bgsave_status"));
            Assert.Equal("+OK\r\n", c.Call("SET", "k", "1"));
        }
    }

    /// <summary>
    /// The AOF scenario: the incremental file a rewrite opens next is a link to /dev/full, so the
    /// first write after the rewrite fails (its reply still goes out, as in Redis), the next writes
    /// get MISCONF with strerror's reason, and a second rewrite (a new, good incremental file) ends it.
    /// </summary>
    private static List<string> AofScenario(RespClient c, string dir)
    {
        var replies = new List<string>();
        string aofDir = Path.Combine(dir, "appendonlydir");
        replies.Add(c.Call("SET", "a", "1"));
        File.CreateSymbolicLink(Path.Combine(aofDir, "appendonly.aof.2.incr.aof"), "/dev/full");
        replies.Add(c.Call("BGREWRITEAOF"));
        replies.Add(Field(c, "aof_last_bgrewrite_status"));
        replies.Add(c.Call("SET", "a", "2"));
        replies.Add(c.Call("SET", "a", "3"));
        replies.Add(c.Call("PING"));
        replies.Add(c.Call("GET", "a"));
        replies.Add(Field(c, "aof_last_write_status"));
        replies.Add(c.Call("EVAL", "return redis.call('set','x','1')", "0"));
        replies.Add(c.Call("BGREWRITEAOF"));
        replies.Add(Field(c, "aof_last_bgrewrite_status"));
        replies.Add(c.Call("SET", "a", "4"));
        replies.Add(Field(c, "aof_last_write_status"));
        replies.Add(c.Call("GET", "a"));
        return replies;
    }

    [RedisFact]
    public async Task Aof_WriteFails_WritesRefusedWithMisconfUntilAWriteWorks()
    {
        string theirsDir = RdbFileTests.NewDir(), oursDir = RdbFileTests.NewDir();
        List<string> theirs, ours;
        using (var redis = ReferenceRedis.StartOrNull($"--dir {theirsDir} --appendonly yes"))
        {
            Assert.NotNull(redis);
            using var c = redis.Connect();
            theirs = AofScenario(c, theirsDir);
        }
        await using (var server = TestServer.Start(4, "--dir", oursDir, "--appendonly", "yes"))
        {
            using var c = server.Connect();
            ours = AofScenario(c, oursDir);
        }
        Assert.Equal(theirs, ours);
        Assert.Equal("+OK\r\n", ours[3]);
        Assert.Equal(MisconfAof, ours[4]);
        Assert.Equal(MisconfAof, ours[5]);
        Assert.Equal("aof_last_write_status:err", ours[7]);
        Assert.Equal("aof_last_write_status:ok", ours[^2]);
        // Nothing acknowledged was lost: the write that failed went to the next incremental file.
        await using (var server = TestServer.Start(2, "--dir", oursDir, "--appendonly", "yes"))
        {
            using var c = server.Connect();
            Assert.Equal("$1\r\n4\r\n", c.Call("GET", "a"));
        }
    }
}
