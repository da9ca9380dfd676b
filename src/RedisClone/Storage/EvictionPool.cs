namespace RedisClone.Storage;

/// <summary>
/// The best eviction candidates seen so far, across databases and shards (Redis's EvictionPoolLRU,
/// 16 entries): each round of sampling offers keys, the pool keeps the 16 with the highest scores,
/// and eviction takes from the top. Kept from one eviction to the next, so a good candidate found
/// once is not forgotten because the next sample missed it; an entry whose key has gone or changed
/// shard ownership meanwhile is a ghost, skipped when taken. Used by one evicting thread at a time.
/// </summary>
internal sealed class EvictionPool
{
    public const int Size = 16;

    private struct Entry
    {
        public ulong Score;
        public int Shard;
        public int Db;
        public byte[] Key;
    }

    // Ascending by score: the best candidate is the last one.
    private readonly Entry[] _entries = new Entry[Size];
    private int _count;

    public int Count => _count;

    /// <summary>Keeps the key if the pool has room or it beats the worst entry (its bytes are copied then).</summary>
    public void Offer(ulong score, int shard, int db, ReadOnlySpan<byte> key)
    {
        if (_count == Size && score <= _entries[0].Score) return;
        for (int i = 0; i < _count; i++)
            if (_entries[i].Shard == shard && _entries[i].Db == db && key.SequenceEqual(_entries[i].Key))
            {
                _entries[i].Score = score; // seen again: its score now (it may have been accessed)
                Resort(i);
                return;
            }
        int at;
        if (_count < Size) at = _count++;
        else at = 0; // replaces the worst
        _entries[at] = new Entry { Score = score, Shard = shard, Db = db, Key = key.ToArray() };
        Resort(at);
    }

    /// <summary>Takes the best candidate out of the pool; false when it is empty.</summary>
    public bool TryTakeBest(out int shard, out int db, out byte[] key)
    {
        if (_count == 0)
        {
            shard = db = 0;
            key = [];
            return false;
        }
        ref var best = ref _entries[--_count];
        shard = best.Shard;
        db = best.Db;
        key = best.Key;
        best = default;
        return true;
    }

    /// <summary>Drops every entry (the policy changed: the scores mean something else now).</summary>
    public void Clear()
    {
        Array.Clear(_entries);
        _count = 0;
    }

    // One entry changed: move it to its place (insertion sort step, both ways).
    private void Resort(int i)
    {
        while (i > 0 && _entries[i - 1].Score > _entries[i].Score)
        {
            (_entries[i - 1], _entries[i]) = (_entries[i], _entries[i - 1]);
            i--;
        }
        while (i + 1 < _count && _entries[i + 1].Score < _entries[i].Score)
        {
            (_entries[i + 1], _entries[i]) = (_entries[i], _entries[i + 1]);
            i++;
        }
    }
}
