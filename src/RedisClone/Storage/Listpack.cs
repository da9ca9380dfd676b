using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using RedisClone.Common;

namespace RedisClone.Storage;

/// <summary>
/// Redis's listpack layout over a plain <c>byte[]</c>: a 6-byte header (total bytes, element
/// count), the entries, and an end byte 0xFF. An entry is an encoding header, its data and a
/// "backlen" (the entry's size, so it can be walked backwards). Strings that are canonical 64-bit
/// integers are stored as integers in 1 to 9 bytes, as Redis does.
/// </summary>
/// <remarks>
/// Keeping Redis's exact byte layout is what makes the list encodings line up with Redis: its
/// conversion rules (list-max-listpack-size) compare listpack byte sizes, so the same bytes give the
/// same "listpack"/"quicklist" answers; it is also as compact as Redis (an element costs its length
/// plus 2 bytes) and a later RDB writer can copy these buffers out as they are.
/// <para>
/// The array may be longer than the listpack (capacity for growth); the header's total is the truth.
/// A position is the byte offset of an entry; -1 means "none". Values handed to the writing methods
/// must not point into the buffer being written.
/// </para>
/// </remarks>
internal static class Listpack
{
    public const int HeaderSize = 6;
    /// <summary>Header plus end byte: the size of an empty listpack.</summary>
    public const int EmptySize = HeaderSize + 1;
    private const byte End = 0xFF;
    /// <summary>The header's count saturates here; the count is then found by walking.</summary>
    private const int CountUnknown = 65535;

    // Entry kinds, as Redis's encodings.
    private const int KindUInt7 = 0, KindInt13 = 1, KindInt16 = 2, KindInt24 = 3, KindInt32 = 4, KindInt64 = 5;
    private const int KindStr6 = 6, KindStr12 = 7, KindStr32 = 8;

    /// <summary>A new empty listpack with room for <paramref name="capacity"/> bytes.</summary>
    public static byte[] New(int capacity = EmptySize)
    {
        var lp = new byte[RoundUp(Math.Max(capacity, EmptySize))];
        SetBytes(lp, EmptySize);
        lp[HeaderSize] = End;
        return lp;
    }

    /// <summary>lpBytes: the listpack's size in bytes, header and end byte included.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Bytes(byte[] lp) => (int)BinaryPrimitives.ReadUInt32LittleEndian(lp);

    /// <summary>lpLength: the number of elements.</summary>
    public static int Count(byte[] lp)
    {
        int n = BinaryPrimitives.ReadUInt16LittleEndian(lp.AsSpan(4));
        if (n != CountUnknown) return n;
        n = 0;
        for (int p = First(lp); p >= 0; p = Next(lp, p)) n++;
        return n;
    }

    public static bool IsEmpty(byte[] lp) => lp[HeaderSize] == End;

    /// <summary>Position of the first element, or -1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int First(byte[] lp) => lp[HeaderSize] == End ? -1 : HeaderSize;

    /// <summary>Position of the last element, or -1.</summary>
    public static int Last(byte[] lp)
    {
        int end = Bytes(lp) - 1;
        return end == HeaderSize ? -1 : PrevOf(lp, end);
    }

    /// <summary>Position of the element after <paramref name="p"/>, or -1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Next(byte[] lp, int p)
    {
        int q = p + EntrySizeAt(lp, p);
        return lp[q] == End ? -1 : q;
    }

    /// <summary>The byte just after the element at <paramref name="p"/>: the next element's position, or the end byte's.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Skip(byte[] lp, int p) => p + EntrySizeAt(lp, p);

    /// <summary>Position of the element before <paramref name="p"/>, or -1.</summary>
    public static int Prev(byte[] lp, int p) => p == HeaderSize ? -1 : PrevOf(lp, p);

    /// <summary>Position of element <paramref name="index"/> (negative counts from the end), or -1; walks from the nearer end.</summary>
    public static int Seek(byte[] lp, long index)
    {
        int count = Count(lp);
        if (index < 0) index += count;
        if (index < 0 || index >= count) return -1;
        if (index <= count / 2)
        {
            int p = HeaderSize;
            for (long i = 0; i < index; i++) p += EntrySizeAt(lp, p);
            return p;
        }
        int q = Last(lp);
        for (long i = count - 1; i > index; i--) q = PrevOf(lp, q);
        return q;
    }

    /// <summary>Decodes the element at <paramref name="p"/>.</summary>
    public static ListpackValue Get(byte[] lp, int p)
    {
        byte b = lp[p];
        if ((b & 0x80) == 0) return new ListpackValue(b);
        if ((b & 0xC0) == 0x80) return new ListpackValue(p + 1, b & 0x3F);
        if ((b & 0xE0) == 0xC0)
        {
            int u = ((b & 0x1F) << 8) | lp[p + 1];
            return new ListpackValue(u >= 1 << 12 ? u - (1 << 13) : u);
        }
        if ((b & 0xF0) == 0xE0) return new ListpackValue(p + 2, ((b & 0x0F) << 8) | lp[p + 1]);
        var data = lp.AsSpan(p + 1);
        switch (b)
        {
            case 0xF0:
                return new ListpackValue(p + 5, (int)BinaryPrimitives.ReadUInt32LittleEndian(data));
            case 0xF1:
                return new ListpackValue(BinaryPrimitives.ReadInt16LittleEndian(data));
            case 0xF2:
                int u24 = data[0] | (data[1] << 8) | (data[2] << 16);
                return new ListpackValue((u24 << 8) >> 8);
            case 0xF3:
                return new ListpackValue(BinaryPrimitives.ReadInt32LittleEndian(data));
            case 0xF4:
                return new ListpackValue(BinaryPrimitives.ReadInt64LittleEndian(data));
            default:
                throw new InvalidOperationException($"corrupt listpack: encoding byte 0x{b:X2} at {p}");
        }
    }

    /// <summary>lpCompare: true when the element at <paramref name="p"/> equals <paramref name="value"/> as text.</summary>
    public static bool Matches(byte[] lp, int p, ReadOnlySpan<byte> value)
    {
        var v = Get(lp, p);
        if (!v.IsInt) return value.SequenceEqual(lp.AsSpan(v.Start, v.Length));
        // An integer entry stands for its canonical text, so only a canonical integer can match.
        return value.Length <= 20 && RedisNumbers.TryParseInt64(value, out long n) && n == v.Int;
    }

    /// <summary>Writes the element's text into <paramref name="dest"/> (at least 20 bytes, or its length); returns the length.</summary>
    public static int CopyText(byte[] lp, ListpackValue v, Span<byte> dest)
    {
        if (v.IsInt) return RedisNumbers.FormatInt64(v.Int, dest);
        lp.AsSpan(v.Start, v.Length).CopyTo(dest);
        return v.Length;
    }

    /// <summary>The bytes an entry for <paramref name="value"/> takes, backlen included.</summary>
    public static int EntrySize(ReadOnlySpan<byte> value)
    {
        int enc = EncodedSize(value, out _, out _);
        return enc + BacklenSize(enc);
    }

    // ---------------------------------------------------------------- writing

    /// <summary>lpPrepend.</summary>
    public static void Prepend(ref byte[] lp, ReadOnlySpan<byte> value) => InsertAt(ref lp, HeaderSize, value);

    /// <summary>lpAppend.</summary>
    public static void Append(ref byte[] lp, ReadOnlySpan<byte> value) => InsertAt(ref lp, Bytes(lp) - 1, value);

    /// <summary>
    /// Inserts an element so that it starts at byte <paramref name="p"/>: before the element there,
    /// or at the end when <paramref name="p"/> is the end byte's position.
    /// </summary>
    public static void InsertAt(ref byte[] lp, int p, ReadOnlySpan<byte> value)
    {
        int enc = EncodedSize(value, out int kind, out long n);
        int size = enc + BacklenSize(enc);
        int total = Bytes(lp);
        EnsureCapacity(ref lp, total + size);
        lp.AsSpan(p, total - p).CopyTo(lp.AsSpan(p + size));
        WriteEntry(lp.AsSpan(p, size), value, kind, n, enc);
        SetBytes(lp, total + size);
        AddCount(lp, 1);
    }

    /// <summary>
    /// Reserves room for elements about to be added (a push of several values), so they are written
    /// without growing the buffer once per value.
    /// </summary>
    public static void Reserve(ref byte[] lp, int extraBytes) => EnsureCapacity(ref lp, Bytes(lp) + extraBytes);

    /// <summary>Deletes the element at <paramref name="p"/>; returns the position of the element that followed it, or -1.</summary>
    public static int Delete(ref byte[] lp, int p)
    {
        int size = EntrySizeAt(lp, p);
        int total = Bytes(lp);
        lp.AsSpan(p + size, total - p - size).CopyTo(lp.AsSpan(p));
        SetBytes(lp, total - size);
        AddCount(lp, -1);
        bool last = lp[p] == End;
        ShrinkIfSparse(ref lp);
        return last ? -1 : p;
    }

    /// <summary>Deletes <paramref name="count"/> elements from index <paramref name="start"/> (both in range, start &gt;= 0).</summary>
    public static void DeleteRange(ref byte[] lp, int start, int count)
    {
        if (count <= 0) return;
        int p = Seek(lp, start);
        if (p < 0) return;
        int q = p;
        int removed = 0;
        while (removed < count && lp[q] != End)
        {
            q += EntrySizeAt(lp, q);
            removed++;
        }
        int total = Bytes(lp);
        lp.AsSpan(q, total - q).CopyTo(lp.AsSpan(p));
        SetBytes(lp, total - (q - p));
        AddCount(lp, -removed);
        ShrinkIfSparse(ref lp);
    }

    /// <summary>lpReplace: the element at <paramref name="p"/> becomes <paramref name="value"/>.</summary>
    public static void Replace(ref byte[] lp, int p, ReadOnlySpan<byte> value)
    {
        int oldSize = EntrySizeAt(lp, p);
        int enc = EncodedSize(value, out int kind, out long n);
        int size = enc + BacklenSize(enc);
        int total = Bytes(lp);
        if (size > oldSize) EnsureCapacity(ref lp, total + size - oldSize);
        if (size != oldSize) lp.AsSpan(p + oldSize, total - p - oldSize).CopyTo(lp.AsSpan(p + size));
        WriteEntry(lp.AsSpan(p, size), value, kind, n, enc);
        SetBytes(lp, total + size - oldSize);
        if (size < oldSize) ShrinkIfSparse(ref lp);
    }

    /// <summary>lpMerge's result: the elements of <paramref name="a"/> followed by those of <paramref name="b"/>.</summary>
    public static byte[] Concat(byte[] a, byte[] b)
    {
        int ta = Bytes(a), tb = Bytes(b);
        var lp = new byte[RoundUp(ta + tb - EmptySize)];
        a.AsSpan(0, ta - 1).CopyTo(lp);
        b.AsSpan(HeaderSize, tb - HeaderSize).CopyTo(lp.AsSpan(ta - 1));
        SetBytes(lp, ta + tb - EmptySize);
        SetCount(lp, Count(a) + Count(b));
        return lp;
    }

    /// <summary>A copy holding elements [<paramref name="start"/>, start + <paramref name="count"/>) of <paramref name="lp"/>.</summary>
    public static byte[] Slice(byte[] lp, int start, int count)
    {
        int p = Seek(lp, start);
        int q = p;
        for (int i = 0; i < count; i++) q += EntrySizeAt(lp, q);
        var copy = new byte[RoundUp(EmptySize + q - p)];
        lp.AsSpan(p, q - p).CopyTo(copy.AsSpan(HeaderSize));
        copy[HeaderSize + q - p] = End;
        SetBytes(copy, EmptySize + q - p);
        SetCount(copy, count);
        return copy;
    }

    /// <summary>An exact-size copy (COPY, and sealing a node that will not grow again).</summary>
    public static byte[] Clone(byte[] lp)
    {
        // A listpack read from an RDB file (a stream's node) is exactly its size, not rounded up:
        // the copy gets the rounded capacity, the bytes only up to the end.
        int used = Bytes(lp);
        var copy = new byte[RoundUp(used)];
        lp.AsSpan(0, used).CopyTo(copy);
        return copy;
    }

    /// <summary>Gives back spare capacity: used when a buffer is done growing.</summary>
    public static void Trim(ref byte[] lp)
    {
        int size = RoundUp(Bytes(lp));
        if (lp.Length > size) lp = lp.AsSpan(0, size).ToArray();
    }

    // ---------------------------------------------------------------- encoding details

    /// <summary>Size of the entry at <paramref name="p"/>, backlen included.</summary>
    private static int EntrySizeAt(byte[] lp, int p)
    {
        int enc = EncodedSizeAt(lp, p);
        return enc + BacklenSize(enc);
    }

    /// <summary>Size of the entry's encoding header plus data (what its backlen records).</summary>
    private static int EncodedSizeAt(byte[] lp, int p)
    {
        byte b = lp[p];
        if ((b & 0x80) == 0) return 1;
        if ((b & 0xC0) == 0x80) return 1 + (b & 0x3F);
        if ((b & 0xE0) == 0xC0) return 2;
        if ((b & 0xF0) == 0xE0) return 2 + (((b & 0x0F) << 8) | lp[p + 1]);
        return b switch
        {
            0xF0 => 5 + (int)BinaryPrimitives.ReadUInt32LittleEndian(lp.AsSpan(p + 1)),
            0xF1 => 3,
            0xF2 => 4,
            0xF3 => 5,
            0xF4 => 9,
            _ => throw new InvalidOperationException($"corrupt listpack: encoding byte 0x{b:X2} at {p}"),
        };
    }

    /// <summary>Start of the entry that ends just before <paramref name="p"/>, found through its backlen.</summary>
    private static int PrevOf(byte[] lp, int p)
    {
        // The backlen is read backwards: 7 bits per byte, a set high bit means another byte precedes.
        int q = p - 1;
        int len = lp[q] & 127;
        int shift = 7;
        while ((lp[q] & 128) != 0)
        {
            q--;
            len |= (lp[q] & 127) << shift;
            shift += 7;
        }
        return p - len - BacklenSize(len);
    }

    private static int BacklenSize(int encodedSize) =>
        encodedSize <= 127 ? 1 : encodedSize < 16383 ? 2 : encodedSize < 2097151 ? 3 : encodedSize < 268435455 ? 4 : 5;

    /// <summary>Chooses the encoding for <paramref name="value"/>: its header-plus-data size, kind and integer value.</summary>
    private static int EncodedSize(ReadOnlySpan<byte> value, out int kind, out long n)
    {
        if (value.Length <= 20 && RedisNumbers.TryParseInt64(value, out n))
        {
            if (n >= 0 && n <= 127) { kind = KindUInt7; return 1; }
            if (n >= -4096 && n <= 4095) { kind = KindInt13; return 2; }
            if (n >= short.MinValue && n <= short.MaxValue) { kind = KindInt16; return 3; }
            if (n >= -8388608 && n <= 8388607) { kind = KindInt24; return 4; }
            if (n >= int.MinValue && n <= int.MaxValue) { kind = KindInt32; return 5; }
            kind = KindInt64;
            return 9;
        }
        n = 0;
        if (value.Length < 64) { kind = KindStr6; return 1 + value.Length; }
        if (value.Length < 4096) { kind = KindStr12; return 2 + value.Length; }
        kind = KindStr32;
        return 5 + value.Length;
    }

    private static void WriteEntry(Span<byte> dest, ReadOnlySpan<byte> value, int kind, long n, int enc)
    {
        switch (kind)
        {
            case KindUInt7:
                dest[0] = (byte)n;
                break;
            case KindInt13:
                int u13 = (int)(n < 0 ? (1 << 13) + n : n);
                dest[0] = (byte)(0xC0 | (u13 >> 8));
                dest[1] = (byte)u13;
                break;
            case KindInt16:
                dest[0] = 0xF1;
                BinaryPrimitives.WriteInt16LittleEndian(dest.Slice(1), (short)n);
                break;
            case KindInt24:
                dest[0] = 0xF2;
                dest[1] = (byte)n;
                dest[2] = (byte)(n >> 8);
                dest[3] = (byte)(n >> 16);
                break;
            case KindInt32:
                dest[0] = 0xF3;
                BinaryPrimitives.WriteInt32LittleEndian(dest.Slice(1), (int)n);
                break;
            case KindInt64:
                dest[0] = 0xF4;
                BinaryPrimitives.WriteInt64LittleEndian(dest.Slice(1), n);
                break;
            case KindStr6:
                dest[0] = (byte)(0x80 | value.Length);
                value.CopyTo(dest.Slice(1));
                break;
            case KindStr12:
                dest[0] = (byte)(0xE0 | (value.Length >> 8));
                dest[1] = (byte)value.Length;
                value.CopyTo(dest.Slice(2));
                break;
            default:
                dest[0] = 0xF0;
                BinaryPrimitives.WriteUInt32LittleEndian(dest.Slice(1), (uint)value.Length);
                value.CopyTo(dest.Slice(5));
                break;
        }
        WriteBacklen(dest.Slice(enc), enc);
    }

    private static void WriteBacklen(Span<byte> dest, int l)
    {
        int size = BacklenSize(l);
        // Most significant group first; every byte after the first carries the "more before me" bit.
        for (int i = size - 1; i >= 0; i--)
        {
            dest[i] = (byte)((l & 127) | (i == 0 ? 0 : 128));
            l >>= 7;
        }
    }

    private static void SetBytes(byte[] lp, int total) => BinaryPrimitives.WriteUInt32LittleEndian(lp, (uint)total);

    private static void SetCount(byte[] lp, int count)
        => BinaryPrimitives.WriteUInt16LittleEndian(lp.AsSpan(4), (ushort)Math.Min(count, CountUnknown));

    private static void AddCount(byte[] lp, int delta)
    {
        // Called after the entries changed: a saturated count is found again by walking them.
        int n = BinaryPrimitives.ReadUInt16LittleEndian(lp.AsSpan(4));
        SetCount(lp, n == CountUnknown ? Count(lp) : n + delta);
    }

    /// <summary>Byte arrays are allocated in 8-byte steps anyway; sizes are rounded so none is wasted.</summary>
    private static int RoundUp(int size) => (size + 7) & ~7;

    private static void EnsureCapacity(ref byte[] lp, int needed)
    {
        if (lp.Length >= needed) return;
        // Grow by a quarter (at least to the need): pushes one at a time reallocate rarely while the
        // spare room stays near what jemalloc's size classes cost Redis.
        int size = RoundUp(Math.Max(needed, lp.Length + (lp.Length >> 2)));
        var grown = new byte[size];
        lp.AsSpan(0, Bytes(lp)).CopyTo(grown);
        lp = grown;
    }

    private static void ShrinkIfSparse(ref byte[] lp)
    {
        int used = Bytes(lp);
        if (lp.Length > 64 && used < lp.Length >> 1) lp = lp.AsSpan(0, RoundUp(used + (used >> 3))).ToArray();
    }
}
