namespace RedisClone.Commands.Acl;

/// <summary>Where a refused command came from, as ACL LOG's "context" names it.</summary>
internal enum AclLogContext { TopLevel, Multi, Lua }

/// <summary>
/// ACL LOG: the most recent refusals (commands, keys, channels, failed AUTHs), newest first, up to
/// acllog-max-len. A refusal like one of the ten newest (same reason, context, object and user,
/// within 60 s) bumps that entry's count and moves it to the front instead of adding one, as Redis does.
/// </summary>
internal sealed class AclLog
{
    private const long GroupingMs = 60_000;

    private readonly object _gate = new();
    private readonly LinkedList<Entry> _entries = new();
    private long _nextId;

    // INFO stats' acl_access_denied_* counters.
    private long _deniedAuth, _deniedCommand, _deniedKey, _deniedChannel;

    /// <summary>One entry; the mutable fields change when a similar refusal is grouped into it.</summary>
    public sealed class Entry
    {
        public long Count;
        public AclResult Reason;
        public AclLogContext Context;
        public required string Object;
        public required string Username;
        public long UpdatedMs;
        public required string ClientInfo;
        public long Id;
        public long CreatedMs;
    }

    public long DeniedAuth => Interlocked.Read(ref _deniedAuth);
    public long DeniedCommand => Interlocked.Read(ref _deniedCommand);
    public long DeniedKey => Interlocked.Read(ref _deniedKey);
    public long DeniedChannel => Interlocked.Read(ref _deniedChannel);

    public void Add(AclResult reason, AclLogContext context, string obj, string username, string clientInfo, long maxLen)
    {
        switch (reason)
        {
            case AclResult.DeniedAuth: Interlocked.Increment(ref _deniedAuth); break;
            case AclResult.DeniedCommand: Interlocked.Increment(ref _deniedCommand); break;
            case AclResult.DeniedKey: Interlocked.Increment(ref _deniedKey); break;
            case AclResult.DeniedChannel: Interlocked.Increment(ref _deniedChannel); break;
        }
        long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        lock (_gate)
        {
            int scanned = 0;
            for (var node = _entries.First; node != null && scanned < 10; node = node.Next, scanned++)
            {
                var e = node.Value;
                if (e.Reason != reason || e.Context != context || Math.Abs(e.UpdatedMs - now) > GroupingMs ||
                    e.Object != obj || e.Username != username) continue;
                _entries.Remove(node);
                _entries.AddFirst(node);
                e.ClientInfo = clientInfo;
                e.UpdatedMs = now;
                e.Count++;
                return;
            }
            _entries.AddFirst(new Entry
            {
                Count = 1, Reason = reason, Context = context, Object = obj, Username = username, UpdatedMs = now,
                ClientInfo = clientInfo, Id = _nextId++, CreatedMs = now,
            });
            while (_entries.Count > maxLen) _entries.RemoveLast();
        }
    }

    /// <summary>The newest <paramref name="count"/> entries, copied.</summary>
    public List<Entry> Newest(long count)
    {
        lock (_gate)
        {
            var list = new List<Entry>();
            foreach (var e in _entries)
            {
                if (list.Count >= count) break;
                list.Add(new Entry
                {
                    Count = e.Count, Reason = e.Reason, Context = e.Context, Object = e.Object, Username = e.Username,
                    UpdatedMs = e.UpdatedMs, ClientInfo = e.ClientInfo, Id = e.Id, CreatedMs = e.CreatedMs,
                });
            }
            return list;
        }
    }

    public void Reset()
    {
        lock (_gate) _entries.Clear();
    }
}
