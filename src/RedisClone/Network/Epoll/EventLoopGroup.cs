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

    /// <summary>Iterations of every loop, and their time awake in Stopwatch ticks (INFO eventloop_cycles, eventloop_duration_sum).</summary>
    public (long Cycles, long BusyTicks) Totals()
    {
        long cycles = 0, ticks = 0;
        foreach (var loop in _loops)
        {
            cycles += Volatile.Read(ref loop.Cycles);
            ticks += Volatile.Read(ref loop.BusyTicks);
        }
        return (cycles, ticks);
    }

    public void Start()
    {
        foreach (var loop in _loops) loop.Start();
    }

    public EventLoop Next() => _loops[(int)((uint)Interlocked.Increment(ref _next) % (uint)_loops.Length)];

    public void Dispose()
    {
        foreach (var loop in _loops) loop.Dispose();
    }
}
