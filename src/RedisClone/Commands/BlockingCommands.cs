using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;

namespace RedisClone.Commands;

/// <summary>
/// BLPOP, BRPOP, BRPOPLPUSH, BLMOVE and CLIENT UNBLOCK. A blocking command that finds data behaves
/// like its non-blocking twin; otherwise it registers a <see cref="BlockedClient"/> on each key and
/// replies nothing: the dispatcher parks the connection (ClientConnection.Blocking.cs) until a write
/// to one of the keys wakes it (it then runs the command again), its timeout passes, CLIENT UNBLOCK
/// or a disconnect. Inside MULTI/EXEC they never block and reply nil at once, as in Redis.
/// </summary>
internal static class BlockingCommands
{
    /// <summary>BLPOP key [key ...] timeout — [key, element] from the first non-empty list, waiting when all are empty.</summary>
    public static void BLPop(ref CommandContext ctx) => PopFirst(ref ctx, head: true);

    /// <summary>BRPOP key [key ...] timeout — as BLPOP, from the tail.</summary>
    public static void BRPop(ref CommandContext ctx) => PopFirst(ref ctx, head: false);

    /// <summary>BRPOPLPUSH source destination timeout — RPOPLPUSH, waiting while the source is empty.</summary>
    public static void BRPopLPush(ref CommandContext ctx)
    {
        if (!TryTimeout(ref ctx, ctx.Arg(3), out long timeoutMs)) return;
        if (!SourceHasData(ref ctx))
        {
            BlockOrNil(ref ctx, 1, 1, timeoutMs);
            return;
        }
        ListCommands.RPopLPush(ref ctx); // uses only source and destination
        if (!ctx.Failed && !ctx.Unchanged) ctx.Propagation?.Rewrite(ctx.DbIndex).Add("RPOPLPUSH"u8).Add(ctx.Arg(1)).Add(ctx.Arg(2));
    }

    /// <summary>BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout — LMOVE, waiting while the source is empty.</summary>
    public static void BLMove(ref CommandContext ctx)
    {
        if (!IsSide(ctx.Arg(3)) || !IsSide(ctx.Arg(4)))
        {
            ctx.Syntax();
            return;
        }
        if (!TryTimeout(ref ctx, ctx.Arg(5), out long timeoutMs)) return;
        if (!SourceHasData(ref ctx))
        {
            BlockOrNil(ref ctx, 1, 1, timeoutMs);
            return;
        }
        ListCommands.LMove(ref ctx); // reads arguments 1 to 4
        if (!ctx.Failed && !ctx.Unchanged)
            ctx.Propagation?.Rewrite(ctx.DbIndex).Add("LMOVE"u8).Add(ctx.Arg(1)).Add(ctx.Arg(2)).Add(ctx.Arg(3)).Add(ctx.Arg(4));
    }

    /// <summary>BZPOPMIN key [key ...] timeout — [key, member, score] from the first non-empty sorted set, waiting when none.</summary>
    public static void BZPopMin(ref CommandContext ctx) => ZPopFirst(ref ctx, max: false);

    /// <summary>BZPOPMAX key [key ...] timeout — as BZPOPMIN, the highest score.</summary>
    public static void BZPopMax(ref CommandContext ctx) => ZPopFirst(ref ctx, max: true);

    /// <summary>BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count] — LMPOP, waiting while every list is empty.</summary>
    public static void BLMPop(ref CommandContext ctx) => MPopOrBlock(ref ctx, ListCommands.LMPop, sortedSets: false);

    /// <summary>BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count] — ZMPOP, waiting while every sorted set is empty.</summary>
    public static void BZMPop(ref CommandContext ctx) => MPopOrBlock(ref ctx, SortedSetCommands.ZMPop, sortedSets: true);

    /// <summary>Keys of BLMPOP/BZMPOP: numkeys at argument 2, the keys after it (none when numkeys is bad).</summary>
    public static int MPopKeys(ref CommandContext ctx, scoped Span<int> keys)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long n) || n < 1 || n > ctx.ArgCount - 3) return 0;
        for (int i = 0; i < n && i < keys.Length; i++) keys[i] = 3 + i;
        return (int)n;
    }

    private static void ZPopFirst(ref CommandContext ctx, bool max)
    {
        if (!TryTimeout(ref ctx, ctx.Arg(ctx.ArgCount - 1), out long timeoutMs)) return;
        for (int i = 1; i < ctx.ArgCount - 1; i++)
        {
            var key = ctx.Arg(i);
            if (ctx.Db(key).FindLive(key, ctx.NowMs) < 0) continue;
            // The first existing key decides: popped from, or WRONGTYPE.
            SortedSetCommands.Pop(ref ctx, 1, ctx.ArgCount - 2, max, emitKey: true, -1, nested: false, nilWhenEmpty: true);
            return;
        }
        BlockOrNil(ref ctx, 1, ctx.ArgCount - 2, timeoutMs, sortedSets: true);
    }

    /// <summary>
    /// Runs the non-blocking twin on the arguments after the timeout, into a scratch buffer: its
    /// errors and replies pass through unchanged, and its "nothing there" nil turns into a wait.
    /// </summary>
    private static void MPopOrBlock(ref CommandContext ctx, CommandHandler twin, bool sortedSets)
    {
        if (!TryTimeout(ref ctx, ctx.Arg(1), out long timeoutMs)) return;
        var scratch = new ReplyBuffer(64);
        var inner = ctx.WithoutArgument1(scratch);
        twin(ref inner);
        var bytes = scratch.Slice(0, scratch.Written);
        bool nothing = !inner.Failed && (bytes.SequenceEqual("*-1\r\n"u8) || bytes.SequenceEqual("_\r\n"u8));
        if (!nothing)
        {
            ctx.Failed = inner.Failed;
            ctx.Unchanged = inner.Unchanged;
            ctx.SignalledItself = inner.SignalledItself;
            ctx.Reply.Raw(bytes);
            return;
        }
        RedisNumbers.TryParseInt64(ctx.Arg(2), out long numKeys);
        BlockOrNil(ref ctx, 3, 2 + (int)numKeys, timeoutMs, sortedSets);
    }

    /// <summary>CLIENT UNBLOCK client-id [TIMEOUT|ERROR] — 1 if that client was blocked and is now released.</summary>
    public static void ClientUnblock(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long id))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        int reason = BlockedClient.UnblockedTimeout;
        if (ctx.ArgCount == 4)
        {
            if (ctx.ArgIs(3, "ERROR")) reason = BlockedClient.UnblockedError;
            else if (!ctx.ArgIs(3, "TIMEOUT"))
            {
                ctx.Error(RespErrors.UnblockReason);
                return;
            }
        }
        else if (ctx.ArgCount > 4)
        {
            ctx.Syntax();
            return;
        }
        bool released = ctx.Server.Clients.TryGetValue(id, out var client) && client.Blocked is { } blocked
                        && blocked.TryFinish(reason);
        ctx.Reply.Integer(released ? 1 : 0);
    }

    private static void PopFirst(ref CommandContext ctx, bool head)
    {
        if (!TryTimeout(ref ctx, ctx.Arg(ctx.ArgCount - 1), out long timeoutMs)) return;
        for (int i = 1; i < ctx.ArgCount - 1; i++)
        {
            var key = ctx.Arg(i);
            var list = Lookup.ForWrite<RedisList>(ref ctx, key, out var db, out int slot, out bool wrongType);
            if (wrongType) return;
            if (list == null) continue;
            long at = head ? 0 : list.Count - 1;
            Span<byte> scratch = stackalloc byte[24];
            ctx.Reply.ArrayHeader(2);
            ctx.Reply.Bulk(key);
            ctx.Reply.Bulk(list.At(at).Text(scratch));
            list.DeleteRange(at, 1);
            ListCommands.ElementsRemoved(ref ctx, db, slot, key, list, head);
            // As Redis: only the key popped from is signalled, and it propagates as LPOP/RPOP key.
            ctx.SignalledItself = true;
            if (db.HasWatchers) db.SignalModified(key);
            ctx.Propagation?.Rewrite(ctx.DbIndex).Add(head ? "LPOP"u8 : "RPOP"u8).Add(key);
            return;
        }
        BlockOrNil(ref ctx, 1, ctx.ArgCount - 2, timeoutMs);
    }

    /// <summary>True when the source key holds something (a wrong type counts: the twin replies WRONGTYPE).</summary>
    private static bool SourceHasData(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        return ctx.Db(key).FindLive(key, ctx.NowMs) >= 0;
    }

    /// <summary>Registers the client on keys [first, last], or replies nil inside a transaction.</summary>
    private static void BlockOrNil(ref CommandContext ctx, int first, int last, long timeoutMs, bool sortedSets = false)
    {
        if (DeniedNil(ref ctx)) return;
        var keys = new byte[last - first + 1][];
        for (int i = first; i <= last; i++) keys[i - first] = ctx.Arg(i).ToArray();
        Block(ref ctx, new BlockedClient(ctx.DbIndex, keys, sortedSets ? BlockedOn.SortedSet : BlockedOn.List, timeoutMs));
    }

    /// <summary>
    /// Inside EXEC or a script a blocking command never waits: it replies a null array at once (Redis
    /// replies one for every blocking command there, XREAD included). True when it did.
    /// </summary>
    public static bool DeniedNil(ref CommandContext ctx)
    {
        ctx.Unchanged = true;
        if (!ctx.Client.DenyBlocking) return false;
        ctx.Reply.NullArray();
        return true;
    }

    /// <summary>Parks the client on every key of <paramref name="blocked"/> (the caller checked <see cref="DeniedNil"/>).</summary>
    public static void Block(ref CommandContext ctx, BlockedClient blocked)
    {
        ctx.Unchanged = true;
        // Counted before the gates are released, so a write right after us sees a waiter to wake.
        Interlocked.Increment(ref ctx.Server.BlockedClientCount);
        foreach (var key in blocked.Keys) ctx.Db(key).Block(key, blocked);
        ctx.Client.Blocked = blocked;
    }

    /// <summary>Redis's timeout argument: seconds as a float, 0 = forever; under a millisecond rounds to 0.</summary>
    private static bool TryTimeout(ref CommandContext ctx, ReadOnlySpan<byte> arg, out long timeoutMs)
    {
        timeoutMs = 0;
        if (!RedisNumbers.TryParseDouble(arg, out double seconds))
        {
            ctx.Error(RespErrors.TimeoutNotFloat);
            return false;
        }
        // Redis converts seconds*1000 to a 64-bit integer; on x86 anything out of range (inf, 1e300)
        // becomes the most negative value, hence "negative" for huge timeouts too.
        if (seconds < 0 || !(seconds * 1000 < 9.2233720368547758E18))
        {
            ctx.Error(RespErrors.TimeoutNegative);
            return false;
        }
        timeoutMs = (long)(seconds * 1000);
        return true;
    }

    private static bool IsSide(ReadOnlySpan<byte> arg)
        => System.Text.Ascii.EqualsIgnoreCase(arg, "LEFT"u8) || System.Text.Ascii.EqualsIgnoreCase(arg, "RIGHT"u8);
}
