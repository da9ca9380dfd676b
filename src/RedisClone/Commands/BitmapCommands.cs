using System.Numerics;
using System.Runtime.InteropServices;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// Bitmaps: strings addressed bit by bit, bit 0 being the most significant bit of the first byte,
/// as Redis's bitops.c. A missing key reads as an endless run of zero bits; SETBIT grows the string
/// with zero bytes to reach its offset (at most proto-max-bulk-len bytes, 512 MB by default).
/// </summary>
internal static class BitmapCommands
{
    // ---------------------------------------------------------------- SETBIT / GETBIT

    /// <summary>SETBIT key offset value — sets or clears one bit, growing the string as needed; the bit's old value.</summary>
    public static void SetBit(ref CommandContext ctx)
    {
        if (!TryBitOffset(ref ctx, ctx.Arg(2), out long offset)) return;
        var valueArg = ctx.Arg(3);
        if (!RedisNumbers.TryParseInt64(valueArg, out long on) || (on & ~1L) != 0)
        {
            ctx.Error(RespErrors.BitNotInteger);
            return;
        }
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWriteString(ref ctx, db, key, out int slot, out var old)) return;
        int byteIndex = (int)(offset >> 3);
        int mask = 0x80 >> (int)(offset & 7);
        Span<byte> bytes;
        bool grown;
        if (slot < 0)
        {
            var created = new byte[byteIndex + 1];
            slot = db.Add(key.ToArray(), created);
            bytes = created;
            grown = true;
        }
        else if (byteIndex >= old.Length)
        {
            // Zero padding, with spare room as Redis's sdsgrowzero.
            bytes = db.GrowString(slot, byteIndex + 1).Writable;
            grown = true;
        }
        else
        {
            bytes = StringValue.Writable(in db.Table.At(slot));
            grown = false;
        }
        bool was = (bytes[byteIndex] & mask) != 0;
        // Redis 7.2 counts a write (dirty, notification, WATCH) only when the string was created or
        // grew, or the bit changed; 7.0 counted every SETBIT.
        if (grown || was != (on == 1))
        {
            if (on == 1) bytes[byteIndex] |= (byte)mask;
            else bytes[byteIndex] &= (byte)~mask;
            db.Table.At(slot).HashAndFlag |= KeyTable.RawFlag;
            ctx.Notify(Ev.String, "setbit", key);
        }
        else
        {
            ctx.Unchanged = true;
        }
        ctx.Reply.Raw(was ? Resp.One : Resp.Zero);
    }

    /// <summary>GETBIT key offset — the bit at that offset: 0 past the end or for a missing key.</summary>
    public static void GetBit(ref CommandContext ctx)
    {
        if (!TryBitOffset(ref ctx, ctx.Arg(2), out long offset)) return;
        if (!Lookup.TryReadString(ref ctx, ctx.Arg(1), out var value, out _)) return;
        long byteIndex = offset >> 3;
        bool set = byteIndex < value.Length && (value[(int)byteIndex] & (0x80 >> (int)(offset & 7))) != 0;
        ctx.Reply.Raw(set ? Resp.One : Resp.Zero);
    }

    /// <summary>
    /// A bit offset argument: a non-negative integer whose byte stays under proto-max-bulk-len, else
    /// Redis's "bit offset is not an integer or out of range".
    /// </summary>
    private static bool TryBitOffset(ref CommandContext ctx, ReadOnlySpan<byte> arg, out long offset)
    {
        if (RedisNumbers.TryParseInt64(arg, out offset) && offset >= 0
            && (offset >> 3) < Math.Min(ctx.Server.Config.ProtoMaxBulkLen, Array.MaxLength))
            return true;
        ctx.Error(RespErrors.BitOffsetNotInteger);
        return false;
    }

    // ---------------------------------------------------------------- BITOP

    /// <summary>
    /// BITOP AND|OR|XOR|NOT destkey key [key ...] — combines strings byte by byte (the shorter ones
    /// padded with zero bytes) into destkey, whatever it held; an empty result deletes destkey.
    /// The size of the result.
    /// </summary>
    /// <remarks>
    /// Every key's shard gate is held (the key specs name them all), so the sources are read and the
    /// destination written as one step, as on Redis. Sources are checked for WRONGTYPE before anything
    /// is written.
    /// </remarks>
    public static void BitOp(ref CommandContext ctx)
    {
        var op = ctx.Arg(1);
        int kind = System.Text.Ascii.EqualsIgnoreCase(op, "AND"u8) ? 0
            : System.Text.Ascii.EqualsIgnoreCase(op, "OR"u8) ? 1
            : System.Text.Ascii.EqualsIgnoreCase(op, "XOR"u8) ? 2
            : System.Text.Ascii.EqualsIgnoreCase(op, "NOT"u8) ? 3 : -1;
        if (kind < 0)
        {
            ctx.Error(RespErrors.Syntax);
            return;
        }
        int sources = ctx.ArgCount - 3;
        if (kind == 3 && sources != 1)
        {
            ctx.Error(RespErrors.BitOpNotSingleSource);
            return;
        }
        int length = 0;
        for (int j = 0; j < sources; j++)
        {
            if (!Lookup.TryReadString(ref ctx, ctx.Arg(3 + j), out var value, out _)) return;
            length = Math.Max(length, value.Length);
        }
        var destination = ctx.Arg(2);
        if (length == 0)
        {
            if (ctx.Db(destination).Delete(destination, ctx.NowMs)) ctx.Notify(Ev.Generic, "del", destination);
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        var result = new byte[length];
        Lookup.TryReadString(ref ctx, ctx.Arg(3), out var firstValue, out _);
        firstValue.CopyTo(result);
        if (kind == 3)
        {
            Invert(result);
        }
        else
        {
            // Bytes past a source's end count as zero: AND clears them, OR and XOR leave them.
            for (int j = 1; j < sources; j++)
            {
                Lookup.TryReadString(ref ctx, ctx.Arg(3 + j), out var value, out _);
                Combine(result, value, kind);
                if (kind == 0 && value.Length < length) result.AsSpan(value.Length).Clear();
            }
        }
        var db = ctx.Db(destination);
        int slot = db.Set(destination, result, 0, ctx.NowMs);
        db.Table.At(slot).HashAndFlag |= KeyTable.RawFlag;
        ctx.Notify(Ev.String, "set", destination);
        ctx.Reply.Integer(length);
    }

    /// <summary>target = target op source over the source's length, a machine word at a time.</summary>
    private static void Combine(Span<byte> target, ReadOnlySpan<byte> source, int kind)
    {
        int n = source.Length;
        var t = MemoryMarshal.Cast<byte, ulong>(target[..n]);
        var s = MemoryMarshal.Cast<byte, ulong>(source);
        for (int i = 0; i < t.Length; i++)
            t[i] = kind switch { 0 => t[i] & s[i], 1 => t[i] | s[i], _ => t[i] ^ s[i] };
        for (int i = t.Length * 8; i < n; i++)
            target[i] = kind switch { 0 => (byte)(target[i] & source[i]), 1 => (byte)(target[i] | source[i]), _ => (byte)(target[i] ^ source[i]) };
    }

    private static void Invert(Span<byte> bytes)
    {
        var words = MemoryMarshal.Cast<byte, ulong>(bytes);
        for (int i = 0; i < words.Length; i++) words[i] = ~words[i];
        for (int i = words.Length * 8; i < bytes.Length; i++) bytes[i] = (byte)~bytes[i];
    }

    // ---------------------------------------------------------------- BITCOUNT / BITPOS

    /// <summary>
    /// BITCOUNT key [start end [BYTE|BIT]] — the number of set bits, in the whole string or between
    /// two byte (or bit) indexes, negative ones counting from the end.
    /// </summary>
    /// <remarks>As Redis 7.2, the key is looked up first: a missing key answers 0 whatever the arguments.</remarks>
    public static void BitCount(ref CommandContext ctx)
    {
        if (!Lookup.TryReadString(ref ctx, ctx.Arg(1), out var value, out bool found)) return;
        if (!found)
        {
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        long first, last;
        if (ctx.ArgCount == 2)
        {
            first = 0;
            last = value.Length * 8L - 1;
        }
        else if (ctx.ArgCount is 4 or 5)
        {
            if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long start) || !RedisNumbers.TryParseInt64(ctx.Arg(3), out long end))
            {
                ctx.Error(RespErrors.NotInteger);
                return;
            }
            // Both from the end and in the wrong order: an empty range, before the unit is even read.
            if (start < 0 && end < 0 && start > end)
            {
                ctx.Reply.Raw(Resp.Zero);
                return;
            }
            bool bits = false;
            if (ctx.ArgCount == 5 && !TryUnit(ref ctx, ctx.Arg(4), out bits)) return;
            if (!ClampRange(ref start, ref end, bits ? value.Length * 8L : value.Length))
            {
                ctx.Reply.Raw(Resp.Zero);
                return;
            }
            (first, last) = bits ? (start, end) : (start * 8, end * 8 + 7);
        }
        else
        {
            ctx.Error(RespErrors.Syntax);
            return;
        }
        ctx.Reply.Integer(first > last ? 0 : CountBits(value, first, last));
    }

    /// <summary>
    /// BITPOS key bit [start [end [BYTE|BIT]]] — the index of the first bit set to 1 (or 0) in the
    /// range, or -1. Looking for a 0 without an explicit end, a string of ones answers the index just
    /// past its end (the string reads as followed by zero bits); with an explicit end, -1.
    /// </summary>
    public static void BitPos(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long bit))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (bit is not (0 or 1))
        {
            ctx.Error(RespErrors.BitArgumentNotBit);
            return;
        }
        if (!Lookup.TryReadString(ref ctx, ctx.Arg(1), out var value, out bool found)) return;
        if (!found)
        {
            ctx.Reply.Integer(bit == 1 ? -1 : 0);
            return;
        }
        long first, last;
        bool endGiven = false;
        if (ctx.ArgCount == 3)
        {
            first = 0;
            last = value.Length * 8L - 1;
        }
        else if (ctx.ArgCount is >= 4 and <= 6)
        {
            if (!RedisNumbers.TryParseInt64(ctx.Arg(3), out long start))
            {
                ctx.Error(RespErrors.NotInteger);
                return;
            }
            bool bits = false;
            if (ctx.ArgCount == 6 && !TryUnit(ref ctx, ctx.Arg(5), out bits)) return;
            long total = bits ? value.Length * 8L : value.Length;
            long end = total - 1;
            if (ctx.ArgCount >= 5)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(4), out end))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                endGiven = true;
            }
            if (!ClampRange(ref start, ref end, total))
            {
                ctx.Reply.Integer(-1);
                return;
            }
            (first, last) = bits ? (start, end) : (start * 8, end * 8 + 7);
        }
        else
        {
            ctx.Error(RespErrors.Syntax);
            return;
        }
        if (first > last)
        {
            ctx.Reply.Integer(-1);
            return;
        }
        long position = FindBit(value, first, last, bit == 1);
        if (position < 0 && bit == 0 && !endGiven) position = last + 1;
        ctx.Reply.Integer(position);
    }

    /// <summary>BYTE or BIT (any case), else Redis's syntax error.</summary>
    private static bool TryUnit(ref CommandContext ctx, ReadOnlySpan<byte> arg, out bool bits)
    {
        bits = System.Text.Ascii.EqualsIgnoreCase(arg, "BIT"u8);
        if (bits || System.Text.Ascii.EqualsIgnoreCase(arg, "BYTE"u8)) return true;
        ctx.Error(RespErrors.Syntax);
        return false;
    }

    /// <summary>
    /// Redis's range rules over <paramref name="total"/> units: negative indexes count from the end,
    /// both are clamped into the string. False when the range is empty.
    /// </summary>
    private static bool ClampRange(ref long start, ref long end, long total)
    {
        if (start < 0) start += total;
        if (end < 0) end += total;
        if (start < 0) start = 0;
        if (end < 0) end = 0;
        if (end >= total) end = total - 1;
        return start <= end;
    }

    /// <summary>The set bits between bit indexes <paramref name="first"/> and <paramref name="last"/>, both included.</summary>
    internal static long CountBits(ReadOnlySpan<byte> bytes, long first, long last)
    {
        int firstByte = (int)(first >> 3), lastByte = (int)(last >> 3);
        int headMask = 0xFF >> (int)(first & 7);
        int tailMask = (0xFF << (7 - (int)(last & 7))) & 0xFF;
        if (firstByte == lastByte) return BitOperations.PopCount((uint)(bytes[firstByte] & headMask & tailMask));
        return BitOperations.PopCount((uint)(bytes[firstByte] & headMask))
            + PopCount(bytes[(firstByte + 1)..lastByte])
            + BitOperations.PopCount((uint)(bytes[lastByte] & tailMask));
    }

    /// <summary>Set bits in <paramref name="bytes"/>, eight bytes at a time (the JIT turns PopCount into POPCNT).</summary>
    internal static long PopCount(ReadOnlySpan<byte> bytes)
    {
        long count = 0;
        var words = MemoryMarshal.Cast<byte, ulong>(bytes);
        foreach (ulong word in words) count += BitOperations.PopCount(word);
        foreach (byte b in bytes[(words.Length * 8)..]) count += BitOperations.PopCount(b);
        return count;
    }

    /// <summary>The index of the first bit equal to <paramref name="one"/> between <paramref name="first"/> and <paramref name="last"/>, or -1.</summary>
    internal static long FindBit(ReadOnlySpan<byte> bytes, long first, long last, bool one)
    {
        long position = first;
        // The partial first byte, bit by bit up to the next byte boundary.
        while (position <= last && (position & 7) != 0)
        {
            if (Bit(bytes, position) == one) return position;
            position++;
        }
        // Whole bytes: skip those holding no wanted bit (0x00 for ones, 0xFF for zeros), eight at a time.
        byte skip = one ? (byte)0x00 : (byte)0xFF;
        long lastWhole = ((last + 1) >> 3) - 1; // the last byte wholly inside the range
        int index = (int)(position >> 3);
        if (index <= lastWhole)
        {
            var whole = bytes[index..(int)(lastWhole + 1)];
            int found = whole.IndexOfAnyExcept(skip);
            if (found >= 0)
            {
                byte b = whole[found];
                int within = BitOperations.LeadingZeroCount((uint)(one ? b : (byte)~b)) - 24;
                return (long)(index + found) * 8 + within;
            }
            position = (lastWhole + 1) * 8;
        }
        // The partial last byte.
        for (; position <= last; position++)
            if (Bit(bytes, position) == one) return position;
        return -1;
    }

    private static bool Bit(ReadOnlySpan<byte> bytes, long position)
        => (bytes[(int)(position >> 3)] & (0x80 >> (int)(position & 7))) != 0;
}
