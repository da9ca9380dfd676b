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
    ];
}
