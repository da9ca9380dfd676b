namespace RedisClone.Network.Epoll;

/// <summary>The server's event loops (<c>--io-threads</c>); new clients are spread over them in turn.</summary>
internal sealed class EventLoopGroup : IDisposable
{
    private readonly EventLoop[] _loops;
    private int _next = -1;

    public EventLoopGroup(int count)
    {
        _loops = new EventLoop[count];
        for (int i = 0; i < count; i++) _loops[i] = new EventLoop($"io-{i}", secondary: i > 0);
    }

    public int Count => _loops.Length;

    /// <summary>
    /// Iterations of every loop, and their time awake in Stopwatch ticks (INFO eventloop_cycles,
    /// eventloop_duration_sum): each loop's sampled mean times its iterations.
    /// </summary>
    public (long Cycles, long BusyTicks) Totals()
    {
        long cycles = 0, ticks = 0;
        foreach (var loop in _loops)
        {
            long c = Volatile.Read(ref loop.Cycles), sampled = Volatile.Read(ref loop.SampledCycles);
            cycles += c;
            if (sampled > 0) ticks += (long)((double)Volatile.Read(ref loop.SampledTicks) / sampled * c);
        }
        return (cycles, ticks);
    }

    public void Start()
    {
        foreach (var loop in _loops) loop.Start();
    }

    public EventLoop Next() => _loops[(int)((uint)Interlocked.Increment(ref _next) % (uint)_loops.Length)];

    /// <summary>The longest iteration of any loop (Stopwatch ticks) and the most commands one iteration ran.</summary>
    public (long Ticks, long Commands) Maxima()
    {
        long ticks = 0, commands = 0;
        foreach (var loop in _loops)
        {
            ticks = Math.Max(ticks, Volatile.Read(ref loop.MaxCycleTicks));
            commands = Math.Max(commands, Volatile.Read(ref loop.MaxCycleCommands));
        }
        return (ticks, commands);
    }

    /// <summary>CONFIG RESETSTAT: the maxima start over (a loop finishing an iteration meanwhile may keep its own).</summary>
    public void ResetMaxima()
    {
        foreach (var loop in _loops)
        {
            Volatile.Write(ref loop.MaxCycleTicks, 0);
            Volatile.Write(ref loop.MaxCycleCommands, 0);
        }
    }

    public void Dispose()
    {
        foreach (var loop in _loops) loop.Dispose();
    }
}
