using System.Numerics;

namespace RedisClone.Server;

/// <summary>
/// One command's latency histogram (LATENCY HISTOGRAM, INFO latencystats, the metrics endpoint):
/// counts of durations in nanoseconds from 1 ns to 1 s, in log-linear buckets with the layout of
/// the HDR histogram Redis uses at two significant digits, so the percentiles and cumulative
/// buckets it reports are the ones Redis reports for the same durations.
/// </summary>
/// <remarks>
/// <para>
/// The layout: values below 256 each have a slot of their own; above, each power of two is cut
/// into 128 equal slots (so a slot is at most 1/128 of its value: two significant digits). 23
/// powers of two reach 1 s: 24 × 128 = 3072 slots. A value's slot is found with one leading-zero
/// count and two shifts; recording is one interlocked increment and allocates nothing.
/// </para>
/// <para>
/// The counts are striped by processor (up to 8 stripes) as <see cref="CommandStats"/> is, so cores
/// running the same command do not fight over one cache line; readers sum the stripes. A histogram
/// is created the first time its command runs, as Redis creates its own.
/// </para>
/// </remarks>
internal sealed class LatencyHistogram
{
    /// <summary>LATENCY_HISTOGRAM_MIN_VALUE and _MAX_VALUE: 1 ns to 1 s.</summary>
    public const long MinValue = 1, MaxValue = 1_000_000_000;

    private const int SubBucketCount = 256, SubBucketHalfCount = 128, SubBucketHalfCountMagnitude = 7;
    private const long SubBucketMask = SubBucketCount - 1;
    /// <summary>Powers of two needed above the first 256 values to reach <see cref="MaxValue"/>.</summary>
    private const int BucketCount = 23;
    public const int Slots = (BucketCount + 1) * SubBucketHalfCount;

    private readonly long[] _counts;
    private readonly int _stripeMask;

    public LatencyHistogram()
    {
        int stripes = (int)BitOperations.RoundUpToPowerOf2((uint)Math.Clamp(Environment.ProcessorCount, 1, 8));
        _stripeMask = stripes - 1;
        _counts = new long[stripes * Slots];
    }

    /// <summary>Counts one duration, clamped to [1 ns, 1 s] as Redis clamps it.</summary>
    public void Record(long nanoseconds)
    {
        long v = Math.Clamp(nanoseconds, MinValue, MaxValue);
        int stripe = Thread.GetCurrentProcessorId() & _stripeMask;
        Interlocked.Increment(ref _counts[stripe * Slots + SlotOf(v)]);
    }

    /// <summary>The power of two a value falls in (0 for values below 256).</summary>
    private static int BucketOf(long v) => 64 - BitOperations.LeadingZeroCount((ulong)(v | SubBucketMask)) - (SubBucketHalfCountMagnitude + 1);

    internal static int SlotOf(long v)
    {
        int bucket = BucketOf(v);
        int sub = (int)(v >> bucket);
        return ((bucket + 1) << SubBucketHalfCountMagnitude) + sub - SubBucketHalfCount;
    }

    /// <summary>The lowest value that falls in <paramref name="slot"/>.</summary>
    internal static long ValueOf(int slot)
    {
        int bucket = (slot >> SubBucketHalfCountMagnitude) - 1;
        int sub = (slot & (SubBucketHalfCount - 1)) + SubBucketHalfCount;
        if (bucket < 0)
        {
            sub -= SubBucketHalfCount;
            bucket = 0;
        }
        return (long)sub << bucket;
    }

    /// <summary>The highest value that falls in the same slot as <paramref name="v"/>.</summary>
    internal static long HighestEquivalent(long v)
    {
        int bucket = BucketOf(v);
        long lowest = (v >> bucket) << bucket;
        return lowest + (1L << bucket) - 1;
    }

    /// <summary>The lowest value that falls in the same slot as <paramref name="v"/>.</summary>
    internal static long LowestEquivalent(long v)
    {
        int bucket = BucketOf(v);
        return (v >> bucket) << bucket;
    }

    /// <summary>The counts summed over the stripes, into <paramref name="into"/> (length <see cref="Slots"/>); returns the total.</summary>
    public long Snapshot(long[] into)
    {
        Array.Clear(into);
        long total = 0;
        for (int s = 0; s <= _stripeMask; s++)
        {
            int b = s * Slots;
            for (int i = 0; i < Slots; i++)
            {
                long c = Volatile.Read(ref _counts[b + i]);
                into[i] += c;
                total += c;
            }
        }
        return total;
    }

    /// <summary>
    /// The value at a percentile of a snapshot, as HDR reports it: the highest value of the slot
    /// where the running count first reaches the percentile's share of the total (rounded half up,
    /// at least 1); the lowest value of that slot for percentile 0.
    /// </summary>
    public static long ValueAtPercentile(long[] counts, long total, double percentile)
    {
        double p = Math.Min(percentile, 100.0);
        long wanted = Math.Max(1, (long)(p / 100 * total + 0.5));
        long running = 0;
        long value = 0;
        for (int i = 0; i < counts.Length; i++)
        {
            running += counts[i];
            if (running >= wanted)
            {
                value = ValueOf(i);
                break;
            }
        }
        return percentile == 0.0 ? LowestEquivalent(value) : HighestEquivalent(value);
    }

    /// <summary>
    /// LATENCY HISTOGRAM's buckets: at 1024 ns, then each power of two above, the count of durations
    /// up to and including the first slot at or past that level, with the slot's highest value in
    /// whole microseconds. Levels whose count did not grow are left out, as Redis leaves them out;
    /// with <paramref name="everyLevel"/> every level up to the last slot is given (a fixed set of
    /// bucket bounds, as a Prometheus histogram wants), and what lies beyond it is left to +Inf.
    /// </summary>
    public static List<(long Micros, long Cumulative)> Cumulative(long[] counts, long total, bool everyLevel = false)
    {
        var result = new List<(long, long)>();
        long level = 1024;
        long running = 0, previous = 0;
        int slot = -1;
        long slotValue = 0;
        while (everyLevel || running < total || slot < 0)
        {
            long levelLowest = LowestEquivalent(level);
            while (slotValue < levelLowest || slot < 0)
            {
                if (slot + 1 >= counts.Length) goto end;
                slot++;
                running += counts[slot];
                slotValue = ValueOf(slot);
            }
            if (everyLevel || running > previous) result.Add((HighestEquivalent(slotValue) / 1000, running));
            previous = running;
            level *= 2;
        }
        end:
        // Past the last slot (durations near 1 s): what was counted shows at the last slot's value.
        if (!everyLevel && running > previous) result.Add((HighestEquivalent(slotValue) / 1000, running));
        return result;
    }
}
