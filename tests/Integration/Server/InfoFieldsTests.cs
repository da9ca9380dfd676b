using System.Globalization;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// INFO's field names section by section against redis-server (every field 7.0 prints, we print;
/// the fields we print beyond it are the ones 7.2 added), and the counters that come from the
/// event loops, the sockets and the expiry cycles moving as they should.
/// </summary>
public class InfoFieldsTests
{
    /// <summary>Fields Redis 7.2 added to INFO over 7.0 (server.c's genRedisInfoString, 7.2.6).</summary>
    private static readonly Dictionary<string, string[]> AddedIn72 = new()
    {
        ["Server"] = ["listener0"],
        // Redis 7.4's additions too (7.4's genRedisInfoString; see InfoRedis74FieldsTests).
        ["Clients"] = ["total_blocking_keys", "total_blocking_keys_on_nokey", "pubsub_clients", "watching_clients", "total_watched_keys"],
        ["Memory"] = ["allocator_muzzy", "mem_overhead_db_hashtable_rehashing"],
        ["Stats"] =
        [
            "eventloop_cycles", "eventloop_duration_sum", "eventloop_duration_cmd_sum", "instantaneous_eventloop_cycles_per_sec",
            "instantaneous_eventloop_duration_usec", "acl_access_denied_auth", "acl_access_denied_cmd", "acl_access_denied_key",
            "acl_access_denied_channel", "evicted_scripts", "client_query_buffer_limit_disconnections",
            "client_output_buffer_limit_disconnections",
            // Redis 7.4's hash-field expiry (issue 29).
            "expired_subkeys",
        ],
    };

    /// <summary>Lines that name a command, an error, a database or a listener rather than a fixed field.</summary>
    private static bool Variable(string field)
        => field.StartsWith("cmdstat_") || field.StartsWith("errorstat_") || field.StartsWith("latency_percentiles_usec_")
           || Regex.IsMatch(field, @"^db\d+$");

    private static Dictionary<string, List<string>> FieldNames(string reply)
    {
        var sections = new Dictionary<string, List<string>>();
        List<string>? current = null;
        foreach (string line in reply.Split("\r\n"))
        {
            if (line.StartsWith("# ")) sections[line[2..]] = current = new List<string>();
            else if (current != null && line.Contains(':')) current.Add(line[..line.IndexOf(':')]);
        }
        return sections;
    }

    private static Dictionary<string, string> Fields(string reply)
        => reply.Split("\r\n").Where(l => l.Contains(':') && !l.StartsWith('$')).ToDictionary(l => l[..l.IndexOf(':')], l => l[(l.IndexOf(':') + 1)..]);

    [RedisFact]
    public async Task Info_Everything_FieldNamesPerSectionAsRedis()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        await using var server = TestServer.Start(2);
        string Script(RespClient c)
        {
            c.Call("SET", "k", "v");
            c.Call("GET", "k");
            c.Call("NOSUCH");
            return c.Call("INFO", "everything");
        }
        Dictionary<string, List<string>> theirs, ours;
        using (var c = reference.Connect()) theirs = FieldNames(Script(c));
        using (var c = server.Connect()) ours = FieldNames(Script(c));
        Assert.Equal(theirs.Keys, ours.Keys.Where(k => k != "Shards")); // the sections, in Redis's order; Shards is ours
        foreach (var (section, names) in theirs)
        {
            var expected = names.Where(n => !Variable(n)).ToList();
            var actual = ours[section].Where(n => !Variable(n)).ToList();
            Assert.True(expected.All(actual.Contains), $"{section}: missing {string.Join(", ", expected.Where(n => !actual.Contains(n)))}");
            var added = AddedIn72.GetValueOrDefault(section, []);
            var extra = actual.Where(n => !expected.Contains(n)).ToList();
            Assert.True(extra.All(added.Contains), $"{section}: not in 7.0 nor in 7.2's additions: {string.Join(", ", extra.Where(n => !added.Contains(n)))}");
            // Redis's order: our fields in 7.0's order once 7.2's additions are left out.
            Assert.Equal(expected, actual.Where(n => !added.Contains(n)).ToList());
        }
    }

    [Fact]
    public async Task InfoStats_ReadsWritesAndEventLoopCycles_Move()
    {
        await using var server = TestServer.Start(2, "--io-threads", "2");
        using var a = server.Connect();
        using var b = server.Connect(); // the loops take connections in turn: one of the two is on the second loop
        var before = Fields(a.Call("INFO", "stats"));
        for (int i = 0; i < 100; i++)
        {
            a.Call("PING");
            b.Call("PING");
        }
        Thread.Sleep(300); // a few of the 100 ms samples behind the instantaneous figures
        var after = Fields(a.Call("INFO", "stats"));
        long Delta(string f) => long.Parse(after[f]) - long.Parse(before[f]);
        Assert.True(Delta("total_reads_processed") >= 20, $"reads {Delta("total_reads_processed")}");
        Assert.True(Delta("total_writes_processed") >= 20, $"writes {Delta("total_writes_processed")}");
        Assert.True(Delta("io_threaded_reads_processed") >= 10, $"threaded reads {Delta("io_threaded_reads_processed")}");
        Assert.True(long.Parse(after["io_threaded_reads_processed"]) < long.Parse(after["total_reads_processed"]));
        Assert.True(Delta("eventloop_cycles") >= 20);
        Assert.True(Delta("eventloop_duration_sum") > 0);
        Assert.True(long.Parse(after["eventloop_duration_cmd_sum"]) > 0);
        // The rates are sampled every 100 ms on a timer: on a loaded machine the first samples may come late.
        await Eventually.WaitFor(() =>
        {
            a.Call("PING");
            return long.Parse(Fields(a.Call("INFO", "stats"))["instantaneous_eventloop_cycles_per_sec"]) > 0;
        }, () => "instantaneous_eventloop_cycles_per_sec stayed 0");
        // CONFIG RESETSTAT starts them over.
        a.Call("CONFIG", "RESETSTAT");
        var reset = Fields(a.Call("INFO", "stats"));
        Assert.True(long.Parse(reset["eventloop_cycles"]) < long.Parse(after["eventloop_cycles"]));
        Assert.True(long.Parse(reset["total_reads_processed"]) <= 2);
    }

    [Fact]
    public async Task InfoDebug_OnlyByName_LoopMaxima()
    {
        await using var server = TestServer.Start(2, "--io-threads", "1");
        using var c = server.Connect();
        // Ten commands in one write: one loop iteration runs them all (their shards' gates are free).
        c.SendRaw(string.Concat(Enumerable.Repeat("PING\r\n", 10)));
        for (int i = 0; i < 10; i++) c.ReadReply();
        string info = c.Call("INFO", "debug");
        Assert.Equal(["Debug"], FieldNames(info).Keys);
        // 7.2's fields, in its order.
        Assert.Equal(["eventloop_duration_aof_sum", "eventloop_duration_cron_sum", "eventloop_duration_max", "eventloop_cmd_per_cycle_max"],
            FieldNames(info)["Debug"]);
        var fields = Fields(info);
        Assert.True(long.Parse(fields["eventloop_cmd_per_cycle_max"]) >= 10, fields["eventloop_cmd_per_cycle_max"]);
        Assert.True(long.Parse(fields["eventloop_duration_max"]) > 0);
        Assert.DoesNotContain("# Debug", c.Call("INFO", "everything"));
        Assert.DoesNotContain("# Debug", c.Call("INFO", "all"));
    }

    [Fact]
    public async Task InfoCpu_MainThreadFigures_WithinTheProcessTotals()
    {
        if (!OperatingSystem.IsLinux()) return;
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        for (int i = 0; i < 2000; i++) c.Call("SET", "k", "v");
        var cpu = Fields(c.Call("INFO", "cpu"));
        double D(string f) => double.Parse(cpu[f], CultureInfo.InvariantCulture);
        Assert.Matches(@"^\d+\.\d{6}$", cpu["used_cpu_user_main_thread"]);
        Assert.True(D("used_cpu_user_main_thread") + D("used_cpu_sys_main_thread") > 0);
        Assert.True(D("used_cpu_user_main_thread") <= D("used_cpu_user") + 0.02);
        Assert.True(D("used_cpu_sys_main_thread") <= D("used_cpu_sys") + 0.02);
    }

    [Fact]
    public async Task InfoStats_ActiveExpiry_StalePercentAndCycleTime()
    {
        await using var server = TestServer.Start(1);
        using var c = server.Connect();
        for (int i = 0; i < 500; i++) c.Call("SET", "k" + i, "v", "PX", "1");
        for (int i = 0; i < 500; i++) c.Call("SET", "live" + i, "v", "EX", "1000");
        Dictionary<string, string> stats = new();
        await Eventually.WaitFor(() =>
        {
            stats = Fields(c.Call("INFO", "stats"));
            return long.Parse(stats["expired_keys"]) >= 400; // the last few wait for a cycle's sample to find them
        }, () => "expired_keys " + stats.GetValueOrDefault("expired_keys"));
        // Half the keys with a TTL were expired when the cycles sampled them: the estimate rose.
        Assert.True(double.Parse(stats["expired_stale_perc"], CultureInfo.InvariantCulture) > 0, stats["expired_stale_perc"]);
        Assert.True(long.Parse(stats["expire_cycle_cpu_milliseconds"]) >= 0);
        Assert.Matches(@"^\d+$", stats["expired_time_cap_reached_count"]); // a slow machine may hit the 25 ms budget
    }
}
