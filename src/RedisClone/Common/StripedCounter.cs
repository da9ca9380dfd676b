namespace RedisClone.Common;

/// <summary>
/// A 64-bit counter that many threads add to and few read: a thread adds to the cache line of the
/// processor it runs on (as the runtime last saw it) and a read sums the lines. A single shared
/// counter bumped per receive and per send by every event loop and shard thread would bounce one
/// cache line between all the cores.
/// </summary>
/// <remarks>
/// There are 64 lines whatever <see cref="Environment.ProcessorCount"/> says: processor numbers are
/// not renumbered under an affinity mask or a cgroup limit (a process allowed CPUs 0, 4, 8 and 12
/// sees a count of 4), and they still land on different lines. The adds stay atomic (a thread can
/// move to another processor between picking its line and adding) but rarely meet another core on
/// that line. A read is a sum of racy loads, exact once the writers are quiet, as Redis's INFO
/// counters are.
/// </remarks>
internal sealed class StripedCounter
{
    private const int Stripes = 64;
    private const int LongsPerLine = 8; // 64-byte cache lines

    // The first line is padding, so the array's header and whatever sits before it stay off line 1.
    private readonly long[] _lines = new long[(Stripes + 1) * LongsPerLine];

    public void Add(long value)
        => Interlocked.Add(ref _lines[((Thread.GetCurrentProcessorId() & (Stripes - 1)) + 1) * LongsPerLine], value);

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
