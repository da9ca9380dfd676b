using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The lists family's rows (same columns as <see cref="CoreRows"/>).</summary>
    private static IEnumerable<CommandDef> ListRows() =>
    [
        //  name           arity  flags                            first last step handler
        new("lpush",          -3, Write | DenyOom | Fast,              1,  1, 1, ListCommands.LPush, group: "list"),
        new("rpush",          -3, Write | DenyOom | Fast,              1,  1, 1, ListCommands.RPush, group: "list"),
        new("lpushx",         -3, Write | DenyOom | Fast,              1,  1, 1, ListCommands.LPushX, group: "list"),
        new("rpushx",         -3, Write | DenyOom | Fast,              1,  1, 1, ListCommands.RPushX, group: "list"),
        new("lpop",           -2, Write | Fast,                        1,  1, 1, ListCommands.LPop, group: "list"),
        new("rpop",           -2, Write | Fast,                        1,  1, 1, ListCommands.RPop, group: "list"),
        new("llen",            2, ReadOnly | Fast,                     1,  1, 1, ListCommands.LLen, group: "list"),
        new("lrange",          4, ReadOnly,                            1,  1, 1, ListCommands.LRange, group: "list"),
        new("lindex",          3, ReadOnly,                            1,  1, 1, ListCommands.LIndex, group: "list"),
        new("lset",            4, Write | DenyOom,                     1,  1, 1, ListCommands.LSet, group: "list"),
        new("linsert",         5, Write | DenyOom,                     1,  1, 1, ListCommands.LInsert, group: "list"),
        new("lrem",            4, Write,                               1,  1, 1, ListCommands.LRem, group: "list"),
        new("ltrim",           4, Write,                               1,  1, 1, ListCommands.LTrim, group: "list"),
        new("lpos",           -3, ReadOnly,                            1,  1, 1, ListCommands.LPos, group: "list"),
        new("rpoplpush",       3, Write | DenyOom,                     1,  2, 1, ListCommands.RPopLPush, group: "list"),
        new("lmove",           5, Write | DenyOom,                     1,  2, 1, ListCommands.LMove, group: "list"),
        // Keys follow numkeys: the finder gives them to the dispatcher (movable keys).
        new("lmpop",          -4, Write,                               0,  0, 0, ListCommands.LMPop, group: "list", keys: ListCommands.LMPopKeys),
    ];
}
