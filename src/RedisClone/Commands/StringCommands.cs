using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;

using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;
namespace RedisClone.Commands;

/// <summary>
/// The string family: GET, SET and its variants, the counters, APPEND, ranges and LCS.
/// </summary>
/// <remarks>
/// A small string value (up to 44 bytes, with a key up to 127) is embedded after its key in the
/// entry's one array (<see cref="EmbeddedString"/>, Redis's embstr); a larger one is a <c>byte[]</c>
/// in <see cref="KeyTable.Entry.Value"/> whose length is the string's length; once APPEND or
/// SETRANGE has lengthened it, a <see cref="GrowableString"/> with Redis's spare room (so growing a
/// string by appends is amortised O(1)). Every reader sees all three through
/// <see cref="StringValue"/> (<see cref="Lookup.TryReadString"/>). Overwriting a string with a value
/// of the same length copies into the existing array (and INCR rewrites its digits in place when
/// their count does not change), so a steady stream of SET/INCR on existing keys allocates nothing. The price: a stored array may be mutated later, so code that
/// shares a value between two keys (COPY, RESTORE...) must clone it.
/// <para>
/// The <see cref="KeyTable.RawFlag"/> mirrors Redis's encodings: commands that build a fresh object
/// from the argument (SET, INCR...) clear it, so OBJECT ENCODING reports int or embstr from the
/// bytes; APPEND to an existing string and SETRANGE edit a string in place and set it ("raw").
/// </para>
/// Keyspace hits and misses are counted where Redis uses lookupKeyRead (GET, MGET, STRLEN, GETRANGE,
/// the GET of SET/GETSET/GETDEL/GETEX, LCS), not where it uses lookupKeyWrite (INCR, APPEND...).
/// </remarks>
internal static class StringCommands
{
    // Option bits shared by SET and GETEX, checked for conflicts in Redis's order.
    private const int OptNx = 1 << 0;
    private const int OptXx = 1 << 1;
    private const int OptGet = 1 << 2;
    private const int OptKeepTtl = 1 << 3;
    private const int OptPersist = 1 << 4;
    private const int OptEx = 1 << 5;
    private const int OptPx = 1 << 6;
    private const int OptExAt = 1 << 7;
    private const int OptPxAt = 1 << 8;
    private const int OptIfEq = 1 << 9; // Valkey 8.1's SET ... IFEQ comparison-value
    private const int OptAnyExpire = OptEx | OptPx | OptExAt | OptPxAt;

    // ---------------------------------------------------------------- GET / SET and variants

    /// <summary>GET key — the value, or nil; WRONGTYPE if the key holds another type.</summary>
    public static void Get(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        if (!Lookup.TryReadString(ref ctx, key, out var value, out bool found)) return;
        if (!found) ctx.Reply.NullBulk();
        else ctx.Reply.Bulk(value);
    }

    /// <summary>
    /// SET key value [NX | XX | IFEQ comparison-value] [GET] [EX seconds | PX milliseconds |
    /// EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL] — OK, or nil when NX/XX/IFEQ
    /// stopped it; with GET, the old value (or nil) instead.
    /// </summary>
    /// <remarks>
    /// Order of checks as Redis: option syntax, then the expire value, then (GET) the old value's
    /// type, then NX/XX. A value of another type is overwritten. An absolute time in the past
    /// leaves no key behind. IFEQ is Valkey's (8.1): the key must exist and hold a string
    /// (WRONGTYPE otherwise, which GET has already checked when given) equal to the comparison
    /// value, byte for byte; it excludes NX and XX (a syntax error, in either order).
    /// </remarks>
    public static void Set(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (ctx.ArgCount == 3)
        {
            // The hot path: no options.
            StoreString(ref ctx, db, db.FindLive(key, ctx.NowMs), key, ctx.Arg(2), 0, keepTtl: false);
            ctx.Notify(Ev.String, "set", key);
            ctx.Reply.Ok();
            return;
        }

        if (!TryParseOptions(ref ctx, 3, forSet: true, out int flags, out int expireArg, out int compareArg)) return;
        long expireAt = 0;
        if (expireArg > 0 && !TryParseExpire(ref ctx, expireArg, flags, RespErrors.InvalidExpire, out expireAt)) return;

        int slot;
        if ((flags & OptGet) != 0)
        {
            slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: true);
            if (slot < 0)
            {
                ctx.Reply.NullBulk();
            }
            else if (StringValue.TryGet(in db.Table.At(slot), out var old))
            {
                ctx.Reply.Bulk(old);
            }
            else
            {
                ctx.WrongType();
                return;
            }
        }
        else
        {
            slot = db.FindLive(key, ctx.NowMs);
        }

        bool stopped = ((flags & OptNx) != 0 && slot >= 0) || ((flags & OptXx) != 0 && slot < 0);
        if ((flags & OptIfEq) != 0)
        {
            if (slot < 0)
            {
                stopped = true;
            }
            else if (StringValue.TryGet(in db.Table.At(slot), out var current))
            {
                stopped = !current.SequenceEqual(ctx.Arg(compareArg));
            }
            else
            {
                ctx.WrongType(); // only without GET: GET has already answered WRONGTYPE
                return;
            }
        }
        if (stopped)
        {
            ctx.Unchanged = true;
            if ((flags & OptGet) == 0) ctx.Reply.NullBulk();
            return;
        }

        if (expireArg > 0 && ctx.AlreadyExpired(expireAt))
        {
            // EXAT/PXAT in the past: the key would be born expired, so it is simply gone.
            if (slot >= 0) db.RemoveAt(slot);
        }
        else
        {
            StoreString(ref ctx, db, slot, key, ctx.Arg(2), expireAt, keepTtl: (flags & OptKeepTtl) != 0);
            ctx.Notify(Ev.String, "set", key);
            if (expireArg > 0) ctx.Notify(Ev.Generic, "expire", key);
        }
        if ((flags & OptGet) == 0) ctx.Reply.Ok();
        if (ctx.Propagation is { } log) PropagateSet(ref ctx, log, flags, expireArg > 0, expireAt);
    }

    /// <summary>
    /// DELIFEQ key value (Valkey 9.0) — 1 if the key held a string equal to value, byte for byte,
    /// and was deleted; 0 if it is missing or holds another string; WRONGTYPE for other types.
    /// Propagates as DEL, as Valkey does.
    /// </summary>
    public static void DelIfEq(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        int slot = db.FindLive(key, ctx.NowMs);
        if (slot < 0)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        if (!StringValue.TryGet(in db.Table.At(slot), out var value))
        {
            ctx.WrongType();
            return;
        }
        if (!value.SequenceEqual(ctx.Arg(2)))
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        db.RemoveAt(slot);
        ctx.Notify(Ev.Generic, "del", key);
        ctx.Reply.Raw(Resp.One);
        ctx.Propagation?.Rewrite(ctx.DbIndex).Add("DEL"u8).Add(key);
    }

    /// <summary>
    /// What SET propagates (Redis 7): with a relative expire, or EXAT, "SET key value PXAT ms" (an
    /// absolute time, so a replica or an AOF replayed later expires the key at the same moment);
    /// otherwise the command as sent, less its GET arguments (a replica has no one to answer).
    /// A SET that passed IFEQ propagates as the plain SET it came to, without IFEQ and its value
    /// (Valkey sends IFEQ on; without it a Redis 7 replica or AOF reader understands the write, and
    /// the outcome is the same). That also keeps a comparison value spelled "GET" in place.
    /// </summary>
    private static void PropagateSet(ref CommandContext ctx, PropagationLog log, int flags, bool expires, long expireAt)
    {
        if (expires && ctx.AlreadyExpired(expireAt))
        {
            // Born expired, the key was not stored (Redis 7.2 stores it and propagates the SET, then a
            // DEL when it is next found): a replica must drop it too, as after GETEX or EXPIRE in the past.
            log.Rewrite(ctx.DbIndex).Add(ctx.Server.Config.LazyfreeLazyExpire ? "UNLINK"u8 : "DEL"u8).Add(ctx.Arg(1));
            return;
        }
        if (expires)
        {
            if ((flags & (OptPxAt | OptIfEq)) != OptPxAt) log.Rewrite(ctx.DbIndex).Add("SET"u8).Add(ctx.Arg(1)).Add(ctx.Arg(2)).Add("PXAT"u8).Add(expireAt);
            return;
        }
        if ((flags & (OptGet | OptIfEq)) == 0) return;
        log.Rewrite(ctx.DbIndex);
        for (int i = 0; i < ctx.ArgCount; i++)
        {
            if (i >= 3 && (flags & OptIfEq) != 0 && ctx.ArgIs(i, "IFEQ")) i++; // the token and its value
            else if (i < 3 || !ctx.ArgIs(i, "GET")) log.Add(ctx.Arg(i));
        }
    }

    /// <summary>SETNX key value — 1 if the key was set, 0 if it already existed.</summary>
    public static void SetNx(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (db.FindLive(key, ctx.NowMs) >= 0)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        db.AddString(key, ctx.Arg(2));
        ctx.Notify(Ev.String, "set", key);
        ctx.Reply.Raw(Resp.One);
    }

    /// <summary>SETEX key seconds value — OK; the key expires after the given seconds.</summary>
    public static void SetEx(ref CommandContext ctx) => SetWithTtl(ref ctx, OptEx, RespErrors.InvalidExpireSetEx);

    /// <summary>PSETEX key milliseconds value — OK; the key expires after the given milliseconds.</summary>
    public static void PSetEx(ref CommandContext ctx) => SetWithTtl(ref ctx, OptPx, RespErrors.InvalidExpirePSetEx);

    private static void SetWithTtl(ref CommandContext ctx, int unit, ReadOnlySpan<byte> invalidExpire)
    {
        if (!TryParseExpire(ref ctx, 2, unit, invalidExpire, out long expireAt)) return;
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        StoreString(ref ctx, db, db.FindLive(key, ctx.NowMs), key, ctx.Arg(3), expireAt, keepTtl: false);
        ctx.Notify(Ev.String, "set", key);
        ctx.Notify(Ev.Generic, "expire", key);
        ctx.Reply.Ok();
        ctx.Propagation?.Rewrite(ctx.DbIndex).Add("SET"u8).Add(key).Add(ctx.Arg(3)).Add("PXAT"u8).Add(expireAt);
    }

    /// <summary>GETSET key value — the old value or nil; sets the new one and clears any TTL.</summary>
    public static void GetSet(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: true);
        if (!ReplyStringOrNull(ref ctx, db, slot)) return;
        StoreString(ref ctx, db, slot, key, ctx.Arg(2), 0, keepTtl: false);
        ctx.Notify(Ev.String, "set", key);
        ctx.Propagation?.Rewrite(ctx.DbIndex).Add("SET"u8).Add(key).Add(ctx.Arg(2));
    }

    /// <summary>GETDEL key — the value or nil; deletes the key when it held a string.</summary>
    public static void GetDel(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: true);
        if (!ReplyStringOrNull(ref ctx, db, slot)) return;
        if (slot < 0)
        {
            ctx.Unchanged = true;
            return;
        }
        db.RemoveAt(slot);
        ctx.Notify(Ev.Generic, "del", key);
        ctx.Propagation?.Rewrite(ctx.DbIndex).Add("DEL"u8).Add(key);
    }

    /// <summary>
    /// GETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds
    /// | PERSIST] — the value or nil, changing the key's TTL as asked.
    /// </summary>
    /// <remarks>
    /// Redis checks the option syntax first, then looks the key up (a missing key is nil even with
    /// an invalid expire value), then the type, and only then the expire value.
    /// </remarks>
    public static void GetEx(ref CommandContext ctx)
    {
        if (!TryParseOptions(ref ctx, 2, forSet: false, out int flags, out int expireArg, out _)) return;
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        // Not Lookup.TryRead on purpose: GETEX needs the slot to change the TTL, yet counts a hit or miss.
        int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: true);
        if (slot < 0)
        {
            ctx.Unchanged = true;
            ctx.Reply.NullBulk();
            return;
        }
        if (!StringValue.TryGet(in db.Table.At(slot), out var value))
        {
            ctx.WrongType();
            return;
        }
        long expireAt = 0;
        if (expireArg > 0 && !TryParseExpire(ref ctx, expireArg, flags, RespErrors.InvalidExpireGetEx, out expireAt)) return;
        ctx.Reply.Bulk(value);
        // GETEX propagates as what it did: DEL (UNLINK with lazyfree-lazy-expire), PEXPIREAT or
        // PERSIST; GETEX without an option, or PERSIST of a key without a TTL, changed nothing.
        if (expireArg > 0)
        {
            if (ctx.AlreadyExpired(expireAt))
            {
                db.RemoveAt(slot);
                ctx.Notify(Ev.Generic, "del", key);
                ctx.Propagation?.Rewrite(ctx.DbIndex).Add(ctx.Server.Config.LazyfreeLazyExpire ? "UNLINK"u8 : "DEL"u8).Add(key);
            }
            else
            {
                db.SetExpire(slot, expireAt);
                ctx.Notify(Ev.Generic, "expire", key);
                ctx.Propagation?.Rewrite(ctx.DbIndex).Add("PEXPIREAT"u8).Add(key).Add(expireAt);
            }
        }
        else if ((flags & OptPersist) != 0 && db.Table.At(slot).HasTtl)
        {
            ctx.Notify(Ev.Generic, "persist", key);
            db.SetExpire(slot, 0);
            ctx.Propagation?.Rewrite(ctx.DbIndex).Add("PERSIST"u8).Add(key);
        }
        else
        {
            ctx.Unchanged = true;
        }
    }

    /// <summary>MGET key [key ...] — an array with each value, nil for missing keys and other types.</summary>
    public static void MGet(ref CommandContext ctx)
    {
        int count = ctx.ArgCount - 1;
        ctx.Reply.ArrayHeader(count);
        for (int i = 1; i <= count; i++)
        {
            var key = ctx.Arg(i);
            var db = ctx.Db(key);
            int slot = db.FindForRead(key, ctx.NowMs);
            if (slot >= 0 && StringValue.TryGet(in db.Table.At(slot), out var s)) ctx.Reply.Bulk(s);
            else ctx.Reply.NullBulk();
        }
    }

    /// <summary>MSET key value [key value ...] — OK; sets every key (clearing TTLs) atomically.</summary>
    public static void MSet(ref CommandContext ctx)
    {
        if ((ctx.ArgCount & 1) == 0)
        {
            ctx.Error(RespErrors.WrongArityMSet);
            return;
        }
        SetPairs(ref ctx);
        ctx.Reply.Ok();
    }

    /// <summary>MSETNX key value [key value ...] — 1 if every key was set, 0 (and nothing set) if any existed.</summary>
    public static void MSetNx(ref CommandContext ctx)
    {
        if ((ctx.ArgCount & 1) == 0)
        {
            ctx.Error(RespErrors.WrongArityMSetNx);
            return;
        }
        for (int i = 1; i < ctx.ArgCount; i += 2)
        {
            var key = ctx.Arg(i);
            if (ctx.Db(key).FindLive(key, ctx.NowMs) >= 0)
            {
                ctx.Unchanged = true;
                ctx.Reply.Raw(Resp.Zero);
                return;
            }
        }
        SetPairs(ref ctx);
        ctx.Reply.Raw(Resp.One);
    }

    private static void SetPairs(ref CommandContext ctx)
    {
        for (int i = 1; i < ctx.ArgCount; i += 2)
        {
            var key = ctx.Arg(i);
            var db = ctx.Db(key);
            StoreString(ref ctx, db, db.FindLive(key, ctx.NowMs), key, ctx.Arg(i + 1), 0, keepTtl: false);
            ctx.Notify(Ev.String, "set", key);
        }
    }

    // ---------------------------------------------------------------- counters

    /// <summary>INCR key — the value plus one; a missing key counts as 0. The TTL is kept.</summary>
    public static void Incr(ref CommandContext ctx) => IncrDecr(ref ctx, 1);

    /// <summary>DECR key — the value minus one; a missing key counts as 0.</summary>
    public static void Decr(ref CommandContext ctx) => IncrDecr(ref ctx, -1);

    /// <summary>INCRBY key increment — the value plus the increment.</summary>
    public static void IncrBy(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long increment))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        IncrDecr(ref ctx, increment);
    }

    /// <summary>DECRBY key decrement — the value minus the decrement.</summary>
    public static void DecrBy(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long decrement))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (decrement == long.MinValue)
        {
            // Its negation does not exist; Redis reports this before looking at the key.
            ctx.Error(RespErrors.DecrementOverflow);
            return;
        }
        IncrDecr(ref ctx, -decrement);
    }

    private static void IncrDecr(ref CommandContext ctx, long increment)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWriteString(ref ctx, db, key, out int slot, out var old)) return;
        long value = 0;
        if (slot >= 0 && !RedisNumbers.TryParseInt64(old, out value))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if ((increment < 0 && value < 0 && increment < long.MinValue - value) ||
            (increment > 0 && value > 0 && increment > long.MaxValue - value))
        {
            ctx.Error(RespErrors.Overflow);
            return;
        }
        value += increment;

        Span<byte> digits = stackalloc byte[RedisNumbers.MaxInt64Length];
        digits = digits.Slice(0, RedisNumbers.FormatInt64(value, digits));
        PutString(db, slot, key, digits, expireAt: 0, keepTtl: true);
        ctx.Notify(Ev.String, "incrby", key);
        ctx.Reply.Integer(value);
    }

    /// <summary>
    /// INCRBYFLOAT key increment — the new value as a bulk string, computed in x87 long double
    /// precision and printed as Redis prints it (so replies match redis-server byte for byte).
    /// </summary>
    public static void IncrByFloat(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWriteString(ref ctx, db, key, out int slot, out var old)) return;
        ExtendedDouble value = ExtendedDouble.Zero;
        if (slot >= 0 && !RedisNumbers.TryParseLongDouble(old, out value))
        {
            ctx.Error(RespErrors.NotFloat);
            return;
        }
        if (!RedisNumbers.TryParseLongDouble(ctx.Arg(2), out var increment))
        {
            ctx.Error(RespErrors.NotFloat);
            return;
        }
        if (!RedisNumbers.TryAdd(value, increment, out var sum))
        {
            ctx.Error(RespErrors.NanOrInfinity);
            return;
        }

        Span<byte> text = stackalloc byte[RedisNumbers.MaxLongDoubleHumanLength];
        text = text.Slice(0, RedisNumbers.FormatLongDoubleHuman(sum, text));
        PutString(db, slot, key, text, expireAt: 0, keepTtl: true);
        ctx.Notify(Ev.String, "incrbyfloat", key);
        ctx.Reply.Bulk(text);
        // The result, not the increment: float formatting can never make a replica disagree.
        ctx.Propagation?.Rewrite(ctx.DbIndex).Add("SET"u8).Add(key).Add(text).Add("KEEPTTL"u8);
    }

    // ---------------------------------------------------------------- APPEND, STRLEN, ranges

    /// <summary>APPEND key value — the string's length after appending; creates the key when missing.</summary>
    public static void Append(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var suffix = ctx.Arg(2);
        var db = ctx.Db(key);
        if (!Lookup.TryWriteString(ref ctx, db, key, out int slot, out var old)) return;
        if (slot < 0)
        {
            // A new key is a plain SET of the argument: an exact array, int/embstr encoding, not raw.
            db.AddString(key, suffix);
            ctx.Notify(Ev.String, "append", key);
            ctx.Reply.Integer(suffix.Length);
            return;
        }
        int length = old.Length;
        if (!CheckStringLength(ref ctx, length, suffix.Length)) return;
        // In place, into spare room (Redis's sdscatlen): the first append to an exact array makes it
        // a GrowableString; later ones copy only the suffix until the room runs out.
        if (suffix.Length > 0) suffix.CopyTo(db.GrowString(slot, length + suffix.Length).Writable.Slice(length));
        // Redis unshares the value for editing even when nothing is appended: it becomes raw.
        db.Table.At(slot).HashAndFlag |= KeyTable.RawFlag;
        ctx.Notify(Ev.String, "append", key);
        ctx.Reply.Integer(length + suffix.Length);
    }

    /// <summary>STRLEN key — the string's length, 0 for a missing key.</summary>
    public static void StrLen(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        if (!Lookup.TryReadString(ref ctx, key, out var value, out bool found)) return;
        if (!found) ctx.Reply.Raw(Resp.Zero);
        else ctx.Reply.Integer(value.Length);
    }

    /// <summary>
    /// GETRANGE key start end (also SUBSTR) — the bytes from start to end inclusive; negative
    /// indexes count from the end; an empty string when the range is empty or the key missing.
    /// </summary>
    public static void GetRange(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long start) ||
            !RedisNumbers.TryParseInt64(ctx.Arg(3), out long end))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        var key = ctx.Arg(1);
        if (!Lookup.TryReadString(ref ctx, key, out var s, out bool found)) return;
        if (!found)
        {
            ctx.Reply.Raw(Resp.EmptyBulk);
            return;
        }

        // Redis 7.0's rules, quirks included: both negative and start past end is empty up front;
        // otherwise negatives count from the end, clamp at 0, and end clamps to the last byte.
        long length = s.Length;
        if (start < 0 && end < 0 && start > end)
        {
            ctx.Reply.Raw(Resp.EmptyBulk);
            return;
        }
        if (start < 0) start += length;
        if (end < 0) end += length;
        if (start < 0) start = 0;
        if (end < 0) end = 0;
        if (end >= length) end = length - 1;
        if (start > end || length == 0)
        {
            ctx.Reply.Raw(Resp.EmptyBulk);
            return;
        }
        ctx.Reply.Bulk(s.Slice((int)start, (int)(end - start + 1)));
    }

    /// <summary>
    /// SETRANGE key offset value — the string's length after writing value at offset, padding
    /// with zero bytes; an empty value changes nothing (and creates no key).
    /// </summary>
    public static void SetRange(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long offset))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (offset < 0)
        {
            ctx.Error(RespErrors.OffsetOutOfRange);
            return;
        }
        var key = ctx.Arg(1);
        var patch = ctx.Arg(3);
        var db = ctx.Db(key);
        if (!Lookup.TryWriteString(ref ctx, db, key, out int slot, out var old)) return;
        if (slot < 0)
        {
            if (patch.Length == 0)
            {
                ctx.Unchanged = true;
                ctx.Reply.Raw(Resp.Zero);
                return;
            }
            if (!CheckStringLength(ref ctx, offset, patch.Length)) return;
            // Exact, as Redis's sdsnewlen here: spare room comes with the first growth.
            var created = new byte[offset + patch.Length];
            patch.CopyTo(created.AsSpan((int)offset));
            slot = db.Add(key.ToArray(), created);
            db.Table.At(slot).HashAndFlag |= KeyTable.RawFlag;
            ctx.Notify(Ev.String, "setrange", key);
            ctx.Reply.Integer(created.Length);
            return;
        }

        if (patch.Length == 0)
        {
            ctx.Unchanged = true;
            ctx.Reply.Integer(old.Length);
            return;
        }
        if (!CheckStringLength(ref ctx, offset, patch.Length)) return;
        int needed = (int)(offset + patch.Length);
        // Within the string, the bytes are overwritten where they are; past its end it grows in
        // place as APPEND does (Redis's sdsgrowzero: zero padding, greedy room).
        Span<byte> target = needed > old.Length ? db.GrowString(slot, needed).Writable
            : StringValue.Writable(in db.Table.At(slot));
        patch.CopyTo(target.Slice((int)offset));
        db.Table.At(slot).HashAndFlag |= KeyTable.RawFlag;
        ctx.Notify(Ev.String, "setrange", key);
        ctx.Reply.Integer(target.Length);
    }

    // ---------------------------------------------------------------- LCS

    /// <summary>
    /// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN] — the longest common
    /// subsequence of two strings; LEN gives its length; IDX gives the matching ranges, last first,
    /// as a map {matches: [[[a1, a2], [b1, b2](, len)], ...], len: n}.
    /// </summary>
    /// <remarks>
    /// Missing keys count as empty strings. The ranges come from walking Redis's dynamic-programming
    /// table back from the end with the same tie-break (move in the first string only when that
    /// keeps a strictly longer LCS), so they are the ranges Redis reports. The table is
    /// (len1+1)×(len2+1) 32-bit cells, refused above proto-max-bulk-len bytes as Redis does.
    /// The two keys may live on different shards; the dispatcher holds both gates.
    /// </remarks>
    public static void Lcs(ref CommandContext ctx)
    {
        var key1 = ctx.Arg(1);
        var key2 = ctx.Arg(2);
        var db1 = ctx.Db(key1);
        var db2 = ctx.Db(key2);
        int slot1 = db1.FindForRead(key1, ctx.NowMs);
        int slot2 = db2.FindForRead(key2, ctx.NowMs);
        // A missing key is an empty string.
        ReadOnlySpan<byte> a = default, b = default;
        if ((slot1 >= 0 && !StringValue.TryGet(in db1.Table.At(slot1), out a)) ||
            (slot2 >= 0 && !StringValue.TryGet(in db2.Table.At(slot2), out b)))
        {
            ctx.Error(RespErrors.LcsNotStrings);
            return;
        }

        bool getLen = false, getIdx = false, withMatchLen = false;
        long minMatchLen = 0;
        for (int j = 3; j < ctx.ArgCount; j++)
        {
            bool more = j < ctx.ArgCount - 1;
            if (ctx.ArgIs(j, "IDX")) getIdx = true;
            else if (ctx.ArgIs(j, "LEN")) getLen = true;
            else if (ctx.ArgIs(j, "WITHMATCHLEN")) withMatchLen = true;
            else if (ctx.ArgIs(j, "MINMATCHLEN") && more)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out minMatchLen))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (minMatchLen < 0) minMatchLen = 0;
                j++;
            }
            else
            {
                ctx.Syntax();
                return;
            }
        }
        if (getIdx && getLen)
        {
            ctx.Error(RespErrors.LcsLenAndIdx);
            return;
        }

        // (Redis also refuses strings of 4 GB and more here; a byte[] cannot be that long.)
        int alen = a.Length, blen = b.Length, width = blen + 1;
        long cells = (long)(alen + 1) * width;
        if (cells > ctx.Server.Config.ProtoMaxBulkLen / sizeof(uint))
        {
            ctx.Error(RespErrors.LcsOverLimit);
            return;
        }
        uint[] table;
        try
        {
            if (cells > Array.MaxLength) throw new OutOfMemoryException();
            table = GC.AllocateUninitializedArray<uint>((int)cells);
        }
        catch (OutOfMemoryException)
        {
            ctx.Error(RespErrors.LcsNoMemory);
            return;
        }

        // table[i * width + j] = length of the LCS of a[..i] and b[..j].
        Array.Clear(table, 0, width);
        for (int i = 1; i <= alen; i++)
        {
            int row = i * width, up = row - width;
            table[row] = 0;
            byte ai = a[i - 1];
            for (int j = 1; j <= blen; j++)
            {
                if (ai == b[j - 1]) table[row + j] = table[up + j - 1] + 1;
                else
                {
                    uint fromUp = table[up + j], fromLeft = table[row + j - 1];
                    table[row + j] = fromUp > fromLeft ? fromUp : fromLeft;
                }
            }
        }
        int total = (int)table[alen * width + blen];

        if (getLen)
        {
            ctx.Reply.Integer(total);
            return;
        }

        // Walk back from the end, collecting the LCS and (for IDX) the contiguous ranges.
        var result = new byte[total];
        var ranges = getIdx ? new List<(int A0, int A1, int B0, int B1)>() : null;
        int idx = total, ii = alen, jj = blen;
        int aStart = -1, aEnd = 0, bStart = 0, bEnd = 0;
        while (ii > 0 && jj > 0)
        {
            bool emit = false;
            if (a[ii - 1] == b[jj - 1])
            {
                result[--idx] = a[ii - 1];
                if (aStart < 0)
                {
                    aStart = aEnd = ii - 1;
                    bStart = bEnd = jj - 1;
                }
                else
                {
                    // A match right after a match always extends the current range backwards.
                    aStart--;
                    bStart--;
                }
                if (aStart == 0 || bStart == 0) emit = true;
                ii--;
                jj--;
            }
            else
            {
                if (table[(ii - 1) * width + jj] > table[ii * width + jj - 1]) ii--;
                else jj--;
                if (aStart >= 0) emit = true;
            }
            if (emit)
            {
                int matchLen = aEnd - aStart + 1;
                if (ranges != null && (minMatchLen == 0 || matchLen >= minMatchLen))
                    ranges.Add((aStart, aEnd, bStart, bEnd));
                aStart = -1;
            }
        }

        if (ranges == null)
        {
            ctx.Reply.Bulk(result);
            return;
        }
        ctx.Reply.MapHeader(2);
        ctx.Reply.Bulk("matches"u8);
        ctx.Reply.ArrayHeader(ranges.Count);
        foreach (var (a0, a1, b0, b1) in ranges)
        {
            ctx.Reply.ArrayHeader(withMatchLen ? 3 : 2);
            ctx.Reply.ArrayHeader(2);
            ctx.Reply.Integer(a0);
            ctx.Reply.Integer(a1);
            ctx.Reply.ArrayHeader(2);
            ctx.Reply.Integer(b0);
            ctx.Reply.Integer(b1);
            if (withMatchLen) ctx.Reply.Integer(a1 - a0 + 1);
        }
        ctx.Reply.Bulk("len"u8);
        ctx.Reply.Integer(total);
    }

    // ---------------------------------------------------------------- shared steps

    /// <summary>
    /// Stores <paramref name="value"/> as the string at <paramref name="slot"/> (a live slot, or -1
    /// to add the key): embedded with the key when small, in place when the length matches (see
    /// <see cref="Database.ReplaceString"/>). <paramref name="expireAt"/> 0 clears the TTL unless
    /// <paramref name="keepTtl"/>.
    /// </summary>
    /// <summary>
    /// Redis's setKey for a string (SET and its variants, GETSET, MSET): <see cref="PutString"/>,
    /// sending Redis 8.2's "overwritten" / "type_changed" first when the key existed and those
    /// classes are on. (INCR and INCRBYFLOAT replace the value without them, as Redis does.)
    /// </summary>
    private static void StoreString(ref CommandContext ctx, Database db, int slot, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value,
        long expireAt, bool keepTtl)
    {
        if (slot >= 0 && ctx.OverwriteEventsOn) ctx.NotifyOverwritten(key, ValueTypes.TypeName(db.Table.At(slot).Value), "string");
        PutString(db, slot, key, value, expireAt, keepTtl);
    }

    /// <summary>Adds the key, or replaces the value at <paramref name="slot"/> (a fresh string: its raw flag cleared).</summary>
    private static void PutString(Database db, int slot, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value,
        long expireAt, bool keepTtl)
    {
        if (slot < 0)
        {
            db.AddString(key, value, expireAt);
            return;
        }
        db.ReplaceString(slot, value);
        db.Table.At(slot).HashAndFlag &= int.MaxValue;
        if (!keepTtl) db.SetExpire(slot, expireAt);
    }

    /// <summary>Replies the string at <paramref name="slot"/> or nil; false (after WRONGTYPE) for other types.</summary>
    private static bool ReplyStringOrNull(ref CommandContext ctx, Database db, int slot)
    {
        if (slot < 0)
        {
            ctx.Reply.NullBulk();
            return true;
        }
        if (StringValue.TryGet(in db.Table.At(slot), out var s))
        {
            ctx.Reply.Bulk(s);
            return true;
        }
        ctx.WrongType();
        return false;
    }

    /// <summary>
    /// Redis's checkStringLength: a string may not grow past proto-max-bulk-len (nor, here, past
    /// the longest array .NET can allocate).
    /// </summary>
    private static bool CheckStringLength(ref CommandContext ctx, long size, long append)
    {
        long limit = Math.Min(ctx.Server.Config.ProtoMaxBulkLen, Array.MaxLength);
        if (size > limit - append)
        {
            ctx.Error(RespErrors.StringTooLong);
            return false;
        }
        return true;
    }

    /// <summary>
    /// Parses SET's options (from argument 3) or GETEX's (from argument 2) with Redis's conflict
    /// rules: a conflicting or unknown option, or an expire option without a value, is a syntax
    /// error. Repeating a compatible option is allowed (the last expire value wins).
    /// </summary>
    private static bool TryParseOptions(ref CommandContext ctx, int start, bool forSet, out int flags, out int expireArg,
        out int compareArg)
    {
        flags = 0;
        expireArg = 0;
        compareArg = 0;
        for (int j = start; j < ctx.ArgCount; j++)
        {
            bool hasValue = j < ctx.ArgCount - 1;
            int expireFlag = 0;
            if (forSet && ctx.ArgIs(j, "NX") && (flags & (OptXx | OptIfEq)) == 0) flags |= OptNx;
            else if (forSet && ctx.ArgIs(j, "XX") && (flags & (OptNx | OptIfEq)) == 0) flags |= OptXx;
            else if (forSet && ctx.ArgIs(j, "GET")) flags |= OptGet;
            else if (forSet && ctx.ArgIs(j, "KEEPTTL") && (flags & (OptPersist | OptAnyExpire)) == 0) flags |= OptKeepTtl;
            else if (!forSet && ctx.ArgIs(j, "PERSIST") && (flags & (OptKeepTtl | OptAnyExpire)) == 0) flags |= OptPersist;
            else if (ctx.ArgIs(j, "EX")) expireFlag = OptEx;
            else if (ctx.ArgIs(j, "PX")) expireFlag = OptPx;
            else if (ctx.ArgIs(j, "EXAT")) expireFlag = OptExAt;
            else if (ctx.ArgIs(j, "PXAT")) expireFlag = OptPxAt;
            else if (forSet && hasValue && (flags & (OptNx | OptXx)) == 0 && ctx.ArgIs(j, "IFEQ"))
            {
                // Tried last, so the options Redis has pay nothing for it; given twice, the last counts.
                flags |= OptIfEq;
                compareArg = ++j;
            }
            else
            {
                ctx.Syntax();
                return false;
            }
            if (expireFlag == 0) continue;
            // An expire option conflicts with KEEPTTL, PERSIST and the other expire options.
            if (!hasValue || (flags & (OptKeepTtl | OptPersist | (OptAnyExpire & ~expireFlag))) != 0)
            {
                ctx.Syntax();
                return false;
            }
            flags |= expireFlag;
            expireArg = ++j;
        }
        return true;
    }

    /// <summary>
    /// Turns the expire argument into an absolute unix time in ms, with Redis's checks: not an
    /// integer → "value is not an integer"; zero, negative, or overflowing (seconds × 1000, or
    /// relative time + now) → <paramref name="invalidExpire"/>.
    /// </summary>
    private static bool TryParseExpire(ref CommandContext ctx, int arg, int unitFlags, ReadOnlySpan<byte> invalidExpire,
        out long expireAt)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(arg), out expireAt))
        {
            ctx.Error(RespErrors.NotInteger);
            return false;
        }
        bool seconds = (unitFlags & (OptEx | OptExAt)) != 0;
        if (expireAt <= 0 || (seconds && expireAt > long.MaxValue / 1000))
        {
            ctx.Error(invalidExpire);
            return false;
        }
        if (seconds) expireAt *= 1000;
        if ((unitFlags & (OptEx | OptPx)) != 0) expireAt = unchecked(expireAt + ctx.NowMs);
        if (expireAt <= 0)
        {
            ctx.Error(invalidExpire);
            return false;
        }
        return true;
    }
}
