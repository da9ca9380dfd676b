using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    private const string SortArgs =
        "key:key [BY=pattern:pattern#1] [LIMIT=offset_count{offset:integer count:integer}] [GET=pattern:pattern#1...+] "
        + "[order(ASC | DESC)] [sorting:ALPHA]";

    private const string SortComplexity =
        "O(N + M log M): N elements read from the key, M of them sorted and returned; O(N) when nothing is sorted.";

    private const string PatternKeysSpec =
        "RO access bs=unknown fk=unknown -- For the optional BY/GET keyword. It is marked 'unknown' because the key names "
        + "derive from the content of the key we sort";

    /// <summary>SORT and SORT_RO (handlers in <see cref="SortCommands"/>).</summary>
    /// <remarks>
    /// The key finders name the sorted key and STORE's destination, and ask for every shard's gate
    /// when a BY or GET pattern can name keys (see <see cref="SortCommands"/>).
    /// </remarks>
    private static IEnumerable<CommandDef> SortRows() =>
    [
        new("sort", -2, Write | DenyOom, SortCommands.Sort,
            keys: "RO access; " + PatternKeysSpec + "; OW update bs=unknown fk=unknown -- For the optional STORE keyword. "
                + "It is marked 'unknown' because the keyword can appear anywhere in the argument array",
            keyFinder: SortCommands.SortKeys)
        {
            Summary = "Orders the elements of a list, set or sorted set, optionally by or with values of other keys, "
                + "and returns them or stores them as a list.",
            Since = "1.0.0", Complexity = SortComplexity, Args = SortArgs + " [STORE=destination:key#2]",
            Acl = "set sortedset list dangerous", VarFlags = SortCommands.KeyFlags,
        },
        new("sort_ro", -2, ReadOnly, SortCommands.SortRo, keys: "RO access; " + PatternKeysSpec, keyFinder: SortCommands.SortRoKeys)
        {
            Summary = "Orders the elements of a list, set or sorted set and returns them (SORT without STORE).",
            Since = "7.0.0", Complexity = SortComplexity, Args = SortArgs, Acl = "set sortedset list dangerous",
        },
    ];
}
