using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using RedisClone.Commands;
using RedisClone.Network;
using RedisClone.Protocol;
using RedisClone.Sharding;
using RedisClone.Storage;

namespace RedisClone.Server;

/// <summary>
/// The running server: shards, command table, connected clients, counters and configuration.
/// Owns the listeners; <see cref="StopAsync"/> closes them and every client.
/// </summary>
internal sealed class RedisServer : IAsyncDisposable
{
    /// <summary>The plain port's listeners (replaced as a whole by CONFIG SET port and bind).</summary>
    private List<Listener> _listeners = new();
    private readonly CancellationTokenSource _stopping = new();
    private readonly TaskCompletionSource _stopped = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _nextClientId;

    public RedisServer(ServerOptions options)
    {
        Options = options;
        Evictor = new RedisClone.Execution.Evictor(this);
        Config = new Config.ConfigRegistry(this);
        Log = new ServerLog(Config, options.LogLines, options.LogToConsole);
        Acl = new Commands.Acl.AclStore(this);
        foreach (var d in options.Settings)
        {
            string? error = Config.SetDirective(d.Name, d.Args[1..]);
            if (error != null) throw new Config.ConfigFileException(error, d.Line, d.Text);
        }
        Config.SetDirective("io-threads", [options.IoThreads.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        var (oomMode, oomValues) = Config.OomScoreAdj;
        if (oomMode != "no") ApplyOomScoreAdj(oomMode, oomValues); // as Redis at start-up: a failure is only logged
        LoadUsers(options);
        if (Config.Value("cluster-enabled") == "yes")
        {
            // As Redis: a cluster node has database 0 only.
            if (options.Databases > 1)
                Log.Warning($"WARNING: Changing databases number from {options.Databases} to 1 since we are in cluster mode");
            options.Databases = 1;
            Cluster = new Cluster.ClusterState(this);
        }
        Shards = new ShardSet(options.Shards, options.Databases);
        if (Cluster != null)
            for (int i = 0; i < Shards.Count; i++) Shards[i].Store[0].IndexHashSlots();
        ApplyCronTuning();
        Latency = new LatencyMonitor(() => Config.LatencyMonitorThreshold);
        for (int i = 0; i < Shards.Count; i++)
            Shards[i].ExpireCycleObserver = ms => Latency.AddIfNeeded(LatencyMonitor.Events.ExpireCycle, ms);
        for (int i = 0; i < Shards.Count; i++)
            Shards[i].Store.KeyExpired = (db, key) =>
            {
                RedisClone.PubSub.KeyspaceNotifier.Notify(this, RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents.Expired, "expired", key, db);
                PropagateExpired(db, key);
            };
        for (int i = 0; i < Shards.Count; i++)
        {
            Shards[i].Store.FieldExpired = PropagateFieldExpired;
            Shards[i].Store.HashFieldsExpired = (db, key, keyDeleted) =>
            {
                RedisClone.PubSub.KeyspaceNotifier.Notify(this, RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents.Hash, "hexpired", key, db);
                if (keyDeleted)
                    RedisClone.PubSub.KeyspaceNotifier.Notify(this, RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents.Generic, "del", key, db);
            };
        }
        for (int i = 0; i < Shards.Count; i++)
        {
            Shards[i].Store.Access = KeyAccess;
            Shards[i].Store.KeyEvicted = (db, key) =>
            {
                RedisClone.PubSub.KeyspaceNotifier.Notify(this, RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents.Evicted, "evicted", key, db);
                PropagateDeleted(db, key, Config.LazyfreeLazyEviction);
            };
        }
        for (int i = 0; i < Shards.Count; i++)
            Shards[i].Store.KeyMissed = (db, key) =>
                RedisClone.PubSub.KeyspaceNotifier.Notify(this, RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents.KeyMiss, "keymiss", key, db);
        for (int i = 0; i < Shards.Count; i++)
            Shards[i].Store.KeyAdded = (db, key) =>
                RedisClone.PubSub.KeyspaceNotifier.Notify(this, RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents.New, "new", key, db);
        Tracking = new PubSub.ClientTracking(this);
        Pause = new ClientPause(this);
        for (int i = 0; i < Shards.Count; i++) Shards[i].Store.Changes = Tracking;
        for (int i = 0; i < Shards.Count; i++) StartupMemory += Shards[i].Store.OverheadBytes;
        RedisClone.Execution.ScriptCalls.Install();
        ScriptWatchdog = new Scripting.ScriptWatchdog(() => Config.BusyReplyThreshold, Log);
        RunId = Common.RandomHex.Next40();
        StartedAtMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        Rdb = new Persistence.RdbSaves(this);
        Replication = new Replication.ReplicationState(this);
        Replica = new Replication.ReplicaRole(this);
        Log.IsReplica = () => Replication.IsReplica;
        ClientEviction = new ClientEviction(this);
        Shutdown = new ServerShutdown(this);
    }

    /// <summary>SHUTDOWN and the stop signals: the steps of a graceful stop.</summary>
    public ServerShutdown Shutdown { get; }

    /// <summary>True once <see cref="Start"/> has loaded the data and serves clients.</summary>
    public bool Started { get; private set; }

    /// <summary>maxmemory-clients: the clients' memory added up, the largest closed past the limit.</summary>
    public ClientEviction ClientEviction { get; }

    /// <summary>redis_mode: "cluster" for a cluster node, else "standalone".</summary>
    public string Mode => Cluster != null ? "cluster" : ServerInfo.Mode;

    /// <summary>The cluster node's state (cluster-enabled yes), or null for a standalone server.</summary>
    public Cluster.ClusterState? Cluster { get; }

    /// <summary>MIGRATE's cached connections to target instances (INFO's migrate_cached_sockets).</summary>
    public Cluster.MigrateSockets MigrateSockets { get; } = new();

    /// <summary>
    /// The users of the configuration's <c>user</c> directives, or of the aclfile (not both, as Redis
    /// refuses the mix); an error stops the start as it stops redis-server.
    /// </summary>
    private void LoadUsers(ServerOptions options)
    {
        string aclFile = Config.AclFile;
        if (aclFile.Length > 0 && options.Users.Count > 0)
            throw new Config.ConfigFileException("Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.") { LogLine = true };
        foreach (var user in options.Users)
        {
            string? error = Acl.ApplyUser(user.Args[1], user.Args[2..]);
            if (error != null) throw new Config.ConfigFileException($"Error in user declaration '{user.Args[1]}': {error}", user.Line, user.Text);
        }
        if (aclFile.Length > 0 && Acl.Load(aclFile) is { } errors)
            throw new Config.ConfigFileException($"Aborting Redis startup because of ACL errors: {errors}") { LogLine = true };
    }

    /// <summary>What keys' access stamps mean (LRU seconds or LFU counters): maxmemory-policy and the lfu-* parameters.</summary>
    public Storage.KeyAccess KeyAccess { get; } = new();

    /// <summary>maxmemory: the check before each command and the eviction it may run.</summary>
    public RedisClone.Execution.Evictor Evictor { get; }

    /// <summary>CONFIG SET maxmemory-policy (and the command line): the ranking and the access stamps change at once.</summary>
    internal void ApplyEvictionPolicy(string name)
    {
        var policy = Storage.EvictionPolicies.Parse(name);
        Evictor.Policy = policy;
        KeyAccess.Lfu = Storage.EvictionPolicies.IsLfu(policy);
    }

    /// <summary>
    /// CONFIG SET maxmemory: as Redis's updateMaxmemory, a warning when it is below what is used
    /// now, and eviction starts at once in the background (Redis's eviction timer), not waiting
    /// for the next command.
    /// </summary>
    internal void MaxMemoryChanged(ulong max)
    {
        if (max == 0 || Shards is null) return; // the command line, before the shards exist
        long used = Evictor.UsedMemory();
        if ((ulong)used <= max) return;
        Log.Warning($"WARNING: the new maxmemory value set via CONFIG SET ({max}) is smaller than the current memory usage ({used}). This will result in key eviction and/or the inability to accept new write commands depending on the maxmemory-policy.");
        Evictor.StartBackground();
    }

    /// <summary>RDB snapshots: changes since the last save, the background save, save points.</summary>
    public Persistence.RdbSaves Rdb { get; }

    /// <summary>Replication: the ids, the offset, the backlog and the replicas' stream.</summary>
    public Replication.ReplicationState Replication { get; }

    /// <summary>The replica side: the master followed (REPLICAOF) and the link to it.</summary>
    public Replication.ReplicaRole Replica { get; }

    public ServerOptions Options { get; }

    /// <summary>ACL users, the ACL log and the aclfile (requirepass sets the default user's password).</summary>
    public Commands.Acl.AclStore Acl { get; }
    public Config.ConfigRegistry Config { get; }
    public ServerLog Log { get; }
    public ShardSet Shards { get; }

    /// <summary>The epoll loops that serve client sockets (Linux, --transport epoll); null where Pipelines.Sockets.Unofficial does.</summary>
    public Network.Epoll.EventLoopGroup? EventLoops { get; private set; }
    public CommandTable Commands { get; } = CommandTable.Instance;

    /// <summary>The Lua engine, created by the first script command (a state costs memory an idle server need not hold).</summary>
    public Scripting.LuaEngine Scripts
        => Volatile.Read(ref _scripts) ?? LazyInitializer.EnsureInitialized(ref _scripts, ref _scriptsLock, () => new Scripting.LuaEngine(this))!;
    private Scripting.LuaEngine? _scripts;
    private object? _scriptsLock;

    /// <summary>The function libraries and their own Lua state (not EVAL's), created by the first FUNCTION or FCALL.</summary>
    public Scripting.FunctionStore Functions
        => Volatile.Read(ref _functions) ?? LazyInitializer.EnsureInitialized(ref _functions, ref _functionsLock, () => new Scripting.FunctionStore(this))!;
    private Scripting.FunctionStore? _functions;
    private object? _functionsLock;

    /// <summary>Functions loaded, without creating the store (INFO; read without its lock).</summary>
    public int FunctionCount => _functions?.FunctionCount ?? 0;

    /// <summary>Libraries loaded, without creating the store (INFO; read without its lock).</summary>
    public int LibraryCount => _functions?.All.Count ?? 0;

    /// <summary>EVAL's cached scripts, without creating the engine (INFO; read without its lock).</summary>
    public int CachedScriptCount => Volatile.Read(ref _scripts)?.ScriptCount ?? 0;

    /// <summary>The memory of EVAL's Lua state and of its script cache (INFO memory); nothing before the first script.</summary>
    public (long Vm, long Cache) ScriptMemory => Volatile.Read(ref _scripts) is { } s ? (s.VmBytes, s.CacheBytes) : (0, 0);

    /// <summary>The memory of the functions' Lua state and of their libraries (INFO memory); nothing before the first FUNCTION or FCALL.</summary>
    public (long Vm, long Cache) FunctionMemory => Volatile.Read(ref _functions) is { } f ? (f.VmBytes, f.CacheBytes) : (0, 0);

    /// <summary>The running script, if any: whether it is past busy-reply-threshold, and SCRIPT KILL.</summary>
    public Scripting.ScriptWatchdog ScriptWatchdog { get; }
    public ServerStats Stats { get; } = new();
    public SlowLog SlowLog { get; } = new();
    public CommandStats CommandStats { get; } = new(CommandTable.Instance.Count);

    /// <summary>Per-command latency histograms (latency-tracking): LATENCY HISTOGRAM, INFO latencystats, /metrics.</summary>
    public CommandLatencies Latencies { get; } = new(CommandTable.Instance.Count);

    /// <summary>The latency monitor (latency-monitor-threshold): LATENCY LATEST, HISTORY, GRAPH, DOCTOR.</summary>
    public LatencyMonitor Latency { get; }
    public ConcurrentDictionary<long, ClientSession> Clients { get; } = new();
    public string RunId { get; }
    public long StartedAtMs { get; }

    /// <summary>INFO used_memory_startup: the accounted memory of the empty keyspace (its tables).</summary>
    public long StartupMemory { get; }

    private string? _pidFile;

    /// <summary><c>pidfile</c>: the process id written there (best effort, as Redis), removed when the server stops.</summary>
    private void CreatePidFile()
    {
        string path = Config.Value("pidfile");
        if (path.Length == 0) return;
        try
        {
            File.WriteAllText(path, $"{Environment.ProcessId}\n");
            _pidFile = path;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            Log.Warning($"Failed to write PID file: {Common.SystemErrors.Describe(ex)}");
        }
    }

    /// <summary>A bind address: an IP address, or a host name resolved as Redis's getaddrinfo would (first IPv4).</summary>
    private static IPAddress Resolve(string address, int port)
    {
        if (IPAddress.TryParse(address, out var ip)) return ip;
        try
        {
            var found = Dns.GetHostAddresses(address);
            return found.FirstOrDefault(a => a.AddressFamily == AddressFamily.InterNetwork) ?? found[0];
        }
        catch (SocketException ex)
        {
            throw new ListenFailedException(address, port, ex);
        }
    }

    public int Port => Volatile.Read(ref _listeners) is { Count: > 0 } plain ? plain[0].EndPoint.Port : Options.Port;

    /// <summary>The first plain (not TLS) listener's bound address and port, or null when there is none.</summary>
    public IPEndPoint? EndPoint => Volatile.Read(ref _listeners) is { Count: > 0 } plain ? plain[0].EndPoint : null;

    /// <summary>The port the TLS listeners are bound to; 0 when there are none.</summary>
    public int TlsPort => Volatile.Read(ref _tlsListeners) is { Count: > 0 } tls ? tls[0].EndPoint.Port : 0;

    /// <summary>The TLS context new TLS connections handshake with; null while TLS is off.</summary>
    public TlsContext? Tls
    {
        get => Volatile.Read(ref _tls);
        private set => Volatile.Write(ref _tls, value);
    }
    private TlsContext? _tls;

    /// <summary>The tls-port listeners (replaced as a whole by CONFIG SET tls-port).</summary>
    private List<Listener> _tlsListeners = new();

    /// <summary>The Prometheus endpoint (--metrics-port), or null.</summary>
    private Network.MetricsListener? _metrics;

    /// <summary>The metrics endpoint's port, or 0 when there is none.</summary>
    public int MetricsPort => _metrics?.EndPoint.Port ?? 0;

    public CancellationToken StoppingToken => _stopping.Token;

    /// <summary>Completes when the server has stopped (SHUTDOWN, a signal, or disposal).</summary>
    public Task Stopped => _stopped.Task;

    public long NextClientId() => Interlocked.Increment(ref _nextClientId);

    /// <summary>
    /// Receives every write as Redis replicates it: the AOF's writer, the replication stream, both
    /// (<see cref="PropagationFanout"/>), or null when neither is on, so that commands pay nothing.
    /// Setting it attaches a listener of its own (tests record what propagates), beside the others.
    /// </summary>
    public IPropagationListener? PropagationListener
    {
        get => Volatile.Read(ref _propagationListener);
        set
        {
            lock (_listenerLock)
            {
                _extraListener = value;
                ComposeListeners();
            }
        }
    }
    private IPropagationListener? _propagationListener;
    private IPropagationListener? _aofListener, _replicationListener, _extraListener;
    private readonly object _listenerLock = new();

    /// <summary>The AOF writer's listener (AofState sets it when the AOF turns on, clears it when it turns off).</summary>
    public IPropagationListener? AofListener
    {
        get => Volatile.Read(ref _aofListener);
        set
        {
            lock (_listenerLock)
            {
                _aofListener = value;
                ComposeListeners();
            }
        }
    }

    /// <summary>The replication stream's listener (set while a backlog exists).</summary>
    public IPropagationListener? ReplicationListener
    {
        get => Volatile.Read(ref _replicationListener);
        set
        {
            lock (_listenerLock)
            {
                _replicationListener = value;
                ComposeListeners();
            }
        }
    }

    private void ComposeListeners()
    {
        var parts = new[] { _aofListener, _replicationListener, _extraListener }.Where(l => l != null).ToArray();
        IPropagationListener? effective = parts.Length switch
        {
            0 => null,
            1 => parts[0],
            _ => new PropagationFanout(parts!),
        };
        Volatile.Write(ref _propagationListener, effective);
    }

    /// <summary>
    /// A key removed because it expired goes to replicas as DEL (UNLINK with lazyfree-lazy-expire):
    /// inside the unit of the command that found it, or as a unit of its own (the active cycle).
    /// </summary>
    private void PropagateExpired(int db, byte[] key) => PropagateDeleted(db, key, Config.LazyfreeLazyExpire);

    /// <summary>
    /// A key removed by the server itself (expired, evicted) goes to the AOF and replicas as DEL, or
    /// UNLINK: inside the unit of the command that found it, or as a unit of its own.
    /// </summary>
    internal void PropagateDeleted(int db, byte[] key, bool unlink)
    {
        var log = PropagationLog.Current;
        if (log != null)
        {
            log.Deleted(db, key, unlink);
            return;
        }
        var listener = PropagationListener;
        if (listener == null) return;
        log = PropagationLog.Enter(listener);
        try
        {
            log.Deleted(db, key, unlink);
        }
        finally
        {
            log.Exit();
        }
    }

    /// <summary>
    /// A hash field removed because its TTL passed goes to the AOF and replicas as HDEL key field
    /// (Redis's propagateHashFieldDeletion): inside the unit of the command that found it, or as a
    /// unit of its own (the active cycle).
    /// </summary>
    internal void PropagateFieldExpired(int db, ReadOnlySpan<byte> key, ReadOnlySpan<byte> field)
    {
        var log = PropagationLog.Current;
        if (log != null)
        {
            log.Also(db).Add("HDEL"u8).Add(key).Add(field).Close();
            return;
        }
        var listener = PropagationListener;
        if (listener == null) return;
        log = PropagationLog.Enter(listener);
        try
        {
            log.Also(db).Add("HDEL"u8).Add(key).Add(field).Close();
        }
        finally
        {
            log.Exit();
        }
    }

    /// <summary>Keys watched by all clients: write commands skip WATCH bookkeeping while it is 0.</summary>
    public int WatchedKeyCount;

    /// <summary>Clients registered as blocked on keys: write commands skip the wake-up check while it is 0.</summary>
    public int BlockedClientCount;

    /// <summary>Channels and patterns with their subscribers.</summary>
    public PubSub.PubSubRegistry PubSub { get; } = new();

    /// <summary>CLIENT PAUSE's state and the clients it holds.</summary>
    public ClientPause Pause { get; }

    /// <summary>Client-side caching: who tracks which keys, and their invalidations.</summary>
    public PubSub.ClientTracking Tracking { get; }

    /// <summary>Clients in MONITOR mode (fed by the executor).</summary>
    public PubSub.MonitorFeed Monitors { get; } = new();

    /// <summary>
    /// The lines that say the server is up, in Redis's words (tests and scripts wait for the tcp one):
    /// the start-up picture or Redis's one line instead (<see cref="StartupBanner"/>), then how this
    /// server runs, ended by <paramref name="where"/> (the client limit, or the host process when embedded).
    /// </summary>
    public void LogReady(string where)
    {
        int port = Port != 0 ? Port : TlsPort; // as Redis: the TLS port when there is no plain one
        bool terminal = Options.LogToConsole && Options.LogLines == null && Config.LogFile.Length == 0 && !Console.IsOutputRedirected;
        if (StartupBanner.ShowPicture(Config.Value("always-show-logo") == "yes", terminal))
            Log.WriteRaw(ServerLog.Level.Notice, StartupBanner.Picture(Mode, port, Environment.ProcessId));
        else
            Log.Notice($"Running mode={Mode}, port={port}.");
        Log.Notice($"Serving with shards={Shards.Count}, io-threads={Options.IoThreads}, databases={Options.Databases}, {where}.");
        Log.Notice("Ready to accept connections tcp");
        if (UnixSocket != null) Log.Notice("Ready to accept connections unix");
        if (TlsPort != 0) Log.Notice("Ready to accept connections tls");
    }

    public void Start()
    {
        Shards.Start();
        if (Options.Transport == ServerOptions.TransportKind.Epoll)
        {
            EventLoops = new Network.Epoll.EventLoopGroup(Options.IoThreads);
            EventLoops.Start();
        }
        // TLS is configured before anything listens, as Redis's initListeners does: a bad file stops the start.
        int tlsPort = Config.TlsPort;
        var tlsSettings = Config.TlsSettings();
        if (tlsPort != 0 || tlsSettings.Replication || tlsSettings.Cluster)
        {
            Tls = TlsContext.TryCreate(tlsSettings, Log.Warning);
            if (Tls == null)
            {
                Log.Warning("Failed to configure TLS. Check logs for more info.");
                throw new TlsConfigException();
            }
        }
        // Every address is bound before any is served, so a failure (the port is in use, as when a
        // second server is started on it) leaves nothing listening; the caller exits as redis does.
        // port 0 with a tls-port is TLS only, as in Redis; port 0 alone takes a port the system picks.
        try
        {
            if (Options.Port != 0 || tlsPort == 0) BindAll(_listeners, Options.Bind, Options.Port, tls: false);
            if (tlsPort != 0) BindAll(_tlsListeners, Options.Bind, tlsPort, tls: true);
            string unixSocket = Config.Value("unixsocket");
            if (unixSocket.Length > 0) _unixListener = new Listener(this, unixSocket, (int)Config.Number("unixsocketperm"));
            // Redis's clusterInit, once the port is known (port 0 takes one from the system here).
            Cluster?.Initialize();
            if (Cluster != null)
            {
                // The cluster bus listens as the data port does (clusterInit's listener on port + 10000).
                var bus = new Cluster.ClusterBus(this, Cluster);
                // tls-cluster: the bus's handshakes with the TLS context current at each connection.
                bus.UseTls(() => Tls?.Options(Config.TlsAuthClients),
                    host => Tls?.ClientOptions(host, TlsContext.LoadClientCertificate(Config)));
                bus.Bind(Options.Bind, systemChosenPort: Options.Port == 0);
                Cluster.Bus = bus;
            }
        }
        catch
        {
            StopAllListeners();
            throw;
        }
        CreatePidFile();
        // Now that everything the server holds for itself is open, before the first client.
        _reservedDescriptors = OpenFilesLimit.MeasureReserved(EventLoops?.Count ?? 0);
        long maxClients = OpenFilesLimit.Fit(Options.MaxClients, _reservedDescriptors, Log);
        if (maxClients < 1)
        {
            StopAllListeners();
            throw new OpenFilesLimitException();
        }
        Options.MaxClients = maxClients;
        // Clients are served while the data loads, as by Redis: commands other than the ok-loading
        // ones (INFO, PING, CONFIG...) answer -LOADING. Every gate is held meanwhile, so nothing
        // else (the active expiry cycle included) touches the keyspace being filled. The gates are
        // taken before the first client is accepted and the flag is cleared before they are let
        // go: an ok-loading command that needs them (DEBUG RELOAD, DEBUG POPULATE) waits for the
        // load instead of running ahead of it (a RELOAD saved the still empty keyspace over the
        // file; a RELOAD NOSAVE or a POPULATE filled it first and the load failed on a duplicate
        // key), and no command after it can still be refused with -LOADING. Redis serves no client
        // before its load starts, and clears the flag before its event loop serves anyone.
        if (Options.MetricsPort != 0)
        {
            try
            {
                var address = Options.MetricsBind == "localhost" ? IPAddress.Loopback : IPAddress.Parse(Options.MetricsBind);
                _metrics = new Network.MetricsListener(this, new IPEndPoint(address, Options.MetricsPort));
            }
            catch
            {
                StopAllListeners();
                throw;
            }
            _metrics.Start();
        }
        Replica.ConfigureAtStartup();
        Rdb.Loading = true;
        try
        {
            WithAllGates(() =>
            {
                foreach (var l in _listeners) l.Start();
                foreach (var l in _tlsListeners) l.Start();
                _unixListener?.Start();
                LoadAtStartup();
                Cluster?.VerifyWithData();
                Rdb.Loading = false;
                return true;
            });
        }
        catch
        {
            // Still loading for whoever is connected until the stop has closed them: the keyspace
            // holds part of the file.
            StopAsync().GetAwaiter().GetResult();
            throw;
        }
        finally
        {
            Rdb.Loading = false;
        }
        Replica.StartAfterLoad(_startupLoad);
        Cluster?.Bus?.StartAccepting();
        // A thread of its own, made now: a timer would run on the thread pool, which may need a new
        // thread at a moment the process has no descriptors or memory to spare for one.
        _cron = new Thread(() =>
        {
            var token = StoppingToken;
            for (long tick = 1; !token.WaitHandle.WaitOne(100); tick++)
            {
                Common.ServerClock.Resync();
                Rdb.Cron();
                AofCron();
                ClientEviction.Cron();
                CloseIdleClients();
                ApplyCronTuning();
                MigrateSockets.CloseIdle();
                if (tick % 10 == 0) TrimIdleClients();
                if (!CronPaused) Tracking.Cron();
                Replication.Master.Cron();
                Cluster?.Cron();
            }
        }) { IsBackground = true, Name = "server-cron" };
        _cron.Start();
        Started = true;
    }

    private Thread? _cron;

    /// <summary>What the RDB file loaded at start-up held (its replication info, for a replica's first PSYNC).</summary>
    private Persistence.RdbLoader.Result? _startupLoad;

    /// <summary>The unixsocket listener, or null.</summary>
    private Listener? _unixListener;

    /// <summary>The Unix socket's path while the server listens on one (and its file is ours to remove), else null.</summary>
    public string? UnixSocket => _unixListener?.UnixPath;

    /// <summary>A start that fails: nothing it bound stays open (a Unix socket file made is removed).</summary>
    private void StopAllListeners()
    {
        foreach (var l in _listeners) l.Stop();
        foreach (var l in _tlsListeners) l.Stop();
        _listeners.Clear();
        _tlsListeners.Clear();
        RemoveUnixSocket(log: false);
        Cluster?.Bus?.Dispose();
    }

    /// <summary>
    /// Closes the Unix socket and removes its file, with Redis's lines (closeListeningSockets at a
    /// shutdown); once. <paramref name="log"/> false for a start that failed, where Redis says nothing.
    /// </summary>
    private void RemoveUnixSocket(bool log)
    {
        var listener = Interlocked.Exchange(ref _unixListener, null);
        if (listener == null) return;
        listener.Stop();
        if (log) Log.Notice("Removing the unix socket file.");
        try
        {
            File.Delete(listener.UnixPath!);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            if (log) Log.Warning($"Error removing the unix socket file: {Common.SystemErrors.Describe(ex)}");
        }
    }

    /// <summary>Held while the plain or TLS listeners are replaced (CONFIG SET) or closed (the stop).</summary>
    private readonly Lock _listenersLock = new();

    /// <summary>DEBUG PAUSE-CRON: the server cron's Redis work (so far the tracking table's bound) is skipped.</summary>
    public bool CronPaused { get => Volatile.Read(ref _cronPaused); set => Volatile.Write(ref _cronPaused, value); }

    private bool _cronPaused;

    /// <summary>
    /// Binds a listener for each bind address on <paramref name="port"/> (the first one's port for the
    /// others when it is 0), into <paramref name="into"/>. "-addr" is optional, as in Redis: skipped
    /// when the host has no such address. No address (<c>bind ""</c>) is Redis's default, "* -::*".
    /// A listener of <paramref name="reuse"/> already bound to an address and port asked for is taken
    /// over instead of a new one (CONFIG SET bind keeps those that stay).
    /// </summary>
    private void BindAll(List<Listener> into, string[] bind, int port, bool tls, List<Listener>? reuse = null)
    {
        foreach (string configured in bind.Length > 0 ? bind : ["*", "-::*"])
        {
            bool optional = configured.StartsWith('-');
            string address = optional ? configured[1..] : configured;
            var ip = address switch
            {
                "*" => IPAddress.Any,
                "localhost" => IPAddress.Loopback,
                _ => Resolve(address, port),
            };
            var endPoint = new IPEndPoint(ip, into.Count > 0 ? into[0].EndPoint.Port : port);
            var bound = reuse?.Find(l => l.EndPoint.Equals(endPoint));
            if (bound != null)
            {
                into.Add(bound);
                continue;
            }
            try
            {
                into.Add(new Listener(this, address, endPoint, tls));
            }
            catch (ListenFailedException ex) when (optional && ex.Error is SocketError.AddressNotAvailable
                                                       or SocketError.AddressFamilyNotSupported or SocketError.ProtocolNotSupported)
            {
            }
        }
    }

    /// <summary>
    /// CONFIG SET port and bind, before anything is stored: binds the plain port's listeners for the
    /// new values (with a new bind, the tls-port's too), keeping those already bound to an address
    /// and port that stays. Null and the action that puts them in place (it starts the new listeners
    /// and closes the old ones; the connections they accepted stay), or Redis's error, with nothing
    /// changed: the old listeners go on accepting. Redis closes the old listeners first and reopens
    /// them when the new ones fail; opening first leaves no moment without a listener, and nothing to
    /// reopen that could fail in turn. Port 0 closes the plain port, as in Redis.
    /// </summary>
    public string? PrepareRebind(int port, string[] bind, bool bindChanged, out Action? apply)
    {
        apply = null;
        var oldPlain = Volatile.Read(ref _listeners);
        var oldTls = Volatile.Read(ref _tlsListeners);
        var plain = new List<Listener>();
        var tls = new List<Listener>();
        try
        {
            if (port != 0) BindAll(plain, bind, port, tls: false, reuse: oldPlain);
            int tlsPort = TlsPort;
            if (bindChanged && tlsPort != 0) BindAll(tls, bind, tlsPort, tls: true, reuse: oldTls);
        }
        catch (ListenFailedException ex)
        {
            foreach (var l in plain.Concat(tls))
                if (!oldPlain.Contains(l) && !oldTls.Contains(l)) l.Stop();
            Log.Warning(ex.Message);
            return bindChanged ? "Failed to bind to specified addresses." : "Unable to listen on this port. Check server logs.";
        }
        apply = () =>
        {
            lock (_listenersLock)
            {
                Options.Port = port;
                Options.Bind = bind;
                Volatile.Write(ref _listeners, plain);
                if (bindChanged && TlsPort != 0) Volatile.Write(ref _tlsListeners, tls);
                else tls = oldTls;
                bool stopping = StoppingToken.IsCancellationRequested;
                foreach (var l in plain.Concat(tls))
                {
                    if (stopping) l.Stop();
                    else if (!oldPlain.Contains(l) && !oldTls.Contains(l)) l.Start();
                }
                foreach (var l in oldPlain.Concat(oldTls))
                    if (!plain.Contains(l) && !tls.Contains(l)) l.Stop();
            }
        };
        return null;
    }

    /// <summary>
    /// CONFIG SET of tls-* parameters, before anything is stored: makes the context the new values
    /// describe (when TLS is on, or is being turned on by a tls-port) and binds the new tls-port.
    /// Null and the action that puts them in place, or Redis's error, with nothing changed: the old
    /// context and listeners stay. (Redis reconfigures with reconfigure=0 for a port change alone:
    /// an existing context is kept; likewise here.)
    /// </summary>
    public string? PrepareTls(TlsSettings settings, int port, bool configChanged, bool portChanged, out Action? apply, out bool portFailed)
    {
        apply = null;
        portFailed = false;
        var context = Tls;
        bool enabled = port != 0 || settings.Replication || settings.Cluster;
        if ((configChanged && enabled) || (portChanged && port != 0 && context == null))
        {
            context = TlsContext.TryCreate(settings, Log.Warning);
            if (context == null) return TlsContext.UpdateFailedMessage;
        }
        List<Listener>? fresh = null;
        if (portChanged && port != 0)
        {
            fresh = new List<Listener>();
            try
            {
                BindAll(fresh, Options.Bind, port, tls: true);
            }
            catch (ListenFailedException ex)
            {
                foreach (var l in fresh) l.Stop();
                Log.Warning(ex.Message);
                portFailed = true;
                return "Unable to listen on this port. Check server logs.";
            }
        }
        apply = () =>
        {
            Tls = context;
            if (!portChanged) return;
            lock (_listenersLock)
            {
                foreach (var l in _tlsListeners) l.Stop();
                var listeners = fresh ?? new List<Listener>();
                Volatile.Write(ref _tlsListeners, listeners);
                if (StoppingToken.IsCancellationRequested)
                {
                    foreach (var l in listeners) l.Stop();
                    return;
                }
                foreach (var l in listeners) l.Start();
            }
        };
        return null;
    }

    /// <summary>
    /// timeout: closes clients idle (nothing read from them, no reply finished) for more than that
    /// many whole seconds, as Redis's clientsCronHandleTimeout does: never a client blocked in a
    /// command, subscribed to a channel or pattern (in RESP2 and RESP3 alike: Redis marks both as
    /// pub/sub), or in MONITOR (Redis counts monitors as replicas). Runs on the cron thread every
    /// 100 ms, so a CONFIG SET acts at once; Redis looks at every client about once a second.
    /// </summary>
    private void CloseIdleClients()
    {
        long timeout = Config.Timeout;
        if (timeout <= 0) return;
        long nowSeconds = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() / 1000;
        foreach (var session in Clients.Values)
        {
            if (session.Killed || session.Blocked != null || session.InPubSubMode || session.IsMonitor || session.IsReplica) continue;
            // Whole seconds on both sides, as Redis compares its unixtime clock.
            if (nowSeconds - session.LastInteractionMs / 1000 <= timeout) continue;
            Log.Write(ServerLog.Level.Verbose, "Closing idle client");
            session.Kill();
        }
    }

    /// <summary>
    /// Once a second: clients idle (nothing read, no reply finished) for more than 2 seconds give
    /// back the room their buffers grew to for a big command, as Redis's clientsCronResizeQueryBuffer
    /// frees an idle client's query buffer (the epoll loops release an idle client's receive buffer
    /// by themselves).
    /// </summary>
    private void TrimIdleClients()
    {
        long nowMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        foreach (var session in Clients.Values)
            if (nowMs - session.LastInteractionMs > 2000) session.Buffers?.TrimIdle();
    }

    /// <summary>
    /// Runs <paramref name="action"/> with every shard's gate held, taken in ascending order (from a
    /// thread that is not an event loop: the cron, a signal, an admin command's last act).
    /// </summary>
    public T WithAllGates<T>(Func<T> action)
    {
        for (int s = 0; s < Shards.Count; s++) Shards[s].Gate.Enter();
        try
        {
            return action();
        }
        finally
        {
            for (int s = Shards.Count - 1; s >= 0; s--) Shards[s].Gate.Exit();
        }
    }

    /// <summary>Starts a scheduled AOF rewrite, or one auto-aof-rewrite-percentage/-min-size call for.</summary>
    private void AofCron()
    {
        var aof = AofFiles;
        if (aof == null || aof.RewriteInProgress || Rdb.InProgress || StoppingToken.IsCancellationRequested || Pause.Stopping) return;
        bool due = aof.RewriteScheduled || aof.RewriteDue(Config.AutoAofRewritePercentage, Config.AutoAofRewriteMinSize);
        if (!due) return;
        WithAllGates(() => aof.TryStartRewrite());
    }

    /// <summary>
    /// Loads the RDB file when there is one, before anything is served. A file that cannot be
    /// loaded stops the start (<see cref="Persistence.RdbLoadException"/>): serving part of it, or
    /// nothing, as if it were empty, would lose data at the next save.
    /// </summary>
    private void LoadAtStartup()
    {
        if (Config.AppendOnly)
        {
            LoadAofAtStartup();
            return;
        }
        string path = Config.RdbPath;
        if (!File.Exists(path)) return;
        var started = System.Diagnostics.Stopwatch.StartNew();
        Rdb.BeginLoading(new FileInfo(path).Length);
        try
        {
            var result = Persistence.RdbLoader.Load(this, path, (done, total) =>
            {
                Rdb.LoadingProgress(done);
                Log.Notice($"Loading RDB: {done * 100 / Math.Max(1, total)}% ({done} of {total} bytes)");
            }, collectExpired: !Replication.IsReplica);
            Rdb.LastLoadKeysLoaded = result.KeysLoaded;
            Rdb.LastLoadKeysExpired = result.KeysExpired;
            _startupLoad = result;
            Log.Notice($"Done loading RDB, keys loaded: {result.KeysLoaded}, keys expired: {result.KeysExpired}.");
            Log.Notice($"DB loaded from disk: {started.Elapsed.TotalSeconds:0.000} seconds");
        }
        catch (Persistence.RdbLoadException ex)
        {
            Log.Warning($"Fatal error loading the DB ({path}) at offset {ex.Offset}: {ex.Message} Exiting.");
            throw;
        }
    }

    /// <summary>Background snapshots (BGSAVE, AOF rewrite) whose hooks are installed: write commands then write their keys ahead.</summary>
    public int ActiveSnapshots;

    /// <summary>The AOF's files, rewrites and writer; null until appendonly is turned on.</summary>
    public Persistence.AofState? AofFiles { get; private set; }

    /// <summary>The AOF being written, when appendonly is on.</summary>
    public Persistence.AofWriter? Aof => AofFiles?.Writer;

    /// <summary>min-replicas-to-write: the NOREPLICAS error writes get while too few replicas are good; null when writes may go on.</summary>
    public string? WritesDeniedByReplicas() => Replication.Master.EnoughGoodReplicas ? null : RespErrors.NoReplicas;

    /// <summary>
    /// Redis's writeCommandsDeniedByDiskError: the MISCONF error that write commands (and PING)
    /// get while the last background save failed (with stop-writes-on-bgsave-error and save points
    /// set) or the AOF cannot be written; null when writes may go on. Two reads when all is well.
    /// </summary>
    public string? WritesDeniedByDiskError()
    {
        if (!Rdb.LastBackgroundOk && Config.StopWritesOnBgsaveError && Config.HasSavePoints) return RespErrors.MisconfRdb;
        var aof = Aof;
        if (aof != null && !aof.LastWriteOk) return RespErrors.MisconfAof(aof.LastWriteError);
        return null;
    }

    /// <summary>The AOF's state, made (from the manifest on disk, if any) for BGREWRITEAOF with appendonly off; call with every gate held.</summary>
    public void EnsureAofFiles()
    {
        if (AofFiles != null) return;
        string manifestPath = Path.Combine(Config.AofDirectory, Persistence.AofManifest.ManifestName(Config.AppendFilename));
        AofFiles = new Persistence.AofState(this, File.Exists(manifestPath) ? Persistence.AofManifest.Load(manifestPath) : new Persistence.AofManifest());
    }

    /// <summary>
    /// CONFIG SET appendonly: yes starts the AOF with a rewrite of the dataset into a new base file
    /// (appending to a new incremental file from this instant); no stops appending. The caller holds
    /// every gate (CONFIG SET routes to all shards, so an event loop never waits for them here).
    /// Null or the error.
    /// </summary>
    public string? SetAppendOnly(bool on)
    {
        System.Diagnostics.Debug.Assert(Enumerable.Range(0, Shards.Count).All(s => Shards[s].Gate.IsHeldByCurrentThread));
        try
        {
            if (!on)
            {
                AofFiles?.Stop();
                return null;
            }
            if (Aof != null) return null;
            EnsureAofFiles();
            return AofFiles!.TryStartRewrite(enable: true) ? null : "a background save or rewrite is in progress, try again later";
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or Persistence.RdbLoadException)
        {
            return ex.Message;
        }
    }

    /// <summary>
    /// appendonly yes: loads the AOF (the RDB file is not read, as in Redis), creates the base file
    /// when there is no AOF yet, opens the last incremental file (or a new one) and records the
    /// layout in the manifest; from then on every write is appended.
    /// </summary>
    private void LoadAofAtStartup()
    {
        string directory = Config.AofDirectory;
        string name = Config.AppendFilename;
        var started = System.Diagnostics.Stopwatch.StartNew();
        Rdb.BeginLoading(0);
        Persistence.AofManifest manifest;
        try
        {
            var result = Execution.AofReplay.Load(this, directory, name, out manifest);
            if (result.Existed)
            {
                Rdb.LastLoadKeysLoaded = result.Keys;
                Log.Notice($"DB loaded from append only file: {started.Elapsed.TotalSeconds:0.000} seconds ({result.Commands} commands, {result.Keys} keys)");
            }
        }
        catch (Persistence.RdbLoadException ex)
        {
            Log.Warning($"Fatal error loading the AOF ({directory}) at offset {ex.Offset}: {ex.Message} Exiting.");
            throw;
        }
        AofFiles = new Persistence.AofState(this, manifest);
        AofFiles.OpenAtStartup();
        AofListener = Aof;
    }


    private int _reservedDescriptors;

    /// <summary>
    /// CONFIG SET maxclients: null when the open-files limit allows <paramref name="maxClients"/>
    /// clients (raising it if need be), else the reason it does not, naming the number it allows,
    /// as Redis's updateMaxclients does.
    /// </summary>
    /// <summary>
    /// The hz the server runs at (INFO hz): the configured hz, doubled by dynamic-hz while there are
    /// more than 200 clients per tick, up to 500, as Redis's serverCron computes it.
    /// </summary>
    public int EffectiveHz => Volatile.Read(ref _effectiveHz);
    private int _effectiveHz = 10;

    /// <summary>
    /// hz, dynamic-hz and active-expire-effort handed to the shards' cron (their active expiry
    /// cycle): at start, by CONFIG SET, and from the server cron as the number of clients changes.
    /// </summary>
    public void ApplyCronTuning()
    {
        int hz = Math.Max(Config.Hz, 1);
        if (Config.Value("dynamic-hz") == "yes")
        {
            while (Clients.Count / hz > 200)
            {
                hz *= 2;
                if (hz > 500)
                {
                    hz = 500;
                    break;
                }
            }
        }
        Volatile.Write(ref _effectiveHz, hz);
        if (Shards is null) return; // the configuration is applied before the shards exist
        int effort = (int)Config.Number("active-expire-effort");
        for (int i = 0; i < Shards.Count; i++)
        {
            Shards[i].CronHz = hz;
            Shards[i].ExpireEffort = effort;
        }
    }

    /// <summary>
    /// oom-score-adj with <paramref name="mode"/> and <paramref name="values"/> for this server's
    /// role (the replica's value while replicaof is set); false when the process's score could not
    /// be read or written (the reason is logged).
    /// </summary>
    public bool ApplyOomScoreAdj(string mode, string values)
        => OomScoreAdjuster.TryApply(mode, values,
            Config.Value("replicaof").Length > 0 ? OomScoreAdjuster.Replica : OomScoreAdjuster.Master, Log);

    public string? CheckMaxClients(long maxClients)
    {
        if (_reservedDescriptors == 0) return null; // not started: Start fits it
        long fitted = OpenFilesLimit.Fit(maxClients, _reservedDescriptors, Log);
        return fitted == maxClients ? null : RespErrors.MaxClientsOverFileLimit(fitted);
    }

    /// <summary>The pid file goes (the stop's step, with Redis's line; once).</summary>
    public void RemovePidFile()
    {
        string? path = Interlocked.Exchange(ref _pidFile, null);
        if (path == null) return;
        Log.Notice("Removing the pid file.");
        try { File.Delete(path); } catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { }
    }

    /// <summary>Closes the listening sockets (plain, TLS, Unix, metrics): no new client from now on; the Unix socket's file goes.</summary>
    public void StopListening()
    {
        lock (_listenersLock)
        {
            foreach (var l in _listeners) l.Stop();
            foreach (var l in _tlsListeners) l.Stop();
        }
        RemoveUnixSocket(log: true);
        _metrics?.Dispose();
    }

    /// <summary>Stops at once: closes every client, stops the shards (disposal, a failed start).</summary>
    public Task StopAsync() => StopAsync(TimeSpan.Zero);

    /// <summary>
    /// Stops accepting, closes every client, stops the shards. With a <paramref name="drain"/> time
    /// (a graceful stop, after <see cref="ServerShutdown"/> has saved): connections first deliver
    /// what they have and close their sending side, and the clients have that long to close theirs;
    /// a blocked client is closed at once, as nothing more will be written to it.
    /// </summary>
    public async Task StopAsync(TimeSpan drain)
    {
        if (_stopping.IsCancellationRequested) return;
        _stopping.Cancel();
        if (_pidFile != null)
        {
            try { File.Delete(_pidFile); } catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { }
        }
        StopListening();
        Cluster?.Bus?.Dispose();
        Replica.Stop();
        if (drain > TimeSpan.Zero)
        {
            Pause.HoldForShutdown();
            foreach (var c in Clients.Values)
            {
                if (c.Blocked != null) c.Kill();
                else c.Drain();
            }
            Pause.EndShutdownHold(closing: true);
            var drained = Task.Delay(drain);
            while (!Clients.IsEmpty && !drained.IsCompleted) await Task.Delay(5);
        }
        foreach (var c in Clients.Values) c.Kill();
        // A script still running (SHUTDOWN NOSAVE while it was busy) is killed, written or not, as
        // Redis exits from inside it; its client then goes like the others.
        ScriptWatchdog.KillForShutdown(TimeSpan.FromSeconds(1));
        var deadline = Task.Delay(2000);
        while (!Clients.IsEmpty && !deadline.IsCompleted) await Task.Delay(10);
        Aof?.Dispose();
        MigrateSockets.Dispose();
        Cluster?.Dispose();
        Shards.Dispose();
        EventLoops?.Dispose();
        ScriptWatchdog.Dispose();
        Log.Dispose();
        _stopped.TrySetResult();
    }

    public async ValueTask DisposeAsync() => await StopAsync();
}
