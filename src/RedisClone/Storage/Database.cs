using System.Runtime.CompilerServices;
namespace RedisClone.Storage;

/// <summary>
/// One numbered database's share of keys on one shard: the key table plus expiry (lazy on access,
/// and an active cycle driven by the shard). Touched only by the thread holding the shard's gate.
/// </summary>
internal sealed class Database
{
    private KeyTable _table = new();
    private int _expiresCount;
    // Slots that had a TTL set: candidates for active expiry sampling. Stale entries (the key lost
    // its TTL or was deleted) are dropped when sampled; the list is rebuilt when it runs far ahead.
    private List<int> _expiring = new();
    // The bytes of this database's keys and values (see MemoryMeter). Swapped with the table by
    // SWAPDB and replaced by FLUSHDB, so the values' references to it stay right.
    private MemoryMeter _meter;

    public Database(ShardStore owner, int index)
    {
        Owner = owner;
        Index = index;
        _meter = new MemoryMeter();
    }

    /// <summary>Bytes held by keys and values (INFO used_memory_dataset's share of this database).</summary>
    public long DatasetBytes => Volatile.Read(ref _meter).Bytes;

    /// <summary>Bytes of the key table's slots and the expiry candidates (overhead, by capacity).</summary>
    public long OverheadBytes
    {
        get
        {
            var table = Volatile.Read(ref _table);
            return MemoryMeter.ObjectHeader + 64 + MemoryMeter.ArrayBytes(table.Capacity, KeyTable.SlotBytes)
                   + MemoryMeter.ArrayBytes(_expiring.Capacity, 4);
        }
    }

    /// <summary>This database's number (it keeps it across SWAPDB, which swaps contents).</summary>
    public int Index { get; }

    public ShardStore Owner { get; }

    public KeyTable Table => _table;

    public int Count => _table.Count;

    public int ExpiresCount => _expiresCount;

    /// <summary>
    /// Slot of a live key (an expired one is deleted on the way), or -1; stamps the key as accessed.
    /// This is the write lookup: a collection found here may be edited in place, so it is marked for
    /// its size to be settled at the shard's next tick (<see cref="ShardStore.SettleMemory"/>).
    /// </summary>
    public int FindLive(ReadOnlySpan<byte> key, long nowMs)
    {
        int slot = FindLiveTouch(key, nowMs);
        if (slot >= 0)
        {
            object value = _table.At(slot).Value;
            if (value.GetType() != typeof(byte[]) && value is MeteredValue metered) Owner.MarkChanged(metered);
        }
        return slot;
    }

    private int FindLiveTouch(ReadOnlySpan<byte> key, long nowMs)
    {
        int slot = FindLiveNoTouch(key, nowMs);
        if (slot >= 0) _table.Touch(slot);
        return slot;
    }

    /// <summary>
    /// <see cref="FindLive"/> without refreshing the access time OBJECT IDLETIME reports: Redis's
    /// LOOKUP_NOTOUCH, for commands that only inspect a key (TYPE, EXISTS, TTL, OBJECT).
    /// </summary>
    public int FindLiveNoTouch(ReadOnlySpan<byte> key, long nowMs)
    {
        int slot = _table.Find(key);
        if (slot < 0) return -1;
        long at = _table.At(slot).ExpireAt;
        if (at != 0 && at <= nowMs)
        {
            ExpireSlot(slot);
            return -1;
        }
        return slot;
    }

    /// <summary>
    /// The value of a live key or null; counts a keyspace hit or miss as Redis's lookupKeyRead. A
    /// read does not change the value, so a collection is not marked for re-measuring.
    /// </summary>
    public object? GetForRead(ReadOnlySpan<byte> key, long nowMs)
    {
        int slot = FindLiveTouch(key, nowMs);
        if (slot < 0)
        {
            CountMiss(key);
            return null;
        }
        Owner.KeyspaceHits++;
        return _table.At(slot).Value;
    }

    /// <summary>A read lookup found nothing: keyspace_misses, and a "keymiss" event when enabled.</summary>
    public void CountMiss(ReadOnlySpan<byte> key)
    {
        Owner.KeyspaceMisses++;
        Owner.KeyMissed?.Invoke(Index, key);
    }

    /// <summary>Adds or overwrites a key; <paramref name="expireAt"/> 0 clears any TTL.</summary>
    public int Set(ReadOnlySpan<byte> key, object value, long expireAt, long nowMs)
    {
        int slot = FindLive(key, nowMs);
        if (slot < 0) return Add(key.ToArray(), value, expireAt);
        ReplaceValue(slot, value);
        _table.At(slot).HashAndFlag &= int.MaxValue;
        SetExpire(slot, expireAt);
        return slot;
    }

    /// <summary>
    /// Puts <paramref name="value"/> in place of the value at <paramref name="slot"/>, keeping the key,
    /// its TTL and its flags. Every new value for an existing key goes through here (or
    /// <see cref="Set"/>), so the memory meter follows.
    /// </summary>
    public void ReplaceValue(int slot, object value)
    {
        ref var e = ref _table.At(slot);
        Release(e.Value);
        e.Value = value;
        Charge(value);
    }

    /// <summary>
    /// Lengthens the string at <paramref name="slot"/> to <paramref name="length"/> bytes in place, the
    /// added bytes zero, and returns it for the caller to write into. An exact <c>byte[]</c> becomes a
    /// <see cref="GrowableString"/> with Redis's spare room first (the value object changes once);
    /// after that, appends fill the room and reallocate only when it runs out. The meter follows the
    /// capacity at once.
    /// </summary>
    public GrowableString GrowString(int slot, int length)
    {
        ref var e = ref _table.At(slot);
        if (e.Value is GrowableString s)
        {
            long before = s.AllocatedBytes;
            s.GrowZero(length);
            _meter.Bytes += s.AllocatedBytes - before;
            return s;
        }
        s = new GrowableString((byte[])e.Value, length);
        ReplaceValue(slot, s);
        return s;
    }

    /// <summary>Adds a key known to be absent (after <see cref="FindLive"/> returned -1).</summary>
    public int Add(byte[] key, object value, long expireAt = 0)
    {
        int slot = _table.Add(key, value);
        _meter.Bytes += MemoryMeter.ArrayBytes(key.Length);
        Charge(value);
        Owner.KeyAdded?.Invoke(Index, key);
        if (expireAt != 0) SetExpire(slot, expireAt);
        return slot;
    }

    public void SetExpire(int slot, long expireAt)
    {
        ref var e = ref _table.At(slot);
        if (e.ExpireAt == 0 && expireAt != 0)
        {
            _expiresCount++;
            _expiring.Add(slot);
            if (_expiring.Count > 2 * _expiresCount + 1024) RebuildExpiring();
        }
        else if (e.ExpireAt != 0 && expireAt == 0)
        {
            _expiresCount--;
        }
        e.ExpireAt = expireAt;
    }

    public void RemoveAt(int slot)
    {
        ref var e = ref _table.At(slot);
        if (e.ExpireAt != 0) _expiresCount--;
        _meter.Bytes -= MemoryMeter.ArrayBytes(e.Key.Length);
        Release(e.Value);
        _table.RemoveAt(slot);
        if (_table.Count == 0)
        {
            // The table gave its arrays back (KeyTable.Clear); so does the candidate list.
            if (_expiring.Capacity > 1024) _expiring = new List<int>();
            else _expiring.Clear();
            _expiresCount = 0;
        }
    }

    /// <summary>Charges a value that has just been stored here.</summary>
    private void Charge(object value)
    {
        if (value.GetType() == typeof(byte[]))
        {
            _meter.Bytes += MemoryMeter.ArrayBytes(Unsafe.As<byte[]>(value).Length);
            return;
        }
        if (value is GrowableString grown)
        {
            _meter.Bytes += grown.AllocatedBytes; // by capacity; GrowString charges any change
            return;
        }
        if (value is not MeteredValue metered)
        {
            _meter.Bytes += MemoryMeter.OtherValueBytes; // a type without its own estimate yet
            return;
        }
        metered.Meter = _meter;
        metered.ChargedBytes = metered.AllocatedBytes();
        _meter.Bytes += metered.ChargedBytes;
        // It may be filled right after being stored (a new list, then the push).
        Owner.MarkChanged(metered);
    }

    /// <summary>Takes off what was charged for a value leaving this database (deleted, overwritten, moved).</summary>
    private void Release(object value)
    {
        if (value.GetType() == typeof(byte[]))
        {
            _meter.Bytes -= MemoryMeter.ArrayBytes(Unsafe.As<byte[]>(value).Length);
            return;
        }
        if (value is GrowableString grown)
        {
            _meter.Bytes -= grown.AllocatedBytes;
            return;
        }
        if (value is not MeteredValue metered)
        {
            _meter.Bytes -= MemoryMeter.OtherValueBytes;
            return;
        }
        _meter.Bytes -= metered.ChargedBytes;
        metered.Meter = null;
        metered.ChargedBytes = 0;
    }

    /// <summary>Deletes a live key; false when there was none.</summary>
    public bool Delete(ReadOnlySpan<byte> key, long nowMs)
    {
        int slot = FindLive(key, nowMs);
        if (slot < 0) return false;
        RemoveAt(slot);
        return true;
    }

    // Blocked clients (BLPOP...) waiting for each key, first come first served. Null until the first.
    private Dictionary<byte[], List<BlockedClient>>? _blocked;

    public bool HasBlocked => _blocked is { Count: > 0 };

    public void Block(byte[] key, BlockedClient client)
    {
        _blocked ??= new Dictionary<byte[], List<BlockedClient>>(ByteArrayComparer.Instance);
        if (!_blocked.TryGetValue(key, out var queue)) _blocked[key] = queue = new List<BlockedClient>(1);
        queue.Add(client);
    }

    public void Unblock(byte[] key, BlockedClient client)
    {
        if (_blocked == null || !_blocked.TryGetValue(key, out var queue)) return;
        queue.Remove(client);
        if (queue.Count == 0) _blocked.Remove(key);
    }

    /// <summary>
    /// After a write to <paramref name="key"/>: makes as many of its waiters Ready, oldest first, as
    /// the key now has elements of the type they wait for. Each re-runs its command to take one.
    /// </summary>
    public void WakeBlocked(ReadOnlySpan<byte> key)
    {
        if (_blocked == null) return;
        var lookup = _blocked.GetAlternateLookup<ReadOnlySpan<byte>>();
        if (!lookup.TryGetValue(key, out var queue)) return;
        int slot = _table.Find(key);
        if (slot < 0) return;
        object value = _table.At(slot).Value;
        bool isSortedSet = value is RedisSortedSet;
        long available = value is RedisList list ? list.Count : value is RedisSortedSet zset ? zset.Count : 0;
        for (int i = 0; i < queue.Count && available > 0; i++)
        {
            var waiter = queue[i];
            if (waiter.WantsSortedSet != isSortedSet) continue;
            // A waiter already woken but not yet run will take an element too: counting it keeps a
            // later waiter from being woken for the same element and racing the older one for it.
            if (waiter.State == BlockedClient.Ready || waiter.TryFinish(BlockedClient.Ready)) available--;
        }
    }

    // WATCH: who watches which key of this database. Null until the first WATCH.
    private Dictionary<byte[], List<IKeyWatcher>>? _watchers;

    public bool HasWatchers => _watchers is { Count: > 0 };

    public void Watch(ReadOnlySpan<byte> key, IKeyWatcher watcher)
    {
        _watchers ??= new Dictionary<byte[], List<IKeyWatcher>>(ByteArrayComparer.Instance);
        var lookup = _watchers.GetAlternateLookup<ReadOnlySpan<byte>>();
        if (!lookup.TryGetValue(key, out var list)) lookup[key] = list = new List<IKeyWatcher>(1);
        if (!list.Contains(watcher)) list.Add(watcher);
    }

    public void Unwatch(ReadOnlySpan<byte> key, IKeyWatcher watcher)
    {
        if (_watchers == null) return;
        var lookup = _watchers.GetAlternateLookup<ReadOnlySpan<byte>>();
        if (!lookup.TryGetValue(key, out var list)) return;
        list.Remove(watcher);
        if (list.Count == 0) lookup.Remove(key);
    }

    /// <summary>Tells the key's watchers it changed (Redis's touchWatchedKey).</summary>
    public void SignalModified(ReadOnlySpan<byte> key)
    {
        if (_watchers == null) return;
        if (_watchers.GetAlternateLookup<ReadOnlySpan<byte>>().TryGetValue(key, out var list))
            foreach (var w in list) w.Invalidate();
    }

    /// <summary>
    /// FLUSHDB/FLUSHALL/SWAPDB: every watched key that exists here (or in <paramref name="other"/>,
    /// the database swapped in) counts as changed, as Redis's touchAllWatchedKeysInDb.
    /// </summary>
    public void TouchAllWatched(Database? other = null)
    {
        if (_watchers == null) return;
        foreach (var (key, list) in _watchers)
        {
            if (_table.Find(key) < 0 && (other == null || other._table.Find(key) < 0)) continue;
            foreach (var w in list) w.Invalidate();
        }
    }

    /// <summary>Drops every key (FLUSHDB); watchers of keys that existed are told.</summary>
    public void Clear()
    {
        TouchAllWatched();
        _table = new KeyTable();
        _expiring = new List<int>();
        _expiresCount = 0;
        _meter = new MemoryMeter();
    }

    /// <summary>Takes another database's keys (SWAPDB swaps contents, not numbers).</summary>
    public void SwapWith(Database other)
    {
        (_table, other._table) = (other._table, _table);
        (_expiring, other._expiring) = (other._expiring, _expiring);
        (_expiresCount, other._expiresCount) = (other._expiresCount, _expiresCount);
        (_meter, other._meter) = (other._meter, _meter);
    }

    private void ExpireSlot(int slot)
    {
        if (HasWatchers) SignalModified(_table.At(slot).Key);
        Owner.KeyExpired?.Invoke(Index, _table.At(slot).Key);
        RemoveAt(slot);
        Owner.ExpiredKeys++;
    }

    /// <summary>
    /// One round of active expiry, as Redis's activeExpireCycle: sample up to
    /// <paramref name="sample"/> keys with a TTL, delete the expired ones; returns (sampled, expired)
    /// so the shard can repeat while more than a quarter of a sample had expired.
    /// </summary>
    public (int Sampled, int Expired) ExpireSample(long nowMs, int sample, Random random)
    {
        int sampled = 0, expired = 0, tries = 0;
        while (sampled < sample && _expiring.Count > 0 && tries++ < sample * 4)
        {
            int pick = random.Next(_expiring.Count);
            int slot = _expiring[pick];
            if (!_table.IsUsed(slot) || _table.At(slot).ExpireAt == 0)
            {
                RemoveCandidate(pick);
                continue;
            }
            sampled++;
            if (_table.At(slot).ExpireAt <= nowMs)
            {
                RemoveCandidate(pick);
                ExpireSlot(slot);
                expired++;
            }
        }
        return (sampled, expired);
    }

    /// <summary>Sum of remaining TTLs of a sample, for INFO's avg_ttl (0 when no TTL keys).</summary>
    public long AverageTtl(long nowMs)
    {
        if (_expiresCount == 0) return 0;
        long sum = 0;
        int n = 0;
        foreach (int slot in _expiring)
        {
            if (n >= 64) break;
            if (!_table.IsUsed(slot)) continue;
            long at = _table.At(slot).ExpireAt;
            if (at == 0) continue;
            sum += Math.Max(0, at - nowMs);
            n++;
        }
        return n == 0 ? 0 : sum / n;
    }

    private void RemoveCandidate(int index)
    {
        int last = _expiring.Count - 1;
        _expiring[index] = _expiring[last];
        _expiring.RemoveAt(last);
    }

    private void RebuildExpiring()
    {
        _expiring.Clear();
        for (int s = 0; s < _table.SlotCount; s++)
            if (_table.IsUsed(s) && _table.At(s).ExpireAt != 0) _expiring.Add(s);
    }
}
