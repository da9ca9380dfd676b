namespace RedisClone.Server;

/// <summary>
/// Every command's <see cref="LatencyHistogram"/>, by <see cref="Commands.CommandDef.Id"/>, each
/// created the first time its command is recorded (Redis creates its own the same way); CONFIG
/// RESETSTAT drops them all.
/// </summary>
internal sealed class CommandLatencies
{
    private LatencyHistogram?[] _histograms;

    public CommandLatencies(int commandCount) => _histograms = new LatencyHistogram?[commandCount];

    /// <summary>Counts one run of command <paramref name="id"/> that took <paramref name="nanoseconds"/>.</summary>
    public void Record(int id, long nanoseconds)
    {
        var all = Volatile.Read(ref _histograms);
        var h = Volatile.Read(ref all[id]);
        if (h == null)
        {
            Interlocked.CompareExchange(ref all[id], new LatencyHistogram(), null);
            h = all[id]!;
        }
        h.Record(nanoseconds);
    }

    /// <summary>Command <paramref name="id"/>'s histogram, or null when it has not run since the start or the last reset.</summary>
    public LatencyHistogram? Get(int id) => Volatile.Read(ref Volatile.Read(ref _histograms)[id]);

    /// <summary>CONFIG RESETSTAT: every histogram goes.</summary>
    public void Reset() => Volatile.Write(ref _histograms, new LatencyHistogram?[_histograms.Length]);
}
