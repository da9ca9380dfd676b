namespace RedisClone.Storage;

/// <summary>
/// A big list: a deque of listpack nodes, as Redis's quicklist. Pushes and pops at either end touch
/// one node (O(1) apart from moving bytes inside a node of at most a few KB); reaching element i
/// walks the nodes from the nearer end, then one node.
/// </summary>
/// <remarks>
/// Nodes are split, filled and merged by Redis's rules (node limits from list-max-listpack-size,
/// the same size estimate when inserting, the same split and merge steps for LINSERT), so a list
/// has the same nodes as in Redis after the same commands. That matters beyond memory: Redis turns
/// a quicklist back into a listpack only when it is down to one small node, and OBJECT ENCODING
/// shows the difference. Redis's "plain" nodes for elements of 1 GB and more, and LZF compression
/// of inner nodes (list-compress-depth), are not reproduced: neither changes a reply.
/// <para>
/// Nodes live in a ring buffer of arrays rather than a linked list: 8 bytes per node instead of a
/// node object, and a node is found by index. Inserting a node in the middle (a split) shifts the
/// references after it, which is cheap next to the element walk that found the place.
/// </para>
/// </remarks>
internal sealed class Quicklist
{
    /// <summary>SIZE_ESTIMATE_OVERHEAD: what Redis adds to an element's length when guessing its entry size.</summary>
    private const int InsertOverhead = 8;
    /// <summary>SIZE_SAFETY_LIMIT: the byte cap of a node when the limit is an element count.</summary>
    private const int SafetyLimit = 8192;
    private static readonly int[] SizeLimits = [4096, 8192, 16384, 32768, 65536];

    private readonly int _edgeCapacity;
    private byte[][] _nodes;
    private int _head;
    private int _len;
    private long _count;

    /// <param name="fill">list-max-listpack-size when the quicklist is created (Redis keeps it per list).</param>
    public Quicklist(int fill, int capacity = 4)
    {
        Fill = Math.Clamp(fill, -5, short.MaxValue);
        NodeLimit(Fill, out long size, out _);
        _edgeCapacity = Fill < 0 ? (int)size : SafetyLimit;
        _nodes = new byte[Math.Max(4, (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)capacity))][];
    }

    /// <summary>The node fill rule: negative = byte limit class (-1 = 4 KB ... -5 = 64 KB), positive = entries per node.</summary>
    public int Fill { get; }

    public long Count => _count;

    public int NodeCount => _len;

    /// <summary>This object, its ring of nodes and each node's listpack (by capacity); one pass over the nodes.</summary>
    public long AllocatedBytes()
    {
        long n = MemoryMeter.ObjectHeader + 32 + MemoryMeter.ArrayBytes(_nodes.Length, 8);
        for (int i = 0; i < _len; i++) n += MemoryMeter.ArrayBytes(Node(i).Length);
        return n;
    }

    /// <summary>Node <paramref name="i"/> (0 = head), by reference so listpack edits can replace the array.</summary>
    public ref byte[] Node(int i) => ref _nodes[(_head + i) & (_nodes.Length - 1)];

    // ---------------------------------------------------------------- Redis's node limits

    /// <summary>quicklistNodeLimit: the byte limit (long.MaxValue = none) and entry limit for a fill value.</summary>
    public static void NodeLimit(long fill, out long size, out long count)
    {
        size = long.MaxValue;
        count = uint.MaxValue;
        if (fill >= 0) count = fill == 0 ? 1 : fill;
        else size = SizeLimits[(int)Math.Min(-fill - 1, SizeLimits.Length - 1)];
    }

    /// <summary>quicklistNodeExceedsLimit: would a listpack of this size and count break the fill rule?</summary>
    public static bool ExceedsLimit(long fill, long size, long count)
    {
        NodeLimit(fill, out long sizeLimit, out long countLimit);
        if (sizeLimit != long.MaxValue) return size > sizeLimit;
        return size > SafetyLimit || count > countLimit;
    }

    private bool AllowInsert(byte[] node, int length)
        => !ExceedsLimit(Fill, (long)Listpack.Bytes(node) + length + InsertOverhead, Listpack.Count(node) + 1L);

    private bool AllowMerge(int a, int b)
    {
        if (a < 0 || b < 0 || a >= _len || b >= _len) return false;
        byte[] x = Node(a), y = Node(b);
        // The merged listpack loses one header and end byte.
        return !ExceedsLimit(Fill, (long)Listpack.Bytes(x) + Listpack.Bytes(y) - Listpack.EmptySize,
            (long)Listpack.Count(x) + Listpack.Count(y));
    }

    // ---------------------------------------------------------------- ends

    /// <summary>Adds a whole listpack as the new tail node (a listpack list growing past its limit).</summary>
    public void AppendNode(byte[] lp)
    {
        InsertNode(_len, lp);
        _count += Listpack.Count(lp);
    }

    public void PushHead(ReadOnlySpan<byte> value)
    {
        if (_len > 0 && AllowInsert(Node(0), value.Length))
        {
            MakeRoom(ref Node(0), value.Length);
            Listpack.Prepend(ref Node(0), value);
        }
        else
        {
            // The old head will not grow again from this end: give back its spare room.
            if (_len > 0) Listpack.Trim(ref Node(0));
            InsertNode(0, SingleEntry(value));
        }
        _count++;
    }

    public void PushTail(ReadOnlySpan<byte> value)
    {
        if (_len > 0 && AllowInsert(Node(_len - 1), value.Length))
        {
            MakeRoom(ref Node(_len - 1), value.Length);
            Listpack.Append(ref Node(_len - 1), value);
        }
        else
        {
            if (_len > 0) Listpack.Trim(ref Node(_len - 1));
            InsertNode(_len, SingleEntry(value));
        }
        _count++;
    }

    /// <summary>
    /// Room for one more element of <paramref name="length"/> bytes in an edge node. Edge nodes double
    /// (up to the node limit) instead of growing by the listpack's usual quarter: they are trimmed
    /// when a new edge node takes over, so the spare room is temporary, and filling a node copies
    /// about its size once instead of four times over (garbage the GC would otherwise have to absorb).
    /// </summary>
    private void MakeRoom(ref byte[] node, int length)
    {
        int used = Listpack.Bytes(node);
        // An entry is its bytes plus at most 5 of header and 5 of backlen.
        int worst = length + 10;
        if (node.Length - used >= worst) return;
        int target = Math.Max(used + worst, Math.Min(node.Length * 2, _edgeCapacity));
        Listpack.Reserve(ref node, target - used);
    }

    // ---------------------------------------------------------------- positions

    /// <summary>Finds element <paramref name="index"/> (0 &lt;= index &lt; Count): its node and its index inside the node.</summary>
    public void Locate(long index, out int node, out int inNode)
    {
        if (index <= (_count - 1) / 2)
        {
            int i = 0;
            int n;
            while (index >= (n = Listpack.Count(Node(i))))
            {
                index -= n;
                i++;
            }
            node = i;
            inNode = (int)index;
            return;
        }
        long fromEnd = _count - 1 - index;
        int j = _len - 1;
        int m;
        while (fromEnd >= (m = Listpack.Count(Node(j))))
        {
            fromEnd -= m;
            j--;
        }
        node = j;
        inNode = (int)(m - 1 - fromEnd);
    }

    // ---------------------------------------------------------------- deleting

    /// <summary>quicklistDelRange for elements [start, start + count) (in range): whole nodes go, edge nodes are cut.</summary>
    public void DeleteRange(long start, long count)
    {
        if (count <= 0) return;
        Locate(start, out int i, out int offset);
        long left = count;
        while (left > 0)
        {
            int n = Listpack.Count(Node(i));
            if (offset == 0 && left >= n)
            {
                RemoveNode(i);
                _count -= n;
                left -= n;
                continue;
            }
            int del = (int)Math.Min(n - offset, left);
            Listpack.DeleteRange(ref Node(i), offset, del);
            _count -= del;
            left -= del;
            i++;
            offset = 0;
        }
    }

    /// <summary>
    /// Deletes the element at byte <paramref name="p"/> of node <paramref name="i"/> (quicklistDelIndex:
    /// an emptied node is removed, nothing is merged). Returns the position in that node of the element
    /// that followed (-1 if none), and whether the node itself was removed.
    /// </summary>
    public int DeleteAt(int i, int p, out bool nodeRemoved)
    {
        int next = Listpack.Delete(ref Node(i), p);
        _count--;
        nodeRemoved = Listpack.IsEmpty(Node(i));
        if (nodeRemoved) RemoveNode(i);
        return next;
    }

    // ---------------------------------------------------------------- inserting and replacing

    /// <summary>
    /// _quicklistInsert: inserts <paramref name="value"/> before or after the element at byte
    /// <paramref name="p"/> (index <paramref name="inNode"/>) of node <paramref name="i"/>. A node with
    /// room takes it; a full node at its edge hands it to the neighbour or a new node; otherwise the
    /// node is split at the element and the pieces around it are merged where the fill rule allows.
    /// </summary>
    public void Insert(int i, int p, int inNode, ReadOnlySpan<byte> value, bool after)
    {
        int length = value.Length;
        byte[] node = Node(i);
        int n = Listpack.Count(node);
        bool full = !AllowInsert(node, length);
        bool atTail = after && inNode == n - 1;
        bool atHead = !after && inNode == 0;
        bool roomNext = atTail && i + 1 < _len && AllowInsert(Node(i + 1), length);
        bool roomPrev = atHead && i > 0 && AllowInsert(Node(i - 1), length);
        _count++;

        if (!full)
        {
            Listpack.InsertAt(ref Node(i), after ? Listpack.Skip(node, p) : p, value);
        }
        else if (roomNext)
        {
            Listpack.Prepend(ref Node(i + 1), value);
        }
        else if (roomPrev)
        {
            Listpack.Append(ref Node(i - 1), value);
        }
        else if (atTail || atHead)
        {
            InsertNode(after ? i + 1 : i, SingleEntry(value));
        }
        else if (after)
        {
            // The node keeps [0, inNode]; the new node takes the value then the rest.
            var rest = Listpack.Slice(node, inNode + 1, n - inNode - 1);
            Listpack.DeleteRange(ref Node(i), inNode + 1, n - inNode - 1);
            Listpack.Prepend(ref rest, value);
            InsertNode(i + 1, rest);
            MergeAround(i);
        }
        else
        {
            // The new node takes [0, inNode) then the value; the node keeps the rest.
            var front = Listpack.Slice(node, 0, inNode);
            Listpack.DeleteRange(ref Node(i), 0, inNode);
            Listpack.Append(ref front, value);
            InsertNode(i, front);
            MergeAround(i + 1);
        }
    }

    /// <summary>Replaces the element at byte <paramref name="p"/> of node <paramref name="i"/> in place (LSET; the node may outgrow its limit, as in Redis).</summary>
    public void Replace(int i, int p, ReadOnlySpan<byte> value) => Listpack.Replace(ref Node(i), p, value);

    /// <summary>
    /// _quicklistMergeNodes after a split at node <paramref name="center"/>: merge the two nodes before
    /// it, the two after it, then the center with its previous and next neighbours, each when the
    /// merged node would respect the fill rule.
    /// </summary>
    private void MergeAround(int center)
    {
        if (AllowMerge(center - 1, center - 2))
        {
            MergeWithNext(center - 2);
            center--;
        }
        if (AllowMerge(center + 1, center + 2)) MergeWithNext(center + 1);
        int target = center;
        if (AllowMerge(center, center - 1))
        {
            MergeWithNext(center - 1);
            target = center - 1;
        }
        if (AllowMerge(target, target + 1)) MergeWithNext(target);
    }

    private void MergeWithNext(int i)
    {
        Node(i) = Listpack.Concat(Node(i), Node(i + 1));
        RemoveNode(i + 1);
    }

    // ---------------------------------------------------------------- nodes

    /// <summary>Takes the only node out (the list goes back to a plain listpack).</summary>
    public byte[] TakeOnlyNode()
    {
        var lp = Node(0);
        Listpack.Trim(ref lp);
        return lp;
    }

    public Quicklist Clone()
    {
        var copy = new Quicklist(Fill, _len);
        for (int i = 0; i < _len; i++) copy.InsertNode(i, Listpack.Clone(Node(i)));
        copy._count = _count;
        return copy;
    }

    private static byte[] SingleEntry(ReadOnlySpan<byte> value)
    {
        var lp = Listpack.New(Listpack.EmptySize + Listpack.EntrySize(value));
        Listpack.Append(ref lp, value);
        return lp;
    }

    private void InsertNode(int at, byte[] lp)
    {
        if (_len == _nodes.Length) GrowRing();
        int mask = _nodes.Length - 1;
        if (at == 0)
        {
            _head = (_head - 1) & mask;
            _nodes[_head] = lp;
        }
        else
        {
            for (int k = _len; k > at; k--) _nodes[(_head + k) & mask] = _nodes[(_head + k - 1) & mask];
            _nodes[(_head + at) & mask] = lp;
        }
        _len++;
    }

    private void RemoveNode(int at)
    {
        int mask = _nodes.Length - 1;
        if (at == 0)
        {
            _nodes[_head] = null!;
            _head = (_head + 1) & mask;
        }
        else
        {
            for (int k = at; k < _len - 1; k++) _nodes[(_head + k) & mask] = _nodes[(_head + k + 1) & mask];
            _nodes[(_head + _len - 1) & mask] = null!;
        }
        _len--;
    }

    private void GrowRing()
    {
        var grown = new byte[_nodes.Length * 2][];
        for (int k = 0; k < _len; k++) grown[k] = Node(k);
        _nodes = grown;
        _head = 0;
    }
}
