using System.Net.Sockets;

namespace RedisClone.Cluster;

/// <summary>
/// MIGRATE's connections to target instances, cached by "host:port" as Redis's
/// migrate_cached_sockets: at most <see cref="MaxItems"/> (a random one is closed to make room),
/// each closed once unused for more than <see cref="IdleSeconds"/> seconds (the server cron calls
/// <see cref="CloseIdle"/>), and dropped after any I/O error so the next MIGRATE connects afresh.
/// </summary>
/// <remarks>
/// Redis runs one MIGRATE at a time, so a cached connection is never shared. Here MIGRATEs of
/// different clients run at once: a cached connection is lent to one of them at a time, and a
/// MIGRATE that finds it lent out connects on its own and closes that connection when done (the
/// cache keeps one connection per target, as Redis's does).
/// </remarks>
internal sealed class MigrateSockets : IDisposable
{
    public const int MaxItems = 64;
    public const int IdleSeconds = 10;

    private readonly Lock _lock = new();
    private readonly Dictionary<string, MigrateSocket> _cached = new(StringComparer.Ordinal);
    private bool _disposed;

    /// <summary>INFO's migrate_cached_sockets.</summary>
    public int Count
    {
        get
        {
            lock (_lock) return _cached.Count;
        }
    }

    /// <summary>The cached connection for <paramref name="name"/> when it is free, now lent to the caller; else null.</summary>
    public MigrateSocket? TryBorrow(string name)
    {
        lock (_lock)
        {
            if (!_cached.TryGetValue(name, out var socket) || socket.Lent) return null;
            socket.Lent = true;
            socket.LastUseSeconds = NowSeconds();
            return socket;
        }
    }

    /// <summary>
    /// Caches a new connection, lent to the caller, closing a random cached one first when the cache
    /// is full (a lent one is skipped: its MIGRATE is still using it). False when another MIGRATE
    /// cached one for the same target meanwhile: the caller keeps this one to itself.
    /// </summary>
    public bool TryAdd(MigrateSocket socket)
    {
        lock (_lock)
        {
            if (_disposed || _cached.ContainsKey(socket.Name)) return false;
            if (_cached.Count >= MaxItems)
            {
                var free = _cached.Values.Where(s => !s.Lent).ToArray();
                if (free.Length == 0) return false;
                var victim = free[Random.Shared.Next(free.Length)];
                _cached.Remove(victim.Name);
                victim.Close();
            }
            socket.Lent = true;
            socket.Cached = true;
            socket.LastUseSeconds = NowSeconds();
            _cached.Add(socket.Name, socket);
            return true;
        }
    }

    /// <summary>Gives a borrowed connection back; an uncached one is closed.</summary>
    public void Return(MigrateSocket socket)
    {
        lock (_lock)
        {
            if (socket.Cached && !_disposed)
            {
                socket.Lent = false;
                socket.LastUseSeconds = NowSeconds();
                return;
            }
        }
        socket.Close();
    }

    /// <summary>Closes a connection after an I/O error (Redis's migrateCloseSocket), removing it from the cache.</summary>
    public void Discard(MigrateSocket socket)
    {
        lock (_lock)
        {
            if (socket.Cached && _cached.TryGetValue(socket.Name, out var cached) && ReferenceEquals(cached, socket))
                _cached.Remove(socket.Name);
            socket.Cached = false;
        }
        socket.Close();
    }

    /// <summary>Closes the free connections unused for more than <see cref="IdleSeconds"/> (Redis's migrateCloseTimedoutSockets).</summary>
    public void CloseIdle()
    {
        long now = NowSeconds();
        List<MigrateSocket>? closing = null;
        lock (_lock)
        {
            foreach (var socket in _cached.Values)
                if (!socket.Lent && now - socket.LastUseSeconds > IdleSeconds) (closing ??= []).Add(socket);
            if (closing == null) return;
            foreach (var socket in closing)
            {
                _cached.Remove(socket.Name);
                socket.Cached = false;
            }
        }
        foreach (var socket in closing) socket.Close();
    }

    public void Dispose()
    {
        MigrateSocket[] all;
        lock (_lock)
        {
            _disposed = true;
            all = [.. _cached.Values];
            _cached.Clear();
        }
        foreach (var socket in all)
        {
            socket.Cached = false;
            if (!socket.Lent) socket.Close();
        }
    }

    private static long NowSeconds() => Environment.TickCount64 / 1000;
}

/// <summary>One connection to a MIGRATE target: the socket, what was read past the last reply line, and the database it last SELECTed.</summary>
internal sealed class MigrateSocket
{
    public MigrateSocket(string name, Socket socket)
    {
        Name = name;
        Socket = socket;
    }

    /// <summary>"host:port" as given to MIGRATE.</summary>
    public string Name { get; }

    public Socket Socket { get; }

    /// <summary>The database selected on the target, -1 when unknown (Redis's last_dbid).</summary>
    public long LastDbId { get; set; } = -1;

    // Cache bookkeeping, under MigrateSockets' lock.
    internal bool Lent;
    internal bool Cached;
    internal long LastUseSeconds;

    /// <summary>Bytes received but not yet consumed as reply lines: [Start, End) of Buffer.</summary>
    internal readonly byte[] Buffer = new byte[4096];
    internal int Start, End;

    public void Close()
    {
        try
        {
            Socket.Dispose();
        }
        catch (ObjectDisposedException)
        {
        }
    }
}
