using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The hashes family's rows (same columns as <see cref="CoreRows"/>).</summary>
    private static IEnumerable<CommandDef> HashRows() =>
    [
        //  name           arity  flags                            first last step handler
        new("hset",           -4, Write | DenyOom | Fast,              1,  1, 1, HashCommands.HSet, group: "hash"),
        new("hsetnx",          4, Write | DenyOom | Fast,              1,  1, 1, HashCommands.HSetNx, group: "hash"),
        new("hmset",          -4, Write | DenyOom | Fast,              1,  1, 1, HashCommands.HMSet, group: "hash"),
        new("hget",            3, ReadOnly | Fast,                     1,  1, 1, HashCommands.HGet, group: "hash"),
        new("hmget",          -3, ReadOnly | Fast,                     1,  1, 1, HashCommands.HMGet, group: "hash"),
        new("hgetall",         2, ReadOnly,                            1,  1, 1, HashCommands.HGetAll, group: "hash"),
        new("hkeys",           2, ReadOnly,                            1,  1, 1, HashCommands.HKeys, group: "hash"),
        new("hvals",           2, ReadOnly,                            1,  1, 1, HashCommands.HVals, group: "hash"),
        new("hlen",            2, ReadOnly | Fast,                     1,  1, 1, HashCommands.HLen, group: "hash"),
        new("hexists",         3, ReadOnly | Fast,                     1,  1, 1, HashCommands.HExists, group: "hash"),
        new("hdel",           -3, Write | Fast,                        1,  1, 1, HashCommands.HDel, group: "hash"),
        new("hstrlen",         3, ReadOnly | Fast,                     1,  1, 1, HashCommands.HStrLen, group: "hash"),
        new("hincrby",         4, Write | DenyOom | Fast,              1,  1, 1, HashCommands.HIncrBy, group: "hash"),
        new("hincrbyfloat",    4, Write | DenyOom | Fast,              1,  1, 1, HashCommands.HIncrByFloat, group: "hash"),
        new("hrandfield",     -2, ReadOnly,                            1,  1, 1, HashCommands.HRandField, group: "hash"),
        new("hscan",          -3, ReadOnly,                            1,  1, 1, HashCommands.HScan, group: "hash"),
    ];
}
