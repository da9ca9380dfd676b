using System.Text;
using RedisClone.Server;

namespace RedisClone.Replication;

/// <summary>INFO's replication section, as Redis prints it for a master or a replica.</summary>
internal static class ReplicationInfo
{
    public static void Append(StringBuilder sb, RedisServer server)
    {
        var repl = server.Replication;
        var backlog = repl.Backlog;
        Line(sb, "role", repl.IsReplica ? "slave" : "master");
        if (repl.IsReplica) AppendReplicaFields(sb, server);
        AppendMasterFields(sb, server);
        Line(sb, "master_failover_state", repl.Failover.StateName);
        Line(sb, "master_replid", repl.ReplicationId);
        Line(sb, "master_replid2", repl.ReplicationId2);
        Line(sb, "master_repl_offset", repl.Offset);
        Line(sb, "second_repl_offset", repl.SecondReplicationOffset);
        Line(sb, "repl_backlog_active", backlog != null ? 1 : 0);
        Line(sb, "repl_backlog_size", server.Config.ReplBacklogSize);
        Line(sb, "repl_backlog_first_byte_offset", backlog?.FirstByteOffset ?? 0);
        Line(sb, "repl_backlog_histlen", backlog?.HistoryLength ?? 0);
    }

    /// <summary>A replica's fields, from master_host to replica_announced (the replica side fills these).</summary>
    private static void AppendReplicaFields(StringBuilder sb, RedisServer server) => server.Replica.AppendInfo(sb);

    /// <summary>connected_slaves and a slaveN line per replica (the master side fills these).</summary>
    private static void AppendMasterFields(StringBuilder sb, RedisServer server)
    {
        var master = server.Replication.Master;
        var replicas = master.Replicas;
        Line(sb, "connected_slaves", replicas.Length);
        var config = server.Config;
        if (config.MinReplicasToWrite != 0 && config.MinReplicasMaxLag != 0) Line(sb, "min_slaves_good_slaves", master.GoodReplicas);
        int n = 0;
        long nowSeconds = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        foreach (var link in replicas)
        {
            string state = ReplicationMaster.StateName(link.State);
            if (state.Length == 0) continue;
            long lag = link.State == ReplicaState.Online ? nowSeconds - link.AckTimeMs / 1000 : 0;
            sb.Append("slave").Append(n++).Append(":ip=").Append(link.Ip).Append(",port=").Append(link.ListeningPort)
              .Append(",state=").Append(state).Append(",offset=").Append(link.AckOffset).Append(",lag=").Append(lag).Append("\r\n");
        }
    }

    private static void Line(StringBuilder sb, string key, string value) => sb.Append(key).Append(':').Append(value).Append("\r\n");

    private static void Line(StringBuilder sb, string key, long value) => sb.Append(key).Append(':').Append(value).Append("\r\n");
}
