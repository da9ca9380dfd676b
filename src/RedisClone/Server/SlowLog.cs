namespace RedisClone.Server;

/// <summary>
/// SLOWLOG's list: commands that ran for at least <c>slowlog-log-slower-than</c> microseconds,
/// newest first, at most <c>slowlog-max-len</c> of them. Shared by every thread that runs commands;
/// only slow commands come here, so one lock is enough.
/// </summary>
internal sealed class SlowLog
{
    /// <summary>SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING: what an entry keeps of a command.</summary>
    public const int MaxArgs = 32, MaxArgBytes = 128;

    /// <summary>One slow command: its ID, start time (Unix seconds), duration (µs), arguments as kept, client address and name.</summary>
    internal sealed record Entry(long Id, long Time, long Duration, byte[][] Args, string Peer, string Name);

    private readonly LinkedList<Entry> _entries = new();
    private readonly object _lock = new();
    private long _nextId;

    public int Count
    {
        get
        {
            lock (_lock) return _entries.Count;
        }
    }

    /// <summary>Adds an entry at the head and drops the oldest beyond <paramref name="maxLength"/>.</summary>
    public void Push(long time, long duration, byte[][] args, string peer, string name, long maxLength)
    {
        lock (_lock)
        {
            _entries.AddFirst(new Entry(_nextId++, time, duration, args, peer, name));
            while (_entries.Count > maxLength) _entries.RemoveLast();
        }
    }

    /// <summary>The newest <paramref name="count"/> entries (all when -1).</summary>
    public List<Entry> Newest(long count)
    {
        lock (_lock)
        {
            var list = new List<Entry>();
            foreach (var e in _entries)
            {
                if (count >= 0 && list.Count >= count) break;
                list.Add(e);
            }
            return list;
        }
    }

    /// <summary>SLOWLOG RESET: the entries go; IDs go on from where they were.</summary>
    public void Reset()
    {
        lock (_lock) _entries.Clear();
    }
}
