using RedisClone.Commands;
using RedisClone.Common;
using RedisClone.Protocol;

namespace RedisClone.Replication;

/// <summary>REPLICAOF and SLAVEOF: the replica side's commands (Redis's replicaofCommand).</summary>
internal static class ReplicaCommands
{
    /// <summary>
    /// REPLICAOF host port | REPLICAOF NO ONE — follows a master (connecting in the background;
    /// "+OK Already connected to specified master" when it already does), or becomes a master again
    /// keeping its data. SLAVEOF is the same command under its old name.
    /// </summary>
    public static void ReplicaOf(ref CommandContext ctx)
    {
        // A cluster node's master is set with CLUSTER REPLICATE.
        if (ctx.Server.Cluster != null)
        {
            ctx.Error(RespErrors.ReplicaOfInClusterMode);
            return;
        }
        var role = ctx.Server.Replica;
        if (ctx.Server.Replication.Failover.State != FailoverState.None)
        {
            ctx.Error(RespErrors.ReplicaOfDuringFailover);
            return;
        }
        if (ctx.ArgIs(1, "NO") && ctx.ArgIs(2, "ONE"))
        {
            if (role.UnsetMaster())
                ctx.Server.Log.Notice($"MASTER MODE enabled (user request from '{ConnectionCommands.ClientInfoLine(ctx.Client)}')");
            ctx.Reply.Ok();
            return;
        }
        // A replica of ours would be dropped by the change it asks for (Redis 7.2 checks this
        // after NO ONE, before the port). Its link takes no replies: the error goes nowhere.
        if (ctx.Client.ReplicaLink is { Attached: true })
        {
            ctx.Error(RespErrors.ReplicaOfByReplica);
            return;
        }
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long port) || port < 0 || port > 65535)
        {
            ctx.Error(RespErrors.InvalidMasterPort);
            return;
        }
        string host = ctx.ArgString(1);
        if (!role.SetMaster(host, (int)port))
        {
            ctx.Reply.Raw("+OK Already connected to specified master\r\n"u8);
            return;
        }
        ctx.Server.Log.Notice($"REPLICAOF {host}:{port} enabled (user request from '{ConnectionCommands.ClientInfoLine(ctx.Client)}')");
        ctx.Reply.Ok();
    }
}
