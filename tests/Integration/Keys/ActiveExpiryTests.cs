using System.Diagnostics;
using RedisClone.Tests.Infrastructure;
using Xunit.Abstractions;

namespace RedisClone.Tests.Keys;

/// <summary>
/// The active expiry cycle finds expired keys that nobody reads, promptly, however many keys lost
/// their TTL before (issue 12): it samples an index holding exactly the live keys with a TTL, as
/// Redis's <c>expires</c> dict, so deleted or persisted keys cost it nothing.
/// </summary>
/// <remarks>
/// The bounds are behavioural, not benchmarks. Redis checks its keys with a TTL every 100 ms and
/// keeps going while more than 10% of a sample had expired, so expired keys are gone within a few
/// cycles: redis-server 7.0.15 took 0.16 to 0.42 s after the last TTL in both scenarios here (once
/// 2.4 s, while it shrank its dict after the deletions); RedisClone 0.01 to 0.1 s. The bounds (2 s,
/// and 1 s as the issue asks) leave room for a shared two-core machine running other tests; the
/// old index, which kept deleted keys' entries, and the old cycle, which gave up its turn whenever
/// client work was queued, left 1,300 of 2,000 and 54,000 of 200,000 keys at those bounds.
/// </remarks>
public class ActiveExpiryTests(ITestOutputHelper output)
{
    /// <summary>Sends the commands in pipelined chunks (bounded, so neither side's buffers fill up) and checks every reply.</summary>
    internal static void Pipeline(RespClient c, IEnumerable<string[]> commands, string expectedReply)
    {
        foreach (var chunk in commands.Chunk(2000))
            Assert.All(KeyReplies.Pipeline(c, chunk), r => Assert.Equal(expectedReply, r));
    }

    private static long DbSize(RespClient c) => long.Parse(c.Call("DBSIZE")[1..^2]);

    /// <summary>Polls DBSIZE until it is 0 or the deadline passes; returns when it reached 0 (Stopwatch ms), or null.</summary>
    private static long? WaitForEmpty(RespClient c, Stopwatch clock, long deadlineMs)
    {
        while (true)
        {
            if (DbSize(c) == 0) return clock.ElapsedMilliseconds;
            if (clock.ElapsedMilliseconds > deadlineMs) return null;
            Thread.Sleep(10);
        }
    }

    /// <summary>Figures of one run of the scenario.</summary>
    internal readonly record struct Timing(long? EmptyAfterMs, long? LastEventAfterMs, int Events, long DbSizeAtDeadline);

    /// <summary>
    /// The scenario: <paramref name="longKeys"/> keys with a one-hour TTL, then
    /// <paramref name="shortKeys"/> keys with a 1 s TTL, then the long ones deleted. Returns how long
    /// after the last short TTL ran out DBSIZE reached 0 and the last "expired" event arrived (null
    /// when not within <paramref name="limitMs"/>).
    /// </summary>
    internal static Timing LongTtlKeysDeleted(Func<RespClient> connect, int longKeys, int shortKeys, long limitMs)
    {
        using var c = connect();
        using var sub = connect();
        c.Call("FLUSHALL");
        c.Call("CONFIG", "SET", "notify-keyspace-events", "Ex");
        sub.Call("SUBSCRIBE", "__keyevent@0__:expired");
        try
        {
            Pipeline(c, Enumerable.Range(0, longKeys).Select(i => new[] { "SET", "long:" + i, "v", "EX", "3600" }), "+OK\r\n");
            var clock = Stopwatch.StartNew();
            Pipeline(c, Enumerable.Range(0, shortKeys).Select(i => new[] { "SET", "short:" + i, "v", "PX", "1000" }), "+OK\r\n");
            long lastExpiry = clock.ElapsedMilliseconds + 1000;
            Pipeline(c, Enumerable.Range(0, longKeys).Select(i => new[] { "DEL", "long:" + i }), ":1\r\n");
            // Deleting takes well under the TTL; on a machine slow enough to outlast it, the bound
            // runs from the end of the deletions.
            long deadline = Math.Max(lastExpiry, clock.ElapsedMilliseconds) + limitMs;

            long? empty = WaitForEmpty(c, clock, deadline);
            long dbSize = DbSize(c);
            int events = 0;
            long? lastEvent = null;
            while (events < shortKeys)
            {
                long wait = Math.Max(deadline - clock.ElapsedMilliseconds, 1);
                string? message = sub.TryReadReply((int)Math.Min(wait, int.MaxValue));
                if (message == null) break;
                if (!message.Contains("expired")) continue;
                events++;
                if (events == shortKeys) lastEvent = clock.ElapsedMilliseconds - lastExpiry;
            }
            return new Timing(empty - lastExpiry, lastEvent, events, dbSize);
        }
        finally
        {
            c.Call("CONFIG", "SET", "notify-keyspace-events", "");
        }
    }

    /// <summary>
    /// <paramref name="keys"/> keys with PX 1..2000 (key i: 1 + i mod 2000 ms), while
    /// <paramref name="busyClients"/> connections keep the server busy with pipelined reads of other
    /// keys; returns how long after the last TTL ran out DBSIZE reached 0, or null when not within
    /// <paramref name="limitMs"/>.
    /// </summary>
    internal static (long? EmptyAfterMs, long DbSizeAtDeadline) SpreadTtls(Func<RespClient> connect, int keys, long limitMs, int busyClients)
    {
        using var c = connect();
        c.Call("FLUSHALL");
        using var load = new ReadLoad(connect, busyClients);
        var clock = Stopwatch.StartNew();
        Pipeline(c, Enumerable.Range(0, keys).Select(i => new[] { "SET", "k:" + i, "v", "PX", (1 + i % 2000).ToString() }), "+OK\r\n");
        long lastExpiry = clock.ElapsedMilliseconds + 2000;
        long? empty = WaitForEmpty(c, clock, lastExpiry + limitMs);
        return (empty - lastExpiry, DbSize(c));
    }

    /// <summary>Connections sending pipelined GETs of 50 missing keys at a time, until disposed.</summary>
    private sealed class ReadLoad : IDisposable
    {
        private readonly CancellationTokenSource _stop = new();
        private readonly List<Thread> _threads = [];

        public ReadLoad(Func<RespClient> connect, int clients)
        {
            for (int t = 0; t < clients; t++)
            {
                var client = connect();
                byte[] batch = Enumerable.Range(0, 50).SelectMany(i => RespClient.Encode("GET", $"load:{t}:{i}")).ToArray();
                var thread = new Thread(() =>
                {
                    using (client)
                        while (!_stop.IsCancellationRequested)
                        {
                            client.SendRaw(batch);
                            for (int i = 0; i < 50; i++) client.ReadReply();
                        }
                }) { IsBackground = true };
                thread.Start();
                _threads.Add(thread);
            }
        }

        public void Dispose()
        {
            _stop.Cancel();
            foreach (var t in _threads) t.Join();
        }
    }

    [Fact]
    public async Task ActiveExpiry_100kLongTtlKeysDeleted_2kShortTtlKeysExpireOnTime()
    {
        await using var server = TestServer.Start(shards: 4);
        var t = LongTtlKeysDeleted(server.Connect, longKeys: 100_000, shortKeys: 2000, limitMs: 2000);
        output.WriteLine($"DBSIZE 0 after {t.EmptyAfterMs} ms, 2,000th expired event after {t.LastEventAfterMs} ms");
        Assert.True(t.EmptyAfterMs != null, $"DBSIZE was {t.DbSizeAtDeadline}, not 0, 2 s after the last TTL ran out");
        Assert.True(t.LastEventAfterMs != null, $"{t.Events} of 2,000 expired events within 2 s of the last TTL");
    }

    /// <remarks>
    /// One shard, as Redis's one thread holds every key, and two clients reading other keys all the
    /// while: the cycle must delete 100,000 keys a second in its 25% share of the time, serving the
    /// clients' work queued meanwhile rather than giving up its turn to it (the old cycle gave up
    /// whenever work was queued: 6.7 s after the last TTL here; 1.9 s with one busy client).
    /// </remarks>
    [Fact]
    public async Task ActiveExpiry_200kKeysPx1To2000UnderLoad_DbSizeZeroWithinASecondOfTheLast()
    {
        await using var server = TestServer.Start(shards: 1);
        var (emptyAfter, size) = SpreadTtls(server.Connect, keys: 200_000, limitMs: 1000, busyClients: 2);
        output.WriteLine($"DBSIZE 0 after {emptyAfter} ms");
        Assert.True(emptyAfter != null, $"DBSIZE was {size}, not 0, 1 s after the last TTL ran out");
    }

    /// <summary>
    /// Both scenarios on redis-server and on RedisClone, figures printed side by side (run by hand:
    /// REDISCLONE_EXPIRY_FIGURES=1 dotnet test --filter ActiveExpiry_Figures --logger "console;verbosity=detailed").
    /// </summary>
    [ExpiryFiguresFact]
    public async Task ActiveExpiry_Figures_SideBySideWithRedis()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        await using var server = TestServer.Start(shards: 4);
        await using var oneShard = TestServer.Start(shards: 1);
        for (int run = 0; run < 3; run++)
        {
            var theirs = LongTtlKeysDeleted(reference.Connect, 100_000, 2000, 20_000);
            var ours = LongTtlKeysDeleted(server.Connect, 100_000, 2000, 20_000);
            output.WriteLine($"100k long TTL deleted, 2k PX 1000: DBSIZE 0 after the last TTL: redis {theirs.EmptyAfterMs} ms, ours {ours.EmptyAfterMs} ms; "
                             + $"2,000th expired event: redis {theirs.LastEventAfterMs} ms, ours {ours.LastEventAfterMs} ms");
            foreach (int busy in new[] { 0, 2 })
            {
                var spreadTheirs = SpreadTtls(reference.Connect, 200_000, 20_000, busy);
                var spreadOurs = SpreadTtls(oneShard.Connect, 200_000, 20_000, busy);
                output.WriteLine($"200k keys PX 1..2000, {busy} busy clients (ours on one shard): DBSIZE 0 after the last TTL: "
                                 + $"redis {spreadTheirs.EmptyAfterMs} ms, ours {spreadOurs.EmptyAfterMs} ms");
            }
        }
    }
}

/// <summary>A fact run only by hand (REDISCLONE_EXPIRY_FIGURES=1) and only when redis-server is installed.</summary>
public sealed class ExpiryFiguresFactAttribute : FactAttribute
{
    public ExpiryFiguresFactAttribute()
    {
        if (!ReferenceRedis.Available) Skip = ReferenceRedis.MissingMessage;
        else if (Environment.GetEnvironmentVariable("REDISCLONE_EXPIRY_FIGURES") != "1")
            Skip = "prints timings beside redis-server's; set REDISCLONE_EXPIRY_FIGURES=1 to run";
    }
}
