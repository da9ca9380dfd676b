namespace RedisClone.Common;

/// <summary>
/// The largest value seen in the last few seconds, the way Redis keeps INFO's
/// <c>client_recent_max_input_buffer</c> and <c>client_recent_max_output_buffer</c>: eight
/// one-second slots, each holding the largest value observed during its second; a read is the
/// largest of the slots still inside the last eight seconds.
/// </summary>
/// <remarks>
/// Observed only when a buffer grows (a rare path: a new input or reply block, a larger parse
/// arena), never per command, so a lock is cheap enough and keeps the slot and its second together.
/// </remarks>
internal sealed class RecentPeak
{
    private const int Slots = 8;

    private readonly Lock _sync = new();
    private readonly long[] _values = new long[Slots];
    private readonly long[] _seconds = new long[Slots];

    private static long NowSecond => Environment.TickCount64 / 1000;

    public void Observe(long value) => Observe(value, NowSecond);

    internal void Observe(long value, long second)
    {
        int slot = (int)(second % Slots);
        // Most calls raise nothing: skip the lock when this second's slot already holds as much.
        if (Volatile.Read(ref _seconds[slot]) == second && value <= Volatile.Read(ref _values[slot])) return;
        lock (_sync)
        {
            if (_seconds[slot] != second)
            {
                _seconds[slot] = second;
                _values[slot] = 0;
            }
            if (value > _values[slot]) _values[slot] = value;
        }
    }

    public long Read() => Read(NowSecond);

    internal long Read(long second)
    {
        long max = 0;
        lock (_sync)
        {
            for (int i = 0; i < Slots; i++)
                if (second - _seconds[i] < Slots && _values[i] > max) max = _values[i];
        }
        return max;
    }
}
