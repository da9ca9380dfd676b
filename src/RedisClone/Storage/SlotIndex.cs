using RedisClone.Common;

namespace RedisClone.Storage;

/// <summary>
/// The keys of a <see cref="KeyTable"/> by cluster hash slot, kept only on a cluster node (Redis's
/// slot-to-key lists): a doubly linked list per slot threaded through two int arrays parallel to
/// the table's slots, with a head and a count per hash slot. CLUSTER COUNTKEYSINSLOT is O(1) and
/// GETKEYSINSLOT O(keys returned), so resharding (GETKEYSINSLOT slot 10 in a loop) stays linear.
/// </summary>
/// <remarks>
/// Cost: 8 bytes per table slot (two ints, allocated with the table's capacity) plus 128 KB of
/// heads and counts per table; a CRC16 of the key when it is added or removed. Redis 7.2 pays 16
/// bytes per key (two pointers in the dict entry's metadata). Links are 1-based: 0 ends a list.
/// </remarks>
internal sealed class SlotIndex
{
    public const int HashSlots = 16384;

    private readonly int[] _head = new int[HashSlots];
    private readonly int[] _count = new int[HashSlots];
    private int[] _next;
    private int[] _prev;
    private int _total;

    public SlotIndex(int capacity)
    {
        _next = new int[capacity];
        _prev = new int[capacity];
    }

    /// <summary>Bytes this index holds (INFO, MEMORY STATS).</summary>
    public long Bytes => (2L * HashSlots + _next.Length + _prev.Length) * sizeof(int);

    /// <summary>Keys in <paramref name="hashSlot"/>.</summary>
    public int Count(int hashSlot) => _count[hashSlot];

    /// <summary>The table slot of the first key of <paramref name="hashSlot"/>, or -1.</summary>
    public int First(int hashSlot) => _head[hashSlot] - 1;

    /// <summary>The table slot of the key after <paramref name="slot"/> in its hash slot, or -1.</summary>
    public int Next(int slot) => _next[slot] - 1;

    /// <summary>Every key was dropped at once (the table cleared).</summary>
    public void Reset()
    {
        if (_total == 0) return;
        Array.Clear(_head);
        Array.Clear(_count);
        Array.Clear(_next);
        Array.Clear(_prev);
        _total = 0;
    }

    /// <summary>The table grew to <paramref name="capacity"/> slots.</summary>
    public void Resize(int capacity)
    {
        Array.Resize(ref _next, capacity);
        Array.Resize(ref _prev, capacity);
    }

    /// <summary>The key in table slot <paramref name="slot"/> was added: first in its hash slot's list.</summary>
    public void Added(int slot, ReadOnlySpan<byte> key)
    {
        int hs = Crc16.HashSlot(key);
        int head = _head[hs];
        _next[slot] = head;
        _prev[slot] = 0;
        if (head != 0) _prev[head - 1] = slot + 1;
        _head[hs] = slot + 1;
        _count[hs]++;
        _total++;
    }

    /// <summary>The key in table slot <paramref name="slot"/> is about to be removed.</summary>
    public void Removed(int slot, ReadOnlySpan<byte> key)
    {
        int hs = Crc16.HashSlot(key);
        int next = _next[slot], prev = _prev[slot];
        if (prev != 0) _next[prev - 1] = next;
        else _head[hs] = next;
        if (next != 0) _prev[next - 1] = prev;
        _next[slot] = _prev[slot] = 0;
        _count[hs]--;
        _total--;
    }
}
