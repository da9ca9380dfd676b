using System.Diagnostics;

namespace RedisClone.Common;

/// <summary>
/// Unix time in milliseconds derived from a <see cref="Stopwatch"/> timestamp, so a connection that
/// reads the monotonic clock for a command's duration gets the wall-clock time from the same read.
/// </summary>
/// <remarks>
/// The command path read the clock four times per command at pipeline 1 (the wall clock before and
/// after a batch, the monotonic clock before and after each command); a profile at pipeline 16 had
/// clock_gettime at 4.7% of the server's CPU. The offset between the two clocks is resynchronized by
/// every server's cron (10 times a second), so a step of the system clock shows within 100 ms, as
/// Redis's cached time does within an event-loop turn; between steps both clocks run at the same
/// (NTP-slewed) rate.
/// </remarks>
internal static class ServerClock
{
    private static readonly long TicksPerMs = Stopwatch.Frequency / 1000;

    // Wall-clock time minus monotonic time, in Stopwatch ticks: one long, read and written whole.
    private static long _offset = ComputeOffset();

    /// <summary>The Unix time in ms at <paramref name="timestamp"/>, a <see cref="Stopwatch.GetTimestamp"/> value.</summary>
    public static long UnixMs(long timestamp) => (timestamp + Volatile.Read(ref _offset)) / TicksPerMs;

    /// <summary>The Unix time in ms now, and the Stopwatch timestamp it was read at.</summary>
    public static long UnixMsNow(out long timestamp)
    {
        timestamp = Stopwatch.GetTimestamp();
        return UnixMs(timestamp);
    }

    /// <summary>Takes the wall clock's current offset (called by the server cron).</summary>
    public static void Resync() => Volatile.Write(ref _offset, ComputeOffset());

    private static long ComputeOffset()
    {
        long before = Stopwatch.GetTimestamp();
        long unix100ns = DateTime.UtcNow.Ticks - DateTime.UnixEpoch.Ticks;
        long after = Stopwatch.GetTimestamp();
        long wall = (long)((Int128)unix100ns * Stopwatch.Frequency / TimeSpan.TicksPerSecond);
        return wall - (before + (after - before) / 2);
    }
}
