namespace RedisClone.Commands;

internal static partial class CommandMetadata
{
    /// <summary>The blocking list commands' metadata entries (same syntax as CoreEntries).</summary>
    private static MetadataEntry[] BlockingEntries() =>
    [
        E("blpop", "2.0.0", "Pops the first element of the first non-empty list, waiting for one when all are empty.", "O(N), N = keys",
            args: "key:key... timeout:double", keys: "RW access delete", history: "6.0.0: timeout is a double instead of an integer"),
        E("brpop", "2.0.0", "Pops the last element of the first non-empty list, waiting for one when all are empty.", "O(N), N = keys",
            args: "key:key... timeout:double", keys: "RW access delete", history: "6.0.0: timeout is a double instead of an integer"),
        E("brpoplpush", "2.2.0", "Moves the last element of a list to the head of another, waiting for one when the source is empty.", "O(1)",
            args: "source:key destination:key timeout:double", keys: "RW access delete; RW insert",
            history: "6.0.0: timeout is a double instead of an integer", deprecated: "6.2.0", replacedBy: "BLMOVE with RIGHT and LEFT"),
        E("blmove", "6.2.0", "Moves an element between lists, waiting for one when the source is empty.", "O(1)",
            args: "source:key destination:key wherefrom(LEFT | RIGHT) whereto(LEFT | RIGHT) timeout:double",
            keys: "RW access delete; RW insert"),
        E("blmpop", "7.0.0", "Pops elements from the first non-empty list among several keys, waiting while all are empty.",
            "O(N+M), N = keys given, M = elements returned",
            args: "timeout:double numkeys:integer key:key... where(LEFT | RIGHT) [COUNT=count:integer]",
            keys: "RW access delete i=2 n=0,1,1"),
        E("bzpopmin", "5.0.0", "Pops the lowest-scored member of the first non-empty sorted set, waiting while all are empty.",
            "O(log N)", args: "key:key... timeout:double", keys: "RW access delete",
            history: "6.0.0: timeout is a double instead of an integer"),
        E("bzpopmax", "5.0.0", "Pops the highest-scored member of the first non-empty sorted set, waiting while all are empty.",
            "O(log N)", args: "key:key... timeout:double", keys: "RW access delete",
            history: "6.0.0: timeout is a double instead of an integer"),
        E("bzmpop", "7.0.0", "Pops the lowest or highest members of the first non-empty sorted set, waiting while all are empty.",
            "O(K + M log N), K = keys, M = members popped",
            args: "timeout:double numkeys:integer key:key... where(MIN | MAX) [COUNT=count:integer]",
            keys: "RW access delete i=2 n=0,1,1"),
    ];
}
