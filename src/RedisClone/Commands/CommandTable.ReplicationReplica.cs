using static RedisClone.Commands.CommandFlags;
using static RedisClone.Commands.Routing;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The replica side of replication: REPLICAOF, SLAVEOF.</summary>
    private static IEnumerable<CommandDef> ReplicationReplicaRows()
    {
        const CommandFlags Flags = Admin | NoScript | Stale | NoAsyncLoading;
        const string Args = "args(host-port{host:string port:integer} | no-one{NO ONE})";
        return
        [
            new("replicaof", 3, Flags, Replication.ReplicaCommands.ReplicaOf, group: "server")
            {
                Summary = "Makes this server a replica of another one, or a master again.",
                Since = "5.0.0", Complexity = "O(1)", Args = Args,
            },
            new("slaveof", 3, Flags, Replication.ReplicaCommands.ReplicaOf, group: "server")
            {
                Summary = "Makes this server a replica of another one, or a master again.",
                Since = "1.0.0", Complexity = "O(1)", Args = Args,
                DeprecatedSince = "5.0.0", ReplacedBy = "`REPLICAOF`",
            },
        ];
    }
}
