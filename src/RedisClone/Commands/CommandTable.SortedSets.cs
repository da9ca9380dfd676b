using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>
    /// The sorted sets family's rows (same columns as <see cref="CoreRows"/>). Commands that take
    /// numkeys have a key finder, so the dispatcher holds the gate of every key they read.
    /// </summary>
    private static IEnumerable<CommandDef> SortedSetRows() =>
    [
        //  name             arity  flags                          first last step handler
        new("zadd",             -4, Write | DenyOom | Fast,            1,  1, 1, SortedSetCommands.ZAdd, group: "sorted-set"),
        new("zincrby",           4, Write | DenyOom | Fast,            1,  1, 1, SortedSetCommands.ZIncrBy, group: "sorted-set"),
        new("zrem",             -3, Write | Fast,                      1,  1, 1, SortedSetCommands.ZRem, group: "sorted-set"),
        new("zcard",             2, ReadOnly | Fast,                   1,  1, 1, SortedSetCommands.ZCard, group: "sorted-set"),
        new("zcount",            4, ReadOnly | Fast,                   1,  1, 1, SortedSetCommands.ZCount, group: "sorted-set"),
        new("zlexcount",         4, ReadOnly | Fast,                   1,  1, 1, SortedSetCommands.ZLexCount, group: "sorted-set"),
        new("zscore",            3, ReadOnly | Fast,                   1,  1, 1, SortedSetCommands.ZScore, group: "sorted-set"),
        new("zmscore",          -3, ReadOnly | Fast,                   1,  1, 1, SortedSetCommands.ZMScore, group: "sorted-set"),
        // 7.2's arity (-3): WITHSCORE came in 7.2.
        new("zrank",            -3, ReadOnly | Fast,                   1,  1, 1, SortedSetCommands.ZRank, group: "sorted-set"),
        new("zrevrank",         -3, ReadOnly | Fast,                   1,  1, 1, SortedSetCommands.ZRevRank, group: "sorted-set"),
        new("zrange",           -4, ReadOnly,                          1,  1, 1, SortedSetCommands.ZRange, group: "sorted-set"),
        new("zrangestore",      -5, Write | DenyOom,                   1,  2, 1, SortedSetCommands.ZRangeStore, group: "sorted-set"),
        new("zrangebyscore",    -4, ReadOnly,                          1,  1, 1, SortedSetCommands.ZRangeByScore, group: "sorted-set"),
        new("zrevrangebyscore", -4, ReadOnly,                          1,  1, 1, SortedSetCommands.ZRevRangeByScore, group: "sorted-set"),
        new("zrangebylex",      -4, ReadOnly,                          1,  1, 1, SortedSetCommands.ZRangeByLex, group: "sorted-set"),
        new("zrevrangebylex",   -4, ReadOnly,                          1,  1, 1, SortedSetCommands.ZRevRangeByLex, group: "sorted-set"),
        new("zrevrange",        -4, ReadOnly,                          1,  1, 1, SortedSetCommands.ZRevRange, group: "sorted-set"),
        new("zremrangebyrank",   4, Write,                             1,  1, 1, SortedSetCommands.ZRemRangeByRank, group: "sorted-set"),
        new("zremrangebyscore",  4, Write,                             1,  1, 1, SortedSetCommands.ZRemRangeByScore, group: "sorted-set"),
        new("zremrangebylex",    4, Write,                             1,  1, 1, SortedSetCommands.ZRemRangeByLex, group: "sorted-set"),
        new("zpopmin",          -2, Write | Fast,                      1,  1, 1, SortedSetCommands.ZPopMin, group: "sorted-set"),
        new("zpopmax",          -2, Write | Fast,                      1,  1, 1, SortedSetCommands.ZPopMax, group: "sorted-set"),
        new("zmpop",            -4, Write,                             0,  0, 0, SortedSetCommands.ZMPop, group: "sorted-set",
            keys: SortedSetCommands.NumKeysAt1),
        new("zrandmember",      -2, ReadOnly,                          1,  1, 1, SortedSetCommands.ZRandMember, group: "sorted-set"),
        new("zunion",           -3, ReadOnly,                          0,  0, 0, SortedSetCommands.ZUnion, group: "sorted-set",
            keys: SortedSetCommands.NumKeysAt1),
        new("zinter",           -3, ReadOnly,                          0,  0, 0, SortedSetCommands.ZInter, group: "sorted-set",
            keys: SortedSetCommands.NumKeysAt1),
        new("zintercard",       -3, ReadOnly,                          0,  0, 0, SortedSetCommands.ZInterCard, group: "sorted-set",
            keys: SortedSetCommands.NumKeysAt1),
        new("zdiff",            -3, ReadOnly,                          0,  0, 0, SortedSetCommands.ZDiff, group: "sorted-set",
            keys: SortedSetCommands.NumKeysAt1),
        new("zunionstore",      -4, Write | DenyOom,                   1,  1, 1, SortedSetCommands.ZUnionStore, group: "sorted-set",
            keys: SortedSetCommands.DestinationAndNumKeysAt2),
        new("zinterstore",      -4, Write | DenyOom,                   1,  1, 1, SortedSetCommands.ZInterStore, group: "sorted-set",
            keys: SortedSetCommands.DestinationAndNumKeysAt2),
        new("zdiffstore",       -4, Write | DenyOom,                   1,  1, 1, SortedSetCommands.ZDiffStore, group: "sorted-set",
            keys: SortedSetCommands.DestinationAndNumKeysAt2),
        new("zscan",            -3, ReadOnly,                          1,  1, 1, SortedSetCommands.ZScan, group: "sorted-set"),
    ];
}
