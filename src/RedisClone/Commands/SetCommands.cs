using System.Buffers;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// The set family: SADD, SREM, SCARD, SISMEMBER, SMISMEMBER, SMEMBERS, SPOP, SRANDMEMBER, SMOVE,
/// SINTER, SINTERCARD, SINTERSTORE, SUNION, SUNIONSTORE, SDIFF, SDIFFSTORE and SSCAN.
/// </summary>
/// <remarks>
/// A set is a <see cref="RedisSet"/> in <see cref="KeyTable.Entry.Value"/>; the storage class knows
/// the encodings and their conversions, the handlers here parse, look keys up and reply. Checks come
/// in Redis's order (argument errors found before the key lookup stay before it: SPOP's count,
/// SRANDMEMBER's count, SINTERCARD's numkeys and LIMIT, SSCAN's cursor). Keys spanning shards
/// (SMOVE, the *STORE commands, SINTER of several keys) need nothing special: the dispatcher holds
/// the gate of every shard the row's keys map to while the handler runs.
/// <para>Where Redis picks members at random (SPOP, SRANDMEMBER) it follows the same strategies,
/// which decide the encoding left behind (SPOP rebuilding the remaining set) and which replies have
/// a defined order (the whole set when the count covers it). Keyspace hits and misses are counted
/// where Redis uses lookupKeyRead.</para>
/// <para>Keyspace events are Redis 7.0's, in its order: the command's name ("sadd", "srem",
/// "spop", "sinterstore"...) only when something changed, then "del" when a key was emptied and
/// removed; SMOVE sends "srem" (and "del") on the source, then "sadd" on the destination if the
/// member was new there. A write that changed nothing sends nothing and sets
/// <see cref="CommandContext.Unchanged"/>, so WATCHes hold, as Redis signals only real changes.</para>
/// </remarks>
internal static class SetCommands
{
    /// <summary>SPOP_MOVE_STRATEGY_MUL: SPOP rebuilds the set from the survivors when few of them remain.</summary>
    private const long SpopMoveStrategyMul = 5;

    /// <summary>SRANDMEMBER_SUB_STRATEGY_MUL: when the count is this close to the size, shuffle rather than draw.</summary>
    private const long SrandmemberSubStrategyMul = 3;

    /// <summary>Replies whose length is known only at the end are written here first (one per thread, reused).</summary>
    [ThreadStatic] private static ArrayBufferWriter<byte>? t_pending;

    // ---------------------------------------------------------------- single-key commands

    /// <summary>SADD key member [member ...] — how many members were new.</summary>
    /// <remarks>A new key's encoding follows Redis's setTypeCreate: the first member and the member count decide.</remarks>
    public static void SAdd(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite<RedisSet>(ref ctx, db, key, out _, out var set)) return;
        var limits = LimitsOf(ref ctx);
        bool created = set == null;
        if (set == null)
        {
            set = RedisSet.Create(ctx.Arg(2), ctx.ArgCount - 2, limits);
            db.Add(key.ToArray(), set);
        }
        else
        {
            set.PrepareForAdds(ctx.ArgCount - 2, limits);
        }
        long added = 0;
        for (int i = 2; i < ctx.ArgCount; i++)
            if (set.Add(ctx.Arg(i), limits)) added++;
        // A key born in one SADD (the usual way small sets are written) keeps no spare capacity.
        if (created) set.TrimExcess();
        if (added > 0) ctx.Notify(Ev.Set, "sadd", key);
        else ctx.Unchanged = true;
        ctx.Reply.Integer(added);
    }

    /// <summary>SREM key member [member ...] — how many members were removed; an emptied set deletes the key.</summary>
    public static void SRem(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite<RedisSet>(ref ctx, db, key, out int slot, out var set)) return;
        if (set == null)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        long removed = 0;
        bool keyRemoved = false;
        for (int i = 2; i < ctx.ArgCount; i++)
        {
            if (!set.Remove(ctx.Arg(i))) continue;
            removed++;
            if (set.Count == 0)
            {
                db.RemoveAt(slot);
                keyRemoved = true;
                break;
            }
        }
        if (removed == 0)
        {
            ctx.Unchanged = true;
        }
        else
        {
            ctx.Notify(Ev.Set, "srem", key);
            if (keyRemoved) ctx.Notify(Ev.Generic, "del", key);
        }
        ctx.Reply.Integer(removed);
    }

    /// <summary>SCARD key — the number of members, 0 when the key is missing.</summary>
    public static void SCard(ref CommandContext ctx)
    {
        if (!Lookup.TryRead<RedisSet>(ref ctx, ctx.Arg(1), out var set)) return;
        ctx.Reply.Integer(set?.Count ?? 0);
    }

    /// <summary>SISMEMBER key member — 1 when the member is in the set, else 0.</summary>
    public static void SIsMember(ref CommandContext ctx)
    {
        if (!Lookup.TryRead<RedisSet>(ref ctx, ctx.Arg(1), out var set)) return;
        ctx.Reply.Raw(set != null && set.Contains(ctx.Arg(2)) ? Resp.One : Resp.Zero);
    }

    /// <summary>SMISMEMBER key member [member ...] — a 1 or 0 per member, in order.</summary>
    public static void SMIsMember(ref CommandContext ctx)
    {
        if (!Lookup.TryRead<RedisSet>(ref ctx, ctx.Arg(1), out var set)) return;
        ctx.Reply.ArrayHeader(ctx.ArgCount - 2);
        for (int i = 2; i < ctx.ArgCount; i++)
            ctx.Reply.Raw(set != null && set.Contains(ctx.Arg(i)) ? Resp.One : Resp.Zero);
    }

    /// <summary>SMEMBERS key — every member (an intset in ascending order), an empty set when missing.</summary>
    public static void SMembers(ref CommandContext ctx)
    {
        if (!Lookup.TryRead<RedisSet>(ref ctx, ctx.Arg(1), out var set)) return;
        if (set == null)
        {
            ctx.Reply.SetHeader(0);
            return;
        }
        ctx.Reply.SetHeader(set.Count);
        WriteMembers(ctx.Reply, set);
    }

    /// <summary>SPOP key [count] — removes and returns a random member (nil when missing), or up to count of them as a set.</summary>
    public static void SPop(ref CommandContext ctx)
    {
        if (ctx.ArgCount == 3)
        {
            SPopWithCount(ref ctx);
            return;
        }
        if (ctx.ArgCount > 3)
        {
            ctx.Syntax();
            return;
        }
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite<RedisSet>(ref ctx, db, key, out int slot, out var set)) return;
        if (set == null)
        {
            ctx.Unchanged = true;
            ctx.Reply.NullBulk();
            return;
        }
        Span<byte> scratch = stackalloc byte[RedisSet.ScratchSize];
        int position = set.RandomPosition(Random.Shared);
        // Reply before removing: the member may point into storage the removal reuses.
        var popped = set.MemberAt(position, scratch);
        ctx.Reply.Bulk(popped);
        ctx.Propagation?.Rewrite(ctx.DbIndex).Add("SREM"u8).Add(key).Add(popped);
        set.RemoveAt(position);
        ctx.Notify(Ev.Set, "spop", key);
        if (set.Count == 0)
        {
            db.RemoveAt(slot);
            ctx.Notify(Ev.Generic, "del", key);
        }
    }

    /// <remarks>
    /// Redis's three cases: a count covering the set returns it all (in its order) and deletes the
    /// key; a count that leaves many members pops them one by one; a count that leaves few builds a
    /// new set from random survivors (an intset from an intset, else a listpack that converts as it
    /// grows) and returns what is left of the old one.
    /// </remarks>
    private static void SPopWithCount(ref CommandContext ctx)
    {
        // Redis answers every unusable count (not a number, negative) with the same text here.
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long count) || count < 0)
        {
            ctx.Error(RespErrors.NotPositive);
            return;
        }
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite<RedisSet>(ref ctx, db, key, out int slot, out var set)) return;
        if (set == null || count == 0)
        {
            ctx.Unchanged = true;
            ctx.Reply.SetHeader(0);
            return;
        }
        // One "spop" whatever the count, before any "del" (Redis sends it before choosing a strategy).
        ctx.Notify(Ev.Set, "spop", key);
        int size = set.Count;
        if (count >= size)
        {
            // Redis replies through SUNION of the one key: members pass through a fresh intset, so
            // a hashtable holding only integers still comes back in ascending order.
            var whole = set;
            if (!set.IsIntset)
            {
                var unionLimits = LimitsOf(ref ctx);
                whole = RedisSet.CreateIntset();
                Span<byte> buffer = stackalloc byte[RedisSet.ScratchSize];
                int position = 0;
                while (set.Next(ref position, buffer, out var member)) whole.Add(member, unionLimits);
            }
            ctx.Reply.SetHeader(size);
            WriteMembers(ctx.Reply, whole);
            db.RemoveAt(slot);
            ctx.Notify(Ev.Generic, "del", key);
            ctx.Propagation?.Rewrite(ctx.DbIndex).Add(ctx.Server.Config.LazyfreeLazyServerDel ? "UNLINK"u8 : "DEL"u8).Add(key);
            return;
        }

        // The popped members propagate as SREMs of at most 1024 members each, as Redis's do.
        var log = ctx.Propagation;
        log?.Prevent();
        int inBatch = 0;

        var random = Random.Shared;
        Span<byte> scratch = stackalloc byte[RedisSet.ScratchSize];
        var limits = LimitsOf(ref ctx);
        long remaining = size - count;
        ctx.Reply.SetHeader(count);
        if (remaining * SpopMoveStrategyMul > count)
        {
            for (long i = 0; i < count; i++)
            {
                int position = set.RandomPosition(random);
                var popped = set.MemberAt(position, scratch);
                ctx.Reply.Bulk(popped);
                if (log != null) LogSrem(log, ctx.DbIndex, key, popped, ref inBatch);
                set.RemoveAt(position);
            }
            log?.Close();
            return;
        }
        var survivors = set.IsIntset ? RedisSet.CreateIntset() : RedisSet.CreateListpack();
        for (long i = 0; i < remaining; i++)
        {
            int position = set.RandomPosition(random);
            survivors.Add(set.MemberAt(position, scratch), limits);
            set.RemoveAt(position);
        }
        WriteMembers(ctx.Reply, set);
        if (log != null)
        {
            int position = 0;
            while (set.Next(ref position, scratch, out var popped)) LogSrem(log, ctx.DbIndex, key, popped, ref inBatch);
            log.Close();
        }
        db.ReplaceValue(slot, survivors); // keeps the TTL, as Redis's dbReplaceValue does
    }

    private const int SremBatch = 1024;

    /// <summary>Adds a popped member to the SREM being logged, starting a new one every <see cref="SremBatch"/> members.</summary>
    private static void LogSrem(PropagationLog log, int db, ReadOnlySpan<byte> key, ReadOnlySpan<byte> member, ref int inBatch)
    {
        if (inBatch == 0) log.Also(db).Add("SREM"u8).Add(key);
        log.Add(member);
        if (++inBatch == SremBatch) inBatch = 0;
    }

    /// <summary>
    /// SRANDMEMBER key [count] — a random member (nil when missing); with a count, up to count
    /// distinct members, or with a negative count exactly -count members that may repeat.
    /// </summary>
    public static void SRandMember(ref CommandContext ctx)
    {
        if (ctx.ArgCount == 3)
        {
            SRandMemberWithCount(ref ctx);
            return;
        }
        if (ctx.ArgCount > 3)
        {
            ctx.Syntax();
            return;
        }
        if (!Lookup.TryRead<RedisSet>(ref ctx, ctx.Arg(1), out var set)) return;
        if (set == null)
        {
            ctx.Reply.NullBulk();
            return;
        }
        Span<byte> scratch = stackalloc byte[RedisSet.ScratchSize];
        ctx.Reply.Bulk(set.MemberAt(set.RandomPosition(Random.Shared), scratch));
    }

    /// <remarks>
    /// Redis's cases: negative count (or 1): independent draws; a count covering the set: the whole
    /// set in its order; a count close to the size: a shuffle of every member cut at count; else
    /// draws that skip repeats. Replies are arrays, in RESP3 too, as in Redis.
    /// </remarks>
    private static void SRandMemberWithCount(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long l))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (l == long.MinValue)
        {
            ctx.Error(RespErrors.CountOutOfRange);
            return;
        }
        bool unique = l >= 0;
        long count = Math.Abs(l);
        if (!Lookup.TryRead<RedisSet>(ref ctx, ctx.Arg(1), out var set)) return;
        if (set == null || count == 0)
        {
            ctx.Reply.Raw(Resp.EmptyArray);
            return;
        }

        var random = Random.Shared;
        Span<byte> scratch = stackalloc byte[RedisSet.ScratchSize];
        int size = set.Count;
        var w = ctx.Reply;
        if (!unique || count == 1)
        {
            long cap = Math.Min(ctx.Server.Config.ProtoMaxBulkLen, 1L << 30);
            if (count > cap / (set.MaxMemberLength() + 16L))
            {
                ctx.Error(RespErrors.ReplyTooLarge);
                return;
            }
            w.ArrayHeader(count);
            if (set.IsHashtable)
            {
                for (long i = 0; i < count; i++) w.Bulk(set.MemberAt(set.RandomPosition(random), scratch));
                return;
            }
            // Small encodings: index them once instead of walking a listpack per draw.
            var all = ArrayPool<int>.Shared.Rent(size);
            set.AllPositions(all);
            for (long i = 0; i < count; i++) w.Bulk(set.MemberAt(all[random.Next(size)], scratch));
            ArrayPool<int>.Shared.Return(all);
            return;
        }
        if (count >= size)
        {
            w.ArrayHeader(size);
            WriteMembers(w, set);
            return;
        }

        w.ArrayHeader(count);
        if (count * SrandmemberSubStrategyMul > size || !set.IsHashtable)
        {
            var positions = ArrayPool<int>.Shared.Rent(size);
            set.AllPositions(positions);
            for (int i = 0; i < count; i++)
            {
                int j = i + random.Next(size - i);
                (positions[i], positions[j]) = (positions[j], positions[i]);
                w.Bulk(set.MemberAt(positions[i], scratch));
            }
            ArrayPool<int>.Shared.Return(positions);
            return;
        }
        var picked = new HashSet<int>((int)count);
        while (picked.Count < count)
        {
            int position = set.RandomPosition(random);
            if (picked.Add(position)) w.Bulk(set.MemberAt(position, scratch));
        }
    }

    /// <summary>
    /// SMOVE source destination member — 1 when the member moved (or source and destination are the
    /// same set holding it), 0 when source lacks it.
    /// </summary>
    /// <remarks>
    /// Redis's order: a missing source answers 0 before any type check; then both types; then the
    /// move. An emptied source is deleted; a missing destination is created for the member.
    /// </remarks>
    public static void SMove(ref CommandContext ctx)
    {
        var source = ctx.Arg(1);
        var destination = ctx.Arg(2);
        var member = ctx.Arg(3);
        var sourceDb = ctx.Db(source);
        var destinationDb = ctx.Db(destination);
        int sourceSlot = sourceDb.FindLive(source, ctx.NowMs);
        int destinationSlot = destinationDb.FindLive(destination, ctx.NowMs);
        if (sourceSlot < 0)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        if (sourceDb.Table.At(sourceSlot).Value is not RedisSet sourceSet)
        {
            ctx.WrongType();
            return;
        }
        RedisSet? destinationSet = null;
        if (destinationSlot >= 0)
        {
            destinationSet = destinationDb.Table.At(destinationSlot).Value as RedisSet;
            if (destinationSet == null)
            {
                ctx.WrongType();
                return;
            }
        }
        if (ReferenceEquals(sourceSet, destinationSet))
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(sourceSet.Contains(member) ? Resp.One : Resp.Zero);
            return;
        }
        if (!sourceSet.Remove(member))
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        ctx.Notify(Ev.Set, "srem", source);
        if (sourceSet.Count == 0)
        {
            sourceDb.RemoveAt(sourceSlot);
            ctx.Notify(Ev.Generic, "del", source);
        }
        var limits = LimitsOf(ref ctx);
        if (destinationSet == null)
        {
            destinationSet = RedisSet.Create(member, 1, limits);
            destinationDb.Add(destination.ToArray(), destinationSet);
        }
        if (destinationSet.Add(member, limits))
        {
            ctx.Notify(Ev.Set, "sadd", destination);
        }
        else
        {
            // The destination already held the member, so only the source changed: Redis signals
            // just that key, and a WATCH on the destination holds.
            ctx.SignalledItself = true;
            if (sourceDb.HasWatchers) sourceDb.SignalModified(source);
        }
        ctx.Reply.Raw(Resp.One);
    }

    /// <summary>
    /// SSCAN key cursor [MATCH pattern] [COUNT count] — the next cursor and a batch of members.
    /// </summary>
    /// <remarks>
    /// As Redis: an intset or listpack is returned whole in one call with cursor 0, whatever the
    /// cursor; a missing key answers an empty scan before the options are parsed. A hashtable's
    /// cursor is a <see cref="MemberTable"/> slot index: slots never move, so a member present for
    /// the whole scan is returned exactly once. COUNT is the amount of work: stop after COUNT members
    /// were seen or 10*COUNT slots visited.
    /// </remarks>
    public static void SScan(ref CommandContext ctx)
    {
        if (!ScanArguments.TryReadCursor(ref ctx, 2, out ulong cursor)) return;
        if (!Lookup.TryRead<RedisSet>(ref ctx, ctx.Arg(1), out var set)) return;
        if (set == null)
        {
            ctx.Reply.Raw(Resp.EmptyScan);
            return;
        }
        if (!ScanArguments.TryParse(ref ctx, out long count, out byte[]? patternBytes)) return;
        bool usePattern = patternBytes != null;
        ReadOnlySpan<byte> pattern = patternBytes;

        var pending = Pending();
        var batch = new RespWriter(pending, ctx.Reply.Protocol);
        Span<byte> scratch = stackalloc byte[RedisSet.ScratchSize];
        long found = 0, next = 0;
        if (!set.IsHashtable)
        {
            int position = 0;
            while (set.Next(ref position, scratch, out var member))
            {
                if (usePattern && !GlobMatcher.IsMatch(pattern, member)) continue;
                batch.Bulk(member);
                found++;
            }
        }
        else
        {
            int slot = cursor > int.MaxValue ? int.MaxValue : (int)cursor;
            long maxVisits = count > long.MaxValue / 10 ? long.MaxValue : count * 10;
            long seen = 0, visits = 0;
            while (slot < set.SlotCount && seen < count && visits < maxVisits)
            {
                visits++;
                int s = slot++;
                if (!set.IsUsedSlot(s)) continue;
                seen++;
                var member = set.MemberAt(s, scratch);
                if (usePattern && !GlobMatcher.IsMatch(pattern, member)) continue;
                batch.Bulk(member);
                found++;
            }
            next = slot >= set.SlotCount ? 0 : slot;
        }
        ctx.Reply.ArrayHeader(2);
        ctx.Reply.BulkInteger(next);
        ctx.Reply.ArrayHeader(found);
        Flush(ctx.Reply, pending);
    }

    // ---------------------------------------------------------------- intersection

    /// <summary>SINTER key [key ...] — the members every set holds; a missing key makes the result empty.</summary>
    public static void SInter(ref CommandContext ctx) => Intersect(ref ctx, 1, ctx.ArgCount - 1, 0, cardinalityOnly: false, 0);

    /// <summary>SINTERSTORE destination key [key ...] — stores the intersection (deleting destination when empty); its size.</summary>
    public static void SInterStore(ref CommandContext ctx) => Intersect(ref ctx, 2, ctx.ArgCount - 2, 1, cardinalityOnly: false, 0);

    /// <summary>SINTERCARD numkeys key [key ...] [LIMIT limit] — the size of the intersection, counting stopped at limit (0: no limit).</summary>
    /// <remarks>The same checks as <see cref="SInterCardKeys"/>: when that finds no keys, this replies an error without touching a database.</remarks>
    public static void SInterCard(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(1), out long numKeys) || numKeys < 1)
        {
            ctx.Error(RespErrors.NumKeysNotPositive);
            return;
        }
        if (numKeys > ctx.ArgCount - 2)
        {
            ctx.Error(RespErrors.NumKeysTooMany);
            return;
        }
        long limit = 0;
        for (int i = 2 + (int)numKeys; i < ctx.ArgCount; i++)
        {
            if (ctx.ArgIs(i, "LIMIT") && i + 1 < ctx.ArgCount)
            {
                i++;
                if (!RedisNumbers.TryParseInt64(ctx.Arg(i), out limit) || limit < 0)
                {
                    ctx.Error(RespErrors.LimitNegative);
                    return;
                }
            }
            else
            {
                ctx.Syntax();
                return;
            }
        }
        Intersect(ref ctx, 2, (int)numKeys, 0, cardinalityOnly: true, limit);
    }

    /// <summary>SINTERCARD's keys: numkeys keys from argument 2; none when numkeys is unusable (the command then fails).</summary>
    public static int SInterCardKeys(ref CommandContext ctx, scoped Span<int> keys)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(1), out long numKeys) || numKeys < 1 || numKeys > ctx.ArgCount - 2) return 0;
        for (int i = 0; i < numKeys && i < keys.Length; i++) keys[i] = 2 + i;
        return (int)numKeys;
    }

    /// <summary>
    /// Redis's sinterGenericCommand: walk the smallest set (sets sorted by size, stable) and keep the
    /// members every other set holds. A result to store is built with Redis 7.2's encoding choices,
    /// so OBJECT ENCODING reports what Redis's would.
    /// </summary>
    private static void Intersect(ref CommandContext ctx, int firstKey, int keyCount, int destinationArg,
        bool cardinalityOnly, long limit)
    {
        var sets = new RedisSet?[keyCount];
        if (!TryFindSets(ref ctx, firstKey, sets, out bool anyMissing)) return;
        if (anyMissing)
        {
            if (destinationArg > 0)
            {
                DeleteKey(ref ctx, ctx.Arg(destinationArg));
                ctx.Reply.Raw(Resp.Zero);
            }
            else if (cardinalityOnly) ctx.Reply.Raw(Resp.Zero);
            else ctx.Reply.SetHeader(0);
            return;
        }

        var order = new int[keyCount];
        for (int i = 0; i < keyCount; i++) order[i] = i;
        // Stable, as glibc's qsort (a merge sort) is for Redis: equal sizes keep the key order.
        Array.Sort(order, (a, b) => sets[a]!.Count != sets[b]!.Count ? sets[a]!.Count.CompareTo(sets[b]!.Count) : a.CompareTo(b));
        var smallest = sets[order[0]]!;

        var limits = LimitsOf(ref ctx);
        // Redis starts a stored result in the smallest set's compact encoding (a listpack for a
        // hashtable) and turns it into an intset at the end if every member is an integer.
        RedisSet? stored = destinationArg <= 0 ? null : smallest.IsIntset ? RedisSet.CreateIntset() : RedisSet.CreateListpack();
        bool onlyIntegers = true;
        ArrayBufferWriter<byte>? pending = stored == null && !cardinalityOnly ? Pending() : null;
        var batch = pending != null ? new RespWriter(pending, ctx.Reply.Protocol) : default;
        Span<byte> scratch = stackalloc byte[RedisSet.ScratchSize];
        long cardinality = 0;
        int position = 0;
        while (smallest.Next(ref position, scratch, out var member))
        {
            bool everywhere = true;
            for (int j = 1; j < keyCount && everywhere; j++)
            {
                var other = sets[order[j]]!;
                if (!ReferenceEquals(other, smallest)) everywhere = other.Contains(member);
            }
            if (!everywhere) continue;
            if (stored != null)
            {
                if (onlyIntegers && !smallest.IsIntset) onlyIntegers = RedisNumbers.TryParseInt64(member, out _);
                stored.Add(member, limits);
                continue;
            }
            cardinality++;
            if (cardinalityOnly)
            {
                if (limit > 0 && cardinality >= limit) break;
                continue;
            }
            batch.Bulk(member);
        }

        if (stored != null)
        {
            if (onlyIntegers && stored.Count > 0) stored.ConvertToIntsetIfFits(limits);
            Store(ref ctx, ctx.Arg(destinationArg), stored, "sinterstore");
            return;
        }
        if (cardinalityOnly)
        {
            ctx.Reply.Integer(cardinality);
            return;
        }
        ctx.Reply.SetHeader(cardinality);
        Flush(ctx.Reply, pending!);
    }

    // ---------------------------------------------------------------- union and difference

    /// <summary>SUNION key [key ...] — the members of any of the sets.</summary>
    public static void SUnion(ref CommandContext ctx) => UnionOrDiff(ref ctx, 1, 0, diff: false);

    /// <summary>SUNIONSTORE destination key [key ...] — stores the union (deleting destination when empty); its size.</summary>
    public static void SUnionStore(ref CommandContext ctx) => UnionOrDiff(ref ctx, 2, 1, diff: false);

    /// <summary>SDIFF key [key ...] — the members of the first set that no other set holds.</summary>
    public static void SDiff(ref CommandContext ctx) => UnionOrDiff(ref ctx, 1, 0, diff: true);

    /// <summary>SDIFFSTORE destination key [key ...] — stores the difference (deleting destination when empty); its size.</summary>
    public static void SDiffStore(ref CommandContext ctx) => UnionOrDiff(ref ctx, 2, 1, diff: true);

    /// <summary>
    /// Redis's sunionDiffGenericCommand. The result starts as an empty intset and converts as
    /// members arrive (so a union of intsets replies in ascending order). For a difference
    /// Redis picks one of two algorithms by estimated work; both give the same members but can leave
    /// a stored result in different encodings, so the choice is made exactly as Redis makes it.
    /// </summary>
    private static void UnionOrDiff(ref CommandContext ctx, int firstKey, int destinationArg, bool diff)
    {
        int keyCount = ctx.ArgCount - firstKey;
        var sets = new RedisSet?[keyCount];
        if (!TryFindSets(ref ctx, firstKey, sets, out _)) return;
        var limits = LimitsOf(ref ctx);
        var result = RedisSet.CreateIntset();
        Span<byte> scratch = stackalloc byte[RedisSet.ScratchSize];
        if (!diff)
        {
            foreach (var s in sets)
            {
                if (s == null) continue;
                int position = 0;
                while (s.Next(ref position, scratch, out var member)) result.Add(member, limits);
            }
        }
        else if (sets[0] != null && !HasSameSetAsFirst(sets))
        {
            var first = sets[0]!;
            long workOne = 0, workTwo = 0;
            foreach (var s in sets)
            {
                if (s == null) continue;
                workOne += first.Count;
                workTwo += s.Count;
            }
            // Algorithm 1 has better constants and stops early on shared members: Redis favours it.
            workOne /= 2;
            if (workOne <= workTwo)
            {
                // Subtract the largest sets first: a member is more likely to be found early.
                var others = new RedisSet?[keyCount - 1];
                Array.Copy(sets, 1, others, 0, keyCount - 1);
                Array.Sort(others, (a, b) => (b?.Count ?? 0).CompareTo(a?.Count ?? 0));
                int position = 0;
                while (first.Next(ref position, scratch, out var member))
                {
                    bool elsewhere = false;
                    foreach (var s in others)
                    {
                        if (s != null && s.Contains(member))
                        {
                            elsewhere = true;
                            break;
                        }
                    }
                    if (!elsewhere) result.Add(member, limits);
                }
            }
            else
            {
                for (int j = 0; j < keyCount; j++)
                {
                    var s = sets[j];
                    if (s == null) continue;
                    int position = 0;
                    while (s.Next(ref position, scratch, out var member))
                    {
                        if (j == 0) result.Add(member, limits);
                        else result.Remove(member);
                    }
                    if (result.Count == 0) break;
                }
            }
        }

        if (destinationArg > 0)
        {
            Store(ref ctx, ctx.Arg(destinationArg), result, diff ? "sdiffstore" : "sunionstore");
            return;
        }
        ctx.Reply.SetHeader(result.Count);
        WriteMembers(ctx.Reply, result);
    }

    /// <summary>SDIFF of a set with itself is empty whatever else is given (Redis short-cuts it the same way).</summary>
    private static bool HasSameSetAsFirst(RedisSet?[] sets)
    {
        for (int j = 1; j < sets.Length; j++)
            if (ReferenceEquals(sets[j], sets[0])) return true;
        return false;
    }

    // ---------------------------------------------------------------- helpers

    /// <summary>The encoding thresholds as configured now (CONFIG SET changes them at any time).</summary>
    private static RedisSet.Limits LimitsOf(ref CommandContext ctx)
    {
        var config = ctx.Server.Config;
        return new RedisSet.Limits(config.SetMaxIntsetEntries, config.SetMaxListpackEntries,
            config.SetMaxListpackValue);
    }

    /// <summary>
    /// The sets at arguments [firstKey, firstKey + sets.Length), null for missing keys. Every key is
    /// type-checked before anything is answered, as Redis does: a missing key does not hide a later
    /// WRONGTYPE.
    /// </summary>
    private static bool TryFindSets(ref CommandContext ctx, int firstKey, RedisSet?[] sets, out bool anyMissing)
    {
        anyMissing = false;
        for (int j = 0; j < sets.Length; j++)
        {
            if (!Lookup.TryRead<RedisSet>(ref ctx, ctx.Arg(firstKey + j), out sets[j])) return false;
            if (sets[j] == null) anyMissing = true;
        }
        return true;
    }

    /// <summary>
    /// Stores a *STORE result over whatever destination held (its TTL dropped) and sends
    /// <paramref name="evt"/> (the command's name), or deletes destination when the result is empty;
    /// replies the size.
    /// </summary>
    private static void Store(ref CommandContext ctx, ReadOnlySpan<byte> destination, RedisSet result, string evt)
    {
        if (result.Count == 0)
        {
            DeleteKey(ref ctx, destination);
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        result.TrimExcess();
        ctx.SetKey(ctx.Db(destination), destination, result);
        ctx.Notify(Ev.Set, evt, destination);
        ctx.Reply.Integer(result.Count);
    }

    /// <summary>
    /// Deletes a *STORE destination whose result is empty: "del" when there was a key, else nothing
    /// happened (Redis then signals no change).
    /// </summary>
    private static void DeleteKey(ref CommandContext ctx, ReadOnlySpan<byte> key)
    {
        if (ctx.Db(key).Delete(key, ctx.NowMs)) ctx.Notify(Ev.Generic, "del", key);
        else ctx.Unchanged = true;
    }

    /// <summary>Every member as a bulk string, in the set's order (an intset's is ascending).</summary>
    private static void WriteMembers(RespWriter w, RedisSet set)
    {
        if (set.IsIntset)
        {
            for (int i = 0; i < set.Count; i++) w.BulkInteger(set.IntegerAt(i));
            return;
        }
        Span<byte> scratch = stackalloc byte[RedisSet.ScratchSize];
        int position = 0;
        while (set.Next(ref position, scratch, out var member)) w.Bulk(member);
    }

    private static ArrayBufferWriter<byte> Pending()
    {
        var pending = t_pending ??= new ArrayBufferWriter<byte>(256);
        pending.ResetWrittenCount();
        return pending;
    }

    /// <summary>Copies a pending batch into the reply; a buffer grown past 1 MB is dropped rather than kept per thread.</summary>
    private static void Flush(RespWriter w, ArrayBufferWriter<byte> pending)
    {
        w.Raw(pending.WrittenSpan);
        pending.ResetWrittenCount();
        if (pending.Capacity > 1 << 20) t_pending = null;
    }
}
