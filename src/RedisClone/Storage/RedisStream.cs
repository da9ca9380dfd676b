using RedisClone.Common;

namespace RedisClone.Storage;

/// <summary>
/// A stream: entries ordered by <see cref="StreamId"/>, each a list of field-value pairs, kept as
/// Redis keeps them — in nodes, each one a listpack laid out byte for byte as Redis's, indexed by
/// the ID of its first ("master") entry in a sorted list (Redis's radix tree).
/// </summary>
/// <remarks>
/// <para>A node's listpack starts with the master entry: live count, deleted count, the number of
/// master fields, those fields, and a 0 terminator. Each entry follows as: flags, ms and seq
/// differences from the master ID, then (unless the SAMEFIELDS flag says its fields are the
/// master's) its field count and fields, its values, and lp-count (how many elements the entry
/// took, so it can be walked backwards). XDEL only sets the DELETED flag; a node whose live
/// entries are all gone is dropped.</para>
/// <para>Because the bytes are Redis's, the rules that close a node (<c>stream-node-max-bytes</c>
/// against the listpack's size, <c>stream-node-max-entries</c> against live plus deleted entries)
/// close it after the same entry, so approximate trimming (which drops whole nodes only) leaves
/// the same entries as redis-server for the same inserts. Range reads find their first node by
/// binary search; trimming drops nodes from the front.</para>
/// </remarks>
internal sealed class RedisStream : MeteredValue, IRedisValue
{
    private const int FlagDeleted = 1, FlagSameFields = 2;

    /// <summary>STREAM_LISTPACK_MAX_SIZE: no node, and no entry, may pass 1 GB.</summary>
    public const long ListpackMaxSize = 1L << 30;

    /// <summary>STREAM_LISTPACK_MAX_PRE_ALLOCATE: the room a new node starts with.</summary>
    private const int PreAllocate = 4096;

    /// <summary>One node: its master entry's ID and its listpack.</summary>
    private sealed class Node(StreamId master, byte[] lp)
    {
        public readonly StreamId Master = master;
        public byte[] Lp = lp;
    }

    private readonly List<Node> _nodes = [];

    /// <summary>The sum of the nodes' buffer capacities, kept as they change.</summary>
    private long _bufferBytes;

    /// <summary>Live entries.</summary>
    public long Length { get; private set; }

    /// <summary>The ID of the last entry ever added (or set); new IDs must be greater.</summary>
    public StreamId LastId { get; private set; }

    /// <summary>The first live entry's ID, 0-0 when empty.</summary>
    public StreamId FirstId { get; private set; }

    /// <summary>The greatest ID ever deleted by XDEL (7.0's max-deleted-entry-id).</summary>
    public StreamId MaxDeletedId { get; private set; }

    /// <summary>Entries ever added (7.0's entries-added).</summary>
    public long EntriesAdded { get; private set; }

    public RedisStream() { }

    private RedisStream(RedisStream other)
    {
        foreach (var n in other._nodes) _nodes.Add(new Node(n.Master, Listpack.Clone(n.Lp)));
        foreach (var n in _nodes) _bufferBytes += n.Lp.Length;
        Length = other.Length;
        LastId = other.LastId;
        FirstId = other.FirstId;
        MaxDeletedId = other.MaxDeletedId;
        EntriesAdded = other.EntriesAdded;
        if (other._groups != null)
        {
            _groups = new NameOrderedList<StreamGroup>();
            for (int i = 0; i < other._groups.Count; i++)
            {
                var group = other._groups.ItemAt(i).Clone();
                _groups.TryAdd(group.Name, group);
            }
        }
    }

    public string TypeName => "stream";

    public string Encoding => "stream";

    /// <summary>
    /// Redis counts its rax's nodes (at least one per listpack node), and each group with its PEL
    /// sized as the first group's: here the listpack nodes and the same estimate for groups.
    /// </summary>
    public long FreeEffort => _nodes.Count + (_groups is { Count: > 0 } groups ? groups.Count * (1L + groups.ItemAt(0).Pel.Count) : 0);

    public IRedisValue DeepCopy() => new RedisStream(this);

    /// <summary>Object, list, and per node its object and buffer; then the consumer groups, if any.</summary>
    public override long AllocatedBytes()
        => BaseBytes + 8 + 8 + 4 * 16 + 8 + 8 + MemoryMeter.ObjectHeader + 16 + MemoryMeter.ArrayBytes(_nodes.Capacity, 8)
           + _nodes.Count * (long)(MemoryMeter.ObjectHeader + 24 + MemoryMeter.ArrayHeader) + _bufferBytes + GroupBytes();

    /// <summary>
    /// The first entry's ID counting deleted ones (streamGetEdgeID without skipping tombstones): the
    /// first node's master ID, as a node's first entry is its master; the greatest ID when empty.
    /// </summary>
    public StreamId FirstStoredId => _nodes.Count > 0 ? _nodes[0].Master : StreamId.Max;

    /// <summary>Number of nodes (XINFO STREAM's radix-tree-keys: one key per node in Redis's radix tree).</summary>
    public int NodeCount => _nodes.Count;

    /// <summary>
    /// XINFO STREAM's radix-tree-nodes: how many nodes Redis's radix tree (rax) has when it holds
    /// the nodes' master IDs, each as a 16-byte big-endian key. Computed on demand in O(nodes), so
    /// XADD pays nothing for it.
    /// </summary>
    /// <remarks>
    /// <para>Why the key set alone decides it: all keys have the same length, so every key ends at a
    /// leaf, and rax keeps its tree in one shape for a given set of such keys. Insertion splits a
    /// compressed node where a new key leaves it; deletion frees the leaf and the single-child
    /// chain above it, and when that leaves a branching node with one child it merges the chain
    /// above and below into one compressed node again. (Keys that end inside other keys would make
    /// the shape depend on history; streams never have those.) The differential tests check this
    /// after mixed XADD, XDEL and XTRIM runs.</para>
    /// <para>The shape, as a compacted trie of the keys: a node for the root; one per branching
    /// point below the root; one per leaf; and on each edge leaving a branching point, one more for
    /// the edge's characters after the first when there are any (the first character sits in the
    /// branching node; the rest in a compressed node, or a one-character node, before the child). A
    /// root with a single child is itself the compressed node holding that edge. An empty tree is
    /// the root alone.</para>
    /// <para>The branching points come from the common prefixes of neighbouring keys in sorted
    /// order, built up as the classic stack walk over the rightmost path: each edge is counted as
    /// its lower end leaves the stack.</para>
    /// </remarks>
    public long RadixTreeNodes()
    {
        const int KeyLength = 16;
        int n = _nodes.Count;
        if (n == 0) return 1;
        // Depths of the vertices on the rightmost path, strictly increasing from the root's 0.
        Span<int> path = stackalloc int[KeyLength + 2];
        int top = 0;
        path[0] = 0;
        path[++top] = KeyLength;
        long branchPoints = 0, longEdges = 0, rootEdges = 0, rootLongEdges = 0;
        for (int i = 1; i < n; i++)
        {
            int common = CommonPrefix(_nodes[i - 1].Master, _nodes[i].Master);
            while (path[top] > common)
            {
                int child = path[top--];
                if (path[top] < common)
                {
                    path[++top] = common; // a new branching point between the two
                    branchPoints++;
                }
                CountEdge(path[top], child);
            }
            path[++top] = KeyLength;
        }
        while (top > 0)
        {
            int child = path[top--];
            CountEdge(path[top], child);
        }
        return 1 + branchPoints + n + longEdges + (rootEdges >= 2 ? rootLongEdges : 0);

        void CountEdge(int parentDepth, int childDepth)
        {
            bool isLong = childDepth - parentDepth >= 2;
            if (parentDepth == 0)
            {
                rootEdges++;
                if (isLong) rootLongEdges++;
            }
            else if (isLong) longEdges++;
        }
    }

    /// <summary>How many leading bytes two IDs share as 16-byte big-endian keys.</summary>
    private static int CommonPrefix(StreamId a, StreamId b)
        => a.Ms != b.Ms
            ? System.Numerics.BitOperations.LeadingZeroCount(a.Ms ^ b.Ms) / 8
            : 8 + System.Numerics.BitOperations.LeadingZeroCount(a.Seq ^ b.Seq) / 8;

    // ---------------------------------------------------------------- adding

    /// <summary>What <see cref="Append{T}"/> did.</summary>
    public enum AppendResult { Added, IdTooSmall, TooLarge }

    /// <summary>
    /// Adds an entry with ID <paramref name="id"/> (which must be greater than <see cref="LastId"/>),
    /// in the tail node or in a new one when the tail is full by Redis's rules.
    /// </summary>
    public AppendResult Append<T>(scoped in T fields, StreamId id, long nodeMaxBytes, long nodeMaxEntries)
        where T : IStreamFields, allows ref struct
    {
        if (id <= LastId) return AppendResult.IdTooSmall;
        int pairs = fields.PairCount;
        long total = 0;
        for (int i = 0; i < pairs; i++) total += fields.Field(i).Length + fields.Value(i).Length;
        if (total > ListpackMaxSize) return AppendResult.TooLarge;

        Node? tail = _nodes.Count > 0 ? _nodes[^1] : null;
        if (tail != null)
        {
            long maxBytes = nodeMaxBytes == 0 || nodeMaxBytes > ListpackMaxSize ? ListpackMaxSize : nodeMaxBytes;
            bool full = Listpack.Bytes(tail.Lp) + total >= maxBytes;
            if (!full && nodeMaxEntries != 0)
            {
                int p = Listpack.First(tail.Lp);
                long count = Listpack.Get(tail.Lp, p).Int;
                count += Listpack.Get(tail.Lp, Listpack.Skip(tail.Lp, p)).Int;
                full = count >= nodeMaxEntries;
            }
            if (full)
            {
                // A node that will not grow again gives its spare room back, as Redis shrinks it.
                long before = tail.Lp.Length;
                Listpack.Trim(ref tail.Lp);
                _bufferBytes += tail.Lp.Length - before;
                tail = null;
            }
        }

        int flags = 0;
        byte[] lp;
        StreamId master;
        if (tail == null)
        {
            master = id;
            int prealloc = nodeMaxBytes > 0 && nodeMaxBytes < PreAllocate ? (int)nodeMaxBytes : PreAllocate;
            lp = Listpack.New(prealloc);
            AppendInt(ref lp, 1);
            AppendInt(ref lp, 0);
            AppendInt(ref lp, pairs);
            for (int i = 0; i < pairs; i++) Listpack.Append(ref lp, fields.Field(i));
            AppendInt(ref lp, 0);
            tail = new Node(master, lp);
            _nodes.Add(tail);
            _bufferBytes += lp.Length;
            flags = FlagSameFields;
        }
        else
        {
            master = tail.Master;
            lp = tail.Lp;
            int p = Listpack.First(lp);
            ReplaceInt(ref lp, p, Listpack.Get(lp, p).Int + 1);
            p = Listpack.Skip(lp, Listpack.Skip(lp, p));
            long masterFields = Listpack.Get(lp, p).Int;
            if (masterFields == pairs)
            {
                int i = 0;
                for (p = Listpack.Skip(lp, p); i < pairs; i++, p = Listpack.Skip(lp, p))
                    if (!Listpack.Matches(lp, p, fields.Field(i))) break;
                if (i == pairs) flags = FlagSameFields;
            }
        }

        long sizeBefore = lp.Length;
        AppendInt(ref lp, flags);
        AppendInt(ref lp, unchecked((long)(id.Ms - master.Ms)));
        AppendInt(ref lp, unchecked((long)(id.Seq - master.Seq)));
        bool same = flags == FlagSameFields;
        if (!same) AppendInt(ref lp, pairs);
        for (int i = 0; i < pairs; i++)
        {
            if (!same) Listpack.Append(ref lp, fields.Field(i));
            Listpack.Append(ref lp, fields.Value(i));
        }
        AppendInt(ref lp, same ? pairs + 3 : pairs * 2 + 4);
        tail.Lp = lp;
        _bufferBytes += lp.Length - sizeBefore;

        Length++;
        EntriesAdded++;
        LastId = id;
        if (Length == 1) FirstId = id;
        return AppendResult.Added;
    }

    // ---------------------------------------------------------------- reading

    /// <summary>
    /// A position in a range walk (<see cref="Seek"/>, <see cref="MoveNext"/>). After a successful
    /// MoveNext it describes the current entry: read its pairs with <see cref="NextPair"/>.
    /// </summary>
    internal struct Cursor
    {
        internal int NodeIndex;
        internal int Pos;           // flags of the next entry to look at; -1: the node is done
        internal int FirstEntryPos; // of the current node
        internal int MasterFieldsPos;
        internal long MasterFieldCount;
        internal StreamId Start, End;
        internal bool Reverse, Done;

        public StreamId Id;
        public byte[] Lp;
        public long FieldCount;
        internal bool SameFields;
        internal int FieldPos, ValuePos;
    }

    /// <summary>The last live entry's ID (Redis's streamLastValidID); 0-0 when the stream is empty.</summary>
    public StreamId LastLiveId()
    {
        var c = Seek(StreamId.Min, StreamId.Max, reverse: true);
        return MoveNext(ref c) ? c.Id : StreamId.Min;
    }

    /// <summary>
    /// XSETID: the stream's last ID, and when given (not negative, not 0-0) its entries-added count
    /// and greatest deleted ID. The caller checked them against the stream.
    /// </summary>
    public void SetIds(StreamId lastId, long entriesAdded, StreamId maxDeletedId)
    {
        LastId = lastId;
        if (entriesAdded >= 0) EntriesAdded = entriesAdded;
        if (maxDeletedId != StreamId.Min) MaxDeletedId = maxDeletedId;
    }

    /// <summary>Starts a walk over the live entries from <paramref name="start"/> to <paramref name="end"/> inclusive.</summary>
    public Cursor Seek(StreamId start, StreamId end, bool reverse)
    {
        var c = new Cursor { Start = start, End = end, Reverse = reverse, Lp = [] };
        if (start > end || _nodes.Count == 0) { c.Done = true; return c; }
        int index = FindNode(reverse ? end : start);
        if (index < 0)
        {
            if (reverse) { c.Done = true; return c; }
            index = 0;
        }
        EnterNode(ref c, index);
        return c;
    }

    private void EnterNode(ref Cursor c, int index)
    {
        c.NodeIndex = index;
        var lp = _nodes[index].Lp;
        c.Lp = lp;
        int p = Listpack.Skip(lp, Listpack.Skip(lp, Listpack.First(lp)));
        c.MasterFieldCount = Listpack.Get(lp, p).Int;
        p = Listpack.Skip(lp, p);
        c.MasterFieldsPos = p;
        for (long i = 0; i < c.MasterFieldCount; i++) p = Listpack.Skip(lp, p);
        c.FirstEntryPos = Listpack.Skip(lp, p);
        if (!c.Reverse)
        {
            c.Pos = c.FirstEntryPos;
            return;
        }
        // The last element is the last entry's lp-count: step back over that many elements.
        int q = Listpack.Last(lp);
        long back = Listpack.Get(lp, q).Int;
        for (long i = 0; i < back; i++) q = Listpack.Prev(lp, q);
        c.Pos = q;
    }

    /// <summary>Moves to the next live entry of the range; false when there is none.</summary>
    public bool MoveNext(ref Cursor c)
    {
        while (!c.Done)
        {
            if (c.Pos < 0)
            {
                int next = c.NodeIndex + (c.Reverse ? -1 : 1);
                if (next < 0 || next >= _nodes.Count) { c.Done = true; return false; }
                EnterNode(ref c, next);
                continue;
            }
            var e = ReadEntry(c.Lp, c.Pos, _nodes[c.NodeIndex].Master, c.MasterFieldCount);
            int at = c.Pos;
            if (c.Reverse)
            {
                c.Pos = at == c.FirstEntryPos ? -1 : PreviousEntry(c.Lp, at);
                if (e.Id < c.Start) { c.Done = true; return false; }
                if (e.Deleted || e.Id > c.End) continue;
            }
            else
            {
                c.Pos = e.Next;
                if (e.Id > c.End) { c.Done = true; return false; }
                if (e.Deleted || e.Id < c.Start) continue;
            }
            c.Id = e.Id;
            c.FieldCount = e.FieldCount;
            c.SameFields = e.SameFields;
            c.FieldPos = e.SameFields ? c.MasterFieldsPos : e.PairsPos;
            c.ValuePos = e.PairsPos;
            return true;
        }
        return false;
    }

    /// <summary>One entry's header, read by <see cref="ReadEntry"/>.</summary>
    private readonly struct EntryHeader(long flags, StreamId id, long fieldCount, int pairsPos, int next)
    {
        public readonly long Flags = flags;
        public readonly StreamId Id = id;
        public readonly long FieldCount = fieldCount;
        /// <summary>Where the entry's fields (or, with SAMEFIELDS, its values) start.</summary>
        public readonly int PairsPos = pairsPos;
        /// <summary>The next entry's flags, or -1 after the node's last entry.</summary>
        public readonly int Next = next;
        public bool Deleted => (Flags & FlagDeleted) != 0;
        public bool SameFields => (Flags & FlagSameFields) != 0;
    }

    /// <summary>Decodes the entry whose flags are at <paramref name="p"/> in a node with <paramref name="master"/> ID.</summary>
    private static EntryHeader ReadEntry(byte[] lp, int p, StreamId master, long masterFieldCount)
    {
        long flags = Listpack.Get(lp, p).Int;
        p = Listpack.Skip(lp, p);
        ulong ms = master.Ms + unchecked((ulong)Listpack.Get(lp, p).Int);
        p = Listpack.Skip(lp, p);
        ulong seq = master.Seq + unchecked((ulong)Listpack.Get(lp, p).Int);
        p = Listpack.Skip(lp, p);
        long fieldCount = masterFieldCount, elements = masterFieldCount;
        if ((flags & FlagSameFields) == 0)
        {
            fieldCount = Listpack.Get(lp, p).Int;
            elements = fieldCount * 2;
            p = Listpack.Skip(lp, p);
        }
        int pairs = p;
        for (long i = 0; i < elements; i++) p = Listpack.Skip(lp, p);
        p = Listpack.Skip(lp, p); // lp-count
        return new EntryHeader(flags, new StreamId(ms, seq), fieldCount, pairs, p >= Listpack.Bytes(lp) - 1 ? -1 : p);
    }

    /// <summary>The current entry's next field and value (call <see cref="Cursor.FieldCount"/> times).</summary>
    public static void NextPair(ref Cursor c, out ListpackValue field, out ListpackValue value)
    {
        var lp = c.Lp;
        field = Listpack.Get(lp, c.FieldPos);
        if (c.SameFields)
        {
            c.FieldPos = Listpack.Skip(lp, c.FieldPos);
            value = Listpack.Get(lp, c.ValuePos);
            c.ValuePos = Listpack.Skip(lp, c.ValuePos);
        }
        else
        {
            int v = Listpack.Skip(lp, c.FieldPos);
            value = Listpack.Get(lp, v);
            c.FieldPos = Listpack.Skip(lp, v);
        }
    }

    /// <summary>The flags of the entry before the one whose flags are at <paramref name="flagsPos"/>.</summary>
    private static int PreviousEntry(byte[] lp, int flagsPos)
    {
        int q = Listpack.Prev(lp, flagsPos); // the previous entry's lp-count
        long back = Listpack.Get(lp, q).Int;
        for (long i = 0; i < back; i++) q = Listpack.Prev(lp, q);
        return q;
    }

    /// <summary>The index of the last node whose master ID is at most <paramref name="id"/>, or -1.</summary>
    private int FindNode(StreamId id)
    {
        int lo = 0, hi = _nodes.Count - 1, found = -1;
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            if (_nodes[mid].Master <= id) { found = mid; lo = mid + 1; }
            else hi = mid - 1;
        }
        return found;
    }

    // ---------------------------------------------------------------- deleting

    /// <summary>
    /// Marks the entry <paramref name="id"/> deleted (the node goes when it was its last live
    /// entry); false when there is no such live entry. Call <see cref="FinishDeletes"/> after a batch.
    /// </summary>
    public bool Delete(StreamId id)
    {
        int index = FindNode(id);
        if (index < 0) return false;
        var c = new Cursor { Lp = [] };
        EnterNode(ref c, index);
        var master = _nodes[index].Master;
        int flagsPos = -1;
        // Only this node: an ID lies in the node with the greatest master ID not above it.
        for (int at = c.FirstEntryPos; at >= 0;)
        {
            var e = ReadEntry(c.Lp, at, master, c.MasterFieldCount);
            if (e.Id > id) break;
            if (e.Id == id && !e.Deleted) { flagsPos = at; break; }
            at = e.Next;
        }
        if (flagsPos < 0) return false;

        var node = _nodes[index];
        var lp = node.Lp;
        long before = lp.Length;
        long flags = Listpack.Get(lp, flagsPos).Int;
        ReplaceInt(ref lp, flagsPos, flags | FlagDeleted);
        int p = Listpack.First(lp);
        long live = Listpack.Get(lp, p).Int;
        if (live == 1)
        {
            _nodes.RemoveAt(index);
            _bufferBytes -= before;
        }
        else
        {
            ReplaceInt(ref lp, p, live - 1);
            p = Listpack.Skip(lp, p);
            ReplaceInt(ref lp, p, Listpack.Get(lp, p).Int + 1);
            node.Lp = lp;
            _bufferBytes += lp.Length - before;
        }
        Length--;
        if (id > MaxDeletedId) MaxDeletedId = id;
        return true;
    }

    /// <summary>After deletions: the first ID is the first live entry's, or 0-0 when none is left.</summary>
    public void FinishDeletes()
    {
        if (Length == 0)
        {
            FirstId = StreamId.Min;
            return;
        }
        var c = Seek(StreamId.Min, StreamId.Max, reverse: false);
        FirstId = MoveNext(ref c) ? c.Id : StreamId.Min;
    }

    /// <summary>How XTRIM and XADD's trimming option trim.</summary>
    public enum TrimStrategy { None, MaxLen, MinId }

    /// <summary>
    /// What deleting an entry (XDELEX, XACKDEL, trimming) does about the consumer groups that still
    /// refer to it (Redis 8.2): KEEPREF leaves their pending entries as they are (what XDEL and
    /// trimming always did), DELREF removes the entry from every group's pending entries list, ACKED
    /// deletes only an entry no group still needs (see <see cref="IsReferenced"/>).
    /// </summary>
    public enum DeletePolicy { KeepRef, DelRef, Acked }

    /// <summary>
    /// Trims from the head (Redis's streamTrim): whole nodes while they can go entirely; then, unless
    /// <paramref name="approximate"/>, entries of the next node are marked deleted. A
    /// <paramref name="limit"/> above 0 caps the entries removed, node by node. Returns how many went.
    /// </summary>
    /// <remarks>
    /// Under DELREF and ACKED (Redis 8.2) no node goes whole without looking at its entries: every
    /// entry of a node that could go is visited (DELREF drops the groups' references to it, ACKED
    /// keeps it when a group still needs it), the node goes only when all its live entries went, and
    /// the walk goes on to the next node while the nodes could go; '~' then only lets the limit
    /// apply. <paramref name="lastDeleted"/> is the greatest ID deleted entry by entry
    /// (<see cref="StreamId.Min"/> when none): what the propagation of these trims needs.
    /// </remarks>
    public long Trim(TrimStrategy strategy, long maxLen, StreamId minId, bool approximate, long limit,
        DeletePolicy policy, out StreamId lastDeleted)
    {
        lastDeleted = StreamId.Min;
        if (strategy == TrimStrategy.None) return 0;
        bool keepRef = policy == DeletePolicy.KeepRef;
        // The smallest last-delivered ID of the groups, for ACKED (no group's changes during a trim).
        var minLastId = policy == DeletePolicy.Acked ? MinGroupLastId() : StreamId.Max;
        long deleted = 0;
        int removeNodes = 0;
        for (int index = 0; index < _nodes.Count; index++)
        {
            if (strategy == TrimStrategy.MaxLen && Length <= maxLen) break;
            var node = _nodes[index];
            var lp = node.Lp;
            int first = Listpack.First(lp);
            long entries = Listpack.Get(lp, first).Int;
            if (limit != 0 && deleted + entries > limit) break;

            bool eligible;
            if (strategy == TrimStrategy.MaxLen) eligible = Length - entries >= maxLen;
            else eligible = LastEntryId(node) < minId;
            if (eligible && keepRef)
            {
                removeNodes++;
                Length -= entries;
                deleted += entries;
                continue;
            }
            if (approximate && keepRef) break;

            var c = new Cursor { Lp = [] };
            EnterNode(ref c, index);
            long before = lp.Length;
            long removedHere = 0;
            for (int p = c.FirstEntryPos; p >= 0;)
            {
                var e = ReadEntry(lp, p, node.Master, c.MasterFieldCount);
                bool stop = strategy == TrimStrategy.MaxLen ? Length <= maxLen : e.Id >= minId;
                if (stop) break;
                if (!e.Deleted)
                {
                    bool delete = true;
                    if (policy == DeletePolicy.Acked) delete = !IsReferenced(e.Id, minLastId);
                    else if (policy == DeletePolicy.DelRef) RemoveReferences(e.Id);
                    if (delete)
                    {
                        // The flags keep their one-byte encoding (0 to 3), so positions do not move.
                        ReplaceInt(ref lp, p, e.Flags | FlagDeleted);
                        removedHere++;
                        Length--;
                        lastDeleted = e.Id;
                    }
                }
                p = e.Next;
            }
            deleted += removedHere;
            if (eligible && removedHere == entries)
            {
                // Only under DELREF or ACKED: a node that could go, emptied entry by entry.
                _bufferBytes -= before;
                _nodes.RemoveAt(index);
                index--;
                continue;
            }
            int q = Listpack.First(lp);
            ReplaceInt(ref lp, q, entries - removedHere);
            q = Listpack.Skip(lp, q);
            ReplaceInt(ref lp, q, Listpack.Get(lp, q).Int + removedHere);
            node.Lp = lp;
            _bufferBytes += lp.Length - before;
            if (eligible) continue; // DELREF or ACKED: the next node may have more to trim
            break; // this node had enough to trim: no need to look further
        }
        if (removeNodes > 0)
        {
            for (int i = 0; i < removeNodes; i++) _bufferBytes -= _nodes[i].Lp.Length;
            _nodes.RemoveRange(0, removeNodes);
        }
        if (Length == 0) FirstId = StreamId.Min;
        else if (deleted > 0) FinishDeletes();
        return deleted;
    }

    /// <summary>The smallest last-delivered ID among the groups (<see cref="StreamId.Max"/> without groups).</summary>
    public StreamId MinGroupLastId()
    {
        var min = StreamId.Max;
        for (int i = 0; i < GroupCount; i++)
        {
            var last = GroupAt(i).LastId;
            if (last < min) min = last;
        }
        return min;
    }

    /// <summary>
    /// Whether a consumer group still needs entry <paramref name="id"/> (Redis 8.2's
    /// streamEntryIsReferenced): some group has not been delivered it yet (it lies after
    /// <paramref name="minGroupLastId"/>, from <see cref="MinGroupLastId"/>), or it is pending in some
    /// group. Never without groups.
    /// </summary>
    public bool IsReferenced(StreamId id, StreamId minGroupLastId)
    {
        int groups = GroupCount;
        if (groups == 0) return false;
        if (id > minGroupLastId) return true;
        for (int i = 0; i < groups; i++)
            if (GroupAt(i).Pel.ContainsKey(id)) return true;
        return false;
    }

    /// <summary>Removes entry <paramref name="id"/> from every group's pending entries list (and its owner's); true when some held it.</summary>
    public bool RemoveReferences(StreamId id)
    {
        bool removed = false;
        for (int i = 0; i < GroupCount; i++) removed |= GroupAt(i).Acknowledge(id);
        return removed;
    }

    /// <summary>The ID of a node's last entry, deleted or not (lpGetEdgeStreamID).</summary>
    private static StreamId LastEntryId(Node node)
    {
        var lp = node.Lp;
        int q = Listpack.Last(lp);
        long back = Listpack.Get(lp, q).Int;
        for (long i = 0; i < back; i++) q = Listpack.Prev(lp, q);
        return ReadEntry(lp, q, node.Master, MasterFieldCount(lp)).Id;
    }

    /// <summary>The number of master fields of a node.</summary>
    private static long MasterFieldCount(byte[] lp)
        => Listpack.Get(lp, Listpack.Skip(lp, Listpack.Skip(lp, Listpack.First(lp)))).Int;

    // ---------------------------------------------------------------- consumer groups

    /// <summary>The consumer groups in name order; null until the first is created.</summary>
    private NameOrderedList<StreamGroup>? _groups;

    /// <summary>Number of consumer groups.</summary>
    public int GroupCount => _groups?.Count ?? 0;

    /// <summary>The group at <paramref name="index"/> (0 to <see cref="GroupCount"/> - 1) in name order (memcmp order, as Redis lists them).</summary>
    public StreamGroup GroupAt(int index) => _groups!.ItemAt(index);

    /// <summary>The consumer group named <paramref name="name"/>, or null.</summary>
    public StreamGroup? FindGroup(ReadOnlySpan<byte> name) => _groups?.Find(name);

    /// <summary>
    /// Creates a consumer group (XGROUP CREATE) whose last delivered ID is <paramref name="lastId"/>
    /// and read counter <paramref name="entriesRead"/> (<see cref="StreamGroup.InvalidEntriesRead"/>
    /// when unknown); null when the name is taken.
    /// </summary>
    public StreamGroup? TryCreateGroup(ReadOnlySpan<byte> name, StreamId lastId, long entriesRead)
    {
        _groups ??= new NameOrderedList<StreamGroup>();
        if (_groups.Find(name) != null) return null;
        var group = new StreamGroup(name.ToArray(), lastId, entriesRead);
        _groups.TryAdd(group.Name, group);
        return group;
    }

    /// <summary>Removes the group named <paramref name="name"/> with its consumers and pending entries; false when there is none.</summary>
    public bool DestroyGroup(ReadOnlySpan<byte> name) => _groups != null && _groups.Remove(name);

    private long GroupBytes()
    {
        if (_groups == null) return 0;
        long bytes = MemoryMeter.ObjectHeader + 16 + _groups.AllocatedBytes;
        for (int i = 0; i < _groups.Count; i++) bytes += _groups.ItemAt(i).AllocatedBytes();
        return bytes;
    }

    /// <summary>True when a live (not deleted) entry has ID <paramref name="id"/> (streamEntryExists).</summary>
    public bool EntryExists(StreamId id)
    {
        var c = Seek(id, id, reverse: false);
        return MoveNext(ref c);
    }

    /// <summary>
    /// streamRangeHasTombstones: whether a deleted entry may lie in [<paramref name="start"/>,
    /// <paramref name="end"/>]. Only the greatest deleted ID is known, so the answer is yes when it
    /// lies in the range and is not before the first live entry; an empty stream has none.
    /// </summary>
    public bool RangeHasTombstones(StreamId start, StreamId end)
    {
        if (Length == 0 || MaxDeletedId == StreamId.Min) return false;
        if (FirstId > MaxDeletedId) return false;
        return start <= MaxDeletedId && MaxDeletedId <= end;
    }

    /// <summary>
    /// streamEstimateDistanceFromFirstEverEntry: the read counter of <paramref name="id"/> (how many
    /// entries were ever added up to it), when it can be known without walking the stream: 0 when
    /// nothing was ever added; entries-added for the last ID (or any ID not past it when the stream
    /// is empty); and, when no deletion lies past the first entry, entries-added minus the length
    /// for an ID before the first entry, plus one for the first entry itself. Otherwise
    /// <see cref="StreamGroup.InvalidEntriesRead"/>.
    /// </summary>
    public long EstimateDistanceFromFirstEverEntry(StreamId id)
    {
        if (EntriesAdded == 0) return 0;
        if (Length == 0 && id <= LastId) return EntriesAdded;
        int toLast = id.CompareTo(LastId);
        if (toLast == 0) return EntriesAdded;
        if (toLast > 0) return StreamGroup.InvalidEntriesRead;
        if (MaxDeletedId == StreamId.Min || MaxDeletedId < FirstId)
        {
            int toFirst = id.CompareTo(FirstId);
            if (toFirst < 0) return EntriesAdded - Length;
            if (toFirst == 0) return EntriesAdded - Length + 1;
        }
        return StreamGroup.InvalidEntriesRead;
    }

    /// <summary>
    /// A group's lag (streamReplyWithCGLag): the entries not yet delivered to it, or false when that
    /// cannot be known (XINFO then shows nil). 0 for a stream nothing was ever added to; entries-added
    /// minus the group's read counter when the counter is known and no deletion lies after its last
    /// ID; else from the estimated counter of its last ID.
    /// </summary>
    public bool TryGetLag(StreamGroup group, out long lag)
    {
        lag = 0;
        if (EntriesAdded == 0) return true;
        if (group.EntriesRead != StreamGroup.InvalidEntriesRead && !RangeHasTombstones(group.LastId, StreamId.Max))
        {
            lag = EntriesAdded - group.EntriesRead;
            return true;
        }
        long read = EstimateDistanceFromFirstEverEntry(group.LastId);
        if (read == StreamGroup.InvalidEntriesRead) return false;
        lag = EntriesAdded - read;
        return true;
    }

    // ---------------------------------------------------------------- listpack integers

    private static void AppendInt(ref byte[] lp, long value)
    {
        Span<byte> text = stackalloc byte[20];
        Listpack.Append(ref lp, text.Slice(0, RedisNumbers.FormatInt64(value, text)));
    }

    private static void ReplaceInt(ref byte[] lp, int p, long value)
    {
        Span<byte> text = stackalloc byte[20];
        Listpack.Replace(ref lp, p, text.Slice(0, RedisNumbers.FormatInt64(value, text)));
    }

    // ---------------------------------------------------------------- RDB

    /// <summary>The master ID of node <paramref name="i"/> (its key in Redis's radix tree).</summary>
    public StreamId NodeMaster(int i) => _nodes[i].Master;

    /// <summary>The listpack of node <paramref name="i"/>, exactly its bytes.</summary>
    public ReadOnlySpan<byte> NodeListpack(int i) => _nodes[i].Lp.AsSpan(0, Listpack.Bytes(_nodes[i].Lp));

    /// <summary>
    /// Appends a node read from an RDB file or DUMP payload, as it was saved. The caller validated
    /// its layout (entries in order, above the previous node's) and sets the counters with
    /// <see cref="SetLoadedState"/> once every node is in.
    /// </summary>
    public void LoadNode(StreamId master, byte[] lp)
    {
        _nodes.Add(new Node(master, lp));
        _bufferBytes += lp.Length;
    }

    /// <summary>The stream's counters as an RDB file or DUMP payload gives them.</summary>
    public void SetLoadedState(long length, StreamId lastId, StreamId firstId, StreamId maxDeletedId, long entriesAdded)
    {
        Length = length;
        LastId = lastId;
        FirstId = firstId;
        MaxDeletedId = maxDeletedId;
        EntriesAdded = entriesAdded;
    }
}
