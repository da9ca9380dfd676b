namespace RedisClone.Storage;

/// <summary>
/// The large encoding of a sorted set (Redis's "skiplist"): a <see cref="MemberTable"/> from member
/// to slot with each slot's score in a parallel array, plus an order-statistic B+tree of slots
/// ordered by (score, member bytes), which answers rank and range questions in O(log n).
/// </summary>
/// <remarks>
/// <para><b>Why a B+tree and not a skiplist.</b> Redis pays for every element a skiplist node (member
/// pointer, score, back pointer and about 1.33 levels of forward pointer + span) next to a dict entry
/// and the member's sds string. Here an element costs a 16-byte table slot (members up to 7 bytes
/// live in the slot itself, longer ones in the table's arena), 8 bytes of score, and 4 bytes in a
/// tree leaf; the tree's inner nodes add a few bytes more, and the garbage collector sees a few large
/// arrays per set instead of millions of small objects.</para>
/// <para><b>The tree.</b> Leaves hold up to <see cref="LeafCapacity"/> slot numbers in order and are
/// linked both ways for iteration. Inner nodes hold their children, the number of elements under
/// each child (for ranks), and a separator per child: a copy of a (score, member) key that is at most
/// every key in that child and greater than every key in the children before it. Separators are
/// copies, so removing the element they came from leaves them valid lower bounds. Nodes that fall
/// below a quarter full borrow from or merge with a sibling, so memory stays proportional to the set.</para>
/// <para>Slots come from the table and never move while their member stays, so a ZSCAN cursor can be
/// a slot number.</para>
/// </remarks>
internal sealed class SortedSetIndex
{
    public const int LeafCapacity = 64;
    private const int InnerCapacity = 64;
    private const int MinLeaf = LeafCapacity / 4;
    private const int MinInner = InnerCapacity / 4;
    /// <summary>How full bulk-built nodes are: room to insert without splitting at once.</summary>
    private const int BulkFill = LeafCapacity * 3 / 4;

    /// <summary>A tree node; <see cref="Count"/> is its number of slots (leaf) or children (inner).</summary>
    internal abstract class Node
    {
        public int Count;
    }

    /// <summary>Slots in key order, linked to the neighbouring leaves.</summary>
    internal sealed class Leaf : Node
    {
        public readonly int[] Slots = new int[LeafCapacity];
        public Leaf? Prev;
        public Leaf? Next;
    }

    /// <summary>Children with their element counts and lower-bound separators (entry 0's is unused).</summary>
    private sealed class Inner : Node
    {
        public readonly Node[] Children = new Node[InnerCapacity];
        public readonly int[] Sizes = new int[InnerCapacity];
        public readonly double[] SepScores = new double[InnerCapacity];
        public readonly byte[][] SepMembers = new byte[InnerCapacity][];
    }

    private readonly MemberTable _members;
    private double[] _scores;
    private Node _root;
    private Leaf _head;

    public SortedSetIndex(int capacity = 4)
    {
        _members = new MemberTable(capacity);
        _scores = new double[Math.Max(4, capacity)];
        _head = new Leaf();
        _root = _head;
    }

    private SortedSetIndex(SortedSetIndex other)
    {
        _members = other._members.Clone();
        _scores = (double[])other._scores.Clone();
        _head = new Leaf();
        _root = _head;
        var slots = new int[other.Count];
        int n = 0;
        for (var leaf = other._head; leaf != null; leaf = leaf.Next)
            for (int i = 0; i < leaf.Count; i++) slots[n++] = leaf.Slots[i];
        Build(slots);
    }

    public int Count => _members.Count;

    public SortedSetIndex Clone() => new(this);

    /// <summary>An upper bound of the members' lengths.</summary>
    public int MaxMemberLength => _members.MaxLength;

    // ---------------------------------------------------------------- slots

    /// <summary>Slot of <paramref name="member"/>, or -1.</summary>
    public int Find(ReadOnlySpan<byte> member) => _members.Find(member);

    public double ScoreOf(int slot) => _scores[slot];

    /// <summary>The member in a slot; short members are copied into <paramref name="scratch"/> (8 bytes).</summary>
    public ReadOnlySpan<byte> MemberOf(int slot, Span<byte> scratch) => _members.MemberAt(slot, scratch);

    /// <summary>Slots to visit in a full scan: [0, SlotCount).</summary>
    public int SlotCount => _members.SlotCount;

    public bool IsUsed(int slot) => _members.IsUsed(slot);

    /// <summary>Bytes held by the table, scores and tree (an estimate for the tree), for memory accounting.</summary>
    public long AllocatedBytes() => _members.AllocatedBytes() + _scores.Length * 8L + (Count / (BulkFill - 8) + 1) * (LeafCapacity * 4L + 64);

    // ---------------------------------------------------------------- writing

    /// <summary>Adds a member known to be absent.</summary>
    public void Insert(ReadOnlySpan<byte> member, double score)
    {
        int slot = _members.AddNew(member);
        if (slot >= _scores.Length) Array.Resize(ref _scores, Math.Max(slot + 1, _scores.Length * 2));
        _scores[slot] = score;
        TreeInsert(slot, score, member);
    }

    /// <summary>Removes the member in <paramref name="slot"/>.</summary>
    public void Remove(int slot)
    {
        Locate(slot, out _, out _, out long rank);
        TreeRemoveAt(rank);
        _members.RemoveAt(slot);
    }

    /// <summary>Changes the score of the member in <paramref name="slot"/>, moving it in the order as needed.</summary>
    public void UpdateScore(int slot, double score)
    {
        Span<byte> scratch = stackalloc byte[8];
        Span<byte> scratch2 = stackalloc byte[8];
        Locate(slot, out var leaf, out int index, out long rank);
        var member = _members.MemberAt(slot, scratch);
        // Stays between its neighbours inside one leaf (not first, so no separator names it): in place.
        if (index > 0 && index < leaf.Count - 1
            && Compare(leaf.Slots[index - 1], score, member, scratch2) < 0
            && Compare(leaf.Slots[index + 1], score, member, scratch2) > 0)
        {
            _scores[slot] = score;
            return;
        }
        TreeRemoveAt(rank);
        _scores[slot] = score;
        TreeInsert(slot, score, member);
    }

    /// <summary>Removes <paramref name="count"/> elements starting at rank <paramref name="rank"/>.</summary>
    public void RemoveRange(long rank, long count)
    {
        if (rank == 0 && count >= Count)
        {
            for (var leaf = _head; leaf != null; leaf = leaf.Next)
                for (int i = 0; i < leaf.Count; i++) _members.RemoveAt(leaf.Slots[i]);
            _head = new Leaf();
            _root = _head;
            return;
        }
        for (long i = 0; i < count; i++)
        {
            int slot = TreeRemoveAt(rank);
            _members.RemoveAt(slot);
        }
    }

    // ---------------------------------------------------------------- ranks and positions

    /// <summary>The leaf, index in it and rank of the element in <paramref name="slot"/>.</summary>
    public void Locate(int slot, out Leaf leaf, out int index, out long rank)
    {
        Span<byte> scratch = stackalloc byte[8];
        Span<byte> scratch2 = stackalloc byte[8];
        double score = _scores[slot];
        var member = _members.MemberAt(slot, scratch);
        rank = 0;
        var node = _root;
        while (node is Inner inner)
        {
            int i = ChildFor(inner, score, member);
            for (int j = 0; j < i; j++) rank += inner.Sizes[j];
            node = inner.Children[i];
        }
        leaf = (Leaf)node;
        int lo = 0, hi = leaf.Count - 1;
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            int c = Compare(leaf.Slots[mid], score, member, scratch2);
            if (c == 0)
            {
                index = mid;
                rank += mid;
                return;
            }
            if (c < 0) lo = mid + 1;
            else hi = mid - 1;
        }
        throw new InvalidOperationException("sorted set index: slot not in the tree");
    }

    /// <summary>The leaf and index of the element of rank <paramref name="rank"/> (0 ≤ rank &lt; Count).</summary>
    public Leaf At(long rank, out int index)
    {
        var node = _root;
        while (node is Inner inner)
        {
            int i = 0;
            while (rank >= inner.Sizes[i])
            {
                rank -= inner.Sizes[i];
                i++;
            }
            node = inner.Children[i];
        }
        index = (int)rank;
        return (Leaf)node;
    }

    public Leaf Head => _head;

    /// <summary>
    /// The rank of the first element for which <paramref name="before"/> says false (elements are
    /// assumed to say true, then false, in order), with its leaf and index; leaf is null past the end.
    /// </summary>
    public long LowerBound<T>(in T before, out Leaf? leaf, out int index) where T : struct, IElementTest, allows ref struct
    {
        Span<byte> scratch = stackalloc byte[8];
        long rank = 0;
        var node = _root;
        while (node is Inner inner)
        {
            // The last child whose separator still comes before: the boundary is in it or right after it.
            int lo = 1, hi = inner.Count - 1, firstNot = inner.Count;
            while (lo <= hi)
            {
                int mid = (lo + hi) >>> 1;
                if (before.Test(inner.SepScores[mid], inner.SepMembers[mid])) lo = mid + 1;
                else
                {
                    firstNot = mid;
                    hi = mid - 1;
                }
            }
            int i = firstNot - 1;
            for (int j = 0; j < i; j++) rank += inner.Sizes[j];
            node = inner.Children[i];
        }
        var l = (Leaf)node;
        int a = 0, b = l.Count - 1, first = l.Count;
        while (a <= b)
        {
            int mid = (a + b) >>> 1;
            int slot = l.Slots[mid];
            var member = before.NeedsMember ? _members.MemberAt(slot, scratch) : default;
            if (before.Test(_scores[slot], member)) a = mid + 1;
            else
            {
                first = mid;
                b = mid - 1;
            }
        }
        rank += first;
        if (first == l.Count)
        {
            leaf = l.Next;
            index = 0;
        }
        else
        {
            leaf = l;
            index = first;
        }
        return rank;
    }

    // ---------------------------------------------------------------- building

    /// <summary>
    /// Adds a member known to be absent to the table only, leaving the tree stale: for building a set
    /// from unordered input (ZUNIONSTORE's accumulator), finished by <see cref="BuildFromTable"/>.
    /// </summary>
    public int AddUnordered(ReadOnlySpan<byte> member, double score)
    {
        int slot = _members.AddNew(member);
        if (slot >= _scores.Length) Array.Resize(ref _scores, Math.Max(slot + 1, _scores.Length * 2));
        _scores[slot] = score;
        return slot;
    }

    /// <summary>Changes a score while the tree is stale (between <see cref="AddUnordered"/> and <see cref="BuildFromTable"/>).</summary>
    public void SetScoreUnordered(int slot, double score) => _scores[slot] = score;

    /// <summary>Builds the tree from every member of the table, sorting them by (score, member).</summary>
    public void BuildFromTable()
    {
        var slots = new int[Count];
        int n = 0;
        for (int s = 0; s < _members.SlotCount; s++)
            if (_members.IsUsed(s)) slots[n++] = s;
        var a = new byte[8];
        var b = new byte[8];
        Array.Sort(slots, (x, y) =>
        {
            double sx = _scores[x], sy = _scores[y];
            if (sx < sy) return -1;
            if (sx > sy) return 1;
            return _members.MemberAt(x, a).SequenceCompareTo(_members.MemberAt(y, b));
        });
        Build(slots);
    }

    /// <summary>Replaces the tree with one built from <paramref name="slots"/>, already in key order.</summary>
    public void Build(ReadOnlySpan<int> slots)
    {
        _head = new Leaf();
        _root = _head;
        if (slots.Length == 0) return;

        // Leaves three quarters full, sizes spread evenly so none starts near its minimum.
        int leaves = (slots.Length + BulkFill - 1) / BulkFill;
        var level = new List<Node>(leaves);
        var firstKeys = new List<(double Score, byte[] Member)>(leaves);
        Span<byte> scratch = stackalloc byte[8];
        Leaf? previous = null;
        int at = 0;
        for (int k = 0; k < leaves; k++)
        {
            int n = slots.Length / leaves + (k < slots.Length % leaves ? 1 : 0);
            var leaf = new Leaf { Count = n, Prev = previous };
            slots.Slice(at, n).CopyTo(leaf.Slots);
            if (previous != null) previous.Next = leaf;
            else _head = leaf;
            previous = leaf;
            level.Add(leaf);
            firstKeys.Add((_scores[slots[at]], _members.MemberAt(slots[at], scratch).ToArray()));
            at += n;
        }

        while (level.Count > 1)
        {
            int groups = (level.Count + BulkFill - 1) / BulkFill;
            var next = new List<Node>(groups);
            var nextKeys = new List<(double Score, byte[] Member)>(groups);
            at = 0;
            for (int k = 0; k < groups; k++)
            {
                int n = level.Count / groups + (k < level.Count % groups ? 1 : 0);
                var inner = new Inner { Count = n };
                for (int j = 0; j < n; j++)
                {
                    inner.Children[j] = level[at + j];
                    inner.Sizes[j] = SizeOf(level[at + j]);
                    (inner.SepScores[j], inner.SepMembers[j]) = firstKeys[at + j];
                }
                next.Add(inner);
                nextKeys.Add(firstKeys[at]);
                at += n;
            }
            level = next;
            firstKeys = nextKeys;
        }
        _root = level[0];
    }

    // ---------------------------------------------------------------- tree internals

    /// <summary>Compares the key of <paramref name="slot"/> with (score, member).</summary>
    private int Compare(int slot, double score, ReadOnlySpan<byte> member, Span<byte> scratch)
    {
        double s = _scores[slot];
        if (s < score) return -1;
        if (s > score) return 1;
        return _members.MemberAt(slot, scratch).SequenceCompareTo(member);
    }

    private static int CompareSeparator(Inner inner, int i, double score, ReadOnlySpan<byte> member)
    {
        double s = inner.SepScores[i];
        if (s < score) return -1;
        if (s > score) return 1;
        return inner.SepMembers[i].AsSpan().SequenceCompareTo(member);
    }

    /// <summary>The child whose key range holds (score, member): the last one whose separator is at most it.</summary>
    private static int ChildFor(Inner inner, double score, ReadOnlySpan<byte> member)
    {
        int lo = 1, hi = inner.Count - 1, result = 0;
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            if (CompareSeparator(inner, mid, score, member) <= 0)
            {
                result = mid;
                lo = mid + 1;
            }
            else hi = mid - 1;
        }
        return result;
    }

    private static int SizeOf(Node node)
    {
        if (node is Leaf leaf) return leaf.Count;
        var inner = (Inner)node;
        int n = 0;
        for (int i = 0; i < inner.Count; i++) n += inner.Sizes[i];
        return n;
    }

    private void TreeInsert(int slot, double score, ReadOnlySpan<byte> member)
    {
        var split = InsertInto(_root, slot, score, member, out double sepScore, out byte[]? sepMember);
        if (split == null) return;
        var root = new Inner { Count = 2 };
        root.Children[0] = _root;
        root.Sizes[0] = SizeOf(_root);
        root.Children[1] = split;
        root.Sizes[1] = SizeOf(split);
        root.SepScores[1] = sepScore;
        root.SepMembers[1] = sepMember!;
        _root = root;
    }

    /// <summary>Inserts under <paramref name="node"/>; returns the new right sibling when the node split, with its separator.</summary>
    private Node? InsertInto(Node node, int slot, double score, ReadOnlySpan<byte> member, out double sepScore, out byte[]? sepMember)
    {
        if (node is Leaf leaf)
        {
            Span<byte> scratch = stackalloc byte[8];
            int lo = 0, hi = leaf.Count - 1, pos = leaf.Count;
            while (lo <= hi)
            {
                int mid = (lo + hi) >>> 1;
                if (Compare(leaf.Slots[mid], score, member, scratch) > 0)
                {
                    pos = mid;
                    hi = mid - 1;
                }
                else lo = mid + 1;
            }
            if (leaf.Count < LeafCapacity)
            {
                InsertSlot(leaf, pos, slot);
                sepScore = 0;
                sepMember = null;
                return null;
            }
            var right = new Leaf();
            const int half = LeafCapacity / 2;
            Array.Copy(leaf.Slots, half, right.Slots, 0, LeafCapacity - half);
            right.Count = LeafCapacity - half;
            leaf.Count = half;
            right.Next = leaf.Next;
            right.Prev = leaf;
            if (leaf.Next != null) leaf.Next.Prev = right;
            leaf.Next = right;
            if (pos <= half) InsertSlot(leaf, pos, slot);
            else InsertSlot(right, pos - half, slot);
            int first = right.Slots[0];
            sepScore = _scores[first];
            sepMember = _members.MemberAt(first, scratch).ToArray();
            return right;
        }

        var inner = (Inner)node;
        int i = ChildFor(inner, score, member);
        var split = InsertInto(inner.Children[i], slot, score, member, out double childSepScore, out byte[]? childSepMember);
        inner.Sizes[i]++;
        if (split == null)
        {
            sepScore = 0;
            sepMember = null;
            return null;
        }
        int splitSize = SizeOf(split);
        inner.Sizes[i] -= splitSize;
        if (inner.Count < InnerCapacity)
        {
            InsertChild(inner, i + 1, split, splitSize, childSepScore, childSepMember!);
            sepScore = 0;
            sepMember = null;
            return null;
        }
        var r = new Inner();
        const int halfInner = InnerCapacity / 2;
        int moved = InnerCapacity - halfInner;
        Array.Copy(inner.Children, halfInner, r.Children, 0, moved);
        Array.Copy(inner.Sizes, halfInner, r.Sizes, 0, moved);
        Array.Copy(inner.SepScores, halfInner, r.SepScores, 0, moved);
        Array.Copy(inner.SepMembers, halfInner, r.SepMembers, 0, moved);
        Array.Clear(inner.Children, halfInner, moved);
        Array.Clear(inner.SepMembers, halfInner, moved);
        r.Count = moved;
        inner.Count = halfInner;
        if (i + 1 <= halfInner) InsertChild(inner, i + 1, split, splitSize, childSepScore, childSepMember!);
        else InsertChild(r, i + 1 - halfInner, split, splitSize, childSepScore, childSepMember!);
        sepScore = r.SepScores[0];
        sepMember = r.SepMembers[0];
        return r;
    }

    private static void InsertSlot(Leaf leaf, int pos, int slot)
    {
        Array.Copy(leaf.Slots, pos, leaf.Slots, pos + 1, leaf.Count - pos);
        leaf.Slots[pos] = slot;
        leaf.Count++;
    }

    private static void InsertChild(Inner inner, int pos, Node child, int size, double sepScore, byte[] sepMember)
    {
        int tail = inner.Count - pos;
        Array.Copy(inner.Children, pos, inner.Children, pos + 1, tail);
        Array.Copy(inner.Sizes, pos, inner.Sizes, pos + 1, tail);
        Array.Copy(inner.SepScores, pos, inner.SepScores, pos + 1, tail);
        Array.Copy(inner.SepMembers, pos, inner.SepMembers, pos + 1, tail);
        inner.Children[pos] = child;
        inner.Sizes[pos] = size;
        inner.SepScores[pos] = sepScore;
        inner.SepMembers[pos] = sepMember;
        inner.Count++;
    }

    private static void RemoveChild(Inner inner, int pos)
    {
        int tail = inner.Count - pos - 1;
        Array.Copy(inner.Children, pos + 1, inner.Children, pos, tail);
        Array.Copy(inner.Sizes, pos + 1, inner.Sizes, pos, tail);
        Array.Copy(inner.SepScores, pos + 1, inner.SepScores, pos, tail);
        Array.Copy(inner.SepMembers, pos + 1, inner.SepMembers, pos, tail);
        inner.Count--;
        inner.Children[inner.Count] = null!;
        inner.SepMembers[inner.Count] = null!;
    }

    /// <summary>Removes the element of rank <paramref name="rank"/> from the tree; returns its slot.</summary>
    private int TreeRemoveAt(long rank)
    {
        RemoveFrom(_root, rank, out int slot);
        while (_root is Inner { Count: 1 } only) _root = only.Children[0];
        return slot;
    }

    /// <summary>Removes under <paramref name="node"/>; true when the node is now below its minimum fill.</summary>
    private bool RemoveFrom(Node node, long rank, out int slot)
    {
        if (node is Leaf leaf)
        {
            int index = (int)rank;
            slot = leaf.Slots[index];
            Array.Copy(leaf.Slots, index + 1, leaf.Slots, index, leaf.Count - index - 1);
            leaf.Count--;
            return leaf.Count < MinLeaf;
        }
        var inner = (Inner)node;
        int i = 0;
        while (rank >= inner.Sizes[i])
        {
            rank -= inner.Sizes[i];
            i++;
        }
        bool under = RemoveFrom(inner.Children[i], rank, out slot);
        inner.Sizes[i]--;
        if (under) Rebalance(inner, i);
        return inner.Count < MinInner;
    }

    /// <summary>Child <paramref name="i"/> of <paramref name="parent"/> is underfull: merge it with a sibling, or even them out.</summary>
    private void Rebalance(Inner parent, int i)
    {
        if (parent.Count < 2) return;
        int a = i > 0 ? i - 1 : i, b = a + 1;
        var left = parent.Children[a];
        var right = parent.Children[b];
        int capacity = left is Leaf ? LeafCapacity : InnerCapacity;
        if (left.Count + right.Count <= capacity)
        {
            if (left is Leaf ll) MergeLeaves(ll, (Leaf)right);
            else MergeInners((Inner)left, (Inner)right, parent.SepScores[b], parent.SepMembers[b]);
            parent.Sizes[a] += parent.Sizes[b];
            RemoveChild(parent, b);
            return;
        }
        int target = (left.Count + right.Count) / 2;
        if (left is Leaf l) ShiftLeaves(parent, b, l, (Leaf)right, target);
        else ShiftInners(parent, b, (Inner)left, (Inner)right, target);
    }

    private void MergeLeaves(Leaf left, Leaf right)
    {
        Array.Copy(right.Slots, 0, left.Slots, left.Count, right.Count);
        left.Count += right.Count;
        left.Next = right.Next;
        if (right.Next != null) right.Next.Prev = left;
    }

    private static void MergeInners(Inner left, Inner right, double sepScore, byte[] sepMember)
    {
        int at = left.Count;
        Array.Copy(right.Children, 0, left.Children, at, right.Count);
        Array.Copy(right.Sizes, 0, left.Sizes, at, right.Count);
        Array.Copy(right.SepScores, 0, left.SepScores, at, right.Count);
        Array.Copy(right.SepMembers, 0, left.SepMembers, at, right.Count);
        // The right node's first child had no separator of its own inside it: the parent's is its bound.
        left.SepScores[at] = sepScore;
        left.SepMembers[at] = sepMember;
        left.Count += right.Count;
    }

    /// <summary>Moves slots between adjacent leaves so the left one holds <paramref name="target"/>.</summary>
    private void ShiftLeaves(Inner parent, int b, Leaf left, Leaf right, int target)
    {
        if (left.Count > target)
        {
            int k = left.Count - target;
            Array.Copy(right.Slots, 0, right.Slots, k, right.Count);
            Array.Copy(left.Slots, target, right.Slots, 0, k);
            left.Count = target;
            right.Count += k;
        }
        else
        {
            int k = target - left.Count;
            Array.Copy(right.Slots, 0, left.Slots, left.Count, k);
            Array.Copy(right.Slots, k, right.Slots, 0, right.Count - k);
            left.Count = target;
            right.Count -= k;
        }
        parent.Sizes[b - 1] = left.Count;
        parent.Sizes[b] = right.Count;
        Span<byte> scratch = stackalloc byte[8];
        int first = right.Slots[0];
        parent.SepScores[b] = _scores[first];
        parent.SepMembers[b] = _members.MemberAt(first, scratch).ToArray();
    }

    /// <summary>Moves children between adjacent inner nodes so the left one holds <paramref name="target"/>.</summary>
    private static void ShiftInners(Inner parent, int b, Inner left, Inner right, int target)
    {
        int moved = 0;
        if (left.Count > target)
        {
            int k = left.Count - target;
            Array.Copy(right.Children, 0, right.Children, k, right.Count);
            Array.Copy(right.Sizes, 0, right.Sizes, k, right.Count);
            Array.Copy(right.SepScores, 0, right.SepScores, k, right.Count);
            Array.Copy(right.SepMembers, 0, right.SepMembers, k, right.Count);
            right.SepScores[k] = parent.SepScores[b];
            right.SepMembers[k] = parent.SepMembers[b];
            Array.Copy(left.Children, target, right.Children, 0, k);
            Array.Copy(left.Sizes, target, right.Sizes, 0, k);
            Array.Copy(left.SepScores, target, right.SepScores, 0, k);
            Array.Copy(left.SepMembers, target, right.SepMembers, 0, k);
            for (int j = 0; j < k; j++) moved += right.Sizes[j];
            Array.Clear(left.Children, target, k);
            Array.Clear(left.SepMembers, target, k);
            left.Count = target;
            right.Count += k;
            parent.Sizes[b - 1] -= moved;
            parent.Sizes[b] += moved;
        }
        else
        {
            int k = target - left.Count;
            int at = left.Count;
            Array.Copy(right.Children, 0, left.Children, at, k);
            Array.Copy(right.Sizes, 0, left.Sizes, at, k);
            Array.Copy(right.SepScores, 0, left.SepScores, at, k);
            Array.Copy(right.SepMembers, 0, left.SepMembers, at, k);
            left.SepScores[at] = parent.SepScores[b];
            left.SepMembers[at] = parent.SepMembers[b];
            for (int j = 0; j < k; j++) moved += right.Sizes[j];
            int rest = right.Count - k;
            Array.Copy(right.Children, k, right.Children, 0, rest);
            Array.Copy(right.Sizes, k, right.Sizes, 0, rest);
            Array.Copy(right.SepScores, k, right.SepScores, 0, rest);
            Array.Copy(right.SepMembers, k, right.SepMembers, 0, rest);
            Array.Clear(right.Children, rest, k);
            Array.Clear(right.SepMembers, rest, k);
            left.Count = target;
            right.Count = rest;
            parent.Sizes[b - 1] += moved;
            parent.Sizes[b] -= moved;
        }
        parent.SepScores[b] = right.SepScores[0];
        parent.SepMembers[b] = right.SepMembers[0];
    }
}
