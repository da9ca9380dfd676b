using static RedisClone.Commands.CommandFlags;
using static RedisClone.Commands.Routing;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The replica side of replication: REPLICAOF, SLAVEOF.</summary>
    private static IEnumerable<CommandDef> ReplicationReplicaRows() => [];
}
