namespace RedisClone.Common;

/// <summary>
/// A running total of the big buffers the server let go of (blocks over the pool's cap, a grown
/// parse arena, a long MULTI queue, a closed client's buffers): memory the GC can take back, which
/// the server's memory reclaimer weighs against the process's resident size. Counted only where a
/// buffer above a megabyte is dropped, never per command.
/// </summary>
internal static class ReleasedMemory
{
    private static long _total;

    /// <summary>Bytes released since the process started.</summary>
    public static long Total => Volatile.Read(ref _total);

    public static void Add(long bytes) => Interlocked.Add(ref _total, bytes);
}
