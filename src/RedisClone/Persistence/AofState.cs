using System.Diagnostics;
using RedisClone.Server;

namespace RedisClone.Persistence;

/// <summary>
/// The AOF's files and life: the manifest, the writer appending to the last incremental file,
/// rewrites (BGREWRITEAOF, auto-aof-rewrite-*, turning appendonly on at run time), and what INFO
/// persistence reports about them.
/// </summary>
/// <remarks>
/// A rewrite starts at an instant, with every shard's gate held: appending moves to a new
/// incremental file (named in the manifest at once, so a crash during the rewrite loses nothing),
/// and a background snapshot of that instant (<see cref="RdbSnapshot"/>, no fork) is written as the
/// new base file. When it is done the manifest names the new base and the incremental files from
/// the instant on; the older files are deleted. The base is an RDB file (aof-use-rdb-preamble) —
/// with the preamble off it is an RDB file too, which Redis loads the same way (noted in the README).
/// </remarks>
internal sealed class AofState
{
    private readonly RedisServer _server;
    private readonly object _lock = new();
    private AofManifest _manifest;
    private long _rewriteStarted;

    public AofState(RedisServer server, AofManifest manifest)
    {
        _server = server;
        _manifest = manifest;
    }

    private string Directory => _server.Config.AofDirectory;
    private string Name => _server.Config.AppendFilename;

    /// <summary>The writer, while appendonly is on.</summary>
    public AofWriter? Writer { get; private set; }

    public bool RewriteInProgress { get; private set; }
    public bool RewriteScheduled { get; set; }
    public bool LastRewriteOk { get; private set; } = true;
    public long LastRewriteSeconds { get; private set; } = -1;
    public long Rewrites { get; private set; }
    public long CurrentRewriteSeconds => RewriteInProgress ? (Stopwatch.GetTimestamp() - _rewriteStarted) / Stopwatch.Frequency : -1;
    public long BaseSize { get; private set; }

    /// <summary>
    /// Start-up with appendonly yes, after the AOF (if any) was loaded: creates the base file when
    /// there is no AOF yet, opens the last incremental file (or a new one), saves the manifest.
    /// </summary>
    public void OpenAtStartup()
    {
        System.IO.Directory.CreateDirectory(Directory);
        if (_manifest.Base == null && _manifest.Incremental.Count == 0)
        {
            var entry = _manifest.NewBase(Name, rdbPreamble: true);
            new RdbSnapshot(_server, background: false, Path.Combine(Directory, entry.Name)).Run();
            _server.Log.Notice($"Creating AOF base file {entry.Name} on server start");
        }
        var incremental = _manifest.LastOrNewIncremental(Name);
        _manifest.Save(Directory, Name);
        MeasureBase();
        Writer = NewWriter(Path.Combine(Directory, incremental.Name));
    }

    private void MeasureBase()
    {
        string? path = _manifest.Base == null ? null : Path.Combine(Directory, _manifest.Base.Name);
        BaseSize = path != null && File.Exists(path) ? new FileInfo(path).Length : 0;
    }

    /// <summary>
    /// Starts a rewrite; the caller holds every gate. With appendonly off (CONFIG SET appendonly
    /// yes) this is how the AOF starts: the writer opens on the new incremental file at once.
    /// False when a rewrite or a background save already runs (the caller schedules it).
    /// </summary>
    public bool TryStartRewrite(bool enable = false)
    {
        lock (_lock)
        {
            if (RewriteInProgress || _server.Rdb.InProgress) return false;
            RewriteScheduled = false;
            System.IO.Directory.CreateDirectory(Directory);
            long cutoff = _manifest.IncrSeq + 1;
            if (Writer != null || enable)
            {
                // The incremental file from this instant on, named in the manifest before anything goes to it.
                var next = _manifest.NewIncremental(Name);
                _manifest.Save(Directory, Name);
                string nextPath = Path.Combine(Directory, next.Name);
                if (Writer == null)
                {
                    Writer = NewWriter(nextPath);
                    _server.AofListener = Writer;
                }
                else
                {
                    Writer.SwitchTo(nextPath);
                }
                cutoff = next.Seq;
            }
            // With appendonly off (BGREWRITEAOF anyway, as Redis 7 allows) only a base file is made,
            // and it supersedes every incremental file there is.
            string temp = Path.Combine(Directory, $"temp-rewriteaof-bg-{Environment.ProcessId}.aof");
            var snapshot = new RdbSnapshot(_server, background: true, temp);
            _rewrite = snapshot;
            InitialRewrite = enable;
            RewriteInProgress = true;
            _rewriteStarted = Stopwatch.GetTimestamp();
            _server.Log.Notice("Background append only file rewriting started");
            var thread = new Thread(() => FinishRewrite(snapshot, temp, cutoff)) { IsBackground = true, Name = "aof-rewrite" };
            thread.Start();
            return true;
        }
    }

    private void FinishRewrite(RdbSnapshot snapshot, string temp, long firstIncremental)
    {
        bool ok = true;
        try
        {
            snapshot.Run();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or OperationCanceledException
                                       or ObjectDisposedException or InvalidOperationException)
        {
            ok = false;
            if (!_stoppingForShutdown) _server.Log.Warning($"Background AOF rewrite failed: {ex.Message}");
            try { File.Delete(temp); } catch (IOException) { }
        }
        lock (_lock)
        {
            if (ok)
            {
                try
                {
                    var entry = _manifest.NewBase(Name, rdbPreamble: true);
                    File.Move(temp, Path.Combine(Directory, entry.Name), overwrite: true);
                    var old = _manifest.DropIncrementalBefore(firstIncremental);
                    if (_server.Config.AofDisableAutoGc)
                    {
                        // aof-disable-auto-gc: what the new base supersedes stays, as history.
                        foreach (var file in old) _manifest.History.Add(file with { Type = 'h' });
                        old.Clear();
                    }
                    else
                    {
                        old.AddRange(_manifest.History);
                        _manifest.History.Clear();
                    }
                    _manifest.Save(Directory, Name);
                    foreach (var file in old)
                    {
                        try { File.Delete(Path.Combine(Directory, file.Name)); } catch (IOException) { }
                    }
                    MeasureBase();
                    Rewrites++;
                    _server.Log.Notice("Background AOF rewrite finished successfully");
                }
                catch (IOException ex)
                {
                    ok = false;
                    _server.Log.Warning($"Background AOF rewrite failed: {ex.Message}");
                }
            }
            LastRewriteOk = ok;
            LastRewriteSeconds = (Stopwatch.GetTimestamp() - _rewriteStarted) / Stopwatch.Frequency;
            RewriteInProgress = false;
            InitialRewrite = false;
            _rewrite = null;
        }
    }

    private RdbSnapshot? _rewrite;
    private volatile bool _stoppingForShutdown;

    /// <summary>
    /// The rewrite under way makes the AOF's first base file (CONFIG SET appendonly yes): until it
    /// ends the files do not hold the dataset (Redis's AOF_WAIT_REWRITE).
    /// </summary>
    public bool InitialRewrite { get; private set; }

    /// <summary>
    /// The server stops: the rewrite under way is dropped (its temporary file deleted), as Redis
    /// kills its rewriting child; the files as they are hold the dataset. Call without holding
    /// gates; returns once it has ended.
    /// </summary>
    public void AbortRewriteForShutdown()
    {
        _stoppingForShutdown = true;
        _server.WithAllGates(() =>
        {
            lock (_lock) _rewrite?.Abort();
            return true;
        });
        while (RewriteInProgress) Thread.Sleep(5);
        _stoppingForShutdown = false;
    }

    /// <summary>
    /// The writer for an incremental file, reading appendfsync, aof-timestamp-enabled and
    /// no-appendfsync-on-rewrite as they are at each write (Redis's "child" is a rewrite or a BGSAVE here).
    /// </summary>
    private AofWriter NewWriter(string path) => new(path, () => AofWriter.ParsePolicy(_server.Config.AppendFsync), _server.Log, _server.Latency,
        timestamps: () => _server.Config.AofTimestampEnabled,
        deferFsync: () => _server.Config.NoAppendFsyncOnRewrite && (RewriteInProgress || _server.Rdb.InProgress));

    /// <summary>
    /// CONFIG SET aof-disable-auto-gc no: the history files kept meanwhile are deleted and dropped
    /// from the manifest (Redis's aofDelHistoryFiles).
    /// </summary>
    public void DeleteHistory()
    {
        lock (_lock)
        {
            if (_manifest.History.Count == 0) return;
            var old = _manifest.History.ToList();
            _manifest.History.Clear();
            try
            {
                _manifest.Save(Directory, Name);
            }
            catch (IOException ex)
            {
                _server.Log.Warning($"Can't persist the manifest after deleting history files: {ex.Message}");
                return;
            }
            foreach (var file in old)
            {
                _server.Log.Notice($"Removing the history file {file.Name} in the background");
                try { File.Delete(Path.Combine(Directory, file.Name)); } catch (IOException) { }
            }
        }
    }

    /// <summary>CONFIG SET appendonly no: stops appending (what was appended is written and fsynced first); the files stay.</summary>
    public void Stop()
    {
        lock (_lock)
        {
            if (Writer == null) return;
            if (ReferenceEquals(_server.AofListener, Writer)) _server.AofListener = null;
            Writer.Dispose();
            Writer = null;
        }
    }

    /// <summary>
    /// auto-aof-rewrite-percentage / -min-size: a rewrite when the incremental files have grown
    /// past the given share of the base and the minimum size (called by the cron).
    /// </summary>
    public bool RewriteDue(long percentage, long minSize)
    {
        var writer = Writer;
        if (writer == null || RewriteInProgress || percentage <= 0) return false;
        long size = BaseSize + writer.CurrentSize;
        if (size < minSize) return false;
        long basis = Math.Max(BaseSize, 1);
        return (size - basis) * 100 / basis >= percentage;
    }

    public long CurrentSize => BaseSize + (Writer?.CurrentSize ?? 0);
}
