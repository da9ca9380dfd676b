using System.Diagnostics;
using System.Runtime.CompilerServices;
using RedisClone.Storage;

namespace RedisClone.Commands;

/// <summary>
/// The typed key lookup every family shares: find the key for a read or for a write; a missing key
/// is null; a key of another type replies WRONGTYPE and the caller returns.
/// </summary>
/// <remarks>
/// Both lookups delete an expired key on the way (lazy expiry) and stamp the key as accessed, as
/// Redis's lookupKeyRead/lookupKeyWrite do. Only the read lookup counts a keyspace hit or miss (and
/// fires "keymiss"). Commands that must not touch the access time (TYPE, EXISTS, OBJECT) use
/// <see cref="Database.FindLiveNoTouch"/> directly.
/// </remarks>
internal static class Lookup
{
    /// <summary>
    /// A read lookup (Redis's lookupKeyRead: counts a hit or miss): true with the value, or null when
    /// missing; false after replying WRONGTYPE.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryRead<T>(ref CommandContext ctx, scoped ReadOnlySpan<byte> key, out T? value) where T : class
    {
        Debug.Assert(typeof(T) != typeof(byte[]), "a string may be a GrowableString: use TryReadString");
        object? found = ctx.Db(key).GetForRead(key, ctx.NowMs);
        value = found as T;
        if (found == null || value != null) return true;
        ctx.WrongType();
        return false;
    }

    /// <summary>
    /// A write lookup in <paramref name="db"/> (Redis's lookupKeyWrite: no hit or miss counted): true
    /// with the key's slot (-1 when missing) and value; false after replying WRONGTYPE.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryWrite<T>(ref CommandContext ctx, Database db, scoped ReadOnlySpan<byte> key, out int slot, out T? value)
        where T : class
    {
        Debug.Assert(typeof(T) != typeof(byte[]), "a string may be a GrowableString: use TryWriteString");
        value = null;
        slot = db.FindLive(key, ctx.NowMs);
        if (slot < 0) return true;
        value = db.Table.At(slot).Value as T;
        if (value != null) return true;
        ctx.WrongType();
        return false;
    }

    /// <summary>
    /// <see cref="TryRead{T}"/> for a string (either form, see <see cref="StringValue"/>): true with its
    /// bytes and <paramref name="found"/> set, or <paramref name="found"/> false when missing; false
    /// after replying WRONGTYPE. The bytes are valid until the value is next written.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryReadString(ref CommandContext ctx, scoped ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value,
        out bool found)
    {
        var db = ctx.Db(key);
        int slot = db.FindForRead(key, ctx.NowMs);
        found = slot >= 0;
        value = default;
        if (!found || StringValue.TryGet(in db.Table.At(slot), out value)) return true;
        ctx.WrongType();
        return false;
    }

    /// <summary>
    /// <see cref="TryWrite{T}"/> for a string (either form): true with the key's slot (-1 when
    /// missing) and its bytes; false after replying WRONGTYPE. The bytes are valid until the value is
    /// next written (a reallocation leaves them pointing at the old buffer).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryWriteString(ref CommandContext ctx, Database db, scoped ReadOnlySpan<byte> key, out int slot,
        out ReadOnlySpan<byte> value)
    {
        value = default;
        slot = db.FindLive(key, ctx.NowMs);
        if (slot < 0 || StringValue.TryGet(in db.Table.At(slot), out value)) return true;
        ctx.WrongType();
        return false;
    }

    /// <summary>
    /// A read lookup that returns the key's slot (-1 when missing), counting a keyspace hit or miss,
    /// for commands that need the entry itself (its TTL, its encoding) or any type (GETSET, TTL).
    /// <paramref name="touch"/> false leaves the access time alone (Redis's LOOKUP_NOTOUCH: TTL, OBJECT).
    /// </summary>
    public static int SlotForRead(Database db, scoped ReadOnlySpan<byte> key, long nowMs, bool touch)
    {
        int slot = touch ? db.FindLive(key, nowMs) : db.FindLiveNoTouch(key, nowMs);
        if (slot < 0) db.CountMiss(key);
        else db.Owner.KeyspaceHits++;
        return slot;
    }

    /// <summary><see cref="TryRead{T}"/> for callers that test a flag: null when missing or after WRONGTYPE.</summary>
    public static T? ForRead<T>(ref CommandContext ctx, scoped ReadOnlySpan<byte> key, out bool wrongType) where T : class
    {
        wrongType = !TryRead(ref ctx, key, out T? value);
        return value;
    }

    /// <summary><see cref="TryWrite{T}"/> in the key's own database, for callers that test a flag.</summary>
    public static T? ForWrite<T>(ref CommandContext ctx, scoped ReadOnlySpan<byte> key, out Database db, out int slot,
        out bool wrongType) where T : class
    {
        db = ctx.Db(key);
        wrongType = !TryWrite(ref ctx, db, key, out slot, out T? value);
        return value;
    }
}
