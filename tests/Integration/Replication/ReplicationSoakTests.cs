using System.Diagnostics;
using System.Net;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;
using RedisClone.Tests.Replication.Soak;
using Xunit.Abstractions;

namespace RedisClone.Tests.Replication;

/// <summary>
/// The replication soak of issue 27, both directions with Debian's redis-server 7.0.15 (and ours to
/// ours): a dataset of every type and encoding with TTLs in four databases, a full sync while
/// writes stream (scripts, MULTI, expiries, evictions under maxmemory, blocking pops served), the
/// two compared key by key; then the link cut from the replica's side (CLIENT KILL TYPE master) and
/// from the master's (CLIENT KILL TYPE replica) while the writes go on: each resync must be partial
/// (sync_partial_ok up by one, sync_full unchanged) and the two equal again. The suite runs a short
/// version (20,000 keys, seconds of writes); REDISCLONE_SOAK=1 runs the issue's 200,000 keys
/// (REDISCLONE_SOAK_KEYS overrides the count) with longer phases.
/// </summary>
public sealed class ReplicationSoakTests(ITestOutputHelper output)
{
    private sealed record SoakSize(int Keys, int StreamSeconds, int ShortTtlSeconds, int WaitSeconds, string Backlog);

    private static readonly SoakSize Short = new(20_000, 4, 8, 120, "64mb");

    private static SoakSize Full => new(
        int.TryParse(Environment.GetEnvironmentVariable("REDISCLONE_SOAK_KEYS"), out int keys) ? keys : 200_000, 20, 60, 600, "512mb");

    [RedisFact]
    public void Soak_OursMasterRedisReplica_EqualAndPartialResyncs() => Run(Short, Direction.OursToRedis);

    [RedisFact]
    public void Soak_RedisMasterOurReplica_EqualAndPartialResyncs() => Run(Short, Direction.RedisToOurs);

    [Fact]
    public void Soak_OursMasterOurReplica_EqualAndPartialResyncs() => Run(Short, Direction.OursToOurs);

    [SoakFact]
    public void SoakFull_OursMasterRedisReplica_EqualAndPartialResyncs() => Run(Full, Direction.OursToRedis);

    [SoakFact]
    public void SoakFull_RedisMasterOurReplica_EqualAndPartialResyncs() => Run(Full, Direction.RedisToOurs);

    [SoakFact]
    public void SoakFull_OursMasterOurReplica_EqualAndPartialResyncs() => Run(Full, Direction.OursToOurs);

    private enum Direction { OursToRedis, RedisToOurs, OursToOurs }

    private void Run(SoakSize size, Direction direction)
    {
        if (direction != Direction.OursToOurs && !ReferenceRedis.Available) return;
        var data = new SoakDataset(size.Keys, databases: 4, shortTtlMaxSeconds: size.ShortTtlSeconds);
        // Ours as master syncs diskless to redis-server and through a file to ourselves; redis-server
        // as master syncs through a file (our replica loads it whole, then swaps nothing in).
        using var master = direction == Direction.RedisToOurs
            ? Node.Redis($"--repl-backlog-size {size.Backlog} --repl-diskless-sync no")
            : Node.Ours("--repl-backlog-size", size.Backlog, "--repl-diskless-sync", direction == Direction.OursToRedis ? "yes" : "no", "--repl-diskless-sync-delay", "0");
        using var replica = direction == Direction.OursToRedis
            ? Node.Redis("")
            : Node.Ours(direction == Direction.OursToOurs ? ["--repl-diskless-load", "swapdb"] : []);
        using var m = master.Connect();
        using var r = replica.Connect();
        Log($"{direction}: master {master.Name} :{master.Port}, replica {replica.Name} :{replica.Port}, {size.Keys} keys");

        TimeSpan load = data.Load(m);
        Log($"load: {size.Keys} keys in {load.TotalSeconds:F1} s; master dbsize {string.Join(",", Enumerable.Range(0, 4).Select(db => DbSize(m, db)))}");

        // The full sync, with writes streaming from before it starts.
        int seed = 100;
        var writers = StartWriters(master, data, ref seed);
        var sw = Stopwatch.StartNew();
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", master.Port.ToString()));
        Eventually.Wait(() => Field(r, "replication", "master_link_status") == "up", () => "link up: " + r.Call("INFO", "replication"), size.WaitSeconds);
        Log($"full sync: link up {sw.Elapsed.TotalSeconds:F1} s after REPLICAOF");
        Thread.Sleep(TimeSpan.FromSeconds(size.StreamSeconds));

        // Writes under maxmemory: the master evicts, and its evictions reach the replica as DELs.
        long used = long.Parse(Field(m, "memory", "used_memory")!);
        Assert.Equal("+OK\r\n", m.Call("CONFIG", "SET", "maxmemory-policy", "allkeys-lru"));
        Assert.Equal("+OK\r\n", m.Call("CONFIG", "SET", "maxmemory", (used + 2_000_000).ToString()));
        Thread.Sleep(TimeSpan.FromSeconds(size.StreamSeconds));
        StopWriters(writers);
        Assert.Equal("+OK\r\n", m.Call("CONFIG", "SET", "maxmemory", "0"));
        Log($"master: evicted_keys {Field(m, "stats", "evicted_keys")}, expired_keys {Field(m, "stats", "expired_keys")}");
        Assert.NotEqual("0", Field(m, "stats", "evicted_keys"));
        CompareInSync(master, replica, m, r, data, size, "after the full sync");
        string full = Field(m, "stats", "sync_full")!;
        Assert.Equal("1", full);
        // Our replica offers its own history first (PSYNC2, as a Redis replica that was a master does): a refused partial.
        string partialErr = Field(m, "stats", "sync_partial_err")!;

        // The link cut from either side while the writes go on: each resync continues from the backlog.
        foreach (var (side, cut) in new (string, Action)[]
                 {
                     ("replica", () => Assert.Equal(":1\r\n", r.Call("CLIENT", "KILL", "TYPE", "master"))),
                     ("master", () => Assert.Equal(":1\r\n", m.Call("CLIENT", "KILL", "TYPE", "replica"))),
                 })
        {
            long partial = long.Parse(Field(m, "stats", "sync_partial_ok")!);
            writers = StartWriters(master, data, ref seed);
            Thread.Sleep(500);
            sw.Restart();
            cut();
            Eventually.Wait(() => long.Parse(Field(m, "stats", "sync_partial_ok")!) > partial,
                () => $"a partial resync after the cut on the {side}: {m.Call("INFO", "stats")}\n{r.Call("INFO", "replication")}", size.WaitSeconds);
            Eventually.Wait(() => Field(r, "replication", "master_link_status") == "up", () => "link up: " + r.Call("INFO", "replication"), size.WaitSeconds);
            Log($"cut on the {side}: partial resync, link up again {sw.Elapsed.TotalSeconds:F1} s after the kill");
            Thread.Sleep(1000);
            StopWriters(writers);
            CompareInSync(master, replica, m, r, data, size, $"after the cut on the {side}");
            Assert.Equal(partial + 1, long.Parse(Field(m, "stats", "sync_partial_ok")!));
            Assert.Equal(full, Field(m, "stats", "sync_full"));
        }
        Assert.Equal(partialErr, Field(m, "stats", "sync_partial_err"));
    }

    private (SoakWriter[] Writers, SoakBlocker Blocker) StartWriters(Node master, SoakDataset data, ref int seed)
    {
        var writers = new[] { new SoakWriter(master.EndPoint, data, seed++), new SoakWriter(master.EndPoint, data, seed++) };
        var blocker = new SoakBlocker(master.EndPoint);
        foreach (var w in writers) w.Start();
        blocker.Start();
        return (writers, blocker);
    }

    private void StopWriters((SoakWriter[] Writers, SoakBlocker Blocker) running)
    {
        foreach (var w in running.Writers) w.Stop();
        running.Blocker.Stop();
        var errors = running.Writers.SelectMany(w => w.Errors).GroupBy(e => e.Key).Select(g => $"{g.Key} x{g.Sum(e => e.Value)}");
        Log($"writes: {running.Writers.Sum(w => w.Commands)} commands, {running.Blocker.Served} blocking pops served; error replies: {string.Join("; ", errors)}");
        var unexpected = running.Writers.SelectMany(w => w.UnexpectedErrors()).Distinct().ToList();
        Assert.True(unexpected.Count == 0, "the soak sent commands the master refused: " + string.Join("; ", unexpected));
    }

    private void CompareInSync(Node master, Node replica, RespClient m, RespClient r, SoakDataset data, SoakSize size, string when)
    {
        var sw = Stopwatch.StartNew();
        Eventually.Wait(() => Field(r, "replication", "master_link_status") == "up"
                              && Field(m, "replication", "master_repl_offset") is { } offset && offset == Field(r, "replication", "slave_repl_offset"),
            () => $"replica caught up: master {Field(m, "replication", "master_repl_offset")}, replica {Field(r, "replication", "slave_repl_offset")}", size.WaitSeconds);
        Log($"{when}: caught up in {sw.Elapsed.TotalSeconds:F1} s (offset {Field(m, "replication", "master_repl_offset")})");
        var result = SoakComparer.Compare(master.EndPoint, replica.EndPoint, data.Databases);
        Log($"{when}: {result}");
        Assert.True(result.Mismatches == 0, $"{when}: {result}");
    }

    private void Log(string line) => output.WriteLine($"[{DateTime.UtcNow:HH:mm:ss.f}] {line}");

    private static string DbSize(RespClient c, int db)
    {
        c.Call("SELECT", db.ToString());
        string n = c.Call("DBSIZE").Trim(':', '\r', '\n');
        c.Call("SELECT", "0");
        return n;
    }

    private static string? Field(RespClient c, string section, string name)
    {
        var match = Regex.Match(c.Call("INFO", section), $"^{Regex.Escape(name)}:([^\r\n]*)", RegexOptions.Multiline);
        return match.Success ? match.Groups[1].Value : null;
    }

    /// <summary>One side of the soak: a RedisClone server in-process or a redis-server in a directory of its own.</summary>
    private sealed class Node : IDisposable
    {
        private readonly TestServer? _ours;
        private readonly ReferenceRedis? _redis;
        private readonly string? _dir;

        private Node(TestServer? ours, ReferenceRedis? redis, string? dir)
        {
            _ours = ours;
            _redis = redis;
            _dir = dir;
        }

        public static Node Ours(params string[] args) => new(TestServer.Start(4, args), null, null);

        public static Node Redis(string args)
        {
            string dir = Directory.CreateTempSubdirectory("rc-soak").FullName;
            var redis = ReferenceRedis.StartOrNull($"--dir {dir} {args}") ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
            return new Node(null, redis, dir);
        }

        public string Name => _ours != null ? "redisclone" : "redis-server";

        public int Port => _ours?.Port ?? _redis!.Port;

        public IPEndPoint EndPoint => new(IPAddress.Loopback, Port);

        public RespClient Connect() => new(EndPoint, 60_000);

        public void Dispose()
        {
            _ours?.DisposeAsync().AsTask().Wait(TimeSpan.FromSeconds(60));
            _redis?.Dispose();
            if (_dir == null) return;
            for (int i = 0; i < 50 && Directory.Exists(_dir); i++)
            {
                try { Directory.Delete(_dir, recursive: true); }
                catch (IOException) { Thread.Sleep(100); }
            }
        }
    }
}

/// <summary>The 200,000-key soak: skipped unless REDISCLONE_SOAK=1 (it takes minutes) or when redis-server is missing.</summary>
public sealed class SoakFactAttribute : FactAttribute
{
    public SoakFactAttribute()
    {
        if (Environment.GetEnvironmentVariable("REDISCLONE_SOAK") != "1")
            Skip = "the 200,000-key replication soak runs with REDISCLONE_SOAK=1 (REDISCLONE_SOAK_KEYS=n for another key count)";
        else if (!ReferenceRedis.Available)
            Skip = ReferenceRedis.MissingMessage;
    }
}
