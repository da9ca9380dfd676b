using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>FAILOVER: a master hands its role to a replica (Replication/Failover.cs).</summary>
    private static IEnumerable<CommandDef> FailoverRows() =>
    [
        new("failover", -1, Admin | NoScript | Stale, Replication.Failover.Command, group: "server")
        {
            Summary = "Hands the master's role to one of its replicas once it has every write, writes held meanwhile.",
            Since = "6.2.0", Complexity = "O(1)", Acl = "dangerous",
            Args = "[TO=target{host port:integer [FORCE]}] [ABORT] [TIMEOUT=milliseconds:integer]",
        },
    ];
}
