using System.Buffers.Binary;

namespace RedisClone.Storage;

/// <summary>
/// The compact encoding of a small sorted set (Redis's "listpack"): every (member, score) pair in
/// one byte array, ordered by score and then by member bytes. Lookups walk the array, as Redis's
/// do; at the default limit of 128 entries of at most 64 bytes that is a few cache lines.
/// </summary>
/// <remarks>
/// <para>An entry is laid out as <c>[score][length: varint][member][size: reversed varint]</c>. Scores
/// that are small integers (the common case: counters, ranks, timestamps) take 1, 3 or 5 bytes, as
/// a listpack stores integers compactly; any other score is a tag byte and the 8-byte double. The
/// trailing size (of everything before it in the entry) lets the array be walked backwards, which
/// ZREVRANGE and ZPOPMAX need; the reversed varint is read from its last byte towards the front.
/// An entry with a score in [-120, 119] costs its member plus 3 bytes.</para>
/// <para>A position is the byte offset of an entry; -1 means none. Positions after a change point
/// elsewhere, so callers re-find what they need after writing.</para>
/// <para>A struct held inline by <see cref="RedisSortedSet"/>: a small set costs one object and
/// its array. Callers keep it in a field and call it in place (a copy would not see changes).</para>
/// <para>Negative zero is stored as the integer 0: Redis keeps listpack scores that are integers as
/// integers, so a -0 stored there reads back as 0 too.</para>
/// </remarks>
internal struct SortedSetPack
{
    /// <summary>Redis's lpSafeToAdd: a listpack never grows past 1 GB.</summary>
    public const long MaxBytes = 1L << 30;

    // Score tags: below Int16Tag, the byte itself is the score plus SmallBias.
    private const int SmallBias = 0x78;
    private const byte Int16Tag = 0xF0, Int32Tag = 0xF1, DoubleTag = 0xF2;
    private const int MaxScoreSize = 9;

    private byte[] _bytes;
    private int _used;
    private int _count;

    public SortedSetPack() => _bytes = [];

    public readonly int Count => _count;

    /// <summary>Bytes in use.</summary>
    public readonly int UsedBytes => _used;

    /// <summary>Bytes held (for memory accounting).</summary>
    public readonly int AllocatedBytes => _bytes.Length;

    public readonly SortedSetPack Clone() => new() { _bytes = _bytes.AsSpan(0, _used).ToArray(), _used = _used, _count = _count };

    /// <summary>Makes room for <paramref name="extra"/> more bytes at once (a ZADD of many new members).</summary>
    public void Reserve(long extra)
    {
        long needed = Math.Min(_used + extra, MaxBytes);
        if (needed > _bytes.Length) Resize((int)needed);
    }

    /// <summary>Drops unused capacity beyond a little slack (after <see cref="Reserve"/> overestimated).</summary>
    public void TrimExcess()
    {
        if (_bytes.Length - _used > Math.Max(16, _used / 8)) Resize(_used);
    }

    private void Resize(int capacity)
    {
        var bytes = new byte[capacity];
        _bytes.AsSpan(0, _used).CopyTo(bytes);
        _bytes = bytes;
    }

    /// <summary>Capacity for <paramref name="needed"/> bytes when growing one entry at a time: an eighth of slack.</summary>
    private static int Grown(int needed) => (int)Math.Min(MaxBytes + 64, needed + (needed >> 3) + 8);

    /// <summary>The size an entry for a member of <paramref name="length"/> bytes takes.</summary>
    public static long EntrySize(long length)
    {
        long head = MaxScoreSize + Leb128.Size(length) + length;
        return head + Leb128.Size(head);
    }

    // ---------------------------------------------------------------- positions

    public readonly int First => _count == 0 ? -1 : 0;

    public readonly int Last => _count == 0 ? -1 : Previous(_used);

    /// <summary>The entry after <paramref name="position"/>, or -1.</summary>
    public readonly int Next(int position)
    {
        int at = position + ScoreSize(_bytes[position]);
        int length = Leb128.Read(_bytes, ref at);
        at += length;
        at += BackSize(at - position);
        return at >= _used ? -1 : at;
    }

    /// <summary>The entry before <paramref name="position"/> (which may be the end offset), or -1.</summary>
    public readonly int Previous(int position)
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

    public readonly double ScoreAt(int position)
    {
        byte tag = _bytes[position];
        return tag switch
        {
            < Int16Tag => tag - SmallBias,
            Int16Tag => BinaryPrimitives.ReadInt16LittleEndian(_bytes.AsSpan(position + 1, 2)),
            Int32Tag => BinaryPrimitives.ReadInt32LittleEndian(_bytes.AsSpan(position + 1, 4)),
            _ => BinaryPrimitives.ReadDoubleLittleEndian(_bytes.AsSpan(position + 1, 8)),
        };
    }

    public readonly ReadOnlySpan<byte> MemberAt(int position)
    {
        int at = position + ScoreSize(_bytes[position]);
        int length = Leb128.Read(_bytes, ref at);
        return new ReadOnlySpan<byte>(_bytes, at, length);
    }

    /// <summary>The position of the entry of rank <paramref name="rank"/> (0-based, ascending), walking from the nearer end.</summary>
    public readonly int Seek(long rank)
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
    public readonly int Find(ReadOnlySpan<byte> member, out long rank)
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

        int head = EncodedScoreSize(score) + Leb128.Size(member.Length) + member.Length;
        int size = head + BackSize(head);
        if (_used + size > _bytes.Length)
        {
            var grown = new byte[Grown(_used + size)];
            _bytes.AsSpan(0, at).CopyTo(grown);
            _bytes.AsSpan(at, _used - at).CopyTo(grown.AsSpan(at + size));
            _bytes = grown;
        }
        else
        {
            _bytes.AsSpan(at, _used - at).CopyTo(_bytes.AsSpan(at + size));
        }

        WriteEntry(_bytes.AsSpan(at, size), member, score, head);
        _used += size;
        _count++;
    }

    /// <summary>Appends a member known to be absent and to sort after every entry (building from an ordered source).</summary>
    public void Append(ReadOnlySpan<byte> member, double score)
    {
        int head = EncodedScoreSize(score) + Leb128.Size(member.Length) + member.Length;
        int size = head + BackSize(head);
        if (_used + size > _bytes.Length) Resize(Grown(_used + size));
        WriteEntry(_bytes.AsSpan(_used, size), member, score, head);
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

    private static void WriteEntry(Span<byte> entry, ReadOnlySpan<byte> member, double score, int head)
    {
        int w = WriteScore(entry, score);
        Leb128.Write(entry, ref w, member.Length);
        member.CopyTo(entry.Slice(w));
        WriteBackSize(entry.Slice(w + member.Length), head);
    }

    // ---------------------------------------------------------------- scores

    private static int ScoreSize(byte tag) => tag switch
    {
        < Int16Tag => 1,
        Int16Tag => 3,
        Int32Tag => 5,
        _ => 9,
    };

    /// <summary>True for scores held as integers: whole numbers in the int range (-0 included, as 0).</summary>
    private static bool IsSmallInteger(double score) => score >= int.MinValue && score <= int.MaxValue && score == Math.Floor(score);

    private static int EncodedScoreSize(double score)
    {
        if (!IsSmallInteger(score)) return 9;
        int v = (int)score;
        return v is >= -SmallBias and < Int16Tag - SmallBias ? 1 : v is >= short.MinValue and <= short.MaxValue ? 3 : 5;
    }

    private static int WriteScore(Span<byte> dest, double score)
    {
        if (!IsSmallInteger(score))
        {
            dest[0] = DoubleTag;
            BinaryPrimitives.WriteDoubleLittleEndian(dest.Slice(1), score);
            return 9;
        }
        int v = (int)score;
        if (v is >= -SmallBias and < Int16Tag - SmallBias)
        {
            dest[0] = (byte)(v + SmallBias);
            return 1;
        }
        if (v is >= short.MinValue and <= short.MaxValue)
        {
            dest[0] = Int16Tag;
            BinaryPrimitives.WriteInt16LittleEndian(dest.Slice(1), (short)v);
            return 3;
        }
        dest[0] = Int32Tag;
        BinaryPrimitives.WriteInt32LittleEndian(dest.Slice(1), v);
        return 5;
    }

    // ---------------------------------------------------------------- varints

    /// <summary>The size of the trailing size field of an entry whose head is <paramref name="head"/> bytes.</summary>
    private static int BackSize(int head) => Leb128.Size(head);

    /// <summary>Writes <paramref name="value"/> as a varint read backwards: the last byte holds the lowest 7 bits.</summary>
    private static void WriteBackSize(Span<byte> dest, int value)
    {
        int n = Leb128.Size(value);
        uint v = (uint)value;
        for (int i = n - 1; i >= 0; i--)
        {
            dest[i] = (byte)((v & 0x7F) | (i > 0 ? 0x80u : 0));
            v >>= 7;
        }
    }
}
