using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Keys;

/// <summary>SCAN's guarantees across shards and table resizes, and its argument handling.</summary>
public class ScanTests
{
    [Fact]
    public async Task Scan_ConcurrentInsertsAndDeletesForcingResizes_ReturnsEveryOriginalKey()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        const int Originals = 5000;
        var originals = Enumerable.Range(0, Originals).Select(i => "orig:" + i).ToList();
        Assert.All(KeyReplies.Pipeline(c, originals.Select(k => new[] { "SET", k, "v" })), r => Assert.Equal("+OK\r\n", r));
        int slotsBefore = server.Server.Shards[0].Store[0].Table.SlotCount;

        using var scanStarted = new ManualResetEventSlim();
        using var stop = new CancellationTokenSource();
        int churnRounds = 0;
        // A dedicated thread: on a busy thread pool a Task.Run client can start after the scan is over.
        var churn = Task.Factory.StartNew(() =>
        {
            using var w = server.Connect();
            scanStarted.Wait(TimeSpan.FromSeconds(30));
            // Each round adds 1000 keys and deletes half of an older round: the live set keeps
            // growing, so every shard's table grows several times while the scan runs.
            for (int round = 0; round < 60 && !stop.IsCancellationRequested; round++)
            {
                var adds = Enumerable.Range(0, 1000).Select(j => new[] { "SET", $"churn:{round}:{j}", "x" });
                var dels = round >= 2
                    ? Enumerable.Range(0, 500).Select(j => new[] { "DEL", $"churn:{round - 2}:{j * 2}" })
                    : [];
                KeyReplies.Pipeline(w, adds.Concat(dels));
                Interlocked.Increment(ref churnRounds);
            }
        }, TaskCreationOptions.LongRunning);

        var seen = new HashSet<string>();
        string cursor = "0";
        int calls = 0;
        int roundsDuringScan;
        try
        {
            do
            {
                var reply = (List<object?>)KeyReplies.Parse(c.Call("SCAN", cursor, "COUNT", "10"))!;
                cursor = (string)reply[0]!;
                foreach (var key in (List<object?>)reply[1]!) seen.Add((string)key!);
                if (calls++ == 0)
                {
                    scanStarted.Set();
                    // Make sure the churn overlaps: the rest of the scan runs after a round of it.
                    SpinWait.SpinUntil(() => Volatile.Read(ref churnRounds) > 0, TimeSpan.FromSeconds(30));
                }
                Assert.True(calls < 200_000, "SCAN did not finish");
            } while (cursor != "0");
            roundsDuringScan = Volatile.Read(ref churnRounds);
        }
        finally
        {
            stop.Cancel();
            scanStarted.Set();
            await churn;
        }

        var missing = originals.Where(k => !seen.Contains(k)).ToList();
        Assert.True(missing.Count == 0, $"{missing.Count} keys never returned, e.g. {string.Join(", ", missing.Take(5))}");
        Assert.True(roundsDuringScan > 0, "the churn did not overlap the scan");
        Assert.True(server.Server.Shards[0].Store[0].Table.SlotCount > slotsBefore, "no resize happened");
    }

    [Fact]
    public async Task Scan_MatchCountType_FiltersAndFinishes()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        KeyReplies.Pipeline(c, Enumerable.Range(0, 300).Select(i => new[] { "SET", (i % 3 == 0 ? "fizz:" : "other:") + i, "v" }));

        var (all, calls) = KeyReplies.ScanAll(c);
        Assert.Equal(300, all.Distinct().Count());
        Assert.True(calls > 1, "default COUNT 10 should take several calls");

        var (fizz, _) = KeyReplies.ScanAll(c, "MATCH", "fizz:*", "COUNT", "7");
        Assert.Equal(Enumerable.Range(0, 100).Select(i => "fizz:" + (i * 3)).Order(), fizz.Distinct().Order());

        // A COUNT larger than the keyspace: one call across all four shards, ending with cursor 0.
        var (strings, calls1) = KeyReplies.ScanAll(c, "TYPE", "STRING", "COUNT", "100000");
        Assert.Equal(300, strings.Count);
        Assert.Equal(1, calls1);
        Assert.Empty(KeyReplies.ScanAll(c, "TYPE", "list").Keys);
    }

    /// <summary>
    /// A keyspace smaller than COUNT comes back from one call with cursor 0, as redis-server's small
    /// dict does (issue 26: one key answered cursor 1 and an empty page; 51 keys with COUNT 100
    /// answered 25 keys and cursor 1, the shard boundary). Checked on both servers, keys compared as
    /// sets since their order differs.
    /// </summary>
    [RedisFact]
    public async Task Scan_KeyspaceSmallerThanCount_OneCallCursorZeroLikeRedis()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        await using var server = TestServer.Start(shards: 4);
        using var theirs = reference.Connect();
        using var ours = server.Connect();
        var cases = new (int Keys, string[] Options)[]
        {
            (1, []),
            (5, []),
            (9, ["COUNT", "10"]),
            (51, ["COUNT", "100"]),
            (51, ["COUNT", "100", "MATCH", "k:1*"]),
            (51, ["COUNT", "100", "TYPE", "string"]),
            (51, ["COUNT", "100", "TYPE", "hash"]),
        };
        foreach (var (keys, options) in cases)
        {
            foreach (var c in new[] { theirs, ours })
            {
                Assert.Equal("+OK\r\n", c.Call("FLUSHALL"));
                KeyReplies.Pipeline(c, Enumerable.Range(0, keys).Select(i => new[] { "SET", "k:" + i, "v" }));
            }
            var want = (List<object?>)KeyReplies.Parse(theirs.Call(["SCAN", "0", .. options]))!;
            var got = (List<object?>)KeyReplies.Parse(ours.Call(["SCAN", "0", .. options]))!;
            string label = $"{keys} keys, SCAN 0 {string.Join(' ', options)}";
            Assert.True("0" == (string)want[0]!, "redis-server itself did not finish in one call: " + label);
            Assert.True("0" == (string)got[0]!, $"cursor {got[0]} after {((List<object?>)got[1]!).Count} keys: {label}");
            Assert.Equal(((List<object?>)want[1]!).Cast<string>().Order(), ((List<object?>)got[1]!).Cast<string>().Order());
        }
    }

    /// <summary>
    /// COUNT is honoured across shard boundaries: with COUNT below the keyspace's size each call but
    /// the last returns COUNT keys (never a short page at a shard's end), every key exactly once.
    /// </summary>
    [Fact]
    public async Task Scan_CountSpansShards_FullPagesEveryKeyOnce()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        KeyReplies.Pipeline(c, Enumerable.Range(0, 103).Select(i => new[] { "SET", "k:" + i, "v" }));
        var pages = new List<int>();
        var all = new List<string>();
        string cursor = "0";
        do
        {
            var reply = (List<object?>)KeyReplies.Parse(c.Call("SCAN", cursor, "COUNT", "20"))!;
            cursor = (string)reply[0]!;
            var page = ((List<object?>)reply[1]!).Cast<string>().ToList();
            pages.Add(page.Count);
            all.AddRange(page);
            Assert.True(pages.Count < 100, "SCAN did not finish");
        } while (cursor != "0");
        Assert.Equal([20, 20, 20, 20, 20, 3], pages);
        Assert.Equal(Enumerable.Range(0, 103).Select(i => "k:" + i).Order(), all.Order());
    }

    /// <summary>
    /// Small hashes, integer sets and sorted sets (listpack and intset encodings) come back whole from
    /// one call with cursor 0 whatever COUNT says, byte for byte as redis-server answers.
    /// </summary>
    [RedisFact]
    public void ScanFamily_SmallCompactEncodings_WholeInOneCallLikeRedis()
        => Differential.AssertSame(
            "HSET h a 1 b 2 c 3 d 4",
            "HSCAN h 0 COUNT 1",
            "HSCAN h 0 COUNT 1 MATCH [ac]",
            "SADD s 30 10 20 -5",
            "SSCAN s 0 COUNT 1",
            "SSCAN s 0 COUNT 1 MATCH 1*",
            "ZADD z 1 a 2 b 3 c 2.5 d",
            "ZSCAN z 0 COUNT 1",
            "ZSCAN z 0 COUNT 2 MATCH [bd]");

    /// <summary>
    /// A small set of strings is a listpack in Redis 7.2 (7.0.15 keeps it in a hashtable and pages
    /// it), so SSCAN returns it whole with cursor 0 as 7.2 does.
    /// </summary>
    [Fact]
    public void SScan_SmallStringSet_WholeInOneCall()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("sscan") + "s";
        c.Call("SADD", key, "x", "y", "z", "w");
        var reply = (List<object?>)KeyReplies.Parse(c.Call("SSCAN", key, "0", "COUNT", "1"))!;
        Assert.Equal("0", reply[0]);
        Assert.Equal(["w", "x", "y", "z"], ((List<object?>)reply[1]!).Cast<string>().Order());
    }

    [Fact]
    public async Task Scan_ExpiredKeys_SkippedAndDeleted()
    {
        await using var server = TestServer.Start(shards: 4);
        for (int i = 0; i < server.Server.Shards.Count; i++) server.Server.Shards[i].ActiveExpiry = false;
        using var c = server.Connect();
        KeyReplies.Pipeline(c, Enumerable.Range(0, 20).Select(i => new[] { "SET", "gone" + i, "v", "PX", "10" }));
        c.Call("SET", "stays", "v");
        Thread.Sleep(50);
        Assert.Equal(":21\r\n", c.Call("DBSIZE"));
        Assert.Equal(["stays"], KeyReplies.ScanAll(c, "COUNT", "1000").Keys);
        Assert.Equal(":1\r\n", c.Call("DBSIZE"));
    }

    [Fact]
    public void Scan_BadArguments_RedisErrors()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("-ERR invalid cursor\r\n", c.Call("SCAN", "abc"));
        Assert.Equal("-ERR invalid cursor\r\n", c.Call("SCAN", " 1"));
        Assert.Equal("-ERR invalid cursor\r\n", c.Call("SCAN", "-"));
        Assert.Equal("-ERR invalid cursor\r\n", c.Call("SCAN", "18446744073709551616"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SCAN", "0", "COUNT", "0"));
        Assert.Equal("-ERR value is not an integer or out of range\r\n", c.Call("SCAN", "0", "COUNT", "x"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SCAN", "0", "MATCH"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SCAN", "0", "BOGUS", "1"));
        Assert.Equal("-ERR invalid cursor\r\n", c.Call("SCAN", "x", "BOGUS"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    /// <summary>The option rules SCAN, HSCAN, SSCAN and ZSCAN share, as redis-server 7.0.15 answers them.</summary>
    [Fact]
    public void ScanFamily_SharedOptions_RedisRules()
    {
        using var c = TestServer.Shared.Connect();
        string p = "scanopts:" + Guid.NewGuid().ToString("N") + ":";
        c.Call("HSET", p + "h", "f", "v");
        c.Call("SADD", p + "s", "m");
        c.Call("ZADD", p + "z", "1", "m");
        c.Call("RPUSH", p + "l", "x");
        foreach (var (cmd, key) in new[] { ("HSCAN", p + "h"), ("SSCAN", p + "s"), ("ZSCAN", p + "z") })
        {
            Assert.Equal("-ERR invalid cursor\r\n", c.Call(cmd, key, "abc"));
            Assert.Equal("-ERR invalid cursor\r\n", c.Call(cmd, p + "missing", "abc"));
            Assert.Equal("-ERR syntax error\r\n", c.Call(cmd, key, "0", "COUNT", "0"));
            Assert.Equal("-ERR syntax error\r\n", c.Call(cmd, key, "0", "COUNT", "-5"));
            Assert.Equal("-ERR value is not an integer or out of range\r\n", c.Call(cmd, key, "0", "COUNT", "9999999999999999999"));
            Assert.Equal("-ERR syntax error\r\n", c.Call(cmd, key, "0", "TYPE", "string"));
            // NOVALUES (Redis 7.4) is HSCAN's flag; SSCAN and ZSCAN have their own error for it.
            if (cmd == "HSCAN") Assert.Equal("*2\r\n$1\r\n0\r\n*1\r\n$1\r\nf\r\n", c.Call(cmd, key, "0", "NOVALUES"));
            else Assert.Equal("-ERR NOVALUES option can only be used in HSCAN\r\n", c.Call(cmd, key, "0", "NOVALUES"));
            Assert.Equal("-ERR syntax error\r\n", c.Call(cmd, key, "0", "COUNT", "1", "MATCH"));
            // A missing key answers an empty scan before its options are read; another type is WRONGTYPE first.
            Assert.Equal("*2\r\n$1\r\n0\r\n*0\r\n", c.Call(cmd, p + "missing", "0", "BOGUS"));
            Assert.StartsWith("-WRONGTYPE", c.Call(cmd, p + "l", "0", "COUNT", "0"));
            // Repeated options: the last one wins.
            var reply = (List<object?>)KeyReplies.Parse(c.Call(cmd, key, "0", "MATCH", "nothing*", "MATCH", "*", "COUNT", "1", "COUNT", "5"))!;
            Assert.Equal("0", reply[0]);
            Assert.NotEmpty((List<object?>)reply[1]!);
        }
        Assert.Equal("-ERR syntax error\r\n", c.Call("SCAN", "0", "COUNT", "-1"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SCAN", "0", "TYPE"));
        Assert.Equal("-ERR NOVALUES option can only be used in HSCAN\r\n", c.Call("SCAN", "0", "NOVALUES"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }
}
