using System.Buffers;
using System.Diagnostics;
using RedisClone.Server;
using RedisClone.Storage;

namespace RedisClone.Persistence;

/// <summary>
/// Writes the dataset to an RDB file as it was at one instant, consistent across all shards: in the
/// foreground (SAVE, shutdown: the caller holds every gate throughout) or in the background
/// (BGSAVE, save points) while clients keep being served, without fork.
/// </summary>
/// <remarks>
/// <para><b>How the background save stays consistent.</b> It starts with every shard's gate held at
/// once (the instant of the snapshot): each database records how many key slots it has, and a hook
/// (<see cref="ISnapshotHook"/>) is installed on every shard. Then the gates are released and a
/// saver thread walks each database slot by slot, taking the shard's gate for a short run of keys
/// at a time and writing every key it has not written yet. Meanwhile, before a command changes a
/// key, or a key is deleted, expired or flushed, the hook writes that key's current value first
/// (into a queue the saver appends to the file) and marks it written; a key created after the
/// instant is marked written without being written. So every key appears exactly once, with its
/// value as of the instant. Redis gets the same guarantee from fork's copy-on-write pages, paying
/// up to a copy of every page touched during the save; here the extra memory is only the queue of
/// keys written ahead, and the pauses are one run of keys long.</para>
/// <para>Commands change keys in place, so the hook must run before the handler: the execution layer
/// calls <see cref="BeforeWrite"/> with a write command's keys while a save is running.</para>
/// </remarks>
internal sealed class RdbSnapshot
{
    /// <summary>Keys written per turn of a shard's gate by the background saver.</summary>
    private const int KeysPerTurn = 32;

    /// <summary>Bytes of serialized keys per turn: a few big values end a turn early.</summary>
    private const int BytesPerTurn = 256 * 1024;

    private readonly RedisServer _server;

    /// <summary>The replication aux fields at the instant (Redis's rdbSaveInfo), or null.</summary>
    private readonly string _path;
    private readonly bool _compress, _checksum, _writeIdle, _writeFreq;
    private readonly byte[][] _functions;
    private readonly long _usedMemory;
    private readonly ShardState[] _shards;
    private readonly object _pendingLock = new();
    private List<(int Db, byte[] Records)> _pending = new();
    private long _aheadBytes;

    /// <summary>Per database of a shard: slots that existed at the instant, and which are written.</summary>
    private sealed class DbState(int limit)
    {
        public readonly int Limit = limit;
        public readonly ulong[] Written = new ulong[(limit + 63) / 64];
        /// <summary>Every key of the instant is written (the database was flushed or swapped meanwhile).</summary>
        public bool Done;

        public bool IsWritten(int slot) => slot >= Limit || (Written[slot >> 6] & (1UL << slot)) != 0;

        public void MarkWritten(int slot)
        {
            if (slot < Limit) Written[slot >> 6] |= 1UL << slot;
        }
    }

    private sealed class ShardState(RdbSnapshot owner, DbState[] dbs) : ISnapshotHook
    {
        public readonly DbState[] Dbs = dbs;

        public void BeforeChange(Database db, int slot)
        {
            var state = Dbs[db.Index];
            if (state.Done || state.IsWritten(slot)) return;
            state.MarkWritten(slot);
            owner.WriteAhead(db, slot);
        }

        public void Added(Database db, int slot)
        {
            var state = Dbs[db.Index];
            if (!state.Done) state.MarkWritten(slot);
        }

        public void BeforeClear(Database db)
        {
            var state = Dbs[db.Index];
            if (state.Done) return;
            var table = db.Table;
            int high = Math.Min(state.Limit, table.SlotCount);
            for (int slot = 0; slot < high; slot++)
            {
                if (state.IsWritten(slot) || !table.IsUsed(slot)) continue;
                state.MarkWritten(slot);
                owner.WriteAhead(db, slot);
            }
            state.Done = true;
        }
    }

    private readonly long _keySaveDelayMicros; // rdb-key-save-delay when the snapshot was taken

    /// <summary>Keys and keys with a TTL per database at the instant, over all shards (the RESIZEDB counts).</summary>
    private readonly long[] _dbKeys, _dbExpires;

    /// <summary>The file's version: 12 when a hash had field TTLs at the instant (types only 7.4+ reads), else 10.</summary>
    private readonly int _rdbVersion = RdbType.WriteVersion;

    /// <summary>
    /// Captures the instant: call with every shard's gate held. A background snapshot installs its
    /// hooks here; <see cref="Run"/> then writes the file.
    /// </summary>
    public RdbSnapshot(RedisServer server, bool background, string? path = null)
    {
        _server = server;
        var config = server.Config;
        _path = path ?? config.RdbPath;
        _compress = config.RdbCompression;
        _checksum = config.RdbChecksum;
        _writeIdle = config.MaxMemoryPolicy.EndsWith("-lru", StringComparison.OrdinalIgnoreCase);
        _writeFreq = server.KeyAccess.Lfu; // Redis writes each key's LFU counter under an LFU policy
        // Read at the instant, as Redis's child has the parent's settings of the fork: a CONFIG SET
        // after BGSAVE's reply does not change the save under way.
        _keySaveDelayMicros = config.RdbKeySaveDelay;
        _functions = server.Functions.All.Select(l => l.Code).ToArray();
        ReplicationInfo = server.Replica.RdbSaveInfo();
        var (dataset, tables) = InfoBuilder.DataMemory(server);
        _usedMemory = dataset + tables;
        var shards = server.Shards;
        _shards = new ShardState[shards.Count];
        _dbKeys = new long[shards.Count > 0 ? shards[0].Store.DatabaseCount : 0];
        _dbExpires = new long[_dbKeys.Length];
        for (int s = 0; s < shards.Count; s++)
        {
            var store = shards[s].Store;
            var dbs = new DbState[store.DatabaseCount];
            for (int d = 0; d < dbs.Length; d++)
            {
                dbs[d] = new DbState(store[d].Table.SlotCount);
                _dbKeys[d] += store[d].Count;
                _dbExpires[d] += store[d].ExpiresCount;
                if (store[d].HashesWithFieldTtls > 0) _rdbVersion = RdbType.FieldTtlVersion;
            }
            _shards[s] = new ShardState(this, dbs);
            if (background) store.Snapshot = _shards[s];
        }
        Background = background;
        if (background) Interlocked.Increment(ref server.ActiveSnapshots);
    }

    public bool Background { get; }

    private readonly object _commitLock = new();
    private volatile bool _aborted;

    /// <summary>
    /// Stops a background save (FLUSHALL, as Redis kills its child): the caller holds every gate, so
    /// the hooks come off at once; once this returns the file is never renamed into place.
    /// </summary>
    public void Abort()
    {
        lock (_commitLock) _aborted = true;
        var shards = _server.Shards;
        for (int s = 0; s < shards.Count; s++) shards[s].Store.Snapshot = null;
        Released();
    }

    /// <summary>Bytes of keys written ahead of the saver because they were about to change (Redis's copy-on-write size).</summary>
    public long AheadBytes => Interlocked.Read(ref _aheadBytes);

    /// <summary>Keys written to the file.</summary>
    public long KeysWritten { get; private set; }

    /// <summary>
    /// Writes the file: for a foreground snapshot the caller still holds every gate; a background
    /// one takes each shard's gate in turns. Throws on an I/O error (the old file stays).
    /// </summary>
    public void Run() => Run(null);

    /// <summary>For a full sync: the aux fields the RDB carries (repl-stream-db, repl-id, repl-offset), set at the instant.</summary>
    public RdbReplicationInfo? ReplicationInfo { get; set; }

    /// <summary>REPLCONF rdb-filter-only: no keys (and, without "functions", no functions either).</summary>
    public bool ExcludeData { get; set; }

    public bool ExcludeFunctions { get; set; }

    /// <summary>
    /// Writes the RDB to <paramref name="target"/> (a diskless full sync's replicas) or, when null,
    /// to the file. Throws on an I/O error (the old file stays).
    /// </summary>
    public void Run(Stream? target)
    {
        using var output = target != null ? new RdbOutput(target, _checksum) : new RdbOutput(_path, _checksum);
        output.WriteHeader(ServerInfo.Version, _usedMemory, ReplicationInfo, _rdbVersion);
        if (!ExcludeFunctions)
            foreach (var code in _functions) output.WriteFunction(code, _compress);
        var buffer = new ArrayBufferWriter<byte>(BytesPerTurn + 4096);
        var shards = _server.Shards;
        // rdb-key-save-delay (Redis's hidden knob for tests): a pause per key, slept in whole
        // milliseconds once enough has accumulated, outside the shard's gate for a background save.
        long delayMicros = _keySaveDelayMicros, owedMicros = 0;
        long yieldEvery = Stopwatch.Frequency / 1000, lastYield = Stopwatch.GetTimestamp();
        try
        {
            for (int s = 0; s < (ExcludeData ? 0 : shards.Count); s++)
            {
                var store = shards[s].Store;
                var state = _shards[s];
                for (int d = 0; d < store.DatabaseCount; d++)
                {
                    var dbState = state.Dbs[d];
                    int slot = 0;
                    while (slot < dbState.Limit)
                    {
                        if (_aborted) throw new OperationCanceledException("the background save was aborted");
                        buffer.ResetWrittenCount();
                        int count = 0;
                        if (Background) shards[s].Gate.Enter();
                        try
                        {
                            var table = store[d].Table;
                            for (; slot < dbState.Limit && count < KeysPerTurn && buffer.WrittenCount < BytesPerTurn; slot++)
                            {
                                if (dbState.Done) { slot = dbState.Limit; break; }
                                if (dbState.IsWritten(slot) || slot >= table.SlotCount || !table.IsUsed(slot)) continue;
                                dbState.MarkWritten(slot);
                                RdbOutput.WriteKey(buffer, in table.At(slot), table.ExpireAt(slot), IdleOf(table, slot), _compress, FreqOf(table, slot));
                                count++;
                            }
                        }
                        finally
                        {
                            if (Background) shards[s].Gate.Exit();
                        }
                        if (count > 0)
                        {
                            output.EnsureDb(d, _dbKeys[d], _dbExpires[d]);
                            output.Write(buffer.WrittenSpan);
                            KeysWritten += count;
                            if (delayMicros > 0)
                            {
                                owedMicros += delayMicros * count;
                                if (owedMicros >= 1000)
                                {
                                    Thread.Sleep(TimeSpan.FromMilliseconds(owedMicros / 1000));
                                    owedMicros %= 1000;
                                }
                            }
                        }
                        if (Background)
                        {
                            DrainPending(output);
                            // When clients want this gate (a connection spinning for it, or their
                            // commands posted to the shard's thread), let them take it between turns:
                            // without the yield the saver takes it back at once and clients queue.
                            // Otherwise at most once a millisecond, so the saver does not hold a core
                            // the event loops need (on 2 cores a yield only when wanted doubled the
                            // p99 of SETs during a save, bgsave.py). Not after every turn: on a busy
                            // machine each yield gives the core away for a scheduler slice
                            // (milliseconds), and a rewrite of 300,000 keys took over 30 s under
                            // CPU load, 2 s idle.
                            long now = Stopwatch.GetTimestamp();
                            if (shards[s].TakeWanted() || now - lastYield >= yieldEvery)
                            {
                                Thread.Yield();
                                lastYield = now;
                            }
                        }
                    }
                }
            }
        }
        finally
        {
            if (Background && !_aborted) Detach();
        }
        if (!ExcludeData) DrainPending(output);
        lock (_commitLock)
        {
            if (_aborted) throw new OperationCanceledException("the background save was aborted");
            output.Commit();
        }
    }

    /// <summary>Removes the hooks, each under its shard's gate, so no key is written ahead afterwards.</summary>
    private void Detach()
    {
        var shards = _server.Shards;
        for (int s = 0; s < shards.Count; s++)
        {
            lock (shards[s].Gate) shards[s].Store.Snapshot = null;
        }
        Released();
    }

    /// <summary>Removes this snapshot's hooks where they are still installed (a save that failed early); idempotent.</summary>
    public void DetachIfAttached()
    {
        if (!Background) return;
        var shards = _server.Shards;
        for (int s = 0; s < shards.Count; s++)
        {
            lock (shards[s].Gate)
                if (ReferenceEquals(shards[s].Store.Snapshot, _shards[s])) shards[s].Store.Snapshot = null;
        }
        Released();
    }

    private int _released;

    /// <summary>The hooks are off: one background snapshot fewer for the execution layer to serve.</summary>
    private void Released()
    {
        if (Interlocked.Exchange(ref _released, 1) == 0) Interlocked.Decrement(ref _server.ActiveSnapshots);
    }

    private long IdleOf(KeyTable table, int slot) => _writeIdle ? LruClock.SecondsSince(table.LastAccess(slot)) : -1;

    private int FreqOf(KeyTable table, int slot) => _writeFreq ? _server.KeyAccess.Decayed(table.LastAccess(slot)) : -1;

    /// <summary>Called under the key's shard gate: writes the key as it is now, ahead of its change.</summary>
    private void WriteAhead(Database db, int slot)
    {
        var buffer = new ArrayBufferWriter<byte>(64);
        RdbOutput.WriteSelectDb(buffer, db.Index);
        RdbOutput.WriteKey(buffer, in db.Table.At(slot), db.Table.ExpireAt(slot), IdleOf(db.Table, slot), _compress, FreqOf(db.Table, slot));
        var records = buffer.WrittenSpan.ToArray();
        Interlocked.Add(ref _aheadBytes, records.Length);
        lock (_pendingLock) _pending.Add((db.Index, records));
    }

    private void DrainPending(RdbOutput output)
    {
        List<(int Db, byte[] Records)> batch;
        lock (_pendingLock)
        {
            if (_pending.Count == 0) return;
            batch = _pending;
            _pending = new List<(int, byte[])>();
        }
        foreach (var (db, records) in batch)
        {
            output.WriteRecords(db, records);
            KeysWritten++;
        }
    }
}
