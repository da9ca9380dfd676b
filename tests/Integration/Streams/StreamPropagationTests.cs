using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// What XADD and XTRIM propagate, against redis-server's replication stream: generated IDs in
/// place of "*" and "ms-*", approximate trimming rewritten as the exact trim it did.
/// </summary>
public class StreamPropagationTests
{
    [RedisFact]
    public void XAddXTrim_PropagateAsRedis()
    {
        var script = new List<string[]>
        {
            new[] { "XADD", "s", "5-1", "a", "1" },
            new[] { "XADD", "s", "5-*", "a", "2" },
            new[] { "XADD", "s", "6", "a", "3" },
            new[] { "xadd", "s", "maxlen", "=", "10", "7-*", "a", "4" },
            new[] { "XADD", "s", "MAXLEN", "1", "8-1", "a", "5" },
            new[] { "XADD", "s", "NOMKSTREAM", "9-1", "a", "6" },
            new[] { "XADD", "nokey", "NOMKSTREAM", "9-1", "a", "6" },
            new[] { "XTRIM", "s", "MAXLEN", "5" },
            new[] { "XDEL", "s", "1-1" },
            new[] { "XDEL", "s", "8-1" },
        };
        for (int i = 1; i <= 250; i++) script.Add(["XADD", "t", "MAXLEN", "~", "120", $"{i}-*", "f", "v"]);
        script.Add(["XTRIM", "t", "MAXLEN", "~", "10"]);
        script.Add(["XTRIM", "t", "MAXLEN", "~", "500"]);
        for (int i = 1; i <= 150; i++) script.Add(["XADD", "m", "MINID", "~", "60", "LIMIT", "100", $"{i}-0", "f", "v"]);
        script.Add(["XTRIM", "m", "MINID", "~", "140", "LIMIT", "100"]);
        script.Add(["XDEL", "m", "101-0"]);
        script.Add(["XTRIM", "m", "MINID", "=", "102"]);
        PropagationDifferential.AssertSame(script.ToArray());
    }

    /// <summary>The approximate trims with LIMIT of the script below, and what they must leave.</summary>
    private static void TrimWithLimit(RespClient c)
    {
        for (int i = 1; i <= 300; i++) c.Call("XADD", "s", $"{i}-0", "f", "v");
        c.Call("XADD", "s", "MINID", "~", "250", "LIMIT", "100", "301-0", "f", "v");
        Assert.Equal(":100\r\n", c.Call("XTRIM", "s", "MAXLEN", "~", "10", "LIMIT", "100"));
        Assert.Equal(":101\r\n", c.Call("XLEN", "s"));
    }

    private static string? ReplicationInfo(RespClient c, string field)
    {
        var m = System.Text.RegularExpressions.Regex.Match(c.Call("INFO", "replication"), $"(?m)^{field}:([^\r]*)\r$");
        return m.Success ? m.Groups[1].Value : null;
    }

    /// <summary>
    /// "~" with LIMIT propagates as "=" with the threshold reached and the LIMIT still there; a
    /// replica of this server applies it without LIMIT's "~" check (Redis's mustObeyClient), where
    /// it used to refuse it and keep entries its master had trimmed.
    /// </summary>
    [Fact]
    public async Task TrimWithLimit_ReplicaOfThisServer_TrimsTheSameEntries()
    {
        string[] args = ["--repl-diskless-sync-delay", "0"];
        await using var master = TestServer.Start(2, args);
        await using var replica = TestServer.Start(2, args);
        using var m = master.Connect();
        using var r = replica.Connect();
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", master.Port.ToString()));
        Eventually.Wait(() => ReplicationInfo(r, "master_link_status") == "up", () => r.Call("INFO", "replication"), 25);
        TrimWithLimit(m);
        Eventually.Wait(() => ReplicationInfo(m, "master_repl_offset") is { } o && o == ReplicationInfo(r, "slave_repl_offset"),
            () => "the replica in sync", 25);
        Assert.Equal(":101\r\n", r.Call("XLEN", "s"));
        Assert.Equal(m.Call("XRANGE", "s", "-", "+"), r.Call("XRANGE", "s", "-", "+"));
    }

    /// <summary>The same trims replayed from the AOF at start.</summary>
    [Fact]
    public async Task TrimWithLimit_AofRestart_TrimsTheSameEntries()
    {
        string dir = Persistence.RdbFileTests.NewDir();
        string before;
        await using (var server = TestServer.Start(2, "--dir", dir, "--appendonly", "yes"))
        {
            using var c = server.Connect();
            TrimWithLimit(c);
            before = c.Call("XRANGE", "s", "-", "+");
        }
        await using (var server = TestServer.Start(2, "--dir", dir, "--appendonly", "yes"))
        {
            using var c = server.Connect();
            Assert.Equal(":101\r\n", c.Call("XLEN", "s"));
            Assert.Equal(before, c.Call("XRANGE", "s", "-", "+"));
        }
    }

    [Fact]
    public void XAdd_AutoId_PropagatesTheGeneratedId()
    {
        var propagated = PropagationDifferential.Propagated("XADD s * a 1", "XADD s NOMKSTREAM * a 2");
        Assert.All(propagated, line => Assert.DoesNotContain(" * ", line));
        Assert.Equal(2, propagated.Count(line => line.Contains("XADD", StringComparison.Ordinal)));
    }

    /// <summary>
    /// Consumer groups propagate as Redis 7.2 does: XGROUP as sent when it changed something; XACK as
    /// sent when it acknowledged something; XCLAIM and XAUTOCLAIM as one idempotent XCLAIM per
    /// pending entry claimed or dropped (TIME, RETRYCOUNT, FORCE, JUSTID, LASTID; the ID as the
    /// client wrote it for XCLAIM), and XCLAIM LASTID that claims nothing as XGROUP SETID with
    /// ENTRIESREAD. Delivery times are the servers' clocks, compared as "&lt;ms&gt;" unless given.
    /// </summary>
    [RedisFact]
    public void GroupCommands_PropagateAsRedis() => PropagationDifferential.AssertSame(
        "XADD s 1-0 f v", "XADD s 2-0 f v", "XADD s 3-0 f v", "XADD s 4-0 f v",
        "XGROUP CREATE s g 0", "XGROUP CREATE s g 0", "XGROUP CREATE n g $ MKSTREAM", "XGROUP SETID s g 0 ENTRIESREAD 0",
        "XGROUP CREATECONSUMER s g c", "XGROUP CREATECONSUMER s g c",
        "XCLAIM s g c 0 1 2-0 FORCE TIME 1000", "XCLAIM s g d 0 1-0 JUSTID RETRYCOUNT 5 IDLE 3600000",
        "XCLAIM s g d 3600000 2-0 JUSTID", "XCLAIM s g d 0 3-0 FORCE", "XCLAIM s g d 0 9-0 FORCE",
        "XCLAIM s g d 0 LASTID 3-0", "XCLAIM s g d 0 LASTID 1-0", "XCLAIM s g d 0 4-0 FORCE LASTID 100-0 TIME 5000",
        "XDEL s 2-0", "XCLAIM s g d 0 2-0 JUSTID",
        "XDEL s 3-0", "XAUTOCLAIM s g e 0 0 COUNT 2 JUSTID", "XAUTOCLAIM s g e 3600000 0",
        "XACK s g 99-0", "XACK s g 1-0 4-0", "XPENDING s g",
        "XGROUP DELCONSUMER s g c", "XGROUP DELCONSUMER s g zz", "XGROUP DESTROY s g", "XGROUP DESTROY s g");

    /// <summary>
    /// Reads, claims and acknowledgements on a master, whose replica must end with the same groups:
    /// read counters (nil on the replica before, as XGROUP CREATE ... $ leaves it and the XCLAIMs'
    /// LASTID never set it), lags, last IDs, pending lists with their delivery times and counts, and
    /// the consumers made by reads and claims that delivered them nothing (missing on the replica).
    /// </summary>
    private static readonly string[] GroupScript =
    [
        "XADD s 1-0 f v", "XADD s 2-0 f v",
        "XGROUP CREATE s g $", "XGROUP CREATE s h 0",
        "XADD s 3-0 f v", "XADD s 4-0 f v", "XADD s 5-0 f v", "XADD s 6-0 f v",
        "XREADGROUP GROUP g alice COUNT 1 STREAMS s >",
        "XREADGROUP GROUP g alice COUNT 2 STREAMS s >",
        "XREADGROUP GROUP g bob NOACK STREAMS s >",
        "XREADGROUP GROUP h carol STREAMS s >",
        "XREADGROUP GROUP g alice STREAMS s 0",
        "XREADGROUP GROUP g alice COUNT 1 STREAMS s 3-0",
        "XCLAIM s h dave 0 2-0 3-0",
        "XCLAIM s h dave 0 4-0 JUSTID",
        "XCLAIM s h dave 0 5-0 RETRYCOUNT 7 TIME 1000 LASTID 5-0",
        "XDEL s 1-0",
        "XAUTOCLAIM s h erin 0 0 COUNT 3",
        "XAUTOCLAIM s h erin 0 0 COUNT 1 JUSTID",
        "XACK s h 4-0", "XACK s g 3-0",
        "XADD s 7-0 f v", "XADD s 8-0 f v",
        "XREADGROUP GROUP h carol COUNT 1 STREAMS s >",
        "XGROUP SETID s g 6-0",
        "XREADGROUP GROUP g alice STREAMS s >",
        "XGROUP CREATE s k 0 ENTRIESREAD 0",
        "XREADGROUP GROUP k zed NOACK COUNT 2 STREAMS s >",
        "XDEL s 7-0",
        "XREADGROUP GROUP k zed STREAMS s >",
        "XREADGROUP GROUP k idle STREAMS s >",
        "XREADGROUP GROUP k historian STREAMS s 0",
        "XCLAIM s h ghost 0 99-0",
        "XAUTOCLAIM s g nobody 3600000 0",
    ];

    /// <summary>
    /// XINFO GROUPS and XINFO STREAM FULL with each consumer's seen-time and active-time (its
    /// server's clock) taken out; with <paramref name="activeTime"/> false, as redis-server 7.0
    /// writes them, without active-time (a Redis 7.2 field).
    /// </summary>
    private static string GroupState(RespClient c, bool activeTime = true)
    {
        string full = c.Call("XINFO", "STREAM", "s", "FULL");
        full = System.Text.RegularExpressions.Regex.Replace(full, @"\$9\r\nseen-time\r\n:-?\d+\r\n", "$$9\r\nseen-time\r\n:<ms>\r\n");
        if (activeTime)
            full = System.Text.RegularExpressions.Regex.Replace(full, @"\$11\r\nactive-time\r\n:-?\d+\r\n", "$$11\r\nactive-time\r\n:<ms>\r\n");
        else
            full = System.Text.RegularExpressions.Regex.Replace(full,
                @"\*10\r\n(\$4\r\nname\r\n\$\d+\r\n[^\r]*\r\n\$9\r\nseen-time\r\n:<ms>\r\n)\$11\r\nactive-time\r\n:-?\d+\r\n",
                "*8\r\n$1");
        return c.Call("XINFO", "GROUPS", "s") + "\n" + full;
    }

    private static void WaitReplicated(RespClient master, RespClient replica)
        => Eventually.Wait(() => ReplicationInfo(replica, "master_link_status") == "up"
                && ReplicationInfo(master, "master_repl_offset") is { } o && o == ReplicationInfo(replica, "slave_repl_offset"),
            () => "the replica in sync: " + replica.Call("INFO", "replication"), 25);

    private static void RunGroupScript(RespClient m)
    {
        foreach (var line in GroupScript)
        {
            string reply = m.Call(Differential.SplitLine(line));
            Assert.False(reply.StartsWith('-'), line + " answered " + reply);
        }
    }

    /// <summary>
    /// A replica of this server keeps each group's read counter, lag, last ID and pending entries
    /// (times and delivery counts) equal to its master's: XREADGROUP propagates XGROUP SETID ...
    /// ENTRIESREAD after its XCLAIMs (Redis 7.4; 7.2 only under NOACK, and its replica showed nil),
    /// a history read propagates the new delivery counts, and a consumer made without anything
    /// delivered to it goes as XGROUP CREATECONSUMER.
    /// </summary>
    [Fact]
    public async Task GroupReads_ReplicaOfThisServer_SameGroupState()
    {
        string[] args = ["--repl-diskless-sync-delay", "0"];
        await using var master = TestServer.Start(2, args);
        await using var replica = TestServer.Start(2, args);
        using var m = master.Connect();
        using var r = replica.Connect();
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", master.Port.ToString()));
        Eventually.Wait(() => ReplicationInfo(r, "master_link_status") == "up", () => r.Call("INFO", "replication"), 25);
        RunGroupScript(m);
        WaitReplicated(m, r);
        string expected = GroupState(m);
        Assert.Contains("$12\r\nentries-read\r\n:", expected);
        Assert.Equal(expected, GroupState(r));
    }

    /// <summary>The same replayed from the AOF at start: what the AOF holds is what replicas get.</summary>
    [Fact]
    public async Task GroupReads_AofRestart_SameGroupState()
    {
        string dir = Persistence.RdbFileTests.NewDir();
        string before;
        await using (var server = TestServer.Start(2, "--dir", dir, "--appendonly", "yes"))
        {
            using var c = server.Connect();
            RunGroupScript(c);
            before = GroupState(c);
        }
        await using (var server = TestServer.Start(2, "--dir", dir, "--appendonly", "yes"))
        {
            using var c = server.Connect();
            Assert.Equal(before, GroupState(c));
        }
    }

    /// <summary>The same with redis-server 7.0 as the replica of this server.</summary>
    [RedisFact]
    public async Task GroupReads_RedisReplicaOfThisServer_SameGroupState()
    {
        await using var master = TestServer.Start(2, "--repl-diskless-sync-delay", "0");
        string dir = Directory.CreateTempSubdirectory("redisclone-entries-replica-").FullName;
        try
        {
            using (var replica = ReferenceRedis.StartOrNull($"--dir {dir} --replicaof 127.0.0.1 {master.Port}")
                                 ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage))
            {
                using var m = master.Connect();
                using var r = replica.Connect();
                Eventually.Wait(() => ReplicationInfo(r, "master_link_status") == "up", () => r.Call("INFO", "replication"), 25);
                RunGroupScript(m);
                WaitReplicated(m, r);
                Assert.Equal(GroupState(m, activeTime: false), GroupState(r, activeTime: false));
            }
        }
        finally
        {
            for (int i = 0; i < 50 && Directory.Exists(dir); i++)
            {
                try { Directory.Delete(dir, recursive: true); }
                catch (IOException) { Thread.Sleep(100); }
            }
        }
    }
}
