namespace RedisClone.Commands;

internal static partial class CommandMetadata
{
    private const string SortArgs =
        "key:key [BY=pattern:pattern#1] [LIMIT=offset_count{offset:integer count:integer}] [GET=pattern:pattern#1...+] "
        + "[order(ASC | DESC)] [sorting:ALPHA]";

    private const string SortComplexity =
        "O(N + M log M): N elements read from the key, M of them sorted and returned; O(N) when nothing is sorted.";

    private const string PatternKeysSpec =
        "RO access bs=unknown fk=unknown -- For the optional BY/GET keyword. It is marked 'unknown' because the key names "
        + "derive from the content of the key we sort";

    /// <summary>The sort family's metadata entries (same syntax as CoreEntries).</summary>
    private static MetadataEntry[] SortEntries() =>
    [
        E("sort", "1.0.0", "Orders the elements of a list, set or sorted set, optionally by or with values of other keys, "
                + "and returns them or stores them as a list.", SortComplexity,
            args: SortArgs + " [STORE=destination:key#2]",
            keys: "RO access; " + PatternKeysSpec + "; OW update bs=unknown fk=unknown -- For the optional STORE keyword. "
                + "It is marked 'unknown' because the keyword can appear anywhere in the argument array",
            acl: "set sortedset list dangerous",
            varFlags: SortCommands.KeyFlags),
        E("sort_ro", "7.0.0", "Orders the elements of a list, set or sorted set and returns them (SORT without STORE).",
            SortComplexity,
            args: SortArgs,
            keys: "RO access; " + PatternKeysSpec,
            acl: "set sortedset list dangerous"),
    ];
}
