namespace RedisClone.Common;

/// <summary>
/// A running total of the big buffers the server let go of (blocks over the pool's cap, a grown
/// parse arena, a long MULTI queue, a closed client's buffers): memory the GC can take back, which
/// the server's memory reclaimer weighs against the process's resident size. Counted only where a
/// buffer above a megabyte is dropped, never per command.
/// </summary>
internal static class ReleasedMemory
{
    private static long _total, _resized;

    /// <summary>Bytes released since the process started.</summary>
    public static long Total => Volatile.Read(ref _total);

    /// <summary>
    /// Bytes of key table arrays replaced by larger ones since the process started (counted where a
    /// resize drops at least a megabyte). Unlike <see cref="Total"/> it comes with growth, not
    /// release: the old arrays stay as holes in the large object heap, which only a compacting
    /// collection gives back (issue 30: 20-25 bytes of resident size per key for 1M keys).
    /// </summary>
    public static long Resized => Volatile.Read(ref _resized);

    public static void Add(long bytes) => Interlocked.Add(ref _total, bytes);

    public static void AddResized(long bytes) => Interlocked.Add(ref _resized, bytes);
}
