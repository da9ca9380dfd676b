using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// XREAD against redis-server, byte for byte, in RESP2 and RESP3: every option and its errors in
/// xreadCommand's order, several streams, deleted entries, "$" without BLOCK, BLOCK that times out
/// in one connection, MULTI (never blocks) and scripts (BLOCK refused), key positions.
/// </summary>
public class StreamReadDifferentialTests
{
    private static readonly string[] XReadScript =
    [
        "XADD s 1-1 a 1 b 2",
        "XADD s 2-1 a 10",
        "XADD s 3-0 c x",
        "XADD t 5-5 f v",
        "SET str x",
        "XREAD STREAMS s 0",
        "XREAD STREAMS s 1-1",
        "XREAD STREAMS s 1",
        "XREAD STREAMS s 2-0",
        "XREAD STREAMS s 3-0",
        "XREAD STREAMS s 18446744073709551615-18446744073709551615",
        "XREAD COUNT 2 STREAMS s 0",
        "XREAD COUNT 1 STREAMS s t 0 0",
        "XREAD STREAMS s t 2 5-4",
        "XREAD STREAMS s t 3 5-5",
        "XREAD STREAMS t s 0-0 0-0",
        "XREAD STREAMS s s 0 2",
        "XREAD STREAMS missing s 0 2",
        "XREAD STREAMS missing 0",
        "XREAD STREAMS s $",
        "XREAD STREAMS missing $",
        "XREAD COUNT 0 STREAMS s 0",
        "XREAD COUNT -5 STREAMS s 0",
        "XREAD count 1 count 2 STREAMS s 0",
        "XREAD COUNT x STREAMS s 0",
        "XREAD COUNT 9223372036854775808 STREAMS s 0",
        "xread streams s 2",
        "XREAD BLOCK 10 STREAMS s 0",
        "XREAD BLOCK 0 COUNT 1 STREAMS s 0",
        "XREAD BLOCK x STREAMS s 0",
        "XREAD BLOCK -1 STREAMS s 0",
        "XREAD BLOCK 1.5 STREAMS s 0",
        "XREAD BLOCK 9223372036854775808 STREAMS s 0",
        "XREAD BLOCK 10 STREAMS missing $",
        "XREAD BLOCK 10 STREAMS s $",
        "XREAD BLOCK 5 STREAMS s t 3 5-5",
        "XREAD STREAMS s >",
        "XREAD STREAMS s t > 0",
        "XREAD STREAMS s -",
        // "XREAD STREAMS s +" is Redis 7.4's last-entry ID (7.0: an invalid ID): see StreamReadLastEntryTests.
        "XREAD STREAMS s abc",
        "XREAD STREAMS s 1-x",
        "XREAD STREAMS s 1-2-3",
        "XREAD STREAMS s (1",
        "XREAD COUNT 1 STREAMS",
        "XREAD COUNT 1 s 0",
        "XREAD FOO STREAMS s 0",
        "XREAD COUNT",
        "XREAD COUNT 1 BLOCK",
        "XREAD GROUP g c STREAMS s 0",
        "XREAD GROUP g STREAMS s",
        "XREAD NOACK STREAMS s 0",
        "XREAD STREAMS str 0",
        "XREAD STREAMS s str 0 0",
        "XREAD STREAMS s str bad 0",
        "XREAD STREAMS str s 0 bad",
        "XREAD STREAMS s str 0 >",
        "XREAD STREAMS STREAMS s 0 0",
        "XADD s 4-0 d y",
        "XDEL s 4-0",
        "XREAD STREAMS s 3",
        "XREAD STREAMS s $",
        "XADD s 5-0 e z",
        "XREAD STREAMS s 3",
        "XDEL s 1-1 2-1 3-0 5-0",
        "XLEN s",
        "XREAD STREAMS s 0",
        "XADD big 1-0 f 1",
        "XADD big 2-0 f 2 g 3",
        "XADD big 3-0 f -7 g 123456789012",
        "XREAD COUNT 2 STREAMS big 1",
        "XREAD STREAMS big t 0 0",
        "COMMAND GETKEYS XREAD COUNT 1 BLOCK 2 STREAMS a b c 0 0 0",
        "COMMAND GETKEYS XREAD STREAMS a 0",
        "COMMAND GETKEYS XREAD STREAMS a b 0",
        "COMMAND GETKEYS XREAD COUNT 1 a 0",
        "COMMAND GETKEYSANDFLAGS XREAD STREAMS a b 0 0",
        "COMMAND INFO xread",
        "PING",
    ];

    [RedisFact]
    public void XRead_OptionsRepliesAndErrors_MatchRedis() => Differential.AssertSame(XReadScript);

    [RedisFact]
    public void XRead_OptionsRepliesAndErrorsResp3_MatchRedis()
        => Differential.AssertSameResp3(XReadScript.Select(Differential.SplitLine).ToArray());

    [RedisFact]
    public void XRead_InMultiAndScripts_MatchRedis() => Differential.AssertSame(
        ["XADD", "s", "1-1", "a", "1"],
        ["MULTI"],
        ["XREAD", "BLOCK", "0", "STREAMS", "s", "$"],
        ["XREAD", "BLOCK", "0", "STREAMS", "missing", "0"],
        ["XREAD", "BLOCK", "0", "STREAMS", "s", "0"],
        ["XREAD", "STREAMS", "s", "$"],
        ["XREAD", "BLOCK", "-1", "STREAMS", "s", "$"],
        ["EXEC"],
        ["EVAL", "return redis.call('XREAD', 'STREAMS', KEYS[1], '0')", "1", "s"],
        ["EVAL", "return redis.call('XREAD', 'COUNT', '5', 'STREAMS', KEYS[1], '$')", "1", "s"],
        ["EVAL", "return redis.pcall('xread', 'BLOCK', '0', 'STREAMS', KEYS[1], '$')", "1", "s"],
        ["EVAL", "return redis.pcall('XREAD', 'BLOCK', '0', 'STREAMS', KEYS[1], '0')", "1", "s"],
        ["EVAL", "return redis.pcall('XREAD', 'BLOCK', 'x', 'STREAMS', KEYS[1], '0')", "1", "s"],
        ["EVAL", "return redis.pcall('XREAD', 'COUNT', 'x', 'BLOCK', '0', 'STREAMS', KEYS[1], '0')", "1", "s"],
        ["EVAL", "return redis.call('XREAD', 'BLOCK', '0', 'STREAMS', KEYS[1], '0')", "1", "s"],
        ["PING"]);

    /// <summary>
    /// Where Redis 7.2 differs from the reference 7.0: the unbalanced STREAMS text names the command
    /// as 'xread' / 'xreadgroup' (7.0: XREAD for both), and a BLOCK timeout that would overflow when
    /// added to the current time is refused (7.0 let it wrap). Checked against 7.2's texts.
    /// </summary>
    [Fact]
    public void XRead_UnbalancedAndHugeTimeout_RefusedAs72()
    {
        using var c = TestServer.Shared.Connect();
        string s = TestServer.KeyPrefix("xread72") + "s";
        Assert.Equal("-ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be specified.\r\n",
            c.Call("XREAD", "STREAMS", s, "t", "0"));
        Assert.Equal("-ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be specified.\r\n",
            c.Call("XREAD", "COUNT", "1", "STREAMS", s, "t", "0", "0", "0"));
        Assert.Equal("-ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified.\r\n",
            c.Call("XREADGROUP", "GROUP", "g", "c", "STREAMS", s, "t", ">"));
        Assert.Equal("-ERR timeout is out of range\r\n", c.Call("XREAD", "BLOCK", "9223372036854775807", "STREAMS", s, "0"));
        Assert.Equal("-ERR timeout is out of range\r\n", c.Call("XREAD", "BLOCK", "9223372036854775000", "STREAMS", s, "0"));
        // Far off, yet representable: a wait that outlives any timer (stepped), ended here by data.
        c.Call("XADD", s, "1-1", "f", "v");
        Assert.Equal($"*1\r\n*2\r\n${s.Length}\r\n{s}\r\n*1\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n",
            c.Call("XREAD", "BLOCK", "9000000000000000000", "STREAMS", s, "0"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    /// <summary>Redis 7.2's COMMAND DOCS names XREADGROUP's GROUP block "group-block" (7.0: group_consumer).</summary>
    [Fact]
    public void CommandDocs_XReadGroupGroupBlock_Is72s()
    {
        using var c = TestServer.Shared.Connect();
        string docs = c.Call("COMMAND", "DOCS", "xreadgroup");
        Assert.Contains("$4\r\nname\r\n$11\r\ngroup-block\r\n$4\r\ntype\r\n$5\r\nblock\r\n$5\r\ntoken\r\n$5\r\nGROUP\r\n", docs);
        Assert.DoesNotContain("group_consumer", docs);
    }

    /// <summary>Odd bytes in keys and values come back as they went in; keys that span shards are read in one reply.</summary>
    [RedisFact]
    public void XRead_ManyKeysAcrossShards_MatchRedis()
    {
        var script = new List<string[]>();
        var keys = Enumerable.Range(0, 40).Select(i => $"k{i}").ToArray();
        for (int i = 0; i < keys.Length; i++)
            if (i % 3 != 0) script.Add(["XADD", keys[i], $"{i + 1}-0", "f", $"v{i}", "n", $"{i * 7}"]);
        script.Add(["XREAD", "STREAMS", .. keys, .. keys.Select(_ => "0")]);
        script.Add(["XREAD", "COUNT", "1", "STREAMS", .. keys, .. keys.Select((_, i) => $"{i}")]);
        script.Add(["XREAD", "STREAMS", .. keys, .. keys.Select(_ => "$")]);
        script.Add(["XREAD", "BLOCK", "5", "STREAMS", .. keys, .. keys.Select(_ => "$")]);
        Differential.AssertSame(script.ToArray());
    }
}
