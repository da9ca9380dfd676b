namespace RedisClone.Storage;

/// <summary>A slot of a table chained by <see cref="SlotChains"/>: its chain link and its hash.</summary>
internal interface IChainedSlot
{
    /// <summary>The next slot of the chain (-1 ends it) in a used slot; -3 - the next free slot in a free one.</summary>
    int Next { get; set; }

    /// <summary>The 31-bit hash the slot is chained under.</summary>
    int ChainHash { get; }
}

/// <summary>
/// What the key, member and field tables (<see cref="KeyTable"/>, <see cref="MemberTable"/>, the
/// hash's field table) share: a bucket array of chain heads over a dense slot array whose indexes
/// never move, with freed slots kept on a free list threaded through their links. Each table owns
/// its slot array (its own slot type, and arrays beside it) and passes it in.
/// </summary>
/// <remarks>
/// Slots never move: growing keeps every slot at its index and freed slots are only reused, so a
/// SCAN cursor that is a slot index returns every element present for the whole scan exactly once.
/// A used slot's <see cref="IChainedSlot.Next"/> is &gt;= -1, a free slot's is &lt;= -2 (-3 - the next free
/// slot, -1 ending the list). The methods
/// are generic over the slot struct, so each table gets code compiled for its own layout.
/// </remarks>
internal struct SlotChains
{
    private int[] _buckets;   // 1-based slot index of each chain head; 0 = empty
    private int _highWater;   // slots ever used: [0, _highWater)
    private int _freeList;
    private int _freeCount;

    /// <param name="size">The slot array's length, a power of two.</param>
    public SlotChains(int size)
    {
        _buckets = new int[size];
        _freeList = -1;
    }

    public readonly int Count => _highWater - _freeCount;

    /// <summary>Slots to visit in a full scan: [0, HighWater).</summary>
    public readonly int HighWater => _highWater;

    /// <summary>An independent copy (the bucket array is cloned).</summary>
    public readonly SlotChains Clone() => this with { _buckets = (int[])_buckets.Clone() };

    /// <summary>The first slot of <paramref name="hash"/>'s chain, or -1.</summary>
    public readonly int First(int hash) => _buckets[hash & (_buckets.Length - 1)] - 1;

    public readonly bool IsUsed<T>(T[] slots, int slot) where T : struct, IChainedSlot
        => (uint)slot < (uint)_highWater && slots[slot].Next >= -1;

    /// <summary>True when a new slot needs a larger slot array (of <paramref name="length"/> slots now): grow it and call <see cref="Rehash"/>.</summary>
    public readonly bool IsFull(int length) => _freeCount == 0 && _highWater == length;

    /// <summary>
    /// Takes a free slot, or the next one never used, and links it first in <paramref name="hash"/>'s
    /// chain; the caller fills in the rest of the slot, its hash included.
    /// </summary>
    public int Insert<T>(T[] slots, int hash) where T : struct, IChainedSlot
    {
        int slot;
        if (_freeCount > 0)
        {
            slot = _freeList;
            _freeList = -3 - slots[slot].Next;
            _freeCount--;
        }
        else
        {
            slot = _highWater++;
        }
        ref int bucket = ref _buckets[hash & (_buckets.Length - 1)];
        slots[slot].Next = bucket - 1;
        bucket = slot + 1;
        return slot;
    }

    /// <summary>Unlinks used slot <paramref name="slot"/> from its chain and frees it; the caller clears the rest of it.</summary>
    public void Remove<T>(T[] slots, int slot) where T : struct, IChainedSlot
    {
        ref int bucket = ref _buckets[slots[slot].ChainHash & (_buckets.Length - 1)];
        int i = bucket - 1, prev = -1;
        while (i != slot)
        {
            prev = i;
            i = slots[i].Next;
        }
        if (prev < 0) bucket = slots[slot].Next + 1;
        else slots[prev].Next = slots[slot].Next;
        slots[slot].Next = -3 - _freeList;
        _freeList = slot;
        _freeCount++;
    }

    /// <summary>Chains the used slots again over as many buckets as <paramref name="slots"/> now has slots (after growing it).</summary>
    public void Rehash<T>(T[] slots) where T : struct, IChainedSlot
    {
        int size = slots.Length;
        var buckets = new int[size];
        for (int i = 0; i < _highWater; i++)
        {
            ref var s = ref slots[i];
            if (s.Next < -1) continue;
            ref int bucket = ref buckets[s.ChainHash & (size - 1)];
            s.Next = bucket - 1;
            bucket = i + 1;
        }
        _buckets = buckets;
    }

    /// <summary>Forgets every slot, over <paramref name="size"/> buckets (the slot array's new length).</summary>
    public void Reset(int size)
    {
        if (_buckets.Length == size) Array.Clear(_buckets);
        else _buckets = new int[size];
        _highWater = 0;
        _freeList = -1;
        _freeCount = 0;
    }

    /// <summary>A random used slot, or -1 when there is none.</summary>
    public readonly int RandomSlot<T>(T[] slots, Random random) where T : struct, IChainedSlot
    {
        if (Count == 0) return -1;
        // Rejection sampling is uniform; it is bounded for tables that removals left sparse (slots
        // never move, so a table cannot shrink under a running SCAN), where a walk from a random
        // start takes over: slightly biased towards slots after long gaps, and at worst a pass over
        // every slot ever used, never an unbounded number of draws.
        int tries = Count * 8L >= _highWater ? int.MaxValue : 32;
        for (int t = 0; t < tries; t++)
        {
            int s = random.Next(_highWater);
            if (slots[s].Next >= -1) return s;
        }
        int start = random.Next(_highWater);
        for (int k = 0; k < _highWater; k++)
        {
            int s = start + k;
            if (s >= _highWater) s -= _highWater;
            if (slots[s].Next >= -1) return s;
        }
        return -1;
    }
}
