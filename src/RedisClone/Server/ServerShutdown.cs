using RedisClone.Commands;

namespace RedisClone.Server;

/// <summary>
/// Stopping the server, for SHUTDOWN and for SIGTERM / SIGINT (docker stop, systemd, Ctrl+C), in
/// Redis 7.2's steps and with its log lines: hold every client, kill a background save or AOF
/// rewrite, write and fsync the AOF, write the RDB file when asked to (save points, SAVE, the
/// shutdown-on-sig* configs), remove the pid file, stop listening, then close the connections once
/// their replies are delivered. A save that fails keeps the server running, unless FORCE.
/// </summary>
/// <remarks>
/// <para>Redis runs its stop on its one thread, between two commands. Here commands run on many
/// threads, so the stop first holds every client's next command (<see cref="ClientPause.HoldForShutdown"/>)
/// and waits until no client is in the middle of running one (<see cref="ClientSession.Executing"/>):
/// from then on nothing changes the data, and the final save holds exactly what clients were
/// answered. Then, unlike Redis (which exits with replies still queued and resets connections
/// whose input it has not read), every reply already computed is delivered before its connection
/// closes (see Network/ClientConnection's drain).</para>
/// <para>With replicas, the stop first waits up to shutdown-timeout seconds for them to acknowledge
/// the whole stream (not with NOW), as Redis 7 does.</para>
/// </remarks>
internal sealed class ServerShutdown
{
    /// <summary>How long connections have, once the data is safe, to take their last replies and close.</summary>
    private static readonly TimeSpan DrainTimeout = TimeSpan.FromMilliseconds(500);

    private readonly RedisServer _server;
    private readonly Lock _lock = new();
    private bool _running;        // a stop is under way (one at a time)
    private bool _signalled;      // Redis's shutdown_asap: a signal asked for a stop not yet over or failed
    private TaskCompletionSource<bool>? _outcome; // the stop under way: whether the server is stopping

    public ServerShutdown(RedisServer server) => _server = server;

    /// <summary>
    /// SIGTERM or SIGINT, as Redis's sigShutdownHandler and the serverCron that acts on it: the
    /// stop runs on a thread of its own with the flags of shutdown-on-sigterm / shutdown-on-sigint.
    /// A second signal while a signalled stop is under way exits at once, with status 1 and without
    /// the RDB file being written ("You insist..."). Redis does that for a SIGINT only and merely logs
    /// a second SIGTERM; here a second SIGTERM forces the exit too, so that an orchestrator or a user
    /// who signals again is not kept waiting by a slow save.
    /// </summary>
    public void OnSignal(bool sigint)
    {
        string name = sigint ? "SIGINT" : "SIGTERM";
        bool start;
        lock (_lock)
        {
            if (_signalled)
            {
                _server.Log.Warning("You insist... exiting now.");
                Persistence.RdbOutput.RemoveTempFiles(Path.GetDirectoryName(Path.GetFullPath(_server.Config.RdbPath)) ?? ".");
                _server.Log.Dispose();
                Environment.Exit(1); // not a clean stop
            }
            bool loading = _server.Rdb.Loading;
            _server.Log.Warning(loading ? "Received shutdown signal during loading, scheduling shutdown." : $"Received {name} scheduling shutdown...");
            start = !_signalled && !_running;
            _signalled = true;
        }
        if (!start) return;
        var thread = new Thread(() =>
        {
            if (!_server.Started)
            {
                StopWhileStarting();
                return;
            }
            var flags = sigint ? _server.Config.ShutdownOnSigint : _server.Config.ShutdownOnSigterm;
            Run(flags);
        }) { IsBackground = true, Name = "shutdown" };
        thread.Start();
    }

    /// <summary>
    /// Runs the stop with <paramref name="flags"/> (Redis's prepareForShutdown and finishShutdown).
    /// True when the server is stopping: its data is saved as asked and the connections are being
    /// closed. False when it failed, logged, and the server goes on serving. Blocks: never call it
    /// on an event loop thread. <paramref name="caller"/> is the client running SHUTDOWN, if any.
    /// </summary>
    public bool Run(ShutdownFlags flags, ClientSession? caller = null)
    {
        TaskCompletionSource<bool>? other;
        lock (_lock)
        {
            other = _running ? _outcome : null;
            if (other == null)
            {
                _running = true;
                _outcome = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            }
        }
        if (other != null)
        {
            // A SHUTDOWN that got past the hold as another stop started: it ends as that stop does,
            // which must not wait for this client meanwhile.
            if (caller != null) Volatile.Write(ref caller.Executing, 0);
            bool stopping = other.Task.GetAwaiter().GetResult();
            if (caller != null) Interlocked.Exchange(ref caller.Executing, 1);
            return stopping;
        }
        var log = _server.Log;
        if (_server.Rdb.Loading) flags = (flags & ~ShutdownFlags.Save) | ShutdownFlags.NoSave;
        bool nosave = (flags & ShutdownFlags.NoSave) != 0, save = (flags & ShutdownFlags.Save) != 0;
        bool force = (flags & ShutdownFlags.Force) != 0;
        log.Notice("User requested shutdown...");

        _server.Pause.HoldForShutdown();
        // SHUTDOWN NOSAVE is how a busy script is stopped for good: Redis exits from inside it, so
        // the script's client (whoever is mid-command) gets no reply. Otherwise a running script
        // ends first, as Redis acts on a signal only once it has.
        if (nosave && caller != null && _server.ScriptWatchdog.BusyKind != Scripting.ScriptKind.None)
        {
            foreach (var session in _server.Clients.Values)
                if (session != caller && Volatile.Read(ref session.Executing) != 0) session.Kill();
            _server.ScriptWatchdog.KillForShutdown(TimeSpan.FromSeconds(1));
        }
        WaitForRunningCommands(caller);
        // Writes are held: replicas get shutdown-timeout seconds to acknowledge the whole stream
        // (Redis 7's wait for lagging replicas), unless NOW.
        if ((flags & ShutdownFlags.Now) == 0) _server.Replication.Master.WaitBeforeShutdown(_server.Config.ShutdownTimeout);

        if (_server.Rdb.InProgress)
        {
            log.Warning("There is a child saving an .rdb. Killing it!");
            _server.Rdb.AbortBackgroundForShutdown();
        }
        var aof = _server.AofFiles;
        if (aof is { RewriteInProgress: true })
        {
            // The AOF being turned on has no base file until its first rewrite ends: the files
            // would not hold the dataset.
            if (aof.InitialRewrite)
            {
                if (!force) return Failed("Writing initial AOF, can't exit.");
                log.Warning("Writing initial AOF. Exit anyway.");
            }
            log.Warning("There is a child rewriting the AOF. Killing it!");
            aof.AbortRewriteForShutdown();
        }
        if (_server.Config.AppendOnly)
        {
            log.Notice("Calling fsync() on the AOF file.");
            if (_server.Aof?.FlushAndSync() is { } error) log.Warning($"Fail to fsync the AOF file: {error}.");
        }
        if ((_server.Config.SavePoints.Length > 0 && !nosave) || save)
        {
            log.Notice("Saving the final RDB snapshot before exiting.");
            if (_server.Replica.BetweenBatches(() => _server.WithAllGates(_server.Rdb.SaveForeground)) != null)
            {
                if (!force) return Failed("Error trying to save the DB, can't exit.");
                log.Warning("Error trying to save the DB. Exit anyway.");
            }
        }
        _server.RemovePidFile();
        _server.StopListening();
        log.Warning("Redis is now ready to exit, bye bye...");
        _ = Task.Run(() => _server.StopAsync(DrainTimeout));
        _outcome!.TrySetResult(true);
        return true;
    }

    /// <summary>The stop cannot go on: logged as Redis does, and the server goes on as before it.</summary>
    private bool Failed(string reason)
    {
        _server.Log.Warning(reason);
        _server.Log.Warning("Errors trying to shut down the server. Check the logs for more information.");
        _server.Pause.EndShutdownHold(closing: false);
        TaskCompletionSource<bool> outcome;
        lock (_lock)
        {
            _running = false;
            _signalled = false; // as Redis's cancelShutdown: a signal during the failed stop is forgotten
            outcome = _outcome!;
        }
        outcome.TrySetResult(false);
        return false;
    }

    /// <summary>
    /// Waits until no client (other than <paramref name="caller"/>) is running a command: each
    /// running batch either ends or reaches a command the hold keeps back. A script runs to its
    /// end, as Redis acts on a signal only once it has.
    /// </summary>
    private void WaitForRunningCommands(ClientSession? caller)
    {
        while (true)
        {
            bool running = false;
            foreach (var session in _server.Clients.Values)
            {
                if (session == caller || Volatile.Read(ref session.Executing) == 0) continue;
                running = true;
                break;
            }
            if (!running) return;
            Thread.Sleep(1);
        }
    }

    /// <summary>
    /// A signal before the server serves (it is loading its data): nothing may be saved (half the
    /// data is loaded), so it exits from here, with Redis's lines, as Redis exits from its loading loop.
    /// </summary>
    private void StopWhileStarting()
    {
        var log = _server.Log;
        log.Notice("User requested shutdown...");
        if (_server.Config.AppendOnly) log.Notice("Calling fsync() on the AOF file.");
        _server.RemovePidFile();
        log.Warning("Redis is now ready to exit, bye bye...");
        log.Dispose();
        Environment.Exit(0);
    }
}
