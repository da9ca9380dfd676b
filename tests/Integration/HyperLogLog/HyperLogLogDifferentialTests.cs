using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.HyperLogLog;

/// <summary>PFADD, PFCOUNT and PFMERGE against redis-server: replies and the raw HLL bytes (GET), errors included.</summary>
public sealed class HyperLogLogDifferentialTests
{
    [Fact]
    public void PfAddPfCount_BasicsAndErrors_AsRedis()
        => Differential.AssertSame(
            "PFADD h a b c", "GET h", "PFCOUNT h", "GET h", "PFADD h a", "PFADD h", "GET h", "PFADD h d", "GET h", "PFCOUNT h",
            "PFADD e", "GET e", "PFCOUNT e", "GET e", "PFADD e", "OBJECT ENCODING h", "STRLEN h", "TYPE h",
            "EXPIRE h 100", "PFADD h zz yy", "TTL h", "PFCOUNT missing", "EXISTS missing",
            "SET s foo", "PFADD s x", "PFCOUNT s", "PFCOUNT h s", "SET n 12345", "PFADD n x", "PFCOUNT n",
            "SET long HYLLxxxxxxxxxxxxxxxxxx", "PFCOUNT long", "PFADD long a",
            "LPUSH l a", "PFADD l x", "PFCOUNT l", "PFCOUNT h l", "PFCOUNT missing l",
            "PFADD", "PFCOUNT", "PING");

    [Fact]
    public void PfMerge_SparseDenseAndErrors_AsRedis()
    {
        var big = Enumerable.Range(0, 3000).Select(i => "e" + i).ToArray();
        Differential.AssertSame(
            ["PFADD", "a", "1", "2", "3"], ["PFADD", "b", "3", "4", "5", "6"], ["PFMERGE", "d", "a", "b"], ["GET", "d"], ["PFCOUNT", "d"],
            ["PFMERGE", "d"], ["GET", "d"], ["PFMERGE", "fresh"], ["GET", "fresh"], ["PFMERGE", "d2", "missing"], ["GET", "d2"],
            ["PFMERGE", "a", "b"], ["GET", "a"], ["PFCOUNT", "a", "b", "d"],
            ["PFADD", "big", .. big], ["GET", "big"], ["PFCOUNT", "big"], ["PFMERGE", "a", "big"], ["GET", "a"], ["PFCOUNT", "a"],
            ["PFMERGE", "d3", "b", "big"], ["GET", "d3"], ["PFCOUNT", "big", "b", "missing"],
            ["EXPIRE", "a", "100"], ["PFMERGE", "a", "b"], ["TTL", "a"],
            ["SET", "s", "foo"], ["PFMERGE", "d", "s"], ["PFMERGE", "s", "a"], ["GET", "s"], ["LPUSH", "l", "x"], ["PFMERGE", "l", "a"],
            ["PFMERGE", "d", "a", "l"], ["PFMERGE"], ["PING"]);
    }

    /// <summary>Random element sets of many sizes, sparse and promoted to dense: counts and bytes exactly redis-server's.</summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void PfAddPfCountPfMerge_RandomSets_BytesAsRedis(int seed)
    {
        var random = new Random(seed);
        var script = new List<string[]>();
        int[] sizes = [1, 5, 40, 150, 600, 1500, 4000, 25000];
        for (int k = 0; k < sizes.Length; k++)
        {
            string key = "k" + k;
            int added = 0;
            while (added < sizes[k])
            {
                int batch = Math.Min(sizes[k] - added, random.Next(1, 2000));
                var elements = new string[batch];
                for (int i = 0; i < batch; i++) elements[i] = RandomElement(random);
                script.Add(["PFADD", key, .. elements]);
                added += batch;
                if (random.Next(4) == 0) script.Add(["PFCOUNT", key]);
            }
            script.Add(["GET", key]);
            script.Add(["PFCOUNT", key]);
            script.Add(["GET", key]);
        }
        script.Add(["PFCOUNT", "k0", "k1", "k2"]);
        script.Add(["PFCOUNT", "k3", "k5", "missing", "k7"]);
        script.Add(["PFMERGE", "m1", "k0", "k1", "k2", "k3"]);
        script.Add(["GET", "m1"]);
        script.Add(["PFCOUNT", "m1"]);
        script.Add(["PFMERGE", "m2", "k2", "k6"]);
        script.Add(["GET", "m2"]);
        script.Add(["PFCOUNT", "m2"]);
        script.Add(["PFMERGE", "k4", "k1", "k3"]);
        script.Add(["GET", "k4"]);
        script.Add(["PFCOUNT", "k4"]);
        Differential.AssertSame(script.ToArray());
    }

    private static string RandomElement(Random random)
    {
        var chars = new char[random.Next(1, 20)];
        for (int i = 0; i < chars.Length; i++) chars[i] = (char)random.Next(33, 127);
        return new string(chars);
    }

    /// <summary>hll-sparse-max-bytes decides when a sparse HLL turns dense, as in redis-server.</summary>
    [Fact]
    public void PfAdd_SparseMaxBytesConfig_PromotesAsRedis()
    {
        var elements = Enumerable.Range(0, 60).Select(i => "x" + i).ToArray();
        Differential.AssertSame(
            ["CONFIG", "SET", "hll-sparse-max-bytes", "100"], ["CONFIG", "GET", "hll-sparse-max-bytes"],
            ["PFADD", "h", .. elements[..10]], ["GET", "h"], ["PFADD", "h", .. elements[10..30]], ["GET", "h"],
            ["PFADD", "h", .. elements[30..]], ["GET", "h"], ["PFCOUNT", "h"],
            ["PFADD", "g", .. elements[..25]], ["PFMERGE", "g2", "g"], ["GET", "g2"],
            ["CONFIG", "SET", "hll-sparse-max-bytes", "0"], ["PFADD", "z", "a"], ["GET", "z"],
            ["CONFIG", "SET", "hll-sparse-max-bytes", "3000"], ["CONFIG", "GET", "hll-sparse-max-bytes"]);
    }

    /// <summary>Hand-made HLL strings: a valid sparse body with VAL runs, and corrupt ones (INVALIDOBJ) or non-HLL ones.</summary>
    [Fact]
    public void HandMadeStrings_ValidAndCorrupt_AsRedis()
    {
        static byte[] Hll(byte encoding, params byte[] body)
            => [.. "HYLL"u8, encoding, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, .. body];
        static byte[] B(string s) => Encoding.ASCII.GetBytes(s);
        // 100 zero registers, a VAL run of two 5s, one 32, then XZERO up to 16384.
        int rest = 16384 - 103;
        var valid = Hll(1, 0x40 | (99 >> 8), 99 & 0xff, 0x80 | (4 << 2) | 1, 0x80 | (31 << 2), (byte)(0x40 | ((rest - 1) >> 8)), (byte)((rest - 1) & 0xff));
        var tooFew = Hll(1, 0x7f, 0x7e);                 // XZERO of 16383: one register short
        var tooMany = Hll(1, 0x7f, 0xff, 0x80);           // 16384 zeros then a VAL past the end
        var truncated = Hll(1, 0x7f);                     // XZERO cut after its first byte
        var empty = Hll(1);                               // no opcodes at all
        var badDense = Hll(0, 1, 2, 3);                   // dense but not 12304 bytes
        var badEncoding = Hll(2, 0x7f, 0xff);
        var badMagic = (byte[])valid.Clone();
        badMagic[0] = (byte)'h';
        byte[][][] script =
        [
            [B("SET"), B("v"), valid], [B("PFCOUNT"), B("v")], [B("GET"), B("v")], [B("PFADD"), B("v"), B("a"), B("b"), B("c")], [B("GET"), B("v")],
            [B("PFMERGE"), B("vm"), B("v")], [B("GET"), B("vm")], [B("PFCOUNT"), B("v"), B("vm")],
            [B("SET"), B("few"), tooFew], [B("PFCOUNT"), B("few")], [B("PFCOUNT"), B("few"), B("v")], [B("PFMERGE"), B("d"), B("few")],
            [B("SET"), B("many"), tooMany], [B("PFCOUNT"), B("many")], [B("PFCOUNT"), B("v"), B("many")], [B("PFMERGE"), B("d"), B("many")],
            [B("PFADD"), B("many"), B("a")],
            [B("SET"), B("cut"), truncated], [B("PFCOUNT"), B("cut")], [B("PFMERGE"), B("d"), B("cut")], [B("PFADD"), B("cut"), B("x")],
            [B("SET"), B("none"), empty], [B("PFCOUNT"), B("none")], [B("PFADD"), B("none"), B("x")], [B("PFMERGE"), B("none")],
            [B("SET"), B("bd"), badDense], [B("PFCOUNT"), B("bd")], [B("PFADD"), B("bd"), B("x")], [B("PFMERGE"), B("bd")],
            [B("SET"), B("be"), badEncoding], [B("PFCOUNT"), B("be")], [B("PFADD"), B("be"), B("x")],
            [B("SET"), B("bm"), badMagic], [B("PFCOUNT"), B("bm")], [B("PFMERGE"), B("d"), B("v"), B("bm")],
            [B("EXISTS"), B("d")], [B("PING")],
        ];
        Differential.AssertSameBytes(script);
    }

    [Fact]
    public void PfDebug_SubcommandsAndErrors_AsRedis()
    {
        var many = Enumerable.Range(0, 400).Select(i => "d" + i).ToArray();
        Differential.AssertSame(
            ["PFADD", "h", "a", "b", "c", "d", "e"], ["PFDEBUG", "ENCODING", "h"], ["PFDEBUG", "DECODE", "h"], ["PFDEBUG", "decode", "h"],
            ["PFADD", "m", .. many], ["PFDEBUG", "DECODE", "m"], ["PFDEBUG", "ENCODING", "m"],
            ["EXPIRE", "h", "100"], ["PFDEBUG", "GETREG", "h"], ["PFDEBUG", "ENCODING", "h"], ["GET", "h"], ["TTL", "h"],
            ["PFDEBUG", "DECODE", "h"], ["PFDEBUG", "TODENSE", "h"], ["PFDEBUG", "TODENSE", "m"], ["GET", "m"], ["PFDEBUG", "GETREG", "m"],
            ["PFCOUNT", "m"], ["PFADD", "x"], ["PFDEBUG", "GETREG", "x"], ["PFDEBUG", "DECODE", "x"],
            ["PFDEBUG", "ENCODING", "missing"], ["PFDEBUG", "Nope", "missing"], ["PFDEBUG", "Nope", "h"],
            ["SET", "s", "foo"], ["PFDEBUG", "ENCODING", "s"], ["LPUSH", "l", "a"], ["PFDEBUG", "ENCODING", "l"],
            ["PFDEBUG", "GETREG"], ["PFDEBUG", "GETREG", "h", "x"], ["PFSELFTEST", "x"], ["PING"]);
    }

    /// <summary>PFCOUNT that refreshes the cached count modifies the key for WATCH; one served from the cache does not.</summary>
    [Fact]
    public void PfCount_CacheRefresh_BreaksWatchAsRedis()
        => Differential.AssertSame(
            "PFADD h a b", "WATCH h", "PFCOUNT h", "MULTI", "PING", "EXEC",
            "WATCH h", "PFCOUNT h", "MULTI", "PING", "EXEC",
            "WATCH h", "PFCOUNT h missing", "MULTI", "PING", "EXEC", "WATCH h", "PFADD h a", "MULTI", "PING", "EXEC");

    [Fact]
    public void PfCommands_FromScripts_AsRedis()
        => Differential.AssertSame(
            ["EVAL", "redis.call('PFADD', KEYS[1], 'x', 'y'); return redis.call('PFCOUNT', KEYS[1])", "1", "{s}h"],
            ["EVAL", "return redis.call('PFMERGE', KEYS[1], KEYS[2])", "2", "{s}d", "{s}h"], ["GET", "{s}d"],
            ["EVAL_RO", "return redis.call('PFCOUNT', KEYS[1])", "1", "{s}h"],
            ["EVAL_RO", "return redis.call('PFADD', KEYS[1], 'z')", "1", "{s}h"],
            ["EVAL", "return redis.pcall('PFADD', KEYS[1], 'z')", "1", "{s}s"], ["SET", "{s}s", "v"],
            ["EVAL", "return redis.pcall('PFADD', KEYS[1], 'z')", "1", "{s}s"]);

    [Fact]
    public void PfSelfTest_Passes_AsRedis()
        => Differential.AssertSame("PFSELFTEST", "PFSELFTEST");

    /// <summary>Keys on different shards (no hash tags): multi-key PFCOUNT and PFMERGE read them all in one step.</summary>
    [Fact]
    public void PfCountPfMerge_KeysOnManyShards_AsRedis()
    {
        var script = new List<string[]>();
        var random = new Random(7);
        for (int k = 0; k < 8; k++)
            script.Add(["PFADD", "src" + k, .. Enumerable.Range(0, random.Next(1, 3000)).Select(_ => RandomElement(random))]);
        script.Add(["PFCOUNT", "src0", "src1", "src2", "src3", "src4", "src5", "src6", "src7"]);
        script.Add(["PFMERGE", "dest", "src0", "src1", "src2", "src3", "src4", "src5", "src6", "src7"]);
        script.Add(["GET", "dest"]);
        script.Add(["PFCOUNT", "dest"]);
        script.Add(["PFMERGE", "src1", "src5"]);
        script.Add(["GET", "src1"]);
        Differential.AssertSame(script.ToArray());
    }
}

/// <summary>Redis 7.2's COMMAND DOCS for PFMERGE, which 7.0 (the reference server) does not have.</summary>
public sealed class HyperLogLogDocsTests
{
    [Fact]
    public void CommandDocs_PfMerge_SourceKeyOptionalAsRedis72()
    {
        using var c = TestServer.Shared.Connect();
        string docs = c.Call("COMMAND", "DOCS", "pfmerge");
        Assert.Contains("$9\r\nsourcekey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:1\r\n$5\r\nflags\r\n*2\r\n+optional\r\n+multiple\r\n", docs);
    }
}

/// <summary>An HLL string taken from redis-server with GET works here as it does there.</summary>
public sealed class HyperLogLogInteropTests
{
    [RedisFact]
    public void PfCount_StringCopiedFromRedis_SameCountAndSameEdits()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        using var theirs = reference.Connect();
        using var ours = TestServer.Shared.Connect();
        string prefix = TestServer.KeyPrefix(nameof(PfCount_StringCopiedFromRedis_SameCountAndSameEdits));
        foreach (int size in new[] { 3, 500, 9000 })
        {
            var elements = Enumerable.Range(0, size).Select(i => "m" + i).ToArray();
            theirs.Call(["PFADD", "h", .. elements]);
            byte[] get = RespClient.Encode("GET", "h");
            theirs.SendRaw(get);
            byte[] reply = theirs.ReadReplyBytes();
            // Bulk string "$<n>\r\n<bytes>\r\n": take the bytes.
            int header = Array.IndexOf(reply, (byte)'\n') + 1;
            byte[] value = reply[header..^2];
            string key = prefix + size;
            Assert.Equal("+OK\r\n", ours.Call([Encoding.ASCII.GetBytes("SET"), Encoding.ASCII.GetBytes(key), value]));
            Assert.Equal(theirs.Call("PFCOUNT", "h"), ours.Call("PFCOUNT", key));
            Assert.Equal(theirs.Call("PFADD", "h", "one-more", "and-another"), ours.Call("PFADD", key, "one-more", "and-another"));
            Assert.Equal(theirs.Call("GET", "h"), ours.Call("GET", key));
            theirs.Call("DEL", "h");
        }
    }
}

/// <summary>What the HLL commands propagate and notify, compared with redis-server.</summary>
public sealed class HyperLogLogPropagationTests
{
    [Fact]
    public void PfAddPfCountPfMerge_Propagation_AsRedis()
        => PropagationDifferential.AssertSame(
            "PFADD h a b", "PFADD h a", "PFADD h", "PFCOUNT h", "PFCOUNT h", "PFADD h c", "PFCOUNT h", "PFCOUNT missing",
            "PFCOUNT h missing", "PFMERGE d h", "PFMERGE d", "PFADD e", "SET s x", "PFADD s a", "PFCOUNT s",
            "PFDEBUG ENCODING h", "PFDEBUG DECODE h", "PFDEBUG TODENSE h", "PFDEBUG TODENSE h", "PFADD g a", "PFDEBUG GETREG g",
            "PFDEBUG GETREG g", "PFDEBUG TODENSE missing");

    [RedisFact]
    public void PfAddPfMerge_Events_AsRedis()
    {
        string[][] script =
        [
            ["PFADD", "h", "a", "b"], ["PFADD", "h", "a"], ["PFADD", "h"], ["PFCOUNT", "h"], ["PFADD", "e"], ["PFMERGE", "d", "h"],
            ["PFMERGE", "d"], ["PFCOUNT", "h", "d"],
        ];
        KeyspaceEvents.AssertSameOnPrivateServers(script);
    }
}
