using System.Diagnostics;
using RedisClone.Common;
using RedisClone.Server;

namespace RedisClone.Persistence;

/// <summary>
/// The server's RDB state: the changes since the last save, the background save in progress, the
/// save points that start one, and the figures INFO persistence reports. SAVE and BGSAVE come in
/// with every gate held; the background save then runs on its own thread.
/// </summary>
internal sealed class RdbSaves
{
    /// <summary>CONFIG_BGSAVE_RETRY_DELAY: after a failed background save, save points wait this long.</summary>
    private const long RetryDelaySeconds = 5;

    private readonly RedisServer _server;
    private readonly StripedCounter _dirty = new();
    private long _dirtyAtSave;
    private RdbSnapshot? _running;
    private long _runningSince;

    public RdbSaves(RedisServer server)
    {
        _server = server;
        LastSaveUnix = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
    }

    public long LastSaveUnix { get; private set; }
    public bool LastBackgroundOk { get; private set; } = true;
    public long LastBackgroundSeconds { get; private set; } = -1;
    public long LastBackgroundTryUnix { get; private set; }
    public long Saves { get; private set; }
    public long LastAheadBytes { get; private set; }
    public long LastLoadKeysLoaded { get; set; }
    public long LastLoadKeysExpired { get; set; }
    /// <summary>True while the dataset loads at start-up (commands without the ok-loading flag answer -LOADING).</summary>
    public bool Loading
    {
        get => Volatile.Read(ref _loading);
        set => Volatile.Write(ref _loading, value);
    }
    private bool _loading;

    public long LoadingStartUnix { get; private set; }
    public long LoadingTotalBytes { get; private set; }
    public long LoadingLoadedBytes { get; private set; }
    private long _loadingStarted;

    /// <summary>A load begins: INFO's loading_* fields from here on.</summary>
    public void BeginLoading(long totalBytes)
    {
        LoadingStartUnix = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        LoadingTotalBytes = totalBytes;
        LoadingLoadedBytes = 0;
        _loadingStarted = Stopwatch.GetTimestamp();
    }

    public void LoadingProgress(long loadedBytes) => LoadingLoadedBytes = loadedBytes;

    /// <summary>Seconds the load should still take at its pace so far (Redis's loading_eta_seconds; 1 until it can tell).</summary>
    public long LoadingEtaSeconds
    {
        get
        {
            double elapsed = Stopwatch.GetElapsedTime(_loadingStarted).TotalSeconds;
            if (LoadingLoadedBytes == 0 || LoadingTotalBytes == 0) return 1;
            return (long)((LoadingTotalBytes - LoadingLoadedBytes) / (LoadingLoadedBytes / Math.Max(elapsed, 0.001)));
        }
    }

    /// <summary>A background save asked for while it could not start (BGSAVE inside MULTI): started by the cron.</summary>
    public bool Scheduled { get; set; }

    /// <summary>True while a background save runs.</summary>
    public bool InProgress => Volatile.Read(ref _running) != null;

    /// <summary>Seconds the current background save has run, -1 when none.</summary>
    public long CurrentSeconds => InProgress ? (Stopwatch.GetTimestamp() - _runningSince) / Stopwatch.Frequency : -1;

    /// <summary>Writes changed the dataset (rdb_changes_since_last_save counts them).</summary>
    public void Changed(long count = 1) => _dirty.Add(count);

    public long ChangesSinceSave => _dirty.Value - Volatile.Read(ref _dirtyAtSave);

    /// <summary>SAVE, SHUTDOWN, DEBUG RELOAD: writes the file now; the caller holds every gate. Null or the error.</summary>
    public string? SaveForeground()
    {
        long dirty = _dirty.Value;
        try
        {
            new RdbSnapshot(_server, background: false).Run();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            _server.Log.Warning(SaveErrorLine(ex));
            return ex.Message;
        }
        _server.Log.Notice("DB saved on disk");
        Volatile.Write(ref _dirtyAtSave, dirty);
        LastSaveUnix = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        Saves++;
        // As Redis's rdbSave: a save that worked ends a MISCONF of a failed background save.
        LastBackgroundOk = true;
        return null;
    }

    /// <summary>
    /// BGSAVE: starts a background save; the caller holds every gate. False when one already runs.
    /// On a replica in the middle of a batch of its master's stream the instant would not match the
    /// stream offset saved with it: the save is scheduled instead, and the cron starts it between
    /// batches (within 100 ms).
    /// </summary>
    public bool TryStartBackground()
    {
        if (_server.Replication.IsReplica && _server.Replica.ApplyInProgress && !InProgress && _server.AofFiles?.RewriteInProgress != true)
        {
            Scheduled = true;
            return true;
        }
        return TryStartBackground(null);
    }

    /// <summary>
    /// Starts a background save, for a full sync when <paramref name="replication"/> is given: to the
    /// file (counted as a save, as Redis's BGSAVE for SYNC with target disk) or to the replicas'
    /// stream (not a save: Redis's RDB transfer with target replicas sockets). The caller holds every
    /// gate. False when a save or an AOF rewrite already runs (one snapshot at a time).
    /// </summary>
    public bool TryStartBackground(IReplicationSave? replication)
    {
        if (InProgress || _server.AofFiles?.RewriteInProgress == true) return false;
        bool socket = replication?.Target != null;
        if (!socket) Scheduled = false;
        long dirty = _dirty.Value;
        var snapshot = new RdbSnapshot(_server, background: true);
        replication?.AtInstant(snapshot);
        _runningSince = Stopwatch.GetTimestamp();
        if (!socket) LastBackgroundTryUnix = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        Volatile.Write(ref _running, snapshot);
        _server.Log.Notice(socket ? "Background RDB transfer started" : "Background saving started");
        var thread = new Thread(() => RunBackground(snapshot, dirty, replication)) { IsBackground = true, Name = socket ? "rdb-transfer" : "rdb-bgsave" };
        thread.Start();
        return true;
    }

    private void RunBackground(RdbSnapshot snapshot, long dirty, IReplicationSave? replication)
    {
        if (replication?.Target is { } target)
        {
            RunTransfer(snapshot, target, replication);
            return;
        }
        bool ok = true;
        try
        {
            snapshot.Run();
        }
        catch (OperationCanceledException)
        {
            // Stopped on purpose (FLUSHALL, a shutdown): not a failure, as Redis does not count a child it killed.
            if (!_stoppingForShutdown) _server.Log.Notice("Background saving stopped: the dataset was flushed");
            LastBackgroundSeconds = (Stopwatch.GetTimestamp() - _runningSince) / Stopwatch.Frequency;
            Volatile.Write(ref _running, null);
            replication?.Completed(false);
            return;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ObjectDisposedException or InvalidOperationException)
        {
            ok = false;
            // Redis's child logs what failed, then the parent that the save failed.
            _server.Log.Warning(SaveErrorLine(ex));
            _server.Log.Warning("Background saving error");
        }
        long seconds = (Stopwatch.GetTimestamp() - _runningSince) / Stopwatch.Frequency;
        if (ok)
        {
            Volatile.Write(ref _dirtyAtSave, dirty);
            LastSaveUnix = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
            Saves++;
            _server.Log.Notice($"Background saving terminated with success ({snapshot.KeysWritten} keys, {snapshot.AheadBytes} bytes written ahead of changes)");
        }
        LastBackgroundOk = ok;
        LastBackgroundSeconds = seconds;
        LastAheadBytes = snapshot.AheadBytes;
        Volatile.Write(ref _running, null);
        replication?.Completed(ok);
    }

    /// <summary>
    /// A diskless full sync: the snapshot goes to the replicas' stream. Not a save (no change to
    /// the dirty count, LASTSAVE or rdb_last_bgsave_status), as Redis's socket target.
    /// </summary>
    private void RunTransfer(RdbSnapshot snapshot, Stream target, IReplicationSave replication)
    {
        bool ok = true;
        try
        {
            snapshot.Run(target);
            _server.Log.Notice("Background RDB transfer terminated with success");
        }
        catch (Exception ex) when (ex is IOException or OperationCanceledException or ObjectDisposedException or InvalidOperationException)
        {
            ok = false;
            _server.Log.Warning($"Background transfer error: {ex.Message}");
        }
        finally
        {
            // The hooks may still be on when the stream failed before the walk began.
            snapshot.DetachIfAttached();
        }
        LastAheadBytes = snapshot.AheadBytes;
        Volatile.Write(ref _running, null);
        replication.Completed(ok);
    }

    /// <summary>Redis's log line for a failed save: the step that failed (see <see cref="RdbSaveException"/>) or a write error.</summary>
    private static string SaveErrorLine(Exception ex)
        => ex is RdbSaveException ? ex.Message : "Write error saving DB on disk: " + SystemErrors.Describe(ex);

    /// <summary>Stops the background save in progress, if any; the caller holds every gate.</summary>
    public void AbortBackground() => Volatile.Read(ref _running)?.Abort();

    private volatile bool _stoppingForShutdown;

    /// <summary>
    /// The server stops: the background save in progress is dropped (its temporary file deleted),
    /// as Redis kills its saving child, and the foreground save that follows writes the file.
    /// Call without holding gates; returns once it has ended.
    /// </summary>
    public void AbortBackgroundForShutdown()
    {
        _stoppingForShutdown = true;
        _server.WithAllGates(() =>
        {
            AbortBackground();
            return true;
        });
        WaitForBackground();
        _stoppingForShutdown = false; // the stop may yet fail: later aborts are FLUSHALL's again
    }

    /// <summary>Waits for a background save to end (SHUTDOWN, DEBUG RELOAD); call without holding gates.</summary>
    public void WaitForBackground()
    {
        while (InProgress) Thread.Sleep(5);
    }

    /// <summary>
    /// Called every 100 ms: starts a background save when a save point is reached (enough changes
    /// and seconds since the last save) or one was scheduled, as serverCron does.
    /// </summary>
    public void Cron()
    {
        if (InProgress || _server.AofFiles?.RewriteInProgress == true || _server.StoppingToken.IsCancellationRequested
            || _server.Pause.Stopping) return;
        long now = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        bool start = Scheduled;
        if (!start)
        {
            long changes = ChangesSinceSave;
            foreach (var (seconds, needed) in _server.Config.SavePoints)
            {
                if (changes >= needed && now - LastSaveUnix > seconds
                    && (LastBackgroundOk || now - LastBackgroundTryUnix > RetryDelaySeconds))
                {
                    _server.Log.Notice($"{needed} changes in {seconds} seconds. Saving...");
                    start = true;
                    break;
                }
            }
        }
        if (!start) return;
        _server.Replica.BetweenBatches(() => _server.WithAllGates(() => TryStartBackground(null)));
    }
}

/// <summary>A background save a full sync asked for (see Replication/ReplicationMaster).</summary>
internal interface IReplicationSave
{
    /// <summary>The replicas' stream for a diskless sync; null for the file.</summary>
    Stream? Target { get; }

    /// <summary>Called with every gate held at the snapshot's instant: the replicas' stream starts here.</summary>
    void AtInstant(RdbSnapshot snapshot);

    /// <summary>Called on the saver thread once the save ended (the file is in place when ok).</summary>
    void Completed(bool ok);
}
