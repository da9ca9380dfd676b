using static RedisClone.Commands.CommandFlags;
using static RedisClone.Commands.Routing;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>The master side of replication: SYNC, PSYNC, REPLCONF.</summary>
    private static IEnumerable<CommandDef> ReplicationMasterRows() =>
    [
        new("sync", 1, Admin | NoScript | NoAsyncLoading | NoMulti, ReplicationMasterCommands.Sync, group: "server")
        {
            Summary = "Asks for the replication stream the old way: the RDB, then the commands.",
            Since = "1.0.0", Complexity = "", Acl = "admin dangerous",
        },
        new("psync", -3, Admin | NoScript | NoAsyncLoading | NoMulti, ReplicationMasterCommands.Sync, group: "server")
        {
            Summary = "Asks for the replication stream from an offset: the backlog from there, or a full sync.",
            Since = "2.8.0", Complexity = "", Args = "replicationid:string offset:integer", Acl = "admin dangerous",
        },
        new("replconf", -1, Admin | NoScript | Loading | Stale | AllowBusy, ReplicationMasterCommands.ReplConf, group: "server")
        {
            Summary = "Sets a replica's replication options, or acknowledges the stream it processed.",
            Since = "3.0.0", Complexity = "O(1)", Acl = "admin dangerous", SysCmd = true,
        },
    ];
}
