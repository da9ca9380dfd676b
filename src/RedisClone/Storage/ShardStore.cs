namespace RedisClone.Storage;

/// <summary>
/// All data one shard owns: its part of every numbered database, and the shard's counters.
/// Counters are written under the shard's gate and read without it by INFO (a momentarily stale
/// figure is fine there).
/// </summary>
/// <summary>Receives a key a keyspace event is about (a span: no copy unless an event is published).</summary>
internal delegate void KeyEventHandler(int db, ReadOnlySpan<byte> key);

/// <summary>Receives a hash field the server removed because its TTL passed (to propagate its HDEL).</summary>
internal delegate void FieldExpiredHandler(int db, ReadOnlySpan<byte> key, ReadOnlySpan<byte> field);

internal sealed class ShardStore
{
    private readonly Database[] _databases;

    public ShardStore(int databases)
    {
        _databases = new Database[databases];
        for (int i = 0; i < databases; i++) _databases[i] = new Database(this, i);
        _emptyDatabaseBytes = _databases[0].DatasetBytes + _databases[0].OverheadBytes;
        if (databases > 64) _inUse = ulong.MaxValue; // past 64 databases every one is summed
    }

    // Databases that ever held a key on this shard (bit per number, SWAPDB marks both): the others
    // still have their empty tables, whose size is known, so UsedBytes (read before every command
    // when maxmemory is set) sums one database per shard in the common case, not all sixteen.
    private ulong _inUse;
    private readonly long _emptyDatabaseBytes;

    /// <summary>Notes that database <paramref name="index"/> holds, or held, keys (under the gate).</summary>
    public void MarkInUse(int index)
    {
        ulong bit = 1UL << (index & 63);
        if ((_inUse & bit) == 0) Volatile.Write(ref _inUse, _inUse | bit);
    }

    public Database this[int index] => _databases[index];

    public int DatabaseCount => _databases.Length;

    /// <summary>Called (under the shard's gate) for every key deleted because it expired: "expired" events.</summary>
    public Action<int, byte[]>? KeyExpired { get; set; }

    /// <summary>Called (under the gate) for every hash field removed because its TTL passed, before it goes: its HDEL.</summary>
    public FieldExpiredHandler? FieldExpired { get; set; }

    /// <summary>
    /// Called (under the gate) after the active cycle (or HRANDFIELD) removed a hash's expired fields:
    /// "hexpired", and "del" when the hash went with them (the bool).
    /// </summary>
    public Action<int, byte[], bool>? HashFieldsExpired { get; set; }

    /// <summary>
    /// The background save in progress, if any: told (under the shard's gate) before a key that may
    /// belong to the snapshot changes or goes, and when a key is created, so the snapshot keeps the
    /// dataset as it was when the save began.
    /// </summary>
    public ISnapshotHook? Snapshot { get; set; }

    /// <summary>Called (under the shard's gate) for every key created: "new" events.</summary>
    public KeyEventHandler? KeyAdded { get; set; }

    /// <summary>Called for a read lookup that found no key: "keymiss" events (class m).</summary>
    public KeyEventHandler? KeyMissed { get; set; }

    /// <summary>
    /// CLIENT PAUSE stops expiry: while set, neither the active cycle nor a lookup deletes an
    /// expired key (a lookup still treats it as missing), as Redis's PAUSE_ACTION_EXPIRE.
    /// </summary>
    public bool ExpiryPaused
    {
        get => Volatile.Read(ref _expiryPaused);
        set => Volatile.Write(ref _expiryPaused, value);
    }
    private bool _expiryPaused;

    /// <summary>
    /// A replica: keys expire only through its master's DELs. The active cycle stops, and a lookup
    /// treats an expired key as missing without deleting it, except for the master's own commands
    /// (<see cref="RunningMasterCommand"/>), which see it as it is (Redis's expireIfNeeded on a replica).
    /// </summary>
    public bool ExpiryByMaster
    {
        get => Volatile.Read(ref _expiryByMaster);
        set => Volatile.Write(ref _expiryByMaster, value);
    }
    private bool _expiryByMaster;

    /// <summary>Set on the thread running a command of a replica's master client.</summary>
    [ThreadStatic] public static bool RunningMasterCommand;

    /// <summary>Told of every modified key, as WATCHers are (client tracking); set before clients connect.</summary>
    public IKeyChangeListener? Changes { get; set; }

    public long KeyspaceHits;
    public long KeyspaceMisses;
    public long ExpiredKeys;
    /// <summary>Hash fields removed because their TTL passed (INFO's expired_subkeys).</summary>
    public long ExpiredSubkeys;
    public long EvictedKeys;

    /// <summary>What keys' access stamps mean (LRU or LFU), shared by the server's shards.</summary>
    public KeyAccess Access { get; set; } = new();

    /// <summary>Called (under the shard's gate) for every key evicted by maxmemory: "evicted" events and the DEL it propagates.</summary>
    public Action<int, byte[]>? KeyEvicted { get; set; }

    // Collections looked up since the last settle: their size may have changed in place.
    private List<MeteredValue> _changed = new(16);

    /// <summary>Bytes of keys and values in every database of this shard.</summary>
    public long DatasetBytes
    {
        get
        {
            long n = 0;
            foreach (var db in _databases) n += db.DatasetBytes;
            return n;
        }
    }

    /// <summary>Bytes of the key tables' own structures in every database of this shard.</summary>
    public long OverheadBytes
    {
        get
        {
            long n = 0;
            foreach (var db in _databases) n += db.OverheadBytes;
            return n;
        }
    }

    /// <summary>Bytes of keys, values and key tables in every database of this shard: its share of used_memory.</summary>
    public long UsedBytes
    {
        get
        {
            ulong inUse = Volatile.Read(ref _inUse);
            if (inUse == ulong.MaxValue)
            {
                long all = 0;
                foreach (var db in _databases) all += db.DatasetBytes + db.OverheadBytes;
                return all;
            }
            long n = (_databases.Length - System.Numerics.BitOperations.PopCount(inUse)) * _emptyDatabaseBytes;
            for (ulong m = inUse; m != 0; m &= m - 1)
            {
                var db = _databases[System.Numerics.BitOperations.TrailingZeroCount(m)];
                n += db.DatasetBytes + db.OverheadBytes;
            }
            return n;
        }
    }

    /// <summary>True when some collection awaits <see cref="SettleMemory"/>.</summary>
    public bool HasUnsettled => Volatile.Read(ref _changed).Count > 0;

    /// <summary>Notes a collection that may be edited in place (under the gate).</summary>
    public void MarkChanged(MeteredValue value)
    {
        if (value.Pending) return;
        value.Pending = true;
        _changed.Add(value);
    }

    /// <summary>
    /// Under the shard's gate: charges each collection noted since the last call with what it holds
    /// now. A collection deleted meanwhile has no meter any more; one moved to another shard was
    /// marked there when it arrived (its <see cref="MeteredValue.Meter"/> is of that shard), and is
    /// that shard's to settle: only that reference is read here.
    /// </summary>
    public void SettleMemory()
    {
        foreach (var value in _changed)
        {
            var meter = value.Meter;
            if (meter == null || meter.Store != this || !value.Pending) continue; // deleted, moved away or settled
            value.Pending = false;
            long now = value.AllocatedBytes();
            meter.Bytes += now - value.ChargedBytes;
            value.ChargedBytes = now;
        }
        if (_changed.Capacity > 4096) _changed = new List<MeteredValue>(16);
        else _changed.Clear();
    }

    /// <summary>SWAPDB: the two numbers exchange their contents on this shard.</summary>
    public void Swap(int a, int b)
    {
        MarkInUse(a);
        MarkInUse(b);
        _databases[a].TouchAllWatched(_databases[b]);
        _databases[b].TouchAllWatched(_databases[a]);
        _databases[a].SwapWith(_databases[b]);
        _databases[a].WakeAllBlocked();
        _databases[b].WakeAllBlocked();
    }
}
