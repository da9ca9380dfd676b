using System.Buffers;
using System.Diagnostics;
using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Server;
using RedisClone.Storage;

namespace RedisClone.Execution;

/// <summary>
/// The one call that runs a checked command, for every caller: a connection's batch, EXEC, a woken
/// blocked command. It runs the handler, counts the call in commandstats, tells WATCHers and
/// blocked clients about the keys a write changed, and feeds MONITOR clients.
/// </summary>
internal static class CommandRunner
{
    // Rows compared by identity: comparing a row's handler delegate with a method group costs a call
    // into the runtime whenever the two delegates' entry points differ (tiering moves them), which a
    // profile with a replica attached showed at 12.5% of the server's CPU (issue 30).
    private static readonly CommandDef ScanDef = CommandChecks.Find("scan"), RandomKeyDef = CommandChecks.Find("randomkey"),
        TouchDef = CommandChecks.Find("touch");

    // Per thread: the counter is only a sampling pattern for commandstats' timing.
    [ThreadStatic] private static int _sampleCounter;

    /// <summary>
    /// Commands this thread has run (wrapping): the difference across an event loop iteration is
    /// how many it ran (INFO debug's eventloop_cmd_per_cycle_max). The sampling counter, reused.
    /// </summary>
    public static int ThreadCommandCount => _sampleCounter;

    /// <summary>
    /// Runs <paramref name="def"/> on command <paramref name="i"/> of <paramref name="buffer"/>,
    /// replying into <paramref name="sink"/>. The caller holds the gates of every shard the command
    /// touches; <paramref name="shard"/> is the one shard all its keys map to, when known.
    /// One call in <see cref="CommandStats.SampleEvery"/> is timed. Returns false when it replied an error.
    /// </summary>
    /// <param name="monitor">False when the command was already shown to MONITOR (a blocked command run again).</param>
    public static bool Run(RedisServer server, ClientSession session, CommandBuffer buffer, int i, CommandDef def,
        IBufferWriter<byte> sink, long nowMs, int shard = -1, bool monitor = true)
    {
        long clock = 0;
        return Run(server, session, buffer, i, def, sink, nowMs, shard, monitor, ref clock);
    }

    /// <summary>
    /// <see cref="Run(RedisServer, ClientSession, CommandBuffer, int, CommandDef, IBufferWriter{byte}, long, int, bool)"/>
    /// for a caller running commands back to back: <paramref name="clock"/> is the Stopwatch timestamp
    /// the last command ended at (0 for none), taken as this one's start, and is set to this one's end
    /// (0 when it was not timed). One clock read per command instead of two.
    /// </summary>
    public static bool Run(RedisServer server, ClientSession session, CommandBuffer buffer, int i, CommandDef def,
        IBufferWriter<byte> sink, long nowMs, int shard, bool monitor, ref long clock)
    {
        // A cluster node's command in a slot being migrated or imported: which keys exist decides
        // whether it runs here (ClusterRouting's second step). One field test otherwise.
        if (session.ClusterRecheck && ClusterRecheckRefused(server, session, buffer, i, def, sink, nowMs)) return false;
        bool timed = (++_sampleCounter & (CommandStats.SampleEvery - 1)) == 0;
        // Every command is timed for SLOWLOG, as Redis times every call (a script's commands too,
        // under the script client's "?:0"; not the AOF's replay, checked below). The threshold is
        // the one in force once the command ran, as Redis reads it: the CONFIG SET that lowers it is
        // judged by its new value. Admin commands (CONFIG) are timed even while SLOWLOG is off.
        bool slowlog = (def.Flags & CommandFlags.SkipSlowlog) == 0;
        bool slowlogOn = server.Config.SlowlogLogSlowerThan >= 0 || (def.Flags & CommandFlags.Admin) != 0;
        // latency-tracking times every command for its histogram, and the latency monitor needs
        // every duration once it is on (latency-monitor-threshold above 0).
        bool latencyTracking = server.Config.LatencyTracking;
        long threshold = server.Config.LatencyMonitorThreshold;
        bool measure = timed || (slowlog && slowlogOn) || latencyTracking || threshold > 0;
        long start = measure ? clock != 0 ? clock : Stopwatch.GetTimestamp() : 0;
        // Scripts (EVAL, FCALL and their variants, the commands flagged skip-monitor) show in MONITOR
        // before the commands they run, as Redis's handlers feed themselves first; the feed after the
        // handler skips them.
        if (monitor && (def.Flags & CommandFlags.SkipMonitor) != 0 && server.Monitors.Active)
            server.Monitors.Feed(session.Db, session.Address, buffer, i);
        if ((def.Flags & CommandFlags.Write) != 0 && Volatile.Read(ref server.ActiveSnapshots) > 0)
            WriteAheadOfSnapshot(server, session, buffer, i, def, nowMs);
        // Decided once, so Enter and Exit pair even when this command turns tracking on or off.
        var tracking = server.Tracking.Active ? server.Tracking : null;
        tracking?.Enter(session, sink);
        var ctx = new CommandContext(buffer, i, new RespWriter(sink, session.Protocol), session, server, nowMs, shard);
        // CLIENT NO-TOUCH: the command reads keys without refreshing their LRU/LFU stamps, TOUCH
        // excepted (as Redis 7.2; a script's commands inherit their caller's setting).
        bool noTouch = session.NoTouch && !session.IsScriptClient;
        if (noTouch) KeyAccess.NoTouch = def != TouchDef;
        // A replica's master client sees keys its own DELs have not removed yet, expired or not.
        bool master = session.IsMaster;
        if (master) ShardStore.RunningMasterCommand = true;
        try
        {
            var listener = server.PropagationListener;
            if (listener == null) RunHandler(def, ref ctx);
            else if (RunPropagating(listener, def, ref ctx, buffer, i)) NotePropagated(session);
        }
        finally
        {
            if (noTouch) KeyAccess.NoTouch = false;
            if (master) ShardStore.RunningMasterCommand = false;
        }
        long end = measure ? Stopwatch.GetTimestamp() : 0;
        clock = end;
        // A command that did not complete at once is not a call yet (Redis 7.2 counts it once): a
        // MIGRATE whose transfer is in flight counts when its second step replies; a command that
        // parked its client on keys counts when it runs again or its wait ends
        // (BatchExecutor.Blocking.cs), so a BLPOP that waited and was served is calls=1, and an
        // XREADGROUP whose key went away calls=1, failed_calls=1.
        if (session.Migration == null
            && session.Blocked is not { Kind: BlockedOn.List or BlockedOn.SortedSet or BlockedOn.Stream })
            server.CommandStats.Record(def.Id, timed ? end - start : -1, ctx.Failed);
        // The caller holds this shard's gate: the only writer of its counter.
        if (shard >= 0) server.Shards[shard].CommandsProcessed++;
        if (measure && !server.Rdb.Loading)
        {
            long micros = (end - start) * 1_000_000 / Stopwatch.Frequency;
            long slower = server.Config.SlowlogLogSlowerThan;
            if (slowlog && slower >= 0 && micros >= slower) LogSlow(server, session, buffer, i, micros);
            // As Redis: whole microseconds, recorded as nanoseconds (a command under 1 µs counts as 1 ns).
            if (latencyTracking) server.Latencies.Record(def.Id, micros * 1000);
            if (threshold > 0 && micros / 1000 >= threshold)
                server.Latency.AddIfNeeded((def.Flags & CommandFlags.Fast) != 0 ? LatencyMonitor.Events.FastCommand : LatencyMonitor.Events.Command, micros / 1000);
        }
        if ((def.Flags & CommandFlags.Write) != 0 && !ctx.Failed && !ctx.Unchanged) server.Rdb.Changed();
        if ((def.Flags & CommandFlags.Write) != 0 && !ctx.Failed && !ctx.Unchanged && !ctx.SignalledItself
            && (Volatile.Read(ref server.WatchedKeyCount) > 0 || Volatile.Read(ref server.BlockedClientCount) > 0
                || tracking != null || server.Tracking.Active))
            SignalModifiedKeys(server, session, buffer, i, def, ctx.DbIndex, nowMs);
        if (tracking != null)
        {
            if ((def.Flags & CommandFlags.ReadOnly) != 0) RememberKeys(server, session, buffer, i, def, nowMs);
            tracking.Exit(session, sink);
        }
        if (monitor && server.Monitors.Active) FeedMonitors(server, session, buffer, i, def);
        // CLIENT CACHING holds for the next command only (or the next transaction), as Redis's resetClient.
        if ((session.Tracking & PubSub.TrackingFlags.Caching) != 0 && !session.InMulti && !session.InExec
            && def.Parent?.Name != "client")
            session.Tracking &= ~PubSub.TrackingFlags.Caching;
        return !ctx.Failed;
    }

    /// <summary>
    /// ClusterRouting's second step, with the command's gates held: true when it answered -ASK or
    /// -TRYAGAIN instead of running the command.
    /// </summary>
    private static bool ClusterRecheckRefused(RedisServer server, ClientSession session, CommandBuffer buffer, int i, CommandDef def,
        IBufferWriter<byte> sink, long nowMs)
    {
        session.ClusterRecheck = false;
        if (ClusterRouting.Recheck(server, session, buffer, i, def, nowMs, session.ClusterRecheckAsking) is not { } error) return false;
        server.CommandStats.Rejected(def.Id);
        server.Stats.CountError(error[..error.IndexOf(' ')]);
        new RespWriter(sink, session.Protocol).Error(error);
        return true;
    }

    /// <summary>
    /// A read-only command ran while tracking is active: its keys are remembered for the client
    /// executing it (a script's caller), as Redis's call() does; EVAL_RO, EVALSHA_RO and FCALL_RO
    /// themselves are not, only the commands the script runs.
    /// </summary>
    [System.Runtime.CompilerServices.SkipLocalsInit]
    private static void RememberKeys(RedisServer server, ClientSession session, CommandBuffer buffer, int i,
        CommandDef def, long nowMs)
    {
        if (def.Handler == Scripting.ScriptCommands.EvalRo || def.Handler == Scripting.ScriptCommands.EvalShaRo
            || def.Handler == Scripting.FunctionCommands.FCallRo || (def.Flags & CommandFlags.PubSub) != 0) return;
        var reader = PubSub.ClientTracking.ExecutingReader();
        if (reader == null) return;
        Span<int> positions = stackalloc int[64];
        int n = KeyRouting.Positions(server, session, buffer, i, def, nowMs, positions);
        if (n > positions.Length)
        {
            positions = new int[n];
            n = Math.Min(n, KeyRouting.Positions(server, session, buffer, i, def, nowMs, positions));
        }
        for (int k = 0; k < n; k++) server.Tracking.Remember(reader, buffer.Arg(i, positions[k]));
    }

    /// <summary>Runs the handler; an exception it throws becomes an error reply, as Redis's would be.</summary>
    private static void RunHandler(CommandDef def, ref CommandContext ctx)
    {
        try
        {
            def.Handler(ref ctx);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            ctx.Error(RespErrors.Err(ex.Message));
        }
    }

    /// <summary>
    /// <see cref="RunHandler"/> inside a propagation unit (its own, or the EXEC around it), when a
    /// listener is attached: the command's writes are logged after it ran. True when the unit it
    /// closed went to the listeners.
    /// </summary>
    private static bool RunPropagating(IPropagationListener listener, CommandDef def, ref CommandContext ctx,
        CommandBuffer buffer, int i)
    {
        var log = PropagationLog.Enter(listener);
        bool propagated = false;
        try
        {
            if (log.Outermost && (def == ScanDef || def == RandomKeyDef)) log.NoTransaction();
            var saved = log.BeginCommand();
            RunHandler(def, ref ctx);
            LogPropagation(log, ref ctx, buffer, i, def, saved);
        }
        finally
        {
            propagated = log.Exit();
        }
        return propagated;
    }

    /// <summary>
    /// A unit of <paramref name="session"/>'s just went to the listeners on this thread: remembers
    /// where it landed in the AOF and the replication stream, which WAITAOF, WAIT and appendfsync
    /// always wait for.
    /// </summary>
    internal static void NotePropagated(ClientSession session)
    {
        long appended = Persistence.AofWriter.ThreadSequence;
        if (appended != 0)
        {
            Persistence.AofWriter.ThreadSequence = 0;
            if (appended > session.AofSequence) session.AofSequence = appended;
        }
        long replicated = Replication.ReplicationState.ThreadOffset;
        if (replicated != 0)
        {
            Replication.ReplicationState.ThreadOffset = 0;
            if (replicated > session.ReplOffset) session.ReplOffset = replicated;
        }
    }

    /// <summary>
    /// Logs what the command propagates, as Redis's call() does: its rewrite, or its arguments as sent,
    /// when it is a write that changed the dataset (or it forced propagation); nothing otherwise.
    /// </summary>
    private static void LogPropagation(PropagationLog log, ref CommandContext ctx, CommandBuffer buffer, int i,
        CommandDef def, PropagationLog.SavedCommand saved)
    {
        bool changed = (def.Flags & CommandFlags.Write) != 0 && !ctx.Failed && !ctx.Unchanged;
        if (!log.EndCommand(changed, saved, out var target)) return;
        log.Also(ctx.DbIndex, target);
        int argc = buffer.ArgCount(i);
        for (int a = 0; a < argc; a++) log.Add(buffer.Arg(i, a));
        log.Close();
    }

    /// <summary>
    /// Adds the command to SLOWLOG as Redis keeps it: at most 32 arguments (the last one then says
    /// how many more there were), each cut at 128 bytes with how many more there were; AUTH's and
    /// HELLO AUTH's secrets as "(redacted)".
    /// </summary>
    private static void LogSlow(RedisServer server, ClientSession session, CommandBuffer buffer, int i, long micros)
    {
        long max = server.Config.SlowlogMaxLen;
        if (max <= 0) return;
        int argc = buffer.ArgCount(i);
        Redaction(buffer, i, out int redactFrom, out int redactTo);
        int kept = Math.Min(argc, SlowLog.MaxArgs);
        var args = new byte[kept][];
        for (int a = 0; a < kept; a++)
        {
            if (kept != argc && a == kept - 1)
            {
                args[a] = System.Text.Encoding.ASCII.GetBytes($"... ({argc - kept + 1} more arguments)");
                continue;
            }
            if ((a >= redactFrom && a <= redactTo) || IsSensitiveConfigValue(buffer, i, a))
            {
                args[a] = "(redacted)"u8.ToArray();
                continue;
            }
            var arg = buffer.Arg(i, a);
            args[a] = arg.Length > SlowLog.MaxArgBytes
                ? [.. arg[..SlowLog.MaxArgBytes], .. System.Text.Encoding.ASCII.GetBytes($"... ({arg.Length - SlowLog.MaxArgBytes} more bytes)")]
                : arg.ToArray();
        }
        string peer = session.IsScriptClient ? "?:0" : session.Address;
        server.SlowLog.Push(DateTimeOffset.UtcNow.ToUnixTimeSeconds(), micros, args, peer, session.Name ?? "", max);
    }

    /// <summary>The arguments Redis hides from MONITOR and SLOWLOG: AUTH's, and HELLO's after AUTH; none is (-1, -1).</summary>
    private static void Redaction(CommandBuffer buffer, int i, out int from, out int to)
    {
        from = -1;
        to = -1;
        var name = buffer.Arg(i, 0);
        if (System.Text.Ascii.EqualsIgnoreCase(name, "AUTH"u8))
        {
            from = 1;
            to = int.MaxValue;
            return;
        }
        int argc = buffer.ArgCount(i);
        // ACL SETUSER's user name and rules (passwords among them), as Redis 7.2 hides them.
        if (System.Text.Ascii.EqualsIgnoreCase(name, "ACL"u8) && argc >= 3 && System.Text.Ascii.EqualsIgnoreCase(buffer.Arg(i, 1), "SETUSER"u8))
        {
            from = 2;
            to = int.MaxValue;
            return;
        }
        // MIGRATE's AUTH password and AUTH2 user name and password, as Redis redacts them.
        if (System.Text.Ascii.EqualsIgnoreCase(name, "MIGRATE"u8))
        {
            for (int a = 6; a < argc; a++)
            {
                if (System.Text.Ascii.EqualsIgnoreCase(buffer.Arg(i, a), "KEYS"u8)) return;
                bool auth2 = System.Text.Ascii.EqualsIgnoreCase(buffer.Arg(i, a), "AUTH2"u8);
                if (!auth2 && !System.Text.Ascii.EqualsIgnoreCase(buffer.Arg(i, a), "AUTH"u8)) continue;
                int last = Math.Min(a + (auth2 ? 2 : 1), argc - 1);
                if (last == a) return;
                if (from < 0) from = a + 1;
                to = last;
                a = last;
            }
            return;
        }
        if (!System.Text.Ascii.EqualsIgnoreCase(name, "HELLO"u8)) return;
        for (int a = 2; a + 2 < argc; a++)
            if (System.Text.Ascii.EqualsIgnoreCase(buffer.Arg(i, a), "AUTH"u8))
            {
                from = a + 1;
                to = a + 2;
                return;
            }
    }

    /// <summary>
    /// CONFIG SET's value for a sensitive parameter (requirepass, masterauth, masteruser), which
    /// Redis hides from SLOWLOG (CONFIG is admin, so MONITOR never shows it).
    /// </summary>
    private static bool IsSensitiveConfigValue(CommandBuffer buffer, int i, int a)
    {
        if (a < 3 || (a & 1) == 0 || !System.Text.Ascii.EqualsIgnoreCase(buffer.Arg(i, 0), "CONFIG"u8)
            || !System.Text.Ascii.EqualsIgnoreCase(buffer.Arg(i, 1), "SET"u8)) return false;
        var name = buffer.Arg(i, a - 1);
        return System.Text.Ascii.EqualsIgnoreCase(name, "requirepass"u8) || System.Text.Ascii.EqualsIgnoreCase(name, "masterauth"u8)
               || System.Text.Ascii.EqualsIgnoreCase(name, "masteruser"u8);
    }

    /// <summary>Shows a command that ran to MONITOR clients, unless Redis keeps it from them.</summary>
    public static void FeedMonitors(RedisServer server, ClientSession session, CommandBuffer buffer, int i, CommandDef def)
    {
        // A subcommand's own flags decide (CONFIG GET is admin, CLIENT ID is not), as in Redis.
        if ((def.Flags & (CommandFlags.Admin | CommandFlags.SkipMonitor)) != 0) return;
        Redaction(buffer, i, out int redactFrom, out int redactTo);
        server.Monitors.Feed(session.Db, session.Address, buffer, i, redactFrom, redactTo);
    }

    /// <summary>
    /// While a background save runs: before a write command changes its keys in place, each key the
    /// snapshot has not written yet is written as it still is (see RdbSnapshot). Every key of the
    /// command counts (the ones it only reads are written early, which is harmless); keys it creates
    /// or deletes the databases report themselves. Allocates nothing unless the command has more
    /// keys than the stack buffer holds.
    /// </summary>
    [System.Runtime.CompilerServices.SkipLocalsInit]
    private static void WriteAheadOfSnapshot(RedisServer server, ClientSession session, CommandBuffer buffer, int i,
        CommandDef def, long nowMs)
    {
        Span<int> positions = stackalloc int[64];
        int n = KeyRouting.Positions(server, session, buffer, i, def, nowMs, positions);
        if (n > positions.Length)
        {
            positions = new int[n];
            n = Math.Min(n, KeyRouting.Positions(server, session, buffer, i, def, nowMs, positions));
        }
        var shards = server.Shards;
        for (int k = 0; k < n; k++)
        {
            var key = buffer.Arg(i, positions[k]);
            var database = shards[shards.ShardOf(key)].Store[session.Db];
            if (database.Owner.Snapshot is not { } hook) continue;
            int slot = database.Table.Find(key);
            if (slot >= 0) hook.BeforeChange(database, slot);
        }
    }

    /// <summary>After a write: tells the watchers and blocked clients of the keys it modified (Redis's signalModifiedKey).</summary>
    /// <remarks>
    /// Keys the command only reads (its key specs say RO, e.g. SINTERSTORE's sources, SORT's input
    /// with STORE) are left alone, as Redis signals only the keys it modifies. Runs only while some
    /// client watches or waits on something, so the argument copy it needs is no hot-path cost.
    /// </remarks>
    [System.Runtime.CompilerServices.SkipLocalsInit]
    private static void SignalModifiedKeys(RedisServer server, ClientSession session, CommandBuffer buffer, int i,
        CommandDef def, int db, long nowMs)
    {
        int argc = buffer.ArgCount(i);
        var args = new byte[argc][];
        for (int a = 0; a < argc; a++) args[a] = buffer.Arg(i, a).ToArray();
        var keys = new List<(int Position, KeySpecFlags Flags)>();
        if (!CommandMetadata.TryGetKeysFromSpecs(def, args, keys))
        {
            keys.Clear();
            Span<int> positions = stackalloc int[256];
            int n = Math.Min(KeyRouting.Positions(server, session, buffer, i, def, nowMs, positions), positions.Length);
            for (int k = 0; k < n; k++) keys.Add((positions[k], KeySpecFlags.RW));
        }
        var shards = server.Shards;
        foreach (var (position, flags) in keys)
        {
            if ((flags & KeySpecFlags.RO) != 0) continue;
            var key = args[position];
            var database = shards[shards.ShardOf(key)].Store[db];
            if (database.HasWatchers) database.SignalModified(key);
            if (database.HasBlocked) database.WakeBlocked(key);
        }
    }
}
