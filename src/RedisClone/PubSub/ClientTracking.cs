using System.Buffers;
using System.Text;
using RedisClone.Commands;
using RedisClone.Server;
using RedisClone.Storage;

namespace RedisClone.PubSub;

/// <summary>
/// Server-assisted client-side caching (CLIENT TRACKING), as Redis 7.2's tracking.c behaves.
/// </summary>
/// <remarks>
/// <para>Default mode: a key read by a tracking client's read-only command is remembered with the
/// client's id in one table for the whole server (key names only, whatever the database, as in
/// Redis). When the key is next modified (any write path that tells WATCHers: commands, scripts,
/// EXEC, expiry), every remembered client is sent one invalidation and the key leaves the table.
/// BCAST mode: nothing is remembered; every modified key under a subscribed prefix is collected
/// and sent, per prefix, when the command that changed it (or its EXEC) is over.</para>
/// <para>Threads: keys belong to shards, whose gates serialize a key's readers and writers, so a
/// read is remembered before any later write to that key can look it up. The table itself is
/// shared by every shard thread and guarded by one lock, taken only while someone tracks or keys
/// remain remembered (<see cref="Active"/>, one volatile read on the paths that check it).</para>
/// <para>Delivery: an invalidation goes out as a RESP3 push (<c>&gt;2 invalidate [keys]</c>) or, for
/// a RESP2 client redirecting to a subscribed connection, as a message on
/// <c>__redis__:invalidate</c>. Messages for the client running the command that caused them wait
/// until that command's reply is written (Redis's tracking_pending_keys); others are queued on the
/// receiving connection at once. Keys removed before a client's command runs (tracking-table-max-keys,
/// maxmemory) are told to that client ahead of the command's reply, as Redis's processCommand does
/// both before calling the command.</para>
/// <para>Scripts: the keys a script's read commands read are remembered for the script's caller,
/// with the caller's OPTIN/OPTOUT and CLIENT CACHING (Redis 7.2; 7.0 remembered the script's declared
/// keys instead).</para>
/// </remarks>
internal sealed class ClientTracking : IKeyChangeListener
{
    private static ReadOnlySpan<byte> PushHead => ">2\r\n$10\r\ninvalidate\r\n"u8;
    private static ReadOnlySpan<byte> MessageHead => "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n"u8;

    // The client whose command runs on this thread (the caller of a script, not the script's own
    // client), and how deeply Run calls are nested on it.
    [ThreadStatic] private static ClientSession? t_executing;
    [ThreadStatic] private static int t_depth;
    // How many of the Run calls nested on this thread are a script's own commands: a key they change
    // counts, for BCAST's NOLOOP, as changed by the script's client, not its caller (see KeyChanged).
    [ThreadStatic] private static int t_scriptCommands;
    // The client whose command is being checked on this thread, before it runs (maxmemory may evict then).
    [ThreadStatic] private static ClientSession? t_checking;

    private readonly RedisServer _server;
    private readonly object _lock = new();
    private readonly Dictionary<byte[], HashSet<long>> _keys = new(ByteArrayComparer.Instance);
    private readonly SortedList<byte[], Prefix> _prefixes = new(ByteOrder.Instance);
    private long _items;
    private int _clients;
    private volatile bool _active;
    private volatile bool _broadcastPending;
    private int _overLimitRuns;

    public ClientTracking(RedisServer server) => _server = server;

    /// <summary>Someone tracks, or keys remain remembered: writes must be looked up.</summary>
    public bool Active => _active;

    public int Clients => Volatile.Read(ref _clients);

    public long TotalKeys { get { lock (_lock) return _keys.Count; } }

    public long TotalItems { get { lock (_lock) return _items; } }

    public long TotalPrefixes { get { lock (_lock) return _prefixes.Count; } }

    /// <summary>A BCAST prefix: its subscribers, and the keys under it changed since the last send (with who changed each last).</summary>
    private sealed class Prefix
    {
        public readonly List<ClientSession> Clients = new(1);
        public readonly SortedList<byte[], ClientSession?> Keys = new(ByteOrder.Instance);
    }

    /// <summary>Byte-wise order (memcmp, shorter first on a tie), the order Redis's radix trees keep.</summary>
    private sealed class ByteOrder : IComparer<byte[]>
    {
        public static readonly ByteOrder Instance = new();
        public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y);
    }

    // ---------------------------------------------------------------- commands

    /// <summary>
    /// CLIENT TRACKING ON's prefix check: none of <paramref name="prefixes"/> may be a prefix of, or
    /// have as prefix, one the client has or another one given. Null when they are fine, else the error.
    /// </summary>
    public string? CheckPrefixes(ClientSession c, List<byte[]> prefixes)
    {
        lock (_lock)
        {
            for (int i = 0; i < prefixes.Count; i++)
            {
                if (c.TrackingPrefixes != null)
                    foreach (var existing in c.TrackingPrefixes)
                        if (Overlap(existing, prefixes[i]))
                            return Protocol.RespErrors.TrackingPrefixOverlapsExisting(prefixes[i], existing);
                for (int j = i + 1; j < prefixes.Count; j++)
                    if (Overlap(prefixes[i], prefixes[j]))
                        return Protocol.RespErrors.TrackingPrefixOverlapsAnother(prefixes[i], prefixes[j]);
            }
            return null;
        }
    }

    private static bool Overlap(byte[] a, byte[] b)
    {
        int n = Math.Min(a.Length, b.Length);
        return a.AsSpan(0, n).SequenceEqual(b.AsSpan(0, n));
    }

    /// <summary>CLIENT TRACKING ON with checked options (Redis's enableTracking): BCAST prefixes add to the ones the client has.</summary>
    public void Enable(ClientSession c, long redirect, TrackingFlags options, List<byte[]> prefixes)
    {
        lock (_lock)
        {
            if ((c.Tracking & TrackingFlags.On) == 0) _clients++;
            c.Tracking = (c.Tracking | TrackingFlags.On)
                & ~(TrackingFlags.BrokenRedirect | TrackingFlags.Bcast | TrackingFlags.OptIn | TrackingFlags.OptOut | TrackingFlags.NoLoop);
            c.TrackingRedirect = redirect;
            if ((options & TrackingFlags.Bcast) != 0)
            {
                c.Tracking |= TrackingFlags.Bcast;
                if (prefixes.Count == 0) AddPrefix(c, []);
                foreach (var p in prefixes) AddPrefix(c, p);
            }
            c.Tracking |= options & (TrackingFlags.OptIn | TrackingFlags.OptOut | TrackingFlags.NoLoop);
            UpdateActive();
        }
    }

    private void AddPrefix(ClientSession c, byte[] prefix)
    {
        if (!_prefixes.TryGetValue(prefix, out var state)) _prefixes.Add(prefix, state = new Prefix());
        if (state.Clients.Contains(c)) return;
        state.Clients.Add(c);
        var mine = c.TrackingPrefixes ??= new List<byte[]>(1);
        int at = mine.BinarySearch(prefix, ByteOrder.Instance);
        if (at < 0) mine.Insert(~at, prefix);
    }

    /// <summary>CLIENT TRACKING OFF, RESET, disconnect (Redis's disableTracking). Remembered keys stay until they change, as in Redis.</summary>
    public void Disable(ClientSession c)
    {
        if (c.Tracking == TrackingFlags.None && c.TrackingPrefixes == null) return;
        lock (_lock)
        {
            if ((c.Tracking & TrackingFlags.Bcast) != 0 && c.TrackingPrefixes != null)
            {
                foreach (var p in c.TrackingPrefixes)
                {
                    if (!_prefixes.TryGetValue(p, out var state)) continue;
                    state.Clients.Remove(c);
                    if (state.Clients.Count == 0) _prefixes.Remove(p);
                }
            }
            c.TrackingPrefixes = null;
            if ((c.Tracking & TrackingFlags.On) != 0) _clients--;
            c.Tracking = TrackingFlags.None;
            UpdateActive();
        }
    }

    private void UpdateActive() => _active = _clients > 0 || _keys.Count > 0;

    // ---------------------------------------------------------------- the command runner's hooks

    /// <summary>
    /// Before a command runs (while <see cref="Active"/>): the outermost call on this thread makes
    /// <paramref name="session"/> the executing client and, as Redis's processCommand does, brings
    /// the table back under tracking-table-max-keys first.
    /// </summary>
    public void Enter(ClientSession session, IBufferWriter<byte> sink)
    {
        if (session.IsScriptClient) t_scriptCommands++;
        if (t_depth++ != 0) return;
        t_executing = session;
        // EXEC's queued commands are not checked one by one: EXEC was, before its reply began
        // (BeforeCommand), so no message lands inside the reply's array.
        if (!session.InExec && Volatile.Read(ref _clients) > 0) LimitKeys(session, sink);
    }

    /// <summary>
    /// What Redis's processCommand does for a command that does not reach <see cref="Enter"/> as the
    /// outermost call (a command queued by MULTI, EXEC itself): brings the table back under
    /// tracking-table-max-keys, the messages for <paramref name="session"/> going ahead of its reply.
    /// </summary>
    public void BeforeCommand(ClientSession session, IBufferWriter<byte> sink)
    {
        if (Volatile.Read(ref _clients) > 0) LimitKeys(session, sink);
    }

    /// <summary>Around the checks ahead of <paramref name="session"/>'s command (see <see cref="TakeAhead"/>).</summary>
    public static void BeginChecks(ClientSession session) => t_checking = session;

    public static void EndChecks() => t_checking = null;

    /// <summary>
    /// Writes the invalidations of <paramref name="session"/>'s keys evicted while its command was
    /// checked (Redis's performEvictions runs in processCommand, so they go ahead of the reply).
    /// </summary>
    public void TakeAhead(ClientSession session, IBufferWriter<byte> sink)
    {
        if (session.TrackingAhead is not { Count: > 0 } ahead) return;
        lock (_lock)
        {
            foreach (var key in ahead) Send(session, KeyValue(key), sink, session);
            ahead.Clear();
        }
    }

    /// <summary>
    /// The server's cron (every 100 ms, as Redis's serverCron at hz 10): brings the table back under
    /// tracking-table-max-keys even while no command arrives, so lowering it with CONFIG SET takes
    /// effect on an idle server. No command runs, so every message is queued on its connection.
    /// </summary>
    public void Cron()
    {
        if (Volatile.Read(ref _clients) > 0) LimitKeys(null, null);
    }

    /// <summary>
    /// After the command (paired with <see cref="Enter"/>): the outermost call sends what the command
    /// caused, after its reply, unless it ran inside EXEC (then <see cref="FlushAfter"/> does, after EXEC's).
    /// </summary>
    public void Exit(ClientSession session, IBufferWriter<byte> sink)
    {
        if (session.IsScriptClient) t_scriptCommands--;
        if (--t_depth != 0) return;
        t_executing = null;
        if (!session.InExec) FlushAfter(session, sink);
    }

    /// <summary>Sends <paramref name="session"/>'s own pending invalidations into its reply stream, then the BCAST batches.</summary>
    public void FlushAfter(ClientSession session, IBufferWriter<byte> sink)
    {
        if (session.TrackingPending is { Count: > 0 } pending)
        {
            lock (_lock)
            {
                foreach (var key in pending)
                    Send(session, key == null ? NullValue(session.Protocol) : KeyValue(key), sink, session);
                pending.Clear();
            }
        }
        if (_broadcastPending) Broadcast(sink, session);
    }

    /// <summary>
    /// After a read-only command ran for the executing client: remembers the keys it read, unless
    /// the client is in BCAST mode, or OPTIN without CACHING YES, or OPTOUT with CACHING NO.
    /// </summary>
    public static ClientSession? ExecutingReader()
    {
        var c = t_executing;
        if (c == null) return null;
        var flags = c.Tracking;
        if ((flags & TrackingFlags.On) == 0 || (flags & TrackingFlags.Bcast) != 0) return null;
        bool caching = (flags & TrackingFlags.Caching) != 0;
        if ((flags & TrackingFlags.OptIn) != 0 && !caching) return null;
        if ((flags & TrackingFlags.OptOut) != 0 && caching) return null;
        return c;
    }

    /// <summary>Remembers that <paramref name="c"/> may cache <paramref name="key"/>.</summary>
    public void Remember(ClientSession c, ReadOnlySpan<byte> key)
    {
        lock (_lock)
        {
            var lookup = _keys.GetAlternateLookup<ReadOnlySpan<byte>>();
            if (!lookup.TryGetValue(key, out var ids)) lookup[key] = ids = new HashSet<long>();
            if (ids.Add(c.Id)) _items++;
            UpdateActive();
        }
    }

    /// <summary>A key was modified (Redis's trackingInvalidateKey): its trackers hear of it; BCAST prefixes collect it.</summary>
    public void KeyChanged(ReadOnlySpan<byte> key)
    {
        var executing = t_executing;
        lock (_lock)
        {
            if (_prefixes.Count > 0)
            {
                // As Redis, a BCAST key remembers the client whose command changed it: for a script's
                // command that is the script's own client, so a NOLOOP caller does hear of the keys its
                // script changed (in default mode NOLOOP looks at the caller, below).
                CollectForBroadcast(key, t_scriptCommands > 0 ? null : executing);
                // A change outside any command (the expiry cycle) has no command end to wait for.
                if (executing == null) Broadcast(null, null);
            }
            if (!_keys.GetAlternateLookup<ReadOnlySpan<byte>>().Remove(key, out var keyArray, out var ids)) return;
            _items -= ids.Count;
            UpdateActive();
            foreach (long id in ids)
            {
                if (!TryClient(id, out var target)) continue;
                var flags = target.Tracking;
                // A client that switched to BCAST since does not hear about keys it read before.
                if ((flags & TrackingFlags.On) == 0 || (flags & TrackingFlags.Bcast) != 0) continue;
                if (target == executing)
                {
                    if ((flags & TrackingFlags.NoLoop) != 0) continue;
                    (target.TrackingPending ??= new List<byte[]?>(1)).Add(keyArray);
                }
                else if (executing == null && target == t_checking)
                {
                    // Evicted before its command: Redis's current client, so NOLOOP holds here too.
                    if ((flags & TrackingFlags.NoLoop) != 0) continue;
                    (target.TrackingAhead ??= new List<byte[]>(1)).Add(keyArray);
                }
                else
                {
                    Send(target, KeyValue(keyArray), null, null);
                }
            }
        }
    }

    /// <summary>FLUSHDB/FLUSHALL: every tracking client is sent a null invalidation (everything), and the table empties.</summary>
    public void Flushed()
    {
        if (!_active) return;
        var executing = t_executing;
        lock (_lock)
        {
            if (_clients > 0)
            {
                foreach (var c in _server.Clients.Values)
                {
                    if ((c.Tracking & TrackingFlags.On) == 0 || c.Killed) continue;
                    if (c == executing) (c.TrackingPending ??= new List<byte[]?>(1)).Add(null);
                    else Send(c, NullValue(c.Protocol), null, null);
                }
            }
            _keys.Clear();
            _items = 0;
            UpdateActive();
        }
    }

    // ---------------------------------------------------------------- tracking-table-max-keys

    /// <summary>
    /// Over tracking-table-max-keys: invalidates keys until back under it, with an effort that grows
    /// each time one call was not enough (100 keys, then 200...), as Redis's trackingLimitUsedSlots.
    /// Redis picks the keys by a random walk; these go in the table's order (oldest first, mostly).
    /// <paramref name="executing"/> is the client whose command is about to run (null from the cron):
    /// its own messages go into <paramref name="sink"/>, ahead of that command's reply.
    /// </summary>
    private void LimitKeys(ClientSession? executing, IBufferWriter<byte>? sink)
    {
        long max = _server.Config.TrackingTableMaxKeys;
        if (max <= 0) return;
        lock (_lock)
        {
            if (_keys.Count <= max)
            {
                _overLimitRuns = 0;
                return;
            }
            int effort = 100 * (_overLimitRuns + 1);
            var victims = new List<byte[]>(Math.Min(effort, _keys.Count));
            foreach (var key in _keys.Keys)
            {
                if (victims.Count == effort) break;
                victims.Add(key);
            }
            foreach (var key in victims)
            {
                if (!_keys.Remove(key, out var ids)) continue;
                _items -= ids.Count;
                foreach (long id in ids)
                {
                    if (!TryClient(id, out var target)) continue;
                    var flags = target.Tracking;
                    if ((flags & TrackingFlags.On) == 0 || (flags & TrackingFlags.Bcast) != 0) continue;
                    // As Redis (its trackingInvalidateKey sees the client about to run a command as
                    // the current one): a NOLOOP client is not told of its own keys evicted before its
                    // command; they leave the table all the same.
                    if (target == executing && (flags & TrackingFlags.NoLoop) != 0) continue;
                    // No command is running yet: the message goes ahead of its reply, as in Redis.
                    Send(target, KeyValue(key), sink, executing);
                }
                if (_keys.Count <= max)
                {
                    _overLimitRuns = 0;
                    UpdateActive();
                    return;
                }
            }
            _overLimitRuns++;
            UpdateActive();
        }
    }

    // ---------------------------------------------------------------- BCAST

    private void CollectForBroadcast(ReadOnlySpan<byte> key, ClientSession? changedBy)
    {
        byte[]? copy = null;
        foreach (var (prefix, state) in _prefixes)
        {
            if (!key.StartsWith(prefix)) continue;
            copy ??= key.ToArray();
            state.Keys[copy] = changedBy;
            _broadcastPending = true;
        }
    }

    /// <summary>Sends every prefix's collected keys to its subscribers (Redis's trackingBroadcastInvalidationMessages).</summary>
    private void Broadcast(IBufferWriter<byte>? sink, ClientSession? executing)
    {
        lock (_lock)
        {
            _broadcastPending = false;
            foreach (var (_, state) in _prefixes)
            {
                if (state.Keys.Count == 0) continue;
                byte[] all = KeysValue(state.Keys, null)!;
                foreach (var c in state.Clients)
                {
                    if ((c.Tracking & TrackingFlags.NoLoop) != 0)
                    {
                        var own = KeysValue(state.Keys, c);
                        if (own != null) Send(c, own, sink, executing);
                    }
                    else
                    {
                        Send(c, all, sink, executing);
                    }
                }
                state.Keys.Clear();
            }
        }
    }

    /// <summary>The keys as one RESP array, leaving out those <paramref name="except"/> changed last; null if that leaves none.</summary>
    private static byte[]? KeysValue(SortedList<byte[], ClientSession?> keys, ClientSession? except)
    {
        int count = 0;
        foreach (var (_, by) in keys)
            if (except == null || by != except) count++;
        if (count == 0) return null;
        var sb = new ArrayBufferWriter<byte>();
        Header(sb, '*', count);
        foreach (var (key, by) in keys)
        {
            if (except != null && by == except) continue;
            Header(sb, '$', key.Length);
            sb.Write(key);
            sb.Write("\r\n"u8);
        }
        return sb.WrittenSpan.ToArray();
    }

    // ---------------------------------------------------------------- messages

    private static byte[] KeyValue(byte[] key)
    {
        var sb = new ArrayBufferWriter<byte>(key.Length + 16);
        sb.Write("*1\r\n"u8);
        Header(sb, '$', key.Length);
        sb.Write(key);
        sb.Write("\r\n"u8);
        return sb.WrittenSpan.ToArray();
    }

    /// <summary>A flush's invalidation: the null of the tracking client's protocol, whoever receives it (as Redis).</summary>
    private static byte[] NullValue(int protocol) => protocol == 3 ? "_\r\n"u8.ToArray() : "$-1\r\n"u8.ToArray();

    private static void Header(ArrayBufferWriter<byte> sb, char type, long n)
    {
        sb.Write([(byte)type]);
        sb.Write(Encoding.ASCII.GetBytes(n.ToString(System.Globalization.CultureInfo.InvariantCulture)));
        sb.Write("\r\n"u8);
    }

    /// <summary>
    /// Sends one invalidation for tracking client <paramref name="c"/> (Redis's sendTrackingMessage):
    /// to it in RESP3, or to its redirect target (RESP3 push, or a __redis__:invalidate message to a
    /// subscribed RESP2 connection). A RESP2 client without redirection gets nothing. A redirect
    /// target that is gone marks the redirection broken and tells a RESP3 client so.
    /// </summary>
    private void Send(ClientSession c, byte[] value, IBufferWriter<byte>? sink, ClientSession? executing)
    {
        var dest = c;
        bool redirected = false;
        if (c.TrackingRedirect != 0)
        {
            if (!TryClient(c.TrackingRedirect, out var target))
            {
                c.Tracking |= TrackingFlags.BrokenRedirect;
                if (c.Protocol == 3)
                {
                    var broken = new ArrayBufferWriter<byte>();
                    broken.Write(">2\r\n$21\r\ntracking-redir-broken\r\n"u8);
                    Header(broken, ':', c.TrackingRedirect);
                    Deliver(c, broken.WrittenSpan.ToArray(), sink, executing);
                }
                return;
            }
            dest = target;
            redirected = true;
        }
        ReadOnlySpan<byte> head;
        if (dest.Protocol == 3) head = PushHead;
        else if (redirected && dest.InPubSubMode) head = MessageHead;
        else return;
        var message = new byte[head.Length + value.Length];
        head.CopyTo(message);
        value.CopyTo(message.AsSpan(head.Length));
        Deliver(dest, message, sink, executing);
    }

    /// <summary>Into the reply stream when the receiver is the client whose command is ending, else onto its connection's queue.</summary>
    private static void Deliver(ClientSession dest, byte[] message, IBufferWriter<byte>? sink, ClientSession? executing)
    {
        if (sink != null && dest == executing && dest.ReplyMode == ReplyMode.On) sink.Write(message);
        else dest.Subscriber?.Push(message);
    }

    private bool TryClient(long id, out ClientSession client)
        => _server.Clients.TryGetValue(id, out client!) && !client.Killed;
}
