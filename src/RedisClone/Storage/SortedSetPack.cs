using System.Buffers.Binary;

namespace RedisClone.Storage;

/// <summary>
/// The compact encoding of a small sorted set (Redis's "listpack"): every (member, score) pair in
/// one byte array, ordered by score and then by member bytes. Lookups walk the array, as Redis's
/// do; at the default limit of 128 entries of at most 64 bytes that is a few cache lines.
/// </summary>
/// <remarks>
/// <para>An entry is laid out as <c>[score: 8 bytes][length: varint][member][size: reversed varint]</c>.
/// The trailing size (of everything before it in the entry) lets the array be walked backwards,
/// which ZREVRANGE and ZPOPMAX need; the reversed varint is read from its last byte towards the
/// front. An entry costs its member plus 10 bytes for members shorter than 118 bytes.</para>
/// <para>A position is the byte offset of an entry; -1 means none. Positions after a change point
/// elsewhere, so callers re-find what they need after writing.</para>
/// <para>Scores are stored as doubles with negative zero turned into zero: Redis keeps listpack
/// scores that are integers as integers, so a -0 stored there reads back as 0.</para>
/// </remarks>
internal sealed class SortedSetPack
{
    /// <summary>Redis's lpSafeToAdd: a listpack never grows past 1 GB.</summary>
    public const long MaxBytes = 1L << 30;

    private byte[] _bytes;
    private int _used;
    private int _count;

    public SortedSetPack(int capacity = 0) => _bytes = capacity == 0 ? [] : new byte[capacity];

    private SortedSetPack(SortedSetPack other)
    {
        _bytes = other._bytes.AsSpan(0, other._used).ToArray();
        _used = other._used;
        _count = other._count;
    }

    public int Count => _count;

    /// <summary>Bytes in use.</summary>
    public int UsedBytes => _used;

    /// <summary>Bytes held (for memory accounting).</summary>
    public int AllocatedBytes => _bytes.Length;

    public SortedSetPack Clone() => new(this);

    /// <summary>The size an entry for a member of <paramref name="length"/> bytes takes.</summary>
    public static long EntrySize(long length)
    {
        long head = 8 + VarintSize(length) + length;
        return head + VarintSize(head);
    }

    // ---------------------------------------------------------------- positions

    public int First => _count == 0 ? -1 : 0;

    public int Last => _count == 0 ? -1 : Previous(_used);

    /// <summary>The entry after <paramref name="position"/>, or -1.</summary>
    public int Next(int position)
    {
        int at = position + 8;
        int length = ReadVarint(_bytes, ref at);
        at += length;
        at += BackSize(at - position);
        return at >= _used ? -1 : at;
    }

    /// <summary>The entry before <paramref name="position"/> (which may be the end offset), or -1.</summary>
    public int Previous(int position)
    {
        if (position <= 0) return -1;
        int at = position - 1;
        int size = 0, shift = 0;
        while (true)
        {
            byte b = _bytes[at];
            size |= (b & 0x7F) << shift;
            if (b < 0x80) break;
            shift += 7;
            at--;
        }
        return at - size;
    }

    public double ScoreAt(int position) => BinaryPrimitives.ReadDoubleLittleEndian(_bytes.AsSpan(position, 8));

    public ReadOnlySpan<byte> MemberAt(int position)
    {
        int at = position + 8;
        int length = ReadVarint(_bytes, ref at);
        return new ReadOnlySpan<byte>(_bytes, at, length);
    }

    /// <summary>The position of the entry of rank <paramref name="rank"/> (0-based, ascending), walking from the nearer end.</summary>
    public int Seek(long rank)
    {
        if (rank < 0 || rank >= _count) return -1;
        if (rank <= _count / 2)
        {
            int p = 0;
            for (long i = 0; i < rank; i++) p = Next(p);
            return p;
        }
        int q = Last;
        for (long i = _count - 1; i > rank; i--) q = Previous(q);
        return q;
    }

    /// <summary>The position of <paramref name="member"/> and its rank, or -1.</summary>
    public int Find(ReadOnlySpan<byte> member, out long rank)
    {
        rank = 0;
        for (int p = First; p >= 0; p = Next(p), rank++)
            if (MemberAt(p).SequenceEqual(member)) return p;
        rank = -1;
        return -1;
    }

    // ---------------------------------------------------------------- writing

    /// <summary>Inserts a member known to be absent at its place in the order.</summary>
    public void Insert(ReadOnlySpan<byte> member, double score)
    {
        if (score == 0) score = 0; // -0 becomes 0, as a listpack integer would
        int at = _used;
        for (int p = First; p >= 0; p = Next(p))
        {
            double s = ScoreAt(p);
            if (s > score || (s == score && MemberAt(p).SequenceCompareTo(member) > 0))
            {
                at = p;
                break;
            }
        }

        int head = 8 + VarintSize(member.Length) + member.Length;
        int size = head + BackSize(head);
        if (_used + size > _bytes.Length)
        {
            int capacity = Math.Max(_used + size, Math.Max(32, _bytes.Length + _bytes.Length / 2));
            var grown = new byte[capacity];
            _bytes.AsSpan(0, at).CopyTo(grown);
            _bytes.AsSpan(at, _used - at).CopyTo(grown.AsSpan(at + size));
            _bytes = grown;
        }
        else
        {
            _bytes.AsSpan(at, _used - at).CopyTo(_bytes.AsSpan(at + size));
        }

        var entry = _bytes.AsSpan(at, size);
        BinaryPrimitives.WriteDoubleLittleEndian(entry, score);
        int w = 8;
        WriteVarint(entry, ref w, member.Length);
        member.CopyTo(entry.Slice(w));
        w += member.Length;
        WriteBackSize(entry.Slice(w), head);
        _used += size;
        _count++;
    }

    /// <summary>Appends a member known to be absent and to sort after every entry (building from an ordered source).</summary>
    public void Append(ReadOnlySpan<byte> member, double score)
    {
        if (score == 0) score = 0;
        int head = 8 + VarintSize(member.Length) + member.Length;
        int size = head + BackSize(head);
        if (_used + size > _bytes.Length)
        {
            var grown = new byte[Math.Max(_used + size, Math.Max(32, _bytes.Length + _bytes.Length / 2))];
            _bytes.AsSpan(0, _used).CopyTo(grown);
            _bytes = grown;
        }
        var entry = _bytes.AsSpan(_used, size);
        BinaryPrimitives.WriteDoubleLittleEndian(entry, score);
        int w = 8;
        WriteVarint(entry, ref w, member.Length);
        member.CopyTo(entry.Slice(w));
        WriteBackSize(entry.Slice(w + member.Length), head);
        _used += size;
        _count++;
    }

    /// <summary>Removes <paramref name="count"/> consecutive entries starting at <paramref name="position"/>.</summary>
    public void RemoveRange(int position, long count)
    {
        int end = position;
        for (long i = 0; i < count && end >= 0; i++)
        {
            end = Next(end);
            _count--;
        }
        if (end < 0) end = _used;
        _bytes.AsSpan(end, _used - end).CopyTo(_bytes.AsSpan(position));
        _used -= end - position;
        // Give memory back once most of it is unused (after a large removal).
        if (_bytes.Length > 256 && _used < _bytes.Length / 4) _bytes = _bytes.AsSpan(0, _used).ToArray();
    }

    // ---------------------------------------------------------------- varints

    private static int VarintSize(long value) => value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;

    /// <summary>The size of the trailing size field of an entry whose head is <paramref name="head"/> bytes.</summary>
    private static int BackSize(int head) => VarintSize(head);

    private static int ReadVarint(byte[] bytes, ref int at)
    {
        int result = 0, shift = 0;
        while (true)
        {
            byte b = bytes[at++];
            result |= (b & 0x7F) << shift;
            if (b < 0x80) return result;
            shift += 7;
        }
    }

    private static void WriteVarint(Span<byte> dest, ref int at, int value)
    {
        uint v = (uint)value;
        while (v >= 0x80)
        {
            dest[at++] = (byte)(v | 0x80);
            v >>= 7;
        }
        dest[at++] = (byte)v;
    }

    /// <summary>Writes <paramref name="value"/> as a varint read backwards: the last byte holds the lowest 7 bits.</summary>
    private static void WriteBackSize(Span<byte> dest, int value)
    {
        int n = VarintSize(value);
        uint v = (uint)value;
        for (int i = n - 1; i >= 0; i--)
        {
            dest[i] = (byte)((v & 0x7F) | (i > 0 ? 0x80u : 0));
            v >>= 7;
        }
    }
}
