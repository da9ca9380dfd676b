namespace RedisClone.Storage;

/// <summary>
/// A sorted set value: members with scores, ordered by score and then by member bytes, in Redis's
/// two encodings: "listpack" (<see cref="SortedSetPack"/>, one packed array) while the set has at
/// most zset-max-listpack-entries members of at most zset-max-listpack-value bytes, "skiplist"
/// (<see cref="SortedSetIndex"/>, a hash table plus an order-statistic tree) after that. A set
/// converts once, the first time an addition would break a limit, and never back, as in Redis; sets
/// built whole by the *STORE commands take the encoding their final size calls for.
/// </summary>
/// <remarks>
/// <para>Everything here follows Redis 7.0's t_zset.c where its two encodings answer differently
/// (listpack scores lose the sign of zero; searches in a listpack walk it from an end, which decides
/// what member ranges over mixed scores return), so replies match for the same commands.</para>
/// <para>Elements are addressed by a <see cref="Cursor"/>, valid until the set changes.</para>
/// </remarks>
internal sealed class RedisSortedSet : MeteredValue, IRedisValue
{
    /// <summary>The encoding thresholds, read from the configuration per command.</summary>
    /// <param name="ListpackEntries">zset-max-listpack-entries.</param>
    /// <param name="ListpackValue">zset-max-listpack-value: the longest member a listpack holds.</param>
    internal readonly record struct Limits(long ListpackEntries, long ListpackValue)
    {
        /// <summary>Redis's defaults (128, 64).</summary>
        public static Limits Default => new(128, 64);

        /// <summary>True when a set of <paramref name="count"/> members, the longest <paramref name="maxLength"/> bytes, is a listpack.</summary>
        public bool Fit(long count, long maxLength) => count <= ListpackEntries && maxLength <= ListpackValue;
    }

    /// <summary>ZADD's options.</summary>
    [Flags]
    internal enum AddFlags
    {
        None = 0,
        Nx = 1,
        Xx = 2,
        Gt = 4,
        Lt = 8,
        Incr = 16,
    }

    /// <summary>What <see cref="Add"/> did.</summary>
    internal enum AddOutcome
    {
        Added,
        /// <summary>The member was there and its score changed.</summary>
        Updated,
        /// <summary>The member was there with that score already: processed, nothing changed.</summary>
        Unchanged,
        /// <summary>An option (NX, XX, GT, LT) said to leave it alone.</summary>
        Skipped,
        /// <summary>The score, or the incremented score, is NaN: nothing changed.</summary>
        NotANumber,
    }

    /// <summary>
    /// An element's place. In a listpack, <see cref="Index"/> is the entry's byte offset; in the
    /// index, the position inside <see cref="Leaf"/>. Index -1: no element (before the start or
    /// past the end).
    /// </summary>
    internal struct Cursor
    {
        internal SortedSetIndex.Leaf? Leaf;
        internal int Index;

        public static Cursor None => new() { Index = -1 };

        public readonly bool IsValid => Index >= 0;
    }

    /// <summary>Bytes a caller passes as scratch when reading members (short ones are copied there).</summary>
    public const int ScratchSize = 8;

    // The listpack lives inline (a struct), so a small set is one object plus its byte array.
    private SortedSetPack _pack;
    private SortedSetIndex? _index;

    private RedisSortedSet(SortedSetPack pack) => _pack = pack;

    private RedisSortedSet(SortedSetIndex index) => _index = index;

    /// <summary>
    /// A new empty set about to receive <paramref name="firstMember"/>: Redis 7.0's ZADD creates a
    /// listpack unless listpacks are disabled (0 entries) or that first member is already too long.
    /// </summary>
    public static RedisSortedSet Create(ReadOnlySpan<byte> firstMember, in Limits limits)
        => limits.ListpackEntries == 0 || firstMember.Length > limits.ListpackValue
            ? new RedisSortedSet(new SortedSetIndex())
            : new RedisSortedSet(new SortedSetPack());

    /// <summary>
    /// The set built from <paramref name="index"/> (complete, tree built), in the encoding a store
    /// command leaves: a listpack when it fits the limits, else the index itself.
    /// </summary>
    public static RedisSortedSet FromIndex(SortedSetIndex index, in Limits limits)
    {
        if (!limits.Fit(index.Count, index.MaxMemberLength)) return new RedisSortedSet(index);
        // MaxMemberLength is an upper bound; measure while copying.
        var pack = new SortedSetPack();
        Span<byte> scratch = stackalloc byte[ScratchSize];
        long bytes = 0;
        for (var leaf = index.Head; leaf != null; leaf = leaf.Next)
            for (int i = 0; i < leaf.Count; i++) bytes += SortedSetPack.EntrySize(index.MemberOf(leaf.Slots[i], scratch).Length);
        if (bytes > SortedSetPack.MaxBytes) return new RedisSortedSet(index);
        pack.Reserve(bytes);
        for (var leaf = index.Head; leaf != null; leaf = leaf.Next)
            for (int i = 0; i < leaf.Count; i++)
            {
                int slot = leaf.Slots[i];
                pack.Append(index.MemberOf(slot, scratch), index.ScoreOf(slot));
            }
        return new RedisSortedSet(pack);
    }

    public string TypeName => "zset";

    public string Encoding => _index == null ? "listpack" : "skiplist";

    public long FreeEffort => _index == null ? 1 : _index.Count;

    public bool IsListpack => _index == null;

    public int Count => _index == null ? _pack.Count : _index.Count;

    public IRedisValue DeepCopy() => _index == null ? new RedisSortedSet(_pack.Clone()) : new RedisSortedSet(_index!.Clone());

    /// <summary>Bytes held, for memory accounting (the index's tree is estimated).</summary>
    public override long AllocatedBytes() => BaseBytes + 24 + (_index == null ? MemoryMeter.ArrayBytes(_pack.AllocatedBytes) : _index!.AllocatedBytes());

    // ---------------------------------------------------------------- members

    public bool TryGetScore(ReadOnlySpan<byte> member, out double score)
    {
        if (_index == null)
        {
            int p = _pack.Find(member, out _);
            score = p >= 0 ? _pack.ScoreAt(p) : 0;
            return p >= 0;
        }
        int slot = _index!.Find(member);
        score = slot >= 0 ? _index.ScoreOf(slot) : 0;
        return slot >= 0;
    }

    public bool Contains(ReadOnlySpan<byte> member) => _index == null ? _pack.Find(member, out _) >= 0 : _index!.Find(member) >= 0;

    /// <summary>
    /// Adds or updates <paramref name="member"/> with ZADD's rules (Redis's zsetAdd): NX only adds,
    /// XX only updates, GT/LT only update to a greater/smaller score, INCR adds to the current score.
    /// <paramref name="newScore"/> is the score the member ends with (for INCR's reply) unless skipped.
    /// A listpack that would break its limits converts first.
    /// </summary>
    public AddOutcome Add(ReadOnlySpan<byte> member, double score, AddFlags flags, in Limits limits, out double newScore)
    {
        newScore = score;
        if (double.IsNaN(score)) return AddOutcome.NotANumber;
        bool nx = (flags & AddFlags.Nx) != 0, xx = (flags & AddFlags.Xx) != 0;
        bool gt = (flags & AddFlags.Gt) != 0, lt = (flags & AddFlags.Lt) != 0;

        if (_index == null)
        {
            int p = _pack.Find(member, out _);
            if (p >= 0)
            {
                if (nx) return AddOutcome.Skipped;
                double current = _pack.ScoreAt(p);
                if ((flags & AddFlags.Incr) != 0)
                {
                    score += current;
                    if (double.IsNaN(score)) return AddOutcome.NotANumber;
                }
                if ((lt && score >= current) || (gt && score <= current)) return AddOutcome.Skipped;
                newScore = score;
                if (score == current) return AddOutcome.Unchanged;
                _pack.RemoveRange(p, 1);
                _pack.Insert(member, score);
                return AddOutcome.Updated;
            }
            if (xx) return AddOutcome.Skipped;
            if (_pack.Count + 1 <= limits.ListpackEntries && member.Length <= limits.ListpackValue
                && _pack.UsedBytes + SortedSetPack.EntrySize(member.Length) <= SortedSetPack.MaxBytes)
            {
                _pack.Insert(member, score);
                return AddOutcome.Added;
            }
            ConvertToIndex(1);
        }

        var index = _index!;
        int slot = index.Find(member);
        if (slot >= 0)
        {
            if (nx) return AddOutcome.Skipped;
            double current = index.ScoreOf(slot);
            if ((flags & AddFlags.Incr) != 0)
            {
                score += current;
                if (double.IsNaN(score)) return AddOutcome.NotANumber;
            }
            if ((lt && score >= current) || (gt && score <= current)) return AddOutcome.Skipped;
            newScore = score;
            if (score == current) return AddOutcome.Unchanged;
            index.UpdateScore(slot, score);
            return AddOutcome.Updated;
        }
        if (xx) return AddOutcome.Skipped;
        index.Insert(member, score);
        return AddOutcome.Added;
    }

    /// <summary>
    /// Before a ZADD of several members: sizes a listpack for all of them at once when they can all
    /// fit (instead of growing entry by entry); <see cref="TrimExcess"/> afterwards returns what
    /// members already present did not use.
    /// </summary>
    public void ReserveForAdds(long members, long bytes, in Limits limits)
    {
        if (_index == null && _pack.Count + members <= limits.ListpackEntries) _pack.Reserve(bytes);
    }

    /// <summary>Drops a listpack's unused capacity (after <see cref="ReserveForAdds"/>).</summary>
    public void TrimExcess()
    {
        if (_index == null) _pack.TrimExcess();
    }

    /// <summary>Removes <paramref name="member"/>; false when absent. The encoding stays.</summary>
    public bool Remove(ReadOnlySpan<byte> member)
    {
        if (_index == null)
        {
            int p = _pack.Find(member, out _);
            if (p < 0) return false;
            _pack.RemoveRange(p, 1);
            return true;
        }
        int slot = _index!.Find(member);
        if (slot < 0) return false;
        _index.Remove(slot);
        return true;
    }

    /// <summary>The 0-based rank of <paramref name="member"/> (from the highest when <paramref name="reverse"/>), or -1.</summary>
    public long Rank(ReadOnlySpan<byte> member, bool reverse, out double score)
    {
        long rank;
        score = 0;
        if (_index == null)
        {
            int p = _pack.Find(member, out rank);
            if (p < 0) return -1;
            score = _pack.ScoreAt(p);
        }
        else
        {
            int slot = _index!.Find(member);
            if (slot < 0) return -1;
            _index.Locate(slot, out _, out _, out rank);
            score = _index.ScoreOf(slot);
        }
        return reverse ? Count - 1 - rank : rank;
    }

    // ---------------------------------------------------------------- cursors

    /// <summary>The element of rank <paramref name="rank"/> in ascending order, or none when out of range.</summary>
    public Cursor AtRank(long rank)
    {
        if (rank < 0 || rank >= Count) return Cursor.None;
        if (_index == null) return new Cursor { Index = _pack.Seek(rank) };
        var leaf = _index!.At(rank, out int i);
        return new Cursor { Leaf = leaf, Index = i };
    }

    public Cursor First => AtRank(0);

    public Cursor Last => AtRank(Count - 1);

    /// <summary>Moves to the next element in ascending order; false (and an invalid cursor) past the end.</summary>
    public bool MoveNext(ref Cursor c)
    {
        if (_index == null)
        {
            c.Index = _pack.Next(c.Index);
            return c.Index >= 0;
        }
        if (++c.Index < c.Leaf!.Count) return true;
        c.Leaf = c.Leaf.Next;
        c.Index = c.Leaf == null ? -1 : 0;
        return c.Leaf != null;
    }

    /// <summary>Moves to the previous element; false (and an invalid cursor) before the start.</summary>
    public bool MovePrevious(ref Cursor c)
    {
        if (_index == null)
        {
            c.Index = _pack.Previous(c.Index);
            return c.Index >= 0;
        }
        if (--c.Index >= 0) return true;
        c.Leaf = c.Leaf!.Prev;
        c.Index = c.Leaf == null ? -1 : c.Leaf.Count - 1;
        return c.Leaf != null;
    }

    /// <summary>The member at <paramref name="c"/>; short members of the index are copied into <paramref name="scratch"/>.</summary>
    public ReadOnlySpan<byte> MemberAt(Cursor c, Span<byte> scratch)
        => _index == null ? _pack.MemberAt(c.Index) : _index!.MemberOf(c.Leaf!.Slots[c.Index], scratch);

    public double ScoreAt(Cursor c) => _index == null ? _pack.ScoreAt(c.Index) : _index!.ScoreOf(c.Leaf!.Slots[c.Index]);

    /// <summary>A uniformly random element (the set must not be empty).</summary>
    public Cursor Random(Random random) => AtRank(random.NextInt64(Count));

    // ---------------------------------------------------------------- ranges

    /// <summary>
    /// The first element in <paramref name="range"/> and its rank (Redis's zzlFirstInRange /
    /// zslFirstInRange): false when the range is empty, lies outside the set, or holds no element.
    /// </summary>
    public bool FirstInRange<T>(in T range, out Cursor c, out long rank) where T : ISortedSetRange, allows ref struct
    {
        c = Cursor.None;
        rank = -1;
        if (!MayIntersect(range)) return false;
        Span<byte> scratch = stackalloc byte[ScratchSize];
        if (_index == null)
        {
            long r = 0;
            for (int p = _pack.First; p >= 0; p = _pack.Next(p), r++)
            {
                double score = _pack.ScoreAt(p);
                var member = range.NeedsMember ? _pack.MemberAt(p) : default;
                if (range.BelowMin(score, member)) continue;
                if (range.AboveMax(score, member)) return false;
                c = new Cursor { Index = p };
                rank = r;
                return true;
            }
            return false;
        }
        long at = _index!.LowerBound(new BelowMinTest<T>(range), out var leaf, out int i);
        if (leaf == null) return false;
        c = new Cursor { Leaf = leaf, Index = i };
        if (range.AboveMax(ScoreAt(c), range.NeedsMember ? MemberAt(c, scratch) : default))
        {
            c = Cursor.None;
            return false;
        }
        rank = at;
        return true;
    }

    /// <summary>The last element in <paramref name="range"/> and its rank (zzlLastInRange / zslLastInRange).</summary>
    public bool LastInRange<T>(in T range, out Cursor c, out long rank) where T : ISortedSetRange, allows ref struct
    {
        c = Cursor.None;
        rank = -1;
        if (!MayIntersect(range)) return false;
        Span<byte> scratch = stackalloc byte[ScratchSize];
        if (_index == null)
        {
            long r = _pack.Count - 1;
            for (int p = _pack.Last; p >= 0; p = _pack.Previous(p), r--)
            {
                double score = _pack.ScoreAt(p);
                var member = range.NeedsMember ? _pack.MemberAt(p) : default;
                if (range.AboveMax(score, member)) continue;
                if (range.BelowMin(score, member)) return false;
                c = new Cursor { Index = p };
                rank = r;
                return true;
            }
            return false;
        }
        long after = _index!.LowerBound(new NotAboveMaxTest<T>(range), out _, out _);
        if (after == 0) return false;
        c = AtRank(after - 1);
        if (range.BelowMin(ScoreAt(c), range.NeedsMember ? MemberAt(c, scratch) : default))
        {
            c = Cursor.None;
            return false;
        }
        rank = after - 1;
        return true;
    }

    /// <summary>How many elements <paramref name="range"/> holds (ZCOUNT, ZLEXCOUNT), counted as Redis counts per encoding.</summary>
    public long CountInRange<T>(in T range) where T : ISortedSetRange, allows ref struct
    {
        if (!FirstInRange(range, out var c, out long first)) return 0;
        if (_index == null)
        {
            // zzl: walk on from the first while the elements stay below the maximum.
            long n = 0;
            do
            {
                if (range.AboveMax(ScoreAt(c), range.NeedsMember ? MemberAt(c, default) : default)) break;
                n++;
            }
            while (MoveNext(ref c));
            return n;
        }
        // zsl: the difference of the first and last ranks.
        return LastInRange(range, out _, out long last) ? last - first + 1 : Count - first;
    }

    /// <summary>
    /// Removes the elements of <paramref name="range"/> (ZREMRANGEBYSCORE, ZREMRANGEBYLEX): from the
    /// first one not below the minimum, every following element not above the maximum. Returns how many.
    /// </summary>
    public long RemoveRange<T>(in T range) where T : ISortedSetRange, allows ref struct
    {
        Cursor c;
        long start;
        Span<byte> scratch = stackalloc byte[ScratchSize];
        if (_index == null)
        {
            if (!FirstInRange(range, out c, out start)) return 0;
        }
        else
        {
            // zslDeleteRangeBy*: a plain search for the start, without the "range is outside" test.
            start = _index!.LowerBound(new BelowMinTest<T>(range), out var leaf, out int i);
            if (leaf == null) return 0;
            c = new Cursor { Leaf = leaf, Index = i };
        }
        long n = 0;
        do
        {
            if (range.AboveMax(ScoreAt(c), range.NeedsMember ? MemberAt(c, scratch) : default)) break;
            n++;
        }
        while (MoveNext(ref c));
        RemoveRankRange(start, n);
        return n;
    }

    /// <summary>Removes <paramref name="count"/> elements from rank <paramref name="start"/> on (ascending ranks).</summary>
    public void RemoveRankRange(long start, long count)
    {
        if (count <= 0) return;
        if (_index == null) _pack.RemoveRange(_pack.Seek(start), count);
        else _index!.RemoveRange(start, count);
    }

    /// <summary>Redis's zslIsInRange/zzlIsInRange: the range is not empty and overlaps [first, last].</summary>
    private bool MayIntersect<T>(in T range) where T : ISortedSetRange, allows ref struct
    {
        if (range.IsEmpty || Count == 0) return false;
        Span<byte> scratch = stackalloc byte[ScratchSize];
        var last = Last;
        if (range.BelowMin(ScoreAt(last), range.NeedsMember ? MemberAt(last, scratch) : default)) return false;
        var first = First;
        return !range.AboveMax(ScoreAt(first), range.NeedsMember ? MemberAt(first, scratch) : default);
    }

    /// <summary>"Comes before the range": the test whose boundary is the first element in range.</summary>
    private readonly ref struct BelowMinTest<T>(in T range) : IElementTest where T : ISortedSetRange, allows ref struct
    {
        private readonly T _range = range;

        public bool NeedsMember => _range.NeedsMember;

        public bool Test(double score, scoped ReadOnlySpan<byte> member) => _range.BelowMin(score, member);
    }

    /// <summary>"Not after the range": the test whose boundary is just past the last element in range.</summary>
    private readonly ref struct NotAboveMaxTest<T>(in T range) : IElementTest where T : ISortedSetRange, allows ref struct
    {
        private readonly T _range = range;

        public bool NeedsMember => _range.NeedsMember;

        public bool Test(double score, scoped ReadOnlySpan<byte> member) => !_range.AboveMax(score, member);
    }

    // ---------------------------------------------------------------- scanning the index

    /// <summary>For ZSCAN of a skiplist-encoded set: slots to visit, [0, SlotCount).</summary>
    public int SlotCount => _index?.SlotCount ?? 0;

    public bool IsUsedSlot(int slot) => _index!.IsUsed(slot);

    public ReadOnlySpan<byte> MemberAtSlot(int slot, Span<byte> scratch) => _index!.MemberOf(slot, scratch);

    public double ScoreAtSlot(int slot) => _index!.ScoreOf(slot);

    /// <summary>An upper bound of the members' lengths, for bounding the size of a reply.</summary>
    public int MaxMemberLength()
    {
        if (_index != null) return _index.MaxMemberLength;
        int max = 0;
        for (int p = _pack.First; p >= 0; p = _pack.Next(p)) max = Math.Max(max, _pack.MemberAt(p).Length);
        return max;
    }

    // ---------------------------------------------------------------- conversion

    private void ConvertToIndex(int extra)
    {
        ref var pack = ref _pack;
        var index = new SortedSetIndex(pack.Count + extra);
        var slots = new int[pack.Count];
        int n = 0;
        for (int p = pack.First; p >= 0; p = pack.Next(p)) slots[n++] = index.AddUnordered(pack.MemberAt(p), pack.ScoreAt(p));
        index.Build(slots);
        _index = index;
        _pack = default;
    }
}
