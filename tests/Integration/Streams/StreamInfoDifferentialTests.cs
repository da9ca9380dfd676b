using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// XINFO STREAM, GROUPS, CONSUMERS and their errors against redis-server, byte for byte, in RESP2
/// and RESP3; radix-tree-keys and radix-tree-nodes after long mixed XADD, XDEL and XTRIM runs on
/// streams of many small nodes (private servers, as they change stream-node-max-entries).
/// </summary>
/// <remarks>
/// The reference is Redis 7.0.15. For XINFO STREAM without groups 7.0 and 7.2 answer alike
/// (recorded-first-entry-id is already in 7.0); what 7.2 added concerns consumers (active-time,
/// inactive) and is handled where consumers are compared.
/// </remarks>
public class StreamInfoDifferentialTests
{
    private static readonly string[] StreamScript =
    [
        "XADD s 1-1 a 1 b 2",
        "XADD s 1-2 a 3 b 4",
        "XADD s 2-0 c 5",
        "XADD s 3-7 a 6 b 7",
        "XINFO STREAM s",
        "XINFO stream s",
        "XINFO STREAM s FULL",
        "XINFO STREAM s full count 2",
        "XINFO STREAM s FULL COUNT 0",
        "XINFO STREAM s FULL COUNT -1",
        "XINFO STREAM s FULL COUNT 1",
        "XINFO STREAM s FULL COUNT x",
        "XINFO STREAM s FULL COUNT",
        "XINFO STREAM s FULL BAD",
        "XINFO STREAM s BAD",
        "XINFO STREAM s COUNT 5 FULL",
        "XINFO STREAM s FULL LIMIT 5",
        "XINFO STREAM s FULL COUNT 5 extra",
        "XDEL s 1-1",
        "XINFO STREAM s",
        "XDEL s 3-7",
        "XINFO STREAM s",
        "XSETID s 10-5 ENTRIESADDED 20 MAXDELETEDID 9-9",
        "XINFO STREAM s",
        "XDEL s 1-2 2-0",
        "XINFO STREAM s",
        "XINFO STREAM s FULL",
        "XADD s 11-1 z 9",
        "XINFO STREAM s",
        "XTRIM s MAXLEN 0",
        "XINFO STREAM s FULL",
        "XADD e MAXLEN 0 5-5 f v",
        "XINFO STREAM e",
        "XADD big 1-1 f 18446744073709551616 n -12",
        "XINFO STREAM big",
        "XINFO STREAM missing",
        "XINFO STREAM missing FULL COUNT x",
        "XINFO STREAM missing BAD",
        "SET str x",
        "XINFO STREAM str",
        "XINFO STREAM str BAD",
        "XINFO",
        "XINFO FOO",
        "XINFO FOO s",
        "XINFO STREAM",
        "XINFO HELP extra",
        "XINFO GROUPS s",
        "XINFO GROUPS s extra",
        "XINFO GROUPS missing",
        "XINFO GROUPS str",
        "XINFO GROUPS",
        "XINFO CONSUMERS s g",
        "XINFO CONSUMERS s",
        "XINFO CONSUMERS s g extra",
        "XINFO CONSUMERS missing g",
        "XINFO CONSUMERS str g",
        "COMMAND GETKEYS XINFO STREAM s FULL",
        "COMMAND GETKEYS XINFO CONSUMERS s g",
        "COMMAND GETKEYS XINFO GROUPS s",
        "COMMAND GETKEYS XINFO HELP",
        "COMMAND GETKEYSANDFLAGS XINFO STREAM s",
        "PING",
    ];

    /// <summary>NOGROUP prints the group and key as C strings (up to a NUL), and an error line cannot hold CR or LF.</summary>
    [RedisFact]
    public void XInfoConsumers_NoGroupWithOddNames_MatchRedis() => Differential.AssertSame(
        ["XADD", "k\r\nx", "1-1", "f", "v"],
        ["XINFO", "CONSUMERS", "k\r\nx", "g\nh"],
        ["XINFO", "CONSUMERS", "k\r\nx", "g\0tail"],
        ["XADD", "n\0ul", "1-1", "f", "v"],
        ["XINFO", "CONSUMERS", "n\0ul", "grp"],
        ["XINFO", "CONSUMERS", "n\0ul", ""]);

    [RedisFact]
    public void XInfoStream_FieldsOptionsAndErrors_MatchRedis() => Differential.AssertSame(StreamScript);

    [RedisFact]
    public void XInfoStream_FieldsOptionsAndErrorsResp3_MatchRedis()
        => Differential.AssertSameResp3(StreamScript.Select(Differential.SplitLine).ToArray());

    [RedisFact]
    public void XInfoStream_InScriptsAndTransactions_MatchRedis() => Differential.AssertSame(
        ["XADD", "s", "1-1", "a", "1"],
        ["EVAL", "return redis.call('XINFO', 'STREAM', KEYS[1])", "1", "s"],
        ["EVAL", "return redis.pcall('XINFO', 'STREAM', KEYS[1], 'FULL')", "1", "s"],
        ["EVAL", "return redis.pcall('XINFO', 'STREAM', KEYS[1])", "1", "nope"],
        ["MULTI"],
        ["XADD", "s", "2-1", "b", "2"],
        ["XINFO", "STREAM", "s"],
        ["XINFO", "STREAM", "s", "FULL", "COUNT", "1"],
        ["EXEC"],
        ["MULTI"],
        ["XINFO", "STREAM"],
        ["EXEC"]);

    /// <summary>
    /// Node counts after a long seeded run of XADD (IDs that step by 1, by a byte boundary or by
    /// much more, so the radix tree branches at many depths), XDEL (which drops a node when its
    /// last entry goes) and exact and approximate XTRIM, for several node sizes.
    /// </summary>
    [RedisTheory]
    [InlineData(1, 2, 11)]
    [InlineData(2, 2, 12)]
    [InlineData(3, 3, 13)]
    [InlineData(5, 2, 14)]
    [InlineData(100, 3, 15)]
    public void XInfoStream_RadixTreeAfterAddsDeletesAndTrims_MatchRedis(int nodeMaxEntries, int protocol, int seed)
        => Differential.AssertSameOnPrivateServers(protocol, NodeChurnScript(nodeMaxEntries, seed));

    private static string[][] NodeChurnScript(int nodeMaxEntries, int seed)
    {
        var random = new Random(seed);
        var script = new List<string[]> { new[] { "CONFIG", "SET", "stream-node-max-entries", nodeMaxEntries.ToString() } };
        ulong[] msSteps = [1, 1, 2, 255, 256, 65_536, 1UL << 24, 1UL << 33, 1UL << 50];
        ulong[] seqSteps = [1, 1, 1, 2, 255, 256, 70_000, 1UL << 40];
        for (int run = 0; run < 6; run++)
        {
            string key = $"s{run}";
            ulong ms = (ulong)random.Next(0, 3) * 255, seq = 0;
            var ids = new List<string>();
            int steps = random.Next(60, 400);
            for (int step = 0; step < steps; step++)
            {
                double r = random.NextDouble();
                if (r < 0.7 || ids.Count == 0)
                {
                    if (random.NextDouble() < 0.5) seq += seqSteps[random.Next(seqSteps.Length)];
                    else
                    {
                        ms += msSteps[random.Next(msSteps.Length)];
                        seq = (ulong)random.Next(0, 3) * 300;
                    }
                    string id = $"{ms}-{seq}";
                    ids.Add(id);
                    script.Add(["XADD", key, id, "f", step.ToString()]);
                }
                else if (r < 0.9)
                {
                    script.Add(["XDEL", key, ids[random.Next(ids.Count)], ids[random.Next(ids.Count)]]);
                }
                else if (r < 0.95)
                {
                    script.Add(["XTRIM", key, "MAXLEN", random.Next(2) == 0 ? "~" : "=", random.Next(0, 60).ToString()]);
                }
                else
                {
                    script.Add(["XTRIM", key, "MINID", random.Next(2) == 0 ? "~" : "=", ids[random.Next(ids.Count)]]);
                }
                if (step % 10 == 9) script.Add(["XINFO", "STREAM", key]);
            }
            script.Add(["XINFO", "STREAM", key, "FULL", "COUNT", "3"]);
        }
        return script.ToArray();
    }

    /// <summary>
    /// IDs as a clock makes them (milliseconds of today, a few entries per millisecond), one entry per
    /// node, 1,500 nodes, then every third entry deleted and the head trimmed exactly and approximately.
    /// </summary>
    [RedisFact]
    public void XInfoStream_RadixTreeWithClockLikeIds_MatchRedis()
    {
        var random = new Random(7);
        var script = new List<string[]> { new[] { "CONFIG", "SET", "stream-node-max-entries", "1" } };
        ulong ms = 1_732_750_000_000, seq = 0;
        var ids = new List<string>();
        for (int i = 0; i < 1500; i++)
        {
            ulong step = (ulong)random.Next(0, 40);
            ms += step;
            seq = step == 0 ? seq + 1 : 0;
            ids.Add($"{ms}-{seq}");
            script.Add(["XADD", "s", ids[^1], "f", "v"]);
        }
        script.Add(["XINFO", "STREAM", "s"]);
        for (int i = 0; i < ids.Count; i += 3) script.Add(["XDEL", "s", ids[i]]);
        script.Add(["XINFO", "STREAM", "s"]);
        script.Add(["XTRIM", "s", "MAXLEN", "1000"]);
        script.Add(["XINFO", "STREAM", "s"]);
        script.Add(["XTRIM", "s", "MAXLEN", "~", "600"]);
        script.Add(["XINFO", "STREAM", "s"]);
        Differential.AssertSameOnPrivateServers(2, script.ToArray());
    }

    /// <summary>One-entry nodes whose IDs differ in their first byte, their last byte, and everywhere between, up to the greatest ID.</summary>
    [RedisFact]
    public void XInfoStream_RadixTreeWithExtremeIds_MatchRedis()
    {
        string[] ids =
        [
            "0-1", "0-2", "0-256", "0-65536", "1-0", "255-0", "256-0", "65535-0", "4294967296-0", "72057594037927936-0",
            "9223372036854775808-0", "9223372036854775808-1", "18446744073709551615-0", "18446744073709551615-255",
            "18446744073709551615-18446744073709551615",
        ];
        var script = new List<string[]> { new[] { "CONFIG", "SET", "stream-node-max-entries", "1" } };
        foreach (var id in ids)
        {
            script.Add(["XADD", "s", id, "f", "v"]);
            script.Add(["XINFO", "STREAM", "s"]);
        }
        foreach (int i in new[] { 14, 0, 7, 13, 1, 3, 9, 12, 2, 4, 5, 6, 8, 10, 11 })
        {
            script.Add(["XDEL", "s", ids[i]]);
            script.Add(["XINFO", "STREAM", "s"]);
        }
        Differential.AssertSameOnPrivateServers(3, script.ToArray());
    }

    /// <summary>Nodes closed by stream-node-max-bytes (big values) rather than by entry count, then trimmed and deleted.</summary>
    [RedisFact]
    public void XInfoStream_RadixTreeWithByteLimitedNodes_MatchRedis()
    {
        var script = new List<string[]> { new[] { "CONFIG", "SET", "stream-node-max-bytes", "300" } };
        string big = new('v', 120);
        for (int i = 1; i <= 200; i++)
        {
            script.Add(["XADD", "s", $"{i * 37}-{i % 4}", "field", i % 3 == 0 ? big : "x"]);
            if (i % 25 == 0) script.Add(["XINFO", "STREAM", "s"]);
        }
        script.Add(["XTRIM", "s", "MAXLEN", "~", "120"]);
        script.Add(["XINFO", "STREAM", "s"]);
        for (int i = 100; i <= 160; i += 3) script.Add(["XDEL", "s", $"{i * 37}-{i % 4}"]);
        script.Add(["XINFO", "STREAM", "s"]);
        script.Add(["XTRIM", "s", "MINID", $"{150 * 37}"]);
        script.Add(["XINFO", "STREAM", "s"]);
        Differential.AssertSameOnPrivateServers(2, script.ToArray());
    }

    /// <summary>
    /// Redis 7.2's COMMAND DOCS, which 7.0 (the reference) has not: XINFO STREAM's options as the
    /// optional block "full-block" (a FULL token, then an optional COUNT), its 7.2.0 history entry,
    /// and XINFO CONSUMERS' 7.2.0 entry for "inactive".
    /// </summary>
    [Fact]
    public void CommandDocs_XInfo_As72()
    {
        using var c = TestServer.Shared.Connect();
        string stream = c.Call("COMMAND", "DOCS", "xinfo|stream");
        Assert.Contains("$4\r\nname\r\n$10\r\nfull-block\r\n$4\r\ntype\r\n$5\r\nblock\r\n$5\r\nflags\r\n*1\r\n+optional\r\n"
            + "$9\r\narguments\r\n*2\r\n*6\r\n$4\r\nname\r\n$4\r\nfull\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n$4\r\nFULL\r\n"
            + "*8\r\n$4\r\nname\r\n$5\r\ncount\r\n$4\r\ntype\r\n$7\r\ninteger\r\n$5\r\ntoken\r\n$5\r\nCOUNT\r\n$5\r\nflags\r\n*1\r\n+optional\r\n", stream);
        Assert.Contains("*2\r\n$5\r\n7.2.0\r\n", stream);
        Assert.Contains("*2\r\n$5\r\n7.2.0\r\n", c.Call("COMMAND", "DOCS", "xinfo|consumers"));
    }
}
