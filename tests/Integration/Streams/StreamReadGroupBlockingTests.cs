using System.Collections.Concurrent;
using System.Diagnostics;
using RedisClone.Tests.Infrastructure;
using RedisClone.Tests.Keys;

namespace RedisClone.Tests.Streams;

/// <summary>
/// XREADGROUP BLOCK with several clients: woken by XADD in the order the consumers blocked (one
/// entry, one consumer), CLIENT UNBLOCK, and Redis 7.2's answers when the key or the group goes away
/// while a consumer waits (the command runs again: NOGROUP or WRONGTYPE); then twenty consumers
/// sharing 100,000 entries over twenty connections.
/// </summary>
public class StreamReadGroupBlockingTests
{
    [RedisFact]
    public void XReadGroup_WaitersServedInBlockingOrder_OneEntryEach() => BlockingDifferential.AssertSame(4, r =>
    {
        r.Call(3, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
        r.Block(0, "XREADGROUP", "GROUP", "g", "c0", "BLOCK", "0", "STREAMS", "s", ">");
        r.Block(1, "XREADGROUP", "GROUP", "g", "c1", "BLOCK", "0", "STREAMS", "s", ">");
        r.Block(2, "XREADGROUP", "GROUP", "g", "c2", "COUNT", "5", "BLOCK", "0", "STREAMS", "s", ">");
        r.Call(3, "XADD", "s", "1-0", "n", "1");
        r.Read(0);
        r.WaitBlocked(2);
        r.Call(3, "XADD", "s", "2-0", "n", "2");
        r.Read(1);
        r.WaitBlocked(1);
        r.Call(3, "MULTI");
        r.Call(3, "XADD", "s", "3-0", "n", "3");
        r.Call(3, "XADD", "s", "4-0", "n", "4");
        r.Call(3, "EXEC");
        r.Read(2);
        r.Call(3, "XPENDING", "s", "g");
        r.Call(3, "XREADGROUP", "GROUP", "g", "c2", "STREAMS", "s", "0");
    });

    /// <summary>Redis's "stream that ran dry" (#5299): with the last entry deleted, "&gt;" waits for the next one.</summary>
    [RedisFact]
    public void XReadGroup_StreamRanDry_WaitsThenServesNewEntry() => BlockingDifferential.AssertSame(2, r =>
    {
        r.Call(1, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
        r.Call(1, "XADD", "s", "666", "key", "value");
        r.Call(1, "XDEL", "s", "666");
        r.Call(0, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "10", "STREAMS", "s", ">");
        r.Call(1, "XADD", "s", "665", "key", "value");
        r.Block(0, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">");
        r.Call(1, "XADD", "s", "667", "key", "value");
        r.Read(0);
        foreach (var id in new[] { "0", "600", "666", "667", "700" })
            r.Call(0, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", id);
    });

    /// <summary>
    /// Moving the group back (XGROUP SETID) does not wake a blocked consumer: only an XADD does, and
    /// then it reads from where the group now is.
    /// </summary>
    [RedisFact]
    public void XReadGroup_GroupMovedBackWhileBlocked_ServedAtNextXAdd() => BlockingDifferential.AssertSame(3, r =>
    {
        r.Call(2, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
        r.Call(2, "XADD", "s", "1-0", "n", "1");
        r.Call(1, "XREADGROUP", "GROUP", "g", "c1", "STREAMS", "s", ">");
        r.Block(0, "XREADGROUP", "GROUP", "g", "c0", "BLOCK", "0", "STREAMS", "s", ">");
        r.Call(2, "XGROUP", "SETID", "s", "g", "0");
        r.NoReply(0, 100);
        r.Call(2, "XACK", "s", "g", "1-0");
        r.Call(2, "XADD", "s", "2-0", "n", "2");
        r.Read(0);
        r.Call(2, "XPENDING", "s", "g");
    });

    [RedisFact]
    public void XReadGroup_ClientUnblockAndTimeout_NothingDelivered() => BlockingDifferential.AssertSame(2, r =>
    {
        r.Call(1, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
        string id = r[0].Call("CLIENT", "ID").Trim(':', '\r', '\n');
        r.Block(0, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">");
        r.Record(1, "CLIENT UNBLOCK <id>", r[1].Call("CLIENT", "UNBLOCK", id));
        r.Read(0);
        r.Block(0, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">");
        r.Record(1, "CLIENT UNBLOCK <id> ERROR", r[1].Call("CLIENT", "UNBLOCK", id, "ERROR"));
        r.Read(0);
        r.Call(0, "XREADGROUP", "GROUP", "g", "c", "BLOCK", "20", "STREAMS", "s", ">");
        r.Call(1, "XADD", "s", "1-0", "f", "v");
        r.Call(1, "XPENDING", "s", "g");
    });

    /// <summary>Redis 7.2 answers a consumer blocked on a key that goes away by running its command again (7.0 had other texts).</summary>
    [Theory]
    [InlineData("DEL", "-NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option\\r\\n")]
    [InlineData("SET", "-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n")]
    [InlineData("MULTI-SADD", "-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n")]
    [InlineData("FLUSHALL", "-NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option\\r\\n")]
    [InlineData("FLUSHDB", "-NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option\\r\\n")]
    [InlineData("SWAPDB-EMPTY", "-NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option\\r\\n")]
    [InlineData("SWAPDB-LIST", "-WRONGTYPE Operation against a key holding the wrong kind of value\\r\\n")]
    [InlineData("DESTROY", "-NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option\\r\\n")]
    [InlineData("RENAME-NOGROUP", "-NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option\\r\\n")]
    [InlineData("RENAME-DATA", "*1\\r\\n*2\\r\\n$1\\r\\ns\\r\\n*1\\r\\n*2\\r\\n$5\\r\\n100-0\\r\\n*2\\r\\n$2\\r\\nf1\\r\\n$2\\r\\nv1\\r\\n")]
    [InlineData("EXPIRE", "-NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option\\r\\n")]
    public void XReadGroup_KeyOrGroupGoneWhileBlocked_RepliesAs72(string change, string expected)
    {
        string transcript = BlockingDifferential.RunOurs(2, r =>
        {
            var w = r[1];
            w.Call("SELECT", "9");
            r[0].Call("SELECT", "9");
            w.Call("XADD", "s", "666", "f", "v");
            w.Call("XGROUP", "CREATE", "s", "g", "$");
            r.Block(0, "XREADGROUP", "GROUP", "g", "Alice", "BLOCK", "0", "STREAMS", "s", ">");
            switch (change)
            {
                case "DEL": w.Call("DEL", "s"); break;
                case "SET": w.Call("SET", "s", "val1"); break;
                case "MULTI-SADD":
                    w.Call("MULTI");
                    w.Call("DEL", "s");
                    w.Call("SADD", "s", "e1");
                    w.Call("EXEC");
                    break;
                case "FLUSHALL": w.Call("FLUSHALL"); break;
                case "FLUSHDB": w.Call("FLUSHDB"); break;
                case "SWAPDB-EMPTY":
                    w.Call("SELECT", "4");
                    w.Call("FLUSHDB");
                    w.Call("SWAPDB", "4", "9");
                    break;
                case "SWAPDB-LIST":
                    w.Call("SELECT", "4");
                    w.Call("FLUSHDB");
                    w.Call("LPUSH", "s", "e1");
                    w.Call("SWAPDB", "4", "9");
                    break;
                case "DESTROY": w.Call("XGROUP", "DESTROY", "s", "g"); break;
                case "RENAME-NOGROUP":
                    w.Call("XADD", "s2", "100", "f1", "v1");
                    w.Call("RENAME", "s2", "s");
                    break;
                case "RENAME-DATA":
                    w.Call("XGROUP", "CREATE", "s2", "g", "$", "MKSTREAM");
                    w.Call("XADD", "s2", "100", "f1", "v1");
                    w.Call("RENAME", "s2", "s");
                    break;
                case "EXPIRE": w.Call("PEXPIRE", "s", "1"); break;
            }
            r.Read(0);
            r.Call(0, "PING");
        });
        Assert.Equal($"[0] (read)\n    {expected}\n[0] PING\n    +PONG\\r\\n\n", transcript);
    }

    /// <summary>
    /// The statistics Redis 7.2 keeps for a consumer whose key or group went away while it waited
    /// (its stream-cgroups test "XGROUP DESTROY should unblock XREADGROUP with -NOGROUP"): one call,
    /// failed, not rejected, and the error in errorstats and total_error_replies.
    /// </summary>
    [Theory]
    [InlineData("DEL", "NOGROUP")]
    [InlineData("FLUSHALL", "NOGROUP")]
    [InlineData("FLUSHDB", "NOGROUP")]
    [InlineData("SET", "WRONGTYPE")]
    [InlineData("DESTROY", "NOGROUP")]
    public void XReadGroup_KeyOrGroupGoneWhileBlocked_CountedOnceAsFailed(string change, string error)
    {
        string transcript = BlockingDifferential.RunOurs(2, r =>
        {
            var w = r[1];
            w.Call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
            w.Call("CONFIG", "RESETSTAT");
            r.Block(0, "XREADGROUP", "GROUP", "g", "Alice", "BLOCK", "0", "STREAMS", "s", ">");
            switch (change)
            {
                case "DEL": w.Call("DEL", "s"); break;
                case "FLUSHALL": w.Call("FLUSHALL"); break;
                case "FLUSHDB": w.Call("FLUSHDB"); break;
                case "SET": w.Call("SET", "s", "x"); break;
                case "DESTROY": w.Call("XGROUP", "DESTROY", "s", "g"); break;
            }
            string reply = r[0].ReadReply();
            Assert.StartsWith("-" + error, reply);
            string info = w.Call("INFO", "ALL");
            r.Record(1, "xreadgroup", Blocking.BlockingOrderTests.CommandStat(w, "xreadgroup"));
            r.Record(1, "errorstat", Line(info, $"errorstat_{error}:"));
            r.Record(1, "total_error_replies", Line(info, "total_error_replies:"));
        });
        Assert.Equal("[1] xreadgroup\n    calls=1,rejected_calls=0,failed_calls=1\n"
                     + $"[1] errorstat\n    errorstat_{error}:count=1\n"
                     + "[1] total_error_replies\n    total_error_replies:1\n", transcript);
    }

    private static string Line(string info, string prefix)
    {
        int at = info.IndexOf(prefix, StringComparison.Ordinal);
        return at < 0 ? "(none)" : info[at..info.IndexOf('\r', at)];
    }

    /// <summary>
    /// Redis's "reprocessing command" test: a consumer woken by an entry another consumer took waits
    /// on, and still times out when its original BLOCK says, not later.
    /// </summary>
    [Fact]
    public void XReadGroup_WokenButEntryTaken_KeepsOriginalTimeout()
    {
        TimeSpan elapsed = default;
        string transcript = BlockingDifferential.RunOurs(3, r =>
        {
            r[2].Call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM");
            r.Block(0, "XREADGROUP", "GROUP", "g", "first", "BLOCK", "0", "STREAMS", "s", ">");
            var clock = Stopwatch.StartNew();
            r.Block(1, "XREADGROUP", "GROUP", "g", "second", "BLOCK", "1000", "STREAMS", "s", ">");
            Thread.Sleep(200);
            r[2].Call("XADD", "s", "*", "field", "value");
            r.Read(1);
            elapsed = clock.Elapsed;
        });
        Assert.Equal("[1] (read)\n    *-1\\r\\n\n", transcript);
        Assert.InRange(elapsed.TotalMilliseconds, 950, 1400);
    }

    /// <summary>
    /// The consumer's times as Redis 7.2 keeps them (XINFO CONSUMERS shows them as idle and
    /// inactive): seen at every XREADGROUP, served or not, blocked or not; active only when "&gt;"
    /// made entries pending for it (a history read or a NOACK read leaves it as it was).
    /// </summary>
    [Fact]
    public void XReadGroup_ConsumerTimes_SeenOnEveryReadActiveOnDelivery()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xrgtimes") + "s";
        c.Call("XGROUP", "CREATE", key, "g", "$", "MKSTREAM");
        long before = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        Assert.Equal("*-1\r\n", c.Call("XREADGROUP", "GROUP", "g", "alice", "STREAMS", key, ">"));
        var alice = Consumer(key, "alice");
        Assert.InRange(alice.SeenTime, before, before + 5000);
        Assert.Equal(-1, alice.ActiveTime);

        Thread.Sleep(20);
        Assert.Equal("*-1\r\n", c.Call("XREADGROUP", "GROUP", "g", "alice", "BLOCK", "1", "STREAMS", key, ">"));
        long seen = alice.SeenTime;
        Assert.True(seen >= before + 20, "seen time not updated by a read that found nothing");
        Assert.Equal(-1, alice.ActiveTime);

        c.Call("XADD", key, "1-1", "f", "v");
        Thread.Sleep(20);
        c.Call("XREADGROUP", "GROUP", "g", "alice", "STREAMS", key, ">");
        long active = alice.ActiveTime;
        Assert.True(active >= seen + 20 && alice.SeenTime == active, $"active {active}, seen {alice.SeenTime}");

        Thread.Sleep(20);
        c.Call("XREADGROUP", "GROUP", "g", "alice", "STREAMS", key, "0");
        Assert.Equal(active, alice.ActiveTime);
        Assert.True(alice.SeenTime >= active + 20);

        c.Call("XADD", key, "2-1", "f", "v");
        Thread.Sleep(20);
        c.Call("XREADGROUP", "GROUP", "g", "alice", "NOACK", "STREAMS", key, ">");
        Assert.Equal(active, alice.ActiveTime);
    }

    private static RedisClone.Storage.StreamConsumer Consumer(string key, string name)
    {
        var shards = TestServer.Shared.Server.Shards;
        var bytes = System.Text.Encoding.UTF8.GetBytes(key);
        var db = shards[shards.ShardOf(bytes)].Store[0];
        var stream = (RedisClone.Storage.RedisStream)db.Table.At(db.FindLiveNoTouch(bytes, 0)).Value;
        return stream.FindGroup("g"u8)!.FindConsumer(System.Text.Encoding.UTF8.GetBytes(name))!;
    }

    /// <summary>
    /// The test: 20 consumers of one group, each on its own connection, read 100,000 entries
    /// with XREADGROUP COUNT and BLOCK while a producer is still adding them, and acknowledge each
    /// with XACK. Every entry reaches exactly one consumer, every XACK of it answers 1 exactly once,
    /// and the group ends with nothing pending.
    /// </summary>
    [Fact]
    public async Task XReadGroup_TwentyConsumersShare100000Entries_EachDeliveredAndAckedOnce()
    {
        const int total = 100_000, consumers = 20, batch = 500;
        await using var server = TestServer.Start(shards: 4);
        using (var admin = server.Connect())
            Assert.Equal("+OK\r\n", admin.Call("XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"));

        var deliveredTo = new ConcurrentDictionary<string, int>();
        var duplicates = new ConcurrentQueue<string>();
        int acked = 0;
        using var deadline = new CancellationTokenSource(TimeSpan.FromSeconds(150));

        var producer = Task.Run(() =>
        {
            using var c = server.Connect();
            for (int sent = 0; sent < total && !deadline.IsCancellationRequested; sent += batch)
            {
                for (int i = sent; i < sent + batch; i++) c.Send("XADD", "s", "*", "n", i.ToString());
                for (int i = sent; i < sent + batch; i++) Assert.StartsWith("$", c.ReadReply());
            }
        });

        var readers = Enumerable.Range(0, consumers).Select(n => Task.Run(() =>
        {
            using var c = server.Connect();
            string name = $"consumer-{n}";
            while (Volatile.Read(ref acked) < total && !deadline.IsCancellationRequested)
            {
                string reply = c.Call("XREADGROUP", "GROUP", "g", name, "COUNT", "100", "BLOCK", "100", "STREAMS", "s", ">");
                if (reply == "*-1\r\n") continue;
                var streams = (List<object?>)KeyReplies.Parse(reply)!;
                var entries = (List<object?>)((List<object?>)streams[0]!)[1]!;
                var ids = entries.Select(e => (string)((List<object?>)e!)[0]!).ToList();
                foreach (var id in ids)
                    if (!deliveredTo.TryAdd(id, n)) duplicates.Enqueue($"{id} to {n} and {deliveredTo[id]}");
                foreach (var id in ids) c.Send("XACK", "s", "g", id);
                foreach (var id in ids)
                {
                    string ack = c.ReadReply();
                    if (ack != ":1\r\n") duplicates.Enqueue($"XACK {id} answered {ack.Trim()}");
                }
                Interlocked.Add(ref acked, ids.Count);
            }
        })).ToArray();

        await producer;
        await Task.WhenAll(readers);
        Assert.False(deadline.IsCancellationRequested, $"timed out: {acked} of {total} acknowledged");
        Assert.Empty(duplicates);
        Assert.Equal(total, deliveredTo.Count);
        Assert.Equal(total, acked);
        Assert.True(deliveredTo.Values.Distinct().Count() > 1, "one consumer took everything: nothing was shared");

        using var check = server.Connect();
        Assert.Equal($":{total}\r\n", check.Call("XLEN", "s"));
        Assert.StartsWith("*4\r\n:0\r\n", check.Call("XPENDING", "s", "g"));
        // A second XACK of any entry finds nothing pending.
        Assert.Equal(":0\r\n", check.Call("XACK", "s", "g", deliveredTo.Keys.First()));
        Assert.Equal("*-1\r\n", check.Call("XREADGROUP", "GROUP", "g", "late", "STREAMS", "s", ">"));
    }
}
