using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace RedisClone.Server;

/// <summary>
/// The server's figures in Prometheus's text exposition format (version 0.0.4), for the metrics
/// endpoint (<c>--metrics-port</c>). Names and labels are the ones oliver006/redis_exporter gives
/// the same INFO fields (<c>redis_connected_clients</c>, <c>redis_commands_total{cmd="get"}</c>,
/// <c>redis_db_keys{db="db0"}</c>, <c>redis_latency_usec</c> histograms...), so dashboards and alerts
/// written for that exporter work unchanged; <c>redis_clone_*</c> are our own (per shard).
/// </summary>
/// <remarks>
/// Every figure is read as INFO reads it: counters without the shards' gates (a moment stale at
/// most). One family is written at a time: HELP, TYPE, then its samples, as the format asks.
/// </remarks>
internal static class MetricsText
{
    /// <summary>The Content-Type of the text format.</summary>
    public const string ContentType = "text/plain; version=0.0.4; charset=utf-8";

    private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

    /// <summary>Writes one family's header and then its samples.</summary>
    private sealed class Writer(StringBuilder sb)
    {
        public void Family(string name, string type, string help)
        {
            sb.Append("# HELP ").Append(name).Append(' ');
            foreach (char c in help)
            {
                if (c == '\\') sb.Append("\\\\");
                else if (c == '\n') sb.Append("\\n");
                else sb.Append(c);
            }
            sb.Append('\n').Append("# TYPE ").Append(name).Append(' ').Append(type).Append('\n');
        }

        public void Sample(string name, double value, params (string Name, string Value)[] labels)
        {
            sb.Append(name);
            if (labels.Length > 0)
            {
                sb.Append('{');
                for (int i = 0; i < labels.Length; i++)
                {
                    if (i > 0) sb.Append(',');
                    sb.Append(labels[i].Name).Append("=\"");
                    foreach (char c in labels[i].Value)
                    {
                        if (c == '\\') sb.Append("\\\\");
                        else if (c == '"') sb.Append("\\\"");
                        else if (c == '\n') sb.Append("\\n");
                        else sb.Append(c);
                    }
                    sb.Append('"');
                }
                sb.Append('}');
            }
            sb.Append(' ').Append(Number(value)).Append('\n');
        }

        public void Single(string name, string type, string help, double value)
        {
            Family(name, type, help);
            Sample(name, value);
        }
    }

    /// <summary>A sample value as the format writes it: Go-style floats, +Inf/-Inf/NaN.</summary>
    internal static string Number(double value)
        => double.IsPositiveInfinity(value) ? "+Inf"
        : double.IsNegativeInfinity(value) ? "-Inf"
        : double.IsNaN(value) ? "NaN"
        : value.ToString("R", Inv);

    /// <summary>The whole exposition.</summary>
    public static string Build(RedisServer server)
    {
        var sb = new StringBuilder(16 * 1024);
        var w = new Writer(sb);
        long nowMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        var runtime = RuntimeStats.For(server);
        var stats = server.Stats;

        w.Single("redis_up", "gauge", "Whether the server answers (always 1 from the server itself)", 1);
        w.Family("redis_instance_info", "gauge", "Information about the Redis instance");
        w.Sample("redis_instance_info", 1,
            ("role", "master"), ("redis_version", ServerInfo.Version), ("redis_mode", server.Mode),
            ("os", InfoBuilder.OsName), ("maxmemory_policy", server.Config.MaxMemoryPolicy),
            ("tcp_port", server.Port.ToString(Inv)), ("run_id", server.RunId), ("process_id", Environment.ProcessId.ToString(Inv)));
        w.Single("redis_uptime_in_seconds", "gauge", "uptime_in_seconds metric", Math.Max(0, (nowMs - server.StartedAtMs) / 1000));
        w.Single("redis_process_id", "gauge", "process_id metric", Environment.ProcessId);

        // Clients.
        w.Single("redis_connected_clients", "gauge", "connected_clients metric", server.Clients.Count);
        w.Single("redis_blocked_clients", "gauge", "blocked_clients metric", server.Clients.Values.Count(c => c.Blocked != null));
        w.Single("redis_config_maxclients", "gauge", "config_maxclients metric", server.Options.MaxClients);

        // Memory.
        var (dataset, tables) = InfoBuilder.DataMemory(server);
        long used = dataset + tables;
        w.Single("redis_memory_used_bytes", "gauge", "memory_used_bytes metric", used);
        w.Single("redis_memory_used_rss_bytes", "gauge", "memory_used_rss_bytes metric", Environment.WorkingSet);
        w.Single("redis_memory_used_peak_bytes", "gauge", "memory_used_peak_bytes metric", runtime.PeakMemory(used));
        w.Single("redis_memory_used_dataset_bytes", "gauge", "memory_used_dataset_bytes metric", dataset);
        w.Single("redis_memory_used_overhead_bytes", "gauge", "memory_used_overhead_bytes metric", tables);
        w.Single("redis_memory_used_startup_bytes", "gauge", "memory_used_startup_bytes metric", server.StartupMemory);
        w.Single("redis_memory_max_bytes", "gauge", "memory_max_bytes metric", server.Config.MaxMemory);

        // Persistence.
        var rdb = server.Rdb;
        w.Single("redis_loading_dump_file", "gauge", "loading_dump_file metric", rdb.Loading ? 1 : 0);
        w.Single("redis_rdb_changes_since_last_save", "gauge", "rdb_changes_since_last_save metric", rdb.ChangesSinceSave);
        w.Single("redis_rdb_bgsave_in_progress", "gauge", "rdb_bgsave_in_progress metric", rdb.InProgress ? 1 : 0);
        w.Single("redis_rdb_last_save_timestamp_seconds", "gauge", "rdb_last_save_timestamp_seconds metric", rdb.LastSaveUnix);
        w.Single("redis_rdb_last_bgsave_status", "gauge", "rdb_last_bgsave_status metric", rdb.LastBackgroundOk ? 1 : 0);
        w.Single("redis_aof_enabled", "gauge", "aof_enabled metric", server.Aof != null ? 1 : 0);
        w.Single("redis_aof_rewrite_in_progress", "gauge", "aof_rewrite_in_progress metric", server.AofFiles?.RewriteInProgress == true ? 1 : 0);
        w.Single("redis_aof_last_write_status", "gauge", "aof_last_write_status metric", server.Aof == null || server.Aof.LastWriteOk ? 1 : 0);

        // Stats.
        long hits = 0, misses = 0, expired = 0;
        for (int i = 0; i < server.Shards.Count; i++)
        {
            var store = server.Shards[i].Store;
            hits += Volatile.Read(ref store.KeyspaceHits);
            misses += Volatile.Read(ref store.KeyspaceMisses);
            expired += Volatile.Read(ref store.ExpiredKeys);
        }
        w.Single("redis_connections_received_total", "counter", "connections_received_total metric", Volatile.Read(ref stats.TotalConnectionsReceived));
        w.Single("redis_rejected_connections_total", "counter", "rejected_connections_total metric", Volatile.Read(ref stats.RejectedConnections));
        w.Single("redis_commands_processed_total", "counter", "commands_processed_total metric", server.CommandStats.TotalCalls());
        w.Single("redis_net_input_bytes_total", "counter", "net_input_bytes_total metric", stats.NetInputBytes.Value);
        w.Single("redis_net_output_bytes_total", "counter", "net_output_bytes_total metric", stats.NetOutputBytes.Value);
        w.Single("redis_expired_keys_total", "counter", "expired_keys_total metric", expired);
        w.Single("redis_evicted_keys_total", "counter", "evicted_keys_total metric", 0);
        w.Single("redis_keyspace_hits_total", "counter", "keyspace_hits_total metric", hits);
        w.Single("redis_keyspace_misses_total", "counter", "keyspace_misses_total metric", misses);
        w.Single("redis_pubsub_channels", "gauge", "pubsub_channels metric", server.PubSub.ChannelCount);
        w.Single("redis_pubsub_patterns", "gauge", "pubsub_patterns metric", server.PubSub.PatternCount);
        w.Single("redis_connected_slaves", "gauge", "connected_slaves metric", 0);
        w.Single("redis_master_repl_offset", "gauge", "master_repl_offset metric", 0);

        // CPU.
        using (var process = Process.GetCurrentProcess())
        {
            w.Single("redis_cpu_sys_seconds_total", "counter", "cpu_sys_seconds_total metric", process.PrivilegedProcessorTime.TotalSeconds);
            w.Single("redis_cpu_user_seconds_total", "counter", "cpu_user_seconds_total metric", process.UserProcessorTime.TotalSeconds);
        }

        AppendCommands(w, server);
        AppendErrors(w, server);
        AppendKeyspace(w, server);
        AppendLatency(w, server);
        AppendShards(w, server);
        return sb.ToString();
    }

    /// <summary>Per command, as the exporter turns commandstats: calls, seconds, rejected and failed calls.</summary>
    private static void AppendCommands(Writer w, RedisServer server)
    {
        var rows = new List<(string Name, long Calls, long Usec, long Rejected, long Failed)>();
        foreach (var def in server.Commands.All)
        {
            Add(def);
            if (def.Subcommands != null) foreach (var sub in def.Subcommands) Add(sub);
        }
        void Add(Commands.CommandDef def)
        {
            var (calls, usec, rejected, failed) = server.CommandStats.Get(def.Id);
            if (calls != 0 || rejected != 0 || failed != 0) rows.Add((def.FullName, calls, usec, rejected, failed));
        }
        w.Family("redis_commands_total", "counter", "Total number of calls per command");
        foreach (var r in rows) w.Sample("redis_commands_total", r.Calls, ("cmd", r.Name));
        w.Family("redis_commands_duration_seconds_total", "counter", "Total amount of time in seconds spent per command");
        foreach (var r in rows) w.Sample("redis_commands_duration_seconds_total", r.Usec / 1e6, ("cmd", r.Name));
        w.Family("redis_commands_rejected_calls_total", "counter", "Total number of errors prior command execution per command");
        foreach (var r in rows) w.Sample("redis_commands_rejected_calls_total", r.Rejected, ("cmd", r.Name));
        w.Family("redis_commands_failed_calls_total", "counter", "Total number of errors within command execution per command");
        foreach (var r in rows) w.Sample("redis_commands_failed_calls_total", r.Failed, ("cmd", r.Name));
    }

    /// <summary>errorstats: error replies by their first word.</summary>
    private static void AppendErrors(Writer w, RedisServer server)
    {
        KeyValuePair<string, long>[] errors;
        lock (server.Stats.ErrorCounts) errors = server.Stats.ErrorCounts.ToArray();
        Array.Sort(errors, (a, b) => string.CompareOrdinal(a.Key, b.Key));
        w.Single("redis_total_error_replies", "counter", "total_error_replies metric", Volatile.Read(ref server.Stats.TotalErrorReplies));
        w.Family("redis_errors_total", "counter", "Total number of errors per error type");
        foreach (var (code, count) in errors) w.Sample("redis_errors_total", count, ("err", code));
    }

    /// <summary>Per database holding keys: keys, keys with a TTL (labelled db="db0" as the exporter does).</summary>
    private static void AppendKeyspace(Writer w, RedisServer server)
    {
        var rows = new List<(string Db, long Keys, long Expires)>();
        for (int db = 0; db < server.Options.Databases; db++)
        {
            long keys = 0, expires = 0;
            for (int s = 0; s < server.Shards.Count; s++)
            {
                var d = server.Shards[s].Store[db];
                keys += d.Count;
                expires += d.ExpiresCount;
            }
            if (keys != 0 || expires != 0) rows.Add(("db" + db.ToString(Inv), keys, expires));
        }
        w.Family("redis_db_keys", "gauge", "Total number of keys by DB");
        foreach (var r in rows) w.Sample("redis_db_keys", r.Keys, ("db", r.Db));
        w.Family("redis_db_keys_expiring", "gauge", "Total number of expiring keys by DB");
        foreach (var r in rows) w.Sample("redis_db_keys_expiring", r.Expires, ("db", r.Db));
    }

    /// <summary>
    /// LATENCY LATEST per event, and each command's latency histogram as a Prometheus histogram in
    /// microseconds: the buckets LATENCY HISTOGRAM reports (every power of two from 1 µs, cumulative),
    /// then +Inf; the sum is commandstats' microseconds, as the exporter takes it.
    /// </summary>
    private static void AppendLatency(Writer w, RedisServer server)
    {
        var latest = server.Latency.Latest();
        w.Family("redis_latency_spike_last", "gauge", "When the latency spike last occurred");
        foreach (var e in latest) w.Sample("redis_latency_spike_last", e.Time, ("event_name", e.Name));
        w.Family("redis_latency_spike_duration_seconds", "gauge", "Length of the last latency spike in seconds");
        foreach (var e in latest) w.Sample("redis_latency_spike_duration_seconds", e.Latency / 1e3, ("event_name", e.Name));

        w.Family("redis_latency_usec", "histogram", "A histogram of latencies per command");
        var counts = new long[LatencyHistogram.Slots];
        foreach (var def in server.Commands.All)
        {
            One(def);
            if (def.Subcommands != null) foreach (var sub in def.Subcommands) One(sub);
        }
        void One(Commands.CommandDef def)
        {
            if (server.Latencies.Get(def.Id) is not { } histogram) return;
            long total = histogram.Snapshot(counts);
            foreach (var (micros, cumulative) in LatencyHistogram.Cumulative(counts, total, everyLevel: true))
                w.Sample("redis_latency_usec_bucket", cumulative, ("cmd", def.FullName), ("le", micros.ToString(Inv)));
            w.Sample("redis_latency_usec_bucket", total, ("cmd", def.FullName), ("le", "+Inf"));
            w.Sample("redis_latency_usec_sum", server.CommandStats.Get(def.Id).Usec, ("cmd", def.FullName));
            w.Sample("redis_latency_usec_count", total, ("cmd", def.FullName));
        }
    }

    /// <summary>Our own: per shard, as INFO shards reports it.</summary>
    private static void AppendShards(Writer w, RedisServer server)
    {
        var shards = server.Shards;
        w.Family("redis_clone_shard_keys", "gauge", "Keys held by the shard, all databases");
        for (int s = 0; s < shards.Count; s++) w.Sample("redis_clone_shard_keys", InfoBuilder.ShardKeys(shards[s].Store).Keys, ("shard", s.ToString(Inv)));
        w.Family("redis_clone_shard_memory_used_bytes", "gauge", "Accounted memory of the shard's data and tables");
        for (int s = 0; s < shards.Count; s++)
            w.Sample("redis_clone_shard_memory_used_bytes", shards[s].Store.DatasetBytes + shards[s].Store.OverheadBytes, ("shard", s.ToString(Inv)));
        w.Family("redis_clone_shard_commands_processed_total", "counter", "Commands run on the shard's keys alone");
        for (int s = 0; s < shards.Count; s++)
            w.Sample("redis_clone_shard_commands_processed_total", Volatile.Read(ref shards[s].CommandsProcessed), ("shard", s.ToString(Inv)));
        w.Family("redis_clone_shard_gate_waits_total", "counter", "Times a connection found the shard's gate busy and handed its work to the shard thread");
        for (int s = 0; s < shards.Count; s++)
            w.Sample("redis_clone_shard_gate_waits_total", Volatile.Read(ref shards[s].GateWaits), ("shard", s.ToString(Inv)));
    }
}
