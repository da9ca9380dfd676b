using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    private const string ZOffsetCount = "LIMIT=offset_count{offset:integer count:integer}";
    private const string ZWeightsAggregate = "[WEIGHTS=weight:integer...] [AGGREGATE=aggregate(SUM | MIN | MAX)]";

    /// <summary>
    /// The sorted sets family (handlers in <see cref="SortedSetCommands"/>). Commands that take numkeys
    /// have a key finder, so the dispatcher holds the gate of every key they read.
    /// </summary>
    private static IEnumerable<CommandDef> SortedSetRows() =>
    [
        new("zadd", -4, Write | DenyOom | Fast, SortedSetCommands.ZAdd, keys: "RW update", group: "sorted-set")
        {
            Summary = "Adds members with scores to a sorted set, or updates their scores; creates the key when missing.",
            Since = "1.2.0", Complexity = "O(log N) per member, N = members in the set",
            Args = "key:key [condition(NX | XX)@3.0.2] [comparison(GT | LT)@6.2.0] [change:CH@3.0.2] [increment:INCR@3.0.2] "
                + "score_member{score:double member}...",
            History = "2.4.0: Several members at once; 3.0.2: XX, NX, CH and INCR options; 6.2.0: GT and LT options",
        },
        new("zincrby", 4, Write | DenyOom | Fast, SortedSetCommands.ZIncrBy, keys: "RW access update", group: "sorted-set")
        {
            Summary = "Adds to the score of a member of a sorted set, adding the member when missing.",
            Since = "1.2.0", Complexity = "O(log N), N = members in the set", Args = "key:key increment:integer member",
        },
        new("zrem", -3, Write | Fast, SortedSetCommands.ZRem, keys: "RW delete", group: "sorted-set")
        {
            Summary = "Removes members from a sorted set; deletes the key when it empties.",
            Since = "1.2.0", Complexity = "O(M log N), M = members removed", Args = "key:key member...",
            History = "2.4.0: Several members at once",
        },
        new("zcard", 2, ReadOnly | Fast, SortedSetCommands.ZCard, keys: "RO", group: "sorted-set")
        {
            Summary = "Returns the number of members of a sorted set.",
            Since = "1.2.0", Complexity = "O(1)", Args = "key:key",
        },
        new("zcount", 4, ReadOnly | Fast, SortedSetCommands.ZCount, keys: "RO access", group: "sorted-set")
        {
            Summary = "Counts the members of a sorted set whose scores are in a range.",
            Since = "2.0.0", Complexity = "O(log N)", Args = "key:key min:double max:double",
        },
        new("zlexcount", 4, ReadOnly | Fast, SortedSetCommands.ZLexCount, keys: "RO access", group: "sorted-set")
        {
            Summary = "Counts the members of a sorted set in a lexicographical range.",
            Since = "2.8.9", Complexity = "O(log N)", Args = "key:key min max",
        },
        new("zscore", 3, ReadOnly | Fast, SortedSetCommands.ZScore, keys: "RO access", group: "sorted-set")
        {
            Summary = "Returns the score of a member of a sorted set.",
            Since = "1.2.0", Complexity = "O(1)", Args = "key:key member",
        },
        new("zmscore", -3, ReadOnly | Fast, SortedSetCommands.ZMScore, keys: "RO access", group: "sorted-set")
        {
            Summary = "Returns the scores of several members of a sorted set.",
            Since = "6.2.0", Complexity = "O(N), N = members asked for", Args = "key:key member...",
        },
        // 7.2's arity (-3): WITHSCORE came in 7.2.
        new("zrank", -3, ReadOnly | Fast, SortedSetCommands.ZRank, keys: "RO access", group: "sorted-set")
        {
            Summary = "Returns the rank of a member in a sorted set, lowest score first.",
            Since = "2.0.0", Complexity = "O(log N)", Args = "key:key member [WITHSCORE@7.2.0]",
            History = "7.2.0: WITHSCORE option",
        },
        new("zrevrank", -3, ReadOnly | Fast, SortedSetCommands.ZRevRank, keys: "RO access", group: "sorted-set")
        {
            Summary = "Returns the rank of a member in a sorted set, highest score first.",
            Since = "2.0.0", Complexity = "O(log N)", Args = "key:key member [WITHSCORE@7.2.0]",
            History = "7.2.0: WITHSCORE option",
        },
        new("zrange", -4, ReadOnly, SortedSetCommands.ZRange, keys: "RO access", group: "sorted-set")
        {
            Summary = "Returns members of a sorted set in a range of ranks, scores or members.",
            Since = "1.2.0", Complexity = "O(log N + M), M = members returned",
            Args = "key:key start stop [sortby(BYSCORE | BYLEX)@6.2.0] [REV@6.2.0] [" + ZOffsetCount + "@6.2.0] [WITHSCORES]",
            History = "6.2.0: REV, BYSCORE, BYLEX and LIMIT options",
        },
        new("zrangestore", -5, Write | DenyOom, SortedSetCommands.ZRangeStore, keys: "OW update; RO access", group: "sorted-set")
        {
            Summary = "Stores a range of a sorted set in another key.",
            Since = "6.2.0", Complexity = "O(log N + M), M = members stored",
            Args = "dst:key src:key min max [sortby(BYSCORE | BYLEX)] [REV] [" + ZOffsetCount + "]",
        },
        new("zrangebyscore", -4, ReadOnly, SortedSetCommands.ZRangeByScore, keys: "RO access", group: "sorted-set")
        {
            Summary = "Returns members of a sorted set in a range of scores.",
            Since = "1.0.5", Complexity = "O(log N + M), M = members returned",
            Args = "key:key min:double max:double [WITHSCORES@2.0.0] [" + ZOffsetCount + "]", History = "2.0.0: WITHSCORES option",
            DeprecatedSince = "6.2.0", ReplacedBy = "`ZRANGE` with the `BYSCORE` argument",
        },
        new("zrevrangebyscore", -4, ReadOnly, SortedSetCommands.ZRevRangeByScore, keys: "RO access", group: "sorted-set")
        {
            Summary = "Returns members of a sorted set in a range of scores, highest first.",
            Since = "2.2.0", Complexity = "O(log N + M), M = members returned",
            Args = "key:key max:double min:double [WITHSCORES] [" + ZOffsetCount + "]", History = "2.1.6: Exclusive min and max",
            DeprecatedSince = "6.2.0", ReplacedBy = "`ZRANGE` with the `REV` and `BYSCORE` arguments",
        },
        new("zrangebylex", -4, ReadOnly, SortedSetCommands.ZRangeByLex, keys: "RO access", group: "sorted-set")
        {
            Summary = "Returns members of a sorted set in a lexicographical range.",
            Since = "2.8.9", Complexity = "O(log N + M), M = members returned", Args = "key:key min max [" + ZOffsetCount + "]",
            DeprecatedSince = "6.2.0", ReplacedBy = "`ZRANGE` with the `BYLEX` argument",
        },
        new("zrevrangebylex", -4, ReadOnly, SortedSetCommands.ZRevRangeByLex, keys: "RO access", group: "sorted-set")
        {
            Summary = "Returns members of a sorted set in a lexicographical range, highest first.",
            Since = "2.8.9", Complexity = "O(log N + M), M = members returned", Args = "key:key max min [" + ZOffsetCount + "]",
            DeprecatedSince = "6.2.0", ReplacedBy = "`ZRANGE` with the `REV` and `BYLEX` arguments",
        },
        new("zrevrange", -4, ReadOnly, SortedSetCommands.ZRevRange, keys: "RO access", group: "sorted-set")
        {
            Summary = "Returns members of a sorted set in a range of ranks, highest score first.",
            Since = "1.2.0", Complexity = "O(log N + M), M = members returned",
            Args = "key:key start:integer stop:integer [WITHSCORES]", DeprecatedSince = "6.2.0",
            ReplacedBy = "`ZRANGE` with the `REV` argument",
        },
        new("zremrangebyrank", 4, Write, SortedSetCommands.ZRemRangeByRank, keys: "RW delete", group: "sorted-set")
        {
            Summary = "Removes the members of a sorted set in a range of ranks.",
            Since = "2.0.0", Complexity = "O(log N + M), M = members removed", Args = "key:key start:integer stop:integer",
        },
        new("zremrangebyscore", 4, Write, SortedSetCommands.ZRemRangeByScore, keys: "RW delete", group: "sorted-set")
        {
            Summary = "Removes the members of a sorted set in a range of scores.",
            Since = "1.2.0", Complexity = "O(log N + M), M = members removed", Args = "key:key min:double max:double",
        },
        new("zremrangebylex", 4, Write, SortedSetCommands.ZRemRangeByLex, keys: "RW delete", group: "sorted-set")
        {
            Summary = "Removes the members of a sorted set in a lexicographical range.",
            Since = "2.8.9", Complexity = "O(log N + M), M = members removed", Args = "key:key min max",
        },
        new("zpopmin", -2, Write | Fast, SortedSetCommands.ZPopMin, keys: "RW access delete", group: "sorted-set")
        {
            Summary = "Removes and returns the members with the lowest scores.",
            Since = "5.0.0", Complexity = "O(M log N), M = members popped", Args = "key:key [count:integer]",
        },
        new("zpopmax", -2, Write | Fast, SortedSetCommands.ZPopMax, keys: "RW access delete", group: "sorted-set")
        {
            Summary = "Removes and returns the members with the highest scores.",
            Since = "5.0.0", Complexity = "O(M log N), M = members popped", Args = "key:key [count:integer]",
        },
        new("zmpop", -4, Write, SortedSetCommands.ZMPop, keys: "RW access delete i=1 n=0,1,1", group: "sorted-set",
            keyFinder: SortedSetCommands.NumKeysAt1)
        {
            Summary = "Removes and returns the lowest or highest members of the first non-empty sorted set of several keys.",
            Since = "7.0.0", Complexity = "O(K + M log N), K = keys, M = members popped",
            Args = "numkeys:integer key:key... where(MIN | MAX) [COUNT=count:integer]",
        },
        new("zrandmember", -2, ReadOnly, SortedSetCommands.ZRandMember, keys: "RO access", group: "sorted-set")
        {
            Summary = "Returns random members of a sorted set.",
            Since = "6.2.0", Complexity = "O(N), N = members returned", Args = "key:key [options{count:integer [WITHSCORES]}]",
            Tips = "nondeterministic_output",
        },
        new("zunion", -3, ReadOnly, SortedSetCommands.ZUnion, keys: "RO access i=1 n=0,1,1", group: "sorted-set",
            keyFinder: SortedSetCommands.NumKeysAt1)
        {
            Summary = "Returns the union of sorted sets (and sets).",
            Since = "6.2.0", Complexity = "O(N + M log M), N = input members, M = result members",
            Args = "numkeys:integer key:key... " + ZWeightsAggregate + " [WITHSCORES]",
        },
        new("zinter", -3, ReadOnly, SortedSetCommands.ZInter, keys: "RO access i=1 n=0,1,1", group: "sorted-set",
            keyFinder: SortedSetCommands.NumKeysAt1)
        {
            Summary = "Returns the intersection of sorted sets (and sets).",
            Since = "6.2.0", Complexity = "O(N*K + M log M), N = smallest input, K = inputs",
            Args = "numkeys:integer key:key... " + ZWeightsAggregate + " [WITHSCORES]",
        },
        new("zintercard", -3, ReadOnly, SortedSetCommands.ZInterCard, keys: "RO access i=1 n=0,1,1", group: "sorted-set",
            keyFinder: SortedSetCommands.NumKeysAt1)
        {
            Summary = "Counts the members of the intersection of sorted sets (and sets), optionally up to a limit.",
            Since = "7.0.0", Complexity = "O(N*K), N = smallest input, K = inputs",
            Args = "numkeys:integer key:key... [LIMIT=limit:integer]",
        },
        new("zdiff", -3, ReadOnly, SortedSetCommands.ZDiff, keys: "RO access i=1 n=0,1,1", group: "sorted-set",
            keyFinder: SortedSetCommands.NumKeysAt1)
        {
            Summary = "Returns the members of the first sorted set that are in none of the others.",
            Since = "6.2.0", Complexity = "O(L + (N-K) log N), L = input members", Args = "numkeys:integer key:key... [WITHSCORES]",
        },
        new("zunionstore", -4, Write | DenyOom, SortedSetCommands.ZUnionStore, keys: "OW update; RO access n=0,1,1",
            group: "sorted-set", keyFinder: SortedSetCommands.DestinationAndNumKeysAt2)
        {
            Summary = "Stores the union of sorted sets (and sets) in a key.",
            Since = "2.0.0", Complexity = "O(N + M log M), N = input members, M = result members",
            Args = "destination:key numkeys:integer key:key... " + ZWeightsAggregate,
        },
        new("zinterstore", -4, Write | DenyOom, SortedSetCommands.ZInterStore, keys: "OW update; RO access n=0,1,1",
            group: "sorted-set", keyFinder: SortedSetCommands.DestinationAndNumKeysAt2)
        {
            Summary = "Stores the intersection of sorted sets (and sets) in a key.",
            Since = "2.0.0", Complexity = "O(N*K + M log M), N = smallest input, K = inputs",
            Args = "destination:key numkeys:integer key:key... " + ZWeightsAggregate,
        },
        new("zdiffstore", -4, Write | DenyOom, SortedSetCommands.ZDiffStore, keys: "OW update; RO access n=0,1,1",
            group: "sorted-set", keyFinder: SortedSetCommands.DestinationAndNumKeysAt2)
        {
            Summary = "Stores the members of the first sorted set that are in none of the others in a key.",
            Since = "6.2.0", Complexity = "O(L + (N-K) log N), L = input members",
            Args = "destination:key numkeys:integer key:key...",
        },
        new("zscan", -3, ReadOnly, SortedSetCommands.ZScan, keys: "RO access", group: "sorted-set")
        {
            Summary = "Walks the members and scores of a sorted set a batch at a time with a cursor.",
            Since = "2.8.0", Complexity = "O(1) per call, O(N) for a whole walk",
            Args = "key:key cursor:integer [MATCH=pattern:pattern] [COUNT=count:integer]", Tips = "nondeterministic_output",
        },
    ];
}
