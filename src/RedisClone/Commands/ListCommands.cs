using System.Buffers;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// The list family: pushes and pops at both ends (LPUSH, RPUSH and their X forms, LPOP, RPOP, LMPOP),
/// moves between lists (LMOVE, RPOPLPUSH), and reads and edits by index or value (LLEN, LRANGE,
/// LINDEX, LSET, LINSERT, LREM, LTRIM, LPOS).
/// </summary>
/// <remarks>
/// Values are <see cref="RedisList"/>s. Each handler is the Cmd half (parse, look up, reply) and
/// calls the list's storage operations for the Op half. Checks come in Redis's order, which differs
/// by command (LINDEX looks the key up before parsing the index, LRANGE parses first...), and the
/// encoding changes happen where Redis 7.2 makes them: <see cref="RedisList.PrepareToGrow"/> before
/// adding, <see cref="RedisList.AfterShrink"/> after removing (see <see cref="ElementsRemoved"/>).
/// An emptied list deletes its key.
/// <para>
/// LMOVE and RPOPLPUSH may name keys on two shards and LMPOP any number: the dispatcher holds every
/// gate they need (LMPOP's keys come from <see cref="LMPopKeys"/>), so each key is looked up in its
/// own shard's database and the command is atomic.
/// </para>
/// <para>
/// Keyspace hits and misses are counted where Redis uses lookupKeyRead (LLEN, LRANGE, LINDEX, LPOS).
/// A write that changes nothing (LPUSHX or LPOP on a missing key, LREM without a match, LINSERT without
/// the pivot...) sets <see cref="CommandContext.Unchanged"/>: Redis only breaks WATCHes on real changes.
/// Keyspace events are Redis's, in its order: lpush/rpush, lpop/rpop, linsert, lset, lrem, ltrim, then
/// "del" when a list empties ("new" comes from the database when a key is created).
/// </para>
/// </remarks>
internal static class ListCommands
{
    /// <summary>Elements up to this size are copied through the stack when moved between lists.</summary>
    private const int StackCopyLimit = 256;

    private static long Fill(ref CommandContext ctx) => ctx.Server.Config.ListMaxListpackSize;

    // ---------------------------------------------------------------- pushes

    /// <summary>LPUSH key element [element ...] — the list's new length; elements go to the head one by one.</summary>
    public static void LPush(ref CommandContext ctx) => PushCommand(ref ctx, head: true, onlyExisting: false);

    /// <summary>RPUSH key element [element ...] — the list's new length; elements go to the tail.</summary>
    public static void RPush(ref CommandContext ctx) => PushCommand(ref ctx, head: false, onlyExisting: false);

    /// <summary>LPUSHX key element [element ...] — like LPUSH, but 0 and nothing done when the key is missing.</summary>
    public static void LPushX(ref CommandContext ctx) => PushCommand(ref ctx, head: true, onlyExisting: true);

    /// <summary>RPUSHX key element [element ...] — like RPUSH, but 0 and nothing done when the key is missing.</summary>
    public static void RPushX(ref CommandContext ctx) => PushCommand(ref ctx, head: false, onlyExisting: true);

    private static void PushCommand(ref CommandContext ctx, bool head, bool onlyExisting)
    {
        var key = ctx.Arg(1);
        var list = Lookup.ForWrite<RedisList>(ref ctx, key, out var db, out _, out bool wrongType);
        if (wrongType) return;
        if (list == null)
        {
            if (onlyExisting)
            {
                ctx.Unchanged = true;
                ctx.Reply.Raw(Resp.Zero);
                return;
            }
            list = CreateList(db, key);
        }

        long bytes = 0;
        for (int i = 2; i < ctx.ArgCount; i++) bytes += ctx.Arg(i).Length;
        list.PrepareToGrow(Fill(ref ctx), bytes, ctx.ArgCount - 2);
        if (list.IsListpack && ctx.ArgCount > 3)
        {
            int room = 0;
            for (int i = 2; i < ctx.ArgCount; i++) room += Listpack.EntrySize(ctx.Arg(i));
            list.Reserve(room);
        }
        for (int i = 2; i < ctx.ArgCount; i++)
        {
            if (head) list.PushHead(ctx.Arg(i));
            else list.PushTail(ctx.Arg(i));
        }
        ctx.Reply.Integer(list.Count);
        ctx.Notify(Ev.List, head ? "lpush" : "rpush", key);
    }

    /// <summary>
    /// The one place a list key comes into being (pushes and LMOVE's destination), so clients blocked
    /// on the key (BLPOP, BLMOVE... in a later issue) can be woken from here.
    /// </summary>
    private static RedisList CreateList(Database db, ReadOnlySpan<byte> key)
    {
        var list = new RedisList();
        db.Add(key.ToArray(), list);
        return list;
    }

    // ---------------------------------------------------------------- pops

    /// <summary>
    /// LPOP key [count] — the head element, or with a count an array of up to count elements from the
    /// head; nil (a nil array with a count) when the key is missing.
    /// </summary>
    public static void LPop(ref CommandContext ctx) => PopCommand(ref ctx, head: true);

    /// <summary>RPOP key [count] — as LPOP, from the tail (the array lists the tail element first).</summary>
    public static void RPop(ref CommandContext ctx) => PopCommand(ref ctx, head: false);

    private static void PopCommand(ref CommandContext ctx, bool head)
    {
        if (ctx.ArgCount > 3)
        {
            ctx.Error(RespErrors.WrongArity(head ? "lpop" : "rpop"));
            return;
        }
        bool hasCount = ctx.ArgCount == 3;
        long count = 0;
        if (hasCount && (!RedisNumbers.TryParseInt64(ctx.Arg(2), out count) || count < 0))
        {
            ctx.Error(RespErrors.NotPositive);
            return;
        }

        var key = ctx.Arg(1);
        var list = Lookup.ForWrite<RedisList>(ref ctx, key, out var db, out int slot, out bool wrongType);
        if (list == null)
        {
            if (wrongType) return;
            ctx.Unchanged = true;
            if (hasCount) ctx.Reply.NullArray();
            else ctx.Reply.NullBulk();
            return;
        }
        if (hasCount && count == 0)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.EmptyArray);
            return;
        }

        long length = list.Count;
        if (!hasCount)
        {
            long at = head ? 0 : length - 1;
            Span<byte> scratch = stackalloc byte[24];
            ctx.Reply.Bulk(list.At(at).Text(scratch));
            list.DeleteRange(at, 1);
        }
        else
        {
            long n = Math.Min(count, length);
            ReplyEnd(ref ctx, list, n, head);
            list.DeleteRange(head ? 0 : length - n, n);
        }
        ElementsRemoved(ref ctx, db, slot, key, list, head);
    }

    /// <summary>
    /// LMPOP numkeys key [key ...] LEFT | RIGHT [COUNT count] — from the first non-empty list among the
    /// keys, pops up to count elements (default 1) and replies [key, [elements...]]; nil when all are
    /// empty or missing.
    /// </summary>
    public static void LMPop(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(1), out long numKeys) || numKeys < 1)
        {
            ctx.Error(RespErrors.NumKeysNotPositive);
            return;
        }
        if (numKeys > ctx.ArgCount - 3)
        {
            ctx.Syntax();
            return;
        }
        int whereIndex = 2 + (int)numKeys;
        if (!TryParseEnd(ref ctx, whereIndex, out bool head)) return;
        long count = -1;
        for (int j = whereIndex + 1; j < ctx.ArgCount; j++)
        {
            bool moreArgs = j < ctx.ArgCount - 1;
            if (count == -1 && ctx.ArgIs(j, "COUNT") && moreArgs)
            {
                j++;
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j), out count) || count < 1)
                {
                    ctx.Error(RespErrors.CountNotPositive);
                    return;
                }
            }
            else
            {
                ctx.Syntax();
                return;
            }
        }
        if (count == -1) count = 1;

        for (int k = 2; k < whereIndex; k++)
        {
            var key = ctx.Arg(k);
            var list = Lookup.ForWrite<RedisList>(ref ctx, key, out var db, out int slot, out bool wrongType);
            if (wrongType) return;
            if (list == null) continue;
            long length = list.Count;
            if (length == 0) continue;
            long n = Math.Min(count, length);
            ctx.Reply.ArrayHeader(2);
            ctx.Reply.Bulk(key);
            ReplyEnd(ref ctx, list, n, head);
            list.DeleteRange(head ? 0 : length - n, n);
            ElementsRemoved(ref ctx, db, slot, key, list, head);
            // Redis signals only the key it popped from, not every key named: WATCHes on the others hold.
            ctx.SignalledItself = true;
            if (db.HasWatchers) db.SignalModified(key);
            // Propagates as LPOP/RPOP key count (BLMPOP too: it runs this on its arguments after the timeout).
            ctx.Propagation?.Rewrite(ctx.DbIndex).Add(head ? "LPOP"u8 : "RPOP"u8).Add(key).Add(n);
            return;
        }
        ctx.Unchanged = true;
        ctx.Reply.NullArray();
    }

    /// <summary>LMPOP's keys for routing: numkeys keys from argument 2, or none when the command will fail its syntax checks.</summary>
    public static int LMPopKeys(ref CommandContext ctx, scoped Span<int> keys)
    {
        // Mirrors LMPop's first checks: when they fail the handler replies an error without a lookup,
        // so running it without any gate is safe.
        if (!RedisNumbers.TryParseInt64(ctx.Arg(1), out long numKeys) || numKeys < 1 || numKeys > ctx.ArgCount - 3) return 0;
        for (int i = 0; i < numKeys && i < keys.Length; i++) keys[i] = 2 + i;
        return (int)numKeys;
    }

    /// <summary>Replies an array of the first <paramref name="n"/> elements from the head, or the last n from the tail (tail first).</summary>
    private static void ReplyEnd(ref CommandContext ctx, RedisList list, long n, bool head)
    {
        var w = ctx.Reply;
        w.ArrayHeader(n);
        Span<byte> scratch = stackalloc byte[24];
        var cursor = list.At(head ? 0 : list.Count - 1);
        for (long i = 0; i < n; i++)
        {
            w.Bulk(cursor.Text(scratch));
            if (head) cursor.MoveNext();
            else cursor.MovePrev();
        }
    }

    /// <summary>
    /// After a pop from the <paramref name="head"/> or tail: the lpop/rpop event, then the emptied key
    /// is deleted ("del" event) or the list may go back to a listpack (Redis's listElementsRemoved).
    /// </summary>
    internal static void ElementsRemoved(ref CommandContext ctx, Database db, int slot, ReadOnlySpan<byte> key, RedisList list, bool head)
    {
        ctx.Notify(Ev.List, head ? "lpop" : "rpop", key);
        RemovedOrShrunk(ref ctx, db, slot, key, list);
    }

    /// <summary>Deletes the key of an emptied list ("del" event), or lets a smaller list go back to a listpack.</summary>
    private static void RemovedOrShrunk(ref CommandContext ctx, Database db, int slot, ReadOnlySpan<byte> key, RedisList list)
    {
        if (list.Count == 0)
        {
            db.RemoveAt(slot);
            ctx.Notify(Ev.Generic, "del", key);
        }
        else
        {
            list.AfterShrink(Fill(ref ctx));
        }
    }

    // ---------------------------------------------------------------- moves

    /// <summary>
    /// LMOVE source destination LEFT | RIGHT LEFT | RIGHT — pops from one end of source, pushes onto
    /// an end of destination (created if missing) and replies the element; nil when source is missing.
    /// </summary>
    public static void LMove(ref CommandContext ctx)
    {
        if (!TryParseEnd(ref ctx, 3, out bool fromHead) || !TryParseEnd(ref ctx, 4, out bool toHead)) return;
        Move(ref ctx, fromHead, toHead);
    }

    /// <summary>RPOPLPUSH source destination — LMOVE source destination RIGHT LEFT.</summary>
    public static void RPopLPush(ref CommandContext ctx) => Move(ref ctx, fromHead: false, toHead: true);

    private static void Move(ref CommandContext ctx, bool fromHead, bool toHead)
    {
        var sourceKey = ctx.Arg(1);
        var source = Lookup.ForWrite<RedisList>(ref ctx, sourceKey, out var sourceDb, out int sourceSlot, out bool wrongType);
        if (source == null)
        {
            if (wrongType) return;
            ctx.Unchanged = true;
            ctx.Reply.NullBulk();
            return;
        }
        var destKey = ctx.Arg(2);
        var dest = Lookup.ForWrite<RedisList>(ref ctx, destKey, out var destDb, out int destSlot, out wrongType);
        if (wrongType) return;

        // Copy the element out before it is deleted: source and destination may be the same list.
        long at = fromHead ? 0 : source.Count - 1;
        var cursor = source.At(at);
        var element = cursor.Value;
        // Redis hands an integer popped from a quicklist over as an integer object, and its growth
        // check counts no bytes for those; from a listpack the element arrives as a string.
        long growBytes = element.IsInt && !source.IsListpack ? 0 : element.TextLength;
        int length = element.TextLength;
        byte[]? rented = null;
        Span<byte> copy = length <= StackCopyLimit
            ? stackalloc byte[StackCopyLimit]
            : (rented = BufferPool.Rent(length));
        cursor.Text(copy).CopyTo(copy);
        var value = copy.Slice(0, length);
        source.DeleteRange(at, 1);

        dest ??= CreateList(destDb, destKey);
        dest.PrepareToGrow(Fill(ref ctx), growBytes, 1);
        if (toHead) dest.PushHead(value);
        else dest.PushTail(value);
        ctx.Notify(Ev.List, toHead ? "lpush" : "rpush", destKey);
        ctx.Reply.Bulk(value);
        if (rented != null) BufferPool.Return(rented);

        // The source's slot is still valid: slots never move, even if creating the destination grew the table.
        ElementsRemoved(ref ctx, sourceDb, sourceSlot, sourceKey, source, fromHead);
    }

    /// <summary>LEFT or RIGHT (any case) at argument <paramref name="index"/>; false after a syntax error.</summary>
    private static bool TryParseEnd(ref CommandContext ctx, int index, out bool head)
    {
        head = ctx.ArgIs(index, "LEFT");
        if (head || ctx.ArgIs(index, "RIGHT")) return true;
        ctx.Syntax();
        return false;
    }

    // ---------------------------------------------------------------- reads

    /// <summary>LLEN key — the list's length, 0 when missing.</summary>
    public static void LLen(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        if (!Lookup.TryRead(ref ctx, key, out RedisList? list)) return;
        if (list is null) ctx.Reply.Raw(Resp.Zero);
        else ctx.Reply.Integer(list.Count);
    }

    /// <summary>LRANGE key start stop — the elements from start to stop inclusive; negative indexes count from the tail.</summary>
    public static void LRange(ref CommandContext ctx)
    {
        if (!TryParseLong(ref ctx, 2, out long start) || !TryParseLong(ref ctx, 3, out long end)) return;
        var key = ctx.Arg(1);
        var list = Lookup.ForRead<RedisList>(ref ctx, key, out bool wrongType);
        if (list == null)
        {
            if (wrongType) return;
            ctx.Reply.Raw(Resp.EmptyArray);
            return;
        }
        long length = list.Count;
        if (start < 0) start += length;
        if (end < 0) end += length;
        if (start < 0) start = 0;
        if (start > end || start >= length)
        {
            ctx.Reply.Raw(Resp.EmptyArray);
            return;
        }
        if (end >= length) end = length - 1;
        long n = end - start + 1;
        var w = ctx.Reply;
        w.ArrayHeader(n);
        Span<byte> scratch = stackalloc byte[24];
        var cursor = list.At(start);
        for (long i = 0; i < n; i++)
        {
            w.Bulk(cursor.Text(scratch));
            cursor.MoveNext();
        }
    }

    /// <summary>LINDEX key index — the element at index (negative from the tail), or nil.</summary>
    public static void LIndex(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var list = Lookup.ForRead<RedisList>(ref ctx, key, out bool wrongType);
        if (list == null)
        {
            if (wrongType) return;
            ctx.Reply.NullBulk();
            return;
        }
        if (!TryParseLong(ref ctx, 2, out long index)) return;
        long length = list.Count;
        if (index < 0) index += length;
        if (index < 0 || index >= length)
        {
            ctx.Reply.NullBulk();
            return;
        }
        Span<byte> scratch = stackalloc byte[24];
        ctx.Reply.Bulk(list.At(index).Text(scratch));
    }

    /// <summary>
    /// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len] — the index of the rank-th match
    /// (negative rank: counting from the tail), or nil; with COUNT an array of up to that many
    /// indexes (0 = all); MAXLEN caps how many elements are compared.
    /// </summary>
    public static void LPos(ref CommandContext ctx)
    {
        long rank = 1, count = -1, maxLen = 0;
        for (int j = 3; j < ctx.ArgCount; j++)
        {
            bool moreArgs = j < ctx.ArgCount - 1;
            if (ctx.ArgIs(j, "RANK") && moreArgs)
            {
                j++;
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j), out rank))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                // Redis 7.2 refuses LONG_MIN, whose negation would overflow.
                if (rank == long.MinValue)
                {
                    ctx.Error(RespErrors.CountOutOfRange);
                    return;
                }
                if (rank == 0)
                {
                    ctx.Error(RespErrors.RankZero);
                    return;
                }
            }
            else if (ctx.ArgIs(j, "COUNT") && moreArgs)
            {
                j++;
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j), out count) || count < 0)
                {
                    ctx.Error(RespErrors.CountNegative);
                    return;
                }
            }
            else if (ctx.ArgIs(j, "MAXLEN") && moreArgs)
            {
                j++;
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j), out maxLen) || maxLen < 0)
                {
                    ctx.Error(RespErrors.MaxLenNegative);
                    return;
                }
            }
            else
            {
                ctx.Syntax();
                return;
            }
        }
        bool forward = rank > 0;
        if (!forward) rank = -rank;

        var key = ctx.Arg(1);
        var list = Lookup.ForRead<RedisList>(ref ctx, key, out bool wrongType);
        if (list == null)
        {
            if (wrongType) return;
            if (count != -1) ctx.Reply.Raw(Resp.EmptyArray);
            else ctx.Reply.NullBulk();
            return;
        }

        var element = ctx.Arg(2);
        long length = list.Count;
        List<long>? found = count != -1 ? new List<long>() : null;
        long matches = 0, match = -1;
        var cursor = list.At(forward ? 0 : length - 1);
        for (long index = 0; cursor.Valid && (maxLen == 0 || index < maxLen); index++)
        {
            if (cursor.Matches(element) && ++matches >= rank)
            {
                long position = forward ? index : length - index - 1;
                if (found == null)
                {
                    match = position;
                    break;
                }
                found.Add(position);
                if (count != 0 && matches - rank + 1 >= count) break;
            }
            if (forward) cursor.MoveNext();
            else cursor.MovePrev();
        }

        if (found == null)
        {
            if (match >= 0) ctx.Reply.Integer(match);
            else ctx.Reply.NullBulk();
            return;
        }
        ctx.Reply.ArrayHeader(found.Count);
        foreach (long position in found) ctx.Reply.Integer(position);
    }

    // ---------------------------------------------------------------- edits

    /// <summary>LSET key index element — OK; "no such key" when missing, "index out of range" past either end.</summary>
    public static void LSet(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var list = Lookup.ForWrite<RedisList>(ref ctx, key, out _, out _, out bool wrongType);
        if (list == null)
        {
            if (wrongType) return;
            ctx.Error(RespErrors.NoSuchKey);
            return;
        }
        if (!TryParseLong(ref ctx, 2, out long index)) return;
        var element = ctx.Arg(3);
        // Redis checks for growth as if an element were added, before it knows the index is valid.
        long fill = Fill(ref ctx);
        list.PrepareToGrow(fill, element.Length, 1);
        if (!list.Replace(index, element))
        {
            ctx.Error(RespErrors.IndexOutOfRange);
            return;
        }
        ctx.Reply.Ok();
        ctx.Notify(Ev.List, "lset", key);
        list.AfterShrink(fill);
    }

    /// <summary>
    /// LINSERT key BEFORE | AFTER pivot element — the new length, -1 when pivot is not in the list,
    /// 0 when the key is missing.
    /// </summary>
    public static void LInsert(ref CommandContext ctx)
    {
        bool after = ctx.ArgIs(2, "AFTER");
        if (!after && !ctx.ArgIs(2, "BEFORE"))
        {
            ctx.Syntax();
            return;
        }
        var key = ctx.Arg(1);
        var list = Lookup.ForWrite<RedisList>(ref ctx, key, out _, out _, out bool wrongType);
        if (list == null)
        {
            if (wrongType) return;
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        var element = ctx.Arg(4);
        // As Redis: the growth check happens before the pivot is searched, found or not.
        list.PrepareToGrow(Fill(ref ctx), element.Length, 1);
        if (!list.Insert(ctx.Arg(3), element, after))
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.MinusOne);
            return;
        }
        ctx.Notify(Ev.List, "linsert", key);
        ctx.Reply.Integer(list.Count);
    }

    /// <summary>
    /// LREM key count element — removes elements equal to element: the first count from the head
    /// (count &gt; 0), the last -count from the tail (count &lt; 0), or all (0); replies how many.
    /// </summary>
    public static void LRem(ref CommandContext ctx)
    {
        if (!TryParseLong(ref ctx, 2, out long count)) return;
        var key = ctx.Arg(1);
        var list = Lookup.ForWrite<RedisList>(ref ctx, key, out var db, out int slot, out bool wrongType);
        if (list == null)
        {
            if (wrongType) return;
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        // -long.MinValue stays long.MinValue: a limit never reached, so everything matching goes, as in Redis.
        long removed = list.Remove(ctx.Arg(3), count < 0 ? -count : count, fromTail: count < 0);
        ctx.Unchanged = removed == 0;
        if (removed > 0)
        {
            ctx.Notify(Ev.List, "lrem", key);
            RemovedOrShrunk(ref ctx, db, slot, key, list);
        }
        ctx.Reply.Integer(removed);
    }

    /// <summary>LTRIM key start stop — OK; keeps only elements start..stop (an empty range deletes the key).</summary>
    public static void LTrim(ref CommandContext ctx)
    {
        if (!TryParseLong(ref ctx, 2, out long start) || !TryParseLong(ref ctx, 3, out long end)) return;
        var key = ctx.Arg(1);
        var list = Lookup.ForWrite<RedisList>(ref ctx, key, out var db, out int slot, out bool wrongType);
        if (list == null)
        {
            if (wrongType) return;
            ctx.Unchanged = true;
            ctx.Reply.Ok();
            return;
        }
        long length = list.Count;
        if (start < 0) start += length;
        if (end < 0) end += length;
        if (start < 0) start = 0;
        long fromHead, fromTail;
        if (start > end || start >= length)
        {
            fromHead = length;
            fromTail = 0;
        }
        else
        {
            if (end >= length) end = length - 1;
            fromHead = start;
            fromTail = length - end - 1;
        }
        list.DeleteRange(0, fromHead);
        list.DeleteRange(length - fromHead - fromTail, fromTail);
        // Trimming nothing still signals the key and notifies "ltrim" in Redis, but its dirty counter
        // moves by the elements removed, so nothing is propagated (signal and dirty disagree here).
        if (fromHead + fromTail == 0) ctx.Propagation?.Prevent();
        ctx.Notify(Ev.List, "ltrim", key);
        RemovedOrShrunk(ref ctx, db, slot, key, list);
        ctx.Reply.Ok();
    }

    /// <summary>A signed 64-bit argument, or false after "value is not an integer or out of range".</summary>
    private static bool TryParseLong(ref CommandContext ctx, int index, out long value)
    {
        if (RedisNumbers.TryParseInt64(ctx.Arg(index), out value)) return true;
        ctx.Error(RespErrors.NotInteger);
        return false;
    }
}
