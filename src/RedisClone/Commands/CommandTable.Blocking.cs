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
    ];
}
