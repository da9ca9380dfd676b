using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// The Prometheus endpoint (--metrics-port): the exposition parsed by a strict parser of the text
/// format (version 0.0.4), the redis_exporter names present, and the figures moving with the
/// commands run; the HTTP edges (404, 405, HEAD); INFO shards behind the per-shard figures.
/// </summary>
public class MetricsTests
{
    /// <summary>One parsed sample: metric name, labels, value.</summary>
    public sealed record Sample(string Name, IReadOnlyDictionary<string, string> Labels, double Value);

    /// <summary>A parsed exposition: each family's type and help, and every sample in order.</summary>
    public sealed class Exposition
    {
        public Dictionary<string, string> Types { get; } = new();
        public Dictionary<string, string> Help { get; } = new();
        public List<Sample> Samples { get; } = new();

        public double Value(string name, params (string, string)[] labels)
        {
            var matches = Samples.Where(s => s.Name == name && labels.All(l => s.Labels.TryGetValue(l.Item1, out var v) && v == l.Item2)).ToList();
            Assert.True(matches.Count == 1, $"{name}{{{string.Join(",", labels)}}}: {matches.Count} samples");
            return matches[0].Value;
        }

        public double ValueOrZero(string name, params (string, string)[] labels)
            => Samples.Any(s => s.Name == name && labels.All(l => s.Labels.TryGetValue(l.Item1, out var v) && v == l.Item2)) ? Value(name, labels) : 0;
    }

    private static readonly Regex MetricName = new("^[a-zA-Z_:][a-zA-Z0-9_:]*$");
    private static readonly Regex LabelName = new("^[a-zA-Z_][a-zA-Z0-9_]*$");
    private static readonly string[] KnownTypes = ["counter", "gauge", "histogram", "summary", "untyped"];

    /// <summary>
    /// Parses the text format strictly, as Prometheus's own parser does, and checks what the format
    /// requires of a whole exposition: names and label names well formed; label values quoted with
    /// only \\, \" and \n escaped; HELP and TYPE at most once per family, TYPE before its samples;
    /// a family's lines together; no series twice; histograms with le buckets that never decrease, a
    /// +Inf bucket equal to _count, and a _sum; counters not negative. Throws FormatException.
    /// </summary>
    public static Exposition Parse(string text)
    {
        var result = new Exposition();
        var finished = new HashSet<string>();
        var series = new HashSet<string>();
        string? current = null;
        int lineNo = 0;
        void Fail(string why) => throw new FormatException($"line {lineNo}: {why}");

        string FamilyOf(string sampleName)
        {
            foreach (string suffix in new[] { "_bucket", "_sum", "_count" })
                if (sampleName.EndsWith(suffix, StringComparison.Ordinal)
                    && result.Types.TryGetValue(sampleName[..^suffix.Length], out var t) && t is "histogram" or "summary")
                    return sampleName[..^suffix.Length];
            return sampleName;
        }

        void Enter(string family)
        {
            if (current == family) return;
            if (current != null) finished.Add(current);
            if (finished.Contains(family)) Fail($"the lines of {family} are not together");
            current = family;
        }

        if (!text.EndsWith('\n')) throw new FormatException("the exposition must end with a line feed");
        foreach (string line in text[..^1].Split('\n'))
        {
            lineNo++;
            if (line.Length == 0) continue;
            if (line[0] == '#')
            {
                var parts = line.Split(' ', 4);
                if (parts.Length >= 3 && parts[0] == "#" && (parts[1] == "HELP" || parts[1] == "TYPE"))
                {
                    string name = parts[2];
                    if (!MetricName.IsMatch(name)) Fail($"bad metric name '{name}'");
                    string rest = parts.Length == 4 ? parts[3] : "";
                    Enter(name);
                    if (parts[1] == "TYPE")
                    {
                        if (!KnownTypes.Contains(rest)) Fail($"unknown type '{rest}'");
                        if (result.Samples.Any(s => FamilyOf(s.Name) == name)) Fail($"TYPE of {name} after its samples");
                        if (!result.Types.TryAdd(name, rest)) Fail($"second TYPE for {name}");
                    }
                    else
                    {
                        var help = new StringBuilder();
                        for (int i = 0; i < rest.Length; i++)
                        {
                            if (rest[i] != '\\') help.Append(rest[i]);
                            else if (i + 1 < rest.Length && rest[i + 1] == '\\') { help.Append('\\'); i++; }
                            else if (i + 1 < rest.Length && rest[i + 1] == 'n') { help.Append('\n'); i++; }
                            else Fail("bad escape in HELP");
                        }
                        if (!result.Help.TryAdd(name, help.ToString())) Fail($"second HELP for {name}");
                    }
                }
                continue; // other comments are allowed
            }
            int p = 0;
            while (p < line.Length && line[p] != '{' && line[p] != ' ') p++;
            string sampleName = line[..p];
            if (!MetricName.IsMatch(sampleName)) Fail($"bad metric name '{sampleName}'");
            var labels = new Dictionary<string, string>();
            if (p < line.Length && line[p] == '{')
            {
                p++;
                while (true)
                {
                    if (p < line.Length && line[p] == '}') { p++; break; }
                    int eq = line.IndexOf('=', p);
                    if (eq < 0) Fail("label without '='");
                    string labelName = line[p..eq];
                    if (!LabelName.IsMatch(labelName)) Fail($"bad label name '{labelName}'");
                    p = eq + 1;
                    if (p >= line.Length || line[p] != '"') Fail("label value not quoted");
                    p++;
                    var value = new StringBuilder();
                    while (true)
                    {
                        if (p >= line.Length) Fail("unterminated label value");
                        char c = line[p++];
                        if (c == '"') break;
                        if (c != '\\') { value.Append(c); continue; }
                        if (p >= line.Length) Fail("unterminated escape");
                        char e = line[p++];
                        if (e == '\\') value.Append('\\');
                        else if (e == '"') value.Append('"');
                        else if (e == 'n') value.Append('\n');
                        else Fail($"bad escape '\\{e}' in a label value");
                    }
                    if (!labels.TryAdd(labelName, value.ToString())) Fail($"label {labelName} twice");
                    if (p < line.Length && line[p] == ',') p++;
                    else if (p < line.Length && line[p] == '}') { p++; break; }
                    else Fail("expected ',' or '}' after a label");
                }
            }
            if (p >= line.Length || line[p] != ' ') Fail("expected a space before the value");
            var fields = line[(p + 1)..].Split(' ');
            if (fields.Length is < 1 or > 2) Fail("expected a value and an optional timestamp");
            double v = fields[0] switch
            {
                "+Inf" => double.PositiveInfinity,
                "-Inf" => double.NegativeInfinity,
                "NaN" => double.NaN,
                var f when double.TryParse(f, NumberStyles.Float, CultureInfo.InvariantCulture, out double d) => d,
                _ => throw new FormatException($"line {lineNo}: bad value '{fields[0]}'"),
            };
            if (fields.Length == 2 && !long.TryParse(fields[1], out _)) Fail("bad timestamp");
            string family = FamilyOf(sampleName);
            Enter(family);
            string key = sampleName + "{" + string.Join(",", labels.OrderBy(l => l.Key).Select(l => $"{l.Key}={l.Value}")) + "}";
            if (!series.Add(key)) Fail($"series {key} twice");
            result.Types.TryGetValue(family, out var type);
            if (type == "counter" && v < 0) Fail($"counter {sampleName} is negative");
            if (type == "histogram" && sampleName.EndsWith("_bucket") && !labels.ContainsKey("le")) Fail("bucket without le");
            result.Samples.Add(new Sample(sampleName, labels, v));
        }
        foreach (var (family, type) in result.Types.Where(t => t.Value == "histogram"))
        {
            foreach (var group in result.Samples.Where(s => s.Name == family + "_bucket")
                         .GroupBy(s => string.Join(",", s.Labels.Where(l => l.Key != "le").OrderBy(l => l.Key).Select(l => $"{l.Key}={l.Value}"))))
            {
                double last = -1, lastLe = double.NegativeInfinity;
                foreach (var b in group)
                {
                    double le = b.Labels["le"] == "+Inf" ? double.PositiveInfinity : double.Parse(b.Labels["le"], CultureInfo.InvariantCulture);
                    if (le <= lastLe) throw new FormatException($"{family}{{{group.Key}}}: le not increasing");
                    if (b.Value < last) throw new FormatException($"{family}{{{group.Key}}}: buckets decrease");
                    last = b.Value;
                    lastLe = le;
                }
                if (!double.IsPositiveInfinity(lastLe)) throw new FormatException($"{family}{{{group.Key}}}: no +Inf bucket");
                var count = result.Samples.Where(s => s.Name == family + "_count" && LabelsKey(s) == group.Key).ToList();
                var sum = result.Samples.Where(s => s.Name == family + "_sum" && LabelsKey(s) == group.Key).ToList();
                if (count.Count != 1 || sum.Count != 1) throw new FormatException($"{family}{{{group.Key}}}: _count or _sum missing");
                if (count[0].Value != last) throw new FormatException($"{family}{{{group.Key}}}: _count differs from the +Inf bucket");
            }
        }
        return result;

        static string LabelsKey(Sample s) => string.Join(",", s.Labels.OrderBy(l => l.Key).Select(l => $"{l.Key}={l.Value}"));
    }

    [Theory]
    [InlineData("m{a=\"x\\q\"} 1\n", "bad escape")]
    [InlineData("m{a=x} 1\n", "not quoted")]
    [InlineData("# TYPE m gauge\n# TYPE m gauge\nm 1\n", "second TYPE")]
    [InlineData("m 1\n# TYPE m gauge\n", "after its samples")]
    [InlineData("a 1\nb 1\na{x=\"1\"} 2\n", "not together")]
    [InlineData("m 1\nm 2\n", "twice")]
    [InlineData("# TYPE c counter\nc -1\n", "negative")]
    [InlineData("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n", "no +Inf")]
    [InlineData("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n", "decrease")]
    [InlineData("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 2\n", "differs")]
    [InlineData("m 1", "line feed")]
    [InlineData("1m 1\n", "bad metric name")]
    [InlineData("m abc\n", "bad value")]
    public void Parser_MalformedExposition_Rejected(string text, string why)
    {
        var ex = Assert.Throws<FormatException>(() => Parse(text));
        Assert.Contains(why, ex.Message);
    }

    [Fact]
    public void Parser_WellFormedExposition_Parsed()
    {
        var e = Parse("# HELP m a \\\\ b\\nc\n# TYPE m gauge\nm{a=\"q\\\"\\\\\\n\",b=\"\"} -1.5e3 1700000000000\n\n# comment\nu +Inf\n");
        Assert.Equal("a \\ b\nc", e.Help["m"]);
        Assert.Equal("q\"\\\n", e.Samples[0].Labels["a"]);
        Assert.Equal(-1500, e.Samples[0].Value);
        Assert.True(double.IsPositiveInfinity(e.Value("u")));
    }

    private static async Task<(HttpStatusCode Status, string ContentType, string Body)> GetAsync(int port, string path, HttpMethod? method = null)
    {
        using var http = new HttpClient { Timeout = TimeSpan.FromSeconds(10) };
        using var response = await http.SendAsync(new HttpRequestMessage(method ?? HttpMethod.Get, $"http://127.0.0.1:{port}{path}"));
        string body = await response.Content.ReadAsStringAsync();
        return (response.StatusCode, response.Content.Headers.ContentType?.ToString() ?? "", body);
    }

    private static async Task<Exposition> ScrapeAsync(TestServer server)
    {
        var (status, type, body) = await GetAsync(server.MetricsPort, "/metrics");
        Assert.Equal(HttpStatusCode.OK, status);
        Assert.Equal("text/plain; version=0.0.4; charset=utf-8", type);
        return Parse(body);
    }

    [Fact]
    public async Task Metrics_Scrape_RedisExporterNamesAndFiguresThatMove()
    {
        await using var server = TestServer.Start(2, "--metrics-port", ReferenceRedis.FreePort().ToString());
        using var c = server.Connect();
        c.Call("PING"); // the connection is registered before the first scrape
        var before = await ScrapeAsync(server);
        foreach (string name in new[]
                 {
                     "redis_up", "redis_uptime_in_seconds", "redis_connected_clients", "redis_memory_used_bytes", "redis_memory_max_bytes",
                     "redis_commands_total", "redis_commands_duration_seconds_total", "redis_keyspace_hits_total", "redis_keyspace_misses_total",
                     "redis_evicted_keys_total", "redis_expired_keys_total", "redis_db_keys", "redis_db_keys_expiring",
                     "redis_rdb_last_save_timestamp_seconds", "redis_aof_enabled", "redis_instance_info", "redis_latency_usec",
                     "redis_clone_shard_keys", "redis_clone_shard_commands_processed_total", "redis_clone_shard_gate_waits_total",
                 })
            Assert.True(before.Types.ContainsKey(name), name + " missing");
        Assert.Equal("counter", before.Types["redis_commands_total"]);
        Assert.Equal("histogram", before.Types["redis_latency_usec"]);
        Assert.Equal(1, before.Value("redis_up"));
        Assert.Equal(1, before.Value("redis_connected_clients"));
        Assert.Equal(0, before.Value("redis_aof_enabled"));

        for (int i = 0; i < 20; i++) c.Call("SET", "key" + i, "v");
        c.Call("EXPIRE", "key0", "100");
        for (int i = 0; i < 5; i++) c.Call("GET", "key" + i);
        c.Call("GET", "missing");
        c.Call("NOSUCHCOMMAND");
        var after = await ScrapeAsync(server);

        Assert.Equal(before.ValueOrZero("redis_commands_total", ("cmd", "set")) + 20, after.Value("redis_commands_total", ("cmd", "set")));
        Assert.Equal(before.Value("redis_keyspace_hits_total") + 5, after.Value("redis_keyspace_hits_total"));
        Assert.Equal(before.Value("redis_keyspace_misses_total") + 1, after.Value("redis_keyspace_misses_total"));
        Assert.Equal(20, after.Value("redis_db_keys", ("db", "db0")));
        Assert.Equal(1, after.Value("redis_db_keys_expiring", ("db", "db0")));
        Assert.True(after.Value("redis_commands_processed_total") >= before.Value("redis_commands_processed_total") + 27);
        Assert.True(after.Value("redis_memory_used_bytes") > before.Value("redis_memory_used_bytes"));
        Assert.True(after.Value("redis_net_input_bytes_total") > before.Value("redis_net_input_bytes_total"));
        Assert.Equal(1, after.Value("redis_errors_total", ("err", "ERR")));
        // The histogram of SET counts every call, in buckets that end at +Inf = _count.
        Assert.Equal(20, after.Value("redis_latency_usec_count", ("cmd", "set")));
        Assert.Equal(20, after.Value("redis_latency_usec_bucket", ("cmd", "set"), ("le", "+Inf")));
        Assert.Equal("1", after.Samples.First(s => s.Name == "redis_latency_usec_bucket" && s.Labels["cmd"] == "set").Labels["le"]);
        // Per shard: the keys add up to the keyspace, and the commands on single keys were counted.
        var shardKeys = after.Samples.Where(s => s.Name == "redis_clone_shard_keys").ToList();
        Assert.Equal(2, shardKeys.Count);
        Assert.Equal(20, shardKeys.Sum(s => s.Value));
        Assert.True(after.Samples.Where(s => s.Name == "redis_clone_shard_commands_processed_total").Sum(s => s.Value) >= 26);
    }

    [Fact]
    public async Task Metrics_HttpEdges_NotFoundMethodNotAllowedHead()
    {
        await using var server = TestServer.Start(1, "--metrics-port", ReferenceRedis.FreePort().ToString());
        Assert.Equal(HttpStatusCode.NotFound, (await GetAsync(server.MetricsPort, "/")).Status);
        Assert.Equal(HttpStatusCode.MethodNotAllowed, (await GetAsync(server.MetricsPort, "/metrics", HttpMethod.Post)).Status);
        var head = await GetAsync(server.MetricsPort, "/metrics", HttpMethod.Head);
        Assert.Equal(HttpStatusCode.OK, head.Status);
        Assert.Equal("", head.Body);
        Assert.Equal(HttpStatusCode.OK, (await GetAsync(server.MetricsPort, "/metrics?x=1")).Status);
        // A request that never ends its headers is cut off, and the endpoint still answers.
        using (var raw = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp))
        {
            raw.Connect(IPAddress.Loopback, server.MetricsPort);
            raw.Send(Encoding.ASCII.GetBytes("GET /metrics HTTP/1.1\r\n" + new string('x', 9000)));
            var buffer = new byte[256];
            int n = raw.Receive(buffer);
            Assert.StartsWith("HTTP/1.1 431 ", Encoding.ASCII.GetString(buffer, 0, n));
        }
        Assert.Equal(HttpStatusCode.OK, (await GetAsync(server.MetricsPort, "/metrics")).Status);
    }

    [Fact]
    public async Task Metrics_NotAsked_NoEndpoint()
    {
        await using var server = TestServer.Start(1);
        Assert.Equal(0, server.MetricsPort);
    }

    [Fact]
    public async Task InfoShards_PerShardFigures_OnlyByNameOrEverything()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        for (int i = 0; i < 10; i++) c.Call("SET", "k" + i, "v");
        c.Call("EXPIRE", "k1", "100");
        string info = c.Call("INFO", "shards");
        Assert.Contains("# Shards\r\nshards:2\r\n", info);
        var lines = Regex.Matches(info, @"shard(\d):keys=(\d+),expires=(\d+),used_memory=(\d+),commands_processed=(\d+),gate_waits=(\d+)\r\n");
        Assert.Equal(2, lines.Count);
        Assert.Equal(10, lines.Sum(m => int.Parse(m.Groups[2].Value)));
        Assert.Equal(1, lines.Sum(m => int.Parse(m.Groups[3].Value)));
        Assert.All(lines, m => Assert.True(long.Parse(m.Groups[4].Value) > 0));
        Assert.True(lines.Sum(m => long.Parse(m.Groups[5].Value)) >= 11);
        Assert.DoesNotContain("# Shards", c.Call("INFO"));
        Assert.DoesNotContain("# Shards", c.Call("INFO", "all"));
        Assert.Contains("# Shards", c.Call("INFO", "everything"));
        Assert.Contains("# Shards", c.Call("INFO", "server", "SHARDS"));
    }
}
