using System.Runtime;

namespace RedisClone.Persistence;

/// <summary>
/// Keeps garbage collections out of a large load's way (an RDB file at start-up, DEBUG RELOAD):
/// nearly everything a load allocates stays alive, so a collection during it finds little to free
/// and copies the new keys from generation to generation instead. With the concurrent workstation
/// GC's small first generation (a few MB), loading 1M 100-byte strings ran 30 gen0, 17 gen1 and 4
/// gen2 collections, about half the load's time. The load runs in no-GC regions, each armed again
/// as it fills; starting one makes a collection, so a region is a quarter of the heap (at least
/// <see cref="ChunkBytes"/>, at most 1 GB): the number of collections grows with the logarithm
/// of the data's size, as the GC's own budgets would, not with the size.
/// </summary>
/// <remarks>
/// Only one no-GC region can exist in a process: if one is active already (or the runtime refuses
/// one), the load goes on without, as before. Files smaller than <see cref="MinFileBytes"/> are not
/// worth the collection that starting a region makes.
/// </remarks>
internal sealed class LoadGcHold : IDisposable
{
    private const long ChunkBytes = 128L << 20;
    public const long MinFileBytes = 16L << 20;

    private long _armedAt, _chunk;
    private bool _active, _refused;

    /// <summary>Call every few hundred items: arms a new region when this one is nearly used up or has ended.</summary>
    public void Check()
    {
        if (_refused) return;
        if (_active && GCSettings.LatencyMode == GCLatencyMode.NoGCRegion
            && GC.GetAllocatedBytesForCurrentThread() - _armedAt < _chunk * 3 / 4) return;
        End();
        _armedAt = GC.GetAllocatedBytesForCurrentThread();
        _chunk = Math.Clamp(GC.GetTotalMemory(forceFullCollection: false) / 4, ChunkBytes, 1L << 30);
        if (TryStart()) return;
        // Refused (more than the runtime grants in one region under a memory limit, or a region
        // active elsewhere): once more at the smallest size, then the load goes on without.
        if (_chunk > ChunkBytes)
        {
            _chunk = ChunkBytes;
            if (TryStart()) return;
        }
        _refused = true;
    }

    private bool TryStart()
    {
        try
        {
            return _active = GC.TryStartNoGCRegion(_chunk, disallowFullBlockingGC: true);
        }
        catch (Exception ex) when (ex is InvalidOperationException or ArgumentOutOfRangeException)
        {
            return false;
        }
    }

    private void End()
    {
        if (!_active) return;
        _active = false;
        // A region ends by itself when more than its size was allocated (a collection happened).
        if (GCSettings.LatencyMode != GCLatencyMode.NoGCRegion) return;
        try
        {
            GC.EndNoGCRegion();
        }
        catch (InvalidOperationException)
        {
        }
    }

    public void Dispose() => End();
}
