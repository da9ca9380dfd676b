using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// Consumer groups against redis-server, byte for byte, in RESP2 and RESP3: XGROUP's subcommands,
/// XACK, XPENDING, XCLAIM and XAUTOCLAIM with every option and error, and the group's bookkeeping
/// after claims. Pending entries are made with XCLAIM FORCE (XREADGROUP is another change).
/// </summary>
/// <remarks>
/// Idle times depend on the clock, so they are made deterministic: entries are claimed with TIME in
/// the distant past ("old") or now ("new"), min-idle-times are 0 or an hour, and XPENDING's
/// extended form is read through a script that replaces each idle time with "old" or "new" (the
/// script runs the same on both servers). Redis 7.2 creates XCLAIM's and XAUTOCLAIM's consumer
/// even when nothing is claimed (7.0 only on a claim): the scripts here only name new consumers in
/// claims that claim something; that difference is tested on its own.
/// </remarks>
public class StreamGroupDifferentialTests
{
    /// <summary>EVAL this with the key and XPENDING's arguments after the group: the extended form with idle times bucketed.</summary>
    private const string PendingScript =
        "local r = redis.call('XPENDING', KEYS[1], unpack(ARGV)) "
        + "for _, e in ipairs(r) do e[3] = (e[3] >= 1000000) and 'old' or 'new' end return r";

    private static string[] Pending(string key, params string[] args) => ["EVAL", PendingScript, "1", key, .. args];

    private static readonly string[][] XGroupScript =
    [
        .. new[]
        {
            "XGROUP CREATE s g $", "XGROUP CREATE s g $ MKSTREAM", "TYPE s", "XLEN s", "XGROUP CREATE s g $",
            "XGROUP CREATE s g2 0 MKSTREAM", "XADD s 1-1 a 1", "XADD s 2-1 b 2", "XGROUP CREATE s g3 1-1 ENTRIESREAD 1",
            "XGROUP CREATE s g4 -", "XGROUP CREATE s g4 +", "XGROUP CREATE s g4 abc", "XGROUP CREATE s g4 1-2-3",
            "XGROUP CREATE s g4 0 ENTRIESREAD -2", "XGROUP CREATE s g4 0 ENTRIESREAD x", "XGROUP CREATE s g4 0 ENTRIESREAD -1",
            "XGROUP CREATE s g5 0 ENTRIESREAD", "XGROUP CREATE s g5 0 FOO", "XGROUP CREATE s g5 0 MKSTREAM MKSTREAM MKSTREAM MKSTREAM",
            "XGROUP CREATE s g5 0 MKSTREAM ENTRIESREAD 3", "XGROUP CREATE s g6 5", "XGROUP CREATE s g7 18446744073709551615-18446744073709551615",
            "XGROUP CREATE s", "XGROUP CREATE s g", "xgroup create s g8 $", "XGROUP create s g8 $",
            "XGROUP SETID s g 5-0", "XGROUP SETID s g -", "XGROUP SETID s g +", "XGROUP SETID s g 7", "XGROUP SETID s g $ ENTRIESREAD 2",
            "XGROUP SETID s g $ ENTRIESREAD -1", "XGROUP SETID s g $ ENTRIESREAD -5", "XGROUP SETID s g $ MKSTREAM",
            "XGROUP SETID s g $ ENTRIESREAD", "XGROUP SETID s nogroup $", "XGROUP SETID missing g $", "XGROUP SETID s g bad",
            "XGROUP SETID s g 1 ENTRIESREAD 5 ENTRIESREAD 6", "XGROUP SETID s g (1", "XGROUP SETID s",
            "XGROUP CREATECONSUMER s g alice", "XGROUP CREATECONSUMER s g alice", "XGROUP CREATECONSUMER s g Alice",
            "XGROUP CREATECONSUMER s nog alice", "XGROUP CREATECONSUMER missing g alice", "XGROUP CREATECONSUMER s g",
            "XGROUP CREATECONSUMER s g a b", "XGROUP CREATECONSUMER s g a MKSTREAM",
            "XGROUP DELCONSUMER s g alice", "XGROUP DELCONSUMER s g alice", "XGROUP DELCONSUMER s nog alice",
            "XGROUP DELCONSUMER missing g alice", "XGROUP DELCONSUMER s g",
            "XGROUP DESTROY s g2", "XGROUP DESTROY s g2", "XGROUP DESTROY missing g", "XGROUP DESTROY s g2 extra", "XGROUP DESTROY s",
            "XPENDING s g2", "XPENDING s g", "XPENDING s g3",
            "XGROUP FOO", "XGROUP FOO s g", "XGROUP", "XGROUP HELP extra",
            "SET str x", "XGROUP CREATE str g $", "XGROUP CREATE str g $ ENTRIESREAD x", "XGROUP CREATE str g $ MKSTREAM",
            "XGROUP SETID str g $", "XGROUP DESTROY str g", "XGROUP CREATE fresh g 0 FOO MKSTREAM", "EXISTS fresh",
            "XGROUP CREATE fresh g 0 MKSTREAM ENTRIESREAD -3", "EXISTS fresh",
        }.Select(Differential.SplitLine),
        // Names with CR, LF or NUL: Redis's errors stop at the NUL and turn CR and LF into spaces.
        ["XGROUP", "SETID", "s", "a\r\nb", "$"],
        ["XGROUP", "SETID", "s", "a\0b", "$"],
        ["XGROUP", "DELCONSUMER", "k\nx", "g", "c"],
        ["XGROUP", "CREATECONSUMER", "s", "g\r", "c"],
        ["XGROUP", "CREATE", "s", "", "0"],
        ["XGROUP", "CREATECONSUMER", "s", "", ""],
        ["XGROUP", "CREATECONSUMER", "s", "", ""],
        ["PING"],
    ];

    [RedisFact]
    public void XGroup_SubcommandsAndErrors_MatchRedis() => Differential.AssertSame(XGroupScript);

    [RedisFact]
    public void XGroup_SubcommandsAndErrorsResp3_MatchRedis() => Differential.AssertSameResp3(XGroupScript);

    /// <summary>A stream with entries 1 to 6, a group at 0, and pending entries made by XCLAIM FORCE.</summary>
    private static readonly string[] Setup =
    [
        "XADD s 1-0 f v1", "XADD s 2-0 f v2", "XADD s 3-0 f v3 g w3", "XADD s 4-0 f v4", "XADD s 5-0 f v5", "XADD s 6-0 f v6",
        "XGROUP CREATE s g 0",
        "XCLAIM s g alice 0 1-0 2-0 FORCE JUSTID",
        "XCLAIM s g bob 0 3-0 FORCE",
        "XCLAIM s g bob 0 4-0 FORCE RETRYCOUNT 7 TIME 1000",
        "XCLAIM s g carol 0 5-0 FORCE IDLE 5000000 JUSTID",
    ];

    private static readonly string[][] PendingScriptLines =
    [
        .. Setup.Concat(new[]
        {
            "XPENDING s g", "XPENDING s g - + 0", "XPENDING s g - + -5",
            "XPENDING s nog", "XPENDING missing g", "XPENDING missing g - + 10", "XPENDING s g - + x", "XPENDING s g x + 10",
            "XPENDING s g - x 10", "XPENDING s g (18446744073709551615-18446744073709551615 + 10",
            "XPENDING s g - (0-0 10", "XPENDING s g - +", "XPENDING s g - + 10 alice extra extra extra",
            "XPENDING s g IDLE x - + 10", "XPENDING s g IDLE 10 - +", "XPENDING s g IDLE 10 - + x", "XPENDING s g IDLE 10 bad + 10",
            "XPENDING s g - + 10 nobody", "XPENDING s g 9 + 10", "XPENDING s", "XPENDING s g a",
            "SET str x", "XPENDING str g", "XPENDING str g - + x",
        }).Select(Differential.SplitLine),
        Pending("s", "g", "-", "+", "10"),
        Pending("s", "g", "-", "+", "2"),
        Pending("s", "g", "(1-0", "(4-0", "10"),
        Pending("s", "g", "2", "4", "10", "bob"),
        Pending("s", "g", "-", "+", "10", "alice", "ignored"),
        Pending("s", "g", "IDLE", "3600000", "-", "+", "10"),
        Pending("s", "g", "IDLE", "3600000", "-", "+", "1"),
        Pending("s", "g", "IDLE", "3600000", "-", "+", "10", "bob"),
        Pending("s", "g", "idle", "0", "-", "+", "10"),
        Pending("s", "g", "IDLE", "-5", "-", "+", "10"),
    ];

    [RedisFact]
    public void XPending_SummaryRangesAndErrors_MatchRedis() => Differential.AssertSame(PendingScriptLines);

    [RedisFact]
    public void XPending_SummaryRangesAndErrorsResp3_MatchRedis() => Differential.AssertSameResp3(PendingScriptLines);

    private static readonly string[][] ClaimScript =
    [
        .. Setup.Concat(new[]
        {
            // Only the old entries (4-0, 5-0) pass an hour's min-idle-time.
            "XCLAIM s g dave 3600000 1-0 2-0 3-0 4-0 5-0 JUSTID",
            "XPENDING s g",
            "XCLAIM s g alice 0 4-0",
            "XCLAIM s g alice 0 4-0 5-0 RETRYCOUNT 0",
            "XCLAIM s g alice 0 4-0 JUSTID RETRYCOUNT 3",
            "XCLAIM s g alice 0 4-0 JUSTID",
            "XCLAIM s g alice -100 4-0 4-0 JUSTID",
            "XCLAIM s g bob 0 9-0 FORCE",
            "XCLAIM s g bob 0 6-0",
            "XCLAIM s g bob 0 6-0 FORCE TIME 99999999999999999",
            "XCLAIM s g bob 0 6-0 IDLE -5 RETRYCOUNT 2",
            "XDEL s 2-0 3-0",
            // Pending entries whose stream entry is gone are dropped, with or without FORCE.
            "XCLAIM s g bob 0 2-0 3-0 1-0 FORCE",
            "XPENDING s g",
            "XCLAIM s g bob 0 2-0 FORCE",
            "XCLAIM s g bob 0 LASTID 100-0",
            "XCLAIM s g bob 0 JUSTID LASTID 1-0",
            "XCLAIM s g bob 0 1-0 FORCE JUSTID FORCE JUSTID",
            "XCLAIM s g bob 0 1 JUSTID",
            "XCLAIM s g bob 0 1-0 1-0 JUSTID",
            "XPENDING s g",
            "XACK s g 1-0 4-0 99-0 1-0",
            "XACK s g 5-0 bad",
            "XACK s g 5-0 -",
            "XACK s g 5-0 +",
            "XPENDING s g",
            "XACK missing g bad",
            "XACK s nog bad",
            "XACK s g",
            "XCLAIM missing g c x 1-0",
            "XCLAIM s nog c x 1-0",
            "XCLAIM s g bob x 1-0",
            "XCLAIM s g bob 0 1-0 IDLE x",
            "XCLAIM s g bob 0 1-0 TIME x",
            "XCLAIM s g bob 0 1-0 RETRYCOUNT x",
            "XCLAIM s g bob 0 1-0 LASTID bad",
            "XCLAIM s g bob 0 1-0 LASTID -",
            "XCLAIM s g bob 0 1-0 FOO",
            "XCLAIM s g bob 0 1-0 IDLE",
            "XCLAIM s g bob 0 1-0 FORCE 2-0",
            "XCLAIM s g bob 0 FORCE 1-0",
            "XCLAIM s g bob 0 1-0 FORCE RETRYCOUNT 1 IDLE x",
            "XCLAIM s g bob",
            "XPENDING s g",
            "SET str x", "XCLAIM str g c x 1-0", "XACK str g bad",
        }).Select(Differential.SplitLine),
        ["XCLAIM", "s", "g", "bob", "0", "1-0", "f\r\noo"],
        ["XCLAIM", "s", "g\r\n", "bob", "0", "1-0"],
        ["XCLAIM", "k\0z", "g", "bob", "0", "1-0"],
        Pending("s", "g", "-", "+", "10"),
        ["PING"],
    ];

    [RedisFact]
    public void XClaimXAck_OptionsBookkeepingAndErrors_MatchRedis() => Differential.AssertSame(ClaimScript);

    [RedisFact]
    public void XClaimXAck_OptionsBookkeepingAndErrorsResp3_MatchRedis() => Differential.AssertSameResp3(ClaimScript);

    private static readonly string[][] AutoClaimScript =
    [
        .. Setup.Concat(new[]
        {
            "XAUTOCLAIM s g dave 0 0 COUNT 1",
            "XAUTOCLAIM s g dave 0 2-0 COUNT 2 JUSTID",
            "XAUTOCLAIM s g dave 3600000 0",
            "XAUTOCLAIM s g erin 3600000 0 JUSTID",
            "XPENDING s g",
            "XDEL s 1-0 3-0",
            // Deleted entries are dropped from the PEL, reported in the third element, and count.
            "XAUTOCLAIM s g bob 0 0 COUNT 1",
            "XAUTOCLAIM s g bob 0 0 COUNT 1",
            "XAUTOCLAIM s g bob 0 0",
            "XPENDING s g",
            "XAUTOCLAIM s g bob 0 (2-0",
            "XAUTOCLAIM s g bob 0 +",
            "XAUTOCLAIM s g bob 0 -",
            "XAUTOCLAIM s g bob 0 99",
            "XAUTOCLAIM s g bob 0 0 count 2 justid",
            "XAUTOCLAIM s g bob -7 0 COUNT 1",
            "XAUTOCLAIM s g bob 0 0 COUNT 1 COUNT 3",
            "XAUTOCLAIM s g bob x 0",
            "XAUTOCLAIM missing g bob x 0",
            "XAUTOCLAIM s g bob 0 bad",
            "XAUTOCLAIM missing g bob 0 bad",
            "XAUTOCLAIM s g bob 0 (18446744073709551615-18446744073709551615",
            "XAUTOCLAIM s g bob 0 0 COUNT 0",
            "XAUTOCLAIM s g bob 0 0 COUNT -1",
            "XAUTOCLAIM s g bob 0 0 COUNT x",
            "XAUTOCLAIM s g bob 0 0 COUNT 576460752303423488",
            "XAUTOCLAIM s g bob 0 0 COUNT 576460752303423487",
            "XAUTOCLAIM missing g bob 0 0 COUNT 576460752303423487",
            "XAUTOCLAIM s g bob 0 0 COUNT",
            "XAUTOCLAIM s g bob 0 0 FOO",
            "XAUTOCLAIM missing g bob 0 0 FOO",
            "XAUTOCLAIM missing g bob 0 0",
            "XAUTOCLAIM s nog bob 0 0",
            "XAUTOCLAIM s g bob 0",
            "SET str x", "XAUTOCLAIM str g bob 0 0", "XAUTOCLAIM str g bob 0 0 FOO",
        }).Select(Differential.SplitLine),
        Pending("s", "g", "-", "+", "10"),
        ["XAUTOCLAIM", "k\r\n", "g", "bob", "0", "0"],
        ["PING"],
    ];

    [RedisFact]
    public void XAutoClaim_CursorCountDeletedAndErrors_MatchRedis() => Differential.AssertSame(AutoClaimScript);

    [RedisFact]
    public void XAutoClaim_CursorCountDeletedAndErrorsResp3_MatchRedis() => Differential.AssertSameResp3(AutoClaimScript);

    /// <summary>
    /// COUNT's work bound: at most ten times COUNT pending entries are looked at, so with nothing
    /// idle enough the cursor stops after 10 entries of 30 (then 20, then the end: 0-0).
    /// </summary>
    [RedisFact]
    public void XAutoClaim_AttemptsBound_StopsWhereRedisStops()
    {
        var script = new List<string[]>();
        for (int i = 1; i <= 30; i++) script.Add(["XADD", "s", $"{i}-0", "f", "v"]);
        script.Add(["XGROUP", "CREATE", "s", "g", "0"]);
        for (int i = 1; i <= 30; i++) script.Add(["XCLAIM", "s", "g", i % 2 == 0 ? "even" : "odd", "0", $"{i}-0", "FORCE", "JUSTID"]);
        // 12-0 and 25-0 are old: claimable under an hour's min-idle-time.
        script.Add(["XCLAIM", "s", "g", "odd", "0", "12-0", "25-0", "TIME", "1000", "JUSTID"]);
        script.Add(["XAUTOCLAIM", "s", "g", "even", "3600000", "0", "COUNT", "1", "JUSTID"]);
        script.Add(["XAUTOCLAIM", "s", "g", "even", "3600000", "13", "COUNT", "1", "JUSTID"]);
        script.Add(["XAUTOCLAIM", "s", "g", "even", "3600000", "23-0", "COUNT", "1"]);
        script.Add(["XAUTOCLAIM", "s", "g", "even", "3600000", "26-0", "COUNT", "1"]);
        script.Add(["XAUTOCLAIM", "s", "g", "even", "3600000", "0", "COUNT", "2"]);
        script.Add(["XDEL", "s", "3-0", "4-0", "5-0"]);
        script.Add(["XAUTOCLAIM", "s", "g", "even", "3600000", "0", "COUNT", "2"]);
        script.Add(["XPENDING", "s", "g"]);
        Differential.AssertSame(script.ToArray());
    }

    /// <summary>None of these writes breaks a WATCH in Redis, except XGROUP CREATE MKSTREAM making the key.</summary>
    [RedisFact]
    public void GroupWrites_DoNotBreakWatch_AsRedis()
    {
        var script = new List<string> { "XADD s 1-0 f v", "XADD s 2-0 f v", "XGROUP CREATE s g0 0" };
        foreach (var write in new[]
                 {
                     "XGROUP CREATE s g 0", "XGROUP SETID s g 1-0", "XGROUP CREATECONSUMER s g c", "XCLAIM s g c 0 1-0 2-0 FORCE JUSTID",
                     "XAUTOCLAIM s g d 0 0 JUSTID", "XACK s g 1-0", "XPENDING s g", "XGROUP DELCONSUMER s g c", "XGROUP DESTROY s g",
                     "XGROUP CREATE s g 0 MKSTREAM", "XGROUP CREATE t g 0 MKSTREAM", "XADD s 3-0 f v",
                 })
        {
            script.AddRange(["WATCH s t", write, "MULTI", "PING", "EXEC"]);
        }
        Differential.AssertSame(script.ToArray());
    }

    [RedisFact]
    public void GroupCommands_FromScriptsAndTransactions_MatchRedis() => Differential.AssertSame(
        ["XADD", "s", "1-0", "f", "v"],
        ["EVAL", "return redis.call('XGROUP', 'CREATE', KEYS[1], 'g', '0')", "1", "s"],
        ["EVAL", "return redis.pcall('XGROUP', 'CREATE', KEYS[1], 'g', '0')", "1", "s"],
        ["EVAL", "return redis.call('XCLAIM', KEYS[1], 'g', 'c', '0', '1-0', 'FORCE')", "1", "s"],
        ["EVAL", "return redis.call('XPENDING', KEYS[1], 'g')", "1", "s"],
        ["EVAL", "return redis.call('XAUTOCLAIM', KEYS[1], 'g', 'c', '0', '0', 'JUSTID')", "1", "s"],
        ["MULTI"],
        ["XACK", "s", "g", "1-0"],
        ["XGROUP", "DESTROY", "s", "g"],
        ["XPENDING", "s", "g"],
        ["EXEC"],
        ["EVAL", "return #redis.call('XGROUP', 'HELP')", "0"]);

    /// <summary>COPY copies the groups with their consumers and pending entries; RENAME and MOVE keep them; DEL drops them.</summary>
    [RedisFact]
    public void KeyCommands_StreamWithGroups_MatchRedis() => Differential.AssertSame(
        [.. new[]
        {
            "XADD s 1-0 f v", "XADD s 2-0 f v", "XGROUP CREATE s g 0", "XGROUP CREATE s h $",
            "XCLAIM s g alice 0 1-0 2-0 FORCE JUSTID RETRYCOUNT 4", "DEBUG DIGEST-VALUE s",
            "COPY s c", "XPENDING c g", "XACK c g 1-0", "XPENDING c g", "XPENDING s g", "DEBUG DIGEST-VALUE c",
            "RENAME c r", "XPENDING r g", "XGROUP CREATE r h 0", "MOVE r 10", "SELECT 10", "XPENDING r g", "XGROUP DESTROY r h",
            "DEL r", "SELECT 9", "DEL s", "XADD s 1-0 f v", "XPENDING s g", "XGROUP CREATE s g 0",
        }.Select(Differential.SplitLine),
        ["EVAL", PendingScript, "1", "s", "g", "-", "+", "10"]]);

    /// <summary>XGROUP HELP: Redis's shape (17 simple strings), our own words.</summary>
    [RedisFact]
    public void XGroupHelp_SameLineCountAndSyntaxLinesAsRedis()
    {
        using var theirs = ReferenceRedis.Shared!.Connect();
        using var ours = TestServer.Shared.Connect();
        var redisLines = theirs.Call("XGROUP", "HELP").Split("\r\n");
        var ourLines = ours.Call("XGROUP", "HELP").Split("\r\n");
        Assert.Equal(redisLines.Length, ourLines.Length);
        Assert.Equal(redisLines[0], ourLines[0]);
        for (int i = 1; i < redisLines.Length; i++)
            if (redisLines[i].Length > 1 && redisLines[i][1] != ' ') Assert.Equal(redisLines[i], ourLines[i]);
    }
}
