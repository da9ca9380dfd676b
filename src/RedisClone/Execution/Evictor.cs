using System.Diagnostics;
using RedisClone.Server;
using RedisClone.Storage;

namespace RedisClone.Execution;

/// <summary>
/// maxmemory: before a command runs (Redis's processCommand calling performEvictions), used memory
/// is compared with the limit and, over it, keys are evicted under maxmemory-policy until it is
/// met; a command with the denyoom flag is refused when nothing more can be evicted.
/// </summary>
/// <remarks>
/// <para>
/// How a global limit is kept over shard threads without a global lock on the hot path: used
/// memory is the sum of each shard's accounting (<see cref="ShardStore.UsedBytes"/>, written under
/// the shard's gate and read here without it: a moment stale at most), so the check while under
/// the limit costs a few reads per shard and takes nothing. Only when over the limit does a thread
/// evict, one at a time (a lock: a thread finding another evicting waits for its round, bounded by the
/// time limit, holding no gate). The evicting thread
/// takes, without waiting, the gate of every shard that is free at that instant (an event loop never
/// blocks on a gate) and samples all of them into one pool of the best candidates, so the key that
/// goes is the best of every reachable shard, and each shard gives up keys in proportion to how
/// good its candidates are rather than by a fixed share. A shard whose gate is busy is skipped this
/// time; its keys are candidates again at the next check.
/// </para>
/// <para>
/// As in Redis: at most <c>maxmemory-eviction-tenacity</c>'s time per check (500 µs at the default
/// 10), checked every 16 keys; when time runs out, or the busy shards may still hold candidates, the
/// command is not refused (Redis's EVICT_RUNNING). With nothing evictable left in reach of a check
/// that took every gate, or under noeviction, denyoom commands get
/// <c>-OOM command not allowed when used memory &gt; 'maxmemory'.</c>
/// </para>
/// </remarks>
internal sealed class Evictor
{
    private readonly RedisServer _server;
    private readonly Lock _evicting = new();
    private readonly EvictionPool _pool = new();
    private readonly Random _random = new();
    private volatile EvictionPolicy _policy;
    private int _nextShard, _nextDb;

    public Evictor(RedisServer server) => _server = server;

    /// <summary>maxmemory-policy, set by CONFIG SET (the pool is emptied: its scores meant the old policy).</summary>
    public EvictionPolicy Policy
    {
        get => _policy;
        set
        {
            lock (_evicting)
            {
                _policy = value;
                _pool.Clear();
            }
        }
    }

    /// <summary>Used memory as maxmemory sees it: INFO's used_memory (the data's accounting).</summary>
    public long UsedMemory()
    {
        var shards = _server.Shards;
        long used = 0;
        for (int i = 0; i < shards.Count; i++) used += shards[i].Store.UsedBytes;
        return used;
    }

    /// <summary>True when maxmemory is set and used memory is over it (no eviction is tried).</summary>
    public bool OverLimit()
    {
        ulong max = _server.Config.MaxMemory;
        return max != 0 && (ulong)UsedMemory() > max;
    }

    /// <summary>
    /// Redis's performEvictions: true when memory is over maxmemory and nothing could be evicted
    /// (the caller refuses denyoom commands); false when under the limit, when eviction brought it
    /// under, or when eviction is still under way.
    /// </summary>
    public bool OutOfMemory()
    {
        ulong max = _server.Config.MaxMemory;
        if (max == 0) return false;
        long used = UsedMemory();
        if ((ulong)used <= max)
        {
            if (Volatile.Read(ref _exceededSince) != 0) EndExceeded();
            return false;
        }
        if (_server.Rdb.Loading) return false; // Redis does not evict while loading
        // A replica with replica-ignore-maxmemory leaves its memory to its master's evictions (performEvictions).
        if (_server.Replication.IsReplica && _server.Config.ReplicaIgnoreMaxmemory) return false;
        var policy = Policy;
        if (policy == EvictionPolicy.NoEviction)
        {
            BeginExceeded();
            return true;
        }
        // One thread evicts at a time; another one waits for it (a round is bounded by the time
        // limit, and it waits for no gate) and then sees what is left, as Redis's single thread would.
        // Callers hold no gate here.
        _evicting.Enter();
        Outcome outcome;
        try
        {
            used = UsedMemory(); // what the thread evicting before left
            outcome = (ulong)used <= max ? Outcome.Done : Evict(policy, used - (long)max);
        }
        finally
        {
            _evicting.Exit();
        }
        if (outcome == Outcome.Done) EndExceeded();
        else BeginExceeded();
        if (outcome == Outcome.Running) StartBackground();
        return outcome == Outcome.Failed;
    }

    // INFO's total_eviction_exceeded_time and current_eviction_exceeded_time: since when memory has
    // been over the limit without eviction bringing it under (a Stopwatch timestamp, 0 when not),
    // and the ticks of the spells that ended, as Redis's update_metrics keeps them.
    private long _exceededSince, _exceededTicks;

    private void BeginExceeded()
    {
        if (Volatile.Read(ref _exceededSince) == 0) Interlocked.CompareExchange(ref _exceededSince, Stopwatch.GetTimestamp(), 0);
    }

    private void EndExceeded()
    {
        long since = Volatile.Read(ref _exceededSince);
        if (since != 0 && Interlocked.CompareExchange(ref _exceededSince, 0, since) == since)
            Interlocked.Add(ref _exceededTicks, Stopwatch.GetTimestamp() - since);
    }

    /// <summary>current_eviction_exceeded_time: milliseconds memory has been over the limit now, 0 when it is not.</summary>
    public long CurrentExceededMs
    {
        get
        {
            long since = Volatile.Read(ref _exceededSince);
            return since == 0 ? 0 : (Stopwatch.GetTimestamp() - since) * 1000 / Stopwatch.Frequency;
        }
    }

    /// <summary>total_eviction_exceeded_time: milliseconds over the limit in all, the current spell included.</summary>
    public long TotalExceededMs => Volatile.Read(ref _exceededTicks) * 1000 / Stopwatch.Frequency + CurrentExceededMs;

    /// <summary>CONFIG RESETSTAT: both figures start again from 0.</summary>
    public void ResetExceeded()
    {
        Volatile.Write(ref _exceededTicks, 0);
        Volatile.Write(ref _exceededSince, 0);
    }

    private int _background;

    /// <summary>
    /// Redis's eviction timer: goes on evicting off the clients' path, a time-limited round at a
    /// time, while memory is over the limit and rounds still free something (after CONFIG SET
    /// maxmemory, or a check that ran out of time or found shards busy).
    /// </summary>
    public void StartBackground()
    {
        if (Interlocked.Exchange(ref _background, 1) == 1) return;
        ThreadPool.UnsafeQueueUserWorkItem(_ =>
        {
            try
            {
                for (int round = 0; round < 100_000 && OverLimit() && Policy != EvictionPolicy.NoEviction; round++)
                {
                    long before = UsedMemory();
                    if (OutOfMemory()) break; // nothing left to evict
                    if (UsedMemory() >= before) Thread.Sleep(1); // shards busy or another thread evicting
                }
            }
            finally
            {
                Volatile.Write(ref _background, 0);
            }
        }, null);
    }

    private enum Outcome { Done, Running, Failed }

    private Outcome Evict(EvictionPolicy policy, long toFree)
    {
        var shards = _server.Shards;
        ulong held = 0;
        for (int s = 0; s < shards.Count; s++)
            if (TryEnterSpinning(shards[s].Gate)) held |= 1UL << s;
        try
        {
            if (held == 0) return Outcome.Running;
            long limitTicks = TimeLimitTicks();
            long start = Stopwatch.GetTimestamp();
            long freed = 0;
            int evicted = 0;
            while (freed < toFree)
            {
                long got = EvictOne(policy, held);
                if (got < 0) return NoCandidates(policy, held) ? Outcome.Failed : Outcome.Running;
                freed += got;
                if (++evicted % 16 == 0 && Stopwatch.GetTimestamp() - start > limitTicks) return Outcome.Running;
            }
            return Outcome.Done;
        }
        finally
        {
            shards.ExitAll(held);
        }
    }

    /// <summary>A gate, taken without blocking: a few short spins, as a shard's own work holds it for microseconds.</summary>
    private static bool TryEnterSpinning(Lock gate)
    {
        for (int spin = 0; spin < 20; spin++)
        {
            if (gate.TryEnter()) return true;
            Thread.SpinWait(20);
        }
        return false;
    }

    /// <summary>
    /// After the held shards ran out of candidates: true when the others have none either (their
    /// key counts read without their gates, as INFO reads them), so the command is refused; false
    /// when a busy shard may still have some (Redis's EVICT_RUNNING: not refused).
    /// </summary>
    private bool NoCandidates(EvictionPolicy policy, ulong held)
    {
        var shards = _server.Shards;
        bool volatileOnly = policy.VolatileOnly();
        for (int s = 0; s < shards.Count; s++)
        {
            if ((held & (1UL << s)) != 0) continue;
            var store = shards[s].Store;
            for (int d = 0; d < store.DatabaseCount; d++)
                if ((volatileOnly ? store[d].ExpiresCount : store[d].Count) > 0) return false;
        }
        return true;
    }

    /// <summary>Evicts the best key in the held shards; the bytes it freed, or -1 when none is left to evict.</summary>
    private long EvictOne(EvictionPolicy policy, ulong held)
    {
        var shards = _server.Shards;
        bool volatileOnly = policy.VolatileOnly();
        if (policy.IsRandom())
        {
            // One key from the next database (and shard) in turn that has one, as Redis's next_db.
            int databases = shards[0].Store.DatabaseCount;
            for (int n = 0; n < shards.Count * databases; n++)
            {
                int s = _nextShard, d = _nextDb;
                if (++_nextDb == databases)
                {
                    _nextDb = 0;
                    _nextShard = (_nextShard + 1) % shards.Count;
                }
                if ((held & (1UL << s)) == 0) continue;
                var db = shards[s].Store[d];
                int slot = db.RandomEvictionSlot(volatileOnly, _random);
                if (slot >= 0) return EvictAt(shards[s].Store, db, slot);
            }
            return -1;
        }
        int samples = (int)Math.Min(_server.Config.MaxMemorySamples, int.MaxValue);
        while (true)
        {
            long candidates = 0;
            int first = _nextShard = (_nextShard + 1) % shards.Count;
            for (int n = 0; n < shards.Count; n++)
            {
                int s = (first + n) % shards.Count;
                if ((held & (1UL << s)) == 0) continue;
                var store = shards[s].Store;
                for (int d = 0; d < store.DatabaseCount; d++)
                {
                    var db = store[d];
                    int keys = volatileOnly ? db.ExpiresCount : db.Count;
                    if (keys == 0) continue;
                    candidates += keys;
                    db.OfferEvictionCandidates(_pool, s, policy, samples, _random);
                }
            }
            if (candidates == 0) return -1;
            while (_pool.TryTakeBest(out int shard, out int dbIndex, out byte[] key))
            {
                if ((held & (1UL << shard)) == 0) continue; // a shard not in reach now: dropped, as a ghost
                var store = shards[shard].Store;
                var db = store[dbIndex];
                int slot = db.FindEvictable(key, volatileOnly);
                if (slot >= 0) return EvictAt(store, db, slot);
            }
        }
    }

    private static long EvictAt(ShardStore store, Database db, int slot)
    {
        long before = store.UsedBytes;
        db.Evict(slot);
        return Math.Max(0, before - store.UsedBytes);
    }

    /// <summary>Redis's evictionTimeLimitUs: 50 µs per unit of tenacity up to 10, then growing 15% a unit, unlimited at 100.</summary>
    private long TimeLimitTicks()
    {
        long tenacity = _server.Config.MaxMemoryEvictionTenacity;
        double micros = tenacity <= 10 ? 50.0 * tenacity
            : tenacity < 100 ? 500.0 * Math.Pow(1.15, tenacity - 10)
            : double.MaxValue / 2;
        return micros >= long.MaxValue / (double)Stopwatch.Frequency ? long.MaxValue : (long)(micros * Stopwatch.Frequency / 1_000_000);
    }
}
