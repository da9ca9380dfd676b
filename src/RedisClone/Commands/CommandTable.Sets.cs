using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The sets family (handlers in <see cref="SetCommands"/>).</summary>
    private static IEnumerable<CommandDef> SetRows() =>
    [
        new("sadd", -3, Write | DenyOom | Fast, SetCommands.SAdd, keys: "RW insert", group: "set")
        {
            Summary = "Adds members to a set, creating it when missing; returns how many were new.",
            Since = "1.0.0", Complexity = "O(1) per member added", Args = "key:key member...",
            History = "2.4.0: Several members accepted",
        },
        new("srem", -3, Write | Fast, SetCommands.SRem, keys: "RW delete", group: "set")
        {
            Summary = "Removes members from a set, deleting the key when it empties; returns how many were removed.",
            Since = "1.0.0", Complexity = "O(N), N = members given", Args = "key:key member...",
            History = "2.4.0: Several members accepted",
        },
        new("scard", 2, ReadOnly | Fast, SetCommands.SCard, keys: "RO", group: "set")
        {
            Summary = "Returns how many members a set has.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key",
        },
        new("sismember", 3, ReadOnly | Fast, SetCommands.SIsMember, keys: "RO", group: "set")
        {
            Summary = "Tells whether a value is a member of a set.",
            Since = "1.0.0", Complexity = "O(1)", Args = "key:key member",
        },
        new("smismember", -3, ReadOnly | Fast, SetCommands.SMIsMember, keys: "RO access", group: "set")
        {
            Summary = "Tells, for each of several values, whether it is a member of a set.",
            Since = "6.2.0", Complexity = "O(N), N = values checked", Args = "key:key member...",
        },
        new("smembers", 2, ReadOnly, SetCommands.SMembers, keys: "RO access", group: "set")
        {
            Summary = "Returns every member of a set.",
            Since = "1.0.0", Complexity = "O(N), N = members", Args = "key:key", Tips = "nondeterministic_output_order",
        },
        new("spop", -2, Write | Fast, SetCommands.SPop, keys: "RW access delete", group: "set")
        {
            Summary = "Removes and returns one or several random members of a set.",
            Since = "1.0.0", Complexity = "O(1) without count, else O(N), N = count", Args = "key:key [count:integer@3.2.0]",
            Tips = "nondeterministic_output", History = "3.2.0: count argument",
        },
        new("srandmember", -2, ReadOnly, SetCommands.SRandMember, keys: "RO access", group: "set")
        {
            Summary = "Returns one or several random members of a set; a negative count allows repeats.",
            Since = "1.0.0", Complexity = "O(1) without count, else O(N), N = |count|", Args = "key:key [count:integer@2.6.0]",
            Tips = "nondeterministic_output", History = "2.6.0: count argument",
        },
        new("smove", 4, Write | Fast, SetCommands.SMove, keys: "RW access delete; RW insert", group: "set")
        {
            Summary = "Moves a member from one set to another.",
            Since = "1.0.0", Complexity = "O(1)", Args = "source:key destination:key member",
        },
        new("sinter", -2, ReadOnly, SetCommands.SInter, keys: "RO access r=-1,1,0", group: "set")
        {
            Summary = "Returns the members common to every given set.",
            Since = "1.0.0", Complexity = "O(N*M) worst case, N = smallest set, M = sets", Args = "key:key...",
            Tips = "nondeterministic_output_order",
        },
        // numkeys-style keys: the finder reads numkeys so the dispatcher takes every key's gate.
        new("sintercard", -3, ReadOnly, SetCommands.SInterCard, keys: "RO access i=1 n=0,1,1", group: "set",
            keyFinder: SetCommands.SInterCardKeys)
        {
            Summary = "Returns the size of the intersection of sets, optionally counting no further than a limit.",
            Since = "7.0.0", Complexity = "O(N*M) worst case, N = smallest set, M = sets",
            Args = "numkeys:integer key:key... [LIMIT=limit:integer]",
        },
        new("sinterstore", -3, Write | DenyOom, SetCommands.SInterStore, keys: "RW update; RO access r=-1,1,0", group: "set")
        {
            Summary = "Stores the intersection of sets at a key; returns its size.",
            Since = "1.0.0", Complexity = "O(N*M) worst case, N = smallest set, M = sets", Args = "destination:key key:key...",
        },
        new("sunion", -2, ReadOnly, SetCommands.SUnion, keys: "RO access r=-1,1,0", group: "set")
        {
            Summary = "Returns the members of any of the given sets.",
            Since = "1.0.0", Complexity = "O(N), N = members of all sets", Args = "key:key...",
            Tips = "nondeterministic_output_order",
        },
        new("sunionstore", -3, Write | DenyOom, SetCommands.SUnionStore, keys: "OW update; RO access r=-1,1,0", group: "set")
        {
            Summary = "Stores the union of sets at a key; returns its size.",
            Since = "1.0.0", Complexity = "O(N), N = members of all sets", Args = "destination:key key:key...",
        },
        new("sdiff", -2, ReadOnly, SetCommands.SDiff, keys: "RO access r=-1,1,0", group: "set")
        {
            Summary = "Returns the members of the first set that no other given set holds.",
            Since = "1.0.0", Complexity = "O(N), N = members of all sets", Args = "key:key...",
            Tips = "nondeterministic_output_order",
        },
        new("sdiffstore", -3, Write | DenyOom, SetCommands.SDiffStore, keys: "OW update; RO access r=-1,1,0", group: "set")
        {
            Summary = "Stores the difference of sets at a key; returns its size.",
            Since = "1.0.0", Complexity = "O(N), N = members of all sets", Args = "destination:key key:key...",
        },
        new("sscan", -3, ReadOnly, SetCommands.SScan, keys: "RO access", group: "set")
        {
            Summary = "Iterates over the members of a set, a batch per call.",
            Since = "2.8.0", Complexity = "O(1) per call, O(N) for a whole iteration",
            Args = "key:key cursor:integer [MATCH=pattern:pattern] [COUNT=count:integer]", Tips = "nondeterministic_output",
        },
    ];
}
