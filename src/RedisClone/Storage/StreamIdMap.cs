using System.Diagnostics;

namespace RedisClone.Storage;

/// <summary>
/// An ordered map from <see cref="StreamId"/> to <typeparamref name="TValue"/>: a B+tree whose
/// leaves are chained left to right. Find, insert and remove cost O(log n); <see cref="Seek"/> finds
/// the first key at or above an ID in O(log n) and its cursor then walks forward one key at a time
/// in O(1) amortised. This is what a consumer group's pending entries lists need (Redis keeps them
/// in a radix tree keyed by the big-endian ID): XPENDING ranges and XAUTOCLAIM cursors start in the
/// middle of a long list and read a few keys.
/// </summary>
/// <remarks>
/// <para>Nodes hold up to <see cref="Fanout"/> keys (leaves) or children (inner nodes) and, except
/// the root and the nodes along the right edge, at least half that many: a removal that leaves a
/// node short borrows from a sibling or merges with it, so the depth stays logarithmic however the
/// map grows and shrinks.</para>
/// <para>Pending entries mostly arrive in ID order (XREADGROUP delivers new entries), so a full node
/// on the right edge that receives a key past its end keeps all its keys and starts a new node with
/// just the new one, instead of splitting in halves: appended keys fill their nodes, and a PEL built
/// in order takes about half the memory an even split would leave it.</para>
/// <para>A cursor is invalidated by any change to the map; re-seek after changing it.</para>
/// </remarks>
internal sealed class StreamIdMap<TValue>
{
    /// <summary>Keys per leaf and children per inner node, at most.</summary>
    internal const int Fanout = 32;

    private const int MinFill = Fanout / 2;

    /// <summary>A node: a leaf (keys with values, chained) or an inner node (separators and children).</summary>
    private sealed class Node(bool leaf)
    {
        public readonly bool IsLeaf = leaf;
        public int Count;   // keys in a leaf; children in an inner node (separators: Count - 1)
        public readonly StreamId[] Keys = new StreamId[Fanout];
        public readonly TValue[]? Values = leaf ? new TValue[Fanout] : null;
        public readonly Node[]? Children = leaf ? null : new Node[Fanout];
        public Node? Next; // leaves only: the leaf to the right
    }

    private Node _root = new(leaf: true);
    private int _nodeCount = 1;

    /// <summary>Number of keys.</summary>
    public int Count { get; private set; }

    /// <summary>Bytes held by the tree's nodes and arrays (values not included), for memory accounting.</summary>
    public long AllocatedBytes => MemoryMeter.ObjectHeader + 16 + _nodeCount * NodeBytes;

    private static readonly long NodeBytes = MemoryMeter.ObjectHeader + 32 + MemoryMeter.ArrayBytes(Fanout, 16) + MemoryMeter.ArrayBytes(Fanout, 8);

    /// <summary>True with the value when <paramref name="key"/> is present.</summary>
    public bool TryGetValue(StreamId key, out TValue value)
    {
        var leaf = FindLeaf(key);
        int i = LowerBound(leaf, key);
        if (i < leaf.Count && leaf.Keys[i] == key)
        {
            value = leaf.Values![i];
            return true;
        }
        value = default!;
        return false;
    }

    /// <summary>True when <paramref name="key"/> is present.</summary>
    public bool ContainsKey(StreamId key) => TryGetValue(key, out _);

    /// <summary>Adds <paramref name="key"/> unless present (then false and nothing changes).</summary>
    public bool TryAdd(StreamId key, TValue value)
    {
        var split = Insert(_root, key, value, out bool added, rightEdge: true);
        if (split.Right != null)
        {
            var root = new Node(leaf: false) { Count = 2 };
            root.Children![0] = _root;
            root.Children[1] = split.Right;
            root.Keys[0] = split.Separator;
            _root = root;
            _nodeCount++;
        }
        if (added) Count++;
        return added;
    }

    /// <summary>Removes <paramref name="key"/>; false when it was not present.</summary>
    public bool Remove(StreamId key)
    {
        if (!Remove(_root, key)) return false;
        Count--;
        if (!_root.IsLeaf && _root.Count == 1)
        {
            _root = _root.Children![0];
            _nodeCount--;
        }
        return true;
    }

    /// <summary>Removes every key.</summary>
    public void Clear()
    {
        _root = new Node(leaf: true);
        _nodeCount = 1;
        Count = 0;
    }

    /// <summary>The smallest key; false when the map is empty.</summary>
    public bool TryGetFirst(out StreamId key, out TValue value)
    {
        var c = Seek(StreamId.Min);
        bool found = c.MoveNext();
        key = found ? c.Key : default;
        value = found ? c.Value : default!;
        return found;
    }

    /// <summary>The greatest key; false when the map is empty.</summary>
    public bool TryGetLast(out StreamId key, out TValue value)
    {
        var node = _root;
        while (!node.IsLeaf) node = node.Children![node.Count - 1];
        if (node.Count == 0)
        {
            key = default;
            value = default!;
            return false;
        }
        key = node.Keys[node.Count - 1];
        value = node.Values![node.Count - 1];
        return true;
    }

    /// <summary>
    /// A cursor before the first key at or above <paramref name="from"/>: each
    /// <see cref="Cursor.MoveNext"/> moves it to the next key in ascending order.
    /// </summary>
    public Cursor Seek(StreamId from)
    {
        var leaf = FindLeaf(from);
        return new Cursor(leaf, LowerBound(leaf, from) - 1);
    }

    /// <summary>A forward walk over the keys (see <see cref="Seek"/>); any change to the map invalidates it.</summary>
    public struct Cursor
    {
        private Node? _leaf;
        private int _index;

        internal Cursor(object leaf, int index)
        {
            _leaf = (Node)leaf;
            _index = index;
        }

        /// <summary>The current key (after a successful <see cref="MoveNext"/>).</summary>
        public readonly StreamId Key => _leaf!.Keys[_index];

        /// <summary>The current value (after a successful <see cref="MoveNext"/>).</summary>
        public readonly TValue Value => _leaf!.Values![_index];

        /// <summary>Moves to the next key; false at the end.</summary>
        public bool MoveNext()
        {
            while (_leaf != null)
            {
                if (++_index < _leaf.Count) return true;
                _leaf = _leaf.Next;
                _index = -1;
            }
            return false;
        }
    }

    // ---------------------------------------------------------------- internals

    private Node FindLeaf(StreamId key)
    {
        var node = _root;
        while (!node.IsLeaf) node = node.Children![ChildIndex(node, key)];
        return node;
    }

    /// <summary>In an inner node: the child whose range holds <paramref name="key"/> (separators at or below it).</summary>
    private static int ChildIndex(Node inner, StreamId key)
    {
        int lo = 0, hi = inner.Count - 1; // separators 0 .. Count-2
        while (lo < hi)
        {
            int mid = (lo + hi) >>> 1;
            if (inner.Keys[mid] <= key) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /// <summary>In a leaf: the index of the first key at or above <paramref name="key"/>.</summary>
    private static int LowerBound(Node leaf, StreamId key)
    {
        int lo = 0, hi = leaf.Count;
        while (lo < hi)
        {
            int mid = (lo + hi) >>> 1;
            if (leaf.Keys[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    private readonly record struct Split(Node? Right, StreamId Separator);

    private Split Insert(Node node, StreamId key, TValue value, out bool added, bool rightEdge)
    {
        if (node.IsLeaf)
        {
            int i = LowerBound(node, key);
            if (i < node.Count && node.Keys[i] == key)
            {
                added = false;
                return default;
            }
            added = true;
            if (node.Count < Fanout)
            {
                InsertAt(node.Keys, node.Count, i, key);
                InsertAt(node.Values!, node.Count, i, value);
                node.Count++;
                return default;
            }
            var right = new Node(leaf: true);
            _nodeCount++;
            if (rightEdge && i == Fanout)
            {
                // An append at the right edge: this leaf stays full, the new one starts with the key.
                right.Keys[0] = key;
                right.Values![0] = value;
                right.Count = 1;
                node.Next = right;
                return new Split(right, key);
            }
            // Full: split in halves, then insert into the half that takes the key.
            int half = Fanout / 2;
            Array.Copy(node.Keys, half, right.Keys, 0, Fanout - half);
            Array.Copy(node.Values!, half, right.Values!, 0, Fanout - half);
            Array.Clear(node.Values!, half, Fanout - half);
            right.Count = Fanout - half;
            node.Count = half;
            right.Next = node.Next;
            node.Next = right;
            var target = i <= half ? node : right;
            int at = i <= half ? i : i - half;
            InsertAt(target.Keys, target.Count, at, key);
            InsertAt(target.Values!, target.Count, at, value);
            target.Count++;
            return new Split(right, right.Keys[0]);
        }

        int c = ChildIndex(node, key);
        var split = Insert(node.Children![c], key, value, out added, rightEdge && c == node.Count - 1);
        if (split.Right == null) return default;
        if (node.Count < Fanout)
        {
            InsertAt(node.Keys, node.Count - 1, c, split.Separator);
            InsertAt(node.Children, node.Count, c + 1, split.Right);
            node.Count++;
            return default;
        }
        // A full inner node: gather its Fanout + 1 children and Fanout separators, split them.
        var keys = new StreamId[Fanout];
        var children = new Node[Fanout + 1];
        Array.Copy(node.Keys, keys, Fanout - 1);
        Array.Copy(node.Children, children, Fanout);
        InsertAt(keys, Fanout - 1, c, split.Separator);
        InsertAt(children, Fanout, c + 1, split.Right);
        // At the right edge, a child added at the end leaves this node nearly full and the new one
        // with two children (an inner node needs two); elsewhere the halves are even.
        int leftCount = rightEdge && c == Fanout - 1 ? Fanout - 1 : (Fanout + 1) / 2;
        int rightCount = Fanout + 1 - leftCount;
        var newRight = new Node(leaf: false) { Count = rightCount };
        _nodeCount++;
        Array.Copy(children, 0, node.Children, 0, leftCount);
        Array.Clear(node.Children, leftCount, Fanout - leftCount);
        Array.Copy(keys, 0, node.Keys, 0, leftCount - 1);
        Array.Copy(children, leftCount, newRight.Children!, 0, rightCount);
        Array.Copy(keys, leftCount, newRight.Keys, 0, rightCount - 1);
        node.Count = leftCount;
        return new Split(newRight, keys[leftCount - 1]);
    }

    private bool Remove(Node node, StreamId key)
    {
        if (node.IsLeaf)
        {
            int i = LowerBound(node, key);
            if (i >= node.Count || node.Keys[i] != key) return false;
            RemoveAt(node.Keys, node.Count, i);
            RemoveAt(node.Values!, node.Count, i);
            node.Count--;
            node.Values![node.Count] = default!;
            return true;
        }
        int c = ChildIndex(node, key);
        var child = node.Children![c];
        if (!Remove(child, key)) return false;
        if (child.Count < MinFill) Rebalance(node, c);
        return true;
    }

    /// <summary>Child <paramref name="c"/> of <paramref name="parent"/> is short: borrow from a sibling, or merge with one.</summary>
    private void Rebalance(Node parent, int c)
    {
        var child = parent.Children![c];
        var left = c > 0 ? parent.Children[c - 1] : null;
        var right = c + 1 < parent.Count ? parent.Children[c + 1] : null;
        if (left != null && left.Count > MinFill)
        {
            if (child.IsLeaf)
            {
                InsertAt(child.Keys, child.Count, 0, left.Keys[left.Count - 1]);
                InsertAt(child.Values!, child.Count, 0, left.Values![left.Count - 1]);
                left.Values[left.Count - 1] = default!;
                parent.Keys[c - 1] = child.Keys[0];
            }
            else
            {
                InsertAt(child.Keys, child.Count - 1, 0, parent.Keys[c - 1]);
                InsertAt(child.Children!, child.Count, 0, left.Children![left.Count - 1]);
                parent.Keys[c - 1] = left.Keys[left.Count - 2];
                left.Children[left.Count - 1] = null!;
            }
            child.Count++;
            left.Count--;
            return;
        }
        if (right != null && right.Count > MinFill)
        {
            if (child.IsLeaf)
            {
                child.Keys[child.Count] = right.Keys[0];
                child.Values![child.Count] = right.Values![0];
                RemoveAt(right.Keys, right.Count, 0);
                RemoveAt(right.Values, right.Count, 0);
                right.Values[right.Count - 1] = default!;
                parent.Keys[c] = right.Keys[0];
            }
            else
            {
                child.Keys[child.Count - 1] = parent.Keys[c];
                child.Children![child.Count] = right.Children![0];
                parent.Keys[c] = right.Keys[0];
                RemoveAt(right.Keys, right.Count - 1, 0);
                RemoveAt(right.Children, right.Count, 0);
                right.Children[right.Count - 1] = null!;
            }
            child.Count++;
            right.Count--;
            return;
        }
        // Neither sibling can spare one: merge the pair (left + child, or child + right).
        int li = left != null ? c - 1 : c;
        Debug.Assert(li + 1 < parent.Count, "a non-root inner node has at least two children");
        var a = parent.Children[li];
        var b = parent.Children[li + 1];
        if (a.IsLeaf)
        {
            Array.Copy(b.Keys, 0, a.Keys, a.Count, b.Count);
            Array.Copy(b.Values!, 0, a.Values!, a.Count, b.Count);
            a.Count += b.Count;
            a.Next = b.Next;
        }
        else
        {
            a.Keys[a.Count - 1] = parent.Keys[li];
            Array.Copy(b.Keys, 0, a.Keys, a.Count, b.Count - 1);
            Array.Copy(b.Children!, 0, a.Children!, a.Count, b.Count);
            a.Count += b.Count;
        }
        _nodeCount--;
        RemoveAt(parent.Keys, parent.Count - 1, li);
        RemoveAt(parent.Children, parent.Count, li + 1);
        parent.Count--;
        parent.Children[parent.Count] = null!;
    }

    private static void InsertAt<T>(T[] array, int count, int index, T item)
    {
        if (index < count) Array.Copy(array, index, array, index + 1, count - index);
        array[index] = item;
    }

    private static void RemoveAt<T>(T[] array, int count, int index)
    {
        if (index < count - 1) Array.Copy(array, index + 1, array, index, count - index - 1);
    }

    /// <summary>Checks the tree's invariants (tests): order, fill (off the right edge), separators, the leaf chain and the count.</summary>
    internal void Validate()
    {
        int leaves = 0, total = 0, depth = -1;
        void Walk(Node node, StreamId? low, StreamId? high, int level, bool isRoot, bool rightEdge)
        {
            if (!isRoot && !rightEdge && node.Count < MinFill) throw new InvalidOperationException($"node under-filled: {node.Count}");
            if (!isRoot && node.IsLeaf && node.Count == 0) throw new InvalidOperationException("empty leaf");
            if (node.Count > Fanout) throw new InvalidOperationException("node over-filled");
            if (node.IsLeaf)
            {
                if (depth == -1) depth = level;
                else if (depth != level) throw new InvalidOperationException("leaves at different depths");
                for (int i = 0; i < node.Count; i++)
                {
                    if (i > 0 && node.Keys[i - 1] >= node.Keys[i]) throw new InvalidOperationException("leaf keys out of order");
                    if (low is { } lo && node.Keys[i] < lo) throw new InvalidOperationException("key below its separator");
                    if (high is { } hi && node.Keys[i] >= hi) throw new InvalidOperationException("key above its separator");
                }
                leaves++;
                total += node.Count;
                return;
            }
            if (node.Count < 2) throw new InvalidOperationException("inner node with fewer than two children");
            for (int i = 0; i < node.Count; i++)
                Walk(node.Children![i], i == 0 ? low : node.Keys[i - 1], i == node.Count - 1 ? high : node.Keys[i], level + 1, false,
                    rightEdge && i == node.Count - 1);
        }
        Walk(_root, null, null, 0, true, true);
        if (total != Count) throw new InvalidOperationException($"count {Count}, keys {total}");
        int chained = 0;
        var first = _root;
        while (!first.IsLeaf) first = first.Children![0];
        StreamId? previous = null;
        for (var leaf = first; leaf != null; leaf = leaf.Next)
        {
            for (int i = 0; i < leaf.Count; i++)
            {
                if (previous is { } p && p >= leaf.Keys[i]) throw new InvalidOperationException("chain out of order");
                previous = leaf.Keys[i];
                chained++;
            }
        }
        if (chained != Count) throw new InvalidOperationException("leaf chain misses keys");
        _ = leaves;
    }
}
