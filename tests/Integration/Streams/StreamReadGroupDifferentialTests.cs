using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// XREADGROUP against redis-server, byte for byte, in RESP2 and RESP3: "&gt;" delivering new
/// entries (pending unless NOACK), history reads from the consumer's pending entries (deleted
/// entries as [id, nil]), consumers created on the way, every option and error in xreadCommand's
/// order, MULTI and scripts; what it propagates (XCLAIM, XGROUP SETID, XGROUP CREATECONSUMER) and
/// the "xgroup-createconsumer" event.
/// </summary>
public class StreamReadGroupDifferentialTests(NotificationServers servers) : IClassFixture<NotificationServers>
{
    private static readonly string[] ReadGroupScript =
    [
        "XADD s 1-1 a 1",
        "XADD s 2-1 b 2",
        "XADD s 3-1 c 3",
        "SET str x",
        "XGROUP CREATE s g 0",
        "XREADGROUP GROUP g alice STREAMS s >",
        "XREADGROUP GROUP g alice STREAMS s >",
        "XREADGROUP GROUP g alice STREAMS s 0",
        "XREADGROUP GROUP g alice COUNT 2 STREAMS s 0",
        "XREADGROUP GROUP g alice STREAMS s 1-1",
        "XREADGROUP GROUP g alice STREAMS s 1",
        "XREADGROUP GROUP g alice STREAMS s 3-1",
        "XREADGROUP GROUP g bob STREAMS s 0",
        "XPENDING s g",
        "XADD s 4-1 d 4",
        "XADD s 5-1 e 5",
        "XADD s 6-1 f 6",
        "XREADGROUP GROUP g bob COUNT 1 STREAMS s >",
        "XREADGROUP GROUP g bob NOACK COUNT 1 STREAMS s >",
        "XREADGROUP GROUP g carol NOACK STREAMS s >",
        "XREADGROUP GROUP g carol STREAMS s 0",
        "XPENDING s g",
        "XDEL s 2-1",
        "XREADGROUP GROUP g alice STREAMS s 0",
        "XREADGROUP GROUP g alice COUNT 1 STREAMS s 1-1",
        "XACK s g 2-1",
        "XREADGROUP GROUP g alice STREAMS s 0",
        "XREADGROUP GROUP g alice STREAMS s 18446744073709551615-18446744073709551615",
        "XADD s 7-1 h 7",
        "XREADGROUP GROUP g alice STREAMS s 18446744073709551615-18446744073709551615",
        "XADD t 1-0 x 1",
        "XGROUP CREATE t g $",
        "XADD t 2-0 y 2",
        "XREADGROUP GROUP g dave STREAMS s t > >",
        "XADD s 8-1 i 8",
        "XREADGROUP GROUP g dave STREAMS t s > >",
        "XREADGROUP GROUP g dave STREAMS s t 0 >",
        "XREADGROUP GROUP g dave STREAMS s s > >",
        "XADD s 9-1 j 9",
        "XADD s 10-1 k 10",
        "XREADGROUP GROUP g dave COUNT 1 STREAMS s s > >",
        "XREADGROUP GROUP g dave STREAMS s s 0 8-1",
        "XGROUP SETID s g 3-1",
        "XREADGROUP GROUP g erin COUNT 2 STREAMS s >",
        "XPENDING s g",
        "XREADGROUP GROUP g alice STREAMS s 0",
        "XREADGROUP GROUP g erin STREAMS s 0",
        "XREADGROUP GROUP g alice BLOCK 10 STREAMS s >",
        "XREADGROUP GROUP g alice BLOCK 0 STREAMS s 0",
        "XADD s 11-1 l 11",
        "XADD s 12-1 m 12",
        "XREADGROUP GROUP g alice BLOCK 0 COUNT 1 STREAMS s >",
        "XREADGROUP GROUP g frank BLOCK 10 NOACK STREAMS s >",
        "XREADGROUP GROUP nogroup alice STREAMS s >",
        "XREADGROUP GROUP g alice STREAMS missing >",
        "XREADGROUP GROUP g alice STREAMS s missing > >",
        "XREADGROUP GROUP g alice STREAMS str >",
        "XREADGROUP GROUP g alice STREAMS s str 0 >",
        "XREADGROUP GROUP g alice STREAMS s $",
        "XREADGROUP GROUP g alice STREAMS s abc",
        "XREADGROUP GROUP g alice STREAMS s -",
        "XREADGROUP GROUP g alice STREAMS s t abc $",
        "XREADGROUP GROUP g alice STREAMS missing $",
        "XREADGROUP GROUP g alice BLOCK -1 STREAMS s >",
        "XREADGROUP GROUP g alice BLOCK x STREAMS s >",
        "XREADGROUP GROUP g alice COUNT x STREAMS s >",
        "XREADGROUP GROUP g alice FOO STREAMS s >",
        "XREADGROUP GROUP g STREAMS s >",
        "XREADGROUP COUNT 1 BLOCK 1 STREAMS s >",
        "XREADGROUP NOACK NOACK COUNT 1 STREAMS s >",
        "XREADGROUP GROUP g alice GROUP g bob STREAMS s 0",
        "XREADGROUP GROUP g alice COUNT 1 s >",
        "xreadgroup group g alice count -1 streams s 0",
        "XREADGROUP GROUP g Alice STREAMS s 0",
        "XPENDING s g",
        "COMMAND GETKEYS XREADGROUP GROUP g c COUNT 1 STREAMS a b > >",
        "COMMAND GETKEYS XREADGROUP GROUP STREAMS c STREAMS a >",
        "COMMAND GETKEYSANDFLAGS XREADGROUP GROUP g c STREAMS a 0",
        "COMMAND INFO xreadgroup",
        "PING",
    ];

    [RedisFact]
    public void XReadGroup_RepliesStateAndErrors_MatchRedis() => Differential.AssertSame(ReadGroupScript);

    [RedisFact]
    public void XReadGroup_RepliesStateAndErrorsResp3_MatchRedis()
        => Differential.AssertSameResp3(ReadGroupScript.Select(Differential.SplitLine).ToArray());

    [RedisFact]
    public void XReadGroup_InMultiAndScripts_MatchRedis() => Differential.AssertSame(
        ["XADD", "s", "1-1", "a", "1"],
        ["XGROUP", "CREATE", "s", "g", "$"],
        ["MULTI"],
        ["XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"],
        ["XADD", "s", "2-1", "b", "2"],
        ["XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"],
        ["XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"],
        ["XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", "0"],
        ["EXEC"],
        ["EVAL", "return redis.call('XREADGROUP', 'GROUP', 'g', 'd', 'STREAMS', KEYS[1], '0')", "1", "s"],
        ["XADD", "s", "3-1", "c", "3"],
        ["EVAL", "return redis.call('XREADGROUP', 'GROUP', 'g', 'd', 'STREAMS', KEYS[1], '>')", "1", "s"],
        ["EVAL", "return redis.pcall('XREADGROUP', 'GROUP', 'g', 'd', 'BLOCK', '0', 'STREAMS', KEYS[1], '>')", "1", "s"],
        ["EVAL", "return redis.pcall('XREADGROUP', 'GROUP', 'nope', 'd', 'STREAMS', KEYS[1], '>')", "1", "s"],
        ["XPENDING", "s", "g"],
        ["PING"]);

    /// <summary>A consumer created by XREADGROUP emits "xgroup-createconsumer" (only the first time), nothing else does.</summary>
    [RedisFact]
    public void XReadGroup_NewConsumer_EmitsCreateConsumerEvent()
        => KeyspaceEvents.AssertSame(servers, "KEA",
        [
            "XADD s 1-1 a 1", "XGROUP CREATE s g 0", "XREADGROUP GROUP g alice STREAMS s >", "XREADGROUP GROUP g alice STREAMS s >",
            "XREADGROUP GROUP g bob STREAMS s 0", "XADD s 2-1 b 2", "XREADGROUP GROUP g carol NOACK STREAMS s >", "XADD s 3-1 b 2",
            "XREADGROUP GROUP g carol NOACK STREAMS s >", "XREADGROUP GROUP nope dave STREAMS s >",
        ]);

    /// <summary>
    /// Redis 7.2 creates the consumer (and says so) even when the read finds nothing new (7.0, the
    /// reference server, created it only when it served something), and sets its seen time either way.
    /// </summary>
    [Fact]
    public void XReadGroup_NothingNew_StillCreatesConsumerAs72()
    {
        var events = KeyspaceEvents.Collect(servers.Ours.Connect, "KEA",
            [["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"], ["XREADGROUP", "GROUP", "g", "erin", "STREAMS", "s", ">"],
             ["XREADGROUP", "GROUP", "g", "erin", "NOACK", "STREAMS", "s", ">"],
             ["XREADGROUP", "GROUP", "g", "frank", "BLOCK", "1", "STREAMS", "s", ">"]], db: 12);
        Assert.Equal(2, events.Count(e => e.Contains("xgroup-createconsumer", StringComparison.Ordinal) && e.Contains("__keyspace@12__:s", StringComparison.Ordinal)));
    }

    /// <summary>
    /// What XREADGROUP propagates, against redis-server's replication stream: an XCLAIM per entry
    /// delivered (carrying the group's last ID), XGROUP SETID ... ENTRIESREAD after a NOACK read that
    /// moved the group, XGROUP CREATECONSUMER for a consumer a NOACK read created; nothing for a read
    /// that found nothing. Where we send more on purpose: XGROUP SETID ... ENTRIESREAD after the
    /// XCLAIMs of any read that moved the group (Redis 7.4, redis/redis#12898; 7.0 and 7.2 leave the
    /// replica's read counter behind), an XCLAIM per entry a history read delivered again (Redis
    /// leaves the replica's delivery counts behind), and XGROUP CREATECONSUMER for a consumer a read
    /// without NOACK made but delivered nothing to (Redis's replica lacks it).
    /// </summary>
    [RedisFact]
    public void XReadGroup_PropagatesAsRedis() => PropagationDifferential.AssertSameEach(
        [
            "XADD s 1-1 a 1", "XADD s 2-1 b 2", "XGROUP CREATE s g 0",
            "XREADGROUP GROUP g alice COUNT 1 STREAMS s >",
            "XREADGROUP GROUP g alice STREAMS s >",
            "XREADGROUP GROUP g alice STREAMS s >",
            "XREADGROUP GROUP g alice STREAMS s 0",
            "XREADGROUP GROUP g bob STREAMS s 0",
            "XADD s 3-1 c 3", "XADD s 4-1 d 4",
            "XREADGROUP GROUP g carol NOACK STREAMS s >",
            "XADD s 5-1 e 5",
            "XREADGROUP GROUP g carol NOACK STREAMS s >",
            "XREADGROUP GROUP g carol NOACK STREAMS s >",
            "XGROUP SETID s g 0",
            "XREADGROUP GROUP g dave COUNT 2 STREAMS s >",
            "XREADGROUP GROUP nope x STREAMS s >",
            "XACK s g 1-1",
        ],
        new Dictionary<int, string[]>
        {
            [3] = ["9 XGROUP SETID s g 1-1 ENTRIESREAD 1"],
            [4] = ["9 XGROUP SETID s g 2-1 ENTRIESREAD 2"],
            [6] =
            [
                "9 XCLAIM s g alice 0 1-1 TIME <ms> RETRYCOUNT 2 FORCE JUSTID LASTID 2-1",
                "9 XCLAIM s g alice 0 2-1 TIME <ms> RETRYCOUNT 2 FORCE JUSTID LASTID 2-1",
            ],
            [7] = ["9 XGROUP CREATECONSUMER s g bob"],
            [15] = ["9 XGROUP SETID s g 2-1 ENTRIESREAD 2"],
        });

    /// <summary>A consumer woken by XADD propagates what it was delivered, as XCLAIMs then XGROUP SETID (NOACK: XGROUP SETID alone), like one served at once.</summary>
    [RedisTheory]
    [InlineData("")]
    [InlineData("NOACK")]
    public void XReadGroup_WokenByXAdd_PropagatesAsRedis(string noAck)
    {
        string[] blocking = noAck.Length == 0
            ? ["XREADGROUP", "GROUP", "g", "waiter", "COUNT", "2", "BLOCK", "0", "STREAMS", "s", ">"]
            : ["XREADGROUP", "GROUP", "g", "waiter", "NOACK", "BLOCK", "0", "STREAMS", "s", ">"];
        PropagationDifferential.AssertSameWithWaiter(
            [["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"], ["XGROUP", "CREATECONSUMER", "s", "g", "waiter"]],
            blocking,
            [["MULTI"], ["XADD", "s", "1-1", "a", "1"], ["XADD", "s", "2-1", "b", "2"], ["XADD", "s", "3-1", "c", "3"], ["EXEC"]],
            // Redis 7.4 (redis/redis#12898) ends the woken read's XCLAIMs with the group's read counter.
            noAck.Length == 0 ? theirs => [.. theirs.SkipLast(1), "9 XGROUP SETID s g 2-1 ENTRIESREAD 2", theirs[^1]] : null);
    }
}
