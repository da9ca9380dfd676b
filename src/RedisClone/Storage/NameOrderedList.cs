namespace RedisClone.Storage;

/// <summary>
/// Items kept in the order of their names' bytes (memcmp order, a shorter prefix first: the order of
/// Redis's radix trees), found by binary search over a span without allocating. Insertion and
/// removal shift the array (O(n)): consumer groups and consumers are few per stream, and a lookup,
/// which every group command does, stays O(log n) and allocation-free.
/// </summary>
internal sealed class NameOrderedList<T> where T : class
{
    private byte[][] _names = [];
    private T[] _items = [];

    /// <summary>Number of items.</summary>
    public int Count { get; private set; }

    /// <summary>The name at position <paramref name="index"/> in name order.</summary>
    public byte[] NameAt(int index) => _names[index];

    /// <summary>The item at position <paramref name="index"/> in name order.</summary>
    public T ItemAt(int index) => _items[index];

    /// <summary>The item named <paramref name="name"/>, or null.</summary>
    public T? Find(ReadOnlySpan<byte> name)
    {
        int i = IndexOf(name);
        return i >= 0 ? _items[i] : null;
    }

    /// <summary>Adds <paramref name="item"/> under <paramref name="name"/>; false when the name is taken.</summary>
    public bool TryAdd(byte[] name, T item)
    {
        int i = IndexOf(name);
        if (i >= 0) return false;
        i = ~i;
        if (Count == _items.Length)
        {
            int size = Math.Max(4, Count * 2);
            Array.Resize(ref _names, size);
            Array.Resize(ref _items, size);
        }
        Array.Copy(_names, i, _names, i + 1, Count - i);
        Array.Copy(_items, i, _items, i + 1, Count - i);
        _names[i] = name;
        _items[i] = item;
        Count++;
        return true;
    }

    /// <summary>Removes the item named <paramref name="name"/>; false when there is none.</summary>
    public bool Remove(ReadOnlySpan<byte> name)
    {
        int i = IndexOf(name);
        if (i < 0) return false;
        Count--;
        Array.Copy(_names, i + 1, _names, i, Count - i);
        Array.Copy(_items, i + 1, _items, i, Count - i);
        _names[Count] = null!;
        _items[Count] = null!;
        return true;
    }

    /// <summary>Bytes of the two arrays (not of the names or items).</summary>
    public long AllocatedBytes => 2 * MemoryMeter.ArrayBytes(_items.Length, 8);

    /// <summary>The index of <paramref name="name"/>, or the bitwise complement of where it would go.</summary>
    private int IndexOf(ReadOnlySpan<byte> name)
    {
        int lo = 0, hi = Count - 1;
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            int cmp = _names[mid].AsSpan().SequenceCompareTo(name);
            if (cmp == 0) return mid;
            if (cmp < 0) lo = mid + 1;
            else hi = mid - 1;
        }
        return ~lo;
    }
}
