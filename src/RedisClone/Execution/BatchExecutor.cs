using System.Buffers;
using System.IO.Pipelines;
using System.Numerics;
using System.Runtime.CompilerServices;
using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Server;
using RedisClone.Sharding;

namespace RedisClone.Execution;

/// <summary>
/// Runs one connection's parsed batches: checks each command (<see cref="CommandChecks"/>), groups
/// runs of single-shard commands into segments, runs multi-shard and whole-keyspace commands with
/// every gate they need, queues commands inside MULTI and runs EXEC, and parks the connection on a
/// blocking command. Replies go into the connection's output in command order. See the threading
/// essay in Sharding/ShardSet.cs for why no thread here ever waits for a gate.
/// </summary>
internal sealed partial class BatchExecutor : IShardBatchRunner
{
    private const int FlushThreshold = 64 * 1024;
    private const int GateSpins = 20;

    private readonly RedisServer _server;
    private readonly PipeWriter _output;
    private readonly ShardBatchWork?[] _work;
    private readonly CancellationToken _closed;
    private LockedWork? _lockedWork;
    private CommandBuffer _commands = null!;

    // Per command of the current batch.
    private CommandDef?[] _defs = new CommandDef?[64];
    private int[] _shardOf = new int[64];
    private int[] _replyStart = new int[64];
    private int[] _replyEnd = new int[64];
    private long _nowMs;

    // The error of the command Classify just rejected: replied in order, after earlier commands.
    private CommandDef? _rejectedDef;
    private string? _rejectedError;

    public BatchExecutor(RedisServer server, ClientSession session, PipeWriter output, CancellationToken closed)
    {
        _server = server;
        Session = session;
        _output = output;
        _closed = closed;
        _work = new ShardBatchWork?[server.Shards.Count];
    }

    public ClientSession Session { get; }

    public SegmentSignal Signal { get; } = new();

    /// <summary>
    /// True when replies were flushed mid-batch (past the threshold): Redis would have had them
    /// queued, which decides whether the connection closes quietly after QUIT (see ClientConnection).
    /// </summary>
    public bool FlushedMidBatch { get; set; }

    /// <summary>
    /// The Stopwatch timestamp the batch's last command ended at, when it ran in a segment on this
    /// thread and was timed (0 otherwise): the connection takes the time it last wrote a reply from
    /// it without reading the clock again. Reset by the connection before each batch.
    /// </summary>
    public long LastClock { get; set; }

    private enum Kind { Segment, Direct, Locked, Script, AwaitScript, Rejected, Queue, QueueChecked, Exec, DropReplica }

    /// <summary>
    /// Runs the batch in <paramref name="commands"/>: segments of single-shard commands, and the rest
    /// one by one. False when the connection must end now without reading on (the client went away
    /// while blocked, or its output was closed): nothing it sent later may run.
    /// </summary>
    /// <remarks>
    /// From here until the connection ends the batch (<see cref="EndBatch"/>) the client counts as
    /// running commands, less the waits inside (see ClientSession.Executing). A full fence: either
    /// this batch sees a stop's hold at its first command or the stop sees it running.
    /// </remarks>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<bool> ExecuteAsync(CommandBuffer commands, long nowMs)
    {
        Interlocked.Exchange(ref Session.Executing, 1);
        _commands = commands;
        _nowMs = nowMs;
        int n = commands.Count;
        EnsureCapacity(n);
        var output = _output;
        int segStart = 0, segCount = 0;
        ulong segMask = 0;
        int scriptStart = 0, scriptCount = 0;
        long segBytes = 0;
        for (int i = 0; i < n; i++)
        {
            // maxmemory is checked before each command as Redis does; commands gathered into a
            // segment are checked before the ones ahead of them ran. Near the limit (what is used
            // plus what the pending segment may add would pass it), the segment runs first, so
            // the check sees its writes and a pipeline cannot overshoot the limit by its length.
            if (segCount > 0 && _server.Config.MaxMemory is var max && max != 0)
            {
                segBytes += PendingBytes(commands, i - 1);
                if ((ulong)(_server.Evictor.UsedMemory() + segBytes) > max)
                {
                    if (!await RunSegmentAsync(segStart, segCount, segMask)) return false;
                    segCount = 0;
                    segMask = 0;
                    segBytes = 0;
                }
            }
            var kind = Classify(i, out ulong mask);
            if (Session.TrackingAhead is { Count: > 0 })
            {
                // maxmemory evicted keys this client tracks: their invalidations go after the replies
                // of the commands before this one and ahead of its own.
                if (segCount > 0 && !await RunSegmentAsync(segStart, segCount, segMask)) return false;
                if (scriptCount > 0 && !await RunScriptsAsync(scriptStart, scriptCount)) return false;
                segCount = scriptCount = 0;
                segMask = 0;
                segBytes = 0;
                _server.Tracking.TakeAhead(Session, output);
            }
            if (kind is not (Kind.Rejected or Kind.DropReplica) && _server.Pause.Active && _server.Pause.Holds(_defs[i]!, Session, commands, i))
            {
                // CLIENT PAUSE: what came before runs and its replies go out; this command waits,
                // then is checked again from the start, as Redis re-processes a postponed client.
                if (segCount > 0 && !await RunSegmentAsync(segStart, segCount, segMask)) return false;
                if (scriptCount > 0 && !await RunScriptsAsync(scriptStart, scriptCount)) return false;
                segCount = scriptCount = 0;
                segMask = 0;
                if (!await WaitWhilePausedAsync()) return false;
                i--;
                continue;
            }
            if (kind == Kind.Segment)
            {
                if (scriptCount > 0)
                {
                    if (!await RunScriptsAsync(scriptStart, scriptCount)) return false;
                    scriptCount = 0;
                }
                if (segCount == 0) segStart = i;
                segCount++;
                segMask |= mask;
                if (_pauseTurn)
                {
                    // Released from a pause: it runs before the next paused client may.
                    if (!await RunSegmentAsync(segStart, segCount, segMask)) return false;
                    segCount = 0;
                    segMask = 0;
                    PassPauseTurn();
                }
                continue;
            }
            if (segCount > 0)
            {
                if (!await RunSegmentAsync(segStart, segCount, segMask)) return false;
                segCount = 0;
                segMask = 0;
            }
            if (kind == Kind.Script)
            {
                // Pipelined scripts go to the shard thread together: one hop for the run.
                if (scriptCount == 0) scriptStart = i;
                scriptCount++;
                if (_pauseTurn)
                {
                    if (!await RunScriptsAsync(scriptStart, scriptCount)) return false;
                    scriptCount = 0;
                    PassPauseTurn();
                }
                continue;
            }
            if (scriptCount > 0)
            {
                if (!await RunScriptsAsync(scriptStart, scriptCount)) return false;
                scriptCount = 0;
            }
            switch (kind)
            {
                case Kind.Direct:
                    RunDirect(i);
                    // WAIT and WAITAOF block without keys: nothing to lock, only the wait.
                    if (Session.Blocked != null)
                    {
                        PassPauseTurn();
                        if (!await WaitWhileBlockedAsync(i, 0)) return false;
                    }
                    break;
                case Kind.Queue:
                    QueueCommand(i, _output);
                    break;
                case Kind.QueueChecked:
                    await RunLockedAsync(mask, LockedAction.QueueChecked, i);
                    break;
                case Kind.Exec:
                    await ExecTransactionAsync(i);
                    break;
                case Kind.Rejected:
                    await Reject(_rejectedDef, _rejectedError!);
                    break;
                case Kind.DropReplica:
                    // Redis 7.2: a replica's link carries ACKs only; a command that would be answered
                    // closes it ("Replica generated a reply ..."), as logInvalidUseAndFreeClientAsync.
                    var replied = _server.Commands.Find(commands.Arg(i, 0));
                    if (replied?.Subcommands != null && commands.ArgCount(i) > 1) replied = replied.FindSubcommand(commands.Arg(i, 1)) ?? replied;
                    _server.Log.Warning($"Replica generated a reply to command '{replied?.FullName ?? "<unknown>"}', disconnecting it: {ConnectionCommands.ClientInfoLine(Session)}");
                    return false;
                case Kind.Locked:
                    await RunLockedAsync(mask, LockedAction.Command, i);
                    PassPauseTurn(); // before a blocking command's wait: it must not hold paused clients back
                    if (Session.Migration is { } migration) await FinishMigrationAsync(migration, mask, i);
                    if (Session.Blocked != null && !await WaitWhileBlockedAsync(i, mask)) return false;
                    break;
                case Kind.AwaitScript:
                    // SCRIPT KILL, FUNCTION KILL/STATS, SHUTDOWN: Redis reads them only once a running
                    // script is busy (or over), so a script that ends in time is not killed.
                    await _server.ScriptWatchdog.WaitBusyOrIdleAsync();
                    // SHUTDOWN waits for other clients' commands and saves: never on an event loop.
                    if (_defs[i]!.Handler == ServerCommands.Shutdown) await RunOffLoopAsync(i);
                    else RunDirect(i);
                    break;
            }
            PassPauseTurn();
            if (StopsMidBatch) return true;
            if (output.UnflushedBytes > FlushThreshold && !await FlushBetweenCommandsAsync()) return false;
        }
        if (segCount > 0 && !await RunSegmentAsync(segStart, segCount, segMask)) return false;
        if (scriptCount > 0 && !await RunScriptsAsync(scriptStart, scriptCount)) return false;
        return !OverOutputLimits();
    }

    /// <summary>
    /// MIGRATE's second step (see <see cref="MigrateCommands"/>): once its transfer is over, with
    /// nothing held meanwhile, the command runs again with its gates, deleting the keys the target
    /// took and replying. The transfer ends on its own (every step has MIGRATE's timeout), so a
    /// client gone meanwhile still has its keys moved, as in Redis, where the disconnect would only
    /// be noticed after the command.
    /// </summary>
    private async ValueTask FinishMigrationAsync(MigrateCommands.PendingMigration migration, ulong mask, int i)
    {
        await migration.Done;
        _nowMs = Now();
        await RunLockedAsync(mask, LockedAction.MigrateFinish, i);
    }

    /// <summary>
    /// Runs command <paramref name="command"/> on a thread pool thread (a lambda here, not in the
    /// batch loop, where capturing the loop's index would allocate for every batch).
    /// </summary>
    private Task RunOffLoopAsync(int command) => Task.Run(() => RunDirect(command));

    /// <summary>The batch <see cref="ExecuteAsync"/> ran is over (its replies written, perhaps not yet sent).</summary>
    public void EndBatch() => Volatile.Write(ref Session.Executing, 0);

    /// <summary>What command <paramref name="i"/> may add to used memory at most, roughly: its arguments and a key's overhead.</summary>
    private static long PendingBytes(CommandBuffer commands, int i)
    {
        long n = 128;
        int argc = commands.ArgCount(i);
        for (int a = 1; a < argc; a++) n += commands.Arg(i, a).Length + 32;
        return n;
    }

    /// <summary>
    /// Checks command <paramref name="i"/> as Redis's processCommand does, keeping the error of a
    /// rejected one for <see cref="ExecuteAsync"/> to reply once the commands before it have
    /// replied; then decides how it runs and which shards' gates it needs.
    /// </summary>
    private Kind Classify(int i, out ulong mask)
    {
        mask = 0;
        if (Session.ReplicaLink is { Attached: true } && CommandChecks.WouldReplyOnReplicaLink(_commands, i)) return Kind.DropReplica;
        var def = CommandChecks.Check(_server, Session, _commands, i, _nowMs, out _rejectedDef, out _rejectedError);
        _defs[i] = def;
        if (def == null) return Kind.Rejected;
        Session.LastCommand = def.FullName;
        if ((Session.InMulti || def == ExecDef) && ClassifyInTransaction(def) is { } txKind)
        {
            // A cluster node's command queued in a slot being migrated or imported: whether it may
            // run here depends on which keys exist, looked at under their gates (QueueCheckedLocked).
            if (txKind != Kind.Queue || !Session.ClusterRecheck) return txKind;
            mask = KeyRouting.ShardMask(_server, Session, _commands, i, def, _nowMs);
            return Kind.QueueChecked;
        }

        switch (def.Routing)
        {
            case Routing.Connection:
                if ((def.Flags & CommandFlags.AllowBusy) != 0 && ((def.Parent ?? def).Group == "scripting" || def.Handler == ServerCommands.Shutdown))
                    return Kind.AwaitScript;
                // Commands that drop WATCHes touch the watched keys' shards.
                mask = DropsWatches(def) ? TransactionCommands.WatchMask(Session) : 0;
                return mask == 0 ? Kind.Direct : Kind.Locked;
            case Routing.AllShards:
                mask = _server.Shards.AllMask;
                return Kind.Locked;
            case Routing.Script:
                mask = _server.Shards.AllMask;
                return Kind.Script;
        }

        mask = KeyRouting.ShardMask(_server, Session, _commands, i, def, _nowMs);
        if (mask == 0) return Kind.Direct;
        // May park the connection (a blocking command, MIGRATE's transfer): never in a segment.
        // A command whose cluster check waits for its keys (ClusterRouting) runs alone, right after
        // this check, so the session's mark is still its own.
        if ((def.Flags & CommandFlags.Blocking) != 0 || def == MigrateDef || Session.ClusterRecheck) return Kind.Locked;
        if (BitOperations.PopCount(mask) == 1 && Session.ReplyMode == ReplyMode.On)
        {
            _shardOf[i] = BitOperations.TrailingZeroCount(mask);
            return Kind.Segment;
        }
        return Kind.Locked;
    }

    private ValueTask Reject(CommandDef? def, string error)
    {
        if (Session.InMulti) Session.MultiDirty = true;
        if (def != null) _server.CommandStats.Rejected(def.Id);
        int space = error.IndexOf(' ');
        var word = space > 0 ? error.AsSpan(0, space) : default;
        string code = word.SequenceEqual("BUSY") ? "BUSY" : word.SequenceEqual("NOAUTH") ? "NOAUTH" : word.SequenceEqual("NOPERM") ? "NOPERM"
            : word.SequenceEqual("OOM") ? "OOM" : word.SequenceEqual("MISCONF") ? "MISCONF" : ClusterCode(word) ?? "ERR";
        // A cluster redirection of EXEC discards the transaction and answers the redirection itself
        // (Redis's processCommand: discardTransaction, clusterRedirectClient), not EXECABORT.
        if (def == ExecDef && _server.Cluster != null && ClusterCode(word) != null)
        {
            _server.Stats.CountError(code);
            if (Session.ReplyMode == ReplyMode.On) new RespWriter(_output, Session.Protocol).Error(error);
            if (Session.ReplyMode == ReplyMode.Skip) Session.ReplyMode = ReplyMode.On;
            Session.EndMulti();
            ulong watched = TransactionCommands.WatchMask(Session);
            return watched == 0 ? ValueTask.CompletedTask : RunLockedAsync(watched, LockedAction.Unwatch, -1);
        }
        // Redis's rejectCommand aborts on any refused EXEC, in MULTI or not (NOAUTH before MULTI ran, too).
        var abort = def == ExecDef;
        _server.Stats.CountError(abort ? "EXECABORT" : code);
        if (Session.IsMaster) _server.Replica.ErrorToMaster(error, def?.FullName);
        // A rejected EXEC ends the transaction, as Redis's execCommandAbort: EXECABORT with the reason.
        if (Session.ReplyMode == ReplyMode.On)
            new RespWriter(_output, Session.Protocol).Error(abort ? RespErrors.ExecAbortBecause(error) : error);
        if (Session.ReplyMode == ReplyMode.Skip) Session.ReplyMode = ReplyMode.On;
        if (!abort) return ValueTask.CompletedTask;
        Session.EndMulti();
        ulong mask = TransactionCommands.WatchMask(Session);
        return mask == 0 ? ValueTask.CompletedTask : RunLockedAsync(mask, LockedAction.Unwatch, -1);
    }

    /// <summary>The error code of a cluster redirection (its first word), or null for another error.</summary>
    private static string? ClusterCode(ReadOnlySpan<char> word)
        => word.SequenceEqual("MOVED") ? "MOVED" : word.SequenceEqual("ASK") ? "ASK" : word.SequenceEqual("CROSSSLOT") ? "CROSSSLOT"
            : word.SequenceEqual("TRYAGAIN") ? "TRYAGAIN" : word.SequenceEqual("CLUSTERDOWN") ? "CLUSTERDOWN" : null;

    /// <summary>Runs command <paramref name="i"/> on this thread, replying into the output (or nowhere, per CLIENT REPLY).</summary>
    private void RunDirect(int i) => RunWithReplyMode(i, _output);

    /// <summary>
    /// Runs command <paramref name="i"/> replying into <paramref name="target"/> when CLIENT REPLY
    /// lets it reply, and keeps the reply mode's state machine going.
    /// </summary>
    private void RunWithReplyMode(int i, IBufferWriter<byte> target, bool monitor = true)
    {
        var mode = Session.ReplyMode;
        var def = _defs[i]!;
        // CLIENT REPLY and RESET turn replies back on before answering, so Redis sends their +OK/+RESET
        // even in OFF/SKIP mode; they write nothing themselves when they leave replies off. The
        // subscribe family's confirmations are pushes, which Redis 7.2 sends whatever CLIENT REPLY
        // says, in RESP2 too (7.0 dropped them).
        IBufferWriter<byte> sink = mode == ReplyMode.On || def.Handler == ConnectionCommands.ClientReply ||
                                   def.Handler == ConnectionCommands.Reset || IsSubscription(def)
            ? target : NullBufferWriter.Instance;
        CommandRunner.Run(_server, Session, _commands, i, def, sink, _nowMs, monitor: monitor);
        if (Session.Migration != null) return; // MIGRATE replies in its second step, under the same mode
        // SKIP drops the reply of the command after CLIENT REPLY SKIP, not its own (there is none).
        if (Session.ReplyMode == ReplyMode.SkipNext) Session.ReplyMode = ReplyMode.Skip;
        else if (mode == ReplyMode.Skip && Session.ReplyMode == ReplyMode.Skip) Session.ReplyMode = ReplyMode.On;
    }

    private static readonly CommandDef MigrateDef = CommandChecks.Find("migrate");

    private static readonly CommandDef[] Subscriptions =
        [CommandChecks.Find("subscribe"), CommandChecks.Find("unsubscribe"), CommandChecks.Find("psubscribe"),
         CommandChecks.Find("punsubscribe"), CommandChecks.Find("ssubscribe"), CommandChecks.Find("sunsubscribe")];

    /// <summary>A command whose replies are subscription confirmations (pushes).</summary>
    private static bool IsSubscription(CommandDef def) => Array.IndexOf(Subscriptions, def) >= 0;

    /// <summary>Called by <see cref="ShardBatchWork"/> on a shard thread.</summary>
    void IShardBatchRunner.RunOnShard(int i, ReplyBuffer replies)
    {
        _replyStart[i] = replies.Written;
        CommandRunner.Run(_server, Session, _commands, i, _defs[i]!, replies, _nowMs, _shardOf[i]);
        _replyEnd[i] = replies.Written;
    }

    /// <summary>Takes the gates in <paramref name="mask"/> without waiting, spinning briefly; false when still contended.</summary>
    private bool TryEnterSpinning(ulong mask)
    {
        var shards = _server.Shards;
        // Gates are held for a segment at a time (microseconds) and never across a wait, so a short
        // spin usually wins them; posting costs two thread wake-ups (the shard's and ours).
        if (shards.TryEnterAll(mask)) return true;
        // Tells a background saver holding one of them to step aside between its turns.
        for (ulong m = mask; m != 0; m &= m - 1) shards[BitOperations.TrailingZeroCount(m)].MarkSpunFor();
        for (int spin = 0; spin < GateSpins; spin++)
        {
            Thread.SpinWait(30);
            if (shards.TryEnterAll(mask)) return true;
        }
        for (ulong m = mask; m != 0; m &= m - 1) Interlocked.Increment(ref shards[BitOperations.TrailingZeroCount(m)].GateWaits);
        return false;
    }

    /// <summary>
    /// Runs commands [start, start+count), each bound to one shard. Without contention the connection
    /// takes the shards' gates and runs them itself; otherwise one work item per shard is posted and
    /// the replies are copied back in command order.
    /// </summary>
    /// <remarks>
    /// Either way the replies waiting for the client stay bounded: past
    /// <see cref="FlushThreshold"/> unflushed bytes the segment stops, the replies are flushed, and it
    /// goes on only once the client has read them (the flush completes). A client pipelining
    /// hundreds of GETs of a large value without reading holds about one reply, not all of them.
    /// </remarks>
    private ValueTask<bool> RunSegmentAsync(int start, int count, ulong mask)
    {
        if (!TryEnterSpinning(mask)) return PostSegmentAsync(start, count, mask);
        int end = start + count, i = start;
        long clock = 0;
        try
        {
            while (i < end)
            {
                CommandRunner.Run(_server, Session, _commands, i, _defs[i]!, _output, _nowMs, _shardOf[i], true, ref clock);
                i++;
                if (_output.UnflushedBytes > FlushThreshold) break;
            }
        }
        finally
        {
            _server.Shards.ExitAll(mask);
        }
        // Only a segment that ran the batch's last command: anything after it (a blocking command
        // that waited) would make this time too early.
        if (end == _commands.Count) LastClock = clock;
        return i == end ? new ValueTask<bool>(true) : FlushThenRunAsync(i, end - i);
    }

    /// <summary>Flushes mid-segment, waiting for the client to read, then runs the rest of it.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<bool> FlushThenRunAsync(int start, int count)
    {
        if (!await FlushMidBatchAsync()) return false;
        ulong mask = 0;
        for (int i = start; i < start + count; i++) mask |= 1UL << _shardOf[i];
        return await RunSegmentAsync(start, count, mask);
    }

    /// <summary>
    /// Call before flushing replies. With appendfsync always: completes once this client's last
    /// write is on disk, so no reply to a write goes out before it is durable. With everysec and no:
    /// this client's writes are written to the file (not fsynced) first, here, as Redis's beforeSleep
    /// writes the AOF before the replies, so a killed process loses no acknowledged write.
    /// </summary>
    public ValueTask WaitForAofAsync()
    {
        var aof = _server.Aof;
        long seq = Session.AofSequence;
        if (aof == null || seq <= aof.Durable) return default;
        if (aof.Policy != Persistence.AofWriter.FsyncPolicy.Always)
        {
            aof.EnsureWritten(seq);
            return default;
        }
        return new ValueTask(aof.WaitDurableAsync(seq));
    }

    /// <summary>
    /// <see cref="FlushMidBatchAsync"/> between two commands, where nothing of the batch is pending:
    /// not counted as running, so a client that does not read its replies cannot hold up a stop
    /// (its next command is checked against the stop's hold first).
    /// </summary>
    private async ValueTask<bool> FlushBetweenCommandsAsync()
    {
        Volatile.Write(ref Session.Executing, 0);
        try
        {
            return await FlushMidBatchAsync();
        }
        finally
        {
            Interlocked.Exchange(ref Session.Executing, 1);
        }
    }

    /// <summary>Flushes the replies so far; false when the output is closed or over its limits.</summary>
    private async ValueTask<bool> FlushMidBatchAsync()
    {
        if (OverOutputLimits()) return false;
        await WaitForAofAsync();
        FlushedMidBatch = true;
        var flushed = await _output.FlushAsync();
        return !flushed.IsCompleted && !flushed.IsCanceled;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<bool> PostSegmentAsync(int start, int count, ulong mask)
    {
        var shards = _server.Shards;
        for (ulong m = mask; m != 0; m &= m - 1)
        {
            int s = BitOperations.TrailingZeroCount(m);
            (_work[s] ??= new ShardBatchWork(this)).Begin();
        }
        int end = start + count;
        for (int i = start; i < end; i++)
        {
            _work[_shardOf[i]]!.Add(i);
            _replyEnd[i] = -1;
        }

        // Rounds: each part runs until its replies pass the budget; the replies are written in
        // command order as far as every command before has run; a part runs again once all it
        // holds is written. The part holding the first command not yet run has written everything
        // it ran, so each round moves on.
        int written = start;
        while (true)
        {
            int parts = 0;
            ulong post = 0;
            for (ulong m = mask; m != 0; m &= m - 1)
            {
                int s = BitOperations.TrailingZeroCount(m);
                var work = _work[s]!;
                if (!work.HasRemaining || work.LastRun >= written) continue;
                work.Replies.Clear();
                post |= 1UL << s;
                parts++;
            }
            var done = Signal.Arm(parts);
            for (ulong m = post; m != 0; m &= m - 1) shards[BitOperations.TrailingZeroCount(m)].Post(_work[BitOperations.TrailingZeroCount(m)]!);
            await done;

            var writer = new RespWriter(_output, Session.Protocol);
            while (written < end && _replyEnd[written] >= 0)
            {
                writer.Raw(_work[_shardOf[written]]!.Replies.Slice(_replyStart[written], _replyEnd[written]));
                written++;
            }
            if (written == end) return true;
            if (_output.UnflushedBytes > FlushThreshold && !await FlushMidBatchAsync()) return false;
        }
    }

    private long _softLimitSinceMs = -1;

    /// <summary>
    /// Redis's checkClientOutputBufferLimits for this client's replies (its class's
    /// client-output-buffer-limit: normal, or pubsub once it subscribed): past the hard limit, or
    /// past the soft one for longer than its seconds, the client is closed, with Redis's log line.
    /// Checked where replies wait to be sent (a mid-batch flush, the batch's end), and only measured
    /// when a limit is set (the normal class has none by default).
    /// </summary>
    private bool OverOutputLimits()
    {
        var (hard, soft, seconds) = Session.InPubSubMode ? _server.Config.PubSubOutputLimits : _server.Config.NormalOutputLimits;
        if (hard == 0 && soft == 0) return false;
        // Redis counts its reply list; the 16 KB reply buffer is not in it.
        long used = Session.Buffers is { } buffers ? buffers.Measure().ReplyBlockBytes : 0;
        bool over = hard > 0 && used >= hard;
        if (!over && soft > 0 && used >= soft)
        {
            long now = Environment.TickCount64;
            if (_softLimitSinceMs < 0) _softLimitSinceMs = now;
            else over = now - _softLimitSinceMs > seconds * 1000L;
        }
        else if (!over)
        {
            _softLimitSinceMs = -1;
        }
        if (!over) return false;
        _server.Log.Warning($"Client id={Session.Id} addr={Session.Address} name={Session.Name} " +
                            "scheduled to be closed ASAP for overcoming of output buffer limits.");
        if (Session.KillForLimit()) Interlocked.Increment(ref _server.Stats.OutputBufferLimitDisconnections);
        return true;
    }

    /// <summary>What a <see cref="LockedWork"/> does once every gate of its mask is held.</summary>
    private enum LockedAction { Command, Scripts, Exec, QueueChecked, BlockedWake, Unregister, UnregisterPassOn, Unwatch, MigrateFinish }

    /// <summary>
    /// Runs <paramref name="action"/> holding every gate in <paramref name="mask"/>: on this thread
    /// when they can all be taken at once, otherwise on the shard thread of the lowest shard in the
    /// mask, which takes the others in ascending order (see Sharding/ShardSet.cs). Replies reach the
    /// output either way, in order.
    /// </summary>
    private ValueTask RunLockedAsync(ulong mask, LockedAction action, int command)
    {
        if (mask == 0)
        {
            RunLocked(action, command, _output);
            return ValueTask.CompletedTask;
        }
        if (!TryEnterSpinning(mask)) return PostLockedAsync(mask, action, command);
        try
        {
            RunLocked(action, command, _output);
        }
        finally
        {
            _server.Shards.ExitAll(mask);
        }
        return ValueTask.CompletedTask;
    }

    /// <summary>
    /// Runs the scripts [start, start+count) on the first shard's thread with every gate held (see
    /// Routing.Script), as few posts as the replies allow: a post stops once its replies pass
    /// <see cref="ShardBatchWork.ReplyBudget"/>, and the rest goes once they are written out.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<bool> RunScriptsAsync(int start, int count)
    {
        int end = start + count;
        while (start < end)
        {
            await PostLockedAsync(_server.Shards.AllMask, LockedAction.Scripts, start, end);
            start = _lockedWork!.Next;
            if (StopsMidBatch) return true;
            if (start < end && _output.UnflushedBytes > FlushThreshold && !await FlushMidBatchAsync()) return false;
        }
        return true;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask PostLockedAsync(ulong mask, LockedAction action, int command, int end = -1)
    {
        var work = _lockedWork ??= new LockedWork(this);
        work.Begin(mask, action, command, end);
        var done = Signal.Arm(1);
        _server.Shards[BitOperations.TrailingZeroCount(mask)].Post(work);
        await done;
        if (work.Replies.Written > 0) _output.Write(work.Replies.Slice(0, work.Replies.Written));
    }

    /// <summary>
    /// A client closed or killed by a command of its batch runs none of the commands after it. Not a
    /// replica's master client: its link passes on the offset of the whole batch once it has run
    /// (CLIENT KILL TYPE master mid-batch would otherwise skip the rest, and the PSYNC from the
    /// offset passed on would never bring it back); the link closes after the batch.
    /// </summary>
    private bool StopsMidBatch => (Session.CloseAfterReply || Session.Killed) && !Session.IsMaster;

    /// <summary>The body of a locked action; the caller holds every gate it needs.</summary>
    private void RunLocked(LockedAction action, int command, IBufferWriter<byte> target)
    {
        switch (action)
        {
            case LockedAction.Command:
                RunWithReplyMode(command, target);
                break;
            case LockedAction.Scripts:
                var work = _lockedWork!;
                int i = command;
                while (i < work.End)
                {
                    RunWithReplyMode(i++, target);
                    if (work.Replies.Written > ShardBatchWork.ReplyBudget || StopsMidBatch) break;
                }
                work.Next = i;
                break;
            case LockedAction.Exec:
                ExecLocked(command, target);
                break;
            case LockedAction.QueueChecked:
                QueueCheckedLocked(command, target);
                break;
            case LockedAction.BlockedWake:
                BlockedWakeLocked(command, target);
                break;
            case LockedAction.Unregister:
                UnregisterLocked(passOn: false);
                break;
            case LockedAction.UnregisterPassOn:
                UnregisterLocked(passOn: true);
                break;
            case LockedAction.Unwatch:
                TransactionCommands.UnwatchAll(_server, Session);
                break;
            case LockedAction.MigrateFinish:
                RunWithReplyMode(command, target, monitor: false); // MONITOR saw it when it started
                break;
        }
    }

    /// <summary>
    /// A locked action posted to the lowest shard of its mask: that shard's thread already holds its
    /// own gate and takes the rest in ascending order, then runs the action.
    /// </summary>
    private sealed class LockedWork : ShardWork
    {
        private readonly BatchExecutor _executor;
        private ulong _mask;
        private LockedAction _action;
        private int _command;

        public LockedWork(BatchExecutor executor) => _executor = executor;

        public ReplyBuffer Replies { get; } = new();

        /// <summary>For <see cref="LockedAction.Scripts"/>: the end of the run, and the first script not run yet.</summary>
        public int End { get; private set; }
        public int Next { get; set; }

        public void Begin(ulong mask, LockedAction action, int command, int end)
        {
            _mask = mask;
            _action = action;
            _command = command;
            End = end;
            Replies.Clear();
        }

        public override void Execute(Shard shard)
        {
            var shards = _executor._server.Shards;
            try
            {
                shards.EnterAll(_mask);
                try
                {
                    _executor.RunLocked(_action, _command, Replies);
                }
                finally
                {
                    shards.ExitAll(_mask);
                }
            }
            finally
            {
                _executor.Signal.PartDone();
            }
        }
    }

    /// <summary>
    /// Drops what the client holds in the keyspace when it goes away: its WATCHes (and, through the
    /// blocking waiter, its place in key queues). Takes the gates like any command.
    /// </summary>
    public ValueTask EndAsync()
    {
        PassPauseTurn();
        ulong mask = TransactionCommands.WatchMask(Session);
        return mask == 0 ? ValueTask.CompletedTask : RunLockedAsync(mask, LockedAction.Unwatch, -1);
    }

    // Set when this client was let go after a CLIENT PAUSE and has not yet run the command it was
    // held on: the next paused client waits for it (see Server/ClientPause).
    private bool _pauseTurn;

    private void PassPauseTurn()
    {
        if (!_pauseTurn) return;
        _pauseTurn = false;
        _server.Pause.PassTurn();
    }

    /// <summary>
    /// Holds the connection while CLIENT PAUSE holds its next command: replies so far are flushed,
    /// then it waits its turn in the pause's queue. False when the client went away meanwhile.
    /// </summary>
    private async ValueTask<bool> WaitWhilePausedAsync()
    {
        PassPauseTurn(); // held again right after being let go: the others go on
        Volatile.Write(ref Session.Executing, 0); // nothing of the batch is pending: a stop need not wait for it
        await WaitForAofAsync();
        var flushed = await _output.FlushAsync();
        if (flushed.IsCompleted || flushed.IsCanceled) return false;
        Session.Paused = true;
        try
        {
            var released = _server.Pause.Enqueue(out object ticket);
            if (_closed.CanBeCanceled) await Task.WhenAny(released, Task.Delay(Timeout.Infinite, _closed));
            else await released;
            if (!released.IsCompleted || _closed.IsCancellationRequested)
            {
                _server.Pause.Forget(ticket);
                return false;
            }
        }
        finally
        {
            Session.Paused = false;
            Interlocked.Exchange(ref Session.Executing, 1);
        }
        if (Session.Draining) return false; // let go because the server stops: the connection ends
        _pauseTurn = true;
        _nowMs = Now();
        return true;
    }

    private void EnsureCapacity(int n)
    {
        if (_defs.Length >= n) return;
        int size = (int)BitOperations.RoundUpToPowerOf2((uint)n);
        _defs = new CommandDef?[size];
        _shardOf = new int[size];
        _replyStart = new int[size];
        _replyEnd = new int[size];
    }
}
