using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// MEMORY: reply shapes and errors against redis-server (figures masked: ours are this server's
/// accounting), MEMORY STATS's field list, what MEMORY USAGE counts, and redis-cli's --memkeys
/// and --bigkeys, which are built on it.
/// </summary>
public class MemoryCommandTests
{
    private static readonly Regex Integers = new(@"(?<=\r\n|^):\d+\r\n", RegexOptions.Compiled);

    private static string MaskIntegers(string reply) => Integers.Replace(reply, ":N\r\n");

    [RedisFact]
    public void MemoryErrorsAndShapes_SameAsRedis()
    {
        string[][] script =
        [
            ["SET", "s", "hello"],
            ["MEMORY", "USAGE", "missing"],
            ["MEMORY", "USAGE", "s", "SAMPLES"],
            ["MEMORY", "USAGE", "s", "SAMPLES", "x"],
            ["MEMORY", "USAGE", "s", "SAMPLES", "-1"],
            ["MEMORY", "USAGE", "s", "FOO"],
            ["MEMORY", "USAGE", "missing", "SAMPLES", "x"],
            ["MEMORY", "USAGE", "missing", "SAMPLES", "0"],
            ["MEMORY", "USAGE"],
            ["MEMORY"],
            ["MEMORY", "FOO"],
            ["MEMORY", "STATS", "x"],
            ["MEMORY", "DOCTOR", "x"],
            ["MEMORY", "PURGE", "x"],
            ["MEMORY", "MALLOC-STATS", "x"],
            ["MEMORY", "HELP", "x"],
            ["MEMORY", "PURGE"],
        ];
        Differential.AssertSame(script);
    }

    [RedisFact]
    public void MemoryUsage_OfEachType_IsAnInteger()
    {
        // The figures are ours; the reply is an integer for every type, as Redis's.
        using var reference = ReferenceRedis.StartOrNull()!;
        var server = TestServer.Start(2);
        try
        {
            foreach (var (r, label) in new[] { (reference.Connect(), "redis"), (server.Connect(), "ours") })
            {
                using var c = r;
                c.Call("SET", "s", "hello");
                c.Call("SET", "big", new string('x', 5000));
                c.Call("RPUSH", "l", "a", "b");
                c.Call("HSET", "h", "f", "v");
                c.Call("SADD", "set", "1", "2");
                c.Call("ZADD", "z", "1", "m");
                c.Call("XADD", "x", "1-1", "f", "v");
                foreach (var key in new[] { "s", "big", "l", "h", "set", "z", "x" })
                {
                    string reply = c.Call("MEMORY", "USAGE", key, "SAMPLES", "0");
                    Assert.Matches(new Regex(@"^:\d+\r\n$"), reply);
                    Assert.True(long.Parse(reply[1..^2]) > 0, $"{label} {key}");
                }
            }
        }
        finally
        {
            server.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    [Fact]
    public async Task MemoryUsage_CountsKeyValueSlotAndTtl()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        c.Call("SET", "k", new string('x', 1000));
        long plain = long.Parse(c.Call("MEMORY", "USAGE", "k")[1..^2]);
        // A 1-byte key (24-byte array header, padded to 8) and a 1000-byte value (24 + 1000),
        // plus its key table slot.
        Assert.Equal(32 + 1024 + Storage.KeyTable.SlotBytes, plain);
        c.Call("EXPIRE", "k", "100");
        // Its time in the key table's TTL array (8) and its two expiry index entries (4 + 4).
        Assert.Equal(plain + 16, long.Parse(c.Call("MEMORY", "USAGE", "k")[1..^2]));
        c.Call(["RPUSH", "list", .. Enumerable.Range(0, 1000).Select(i => "element-" + i)]);
        long list = long.Parse(c.Call("MEMORY", "USAGE", "list")[1..^2]);
        Assert.True(list > 1000 * 10, $"list of 1000 elements measured {list}");
        Assert.Equal("$-1\r\n", c.Call("MEMORY", "USAGE", "nothing"));
    }

    [RedisFact]
    public void MemoryStats_FieldsAndShape_SameAsRedis()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        var server = TestServer.Start(2);
        try
        {
            foreach (int protocol in new[] { 2, 3 })
            {
                using var r = reference.Connect();
                using var c = server.Connect();
                if (protocol == 3)
                {
                    r.Call("HELLO", "3");
                    c.Call("HELLO", "3");
                }
                foreach (var x in new[] { r, c })
                {
                    x.Call("SELECT", "3");
                    x.Call("SET", "a", "1");
                    x.Call("SELECT", "5");
                    x.Call("SET", "b", "1", "EX", "100");
                }
                Assert.Equal(Shape(r.Call("MEMORY", "STATS")), Shape(c.Call("MEMORY", "STATS")));
                // The same key names in the same order, with a double or an integer each alike.
                Assert.Contains("db.3", c.Call("MEMORY", "STATS"));
                Assert.Contains("db.5", c.Call("MEMORY", "STATS"));
            }
        }
        finally
        {
            server.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    /// <summary>A reply with every number replaced by its kind: integers, doubles (bulk or RESP3) and their lengths masked.</summary>
    private static string Shape(string reply)
    {
        string s = Regex.Replace(reply, @"(?<=\r\n|^):-?\d+\r\n", ":N\r\n");
        s = Regex.Replace(s, @"(?<=\r\n|^),[-0-9.e+]+\r\n", ",D\r\n");
        s = Regex.Replace(s, @"(?<=\r\n|^)\$\d+\r\n[-0-9.e+]+\r\n", "$D\r\n");
        return s;
    }

    [RedisFact]
    public void MemoryDoctorAndMallocStats_VerbatimInResp3_BulkInResp2()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        var server = TestServer.Start(2);
        try
        {
            foreach (var sub in new[] { "DOCTOR", "MALLOC-STATS" })
            {
                using var r = reference.Connect();
                using var c = server.Connect();
                Assert.Equal(r.Call("MEMORY", sub)[0], c.Call("MEMORY", sub)[0]);
                r.Call("HELLO", "3");
                c.Call("HELLO", "3");
                string theirs = r.Call("MEMORY", sub), ours = c.Call("MEMORY", sub);
                Assert.Equal(theirs[0], ours[0]);
                if (theirs[0] == '=') Assert.Contains("\r\ntxt:", ours);
            }
        }
        finally
        {
            server.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    [Fact]
    public async Task MemoryStats_FiguresAreTheAccounting()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        c.Call("SET", "k", new string('x', 10_000));
        string stats = c.Call("MEMORY", "STATS");
        string info = c.Call("INFO", "memory");
        long usedInfo = long.Parse(Regex.Match(info, @"used_memory:(\d+)").Groups[1].Value);
        long total = long.Parse(Regex.Match(stats, @"total\.allocated\r\n:(\d+)").Groups[1].Value);
        Assert.Equal(usedInfo, total);
        Assert.Matches(@"keys\.count\r\n:1\r\n", stats);
        long dataset = long.Parse(Regex.Match(stats, @"dataset\.bytes\r\n:(\d+)").Groups[1].Value);
        Assert.True(dataset >= 10_000, $"dataset.bytes {dataset}");
    }

    [RedisCliFact]
    public async Task RedisCliMemkeysAndBigkeys_FindTheBiggestKeys()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        for (int i = 0; i < 20; i++) c.Call("SET", "small:" + i, "v");
        c.Call("SET", "huge-string", new string('x', 100_000));
        c.Call(["RPUSH", "long-list", .. Enumerable.Range(0, 500).Select(i => "e" + i)]);
        c.Call("HSET", "a-hash", "f", "v");
        var (code, memkeys) = ToolRunner.Run(ReferenceRedis.CliPath!, $"-p {server.Port} --memkeys");
        Assert.True(code == 0, memkeys);
        Assert.Matches(new Regex("Biggest string found '?\"?huge-string\"?'? has \\d+ bytes"), memkeys);
        Assert.Matches(new Regex("Biggest\\s+list found '?\"?long-list\"?'? has \\d+ bytes"), memkeys);
        Assert.Contains("Sampled 23 keys", memkeys);
        var (code2, bigkeys) = ToolRunner.Run(ReferenceRedis.CliPath!, $"-p {server.Port} --bigkeys");
        Assert.True(code2 == 0, bigkeys);
        Assert.Matches(new Regex("Biggest string found '?\"?huge-string\"?'? has 100000 bytes"), bigkeys);
        Assert.Matches(new Regex("Biggest\\s+list found '?\"?long-list\"?'? has 500 items"), bigkeys);
    }
}
