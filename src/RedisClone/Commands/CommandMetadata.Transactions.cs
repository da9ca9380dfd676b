namespace RedisClone.Commands;

internal static partial class CommandMetadata
{
    /// <summary>The transaction commands' metadata entries (same syntax as CoreEntries).</summary>
    private static MetadataEntry[] TransactionEntries() =>
    [
        E("multi", "1.2.0", "Starts a transaction: later commands are queued until EXEC.", "O(1)"),
        E("exec", "1.2.0", "Runs every queued command of the transaction atomically and returns their replies.", "Depends on the queued commands"),
        E("discard", "2.0.0", "Drops the queued commands and leaves the transaction.", "O(N), N = queued commands"),
        E("watch", "2.2.0", "Makes the next EXEC fail if any of these keys changes first.", "O(1) per key",
            args: "key:key...", keys: "RO"),
        E("unwatch", "2.2.0", "Forgets every key watched by this connection.", "O(1)"),
    ];
}
