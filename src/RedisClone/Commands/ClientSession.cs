using System.Net;
using System.Net.Sockets;

namespace RedisClone.Commands;

/// <summary>CLIENT REPLY's modes.</summary>
internal enum ReplyMode
{
    On,
    Off,
    /// <summary>The next command's reply is dropped, then back to On.</summary>
    Skip,
    /// <summary>Set by CLIENT REPLY SKIP; becomes <see cref="Skip"/> after that command itself.</summary>
    SkipNext,
}

/// <summary>
/// What the server knows about one client: identity, selected database, protocol, name and the
/// fields CLIENT LIST shows. Written by the connection's thread; read by CLIENT LIST from others.
/// </summary>
internal sealed class ClientSession : Storage.IKeyWatcher
{
    private readonly Action _kill;

    /// <param name="address">The address to show instead of <paramref name="remote"/>'s ("lua" for scripts' commands in MONITOR).</param>
    public ClientSession(long id, EndPoint? remote, EndPoint? local, Action kill, string? address = null)
    {
        Id = id;
        Address = address ?? Format(remote);
        LocalAddress = Format(local);
        UnixSocket = remote is UnixDomainSocketEndPoint;
        CreatedAtMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        LastInteractionMs = CreatedAtMs;
        _kill = kill;
    }

    public long Id { get; }
    public string Address { get; }
    public string LocalAddress { get; }

    /// <summary>Connected through the unixsocket (CLIENT LIST flag U; always a local client).</summary>
    public bool UnixSocket { get; }

    /// <summary>
    /// Connected through the TLS port: cluster replies (CLUSTER NODES, SLOTS, REPLICAS, MOVED, ASK)
    /// name the nodes' TLS ports to it, as Redis 7.2's shouldReturnTlsInfo decides.
    /// </summary>
    public bool Tls { get; set; }
    public long CreatedAtMs { get; }
    public long LastInteractionMs { get; set; }

    /// <summary>CLIENT SETNAME; null when unset.</summary>
    public string? Name { get; set; }
    public string? LibName { get; set; }
    public string? LibVersion { get; set; }

    public int Db { get; set; }

    /// <summary>The AOF sequence of this client's last write: with appendfsync always its replies wait until it is on disk.</summary>
    public long AofSequence { get; set; }

    /// <summary>master_repl_offset after this client's last write (Redis's c->woff): what WAIT waits for replicas to acknowledge.</summary>
    public long ReplOffset { get; set; }

    /// <summary>
    /// Set by REPLCONF (its options) and SYNC/PSYNC (the connection is then a replica, see
    /// Replication/ReplicaLink): the connection writes the replication stream.
    /// </summary>
    public Replication.ReplicaLink? ReplicaLink { get; set; }

    /// <summary>A replica (SYNC/PSYNC): CLIENT LIST flag S, type replica.</summary>
    public bool IsReplica => ReplicaLink is { Attached: true };

    /// <summary>
    /// The ACL user the connection runs as: the default user until AUTH or HELLO AUTH, back to it on
    /// RESET. Null for the server's own clients (AOF replay), which Redis runs with no user: no checks.
    /// </summary>
    public Acl.AclUser? User { get; set; }

    /// <summary>Redis's c->authenticated: AUTH or HELLO AUTH succeeded (the default user with nopass needs neither).</summary>
    public bool Authenticated { get; set; }

    /// <summary>2 or 3 (HELLO).</summary>
    public int Protocol { get; set; } = 2;

    public ReplyMode ReplyMode { get; set; } = ReplyMode.On;
    /// <summary>CLIENT NO-EVICT: never chosen by client eviction (maxmemory-clients), though its memory still counts.</summary>
    public bool NoEvict { get; set; }

    /// <summary>The memory this client was last counted with toward maxmemory-clients (see Server/ClientEviction).</summary>
    public long CountedMemory;
    public bool NoTouch { get; set; }

    /// <summary>Last command run, as CLIENT LIST's cmd= shows it ("client|list").</summary>
    public string LastCommand { get; set; } = "NULL";

    /// <summary>Set by QUIT: close once the pending replies are written.</summary>
    public bool CloseAfterReply { get; set; }

    /// <summary>The connection's socket and buffers, measured for CLIENT LIST and INFO; null without one.</summary>
    public IClientBuffers? Buffers { get; set; }

    /// <summary>What the connection's buffers hold now (all zero without a connection).</summary>
    public ClientBufferUsage MeasureBuffers() => Buffers?.Measure() ?? default;

    /// <summary>CLIENT LIST's multi-mem: the queued arguments plus a pointer's worth each, as Redis counts them.</summary>
    public long MultiMemoryBytes => InMulti && Queued is { } queued ? queued.ArenaBytes + 8L * queued.TotalArgs : 0;

    public bool Killed { get; private set; }

    /// <summary>In MONITOR mode: the connection receives every command the server runs.</summary>
    public bool IsMonitor { get; set; }

    /// <summary>ASKING and READONLY on a cluster node (CLIENT LIST shows READONLY as 'r').</summary>
    public Cluster.ClientClusterFlags ClusterFlags { get; set; }

    /// <summary>
    /// The command just checked addresses a slot being migrated or imported: whether this node serves
    /// it depends on which keys exist, asked again with its gates held (Execution/ClusterRouting).
    /// </summary>
    public bool ClusterRecheck;

    /// <summary>Whether that command came after ASKING (the flag itself is already cleared).</summary>
    public bool ClusterRecheckAsking;

    /// <summary>The hash slot of the keys of the command being run (Redis's c->slot), -1 when none: a script's commands must keep to it.</summary>
    public int ClusterSlot = -1;

    /// <summary>A script client's: the running script declared allow-cross-slot-keys.</summary>
    public bool ClusterCrossSlotAllowed;

    // --- Blocking commands (see Execution/BatchExecutor.Blocking.cs)

    /// <summary>Set by a blocking command that found nothing: the connection waits on it.</summary>
    public Storage.BlockedClient? Blocked { get; set; }

    /// <summary>
    /// While a woken blocked command runs again: the wait it came from. XREAD reads the IDs it
    /// resolved "$" to when it blocked from here (Redis rewrites the command's arguments instead).
    /// </summary>
    public Storage.BlockedClient? Resuming { get; set; }

    /// <summary>
    /// A MIGRATE whose transfer is in flight: the connection awaits it, then runs MIGRATE's second
    /// step (see <see cref="MigrateCommands"/>). Not a blocked client: Redis's MIGRATE never blocks.
    /// </summary>
    public MigrateCommands.PendingMigration? Migration { get; set; }

    /// <summary>Held by CLIENT PAUSE (Redis's postponed clients: counted as blocked, flag b).</summary>
    public bool Paused
    {
        get => Volatile.Read(ref _paused);
        set => Volatile.Write(ref _paused, value);
    }
    private bool _paused;

    /// <summary>
    /// Memory was over maxmemory with nothing to evict when this client's current command was
    /// checked (Redis's pre_command_oom_state): a script's first denyoom call is then refused.
    /// </summary>
    public bool OomAtStart { get; set; }

    /// <summary>True while EXEC runs the queued commands: blocking commands then reply nil at once.</summary>
    public bool InExec { get; set; }

    /// <summary>The client a script's commands run as (Redis's CLIENT_SCRIPT): it never blocks.</summary>
    public bool IsScriptClient { get; init; }

    /// <summary>For the script client: the connection whose script is running (the ACL log shows it).</summary>
    public ClientSession? ScriptCaller { get; set; }

    /// <summary>
    /// The client a replica runs its master's stream as (Redis's CLIENT_MASTER, flag M): it obeys
    /// without the checks a normal client gets (ACL, OOM, MISCONF, READONLY, MASTERDOWN) and never blocks.
    /// </summary>
    public bool IsMaster { get; init; }

    /// <summary>The client AOF loading runs the file's commands as (Redis's CLIENT_ID_AOF).</summary>
    public bool IsAofClient { get; init; }

    /// <summary>Redis's mustObeyClient: the master's stream or the AOF, whose commands were already checked once.</summary>
    public bool MustObey => IsMaster || IsAofClient;

    /// <summary>Redis's CLIENT_DENY_BLOCKING: inside EXEC or a script, a blocking command answers at once.</summary>
    public bool DenyBlocking => InExec || IsScriptClient || IsMaster;

    // --- Pub/sub

    private readonly HashSet<byte[]>?[] _subscriptions = new HashSet<byte[]>?[3];
    // Set once any subscription set exists: a client that never subscribed answers InPubSubMode,
    // asked before every command, with one field read.
    private bool _hadSubscriptions;

    /// <summary>Where published messages go (the connection); null for sessions without one.</summary>
    public PubSub.ISubscriber? Subscriber { get; set; }

    /// <summary>0: channels, 1: patterns, 2: shard channels.</summary>
    public HashSet<byte[]> Subscriptions(int kind)
    {
        _hadSubscriptions = true;
        return _subscriptions[kind] ??= new HashSet<byte[]>(Storage.ByteArrayComparer.Instance);
    }

    /// <summary>Channels plus patterns: the count SUBSCRIBE and PSUBSCRIBE confirm.</summary>
    public int SubscriptionCount => (_subscriptions[0]?.Count ?? 0) + (_subscriptions[1]?.Count ?? 0);

    public int ShardSubscriptionCount => _subscriptions[2]?.Count ?? 0;

    /// <summary>RESP2 clients with any subscription may only run the subscribe commands, PING, QUIT, RESET.</summary>
    public bool InPubSubMode => _hadSubscriptions && SubscriptionCount + ShardSubscriptionCount > 0;

    // --- Client-side caching (see PubSub/ClientTracking.cs; changed under its lock)

    public PubSub.TrackingFlags Tracking { get; set; }

    /// <summary>CLIENT TRACKING REDIRECT: the client that receives the invalidations; 0 for this one.</summary>
    public long TrackingRedirect { get; set; }

    /// <summary>BCAST prefixes, in byte order; null unless BCAST.</summary>
    public List<byte[]>? TrackingPrefixes { get; set; }

    /// <summary>Invalidations of keys this client changed itself, sent after the command's reply (null: a flush).</summary>
    public List<byte[]?>? TrackingPending { get; set; }

    /// <summary>Invalidations of this client's keys that maxmemory evicted while its next command was checked: sent before that command's reply.</summary>
    public List<byte[]>? TrackingAhead { get; set; }

    // --- MULTI/EXEC and WATCH (see Execution/BatchExecutor.Transactions.cs)

    /// <summary>Between MULTI and EXEC/DISCARD.</summary>
    public bool InMulti { get; private set; }

    /// <summary>A command was refused while queueing: EXEC answers EXECABORT.</summary>
    public bool MultiDirty { get; set; }

    /// <summary>The queued commands, copied out of the batch arena (it is reused per read).</summary>
    public Protocol.CommandBuffer? Queued { get; private set; }

    public List<CommandDef>? QueuedDefs { get; private set; }

    /// <summary>Set from any shard thread when a watched key changes.</summary>
    public bool WatchDirty => Volatile.Read(ref _watchDirty);

    private bool _watchDirty;

    public List<WatchedKey>? Watched { get; private set; }

    public void BeginMulti()
    {
        InMulti = true;
        MultiDirty = false;
        Queued ??= new Protocol.CommandBuffer();
        QueuedDefs ??= new List<CommandDef>();
    }

    public void EndMulti()
    {
        InMulti = false;
        MultiDirty = false;
        if (QueuedDefs is { Count: > QueueKeep })
        {
            // A long transaction's queue goes back to the GC rather than staying with the client.
            Common.ReleasedMemory.Add(Queued!.AllocatedBytes + 8L * QueuedDefs.Capacity);
            Queued = null;
            QueuedDefs = null;
            return;
        }
        Queued?.Reset();
        QueuedDefs?.Clear();
    }

    /// <summary>A queue that held more commands than this is dropped after EXEC/DISCARD, not reused.</summary>
    private const int QueueKeep = 1024;

    public bool IsWatching(int db, ReadOnlySpan<byte> key)
    {
        if (Watched == null) return false;
        foreach (var w in Watched)
            if (w.Db == db && key.SequenceEqual(w.Key)) return true;
        return false;
    }

    public void AddWatch(WatchedKey key) => (Watched ??= new List<WatchedKey>()).Add(key);

    public void ClearWatches()
    {
        Watched?.Clear();
        Volatile.Write(ref _watchDirty, false);
    }

    void Storage.IKeyWatcher.Invalidate() => Volatile.Write(ref _watchDirty, true);

    /// <summary>
    /// 1 while the connection runs commands (from the start of a batch to its end, less its waits for
    /// a pause, a blocking key, or a client that does not read): the server's stop waits for none to
    /// be running before it saves. Set with a full fence (see <see cref="RedisClone.Server.ClientPause.HoldForShutdown"/>).
    /// </summary>
    public int Executing;

    /// <summary>The server is stopping: the connection writes what it has, closes its sending side and waits for the client to close.</summary>
    public bool Draining { get; private set; }

    /// <summary>Wakes the connection's read loop (set by the connection).</summary>
    public Action? WakeReader { get; set; }

    /// <summary>
    /// <see cref="WakeReader"/> that the event loop may put off for a few busy cycles (a replica's
    /// stream); the same as it where the transport has no such thing.
    /// </summary>
    public Action? WakeReaderSoon { get; set; }

    /// <summary>Set by SHUTDOWN when it is to stop the server: the executor runs the stop off the event loop.</summary>
    public RedisClone.Server.ShutdownFlags? ShutdownRequested { get; set; }

    /// <summary>Asks the connection to end gracefully (the server stops): no more commands, replies so far delivered.</summary>
    public void Drain()
    {
        Draining = true;
        WakeReader?.Invoke();
    }

    /// <summary>Closes the connection (CLIENT KILL, SHUTDOWN); safe from any thread.</summary>
    public void Kill()
    {
        Killed = true;
        _kill();
    }

    private int _limitKilled;

    /// <summary>
    /// Closes the connection for going over a buffer limit; true the first time only, so a limit
    /// reached by several threads at once (pub/sub pushes) is counted once in INFO.
    /// </summary>
    public bool KillForLimit()
    {
        bool first = Interlocked.Exchange(ref _limitKilled, 1) == 0;
        Kill();
        return first;
    }

    /// <summary>An address as CLIENT LIST shows it ("127.0.0.1:51234").</summary>
    public static string FormatEndPoint(EndPoint? ep) => Format(ep);

    private static string Format(EndPoint? ep) => ep switch
    {
        IPEndPoint ip => $"{(ip.Address.IsIPv4MappedToIPv6 ? ip.Address.MapToIPv4() : ip.Address)}:{ip.Port}",
        null => "",
        UnixDomainSocketEndPoint unix => $"{unix}:0", // Redis: the unixsocket's path and port 0
        _ => ep.ToString() ?? "",
    };
}

/// <summary>A key this client WATCHes: database, key, its shard, and whether it was already expired.</summary>
internal readonly record struct WatchedKey(int Db, byte[] Key, int Shard, bool ExpiredAtWatch);
