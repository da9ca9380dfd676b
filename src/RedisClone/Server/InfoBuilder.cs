using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using RedisClone.Commands;

namespace RedisClone.Server;

/// <summary>
/// Builds INFO's text: "# Section" blocks of "key:value" lines separated by blank lines, sections in
/// Redis 7.2's order and fields in its order within each section.
/// </summary>
/// <remarks>
/// <para>
/// Every value is true for this server. Counters come from <see cref="ServerStats"/>, the command
/// table and each shard's <see cref="Storage.ShardStore"/>, read without the shards' gates (a figure
/// may be a moment stale). used_memory is the accounting of the data (keys and values, the key
/// tables, clients' buffers: see Storage/MemoryMeter); the allocator_* fields are the .NET GC's
/// view and used_memory_rss the process's resident set. Fields about machinery this server does not have (replication links,
/// forks, Lua, defrag, client tracking) report the idle state Redis reports when that machinery is
/// idle, which is the truth here.
/// </para>
/// Sections: server, clients, memory, persistence, stats, replication, cpu, modules, commandstats,
/// errorstats, latencystats, cluster, keyspace. No argument (or "default") gives Redis's default set;
/// "all" and "everything" give every section; names are case-insensitive and unknown ones are ignored.
/// </remarks>
internal static class InfoBuilder
{
    private static readonly string[] DefaultSections =
        ["server", "clients", "memory", "persistence", "stats", "replication", "cpu", "module_list", "errorstats", "cluster", "keyspace"];

    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>The INFO text for the sections named in <paramref name="args"/> (INFO's arguments).</summary>
    public static string Build(RedisServer server, IReadOnlyList<string> args, long nowMs)
    {
        var wanted = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        bool all = false, everything = false;
        if (args.Count == 0) wanted.UnionWith(DefaultSections);
        foreach (string a in args)
        {
            if (a.Equals("default", StringComparison.OrdinalIgnoreCase)) wanted.UnionWith(DefaultSections);
            else if (a.Equals("all", StringComparison.OrdinalIgnoreCase)) all = true;
            else if (a.Equals("everything", StringComparison.OrdinalIgnoreCase)) all = everything = true;
            else wanted.Add(a);
        }
        bool Has(string name) => all || wanted.Contains(name);

        var runtime = RuntimeStats.For(server);
        var sb = new StringBuilder(4096);
        int sections = 0;
        void Header(string title)
        {
            if (sections++ > 0) sb.Append("\r\n");
            sb.Append("# ").Append(title).Append("\r\n");
        }

        if (Has("server"))
        {
            Header("Server");
            AppendServer(sb, server, nowMs);
        }
        if (Has("clients"))
        {
            Header("Clients");
            AppendClients(sb, server);
        }
        if (Has("memory"))
        {
            Header("Memory");
            AppendMemory(sb, server, runtime);
        }
        if (Has("persistence"))
        {
            Header("Persistence");
            AppendPersistence(sb, server);
        }
        if (Has("stats"))
        {
            Header("Stats");
            AppendStats(sb, server, runtime);
        }
        if (Has("replication"))
        {
            Header("Replication");
            Replication.ReplicationInfo.Append(sb, server);
        }
        if (Has("cpu"))
        {
            Header("CPU");
            AppendCpu(sb);
        }
        if (Has("module_list") || Has("modules")) Header("Modules");
        if (Has("commandstats"))
        {
            Header("Commandstats");
            AppendCommandStats(sb, server);
        }
        if (Has("errorstats"))
        {
            Header("Errorstats");
            AppendErrorStats(sb, server);
        }
        if (Has("latencystats"))
        {
            Header("Latencystats");
            AppendLatencyStats(sb, server);
        }
        if (Has("cluster"))
        {
            Header("Cluster");
            Line(sb, "cluster_enabled", server.Cluster != null ? 1 : 0);
        }
        if (Has("keyspace"))
        {
            Header("Keyspace");
            AppendKeyspace(sb, server, nowMs);
        }
        // Our own section, after Redis's as a module's would be: like a module's, only when named
        // or with "everything" (not "all", not the default set).
        if (everything || wanted.Contains("shards"))
        {
            Header("Shards");
            AppendShards(sb, server);
        }
        // As Redis 7.2: only when named, not with "all" nor "everything".
        if (wanted.Contains("debug"))
        {
            Header("Debug");
            AppendDebug(sb, server);
        }
        return sb.ToString();
    }

    private static void AppendServer(StringBuilder sb, RedisServer server, long nowMs)
    {
        long uptime = Math.Max(0, (nowMs - server.StartedAtMs) / 1000);
        Line(sb, "redis_version", ServerInfo.Version);
        Line(sb, "redis_git_sha1", "00000000");
        Line(sb, "redis_git_dirty", 0);
        Line(sb, "redis_build_id", ServerInfo.BuildId);
        Line(sb, "redis_mode", server.Mode);
        Line(sb, "os", OsName);
        Line(sb, "arch_bits", IntPtr.Size * 8);
        Line(sb, "monotonic_clock", "POSIX clock_gettime");
        Line(sb, "multiplexing_api", OperatingSystem.IsLinux() ? "epoll" : OperatingSystem.IsWindows() ? "iocp" : "kqueue");
        Line(sb, "atomicvar_api", "dotnet-interlocked");
        Line(sb, "gcc_version", "0.0.0");
        Line(sb, "process_id", Environment.ProcessId);
        Line(sb, "process_supervised", "no");
        Line(sb, "run_id", server.RunId);
        // With port 0 and a tls-port Redis shows the TLS port here.
        Line(sb, "tcp_port", server.Port != 0 ? server.Port : server.TlsPort);
        Line(sb, "server_time_usec", (DateTime.UtcNow - DateTime.UnixEpoch).Ticks / 10);
        Line(sb, "uptime_in_seconds", uptime);
        Line(sb, "uptime_in_days", uptime / 86400);
        Line(sb, "hz", server.EffectiveHz);
        Line(sb, "configured_hz", server.Config.Hz);
        Line(sb, "lru_clock", (DateTimeOffset.UtcNow.ToUnixTimeSeconds()) & ((1 << 24) - 1));
        Line(sb, "executable", Environment.ProcessPath ?? "");
        Line(sb, "config_file", server.Options.ConfigFile == null ? "" : Path.GetFullPath(server.Options.ConfigFile));
        Line(sb, "io_threads_active", 0);
        if (server.Port != 0)
        {
            sb.Append("listener0:name=tcp");
            foreach (string bind in server.Options.Bind) sb.Append(",bind=").Append(bind);
            sb.Append(",port=").Append(server.Port).Append("\r\n");
        }
        // Redis numbers listeners by connection type: tcp 0, unix 1, tls 2.
        if (server.UnixSocket is { } unixSocket) sb.Append("listener1:name=unix,bind=").Append(unixSocket).Append("\r\n");
        if (server.TlsPort != 0)
        {
            sb.Append("listener2:name=tls");
            foreach (string bind in server.Options.Bind) sb.Append(",bind=").Append(bind);
            sb.Append(",port=").Append(server.TlsPort).Append("\r\n");
        }
    }

    /// <summary>The data's accounting: used_memory_dataset and the key tables (read without the gates: a moment stale at most).</summary>
    internal static (long Dataset, long Tables) DataMemory(RedisServer server)
    {
        long dataset = 0, tables = 0;
        for (int i = 0; i < server.Shards.Count; i++)
        {
            dataset += server.Shards[i].Store.DatasetBytes;
            tables += server.Shards[i].Store.OverheadBytes;
        }
        return (dataset, tables);
    }

    private static void AppendClients(StringBuilder sb, RedisServer server)
    {
        // As Redis: the largest input buffer (receive blocks and parse arena; Redis: query buffer and
        // argv) and reply list seen in the last 8 seconds, reported by the transports when a buffer
        // grows; and what the clients hold now, which a buffer held for longer than that still is.
        long maxIn = server.Stats.RecentMaxInput.Read(), maxOut = server.Stats.RecentMaxOutput.Read();
        foreach (var c in server.Clients.Values)
        {
            var u = c.MeasureBuffers();
            maxIn = Math.Max(maxIn, u.QueryAllocated + u.ParseBytes);
            maxOut = Math.Max(maxOut, u.ReplyBlockBytes);
        }
        Line(sb, "connected_clients", server.Clients.Count);
        Line(sb, "cluster_connections", 0);
        Line(sb, "maxclients", server.Options.MaxClients);
        Line(sb, "client_recent_max_input_buffer", maxIn);
        Line(sb, "client_recent_max_output_buffer", maxOut);
        Line(sb, "blocked_clients", server.Clients.Values.Count(c => c.Blocked != null || c.Paused));
        Line(sb, "tracking_clients", server.Tracking.Clients);
        // Redis 7.4: clients subscribed to anything (channels, patterns or shard channels), clients
        // WATCHing at least one key, and the distinct keys watched (each database's, summed).
        int pubsubClients = 0, watchingClients = 0;
        foreach (var c in server.Clients.Values)
        {
            if (c.InPubSubMode) pubsubClients++;
            if (c.Watched is { Count: > 0 }) watchingClients++;
        }
        long watchedKeys = 0;
        for (int s = 0; s < server.Shards.Count; s++)
            for (int db = 0; db < server.Options.Databases; db++)
                watchedKeys += server.Shards[s].Store[db].WatchedKeyCount;
        Line(sb, "pubsub_clients", pubsubClients);
        Line(sb, "watching_clients", watchingClients);
        Line(sb, "clients_in_timeout_table", 0);
        Line(sb, "total_watched_keys", watchedKeys);
        Line(sb, "total_blocking_keys", 0);
        Line(sb, "total_blocking_keys_on_nokey", 0);
    }

    /// <summary>The figures INFO memory and MEMORY STATS share (see <see cref="Memory"/>).</summary>
    internal readonly record struct MemoryFigures(long Used, long Dataset, long Overhead, long Startup, long Peak,
        long ClientsNormal, long Rss, long Heap, long Committed, long TotalSystem);

    /// <summary>
    /// used_memory and its parts as INFO reports them. used_memory is the data's accounting
    /// (Storage/MemoryMeter), not the GC's heap: it follows the dataset down after DEL/FLUSHALL and
    /// expiry, and is what maxmemory is checked against.
    /// </summary>
    internal static MemoryFigures Memory(RedisServer server)
    {
        var (dataset, tables) = DataMemory(server);
        // Client buffers (CLIENT LIST's tot-mem) show as mem_clients_normal but are not part of
        // used_memory yet: it stays the data's accounting, steady while only clients come and go.
        long clientsMem = 0;
        foreach (var c in server.Clients.Values) clientsMem += c.MeasureBuffers().AllocatedBytes + c.MultiMemoryBytes;
        long used = tables + dataset;
        var gc = GC.GetGCMemoryInfo(); // as of the last collection: zeros before the first one
        long heap = Math.Max(GC.GetTotalMemory(false), 1);
        long committed = Math.Max(gc.TotalCommittedBytes, heap);
        return new MemoryFigures(used, dataset, tables, server.StartupMemory, RuntimeStats.For(server).PeakMemory(used),
            clientsMem, Environment.WorkingSet, heap, committed, gc.TotalAvailableMemoryBytes);
    }

    private static void AppendMemory(StringBuilder sb, RedisServer server, RuntimeStats runtime)
    {
        var m = Memory(server);
        long dataset = m.Dataset, clientsMem = m.ClientsNormal, overhead = m.Overhead, used = m.Used, startup = m.Startup;
        long rss = m.Rss, heap = m.Heap, committed = m.Committed, peak = m.Peak;
        ulong maxMemory = server.Config.MaxMemory;

        Line(sb, "used_memory", used);
        Line(sb, "used_memory_human", Human(used));
        Line(sb, "used_memory_rss", rss);
        Line(sb, "used_memory_rss_human", Human(rss));
        Line(sb, "used_memory_peak", peak);
        Line(sb, "used_memory_peak_human", Human(peak));
        Line(sb, "used_memory_peak_perc", F2(peak == 0 ? 0 : used * 100.0 / peak) + "%");
        Line(sb, "used_memory_overhead", overhead);
        Line(sb, "used_memory_startup", startup);
        Line(sb, "used_memory_dataset", dataset);
        Line(sb, "used_memory_dataset_perc", F2(dataset * 100.0 / Math.Max(used - startup, 1)) + "%");
        Line(sb, "allocator_allocated", heap);
        Line(sb, "allocator_active", committed);
        Line(sb, "allocator_resident", rss);
        Line(sb, "allocator_muzzy", 0); // Redis 7.4: jemalloc's muzzy pages; the GC keeps none
        Line(sb, "total_system_memory", m.TotalSystem);
        Line(sb, "total_system_memory_human", Human(m.TotalSystem));
        // The Lua states (EVAL's, the functions') as Lua counts their memory, and the caches of
        // scripts and libraries as Redis counts theirs. Neither is part of used_memory here: the
        // states are created by the first script, and used_memory is the data's accounting.
        var (vmEval, evalCache) = server.ScriptMemory;
        var (vmFunctions, functionsCache) = server.FunctionMemory;
        Line(sb, "used_memory_lua", vmEval); // Redis 7's old name for used_memory_vm_eval
        Line(sb, "used_memory_vm_eval", vmEval);
        Line(sb, "used_memory_lua_human", Human(vmEval));
        Line(sb, "used_memory_scripts_eval", evalCache);
        Line(sb, "number_of_cached_scripts", server.CachedScriptCount);
        Line(sb, "number_of_functions", server.FunctionCount);
        Line(sb, "number_of_libraries", server.LibraryCount);
        Line(sb, "used_memory_vm_functions", vmFunctions);
        Line(sb, "used_memory_vm_total", vmEval + vmFunctions);
        Line(sb, "used_memory_vm_total_human", Human(vmEval + vmFunctions));
        Line(sb, "used_memory_functions", functionsCache);
        Line(sb, "used_memory_scripts", evalCache + functionsCache);
        Line(sb, "used_memory_scripts_human", Human(evalCache + functionsCache));
        Line(sb, "maxmemory", maxMemory.ToString(Inv));
        Line(sb, "maxmemory_human", Human((long)Math.Min(maxMemory, long.MaxValue)));
        Line(sb, "maxmemory_policy", server.Config.MaxMemoryPolicy);
        Line(sb, "allocator_frag_ratio", F2((double)committed / heap));
        Line(sb, "allocator_frag_bytes", committed - heap);
        Line(sb, "allocator_rss_ratio", F2((double)rss / committed));
        Line(sb, "allocator_rss_bytes", rss - committed);
        Line(sb, "rss_overhead_ratio", F2(1.0));
        Line(sb, "rss_overhead_bytes", 0);
        Line(sb, "mem_fragmentation_ratio", F2(used == 0 ? 0 : (double)rss / used));
        Line(sb, "mem_fragmentation_bytes", rss - used);
        Line(sb, "mem_not_counted_for_evict", 0);
        // As Redis 7's getMemoryOverheadData: the shared replication buffer is the backlog up to
        // repl-backlog-size, and the replicas' beyond it (what slow replicas have not taken yet).
        long replBuffers = server.Replication.Backlog?.AllocatedBytes ?? 0;
        long backlogSize = server.Config.ReplBacklogSize;
        bool replicasHold = server.Replication.Master.Count > 0 && replBuffers > backlogSize;
        Line(sb, "mem_replication_backlog", replicasHold ? backlogSize : replBuffers);
        Line(sb, "mem_total_replication_buffers", replBuffers);
        Line(sb, "mem_clients_slaves", replicasHold ? replBuffers - backlogSize : 0);
        Line(sb, "mem_clients_normal", clientsMem);
        Line(sb, "mem_cluster_links", 0);
        Line(sb, "mem_aof_buffer", 0);
        Line(sb, "mem_allocator", "dotnet-gc");
        Line(sb, "mem_overhead_db_hashtable_rehashing", 0); // Redis 7.4: a rehash's second table; ours grow in place
        Line(sb, "active_defrag_running", 0);
        Line(sb, "lazyfree_pending_objects", 0);
        Line(sb, "lazyfreed_objects", Volatile.Read(ref server.Stats.LazyFreedObjects));
    }

    /// <summary>
    /// RDB figures as they are (no AOF yet). The copy-on-write fields report the bytes of keys a
    /// background save wrote ahead of their changes, its counterpart of fork's copied pages.
    /// </summary>
    private static void AppendPersistence(StringBuilder sb, RedisServer server)
    {
        var rdb = server.Rdb;
        bool loading = rdb.Loading;
        Line(sb, "loading", loading ? 1 : 0);
        Line(sb, "async_loading", 0);
        Line(sb, "current_cow_peak", 0);
        Line(sb, "current_cow_size", 0);
        Line(sb, "current_cow_size_age", 0);
        Line(sb, "current_fork_perc", "0.00");
        Line(sb, "current_save_keys_processed", 0);
        Line(sb, "current_save_keys_total", 0);
        Line(sb, "rdb_changes_since_last_save", rdb.ChangesSinceSave);
        Line(sb, "rdb_bgsave_in_progress", rdb.InProgress ? 1 : 0);
        Line(sb, "rdb_last_save_time", rdb.LastSaveUnix);
        Line(sb, "rdb_last_bgsave_status", rdb.LastBackgroundOk ? "ok" : "err");
        Line(sb, "rdb_last_bgsave_time_sec", rdb.LastBackgroundSeconds);
        Line(sb, "rdb_current_bgsave_time_sec", rdb.CurrentSeconds);
        Line(sb, "rdb_saves", rdb.Saves);
        Line(sb, "rdb_last_cow_size", rdb.LastAheadBytes);
        Line(sb, "rdb_last_load_keys_expired", rdb.LastLoadKeysExpired);
        Line(sb, "rdb_last_load_keys_loaded", rdb.LastLoadKeysLoaded);
        var aof = server.Aof;
        var files = server.AofFiles;
        if (loading)
        {
            // As Redis, only while loading (INFO answers then).
            Line(sb, "loading_start_time", rdb.LoadingStartUnix);
            Line(sb, "loading_total_bytes", rdb.LoadingTotalBytes);
            Line(sb, "loading_rdb_used_mem", 0);
            Line(sb, "loading_loaded_bytes", rdb.LoadingLoadedBytes);
            Line(sb, "loading_loaded_perc", (rdb.LoadingTotalBytes == 0 ? 0 : rdb.LoadingLoadedBytes * 100.0 / rdb.LoadingTotalBytes)
                .ToString("0.00", System.Globalization.CultureInfo.InvariantCulture));
            Line(sb, "loading_eta_seconds", rdb.LoadingEtaSeconds);
        }
        Line(sb, "aof_enabled", aof != null ? 1 : 0);
        Line(sb, "aof_rewrite_in_progress", files?.RewriteInProgress == true ? 1 : 0);
        Line(sb, "aof_rewrite_scheduled", files?.RewriteScheduled == true ? 1 : 0);
        Line(sb, "aof_last_rewrite_time_sec", files?.LastRewriteSeconds ?? -1);
        Line(sb, "aof_current_rewrite_time_sec", files?.CurrentRewriteSeconds ?? -1);
        Line(sb, "aof_last_bgrewrite_status", files == null || files.LastRewriteOk ? "ok" : "err");
        Line(sb, "aof_rewrites", files?.Rewrites ?? 0);
        Line(sb, "aof_rewrites_consecutive_failures", 0);
        Line(sb, "aof_last_write_status", aof == null || aof.LastWriteOk ? "ok" : "err");
        Line(sb, "aof_last_cow_size", 0);
        Line(sb, "module_fork_in_progress", 0);
        Line(sb, "module_fork_last_cow_size", 0);
        if (aof != null)
        {
            Line(sb, "aof_current_size", files!.CurrentSize);
            Line(sb, "aof_base_size", files.BaseSize);
            Line(sb, "aof_pending_rewrite", 0);
            Line(sb, "aof_buffer_length", 0);
            Line(sb, "aof_pending_bio_fsync", 0);
            Line(sb, "aof_delayed_fsync", 0);
        }
    }

    private static void AppendStats(StringBuilder sb, RedisServer server, RuntimeStats runtime)
    {
        var stats = server.Stats;
        long hits = 0, misses = 0, expired = 0, expiredSubkeys = 0, evicted = 0, capReached = 0, expiryTicks = 0;
        double stale = 0;
        for (int i = 0; i < server.Shards.Count; i++)
        {
            var shard = server.Shards[i];
            var store = shard.Store;
            hits += Volatile.Read(ref store.KeyspaceHits);
            misses += Volatile.Read(ref store.KeyspaceMisses);
            expired += Volatile.Read(ref store.ExpiredKeys);
            expiredSubkeys += Volatile.Read(ref store.ExpiredSubkeys);
            evicted += Volatile.Read(ref store.EvictedKeys);
            capReached += Volatile.Read(ref shard.ExpiryTimeCapReached);
            expiryTicks += Volatile.Read(ref shard.ExpiryTicks);
            stale += shard.ExpiredStalePercent;
        }
        // The shards' estimates of the share of keys with a TTL that are expired, averaged.
        stale = stale * 100 / Math.Max(1, server.Shards.Count);
        var (cycles, cycleMicros) = runtime.EventLoopTotals();
        Line(sb, "total_connections_received", Volatile.Read(ref stats.TotalConnectionsReceived));
        Line(sb, "total_commands_processed", server.CommandStats.TotalCalls());
        Line(sb, "instantaneous_ops_per_sec", runtime.OpsPerSecond);
        Line(sb, "total_net_input_bytes", stats.NetInputBytes.Value);
        Line(sb, "total_net_output_bytes", stats.NetOutputBytes.Value);
        Line(sb, "total_net_repl_input_bytes", stats.NetReplInputBytes.Value);
        Line(sb, "total_net_repl_output_bytes", stats.NetReplOutputBytes.Value);
        Line(sb, "instantaneous_input_kbps", F2(runtime.InputKbps));
        Line(sb, "instantaneous_output_kbps", F2(runtime.OutputKbps));
        Line(sb, "instantaneous_input_repl_kbps", F2(runtime.ReplInputKbps));
        Line(sb, "instantaneous_output_repl_kbps", F2(runtime.ReplOutputKbps));
        Line(sb, "rejected_connections", Volatile.Read(ref stats.RejectedConnections));
        var master = server.Replication.Master;
        Line(sb, "sync_full", Interlocked.Read(ref master.SyncFull));
        Line(sb, "sync_partial_ok", Interlocked.Read(ref master.SyncPartialOk));
        Line(sb, "sync_partial_err", Interlocked.Read(ref master.SyncPartialErr));
        Line(sb, "expired_keys", expired);
        Line(sb, "expired_subkeys", expiredSubkeys);
        Line(sb, "expired_stale_perc", F2(stale));
        Line(sb, "expired_time_cap_reached_count", capReached);
        Line(sb, "expire_cycle_cpu_milliseconds", expiryTicks * 1000 / Stopwatch.Frequency);
        Line(sb, "evicted_keys", evicted);
        Line(sb, "evicted_clients", server.ClientEviction.Evicted);
        Line(sb, "evicted_scripts", 0); // Redis 7.4 evicts EVAL scripts beyond 500; we keep them (see docs)
        Line(sb, "total_eviction_exceeded_time", server.Evictor.TotalExceededMs);
        Line(sb, "current_eviction_exceeded_time", server.Evictor.CurrentExceededMs);
        Line(sb, "keyspace_hits", hits);
        Line(sb, "keyspace_misses", misses);
        Line(sb, "pubsub_channels", server.PubSub.ChannelCount);
        Line(sb, "pubsub_patterns", server.PubSub.PatternCount);
        Line(sb, "pubsubshard_channels", server.PubSub.ShardChannelCount);
        Line(sb, "latest_fork_usec", 0);
        Line(sb, "total_forks", 0);
        Line(sb, "migrate_cached_sockets", server.MigrateSockets.Count);
        Line(sb, "slave_expires_tracked_keys", 0);
        Line(sb, "active_defrag_hits", 0);
        Line(sb, "active_defrag_misses", 0);
        Line(sb, "active_defrag_key_hits", 0);
        Line(sb, "active_defrag_key_misses", 0);
        Line(sb, "total_active_defrag_time", 0);
        Line(sb, "current_active_defrag_time", 0);
        Line(sb, "tracking_total_keys", server.Tracking.TotalKeys);
        Line(sb, "tracking_total_items", server.Tracking.TotalItems);
        Line(sb, "tracking_total_prefixes", server.Tracking.TotalPrefixes);
        Line(sb, "unexpected_error_replies", Volatile.Read(ref stats.UnexpectedErrorReplies));
        Line(sb, "total_error_replies", Volatile.Read(ref stats.TotalErrorReplies));
        Line(sb, "dump_payload_sanitizations", 0);
        Line(sb, "total_reads_processed", stats.ReadsProcessed.Value);
        Line(sb, "total_writes_processed", stats.WritesProcessed.Value);
        Line(sb, "io_threaded_reads_processed", stats.ThreadedReadsProcessed.Value);
        Line(sb, "io_threaded_writes_processed", stats.ThreadedWritesProcessed.Value);
        Line(sb, "client_query_buffer_limit_disconnections", Interlocked.Read(ref stats.QueryBufferLimitDisconnections));
        Line(sb, "client_output_buffer_limit_disconnections", Interlocked.Read(ref stats.OutputBufferLimitDisconnections));
        Line(sb, "reply_buffer_shrinks", 0);
        Line(sb, "reply_buffer_expands", 0);
        // The epoll loops' iterations and their time awake (all loops together); the commands' share
        // is commandstats' time, all commands together.
        Line(sb, "eventloop_cycles", cycles);
        Line(sb, "eventloop_duration_sum", cycleMicros);
        Line(sb, "eventloop_duration_cmd_sum", server.CommandStats.TotalMicros());
        Line(sb, "instantaneous_eventloop_cycles_per_sec", runtime.CyclesPerSecond);
        Line(sb, "instantaneous_eventloop_duration_usec", runtime.CycleDurationMicros);
        Line(sb, "acl_access_denied_auth", server.Acl.Log.DeniedAuth);
        Line(sb, "acl_access_denied_cmd", server.Acl.Log.DeniedCommand);
        Line(sb, "acl_access_denied_key", server.Acl.Log.DeniedKey);
        Line(sb, "acl_access_denied_channel", server.Acl.Log.DeniedChannel);
    }

    private static void AppendCpu(StringBuilder sb)
    {
        using var process = Process.GetCurrentProcess();
        Line(sb, "used_cpu_sys", Seconds(process.PrivilegedProcessorTime));
        Line(sb, "used_cpu_user", Seconds(process.UserProcessorTime));
        Line(sb, "used_cpu_sys_children", "0.000000");
        Line(sb, "used_cpu_user_children", "0.000000");
        // Redis prints its main thread's figures where the kernel gives per-thread times (Linux).
        // What its main thread does is done here by the event loops and the shard threads: theirs.
        if (OperatingSystem.IsLinux() && MainThreadsCpu() is var (sys, user))
        {
            Line(sb, "used_cpu_sys_main_thread", Seconds(sys));
            Line(sb, "used_cpu_user_main_thread", Seconds(user));
        }
    }

    /// <summary>
    /// The system and user CPU time of the threads that do Redis's main thread's work (event loops
    /// "io-N", shards "shard-N"), from /proc/self/task/*/stat; null when /proc cannot be read.
    /// </summary>
    internal static (TimeSpan Sys, TimeSpan User)? MainThreadsCpu()
    {
        try
        {
            long userTicks = 0, sysTicks = 0;
            foreach (string task in Directory.EnumerateDirectories("/proc/self/task"))
            {
                string stat;
                try { stat = File.ReadAllText(Path.Combine(task, "stat")); }
                catch (IOException) { continue; } // the thread ended meanwhile
                // "tid (comm) state ..." — comm may hold spaces or parentheses: cut at the last ')'.
                int open = stat.IndexOf('('), close = stat.LastIndexOf(')');
                if (open < 0 || close < open) continue;
                string comm = stat[(open + 1)..close];
                if (!comm.StartsWith("io-", StringComparison.Ordinal) && !comm.StartsWith("shard-", StringComparison.Ordinal)) continue;
                var fields = stat[(close + 2)..].Split(' ');
                // After the state (field 3), utime and stime are fields 14 and 15.
                userTicks += long.Parse(fields[11], Inv);
                sysTicks += long.Parse(fields[12], Inv);
            }
            const long ClockTicksPerSecond = 100; // USER_HZ on Linux
            return (TimeSpan.FromTicks(sysTicks * TimeSpan.TicksPerSecond / ClockTicksPerSecond),
                TimeSpan.FromTicks(userTicks * TimeSpan.TicksPerSecond / ClockTicksPerSecond));
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or FormatException or IndexOutOfRangeException)
        {
            return null;
        }
    }

    /// <summary>cmdstat_name:calls=..,usec=..,usec_per_call=..,rejected_calls=..,failed_calls=.. for every command used.</summary>
    private static void AppendCommandStats(StringBuilder sb, RedisServer server)
    {
        foreach (var def in server.Commands.All)
        {
            AppendCommandStat(sb, server, def);
            if (def.Subcommands == null) continue;
            foreach (var sub in def.Subcommands) AppendCommandStat(sb, server, sub);
        }
    }

    private static void AppendCommandStat(StringBuilder sb, RedisServer server, CommandDef def)
    {
        var (calls, usec, rejected, failed) = server.CommandStats.Get(def.Id);
        if (calls == 0 && rejected == 0 && failed == 0) return;
        // Redis divides in single precision: the same rounding shows in the two decimals.
        double perCall = calls == 0 ? 0 : (float)usec / calls;
        sb.Append("cmdstat_").Append(Safe(def.FullName))
          .Append(":calls=").Append(calls)
          .Append(",usec=").Append(usec)
          .Append(",usec_per_call=").Append(F2(perCall))
          .Append(",rejected_calls=").Append(rejected)
          .Append(",failed_calls=").Append(failed)
          .Append("\r\n");
    }

    /// <summary>
    /// latency_percentiles_usec_name:p50=..,p99=..,p99.9=.. for every command with a histogram, at
    /// the percentiles of latency-tracking-info-percentiles, in microseconds with three decimals.
    /// </summary>
    private static void AppendLatencyStats(StringBuilder sb, RedisServer server)
    {
        var percentiles = server.Config.LatencyTrackingPercentiles;
        var counts = new long[LatencyHistogram.Slots];
        void One(CommandDef def)
        {
            if (server.Latencies.Get(def.Id) is not { } histogram) return;
            long total = histogram.Snapshot(counts);
            sb.Append("latency_percentiles_usec_").Append(Safe(def.FullName)).Append(':');
            for (int j = 0; j < percentiles.Length; j++)
            {
                if (j > 0) sb.Append(',');
                double micros = LatencyHistogram.ValueAtPercentile(counts, total, percentiles[j]) / 1000.0;
                sb.Append('p').Append(Config.ConfigRegistry.FormatPercentile(percentiles[j])).Append('=').Append(micros.ToString("F3", Inv));
            }
            sb.Append("\r\n");
        }
        foreach (var def in server.Commands.All)
        {
            One(def);
            if (def.Subcommands == null) continue;
            foreach (var sub in def.Subcommands) One(sub);
        }
    }

    private static void AppendErrorStats(StringBuilder sb, RedisServer server)
    {
        KeyValuePair<string, long>[] errors;
        lock (server.Stats.ErrorCounts) errors = server.Stats.ErrorCounts.ToArray();
        Array.Sort(errors, (a, b) => string.CompareOrdinal(a.Key, b.Key));
        foreach (var (code, count) in errors)
            sb.Append("errorstat_").Append(Safe(code)).Append(":count=").Append(count).Append("\r\n");
    }

    /// <summary>
    /// dbN:keys=..,expires=..,avg_ttl=..,subexpiry=.. for every database holding keys, summed over the
    /// shards (subexpiry, Redis 7.4's: hashes with field TTLs).
    /// avg_ttl needs each shard's TTL sample, so each gate is taken briefly, one at a time; a shard
    /// that stays busy for 5 ms is left out of the average rather than waited for.
    /// </summary>
    private static void AppendKeyspace(StringBuilder sb, RedisServer server, long nowMs)
    {
        int databases = server.Options.Databases;
        for (int db = 0; db < databases; db++)
        {
            long keys = 0, expires = 0, ttlSum = 0, ttlWeight = 0, subexpiry = 0;
            for (int s = 0; s < server.Shards.Count; s++)
            {
                var shard = server.Shards[s];
                var d = shard.Store[db];
                keys += d.Count;
                subexpiry += d.HashesWithFieldTtls;
                int withTtl = d.ExpiresCount;
                expires += withTtl;
                if (withTtl == 0 || !shard.Gate.TryEnter(5)) continue;
                try
                {
                    ttlSum += d.AverageTtl(nowMs) * d.ExpiresCount;
                    ttlWeight += d.ExpiresCount;
                }
                finally
                {
                    shard.Gate.Exit();
                }
            }
            if (keys == 0 && expires == 0) continue;
            long avgTtl = ttlWeight == 0 ? 0 : ttlSum / ttlWeight;
            sb.Append("db").Append(db).Append(":keys=").Append(keys).Append(",expires=").Append(expires)
              .Append(",avg_ttl=").Append(avgTtl).Append(",subexpiry=").Append(subexpiry).Append("\r\n");
        }
    }

    /// <summary>
    /// shardN:keys=..,expires=..,used_memory=..,commands_processed=..,gate_waits=.. per shard: its
    /// keys in every database, its accounted memory (dataset and tables, the used_memory share),
    /// the commands that ran on its keys alone, and how often a connection found its gate busy and
    /// handed the work to the shard's thread. Read without the gates (a moment stale at most).
    /// </summary>
    private static void AppendShards(StringBuilder sb, RedisServer server)
    {
        Line(sb, "shards", server.Shards.Count);
        for (int s = 0; s < server.Shards.Count; s++)
        {
            var shard = server.Shards[s];
            var (keys, expires) = ShardKeys(shard.Store);
            sb.Append("shard").Append(s).Append(":keys=").Append(keys).Append(",expires=").Append(expires)
              .Append(",used_memory=").Append(shard.Store.DatasetBytes + shard.Store.OverheadBytes)
              .Append(",commands_processed=").Append(Volatile.Read(ref shard.CommandsProcessed))
              .Append(",gate_waits=").Append(Volatile.Read(ref shard.GateWaits)).Append("\r\n");
        }
    }

    /// <summary>
    /// INFO debug (7.2): the event loops' time in AOF writes (none: the AOF writer has a thread of its
    /// own) and in periodic work (the shards' expiry cycles, this server's serverCron work), the
    /// longest loop iteration (µs) and the most commands one iteration ran.
    /// </summary>
    private static void AppendDebug(StringBuilder sb, RedisServer server)
    {
        long expiryTicks = 0;
        for (int i = 0; i < server.Shards.Count; i++) expiryTicks += Volatile.Read(ref server.Shards[i].ExpiryTicks);
        var (maxTicks, maxCommands) = server.EventLoops?.Maxima() ?? (0, 0);
        Line(sb, "eventloop_duration_aof_sum", 0);
        Line(sb, "eventloop_duration_cron_sum", expiryTicks * 1_000_000 / Stopwatch.Frequency);
        Line(sb, "eventloop_duration_max", maxTicks * 1_000_000 / Stopwatch.Frequency);
        Line(sb, "eventloop_cmd_per_cycle_max", maxCommands);
    }

    /// <summary>A shard's keys and keys with a TTL, over every database.</summary>
    internal static (long Keys, long Expires) ShardKeys(Storage.ShardStore store)
    {
        long keys = 0, expires = 0;
        for (int db = 0; db < store.DatabaseCount; db++)
        {
            keys += store[db].Count;
            expires += store[db].ExpiresCount;
        }
        return (keys, expires);
    }

    // ---------------------------------------------------------------- formatting

    private static void Line(StringBuilder sb, string key, string value) => sb.Append(key).Append(':').Append(value).Append("\r\n");

    private static void Line(StringBuilder sb, string key, long value) => sb.Append(key).Append(':').Append(value).Append("\r\n");

    private static string F2(double value) => value.ToString("F2", Inv);

    private static string Seconds(TimeSpan t)
    {
        long micros = t.Ticks / 10;
        return $"{micros / 1_000_000}.{micros % 1_000_000:D6}";
    }

    /// <summary>Redis's bytesToHuman: B below 1K, then K/M/G/T/P with two decimals.</summary>
    public static string Human(long n)
    {
        if (n < 1024) return n.ToString(Inv) + "B";
        string[] units = ["K", "M", "G", "T", "P"];
        double d = n;
        for (int i = 0; i < units.Length; i++)
        {
            d /= 1024;
            if (d < 1024 || i == units.Length - 1) return F2(d) + units[i];
        }
        return n.ToString(Inv) + "B";
    }

    /// <summary>INFO keys and values cannot carry '#', ':', CR or LF: Redis replaces them with '_'.</summary>
    private static string Safe(string s)
        => s.IndexOfAny(['#', ':', '\r', '\n']) < 0 ? s : s.Replace('#', '_').Replace(':', '_').Replace('\r', '_').Replace('\n', '_');

    /// <summary>uname's "sysname release machine", as Redis prints it.</summary>
    internal static readonly string OsName = ComputeOsName();

    private static string ComputeOsName()
    {
        string machine = RuntimeInformation.OSArchitecture switch
        {
            Architecture.X64 => "x86_64",
            Architecture.Arm64 => "aarch64",
            Architecture.X86 => "i686",
            Architecture.Arm => "armv7l",
            var other => other.ToString().ToLowerInvariant(),
        };
        if (OperatingSystem.IsLinux())
        {
            string release = "";
            try { release = File.ReadAllText("/proc/sys/kernel/osrelease").Trim(); }
            catch (IOException) { }
            catch (UnauthorizedAccessException) { }
            return $"Linux {release} {machine}";
        }
        return $"{RuntimeInformation.OSDescription} {machine}";
    }
}
