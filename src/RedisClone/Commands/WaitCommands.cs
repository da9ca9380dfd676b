using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;

namespace RedisClone.Commands;

/// <summary>
/// WAIT and WAITAOF: a client waits until its writes reached replicas (and, for WAITAOF, the local
/// AOF): the replicas that acknowledged (REPLCONF ACK, or ACK ... FACK for their AOF) the master
/// offset after the client's last write are counted. Enough already answers at once; otherwise the
/// replicas are asked for an ACK (REPLCONF GETACK * in the stream) and the client waits until enough
/// did or the timeout (0: forever), or CLIENT UNBLOCK. Inside MULTI or a script they answer at once.
/// </summary>
internal static class WaitCommands
{
    /// <summary>WAIT numreplicas timeout — the number of replicas that acknowledged the client's last write.</summary>
    public static void Wait(ref CommandContext ctx)
    {
        // A replica's writes are its own: there is nothing to wait for (checked before the arguments, as Redis).
        if (ctx.Server.Replication.IsReplica)
        {
            ctx.Error(RespErrors.WaitOnReplica);
            return;
        }
        if (!RedisNumbers.TryParseInt64(ctx.Arg(1), out long replicas))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (!TryTimeout(ref ctx, ctx.Arg(2), out long timeoutMs)) return;
        var master = ctx.Server.Replication.Master;
        long offset = ctx.Client.ReplOffset;
        long acked = master.CountAcks(offset);
        if (acked >= replicas || ctx.Client.DenyBlocking)
        {
            ctx.Reply.Integer(acked);
            return;
        }
        var blocked = new BlockedClient(ctx.DbIndex, [], BlockedOn.Replicas, timeoutMs) { ReplOffset = offset };
        blocked.Until = master.WaitForAcks(offset, replicas, aof: false, blocked.Done);
        Block(ref ctx, blocked);
    }

    /// <summary>
    /// WAITAOF numlocal numreplicas timeout — [local, replicas]: local is 1 once the client's last
    /// write is in the AOF (numlocal 1 needs appendonly yes), replicas counts those with it in theirs.
    /// Answers at once when that already meets both counts, else when it does or at the timeout.
    /// </summary>
    /// <remarks>
    /// "In the AOF" is what this server's AOF writer reports as durable: fsynced under appendfsync
    /// always, written (handed to the OS) under everysec and no, where Redis waits for its next fsync.
    /// </remarks>
    public static void WaitAof(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(1), out long local))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (local < 0 || local > 1)
        {
            ctx.Error(RespErrors.WaitAofNumLocalRange);
            return;
        }
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long replicas))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (replicas < 0)
        {
            ctx.Error(RespErrors.NotPositive);
            return;
        }
        if (!TryTimeout(ref ctx, ctx.Arg(3), out long timeoutMs)) return;
        if (ctx.Server.Replication.IsReplica)
        {
            ctx.Error(RespErrors.WaitAofOnReplica);
            return;
        }
        var aof = ctx.Server.Aof;
        if (local != 0 && !ctx.Server.Config.AppendOnly)
        {
            ctx.Error(RespErrors.WaitAofNoAof);
            return;
        }
        var master = ctx.Server.Replication.Master;
        long seq = ctx.Client.AofSequence;
        long offset = ctx.Client.ReplOffset;
        bool onDisk = aof != null && aof.Durable >= seq;
        long acked = master.CountAcks(offset, aof: true);
        if ((onDisk || local == 0) && acked >= replicas || ctx.Client.DenyBlocking)
        {
            ctx.Reply.ArrayHeader(2);
            ctx.Reply.Integer(onDisk ? 1 : 0);
            ctx.Reply.Integer(acked);
            return;
        }
        var blocked = new BlockedClient(ctx.DbIndex, [], BlockedOn.AofSync, timeoutMs) { AofSequence = seq, ReplOffset = offset };
        var localDone = local != 0 && aof != null ? aof.WaitDurableAsync(seq) : Task.CompletedTask;
        var replicasDone = replicas > 0 ? master.WaitForAcks(offset, replicas, aof: true, blocked.Done) : Task.CompletedTask;
        blocked.Until = Task.WhenAll(localDone, replicasDone);
        Block(ref ctx, blocked);
    }

    private static void Block(ref CommandContext ctx, BlockedClient blocked)
    {
        Interlocked.Increment(ref ctx.Server.BlockedClientCount);
        ctx.Client.Blocked = blocked;
    }

    /// <summary>Milliseconds as an integer (Redis's getTimeoutFromObjectOrReply in ms), 0 = forever.</summary>
    private static bool TryTimeout(ref CommandContext ctx, ReadOnlySpan<byte> arg, out long timeoutMs)
    {
        if (!RedisNumbers.TryParseInt64(arg, out timeoutMs))
        {
            ctx.Error(RespErrors.TimeoutNotInteger);
            return false;
        }
        if (timeoutMs < 0)
        {
            ctx.Error(RespErrors.TimeoutNegative);
            return false;
        }
        return true;
    }
}
