using System.Buffers.Binary;
using System.Text;
using RedisClone.Common;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Persistence;

/// <summary>
/// DUMP and RESTORE against redis-server 7.0: payloads byte-identical where Redis's own order is
/// deterministic, payloads moving both ways (redis-server's restored here, ours restored there)
/// with the same contents afterwards, RESTORE's options and errors, and forged payloads refused
/// without harm.
/// </summary>
public class DumpRestoreTests
{
    private static string Repeat(string s, int n) => string.Concat(Enumerable.Repeat(s, n));

    /// <summary>Commands that build one key of every type and encoding whose payload does not depend on hash order.</summary>
    private static List<string[]> DeterministicData()
    {
        var script = new List<string[]>
        {
            new[] { "SET", "int8", "100" },
            new[] { "SET", "int16", "-30000" },
            new[] { "SET", "int32", "2000000000" },
            new[] { "SET", "bigint", "12345678901" },
            new[] { "SET", "padded", "0123" },
            new[] { "SET", "short", "hello world" },
            new[] { "SET", "empty", "" },
            new[] { "SET", "compressible", Repeat("abcd", 60) },
            new[] { "SET", "incompressible", "qwertyuiopasdfghjklzxcvbnm0123456789" },
            new[] { "RPUSH", "smalllist", "a", "1", "-2", "300", "70000", "x y", Repeat("z", 70) },
            new[] { "SADD", "intset16", "1", "2", "3", "-7" },
            new[] { "SADD", "intset32", "1", "70000" },
            new[] { "SADD", "intset64", "1", "9000000000" },
            new[] { "HSET", "smallhash", "f1", "v1", "n", "12", "neg", "-3", "long", Repeat("q", 60) },
            new[] { "ZADD", "smallzset", "1", "a", "2.5", "b", "-3", "c", "1e20", "d", "inf", "e", "-inf", "f" },
            new[] { "XADD", "stream", "1-1", "name", "ann", "age", "30" },
            new[] { "XADD", "stream", "1-2", "name", "bob", "age", "31" },
            new[] { "XADD", "stream", "2-0", "other", "x" },
            new[] { "XADD", "stream", "3-0", "name", "cy", "age", "32" },
            new[] { "XDEL", "stream", "1-2" },
        };
        // A list of several quicklist nodes, a sorted set past the listpack limit (saved greatest first).
        for (int i = 0; i < 40; i++)
            script.Add(["RPUSH", "biglist", .. Enumerable.Range(i * 50, 50).Select(n => $"element-{n}-{Repeat("p", n % 30)}")]);
        script.Add(["ZADD", "bigzset", .. Enumerable.Range(0, 300).SelectMany(n => new[] { (n * 1.5).ToString(System.Globalization.CultureInfo.InvariantCulture), $"m{n}" })]);
        // Streams of many nodes, with trimming.
        script.Add(["CONFIG", "SET", "stream-node-max-entries", "5"]);
        for (int i = 1; i <= 40; i++) script.Add(["XADD", "nodes", $"{i}-0", "f", i.ToString(), "g", "x"]);
        script.Add(["XTRIM", "nodes", "MAXLEN", "33"]);
        script.Add(["XDEL", "nodes", "20-0", "21-0"]);
        script.Add(["CONFIG", "SET", "stream-node-max-entries", "100"]);
        return script;
    }

    private static readonly string[] DeterministicKeys =
    [
        "int8", "int16", "int32", "bigint", "padded", "short", "empty", "compressible", "incompressible", "smalllist",
        "intset16", "intset32", "intset64", "smallhash", "smallzset", "stream", "biglist", "bigzset", "nodes",
    ];

    [RedisFact]
    public void Dump_EveryDeterministicEncoding_ByteIdenticalToRedis()
    {
        var script = DeterministicData();
        foreach (var key in DeterministicKeys) script.Add(["DUMP", key]);
        script.Add(["DUMP", "missing"]);
        script.Add(["CONFIG", "SET", "rdbcompression", "no"]);
        script.Add(["DUMP", "compressible"]);
        script.Add(["DUMP", "biglist"]);
        script.Add(["CONFIG", "SET", "rdbcompression", "yes"]);
        Differential.AssertSame(script.ToArray());
    }

    [RedisFact]
    public void Restore_OptionsAndErrors_MatchRedis()
    {
        // A payload both servers accept: redis-server's DUMP of a string.
        byte[] payload = ReferenceDump(["SET", "src", "value"], "src");
        byte[] badCrc = (byte[])payload.Clone();
        badCrc[^1] ^= 0xFF;
        byte[] newer = WithFooter(payload[..^10], 13); // newer than both servers read (12 is Redis 7.4+'s, read here)
        byte[] garbage = WithFooter([0x00, 0xFF, 0xFF], 10);
        byte[] moduleValue = WithFooter([7, 1, 2, 3], 10);
        byte[] B(string s) => Encoding.UTF8.GetBytes(s);
        Differential.AssertSameBytes(
            [B("RESTORE"), B("k"), B("0"), payload],
            [B("GET"), B("k")],
            [B("RESTORE"), B("k"), B("0"), payload],
            [B("RESTORE"), B("k"), B("0"), payload, B("REPLACE")],
            [B("RESTORE"), B("k2"), B("x"), payload],
            [B("RESTORE"), B("k2"), B("-1"), payload],
            [B("RESTORE"), B("k"), B("x"), payload],
            [B("RESTORE"), B("k2"), B("0"), badCrc],
            [B("RESTORE"), B("k2"), B("0"), newer],
            [B("RESTORE"), B("k2"), B("0"), B("short")],
            [B("RESTORE"), B("k2"), B("0"), garbage],
            [B("RESTORE"), B("k2"), B("0"), moduleValue],
            [B("RESTORE"), B("k2"), B("0"), payload, B("FOO")],
            [B("RESTORE"), B("k2"), B("0"), payload, B("IDLETIME")],
            [B("RESTORE"), B("k2"), B("0"), payload, B("IDLETIME"), B("-1")],
            [B("RESTORE"), B("k2"), B("0"), payload, B("IDLETIME"), B("x")],
            [B("RESTORE"), B("k2"), B("0"), payload, B("FREQ"), B("256")],
            [B("RESTORE"), B("k2"), B("0"), payload, B("FREQ"), B("-1")],
            [B("RESTORE"), B("k2"), B("0"), payload, B("FREQ"), B("1"), B("IDLETIME"), B("5")],
            [B("RESTORE"), B("k2"), B("0"), payload, B("IDLETIME"), B("5"), B("FREQ"), B("1")],
            [B("RESTORE"), B("k2"), B("0"), payload, B("IDLETIME"), B("100"), B("REPLACE"), B("ABSTTL")],
            [B("TTL"), B("k2")],
            [B("RESTORE"), B("k3"), B("1"), payload, B("ABSTTL")],
            [B("EXISTS"), B("k3")],
            [B("RESTORE"), B("k"), B("1"), payload, B("ABSTTL"), B("REPLACE")],
            [B("EXISTS"), B("k")],
            [B("RESTORE"), B("k4"), B("100000"), payload],
            [B("TTL"), B("k4")],
            [B("RESTORE"), B("k5"), B("99999999999999"), payload, B("ABSTTL")],
            [B("TTL"), B("k5")],
            [B("RESTORE"), B("k6"), B("0"), payload, B("freq"), B("10"), B("replace")],
            [B("GET"), B("k6")],
            [B("RESTORE"), B("k7")],
            [B("DUMP")]);
    }

    /// <summary>Every deterministic key moves from redis-server to here and back with the same payload and contents.</summary>
    [RedisFact]
    public void Restore_RedisPayloads_RoundTripBothWays()
    {
        var reference = ReferenceRedis.Shared!;
        using var theirs = reference.Connect();
        using var ours = TestServer.Shared.Connect();
        string prefix = TestServer.KeyPrefix("dumprt");
        theirs.Call("SELECT", "10");
        theirs.Call("FLUSHDB");
        foreach (var cmd in DeterministicData())
            theirs.Call(cmd);
        foreach (var key in DeterministicKeys)
        {
            byte[] payload = BulkBytes(theirs.Call("DUMP", key));
            string restored = ours.Call([Encoding.UTF8.GetBytes("RESTORE"), Encoding.UTF8.GetBytes(prefix + key), Encoding.UTF8.GetBytes("0"), payload]);
            Assert.True(restored == "+OK\r\n", $"{key}: {restored}");
            byte[] again = BulkBytes(ours.Call("DUMP", prefix + key));
            Assert.True(payload.AsSpan().SequenceEqual(again), $"{key}: our DUMP after RESTORE differs from redis-server's payload");
            Assert.Equal(theirs.Call("TYPE", key), ours.Call("TYPE", prefix + key));
            // And back: redis-server takes our payload.
            Assert.Equal("+OK\r\n", theirs.Call([Encoding.UTF8.GetBytes("RESTORE"), Encoding.UTF8.GetBytes(key + ":back"), Encoding.UTF8.GetBytes("0"), again]));
        }
        theirs.Call("FLUSHDB");
    }

    /// <summary>Hash-ordered encodings (big sets and hashes) cannot match byte for byte: compare contents after moving both ways.</summary>
    [RedisFact]
    public void Restore_HashtableEncodings_SameContentsBothWays()
    {
        var reference = ReferenceRedis.Shared!;
        using var theirs = reference.Connect();
        using var ours = TestServer.Shared.Connect();
        string prefix = TestServer.KeyPrefix("dumpht");
        theirs.Call("SELECT", "10");
        theirs.Call("FLUSHDB");
        List<string[]> build =
        [
            ["SADD", "strset", "a", "b", "c", "10"],
            ["SADD", "bigset", .. Enumerable.Range(0, 600).Select(i => "m" + i)],
            ["SADD", "bigintset", .. Enumerable.Range(0, 600).Select(i => (i * 7).ToString())],
            ["HSET", "bighash", .. Enumerable.Range(0, 300).SelectMany(i => new[] { "f" + i, "v" + i })],
            ["HSET", "longvalue", "f", Repeat("x", 100)],
        ];
        foreach (var cmd in build)
        {
            theirs.Call(cmd);
            ours.Call([cmd[0], prefix + cmd[1], .. cmd[2..]]);
        }
        foreach (var key in new[] { "strset", "bigset", "bigintset", "bighash", "longvalue" })
        {
            byte[] fromRedis = BulkBytes(theirs.Call("DUMP", key));
            byte[] fromUs = BulkBytes(ours.Call("DUMP", prefix + key));
            Assert.Equal("+OK\r\n", ours.Call([Encoding.UTF8.GetBytes("RESTORE"), Encoding.UTF8.GetBytes(prefix + key + ":in"), Encoding.UTF8.GetBytes("0"), fromRedis]));
            Assert.Equal("+OK\r\n", theirs.Call([Encoding.UTF8.GetBytes("RESTORE"), Encoding.UTF8.GetBytes(key + ":in"), Encoding.UTF8.GetBytes("0"), fromUs]));
            string type = theirs.Call("TYPE", key);
            string[] read = type == "+set\r\n" ? ["SORT", "{0}", "ALPHA"] : ["HGETALL", "{0}"];
            string Sorted(RespClient c, string k)
            {
                string reply = c.Call(read.Select(a => a.Replace("{0}", k)).ToArray());
                return type == "+set\r\n" ? reply : string.Join("\n", reply.Split("\r\n").Order());
            }
            string expected = Sorted(theirs, key);
            Assert.Equal(expected, Sorted(ours, prefix + key + ":in"));
            Assert.Equal(expected, Sorted(theirs, key + ":in"));
            Assert.Equal(expected, Sorted(ours, prefix + key));
        }
        theirs.Call("FLUSHDB");
    }

    /// <summary>
    /// Payloads of the old encodings (ziplists, zipmap, text scores) that no current server writes:
    /// built by hand here, read as Redis reads them.
    /// </summary>
    [Fact]
    public void Restore_LegacyEncodings_Read()
    {
        using var c = TestServer.Shared.Connect();
        string prefix = TestServer.KeyPrefix("legacy");
        // A ziplist of "a", 5, -300 (type 10: list as one ziplist).
        byte[] zl = Ziplist([Encoding.ASCII.GetBytes("a")], 5, -300);
        Assert.Equal("+OK\r\n", Restore(c, prefix + "zl", WithFooter(Value(10, zl), 9)));
        Assert.Equal("*3\r\n$1\r\na\r\n$1\r\n5\r\n$4\r\n-300\r\n", c.Call("LRANGE", prefix + "zl", "0", "-1"));
        // A zipmap hash (type 9): {f: v, g: ww}.
        byte[] zm = [2, 1, (byte)'f', 1, 0, (byte)'v', 1, (byte)'g', 2, 0, (byte)'w', (byte)'w', 0xFF];
        Assert.Equal("+OK\r\n", Restore(c, prefix + "zm", WithFooter(Value(9, zm), 9)));
        Assert.Equal("$2\r\nww\r\n", c.Call("HGET", prefix + "zm", "g"));
        // A sorted set with text scores (type 3): m1 1.5, m2 inf.
        var zset = new List<byte> { 3, 2, 2, (byte)'m', (byte)'1', 3, (byte)'1', (byte)'.', (byte)'5', 2, (byte)'m', (byte)'2', 254 };
        Assert.Equal("+OK\r\n", Restore(c, prefix + "zs", WithFooter(zset.ToArray(), 9)));
        Assert.Equal("*4\r\n$2\r\nm1\r\n$3\r\n1.5\r\n$2\r\nm2\r\n$3\r\ninf\r\n", c.Call("ZRANGE", prefix + "zs", "0", "-1", "WITHSCORES"));
        // A hash ziplist (type 13) with a duplicate field is refused.
        byte[] dup = Ziplist([Encoding.ASCII.GetBytes("f"), Encoding.ASCII.GetBytes("v"), Encoding.ASCII.GetBytes("f"), Encoding.ASCII.GetBytes("w")]);
        Assert.Equal("-ERR Bad data format\r\n", Restore(c, prefix + "dup", WithFooter(Value(13, dup), 9)));
        // An empty list is refused (Redis refuses empty keys).
        Assert.Equal("-ERR Bad data format\r\n", Restore(c, prefix + "empty", WithFooter([1, 0], 9)));
    }

    /// <summary>
    /// Random damage to valid payloads (the checksum recomputed so it reaches the parser): each
    /// RESTORE answers OK or "Bad data format", the server keeps serving, and what was restored
    /// can be read and dumped.
    /// </summary>
    [Fact]
    public void Restore_CorruptedPayloads_RefusedWithoutHarm()
    {
        using var c = TestServer.Shared.Connect();
        string prefix = TestServer.KeyPrefix("fuzz");
        var sources = new List<(string Key, string Type)>();
        int n = 0;
        foreach (var cmd in DeterministicData())
        {
            if (cmd[0] == "CONFIG") continue;
            c.Call([cmd[0], prefix + cmd[1], .. cmd[2..]]);
        }
        foreach (var key in DeterministicKeys) sources.Add((prefix + key, c.Call("TYPE", prefix + key)));
        var random = new Random(1234);
        int accepted = 0, refused = 0;
        foreach (var (key, type) in sources)
        {
            byte[] payload = BulkBytes(c.Call("DUMP", key));
            for (int round = 0; round < 60; round++)
            {
                byte[] body = payload[..^10];
                int flips = 1 + random.Next(3);
                for (int f = 0; f < flips; f++)
                {
                    int at = 1 + random.Next(body.Length - 1);
                    body[at] = random.Next(3) switch { 0 => (byte)random.Next(256), 1 => (byte)(body[at] ^ (1 << random.Next(8))), _ => (byte)(body[at] + 1) };
                }
                if (random.Next(4) == 0) body = body[..(1 + random.Next(body.Length - 1))];
                string target = $"{prefix}victim{n++}";
                string reply = Restore(c, target, WithFooter(body, 10));
                if (reply == "+OK\r\n")
                {
                    accepted++;
                    Assert.StartsWith("$", c.Call("DUMP", target));
                    string t = c.Call("TYPE", target);
                    string read = t switch
                    {
                        "+list\r\n" => c.Call("LRANGE", target, "0", "-1"),
                        "+set\r\n" => c.Call("SMEMBERS", target),
                        "+zset\r\n" => c.Call("ZRANGE", target, "0", "-1", "WITHSCORES"),
                        "+hash\r\n" => c.Call("HGETALL", target),
                        "+stream\r\n" => c.Call("XRANGE", target, "-", "+") + c.Call("XREVRANGE", target, "+", "-"),
                        _ => c.Call("GET", target),
                    };
                    Assert.False(read.StartsWith("-"), $"{target}: {read}");
                }
                else
                {
                    Assert.Equal("-ERR Bad data format\r\n", reply);
                    refused++;
                }
            }
        }
        Assert.Equal("+PONG\r\n", c.Call("PING"));
        Assert.True(refused > 0 && accepted + refused == sources.Count * 60);
    }

    [Fact]
    public void Restore_IdleTime_SetsLastAccess()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("idle") + "k";
        byte[] payload = WithFooter([0, 1, (byte)'v'], 10);
        Assert.Equal("+OK\r\n", c.Call([Encoding.UTF8.GetBytes("RESTORE"), Encoding.UTF8.GetBytes(key), Encoding.UTF8.GetBytes("0"), payload, Encoding.UTF8.GetBytes("IDLETIME"), Encoding.UTF8.GetBytes("1000")]));
        string idle = c.Call("OBJECT", "IDLETIME", key);
        long seconds = long.Parse(idle.AsSpan(1, idle.Length - 3));
        Assert.InRange(seconds, 1000, 1002);
    }

    /// <summary>
    /// What RESTORE propagates, against redis-server's replication stream: a relative TTL as the
    /// absolute time with ABSTTL added, and a replacing RESTORE that is born expired as a DEL.
    /// The payload is a string value whose checksum happens to be ASCII, so it travels as text.
    /// </summary>
    [RedisFact]
    public void Restore_Propagation_MatchesRedis()
    {
        string payload = AsciiPayload();
        PropagationDifferential.AssertSame(
            ["RESTORE", "k", "100000", payload],
            ["RESTORE", "k", "0", payload, "REPLACE"],
            ["RESTORE", "k2", "1", payload, "ABSTTL"],
            ["SET", "k3", "x"],
            ["RESTORE", "k3", "1", payload, "ABSTTL", "REPLACE"],
            ["RESTORE", "k4", "5000000000000", payload, "ABSTTL"],
            ["RESTORE", "k4", "0", payload]);
    }

    /// <summary>A DUMP payload of a short string whose every byte is ASCII.</summary>
    private static string AsciiPayload()
    {
        for (int i = 0; ; i++)
        {
            byte[] body = [0, .. Encoding.ASCII.GetBytes("value" + i)];
            body[0] = 0;
            byte[] value = [0, (byte)(body.Length - 1), .. body[1..]];
            byte[] payload = WithFooter(value, 10);
            if (payload.All(b => b < 0x80)) return Encoding.ASCII.GetString(payload);
        }
    }

    /// <summary>
    /// A stream with consumer groups, pending entries and consumers moves from redis-server to here
    /// and back: the group bookkeeping (XINFO GROUPS, XPENDING's summary and owners) is the same.
    /// </summary>
    [RedisFact]
    public void Restore_StreamWithGroups_RoundTripBothWays()
    {
        var reference = ReferenceRedis.Shared!;
        using var theirs = reference.Connect();
        using var ours = TestServer.Shared.Connect();
        string prefix = TestServer.KeyPrefix("dumpgroups");
        theirs.Call("SELECT", "10");
        theirs.Call("FLUSHDB");
        string[][] build =
        [
            ["XADD", "s", "1-1", "f", "1"], ["XADD", "s", "2-1", "f", "2"], ["XADD", "s", "3-1", "f", "3"], ["XADD", "s", "4-1", "f", "4"],
            ["XGROUP", "CREATE", "s", "g1", "0"], ["XGROUP", "CREATE", "s", "g2", "2-1", "ENTRIESREAD", "2"],
            ["XGROUP", "CREATECONSUMER", "s", "g1", "idle-one"],
            ["XCLAIM", "s", "g1", "alice", "0", "1-1", "2-1", "FORCE", "TIME", "1000", "RETRYCOUNT", "3"],
            ["XCLAIM", "s", "g1", "bob", "0", "3-1", "FORCE"],
            ["XGROUP", "SETID", "s", "g1", "3-1", "ENTRIESREAD", "3"],
            ["XDEL", "s", "2-1"],
        ];
        foreach (var cmd in build) Assert.False(theirs.Call(cmd).StartsWith("-"), string.Join(' ', cmd));
        string[][] Reads(string key) =>
        [
            ["XINFO", "GROUPS", key], ["XPENDING", key, "g1"], ["XPENDING", key, "g2"], ["XRANGE", key, "-", "+"], ["XLEN", key],
        ];
        string Show(RespClient c, string key) => string.Join("\n", Reads(key).Select(cmd => c.Call(cmd)));
        string expected = Show(theirs, "s");
        byte[] payload = BulkBytes(theirs.Call("DUMP", "s"));
        Assert.Equal("+OK\r\n", Restore(ours, prefix + "s", payload));
        Assert.Equal(expected, Show(ours, prefix + "s"));
        byte[] back = BulkBytes(ours.Call("DUMP", prefix + "s"));
        Assert.Equal("+OK\r\n", Restore(theirs, "s:back", back));
        Assert.Equal(expected, Show(theirs, "s:back"));
        theirs.Call("FLUSHDB");
    }

    // ---------------------------------------------------------------- helpers

    private static string Restore(RespClient c, string key, byte[] payload)
        => c.Call([Encoding.UTF8.GetBytes("RESTORE"), Encoding.UTF8.GetBytes(key), Encoding.UTF8.GetBytes("0"), payload]);

    private static byte[] ReferenceDump(string[] setup, string key)
    {
        using var theirs = ReferenceRedis.Shared!.Connect();
        theirs.Call("SELECT", "11");
        theirs.Call(setup);
        byte[] payload = BulkBytes(theirs.Call("DUMP", key));
        theirs.Call("DEL", key);
        return payload;
    }

    /// <summary>The bytes of a bulk string reply read as Latin-1.</summary>
    private static byte[] BulkBytes(string reply)
    {
        Assert.StartsWith("$", reply);
        int header = reply.IndexOf("\r\n", StringComparison.Ordinal);
        int length = int.Parse(reply.AsSpan(1, header - 1));
        return Encoding.Latin1.GetBytes(reply.Substring(header + 2, length));
    }

    private static byte[] WithFooter(byte[] body, ushort version)
    {
        var result = new byte[body.Length + 10];
        body.CopyTo(result, 0);
        BinaryPrimitives.WriteUInt16LittleEndian(result.AsSpan(body.Length), version);
        BinaryPrimitives.WriteUInt64LittleEndian(result.AsSpan(body.Length + 2), Crc64.Compute(result.AsSpan(0, body.Length + 2)));
        return result;
    }

    /// <summary>A value of <paramref name="type"/> whose body is one RDB string (a blob).</summary>
    private static byte[] Value(byte type, byte[] blob)
    {
        var w = new System.Buffers.ArrayBufferWriter<byte>();
        System.Buffers.BuffersExtensions.Write(w, [type]);
        RdbString.WriteLength(w, (ulong)blob.Length);
        System.Buffers.BuffersExtensions.Write(w, blob);
        return w.WrittenSpan.ToArray();
    }

    /// <summary>A ziplist of strings (under 64 bytes) followed by small integers (16-bit encoding).</summary>
    private static byte[] Ziplist(byte[][] strings, params int[] integers)
    {
        var entries = new List<byte[]>();
        foreach (var s in strings) entries.Add([(byte)s.Length, .. s]);
        foreach (int i in integers) entries.Add([0xC0, (byte)i, (byte)(i >> 8)]);
        var body = new List<byte>();
        int previous = 0, tail = 10;
        foreach (var e in entries)
        {
            tail = 10 + body.Count;
            body.Add((byte)previous);
            body.AddRange(e);
            previous = e.Length + 1;
        }
        var zl = new byte[10 + body.Count + 1];
        BinaryPrimitives.WriteUInt32LittleEndian(zl, (uint)zl.Length);
        BinaryPrimitives.WriteUInt32LittleEndian(zl.AsSpan(4), (uint)tail);
        BinaryPrimitives.WriteUInt16LittleEndian(zl.AsSpan(8), (ushort)entries.Count);
        body.CopyTo(zl, 10);
        zl[^1] = 0xFF;
        return zl;
    }
}
