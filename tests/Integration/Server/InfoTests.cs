using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>INFO: sections, their order, parseable lines, and the counters behind them (private servers, exact counts).</summary>
public class InfoTests
{
    private static readonly string[] AllSections =
        ["Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Commandstats",
         "Errorstats", "Latencystats", "Cluster", "Keyspace"];

    private static readonly string[] DefaultSections =
        ["Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Errorstats", "Cluster", "Keyspace"];

    /// <summary>The bulk reply's payload, after checking its length header.</summary>
    private static string Body(string reply)
    {
        var m = Regex.Match(reply, @"^\$(\d+)\r\n(.*)\r\n$", RegexOptions.Singleline);
        Assert.True(m.Success, reply.Length > 200 ? reply.Substring(0, 200) : reply);
        Assert.Equal(int.Parse(m.Groups[1].Value), m.Groups[2].Value.Length);
        return m.Groups[2].Value;
    }

    private static List<string> Sections(string body)
        => Regex.Matches(body, @"^# (\w+)\r$", RegexOptions.Multiline).Select(m => m.Groups[1].Value).ToList();

    private static Dictionary<string, string> Fields(string body)
    {
        var fields = new Dictionary<string, string>();
        foreach (string line in body.Split("\r\n"))
        {
            if (line.Length == 0 || line.StartsWith('#')) continue;
            int colon = line.IndexOf(':');
            Assert.True(colon > 0, "not a key:value line: " + line);
            fields.Add(line.Substring(0, colon), line.Substring(colon + 1));
        }
        return fields;
    }

    [Fact]
    public void Info_Everything_EverySectionInRedisOrderWithParseableLines()
    {
        using var c = TestServer.Shared.Connect();
        string body = Body(c.Call("INFO", "everything"));
        Assert.Equal([.. AllSections, "Shards"], Sections(body)); // our own section: only with "everything" or by name
        Assert.Matches(@"^# Server\r\n", body);
        Assert.DoesNotContain("\r\n\r\n\r\n", body);
        // Sections are separated by exactly one blank line, and every other line is key:value.
        var fields = Fields(body);
        Assert.Equal("8.2.0", fields["redis_version"]);
        Assert.Equal("standalone", fields["redis_mode"]);
        Assert.Equal(TestServer.Shared.Port.ToString(), fields["tcp_port"]);
        Assert.Equal(Environment.ProcessId.ToString(), fields["process_id"]);
        Assert.Matches("^[0-9a-f]{40}$", fields["run_id"]);
        Assert.Equal("master", fields["role"]);
        Assert.Equal("0", fields["connected_slaves"]);
        Assert.Matches("^[0-9a-f]{40}$", fields["master_replid"]);
        Assert.Equal("0", fields["cluster_enabled"]);
        Assert.Equal("0", fields["aof_enabled"]);
        Assert.Equal("0", fields["loading"]);
        Assert.True(long.Parse(fields["used_memory"]) > 0);
        Assert.True(long.Parse(fields["used_memory_rss"]) > 0);
        Assert.Matches(@"^\d+(\.\d\d)?[BKMGTP]$", fields["used_memory_human"]);
        Assert.Equal("0", fields["maxmemory"]);
        Assert.Equal("noeviction", fields["maxmemory_policy"]);
        Assert.Matches(@"^\d+\.\d\d$", fields["mem_fragmentation_ratio"]);
        Assert.Matches(@"^\d+\.\d{6}$", fields["used_cpu_sys"]);
        Assert.Matches(@"^\d+\.\d{6}$", fields["used_cpu_user"]);
        Assert.True(long.Parse(fields["connected_clients"]) >= 1);
        Assert.True(long.Parse(fields["total_connections_received"]) >= 1);
        Assert.Equal("10", fields["hz"]);
        Assert.Contains($"\r\nlistener0:name=tcp,bind=127.0.0.1,port={TestServer.Shared.Port}\r\n", body);
    }

    [Fact]
    public void Info_NoArgumentOrDefault_DefaultSections()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal(DefaultSections, Sections(Body(c.Call("INFO"))));
        Assert.Equal(DefaultSections, Sections(Body(c.Call("INFO", "default"))));
        Assert.Equal(AllSections, Sections(Body(c.Call("INFO", "all"))));
    }

    [Fact]
    public void Info_NamedSections_CaseInsensitiveInRedisOrderUnknownIgnored()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal(new[] { "Server", "Replication" }, Sections(Body(c.Call("INFO", "REPLICATION", "server", "nosuch"))));
        Assert.Equal(new[] { "Server" }, Sections(Body(c.Call("INFO", "server", "SERVER"))));
        Assert.Equal(new[] { "Stats", "Commandstats", "Keyspace" }, Sections(Body(c.Call("INFO", "keyspace", "commandstats", "stats"))));
        Assert.Equal("$0\r\n\r\n", c.Call("INFO", "nosuchsection"));
        Assert.Equal("# Modules\r\n", Body(c.Call("INFO", "modules")));
    }

    [Fact]
    public void Info_Resp3_VerbatimString()
    {
        using var c = TestServer.Shared.Connect();
        c.Call("HELLO", "3");
        string reply = c.Call("INFO", "cluster");
        Assert.Equal("=34\r\ntxt:# Cluster\r\ncluster_enabled:0\r\n\r\n", reply);
    }

    [Fact]
    public async Task Info_Keyspace_SumsEveryShard()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        Assert.Equal("# Keyspace\r\n", Body(c.Call("INFO", "keyspace")));
        for (int i = 0; i < 20; i++) c.Call("SET", "key" + i, "v");
        for (int i = 0; i < 5; i++) c.Call("EXPIRE", "key" + i, "1000");
        c.Call("SELECT", "3");
        c.Call("SET", "other", "v");
        string body = Body(c.Call("INFO", "keyspace"));
        var m = Regex.Match(body, @"^# Keyspace\r\ndb0:keys=20,expires=5,avg_ttl=(\d+),subexpiry=0\r\ndb3:keys=1,expires=0,avg_ttl=0,subexpiry=0\r\n$");
        Assert.True(m.Success, body);
        long avgTtl = long.Parse(m.Groups[1].Value);
        Assert.InRange(avgTtl, 900_000, 1_000_000);
    }

    [Fact]
    public async Task Info_Stats_CountsCommandsHitsMissesAndConnections()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        c.Call("SET", "a", "1");
        c.Call("GET", "a");
        c.Call("GET", "a");
        c.Call("GET", "missing");
        var f = Fields(Body(c.Call("INFO", "stats")));
        Assert.Equal("2", f["keyspace_hits"]);
        Assert.Equal("1", f["keyspace_misses"]);
        Assert.Equal("4", f["total_commands_processed"]); // INFO itself is counted after it replies
        Assert.Equal("1", f["total_connections_received"]);
        Assert.True(long.Parse(f["total_net_input_bytes"]) > 0);
        Assert.Equal("0", f["expired_keys"]);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public async Task Info_Stats_NetBytes_CountEveryByteBothWays(int shards)
    {
        // Between two INFOs: everything sent after the first one's request (the second INFO's own
        // request included, as Redis counts input when it reads it), and every reply from the first
        // INFO's on (the second's is written after it is built).
        await using var server = TestServer.Start(shards: shards);
        using var c = server.Connect();
        string[] info = ["INFO", "stats"];
        var before = c.Call(info);
        string[][] commands = [["SET", "a", new string('x', 300)], ["GET", "a"], ["INCR", "n"], ["GET", "missing"], ["PING"]];
        long input = RespClient.Encode(info).Length, output = before.Length;
        foreach (var command in commands)
        {
            input += RespClient.Encode(command).Length;
            output += c.Call(command).Length;
        }
        var b = Fields(Body(before));
        var a = Fields(Body(c.Call(info)));
        Assert.Equal(input, long.Parse(a["total_net_input_bytes"]) - long.Parse(b["total_net_input_bytes"]));
        Assert.Equal(output, long.Parse(a["total_net_output_bytes"]) - long.Parse(b["total_net_output_bytes"]));

        // CONFIG RESETSTAT zeroes them; its reply is counted after the reset, and the next INFO's request.
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "RESETSTAT"));
        var reset = Fields(Body(c.Call(info)));
        Assert.Equal(RespClient.Encode(info).Length.ToString(), reset["total_net_input_bytes"]);
        Assert.Equal("5", reset["total_net_output_bytes"]);
    }

    [Fact]
    public async Task Info_Stats_ExpiredKeysCounted()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        c.Call("SET", "a", "1", "PX", "1");
        c.Call("SET", "b", "1", "PX", "1");
        Thread.Sleep(20);
        c.Call("GET", "a"); // lazy expiry
        c.Call("GET", "b");
        var f = Fields(Body(c.Call("INFO", "stats")));
        Assert.Equal("2", f["expired_keys"]);
    }

    [Fact]
    public async Task Info_InstantaneousOps_SampledUnderLoad()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        c.Call("INFO", "stats"); // starts the sampler
        // The sampler runs every 100 ms on its own thread: on a loaded machine it may be late, so
        // the load goes on (bounded) until a sample has seen it.
        var until = DateTime.UtcNow.AddSeconds(20);
        var batch = Enumerable.Range(0, 50).SelectMany(_ => RespClient.Encode("PING")).ToArray();
        Dictionary<string, string> f;
        do
        {
            var round = DateTime.UtcNow.AddMilliseconds(300);
            while (DateTime.UtcNow < round)
            {
                c.SendRaw(batch);
                for (int i = 0; i < 50; i++) c.ReadReply();
            }
            f = Fields(Body(c.Call("INFO", "stats")));
        }
        while ((f["instantaneous_ops_per_sec"] == "0" || f["instantaneous_input_kbps"] == "0.00") && DateTime.UtcNow < until);
        Assert.True(long.Parse(f["instantaneous_ops_per_sec"]) > 0, f["instantaneous_ops_per_sec"]);
        Assert.NotEqual("0.00", f["instantaneous_input_kbps"]);
    }

    /// <summary>The numbers of a cmdstat line: calls, usec, usec_per_call, rejected_calls, failed_calls.</summary>
    private static (long Calls, long Usec, double PerCall, long Rejected, long Failed) CmdStat(string body, string name)
    {
        var m = Regex.Match(body, "\r\ncmdstat_" + Regex.Escape(name) +
            @":calls=(\d+),usec=(\d+),usec_per_call=(\d+\.\d\d),rejected_calls=(\d+),failed_calls=(\d+)\r\n");
        Assert.True(m.Success, $"no cmdstat_{name} in {body}");
        return (long.Parse(m.Groups[1].Value), long.Parse(m.Groups[2].Value), double.Parse(m.Groups[3].Value),
            long.Parse(m.Groups[4].Value), long.Parse(m.Groups[5].Value));
    }

    // The command table, and so commandstats, is shared by every server in the test process: other
    // tests running at the same time add to the counts, hence the lower bounds below. Errorstats
    // and the other INFO counters belong to each server and are exact.
    [Fact]
    public async Task Info_CommandstatsAndErrorstats_CountCallsFailuresAndRejections()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        c.Call("SET", "a", "1");
        c.Call("GET", "a");
        c.Call("GET", "a");
        c.Call("CLIENT", "ID");
        Assert.StartsWith("-ERR", c.Call("SELECT", "x"));        // failed call
        Assert.StartsWith("-NOPROTO", c.Call("HELLO", "9"));     // failed call, its own error code
        Assert.StartsWith("-ERR", c.Call("GET"));                // rejected: arity
        Assert.StartsWith("-ERR", c.Call("NOSUCH"));             // unknown: counted in errorstats only
        string body = Body(c.Call("INFO", "commandstats", "errorstats"));
        var get = CmdStat(body, "get");
        Assert.True(get.Calls >= 2 && get.Rejected >= 1, body);
        Assert.True(Math.Abs((float)get.Usec / get.Calls - get.PerCall) <= 0.0051, body);
        Assert.True(CmdStat(body, "set").Calls >= 1);
        Assert.True(CmdStat(body, "client|id").Calls >= 1);
        Assert.True(CmdStat(body, "select").Failed >= 1);
        Assert.True(CmdStat(body, "hello").Failed >= 1);
        Assert.EndsWith("# Errorstats\r\nerrorstat_ERR:count=3\r\nerrorstat_NOPROTO:count=1\r\n", body);
        var stats = Fields(Body(c.Call("INFO", "stats")));
        Assert.Equal("4", stats["total_error_replies"]);
    }

    [Fact]
    public async Task ConfigResetStat_ClearsCountersAndCommandstats()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        c.Call("SET", "a", "1");
        c.Call("GET", "a");
        c.Call("GET", "nope");
        c.Call("SELECT", "x");
        for (int i = 0; i < 50; i++) c.Call("LASTSAVE");
        Assert.True(CmdStat(Body(c.Call("INFO", "commandstats")), "lastsave").Calls >= 50);
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "RESETSTAT"));
        string body = Body(c.Call("INFO", "stats", "commandstats", "errorstats"));
        var f = Fields(body);
        Assert.Equal("0", f["keyspace_hits"]);
        Assert.Equal("0", f["keyspace_misses"]);
        Assert.Equal("1", f["total_commands_processed"]); // CONFIG RESETSTAT itself
        Assert.Equal("0", f["total_error_replies"]);
        Assert.Equal("0", f["total_connections_received"]);
        Assert.True(!body.Contains("cmdstat_lastsave") || CmdStat(body, "lastsave").Calls < 50, body);
        Assert.True(CmdStat(body, "config|resetstat").Calls >= 1);
        Assert.EndsWith("# Errorstats\r\n", body);
    }

    [Fact]
    public async Task Info_Clients_CountsConnections()
    {
        await using var server = TestServer.Start(shards: 1);
        using var a = server.Connect();
        using var b = server.Connect();
        b.Call("PING");
        var f = Fields(Body(a.Call("INFO", "clients")));
        Assert.Equal("2", f["connected_clients"]);
        Assert.Equal("10000", f["maxclients"]);
    }
}
