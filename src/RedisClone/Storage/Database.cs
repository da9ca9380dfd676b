using System.Runtime.CompilerServices;
namespace RedisClone.Storage;

/// <summary>
/// One numbered database's share of keys on one shard: the key table plus expiry (lazy on access,
/// and an active cycle driven by the shard). Touched only by the thread holding the shard's gate.
/// </summary>
internal sealed class Database
{
    private KeyTable _table = new();
    // A cluster node indexes keys by hash slot (see SlotIndex); set before any key is added.
    private bool _indexSlots;
    // The expiry index, Redis's `expires` dict: exactly the slots of the keys that have a TTL, so the
    // active cycle samples only live keys with a TTL. _expiring[0.._expiresCount) holds those slots in
    // no order; _expiringAt[slot] is the slot's position there, meaningful only while its key has a
    // TTL. Setting or clearing a TTL is O(1): append, or move the last entry into the hole (and tell
    // that entry its new position). Every path that gives a key a TTL, takes it away or removes the
    // key goes through SetExpire or RemoveAt, which keep the index; Clear and SwapWith take it along
    // with the table. KeyTable slots never move, so a slot number stays valid until its key is removed.
    private int[] _expiring = [];
    private int[] _expiringAt = [];
    private int _expiresCount;
    // Hashes with field TTLs (Redis's db->hexpires): the slot of each such hash under a time no later
    // than its soonest field TTL, ordered by that time, and each indexed slot's time. The active
    // cycle takes hashes from the front. Add, ReplaceValue and RemoveAt keep it (every way a value
    // enters or leaves a slot), Clear and SwapWith take it with the table, and a command that gives
    // a field a sooner TTL calls UpdateHashExpiry. A TTL removed or a field deleted leaves the time
    // early, which costs the cycle one look (it then files the hash under its real time), never
    // lateness. Null while no hash here has field TTLs, so other keys pay one null test.
    private SortedSet<(long At, int Slot)>? _hashExpiries;
    private Dictionary<int, long>? _hashExpiryOf;
    /// <summary>An estimate of one hash's entry in the field-expiry index (a tree node and a dictionary entry).</summary>
    internal const int HashExpiryEntryBytes = 72;
    // The bytes of this database's keys and values (see MemoryMeter). Swapped with the table by
    // SWAPDB and replaced by FLUSHDB, so the values' references to it stay right.
    private MemoryMeter _meter;

    public Database(ShardStore owner, int index)
    {
        Owner = owner;
        Index = index;
        _meter = new MemoryMeter(owner);
    }

    /// <summary>Bytes held by keys and values (INFO used_memory_dataset's share of this database).</summary>
    public long DatasetBytes => Volatile.Read(ref _meter).Bytes;

    /// <summary>Bytes of the key table's slots and the expiry index's two arrays (overhead, by capacity).</summary>
    public long OverheadBytes => MainTableBytes + ExpiryIndexBytes;

    /// <summary>MEMORY STATS overhead.hashtable.main: the key table's slots (by capacity).</summary>
    public long MainTableBytes => MemoryMeter.ObjectHeader + 64 + MemoryMeter.ArrayBytes(Volatile.Read(ref _table).Capacity, KeyTable.SlotBytes)
        + (Volatile.Read(ref _table).HashSlots?.Bytes ?? 0);

    /// <summary>MEMORY STATS overhead.hashtable.expires: the expiry index's two arrays and the key table's TTL array.</summary>
    public long ExpiryIndexBytes => Volatile.Read(ref _table).ExpireArrayBytes
                                    + MemoryMeter.ArrayBytes(Volatile.Read(ref _expiring).Length, sizeof(int))
                                    + MemoryMeter.ArrayBytes(Volatile.Read(ref _expiringAt).Length, sizeof(int))
                                    + (long)HashesWithFieldTtls * HashExpiryEntryBytes;

    /// <summary>Hashes with field TTLs in the field-expiry index (INFO keyspace's subexpiry).</summary>
    public int HashesWithFieldTtls => Volatile.Read(ref _hashExpiryOf)?.Count ?? 0;

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
            var type = value.GetType();
            if (type != typeof(EmbeddedString) && type != typeof(byte[]) && value is MeteredValue metered) Owner.MarkChanged(metered);
        }
        return slot;
    }

    private int FindLiveTouch(ReadOnlySpan<byte> key, long nowMs)
    {
        int slot = FindLiveNoTouch(key, nowMs);
        if (slot >= 0) _table.Touch(slot, Owner.Access);
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
        long at = _table.ExpireAt(slot); // 0 without a TTL: the flag in the hash word Find just read
        if (at != 0 && at <= nowMs)
        {
            if (Owner.ExpiryByMaster) return ShardStore.RunningMasterCommand ? slot : -1;
            if (!Owner.ExpiryPaused) ExpireSlot(slot);
            return -1;
        }
        return slot;
    }

    /// <summary>
    /// The value of a live key or null; counts a keyspace hit or miss as Redis's lookupKeyRead. A
    /// read does not change the value, so a collection is not marked for re-measuring.
    /// </summary>
    /// <remarks>
    /// A small string is an <see cref="EmbeddedString"/> marker here, which says "string" and nothing
    /// more: to read a string's bytes, use <see cref="FindForRead"/> and <see cref="StringValue.TryGet"/>.
    /// </remarks>
    public object? GetForRead(ReadOnlySpan<byte> key, long nowMs)
    {
        int slot = FindForRead(key, nowMs);
        return slot < 0 ? null : _table.At(slot).Value;
    }

    /// <summary>
    /// <see cref="GetForRead"/> returning the key's slot (-1 when missing): the read lookup for
    /// callers that read the entry itself (a string's bytes).
    /// </summary>
    public int FindForRead(ReadOnlySpan<byte> key, long nowMs)
    {
        int slot = FindLiveTouch(key, nowMs);
        if (slot < 0)
        {
            CountMiss(key);
            return -1;
        }
        Owner.KeyspaceHits++;
        return slot;
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
        Owner.Snapshot?.BeforeChange(this, slot);
        ref var e = ref _table.At(slot);
        if (e.IsEmbedded) GiveKeyItsOwnArray(ref e);
        bool streamGoes = e.Value is RedisStream && HasBlocked;
        if (_hashExpiryOf != null) UnindexHash(slot);
        Release(e.Value);
        e.Value = value;
        Charge(value);
        if (value is RedisHash hash && hash.HasFieldTtls) UpdateHashExpiry(slot);
        if (streamGoes) WakeBlocked(e.Key);
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
        StringValue.TryGet(in e, out var current);
        s = new GrowableString(current, length);
        ReplaceValue(slot, s);
        return s;
    }

    /// <summary>
    /// Adds a string key known to be absent (after <see cref="FindLive"/> returned -1): embedded with
    /// its key in one array when it fits (see <see cref="EmbeddedString"/>), else as its own array.
    /// </summary>
    public int AddString(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, long expireAt = 0)
    {
        if (!EmbeddedString.Fits(key.Length, value.Length)) return Add(key.ToArray(), value.ToArray(), expireAt);
        int slot = _table.AddEmbedded(key, value);
        Owner.MarkInUse(Index);
        if (Owner.Access.Lfu) _table.SetStamp(slot, Owner.Access.NewStamp());
        Owner.Snapshot?.Added(this, slot);
        _meter.Bytes += MemoryMeter.ArrayBytes(key.Length + value.Length);
        Owner.KeyAdded?.Invoke(Index, key);
        if (expireAt != 0) SetExpire(slot, expireAt);
        return slot;
    }

    /// <summary>
    /// Makes <paramref name="value"/> the string at live <paramref name="slot"/> (whatever it held),
    /// keeping the key, its TTL and its flags. A value of the stored string's length is copied over
    /// it in place (no allocation); otherwise a value that fits is embedded with the key (one new
    /// array), and a larger one gets its own array.
    /// </summary>
    public void ReplaceString(int slot, ReadOnlySpan<byte> value)
    {
        ref var e = ref _table.At(slot);
        object old = e.Value;
        var type = old.GetType();
        if (type == typeof(EmbeddedString))
        {
            int keyLength = Unsafe.As<EmbeddedString>(old).KeyLength;
            if (e.Bytes.Length - keyLength == value.Length)
            {
                value.CopyTo(e.Bytes.AsSpan(keyLength));
                return;
            }
        }
        else if (type == typeof(byte[]) && Unsafe.As<byte[]>(old).Length == value.Length)
        {
            value.CopyTo(Unsafe.As<byte[]>(old));
            return;
        }
        var key = e.Key;
        if (!EmbeddedString.Fits(key.Length, value.Length))
        {
            ReplaceValue(slot, value.ToArray());
            return;
        }
        byte[] bytes = EmbeddedString.Pack(key, value);
        Release(old);
        _meter.Bytes += MemoryMeter.ArrayBytes(bytes.Length) - MemoryMeter.ArrayBytes(e.Bytes.Length);
        e.Bytes = bytes;
        e.Value = EmbeddedString.For(key.Length);
    }

    /// <summary>
    /// Before an embedded string gives way to another value: the key moves to an array of its own
    /// (the entry's value is still the marker, which <see cref="Release"/> takes as costing nothing).
    /// </summary>
    private void GiveKeyItsOwnArray(ref KeyTable.Entry e)
    {
        byte[] key = e.Key.ToArray();
        _meter.Bytes += MemoryMeter.ArrayBytes(key.Length) - MemoryMeter.ArrayBytes(e.Bytes.Length);
        e.Bytes = key;
    }

    /// <summary>Adds a key known to be absent (after <see cref="FindLive"/> returned -1).</summary>
    public int Add(byte[] key, object value, long expireAt = 0)
    {
        int slot = _table.Add(key, value);
        Owner.MarkInUse(Index);
        if (Owner.Access.Lfu) _table.SetStamp(slot, Owner.Access.NewStamp());
        Owner.Snapshot?.Added(this, slot);
        _meter.Bytes += MemoryMeter.ArrayBytes(key.Length);
        Charge(value);
        if (value is RedisHash hash && hash.HasFieldTtls) UpdateHashExpiry(slot);
        Owner.KeyAdded?.Invoke(Index, key);
        if (expireAt != 0) SetExpire(slot, expireAt);
        return slot;
    }

    /// <summary>
    /// Gives the key at <paramref name="slot"/> a TTL (Unix ms), or clears it with 0; the only way a
    /// stored key's TTL changes, so the expiry index follows.
    /// </summary>
    public void SetExpire(int slot, long expireAt)
    {
        Owner.Snapshot?.BeforeChange(this, slot);
        bool had = _table.At(slot).HasTtl;
        if (!had && expireAt != 0) IndexExpiring(slot);
        else if (had && expireAt == 0) UnindexExpiring(slot);
        _table.SetExpireAt(slot, expireAt);
    }

    /// <summary>Removes the key at <paramref name="slot"/> (and its TTL): every deletion goes through here.</summary>
    public void RemoveAt(int slot)
    {
        Owner.Snapshot?.BeforeChange(this, slot);
        ref var e = ref _table.At(slot);
        if (e.HasTtl) UnindexExpiring(slot);
        if (_hashExpiryOf != null) UnindexHash(slot);
        _meter.Bytes -= MemoryMeter.ArrayBytes(e.Bytes.Length); // with an embedded value's bytes
        // An XREADGROUP waiting on a stream hears that it went, however it went (DEL, RENAME,
        // expiry...), as Redis signals deleted and overwritten keys as ready.
        byte[]? waitedOn = e.Value is RedisStream && HasBlocked ? e.KeyArray() : null;
        Release(e.Value);
        _table.RemoveAt(slot);
        if (waitedOn != null) WakeBlocked(waitedOn);
    }

    /// <summary>Appends <paramref name="slot"/>, whose key is getting a TTL, to the expiry index.</summary>
    private void IndexExpiring(int slot)
    {
        if (_expiresCount == _expiring.Length)
            Array.Resize(ref _expiring, Math.Max(16, _expiring.Length * 2));
        // Sized by the table's capacity, which only changes by doubling (and by emptying, see below).
        if (slot >= _expiringAt.Length) Array.Resize(ref _expiringAt, _table.Capacity);
        _expiring[_expiresCount] = slot;
        _expiringAt[slot] = _expiresCount;
        _expiresCount++;
    }

    /// <summary>Takes <paramref name="slot"/>, whose key is losing its TTL or going, out of the expiry index.</summary>
    private void UnindexExpiring(int slot)
    {
        int position = _expiringAt[slot];
        int last = --_expiresCount;
        int moved = _expiring[last];
        _expiring[position] = moved;
        _expiringAt[moved] = position;
        if (_expiresCount == 0)
        {
            // No TTL left: large arrays go back (the position array may be stale for a smaller
            // table, e.g. after the key table emptied and gave its arrays back).
            if (_expiring.Length > 1024) _expiring = [];
            if (_expiringAt.Length > 1024 || _expiringAt.Length > _table.Capacity) _expiringAt = [];
        }
        else if (_expiring.Length > 64 && _expiresCount < _expiring.Length / 4)
        {
            // Shrink by half at a quarter full: a burst of TTLs that expired gives its memory back,
            // and growing again costs amortised O(1).
            Array.Resize(ref _expiring, _expiring.Length / 2);
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
        if (value.GetType() == typeof(EmbeddedString)) return; // its bytes are charged with the key's
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
        metered.Pending = false; // listed in this shard below, whatever shard listed it before
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
        if (value.GetType() == typeof(EmbeddedString)) return; // its bytes go with the key's
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
        metered.Pending = false;
    }

    /// <summary>Deletes a live key; false when there was none.</summary>
    public bool Delete(ReadOnlySpan<byte> key, long nowMs)
    {
        int slot = FindLive(key, nowMs);
        if (slot < 0) return false;
        RemoveAt(slot);
        return true;
    }

    /// <summary>Deletes the key if it is live; <paramref name="value"/> is what it held (null when it was not there).</summary>
    public bool Delete(ReadOnlySpan<byte> key, long nowMs, out object? value)
    {
        value = null;
        int slot = FindLive(key, nowMs);
        if (slot < 0) return false;
        value = _table.At(slot).Value;
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
    /// After a write to <paramref name="key"/>: makes its oldest list or sorted set waiter that the
    /// key now serves Ready, the oldest XREADGROUP waiter of each consumer group with new entries,
    /// every XREAD waiter the key serves (they all read the same entries), and every XREADGROUP
    /// waiter whose key or group went away (its command replies the error); never
    /// <paramref name="skip"/>.
    /// </summary>
    /// <remarks>
    /// One waiter at a time, as Redis serves them: a woken waiter re-runs its command on its own
    /// connection, so two woken at once could run in either order, and a later BLMPOP ... COUNT or
    /// XREADGROUP without COUNT could take every element while the older one, finding nothing, went
    /// back to waiting for ever. So while the oldest served waiter is Ready and not yet run, the ones
    /// behind it wait; once it has run (served, answered an error such as BLMOVE's WRONGTYPE
    /// destination, or gone) it calls this again for its keys and the next one in line is woken.
    /// </remarks>
    public void WakeBlocked(ReadOnlySpan<byte> key, BlockedClient? skip = null)
    {
        if (_blocked == null) return;
        var lookup = _blocked.GetAlternateLookup<ReadOnlySpan<byte>>();
        if (!lookup.TryGetValue(key, out var queue)) return;
        int slot = _table.Find(key);
        object? value = slot >= 0 ? _table.At(slot).Value : null;
        bool popperInLine = false; // a list or sorted set waiter is Ready: the rest wait behind it
        List<byte[]>? groupsInLine = null; // likewise per consumer group
        for (int i = 0; i < queue.Count; i++)
        {
            var waiter = queue[i];
            if (waiter == skip || !waiter.IsServedBy(key, value)) continue;
            if (waiter.Kind == BlockedOn.Stream)
            {
                if (waiter.Group != null && value is RedisStream stream && stream.FindGroup(waiter.Group) != null)
                {
                    // New entries for a group: its waiters take them in turn.
                    if (groupsInLine != null && groupsInLine.Exists(g => g.AsSpan().SequenceEqual(waiter.Group))) continue;
                    if (waiter.State == BlockedClient.Ready || waiter.TryFinish(BlockedClient.Ready))
                        (groupsInLine ??= new List<byte[]>(1)).Add(waiter.Group);
                    continue;
                }
                if (waiter.State == BlockedClient.Waiting) waiter.TryFinish(BlockedClient.Ready);
                continue;
            }
            if (popperInLine) continue;
            // A waiter that timed out, was unblocked or disconnected but is not unregistered yet
            // fails TryFinish: the next one is offered the element.
            if (waiter.State == BlockedClient.Ready || waiter.TryFinish(BlockedClient.Ready)) popperInLine = true;
        }
    }

    /// <summary>
    /// After FLUSHDB, FLUSHALL or SWAPDB replaced this database's contents: offers every key with
    /// waiters to them again (Redis's scanDatabaseForReadyKeys and scanDatabaseForDeletedKeys), so
    /// a key swapped in serves its waiters and XREADGROUP waiters whose stream went away hear of it.
    /// </summary>
    public void WakeAllBlocked()
    {
        if (_blocked == null) return;
        foreach (var key in _blocked.Keys) WakeBlocked(key);
    }

    // WATCH: who watches which key of this database. Null until the first WATCH.
    private Dictionary<byte[], List<IKeyWatcher>>? _watchers;

    /// <summary>Someone must hear of this database's key changes: a WATCHer, or client tracking.</summary>
    public bool HasWatchers => _watchers is { Count: > 0 } || Owner.Changes is { Active: true };

    /// <summary>How many of this database's keys someone WATCHes (INFO's total_watched_keys, summed; read from any thread).</summary>
    public int WatchedKeyCount => _watchers?.Count ?? 0;

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
        if (Owner.Changes is { Active: true } changes) changes.KeyChanged(key);
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

    /// <summary>Keeps the keys by cluster hash slot from now on (a cluster node, at start while empty).</summary>
    public void IndexHashSlots()
    {
        _indexSlots = true;
        if (_table.HashSlots == null) _table = new KeyTable(indexSlots: true);
    }

    /// <summary>Drops every key (FLUSHDB); watchers of keys that existed are told.</summary>
    public void Clear()
    {
        Owner.Snapshot?.BeforeClear(this);
        TouchAllWatched();
        _table = new KeyTable(indexSlots: _indexSlots);
        _expiring = [];
        _expiringAt = [];
        _expiresCount = 0;
        _hashExpiries = null;
        _hashExpiryOf = null;
        _meter = new MemoryMeter(Owner);
        WakeAllBlocked();
    }

    /// <summary>Takes another database's keys (SWAPDB swaps contents, not numbers).</summary>
    public void SwapWith(Database other)
    {
        Owner.Snapshot?.BeforeClear(this);
        Owner.Snapshot?.BeforeClear(other);
        (_table, other._table) = (other._table, _table);
        (_expiring, other._expiring) = (other._expiring, _expiring);
        (_expiringAt, other._expiringAt) = (other._expiringAt, _expiringAt);
        (_expiresCount, other._expiresCount) = (other._expiresCount, _expiresCount);
        (_hashExpiries, other._hashExpiries) = (other._hashExpiries, _hashExpiries);
        (_hashExpiryOf, other._hashExpiryOf) = (other._hashExpiryOf, _hashExpiryOf);
        (_meter, other._meter) = (other._meter, _meter);
    }

    private void ExpireSlot(int slot)
    {
        if (HasWatchers) SignalModified(_table.At(slot).Key);
        Owner.KeyExpired?.Invoke(Index, _table.At(slot).KeyArray());
        RemoveAt(slot);
        Owner.ExpiredKeys++;
    }

    // ---------------------------------------------------------------- hash-field expiry

    /// <summary>
    /// Files the hash at <paramref name="slot"/> in the field-expiry index under its soonest field
    /// TTL, or takes it out when it has none. Commands call it after giving fields TTLs (a sooner
    /// TTL must be filed at once); removing TTLs or fields may skip it (see the index's note).
    /// </summary>
    public void UpdateHashExpiry(int slot)
    {
        long at = _table.At(slot).Value is RedisHash hash ? hash.MinExpiry : 0;
        if (_hashExpiryOf != null && _hashExpiryOf.TryGetValue(slot, out long old))
        {
            if (old == at) return;
            _hashExpiries!.Remove((old, slot));
            _hashExpiryOf.Remove(slot);
        }
        if (at == 0)
        {
            if (_hashExpiryOf is { Count: 0 })
            {
                _hashExpiries = null;
                _hashExpiryOf = null;
            }
            return;
        }
        _hashExpiries ??= new SortedSet<(long, int)>();
        _hashExpiryOf ??= new Dictionary<int, long>();
        _hashExpiries.Add((at, slot));
        _hashExpiryOf[slot] = at;
    }

    private void UnindexHash(int slot)
    {
        if (!_hashExpiryOf!.Remove(slot, out long at)) return;
        _hashExpiries!.Remove((at, slot));
        if (_hashExpiryOf.Count == 0)
        {
            _hashExpiries = null;
            _hashExpiryOf = null;
        }
    }

    /// <summary>True when a command may delete an expired field it meets (a master, expiry not paused).</summary>
    public bool MayRemoveExpiredFields => !Owner.ExpiryByMaster && !Owner.ExpiryPaused;

    /// <summary>
    /// True when expired fields count as present: a replica running its master's commands (Redis's
    /// hashTypeGetValue for CLIENT_MASTER), which wait for the master's HDEL.
    /// </summary>
    public bool ExpiredFieldsVisible => Owner.ExpiryByMaster && ShardStore.RunningMasterCommand;

    /// <summary>
    /// Removes the expired field at <paramref name="pos"/> of the hash at <paramref name="slot"/>, as
    /// Redis's lazy field expiry: its HDEL is propagated and expired_subkeys counted. Events, WATCH
    /// signals and deleting the key when the hash empties are the caller's (commands differ).
    /// </summary>
    public void RemoveExpiredField(int slot, RedisHash hash, int pos)
    {
        Owner.Snapshot?.BeforeChange(this, slot);
        if (Owner.FieldExpired is { } expired) expired(Index, _table.At(slot).Key, hash.FieldAt(pos));
        hash.RemoveAt(pos);
        Owner.ExpiredSubkeys++;
        Owner.MarkChanged(hash);
    }

    /// <summary>
    /// Removes every expired field of the hash at <paramref name="slot"/> (up to <paramref name="max"/>),
    /// as Redis's hashTypeExpire: an HDEL propagated for each, one "hexpired" event, and the key
    /// deleted (with its "del" event) when no field is left; else the hash is filed under its next
    /// TTL. Returns how many fields went.
    /// </summary>
    public int ExpireHashFields(int slot, long nowMs, int max = int.MaxValue)
    {
        if (_table.At(slot).Value is not RedisHash hash) return 0;
        int n = 0;
        while (n < max)
        {
            int pos = hash.FirstExpiredPosition(nowMs);
            if (pos < 0) break;
            if (n == 0) Owner.Snapshot?.BeforeChange(this, slot);
            if (Owner.FieldExpired is { } expired) expired(Index, _table.At(slot).Key, hash.FieldAt(pos));
            hash.RemoveAt(pos);
            n++;
        }
        if (n == 0)
        {
            UpdateHashExpiry(slot);
            return 0;
        }
        Owner.ExpiredSubkeys += n;
        Owner.MarkChanged(hash);
        var key = _table.At(slot).KeyArray();
        if (HasWatchers) SignalModified(key);
        bool empty = hash.Count == 0;
        if (empty) RemoveAt(slot);
        else UpdateHashExpiry(slot);
        Owner.HashFieldsExpired?.Invoke(Index, key, empty);
        return n;
    }

    /// <summary>
    /// The active cycle's share for hash fields (Redis's hashTypeDbActiveExpire): takes the hashes
    /// filed before <paramref name="nowMs"/>, soonest first, and removes their expired fields, at most
    /// <paramref name="quota"/> in all. Returns how many went; fewer than the quota means none is left.
    /// </summary>
    public int ExpireFieldsSample(long nowMs, int quota)
    {
        int done = 0;
        int looks = 0;
        while (done < quota && _hashExpiries is { Count: > 0 } index && looks++ < quota)
        {
            var (at, slot) = index.Min;
            if (at >= nowMs) break;
            done += ExpireHashFields(slot, nowMs, quota - done);
        }
        return done;
    }

    /// <summary>
    /// One loop of active expiry, as one pass of Redis's activeExpireCycle over a database: checks up
    /// to <paramref name="sample"/> keys with a TTL (no more than there are, as Redis), picked
    /// uniformly at random among them, and deletes the expired ones. Returns (checked, expired) so
    /// the shard can repeat while too many had expired. Picks are with replacement: checking a live
    /// key twice costs a compare, and a key expired on one pick is gone from the index by the next.
    /// </summary>
    public (int Sampled, int Expired) ExpireSample(long nowMs, int sample, Random random)
    {
        int sampled = 0, expired = 0;
        sample = Math.Min(sample, _expiresCount);
        while (sampled < sample && _expiresCount > 0)
        {
            int slot = _expiring[random.Next(_expiresCount)];
            sampled++;
            if (_table.ExpireAt(slot) <= nowMs)
            {
                ExpireSlot(slot);
                expired++;
            }
        }
        return (sampled, expired);
    }

    /// <summary>
    /// MEMORY USAGE: the bytes the key at <paramref name="slot"/> holds by this server's accounting
    /// (<see cref="MemoryMeter"/>): its key array (with an embedded value), its value as measured now,
    /// its key table slot, and its two expiry index entries when it has a TTL.
    /// </summary>
    public long MemoryUsage(int slot)
    {
        ref var e = ref _table.At(slot);
        long n = MemoryMeter.ArrayBytes(e.Bytes.Length) + KeyTable.SlotBytes;
        object value = e.Value;
        if (value.GetType() == typeof(byte[])) n += MemoryMeter.ArrayBytes(Unsafe.As<byte[]>(value).Length);
        else if (value.GetType() == typeof(EmbeddedString)) { } // counted with the key
        else if (value is GrowableString grown) n += grown.AllocatedBytes;
        else if (value is MeteredValue metered) n += metered.AllocatedBytes();
        else n += MemoryMeter.OtherValueBytes;
        if (e.HasTtl) n += sizeof(long) + 2 * sizeof(int);
        if (_hashExpiryOf != null && _hashExpiryOf.ContainsKey(slot)) n += HashExpiryEntryBytes;
        return n;
    }

    /// <summary>
    /// Offers up to <paramref name="samples"/> keys picked at random (among all keys, or among those
    /// with a TTL for the volatile policies) to the eviction <paramref name="pool"/>, each scored as
    /// <paramref name="policy"/> ranks it: idle time (LRU), 255 minus the decayed counter (LFU), or
    /// the sooner expiry (TTL). Redis's evictionPoolPopulate, with picks made one at a time.
    /// </summary>
    public void OfferEvictionCandidates(EvictionPool pool, int shard, EvictionPolicy policy, int samples, Random random)
    {
        bool volatileOnly = policy.VolatileOnly();
        int available = volatileOnly ? _expiresCount : _table.Count;
        int n = Math.Min(samples, available);
        var access = Owner.Access;
        for (int i = 0; i < n; i++)
        {
            int slot = volatileOnly ? _expiring[random.Next(_expiresCount)] : _table.RandomSlot(random);
            if (slot < 0) return;
            ref var e = ref _table.At(slot);
            // Idle seconds and LFU counters tie often (every key written in the same second, every
            // new key at 5): a random low byte breaks ties, so equal candidates from every shard
            // and database get their turn rather than the ones sampled first.
            ulong score = policy == EvictionPolicy.VolatileTtl
                ? ulong.MaxValue - (ulong)_table.ExpireAt(slot)
                : access.EvictionScore(_table.LastAccess(slot)) << 8 | (uint)random.Next(256);
            pool.Offer(score, shard, Index, e.Key);
        }
    }

    /// <summary>A random key's slot for the random policies (among those with a TTL when <paramref name="volatileOnly"/>), or -1.</summary>
    public int RandomEvictionSlot(bool volatileOnly, Random random)
    {
        if (!volatileOnly) return _table.RandomSlot(random);
        return _expiresCount == 0 ? -1 : _expiring[random.Next(_expiresCount)];
    }

    /// <summary>
    /// The slot of <paramref name="key"/> if it may still be evicted (present; with a TTL when
    /// <paramref name="volatileOnly"/>), else -1: a pool entry can be a ghost by the time it is used.
    /// </summary>
    public int FindEvictable(ReadOnlySpan<byte> key, bool volatileOnly)
    {
        int slot = _table.Find(key);
        if (slot < 0 || (volatileOnly && !_table.At(slot).HasTtl)) return -1;
        return slot;
    }

    /// <summary>
    /// Deletes the key at <paramref name="slot"/> because maxmemory needs the room: watchers hear of
    /// it, the "evicted" event and its DEL go out (<see cref="ShardStore.KeyEvicted"/>), evicted_keys
    /// counts it.
    /// </summary>
    public void Evict(int slot)
    {
        var key = _table.At(slot).KeyArray();
        RemoveAt(slot);
        Owner.EvictedKeys++;
        if (HasWatchers) SignalModified(key);
        Owner.KeyEvicted?.Invoke(Index, key);
    }

    /// <summary>
    /// The mean remaining TTL of up to 64 keys with a TTL, for INFO's avg_ttl (0 when no key has
    /// one). Redis keeps a running average of its expiry samples; any fair sample serves.
    /// </summary>
    public long AverageTtl(long nowMs)
    {
        int n = Math.Min(_expiresCount, 64);
        if (n == 0) return 0;
        long sum = 0;
        for (int i = 0; i < n; i++) sum += Math.Max(0, _table.ExpireAt(_expiring[i]) - nowMs);
        return sum / n;
    }

    /// <summary>
    /// For tests: null when the expiry index holds exactly the keys with a TTL, each once, with
    /// right back-references; otherwise what is wrong.
    /// </summary>
    internal string? CheckExpiryIndex()
    {
        var seen = new HashSet<int>();
        for (int i = 0; i < _expiresCount; i++)
        {
            int slot = _expiring[i];
            if (!seen.Add(slot)) return $"slot {slot} indexed twice";
            if (!_table.IsUsed(slot)) return $"slot {slot} indexed but free";
            if (!_table.At(slot).HasTtl) return $"slot {slot} indexed without a TTL";
            if (_expiringAt[slot] != i) return $"slot {slot} at {i} thinks it is at {_expiringAt[slot]}";
        }
        for (int s = 0; s < _table.SlotCount; s++)
            if (_table.IsUsed(s) && _table.At(s).HasTtl && !seen.Contains(s))
                return $"slot {s} has a TTL but is not indexed";
        return CheckHashExpiryIndex();
    }

    /// <summary>
    /// For tests: null when the field-expiry index files every hash with field TTLs no later than its
    /// soonest one and holds nothing else; otherwise what is wrong.
    /// </summary>
    internal string? CheckHashExpiryIndex()
    {
        int indexed = _hashExpiryOf?.Count ?? 0;
        if ((_hashExpiries?.Count ?? 0) != indexed) return "hash expiry index: tree and map disagree";
        if (_hashExpiryOf != null)
            foreach (var (slot, at) in _hashExpiryOf)
            {
                if (!_table.IsUsed(slot)) return $"hash expiry index: slot {slot} is free";
                if (_table.At(slot).Value is not RedisHash) return $"hash expiry index: slot {slot} is not a hash";
                if (!_hashExpiries!.Contains((at, slot))) return $"hash expiry index: slot {slot} missing from the tree";
            }
        for (int s = 0; s < _table.SlotCount; s++)
        {
            if (!_table.IsUsed(s) || _table.At(s).Value is not RedisHash hash || !hash.HasFieldTtls) continue;
            if (_hashExpiryOf == null || !_hashExpiryOf.TryGetValue(s, out long at)) return $"hash at slot {s} has field TTLs but is not indexed";
            if (at > hash.MinExpiry) return $"hash at slot {s} is filed at {at}, after its soonest field TTL {hash.MinExpiry}";
        }
        return null;
    }
}
