using static RedisClone.Commands.CommandFlags;
using static RedisClone.Commands.Routing;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The master side of replication: SYNC, PSYNC, REPLCONF.</summary>
    private static IEnumerable<CommandDef> ReplicationMasterRows() => [];
}
