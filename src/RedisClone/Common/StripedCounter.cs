namespace RedisClone.Common;

/// <summary>
/// A 64-bit counter that many threads add to and few read: each processor adds to its own cache
/// line and a read sums the lines. A single shared counter bumped per receive and per send by every
/// event loop and shard thread would bounce one cache line between all the cores.
/// </summary>
/// <remarks>
/// The adds are still atomic (a thread can move to another processor between picking its line and
/// adding), but on a line no other core writes, so they cost about what a plain add does. A read
/// is a sum of racy loads, exact once the writers are quiet, as for Redis's own INFO counters.
/// </remarks>
internal sealed class StripedCounter
{
    private const int LongsPerLine = 8; // 64-byte cache lines

    private readonly long[] _lines;
    private readonly int _mask;

    public StripedCounter()
    {
        int stripes = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Clamp(Environment.ProcessorCount, 1, 64));
        _mask = stripes - 1;
        _lines = new long[(stripes + 1) * LongsPerLine]; // the first line is padding against the array header's neighbours
    }

    public void Add(long value) => Interlocked.Add(ref _lines[((Thread.GetCurrentProcessorId() & _mask) + 1) * LongsPerLine], value);

    public long Value
    {
        get
        {
            long sum = 0;
            for (int i = LongsPerLine; i < _lines.Length; i += LongsPerLine) sum += Volatile.Read(ref _lines[i]);
            return sum;
        }
    }

    public void Reset()
    {
        for (int i = LongsPerLine; i < _lines.Length; i += LongsPerLine) Interlocked.Exchange(ref _lines[i], 0);
    }
}
