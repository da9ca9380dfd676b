using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Replication;

namespace RedisClone.Commands;

/// <summary>
/// The master side of replication's commands: SYNC, PSYNC and REPLCONF, as a replica (redis-server,
/// redis-cli --replica or --rdb) sends them. The work is in Replication/ReplicationMaster.
/// </summary>
internal static class ReplicationMasterCommands
{
    /// <summary>
    /// SYNC | PSYNC replicationid offset — the connection becomes a replica: +CONTINUE and the
    /// backlog from the offset (partial resync), or +FULLRESYNC replid offset with the RDB of a
    /// snapshot taken at that offset, then the stream (SYNC: the RDB without the +FULLRESYNC line).
    /// </summary>
    public static void Sync(ref CommandContext ctx) => ctx.Server.Replication.Master.Sync(ref ctx);

    /// <summary>
    /// REPLCONF option value [option value ...] — listening-port, ip-address, capa eof|psync2,
    /// rdb-only 0|1, rdb-filter-only filters: +OK. ACK offset [FACK aofoffset] (from a replica)
    /// and GETACK (to a replica) reply nothing.
    /// </summary>
    public static void ReplConf(ref CommandContext ctx)
    {
        if (ctx.ArgCount % 2 == 0)
        {
            ctx.Syntax();
            return;
        }
        var link = ctx.Client.ReplicaLink ??= new ReplicaLink(ctx.Client);
        for (int j = 1; j < ctx.ArgCount; j += 2)
        {
            if (ctx.ArgIs(j, "LISTENING-PORT"))
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out long port))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                link.ListeningPort = port;
            }
            else if (ctx.ArgIs(j, "IP-ADDRESS"))
            {
                var address = ctx.Arg(j + 1);
                if (address.Length >= NetHostStrLen)
                {
                    ctx.Error($"ERR REPLCONF ip-address provided by replica instance is too long: {address.Length} bytes");
                    return;
                }
                link.AnnouncedIp = RespErrors.Latin(address);
            }
            else if (ctx.ArgIs(j, "CAPA"))
            {
                // Capabilities this master does not know are ignored, as Redis does.
                if (ctx.ArgIs(j + 1, "EOF")) link.CapaEof = true;
                else if (ctx.ArgIs(j + 1, "PSYNC2")) link.CapaPsync2 = true;
            }
            else if (ctx.ArgIs(j, "ACK"))
            {
                // Only from a replica, and never answered (a bad offset is ignored too).
                if (!link.Attached || !RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out long offset)) return;
                long aofOffset = 0;
                if (ctx.ArgCount > j + 3 && ctx.ArgIs(j + 2, "FACK") && !RedisNumbers.TryParseInt64(ctx.Arg(j + 3), out aofOffset)) return;
                ctx.Server.Replication.Master.Ack(link, offset, aofOffset);
                return;
            }
            else if (ctx.ArgIs(j, "GETACK"))
            {
                // A master asks its replica (the replica side answers through its own link); no reply.
                return;
            }
            else if (ctx.ArgIs(j, "RDB-ONLY"))
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out long rdbOnly))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (rdbOnly < 0 || rdbOnly > 1)
                {
                    ctx.Error("ERR value is out of range, value must between 0 and 1");
                    return;
                }
                link.RdbOnly = rdbOnly == 1;
            }
            else if (ctx.ArgIs(j, "RDB-FILTER-ONLY"))
            {
                var filters = InlineSplitter.Split(RespErrors.Latin(ctx.Arg(j + 1)));
                if (filters == null)
                {
                    ctx.Error("ERR Missing rdb-filter-only values");
                    return;
                }
                // Everything is filtered out unless named.
                link.ExcludeData = true;
                link.ExcludeFunctions = true;
                foreach (string filter in filters)
                {
                    if (filter.Equals("functions", StringComparison.OrdinalIgnoreCase))
                    {
                        link.ExcludeFunctions = false;
                        continue;
                    }
                    ctx.Error($"ERR Unsupported rdb-filter-only option: {filter}");
                    return;
                }
            }
            else
            {
                ctx.Error($"ERR Unrecognized REPLCONF option: {ctx.ArgString(j)}");
                return;
            }
        }
        ctx.Reply.Raw(Resp.Ok);
    }

    /// <summary>NET_HOST_STR_LEN: the longest ip-address a replica may announce, plus one.</summary>
    private const int NetHostStrLen = 256;
}
