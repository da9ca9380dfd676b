using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// Hash-field expiry (Redis 7.4 and 8.0, behaving as 8.2): HEXPIRE, HPEXPIRE, HEXPIREAT, HPEXPIREAT,
/// HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME, HPERSIST, HGETEX, HSETEX, HGETDEL, and the lazy expiry
/// of fields every hash command goes through.
/// </summary>
/// <remarks>
/// <para>A field whose TTL has passed stays stored until something removes it: a command that looks
/// it up by name on a master removes it (its HDEL propagated, "hexpired" sent, the key deleted with
/// "del" when it was the last field), as Redis's hashTypeGetValue; commands that walk the hash
/// (HGETALL, HSCAN...) skip it; HLEN still counts it, as Redis's hashTypeLength(o, 0). A replica never
/// removes one: its clients do not see it, its master's commands do, until the master's HDEL.</para>
/// <para>Propagation is Redis 8.2's: relative times become HPEXPIREAT with the absolute time and only
/// the fields it set; a time already past deletes the fields (reply 2) and propagates their HDELs
/// instead; HGETEX goes as HPEXPIREAT or HPERSIST, HGETDEL as HDEL, HSETEX with EX/PX/EXAT as PXAT.</para>
/// </remarks>
internal static partial class HashCommands
{
    /// <summary>Redis's HFE_MAX_ABS_TIME_MSEC: EB_EXPIRE_TIME_MAX (2^48 - 1) >> 2, the largest field TTL a command may set.</summary>
    internal const long MaxFieldExpireMs = 0x0000FFFFFFFFFFFF >> 2;

    /// <summary>What a lookup of one field found (Redis's GetFieldRes).</summary>
    private enum FieldState
    {
        Found,
        NotFound,
        /// <summary>Logically expired (removed, or only hidden on a replica or while expiry is paused).</summary>
        Expired,
        /// <summary>Expired and removed, and it was the last field: the key went too.</summary>
        ExpiredHash,
    }

    /// <summary>Redis's HFE_LAZY_* flags for <see cref="GetField"/>.</summary>
    [Flags]
    private enum Lazy
    {
        Expire = 0,
        NoNotification = 1,
        AvoidHashDelete = 2,
        NoSignal = 4,
        /// <summary>What HGETEX, HGETDEL and HSETEX pass: they send the events and delete the key themselves.</summary>
        Quiet = NoNotification | AvoidHashDelete | NoSignal,
    }

    /// <summary>
    /// Finds <paramref name="field"/> as Redis's hashTypeGetValue: <see cref="FieldState.Found"/> with
    /// its position, or what stands in the way. An expired field is removed on a master (HDEL
    /// propagated), with "hexpired" and, when it was the last field, the key deleted and "del" sent,
    /// unless <paramref name="flags"/> say otherwise. The key's slot is looked up only on that path.
    /// </summary>
    private static FieldState GetField(ref CommandContext ctx, RedisHash hash, scoped ReadOnlySpan<byte> key,
        scoped ReadOnlySpan<byte> field, Lazy flags, out int pos)
    {
        pos = hash.Find(field);
        if (pos < 0) return FieldState.NotFound;
        if (!RedisHash.IsExpired(hash.ExpiryAt(pos), ctx.NowMs)) return FieldState.Found;
        var db = ctx.Db(key);
        if (db.ExpiredFieldsVisible) return FieldState.Found;
        int at = pos;
        pos = -1;
        if (!db.MayRemoveExpiredFields) return FieldState.Expired;
        int slot = db.Table.Find(key);
        db.RemoveExpiredField(slot, hash, at);
        var result = FieldState.Expired;
        if ((flags & Lazy.NoNotification) == 0) ctx.Notify(Ev.Hash, "hexpired", key);
        if (hash.Count == 0 && (flags & Lazy.AvoidHashDelete) == 0)
        {
            if ((flags & Lazy.NoNotification) == 0) ctx.Notify(Ev.Generic, "del", key);
            db.RemoveAt(slot);
            result = FieldState.ExpiredHash;
        }
        if ((flags & Lazy.NoSignal) == 0 && db.HasWatchers) db.SignalModified(key);
        return result;
    }

    /// <summary>Deletes the key when a hash command emptied it, with the "del" event (the caller's own events come first).</summary>
    private static bool DeleteIfEmpty(ref CommandContext ctx, RedisHash hash, scoped ReadOnlySpan<byte> key)
    {
        if (hash.Count != 0) return false;
        var db = ctx.Db(key);
        int slot = db.Table.Find(key);
        if (slot >= 0 && ReferenceEquals(db.Table.At(slot).Value, hash)) db.RemoveAt(slot);
        ctx.Notify(Ev.Generic, "del", key);
        return true;
    }

    /// <summary>Files the hash under its new soonest field TTL (Redis's hashTypeSetExDone), when it is still stored.</summary>
    private static void RefileHash(ref CommandContext ctx, RedisHash hash, scoped ReadOnlySpan<byte> key)
    {
        if (hash.Count == 0) return;
        var db = ctx.Db(key);
        int slot = db.Table.Find(key);
        if (slot >= 0 && ReferenceEquals(db.Table.At(slot).Value, hash)) db.UpdateHashExpiry(slot);
    }

    // ---------------------------------------------------------------- argument parsing

    /// <summary>
    /// Redis's parseExpireTime for field TTLs: a non-negative integer, in seconds or milliseconds,
    /// added to <paramref name="baseMs"/> (now, or 0 for the *AT forms), no later than
    /// <see cref="MaxFieldExpireMs"/>.
    /// </summary>
    private static bool TryParseFieldExpire(ref CommandContext ctx, int index, bool seconds, long baseMs,
        ReadOnlySpan<byte> tooLarge, out long expireAt)
    {
        expireAt = 0;
        if (!RedisNumbers.TryParseInt64(ctx.Arg(index), out long value))
        {
            ctx.Error(RespErrors.NotInteger);
            return false;
        }
        if (value < 0)
        {
            ctx.Error(RespErrors.HashExpireNegative);
            return false;
        }
        if (seconds)
        {
            if (value > MaxFieldExpireMs / 1000)
            {
                ctx.Error(tooLarge);
                return false;
            }
            value *= 1000;
        }
        if (value > MaxFieldExpireMs - baseMs)
        {
            ctx.Error(tooLarge);
            return false;
        }
        expireAt = value + baseMs;
        return true;
    }

    /// <summary>
    /// "FIELDS numfields field..." from argument <paramref name="fieldsAt"/>: the FIELDS token, a count
    /// from 1 (<paramref name="countError"/> otherwise), exactly that many arguments after it.
    /// </summary>
    private static bool TryParseFields(ref CommandContext ctx, int fieldsAt, ReadOnlySpan<byte> countError, out int count)
    {
        count = 0;
        if (fieldsAt >= ctx.ArgCount || !ctx.ArgIs(fieldsAt, "FIELDS"))
        {
            ctx.Error(RespErrors.HashFieldsMissing);
            return false;
        }
        if (fieldsAt + 1 >= ctx.ArgCount)
        {
            ctx.Error(countError);
            return false;
        }
        if (!RedisNumbers.TryParseInt64(ctx.Arg(fieldsAt + 1), out long n) || n < 1)
        {
            ctx.Error(countError);
            return false;
        }
        if (n != ctx.ArgCount - fieldsAt - 2)
        {
            ctx.Error(RespErrors.HashNumFieldsMismatch);
            return false;
        }
        count = (int)n;
        return true;
    }

    /// <summary>Replies an array of <paramref name="count"/> times <paramref name="value"/> (every field of a missing key).</summary>
    private static void ReplyRepeated(ref CommandContext ctx, int count, long value)
    {
        ctx.Reply.ArrayHeader(count);
        for (int i = 0; i < count; i++) ctx.Reply.Integer(value);
    }

    /// <summary>The conditions of HEXPIRE and friends (Redis's ExpireSetCond; none is 0).</summary>
    [Flags]
    private enum ExpireCondition
    {
        None = 0,
        Nx = 1,
        Xx = 2,
        Gt = 4,
        Lt = 8,
    }

    /// <summary>What setting one field's TTL did (Redis's SetExRes, as replied).</summary>
    private enum SetExpiryResult
    {
        NoField = -2,
        ConditionNotMet = 0,
        Set = 1,
        Deleted = 2,
    }

    /// <summary>What <see cref="SetFieldExpiry"/> takes to remove a field's TTL (HGETEX PERSIST): not a time.</summary>
    private const long RemoveTtl = -1;

    /// <summary>
    /// Redis's hashTypeSetEx for the field at <paramref name="pos"/>: <see cref="RemoveTtl"/> removes
    /// the TTL (0 when there was none); any time (0, the epoch, included) has NX/XX/GT/LT checked (a field without a
    /// TTL counts as later than any time: LT holds, GT and XX do not), and a time already past deletes
    /// the field, its HDEL propagated (not on a replica, which keeps the time and waits for its master).
    /// </summary>
    private static SetExpiryResult SetFieldExpiry(ref CommandContext ctx, Database db, int slot, RedisHash hash, int pos,
        long expireAt, ExpireCondition condition)
    {
        long previous = hash.ExpiryAt(pos);
        if (expireAt == RemoveTtl)
        {
            if (previous == 0) return SetExpiryResult.ConditionNotMet;
            hash.SetExpiryAt(pos, 0);
            return SetExpiryResult.Set;
        }
        if (previous == 0)
        {
            if ((condition & (ExpireCondition.Xx | ExpireCondition.Gt)) != 0) return SetExpiryResult.ConditionNotMet;
        }
        else if ((condition == ExpireCondition.Gt && previous >= expireAt)
                 || (condition == ExpireCondition.Lt && previous <= expireAt)
                 || condition == ExpireCondition.Nx)
        {
            return SetExpiryResult.ConditionNotMet;
        }
        if (ctx.AlreadyExpired(expireAt))
        {
            db.RemoveExpiredField(slot, hash, pos);
            return SetExpiryResult.Deleted;
        }
        hash.SetExpiryAt(pos, expireAt);
        return SetExpiryResult.Set;
    }

    // ---------------------------------------------------------------- HEXPIRE family

    /// <summary>HEXPIRE key seconds [NX | XX | GT | LT] FIELDS numfields field [field ...] — per field -2, 0, 1 or 2.</summary>
    public static void HExpire(ref CommandContext ctx) => ExpireFields(ref ctx, seconds: true, relative: true, RespErrors.InvalidExpireHExpire);

    /// <summary>HPEXPIRE key milliseconds [NX | XX | GT | LT] FIELDS numfields field [field ...].</summary>
    public static void HPExpire(ref CommandContext ctx) => ExpireFields(ref ctx, seconds: false, relative: true, RespErrors.InvalidExpireHPExpire);

    /// <summary>HEXPIREAT key unix-time-seconds [NX | XX | GT | LT] FIELDS numfields field [field ...].</summary>
    public static void HExpireAt(ref CommandContext ctx) => ExpireFields(ref ctx, seconds: true, relative: false, RespErrors.InvalidExpireHExpireAt);

    /// <summary>HPEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT] FIELDS numfields field [field ...].</summary>
    public static void HPExpireAt(ref CommandContext ctx) => ExpireFields(ref ctx, seconds: false, relative: false, RespErrors.InvalidExpireHPExpireAt);

    /// <summary>
    /// Redis's hexpireGenericCommand. Checks in its order: WRONGTYPE, the time, the condition, FIELDS,
    /// the count, the count against the arguments. Replies per field; sends "hexpire" (or "hdel" when
    /// a past time deleted any) and "del" when the hash emptied; propagates HPEXPIREAT with the
    /// absolute time and only the fields it set, nothing when it set none.
    /// </summary>
    private static void ExpireFields(ref CommandContext ctx, bool seconds, bool relative, ReadOnlySpan<byte> tooLarge)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite(ref ctx, db, key, out int slot, out RedisHash? hash)) return;
        if (!TryParseFieldExpire(ref ctx, 2, seconds, relative ? ctx.NowMs : 0, tooLarge, out long expireAt)) return;
        var condition = ExpireCondition.None;
        if (ctx.ArgIs(3, "NX")) condition = ExpireCondition.Nx;
        else if (ctx.ArgIs(3, "XX")) condition = ExpireCondition.Xx;
        else if (ctx.ArgIs(3, "GT")) condition = ExpireCondition.Gt;
        else if (ctx.ArgIs(3, "LT")) condition = ExpireCondition.Lt;
        int fieldsAt = condition == ExpireCondition.None ? 3 : 4;
        if (!TryParseFields(ref ctx, fieldsAt, RespErrors.HashExpireNumFields, out int count)) return;
        if (hash == null)
        {
            ctx.Unchanged = true;
            ReplyRepeated(ref ctx, count, (long)SetExpiryResult.NoField);
            return;
        }

        int updated = 0, deleted = 0;
        var setFields = ctx.Propagation != null ? new List<int>(count) : null;
        ctx.Reply.ArrayHeader(count);
        for (int i = fieldsAt + 2; i < ctx.ArgCount; i++)
        {
            int pos = hash.Find(ctx.Arg(i));
            var result = pos < 0 ? SetExpiryResult.NoField : SetFieldExpiry(ref ctx, db, slot, hash, pos, expireAt, condition);
            if (result == SetExpiryResult.Set)
            {
                updated++;
                setFields?.Add(i);
            }
            else if (result == SetExpiryResult.Deleted)
            {
                deleted++;
            }
            ctx.Reply.Integer((long)result);
        }
        RefileHash(ref ctx, hash, key);

        if (updated + deleted > 0) ctx.Notify(Ev.Hash, deleted > 0 ? "hdel" : "hexpire", key);
        else ctx.Unchanged = true;
        DeleteIfEmpty(ref ctx, hash, key);

        if (ctx.Propagation is not { } log) return;
        if (updated == 0)
        {
            log.Prevent();
            return;
        }
        log.Rewrite(ctx.DbIndex).Add(!seconds && !relative ? ctx.Arg(0) : "HPEXPIREAT"u8).Add(key).Add(expireAt);
        if (condition != ExpireCondition.None) log.Add(ctx.Arg(3));
        log.Add(ctx.Arg(fieldsAt)).Add(updated);
        foreach (int i in setFields!) log.Add(ctx.Arg(i));
    }

    // ---------------------------------------------------------------- HTTL family

    /// <summary>HTTL key FIELDS numfields field [field ...] — per field the seconds left (rounded up), -1 without a TTL, -2 when missing.</summary>
    public static void HTtl(ref CommandContext ctx) => FieldTtls(ref ctx, seconds: true, relative: true);

    /// <summary>HPTTL key FIELDS numfields field [field ...] — per field the milliseconds left, -1, or -2.</summary>
    public static void HPTtl(ref CommandContext ctx) => FieldTtls(ref ctx, seconds: false, relative: true);

    /// <summary>HEXPIRETIME key FIELDS numfields field [field ...] — per field the Unix time in seconds (rounded up), -1, or -2.</summary>
    public static void HExpireTime(ref CommandContext ctx) => FieldTtls(ref ctx, seconds: true, relative: false);

    /// <summary>HPEXPIRETIME key FIELDS numfields field [field ...] — per field the Unix time in milliseconds, -1, or -2.</summary>
    public static void HPExpireTime(ref CommandContext ctx) => FieldTtls(ref ctx, seconds: false, relative: false);

    /// <summary>Redis's httlGenericCommand: an expired field not yet removed answers -2 and stays.</summary>
    private static void FieldTtls(ref CommandContext ctx, bool seconds, bool relative)
    {
        var key = ctx.Arg(1);
        var hash = Lookup.ForRead<RedisHash>(ref ctx, key, out bool wrongType);
        if (wrongType) return;
        if (!TryParseFields(ref ctx, 2, RespErrors.HashNumFields, out int count)) return;
        if (hash == null)
        {
            ReplyRepeated(ref ctx, count, -2);
            return;
        }
        long now = ctx.NowMs, baseMs = relative ? now : 0;
        ctx.Reply.ArrayHeader(count);
        for (int i = 4; i < ctx.ArgCount; i++)
        {
            int pos = hash.Find(ctx.Arg(i));
            if (pos < 0)
            {
                ctx.Reply.Integer(-2);
                continue;
            }
            long at = hash.ExpiryAt(pos);
            if (at == 0) ctx.Reply.Integer(-1);
            else if (at < now) ctx.Reply.Integer(-2);
            else ctx.Reply.Integer(seconds ? (at + 999 - baseMs) / 1000 : at - baseMs);
        }
    }

    // ---------------------------------------------------------------- HPERSIST

    /// <summary>
    /// HPERSIST key FIELDS numfields field [field ...] — per field 1 when its TTL was removed, -1 when
    /// it had none, -2 when missing (or already expired); "hpersist" when any changed.
    /// </summary>
    public static void HPersist(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite(ref ctx, db, key, out _, out RedisHash? hash)) return;
        if (!TryParseFields(ref ctx, 2, RespErrors.HashNumFields, out int count)) return;
        ctx.Unchanged = true;
        if (hash == null)
        {
            ReplyRepeated(ref ctx, count, -2);
            return;
        }
        long now = ctx.NowMs;
        bool changed = false;
        ctx.Reply.ArrayHeader(count);
        for (int i = 4; i < ctx.ArgCount; i++)
        {
            int pos = hash.Find(ctx.Arg(i));
            long at = pos < 0 ? 0 : hash.ExpiryAt(pos);
            if (pos < 0 || RedisHash.IsExpired(at, now))
            {
                ctx.Reply.Integer(-2);
            }
            else if (at == 0)
            {
                ctx.Reply.Integer(-1);
            }
            else
            {
                hash.SetExpiryAt(pos, 0);
                changed = true;
                ctx.Reply.Integer(1);
            }
        }
        if (!changed) return;
        ctx.Unchanged = false;
        RefileHash(ref ctx, hash, key);
        ctx.Notify(Ev.Hash, "hpersist", key);
    }

    // ---------------------------------------------------------------- HGETDEL

    /// <summary>
    /// HGETDEL key FIELDS numfields field [field ...] — each field's value (nil when missing), deleting
    /// the fields; the key goes when the hash empties. Propagated as HDEL key field...
    /// </summary>
    public static void HGetDel(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite(ref ctx, db, key, out _, out RedisHash? hash)) return;
        if (!TryParseFields(ref ctx, 2, RespErrors.HashNumFields, out int count)) return;
        ctx.Unchanged = true;
        ctx.Reply.ArrayHeader(count);
        if (hash == null)
        {
            for (int i = 0; i < count; i++) ctx.Reply.NullBulk();
            return;
        }
        int expired = 0, deleted = 0;
        for (int i = 4; i < ctx.ArgCount; i++)
        {
            var state = GetField(ref ctx, hash, key, ctx.Arg(i), Lazy.Quiet, out int pos);
            if (state == FieldState.Found)
            {
                ctx.Reply.Bulk(hash.ValueAt(pos));
                hash.RemoveAt(pos);
                deleted++;
            }
            else
            {
                ctx.Reply.NullBulk();
                if (state == FieldState.Expired) expired++;
            }
        }
        if (expired == 0 && deleted == 0) return;
        ctx.Unchanged = false;
        if (expired > 0) ctx.Notify(Ev.Hash, "hexpired", key);
        if (deleted > 0)
        {
            ctx.Notify(Ev.Hash, "hdel", key);
            if (ctx.Propagation is { } log)
            {
                log.Rewrite(ctx.DbIndex).Add("HDEL"u8).Add(key);
                for (int i = 4; i < ctx.ArgCount; i++) log.Add(ctx.Arg(i));
            }
        }
        else
        {
            ctx.Propagation?.Prevent();
        }
        if (!DeleteIfEmpty(ref ctx, hash, key) && !hash.HasFieldTtls) RefileHash(ref ctx, hash, key);
    }

    // ---------------------------------------------------------------- HGETEX

    /// <summary>
    /// HGETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST]
    /// FIELDS numfields field [field ...] — each field's value (nil when missing), setting or removing
    /// the TTL of those found. Propagated as HPEXPIREAT (absolute time) or HPERSIST, or as the HDELs
    /// of a time already past.
    /// </summary>
    public static void HGetEx(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite(ref ctx, db, key, out int slot, out RedisHash? hash)) return;
        bool persist = false, withTime = false, seconds = false, relative = false;
        if (ctx.ArgIs(2, "EX")) (withTime, seconds, relative) = (true, true, true);
        else if (ctx.ArgIs(2, "PX")) (withTime, relative) = (true, true);
        else if (ctx.ArgIs(2, "EXAT")) (withTime, seconds) = (true, true);
        else if (ctx.ArgIs(2, "PXAT")) withTime = true;
        else if (ctx.ArgIs(2, "PERSIST")) persist = true;
        int fieldsAt = 2;
        long expireAt = 0;
        if (withTime)
        {
            fieldsAt = 4;
            if (!TryParseFieldExpire(ref ctx, 3, seconds, relative ? ctx.NowMs : 0, RespErrors.InvalidExpireHGetEx, out expireAt)) return;
        }
        else if (persist)
        {
            fieldsAt = 3;
        }
        if (fieldsAt + 1 >= ctx.ArgCount && fieldsAt < ctx.ArgCount && ctx.ArgIs(fieldsAt, "FIELDS"))
        {
            // "HGETEX key EX 10 FIELDS": Redis would read past its arguments; answer as an arity error.
            ctx.Error(RespErrors.WrongArityHGetEx);
            return;
        }
        if (!TryParseFields(ref ctx, fieldsAt, RespErrors.HashNumFields, out int count)) return;
        ctx.Unchanged = true;
        ctx.Reply.ArrayHeader(count);
        if (hash == null)
        {
            for (int i = 0; i < count; i++) ctx.Reply.NullBulk();
            return;
        }
        bool setTtl = withTime || persist;
        int expired = 0, deleted = 0, updated = 0;
        for (int i = fieldsAt + 2; i < ctx.ArgCount; i++)
        {
            var state = GetField(ref ctx, hash, key, ctx.Arg(i), Lazy.Quiet, out int pos);
            if (state != FieldState.Found)
            {
                ctx.Reply.NullBulk();
                if (state == FieldState.Expired) expired++;
                continue;
            }
            ctx.Reply.Bulk(hash.ValueAt(pos));
            if (!setTtl) continue;
            var result = SetFieldExpiry(ref ctx, db, slot, hash, pos, persist ? RemoveTtl : expireAt, ExpireCondition.None);
            if (result == SetExpiryResult.Deleted) deleted++;
            else if (result == SetExpiryResult.Set) updated++;
        }
        if (setTtl) RefileHash(ref ctx, hash, key);
        if (expired == 0 && deleted == 0 && updated == 0) return;
        ctx.Unchanged = false;
        if (expired > 0) ctx.Notify(Ev.Hash, "hexpired", key);
        var log = ctx.Propagation;
        if (updated > 0)
        {
            if (persist)
            {
                ctx.Notify(Ev.Hash, "hpersist", key);
                if (log != null)
                {
                    log.Rewrite(ctx.DbIndex).Add("HPERSIST"u8).Add(key);
                    for (int i = fieldsAt; i < ctx.ArgCount; i++) log.Add(ctx.Arg(i));
                }
            }
            else
            {
                ctx.Notify(Ev.Hash, "hexpire", key);
                if (log != null)
                {
                    log.Rewrite(ctx.DbIndex).Add("HPEXPIREAT"u8).Add(key).Add(expireAt);
                    for (int i = fieldsAt; i < ctx.ArgCount; i++) log.Add(ctx.Arg(i));
                }
            }
        }
        else
        {
            if (deleted > 0) ctx.Notify(Ev.Hash, "hdel", key);
            log?.Prevent();
        }
        DeleteIfEmpty(ref ctx, hash, key);
    }

    // ---------------------------------------------------------------- HSETEX

    /// <summary>
    /// HSETEX key [FNX | FXX] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]
    /// FIELDS numfields field value [field value ...] — 1 when the fields were set, 0 when FNX or FXX
    /// said no. Without a time or KEEPTTL the fields lose their TTLs; with a time already past they
    /// are set and deleted at once (their HDELs propagate instead of the command); EX, PX and EXAT
    /// propagate as PXAT.
    /// </summary>
    public static void HSetEx(ref CommandContext ctx)
    {
        const int Fnx = 1, Fxx = 2, Ex = 4, Px = 8, ExAt = 16, PxAt = 32, KeepTtl = 64;
        const int Expirations = Ex | Px | ExAt | PxAt | KeepTtl;
        int flags = 0, first = -1, count = 0, timeAt = -1;
        long expireAt = 0;
        for (int i = 2; i < ctx.ArgCount && first < 0; i++)
        {
            if (ctx.ArgIs(i, "FIELDS"))
            {
                if (i >= ctx.ArgCount - 3)
                {
                    ctx.Error(RespErrors.WrongArityHSetEx);
                    return;
                }
                if (!RedisNumbers.TryParseInt64(ctx.Arg(i + 1), out long n) || n < 1 || n > int.MaxValue)
                {
                    ctx.Error(RespErrors.HSetExNumFields);
                    return;
                }
                int remaining = ctx.ArgCount - i - 2;
                if (remaining % 2 != 0 || n != remaining / 2)
                {
                    ctx.Error(RespErrors.WrongArityHSetEx);
                    return;
                }
                first = i + 2;
                count = (int)n;
            }
            else if (ctx.ArgIs(i, "EX") || ctx.ArgIs(i, "PX") || ctx.ArgIs(i, "EXAT") || ctx.ArgIs(i, "PXAT"))
            {
                if ((flags & Expirations) != 0)
                {
                    ctx.Error(RespErrors.HSetExExpirations);
                    return;
                }
                if (i >= ctx.ArgCount - 1)
                {
                    ctx.Error(RespErrors.HSetExMissingExpire);
                    return;
                }
                int flag = ctx.ArgIs(i, "EX") ? Ex : ctx.ArgIs(i, "PX") ? Px : ctx.ArgIs(i, "EXAT") ? ExAt : PxAt;
                flags |= flag;
                i++;
                bool seconds = flag is Ex or ExAt, relative = flag is Ex or Px;
                if (!TryParseFieldExpire(ref ctx, i, seconds, relative ? ctx.NowMs : 0, RespErrors.InvalidExpireHSetEx, out expireAt)) return;
                timeAt = i;
            }
            else if (ctx.ArgIs(i, "KEEPTTL"))
            {
                if ((flags & Expirations) != 0)
                {
                    ctx.Error(RespErrors.HSetExExpirations);
                    return;
                }
                flags |= KeepTtl;
            }
            else if (ctx.ArgIs(i, "FXX") || ctx.ArgIs(i, "FNX"))
            {
                if ((flags & (Fxx | Fnx)) != 0)
                {
                    ctx.Error(RespErrors.HSetExConditions);
                    return;
                }
                flags |= ctx.ArgIs(i, "FXX") ? Fxx : Fnx;
            }
            else
            {
                ctx.Error(RespErrors.HSetExUnknownArgument(ctx.ArgString(i)));
                return;
            }
        }
        if (first < 0)
        {
            // Unreachable with the table's arity (the options cannot fill five arguments without an
            // error), where Redis asserts; answered as an arity error all the same.
            ctx.Error(RespErrors.WrongArityHSetEx);
            return;
        }

        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite(ref ctx, db, key, out int slot, out RedisHash? hash)) return;
        if (hash == null)
        {
            if ((flags & Fxx) != 0)
            {
                ctx.Unchanged = true;
                ctx.Reply.Integer(0);
                return;
            }
            hash = new RedisHash();
            slot = db.Add(key.ToArray(), hash);
        }

        int expired = 0;
        if ((flags & (Fxx | Fnx)) != 0)
        {
            int found = 0;
            for (int i = 0; i < count; i++)
            {
                var state = GetField(ref ctx, hash, key, ctx.Arg(first + 2 * i), Lazy.Quiet, out _);
                bool exists = state == FieldState.Found;
                if (state == FieldState.Expired) expired++;
                if (exists) found++;
                if (((flags & Fxx) != 0 && !exists) || ((flags & Fnx) != 0 && exists)) break;
            }
            if (((flags & Fnx) != 0 && found != 0) || ((flags & Fxx) != 0 && found != count))
            {
                ctx.Reply.Integer(0);
                if (expired > 0) ctx.Notify(Ev.Hash, "hexpired", key);
                else ctx.Unchanged = true;
                ctx.Propagation?.Prevent();
                DeleteIfEmpty(ref ctx, hash, key);
                return;
            }
        }

        long maxEntries = MaxEntries(ref ctx), maxValue = MaxValue(ref ctx);
        if (hash.IsPacked)
        {
            int longest = 0;
            long total = 0;
            for (int i = first; i < ctx.ArgCount; i++)
            {
                int len = ctx.Arg(i).Length;
                longest = Math.Max(longest, len);
                total += len;
            }
            if (count > maxEntries) hash.ConvertToTable();
            else hash.ConvertIfTooLong(longest, maxValue, total);
        }
        bool setExpiry = (flags & (Ex | Px | ExAt | PxAt)) != 0;
        bool keepTtl = (flags & Expirations) != 0;
        int updated = 0, deleted = 0;
        for (int i = first; i < ctx.ArgCount; i += 2)
        {
            hash.Set(ctx.Arg(i), ctx.Arg(i + 1), maxEntries, maxValue, keepTtl);
            if (!setExpiry) continue;
            int pos = hash.Find(ctx.Arg(i));
            var result = SetFieldExpiry(ref ctx, db, slot, hash, pos, expireAt, ExpireCondition.None);
            if (result == SetExpiryResult.Set) updated++;
            else if (result == SetExpiryResult.Deleted) deleted++;
        }
        if (setExpiry) RefileHash(ref ctx, hash, key);

        var log = ctx.Propagation;
        if (deleted > 0)
        {
            log?.Prevent();
        }
        else if (setExpiry && (flags & PxAt) == 0 && log != null)
        {
            log.Rewrite(ctx.DbIndex);
            for (int i = 0; i < ctx.ArgCount; i++)
            {
                if (i == timeAt - 1) log.Add("PXAT"u8);
                else if (i == timeAt) log.Add(expireAt);
                else log.Add(ctx.Arg(i));
            }
        }
        ctx.Reply.Integer(1);
        if (expired > 0) ctx.Notify(Ev.Hash, "hexpired", key);
        ctx.Notify(Ev.Hash, "hset", key);
        if (deleted > 0 || updated > 0) ctx.Notify(Ev.Hash, deleted > 0 ? "hdel" : "hexpire", key);
        DeleteIfEmpty(ref ctx, hash, key);
    }
}
