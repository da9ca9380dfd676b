using System.Diagnostics;
using RedisClone.Commands;

namespace RedisClone.Server;

/// <summary>
/// INFO commandstats for one server: calls, time, rejected and failed calls per command.
/// </summary>
/// <remarks>
/// Every command run updates these, from connection and shard threads alike, so the counters are
/// striped by processor: each core increments its own cache lines and a reader sums the stripes.
/// A single shared counter per command would bounce one cache line between cores on every command.
/// </remarks>
internal sealed class CommandStats
{
    private const int Fields = 4; // calls, ticks, rejected, failed

    private readonly long[] _counters;
    private readonly int _stride;
    private readonly int _stripeMask;

    public CommandStats(int commandCount)
    {
        int stripes = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Clamp(Environment.ProcessorCount, 1, 64));
        _stripeMask = stripes - 1;
        _stride = (commandCount * Fields + 7) / 8 * 8 + 8; // whole cache lines, plus one line of gap
        _counters = new long[stripes * _stride];
    }

    private int Base(int id) => (Thread.GetCurrentProcessorId() & _stripeMask) * _stride + id * Fields;

    public void Record(int id, long elapsedTicks, bool failed)
    {
        int b = Base(id);
        Interlocked.Increment(ref _counters[b]);
        Interlocked.Add(ref _counters[b + 1], elapsedTicks);
        if (failed) Interlocked.Increment(ref _counters[b + 3]);
    }

    public void Rejected(int id) => Interlocked.Increment(ref _counters[Base(id) + 2]);

    /// <summary>The totals for one command (time in microseconds).</summary>
    public (long Calls, long Usec, long Rejected, long Failed) Get(int id)
    {
        long calls = 0, ticks = 0, rejected = 0, failed = 0;
        for (int s = 0; s <= _stripeMask; s++)
        {
            int b = s * _stride + id * Fields;
            calls += Volatile.Read(ref _counters[b]);
            ticks += Volatile.Read(ref _counters[b + 1]);
            rejected += Volatile.Read(ref _counters[b + 2]);
            failed += Volatile.Read(ref _counters[b + 3]);
        }
        return (calls, (long)(ticks * (1_000_000.0 / Stopwatch.Frequency)), rejected, failed);
    }

    /// <summary>Commands run, all commands together (INFO's total_commands_processed).</summary>
    public long TotalCalls()
    {
        long total = 0;
        for (int i = 0; i < _counters.Length; i += Fields) total += Volatile.Read(ref _counters[i]);
        return total;
    }

    public void Reset()
    {
        for (int i = 0; i < _counters.Length; i++) Interlocked.Exchange(ref _counters[i], 0);
    }
}
