using System.Diagnostics;
using System.Text;
using RedisClone.Persistence;
using RedisClone.Tests.Infrastructure;
using Xunit.Abstractions;

namespace RedisClone.Tests.Persistence;

/// <summary>
/// The AOF: Redis 7's multi-part layout, data back after a restart, directories moving both ways
/// between this server and redis-server 7.0, truncated tails, and crash tests that kill the server
/// with SIGKILL under load and count what acknowledged writes survived.
/// </summary>
public class AofTests(ITestOutputHelper output)
{
    private static string[] Aof(string dir, params string[] more) => ["--dir", dir, "--appendonly", "yes", .. more];

    [Fact]
    public async Task Aof_Restart_SameData()
    {
        string dir = RdbFileTests.NewDir();
        List<string> before;
        await using (var server = TestServer.Start(4, Aof(dir)))
        {
            using var c = server.Connect();
            RdbFileTests.Fill(c);
            c.Call("SELECT", "0");
            c.Call("SET", "counter", "0");
            for (int i = 0; i < 100; i++) c.Call("INCR", "counter");
            c.Call("MULTI");
            c.Call("SET", "in-tx", "1");
            c.Call("LPUSH", "list", "tx");
            c.Call("EXEC");
            c.Call("EVAL", "redis.call('SET', KEYS[1], 'from-script') return 1", "1", "scripted");
            before = RdbFileTests.Contents(c);
            Assert.Contains("aof_enabled:1", c.Call("INFO", "persistence"));
        }
        string aofDir = Path.Combine(dir, "appendonlydir");
        Assert.Equal(
            "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
            File.ReadAllText(Path.Combine(aofDir, "appendonly.aof.manifest")));
        Assert.StartsWith("REDIS0010", File.ReadAllText(Path.Combine(aofDir, "appendonly.aof.1.base.rdb"), Encoding.Latin1));
        Assert.False(File.Exists(Path.Combine(dir, "dump.rdb")));
        await using (var server = TestServer.Start(2, Aof(dir)))
        {
            using var c = server.Connect();
            Assert.Equal(before, RdbFileTests.Contents(c));
            // Appending goes on in the same incremental file.
            c.Call("SET", "after-restart", "1");
        }
        await using (var server = TestServer.Start(2, Aof(dir)))
        {
            using var c = server.Connect();
            Assert.Equal("$1\r\n1\r\n", c.Call("GET", "after-restart"));
            Assert.Equal("$3\r\n100\r\n", c.Call("GET", "counter"));
        }
    }

    [RedisFact]
    public async Task Aof_OursLoadsInRedis_AndTheirsHere()
    {
        string ourDir = RdbFileTests.NewDir();
        List<string> ours;
        await using (var server = TestServer.Start(4, Aof(ourDir)))
        {
            using var c = server.Connect();
            RdbFileTests.Fill(c);
            ours = RdbFileTests.Contents(c);
        }
        string? checkAof = ReferenceRedis.FindOnPath("redis-check-aof");
        if (checkAof != null)
        {
            var psi = new ProcessStartInfo(checkAof, Path.Combine(ourDir, "appendonlydir", "appendonly.aof.manifest"))
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            using var p = Process.Start(psi)!;
            string text = p.StandardOutput.ReadToEnd() + p.StandardError.ReadToEnd();
            p.WaitForExit();
            Assert.True(p.ExitCode == 0 && text.Contains("is valid"), text);
        }
        using (var reference = ReferenceRedis.StartOrNull($"--dir {ourDir} --appendonly yes")!)
        {
            using var c = reference.Connect();
            Assert.Equal(ours, RdbFileTests.Contents(c));
        }

        string theirDir = RdbFileTests.NewDir();
        List<string> theirs;
        using (var reference = ReferenceRedis.StartOrNull($"--dir {theirDir} --appendonly yes --appendfsync always")!)
        {
            using var c = reference.Connect();
            RdbFileTests.Fill(c);
            theirs = RdbFileTests.Contents(c);
        }
        await using (var server = TestServer.Start(4, Aof(theirDir)))
        {
            using var c = server.Connect();
            Assert.Equal(theirs, RdbFileTests.Contents(c));
        }
    }

    /// <summary>A tail cut in the middle of a command, or of a transaction: loaded up to the last complete one and the file cut there; refused with aof-load-truncated no.</summary>
    [Fact]
    public async Task Aof_TruncatedTail_LoadedAsRedisDoes()
    {
        string dir = RdbFileTests.NewDir();
        await using (var server = TestServer.Start(2, Aof(dir, "--appendfsync", "always")))
        {
            using var c = server.Connect();
            for (int i = 0; i < 10; i++) c.Call("SET", "k" + i, "v" + i);
            c.Call("MULTI");
            c.Call("SET", "tx1", "a");
            c.Call("SET", "tx2", "b");
            c.Call("EXEC");
        }
        string incr = Path.Combine(dir, "appendonlydir", "appendonly.aof.1.incr.aof");
        byte[] full = File.ReadAllBytes(incr);
        string text = Encoding.Latin1.GetString(full);
        int exec = text.LastIndexOf("*1\r\n$4\r\nEXEC", StringComparison.Ordinal);
        Assert.True(exec > 0, text);

        // Cut inside the transaction: it is reverted, the file ends before MULTI.
        File.WriteAllBytes(incr, full[..(exec + 3)]);
        await using (var server = TestServer.Start(2, Aof(dir)))
        {
            using var c = server.Connect();
            Assert.Equal("$2\r\nv9\r\n", c.Call("GET", "k9"));
            Assert.Equal(":0\r\n", c.Call("EXISTS", "tx1"));
        }
        int multi = text.LastIndexOf("*1\r\n$5\r\nMULTI", StringComparison.Ordinal);
        Assert.Equal(multi, new FileInfo(incr).Length);

        // Cut in the middle of the last SET: refused when aof-load-truncated is off, loaded otherwise.
        File.WriteAllBytes(incr, full[..(multi - 5)]);
        Assert.Throws<RdbLoadException>(() => { TestServer.Start(2, Aof(dir, "--aof-load-truncated", "no")); });
        await using (var server = TestServer.Start(2, Aof(dir)))
        {
            using var c = server.Connect();
            Assert.Equal("$2\r\nv8\r\n", c.Call("GET", "k8"));
            Assert.Equal(":0\r\n", c.Call("EXISTS", "k9"));
        }

        // Damage that is not a cut tail is fatal.
        byte[] damaged = (byte[])full.Clone();
        damaged[text.IndexOf("*3\r\n$3\r\nSET", StringComparison.Ordinal)] = (byte)'#';
        File.WriteAllBytes(incr, damaged);
        Assert.Throws<RdbLoadException>(() => { TestServer.Start(2, Aof(dir)); });
    }

    /// <summary>A GET reply's integer, 0 for nil.</summary>
    private static long Counter(string reply)
        => reply.StartsWith("$-1") || !reply.StartsWith("$") ? 0 : long.Parse(reply.Split("\r\n")[1]);

    /// <summary>Waits (30 s at most) until no rewrite runs and <paramref name="rewrites"/> have been done (at least that many with <paramref name="atLeast"/>).</summary>
    private static bool WaitForRewrite(RespClient c, int rewrites, bool atLeast = false)
    {
        var sw = Stopwatch.StartNew();
        while (sw.Elapsed < TimeSpan.FromSeconds(30))
        {
            string info = c.Call("INFO", "persistence");
            var done = System.Text.RegularExpressions.Regex.Match(info, @"aof_rewrites:(\d+)\r\n");
            if (info.Contains("aof_rewrite_in_progress:0") && done.Success
                && (atLeast ? int.Parse(done.Groups[1].Value) >= rewrites : int.Parse(done.Groups[1].Value) == rewrites)) return true;
            Thread.Sleep(20);
        }
        return false;
    }

    /// <summary>
    /// BGREWRITEAOF while writes go on: a new base from the instant, appending to a new incremental
    /// file, the old files deleted, and after a restart the data is all there.
    /// </summary>
    [Fact]
    public async Task BgRewriteAof_WhileWriting_CompactsAndKeepsEverything()
    {
        string dir = RdbFileTests.NewDir();
        string aofDir = Path.Combine(dir, "appendonlydir");
        List<string> before;
        await using (var server = TestServer.Start(4, Aof(dir, "--enable-debug-command", "yes")))
        {
            using var c = server.Connect();
            c.Call("DEBUG", "POPULATE", "50000", "k", "10");
            for (int i = 0; i < 2000; i++) c.Call("INCR", "counter");
            var pipeline = new List<string[]> { new[] { "BGREWRITEAOF" } };
            for (int i = 0; i < 3000; i++) pipeline.Add(["INCR", "counter"]);
            for (int i = 0; i < 50000; i += 13) pipeline.Add(["DEL", $"k:{i}"]);
            for (int i = 0; i < 500; i++) pipeline.Add(["SET", $"new:{i}", "x"]);
            c.SendRaw(pipeline.SelectMany(cmd => RespClient.Encode(cmd)).ToArray());
            Assert.Equal("+Background append only file rewriting started\r\n", c.ReadReply());
            for (int i = 1; i < pipeline.Count; i++) Assert.False(c.ReadReply().StartsWith("-"));
            // A second BGREWRITEAOF is refused while the first runs (or starts another once it is done).
            string again = c.Call("BGREWRITEAOF");
            Assert.True(again is "-ERR Background append only file rewriting already in progress\r\n"
                or "+Background append only file rewriting started\r\n", again);
            Assert.True(WaitForRewrite(c, again.StartsWith("+") ? 2 : 1), c.Call("INFO", "persistence"));
            Assert.Equal("$4\r\n5000\r\n", c.Call("GET", "counter"));
            before = RdbFileTests.Contents(c);
            string manifest = File.ReadAllText(Path.Combine(aofDir, "appendonly.aof.manifest"));
            Assert.DoesNotContain("appendonly.aof.1.", manifest);
            Assert.False(File.Exists(Path.Combine(aofDir, "appendonly.aof.1.incr.aof")));
            Assert.False(File.Exists(Path.Combine(aofDir, "appendonly.aof.1.base.rdb")));
        }
        await using (var server = TestServer.Start(2, Aof(dir)))
        {
            using var c = server.Connect();
            Assert.Equal(before, RdbFileTests.Contents(c));
        }
    }

    [Fact]
    public async Task Aof_TurnedOnAtRunTime_ThenRestart()
    {
        string dir = RdbFileTests.NewDir();
        await using (var server = TestServer.Start(2, "--dir", dir))
        {
            using var c = server.Connect();
            c.Call("SET", "before", "1");
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "appendonly", "yes"));
            c.Call("SET", "after", "2");
            Assert.True(WaitForRewrite(c, 1), c.Call("INFO", "persistence"));
            Assert.Contains("aof_enabled:1", c.Call("INFO", "persistence"));
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "appendfsync", "always"));
            c.Call("SET", "later", "3");
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "appendonly", "no"));
            c.Call("SET", "not-appended", "4");
        }
        await using (var server = TestServer.Start(2, Aof(dir)))
        {
            using var c = server.Connect();
            Assert.Equal("$1\r\n1\r\n", c.Call("GET", "before"));
            Assert.Equal("$1\r\n2\r\n", c.Call("GET", "after"));
            Assert.Equal("$1\r\n3\r\n", c.Call("GET", "later"));
            Assert.Equal("$-1\r\n", c.Call("GET", "not-appended"));
        }
    }

    [Fact]
    public async Task BgSave_DuringRewrite_RefusedOrScheduled()
    {
        string dir = RdbFileTests.NewDir();
        await using var server = TestServer.Start(2, Aof(dir, "--enable-debug-command", "yes"));
        using var c = server.Connect();
        c.Call("DEBUG", "POPULATE", "300000", "k", "50");
        c.SendRaw(RespClient.Encode("BGREWRITEAOF").Concat(RespClient.Encode("BGSAVE")).Concat(RespClient.Encode("BGSAVE", "SCHEDULE")).ToArray());
        Assert.Equal("+Background append only file rewriting started\r\n", c.ReadReply());
        string plain = c.ReadReply(), scheduled = c.ReadReply();
        if (plain.StartsWith("-"))
        {
            Assert.Equal("-ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.\r\n", plain);
            Assert.Equal("+Background saving scheduled\r\n", scheduled);
        }
        Assert.True(WaitForRewrite(c, 1));
        var sw = Stopwatch.StartNew();
        while (!c.Call("INFO", "persistence").Contains("rdb_saves:1") && sw.Elapsed < TimeSpan.FromSeconds(30)) Thread.Sleep(20);
        Assert.Contains("rdb_saves:1", c.Call("INFO", "persistence"));
    }

    [Fact]
    public async Task AutoRewrite_WhenTheAofGrows()
    {
        string dir = RdbFileTests.NewDir();
        await using var server = TestServer.Start(2, Aof(dir, "--auto-aof-rewrite-min-size", "10000", "--auto-aof-rewrite-percentage", "100"));
        using var c = server.Connect();
        for (int i = 0; i < 1000; i++) c.Call("SET", "k" + (i % 10), "value-" + i);
        // At least one: the 1,000 writes (about 45 KB) can fill the new, tiny AOF past the 10,000-byte
        // minimum again, and a second automatic rewrite is right then (Redis does the same).
        Assert.True(WaitForRewrite(c, 1, atLeast: true), c.Call("INFO", "persistence"));
    }

    /// <summary>
    /// The crash test: 20 clients write under load and the server is killed with SIGKILL at a
    /// random moment, several times; after each restart every write it acknowledged is there. That
    /// holds for every appendfsync policy, as in Redis: a write is in the file (write(2)) before its
    /// reply goes out, and only an OS crash or power loss could cost everysec's last second (or
    /// no's unsynced tail). REDISCLONE_AOF_CRASH_ROUNDS=20 runs the long version of every policy.
    /// </summary>
    [Theory]
    [InlineData("always", 20)]
    [InlineData("everysec", 5)]
    [InlineData("no", 3)]
    public async Task Aof_SigkillUnderLoad_AcknowledgedWritesSurvive(string fsync, int rounds)
    {
        if (int.TryParse(Environment.GetEnvironmentVariable("REDISCLONE_AOF_CRASH_ROUNDS"), out int asked) && asked > 0)
            rounds = Math.Min(asked, 200);
        string dir = RdbFileTests.NewDir();
        var random = new Random(42);
        long lost = 0;
        var acked = new Dictionary<string, long>();
        for (int round = 0; round < rounds; round++)
        {
            using var server = ExternalServer.Start(4096, $"--dir {dir} --appendonly yes --appendfsync {fsync} --save \"\"");
            // What the previous rounds were told: every acknowledged counter value is there.
            using (var check = server.Connect())
            {
                foreach (var (key, value) in acked)
                {
                    string reply;
                    try
                    {
                        reply = check.Call("GET", key);
                    }
                    catch (System.Net.Sockets.SocketException ex)
                    {
                        throw new Xunit.Sdk.XunitException($"round {round}: GET {key} failed ({ex.Message}); the server said:\n{server.Output}");
                    }
                    long present = Counter(reply);
                    Assert.True(present >= value, $"appendfsync {fsync}, round {round}: {key} acknowledged {value}, found {present}");
                    lost += Math.Max(0, value - present);
                }
            }
            using var stop = new CancellationTokenSource();
            var writers = new List<Task<(string Key, long Value)>>();
            for (int w = 0; w < 20; w++)
            {
                string key = $"w{w}";
                long start = acked.GetValueOrDefault(key);
                writers.Add(Task.Run(() =>
                {
                    long last = start;
                    try
                    {
                        using var c = server.Connect(timeoutMs: 5000);
                        // Counters only go up: a value read back at least as high as the last
                        // acknowledged one proves every acknowledged increment is there.
                        if (start > 0 && c.Call("SET", key, start.ToString()) != "+OK\r\n") return (key, last);
                        while (!stop.IsCancellationRequested)
                        {
                            string reply = c.Call("INCR", key);
                            if (!reply.StartsWith(":")) break;
                            last = long.Parse(reply.AsSpan(1, reply.Length - 3));
                        }
                    }
                    catch (Exception)
                    {
                        // The server was killed mid-call: that write was not acknowledged.
                    }
                    return (key, last);
                }));
            }
            Thread.Sleep(300 + random.Next(700));
            Process.GetProcessById(server.Pid).Kill();
            stop.Cancel();
            foreach (var t in writers)
            {
                var (key, value) = await t;
                acked[key] = value;
            }
        }
        using (var last = ExternalServer.Start(4096, $"--dir {dir} --appendonly yes --save \"\""))
        using (var check = last.Connect())
        {
            foreach (var (key, value) in acked)
            {
                string reply = check.Call("GET", key);
                long present = Counter(reply);
                Assert.True(present >= value, $"appendfsync {fsync}: {key} acknowledged {value}, found {present}");
                lost += Math.Max(0, value - present);
            }
            string line = $"appendfsync {fsync}: {rounds} SIGKILLs under 20 writers, {acked.Values.Sum()} increments acknowledged, {lost} of them missing after a restart";
            output.WriteLine(line);
            File.AppendAllText(Path.Combine(Path.GetTempPath(), "redisclone-aof-crash.txt"), line + "\n");
        }
    }

    /// <summary>An incremental file much larger than the loader's first read, with a command larger than it.</summary>
    [Fact]
    public async Task Aof_LargeIncrementalFile_LoadedInPieces()
    {
        string dir = RdbFileTests.NewDir();
        string big = new('x', 3 << 20);
        string digest;
        await using (var server = TestServer.Start(4, Aof(dir, "--enable-debug-command", "yes")))
        {
            using var c = server.Connect();
            var pipeline = Enumerable.Range(0, 40000).Select(i => new[] { "SET", $"key:{i}", $"value-{i}-{i * 7}" }).ToList();
            c.SendRaw(pipeline.SelectMany(cmd => RespClient.Encode(cmd)).ToArray());
            for (int i = 0; i < pipeline.Count; i++) c.ReadReply();
            c.Call("SET", "big", big);
            c.Call("SET", "after-big", "1");
            digest = c.Call("DEBUG", "DIGEST");
        }
        Assert.True(new FileInfo(Path.Combine(dir, "appendonlydir", "appendonly.aof.1.incr.aof")).Length > 4 << 20);
        await using (var server = TestServer.Start(2, Aof(dir, "--enable-debug-command", "yes")))
        {
            using var c = server.Connect();
            Assert.Equal(digest, c.Call("DEBUG", "DIGEST"));
        }
    }

    /// <summary>
    /// appendfsync always, AOF turned off and on again: a client that wrote under the first writer
    /// is answered at once under the second (its replies wait only for its own writes).
    /// </summary>
    [Fact]
    public async Task Aof_TurnedOffAndOnAgain_RepliesDoNotWait()
    {
        string dir = RdbFileTests.NewDir();
        await using var server = TestServer.Start(2, Aof(dir, "--appendfsync", "always"));
        using var c = new RespClient(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, server.Port), timeoutMs: 5000);
        for (int i = 0; i < 20; i++) c.Call("INCR", "n");
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "appendonly", "no"));
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "appendonly", "yes"));
        Assert.True(WaitForRewrite(c, 1), c.Call("INFO", "persistence"));
        Assert.Equal(":21\r\n", c.Call("INCR", "n"));
        Assert.Equal("$2\r\n21\r\n", c.Call("GET", "n"));
    }

    /// <summary>aof-timestamp-enabled: a <c>#TS:seconds</c> line before the first command of each second; the files load here and in redis-server.</summary>
    [RedisFact]
    public async Task Aof_TimestampEnabled_AnnotatedAndLoadedBothWays()
    {
        string ourDir = RdbFileTests.NewDir();
        List<string> ours;
        long start = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        await using (var server = TestServer.Start(2, Aof(ourDir, "--aof-timestamp-enabled", "yes")))
        {
            using var c = server.Connect();
            RdbFileTests.Fill(c);
            c.Call("MULTI");
            c.Call("SET", "in-tx", "1");
            c.Call("EXEC");
            ours = RdbFileTests.Contents(c);
        }
        string incr = File.ReadAllText(Path.Combine(ourDir, "appendonlydir", "appendonly.aof.1.incr.aof"), Encoding.Latin1);
        var stamp = System.Text.RegularExpressions.Regex.Match(incr, @"^#TS:(\d+)\r\n\*2\r\n\$6\r\nSELECT\r\n");
        Assert.True(stamp.Success, incr[..Math.Min(incr.Length, 200)]);
        Assert.InRange(long.Parse(stamp.Groups[1].Value), start, DateTimeOffset.UtcNow.ToUnixTimeSeconds());
        await using (var server = TestServer.Start(2, Aof(ourDir)))
        {
            using var c = server.Connect();
            Assert.Equal(ours, RdbFileTests.Contents(c));
        }
        using (var reference = ReferenceRedis.StartOrNull($"--dir {ourDir} --appendonly yes")!)
        {
            using var c = reference.Connect();
            Assert.Equal(ours, RdbFileTests.Contents(c));
        }
    }

    /// <summary>An AOF redis-server wrote with aof-timestamp-enabled: its #TS lines are skipped, as Redis's loader skips them.</summary>
    [RedisFact]
    public async Task Aof_RedisTimestampAnnotations_LoadHere()
    {
        string theirDir = RdbFileTests.NewDir();
        List<string> theirs;
        using (var reference = ReferenceRedis.StartOrNull($"--dir {theirDir} --appendonly yes --aof-timestamp-enabled yes")!)
        {
            using var c = reference.Connect();
            RdbFileTests.Fill(c);
            theirs = RdbFileTests.Contents(c);
        }
        Assert.StartsWith("#TS:", File.ReadAllText(Path.Combine(theirDir, "appendonlydir", "appendonly.aof.1.incr.aof"), Encoding.Latin1));
        await using (var server = TestServer.Start(2, Aof(theirDir)))
        {
            using var c = server.Connect();
            Assert.Equal(theirs, RdbFileTests.Contents(c));
        }
    }

    /// <summary>aof-disable-auto-gc: files a rewrite superseded stay as history until it is turned off again.</summary>
    [Fact]
    public async Task Aof_DisableAutoGc_KeepsHistoryUntilTurnedOff()
    {
        string dir = RdbFileTests.NewDir();
        string aofDir = Path.Combine(dir, "appendonlydir");
        string manifest = Path.Combine(aofDir, "appendonly.aof.manifest");
        await using var server = TestServer.Start(1, Aof(dir));
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "aof-disable-auto-gc", "yes"));
        c.Call("SET", "k", "1");
        c.Call("BGREWRITEAOF");
        Assert.True(WaitForRewrite(c, 1), c.Call("INFO", "persistence"));
        Assert.Equal(
            "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.1.base.rdb seq 1 type h\n" +
            "file appendonly.aof.1.incr.aof seq 1 type h\nfile appendonly.aof.2.incr.aof seq 2 type i\n",
            File.ReadAllText(manifest));
        Assert.True(File.Exists(Path.Combine(aofDir, "appendonly.aof.1.base.rdb")));
        Assert.True(File.Exists(Path.Combine(aofDir, "appendonly.aof.1.incr.aof")));

        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "aof-disable-auto-gc", "no"));
        Assert.Equal("file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n", File.ReadAllText(manifest));
        Assert.False(File.Exists(Path.Combine(aofDir, "appendonly.aof.1.base.rdb")));
        Assert.False(File.Exists(Path.Combine(aofDir, "appendonly.aof.1.incr.aof")));
        Assert.Equal("$1\r\n1\r\n", c.Call("GET", "k"));
    }

    /// <summary>
    /// A command of the AOF that fails when loaded (INCR of a word): counted in unexpected_error_replies
    /// and skipped, as redis-server does; with propagation-error-behavior panic the load stops there
    /// (redis-server panics).
    /// </summary>
    [RedisFact]
    public async Task Aof_CommandFailsOnLoad_CountedOrPanicAsRedis()
    {
        string dir = RdbFileTests.NewDir();
        string aofDir = Directory.CreateDirectory(Path.Combine(dir, "appendonlydir")).FullName;
        File.WriteAllText(Path.Combine(aofDir, "appendonly.aof.manifest"), "file appendonly.aof.1.incr.aof seq 1 type i\n");
        string[][] commands = [["SELECT", "0"], ["SET", "k", "word"], ["INCR", "k"], ["SET", "after", "1"]];
        File.WriteAllBytes(Path.Combine(aofDir, "appendonly.aof.1.incr.aof"), commands.SelectMany(c => RespClient.Encode(c)).ToArray());

        using (var reference = ReferenceRedis.StartOrNull($"--dir {dir} --appendonly yes")!)
        {
            using var c = reference.Connect();
            Assert.Contains("\r\nunexpected_error_replies:1\r\n", c.Call("INFO", "stats"));
            Assert.Equal("$1\r\n1\r\n", c.Call("GET", "after"));
        }
        File.WriteAllText(Path.Combine(aofDir, "appendonly.aof.manifest"), "file appendonly.aof.1.incr.aof seq 1 type i\n");
        File.WriteAllBytes(Path.Combine(aofDir, "appendonly.aof.1.incr.aof"), commands.SelectMany(c => RespClient.Encode(c)).ToArray());
        foreach (var f in Directory.GetFiles(aofDir).Where(f => !f.EndsWith(".1.incr.aof") && !f.EndsWith(".manifest"))) File.Delete(f);
        await using (var server = TestServer.Start(1, Aof(dir)))
        {
            using var c = server.Connect();
            Assert.Contains("\r\nunexpected_error_replies:1\r\n", c.Call("INFO", "stats"));
            Assert.Equal("$1\r\n1\r\n", c.Call("GET", "after"));
        }

        File.WriteAllText(Path.Combine(aofDir, "appendonly.aof.manifest"), "file appendonly.aof.1.incr.aof seq 1 type i\n");
        foreach (var f in Directory.GetFiles(aofDir).Where(f => !f.EndsWith(".1.incr.aof") && !f.EndsWith(".manifest"))) File.Delete(f);
        Assert.Null(ReferenceRedis.StartOrNull($"--dir {dir} --appendonly yes --propagation-error-behavior panic"));
        var ex = Assert.Throws<RdbLoadException>(() => { TestServer.Start(1, Aof(dir, "--propagation-error-behavior", "panic")); });
        Assert.StartsWith("This server panicked sending an error to its AOF-loading-client after processing the command 'incr'", ex.Message);
    }

    /// <summary>
    /// no-appendfsync-on-rewrite: while a rewrite runs, appendfsync always writes without fsyncing
    /// (the replies still come), and the first turn after it fsyncs again.
    /// </summary>
    [Fact]
    public async Task Aof_NoAppendFsyncOnRewrite_NoFsyncWhileRewriting()
    {
        string dir = RdbFileTests.NewDir();
        await using var server = TestServer.Start(1, Aof(dir, "--appendfsync", "always", "--no-appendfsync-on-rewrite", "yes"));
        using var c = server.Connect();
        for (int i = 0; i < 50; i++) c.Call("SET", $"k{i}", "v");
        var writer = server.Server.Aof!;
        Assert.True(writer.Fsyncs > 0);
        // 50 keys at 100 ms each: the rewrite runs for about 5 seconds.
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "rdb-key-save-delay", "100000"));
        Assert.Equal("+Background append only file rewriting started\r\n", c.Call("BGREWRITEAOF"));
        long before = writer.Fsyncs;
        for (int i = 0; i < 5; i++) Assert.Equal("+OK\r\n", c.Call("SET", $"during{i}", "v"));
        Assert.Contains("aof_rewrite_in_progress:1", c.Call("INFO", "persistence")); // so every write above came during it
        Assert.Equal(before, writer.Fsyncs);
        Assert.True(WaitForRewrite(c, 1), c.Call("INFO", "persistence"));
        var now = server.Server.Aof!;
        long since = ReferenceEquals(now, writer) ? before : now.Fsyncs;
        // Under always the reply waits for the fsync again.
        Assert.Equal("+OK\r\n", c.Call("SET", "after", "v"));
        Assert.True(now.Fsyncs > since, "no fsync after the rewrite");
    }
}
