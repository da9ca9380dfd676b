using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// The hash family: HSET, HSETNX, HMSET, HGET, HMGET, HGETALL, HKEYS, HVALS, HLEN, HEXISTS, HDEL,
/// HSTRLEN, HINCRBY, HINCRBYFLOAT, HRANDFIELD and HSCAN, over <see cref="RedisHash"/> values (field
/// expiry and its commands in HashCommands.FieldExpiry.cs).
/// </summary>
/// <remarks>
/// Each handler runs on its key's shard with the gate held. Argument checks come in Redis's order
/// (numbers before the key lookup where Redis parses them first), write commands create the key
/// only when they store something, and a hash emptied by HDEL is deleted. The encoding thresholds
/// are read per command, so CONFIG SET takes effect at once, as in Redis.
/// <para>Keyspace events are Redis 7.0's: HSET and HMSET always send "hset" (even when no value
/// changed), HSETNX only when it set the field, HDEL "hdel" then "del" when the hash emptied, the
/// increments their own names. A write that changed nothing (HSETNX on an existing field, HDEL of
/// missing fields) sends nothing and sets <see cref="CommandContext.Unchanged"/>, so WATCHes hold.</para>
/// </remarks>
internal static partial class HashCommands
{
    /// <summary>
    /// The most a negative-count HRANDFIELD may produce (estimated from the hash's average entry).
    /// Redis has no bound and builds whatever was asked, exhausting memory on a huge count; we refuse
    /// such counts with the error Redis gives for counts it cannot double.
    /// </summary>
    internal const long MaxRandomReplyBytes = 512L << 20;

    private static long MaxEntries(ref CommandContext ctx) => ctx.Server.Config.HashMaxListpackEntries;

    private static long MaxValue(ref CommandContext ctx) => ctx.Server.Config.HashMaxListpackValue;

    // ---------------------------------------------------------------- lookups

    /// <summary>
    /// The hash at <paramref name="key"/> for a write, or a new empty one stored there when
    /// <paramref name="create"/> (the caller must then add a field). Null when missing and not
    /// created, or after replying WRONGTYPE (<paramref name="wrongType"/>).
    /// </summary>
    private static RedisHash? ForWrite(ref CommandContext ctx, Database db, scoped ReadOnlySpan<byte> key, bool create,
        out int slot, out bool wrongType)
    {
        wrongType = !Lookup.TryWrite(ref ctx, db, key, out slot, out RedisHash? hash);
        if (hash != null || wrongType || !create) return hash;
        var created = new RedisHash();
        slot = db.Add(key.ToArray(), created);
        return created;
    }

    // ---------------------------------------------------------------- writes

    /// <summary>HSET key field value [field value ...] — how many fields were new.</summary>
    public static void HSet(ref CommandContext ctx) => SetPairs(ref ctx, replyOk: false);

    /// <summary>HMSET key field value [field value ...] — OK (HSET's older form).</summary>
    public static void HMSet(ref CommandContext ctx) => SetPairs(ref ctx, replyOk: true);

    private static void SetPairs(ref CommandContext ctx, bool replyOk)
    {
        // The table's arity (-4) lets through an odd count; a dangling field is the command's own error.
        if (ctx.ArgCount % 2 == 1)
        {
            ctx.Error(replyOk ? RespErrors.WrongArityHMSet : RespErrors.WrongArityHSet);
            return;
        }
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        var hash = ForWrite(ref ctx, db, key, create: true, out _, out _);
        if (hash == null) return;
        long maxEntries = MaxEntries(ref ctx), maxValue = MaxValue(ref ctx);
        if (hash.IsPacked)
        {
            int longest = 0;
            long total = 0, encoded = 0;
            for (int i = 2; i < ctx.ArgCount; i++)
            {
                int len = ctx.Arg(i).Length;
                longest = Math.Max(longest, len);
                total += len;
                encoded += RedisHash.EncodedLength(len);
            }
            hash.ConvertIfTooLong(longest, maxValue, total);
            // Room for all the pairs at once, unless they will push the hash over to the table form.
            if (ctx.ArgCount > 4 && hash.Count + (ctx.ArgCount - 2) / 2 <= maxEntries) hash.ReservePacked(encoded);
        }
        long added = 0;
        for (int i = 2; i < ctx.ArgCount; i += 2)
            if (hash.Set(ctx.Arg(i), ctx.Arg(i + 1), maxEntries, maxValue)) added++;
        ctx.Notify(Ev.Hash, "hset", key);
        if (replyOk) ctx.Reply.Ok();
        else ctx.Reply.Integer(added);
    }

    /// <summary>HSETNX key field value — 1 when the field was set, 0 when it already existed.</summary>
    public static void HSetNx(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var field = ctx.Arg(2);
        var value = ctx.Arg(3);
        var db = ctx.Db(key);
        var hash = ForWrite(ref ctx, db, key, create: false, out _, out bool wrongType);
        if (wrongType) return;
        if (hash != null)
        {
            var state = GetField(ref ctx, hash, key, field, Lazy.Expire, out _);
            if (state == FieldState.Found)
            {
                ctx.Unchanged = true;
                ctx.Reply.Raw(Resp.Zero);
                return;
            }
            if (state == FieldState.ExpiredHash) hash = null; // the expired field was the last: a new hash
        }
        hash ??= ForWrite(ref ctx, db, key, create: true, out _, out _)!;
        long maxValue = MaxValue(ref ctx);
        hash.ConvertIfTooLong(Math.Max(field.Length, value.Length), maxValue, field.Length + value.Length);
        hash.Set(field, value, MaxEntries(ref ctx), maxValue);
        ctx.Notify(Ev.Hash, "hset", key);
        ctx.Reply.Raw(Resp.One);
    }

    /// <summary>HDEL key field [field ...] — how many fields existed; the key goes when the hash empties.</summary>
    public static void HDel(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        var hash = ForWrite(ref ctx, db, key, create: false, out int slot, out bool wrongType);
        if (wrongType) return;
        long deleted = 0;
        bool keyRemoved = false;
        bool hadTtls = hash is { HasFieldTtls: true };
        if (hash != null)
        {
            for (int i = 2; i < ctx.ArgCount; i++)
            {
                if (!hash.Delete(ctx.Arg(i))) continue;
                deleted++;
                if (hash.Count == 0)
                {
                    db.RemoveAt(slot);
                    keyRemoved = true;
                    break;
                }
            }
        }
        if (deleted == 0)
        {
            ctx.Unchanged = true;
        }
        else
        {
            ctx.Notify(Ev.Hash, "hdel", key);
            if (keyRemoved) ctx.Notify(Ev.Generic, "del", key);
            else if (hadTtls && !hash!.HasFieldTtls) db.UpdateHashExpiry(slot); // the last field with a TTL went
        }
        ctx.Reply.Integer(deleted);
    }

    /// <summary>
    /// HINCRBY key field increment — the new value; a missing field counts as 0. Errors when the
    /// field's value is not an integer or the sum overflows 64 bits.
    /// </summary>
    public static void HIncrBy(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(3), out long increment))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        var key = ctx.Arg(1);
        var field = ctx.Arg(2);
        var db = ctx.Db(key);
        var hash = ForWrite(ref ctx, db, key, create: false, out _, out bool wrongType);
        if (wrongType) return;
        int pos = FindForIncrement(ref ctx, ref hash, key, field);
        long current = 0;
        if (pos >= 0 && !RedisNumbers.TryParseInt64(hash!.ValueAt(pos), out current))
        {
            ctx.Error(RespErrors.HashValueNotInteger);
            return;
        }
        if ((increment < 0 && current < 0 && increment < long.MinValue - current) ||
            (increment > 0 && current > 0 && increment > long.MaxValue - current))
        {
            ctx.Error(RespErrors.Overflow);
            return;
        }
        long result = current + increment;
        Span<byte> digits = stackalloc byte[24];
        digits = digits.Slice(0, RedisNumbers.FormatInt64(result, digits));
        Store(ref ctx, db, key, hash, field, pos, digits);
        ctx.Notify(Ev.Hash, "hincrby", key);
        ctx.Reply.Integer(result);
    }

    /// <summary>
    /// HINCRBYFLOAT key field increment — the new value as a bulk string, computed in (emulated)
    /// long double precision and printed as Redis prints it; a missing field counts as 0.
    /// </summary>
    public static void HIncrByFloat(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseLongDouble(ctx.Arg(3), out var increment))
        {
            ctx.Error(RespErrors.NotFloat);
            return;
        }
        if (increment.IsInfinity)
        {
            ctx.Error(RespErrors.ValueNanOrInfinity);
            return;
        }
        var key = ctx.Arg(1);
        var field = ctx.Arg(2);
        var db = ctx.Db(key);
        var hash = ForWrite(ref ctx, db, key, create: false, out _, out bool wrongType);
        if (wrongType) return;
        int pos = FindForIncrement(ref ctx, ref hash, key, field);
        ExtendedDouble current = ExtendedDouble.Zero;
        if (pos >= 0 && !RedisNumbers.TryParseLongDouble(hash!.ValueAt(pos), out current))
        {
            ctx.Error(RespErrors.HashValueNotFloat);
            return;
        }
        if (!RedisNumbers.TryAdd(current, increment, out var sum))
        {
            ctx.Error(RespErrors.NanOrInfinity);
            return;
        }
        Span<byte> text = stackalloc byte[RedisNumbers.MaxLongDoubleHumanLength];
        text = text.Slice(0, RedisNumbers.FormatLongDoubleHuman(sum, text));
        bool hasTtl = pos >= 0 && hash!.ExpiryAt(pos) != 0;
        Store(ref ctx, db, key, hash, field, pos, text);
        ctx.Notify(Ev.Hash, "hincrbyfloat", key);
        ctx.Reply.Bulk(text);
        // The result, not the increment, as INCRBYFLOAT does. Redis 8.2 sends HSETEX key KEEPTTL
        // FIELDS 1 field value so a replica keeps the field's TTL; we send that only when the field
        // has one, and HSET otherwise, so replicas and AOF readers of Redis 7.x keep working.
        if (ctx.Propagation is not { } log) return;
        if (hasTtl) log.Rewrite(ctx.DbIndex).Add("HSETEX"u8).Add(key).Add("KEEPTTL"u8).Add("FIELDS"u8).Add("1"u8).Add(field).Add(text);
        else log.Rewrite(ctx.DbIndex).Add("HSET"u8).Add(key).Add(field).Add(text);
    }

    /// <summary>
    /// The field's position for HINCRBY and HINCRBYFLOAT, -1 when absent: an expired field is removed
    /// first (and counts from 0), and when it was the hash's last the key went, so <paramref name="hash"/> becomes null.
    /// </summary>
    private static int FindForIncrement(ref CommandContext ctx, ref RedisHash? hash, scoped ReadOnlySpan<byte> key, scoped ReadOnlySpan<byte> field)
    {
        if (hash == null) return -1;
        var state = GetField(ref ctx, hash, key, field, Lazy.Expire, out int pos);
        if (state == FieldState.ExpiredHash) hash = null;
        return state == FieldState.Found ? pos : -1;
    }

    /// <summary>Writes a computed value to a field found at <paramref name="pos"/> (or absent: -1), creating the key if needed.</summary>
    private static void Store(ref CommandContext ctx, Database db, scoped ReadOnlySpan<byte> key, RedisHash? hash,
        scoped ReadOnlySpan<byte> field, int pos, scoped ReadOnlySpan<byte> value)
    {
        long maxValue = MaxValue(ref ctx);
        if (pos >= 0)
        {
            hash!.SetValueAt(pos, value, maxValue);
            return;
        }
        hash ??= ForWrite(ref ctx, db, key, create: true, out _, out _)!;
        hash.Set(field, value, MaxEntries(ref ctx), maxValue, keepTtl: true);
    }

    // ---------------------------------------------------------------- reads

    /// <summary>HGET key field — the field's value, or nil.</summary>
    public static void HGet(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var hash = Lookup.ForRead<RedisHash>(ref ctx, key, out bool wrongType);
        if (wrongType) return;
        if (hash != null && GetField(ref ctx, hash, key, ctx.Arg(2), Lazy.Expire, out int pos) == FieldState.Found)
            ctx.Reply.Bulk(hash.ValueAt(pos));
        else ctx.Reply.NullBulk();
    }

    /// <summary>HMGET key field [field ...] — an array of values, nil for each missing field.</summary>
    public static void HMGet(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var hash = Lookup.ForRead<RedisHash>(ref ctx, key, out bool wrongType);
        if (wrongType) return;
        ctx.Reply.ArrayHeader(ctx.ArgCount - 2);
        int expired = 0;
        bool deleted = false;
        for (int i = 2; i < ctx.ArgCount; i++)
        {
            int pos = -1;
            var state = hash == null || deleted ? FieldState.NotFound : GetField(ref ctx, hash, key, ctx.Arg(i), Lazy.NoNotification, out pos);
            if (state == FieldState.Found) ctx.Reply.Bulk(hash!.ValueAt(pos));
            else ctx.Reply.NullBulk();
            if (state == FieldState.Expired) expired++;
            else if (state == FieldState.ExpiredHash) deleted = true; // the key went: the rest are nil
        }
        if (expired > 0 || deleted)
        {
            ctx.Notify(Ev.Hash, "hexpired", key);
            if (deleted) ctx.Notify(Ev.Generic, "del", key);
        }
    }

    /// <summary>HGETALL key — every field and value: a map in RESP3, a flat array in RESP2.</summary>
    public static void HGetAll(ref CommandContext ctx)
    {
        var hash = Lookup.ForRead<RedisHash>(ref ctx, ctx.Arg(1), out bool wrongType);
        if (wrongType) return;
        if (hash == null)
        {
            ctx.Reply.MapHeader(0);
            return;
        }
        // Expired fields not yet removed are skipped, as Redis's hashTypeLength(o, 1) and hashTypeNext(hi, 1).
        long now = ctx.NowMs;
        bool skip = hash.HasFieldTtls;
        ctx.Reply.MapHeader(skip ? hash.Count - hash.CountExpired(now) : hash.Count);
        for (int pos = hash.FirstPosition(); pos >= 0; pos = hash.NextPosition(pos))
        {
            if (skip && hash.IsExpiredAt(pos, now)) continue;
            ctx.Reply.Bulk(hash.FieldAt(pos));
            ctx.Reply.Bulk(hash.ValueAt(pos));
        }
    }

    /// <summary>HKEYS key — every field name.</summary>
    public static void HKeys(ref CommandContext ctx) => ListHalf(ref ctx, fields: true);

    /// <summary>HVALS key — every value.</summary>
    public static void HVals(ref CommandContext ctx) => ListHalf(ref ctx, fields: false);

    private static void ListHalf(ref CommandContext ctx, bool fields)
    {
        var hash = Lookup.ForRead<RedisHash>(ref ctx, ctx.Arg(1), out bool wrongType);
        if (wrongType) return;
        if (hash == null)
        {
            ctx.Reply.ArrayHeader(0);
            return;
        }
        long now = ctx.NowMs;
        bool skip = hash.HasFieldTtls;
        ctx.Reply.ArrayHeader(skip ? hash.Count - hash.CountExpired(now) : hash.Count);
        for (int pos = hash.FirstPosition(); pos >= 0; pos = hash.NextPosition(pos))
        {
            if (skip && hash.IsExpiredAt(pos, now)) continue;
            ctx.Reply.Bulk(fields ? hash.FieldAt(pos) : hash.ValueAt(pos));
        }
    }

    /// <summary>HLEN key — the number of fields, 0 when the key is missing; expired fields not yet removed count, as in Redis.</summary>
    public static void HLen(ref CommandContext ctx)
    {
        var hash = Lookup.ForRead<RedisHash>(ref ctx, ctx.Arg(1), out bool wrongType);
        if (wrongType) return;
        ctx.Reply.Integer(hash?.Count ?? 0);
    }

    /// <summary>HEXISTS key field — 1 when the field exists, else 0.</summary>
    public static void HExists(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var hash = Lookup.ForRead<RedisHash>(ref ctx, key, out bool wrongType);
        if (wrongType) return;
        bool found = hash != null && GetField(ref ctx, hash, key, ctx.Arg(2), Lazy.Expire, out _) == FieldState.Found;
        ctx.Reply.Raw(found ? Resp.One : Resp.Zero);
    }

    /// <summary>HSTRLEN key field — the length of the field's value, 0 when missing.</summary>
    public static void HStrLen(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var hash = Lookup.ForRead<RedisHash>(ref ctx, key, out bool wrongType);
        if (wrongType) return;
        int pos = -1;
        bool found = hash != null && GetField(ref ctx, hash, key, ctx.Arg(2), Lazy.Expire, out pos) == FieldState.Found;
        ctx.Reply.Integer(found ? hash!.ValueAt(pos).Length : 0);
    }

    // ---------------------------------------------------------------- HRANDFIELD

    /// <summary>
    /// HRANDFIELD key [count [WITHVALUES]] — one random field (nil when the key is missing), or an
    /// array of them: distinct fields for a positive count (at most the whole hash), independent
    /// picks that may repeat for a negative one. WITHVALUES pairs each field with its value: flat in
    /// RESP2, a two-element array per pick in RESP3.
    /// </summary>
    public static void HRandField(ref CommandContext ctx)
    {
        if (ctx.ArgCount == 2)
        {
            var single = Lookup.ForRead<RedisHash>(ref ctx, ctx.Arg(1), out bool wrong);
            if (wrong) return;
            if (single != null && ExpireAllIfNeeded(ref ctx, single, ctx.Arg(1))) single = null;
            if (single == null) ctx.Reply.NullBulk();
            else ctx.Reply.Bulk(single.FieldAt(single.RandomPosition(Random.Shared)));
            return;
        }

        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long count))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (count == long.MinValue)
        {
            ctx.Error(RespErrors.CountOutOfRange);
            return;
        }
        if (ctx.ArgCount > 4 || (ctx.ArgCount == 4 && !ctx.ArgIs(3, "WITHVALUES")))
        {
            ctx.Syntax();
            return;
        }
        bool withValues = ctx.ArgCount == 4;
        // Redis doubles the count for WITHVALUES replies, so it refuses counts that cannot be doubled.
        if (withValues && (count < long.MinValue / 2 || count > long.MaxValue / 2))
        {
            ctx.Error(RespErrors.ValueOutOfRange);
            return;
        }

        var hash = Lookup.ForRead<RedisHash>(ref ctx, ctx.Arg(1), out bool wrongType);
        if (wrongType) return;
        if (hash != null && ExpireAllIfNeeded(ref ctx, hash, ctx.Arg(1))) hash = null;
        if (hash == null || count == 0)
        {
            ctx.Reply.ArrayHeader(0);
            return;
        }

        bool flat = withValues && !ctx.Reply.IsResp3;
        int size = hash.Count;
        var random = Random.Shared;
        if (count < 0 || count == 1)
        {
            long picks = count < 0 ? -count : 1;
            long perPick = hash.DataBytes / size + (withValues ? 32 : 16);
            if (picks > MaxRandomReplyBytes / perPick)
            {
                ctx.Error(RespErrors.ValueOutOfRange);
                return;
            }
            ctx.Reply.ArrayHeader(flat ? picks * 2 : picks);
            // A packed hash walks to its n-th entry, so draw from a list of positions instead.
            int[]? positions = picks > 1 && !hash.HasCheapRandom ? hash.Positions() : null;
            for (long i = 0; i < picks; i++)
            {
                int pos = positions != null ? positions[random.Next(positions.Length)] : hash.RandomPosition(random);
                ReplyPick(ref ctx, hash, pos, withValues);
            }
            return;
        }

        ctx.Reply.ArrayHeader(flat ? Math.Min(count, size) * 2 : Math.Min(count, size));
        if (count >= size)
        {
            for (int pos = hash.FirstPosition(); pos >= 0; pos = hash.NextPosition(pos))
                ReplyPick(ref ctx, hash, pos, withValues);
            return;
        }

        int wanted = (int)count;
        if (hash.HasCheapRandom && wanted * 3L <= size)
        {
            // Few of many: draw and drop repeats.
            var chosen = new HashSet<int>(wanted);
            while (chosen.Count < wanted)
            {
                int pos = hash.RandomPosition(random);
                if (chosen.Add(pos)) ReplyPick(ref ctx, hash, pos, withValues);
            }
            return;
        }
        // Many of few: a partial Fisher-Yates shuffle of every position.
        var all = hash.Positions();
        for (int i = 0; i < wanted; i++)
        {
            int j = random.Next(i, all.Length);
            (all[i], all[j]) = (all[j], all[i]);
            ReplyPick(ref ctx, hash, all[i], withValues);
        }
    }

    /// <summary>
    /// HRANDFIELD's first step with field TTLs (Redis's hashTypeExpireIfNeeded): removes every expired
    /// field on a master; true when that took the whole hash (and the key).
    /// </summary>
    private static bool ExpireAllIfNeeded(ref CommandContext ctx, RedisHash hash, scoped ReadOnlySpan<byte> key)
    {
        if (!RedisHash.IsExpired(hash.MinExpiry, ctx.NowMs)) return false;
        var db = ctx.Db(key);
        if (!db.MayRemoveExpiredFields) return false;
        int slot = db.Table.Find(key);
        db.ExpireHashFields(slot, ctx.NowMs);
        return hash.Count == 0;
    }

    private static void ReplyPick(ref CommandContext ctx, RedisHash hash, int pos, bool withValues)
    {
        if (withValues && ctx.Reply.IsResp3) ctx.Reply.ArrayHeader(2);
        ctx.Reply.Bulk(hash.FieldAt(pos));
        if (withValues) ctx.Reply.Bulk(hash.ValueAt(pos));
    }

    // ---------------------------------------------------------------- HSCAN

    /// <summary>
    /// HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES] — the next cursor and a flat batch of
    /// fields and values (fields only with NOVALUES, Redis 7.4). A packed hash is returned whole with
    /// cursor 0, as Redis does for listpacks.
    /// </summary>
    /// <remarks>
    /// For the table form the cursor is a slot index (slots never move, so a field present for the
    /// whole scan is returned exactly once). COUNT is work, as in Redis 7.2: a call stops once it has
    /// seen COUNT fields (its scanCallback counts each entry once; 7.0 counted the field and its value
    /// as two, so a page held half as many fields) or looked at 10*COUNT slots, and the pattern
    /// filters afterwards.
    /// </remarks>
    public static void HScan(ref CommandContext ctx)
    {
        if (!ScanArguments.TryReadCursor(ref ctx, 2, out ulong cursor)) return;
        var hash = Lookup.ForRead<RedisHash>(ref ctx, ctx.Arg(1), out bool wrongType);
        if (wrongType) return;
        if (hash == null)
        {
            ctx.Reply.Raw(Resp.EmptyScan);
            return;
        }

        if (!ScanArguments.TryParse(ref ctx, allowNoValues: true, out long count, out byte[]? patternBytes, out bool noValues)) return;
        bool usePattern = patternBytes != null;
        ReadOnlySpan<byte> pattern = patternBytes;
        // Expired fields not yet removed are skipped (Redis's scan callbacks test each field's TTL).
        long now = ctx.NowMs;
        bool skipExpired = hash.HasFieldTtls;
        int perField = noValues ? 1 : 2;

        if (hash.IsPacked)
        {
            int matches = 0;
            for (int pos = hash.FirstPosition(); pos >= 0; pos = hash.NextPosition(pos))
            {
                if (skipExpired && hash.IsExpiredAt(pos, now)) continue;
                if (!usePattern || GlobMatcher.IsMatch(pattern, hash.FieldAt(pos))) matches++;
            }
            ctx.Reply.ArrayHeader(2);
            ctx.Reply.Bulk("0"u8);
            ctx.Reply.ArrayHeader((long)matches * perField);
            for (int pos = hash.FirstPosition(); pos >= 0; pos = hash.NextPosition(pos))
            {
                if (skipExpired && hash.IsExpiredAt(pos, now)) continue;
                if (usePattern && !GlobMatcher.IsMatch(pattern, hash.FieldAt(pos))) continue;
                ctx.Reply.Bulk(hash.FieldAt(pos));
                if (!noValues) ctx.Reply.Bulk(hash.ValueAt(pos));
            }
            return;
        }

        int slots = hash.ScanSlots;
        int slot = cursor >= (ulong)slots ? slots : (int)cursor;
        long maxVisits = count > long.MaxValue / 10 ? long.MaxValue : count * 10;
        long gathered = 0, visits = 0;
        var found = new List<int>();
        while (slot < slots && gathered < count && visits < maxVisits)
        {
            visits++;
            int s = slot++;
            if (!hash.IsUsedSlot(s)) continue;
            gathered++;
            if (skipExpired && hash.IsExpiredAt(s, now)) continue;
            if (usePattern && !GlobMatcher.IsMatch(pattern, hash.FieldAt(s))) continue;
            found.Add(s);
        }
        // Skip trailing free slots now, so the last batch already says cursor 0.
        while (slot < slots && !hash.IsUsedSlot(slot)) slot++;

        ctx.Reply.ArrayHeader(2);
        ctx.Reply.BulkInteger(slot >= slots ? 0 : slot);
        ctx.Reply.ArrayHeader((long)found.Count * perField);
        foreach (int s in found)
        {
            ctx.Reply.Bulk(hash.FieldAt(s));
            if (!noValues) ctx.Reply.Bulk(hash.ValueAt(s));
        }
    }
}
