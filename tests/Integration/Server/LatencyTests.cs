using System.Text.RegularExpressions;
using RedisClone.Server;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// LATENCY LATEST / HISTORY / RESET / GRAPH / DOCTOR / HISTOGRAM against redis-server (figures that
/// depend on timing masked), the latency histogram's arithmetic (the HDR layout Redis reports from),
/// INFO latencystats and its configuration, and redis-cli's latency modes.
/// </summary>
public class LatencyTests
{
    private static readonly Regex Integers = new(@"(?<=\n|^):\d+\r\n", RegexOptions.Compiled);
    private static readonly Regex Digits = new(@"\d+", RegexOptions.Compiled);

    private static string MaskIntegers(string reply) => Integers.Replace(reply, ":N\r\n");

    /// <summary>A verbatim or bulk reply's text with every number replaced (lengths included).</summary>
    private static string MaskDigits(string reply) => Digits.Replace(reply, "N");

    private static List<string> Script(RespClient c)
    {
        var replies = new List<string>();
        replies.Add(c.Call("CONFIG", "SET", "latency-monitor-threshold", "0"));
        replies.Add(c.Call("LATENCY", "RESET"));
        replies.Add(c.Call("LATENCY", "DOCTOR"));
        replies.Add(c.Call("LATENCY", "LATEST"));
        replies.Add(c.Call("LATENCY", "HISTORY", "command"));
        replies.Add(c.Call("LATENCY", "GRAPH", "command"));
        c.Call("DEBUG", "SLEEP", "0.06"); // threshold 0: nothing recorded
        replies.Add(c.Call("LATENCY", "LATEST"));
        replies.Add(c.Call("CONFIG", "SET", "latency-monitor-threshold", "50"));
        replies.Add(c.Call("LATENCY", "DOCTOR")); // on, nothing seen yet
        c.Call("DEBUG", "SLEEP", "0.12");
        c.Call("SET", "k", "v"); // fast and quick: not recorded
        replies.Add(MaskIntegers(c.Call("LATENCY", "LATEST")));
        replies.Add(MaskIntegers(c.Call("LATENCY", "HISTORY", "command")));
        replies.Add(c.Call("LATENCY", "HISTORY", "COMMAND")); // event names are case-sensitive here
        replies.Add(c.Call("LATENCY", "HISTORY", "fast-command"));
        replies.Add(MaskDigits(c.Call("LATENCY", "GRAPH", "command")));
        replies.Add(c.Call("LATENCY", "GRAPH", "nosuch"));
        // The report's framing and its per-event line (the advice that follows is in our words).
        string doctor = c.Call("LATENCY", "DOCTOR");
        replies.Add(MaskDigits(doctor[..doctor.IndexOf("I have a few advices", StringComparison.Ordinal)]));
        replies.Add(c.Call("LATENCY", "RESET", "nosuch", "COMMAND"));
        replies.Add(c.Call("LATENCY", "LATEST"));
        replies.Add(c.Call("LATENCY", "RESET"));
        replies.Add(c.Call("LATENCY", "HISTORY"));
        replies.Add(c.Call("LATENCY", "GRAPH"));
        replies.Add(c.Call("LATENCY", "LATEST", "x"));
        replies.Add(c.Call("LATENCY", "DOCTOR", "x"));
        replies.Add(c.Call("LATENCY", "NOSUCH"));
        replies.Add(c.Call("LATENCY"));
        replies.Add(c.Call("CONFIG", "SET", "latency-monitor-threshold", "-1"));
        replies.Add(c.Call("CONFIG", "SET", "latency-monitor-threshold", "0"));
        return replies;
    }

    [RedisFact]
    public async Task Latency_Events_SameRepliesAsRedis()
    {
        using var reference = ReferenceRedis.StartOrNull("--enable-debug-command yes")!;
        await using var server = TestServer.Start(2, "--enable-debug-command", "yes");
        // RESP3 too: GRAPH and DOCTOR are verbatim strings there ("txt:").
        foreach (int protocol in new[] { 2, 3 })
        {
            List<string> theirs, ours;
            using (var c = reference.Connect())
            {
                if (protocol == 3) c.Call("HELLO", "3");
                theirs = Script(c);
            }
            using (var c = server.Connect())
            {
                if (protocol == 3) c.Call("HELLO", "3");
                ours = Script(c);
            }
            Assert.Equal(theirs.Count, ours.Count);
            for (int i = 0; i < theirs.Count; i++)
                Assert.True(theirs[i] == ours[i], $"RESP{protocol} reply {i} differs:\n  redis:      {Differential.Show(theirs[i])}\n  redisclone: {Differential.Show(ours[i])}");
        }
    }

    private static List<string> HistogramScript(RespClient c)
    {
        var replies = new List<string>();
        c.Call("CONFIG", "RESETSTAT");
        c.Call("SET", "k", "v");
        c.Call("SET", "k", "v");
        c.Call("GET", "k");
        c.Call("CONFIG", "GET", "maxmemory");
        // The buckets depend on timing: the shape and the call counts must match.
        foreach (var args in new[]
                 {
                     new[] { "LATENCY", "HISTOGRAM", "set" }, ["LATENCY", "HISTOGRAM", "SET", "get"],
                     ["LATENCY", "HISTOGRAM", "config|get"], ["LATENCY", "HISTOGRAM", "nosuch", "lpush"],
                 })
            replies.Add(Regex.Replace(MaskIntegers(c.Call(args)), @"histogram_usec\r\n([*%])\d+\r\n(:N\r\n)*", "histogram_usec\r\n$1H\r\n"));
        replies.Add(c.Call("LATENCY", "HISTOGRAM", "nosuch"));
        string config = c.Call("LATENCY", "HISTOGRAM", "config");
        replies.Add(config.Contains("config|get") && config.Contains("config|resetstat") ? "both" : config);
        c.Call("CONFIG", "SET", "latency-tracking", "no");
        c.Call("CONFIG", "RESETSTAT");
        c.Call("SET", "k", "v");
        replies.Add(c.Call("LATENCY", "HISTOGRAM", "set"));
        c.Call("CONFIG", "SET", "latency-tracking", "yes");
        return replies;
    }

    [RedisFact]
    public async Task LatencyHistogram_ShapeAndCounts_SameAsRedis()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        await using var server = TestServer.Start(2);
        foreach (int protocol in new[] { 2, 3 })
        {
            List<string> theirs, ours;
            using (var c = reference.Connect())
            {
                if (protocol == 3) c.Call("HELLO", "3");
                theirs = HistogramScript(c);
            }
            using (var c = server.Connect())
            {
                if (protocol == 3) c.Call("HELLO", "3");
                ours = HistogramScript(c);
            }
            for (int i = 0; i < theirs.Count; i++)
                Assert.True(theirs[i] == ours[i], $"RESP{protocol} reply {i} differs:\n  redis:      {Differential.Show(theirs[i])}\n  redisclone: {Differential.Show(ours[i])}");
        }
    }

    [Fact]
    public async Task LatencyHistogram_Buckets_CountEveryCallUpToEachPowerOfTwo()
    {
        await using var server = TestServer.Start(2, "--enable-debug-command", "yes");
        using var c = server.Connect();
        c.Call("CONFIG", "RESETSTAT");
        for (int i = 0; i < 5; i++) c.Call("PING");
        c.Call("DEBUG", "SLEEP", "0.02");
        string reply = c.Call("LATENCY", "HISTOGRAM", "ping", "debug");
        var numbers = reply.Split("\r\n").Where(t => t.StartsWith(':')).Select(t => long.Parse(t[1..])).ToList();
        // ping: calls 5, then (bucket, cumulative) pairs ending at 5; debug: calls 1, ending at 1.
        Assert.Contains("$4\r\nping\r\n", reply);
        Assert.Equal(5, numbers[0]);
        int debugAt = numbers.IndexOf(1, 1);
        Assert.Equal(5, numbers[debugAt - 1]);
        Assert.Equal(1, numbers[^1]);
        // 20 ms falls at the power of two of microseconds above it: 32768 µs (reported as 32 ms' slot top).
        Assert.InRange(numbers[^2], 16_384, 1_100_000);
    }

    [Fact]
    public void LatencyReset_CommandInfo_Redis72Tips()
    {
        using var c = TestServer.Shared.Connect();
        // 7.2's latency-reset.json: the replies of all nodes are summed (7.0 said all_succeeded).
        Assert.Contains("$24\r\nrequest_policy:all_nodes\r\n$23\r\nresponse_policy:agg_sum\r\n", c.Call("COMMAND", "INFO", "latency|reset"));
    }

    [Fact]
    public void LatencyHistogram_Layout_AsHdrAtTwoSignificantDigits()
    {
        // Values below 256 ns have a slot each; then 128 slots per power of two.
        Assert.Equal(255, LatencyHistogram.SlotOf(255));
        Assert.Equal(256, LatencyHistogram.SlotOf(256));
        Assert.Equal(256, LatencyHistogram.SlotOf(257));
        Assert.Equal(256, LatencyHistogram.ValueOf(256));
        Assert.Equal(1003, LatencyHistogram.HighestEquivalent(1000));
        Assert.Equal(3072, LatencyHistogram.Slots);
        Assert.True(LatencyHistogram.SlotOf(LatencyHistogram.MaxValue) < LatencyHistogram.Slots);

        var h = new LatencyHistogram();
        for (int i = 0; i < 98; i++) h.Record(1000);   // 1 µs, as Redis records a 1 µs command
        h.Record(5_000);
        h.Record(2_000_000_000);                        // above 1 s: counted at 1 s
        var counts = new long[LatencyHistogram.Slots];
        long total = h.Snapshot(counts);
        Assert.Equal(100, total);
        // Redis prints these as p50=1.003, p99=5.023, p99.9=1002438.655 (the slot tops, in µs).
        Assert.Equal(1003, LatencyHistogram.ValueAtPercentile(counts, total, 50));
        Assert.Equal(5023, LatencyHistogram.ValueAtPercentile(counts, total, 99));
        Assert.Equal(1_002_438_655, LatencyHistogram.ValueAtPercentile(counts, total, 99.9));
        Assert.Equal(1000, LatencyHistogram.ValueAtPercentile(counts, total, 0));
        var buckets = LatencyHistogram.Cumulative(counts, total);
        Assert.Equal([(1L, 98L), (8L, 99L), (1_073_741L, 100L)], buckets);
    }

    [Fact]
    public async Task InfoLatencystats_PercentilesPerCommand_FollowConfig()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        c.Call("CONFIG", "RESETSTAT");
        c.Call("SET", "k", "v");
        string info = c.Call("INFO", "latencystats");
        Assert.Matches(@"\r\nlatency_percentiles_usec_set:p50=\d+\.\d{3},p99=\d+\.\d{3},p99\.9=\d+\.\d{3}\r\n", info);
        Assert.Matches(@"\r\nlatency_percentiles_usec_config\|resetstat:p50=", info);
        Assert.DoesNotContain("usec_get:", info);
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "latency-tracking-info-percentiles", "0 99.99 100"));
        Assert.Equal("*2\r\n$33\r\nlatency-tracking-info-percentiles\r\n$11\r\n0 99.99 100\r\n",
            c.Call("CONFIG", "GET", "latency-tracking-info-percentiles"));
        Assert.Matches(@"\r\nlatency_percentiles_usec_set:p0=\d+\.\d{3},p99\.99=\d+\.\d{3},p100=\d+\.\d{3}\r\n", c.Call("INFO", "latencystats"));
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "latency-tracking-info-percentiles", ""));
        Assert.Contains("\r\nlatency_percentiles_usec_set:\r\n", c.Call("INFO", "latencystats"));
        c.Call("CONFIG", "SET", "latency-tracking", "no");
        c.Call("CONFIG", "RESETSTAT");
        c.Call("GET", "k");
        Assert.DoesNotContain("latency_percentiles_usec_", c.Call("INFO", "latencystats"));
    }

    [RedisFact]
    public void LatencyTrackingInfoPercentiles_ConfigSetAndErrors_SameAsRedis()
        => Differential.AssertSameOnPrivateServers(2,
            ["CONFIG", "GET", "latency-tracking-info-percentiles"],
            ["CONFIG", "SET", "latency-tracking-info-percentiles", "50.0 99.90 12.345678"],
            ["CONFIG", "GET", "latency-tracking-info-percentiles"],
            ["CONFIG", "SET", "latency-tracking-info-percentiles", "101"],
            ["CONFIG", "SET", "latency-tracking-info-percentiles", "-1"],
            ["CONFIG", "SET", "latency-tracking-info-percentiles", "abc"],
            ["CONFIG", "SET", "latency-tracking-info-percentiles", "50 nan"],
            ["CONFIG", "GET", "latency-tracking-info-percentiles"],
            ["CONFIG", "SET", "latency-tracking-info-percentiles", ""],
            ["CONFIG", "GET", "latency-tracking-info-percentiles"],
            ["CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9"],
            ["CONFIG", "GET", "latency-tracking"],
            ["CONFIG", "GET", "latency-monitor-threshold"]);

    /// <summary>
    /// An active expiry cycle that takes longer than latency-monitor-threshold is an expire-cycle
    /// event, as in Redis (300,000 keys expiring at once keep a cycle at its 25 ms budget).
    /// </summary>
    [Fact]
    public async Task ActiveExpireCycle_OverThreshold_ShowsInLatencyLatest()
    {
        await using var server = TestServer.Start(2, "--enable-debug-command", "yes");
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "latency-monitor-threshold", "1"));
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "POPULATE", "300000", "key", "10"));
        Assert.Equal(":1\r\n", c.Call("EVAL", "for i=1,300000 do redis.call('pexpire','key:'..i-1, 1) end return 1", "0"));
        Thread.Sleep(10); // every TTL is past
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "1"));
        await Eventually.WaitFor(() => c.Call("LATENCY", "LATEST").Contains("expire-cycle"),
            () => c.Call("LATENCY", "LATEST") + " / dbsize " + c.Call("DBSIZE"), seconds: 30);
    }

    [Fact]
    public void LatencyMonitor_Samples_WorstPerSecondAndThe160Newest()
    {
        var monitor = new LatencyMonitor(() => 5);
        monitor.AddIfNeeded(LatencyMonitor.Events.ExpireCycle, 4);
        Assert.Empty(monitor.Latest());
        monitor.Add("expire-cycle", 7, 1000);
        monitor.Add("expire-cycle", 9, 1000); // same second: the larger stays
        monitor.Add("expire-cycle", 6, 1001);
        Assert.Equal([(1000L, 9L), (1001L, 6L)], monitor.History("expire-cycle")!);
        Assert.Equal([("expire-cycle", 1001L, 6L, 9L)], monitor.Latest());
        for (int s = 0; s < 200; s++) monitor.Add("x", 10 + s, 2000 + s);
        Assert.Equal(LatencyMonitor.HistoryLength, monitor.History("x")!.Count);
        Assert.Equal(2040, monitor.History("x")![0].Time);
        Assert.Equal(1, monitor.Reset("EXPIRE-CYCLE"));
        Assert.Equal(1, monitor.Reset(null));
    }

    [Fact]
    public void LatencyGraph_LayoutAsRedisSparkline()
    {
        var monitor = new LatencyMonitor(() => 1);
        monitor.Add("command", 10, 100);
        monitor.Add("command", 40, 101);
        monitor.Add("command", 25, 170);
        string graph = monitor.Graph("command", 230)!;
        string expected =
            "command - high 40 ms, low 10 ms (all time high 40 ms)\n"
            + new string('-', 80) + "\n"
            + " # \n"
            + " |_\n"
            + " ||\n"
            + "_||\n"
            + "   \n"
            + "221\n"
            + "mmm\n";
        Assert.Equal(expected, graph);
    }

    [RedisCliFact]
    public async Task RedisCli_LatencyModes_RunAgainstTheServer()
    {
        await using var server = TestServer.Start(2);
        var cli = ReferenceRedis.CliPath!;
        // Not on a terminal, redis-cli prints each sample as "min max avg count"; --latency-history
        // runs until stopped (timeout ends it, line-buffered so its lines are not lost).
        var (code, output) = ToolRunner.Run("timeout", $"4 stdbuf -oL {cli} -p {server.Port} --latency-history -i 1", timeoutMs: 10_000);
        Assert.True(code is 0 or 124, output);
        var lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        // Each history interval (-i 1: about a second) closes with " -- 1.01 seconds range".
        Assert.Contains(lines, l => Regex.IsMatch(l, @"^ -- \d+\.\d+ seconds range$"));
        var samples = lines.Where(l => !l.StartsWith(" -- ")).ToList();
        Assert.True(samples.Count >= 10, output);
        Assert.All(samples, l => Assert.Matches(@"^\d+ \d+ \d+\.\d+ \d+$", l));
        (code, output) = ToolRunner.Run(cli, $"-p {server.Port} --latency --raw -i 1", timeoutMs: 10_000);
        Assert.True(code == 0, output);
        // --latency --raw -i 1: one line after a second of samples, then it exits.
        Assert.Matches(@"^\d+ \d+ \d+\.\d+ \d+$", output.Trim());
    }
}
