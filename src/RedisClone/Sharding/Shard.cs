using System.Collections.Concurrent;
using System.Diagnostics;
using RedisClone.Storage;

namespace RedisClone.Sharding;

/// <summary>
/// One shard: its data, the gate that guards it, and a dedicated thread that runs posted work and
/// the active expiry cycle. See the essay in ShardSet.cs for the threading model.
/// </summary>
internal sealed class Shard : IDisposable
{
    // Redis 7.2's activeExpireCycle (the slow cycle) at its defaults (hz 10, active-expire-effort 1):
    // every 100 ms, loops of 20 keys with a TTL per database (ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP),
    // repeated while more than 10% of a loop had expired (ACTIVE_EXPIRE_CYCLE_ACCEPTABLE_STALE), for
    // at most 25% of the interval (ACTIVE_EXPIRE_CYCLE_SLOW_TIME_PERC). hz and the effort change them
    // as Redis's do (see CronHz, ExpireEffort).
    private const int ExpirySample = 20;
    private const int ExpiryAcceptableStalePercent = 10;
    private const int ExpirySlowTimePercent = 25;

    private readonly ConcurrentQueue<ShardWork> _inbox = new();
    // No spinning before sleeping: on a small machine a spinning shard thread steals the core the
    // connections run on; posted work is the contended path anyway.
    private readonly ManualResetEventSlim _wake = new(false, spinCount: 0);
    private readonly Random _random = new();
    private Thread? _thread;
    private volatile bool _stopping;
    private int _sleeping;
    private long _nextExpiry;
    private int _nextExpiryDb; // where the next cycle starts, so a cycle cut short does not starve later databases

    public Shard(int index, ShardStore store)
    {
        Index = index;
        Store = store;
    }

    public int Index { get; }

    /// <summary>Whoever holds this may touch <see cref="Store"/>.</summary>
    public Lock Gate { get; } = new();

    public ShardStore Store { get; }

    /// <summary>Set by the server: the active expiry cycle runs only when enabled.</summary>
    public bool ActiveExpiry
    {
        get => Volatile.Read(ref _activeExpiry);
        set => Volatile.Write(ref _activeExpiry, value);
    }
    private bool _activeExpiry = true;

    /// <summary>
    /// The server's hz as it runs now (hz, raised by dynamic-hz with many clients): cron ticks per
    /// second, each one an active expiry cycle. Set by the server's cron; read at each tick.
    /// </summary>
    public int CronHz
    {
        get => Volatile.Read(ref _cronHz);
        set => Volatile.Write(ref _cronHz, Math.Clamp(value, 1, 500));
    }
    private int _cronHz = 10;

    /// <summary>
    /// active-expire-effort (1..10): each step above 1 samples 5 more keys per loop, accepts 1% fewer
    /// expired keys before moving on and allows 2% more of the interval, as Redis's activeExpireCycle.
    /// </summary>
    public int ExpireEffort
    {
        get => Volatile.Read(ref _expireEffort);
        set => Volatile.Write(ref _expireEffort, Math.Clamp(value, 1, 10));
    }
    private int _expireEffort = 1;

    /// <summary>
    /// DEBUG PAUSE-CRON: while set, the periodic work (LRU clock, active expiry) is skipped, as
    /// Redis skips its serverCron. Written by another thread; a stale read delays it by one tick.
    /// </summary>
    public bool CronPaused { get; set; }

    /// <summary>
    /// Commands run on this shard's keys (INFO shards, /metrics). Only the holder of the gate adds to
    /// it, so a plain increment is exact; readers may see it a moment late.
    /// </summary>
    public long CommandsProcessed;

    /// <summary>
    /// Times a connection found this gate held (after its short spin) and posted its work to the shard
    /// thread instead of running it itself: the figure that shows contention on a shard.
    /// </summary>
    public long GateWaits;

    /// <summary>Active expiry cycles that stopped at their time budget (INFO expired_time_cap_reached_count).</summary>
    public long ExpiryTimeCapReached;

    /// <summary>Time the active expiry cycles ran, in Stopwatch ticks (INFO expire_cycle_cpu_milliseconds).</summary>
    public long ExpiryTicks;

    /// <summary>
    /// Redis's expired_stale_perc for this shard: the share of sampled keys found expired, as a
    /// moving average (each cycle weighs 5%). Written by the shard thread only.
    /// </summary>
    public double ExpiredStalePercent { get; private set; }

    /// <summary>CONFIG RESETSTAT: the expiry cycle's figures back to zero (a cycle running meanwhile may add its own).</summary>
    public void ResetExpiryStats()
    {
        Volatile.Write(ref ExpiryTimeCapReached, 0);
        Volatile.Write(ref ExpiryTicks, 0);
        ExpiredStalePercent = 0;
    }

    /// <summary>Set by the server: told how long each active expiry cycle ran, in milliseconds (LATENCY's expire-cycle).</summary>
    public Action<long>? ExpireCycleObserver { get; set; }

    public void Start()
    {
        _thread = new Thread(Run) { IsBackground = true, Name = $"shard-{Index}" };
        _thread.Start();
    }

    private volatile bool _spunFor;

    /// <summary>A connection found the gate held and spins for it (the contended path only).</summary>
    public void MarkSpunFor() => _spunFor = true;

    /// <summary>
    /// Whether someone wants the gate, for a long-running holder (the background saver) deciding
    /// whether to step aside between turns: work posted for the shard thread waits to run, or a
    /// connection spun for the gate since the last call (which clears that mark). A moment's view.
    /// </summary>
    public bool TakeWanted()
    {
        bool spun = _spunFor;
        if (spun) _spunFor = false;
        return spun || !_inbox.IsEmpty;
    }

    /// <summary>Queues work for the shard thread (FIFO).</summary>
    public void Post(ShardWork work)
    {
        _inbox.Enqueue(work);
        if (Interlocked.CompareExchange(ref _sleeping, 0, 1) == 1) _wake.Set();
    }

    private void Run()
    {
        _nextExpiry = Environment.TickCount64 + 1000 / CronHz;
        while (!_stopping)
        {
            if (!_inbox.IsEmpty)
            {
                DrainInbox();
                continue;
            }

            long now = Environment.TickCount64;
            if (now >= _nextExpiry)
            {
                _nextExpiry = now + Math.Max(1, 1000 / CronHz);
                // Bookkeeping, not cron work: DEBUG PAUSE-CRON does not freeze INFO's memory figures.
                if (Store.HasUnsettled)
                    lock (Gate) Store.SettleMemory();
                if (CronPaused) continue;
                LruClock.Refresh(); // on a dedicated thread: a busy thread pool cannot delay it
                if (ActiveExpiry && !Store.ExpiryPaused && !Store.ExpiryByMaster)
                {
                    // The time spent expiring (under the gate), not the client work run in between.
                    long elapsed = RunExpiryCycle();
                    Volatile.Write(ref ExpiryTicks, ExpiryTicks + elapsed);
                    ExpireCycleObserver?.Invoke(elapsed * 1000 / Stopwatch.Frequency);
                }
                continue;
            }

            _wake.Reset();
            Interlocked.Exchange(ref _sleeping, 1);
            if (_inbox.IsEmpty) _wake.Wait((int)Math.Max(1, _nextExpiry - now));
            Volatile.Write(ref _sleeping, 0);
        }
    }

    /// <summary>Runs up to 256 posted work items under the gate.</summary>
    private void DrainInbox()
    {
        lock (Gate)
        {
            int n = 0;
            while (n++ < 256 && _inbox.TryDequeue(out var work)) work.Execute(this);
        }
    }

    /// <summary>
    /// Redis's active expiry (activeExpireCycle, the slow cycle): for each database in turn, check 20
    /// keys with a TTL and delete the expired ones, again while more than 10% of them had expired, for
    /// at most 25 ms of work (at hz 10 and effort 1). The gate is taken per loop of 20 keys, and posted work runs between
    /// loops (clients first) without ending the cycle: only time spent expiring counts against the
    /// budget, as Redis's event loop runs no client while the cycle does. Returns that time (Stopwatch ticks).
    /// </summary>
    /// <summary>Hash fields the active cycle removes per turn under the gate (Redis's 10,000 a second at hz 10 is 1,000 a cycle).</summary>
    private const int FieldExpiryQuota = 1000;

    private long RunExpiryCycle()
    {
        int effort = ExpireEffort - 1;
        // Redis's timelimit: this share of a tick, in microseconds, as Stopwatch ticks.
        long budgetMicros = (ExpirySlowTimePercent + 2L * effort) * 1_000_000 / CronHz / 100;
        long budget = budgetMicros * Stopwatch.Frequency / 1_000_000;
        long spent = 0;
        long totalSampled = 0, totalExpired = 0;
        try
        {
            RunExpiryLoops(budget, ExpirySample + ExpirySample / 4 * effort, ExpiryAcceptableStalePercent - effort,
                ref spent, ref totalSampled, ref totalExpired);
        }
        finally
        {
            // As Redis: the cycle's share of expired keys among those sampled, averaged in at 5%.
            double current = totalSampled == 0 ? 0 : (double)totalExpired / totalSampled;
            ExpiredStalePercent = current * 0.05 + ExpiredStalePercent * 0.95;
        }
        return spent;
    }

    private void RunExpiryLoops(long budget, int sample, int acceptableStalePercent, ref long spent, ref long totalSampled, ref long totalExpired)
    {
        int databases = Store.DatabaseCount;
        for (int n = 0; n < databases; n++)
        {
            int db = _nextExpiryDb;
            _nextExpiryDb = (db + 1) % databases;
            // Hash fields first, as Redis's activeExpireHashFieldCycle before the keys: a quota of
            // fields per turn under the gate, turns repeated while a whole quota went, in the same
            // time budget as the keys.
            while (Store[db].HashesWithFieldTtls > 0)
            {
                if (_stopping) return;
                if (!_inbox.IsEmpty) DrainInbox();
                int done;
                lock (Gate)
                {
                    long start = Stopwatch.GetTimestamp();
                    long nowMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
                    done = Store[db].ExpireFieldsSample(nowMs, FieldExpiryQuota);
                    spent += Stopwatch.GetTimestamp() - start;
                }
                if (spent > budget)
                {
                    Volatile.Write(ref ExpiryTimeCapReached, ExpiryTimeCapReached + 1);
                    return;
                }
                if (done < FieldExpiryQuota) break;
            }
            if (Store[db].ExpiresCount == 0) continue;
            while (true)
            {
                if (_stopping) return;
                if (!_inbox.IsEmpty) DrainInbox();
                (int sampled, int expired) result;
                lock (Gate)
                {
                    long start = Stopwatch.GetTimestamp();
                    long nowMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
                    result = Store[db].ExpireSample(nowMs, sample, _random);
                    spent += Stopwatch.GetTimestamp() - start;
                }
                totalSampled += result.sampled;
                totalExpired += result.expired;
                // Out of time: the next cycle starts at the database after this one, as Redis's.
                if (spent > budget)
                {
                    Volatile.Write(ref ExpiryTimeCapReached, ExpiryTimeCapReached + 1);
                    return;
                }
                if (result.sampled == 0 || result.expired * 100 <= result.sampled * acceptableStalePercent) break;
            }
        }
    }

    public void Dispose()
    {
        _stopping = true;
        _wake.Set();
        _thread?.Join(1000);
        // Work posted while the thread wound down (a connection ending during shutdown) still runs,
        // so whoever awaits it is released.
        if (_thread is { IsAlive: false })
            lock (Gate)
                while (_inbox.TryDequeue(out var work)) work.Execute(this);
    }
}
