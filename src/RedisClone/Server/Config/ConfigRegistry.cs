using System.Text;
using RedisClone.Common;
using RedisClone.Protocol;

namespace RedisClone.Server.Config;

/// <summary>
/// The configuration parameters CONFIG GET/SET and the command line know, with Redis 7.2's names,
/// aliases, defaults, value formats, bounds and error texts. One row per parameter (see
/// <see cref="Build"/>); values are kept as the text CONFIG GET prints, plus the number for numeric
/// parameters so the server can read them cheaply (<see cref="ProtoMaxBulkLen"/>, <see cref="Hz"/>...).
/// </summary>
/// <remarks>
/// <para>
/// Two ways in. The configuration (<see cref="SetDirective"/>: a config file, standard input and the
/// command line, in order) may set anything, immutable parameters included, as redis.conf may.
/// CONFIG SET (<see cref="SetFromClient"/>) refuses immutable and protected parameters and is
/// all-or-nothing: every value is parsed and checked before any is stored, which gives the same
/// outcome as Redis's set-then-roll-back.
/// </para>
/// <para>
/// Parameters of features this server lacks (daemonizing, syslog...; see
/// <see cref="MissingFeature"/>) take their default value only: clients and tools read them, but a
/// configuration asking for the feature is refused. Active defragmentation is refused as a Redis
/// built without its jemalloc refuses it (<c>activedefrag yes</c> only; its tuning values are kept).
/// Some parameters are kept without an effect here, because what they tune is not in this server
/// or works one way only: list-compress-depth, activerehashing, jemalloc-bg-thread, crash-log-enabled,
/// crash-memcheck-enabled, aof-rewrite-incremental-fsync, rdb-save-incremental-fsync, ignore-warnings,
/// proc-title-template, aof-use-rdb-preamble (an AOF base is always an RDB file), sanitize-dump-payload
/// (payloads are always checked whole), Redis's hidden use-exit-on-panic, watchdog-period and
/// loading-process-events-interval-bytes. hz, dynamic-hz and active-expire-effort pace the shards'
/// active expiry (<see cref="RedisServer.ApplyCronTuning"/>).
/// CONFIG SET <c>port</c> and <c>bind</c> rebind the listeners (<see cref="RedisServer.PrepareRebind"/>).
/// <c>requirepass</c> reads back as set, and setting it replaces the default user's passwords, as in Redis 7.
/// </para>
/// Thread safety: GET and SET take a lock; the typed properties read one array slot without it.
/// </remarks>
internal sealed partial class ConfigRegistry
{
    /// <summary>How CONFIG SET may treat a parameter.</summary>
    [Flags]
    private enum ParamFlags
    {
        None = 0,
        /// <summary>Only the command line may set it ("can't set immutable config").</summary>
        Immutable = 1,
        /// <summary>CONFIG SET needs enable-protected-configs ("can't set protected config").</summary>
        Protected = 2,
        /// <summary>CONFIG SET splits the value on single spaces into several arguments.</summary>
        MultiArg = 4,
        /// <summary>A tls-* parameter Redis applies by reconfiguring TLS (applyTlsCfg, applyTLSPort): CONFIG SET reloads the context.</summary>
        Tls = 8,
        /// <summary>A debugging parameter Redis hides: CONFIG GET finds it by its exact name only, never by a pattern.</summary>
        Hidden = 16,
        /// <summary>port and bind: CONFIG SET rebinds the listeners (Redis's updatePort, applyBind).</summary>
        Listen = 32,
    }

    /// <summary>A parameter's value type, as Redis's config.c types them (special = own parser).</summary>
    private enum Kind { Bool, Number, Enum, Text, Special }

    /// <summary>What a numeric parameter accepts besides plain integers, and how it prints.</summary>
    [Flags]
    private enum NumberFormat
    {
        Integer = 0,
        /// <summary>Accepts "1gb", "64kb"... (memtoull); prints bytes.</summary>
        Memory = 1,
        /// <summary>Also accepts "10%" (stored negated, as Redis does); prints "10%".</summary>
        Percent = 2,
        Octal = 4,
    }

    /// <summary>Parses the arguments of a special parameter into its canonical text, or returns an error.</summary>
    private delegate string? SpecialParser(ConfigRegistry registry, string[] args, out string canonical, out long number);

    /// <summary>One parameter's definition (shared by every server).</summary>
    private sealed class Param
    {
        public required string Name;
        public string? Alias;
        public Kind Kind;
        public ParamFlags Flags;
        public string Default = "";
        // Numbers: bounds as Redis declares them; Unsigned compares as unsigned (uint, size_t, ull).
        public long Min, Max;
        public bool Unsigned;
        public NumberFormat Format;
        public string[]? Choices;
        /// <summary>Enum choices that read back as another (oom-score-adj: relative → yes).</summary>
        public Dictionary<string, string>? ChoiceAliases;
        /// <summary>Extra check on a parsed value (number as text, bool as "yes"/"no", text): error or null.</summary>
        public Func<string, string?>? Validate;
        public SpecialParser? Special;
        /// <summary>Values owned elsewhere (port, bind, databases, maxclients, dir).</summary>
        public Func<ConfigRegistry, string?>? Getter;
        public Action<ConfigRegistry, string, long>? Apply;
        /// <summary>
        /// CONFIG SET only, after every value parsed and before any is stored: whether the server can
        /// take the value (maxclients: the open-files limit); the reason if not. Redis applies and
        /// rolls back; refusing before storing leaves the same state.
        /// </summary>
        public Func<ConfigRegistry, long, string?>? Check;
        public int Index;
        /// <summary>The default as a fresh registry stores it (set by the first registry made).</summary>
        public string? DefaultCanonical;
    }

    private static readonly Param[] Params = Build();
    private static readonly Dictionary<string, (Param Param, string Name)> ByName = Index();

    private static readonly int ProtoMaxBulkLenIndex = IndexOf("proto-max-bulk-len");
    private static readonly int HzIndex = IndexOf("hz");
    private static readonly int MaxMemoryIndex = IndexOf("maxmemory");
    private static readonly int MaxMemoryClientsIndex = IndexOf("maxmemory-clients");
    private static readonly int QueryBufferLimitIndex = IndexOf("client-query-buffer-limit");
    private static readonly int TimeoutIndex = IndexOf("timeout");
    private static readonly int TcpKeepAliveIndex = IndexOf("tcp-keepalive");
    private static readonly int TlsPortIndex = IndexOf("tls-port");
    private static readonly int TlsAuthClientsIndex = IndexOf("tls-auth-clients");
    private static readonly int NotifyIndex = IndexOf("notify-keyspace-events");
    private static readonly int DebugCommandIndex = IndexOf("enable-debug-command");
    private static readonly int ModuleCommandIndex = IndexOf("enable-module-command");
    private static readonly int ProtectedConfigsIndex = IndexOf("enable-protected-configs");
    private static readonly int ReplBacklogSizeIndex = IndexOf("repl-backlog-size");
    private static readonly int ReplicaReadOnlyIndex = IndexOf("replica-read-only");
    private static readonly int ReplicaServeStaleIndex = IndexOf("replica-serve-stale-data");
    private static readonly int ReplicaIgnoreMaxmemoryIndex = IndexOf("replica-ignore-maxmemory");
    private static readonly int AppendOnlyIndex = IndexOf("appendonly");
    private static readonly int RdbCompressionIndex = IndexOf("rdbcompression");
    private static readonly int RdbChecksumIndex = IndexOf("rdbchecksum");
    private static readonly int AppendFsyncIndex = IndexOf("appendfsync");
    private static readonly int AppendFilenameIndex = IndexOf("appendfilename");
    private static readonly int AppendDirnameIndex = IndexOf("appenddirname");
    private static readonly int AofLoadTruncatedIndex = IndexOf("aof-load-truncated");
    private static readonly int StopWritesOnBgsaveErrorIndex = IndexOf("stop-writes-on-bgsave-error");
    private static readonly int AofPreambleIndex = IndexOf("aof-use-rdb-preamble");
    private static readonly int SlowlogSlowerThanIndex = IndexOf("slowlog-log-slower-than");
    private static readonly int SlowlogMaxLenIndex = IndexOf("slowlog-max-len");
    private static readonly int TrackingTableMaxKeysIndex = IndexOf("tracking-table-max-keys");
    private static readonly int LatencyThresholdIndex = IndexOf("latency-monitor-threshold");
    private static readonly int LatencyTrackingIndex = IndexOf("latency-tracking");
    private static readonly int AutoAofPercentageIndex = IndexOf("auto-aof-rewrite-percentage");
    private static readonly int AutoAofMinSizeIndex = IndexOf("auto-aof-rewrite-min-size");
    private static readonly int DbFilenameIndex = IndexOf("dbfilename");
    private static readonly int SaveIndex = IndexOf("save");
    private static readonly int LazyExpireIndex = IndexOf("lazyfree-lazy-expire");
    private static readonly int LazyServerDelIndex = IndexOf("lazyfree-lazy-server-del");
    private static readonly int LazyEvictionIndex = IndexOf("lazyfree-lazy-eviction");
    private static readonly int LazyUserDelIndex = IndexOf("lazyfree-lazy-user-del");
    private static readonly int LazyUserFlushIndex = IndexOf("lazyfree-lazy-user-flush");
    private static readonly int MaxMemoryPolicyIndex = IndexOf("maxmemory-policy");
    private static readonly int OutputBufferLimitIndex = IndexOf("client-output-buffer-limit");
    private static readonly int HashEntriesIndex = IndexOf("hash-max-listpack-entries");
    private static readonly int HashValueIndex = IndexOf("hash-max-listpack-value");
    private static readonly int StreamNodeEntriesIndex = IndexOf("stream-node-max-entries");
    private static readonly int StreamNodeBytesIndex = IndexOf("stream-node-max-bytes");
    private static readonly int IntsetEntriesIndex = IndexOf("set-max-intset-entries");
    private static readonly int SetEntriesIndex = IndexOf("set-max-listpack-entries");
    private static readonly int SetValueIndex = IndexOf("set-max-listpack-value");
    private static readonly int ZsetEntriesIndex = IndexOf("zset-max-listpack-entries");
    private static readonly int ZsetValueIndex = IndexOf("zset-max-listpack-value");
    private static readonly int ListSizeIndex = IndexOf("list-max-listpack-size");
    private static readonly int HllSparseMaxBytesIndex = IndexOf("hll-sparse-max-bytes");
    private static readonly int LogLevelIndex = IndexOf("loglevel");
    private static readonly int LogFileIndex = IndexOf("logfile");
    private static readonly int BusyReplyThresholdIndex = IndexOf("busy-reply-threshold");
    private static readonly int AclPubSubDefaultIndex = IndexOf("acl-pubsub-default");
    private static readonly int AclLogMaxLenIndex = IndexOf("acllog-max-len");
    private static readonly int AclFileIndex = IndexOf("aclfile");
    private static readonly int ProtectedModeIndex = IndexOf("protected-mode");
    private static readonly int MaxMemorySamplesIndex = IndexOf("maxmemory-samples");
    private static readonly int MaxMemoryTenacityIndex = IndexOf("maxmemory-eviction-tenacity");
    private static readonly int ShutdownOnSigintIndex = IndexOf("shutdown-on-sigint");
    private static readonly int ShutdownOnSigtermIndex = IndexOf("shutdown-on-sigterm");
    private static readonly int RdbKeySaveDelayIndex = IndexOf("rdb-key-save-delay");
    private static readonly int ReplBacklogTtlIndex = IndexOf("repl-backlog-ttl");
    private static readonly int ShutdownTimeoutIndex = IndexOf("shutdown-timeout");
    private static readonly int ReplDisklessSyncIndex = IndexOf("repl-diskless-sync");
    private static readonly int ReplDisklessSyncDelayIndex = IndexOf("repl-diskless-sync-delay");
    private static readonly int ReplDisklessSyncMaxReplicasIndex = IndexOf("repl-diskless-sync-max-replicas");
    private static readonly int ReplPingPeriodIndex = IndexOf("repl-ping-replica-period");
    private static readonly int ReplTimeoutIndex = IndexOf("repl-timeout");
    private static readonly int MinReplicasToWriteIndex = IndexOf("min-replicas-to-write");
    private static readonly int MinReplicasMaxLagIndex = IndexOf("min-replicas-max-lag");
    private static readonly int ReplDisableTcpNoDelayIndex = IndexOf("repl-disable-tcp-nodelay");
    private static readonly int KeyLoadDelayIndex = IndexOf("key-load-delay");
    private static readonly int OomScoreAdjIndex = IndexOf("oom-score-adj");
    private static readonly int OomScoreAdjValuesIndex = IndexOf("oom-score-adj-values");
    private static readonly int AofTimestampIndex = IndexOf("aof-timestamp-enabled");
    private static readonly int AofDisableAutoGcIndex = IndexOf("aof-disable-auto-gc");
    private static readonly int BindSourceAddrIndex = IndexOf("bind-source-addr");
    private static readonly int NoAppendFsyncOnRewriteIndex = IndexOf("no-appendfsync-on-rewrite");

    private readonly RedisServer? _server;
    private readonly object _gate = new();
    private readonly string[] _values;
    private readonly long[] _numbers;
    private bool _saveLoaded;

    public ConfigRegistry(RedisServer? server)
    {
        _server = server;
        _values = new string[Params.Length];
        _numbers = new long[Params.Length];
        foreach (var p in Params)
        {
            string? error = Parse(p, SplitStartup(p, p.Default), out string canonical, out long number);
            if (error != null) throw new InvalidOperationException($"bad default for {p.Name}: {error}");
            _values[p.Index] = canonical;
            _numbers[p.Index] = number;
            p.DefaultCanonical ??= canonical;
        }
    }

    /// <summary>proto-max-bulk-len: the longest bulk string a client may send.</summary>
    public long ProtoMaxBulkLen => Volatile.Read(ref _numbers[ProtoMaxBulkLenIndex]);

    /// <summary>
    /// client-query-buffer-limit: the most a client may hold in commands not yet run (a command still
    /// arriving, input not yet parsed, and its MULTI queue) before it is closed.
    /// </summary>
    public long QueryBufferLimit => Volatile.Read(ref _numbers[QueryBufferLimitIndex]);

    /// <summary>busy-reply-threshold (alias lua-time-limit): milliseconds a script runs before other clients get -BUSY.</summary>
    public long BusyReplyThreshold => Volatile.Read(ref _numbers[BusyReplyThresholdIndex]);

    /// <summary>acl-pubsub-default is allchannels: new users and selectors start with &amp;*.</summary>
    public bool AclPubSubDefaultAllChannels => Volatile.Read(ref _values[AclPubSubDefaultIndex]) == "allchannels";

    /// <summary>acllog-max-len: entries ACL LOG keeps.</summary>
    public long AclLogMaxLen => Volatile.Read(ref _numbers[AclLogMaxLenIndex]);

    /// <summary>aclfile: where ACL SAVE writes and ACL LOAD reads users; empty when none.</summary>
    public string AclFile => Volatile.Read(ref _values[AclFileIndex]);

    /// <summary>protected-mode: refuse non-loopback clients while the default user has no password.</summary>
    public bool ProtectedMode => Volatile.Read(ref _numbers[ProtectedModeIndex]) != 0;

    /// <summary>hz, clamped to 1..500 as Redis does.</summary>
    public int Hz => (int)Volatile.Read(ref _numbers[HzIndex]);

    /// <summary>maxmemory in bytes; 0 = no limit.</summary>
    public ulong MaxMemory => (ulong)Volatile.Read(ref _numbers[MaxMemoryIndex]);

    /// <summary>maxmemory-clients as stored: bytes, or a percentage of maxmemory stored negated; 0 = off.</summary>
    public long MaxMemoryClients => Volatile.Read(ref _numbers[MaxMemoryClientsIndex]);

    /// <summary>maxmemory-samples: keys sampled per database for each eviction.</summary>
    public long MaxMemorySamples => Volatile.Read(ref _numbers[MaxMemorySamplesIndex]);

    /// <summary>maxmemory-eviction-tenacity: how long one command may spend evicting (0..100).</summary>
    public long MaxMemoryEvictionTenacity => Volatile.Read(ref _numbers[MaxMemoryTenacityIndex]);

    public string MaxMemoryPolicy => Volatile.Read(ref _values[MaxMemoryPolicyIndex]);

    /// <summary>timeout: seconds a client may idle before being closed; 0 = never.</summary>
    public long Timeout => Volatile.Read(ref _numbers[TimeoutIndex]);

    /// <summary>tls-port: the port of the TLS listeners; 0 = none.</summary>
    public int TlsPort => (int)Volatile.Read(ref _numbers[TlsPortIndex]);

    /// <summary>tls-auth-clients, read at each TLS accept as Redis reads it.</summary>
    public Network.TlsClientAuth TlsAuthClients => Volatile.Read(ref _values[TlsAuthClientsIndex]) switch
    {
        "no" => Network.TlsClientAuth.No,
        "optional" => Network.TlsClientAuth.Optional,
        _ => Network.TlsClientAuth.Yes,
    };

    /// <summary>The parameters a TLS context is made from, as they are now.</summary>
    public Network.TlsSettings TlsSettings() => TlsSettingsOf(name => Volatile.Read(ref _values[IndexOf(name)]));

    private static Network.TlsSettings TlsSettingsOf(Func<string, string> value) => new(
        CertFile: value("tls-cert-file"), KeyFile: value("tls-key-file"), KeyFilePass: value("tls-key-file-pass"),
        CaCertFile: value("tls-ca-cert-file"), CaCertDir: value("tls-ca-cert-dir"), Protocols: value("tls-protocols"),
        Ciphers: value("tls-ciphers"), Ciphersuites: value("tls-ciphersuites"),
        PreferServerCiphers: value("tls-prefer-server-ciphers") == "yes", SessionCaching: value("tls-session-caching") == "yes",
        AuthClientsOff: value("tls-auth-clients") == "no", Replication: value("tls-replication") == "yes",
        Cluster: value("tls-cluster") == "yes");

    /// <summary>tcp-keepalive: seconds of silence before TCP keepalive probes on a new client's socket; 0 = off.</summary>
    public long TcpKeepAlive => Volatile.Read(ref _numbers[TcpKeepAliveIndex]);

    /// <summary>notify-keyspace-events as Redis's flag bits (see <see cref="KeyspaceEvents"/>).</summary>
    public int NotifyKeyspaceEvents => (int)Volatile.Read(ref _numbers[NotifyIndex]);

    // The encoding thresholds, read by every write to a hash, set, sorted set or list (by index:
    // a lookup by name hashes the name each time).
    public long HashMaxListpackEntries => Volatile.Read(ref _numbers[HashEntriesIndex]);

    public long HashMaxListpackValue => Volatile.Read(ref _numbers[HashValueIndex]);

    /// <summary>stream-node-max-entries: live plus deleted entries after which a stream node is closed (0: no limit).</summary>
    public long StreamNodeMaxEntries => Volatile.Read(ref _numbers[StreamNodeEntriesIndex]);

    /// <summary>stream-node-max-bytes: the listpack size at which a stream node is closed (0: no limit).</summary>
    public long StreamNodeMaxBytes => Volatile.Read(ref _numbers[StreamNodeBytesIndex]);

    public long SetMaxIntsetEntries => Volatile.Read(ref _numbers[IntsetEntriesIndex]);

    /// <summary>hll-sparse-max-bytes: the size (header included) past which a sparse HyperLogLog turns dense.</summary>
    public long HllSparseMaxBytes => Volatile.Read(ref _numbers[HllSparseMaxBytesIndex]);

    public long SetMaxListpackEntries => Volatile.Read(ref _numbers[SetEntriesIndex]);

    public long SetMaxListpackValue => Volatile.Read(ref _numbers[SetValueIndex]);

    public long ZsetMaxListpackEntries => Volatile.Read(ref _numbers[ZsetEntriesIndex]);

    public long ZsetMaxListpackValue => Volatile.Read(ref _numbers[ZsetValueIndex]);

    public long ListMaxListpackSize => Volatile.Read(ref _numbers[ListSizeIndex]);

    public long ReplBacklogSize => Volatile.Read(ref _numbers[ReplBacklogSizeIndex]);

    /// <summary>shutdown-timeout: seconds a stop waits for lagging replicas to acknowledge the whole stream (0: not at all).</summary>
    public long ShutdownTimeout => Volatile.Read(ref _numbers[ShutdownTimeoutIndex]);

    /// <summary>repl-backlog-ttl: seconds without replicas after which a master frees its backlog (0: never).</summary>
    public long ReplBacklogTtl => Volatile.Read(ref _numbers[ReplBacklogTtlIndex]);

    /// <summary>repl-diskless-sync: full syncs stream the snapshot to the replicas' sockets.</summary>
    public bool ReplDisklessSync => Volatile.Read(ref _numbers[ReplDisklessSyncIndex]) != 0;

    /// <summary>repl-diskless-sync-delay: seconds a diskless sync waits for more replicas.</summary>
    public long ReplDisklessSyncDelay => Volatile.Read(ref _numbers[ReplDisklessSyncDelayIndex]);

    /// <summary>repl-diskless-sync-max-replicas: a diskless sync starts at once with this many waiting (0: no limit).</summary>
    public long ReplDisklessSyncMaxReplicas => Volatile.Read(ref _numbers[ReplDisklessSyncMaxReplicasIndex]);

    /// <summary>repl-ping-replica-period: seconds between PINGs in the stream.</summary>
    public long ReplPingReplicaPeriod => Volatile.Read(ref _numbers[ReplPingPeriodIndex]);

    /// <summary>repl-timeout: seconds without an ACK before a replica is dropped.</summary>
    public long ReplTimeout => Volatile.Read(ref _numbers[ReplTimeoutIndex]);

    /// <summary>min-replicas-to-write: writes need this many good replicas (0: off).</summary>
    public long MinReplicasToWrite => Volatile.Read(ref _numbers[MinReplicasToWriteIndex]);

    /// <summary>min-replicas-max-lag: a good replica acknowledged within this many seconds (0: off).</summary>
    public long MinReplicasMaxLag => Volatile.Read(ref _numbers[MinReplicasMaxLagIndex]);

    /// <summary>repl-disable-tcp-nodelay: replicas' sockets batch small writes (Nagle).</summary>
    public bool ReplDisableTcpNoDelay => Volatile.Read(ref _numbers[ReplDisableTcpNoDelayIndex]) != 0;

    /// <summary>replica-read-only: while a replica, normal clients' writes get -READONLY.</summary>
    public bool ReplicaReadOnly => Volatile.Read(ref _numbers[ReplicaReadOnlyIndex]) != 0;

    /// <summary>replica-serve-stale-data: while a replica's link is down, serve the data it has (else -MASTERDOWN).</summary>
    public bool ReplicaServeStaleData => Volatile.Read(ref _numbers[ReplicaServeStaleIndex]) != 0;

    /// <summary>replica-ignore-maxmemory: a replica does not evict (its master's DELs do).</summary>
    public bool ReplicaIgnoreMaxmemory => Volatile.Read(ref _numbers[ReplicaIgnoreMaxmemoryIndex]) != 0;

    public bool AppendOnly => Volatile.Read(ref _numbers[AppendOnlyIndex]) != 0;

    /// <summary>appendfsync: always, everysec or no.</summary>
    public string AppendFsync => Volatile.Read(ref _values[AppendFsyncIndex]);

    /// <summary>appendfilename: the AOF files' base name.</summary>
    public string AppendFilename => Volatile.Read(ref _values[AppendFilenameIndex]);

    /// <summary>The AOF directory: appenddirname within <see cref="Dir"/>.</summary>
    public string AofDirectory => Path.Combine(Dir, Volatile.Read(ref _values[AppendDirnameIndex]));

    /// <summary>aof-load-truncated: a last AOF file cut short is loaded up to its last complete command.</summary>
    public bool AofLoadTruncated => Volatile.Read(ref _numbers[AofLoadTruncatedIndex]) != 0;

    /// <summary>slowlog-log-slower-than: microseconds from which a command is logged (negative: never).</summary>
    public long SlowlogLogSlowerThan => Volatile.Read(ref _numbers[SlowlogSlowerThanIndex]);

    /// <summary>slowlog-max-len: how many entries SLOWLOG keeps.</summary>
    public long SlowlogMaxLen => Volatile.Read(ref _numbers[SlowlogMaxLenIndex]);

    /// <summary>tracking-table-max-keys: past this many remembered keys, tracking invalidates some (0: no limit).</summary>
    public long TrackingTableMaxKeys => Volatile.Read(ref _numbers[TrackingTableMaxKeysIndex]);

    /// <summary>latency-monitor-threshold: milliseconds from which LATENCY records an event (0: off).</summary>
    public long LatencyMonitorThreshold => Volatile.Read(ref _numbers[LatencyThresholdIndex]);

    /// <summary>latency-tracking: every command's duration goes into its latency histogram.</summary>
    public bool LatencyTracking => Volatile.Read(ref _numbers[LatencyTrackingIndex]) != 0;

    /// <summary>latency-tracking-info-percentiles: the percentiles INFO latencystats prints (may be empty).</summary>
    public double[] LatencyTrackingPercentiles => Volatile.Read(ref _percentiles);
    private double[] _percentiles = [50.0, 99.0, 99.9];

    /// <summary>auto-aof-rewrite-percentage: growth of the AOF over its base that starts a rewrite (0: never).</summary>
    public long AutoAofRewritePercentage => Volatile.Read(ref _numbers[AutoAofPercentageIndex]);

    /// <summary>auto-aof-rewrite-min-size: no automatic rewrite below this size.</summary>
    public long AutoAofRewriteMinSize => Volatile.Read(ref _numbers[AutoAofMinSizeIndex]);

    /// <summary>aof-use-rdb-preamble: the AOF's base file is an RDB file.</summary>
    public bool AofUseRdbPreamble => Volatile.Read(ref _numbers[AofPreambleIndex]) != 0;

    /// <summary>rdbchecksum: RDB files end with a CRC64 of their contents (0 when off), checked on load.</summary>
    public bool RdbChecksum => Volatile.Read(ref _numbers[RdbChecksumIndex]) != 0;

    /// <summary>dbfilename: the RDB file's name within <see cref="Dir"/>.</summary>
    public string DbFilename => Volatile.Read(ref _values[DbFilenameIndex]);

    /// <summary>
    /// dir: where the RDB file lives. Kept per server (Redis changes the process's working
    /// directory; several servers may share a process here, as tests and embedders do).
    /// </summary>
    public string Dir => Volatile.Read(ref _dir) ?? Directory.GetCurrentDirectory();
    private string? _dir;

    /// <summary>The RDB file's full path.</summary>
    public string RdbPath => Path.Combine(Dir, DbFilename);

    /// <summary>save: (seconds, changes) points; empty when snapshots on a schedule are off.</summary>
    public (long Seconds, long Changes)[] SavePoints
    {
        get
        {
            var parts = Volatile.Read(ref _values[SaveIndex]).Split(' ', StringSplitOptions.RemoveEmptyEntries);
            var points = new (long, long)[parts.Length / 2];
            for (int i = 0; i < points.Length; i++)
                points[i] = (long.Parse(parts[2 * i], System.Globalization.CultureInfo.InvariantCulture),
                    long.Parse(parts[2 * i + 1], System.Globalization.CultureInfo.InvariantCulture));
            return points;
        }
    }

    /// <summary>stop-writes-on-bgsave-error: writes are refused (MISCONF) after a failed background save.</summary>
    public bool StopWritesOnBgsaveError => Volatile.Read(ref _numbers[StopWritesOnBgsaveErrorIndex]) != 0;

    /// <summary>Whether any save point is set (Redis's saveparamslen &gt; 0), without parsing them.</summary>
    public bool HasSavePoints => !string.IsNullOrWhiteSpace(Volatile.Read(ref _values[SaveIndex]));

    /// <summary>rdbcompression: strings in RDB files and DUMP payloads are LZF-compressed when it pays.</summary>
    public bool RdbCompression => Volatile.Read(ref _numbers[RdbCompressionIndex]) != 0;

    /// <summary>lazyfree-lazy-expire: keys removed because they expired propagate as UNLINK instead of DEL.</summary>
    public bool LazyfreeLazyExpire => Volatile.Read(ref _numbers[LazyExpireIndex]) != 0;

    /// <summary>lazyfree-lazy-server-del: keys the server deletes itself (SPOP of a whole set) propagate as UNLINK.</summary>
    public bool LazyfreeLazyServerDel => Volatile.Read(ref _numbers[LazyServerDelIndex]) != 0;

    /// <summary>lazyfree-lazy-eviction: an evicted key propagates as UNLINK rather than DEL.</summary>
    public bool LazyfreeLazyEviction => Volatile.Read(ref _numbers[LazyEvictionIndex]) != 0;

    /// <summary>lazyfree-lazy-user-del: DEL frees as UNLINK does.</summary>
    public bool LazyfreeLazyUserDel => Volatile.Read(ref _numbers[LazyUserDelIndex]) != 0;

    /// <summary>lazyfree-lazy-user-flush: FLUSHALL/FLUSHDB without SYNC or ASYNC flush as ASYNC.</summary>
    public bool LazyfreeLazyUserFlush => Volatile.Read(ref _numbers[LazyUserFlushIndex]) != 0;

    // Parsed from the setting's text, and replaced as a whole (one reference) when the text changes.
    // client-output-buffer-limit parsed: hard, soft, seconds for the normal and pubsub classes,
    // replaced as a whole (one reference) when the text changes.
    private sealed record OutputLimits(string Source, long NormalHard, long NormalSoft, int NormalSeconds,
        long PubSubHard, long PubSubSoft, int PubSubSeconds, long ReplicaHard, long ReplicaSoft, int ReplicaSeconds);

    private OutputLimits _outputLimits = new("", 0, 0, 0, 0, 0, 0, 0, 0, 0);

    private OutputLimits CurrentOutputLimits()
    {
        string current = Volatile.Read(ref _values[OutputBufferLimitIndex]);
        var cached = Volatile.Read(ref _outputLimits);
        if (ReferenceEquals(cached.Source, current)) return cached;
        var parts = current.Split(' ');
        cached = new OutputLimits(current, long.Parse(parts[1]), long.Parse(parts[2]), int.Parse(parts[3]),
            long.Parse(parts[9]), long.Parse(parts[10]), int.Parse(parts[11]),
            long.Parse(parts[5]), long.Parse(parts[6]), int.Parse(parts[7]));
        Volatile.Write(ref _outputLimits, cached);
        return cached;
    }

    /// <summary>
    /// The pubsub class of client-output-buffer-limit: hard bytes, soft bytes, soft seconds (0 = none).
    /// Read for every message delivered to a subscriber, so it costs two reads and a reference compare.
    /// </summary>
    public (long Hard, long Soft, int Seconds) PubSubOutputLimits
    {
        get
        {
            var l = CurrentOutputLimits();
            return (l.PubSubHard, l.PubSubSoft, l.PubSubSeconds);
        }
    }

    /// <summary>The normal class of client-output-buffer-limit (0 0 0 by default: no limit).</summary>
    public (long Hard, long Soft, int Seconds) ReplicaOutputLimits
    {
        get
        {
            var l = CurrentOutputLimits();
            return (l.ReplicaHard, l.ReplicaSoft, l.ReplicaSeconds);
        }
    }

    /// <summary>The normal class of client-output-buffer-limit (0 0 0 by default: no limit).</summary>
    public (long Hard, long Soft, int Seconds) NormalOutputLimits
    {
        get
        {
            var l = CurrentOutputLimits();
            return (l.NormalHard, l.NormalSoft, l.NormalSeconds);
        }
    }

    /// <summary>enable-debug-command: "no", "yes" or "local".</summary>
    public string EnableDebugCommand => Volatile.Read(ref _values[DebugCommandIndex]);

    /// <summary>enable-module-command: "no", "yes" or "local".</summary>
    public string EnableModuleCommand => Volatile.Read(ref _values[ModuleCommandIndex]);

    /// <summary>True when a protected action (DEBUG, protected configs) is allowed for a client.</summary>
    public static bool ProtectedActionAllowed(string setting, bool localClient)
        => setting == "yes" || (setting == "local" && localClient);

    /// <summary>loglevel: debug, verbose, notice, warning or nothing.</summary>
    public string LogLevel => Volatile.Read(ref _values[LogLevelIndex]);

    /// <summary>logfile: empty for standard output.</summary>
    public string LogFile => Volatile.Read(ref _values[LogFileIndex]);

    /// <summary>True when <paramref name="name"/> (or an alias) is a parameter the command line may set.</summary>
    public static bool IsKnown(string name) => ByName.ContainsKey(name);

    /// <summary>
    /// Sets a parameter from a configuration line (file, standard input or command line), immutable
    /// ones too, with redis.conf's rules: a single-value parameter takes exactly one word; a
    /// multi-value one takes its words, or one word split again (<c>save "900 1 300 10"</c>); every
    /// <c>save</c> line after the first adds its points to the previous ones (<c>save ""</c> clears).
    /// Returns null or the error text.
    /// </summary>
    public string? SetDirective(string name, string[] words)
    {
        if (!ByName.TryGetValue(name, out var hit)) return "Bad directive or wrong number of arguments";
        var p = hit.Param;
        bool multi = (p.Flags & ParamFlags.MultiArg) != 0;
        if (!multi && words.Length != 1) return "wrong number of arguments";
        if (multi && words.Length == 1)
            words = words[0].Length == 0 ? [] : InlineSplitter.Split(words[0])?.ToArray() ?? [];
        lock (_gate)
        {
            string? error = Parse(p, words, out string canonical, out long number);
            if (error != null) return error;
            if (p.Index == SaveIndex)
            {
                // The defaults go at the first save line; later ones add to it.
                if (_saveLoaded && words.Length > 0 && _values[SaveIndex].Length > 0)
                    canonical = _values[SaveIndex] + " " + canonical;
                _saveLoaded = true;
            }
            Commit(p, canonical, number);
            return null;
        }
    }

    /// <summary>A numeric parameter's value (the command line's checks read it back).</summary>
    public long Number(string name) => Volatile.Read(ref _numbers[ByName[name].Param.Index]);

    /// <summary>A parameter's stored text.</summary>
    public string Value(string name) => Volatile.Read(ref _values[ByName[name].Param.Index]);

    /// <summary>
    /// CONFIG SET name value [name value ...]: checks every pair, then stores them all or none.
    /// Returns null on success, else the whole error text ("ERR ...") in Redis's order of precedence:
    /// an unknown name first, then immutable/protected/duplicate, then the first bad value.
    /// </summary>
    public string? SetFromClient(IReadOnlyList<string> names, IReadOnlyList<string> values, bool localClient)
    {
        var found = new Param[names.Count];
        string? unknown = null, errorName = null, error = null;
        bool invalid = false;
        for (int i = 0; i < names.Count; i++)
        {
            if (!ByName.TryGetValue(names[i], out var hit))
            {
                if (!invalid)
                {
                    unknown = names[i];
                    invalid = true;
                }
                continue;
            }
            if (invalid) continue;
            var p = hit.Param;
            if ((p.Flags & ParamFlags.Immutable) != 0 ||
                ((p.Flags & ParamFlags.Protected) != 0 && !ProtectedActionAllowed(_values[ProtectedConfigsIndex], localClient)))
            {
                error = (p.Flags & ParamFlags.Immutable) != 0 ? "can't set immutable config" : "can't set protected config";
                errorName = names[i];
                invalid = true;
                continue;
            }
            // An alias is a parameter of its own here, as in Redis: "replica-read-only x slave-read-only y" is no duplicate.
            for (int j = 0; j < i; j++)
            {
                if (found[j] == p && string.Equals(ByName[names[j]].Name, hit.Name, StringComparison.Ordinal))
                {
                    error = "duplicate parameter";
                    errorName = names[i];
                    invalid = true;
                    break;
                }
            }
            found[i] = p;
        }
        if (unknown != null) return RespErrors.ConfigSetUnknownOption(unknown);
        if (invalid) return RespErrors.ConfigSetFailed(errorName!, error!);

        lock (_gate)
        {
            var canonical = new string[names.Count];
            var numbers = new long[names.Count];
            for (int i = 0; i < names.Count; i++)
            {
                var p = found[i];
                string[] args = (p.Flags & ParamFlags.MultiArg) != 0 ? SplitClient(values[i]) : [values[i]];
                error = Parse(p, args, out canonical[i], out numbers[i], final: true);
                if (error != null)
                    return RespErrors.ConfigSetFailed(ByName[names[i]].Name, error);
            }
            for (int i = 0; i < names.Count; i++)
            {
                error = found[i].Check?.Invoke(this, numbers[i]);
                if (error == null) continue;
                _server?.Log.Warning($"Failed applying new configuration. Possibly related to new {found[i].Name} setting. Restoring previous settings.");
                return RespErrors.ConfigSetFailed(found[i].Name, error);
            }
            string Proposed(string name)
            {
                for (int i = names.Count - 1; i >= 0; i--)
                    if (found[i].Name == name) return canonical[i];
                return _values[IndexOf(name)];
            }
            // oom-score-adj(-values) are written to the process before anything is stored, and put
            // back if a later step fails (Redis applies, then rolls back: the same outcome).
            Action? undoOom = null;
            if (_server != null && Array.Exists(found, p => p.Index == OomScoreAdjIndex || p.Index == OomScoreAdjValuesIndex))
            {
                if (!_server.ApplyOomScoreAdj(Proposed("oom-score-adj"), Proposed("oom-score-adj-values")))
                {
                    var failed = Array.Find(found, p => p.Index == OomScoreAdjIndex) ?? Params[OomScoreAdjValuesIndex];
                    _server.Log.Warning($"Failed applying new configuration. Possibly related to new {failed.Name} setting. Restoring previous settings.");
                    return RespErrors.ConfigSetFailed(failed.Name, "Failed to set current oom_score_adj. Check server logs.");
                }
                undoOom = () => _server.ApplyOomScoreAdj(_values[OomScoreAdjIndex], _values[OomScoreAdjValuesIndex]);
            }
            Action? applyListen = null;
            if (_server != null && Array.Exists(found, p => (p.Flags & ParamFlags.Listen) != 0))
            {
                // port and bind together: the listeners they describe are bound before anything is
                // stored; a failure leaves the old ones (Redis rolls back to them: the same outcome).
                int port = Array.Exists(found, p => p.Name == "port") ? int.Parse(Proposed("port")) : _server.Port;
                string[] bind = Array.Exists(found, p => p.Name == "bind")
                    ? Proposed("bind").Split(' ', StringSplitOptions.RemoveEmptyEntries)
                    : _server.Options.Bind;
                bool bindChanged = !bind.AsSpan().SequenceEqual(_server.Options.Bind);
                if (bindChanged || port != _server.Port)
                {
                    error = _server.PrepareRebind(port, bind, bindChanged, out applyListen);
                    if (error != null)
                    {
                        undoOom?.Invoke();
                        string failed = bindChanged ? "bind" : "port";
                        _server.Log.Warning($"Failed applying new configuration. Possibly related to new {failed} setting. Restoring previous settings.");
                        return RespErrors.ConfigSetFailed(failed, error);
                    }
                }
            }
            Action? applyTls = null;
            if (_server != null && Array.Exists(found, p => (p.Flags & ParamFlags.Tls) != 0))
            {
                // Every tls-* value of this call together, then the context they make (Redis applies
                // them, reconfigures, and rolls back when that fails: the same outcome).
                bool portChanged = Array.Exists(found, p => p.Index == TlsPortIndex) &&
                                   Proposed("tls-port") != _values[TlsPortIndex];
                bool configChanged = Array.Exists(found, p => (p.Flags & ParamFlags.Tls) != 0 && p.Index != TlsPortIndex);
                error = _server.PrepareTls(TlsSettingsOf(Proposed), int.Parse(Proposed("tls-port")), configChanged, portChanged,
                    out applyTls, out bool portFailed);
                if (error != null)
                {
                    undoOom?.Invoke();
                    var failed = portFailed
                        ? Params[TlsPortIndex]
                        : Array.Find(found, p => (p.Flags & ParamFlags.Tls) != 0 && p.Index != TlsPortIndex) ?? Params[TlsPortIndex];
                    _server.Log.Warning($"Failed applying new configuration. Possibly related to new {failed.Name} setting. Restoring previous settings.");
                    return RespErrors.ConfigSetFailed(failed.Name, error);
                }
            }
            for (int i = 0; i < names.Count; i++) Commit(found[i], canonical[i], numbers[i]);
            applyListen?.Invoke();
            applyTls?.Invoke();
        }
        return null;
    }

    /// <summary>
    /// CONFIG GET pattern [pattern ...]: (name, value) pairs in the order found. A pattern without
    /// glob characters is a direct (case-insensitive) lookup and the reply echoes it as typed;
    /// patterns match every name and alias case-insensitively. A name is reported once.
    /// </summary>
    public List<(string Name, string Value)> Match(IReadOnlyList<byte[]> patterns)
    {
        var result = new List<(string, string)>();
        var seen = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        lock (_gate)
        {
            foreach (var pattern in patterns)
            {
                if (pattern.AsSpan().IndexOfAny("[*?"u8) < 0)
                {
                    string name = Encoding.Latin1.GetString(pattern);
                    if (seen.Contains(name) || !ByName.TryGetValue(name, out var hit)) continue;
                    seen.Add(name);
                    result.Add((name, Current(hit.Param)));
                    continue;
                }
                foreach (var p in Params)
                {
                    if ((p.Flags & ParamFlags.Hidden) != 0) continue;
                    foreach (string? name in (ReadOnlySpan<string?>)[p.Name, p.Alias])
                    {
                        if (name == null || seen.Contains(name)) continue;
                        if (!GlobMatcher.IsMatch(pattern, Encoding.ASCII.GetBytes(name), nocase: true)) continue;
                        seen.Add(name);
                        result.Add((name, Current(p)));
                    }
                }
            }
        }
        return result;
    }

    private string Current(Param p) => p.Getter?.Invoke(this) ?? _values[p.Index];

    private void Commit(Param p, string canonical, long number)
    {
        Volatile.Write(ref _values[p.Index], canonical);
        Volatile.Write(ref _numbers[p.Index], number);
        p.Apply?.Invoke(this, canonical, number);
    }

    /// <summary>Redis's sdssplitlen(value, " "): single spaces separate, so "a  b" has an empty middle argument.</summary>
    private static string[] SplitClient(string value) => value.Length == 0 ? [] : value.Split(' ');

    /// <summary>Config-file style: runs of spaces separate; an empty value is no arguments.</summary>
    private static string[] SplitStartup(Param p, string value)
        => (p.Flags & ParamFlags.MultiArg) != 0 ? value.Split(' ', StringSplitOptions.RemoveEmptyEntries) : [value];

    // ------------------------------------------------------------------ parsing

    /// <summary>
    /// A value for <paramref name="p"/> as text and number, or the error. A parameter of a feature
    /// this server does not have accepts its default value only: a configuration asking for the
    /// feature is refused rather than kept and ignored.
    /// </summary>
    private string? Parse(Param p, string[] args, out string canonical, out long number, bool final = false)
    {
        string? error = ParseValue(p, args, out canonical, out number);
        if (error != null || !final) return error;
        return Refused(p, canonical);
    }

    private static string? Refused(Param p, string canonical)
    {
        string? missing = MissingFeature(p.Name);
        if (missing != null && p.DefaultCanonical != null && canonical != p.DefaultCanonical)
            return $"{missing} not supported by this server: only the default value ({p.DefaultCanonical}) is accepted";
        return null;
    }

    /// <summary>
    /// After a configuration is read: the error for <paramref name="name"/> when its final value asks
    /// for a feature this server does not have (a later line may undo an earlier one, as
    /// <c>--daemonize no</c> after a file's <c>daemonize yes</c>).
    /// </summary>
    public string? RefusedFinalValue(string name)
    {
        var p = ByName[name].Param;
        return Refused(p, _values[p.Index]);
    }

    /// <summary>The parameter's own name for a name or alias (null when unknown).</summary>
    public static string? CanonicalName(string name) => ByName.TryGetValue(name, out var hit) ? hit.Param.Name : null;

    /// <summary>What a parameter configures when this server does not have it; null for the rest.</summary>
    private static string? MissingFeature(string name) => name switch
    {
        "replicaof" or "cluster-enabled" or "activedefrag" => null, // refused with texts of their own
        // The master side of replication (Replication/ReplicationMaster).
        "repl-backlog-size" or "repl-backlog-ttl" or "repl-diskless-sync" or "repl-diskless-sync-delay"
            or "repl-diskless-sync-max-replicas" or "repl-ping-replica-period" or "repl-timeout"
            or "min-replicas-to-write" or "min-replicas-max-lag" or "repl-disable-tcp-nodelay" => null,
        // The replica side (Replication/ReplicaRole.cs).
        "masterauth" or "masteruser" or "replica-read-only" or "replica-serve-stale-data" or "repl-diskless-load"
            or "replica-lazy-flush" or "replica-priority" or "replica-announce-ip" or "replica-announce-port"
            or "replica-announced" or "replica-ignore-maxmemory" => null,
        _ when name.StartsWith("repl-", StringComparison.Ordinal) || name.StartsWith("replica-", StringComparison.Ordinal) ||
               name.StartsWith("min-replicas-", StringComparison.Ordinal) => "replication is",
        "daemonize" => "daemonizing is",
        "supervised" => "supervised mode is",
        "syslog-enabled" or "syslog-ident" or "syslog-facility" => "syslog is",
        "socket-mark-id" => "socket marking is",
        _ => null,
    };

    private string? ParseValue(Param p, string[] args, out string canonical, out long number)
    {
        canonical = "";
        number = 0;
        if (p.Kind == Kind.Special) return p.Special!(this, args, out canonical, out number);
        string value = args.Length == 1 ? args[0] : string.Join(' ', args);
        switch (p.Kind)
        {
            case Kind.Bool:
                if (value.Equals("yes", StringComparison.OrdinalIgnoreCase)) number = 1;
                else if (!value.Equals("no", StringComparison.OrdinalIgnoreCase)) return "argument must be 'yes' or 'no'";
                canonical = number == 1 ? "yes" : "no";
                return p.Validate?.Invoke(canonical);

            case Kind.Enum:
                foreach (string choice in p.Choices!)
                {
                    if (!choice.Equals(value, StringComparison.OrdinalIgnoreCase)) continue;
                    canonical = p.ChoiceAliases != null && p.ChoiceAliases.TryGetValue(choice, out string? shown) ? shown : choice;
                    return p.Validate?.Invoke(canonical);
                }
                return "argument(s) must be one of the following: " + string.Join(", ", p.Choices);

            case Kind.Text:
                canonical = value;
                return p.Validate?.Invoke(value);

            default:
                return ParseNumber(p, value, out canonical, out number);
        }
    }

    private static string? ParseNumber(Param p, string value, out string canonical, out long number)
    {
        canonical = "";
        if (!TryParseNumberText(p, value, out number))
        {
            if ((p.Format & NumberFormat.Memory) != 0 && (p.Format & NumberFormat.Percent) != 0)
                return "argument must be a memory or percent value";
            if ((p.Format & NumberFormat.Memory) != 0) return "argument must be a memory value";
            if ((p.Format & NumberFormat.Octal) != 0) return "argument couldn't be parsed as an octal number";
            return "argument couldn't be parsed into an integer";
        }
        if (p.Unsigned)
        {
            if ((ulong)number > (ulong)p.Max || (ulong)number < (ulong)p.Min)
            {
                return (p.Format & NumberFormat.Octal) != 0
                    ? $"argument must be between {Convert.ToString(p.Min, 8)} and {Convert.ToString(p.Max, 8)} inclusive"
                    : $"argument must be between {(ulong)p.Min} and {(ulong)p.Max} inclusive";
            }
        }
        else if ((p.Format & NumberFormat.Percent) != 0 && number < 0)
        {
            if (number < p.Min) return $"percentage argument must be less or equal to {-p.Min}";
        }
        else if (number > p.Max || number < p.Min)
        {
            return $"argument must be between {p.Min} and {p.Max} inclusive";
        }
        if (p.Name == "hz") number = Math.Clamp(number, 1, 500); // Redis caps hz silently
        canonical = FormatNumber(p, number);
        return p.Validate?.Invoke(canonical);
    }

    private static bool TryParseNumberText(Param p, string value, out long number)
    {
        if ((p.Format & NumberFormat.Memory) != 0 && TryParseMemory(value, out ulong bytes))
        {
            number = (long)bytes;
            return true;
        }
        if ((p.Format & NumberFormat.Percent) != 0 && value.Length > 1 && value[^1] == '%' &&
            RedisNumbers.TryParseInt64(Encoding.Latin1.GetBytes(value[..^1]), out number) && number >= 0)
        {
            number = -number;
            return true;
        }
        if ((p.Format & NumberFormat.Octal) != 0)
        {
            try
            {
                number = value.Length == 0 ? 0 : Convert.ToInt64(value, 8);
                return true;
            }
            catch (Exception ex) when (ex is FormatException or OverflowException or ArgumentException)
            {
            }
        }
        number = 0;
        return p.Format == NumberFormat.Integer && RedisNumbers.TryParseInt64(Encoding.Latin1.GetBytes(value), out number);
    }

    /// <summary>
    /// Redis's memtoull: digits with an optional unit b, k (1000), kb (1024), m, mb, g, gb in any
    /// case. No sign, no fraction. Like strtoull, digits beyond the range saturate, and the unit
    /// multiplication then wraps, exactly as Redis does.
    /// </summary>
    public static bool TryParseMemory(string text, out ulong bytes)
    {
        bytes = 0;
        if (text.StartsWith('-')) return false;
        int digits = 0;
        while (digits < text.Length && text[digits] >= '0' && text[digits] <= '9') digits++;
        if (digits >= 128) return false;
        ulong mul;
        switch (text[digits..].ToLowerInvariant())
        {
            case "": case "b": mul = 1; break;
            case "k": mul = 1000; break;
            case "kb": mul = 1024; break;
            case "m": mul = 1000 * 1000; break;
            case "mb": mul = 1024 * 1024; break;
            case "g": mul = 1000UL * 1000 * 1000; break;
            case "gb": mul = 1024UL * 1024 * 1024; break;
            default: return false;
        }
        ulong value = 0;
        for (int i = 0; i < digits; i++)
        {
            ulong d = (ulong)(text[i] - '0');
            if (value > (ulong.MaxValue - d) / 10)
            {
                value = ulong.MaxValue;
                break;
            }
            value = value * 10 + d;
        }
        bytes = unchecked(value * mul);
        return true;
    }

    private static string FormatNumber(Param p, long number)
    {
        if ((p.Format & NumberFormat.Percent) != 0 && number < 0) return (-number).ToString() + "%";
        if ((p.Format & NumberFormat.Memory) != 0 || p.Unsigned) return ((ulong)number).ToString();
        if ((p.Format & NumberFormat.Octal) != 0) return Convert.ToString(number, 8);
        return number.ToString();
    }

    /// <summary>shutdown-on-sigint: how Ctrl+C stops the server (no flag: save when save points are set).</summary>
    public ShutdownFlags ShutdownOnSigint => (ShutdownFlags)Volatile.Read(ref _numbers[ShutdownOnSigintIndex]);

    /// <summary>shutdown-on-sigterm: how SIGTERM (docker stop, systemd, kill) stops the server.</summary>
    public ShutdownFlags ShutdownOnSigterm => (ShutdownFlags)Volatile.Read(ref _numbers[ShutdownOnSigtermIndex]);

    /// <summary>rdb-key-save-delay (hidden, for tests): microseconds the RDB writer waits after each key.</summary>
    public long RdbKeySaveDelay => Volatile.Read(ref _numbers[RdbKeySaveDelayIndex]);

    /// <summary>key-load-delay (hidden, for tests): microseconds loading waits after each key it reads.</summary>
    public long KeyLoadDelay => Volatile.Read(ref _numbers[KeyLoadDelayIndex]);

    /// <summary>aof-timestamp-enabled: the AOF gets a <c>#TS:unix-seconds</c> line when the second changes.</summary>
    public bool AofTimestampEnabled => Volatile.Read(ref _numbers[AofTimestampIndex]) != 0;

    /// <summary>no-appendfsync-on-rewrite: no AOF fsync while a rewrite or a background save runs.</summary>
    public bool NoAppendFsyncOnRewrite => Volatile.Read(ref _numbers[NoAppendFsyncOnRewriteIndex]) != 0;

    /// <summary>aof-disable-auto-gc (hidden): files a rewrite superseded stay, as history in the manifest.</summary>
    public bool AofDisableAutoGc => Volatile.Read(ref _numbers[AofDisableAutoGcIndex]) != 0;

    /// <summary>
    /// bind-source-addr: the local address a replica's connection to its master (and, in Redis, the
    /// cluster bus) is bound to; empty for any. MIGRATE does not use it, in Redis neither.
    /// </summary>
    public string BindSourceAddr => Volatile.Read(ref _values[BindSourceAddrIndex]);

    /// <summary>oom-score-adj ("no", "yes" for relative, "absolute") and oom-score-adj-values (master replica bgchild).</summary>
    public (string Mode, string Values) OomScoreAdj
        => (Volatile.Read(ref _values[OomScoreAdjIndex]), Volatile.Read(ref _values[OomScoreAdjValuesIndex]));

    // ------------------------------------------------------------------ special parameters

    private static readonly (string Name, ShutdownFlags Flag)[] ShutdownChoices =
        [("default", ShutdownFlags.None), ("save", ShutdownFlags.Save), ("nosave", ShutdownFlags.NoSave), ("now", ShutdownFlags.Now), ("force", ShutdownFlags.Force)];

    /// <summary>
    /// shutdown-on-sigint / shutdown-on-sigterm: one or more of default, save, nosave, now, force
    /// (flags, or-ed; default adds none). Printed as Redis prints multi-flag enums: the one name that
    /// is the whole value, else each flag's name in the table's order.
    /// </summary>
    private static string? ParseShutdownOnSignal(ConfigRegistry registry, string[] args, out string canonical, out long number)
    {
        canonical = "";
        number = 0;
        if (args.Length == 0) return ShutdownChoicesError();
        var flags = ShutdownFlags.None;
        foreach (string arg in args)
        {
            int i = Array.FindIndex(ShutdownChoices, c => c.Name.Equals(arg, StringComparison.OrdinalIgnoreCase));
            if (i < 0) return ShutdownChoicesError();
            flags |= ShutdownChoices[i].Flag;
        }
        if ((flags & ShutdownFlags.Save) != 0 && (flags & ShutdownFlags.NoSave) != 0)
            return "shutdown options SAVE and NOSAVE can't be used simultaneously";
        number = (long)flags;
        int whole = Array.FindIndex(ShutdownChoices, c => c.Flag == flags);
        canonical = whole >= 0
            ? ShutdownChoices[whole].Name
            : string.Join(' ', ShutdownChoices.Where(c => c.Flag != 0 && (flags & c.Flag) != 0).Select(c => c.Name));
        return null;
    }

    private static string ShutdownChoicesError()
        => "argument(s) must be one of the following: " + string.Join(", ", ShutdownChoices.Select(c => c.Name));


    /// <summary>save "seconds changes [seconds changes ...]": seconds ≥ 1, changes ≥ 0; "" clears.</summary>
    private static string? ParseSave(ConfigRegistry registry, string[] args, out string canonical, out long number)
    {
        canonical = "";
        number = 0;
        if (args.Length == 1 && args[0].Length == 0) args = [];
        if ((args.Length & 1) != 0) return "Invalid save parameters";
        var parts = new long[args.Length];
        for (int i = 0; i < args.Length; i++)
        {
            if (!TryStrtoll(args[i], out parts[i]) || (i % 2 == 0 ? parts[i] < 1 : parts[i] < 0))
                return "Invalid save parameters";
        }
        canonical = string.Join(' ', parts);
        return null;
    }

    /// <summary>strtoll with the whole text consumed: optional leading spaces and sign; "" is 0.</summary>
    private static bool TryStrtoll(string text, out long value)
    {
        value = 0;
        string t = text.TrimStart(' ', '\t', '\n', '\r', '\f', '\v');
        if (t.Length == 0) return true;
        bool negative = t[0] == '-';
        int i = t[0] is '-' or '+' ? 1 : 0;
        if (i == t.Length) return text.Trim().Length == 0;
        for (; i < t.Length; i++)
        {
            if (t[i] < '0' || t[i] > '9') return false;
            value = value > (long.MaxValue - 9) / 10 ? long.MaxValue : value * 10 + (t[i] - '0');
        }
        if (negative) value = -value;
        return true;
    }

    private static readonly string[] BufferClasses = ["normal", "slave", "pubsub"];

    /// <summary>
    /// client-output-buffer-limit "class hard soft seconds [...]": classes normal, replica (slave),
    /// pubsub; sizes are memory values. Classes not named keep their limits.
    /// </summary>
    private static string? ParseOutputBufferLimits(ConfigRegistry registry, string[] args, out string canonical, out long number)
    {
        canonical = "";
        number = 0;
        if (args.Length % 4 != 0) return "Wrong number of arguments in buffer limit configuration.";
        // Start from the current limits (or the defaults while the registry is being built).
        string current = registry._values[OutputBufferLimitIndex] ??
                         "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60";
        var limits = current.Split(' ');
        for (int i = 0; i < args.Length; i += 4)
        {
            string cls = args[i].ToLowerInvariant();
            int index = cls switch { "normal" => 0, "slave" or "replica" => 1, "pubsub" => 2, _ => -1 };
            if (index < 0) return "Invalid client class specified in buffer limit configuration.";
            if (!TryParseMemory(args[i + 1], out ulong hard) || !TryParseMemory(args[i + 2], out ulong soft) ||
                !TryStrtoll(args[i + 3], out long seconds) || seconds < 0)
                return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
            limits[index * 4 + 1] = hard.ToString();
            limits[index * 4 + 2] = soft.ToString();
            limits[index * 4 + 3] = ((int)seconds).ToString();
        }
        for (int c = 0; c < 3; c++) limits[c * 4] = BufferClasses[c];
        canonical = string.Join(' ', limits);
        return null;
    }

    /// <summary>oom-score-adj-values: three integers in -2000..2000.</summary>
    private static string? ParseOomScoreAdjValues(ConfigRegistry registry, string[] args, out string canonical, out long number)
    {
        canonical = "";
        number = 0;
        if (args.Length != 3) return "wrong number of arguments";
        var values = new long[3];
        for (int i = 0; i < 3; i++)
        {
            if (!TryStrtoll(args[i], out values[i]) || values[i] < -2000 || values[i] > 2000)
                return "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
        }
        canonical = string.Join(' ', values);
        return null;
    }

    /// <summary>
    /// latency-tracking-info-percentiles: numbers between 0 and 100, or one empty argument for none;
    /// read back as C's "%f" with the trailing zeros trimmed ("99.9", "50").
    /// </summary>
    private static string? ParseLatencyPercentiles(ConfigRegistry registry, string[] args, out string canonical, out long number)
    {
        canonical = "";
        number = 0;
        if (args.Length == 1 && args[0].Length == 0) return null;
        var shown = new string[args.Length];
        for (int i = 0; i < args.Length; i++)
        {
            if (!RedisNumbers.TryParseDouble(Encoding.Latin1.GetBytes(args[i]), out double p) || double.IsNaN(p))
                return "Invalid latency-tracking-info-percentiles parameters";
            if (p > 100.0 || p < 0.0) return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
            shown[i] = FormatPercentile(p);
        }
        canonical = string.Join(' ', shown);
        return null;
    }

    /// <summary>A percentile as Redis prints it: six decimals, trailing zeros (and a bare point) trimmed.</summary>
    internal static string FormatPercentile(double p)
        => p.ToString("F6", System.Globalization.CultureInfo.InvariantCulture).TrimEnd('0').TrimEnd('.');

    private static double[] PercentilesOf(string canonical)
        => canonical.Length == 0 ? [] : Array.ConvertAll(canonical.Split(' '), t => double.Parse(t, System.Globalization.CultureInfo.InvariantCulture));

    /// <summary>Redis's keyspace notification classes, as the bits it uses internally.</summary>
    internal static class KeyspaceEvents
    {
        public const int Keyspace = 1 << 0;  // K
        public const int Keyevent = 1 << 1;  // E
        public const int Generic = 1 << 2;   // g
        public const int String = 1 << 3;    // $
        public const int List = 1 << 4;      // l
        public const int Set = 1 << 5;       // s
        public const int Hash = 1 << 6;      // h
        public const int ZSet = 1 << 7;      // z
        public const int Expired = 1 << 8;   // x
        public const int Evicted = 1 << 9;   // e
        public const int Stream = 1 << 10;   // t
        public const int KeyMiss = 1 << 11;  // m (not part of A)
        public const int Module = 1 << 13;   // d
        public const int New = 1 << 14;      // n (not part of A)
        // Redis 8.2's classes (not part of A either): a write that replaced an existing key's value,
        // and one that replaced it with a value of another type.
        public const int Overwritten = 1 << 15;  // o (not part of A)
        public const int TypeChanged = 1 << 16;  // c (not part of A)
        public const int All = Generic | String | List | Set | Hash | ZSet | Expired | Evicted | Stream | Module;
    }

    private static string? ParseNotifyKeyspaceEvents(ConfigRegistry registry, string[] args, out string canonical, out long number)
    {
        canonical = "";
        number = 0;
        string text = args.Length == 1 ? args[0] : string.Join(' ', args);
        int flags = 0;
        foreach (char c in text)
        {
            int bit = c switch
            {
                'A' => KeyspaceEvents.All,
                'g' => KeyspaceEvents.Generic,
                '$' => KeyspaceEvents.String,
                'l' => KeyspaceEvents.List,
                's' => KeyspaceEvents.Set,
                'h' => KeyspaceEvents.Hash,
                'z' => KeyspaceEvents.ZSet,
                'x' => KeyspaceEvents.Expired,
                'e' => KeyspaceEvents.Evicted,
                'K' => KeyspaceEvents.Keyspace,
                'E' => KeyspaceEvents.Keyevent,
                't' => KeyspaceEvents.Stream,
                'm' => KeyspaceEvents.KeyMiss,
                'd' => KeyspaceEvents.Module,
                'n' => KeyspaceEvents.New,
                'o' => KeyspaceEvents.Overwritten,
                'c' => KeyspaceEvents.TypeChanged,
                _ => 0,
            };
            // Redis 8.2's text still names the 7.x classes only (o and c are accepted all the same).
            if (bit == 0) return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
            flags |= bit;
        }
        canonical = NotifyFlagsToString(flags);
        number = flags;
        return null;
    }

    private static string NotifyFlagsToString(int flags)
    {
        var sb = new StringBuilder();
        if ((flags & KeyspaceEvents.All) == KeyspaceEvents.All)
        {
            sb.Append('A');
        }
        else
        {
            if ((flags & KeyspaceEvents.Generic) != 0) sb.Append('g');
            if ((flags & KeyspaceEvents.String) != 0) sb.Append('$');
            if ((flags & KeyspaceEvents.List) != 0) sb.Append('l');
            if ((flags & KeyspaceEvents.Set) != 0) sb.Append('s');
            if ((flags & KeyspaceEvents.Hash) != 0) sb.Append('h');
            if ((flags & KeyspaceEvents.ZSet) != 0) sb.Append('z');
            if ((flags & KeyspaceEvents.Expired) != 0) sb.Append('x');
            if ((flags & KeyspaceEvents.Evicted) != 0) sb.Append('e');
            if ((flags & KeyspaceEvents.Stream) != 0) sb.Append('t');
            if ((flags & KeyspaceEvents.Module) != 0) sb.Append('d');
            if ((flags & KeyspaceEvents.New) != 0) sb.Append('n');
            // As Redis 8.2 renders them: after n, and (like n) not shown once A is.
            if ((flags & KeyspaceEvents.Overwritten) != 0) sb.Append('o');
            if ((flags & KeyspaceEvents.TypeChanged) != 0) sb.Append('c');
        }
        if ((flags & KeyspaceEvents.Keyspace) != 0) sb.Append('K');
        if ((flags & KeyspaceEvents.Keyevent) != 0) sb.Append('E');
        if ((flags & KeyspaceEvents.KeyMiss) != 0) sb.Append('m');
        return sb.ToString();
    }

    /// <summary>dir: must be an existing directory; setting it changes the working directory, as in Redis.</summary>
    private static string? ParseDir(ConfigRegistry registry, string[] args, out string canonical, out long number)
    {
        canonical = "";
        number = 0;
        if (args.Length != 1) return "wrong number of arguments";
        if (!Directory.Exists(args[0])) return "No such file or directory";
        canonical = args[0];
        return null;
    }

    /// <summary>bind (read only at run time here): the addresses given, space separated.</summary>
    private static string? ParseBind(ConfigRegistry registry, string[] args, out string canonical, out long number)
    {
        number = 0;
        canonical = string.Join(' ', args);
        return args.Length > 16 ? "Too many bind addresses specified." : null;
    }

    /// <summary>
    /// replicaof host port, or "no one" (stored as empty): Redis's setConfigReplicaOfOption, whose
    /// port is strtol'd (digits only, 0 to 65535). Applied when the server starts.
    /// </summary>
    private static string? ParseReplicaOf(ConfigRegistry registry, string[] args, out string canonical, out long number)
    {
        number = 0;
        canonical = "";
        if (args.Length == 0) return null; // the default: not a replica
        if (args.Length != 2) return "wrong number of arguments";
        if (args[0].Equals("no", StringComparison.OrdinalIgnoreCase) && args[1].Equals("one", StringComparison.OrdinalIgnoreCase)) return null;
        if (!Replication.ReplicaRole.TryParseConfigPort(args[1], out int port)) return "Invalid master port";
        canonical = $"{args[0]} {port}";
        return null;
    }

    /// <summary>
    /// proc-title-template: <c>{name}</c> variables Redis knows (<c>{{</c> is a brace), and not
    /// empty once expanded with an empty title. The process title itself is not changed here.
    /// </summary>
    private static string? ValidProcTitleTemplate(string template)
    {
        const string Invalid = "template format is invalid or contains unknown variables";
        var expanded = new StringBuilder();
        for (int i = 0; i < template.Length; i++)
        {
            if (template[i] != '{')
            {
                expanded.Append(template[i]);
                continue;
            }
            if (i + 1 >= template.Length) return Invalid;
            if (template[i + 1] == '{')
            {
                expanded.Append('{');
                i++;
                continue;
            }
            int end = template.IndexOf('}', i + 1);
            if (end < 0) return Invalid;
            switch (template[(i + 1)..end])
            {
                case "title": case "server-mode": case "unixsocket": break;
                case "listen-addr": case "config-file": case "port": case "tls-port": expanded.Append('x'); break;
                default: return Invalid;
            }
            i = end;
        }
        return expanded.ToString().Trim(' ').Length == 0 ? Invalid : null;
    }

    private static string? ValidLocale(string name) => CollationLocale.IsValid(name) ? null : "Invalid locale name";

    private static string? BaseName(string what, string value)
        => value.Contains('/') || value.Contains('\\') ? $"{what} can't be a path, just a filename" : null;

    // ------------------------------------------------------------------ the table

    private const long IntMax = int.MaxValue, IntMin = int.MinValue, UIntMax = uint.MaxValue;
    private const long LongMax = long.MaxValue, ULongLongMax = -1; // ULLONG_MAX as its bit pattern

    private static Param B(string name, bool value, ParamFlags flags = ParamFlags.None, string? alias = null,
        Func<string, string?>? validate = null)
        => new() { Name = name, Alias = alias, Kind = Kind.Bool, Flags = flags, Default = value ? "yes" : "no", Validate = validate };

    private static Param N(string name, long min, long max, string value, ParamFlags flags = ParamFlags.None,
        string? alias = null, NumberFormat format = NumberFormat.Integer, bool unsigned = false)
        => new()
        {
            Name = name, Alias = alias, Kind = Kind.Number, Flags = flags, Min = min, Max = max, Default = value,
            Format = format, Unsigned = unsigned,
        };

    /// <summary>A memory-sized number (accepts "1gb"); <paramref name="unsigned"/> for size_t and unsigned long long.</summary>
    private static Param Applying(Param p, Action<ConfigRegistry, string, long> apply)
    {
        p.Apply = apply;
        return p;
    }

    private static Param M(string name, long min, long max, string value, bool unsigned = false, string? alias = null)
        => N(name, min, max, value, alias: alias, format: NumberFormat.Memory, unsigned: unsigned);

    /// <summary>A cluster parameter Redis applies to myself at once (clusterUpdateMyself*): the node's addresses and flags.</summary>
    private static void RefreshClusterMyself(ConfigRegistry r, string value, long number) => r._server?.Cluster?.RefreshMyself();

    private static Param WithApply(Param p, Action<ConfigRegistry, string, long> apply)
    {
        p.Apply = apply;
        return p;
    }

    /// <summary>Redis 7.2's isValidAnnouncedHostname.</summary>
    private static string? ValidAnnouncedHostname(string value)
    {
        if (value.Length >= 256) return "Hostnames must be less than 256 characters";
        foreach (char c in value)
            if (!char.IsAsciiLetterOrDigit(c) && c != '-' && c != '.') return "Hostnames may only contain alphanumeric characters, hyphens or dots";
        return null;
    }

    /// <summary>Redis 7.2's isValidAnnouncedNodename (its isValidAuxString).</summary>
    private static string? ValidAnnouncedNodename(string value)
    {
        foreach (char c in value)
            if (!char.IsAsciiLetterOrDigit(c) && "!#$%&()*+:;<>?@[]^{|}~".Contains(c)) return "Announced human node name contained invalid character";
        return null;
    }

    private static Param E(string name, string value, string[] choices, ParamFlags flags = ParamFlags.None)
        => new() { Name = name, Kind = Kind.Enum, Flags = flags, Default = value, Choices = choices };

    private static Param T(string name, string value = "", ParamFlags flags = ParamFlags.None, string? alias = null,
        Func<string, string?>? validate = null)
        => new() { Name = name, Alias = alias, Kind = Kind.Text, Flags = flags, Default = value, Validate = validate };

    private static Param S(string name, string value, SpecialParser parser, ParamFlags flags = ParamFlags.None, string? alias = null)
        => new() { Name = name, Alias = alias, Kind = Kind.Special, Flags = flags, Default = value, Special = parser };

    private static Param[] Build()
    {
        const ParamFlags Imm = ParamFlags.Immutable;
        const ParamFlags Multi = ParamFlags.MultiArg;
        const ParamFlags Tls = ParamFlags.Tls;
        string[] protectedAction = ["no", "yes", "local"];
        Param[] table =
        [
            // --- booleans
            B("rdbchecksum", true, Imm),
            B("daemonize", false, Imm),
            B("io-threads-do-reads", false, Imm),
            B("always-show-logo", false, Imm),
            B("protected-mode", true),
            B("rdbcompression", true),
            B("rdb-del-sync-files", false),
            B("activerehashing", true),
            B("stop-writes-on-bgsave-error", true),
            B("set-proc-title", true, Imm),
            new Param { Name = "dynamic-hz", Kind = Kind.Bool, Default = "yes", Apply = (r, _, _) => r._server?.ApplyCronTuning() },
            B("lazyfree-lazy-eviction", false),
            B("lazyfree-lazy-expire", false),
            B("lazyfree-lazy-server-del", false),
            B("lazyfree-lazy-user-del", false),
            B("lazyfree-lazy-user-flush", false),
            B("repl-disable-tcp-nodelay", false),
            B("repl-diskless-sync", true),
            B("aof-rewrite-incremental-fsync", true),
            B("no-appendfsync-on-rewrite", false),
            B("cluster-require-full-coverage", true),
            B("rdb-save-incremental-fsync", true),
            B("aof-load-truncated", true),
            B("aof-use-rdb-preamble", true),
            B("aof-timestamp-enabled", false),
            WithApply(B("cluster-replica-no-failover", false, alias: "cluster-slave-no-failover"), RefreshClusterMyself),
            B("replica-lazy-flush", false, alias: "slave-lazy-flush"),
            B("replica-serve-stale-data", true, alias: "slave-serve-stale-data"),
            B("replica-read-only", true, alias: "slave-read-only"),
            B("replica-ignore-maxmemory", true, alias: "slave-ignore-maxmemory"),
            B("jemalloc-bg-thread", true),
            B("activedefrag", false, validate: v => v == "yes"
                ? "Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution"
                : null),
            B("syslog-enabled", false, Imm),
            B("cluster-enabled", false, Imm),
            B("appendonly", false),
            B("cluster-allow-reads-when-down", false),
            B("cluster-allow-pubsubshard-when-down", true),
            B("crash-log-enabled", true),
            B("crash-memcheck-enabled", true),
            B("disable-thp", true, Imm),
            B("cluster-allow-replica-migration", true),
            B("replica-announced", true),
            B("latency-tracking", true),
            B("replica-ignore-disk-write-errors", false),
            // Redis 7.4: keeps keys and values out of the log. Kept without effect: our log lines name
            // clients and sizes, never keys or values.
            B("hide-user-data-from-log", false),
            // Redis's debugging parameters (HIDDEN_CONFIG), which its own test suite sets. use-exit-on-panic
            // and watchdog-period are kept without effect: there is no panic handler or SIGALRM watchdog here.
            B("use-exit-on-panic", false, ParamFlags.Hidden),
            new Param
            {
                Name = "aof-disable-auto-gc", Kind = Kind.Bool, Flags = ParamFlags.Hidden, Default = "no",
                Apply = (r, value, _) => { if (value == "no") r._server?.AofFiles?.DeleteHistory(); },
            },

            // --- strings
            T("aclfile", flags: Imm),
            T("unixsocket", flags: Imm),
            T("pidfile", flags: Imm),
            T("replica-announce-ip", alias: "slave-announce-ip"),
            T("masteruser"),
            T("masterauth"),
            new Param
            {
                // Redis 7 keeps requirepass as the text last set and applies it as the default user's
                // only password (empty: nopass); ACL SETUSER default does not change what it reads.
                Name = "requirepass", Kind = Kind.Text,
                Apply = (r, value, _) => r._server?.Acl.SetRequirePass(value),
            },
            WithApply(T("cluster-announce-ip"), RefreshClusterMyself),
            T("cluster-config-file", "nodes.conf", Imm),
            WithApply(T("cluster-announce-hostname", validate: ValidAnnouncedHostname), RefreshClusterMyself),
            WithApply(T("cluster-announce-human-nodename", validate: ValidAnnouncedNodename), RefreshClusterMyself),
            T("syslog-ident", "redis", Imm),
            T("dbfilename", "dump.rdb", ParamFlags.Protected, validate: v => BaseName("dbfilename", v)),
            T("appendfilename", "appendonly.aof", Imm,
                validate: v => v.Length == 0 ? "appendfilename can't be empty" : BaseName("appendfilename", v)),
            T("appenddirname", "appendonlydir", Imm,
                validate: v => v.Length == 0 ? "appenddirname can't be empty"
                    : v.Contains('/') || v.Contains('\\') ? "appenddirname can't be a path, just a dirname" : null),
            T("server_cpulist", flags: Imm),
            T("bio_cpulist", flags: Imm),
            T("aof_rewrite_cpulist", flags: Imm),
            T("bgsave_cpulist", flags: Imm),
            T("ignore-warnings"),
            T("bind-source-addr"),
            T("logfile", flags: Imm),
            T("locale-collate", validate: ValidLocale),
            T("proc-title-template", "{title} {listen-addr} {server-mode}", validate: ValidProcTitleTemplate),

            // --- enums
            E("supervised", "no", ["upstart", "systemd", "auto", "no"], Imm),
            E("syslog-facility", "local0", ["user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"], Imm),
            E("repl-diskless-load", "disabled", ["disabled", "on-empty-db", "swapdb"]),
            E("loglevel", "notice", ["debug", "verbose", "notice", "warning", "nothing"]),
            new Param
            {
                Name = "maxmemory-policy", Kind = Kind.Enum, Default = "noeviction",
                Choices = ["volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"],
                Apply = (r, policy, _) => r._server?.ApplyEvictionPolicy(policy),
            },
            E("appendfsync", "everysec", ["everysec", "always", "no"]),
            new Param
            {
                Name = "oom-score-adj", Kind = Kind.Enum, Default = "no", Choices = ["no", "yes", "relative", "absolute"],
                ChoiceAliases = new() { ["relative"] = "yes" },
            },
            E("acl-pubsub-default", "resetchannels", ["allchannels", "resetchannels"]),
            E("sanitize-dump-payload", "no", ["no", "yes", "clients"]),
            E("enable-protected-configs", "no", protectedAction, Imm),
            E("enable-debug-command", "no", protectedAction, Imm),
            E("enable-module-command", "no", protectedAction, Imm),
            E("cluster-preferred-endpoint-type", "ip", ["ip", "hostname", "unknown-endpoint"]),
            E("propagation-error-behavior", "ignore", ["ignore", "panic", "panic-on-replicas"]),

            // --- integers (int / unsigned int / long / long long)
            new Param
            {
                Name = "databases", Kind = Kind.Number, Flags = Imm, Min = 1, Max = IntMax, Default = "16",
                Getter = r => r._server?.Options.Databases.ToString(),
            },
            new Param
            {
                Name = "port", Kind = Kind.Number, Flags = ParamFlags.Listen, Min = 0, Max = 65535, Default = "6379",
                Getter = r => r._server?.Port.ToString(),
            },
            N("io-threads", 1, 128, "1", Imm),
            N("auto-aof-rewrite-percentage", 0, IntMax, "100"),
            N("cluster-replica-validity-factor", 0, IntMax, "10", alias: "cluster-slave-validity-factor"),
            N("list-max-listpack-size", IntMin, IntMax, "-2", alias: "list-max-ziplist-size"),
            N("tcp-keepalive", 0, IntMax, "300"),
            N("cluster-migration-barrier", 0, IntMax, "1"),
            N("active-defrag-cycle-min", 1, 99, "1"),
            N("active-defrag-cycle-max", 1, 99, "25"),
            N("active-defrag-threshold-lower", 0, 1000, "10"),
            N("active-defrag-threshold-upper", 0, 1000, "100"),
            new Param
            {
                Name = "lfu-log-factor", Kind = Kind.Number, Min = 0, Max = IntMax, Default = "10",
                Apply = (r, _, n) => { if (r._server != null) r._server.KeyAccess.LogFactor = (int)n; },
            },
            new Param
            {
                Name = "lfu-decay-time", Kind = Kind.Number, Min = 0, Max = IntMax, Default = "1",
                Apply = (r, _, n) => { if (r._server != null) r._server.KeyAccess.DecayMinutes = (int)n; },
            },
            N("replica-priority", 0, IntMax, "100", alias: "slave-priority"),
            N("repl-diskless-sync-delay", 0, IntMax, "5"),
            N("maxmemory-samples", 1, IntMax, "5"),
            N("maxmemory-eviction-tenacity", 0, 100, "10"),
            N("timeout", 0, IntMax, "0"),
            N("replica-announce-port", 0, 65535, "0", alias: "slave-announce-port"),
            N("tcp-backlog", 0, IntMax, "511", Imm),
            N("cluster-port", 0, 65535, "0", Imm),
            WithApply(N("cluster-announce-bus-port", 0, 65535, "0"), RefreshClusterMyself),
            WithApply(N("cluster-announce-port", 0, 65535, "0"), RefreshClusterMyself),
            WithApply(N("cluster-announce-tls-port", 0, 65535, "0"), RefreshClusterMyself),
            N("repl-timeout", 1, IntMax, "60"),
            N("repl-ping-replica-period", 1, IntMax, "10", alias: "repl-ping-slave-period"),
            N("list-compress-depth", 0, IntMax, "0"),
            new Param
            {
                Name = "active-expire-effort", Kind = Kind.Number, Min = 1, Max = 10, Default = "1",
                Apply = (r, _, _) => r._server?.ApplyCronTuning(),
            },
            new Param
            {
                Name = "hz", Kind = Kind.Number, Min = 0, Max = IntMax, Default = "10",
                Apply = (r, _, _) => r._server?.ApplyCronTuning(),
            },
            N("min-replicas-to-write", 0, IntMax, "0", alias: "min-slaves-to-write"),
            N("min-replicas-max-lag", 0, IntMax, "10", alias: "min-slaves-max-lag"),
            N("shutdown-timeout", 0, IntMax, "10"),
            N("rdb-key-save-delay", IntMin, IntMax, "0", ParamFlags.Hidden),
            N("key-load-delay", IntMin, IntMax, "0", ParamFlags.Hidden),
            new Param
            {
                // No watchdog here, but the value reads back as Redis's applyWatchdogPeriod leaves it:
                // at least two cron periods.
                Name = "watchdog-period", Kind = Kind.Number, Flags = ParamFlags.Hidden, Min = 0, Max = IntMax, Default = "0",
                Apply = (r, _, n) =>
                {
                    long min = 1000 / Math.Max(r.Hz, 1) * 2;
                    if (n <= 0 || n >= min) return;
                    int i = IndexOf("watchdog-period");
                    Volatile.Write(ref r._numbers[i], min);
                    Volatile.Write(ref r._values[i], min.ToString(System.Globalization.CultureInfo.InvariantCulture));
                },
            },
            N("loading-process-events-interval-bytes", 1024, IntMax, "2097152", ParamFlags.Hidden),
            N("repl-diskless-sync-max-replicas", 0, IntMax, "0"),
            new Param
            {
                Name = "maxclients", Kind = Kind.Number, Min = 1, Max = UIntMax, Unsigned = true, Default = "10000",
                Getter = r => r._server?.Options.MaxClients.ToString(),
                Apply = (r, _, n) => { if (r._server != null) r._server.Options.MaxClients = n; },
                Check = (r, n) => r._server?.CheckMaxClients(n),
            },
            N("unixsocketperm", 0, Convert.ToInt64("777", 8), "0", Imm, format: NumberFormat.Octal, unsigned: true),
            N("socket-mark-id", 0, UIntMax, "0", Imm, unsigned: true),
            N("active-defrag-max-scan-fields", 1, LongMax, "1000"),
            N("slowlog-max-len", 0, LongMax, "128"),
            N("acllog-max-len", 0, LongMax, "128"),
            N("busy-reply-threshold", 0, LongMax, "5000", alias: "lua-time-limit"),
            N("cluster-node-timeout", 0, LongMax, "15000"),
            N("slowlog-log-slower-than", -1, LongMax, "10000"),
            N("latency-monitor-threshold", 0, LongMax, "0"),
            M("proto-max-bulk-len", 1024 * 1024, LongMax, "536870912"),
            N("stream-node-max-entries", 0, LongMax, "100"),
            // CONFIG SET resizes the backlog at once (trimming it when it shrinks), as Redis's
            // resizeReplicationBacklog, which also raises it to 16 KB (CONFIG GET then says 16384).
            Applying(M("repl-backlog-size", 1, LongMax, "1048576"), (r, _, n) =>
            {
                if (n < Replication.ReplicationBacklog.MinSize)
                {
                    n = Replication.ReplicationBacklog.MinSize;
                    Volatile.Write(ref r._values[ReplBacklogSizeIndex], n.ToString(System.Globalization.CultureInfo.InvariantCulture));
                    Volatile.Write(ref r._numbers[ReplBacklogSizeIndex], n);
                }
                if (r._server is { Replication.Backlog: { } b }) b.Size = n;
            }),
            new Param
            {
                Name = "maxmemory", Kind = Kind.Number, Min = 0, Max = ULongLongMax, Default = "0",
                Format = NumberFormat.Memory, Unsigned = true,
                Apply = (r, _, n) => r._server?.MaxMemoryChanged((ulong)n),
            },
            M("cluster-link-sendbuf-limit", 0, ULongLongMax, "0", unsigned: true),
            N("hash-max-listpack-entries", 0, LongMax, "512", alias: "hash-max-ziplist-entries", unsigned: true),
            N("set-max-intset-entries", 0, LongMax, "512", unsigned: true),
            N("set-max-listpack-entries", 0, LongMax, "128", unsigned: true),
            N("set-max-listpack-value", 0, LongMax, "64", unsigned: true),
            N("zset-max-listpack-entries", 0, LongMax, "128", alias: "zset-max-ziplist-entries", unsigned: true),
            M("active-defrag-ignore-bytes", 1, LongMax, "104857600", unsigned: true),
            M("hash-max-listpack-value", 0, LongMax, "64", unsigned: true, alias: "hash-max-ziplist-value"),
            M("stream-node-max-bytes", 0, LongMax, "4096", unsigned: true),
            M("zset-max-listpack-value", 0, LongMax, "64", unsigned: true, alias: "zset-max-ziplist-value"),
            M("hll-sparse-max-bytes", 0, LongMax, "3000", unsigned: true),
            N("tracking-table-max-keys", 0, LongMax, "1000000", unsigned: true),
            // Redis 7.4: how many connections one event-loop cycle accepts (plain, TLS). Kept without
            // effect: the listener accepts on its own thread and hands connections to the loops.
            N("max-new-connections-per-cycle", 1, 1000, "10", unsigned: true),
            N("max-new-tls-connections-per-cycle", 1, 1000, "1", unsigned: true),
            M("client-query-buffer-limit", 1024 * 1024, LongMax, "1073741824", unsigned: true),
            N("maxmemory-clients", -100, LongMax, "0", format: NumberFormat.Memory | NumberFormat.Percent),
            N("repl-backlog-ttl", 0, LongMax, "3600"),
            M("auto-aof-rewrite-min-size", 0, LongMax, "67108864"),

            // --- special
            new Param
            {
                Name = "dir", Kind = Kind.Special, Flags = ParamFlags.Protected, Default = ".", Special = ParseDir,
                Getter = r => r.Dir,
                Apply = (r, dir, _) => { if (dir.Length > 0) Volatile.Write(ref r._dir, Path.GetFullPath(dir)); },
            },
            S("save", "3600 1 300 100 60 10000", ParseSave, Multi),
            S("client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
                ParseOutputBufferLimits, Multi),
            S("oom-score-adj-values", "0 200 800", ParseOomScoreAdjValues, Multi),
            S("notify-keyspace-events", "", ParseNotifyKeyspaceEvents),
            S("shutdown-on-sigterm", "default", ParseShutdownOnSignal, Multi),
            S("shutdown-on-sigint", "default", ParseShutdownOnSignal, Multi),
            new Param
            {
                Name = "bind", Kind = Kind.Special, Flags = ParamFlags.Listen | Multi, Default = "* -::*", Special = ParseBind,
                Getter = r => r._server == null ? null : string.Join(' ', r._server.Options.Bind),
            },
            new Param
            {
                Name = "replicaof", Alias = "slaveof", Kind = Kind.Special, Flags = Imm | Multi, Default = "", Special = ParseReplicaOf,
                // What REPLICAOF made of it since: CONFIG GET and CONFIG REWRITE show the master now followed.
                Getter = r => r._server?.Replica.ConfigValue,
            },

            // --- TLS (Network/TlsContext.cs says which have no effect under .NET)
            N("tls-port", 0, 65535, "0", Tls),
            N("tls-session-cache-size", 0, IntMax, "20480", Tls),
            N("tls-session-cache-timeout", 0, IntMax, "300", Tls),
            B("tls-cluster", false, Tls),
            B("tls-replication", false, Tls),
            E("tls-auth-clients", "yes", ["no", "yes", "optional"]),
            B("tls-prefer-server-ciphers", false, Tls),
            B("tls-session-caching", true, Tls),
            T("tls-cert-file", flags: Tls),
            T("tls-key-file", flags: Tls),
            T("tls-key-file-pass", flags: Tls),
            T("tls-client-cert-file", flags: Tls),
            T("tls-client-key-file", flags: Tls),
            T("tls-client-key-file-pass", flags: Tls),
            T("tls-dh-params-file", flags: Tls),
            T("tls-ca-cert-file", flags: Tls),
            T("tls-ca-cert-dir", flags: Tls),
            T("tls-protocols", flags: Tls),
            T("tls-ciphers", flags: Tls),
            T("tls-ciphersuites", flags: Tls),
            new Param
            {
                Name = "latency-tracking-info-percentiles", Kind = Kind.Special, Flags = Multi, Default = "50 99 99.9",
                Special = ParseLatencyPercentiles,
                Apply = (r, canonical, _) => Volatile.Write(ref r._percentiles, PercentilesOf(canonical)),
            },
        ];
        for (int i = 0; i < table.Length; i++) table[i].Index = i;
        return table;
    }

    private static Dictionary<string, (Param, string)> Index()
    {
        var map = new Dictionary<string, (Param, string)>(StringComparer.OrdinalIgnoreCase);
        foreach (var p in Params)
        {
            map.Add(p.Name, (p, p.Name));
            if (p.Alias != null) map.Add(p.Alias, (p, p.Alias));
        }
        return map;
    }

    private static int IndexOf(string name)
    {
        foreach (var p in Params)
            if (p.Name == name) return p.Index;
        throw new InvalidOperationException("no config parameter " + name);
    }
}
