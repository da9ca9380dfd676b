using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>Blocking list and sorted set commands: they run with their keys' gates held and may park the connection.</summary>
    private static IEnumerable<CommandDef> BlockingRows() =>
    [
        new("blpop", -3, Write | NoScript | Blocking, BlockingCommands.BLPop, keys: "RW access delete r=-2,1,0", group: "list")
        {
            Summary = "Pops the first element of the first non-empty list, waiting for one when all are empty.",
            Since = "2.0.0", Complexity = "O(N), N = keys", Args = "key:key... timeout:double",
            History = "6.0.0: timeout is a double instead of an integer",
        },
        new("brpop", -3, Write | NoScript | Blocking, BlockingCommands.BRPop, keys: "RW access delete r=-2,1,0", group: "list")
        {
            Summary = "Pops the last element of the first non-empty list, waiting for one when all are empty.",
            Since = "2.0.0", Complexity = "O(N), N = keys", Args = "key:key... timeout:double",
            History = "6.0.0: timeout is a double instead of an integer",
        },
        new("brpoplpush", 4, Write | DenyOom | NoScript | Blocking, BlockingCommands.BRPopLPush,
            keys: "RW access delete; RW insert", group: "list")
        {
            Summary = "Moves the last element of a list to the head of another, waiting for one when the source is empty.",
            Since = "2.2.0", Complexity = "O(1)", Args = "source:key destination:key timeout:double",
            History = "6.0.0: timeout is a double instead of an integer", DeprecatedSince = "6.2.0",
            ReplacedBy = "BLMOVE with RIGHT and LEFT",
        },
        new("blmove", 6, Write | DenyOom | NoScript | Blocking, BlockingCommands.BLMove, keys: "RW access delete; RW insert",
            group: "list")
        {
            Summary = "Moves an element between lists, waiting for one when the source is empty.",
            Since = "6.2.0", Complexity = "O(1)",
            Args = "source:key destination:key wherefrom(LEFT | RIGHT) whereto(LEFT | RIGHT) timeout:double",
        },
        new("blmpop", -5, Write | Blocking, BlockingCommands.BLMPop, keys: "RW access delete i=2 n=0,1,1", group: "list",
            keyFinder: BlockingCommands.MPopKeys)
        {
            Summary = "Pops elements from the first non-empty list among several keys, waiting while all are empty.",
            Since = "7.0.0", Complexity = "O(N+M), N = keys given, M = elements returned",
            Args = "timeout:double numkeys:integer key:key... where(LEFT | RIGHT) [COUNT=count:integer]",
        },
        new("bzpopmin", -3, Write | NoScript | Blocking | Fast, BlockingCommands.BZPopMin, keys: "RW access delete r=-2,1,0",
            group: "sorted-set")
        {
            Summary = "Pops the lowest-scored member of the first non-empty sorted set, waiting while all are empty.",
            Since = "5.0.0", Complexity = "O(log N)", Args = "key:key... timeout:double",
            History = "6.0.0: timeout is a double instead of an integer",
        },
        new("bzpopmax", -3, Write | NoScript | Blocking | Fast, BlockingCommands.BZPopMax, keys: "RW access delete r=-2,1,0",
            group: "sorted-set")
        {
            Summary = "Pops the highest-scored member of the first non-empty sorted set, waiting while all are empty.",
            Since = "5.0.0", Complexity = "O(log N)", Args = "key:key... timeout:double",
            History = "6.0.0: timeout is a double instead of an integer",
        },
        new("bzmpop", -5, Write | Blocking, BlockingCommands.BZMPop, keys: "RW access delete i=2 n=0,1,1", group: "sorted-set",
            keyFinder: BlockingCommands.MPopKeys)
        {
            Summary = "Pops the lowest or highest members of the first non-empty sorted set, waiting while all are empty.",
            Since = "7.0.0", Complexity = "O(K + M log N), K = keys, M = members popped",
            Args = "timeout:double numkeys:integer key:key... where(MIN | MAX) [COUNT=count:integer]",
        },
    ];
}
