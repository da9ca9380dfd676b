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

    [Fact]
    public async Task Aof_ConfigAtRunTime()
    {
        string dir = RdbFileTests.NewDir();
        await using var server = TestServer.Start(2, Aof(dir));
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "appendfsync", "always"));
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "appendonly", "yes"));
        Assert.StartsWith("-ERR CONFIG SET failed (possibly related to argument 'appendonly')", c.Call("CONFIG", "SET", "appendonly", "no"));
        Assert.Equal("+OK\r\n", c.Call("SET", "k", "v"));
    }

    /// <summary>
    /// The crash test: with appendfsync always, 20 clients write under load and the server is killed
    /// with SIGKILL at a random moment, 20 times; after each restart every write it acknowledged
    /// is there. With everysec the writes lost are counted (at most about a second's worth).
    /// </summary>
    [Theory]
    [InlineData("always", 20)]
    [InlineData("everysec", 5)]
    public void Aof_SigkillUnderLoad_AcknowledgedWritesSurvive(string fsync, int rounds)
    {
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
                    string reply = check.Call("GET", key);
                    long present = Counter(reply);
                    if (fsync == "always") Assert.True(present >= value, $"round {round}: {key} acknowledged {value}, found {present}");
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
                var (key, value) = t.Result;
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
                if (fsync == "always") Assert.True(present >= value, $"{key} acknowledged {value}, found {present}");
                lost += Math.Max(0, value - present);
            }
            string line = $"appendfsync {fsync}: {rounds} SIGKILLs under 20 writers, {acked.Values.Sum()} increments acknowledged, {lost} of them missing after a restart";
            output.WriteLine(line);
            File.AppendAllText(Path.Combine(Path.GetTempPath(), "redisclone-aof-crash.txt"), line + "\n");
        }
    }
}
