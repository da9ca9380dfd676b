using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>Blocking list commands: they run with their keys' gates held and may park the connection.</summary>
    private static IEnumerable<CommandDef> BlockingRows() =>
    [
        //  name           arity  flags                                         first last step handler
        new("blpop",          -3, Write | NoScript | Blocking,                      1, -2, 1, BlockingCommands.BLPop, group: "list"),
        new("brpop",          -3, Write | NoScript | Blocking,                      1, -2, 1, BlockingCommands.BRPop, group: "list"),
        new("brpoplpush",      4, Write | DenyOom | NoScript | Blocking,            1,  2, 1, BlockingCommands.BRPopLPush, group: "list"),
        new("blmove",          6, Write | DenyOom | NoScript | Blocking,            1,  2, 1, BlockingCommands.BLMove, group: "list"),
        new("blmpop",         -5, Write | Blocking,                                 0,  0, 0, BlockingCommands.BLMPop, group: "list",
            keys: BlockingCommands.MPopKeys),
        new("bzpopmin",       -3, Write | NoScript | Blocking | Fast,               1, -2, 1, BlockingCommands.BZPopMin, group: "sorted-set"),
        new("bzpopmax",       -3, Write | NoScript | Blocking | Fast,               1, -2, 1, BlockingCommands.BZPopMax, group: "sorted-set"),
        new("bzmpop",         -5, Write | Blocking,                                 0,  0, 0, BlockingCommands.BZMPop, group: "sorted-set",
            keys: BlockingCommands.MPopKeys),
    ];
}
