using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;

using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;
namespace RedisClone.Commands;

/// <summary>
/// The keyspace family: DEL, EXISTS, TYPE, RENAME, COPY, MOVE, KEYS, SCAN, RANDOMKEY, DBSIZE,
/// FLUSHDB/FLUSHALL, SWAPDB, the EXPIRE and TTL commands, PERSIST and OBJECT.
/// </summary>
/// <remarks>
/// Multi-key commands (DEL, EXISTS, RENAME, COPY...) may name keys on different shards: the
/// dispatcher holds every gate they need, so each key is simply looked up in its own shard's
/// database. Whole-keyspace commands (KEYS, SCAN, FLUSHDB...) run with every gate held and walk
/// each shard's part of the selected database.
/// <para>
/// Lookups follow Redis's flags: read lookups (EXISTS, TYPE, TTL, OBJECT, TOUCH, COPY's source) count
/// keyspace hits and misses, write lookups (DEL, RENAME, EXPIRE, PERSIST, MOVE) do not. Of the
/// reads only TOUCH and COPY's source refresh the access time OBJECT IDLETIME reports (Redis's
/// LOOKUP_NOTOUCH for the rest); write lookups go through <see cref="Database.FindLive"/>, which
/// refreshes it as Redis's lookupKeyWrite does.
/// </para>
/// </remarks>
internal static class KeyCommands
{
    private const int ExpireNx = 1 << 0;
    private const int ExpireXx = 1 << 1;
    private const int ExpireGt = 1 << 2;
    private const int ExpireLt = 1 << 3;

    private static readonly HelpReply ObjectHelpText = new("OBJECT",
        "ENCODING <key>",
        "    Name the layout the value of <key> is kept in: int, embstr or raw for strings;",
        "    listpack, quicklist, intset, hashtable, skiplist or stream for the other types.",
        "FREQ <key>",
        "    The logarithmic access counter of <key> that LFU eviction ranks keys by;",
        "    only under an LFU maxmemory-policy.",
        "IDLETIME <key>",
        "    Seconds since <key> was last read or written; not available under an LFU",
        "    maxmemory-policy.",
        "REFCOUNT <key>",
        "    How many references the value of <key> has: 2147483647 for the shared",
        "    integers 0 to 9999, 1 for any other value.");

    // ---------------------------------------------------------------- DEL, EXISTS, TOUCH, TYPE

    /// <summary>DEL key [key ...] (and UNLINK) — the number of keys removed; a repeated key counts once.</summary>
    /// <remarks>UNLINK frees nothing in the background here: dropping the references is already O(1) for the shard.</remarks>
    public static void Del(ref CommandContext ctx)
    {
        long deleted = 0;
        for (int i = 1; i < ctx.ArgCount; i++)
        {
            var key = ctx.Arg(i);
            var db = ctx.Db(key);
            if (!db.Delete(key, ctx.NowMs, out object? value)) continue;
            deleted++;
            // UNLINK, or DEL under lazyfree-lazy-user-del: a value Redis frees on its lazyfree
            // thread is counted (strings never are).
            if (value is IRedisValue { FreeEffort: > LazyFreeThreshold }
                && (ctx.ArgIs(0, "UNLINK") || ctx.Server.Config.LazyfreeLazyUserDel))
                Interlocked.Increment(ref ctx.Server.Stats.LazyFreedObjects);
            // Only keys that existed are signalled: a WATCH on a missing key survives its DEL.
            if (db.HasWatchers) db.SignalModified(key);
            ctx.Notify(Ev.Generic, "del", key);
        }
        ctx.SignalledItself = true;
        ctx.Unchanged = deleted == 0;
        ctx.Reply.Integer(deleted);
    }

    /// <summary>EXISTS key [key ...] — how many of the keys exist; a repeated key counts each time.</summary>
    public static void Exists(ref CommandContext ctx)
    {
        long found = 0;
        for (int i = 1; i < ctx.ArgCount; i++)
        {
            var key = ctx.Arg(i);
            if (Lookup.SlotForRead(ctx.Db(key), key, ctx.NowMs, touch: false) >= 0) found++;
        }
        ctx.Reply.Integer(found);
    }

    /// <summary>TOUCH key [key ...] — refreshes each key's access time; the number found (repeats count).</summary>
    public static void Touch(ref CommandContext ctx)
    {
        long found = 0;
        for (int i = 1; i < ctx.ArgCount; i++)
        {
            var key = ctx.Arg(i);
            if (ctx.Db(key).GetForRead(key, ctx.NowMs) != null) found++;
        }
        ctx.Reply.Integer(found);
    }

    /// <summary>TYPE key — "string", "list", ... as a simple string, or "none".</summary>
    public static void Type(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: false);
        if (slot < 0) ctx.Reply.Raw("+none\r\n"u8);
        else ctx.Reply.SimpleString(ValueTypes.TypeName(db.Table.At(slot).Value));
    }

    // ---------------------------------------------------------------- RENAME, COPY, MOVE

    /// <summary>RENAME key newkey — OK; "ERR no such key" when key is missing. The TTL moves with the value.</summary>
    public static void Rename(ref CommandContext ctx) => RenameGeneric(ref ctx, nx: false);

    /// <summary>RENAMENX key newkey — 1 if renamed, 0 if newkey exists; "ERR no such key" when key is missing.</summary>
    public static void RenameNx(ref CommandContext ctx) => RenameGeneric(ref ctx, nx: true);

    private static void RenameGeneric(ref CommandContext ctx, bool nx)
    {
        var src = ctx.Arg(1);
        var dst = ctx.Arg(2);
        var srcDb = ctx.Db(src);
        int srcSlot = srcDb.FindLive(src, ctx.NowMs);
        if (srcSlot < 0)
        {
            ctx.Error(RespErrors.NoSuchKey);
            return;
        }
        if (src.SequenceEqual(dst))
        {
            // Redis checks existence first, then treats renaming a key onto itself as a no-op.
            ctx.Unchanged = true;
            ctx.Reply.Raw(nx ? Resp.Zero : Resp.Ok);
            return;
        }
        var dstDb = ctx.Db(dst);
        int dstSlot = dstDb.FindLive(dst, ctx.NowMs);
        string? replacedType = null; // Redis 8.2's overwritten / type_changed events need it
        if (dstSlot >= 0)
        {
            if (nx)
            {
                ctx.Unchanged = true;
                ctx.Reply.Raw(Resp.Zero);
                return;
            }
            if (ctx.OverwriteEventsOn) replacedType = ValueTypes.TypeName(dstDb.Table.At(dstSlot).Value);
            dstDb.RemoveAt(dstSlot);
        }
        // The value object itself moves (as in Redis), so its encoding and raw flag go with it; a
        // string embedded with the old key is embedded with the new one (its bytes outlive RemoveAt).
        ref var e = ref srcDb.Table.At(srcSlot);
        object value = e.Value;
        bool embedded = e.IsEmbedded;
        ReadOnlySpan<byte> bytes = default;
        if (embedded) StringValue.TryGet(in e, out bytes);
        long expireAt = srcDb.Table.ExpireAt(srcSlot);
        int rawFlag = e.HashAndFlag & KeyTable.RawFlag;
        srcDb.RemoveAt(srcSlot);
        int slot = embedded ? dstDb.AddString(dst, bytes, expireAt) : dstDb.Add(dst.ToArray(), value, expireAt);
        dstDb.Table.At(slot).HashAndFlag |= rawFlag;
        ctx.Notify(Ev.Generic, "rename_from", ctx.Arg(1));
        ctx.Notify(Ev.Generic, "rename_to", dst);
        if (replacedType != null) ctx.NotifyOverwritten(dst, replacedType, ValueTypes.TypeName(value));
        ctx.Reply.Raw(nx ? Resp.One : Resp.Ok);
    }

    /// <summary>
    /// COPY source destination [DB destination-db] [REPLACE] — 1 if copied, 0 if the source is
    /// missing or the destination exists without REPLACE. The copy is deep and keeps the TTL.
    /// </summary>
    /// <remarks>The destination database lives on the destination key's shard, whose gate is held.</remarks>
    public static void Copy(ref CommandContext ctx)
    {
        int dbIndex = ctx.DbIndex;
        bool replace = false;
        for (int j = 3; j < ctx.ArgCount; j++)
        {
            if (ctx.ArgIs(j, "REPLACE"))
            {
                replace = true;
            }
            else if (ctx.ArgIs(j, "DB") && j + 1 < ctx.ArgCount)
            {
                if (!TryParseInt32(ctx.Arg(j + 1), out dbIndex))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if ((uint)dbIndex >= (uint)DatabaseCount(ref ctx))
                {
                    ctx.Error(RespErrors.DbIndexOutOfRange);
                    return;
                }
                j++;
            }
            else
            {
                ctx.Syntax();
                return;
            }
        }

        var src = ctx.Arg(1);
        var dst = ctx.Arg(2);
        if (dbIndex == ctx.DbIndex && src.SequenceEqual(dst))
        {
            ctx.Error(RespErrors.SameObject);
            return;
        }
        var srcDb = ctx.Db(src);
        int srcSlot = Lookup.SlotForRead(srcDb, src, ctx.NowMs, touch: true);
        if (srcSlot < 0)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        var dstDb = ctx.Db(dst, dbIndex);
        int dstSlot = dstDb.FindLive(dst, ctx.NowMs);
        if (dstSlot >= 0 && !replace)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        // Copy before deleting the destination: a value that cannot be copied leaves both keys as they were.
        // An embedded string is copied by embedding its bytes with the new key.
        ref var e = ref srcDb.Table.At(srcSlot);
        bool embedded = e.IsEmbedded;
        ReadOnlySpan<byte> bytes = default;
        if (embedded) StringValue.TryGet(in e, out bytes);
        object? copy = embedded ? null : ValueTypes.DeepCopy(e.Value);
        long expireAt = srcDb.Table.ExpireAt(srcSlot);
        int rawFlag = e.HashAndFlag & KeyTable.RawFlag;
        string? replacedType = null, copiedType = null; // for Redis 8.2's overwritten / type_changed events
        if (dstSlot >= 0 && ctx.OverwriteEventsOn)
        {
            replacedType = ValueTypes.TypeName(dstDb.Table.At(dstSlot).Value);
            copiedType = ValueTypes.TypeName(e.Value);
        }
        if (dstSlot >= 0) dstDb.RemoveAt(dstSlot);
        int slot = embedded ? dstDb.AddString(dst, bytes, expireAt) : dstDb.Add(dst.ToArray(), copy!, expireAt);
        dstDb.Table.At(slot).HashAndFlag |= rawFlag;
        PubSub.KeyspaceNotifier.Notify(ctx.Server, Ev.Generic, "copy_to", dst, dstDb.Index);
        if (replacedType != null) ctx.NotifyOverwritten(dst, replacedType, copiedType!, dstDb.Index);
        // Redis signals the destination in its own database (DB n), which the dispatcher, signalling
        // in the selected one, would miss.
        ctx.SignalledItself = true;
        if (dstDb.HasWatchers) dstDb.SignalModified(dst);
        if (dstDb.HasBlocked) dstDb.WakeBlocked(dst);
        ctx.Reply.Raw(Resp.One);
    }

    /// <summary>MOVE key db — 1 if moved to database db, 0 if missing here or present there.</summary>
    /// <remarks>Database db of the same shard holds the key, so no other gate is needed.</remarks>
    public static void Move(ref CommandContext ctx)
    {
        if (ctx.Server.Cluster != null)
        {
            ctx.Error(RespErrors.MoveInClusterMode);
            return;
        }
        var key = ctx.Arg(1);
        if (!TryParseInt32(ctx.Arg(2), out int dbIndex))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if ((uint)dbIndex >= (uint)DatabaseCount(ref ctx))
        {
            ctx.Error(RespErrors.DbIndexOutOfRange);
            return;
        }
        if (dbIndex == ctx.DbIndex)
        {
            ctx.Error(RespErrors.SameObject);
            return;
        }
        var srcDb = ctx.Db(key);
        int srcSlot = srcDb.FindLive(key, ctx.NowMs);
        if (srcSlot < 0)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        var dstDb = ctx.Db(key, dbIndex);
        if (dstDb.FindLive(key, ctx.NowMs) >= 0)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        // The key's array and value move as they are: the source entry lets go of both. A string
        // embedded with its key is embedded again in the destination (its bytes outlive RemoveAt).
        ref var e = ref srcDb.Table.At(srcSlot);
        byte[] keyBytes = e.KeyArray();
        object value = e.Value;
        bool embedded = e.IsEmbedded;
        ReadOnlySpan<byte> bytes = default;
        if (embedded) StringValue.TryGet(in e, out bytes);
        long expireAt = srcDb.Table.ExpireAt(srcSlot);
        int rawFlag = e.HashAndFlag & KeyTable.RawFlag;
        srcDb.RemoveAt(srcSlot);
        int slot = embedded ? dstDb.AddString(keyBytes, bytes, expireAt) : dstDb.Add(keyBytes, value, expireAt);
        dstDb.Table.At(slot).HashAndFlag |= rawFlag;
        ctx.Notify(Ev.Generic, "move_from", keyBytes);
        PubSub.KeyspaceNotifier.Notify(ctx.Server, Ev.Generic, "move_to", keyBytes, dstDb.Index);
        // Redis signals the key in both databases; the dispatcher would only see the selected one.
        ctx.SignalledItself = true;
        if (srcDb.HasWatchers) srcDb.SignalModified(keyBytes);
        if (dstDb.HasWatchers) dstDb.SignalModified(keyBytes);
        if (dstDb.HasBlocked) dstDb.WakeBlocked(keyBytes);
        ctx.Reply.Raw(Resp.One);
    }

    // ---------------------------------------------------------------- KEYS, SCAN, RANDOMKEY, DBSIZE

    /// <summary>KEYS pattern — every live key matching the glob, shard by shard (order unspecified, as in Redis).</summary>
    /// <remarks>
    /// Expired keys met on the way are skipped, not deleted: Redis's KEYS only asks keyIsExpired, so
    /// it neither removes them (DBSIZE still counts them) nor propagates a DEL.
    /// </remarks>
    public static void Keys(ref CommandContext ctx)
    {
        var pattern = ctx.Arg(1);
        bool all = pattern.Length == 1 && pattern[0] == (byte)'*';
        // Slots, not keys: a key embedded with its value has no array of its own to collect. Nothing
        // changes the tables before the reply is written (every gate is held).
        var found = new List<(KeyTable Table, int Slot)>();
        var shards = ctx.Server.Shards;
        for (int i = 0; i < shards.Count; i++)
        {
            var db = shards[i].Store[ctx.DbIndex];
            var table = db.Table;
            for (int s = 0; s < table.SlotCount; s++)
            {
                if (!table.IsUsed(s)) continue;
                ref var e = ref table.At(s);
                if (!all && !GlobMatcher.IsMatch(pattern, e.Key)) continue;
                if (IsExpired(table, s, ctx.NowMs)) continue;
                found.Add((table, s));
            }
        }
        ctx.Reply.ArrayHeader(found.Count);
        foreach (var (table, s) in found) ctx.Reply.Bulk(table.At(s).Key);
    }

    /// <summary>
    /// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type] — the next cursor and a batch of keys.
    /// </summary>
    /// <remarks>
    /// The cursor encodes a position (shard, slot) as <c>slot * shardCount + shard</c>, and the scan
    /// walks shard 0's slots, then shard 1's, and so on. A call starts at the cursor's shard and goes
    /// on into the next ones while COUNT allows (Routing.ScanCursor holds the gates of the cursor's
    /// shard and every later one), so a keyspace smaller than COUNT comes back in one call with
    /// cursor 0, as from Redis's dict. KeyTable slots never move (growing keeps every entry at its
    /// index), so a key present for the whole scan sits at one fixed position and is returned exactly
    /// once, whatever is added or deleted meanwhile; keys added or deleted during the scan may or may
    /// not appear, as Redis promises. COUNT is the amount of work, as in Redis 7.2 (its sampled
    /// count): stop before the next key once COUNT keys were seen, MATCH and TYPE filtering
    /// afterwards, or after 10*COUNT slots were visited. Free slots and exhausted shards before the
    /// next key are skipped within that bound, so the call that returns the last key says cursor 0.
    /// </remarks>
    public static void Scan(ref CommandContext ctx)
    {
        if (!ScanArguments.TryReadCursor(ref ctx, 1, out ulong cursor)) return;
        if (!ScanArguments.TryParse(ref ctx, 2, allowType: true, out long count, out int patternArg, out int typeArg)) return;
        var pattern = patternArg > 0 ? ctx.Arg(patternArg) : default;
        // An unknown TYPE name matches nothing (Redis 7.2 plans an error for it only in 8.0).
        var typeName = typeArg > 0 ? ctx.Arg(typeArg) : default;

        var shards = ctx.Server.Shards;
        int shardCount = shards.Count;
        int shard = (int)(cursor % (ulong)shardCount);
        ulong slotFromCursor = cursor / (ulong)shardCount;
        var db = shards[shard].Store[ctx.DbIndex];
        var table = db.Table;
        int slot = slotFromCursor > (ulong)table.SlotCount ? table.SlotCount : (int)slotFromCursor;
        long maxVisits = count > long.MaxValue / 10 ? long.MaxValue : count * 10;
        long seen = 0, visits = 0;
        bool finished = false;
        // Slots (see KEYS); deleting an expired key below frees only its own.
        var found = new List<(KeyTable Table, int Slot)>();

        while (visits < maxVisits)
        {
            if (slot >= table.SlotCount)
            {
                if (shard + 1 >= shardCount)
                {
                    finished = true;
                    break;
                }
                shard++;
                db = shards[shard].Store[ctx.DbIndex];
                table = db.Table;
                slot = 0;
                continue;
            }
            visits++;
            if (!table.IsUsed(slot))
            {
                slot++;
                continue;
            }
            if (seen >= count) break; // the next call starts at this key
            seen++;
            int s = slot++;
            ref var e = ref table.At(s);
            if (patternArg > 0 && !GlobMatcher.IsMatch(pattern, e.Key)) continue;
            if (typeArg > 0 && !System.Text.Ascii.EqualsIgnoreCase(typeName, ValueTypes.TypeName(e.Value))) continue;
            if (IsExpired(table, s, ctx.NowMs))
            {
                db.FindLive(e.Key, ctx.NowMs); // deletes it and counts it as expired
                continue;
            }
            found.Add((table, s));
        }
        if (slot >= table.SlotCount && shard + 1 >= shardCount) finished = true; // stopped on the very last slot
        long next = finished ? 0 : (long)slot * shardCount + shard;

        ctx.Reply.ArrayHeader(2);
        ctx.Reply.BulkInteger(next);
        ctx.Reply.ArrayHeader(found.Count);
        foreach (var (t, s) in found) ctx.Reply.Bulk(t.At(s).Key);
    }

    /// <summary>Every key of the selected database has a TTL (RANDOMKEY on a replica).</summary>
    private static bool AllVolatile(ref CommandContext ctx)
    {
        var shards = ctx.Server.Shards;
        for (int i = 0; i < shards.Count; i++)
        {
            var db = shards[i].Store[ctx.DbIndex];
            if (db.Count != db.ExpiresCount) return false;
        }
        return true;
    }

    /// <summary>RANDOMKEY — a random live key, or nil when the database is empty.</summary>
    /// <remarks>A shard is picked in proportion to its key count; expired picks are deleted and the draw repeated.</remarks>
    public static void RandomKey(ref CommandContext ctx)
    {
        var shards = ctx.Server.Shards;
        long total = 0;
        for (int i = 0; i < shards.Count; i++) total += shards[i].Store[ctx.DbIndex].Count;
        var random = Random.Shared;
        int replicaTries = 100;
        while (total > 0)
        {
            long pick = random.NextInt64(total);
            int shard = 0;
            for (; shard < shards.Count - 1; shard++)
            {
                long n = shards[shard].Store[ctx.DbIndex].Count;
                if (pick < n) break;
                pick -= n;
            }
            var db = shards[shard].Store[ctx.DbIndex];
            int slot = db.Table.RandomSlot(random);
            if (slot < 0)
            {
                total = RecountKeys(ref ctx);
                continue;
            }
            ref var e = ref db.Table.At(slot);
            if (IsExpired(db.Table, slot, ctx.NowMs))
            {
                if (db.Owner.ExpiryByMaster)
                {
                    // A replica deletes nothing: as Redis's dbRandomKey, after 100 tries on a database
                    // whose keys all have a TTL, an expired key is returned rather than looping on.
                    if (--replicaTries <= 0 && AllVolatile(ref ctx))
                    {
                        ctx.Reply.Bulk(e.Key);
                        return;
                    }
                    continue;
                }
                db.FindLive(e.Key, ctx.NowMs); // deletes it; each round removes a key, so this ends
                total--;
                continue;
            }
            ctx.Reply.Bulk(e.Key);
            return;
        }
        ctx.Reply.NullBulk();
    }

    /// <summary>DBSIZE — the number of keys in the selected database (keys expired but not yet deleted included, as in Redis).</summary>
    public static void DbSize(ref CommandContext ctx) => ctx.Reply.Integer(RecountKeys(ref ctx));

    // ---------------------------------------------------------------- FLUSHDB, FLUSHALL, SWAPDB

    /// <summary>FLUSHDB [ASYNC|SYNC] — removes every key of the selected database.</summary>
    /// <remarks>Both modes are immediate: dropping a shard's table is O(1) and the GC frees it later.</remarks>
    public static void FlushDb(ref CommandContext ctx)
    {
        if (!CheckFlushMode(ref ctx)) return;
        var shards = ctx.Server.Shards;
        CountLazyFlush(ref ctx, ctx.DbIndex);
        for (int i = 0; i < shards.Count; i++) shards[i].Store[ctx.DbIndex].Clear();
        ctx.Server.Tracking.Flushed();
        ctx.Reply.Ok();
    }

    /// <summary>FLUSHALL [ASYNC|SYNC] — removes every key of every database.</summary>
    public static void FlushAll(ref CommandContext ctx)
    {
        if (!CheckFlushMode(ref ctx)) return;
        var rdb = ctx.Server.Rdb;
        // As Redis: a background save in progress stops, and with save points the empty dataset
        // is saved at once, so a restart does not bring the flushed keys back.
        rdb.AbortBackground();
        var shards = ctx.Server.Shards;
        CountLazyFlush(ref ctx, -1);
        for (int i = 0; i < shards.Count; i++)
        {
            var store = shards[i].Store;
            for (int db = 0; db < store.DatabaseCount; db++) store[db].Clear();
        }
        ctx.Server.Tracking.Flushed();
        if (ctx.Server.Config.SavePoints.Length > 0) rdb.SaveForeground();
        ctx.Reply.Ok();
    }

    /// <summary>SWAPDB index1 index2 — the two databases exchange their contents on every shard.</summary>
    public static void SwapDb(ref CommandContext ctx)
    {
        if (ctx.Server.Cluster != null)
        {
            ctx.Error(RespErrors.SwapDbInClusterMode);
            return;
        }
        if (!TryParseInt32(ctx.Arg(1), out int a))
        {
            ctx.Error(RespErrors.InvalidFirstDb);
            return;
        }
        if (!TryParseInt32(ctx.Arg(2), out int b))
        {
            ctx.Error(RespErrors.InvalidSecondDb);
            return;
        }
        int databases = DatabaseCount(ref ctx);
        if ((uint)a >= (uint)databases || (uint)b >= (uint)databases)
        {
            ctx.Error(RespErrors.DbIndexOutOfRange);
            return;
        }
        if (a != b)
        {
            var shards = ctx.Server.Shards;
            for (int i = 0; i < shards.Count; i++) shards[i].Store.Swap(a, b);
        }
        ctx.Reply.Ok();
    }

    // ---------------------------------------------------------------- EXPIRE family

    /// <summary>EXPIRE key seconds [NX|XX|GT|LT] — 1 if the TTL was set (or the key deleted by a past time), else 0.</summary>
    public static void Expire(ref CommandContext ctx) => ExpireGeneric(ref ctx, ctx.NowMs, seconds: true, RespErrors.InvalidExpireExpire);

    /// <summary>PEXPIRE key milliseconds [NX|XX|GT|LT] — as EXPIRE, in milliseconds.</summary>
    public static void PExpire(ref CommandContext ctx) => ExpireGeneric(ref ctx, ctx.NowMs, seconds: false, RespErrors.InvalidExpirePExpire);

    /// <summary>EXPIREAT key unix-time-seconds [NX|XX|GT|LT] — as EXPIRE, at an absolute time.</summary>
    public static void ExpireAt(ref CommandContext ctx) => ExpireGeneric(ref ctx, 0, seconds: true, RespErrors.InvalidExpireExpireAt);

    /// <summary>PEXPIREAT key unix-time-milliseconds [NX|XX|GT|LT] — as EXPIREAT, in milliseconds.</summary>
    public static void PExpireAt(ref CommandContext ctx) => ExpireGeneric(ref ctx, 0, seconds: false, RespErrors.InvalidExpirePExpireAt);

    /// <summary>
    /// Redis's expireGenericCommand: options first (unknown option, then conflicts), then the time
    /// (not an integer; overflow converting seconds or adding the base time), then the key. GT treats
    /// "no TTL" as infinite (never greater); LT treats it as infinite too (always less).
    /// </summary>
    private static void ExpireGeneric(ref CommandContext ctx, long baseTime, bool seconds, ReadOnlySpan<byte> invalidTime)
    {
        int flags = 0;
        for (int j = 3; j < ctx.ArgCount; j++)
        {
            if (ctx.ArgIs(j, "NX")) flags |= ExpireNx;
            else if (ctx.ArgIs(j, "XX")) flags |= ExpireXx;
            else if (ctx.ArgIs(j, "GT")) flags |= ExpireGt;
            else if (ctx.ArgIs(j, "LT")) flags |= ExpireLt;
            else
            {
                ctx.Error(RespErrors.UnsupportedOption(ctx.Arg(j)));
                return;
            }
        }
        if ((flags & ExpireNx) != 0 && (flags & (ExpireXx | ExpireGt | ExpireLt)) != 0)
        {
            ctx.Error(RespErrors.ExpireNxConflict);
            return;
        }
        if ((flags & ExpireGt) != 0 && (flags & ExpireLt) != 0)
        {
            ctx.Error(RespErrors.ExpireGtLtConflict);
            return;
        }
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long when))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (seconds)
        {
            if (when > long.MaxValue / 1000 || when < long.MinValue / 1000)
            {
                ctx.Error(invalidTime);
                return;
            }
            when *= 1000;
        }
        if (when > long.MaxValue - baseTime)
        {
            ctx.Error(invalidTime);
            return;
        }
        when += baseTime;

        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        int slot = db.FindLive(key, ctx.NowMs);
        if (slot < 0)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        if (flags != 0)
        {
            long current = db.Table.ExpireAt(slot);
            bool hasTtl = current != 0;
            bool refused =
                ((flags & ExpireNx) != 0 && hasTtl) ||
                ((flags & ExpireXx) != 0 && !hasTtl) ||
                ((flags & ExpireGt) != 0 && (!hasTtl || when <= current)) ||
                ((flags & ExpireLt) != 0 && hasTtl && when >= current);
            if (refused)
            {
                ctx.Unchanged = true;
                ctx.Reply.Raw(Resp.Zero);
                return;
            }
        }
        if (ctx.AlreadyExpired(when))
        {
            // A time already past deletes the key (Redis replies 1: the "expire" happened).
            db.RemoveAt(slot);
            ctx.Notify(Ev.Generic, "del", ctx.Arg(1));
            ctx.Propagation?.Rewrite(ctx.DbIndex).Add(ctx.Server.Config.LazyfreeLazyExpire ? "UNLINK"u8 : "DEL"u8).Add(key);
        }
        else
        {
            db.SetExpire(slot, when);
            ctx.Notify(Ev.Generic, "expire", ctx.Arg(1));
            // As PEXPIREAT at the absolute time, the options as sent (Redis rewrites arguments 0 and 2 only).
            if (ctx.Propagation is { } log)
            {
                log.Rewrite(ctx.DbIndex).Add("PEXPIREAT"u8).Add(key).Add(when);
                for (int j = 3; j < ctx.ArgCount; j++) log.Add(ctx.Arg(j));
            }
        }
        ctx.Reply.Raw(Resp.One);
    }

    /// <summary>TTL key — seconds to live (rounded), -1 without a TTL, -2 when missing.</summary>
    public static void Ttl(ref CommandContext ctx) => TtlGeneric(ref ctx, milliseconds: false, absolute: false);

    /// <summary>PTTL key — milliseconds to live, -1 without a TTL, -2 when missing.</summary>
    public static void PTtl(ref CommandContext ctx) => TtlGeneric(ref ctx, milliseconds: true, absolute: false);

    /// <summary>EXPIRETIME key — the expiry as unix seconds, -1 without a TTL, -2 when missing.</summary>
    public static void ExpireTime(ref CommandContext ctx) => TtlGeneric(ref ctx, milliseconds: false, absolute: true);

    /// <summary>PEXPIRETIME key — the expiry as unix milliseconds, -1 without a TTL, -2 when missing.</summary>
    public static void PExpireTime(ref CommandContext ctx) => TtlGeneric(ref ctx, milliseconds: true, absolute: true);

    private static void TtlGeneric(ref CommandContext ctx, bool milliseconds, bool absolute)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: false);
        if (slot < 0)
        {
            ctx.Reply.Raw(Resp.MinusTwo);
            return;
        }
        long at = db.Table.ExpireAt(slot);
        if (at == 0)
        {
            ctx.Reply.Raw(Resp.MinusOne);
            return;
        }
        if (absolute)
        {
            ctx.Reply.Integer(milliseconds ? at : at / 1000);
            return;
        }
        long ttl = Math.Max(0, at - ctx.NowMs);
        ctx.Reply.Integer(milliseconds ? ttl : (ttl + 500) / 1000);
    }

    /// <summary>PERSIST key — 1 if a TTL was removed, 0 if the key is missing or has none.</summary>
    public static void Persist(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        int slot = db.FindLive(key, ctx.NowMs);
        if (slot < 0 || !db.Table.At(slot).HasTtl)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        db.SetExpire(slot, 0);
        ctx.Notify(Ev.Generic, "persist", key);
        ctx.Reply.Raw(Resp.One);
    }

    // ---------------------------------------------------------------- OBJECT

    /// <summary>OBJECT ENCODING key — the value's internal representation ("int", "embstr", "raw"...), or nil.</summary>
    public static void ObjectEncoding(ref CommandContext ctx)
    {
        var key = ctx.Arg(2);
        var db = ctx.Db(key);
        int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: false);
        if (slot < 0)
        {
            ctx.Reply.NullBulk();
            return;
        }
        ref var e = ref db.Table.At(slot);
        ctx.Reply.Bulk(ValueTypes.EncodingName(in e));
    }

    /// <summary>
    /// OBJECT FREQ key — the key's logarithmic access counter as LFU eviction sees it (decayed by
    /// the minutes since it was last counted, not updated by this read); nil when missing; Redis's
    /// error unless an LFU maxmemory-policy is selected.
    /// </summary>
    public static void ObjectFreq(ref CommandContext ctx)
    {
        var key = ctx.Arg(2);
        var db = ctx.Db(key);
        int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: false);
        if (slot < 0)
        {
            ctx.Reply.NullBulk();
            return;
        }
        if (!IsLfuPolicy(ref ctx))
        {
            ctx.Error(RespErrors.LfuPolicyNotSelected);
            return;
        }
        ctx.Reply.Integer(ctx.Server.KeyAccess.Decayed(db.Table.LastAccess(slot)));
    }

    /// <summary>
    /// OBJECT IDLETIME key — seconds since the key was last read, written or touched; nil when
    /// missing; Redis's error under an LFU maxmemory-policy (which tracks frequency instead).
    /// </summary>
    public static void ObjectIdleTime(ref CommandContext ctx)
    {
        var key = ctx.Arg(2);
        var db = ctx.Db(key);
        int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: false);
        if (slot < 0)
        {
            ctx.Reply.NullBulk();
            return;
        }
        if (IsLfuPolicy(ref ctx))
        {
            ctx.Error(RespErrors.LfuPolicySelected);
            return;
        }
        ctx.Reply.Integer(LruClock.SecondsSince(db.Table.LastAccess(slot)));
    }

    /// <summary>OBJECT REFCOUNT key — 2147483647 for Redis's shared integers 0..9999, else 1; nil when missing.</summary>
    public static void ObjectRefCount(ref CommandContext ctx)
    {
        var key = ctx.Arg(2);
        var db = ctx.Db(key);
        int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: false);
        if (slot < 0)
        {
            ctx.Reply.NullBulk();
            return;
        }
        ref var e = ref db.Table.At(slot);
        ctx.Reply.Integer(ValueTypes.RefCount(in e));
    }

    /// <summary>OBJECT HELP — the subcommands, one simple string per line.</summary>
    public static void ObjectHelp(ref CommandContext ctx) => ObjectHelpText.Write(ref ctx);

    // ---------------------------------------------------------------- helpers

    private static bool IsExpired(KeyTable table, int slot, long nowMs)
    {
        long at = table.ExpireAt(slot);
        return at != 0 && at <= nowMs;
    }

    /// <summary>allkeys-lfu and volatile-lfu: Redis then keeps a frequency counter instead of an access time.</summary>
    private static bool IsLfuPolicy(ref CommandContext ctx) => ctx.Server.KeyAccess.Lfu;

    private static int DatabaseCount(ref CommandContext ctx) => ctx.Server.Options.Databases;

    private static long RecountKeys(ref CommandContext ctx)
    {
        var shards = ctx.Server.Shards;
        long total = 0;
        for (int i = 0; i < shards.Count; i++) total += shards[i].Store[ctx.DbIndex].Count;
        return total;
    }

    /// <summary>FLUSHDB/FLUSHALL take at most one argument, SYNC or ASYNC; anything else is a syntax error.</summary>
    /// <summary>Redis's LAZYFREE_THRESHOLD: a value whose free effort is above it is freed lazily.</summary>
    private const long LazyFreeThreshold = 64;

    /// <summary>
    /// An async flush (ASYNC, or neither SYNC nor ASYNC under lazyfree-lazy-user-flush): Redis frees
    /// the old databases on its lazyfree thread and counts every key of them in lazyfreed_objects.
    /// </summary>
    private static void CountLazyFlush(ref CommandContext ctx, int onlyDb)
    {
        bool async = ctx.ArgCount == 2 ? ctx.ArgIs(1, "ASYNC") : ctx.Server.Config.LazyfreeLazyUserFlush;
        if (!async) return;
        long keys = 0;
        var shards = ctx.Server.Shards;
        for (int i = 0; i < shards.Count; i++)
        {
            var store = shards[i].Store;
            for (int db = 0; db < store.DatabaseCount; db++)
                if (onlyDb < 0 || db == onlyDb) keys += store[db].Count;
        }
        Interlocked.Add(ref ctx.Server.Stats.LazyFreedObjects, keys);
    }

    private static bool CheckFlushMode(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 2 || (ctx.ArgCount == 2 && !ctx.ArgIs(1, "SYNC") && !ctx.ArgIs(1, "ASYNC")))
        {
            ctx.Syntax();
            return false;
        }
        return true;
    }

    /// <summary>Redis's getIntFromObject: a string2ll integer that fits in 32 bits.</summary>
    private static bool TryParseInt32(ReadOnlySpan<byte> text, out int value)
    {
        value = 0;
        if (!RedisNumbers.TryParseInt64(text, out long v) || v < int.MinValue || v > int.MaxValue) return false;
        value = (int)v;
        return true;
    }
}
