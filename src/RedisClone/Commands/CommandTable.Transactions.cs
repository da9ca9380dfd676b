using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>MULTI/EXEC/WATCH rows. EXEC itself is run by the dispatcher (ClientConnection.Transactions.cs).</summary>
    private static IEnumerable<CommandDef> TransactionRows()
    {
        const CommandFlags Tx = NoScript | Loading | Stale;
        return
        [
            //  name           arity  flags                            first last step handler
            new("multi",           1, Tx | Fast | AllowBusy,               0,  0, 0, TransactionCommands.Multi, group: "transactions"),
            new("exec",            1, Tx | SkipSlowlog,                    0,  0, 0, TransactionCommands.Exec, group: "transactions"),
            new("discard",         1, Tx | Fast | AllowBusy,               0,  0, 0, TransactionCommands.Discard, group: "transactions"),
            new("watch",          -2, Tx | Fast | AllowBusy,               1, -1, 1, TransactionCommands.Watch, group: "transactions"),
            new("unwatch",         1, Tx | Fast | AllowBusy,               0,  0, 0, TransactionCommands.Unwatch, group: "transactions"),
        ];
    }
}
