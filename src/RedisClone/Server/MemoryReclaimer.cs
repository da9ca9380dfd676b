namespace RedisClone.Server;

/// <summary>
/// Gives memory back to the OS after a peak. Redis frees a value or a client's buffers into
/// jemalloc, which returns the pages within seconds; the .NET GC frees large objects only in a
/// gen2 collection, which nothing starts once the allocations that filled the heap are over (DEL of
/// two 512 MB strings, a hundred clients gone after queueing MULTI commands), and even then keeps
/// much of the memory committed. So once a second a timer compares the resident size with the
/// data's accounting (used_memory). When it is more than twice that, has stopped growing (the peak
/// is over: a collection in the middle of a 512 MB upload would pause to move what is still
/// needed), and the server let something big go since the last such collection (used_memory went
/// down, or big buffers were dropped: <see cref="Common.ReleasedMemory"/>), it runs a blocking,
/// compacting, aggressive gen2 collection, which decommits what it frees.
/// The same collection (with the large object heap compacted) follows a load that grew the key
/// tables by at least <see cref="MinResized"/> of replaced arrays once the resident size settles
/// (<see cref="ShouldCompactAfterGrowth"/>): each doubling leaves the old arrays as holes in the large
/// object heap, about 20 bytes per key of resident size for 1M small keys (issue 30, memory.py).
/// And it follows a load that grew the data by half or more (<see cref="ShouldCompactAfterDataGrowth"/>):
/// what the GC leaves behind such a load (its gen0 budget, dead objects promoted before they died,
/// holes in gen2 and the large object heap) was 10 bytes per element of resident size for 100,000 small
/// hashes of 15 fields, half of Redis's whole cost (issue 30, memory.py --type hash --shape small).
/// </summary>
/// <remarks>
/// Loading data lets nothing go, so it never triggers a collection. The collection pauses every
/// thread for a time that grows with the live heap (and with what it decommits), so the next one
/// waits 20 times as long as the last one took (its pauses stay under 5% of the time), at least
/// <see cref="MinIntervalMs"/> and at most <see cref="MaxIntervalMs"/> (a collection that paused
/// long on a loaded machine must not keep memory from coming back for minutes). It runs on a
/// thread of its own, started with the server, never on a client's path; one per process (the
/// server program starts it). Not a Timer: its first tick would start a thread-pool thread, and the
/// runtime aborts the process when it cannot start a thread because descriptors ran out.
/// </remarks>
internal sealed class MemoryReclaimer : IDisposable
{
    private const int IntervalMs = 1000;
    public const long MinIntervalMs = 5_000, MaxIntervalMs = 30_000;
    /// <summary>The resident size grew less than this in the last second: the peak is over.</summary>
    public const long Settled = 16L << 20;
    /// <summary>Below this much to give back, a collection is not worth a pause.</summary>
    public const long MinGain = 64L << 20;
    /// <summary>Key table arrays replaced by larger ones (since the last collection) worth a collection once loading settles.</summary>
    public const long MinResized = 16L << 20;
    /// <summary>
    /// Above this much data the collections after growth are skipped: their pause grows with the
    /// data (460 ms after loading 2,000,000 small hashes, 560 MB of used_memory, on the 2-core
    /// development machine), and Redis has no such pause. Below it they stay under about 200 ms.
    /// </summary>
    public const long MaxGrowthCompaction = 256L << 20;

    private readonly Func<long> _accounted;
    private readonly Thread _thread;
    private readonly ManualResetEventSlim _stop = new(false);
    private long _lastAccounted, _accountedDrops; // the sum of used_memory's decreases between ticks
    private long _letGoAtCollect, _resizedAtCollect, _lastCollectMs, _lastPauseMs, _lastRss;
    // used_memory at the last collection (or start), and its lowest since: data growth is measured from the low.
    private long _accountedAtCollect, _accountedLow;
    private int _busy;

    /// <param name="accounted">The data's accounted size now (used_memory).</param>
    public MemoryReclaimer(Func<long> accounted)
    {
        _accounted = accounted;
        _lastAccounted = accounted();
        _accountedAtCollect = _accountedLow = _lastAccounted;
        _letGoAtCollect = Common.ReleasedMemory.Total;
        _resizedAtCollect = Common.ReleasedMemory.Resized;
        _lastCollectMs = Environment.TickCount64 - MinIntervalMs;
        _thread = new Thread(Run) { IsBackground = true, Name = "memory-reclaimer" };
        _thread.Start();
    }

    private void Run()
    {
        while (!_stop.Wait(IntervalMs)) Tick();
    }

    /// <summary>
    /// The rule: <paramref name="rss"/> is more than twice <paramref name="accounted"/> and
    /// <see cref="MinGain"/> above it, and less than <see cref="Settled"/> above a second ago
    /// (<paramref name="previousRss"/>); at least <see cref="MinGain"/> was let go since the last
    /// collection (<paramref name="letGo"/>), which paused the server for <paramref name="lastPauseMs"/>
    /// and was 20 such pauses ago, and at least <see cref="MinIntervalMs"/> (at most
    /// <see cref="MaxIntervalMs"/> is asked).
    /// </summary>
    public static bool ShouldCollect(long rss, long previousRss, long accounted, long letGo, long sinceLastMs, long lastPauseMs)
        => rss < previousRss + Settled && letGo >= MinGain && rss - accounted >= Math.Max(MinGain, accounted)
           && sinceLastMs >= Math.Clamp(20 * lastPauseMs, MinIntervalMs, MaxIntervalMs);

    /// <summary>
    /// The rule after growth: at least <see cref="MinResized"/> of key table arrays were replaced by
    /// larger ones since the last collection (<paramref name="resized"/>), the resident size grew less
    /// than <see cref="Settled"/> in the last second (the load is over or paused: no collection in the
    /// middle of one), and the pause interval of <see cref="ShouldCollect"/> has passed.
    /// </summary>
    public static bool ShouldCompactAfterGrowth(long rss, long previousRss, long resized, long sinceLastMs, long lastPauseMs)
        => rss < previousRss + Settled && resized >= MinResized
           && sinceLastMs >= Math.Clamp(20 * lastPauseMs, MinIntervalMs, MaxIntervalMs);

    /// <summary>
    /// The rule after a load: the data (<paramref name="accounted"/>) grew by at least
    /// <see cref="MinResized"/> and by at least half of what it was at the last collection
    /// (<paramref name="accountedAtCollect"/>) since its lowest point after that collection
    /// (<paramref name="accountedLow"/>), so a growing dataset is compacted a logarithmic number of
    /// times; the resident size has settled and the pause interval of <see cref="ShouldCollect"/> has passed.
    /// </summary>
    public static bool ShouldCompactAfterDataGrowth(long rss, long previousRss, long accounted, long accountedLow,
        long accountedAtCollect, long sinceLastMs, long lastPauseMs)
        => rss < previousRss + Settled && accounted - accountedLow >= Math.Max(MinResized, accountedAtCollect / 2)
           && sinceLastMs >= Math.Clamp(20 * lastPauseMs, MinIntervalMs, MaxIntervalMs);

    /// <summary>Whether the collections after growth may run with <paramref name="accounted"/> bytes of data (<see cref="MaxGrowthCompaction"/>).</summary>
    public static bool GrowthCompactionAllowed(long accounted) => accounted <= MaxGrowthCompaction;

    private void Tick()
    {
        if (Interlocked.Exchange(ref _busy, 1) == 1) return;
        try
        {
            long accounted = _accounted();
            if (accounted < _lastAccounted) _accountedDrops += _lastAccounted - accounted;
            _lastAccounted = accounted;
            _accountedLow = Math.Min(_accountedLow, accounted);
            long letGo = _accountedDrops + Common.ReleasedMemory.Total;
            long now = Environment.TickCount64;
            long rss = Environment.WorkingSet, previousRss = _lastRss;
            _lastRss = rss;
            long resized = Common.ReleasedMemory.Resized;
            if (!ShouldCollect(rss, previousRss, accounted, letGo - _letGoAtCollect, now - _lastCollectMs, _lastPauseMs)
                && !(GrowthCompactionAllowed(accounted)
                     && (ShouldCompactAfterGrowth(rss, previousRss, resized - _resizedAtCollect, now - _lastCollectMs, _lastPauseMs)
                         || ShouldCompactAfterDataGrowth(rss, previousRss, accounted, _accountedLow, _accountedAtCollect,
                             now - _lastCollectMs, _lastPauseMs)))) return;
            _letGoAtCollect = letGo;
            _accountedAtCollect = _accountedLow = accounted;
            _resizedAtCollect = resized;
            // The large object heap too: freed big arrays are holes in it that only compaction returns.
            System.Runtime.GCSettings.LargeObjectHeapCompactionMode = System.Runtime.GCLargeObjectHeapCompactionMode.CompactOnce;
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Aggressive, blocking: true, compacting: true);
            _lastCollectMs = Environment.TickCount64;
            _lastPauseMs = _lastCollectMs - now;
            _lastRss = Environment.WorkingSet;
        }
        catch (Exception)
        {
            // Memory housekeeping only: never take the server down.
        }
        finally
        {
            Volatile.Write(ref _busy, 0);
        }
    }

    public void Dispose() => _stop.Set();
}
