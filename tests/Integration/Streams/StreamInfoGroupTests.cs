using System.Text;
using RedisClone.Tests.CommandInfo;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// XINFO GROUPS, XINFO CONSUMERS and XINFO STREAM FULL with consumer groups, against redis-server in
/// RESP2 and RESP3. Group state is built without XREADGROUP: XGROUP CREATE (with and without
/// ENTRIESREAD), XGROUP SETID, XGROUP CREATECONSUMER, and XCLAIM ... FORCE with TIME and RETRYCOUNT,
/// which makes pending entries whose delivery time and count are the test's own.
/// </summary>
/// <remarks>
/// <para>Consumer times come from each server's clock, so seen-time, idle (and the delivery time of
/// an entry claimed without TIME) are masked before comparing; <see cref="XInfo_Times_AreSane"/>
/// checks them against the test's clock instead.</para>
/// <para>The reference is Redis 7.0.15, which lacks 7.2's active-time (XINFO STREAM FULL's
/// consumers) and inactive (XINFO CONSUMERS): those pairs are left out of the comparison, and
/// <see cref="XInfo_FieldNames_In72Order"/> pins that ours has them, where 7.2 puts them.</para>
/// </remarks>
public class StreamInfoGroupTests
{
    /// <summary>How a reply is compared: as it is, or with its times masked as one of these replies.</summary>
    private enum Shape { Exact, Groups, Consumers, Stream }

    private static readonly (string Command, Shape Shape)[] Script =
    [
        ("XADD s 1-1 a 1", Shape.Exact),
        ("XADD s 2-1 b 2", Shape.Exact),
        ("XADD s 3-1 c 3", Shape.Exact),
        ("XADD s 4-1 d 4", Shape.Exact),
        ("XINFO GROUPS s", Shape.Exact),
        ("XGROUP CREATE s g1 0", Shape.Exact),
        ("XGROUP CREATE s g2 $", Shape.Exact),
        ("XGROUP CREATE s g3 2-1", Shape.Exact),
        ("XGROUP CREATE s g4 0 ENTRIESREAD 2", Shape.Exact),
        ("XGROUP CREATE s G0 1-1", Shape.Exact),
        ("XGROUP CREATE s g10 4-1", Shape.Exact),
        ("XINFO GROUPS s", Shape.Exact),
        ("XINFO STREAM s", Shape.Exact),
        ("XCLAIM s g1 alice 0 1-1 TIME 1000 RETRYCOUNT 2 FORCE JUSTID", Shape.Exact),
        ("XCLAIM s g1 bob 0 2-1 3-1 TIME 2000 RETRYCOUNT 5 FORCE JUSTID", Shape.Exact),
        ("XCLAIM s g1 alice 0 4-1 TIME 3000 RETRYCOUNT 1 FORCE JUSTID", Shape.Exact),
        ("XCLAIM s g3 zed 0 2-1 TIME 4000 RETRYCOUNT 0 FORCE JUSTID", Shape.Exact),
        ("XGROUP CREATECONSUMER s g1 carol", Shape.Exact),
        ("XGROUP CREATECONSUMER s g1 Alice", Shape.Exact),
        ("XINFO GROUPS s", Shape.Groups),
        ("XINFO CONSUMERS s g1", Shape.Consumers),
        ("XINFO CONSUMERS s g3", Shape.Consumers),
        ("XINFO CONSUMERS s g2", Shape.Consumers),
        ("XINFO CONSUMERS s nope", Shape.Exact),
        ("XINFO STREAM s", Shape.Exact),
        ("XINFO STREAM s FULL", Shape.Stream),
        ("XINFO STREAM s FULL COUNT 1", Shape.Stream),
        ("XINFO STREAM s FULL COUNT 2", Shape.Stream),
        ("XINFO STREAM s FULL COUNT 0", Shape.Stream),
        ("XINFO STREAM s FULL COUNT -7", Shape.Stream),
        // A deletion after a group's last ID makes its read counter unusable for the lag.
        ("XDEL s 3-1", Shape.Exact),
        ("XINFO GROUPS s", Shape.Groups),
        ("XINFO STREAM s FULL", Shape.Stream),
        ("XGROUP SETID s g1 4-1", Shape.Exact),
        ("XGROUP SETID s g2 0 ENTRIESREAD 0", Shape.Exact),
        ("XINFO GROUPS s", Shape.Groups),
        ("XACK s g1 1-1 2-1", Shape.Exact),
        ("XINFO CONSUMERS s g1", Shape.Consumers),
        ("XINFO STREAM s FULL", Shape.Stream),
        ("XADD s 5-1 e 5", Shape.Exact),
        ("XINFO GROUPS s", Shape.Groups),
        ("XDEL s 1-1", Shape.Exact),
        ("XINFO GROUPS s", Shape.Groups),
        ("XTRIM s MAXLEN 0", Shape.Exact),
        ("XINFO GROUPS s", Shape.Groups),
        ("XINFO STREAM s FULL", Shape.Stream),
        ("XGROUP DESTROY s g4", Shape.Exact),
        ("XINFO STREAM s", Shape.Exact),
        // A stream nothing was ever added to: lag 0.
        ("XGROUP CREATE e g $ MKSTREAM", Shape.Exact),
        ("XINFO GROUPS e", Shape.Exact),
        ("XINFO STREAM e FULL", Shape.Exact),
        ("XGROUP CREATE e h 5-0", Shape.Exact),
        ("XINFO GROUPS e", Shape.Exact),
        // Entries added, none left: any ID up to the last has read them all.
        ("XADD f MAXLEN 0 7-1 x 1", Shape.Exact),
        ("XGROUP CREATE f g 3-0", Shape.Exact),
        ("XGROUP CREATE f h 0 ENTRIESREAD 9", Shape.Exact),
        ("XINFO GROUPS f", Shape.Exact),
        ("XINFO STREAM f FULL", Shape.Exact),
        ("XINFO CONSUMERS s g1 extra", Shape.Exact),
        ("XINFO CONSUMERS missing g1", Shape.Exact),
        ("PING", Shape.Exact),
    ];

    [RedisTheory]
    [InlineData(2)]
    [InlineData(3)]
    public void XInfo_WithGroupsAndPending_MatchRedisTimesMasked(int protocol) => AssertSameMasked(protocol, Script);

    /// <summary>
    /// Many groups and consumers (names in memcmp order: upper case, digits, prefixes, bytes above
    /// 127) and long pending lists cut by COUNT in XINFO STREAM FULL.
    /// </summary>
    [RedisTheory]
    [InlineData(2)]
    [InlineData(3)]
    public void XInfo_ManyGroupsConsumersAndPending_MatchRedisTimesMasked(int protocol)
    {
        var script = new List<(string, Shape)>();
        for (int i = 1; i <= 40; i++) script.Add(($"XADD s {i}-0 f {i}", Shape.Exact));
        string[] names = ["b", "a", "ab", "A", "1", "a1", "é", "zz", "_", "aa"];
        foreach (var g in names) script.Add(($"XGROUP CREATE s {g} 0", Shape.Exact));
        for (int i = 1; i <= 40; i++)
        {
            string consumer = names[i % names.Length];
            string group = names[i % 3];
            script.Add(($"XCLAIM s {group} {consumer} 0 {i}-0 TIME {i * 10} RETRYCOUNT {i % 4} FORCE JUSTID", Shape.Exact));
        }
        script.Add(("XINFO GROUPS s", Shape.Groups));
        foreach (var g in names) script.Add(($"XINFO CONSUMERS s {g}", Shape.Consumers));
        script.Add(("XINFO STREAM s", Shape.Exact));
        script.Add(("XINFO STREAM s FULL", Shape.Stream));
        script.Add(("XINFO STREAM s FULL COUNT 3", Shape.Stream));
        script.Add(("XINFO STREAM s FULL COUNT 0", Shape.Stream));
        AssertSameMasked(protocol, script.ToArray());
    }

    private static void AssertSameMasked(int protocol, (string Command, Shape Shape)[] script)
    {
        var reference = ReferenceRedis.Shared ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        var server = TestServer.Shared;
        string prefix = TestServer.KeyPrefix("xinfo-groups");
        using var theirs = reference.Connect();
        using var ours = server.Connect();
        foreach (var c in new[] { theirs, ours })
        {
            if (protocol == 3) c.Call("HELLO", "3");
        }
        var failures = new StringBuilder();
        foreach (var (line, shape) in script)
        {
            // Keys are the second word of every command here except XGROUP's (the third) and XINFO's (the third).
            var cmd = Differential.SplitLine(line);
            int keyIndex = cmd[0] is "XGROUP" or "XINFO" ? 2 : 1;
            if (cmd.Length > keyIndex) cmd[keyIndex] = prefix + cmd[keyIndex];
            string expected = Masked(theirs.Call(cmd).Replace(prefix, ""), shape);
            string actual = Masked(ours.Call(cmd).Replace(prefix, ""), shape);
            if (expected != actual)
                failures.AppendLine($"{line}\n  redis:      {Differential.Show(expected)}\n  redisclone: {Differential.Show(actual)}");
        }
        Assert.True(failures.Length == 0, "replies differ from redis-server:\n" + failures);
    }

    /// <summary>7.2's fields that 7.0 has not; left out of the comparison (their place is pinned separately).</summary>
    private static readonly HashSet<string> Only72 = ["active-time", "inactive"];

    /// <summary>The reply with its clock-dependent parts replaced by "&lt;time&gt;" and 7.2-only pairs left out.</summary>
    private static string Masked(string raw, Shape shape)
    {
        if (shape == Shape.Exact || raw.StartsWith('-')) return raw;
        var tree = RespTree.Parse(raw);
        return shape switch
        {
            Shape.Groups => List(tree, g => Map(g, "group")),
            Shape.Consumers => List(tree, c => Map(c, "consumer")),
            _ => Map(tree, "stream"),
        };
    }

    private static string List(RespTree node, Func<RespTree, string> item)
        => node.Type + "[" + string.Join(",", node.Children.Select(item)) + "]";

    private static string Map(RespTree node, string role)
    {
        var parts = new List<string>();
        foreach (var (key, value) in node.Pairs())
        {
            if (Only72.Contains(key)) continue;
            string shown = (role, key) switch
            {
                ("consumer", "seen-time" or "idle") => value.Type + "<time>",
                ("consumer", "pending") when value.Children.Count > 0 || value.Type != ':' => List(value, e => Positional(e, 1)),
                ("group", "pending") when value.Type != ':' => List(value, e => Positional(e, 2)),
                ("group", "consumers") => List(value, c => Map(c, "consumer")),
                ("stream", "groups") when value.Type != ':' => List(value, g => Map(g, "group")),
                _ => value.Raw,
            };
            parts.Add(key + "=" + shown);
        }
        return node.Type + "{" + string.Join(",", parts) + "}";
    }

    /// <summary>A pending entry's array with its delivery time (at <paramref name="timeAt"/>) masked only when the time is not the test's (TIME given: below 10^9).</summary>
    private static string Positional(RespTree entry, int timeAt)
        => entry.Type + "[" + string.Join(",", entry.Children.Select((c, i) =>
            i == timeAt && long.Parse(c.Text!) > 1_000_000_000 ? c.Type + "<time>" : c.Raw)) + "]";

    /// <summary>
    /// Ours only: the 7.2 field lists, in 7.2's order — XINFO CONSUMERS (name, pending, idle,
    /// inactive), and in XINFO STREAM FULL each group (name, last-delivered-id, entries-read, lag,
    /// pel-count, pending, consumers) and consumer (name, seen-time, active-time, pel-count, pending).
    /// </summary>
    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public void XInfo_FieldNames_In72Order(int protocol)
    {
        using var c = TestServer.Shared.Connect();
        if (protocol == 3) c.Call("HELLO", "3");
        string key = TestServer.KeyPrefix("xinfo-order") + "s";
        c.Call("XADD", key, "1-1", "f", "v");
        c.Call("XGROUP", "CREATE", key, "g", "0");
        c.Call("XCLAIM", key, "g", "alice", "0", "1-1", "FORCE", "JUSTID");
        char map = protocol == 3 ? '%' : '*';

        var consumers = RespTree.Parse(c.Call("XINFO", "CONSUMERS", key, "g"));
        Assert.Equal(map, consumers.Children[0].Type);
        Assert.Equal(["name", "pending", "idle", "inactive"], consumers.Children[0].Pairs().Select(p => p.Key));

        var groups = RespTree.Parse(c.Call("XINFO", "GROUPS", key));
        Assert.Equal(["name", "consumers", "pending", "last-delivered-id", "entries-read", "lag"], groups.Children[0].Pairs().Select(p => p.Key));

        var full = RespTree.Parse(c.Call("XINFO", "STREAM", key, "FULL"));
        Assert.Equal(map, full.Type);
        Assert.Equal(["length", "radix-tree-keys", "radix-tree-nodes", "last-generated-id", "max-deleted-entry-id", "entries-added",
            "recorded-first-entry-id", "entries", "groups"], full.Pairs().Select(p => p.Key));
        var group = full.Pairs().Single(p => p.Key == "groups").Value.Children[0];
        Assert.Equal(map, group.Type);
        Assert.Equal(["name", "last-delivered-id", "entries-read", "lag", "pel-count", "pending", "consumers"], group.Pairs().Select(p => p.Key));
        var consumer = group.Pairs().Single(p => p.Key == "consumers").Value.Children[0];
        Assert.Equal(map, consumer.Type);
        Assert.Equal(["name", "seen-time", "active-time", "pel-count", "pending"], consumer.Pairs().Select(p => p.Key));
    }

    /// <summary>
    /// Ours only, against the test's clock: a claim stamps the entry's delivery time and the
    /// consumer's seen-time and active-time with the command's time; XINFO CONSUMERS' idle and
    /// inactive count from those; a consumer created by XGROUP CREATECONSUMER was seen at creation
    /// and never active (active-time and inactive -1).
    /// </summary>
    [Fact]
    public void XInfo_Times_AreSane()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xinfo-times") + "s";
        c.Call("XADD", key, "1-1", "f", "v");
        c.Call("XGROUP", "CREATE", key, "g", "0");
        long before = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        c.Call("XCLAIM", key, "g", "alice", "0", "1-1", "FORCE", "JUSTID");
        c.Call("XGROUP", "CREATECONSUMER", key, "g", "bob");
        long after = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        Thread.Sleep(30);

        var full = RespTree.Parse(c.Call("XINFO", "STREAM", key, "FULL")).Pairs().ToDictionary(p => p.Key, p => p.Value);
        var group = full["groups"].Children[0].Pairs().ToDictionary(p => p.Key, p => p.Value);
        long delivered = long.Parse(group["pending"].Children[0].Children[2].Text!);
        Assert.InRange(delivered, before, after);
        var alice = Times(group["consumers"].Children[0]);
        var bob = Times(group["consumers"].Children[1]);
        Assert.InRange(alice["seen-time"], before, after);
        Assert.InRange(alice["active-time"], before, after);
        Assert.InRange(bob["seen-time"], before, after);
        Assert.Equal(-1, bob["active-time"]);

        long asked = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        var consumers = RespTree.Parse(c.Call("XINFO", "CONSUMERS", key, "g")).Children
            .Select(m => m.Pairs().ToDictionary(p => p.Key, p => p.Value.Text!)).ToList();
        long answered = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        Assert.Equal(["alice", "bob"], consumers.Select(m => m["name"]));
        Assert.InRange(long.Parse(consumers[0]["idle"]), asked - after, answered - before);
        Assert.InRange(long.Parse(consumers[0]["inactive"]), asked - after, answered - before);
        Assert.InRange(long.Parse(consumers[1]["idle"]), asked - after, answered - before);
        Assert.Equal("-1", consumers[1]["inactive"]);
    }

    private static Dictionary<string, long> Times(RespTree consumer)
        => consumer.Pairs().Where(p => p.Key.EndsWith("-time")).ToDictionary(p => p.Key, p => long.Parse(p.Value.Text!));
}
