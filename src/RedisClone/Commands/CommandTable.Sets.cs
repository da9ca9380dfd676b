using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The sets family's rows (same columns as <see cref="CoreRows"/>).</summary>
    private static IEnumerable<CommandDef> SetRows() =>
    [
        //  name           arity  flags                            first last step handler
        new("sadd",           -3, Write | DenyOom | Fast,              1,  1, 1, SetCommands.SAdd, group: "set"),
        new("srem",           -3, Write | Fast,                        1,  1, 1, SetCommands.SRem, group: "set"),
        new("scard",           2, ReadOnly | Fast,                     1,  1, 1, SetCommands.SCard, group: "set"),
        new("sismember",       3, ReadOnly | Fast,                     1,  1, 1, SetCommands.SIsMember, group: "set"),
        new("smismember",     -3, ReadOnly | Fast,                     1,  1, 1, SetCommands.SMIsMember, group: "set"),
        new("smembers",        2, ReadOnly,                            1,  1, 1, SetCommands.SMembers, group: "set"),
        new("spop",           -2, Write | Fast,                        1,  1, 1, SetCommands.SPop, group: "set"),
        new("srandmember",    -2, ReadOnly,                            1,  1, 1, SetCommands.SRandMember, group: "set"),
        new("smove",           4, Write | Fast,                        1,  2, 1, SetCommands.SMove, group: "set"),
        new("sinter",         -2, ReadOnly,                            1, -1, 1, SetCommands.SInter, group: "set"),
        // numkeys-style keys: the finder reads numkeys so the dispatcher takes every key's gate.
        new("sintercard",     -3, ReadOnly,                            0,  0, 0, SetCommands.SInterCard, group: "set",
            keys: SetCommands.SInterCardKeys),
        new("sinterstore",    -3, Write | DenyOom,                     1, -1, 1, SetCommands.SInterStore, group: "set"),
        new("sunion",         -2, ReadOnly,                            1, -1, 1, SetCommands.SUnion, group: "set"),
        new("sunionstore",    -3, Write | DenyOom,                     1, -1, 1, SetCommands.SUnionStore, group: "set"),
        new("sdiff",          -2, ReadOnly,                            1, -1, 1, SetCommands.SDiff, group: "set"),
        new("sdiffstore",     -3, Write | DenyOom,                     1, -1, 1, SetCommands.SDiffStore, group: "set"),
        new("sscan",          -3, ReadOnly,                            1,  1, 1, SetCommands.SScan, group: "set"),
    ];
}
