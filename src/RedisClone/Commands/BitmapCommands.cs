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

    private const int And = 0, Or = 1, Xor = 2, Not = 3, Diff = 4, Diff1 = 5, AndOr = 6, One = 7;

    /// <summary>
    /// BITOP AND|OR|XOR|NOT|DIFF|DIFF1|ANDOR|ONE destkey key [key ...] — combines strings byte by
    /// byte (the shorter ones padded with zero bytes) into destkey, whatever it held; an empty result
    /// deletes destkey. The size of the result. Redis 8.2's four: with X the first source and Y the
    /// OR of the others, DIFF is X AND NOT Y, DIFF1 NOT X AND Y, ANDOR X AND Y (each needs two
    /// sources at least); ONE keeps the bits set in exactly one source.
    /// </summary>
    /// <remarks>
    /// Every key's shard gate is held (the key specs name them all), so the sources are read and the
    /// destination written as one step, as on Redis. Sources are checked for WRONGTYPE before anything
    /// is written.
    /// </remarks>
    public static void BitOp(ref CommandContext ctx)
    {
        var op = ctx.Arg(1);
        int kind = System.Text.Ascii.EqualsIgnoreCase(op, "AND"u8) ? And
            : System.Text.Ascii.EqualsIgnoreCase(op, "OR"u8) ? Or
            : System.Text.Ascii.EqualsIgnoreCase(op, "XOR"u8) ? Xor
            : System.Text.Ascii.EqualsIgnoreCase(op, "NOT"u8) ? Not
            : System.Text.Ascii.EqualsIgnoreCase(op, "DIFF"u8) ? Diff
            : System.Text.Ascii.EqualsIgnoreCase(op, "DIFF1"u8) ? Diff1
            : System.Text.Ascii.EqualsIgnoreCase(op, "ANDOR"u8) ? AndOr
            : System.Text.Ascii.EqualsIgnoreCase(op, "ONE"u8) ? One : -1;
        if (kind < 0)
        {
            ctx.Error(RespErrors.Syntax);
            return;
        }
        int sources = ctx.ArgCount - 3;
        if (kind == Not && sources != 1)
        {
            ctx.Error(RespErrors.BitOpNotSingleSource);
            return;
        }
        if (kind is Diff or Diff1 or AndOr && sources < 2)
        {
            ctx.Error(RespErrors.BitOpTwoSources(kind == Diff ? "DIFF" : kind == Diff1 ? "DIFF1" : "ANDOR"));
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
        if (kind is Diff or Diff1 or AndOr)
        {
            // Y, the OR of every source but the first, then combined with X.
            for (int j = 1; j < sources; j++)
            {
                Lookup.TryReadString(ref ctx, ctx.Arg(3 + j), out var value, out _);
                Combine(result, value, Or);
            }
            for (int i = 0; i < length; i++)
            {
                byte x = i < firstValue.Length ? firstValue[i] : (byte)0;
                result[i] = kind switch
                {
                    Diff => (byte)(x & ~result[i]),
                    Diff1 => (byte)(~x & result[i]),
                    _ => (byte)(x & result[i]),
                };
            }
        }
        else if (kind == One)
        {
            // result holds the bits seen so far, common those seen twice or more.
            firstValue.CopyTo(result);
            var common = new byte[length];
            for (int j = 1; j < sources; j++)
            {
                Lookup.TryReadString(ref ctx, ctx.Arg(3 + j), out var value, out _);
                for (int i = 0; i < value.Length; i++)
                {
                    common[i] |= (byte)(result[i] & value[i]);
                    result[i] |= value[i];
                }
            }
            for (int i = 0; i < length; i++) result[i] &= (byte)~common[i];
        }
        else if (kind == Not)
        {
            firstValue.CopyTo(result);
            Invert(result);
        }
        else
        {
            firstValue.CopyTo(result);
            // Bytes past a source's end count as zero: AND clears them, OR and XOR leave them.
            for (int j = 1; j < sources; j++)
            {
                Lookup.TryReadString(ref ctx, ctx.Arg(3 + j), out var value, out _);
                Combine(result, value, kind);
                if (kind == And && value.Length < length) result.AsSpan(value.Length).Clear();
            }
        }
        var db = ctx.Db(destination);
        int slot = ctx.SetKey(db, destination, result);
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
            t[i] = kind switch { And => t[i] & s[i], Or => t[i] | s[i], _ => t[i] ^ s[i] };
        for (int i = t.Length * 8; i < n; i++)
            target[i] = kind switch { And => (byte)(target[i] & source[i]), Or => (byte)(target[i] | source[i]), _ => (byte)(target[i] ^ source[i]) };
    }

    private static void Invert(Span<byte> bytes)
    {
        var words = MemoryMarshal.Cast<byte, ulong>(bytes);
        for (int i = 0; i < words.Length; i++) words[i] = ~words[i];
        for (int i = words.Length * 8; i < bytes.Length; i++) bytes[i] = (byte)~bytes[i];
    }

    // ---------------------------------------------------------------- BITFIELD

    private enum FieldOp : byte { Get, Set, IncrBy }

    private enum Overflow : byte { Wrap, Sat, Fail }

    /// <summary>One parsed BITFIELD operation.</summary>
    private struct FieldOperation
    {
        public FieldOp Op;
        public Overflow Overflow;
        public bool Signed;
        public int Bits;
        public long Offset;
        public long Value;
    }

    /// <summary>
    /// BITFIELD key [GET type offset] [SET type offset value] [INCRBY type offset increment]
    /// [OVERFLOW WRAP|SAT|FAIL] ... — reads and writes integers of 1 to 64 bits (u1..u63, i1..i64) at
    /// any bit offset (<c>#n</c>: the n-th field of that width); one reply per GET, SET (the old
    /// value) and INCRBY (the new value; nil when OVERFLOW FAIL refused it).
    /// </summary>
    public static void BitField(ref CommandContext ctx) => RunBitField(ref ctx, readOnly: false);

    /// <summary>BITFIELD_RO key [GET type offset ...] — BITFIELD limited to GET.</summary>
    public static void BitFieldRo(ref CommandContext ctx) => RunBitField(ref ctx, readOnly: true);

    /// <remarks>
    /// As Redis: every operation is parsed first (any error answers before anything runs), the string
    /// is created or grown once to the farthest bit a write reaches, and the key counts as written
    /// only when some field changed or the string grew.
    /// </remarks>
    private static void RunBitField(ref CommandContext ctx, bool readOnly)
    {
        var ops = new List<FieldOperation>();
        var overflow = Overflow.Wrap;
        bool writes = false;
        long highestBit = 0;
        for (int j = 2; j < ctx.ArgCount; j++)
        {
            int remaining = ctx.ArgCount - j - 1;
            var word = ctx.Arg(j);
            FieldOp op;
            if (System.Text.Ascii.EqualsIgnoreCase(word, "GET"u8) && remaining >= 2) op = FieldOp.Get;
            else if (System.Text.Ascii.EqualsIgnoreCase(word, "SET"u8) && remaining >= 3) op = FieldOp.Set;
            else if (System.Text.Ascii.EqualsIgnoreCase(word, "INCRBY"u8) && remaining >= 3) op = FieldOp.IncrBy;
            else if (System.Text.Ascii.EqualsIgnoreCase(word, "OVERFLOW"u8) && remaining >= 1)
            {
                var kind = ctx.Arg(++j);
                if (System.Text.Ascii.EqualsIgnoreCase(kind, "WRAP"u8)) overflow = Overflow.Wrap;
                else if (System.Text.Ascii.EqualsIgnoreCase(kind, "SAT"u8)) overflow = Overflow.Sat;
                else if (System.Text.Ascii.EqualsIgnoreCase(kind, "FAIL"u8)) overflow = Overflow.Fail;
                else
                {
                    ctx.Error(RespErrors.BitFieldOverflowType);
                    return;
                }
                continue;
            }
            else
            {
                ctx.Error(RespErrors.Syntax);
                return;
            }
            if (!TryFieldType(ctx.Arg(j + 1), out bool signed, out int bits))
            {
                ctx.Error(RespErrors.BitFieldType);
                return;
            }
            if (!TryFieldOffset(ref ctx, ctx.Arg(j + 2), bits, out long offset)) return;
            long value = 0;
            if (op != FieldOp.Get)
            {
                writes = true;
                highestBit = Math.Max(highestBit, offset + bits - 1);
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 3), out value))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
            }
            ops.Add(new FieldOperation { Op = op, Overflow = overflow, Signed = signed, Bits = bits, Offset = offset, Value = value });
            j += op == FieldOp.Get ? 2 : 3;
        }

        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!writes)
        {
            if (!Lookup.TryReadString(ref ctx, key, out var value, out _)) return;
            ctx.Reply.ArrayHeader(ops.Count);
            foreach (var op in ops) ReplyField(ref ctx, op, ReadField(value, op.Offset, op.Bits), op.Signed);
            return;
        }
        if (readOnly)
        {
            ctx.Error(RespErrors.BitFieldRoGetOnly);
            return;
        }
        if (!Lookup.TryWriteString(ref ctx, db, key, out int slot, out var old)) return;
        int needed = (int)(highestBit >> 3) + 1;
        Span<byte> bytes;
        bool grown = true;
        if (slot < 0)
        {
            var created = new byte[needed];
            slot = db.Add(key.ToArray(), created);
            bytes = created;
        }
        else if (needed > old.Length)
        {
            bytes = db.GrowString(slot, needed).Writable;
        }
        else
        {
            bytes = StringValue.Writable(in db.Table.At(slot));
            grown = false;
        }
        int changes = 0;
        ctx.Reply.ArrayHeader(ops.Count);
        foreach (var op in ops)
        {
            ulong current = ReadField(bytes, op.Offset, op.Bits);
            if (op.Op == FieldOp.Get)
            {
                ReplyField(ref ctx, op, current, op.Signed);
                continue;
            }
            if (!TryNewField(op, current, out ulong next))
            {
                ctx.Reply.NullBulk(); // OVERFLOW FAIL: nothing written
                continue;
            }
            ReplyField(ref ctx, op, op.Op == FieldOp.Set ? current : next, op.Signed);
            WriteField(bytes, op.Offset, op.Bits, next);
            if (grown || next != current) changes++;
        }
        if (changes > 0)
        {
            db.Table.At(slot).HashAndFlag |= KeyTable.RawFlag;
            ctx.Notify(Ev.String, "setbit", key);
        }
        else
        {
            ctx.Unchanged = true;
        }
    }

    /// <summary>u1..u63 or i1..i64.</summary>
    private static bool TryFieldType(ReadOnlySpan<byte> arg, out bool signed, out int bits)
    {
        signed = arg.Length > 0 && arg[0] == (byte)'i';
        bits = 0;
        if (arg.Length == 0 || (arg[0] != (byte)'i' && arg[0] != (byte)'u')) return false;
        if (!RedisNumbers.TryParseInt64(arg[1..], out long n) || n < 1 || n > (signed ? 64 : 63)) return false;
        bits = (int)n;
        return true;
    }

    /// <summary>A field offset: bits, or <c>#n</c> for the n-th field of <paramref name="bits"/> bits; Redis's offset limits.</summary>
    private static bool TryFieldOffset(ref CommandContext ctx, ReadOnlySpan<byte> arg, int bits, out long offset)
    {
        bool fields = arg.Length > 0 && arg[0] == (byte)'#';
        if (RedisNumbers.TryParseInt64(fields ? arg[1..] : arg, out offset))
        {
            if (fields)
            {
                // Redis multiplies in 64 bits; an overflowing product is out of range either way.
                try { offset = checked(offset * bits); }
                catch (OverflowException) { offset = -1; }
            }
            if (offset >= 0 && (offset >> 3) < Math.Min(ctx.Server.Config.ProtoMaxBulkLen, Array.MaxLength)) return true;
        }
        ctx.Error(RespErrors.BitOffsetNotInteger);
        return false;
    }

    /// <summary>The <paramref name="bits"/>-bit field at <paramref name="offset"/>, most significant bit first; zero past the end.</summary>
    private static ulong ReadField(ReadOnlySpan<byte> bytes, long offset, int bits)
    {
        ulong value = 0;
        for (int i = 0; i < bits; i++)
        {
            long position = offset + i;
            long index = position >> 3;
            int bit = index < bytes.Length ? (bytes[(int)index] >> (7 - (int)(position & 7))) & 1 : 0;
            value = (value << 1) | (uint)bit;
        }
        return value;
    }

    private static void WriteField(Span<byte> bytes, long offset, int bits, ulong value)
    {
        for (int i = 0; i < bits; i++)
        {
            long position = offset + i;
            int mask = 0x80 >> (int)(position & 7);
            if (((value >> (bits - 1 - i)) & 1) != 0) bytes[(int)(position >> 3)] |= (byte)mask;
            else bytes[(int)(position >> 3)] &= (byte)~mask;
        }
    }

    /// <summary>A field's raw bits as the reply integer: sign-extended for a signed field.</summary>
    private static void ReplyField(ref CommandContext ctx, FieldOperation op, ulong raw, bool signed)
        => ctx.Reply.Integer(signed ? SignExtend(raw, op.Bits) : (long)raw);

    private static long SignExtend(ulong raw, int bits) => bits == 64 ? (long)raw : (long)(raw << (64 - bits)) >> (64 - bits);

    /// <summary>
    /// The field's new raw bits after SET or INCRBY under the operation's overflow rule, as Redis's
    /// overflow checks: WRAP keeps the low bits, SAT clamps to the type's range, FAIL refuses (false).
    /// An unsigned SET reads its value as a 64-bit unsigned number, so a negative one saturates high.
    /// </summary>
    private static bool TryNewField(FieldOperation op, ulong current, out ulong next)
    {
        int bits = op.Bits;
        ulong lowMask = bits == 64 ? ulong.MaxValue : (1UL << bits) - 1;
        Int128 exact, min, max;
        if (op.Signed)
        {
            max = bits == 64 ? long.MaxValue : (1L << (bits - 1)) - 1;
            min = -max - 1;
            exact = op.Op == FieldOp.Set ? op.Value : (Int128)SignExtend(current, bits) + op.Value;
        }
        else
        {
            max = lowMask;
            min = 0;
            exact = op.Op == FieldOp.Set ? (Int128)(ulong)op.Value : (Int128)current + op.Value;
        }
        if (exact >= min && exact <= max)
        {
            next = (ulong)(long)exact & lowMask;
            return true;
        }
        switch (op.Overflow)
        {
            case Overflow.Wrap:
                next = (ulong)(UInt128)exact & lowMask;
                return true;
            case Overflow.Sat:
                next = (ulong)(long)(exact > max ? max : min) & lowMask;
                return true;
            default:
                next = current;
                return false;
        }
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
            // Eight bytes at a time to the first word holding a wanted bit, then byte by byte in it.
            var words = MemoryMarshal.Cast<byte, ulong>(whole);
            int word = words.IndexOfAnyExcept(one ? 0UL : ulong.MaxValue);
            int from = word < 0 ? words.Length * 8 : word * 8;
            int found = whole[from..].IndexOfAnyExcept(skip);
            if (found >= 0) found += from;
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
