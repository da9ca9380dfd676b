using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;
using RedisClone.Tests.Replication;

namespace RedisClone.Tests.Hashes;

/// <summary>
/// Hash-field expiry's keyspace events and propagation, as Redis 8.2 emits and rewrites them:
/// relative times as HPEXPIREAT with the absolute time, past times and expired fields as HDEL,
/// HGETEX as HPEXPIREAT or HPERSIST, HGETDEL as HDEL, HSETEX EX as PXAT; and a replica of ours
/// applying them, leaving expiry to its master.
/// </summary>
public sealed class HashFieldExpiryPropagationTests
{
    private static long NowMs => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();

    [Fact]
    public async Task Propagation_EachCommand_AsRedisRewritesIt()
    {
        await using var server = TestServer.Start(2, "--enable-debug-command", "yes");
        var recorder = new PropagationRecorder();
        server.Server.PropagationListener = recorder;
        using var c = server.Connect();
        c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "0");
        c.Call("HSET", "h", "a", "1", "b", "2", "c", "3");
        recorder.Take();

        // Relative time: HPEXPIREAT with the absolute time, only the fields it set, the condition kept.
        long before = NowMs;
        c.Call("HEXPIRE", "h", "100", "NX", "FIELDS", "3", "a", "nope", "b");
        long after = NowMs;
        var line = Assert.Single(recorder.Take());
        var m = Regex.Match(line, @"^0 HPEXPIREAT h (\d+) NX FIELDS 2 a b$");
        Assert.True(m.Success, line);
        Assert.InRange(long.Parse(m.Groups[1].Value), before + 100_000, after + 100_000);
        // Nothing set (condition not met): nothing propagated.
        c.Call("HEXPIRE", "h", "100", "NX", "FIELDS", "1", "a");
        Assert.Empty(recorder.Take());
        // HPEXPIREAT as sent.
        long at = NowMs + 500_000;
        c.Call("HPEXPIREAT", "h", at.ToString(), "FIELDS", "1", "c");
        Assert.Equal([$"0 HPEXPIREAT h {at} FIELDS 1 c"], recorder.Take());
        // A past time: the HDEL of each field deleted, not the command.
        c.Call("HEXPIRE", "h", "0", "FIELDS", "2", "c", "nope");
        Assert.Equal(["0 HDEL h c"], recorder.Take());
        // HPERSIST as sent when it changed something.
        c.Call("HPERSIST", "h", "FIELDS", "1", "a");
        Assert.Equal(["0 HPERSIST h FIELDS 1 a"], recorder.Take());
        c.Call("HPERSIST", "h", "FIELDS", "1", "a");
        Assert.Empty(recorder.Take());
        // HGETEX: HPEXPIREAT with every field named, or HPERSIST; a plain HGETEX nothing.
        c.Call("HGETEX", "h", "FIELDS", "1", "a");
        Assert.Empty(recorder.Take());
        before = NowMs;
        c.Call("HGETEX", "h", "PX", "5000", "FIELDS", "2", "a", "zz");
        after = NowMs;
        line = Assert.Single(recorder.Take());
        m = Regex.Match(line, @"^0 HPEXPIREAT h (\d+) FIELDS 2 a zz$");
        Assert.True(m.Success, line);
        Assert.InRange(long.Parse(m.Groups[1].Value), before + 5000, after + 5000);
        c.Call("HGETEX", "h", "PERSIST", "FIELDS", "1", "a");
        Assert.Equal(["0 HPERSIST h FIELDS 1 a"], recorder.Take());
        // HSETEX: EX becomes PXAT; PXAT and no time go as sent; a past time as its HDELs.
        before = NowMs;
        c.Call("HSETEX", "h", "FNX", "EX", "10", "FIELDS", "1", "d", "4");
        after = NowMs;
        line = Assert.Single(recorder.Take());
        m = Regex.Match(line, @"^0 HSETEX h FNX PXAT (\d+) FIELDS 1 d 4$");
        Assert.True(m.Success, line);
        Assert.InRange(long.Parse(m.Groups[1].Value), before + 10_000, after + 10_000);
        c.Call("HSETEX", "h", "KEEPTTL", "FIELDS", "1", "d", "5");
        Assert.Equal(["0 HSETEX h KEEPTTL FIELDS 1 d 5"], recorder.Take());
        c.Call("HSETEX", "h", "PX", "0", "FIELDS", "1", "e", "6");
        Assert.Equal(["0 HDEL h e"], recorder.Take());
        // HINCRBYFLOAT on a field with a TTL keeps it on the replica too.
        c.Call("HINCRBYFLOAT", "h", "d", "1.5");
        Assert.Equal(["0 HSETEX h KEEPTTL FIELDS 1 d 6.5"], recorder.Take());
        c.Call("HINCRBYFLOAT", "h", "b", "1");
        Assert.Equal(["0 HSETEX h KEEPTTL FIELDS 1 b 3"], recorder.Take());
        c.Call("HINCRBYFLOAT", "h", "a", "1");
        Assert.Equal(["0 HSET h a 2"], recorder.Take());
        // HGETDEL: HDEL with the fields as named.
        c.Call("HGETDEL", "h", "FIELDS", "2", "a", "nope");
        Assert.Equal(["0 HDEL h a nope"], recorder.Take());
        // A field found expired by a read: its HDEL (and the hash's DEL is implied by its last HDEL).
        c.Call("HPEXPIRE", "h", "1", "FIELDS", "1", "d");
        recorder.Take();
        Eventually.Wait(() => c.Call("HPTTL", "h", "FIELDS", "1", "d") == "*1\r\n:-2\r\n", () => "d expires");
        Assert.Equal("$-1\r\n", c.Call("HGET", "h", "d"));
        Assert.Equal(["0 HDEL h d"], recorder.Take());
    }

    [Fact]
    public async Task Propagation_ActiveExpiry_HDelPerField()
    {
        await using var server = TestServer.Start(1);
        var recorder = new PropagationRecorder();
        server.Server.PropagationListener = recorder;
        using var c = server.Connect();
        c.Call("HSET", "h", "a", "1", "b", "2", "c", "3");
        c.Call("HPEXPIRE", "h", "50", "FIELDS", "2", "a", "b");
        recorder.Take();
        Eventually.Wait(() => c.Call("HLEN", "h") == ":1\r\n", () => "active expiry");
        Assert.Equal(["0 HDEL h a", "0 HDEL h b"], recorder.Take().Order());
    }

    [Fact]
    public async Task KeyspaceEvents_EachCommand_AsRedis82()
    {
        await using var server = TestServer.Start(2, "--enable-debug-command", "yes");
        using var admin = server.Connect();
        admin.Call("DEBUG", "SET-ACTIVE-EXPIRE", "0");
        string[][] script =
        [
            ["HSET", "h", "a", "1", "b", "2", "c", "3"],
            ["HEXPIRE", "h", "100", "FIELDS", "1", "a"],
            ["HEXPIRE", "h", "100", "NX", "FIELDS", "1", "a"],
            ["HPERSIST", "h", "FIELDS", "1", "a"],
            ["HEXPIRE", "h", "0", "FIELDS", "1", "a"],
            ["HGETEX", "h", "EX", "100", "FIELDS", "1", "b"],
            ["HGETEX", "h", "PERSIST", "FIELDS", "1", "b"],
            ["HSETEX", "h", "EX", "100", "FIELDS", "1", "d", "4"],
            ["HSETEX", "h", "FIELDS", "1", "e", "5"],
            ["HGETDEL", "h", "FIELDS", "1", "e"],
            ["HGETDEL", "h", "FIELDS", "3", "b", "c", "d"],
        ];
        var events = KeyspaceEvents.Collect(server.Connect, "Kh", script, db: 0);
        Assert.Equal(
        [
            "pmessage __key*@0__:* __keyspace@0__:h hset",
            "pmessage __key*@0__:* __keyspace@0__:h hexpire",
            "pmessage __key*@0__:* __keyspace@0__:h hpersist",
            "pmessage __key*@0__:* __keyspace@0__:h hdel",
            "pmessage __key*@0__:* __keyspace@0__:h hexpire",
            "pmessage __key*@0__:* __keyspace@0__:h hpersist",
            "pmessage __key*@0__:* __keyspace@0__:h hset",
            "pmessage __key*@0__:* __keyspace@0__:h hexpire",
            "pmessage __key*@0__:* __keyspace@0__:h hset",
            "pmessage __key*@0__:* __keyspace@0__:h hdel",
            "pmessage __key*@0__:* __keyspace@0__:h hdel",
        ], events.Select(e => Regex.Replace(e, @"^\*4 \$8 pmessage \$\d+ (\S+) \$\d+ (\S+) \$\d+ (\S+) $", "pmessage $1 $2 $3")));

        // Lazy expiry by a read: hexpired, then del with the last field.
        string[][] lazy =
        [
            ["HSET", "g", "a", "1"],
            ["HPEXPIRE", "g", "1", "FIELDS", "1", "a"],
            ["DEBUG", "SLEEP", "0.05"],
            ["HGET", "g", "a"],
        ];
        events = KeyspaceEvents.Collect(server.Connect, "Kgh", lazy, db: 0);
        var names = events.Select(e => e.Split(' ')[^2]).ToList();
        Assert.Equal(["hset", "hexpire", "hexpired", "del"], names);
    }

    [Fact]
    public async Task Replica_GetsFieldTtlsAsAbsoluteTimes_AndExpiresOnMastersHDel()
    {
        await using var master = TestServer.Start(2, "--repl-diskless-sync-delay", "0");
        await using var replica = TestServer.Start(2);
        using var m = master.Connect();
        using var r = replica.Connect();
        m.Call("HSET", "h", "a", "1", "b", "2", "c", "3");
        m.Call("HPEXPIREAT", "h", (NowMs + 900_000).ToString(), "FIELDS", "1", "a");
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", master.Port.ToString()));
        Eventually.Wait(() => ReplicaOfRedisTests.Info(r, "master_link_status", "replication") == "up", () => r.Call("INFO", "replication"), 20);
        m.Call("HEXPIRE", "h", "300", "FIELDS", "1", "b");
        m.Call("HSET", "sync", "x", "1");
        Eventually.Wait(() => r.Call("EXISTS", "sync") == ":1\r\n", () => "replica caught up", 20);
        Assert.Equal(m.Call("HPEXPIRETIME", "h", "FIELDS", "2", "b", "c"), r.Call("HPEXPIRETIME", "h", "FIELDS", "2", "b", "c"));
        // The master's fields expire and its HDELs reach the replica; the key goes with the last.
        m.Call("HPEXPIRE", "h", "100", "FIELDS", "3", "a", "b", "c");
        Eventually.Wait(() => r.Call("EXISTS", "h") == ":0\r\n", () => $"replica still has h: {r.Call("HLEN", "h")}", 20);
        Assert.Equal(":0\r\n", m.Call("EXISTS", "h"));
        // A replica refuses the writes.
        Assert.StartsWith("-READONLY", r.Call("HEXPIRE", "sync", "10", "FIELDS", "1", "x"));
    }
}
