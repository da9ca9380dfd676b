namespace RedisClone.Network.Epoll;

/// <summary>The server's event loops (<c>--io-threads</c>); new clients are spread over them in turn.</summary>
internal sealed class EventLoopGroup : IDisposable
{
    private readonly EventLoop[] _loops;
    private int _next = -1;

    public EventLoopGroup(int count)
    {
        _loops = new EventLoop[count];
        for (int i = 0; i < count; i++) _loops[i] = new EventLoop($"io-{i}");
    }

    public int Count => _loops.Length;

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
