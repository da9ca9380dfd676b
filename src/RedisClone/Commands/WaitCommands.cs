using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;

namespace RedisClone.Commands;

/// <summary>
/// WAIT and WAITAOF: a client waits until its writes reached replicas (and, for WAITAOF, the local
/// AOF). There are no replicas here, so the replica count is always 0: asking for none answers at
/// once, asking for some waits out the timeout (0: forever) unless CLIENT UNBLOCK ends it first,
/// as a Redis master without replicas does. Inside MULTI or a script they answer at once.
/// </summary>
internal static class WaitCommands
{
    /// <summary>WAIT numreplicas timeout — 0 at once when numreplicas &lt;= 0, else 0 after the timeout (ms).</summary>
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
        if (replicas <= 0 || ctx.Client.DenyBlocking)
        {
            ctx.Reply.Integer(0);
            return;
        }
        Block(ref ctx, new BlockedClient(ctx.DbIndex, [], BlockedOn.Replicas, timeoutMs));
    }

    /// <summary>
    /// WAITAOF numlocal numreplicas timeout — [local, replicas]: local is 1 once the client's last
    /// write is in the AOF (numlocal 1 needs appendonly yes), replicas is 0. Answers at once when
    /// that already meets both counts, else when it does or at the timeout.
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
        var aof = ctx.Server.Aof;
        if (local != 0 && !ctx.Server.Config.AppendOnly)
        {
            ctx.Error(RespErrors.WaitAofNoAof);
            return;
        }
        long seq = ctx.Client.AofSequence;
        bool onDisk = aof != null && aof.Durable >= seq;
        if ((onDisk || local == 0) && replicas == 0 || ctx.Client.DenyBlocking)
        {
            ctx.Reply.ArrayHeader(2);
            ctx.Reply.Integer(onDisk ? 1 : 0);
            ctx.Reply.Integer(0);
            return;
        }
        // With replicas asked for, only the timeout ends the wait (none will ever acknowledge).
        var until = replicas == 0 && aof != null ? aof.WaitDurableAsync(seq) : null;
        Block(ref ctx, new BlockedClient(ctx.DbIndex, [], BlockedOn.AofSync, timeoutMs) { Until = until, AofSequence = seq });
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
