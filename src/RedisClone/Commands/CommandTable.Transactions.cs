using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>MULTI/EXEC/WATCH. EXEC itself is run by the dispatcher (ClientConnection.Transactions.cs).</summary>
    private static IEnumerable<CommandDef> TransactionRows()
    {
        const CommandFlags Tx = NoScript | Loading | Stale;
        return
        [
            new("multi", 1, Tx | Fast | AllowBusy, TransactionCommands.Multi, group: "transactions")
            {
                Summary = "Starts a transaction: later commands are queued until EXEC.",
                Since = "1.2.0", Complexity = "O(1)",
            },
            new("exec", 1, Tx | SkipSlowlog, TransactionCommands.Exec, group: "transactions")
            {
                Summary = "Runs every queued command of the transaction atomically and returns their replies.",
                Since = "1.2.0", Complexity = "Depends on the queued commands",
            },
            new("discard", 1, Tx | Fast | AllowBusy, TransactionCommands.Discard, group: "transactions")
            {
                Summary = "Drops the queued commands and leaves the transaction.",
                Since = "2.0.0", Complexity = "O(N), N = queued commands",
            },
            new("watch", -2, Tx | Fast | AllowBusy, TransactionCommands.Watch, keys: "RO r=-1,1,0", group: "transactions")
            {
                Summary = "Makes the next EXEC fail if any of these keys changes first.",
                Since = "2.2.0", Complexity = "O(1) per key", Args = "key:key...",
            },
            new("unwatch", 1, Tx | Fast | AllowBusy, TransactionCommands.Unwatch, group: "transactions")
            {
                Summary = "Forgets every key watched by this connection.",
                Since = "2.2.0", Complexity = "O(1)",
            },
        ];
    }
}
