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
    private const int ExpiryIntervalMs = 100;
    private const int ExpirySample = 20;          // Redis's ACTIVE_EXPIRE_CYCLE_KEYS_PER_LOOP
    private const long ExpiryBudgetTicks = TimeSpan.TicksPerMillisecond * 25; // 25% of the interval

    private readonly ConcurrentQueue<ShardWork> _inbox = new();
    // No spinning before sleeping: on a small machine a spinning shard thread steals the core the
    // connections run on; posted work is the contended path anyway.
    private readonly ManualResetEventSlim _wake = new(false, spinCount: 0);
    private readonly Random _random = new();
    private Thread? _thread;
    private volatile bool _stopping;
    private int _sleeping;
    private long _nextExpiry;

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
    /// DEBUG PAUSE-CRON: while set, the periodic work (LRU clock, active expiry) is skipped, as
    /// Redis skips its serverCron. Written by another thread; a stale read delays it by one tick.
    /// </summary>
    public bool CronPaused { get; set; }

    public void Start()
    {
        _thread = new Thread(Run) { IsBackground = true, Name = $"shard-{Index}" };
        _thread.Start();
    }

    /// <summary>Queues work for the shard thread (FIFO).</summary>
    public void Post(ShardWork work)
    {
        _inbox.Enqueue(work);
        if (Interlocked.CompareExchange(ref _sleeping, 0, 1) == 1) _wake.Set();
    }

    private void Run()
    {
        _nextExpiry = Environment.TickCount64 + ExpiryIntervalMs;
        while (!_stopping)
        {
            if (!_inbox.IsEmpty)
            {
                lock (Gate)
                {
                    int n = 0;
                    while (n++ < 256 && _inbox.TryDequeue(out var work)) work.Execute(this);
                }
                continue;
            }

            long now = Environment.TickCount64;
            if (now >= _nextExpiry)
            {
                _nextExpiry = now + ExpiryIntervalMs;
                // Bookkeeping, not cron work: DEBUG PAUSE-CRON does not freeze INFO's memory figures.
                if (Store.HasUnsettled)
                    lock (Gate) Store.SettleMemory();
                if (CronPaused) continue;
                LruClock.Refresh(); // on a dedicated thread: a busy thread pool cannot delay it
                if (ActiveExpiry) RunExpiryCycle();
                continue;
            }

            _wake.Reset();
            Interlocked.Exchange(ref _sleeping, 1);
            if (_inbox.IsEmpty) _wake.Wait((int)Math.Max(1, _nextExpiry - now));
            Volatile.Write(ref _sleeping, 0);
        }
    }

    /// <summary>
    /// Redis's active expiry: per database, sample keys with a TTL and delete the expired ones,
    /// repeating while more than a quarter of a sample had expired, within a time budget.
    /// </summary>
    private void RunExpiryCycle()
    {
        long start = Stopwatch.GetTimestamp();
        long budget = ExpiryBudgetTicks * Stopwatch.Frequency / TimeSpan.TicksPerSecond;
        for (int db = 0; db < Store.DatabaseCount; db++)
        {
            if (Store[db].ExpiresCount == 0) continue;
            while (true)
            {
                (int sampled, int expired) result;
                lock (Gate)
                {
                    long nowMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
                    result = Store[db].ExpireSample(nowMs, ExpirySample, _random);
                }
                if (result.sampled == 0 || result.expired * 4 <= result.sampled) break;
                if (Stopwatch.GetTimestamp() - start > budget) return;
                if (!_inbox.IsEmpty) return; // clients first; the next cycle continues
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
