using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The lists family (handlers in <see cref="ListCommands"/>).</summary>
    private static IEnumerable<CommandDef> ListRows() =>
    [
        new("lpush", -3, Write | DenyOom | Fast, ListCommands.LPush, keys: "RW insert", group: "list")
        {
            Summary = "Adds elements at the head of a list, creating it when missing; returns the new length.",
            Since = "1.0.0", Complexity = "O(1) per element added", Args = "key:key element...",
            History = "2.4.0: Several elements accepted",
        },
        new("rpush", -3, Write | DenyOom | Fast, ListCommands.RPush, keys: "RW insert", group: "list")
        {
            Summary = "Adds elements at the tail of a list, creating it when missing; returns the new length.",
            Since = "1.0.0", Complexity = "O(1) per element added", Args = "key:key element...",
            History = "2.4.0: Several elements accepted",
        },
        new("lpushx", -3, Write | DenyOom | Fast, ListCommands.LPushX, keys: "RW insert", group: "list")
        {
            Summary = "Adds elements at the head of a list only when the list exists.",
            Since = "2.2.0", Complexity = "O(1) per element added", Args = "key:key element...",
            History = "4.0.0: Several elements accepted",
        },
        new("rpushx", -3, Write | DenyOom | Fast, ListCommands.RPushX, keys: "RW insert", group: "list")
        {
            Summary = "Adds elements at the tail of a list only when the list exists.",
            Since = "2.2.0", Complexity = "O(1) per element added", Args = "key:key element...",
            History = "4.0.0: Several elements accepted",
        },
        new("lpop", -2, Write | Fast, ListCommands.LPop, keys: "RW access delete", group: "list")
        {
            Summary = "Removes and returns the first element of a list, or the first count elements.",
            Since = "1.0.0", Complexity = "O(N), N = elements returned", Args = "key:key [count:integer@6.2.0]",
            History = "6.2.0: count argument",
        },
        new("rpop", -2, Write | Fast, ListCommands.RPop, keys: "RW access delete", group: "list")
        {
            Summary = "Removes and returns the last element of a list, or the last count elements.",
            Since = "1.0.0", Complexity = "O(N), N = elements returned", Args = "key:key [count:integer@6.2.0]",
            History = "6.2.0: count argument",
        },
        new("llen", 2, ReadOnly | Fast, ListCommands.LLen, keys: "RO", group: "list")
        {
            Summary = "Returns the number of elements in a list.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key",
        },
        new("lrange", 4, ReadOnly, ListCommands.LRange, keys: "RO access", group: "list")
        {
            Summary = "Returns the elements of a list between two indexes, both included.",
            Since = "1.0.0", Complexity = "O(S+N), S = distance of start from the nearer end, N = elements returned",
            Args = "key:key start:integer stop:integer",
        },
        new("lindex", 3, ReadOnly, ListCommands.LIndex, keys: "RO access", group: "list")
        {
            Summary = "Returns the element at an index of a list.",
            Since = "1.0.0", Complexity = "O(N), N = elements walked to reach the index (O(1) at either end)",
            Args = "key:key index:integer",
        },
        new("lset", 4, Write | DenyOom, ListCommands.LSet, keys: "RW update", group: "list")
        {
            Summary = "Replaces the element at an index of a list.",
            Since = "1.0.0", Complexity = "O(N), N = elements walked to reach the index (O(1) at either end)",
            Args = "key:key index:integer element",
        },
        new("linsert", 5, Write | DenyOom, ListCommands.LInsert, keys: "RW insert", group: "list")
        {
            Summary = "Inserts an element before or after the first occurrence of a pivot element.",
            Since = "2.2.0", Complexity = "O(N), N = elements walked to find the pivot",
            Args = "key:key where(BEFORE | AFTER) pivot element",
        },
        new("lrem", 4, Write, ListCommands.LRem, keys: "RW delete", group: "list")
        {
            Summary = "Removes elements equal to a value from a list, from the head, the tail or everywhere.",
            Since = "1.0.0", Complexity = "O(N+M), N = list length, M = elements removed", Args = "key:key count:integer element",
        },
        new("ltrim", 4, Write, ListCommands.LTrim, keys: "RW delete", group: "list")
        {
            Summary = "Keeps only the elements of a list between two indexes.",
            Since = "1.0.0", Complexity = "O(N), N = elements removed", Args = "key:key start:integer stop:integer",
        },
        new("lpos", -3, ReadOnly, ListCommands.LPos, keys: "RO access", group: "list")
        {
            Summary = "Returns the index of matching elements in a list.",
            Since = "6.0.6", Complexity = "O(N), N = elements compared",
            Args = "key:key element [RANK=rank:integer] [COUNT=num-matches:integer] [MAXLEN=len:integer]",
        },
        new("rpoplpush", 3, Write | DenyOom, ListCommands.RPopLPush, keys: "RW access delete; RW insert", group: "list")
        {
            Summary = "Moves the last element of a list to the head of another list and returns it.",
            Since = "1.2.0", Complexity = "O(1)", Args = "source:key destination:key", DeprecatedSince = "6.2.0",
            ReplacedBy = "`LMOVE` with the `RIGHT` and `LEFT` arguments",
        },
        new("lmove", 5, Write | DenyOom, ListCommands.LMove, keys: "RW access delete; RW insert", group: "list")
        {
            Summary = "Moves an element from one end of a list to an end of another list and returns it.",
            Since = "6.2.0", Complexity = "O(1)", Args = "source:key destination:key wherefrom(LEFT | RIGHT) whereto(LEFT | RIGHT)",
        },
        // Keys follow numkeys: the finder gives them to the dispatcher (movable keys).
        new("lmpop", -4, Write, ListCommands.LMPop, keys: "RW access delete i=1 n=0,1,1", group: "list",
            keyFinder: ListCommands.LMPopKeys)
        {
            Summary = "Pops elements from the first non-empty list among several keys.",
            Since = "7.0.0", Complexity = "O(N+M), N = keys given, M = elements returned",
            Args = "numkeys:integer key:key... where(LEFT | RIGHT) [COUNT=count:integer]",
        },
    ];
}
