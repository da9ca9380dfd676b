using System.Globalization;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.SortedSets;

/// <summary>
/// Sorted set commands against Debian's redis-server 7.0, byte for byte, in both encodings: most
/// scripts run once as they are (small sets stay listpacks) and once after
/// <c>CONFIG SET zset-max-listpack-entries 0</c> (every set is a skiplist).
/// </summary>
public class SortedSetDifferentialTests
{
    private const string SkiplistOnly = "CONFIG SET zset-max-listpack-entries 0";

    /// <summary>Runs a script as is, then again with every sorted set skiplist-encoded.</summary>
    private static void BothEncodings(params string[] script)
    {
        SortedSetDifferential.AssertSame(script);
        SortedSetDifferential.AssertSame([SkiplistOnly, .. script]);
    }

    private static void BothEncodings(params string[][] script)
    {
        SortedSetDifferential.AssertSame(script);
        SortedSetDifferential.AssertSame([Differential.SplitLine(SkiplistOnly), .. script]);
    }

    [RedisFact]
    public void ZAdd_OptionsAndFlags_SameAsRedis() => BothEncodings(
        "ZADD z 1 a 2 b 3 c 4 d 5 e",
        "ZADD z NX 10 a 6 f",
        "ZADD z XX 10 a 7 g",
        "ZADD z CH 11 a 1 b 8 h",
        "ZADD z GT 5 a",
        "ZADD z GT CH 12 a",
        "ZADD z LT CH 13 a",
        "ZADD z LT CH 1 a",
        "ZADD z lt gt 1 a",
        "ZADD z INCR 2 a",
        "ZADD z INCR NX 2 a",
        "ZADD z INCR XX 2 nosuch",
        "ZADD z INCR GT -100 a",
        "ZADD z INCR LT -100 a",
        "ZADD z ch ch nx 1 newer",
        "ZADD nokey XX 1 a",
        "ZADD nokey XX INCR 1 a",
        "EXISTS nokey",
        "ZADD z 1 a 1 a 2 a",
        "ZADD z CH 2 a 2 a",
        "ZADD z inf pinf -inf ninf +inf p2 1e3 k 0x10 hex",
        "ZRANGE z 0 -1 WITHSCORES",
        "ZCARD z");

    [RedisFact]
    public void ZAdd_Errors_SameAsRedisInRedisOrder() => SortedSetDifferential.AssertSame(
        "ZADD z 1",
        "ZADD z 1 a 2",
        "ZADD z nx",
        "ZADD z XX NX 1 a",
        "ZADD z nx xx x a",
        "ZADD z xx nx 1 a 2",
        "ZADD z GT LT 1 a",
        "ZADD z GT NX 1 a",
        "ZADD z LT NX 1 a",
        "ZADD z INCR 1 a 2 b",
        "ZADD z INCR GT NX 1 a 2 b",
        "ZADD z abc a",
        "ZADD z 1 a x b",
        "ZADD z nan a",
        "ZADD z 1e400 a",
        "ZADD z 1e-400 a",
        "EXISTS z",
        "SET str v",
        "ZADD str 1 a",
        "ZADD str x a",
        "ZADD z 1 a",
        "ZADD z inf a",
        "ZADD z INCR -inf a",
        "ZSCORE z a",
        "ZADD z 1 b INCR",
        "ZINCRBY z -inf a",
        "ZINCRBY z x a",
        "ZINCRBY z nx a",
        "ZINCRBY str 1 a",
        "ZINCRBY z 1.5 b",
        "ZINCRBY new 5 m",
        "ZSCORE new m");

    [RedisFact]
    public void ZAdd_OddScores_ParsedAsString2d() => SortedSetDifferential.AssertSame(
        ["ZADD", "z", " 1", "a"],
        ["ZADD", "z", "1 ", "a"],
        ["ZADD", "z", "", "a"],
        ["ZADD", "z", "1\0", "a"],
        ["ZADD", "z", "0x1p-3", "a"],
        ["ZADD", "z", "-Infinity", "b"],
        ["ZADD", "z", ".5", "c", "5.", "d", "+3", "e", "-0.0", "f"],
        ["ZRANGE", "z", "0", "-1", "WITHSCORES"],
        ["ZINCRBY", "z", "1e308", "a"],
        ["ZINCRBY", "z", "1e308", "a"],
        ["ZINCRBY", "z", "1e308", "a"],
        ["ZSCORE", "z", "a"]);

    [RedisFact]
    public void Reads_ScoreRankCard_SameAsRedis() => BothEncodings(
        "ZADD z 1 a 2 b 3 c 2.5 bb",
        "SET str v",
        "ZCARD z", "ZCARD nokey", "ZCARD str",
        "ZSCORE z bb", "ZSCORE z nosuch", "ZSCORE nokey a", "ZSCORE str a",
        "ZMSCORE z a nosuch bb", "ZMSCORE nokey a b", "ZMSCORE str a",
        "ZRANK z a", "ZRANK z c", "ZRANK z nosuch", "ZRANK nokey a", "ZRANK str a",
        "ZREVRANK z a", "ZREVRANK z c", "ZREVRANK z nosuch",
        // 7.0 has no WITHSCORE (arity 3): these are checked against 7.2's texts in the wire tests.
        "!ZRANK z a WITHSCORES", "ZRANK z a withscore x");

    [RedisFact]
    public void ZRem_RemovesAndDeletesEmptiedKey() => BothEncodings(
        "ZADD z 1 a 2 b 3 c",
        "ZREM z a nosuch b",
        "ZREM z nosuch",
        "ZREM nokey a",
        "SET str v",
        "ZREM str a",
        "ZREM z c c",
        "EXISTS z",
        "ZADD z 1 a",
        "ZREM z a a",
        "EXISTS z");

    [RedisFact]
    public void ZRange_ByRank_SameAsRedis() => BothEncodings(
        "ZADD z 1 a 2 b 3 c 4 d 5 e 5 f 5 ee",
        "ZRANGE z 0 -1", "ZRANGE z 0 -1 WITHSCORES", "ZRANGE z -3 -1", "ZRANGE z -100 100",
        "ZRANGE z 5 2", "ZRANGE z 0 0 withscores", "ZRANGE z 7 10", "ZRANGE z -1 -100",
        "ZRANGE z 9223372036854775807 -9223372036854775808", "ZRANGE z -9223372036854775808 9223372036854775807",
        "ZRANGE z 1 3 REV WITHSCORES", "ZRANGE z 0 -1 REV",
        "ZREVRANGE z 0 2 WITHSCORES", "ZREVRANGE z -2 -1", "ZREVRANGE z 3 1",
        "ZRANGE z 0 -1 withscores withscores",
        "ZRANGE nokey 0 -1", "ZRANGE nokey 0 -1 WITHSCORES");

    [RedisFact]
    public void ZRange_ByScore_SameAsRedis() => BothEncodings(
        "ZADD z 1 a 2 b 3 c 4 d 5 e 5 f 5 ee -inf ninf inf pinf",
        "ZRANGE z (1 (5 BYSCORE WITHSCORES",
        "ZRANGE z 5 1 BYSCORE REV WITHSCORES LIMIT 1 2",
        "ZRANGE z -inf +inf BYSCORE LIMIT 2 -1",
        "ZRANGE z -inf +inf BYSCORE LIMIT -1 2",
        "ZRANGE z -inf +inf BYSCORE LIMIT 100 2",
        "ZRANGE z -inf +inf BYSCORE LIMIT 0 0",
        "ZRANGE z -inf +inf BYSCORE LIMIT 8 5",
        "ZRANGE z -inf +inf BYSCORE REV LIMIT 8 5",
        "ZRANGE z 3 1 BYSCORE",
        "ZRANGE z (3 3 BYSCORE",
        "ZRANGE z 3 3 BYSCORE",
        "ZRANGE z (3 1 BYSCORE REV LIMIT 0 -1",
        "ZRANGEBYSCORE z -inf +inf WITHSCORES LIMIT 1 3",
        "ZRANGEBYSCORE z (1 10 WITHSCORES LIMIT 1 1 WITHSCORES",
        "ZRANGEBYSCORE z inf inf", "ZRANGEBYSCORE z -inf -inf", "ZRANGEBYSCORE z (inf +inf",
        "ZREVRANGEBYSCORE z +inf -inf WITHSCORES LIMIT 1 3",
        "ZREVRANGEBYSCORE z 5 (2",
        "ZREVRANGEBYSCORE z 2 5",
        "ZRANGEBYSCORE nokey 0 1",
        "ZCOUNT z -inf +inf", "ZCOUNT z (1 5", "ZCOUNT z 5 1", "ZCOUNT z (5 5", "ZCOUNT z 5 5",
        "ZCOUNT nokey 1 2");

    [RedisFact]
    public void ScoreBounds_StrtodRules_SameAsRedis() => BothEncodings(
        ["ZADD z 1 a 2 b 3 c 16 d"],
        ["ZCOUNT z ( 10"],
        ["ZCOUNT z 0x10 100"],
        ["ZCOUNT z -1e400 1e400"],
        ["ZCOUNT z (1e-400 5"],
        ["ZCOUNT z -inf +infinity"],
        ["ZCOUNT z -inf infinit"],
        ["ZCOUNT z 1 0x"],
        ["ZCOUNT z 1 .5e1"],
        ["ZCOUNT z 1 5."],
        ["ZCOUNT z 1 -"],
        ["ZCOUNT z nan 1"],
        ["ZCOUNT z (nan 1"],
        ["ZCOUNT z x 1"]);

    [RedisFact]
    public void ScoreBounds_SpacesEmptyAndNul_SameAsRedis() => SortedSetDifferential.AssertSame(
        ["ZADD", "z", "1", "a", "2", "b", "3", "c"],
        ["ZCOUNT", "z", " 2", "10"],
        ["ZCOUNT", "z", "", "10"],
        ["ZCOUNT", "z", "(", "10"],
        ["ZCOUNT", "z", "  ", "10"],
        ["ZCOUNT", "z", "1", "5 "],
        ["ZCOUNT", "z", "1\0junk", "5"],
        ["ZCOUNT", "z", "\t(1", "5"],
        ["ZRANGEBYSCORE", "z", "\n1", "+inf"],
        ["ZREMRANGEBYSCORE", "z", "", "(1"]);

    [RedisFact]
    public void ZRange_Errors_SameAsRedis() => SortedSetDifferential.AssertSame(
        "ZADD z 1 a 2 b 3 c",
        "SET str v",
        "ZRANGE z 0 -1 LIMIT 1",
        "ZRANGE z 0 -1 LIMIT 1 2",
        "ZRANGE z [a [b BYLEX WITHSCORES",
        "ZRANGE z [a [b BYLEX WITHSCORES LIMIT 1 1",
        "ZRANGE z 0 -1 BYLEX",
        "ZRANGE z 0 -1 BYSCORE BYLEX",
        "ZRANGE z 0 -1 BYSCORE BYSCORE",
        "ZRANGE z 0 -1 REV REV",
        "ZRANGE z x -1",
        "ZRANGE z 0 -1 foo",
        "ZRANGE z 0 x BYSCORE",
        "ZRANGE z 0 1 BYSCORE LIMIT x 1",
        "ZRANGE z 0 1 BYSCORE LIMIT 1 x",
        "ZRANGE str 0 -1",
        "ZRANGE str x y",
        "ZRANGEBYSCORE str x y",
        "ZRANGEBYSCORE nokey x y",
        "ZRANGEBYSCORE z 0 10 REV",
        "ZRANGEBYSCORE z 0 10 BYSCORE",
        "ZRANGEBYSCORE z 0 10 LIMIT 0",
        "ZRANGEBYSCORE z 0 10 LIMIT 0 1 2",
        "ZREVRANGE z 0 -1 LIMIT 0 1",
        "ZREVRANGE z 0 -1 BYSCORE",
        "ZREVRANGE z 0 -1 REV",
        "ZRANGEBYLEX z - + WITHSCORES",
        "ZRANGEBYLEX z a +",
        "ZRANGEBYLEX z - + BYLEX",
        "ZREVRANGEBYLEX z + - LIMIT 0",
        "ZRANGESTORE d z 0 -1 WITHSCORES",
        "ZRANGESTORE d z 0 -1 LIMIT 0 1",
        "ZRANGESTORE d str 0 -1",
        "ZRANGESTORE d z a b BYSCORE",
        "ZRANGESTORE d z a b BYLEX",
        "EXISTS d");

    [RedisFact]
    public void ZRange_ByLexSameScores_SameAsRedis() => BothEncodings(
        ["ZADD", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e", "0", "f", "0", "g", "0", "aa", "0", "ab", "0", ""],
        ["ZRANGEBYLEX", "z", "-", "+"],
        ["ZRANGEBYLEX", "z", "[b", "[e"],
        ["ZRANGEBYLEX", "z", "(b", "(e"],
        ["ZRANGEBYLEX", "z", "[a", "(b"],
        ["ZRANGEBYLEX", "z", "(a", "[aa"],
        ["ZRANGEBYLEX", "z", "-", "+", "LIMIT", "2", "3"],
        ["ZRANGEBYLEX", "z", "-", "+", "LIMIT", "-1", "3"],
        ["ZRANGEBYLEX", "z", "-", "+", "LIMIT", "2", "-1"],
        ["ZRANGEBYLEX", "z", "[", "+"],
        ["ZRANGEBYLEX", "z", "(", "+"],
        ["ZRANGEBYLEX", "z", "+", "-"],
        ["ZRANGEBYLEX", "z", "-", "-"],
        ["ZRANGEBYLEX", "z", "+", "+"],
        ["ZRANGEBYLEX", "z", "[e", "[b"],
        ["ZRANGEBYLEX", "z", "[b", "[b"],
        ["ZRANGEBYLEX", "z", "(b", "[b"],
        ["ZRANGEBYLEX", "z", "+\0", "-"],
        ["ZRANGEBYLEX", "z", "-\0x", "+"],
        ["ZRANGEBYLEX", "z", "", "+"],
        ["ZREVRANGEBYLEX", "z", "+", "-"],
        ["ZREVRANGEBYLEX", "z", "[e", "[b"],
        ["ZREVRANGEBYLEX", "z", "(e", "(b", "LIMIT", "1", "2"],
        ["ZREVRANGEBYLEX", "z", "+", "-", "LIMIT", "0", "-1"],
        ["ZRANGE", "z", "[b", "[e", "BYLEX", "REV"],
        ["ZRANGE", "z", "[e", "[b", "BYLEX", "REV"],
        ["ZRANGE", "z", "[b", "[e", "BYLEX", "LIMIT", "1", "1"],
        ["ZLEXCOUNT", "z", "-", "+"],
        ["ZLEXCOUNT", "z", "[b", "(e"],
        ["ZLEXCOUNT", "z", "[e", "[b"],
        ["ZLEXCOUNT", "z", "x", "y"],
        ["ZLEXCOUNT", "z", "[a", "+x"],
        ["ZLEXCOUNT", "z", "-x", "+"],
        ["ZLEXCOUNT", "nokey", "-", "+"],
        ["ZREMRANGEBYLEX", "z", "[aa", "[ab"],
        ["ZREMRANGEBYLEX", "z", "-", "(b"],
        ["ZREMRANGEBYLEX", "z", "x", "(b"],
        ["ZRANGE", "z", "0", "-1", "WITHSCORES"],
        ["ZREMRANGEBYLEX", "z", "+", "-"],
        ["ZREMRANGEBYLEX", "z", "-", "+"],
        ["EXISTS", "z"]);

    /// <summary>
    /// Member ranges over unequal scores are undefined in Redis, but a listpack answers them by
    /// walking from an end, deterministically; we walk the same way.
    /// </summary>
    [RedisFact]
    public void ZRangeByLex_MixedScoresListpack_WalksLikeRedis() => SortedSetDifferential.AssertSame(
        "ZADD z 1 a 2 b 3 c 4 d 5 e 6 f",
        "ZRANGEBYLEX z [b [d", "ZRANGEBYLEX z - [c", "ZLEXCOUNT z [b [d", "ZREVRANGEBYLEX z [d [b",
        "ZADD z 0 zz",
        "ZRANGEBYLEX z [b [d", "ZRANGEBYLEX z [a [zz", "ZLEXCOUNT z [a [zz", "ZLEXCOUNT z [b [y",
        "ZREVRANGEBYLEX z [zz [a", "ZREVRANGEBYLEX z [y [b",
        "ZREMRANGEBYLEX z [b [c", "ZRANGE z 0 -1 WITHSCORES");

    [RedisFact]
    public void ZRangeStore_StoresDeletesAndEncodes() => BothEncodings(
        "ZADD z 1 a 2 b 3 c",
        "ZRANGESTORE d z 0 10 BYSCORE", "OBJECT ENCODING d", "ZRANGE d 0 -1 WITHSCORES",
        "ZRANGESTORE d2 z - + BYLEX", "OBJECT ENCODING d2",
        "ZRANGESTORE d3 z 5 10 BYSCORE", "EXISTS d3",
        "SET d4 x", "ZRANGESTORE d4 z 5 10 BYSCORE", "EXISTS d4",
        "SET d5 x", "ZRANGESTORE d5 nokey 0 -1", "EXISTS d5",
        "SET d6 x", "EXPIRE d6 100", "ZRANGESTORE d6 z 0 0", "TTL d6", "TYPE d6",
        "ZRANGESTORE d7 z (1 +inf BYSCORE LIMIT 0 1", "ZRANGE d7 0 -1 WITHSCORES",
        "ZRANGESTORE d8 z +inf -inf BYSCORE REV LIMIT 1 5", "ZRANGE d8 0 -1 WITHSCORES",
        "ZRANGESTORE z z 1 1", "ZRANGE z 0 -1 WITHSCORES");

    [RedisFact]
    public void ZRemRangeBy_RankAndScore_SameAsRedis() => BothEncodings(
        "ZADD z 1 a 2 b 3 c 4 d 5 e 6 f 7 g 8 h",
        "ZREMRANGEBYRANK z 0 0", "ZREMRANGEBYRANK z -1 -1", "ZREMRANGEBYRANK z 5 3", "ZREMRANGEBYRANK z 100 200",
        "ZREMRANGEBYRANK z x 1", "ZREMRANGEBYRANK nokey 0 1",
        "ZREMRANGEBYSCORE z (3 5", "ZREMRANGEBYSCORE z x 5", "ZREMRANGEBYSCORE nokey 1 2", "ZREMRANGEBYSCORE z 5 1",
        "ZRANGE z 0 -1 WITHSCORES",
        "SET str v", "ZREMRANGEBYRANK str 0 1", "ZREMRANGEBYSCORE str 0 1", "ZREMRANGEBYLEX str - +",
        "ZREMRANGEBYRANK z -100 100", "EXISTS z",
        "ZADD z 1 a 2 b", "ZREMRANGEBYSCORE z -inf +inf", "EXISTS z");

    [RedisFact]
    public void Pops_MinMaxAndMPop_SameAsRedis() => BothEncodings(
        "ZADD z 1 a 2 b 3 c 4 d 5 e 6 f",
        "ZPOPMIN z", "ZPOPMAX z", "ZPOPMIN z 2", "ZPOPMAX z 0", "ZPOPMIN z 0",
        "ZPOPMIN z -1", "ZPOPMIN z x", "ZPOPMIN z 1 2", "ZPOPMIN nokey", "ZPOPMIN nokey -1", "ZPOPMIN nokey 3",
        "ZPOPMAX z 10", "EXISTS z",
        "SET str v", "ZPOPMIN str", "ZPOPMAX str 0",
        "ZADD a 1 x 2 y 3 z",
        "ZMPOP 1 a MIN", "ZMPOP 1 a MAX COUNT 10", "EXISTS a",
        "ZADD a 1 x 2 y 3 z", "ZADD b 10 p 20 q",
        "ZMPOP 2 nokey b MAX COUNT 1", "ZMPOP 2 nokey nokey2 MIN", "ZMPOP 3 nokey str b MIN",
        "ZMPOP 3 nokey b str MIN", "ZMPOP 1 b min count 1", "EXISTS b",
        "ZMPOP 0 a MIN", "ZMPOP x a MIN", "ZMPOP -1 a MIN", "ZMPOP 1 a", "ZMPOP 1 a foo", "ZMPOP 2 a MIN",
        "ZMPOP 1 a MIN COUNT 0", "ZMPOP 1 a MIN COUNT -1", "ZMPOP 1 a MIN COUNT x", "ZMPOP 1 a MIN COUNT 1 COUNT 1",
        "ZMPOP 1 a MIN COUNT", "ZMPOP 1 a MIN foo", "ZMPOP 9223372036854775807 a MIN");

    [RedisFact]
    public void ZRandMember_DeterministicCases_SameAsRedis() => BothEncodings(
        "SET str x",
        "ZRANDMEMBER nokey x", "ZRANDMEMBER nokey 1 foo", "ZRANDMEMBER str x",
        "ZRANDMEMBER nokey -9223372036854775808", "ZRANDMEMBER nokey 4611686018427387904 WITHSCORES",
        "ZRANDMEMBER nokey -4611686018427387904 WITHSCORES", "ZRANDMEMBER nokey 4611686018427387903 WITHSCORES",
        "ZRANDMEMBER str 1 foo", "ZRANDMEMBER nokey 1 WITHSCORES foo", "ZRANDMEMBER nokey 5",
        "ZRANDMEMBER nokey", "ZRANDMEMBER nokey 5 WITHSCORES", "ZRANDMEMBER str",
        "ZADD z 1.1 a 2 b 1e20 c",
        "ZRANDMEMBER z 1 foo", "ZRANDMEMBER z 0", "ZRANDMEMBER z 0 WITHSCORES",
        "ZRANDMEMBER z 3", "ZRANDMEMBER z 5 WITHSCORES", "ZRANDMEMBER z 9223372036854775807",
        "ZRANDMEMBER z 4611686018427387903 WITHSCORES", "ZRANDMEMBER z 1 withscore");

    [RedisFact]
    public void SetOperations_UnionInterDiff_SameAsRedis() => BothEncodings(
        "ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w", "SADD s y w v", "SADD si 1 2 3", "ZADD ni 5 1 6 2", "SET str v",
        "ZUNION 2 a b", "ZUNION 2 a b WITHSCORES", "ZUNION 3 a b s WITHSCORES",
        "ZUNION 3 a b s WEIGHTS 1 2 3 WITHSCORES", "ZUNION 3 a b s WEIGHTS 1 2 3 AGGREGATE MIN WITHSCORES",
        "ZUNION 3 a b s WEIGHTS 1 2 3 AGGREGATE MAX WITHSCORES", "ZUNION 3 a b s AGGREGATE MAX WEIGHTS 0 inf -inf WITHSCORES",
        "ZUNION 2 a a WITHSCORES", "ZUNION 2 a nokey WITHSCORES", "ZUNION 1 nokey", "ZUNION 2 si ni WITHSCORES",
        "ZUNION 2 a b WEIGHTS 1 2 WEIGHTS 3 4 WITHSCORES", "ZUNION 2 a b AGGREGATE MIN AGGREGATE max WITHSCORES",
        "ZINTER 2 a b WITHSCORES", "ZINTER 3 a b s WITHSCORES", "ZINTER 2 a b WEIGHTS 2 0.5 AGGREGATE MAX WITHSCORES",
        "ZINTER 2 a nokey WITHSCORES", "ZINTER 2 a a WITHSCORES", "ZINTER 2 si ni WEIGHTS 1 1 AGGREGATE SUM WITHSCORES",
        "ZINTERCARD 2 a b", "ZINTERCARD 2 a b LIMIT 1", "ZINTERCARD 2 a b LIMIT 0", "ZINTERCARD 3 a b s",
        "ZINTERCARD 2 a nokey", "ZINTERCARD 2 si ni",
        "ZDIFF 2 a b WITHSCORES", "ZDIFF 2 b a WITHSCORES", "ZDIFF 3 b a s WITHSCORES", "ZDIFF 2 s a WITHSCORES",
        "ZDIFF 1 nokey", "ZDIFF 2 a nokey WITHSCORES", "ZDIFF 2 si ni",
        "ZDIFFSTORE d 2 b a", "ZRANGE d 0 -1 WITHSCORES", "OBJECT ENCODING d",
        "ZDIFFSTORE d 2 a a", "EXISTS d",
        "ZUNIONSTORE d 3 a b s WEIGHTS 1 2 3", "ZRANGE d 0 -1 WITHSCORES",
        "ZINTERSTORE d 2 a b AGGREGATE MIN", "ZRANGE d 0 -1 WITHSCORES",
        "ZINTERSTORE d 2 a nokey", "EXISTS d",
        "SET d str", "EXPIRE d 100", "ZUNIONSTORE d 1 a", "TYPE d", "TTL d",
        "ZUNIONSTORE a 2 a b", "ZRANGE a 0 -1 WITHSCORES");

    [RedisFact]
    public void SetOperations_Errors_SameAsRedisInRedisOrder() => SortedSetDifferential.AssertSame(
        "ZADD z 1 a", "SET str v",
        "ZUNIONSTORE d 0 a", "ZUNIONSTORE d -1 a", "ZUNIONSTORE d x a", "ZUNIONSTORE d 3 a b",
        "ZUNION 0 a", "ZINTER 0 a", "ZDIFF 0 a", "ZINTERSTORE d 0 a", "ZDIFFSTORE d 0 a", "ZINTERCARD 0 a",
        "ZUNION 9223372036854775807 a", "ZUNION 5 a b",
        "ZINTERCARD 1 a LIMIT -1", "ZINTERCARD 1 a LIMIT x", "ZINTERCARD 1 a LIMIT 1 WITHSCORES", "ZINTERCARD 1 a WITHSCORES",
        "ZINTERCARD 1 a WEIGHTS 1", "ZINTERCARD 1 a LIMIT",
        "ZINTER 1 a WEIGHTS x", "ZINTER 1 str WEIGHTS x", "ZINTER 1 z WEIGHTS x", "ZINTER 1 z WEIGHTS 1 2",
        "ZINTER 1 z WEIGHTS", "ZINTER 1 z AGGREGATE foo", "ZINTER 1 z AGGREGATE", "ZINTER 1 z WITHSCORES WITHSCORES",
        "ZINTER 1 z LIMIT 1",
        "ZINTERSTORE d 1 z WITHSCORES", "ZDIFF 1 z WEIGHTS 1", "ZDIFF 1 z AGGREGATE SUM", "ZDIFFSTORE d 1 z WITHSCORES",
        "ZUNIONSTORE d 1 str", "ZUNIONSTORE d 2 z str", "ZUNIONSTORE d 2 z b foo", "ZUNIONSTORE d 2 z b WEIGHTS 1",
        "ZUNIONSTORE d 2 z b WEIGHTS 1 x", "ZUNIONSTORE d 2 z b AGGREGATE avg", "ZUNIONSTORE d 2 z b WITHSCORES",
        "EXISTS d");

    [RedisFact]
    public void SetOperations_InfinitiesAndNaN_ZeroLikeRedis() => BothEncodings(
        "ZADD inf 0 a", "ZADD inf2 inf a", "ZADD ninf -inf a",
        "ZUNION 2 inf inf WEIGHTS inf -inf WITHSCORES", "ZINTER 2 inf inf WEIGHTS inf -inf WITHSCORES",
        "ZUNION 2 inf2 inf2 WEIGHTS 1 -1 WITHSCORES", "ZINTER 2 inf2 inf2 WEIGHTS 1 -1 AGGREGATE MIN WITHSCORES",
        "ZINTER 2 inf2 inf2 WEIGHTS 0 1 AGGREGATE MAX WITHSCORES", "ZUNION 2 inf2 inf2 WEIGHTS 0 1 AGGREGATE MIN WITHSCORES",
        "ZUNION 2 inf2 ninf WITHSCORES", "ZINTER 2 inf2 ninf WITHSCORES", "ZINTER 2 inf2 ninf AGGREGATE MAX WITHSCORES",
        "ZINTER 3 inf2 ninf inf2 WEIGHTS 0 1 1 WITHSCORES",
        "ZUNIONSTORE d 2 inf2 ninf", "ZRANGE d 0 -1 WITHSCORES");

    /// <summary>Floating-point sums depend on the order inputs are visited: smallest first, ties in argument order.</summary>
    [RedisFact]
    public void SetOperations_SumOrder_SmallestInputFirst() => BothEncodings(
        "ZADD a 0.1 m 1 a1 2 a2", "ZADD b 0.2 m", "ZADD c 0.3 m 1 c1", "ZADD d 1e17 m 1 d1 2 d2 3 d3",
        "ZUNION 4 a b c d WITHSCORES", "ZUNION 4 d c b a WITHSCORES", "ZINTER 4 d a c b WITHSCORES",
        "ZUNION 3 a b c WEIGHTS 3 1 7 WITHSCORES", "ZINTER 3 c b a WEIGHTS 1e300 1e300 -1e300 WITHSCORES");

    [RedisFact]
    public void Resp3_ReplyShapes_SameAsRedis() => BothEncodings(
        "!HELLO 3",
        "ZADD r3 1 a 2 b 3 c",
        "ZRANGE r3 0 -1 WITHSCORES", "ZRANGE r3 0 -1", "ZRANGEBYSCORE r3 -inf +inf WITHSCORES",
        "ZREVRANGEBYSCORE r3 +inf -inf WITHSCORES LIMIT 0 2", "ZREVRANGE r3 0 -1 WITHSCORES",
        "ZSCORE r3 a", "ZSCORE r3 nosuch", "ZSCORE nokey a", "ZMSCORE r3 a nosuch",
        "ZINCRBY r3 1.5 a", "ZADD r3 INCR 1 a", "ZADD r3 XX INCR 1 nosuch", "ZADD r3 INCR inf pinf",
        "ZRANK r3 nosuch", "ZRANK r3 a",
        "ZPOPMIN r3", "ZPOPMIN r3 1", "ZPOPMAX r3 5", "ZPOPMIN nokey", "ZPOPMIN nokey 2",
        "ZADD r3 1 a 2 b 3 c",
        "ZUNION 1 r3 WITHSCORES", "ZINTER 1 r3 WITHSCORES", "ZDIFF 1 r3 WITHSCORES", "ZUNION 1 r3",
        "ZMPOP 1 r3 MIN COUNT 2", "ZMPOP 1 nokey MIN",
        "ZRANDMEMBER r3 10 WITHSCORES", "ZRANDMEMBER nokey", "ZRANDMEMBER r3 0 WITHSCORES",
        "ZADD r4 inf a -inf b 0 c -0 d 1.5 e",
        "ZRANGE r4 0 -1 WITHSCORES", "ZSCORE r4 a", "ZSCORE r4 d",
        "ZSCAN* r4");

    /// <summary>
    /// A listpack keeps integer scores as integers, so -0 reads back as 0 there while a skiplist keeps
    /// -0; replies computed before storing (ZADD INCR) or outside any set (ZUNION) keep the sign.
    /// </summary>
    [RedisFact]
    public void NegativeZero_PerEncodingLikeRedis() => BothEncodings(
        "ZADD z -0 a", "ZSCORE z a", "ZRANGE z 0 -1 WITHSCORES", "ZINCRBY z -0 a", "ZSCORE z a",
        "ZADD z2 INCR -0 a", "ZADD z2 INCR -0 a",
        "ZADD s -0 a", "ZUNION 1 s WITHSCORES", "ZUNIONSTORE d 1 s", "ZRANGE d 0 -1 WITHSCORES",
        "ZADD m 0 a", "ZUNION 1 m WEIGHTS -1 WITHSCORES", "ZUNIONSTORE m2 1 m WEIGHTS -1", "ZSCORE m2 a",
        "ZRANGESTORE d2 s 0 -1", "ZRANGE d2 0 -1 WITHSCORES", "ZMSCORE z a",
        "ZSCAN z 0", "ZCOUNT z 0 0", "ZCOUNT z (-0 (0");

    [RedisFact]
    public void NegativeZero_StoreThroughListpackUntilItOverflows() => SortedSetDifferential.AssertSame(
        [SkiplistOnly, "ZADD src " + string.Join(' ', Enumerable.Range(0, 200).Select(i => $"-0 m{i:D3}")), "CONFIG SET zset-max-listpack-entries 128",
            "ZRANGESTORE d1 src -inf +inf BYSCORE", "ZRANGE d1 120 135 WITHSCORES", "OBJECT ENCODING d1",
            "ZRANGESTORE d2 src 0 -1", "ZRANGE d2 0 3 WITHSCORES",
            "ZRANGESTORE d3 src 0 99", "ZRANGE d3 0 3 WITHSCORES", "OBJECT ENCODING d3",
            "ZRANGESTORE d4 src +inf -inf BYSCORE REV", "ZRANGE d4 0 3 WITHSCORES", "ZRANGE d4 -3 -1 WITHSCORES",
            "ZUNIONSTORE d5 1 src", "ZRANGE d5 0 1 WITHSCORES"]);

    [RedisFact]
    public void ScoreFormatting_Reply17DigitsAndListpackScanText() => BothEncodings(
        "ZADD z 1.1 a 2 b 1e20 c 0.1 d -3.5e-7 e inf f -inf g 123456789012345678 h 4611686018427387904 i 4611686018427387903 j -4611686018427387904 k 5e-324 l",
        "ZRANGE z 0 -1 WITHSCORES", "ZSCAN* z", "ZSCORE z h", "ZMSCORE z i j k l", "ZINCRBY z 0.1 a");

    /// <summary>ZSCAN of a listpack returns everything in order, scores as the listpack stores them (integers as integers).</summary>
    [RedisFact]
    public void ZScan_ListpackScoresAsStored() => SortedSetDifferential.AssertSame(
        "ZADD z 1.1 a 2 b 1e20 c 0.1 d -3.5e-7 e inf f -inf g 123456789012345678 h 4611686018427387904 i 4611686018427387903 j -4611686018427387904 k 5e-324 l -0 m",
        "ZSCAN z 0", "ZSCAN z 0 MATCH [a-f]", "ZSCAN z 123 COUNT 1");

    [RedisFact]
    public void Encoding_ConvertsLikeRedis() => SortedSetDifferential.AssertSame(
        "ZADD big " + string.Join(' ', Enumerable.Range(0, 200).Select(i => $"{i} m{i}")), "OBJECT ENCODING big",
        "ZADD dup " + string.Join(' ', Enumerable.Range(0, 200).Select(i => $"{i} same")), "OBJECT ENCODING dup",
        "ZADD edge " + string.Join(' ', Enumerable.Range(0, 128).Select(i => $"{i} m{i}")), "OBJECT ENCODING edge",
        "ZADD edge 1 m1", "OBJECT ENCODING edge", "ZADD edge 1 new", "OBJECT ENCODING edge", "ZREM edge new m1", "OBJECT ENCODING edge",
        "ZUNIONSTORE u 1 big", "OBJECT ENCODING u", "ZRANGESTORE r big 0 9", "OBJECT ENCODING r",
        "ZRANGESTORE r2 big 0 199", "OBJECT ENCODING r2",
        "ZREMRANGEBYRANK big 0 150", "OBJECT ENCODING big", "ZCARD big",
        "ZUNIONSTORE u2 1 big", "OBJECT ENCODING u2", "ZINTERSTORE i2 2 big big", "OBJECT ENCODING i2",
        "ZADD long 1 " + new string('x', 65), "OBJECT ENCODING long",
        "ZADD long2 1 a 2 " + new string('x', 64), "OBJECT ENCODING long2",
        "ZADD long2 3 " + new string('y', 65), "OBJECT ENCODING long2",
        "ZUNIONSTORE u3 1 long", "OBJECT ENCODING u3", "ZDIFFSTORE d3 1 long", "OBJECT ENCODING d3",
        "ZRANGESTORE r3 long 0 -1", "OBJECT ENCODING r3",
        "ZINCRBY inc 1 a", "OBJECT ENCODING inc",
        "CONFIG SET zset-max-listpack-entries 0",
        "ZADD e 1 a", "OBJECT ENCODING e", "ZRANGESTORE r4 big 0 1", "OBJECT ENCODING r4",
        "ZUNIONSTORE u4 1 r", "OBJECT ENCODING u4",
        "CONFIG SET zset-max-listpack-entries 128",
        "CONFIG SET zset-max-listpack-value 0",
        "ZADD e2 1 a", "OBJECT ENCODING e2", "ZADD e3 1 ''", "OBJECT ENCODING e3",
        "ZADD e3 1 b", "OBJECT ENCODING e3",
        "CONFIG SET zset-max-listpack-value 64",
        "CONFIG SET zset-max-listpack-entries 3",
        "ZADD f 1 a 2 b 3 c", "OBJECT ENCODING f", "ZADD f 4 d", "OBJECT ENCODING f",
        "ZADD g 1 a 2 b 3 c 4 d", "OBJECT ENCODING g",
        "ZRANGESTORE f2 f 0 2", "OBJECT ENCODING f2", "ZRANGESTORE f3 f 0 3", "OBJECT ENCODING f3");

    [RedisFact]
    public void ZScan_OptionsAndWalks_SameAsRedis() => SortedSetDifferential.AssertSame(
        "ZADD z 1 a 2 b 3 c 1.5 aa",
        "ZSCAN z 0", "ZSCAN z 0 MATCH a*", "ZSCAN z 0 COUNT 1", "ZSCAN z 17", "ZSCAN z 0 MATCH * COUNT 100",
        "ZSCAN z x", "ZSCAN z -1", "ZSCAN z 0 COUNT 0", "ZSCAN z 0 COUNT x", "ZSCAN z 0 MATCH", "ZSCAN z 0 TYPE zset",
        "ZSCAN z 0 foo bar", "ZSCAN nokey 0", "ZSCAN nokey 0 COUNT 0", "ZSCAN nokey x",
        "SET str v", "ZSCAN str 0",
        "ZADD big " + string.Join(' ', Enumerable.Range(0, 500).Select(i => $"{i % 37}.5 m{i}")),
        "ZSCAN* big", "ZSCAN* big COUNT 3", "ZSCAN* big MATCH m1* COUNT 7", "ZSCAN* big MATCH nothing*",
        "ZADD neg -0 a 1 b", "ZSCAN neg 0");

    [RedisFact]
    public void CommandGetKeys_SortedSetCommands_SameAsRedis() => SortedSetDifferential.AssertSame(
        "COMMAND GETKEYS ZADD k 1 a", "COMMAND GETKEYS ZUNIONSTORE d 2 a b WEIGHTS 1 2", "COMMAND GETKEYS ZUNION 3 a b c",
        "COMMAND GETKEYS ZINTERCARD 2 a b LIMIT 1", "COMMAND GETKEYS ZDIFF 1 a", "COMMAND GETKEYS ZDIFFSTORE d 1 a",
        "COMMAND GETKEYS ZMPOP 2 a b MIN", "COMMAND GETKEYS ZRANGESTORE d s 0 1", "COMMAND GETKEYS ZUNION 0 a",
        "COMMAND GETKEYS ZUNION 3 a", "COMMAND GETKEYS ZUNION x a",
        "COMMAND GETKEYSANDFLAGS ZUNIONSTORE d 2 a b", "COMMAND GETKEYSANDFLAGS ZMPOP 1 a MAX",
        "COMMAND GETKEYSANDFLAGS ZRANGESTORE d s 0 1", "COMMAND GETKEYSANDFLAGS ZADD k 1 a");

    [RedisFact]
    public void Keyspace_TypeCopyRenameExpire_SameAsRedis() => BothEncodings(
        "ZADD z 1 a 2 b", "TYPE z", "OBJECT ENCODING z", "COPY z z2", "ZRANGE z2 0 -1 WITHSCORES", "ZADD z2 3 c", "ZCARD z",
        "RENAME z2 z3", "EXISTS z2", "ZCARD z3", "EXPIRE z3 100", "TTL z3", "ZADD z3 4 d", "TTL z3", "ZPOPMIN z3 10", "EXISTS z3",
        "SET str v", "GET z", "APPEND z x", "SADD z x", "HSET z f v", "DEL z", "EXISTS z");

    /// <summary>A seeded random mix of writes and reads, replayed on both servers: the structures must agree throughout.</summary>
    [RedisFact]
    public void RandomWorkload_FewMembers_SameRepliesAsRedis() => SortedSetDifferential.AssertSame(RandomScript(1, 3000, 60).ToArray());

    [RedisFact]
    public void RandomWorkload_SomeMembers_SameRepliesAsRedis() => SortedSetDifferential.AssertSame(RandomScript(2, 3000, 600).ToArray());

    [RedisFact]
    public void RandomWorkload_ManyMembers_SameRepliesAsRedis() => SortedSetDifferential.AssertSame(RandomScript(3, 4000, 5000).ToArray());

    private static List<string> RandomScript(int seed, int steps, int members)
    {
        var r = new Random(seed);
        var s = new List<string>();
        string M() => "m" + r.Next(members);
        string Score()
        {
            double c = r.NextDouble();
            if (c < 0.6) return r.Next(-50, 50).ToString(CultureInfo.InvariantCulture);
            if (c < 0.9) return (r.NextDouble() * 100 - 50).ToString("F3", CultureInfo.InvariantCulture);
            return new[] { "inf", "-inf", "0", "-0", "1e10" }[r.Next(5)];
        }
        string Bound()
        {
            string[] options = [r.Next(-60, 60).ToString(CultureInfo.InvariantCulture),
                (r.NextDouble() * 120 - 60).ToString("F2", CultureInfo.InvariantCulture), "-inf", "+inf"];
            string b = options[r.Next(options.Length)];
            return r.NextDouble() < 0.3 && !b.EndsWith("inf") ? "(" + b : b;
        }
        string Lex()
        {
            double c = r.NextDouble();
            if (c < 0.1) return "-";
            if (c < 0.2) return "+";
            return (r.Next(2) == 0 ? "[" : "(") + M();
        }
        string Limit() => r.NextDouble() < 0.5 ? $" LIMIT {r.Next(-2, members)} {r.Next(-2, 20)}" : "";
        for (int i = 0; i < steps; i++)
        {
            double c = r.NextDouble();
            if (c < 0.35)
            {
                string[] opts = ["", "", "NX", "XX", "GT", "LT", "CH", "XX CH", "GT CH"];
                var pairs = string.Join(' ', Enumerable.Range(0, r.Next(1, 6)).Select(_ => $"{Score()} {M()}"));
                s.Add($"ZADD z {opts[r.Next(opts.Length)]} {pairs}");
            }
            else if (c < 0.42) s.Add($"ZREM z {M()} {M()}");
            else if (c < 0.47) s.Add($"ZINCRBY z {Score()} {M()}");
            else if (c < 0.53) s.Add($"ZRANGE z {r.Next(-members, members)} {r.Next(-members, members)} WITHSCORES");
            else if (c < 0.56) s.Add($"ZREVRANGE z {r.Next(-members, members)} {r.Next(-members, members)} WITHSCORES");
            else if (c < 0.64) s.Add($"{(r.Next(2) == 0 ? "ZRANGEBYSCORE" : "ZREVRANGEBYSCORE")} z {Bound()} {Bound()} WITHSCORES{Limit()}");
            else if (c < 0.68) s.Add($"ZCOUNT z {Bound()} {Bound()}");
            else if (c < 0.73)
            {
                s.Add($"ZRANK z {M()}");
                s.Add($"ZREVRANK z {M()}");
                s.Add($"ZSCORE z {M()}");
            }
            else if (c < 0.75) s.Add($"ZREMRANGEBYRANK z {r.Next(-members, members)} {r.Next(-members, members)}");
            else if (c < 0.77) s.Add($"ZREMRANGEBYSCORE z {Bound()} {Bound()}");
            else if (c < 0.79) s.Add($"{(r.Next(2) == 0 ? "ZPOPMIN" : "ZPOPMAX")} z {r.Next(0, 5)}");
            else if (c < 0.80)
            {
                s.Add("ZCARD z");
                s.Add("OBJECT ENCODING z");
            }
            else if (c < 0.86)
            {
                s.Add($"ZADD lex 0 {M()} 0 {M()}");
                s.Add($"ZRANGEBYLEX lex {Lex()} {Lex()}{Limit()}");
                s.Add($"ZREVRANGEBYLEX lex {Lex()} {Lex()}{Limit()}");
                s.Add($"ZLEXCOUNT lex {Lex()} {Lex()}");
            }
            else if (c < 0.87) s.Add($"ZREMRANGEBYLEX lex {Lex()} {Lex()}");
            else if (c < 0.90)
            {
                s.Add(r.Next(3) switch
                {
                    0 => $"ZRANGESTORE dst z {Bound()} {Bound()} BYSCORE",
                    1 => $"ZRANGESTORE dst z {Bound()} {Bound()} BYSCORE REV{Limit()}",
                    _ => $"ZRANGESTORE dst z {r.Next(-members, members)} {r.Next(-members, members)} REV",
                });
                s.Add("ZRANGE dst 0 -1 WITHSCORES");
                s.Add("OBJECT ENCODING dst");
            }
            else if (c < 0.93) s.Add($"ZMSCORE z {M()} {M()}");
            else
            {
                s.Add("ZUNIONSTORE u 2 z lex WEIGHTS 2 1");
                s.Add("ZRANGE u 0 -1 WITHSCORES");
                s.Add("ZINTER 2 z lex WITHSCORES");
            }
        }
        s.Add("ZRANGE z 0 -1 WITHSCORES");
        s.Add("ZRANGE lex 0 -1 WITHSCORES");
        return s;
    }
}
