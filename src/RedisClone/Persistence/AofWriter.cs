using System.Buffers;
using System.Diagnostics;
using Microsoft.Win32.SafeHandles;
using RedisClone.Common;
using RedisClone.Server;
using RedisClone.Storage;

namespace RedisClone.Persistence;

/// <summary>
/// Appends what the execution layer propagates (effects, not commands as sent: see
/// <see cref="PropagationLog"/>) to the AOF's incremental file, in RESP, with SELECT when the
/// database changes and MULTI/EXEC around transactions, and keeps <c>appendfsync</c>'s promise.
/// </summary>
/// <remarks>
/// <para>Units are appended to a memory buffer under a lock by the thread that ran the command
/// (still holding its shards' gates, so writes to one key reach the file in the order they ran),
/// each getting a sequence number. The buffer goes to the file (write(2), under a second lock that
/// no fsync holds) in two ways. With <c>everysec</c> and <c>no</c>, a connection about to send
/// replies to writes first makes sure its last write is in the file (<see cref="EnsureWritten"/>:
/// whoever gets there first writes everything appended so far, so one write serves many clients),
/// as Redis's beforeSleep writes the AOF before it writes replies: a killed process then loses no
/// acknowledged write; only an OS crash or power loss can cost the last second. The writer thread
/// writes what no connection did (expiries, evictions) within 100 ms and fsyncs once a second
/// (everysec) outside the write lock, so replies never wait for an fsync. With <c>always</c> the
/// writer thread writes and fsyncs, then publishes the sequence now on disk; a connection waits for
/// the sequence of its last write before its replies go out (<see cref="WaitDurableAsync"/>).
/// Many clients' writes share one fsync (group commit), which is what keeps <c>always</c> fast.</para>
/// <para>A failed write or fsync sets <see cref="LastWriteOk"/> to false (writes then get MISCONF,
/// see RedisServer.WritesDeniedByDiskError); what was not written stays in memory and is tried
/// again until it goes, in this file or, after a rewrite started, in the next one.</para>
/// </remarks>
internal sealed class AofWriter : IPropagationListener, IDisposable
{
    public enum FsyncPolicy { Always, EverySec, No }

    private readonly ServerLog _log;

    /// <summary>Guards the append buffer, the selected database, the sequences appended and the waiters.</summary>
    private readonly object _lock = new();

    /// <summary>Guards the file handle, its offset and the buffer being written; never held during an fsync.</summary>
    private readonly object _fileLock = new();
    private SafeFileHandle _handle;
    private long _offset;
    private bool _unsynced;
    private readonly Thread _thread;
    private readonly AutoResetEvent _dataReady = new(false);
    private ArrayBufferWriter<byte> _pending = new(1 << 16);
    private ArrayBufferWriter<byte> _writing = new(1 << 16);
    private readonly List<(long Seq, TaskCompletionSource Done)> _waiters = [];
    private int _selectedDb = -1;

    /// <summary>The database selected in the file where <see cref="_pending"/> starts (-1: the buffer selects one itself).</summary>
    private int _pendingStartDb = -1;
    private long _appended, _durable, _written;

    /// <summary>
    /// Sequences come from one counter for the process, so a client's sequence from a writer since
    /// replaced (CONFIG SET appendonly no, then yes) is never above a new writer's: a new writer
    /// starts with everything before it counted as on disk.
    /// </summary>
    private static long s_sequence;
    private volatile bool _stopping;
    private volatile bool _writeFailed, _fsyncFailed;
    private volatile string _lastError = "";
    private readonly LatencyMonitor? _latency;
    private readonly Func<FsyncPolicy> _policySource;
    private readonly Func<bool>? _timestamps;
    private readonly Func<bool>? _deferFsync;

    /// <summary>fsyncs the writer thread made (tests: no-appendfsync-on-rewrite holds them back).</summary>
    public long Fsyncs => Volatile.Read(ref _fsyncs);
    private long _fsyncs;

    /// <summary>The second of the last <c>#TS:</c> annotation written (Redis's aof_cur_timestamp).</summary>
    private long _lastTimestamp;

    /// <summary>The sequence of the last unit the current thread appended (read by the execution layer after a command).</summary>
    [ThreadStatic] public static long ThreadSequence;

    /// <param name="latency">Where the writes and always-fsyncs that reach latency-monitor-threshold are recorded.</param>
    /// <param name="timestamps">aof-timestamp-enabled as configured now.</param>
    /// <param name="deferFsync">
    /// no-appendfsync-on-rewrite in force now (set, and a rewrite or a save running): the file is
    /// written but not fsynced, and under appendfsync always replies wait for the write only, as
    /// Redis's flushAppendOnlyFile returns before its fsync while a child process runs.
    /// </param>
    public AofWriter(string incrementalPath, Func<FsyncPolicy> policy, ServerLog log, LatencyMonitor? latency = null,
        Func<bool>? timestamps = null, Func<bool>? deferFsync = null)
    {
        _timestamps = timestamps;
        _deferFsync = deferFsync;
        _log = log;
        _latency = latency;
        _policySource = policy;
        _handle = Open(incrementalPath);
        _offset = RandomAccess.GetLength(_handle);
        _appended = _durable = _written = Interlocked.Read(ref s_sequence);
        CurrentSize = _offset;
        _thread = new Thread(Run) { IsBackground = true, Name = "aof-writer" };
        _thread.Start();
    }

    private static SafeFileHandle Open(string path) => File.OpenHandle(path, FileMode.Append, FileAccess.Write, FileShare.Read);

    /// <summary>appendfsync as configured now (CONFIG SET changes it at any time).</summary>
    public FsyncPolicy Policy => _policySource();

    /// <summary>Bytes of the incremental file.</summary>
    public long CurrentSize { get; private set; }

    /// <summary>False while the last write or fsync failed (aof_last_write_status; writes get MISCONF).</summary>
    public bool LastWriteOk => !_writeFailed && !_fsyncFailed;

    /// <summary>Why the last write or fsync failed, as strerror words it ("No space left on device").</summary>
    public string LastWriteError => _lastError;

    public static FsyncPolicy ParsePolicy(string value) => value switch
    {
        "always" => FsyncPolicy.Always,
        "no" => FsyncPolicy.No,
        _ => FsyncPolicy.EverySec,
    };

    public void Propagate(PropagatedUnit unit)
    {
        Span<byte> digits = stackalloc byte[20];
        lock (_lock)
        {
            bool any = false;
            for (int c = 0; c < unit.Count; c++)
            {
                if ((unit.Target(c) & PropagationTarget.Aof) == 0) continue;
                if (!any)
                {
                    if (_timestamps?.Invoke() == true) WriteTimestampIfNeeded(digits);
                    if (unit.Transaction) WriteWord("MULTI"u8);
                }
                any = true;
                int db = unit.Db(c);
                if (db != _selectedDb)
                {
                    int n = RedisNumbers.FormatInt64(db, digits);
                    WriteHeader(2);
                    WriteBulk("SELECT"u8);
                    WriteBulk(digits[..n]);
                    _selectedDb = db;
                }
                int argc = unit.ArgCount(c);
                WriteHeader(argc);
                for (int a = 0; a < argc; a++) WriteBulk(unit.Arg(c, a));
            }
            if (!any) return;
            if (unit.Transaction) WriteWord("EXEC"u8);
            ThreadSequence = _appended = Interlocked.Increment(ref s_sequence);
        }
        // everysec and no: the connection writes before it replies, the writer thread polls for the rest.
        if (Policy == FsyncPolicy.Always) _dataReady.Set();
    }

    /// <summary>
    /// aof-timestamp-enabled: <c>#TS:seconds</c> before the first unit of each new second, as
    /// Redis's feedAppendOnlyFile writes it (loaders skip lines that start with '#').
    /// </summary>
    private void WriteTimestampIfNeeded(Span<byte> digits)
    {
        long now = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
        if (now <= _lastTimestamp) return;
        _lastTimestamp = now;
        int n = RedisNumbers.FormatInt64(now, digits);
        var span = _pending.GetSpan(n + 6);
        "#TS:"u8.CopyTo(span);
        digits[..n].CopyTo(span[4..]);
        span[4 + n] = (byte)'\r';
        span[5 + n] = (byte)'\n';
        _pending.Advance(n + 6);
    }

    /// <summary>A command of one word (MULTI, EXEC).</summary>
    private void WriteWord(ReadOnlySpan<byte> word)
    {
        WriteHeader(1);
        WriteBulk(word);
    }

    private void WriteHeader(int count)
    {
        var span = _pending.GetSpan(16);
        span[0] = (byte)'*';
        int n = 1 + RedisNumbers.FormatInt64(count, span[1..]);
        span[n++] = (byte)'\r';
        span[n++] = (byte)'\n';
        _pending.Advance(n);
    }

    private void WriteBulk(ReadOnlySpan<byte> value)
    {
        var span = _pending.GetSpan(value.Length + 16);
        span[0] = (byte)'$';
        int n = 1 + RedisNumbers.FormatInt64(value.Length, span[1..]);
        span[n++] = (byte)'\r';
        span[n++] = (byte)'\n';
        value.CopyTo(span[n..]);
        n += value.Length;
        span[n++] = (byte)'\r';
        span[n++] = (byte)'\n';
        _pending.Advance(n);
    }

    /// <summary>Completes once every unit up to <paramref name="seq"/> is on disk (for appendfsync always).</summary>
    public Task WaitDurableAsync(long seq)
    {
        lock (_lock)
        {
            if (Volatile.Read(ref _durable) >= seq || _stopping) return Task.CompletedTask;
            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((seq, done));
            return done.Task;
        }
    }

    /// <summary>The sequence known to be on disk.</summary>
    public long Durable => Volatile.Read(ref _durable);

    /// <summary>
    /// Before replies go out (everysec, no): every unit up to <paramref name="seq"/> is written to
    /// the file when this returns, unless the write failed (then the replies go anyway and the next
    /// write gets MISCONF, as in Redis). A write(2) on the caller's thread, as Redis makes on its
    /// event loop; nothing here waits for an fsync or a shard gate. Allocates nothing.
    /// </summary>
    public void EnsureWritten(long seq)
    {
        if (Volatile.Read(ref _written) >= seq) return;
        lock (_fileLock)
        {
            if (_written >= seq) return;
            WritePendingLocked();
        }
    }

    /// <summary>
    /// Writes what was appended so far to the file; the caller holds <see cref="_fileLock"/>. On an
    /// error the data goes back in front of the buffer (a partly written tail is cut off the file)
    /// and false is returned.
    /// </summary>
    private bool WritePendingLocked()
    {
        ArrayBufferWriter<byte> batch;
        long seq;
        int startDb;
        lock (_lock)
        {
            batch = _pending;
            _pending = _writing;
            _writing = batch;
            seq = _appended;
            startDb = _pendingStartDb;
            _pendingStartDb = _selectedDb;
        }
        try
        {
            if (batch.WrittenCount > 0)
            {
                long writeStart = Stopwatch.GetTimestamp();
                RandomAccess.Write(_handle, batch.WrittenSpan, _offset);
                _offset += batch.WrittenCount;
                CurrentSize += batch.WrittenCount;
                _unsynced = true;
                if (_latency != null)
                {
                    // As Redis's aof-write: the write call, here with no child process ("alone").
                    long ms = (long)Stopwatch.GetElapsedTime(writeStart).TotalMilliseconds;
                    _latency.AddIfNeeded(LatencyMonitor.Events.AofWriteAlone, ms);
                    _latency.AddIfNeeded(LatencyMonitor.Events.AofWrite, ms);
                }
            }
            batch.ResetWrittenCount();
            if (seq > _written) Volatile.Write(ref _written, seq);
            if (_writeFailed)
            {
                _writeFailed = false;
                _log.Warning("AOF write error looks solved, Redis can write again.");
            }
            return true;
        }
        catch (IOException ex)
        {
            // A short write leaves part of a command in the file: cut it off, as Redis truncates.
            try { RandomAccess.SetLength(_handle, _offset); } catch (Exception cut) when (cut is IOException or ArgumentException or UnauthorizedAccessException) { }
            if (!_writeFailed) _log.Warning($"Error writing to the AOF file: {SystemErrors.Describe(ex)}");
            _lastError = SystemErrors.Describe(ex);
            _writeFailed = true;
            lock (_lock)
            {
                var rest = new ArrayBufferWriter<byte>(batch.WrittenCount + _pending.WrittenCount + 64);
                rest.Write(batch.WrittenSpan);
                rest.Write(_pending.WrittenSpan);
                _pending = rest;
                _pendingStartDb = startDb;
                batch.ResetWrittenCount();
            }
            return false;
        }
    }

    /// <summary>
    /// Moves appending to a new incremental file (an AOF rewrite starts): what was appended so far
    /// is written to the old file first (if that fails it goes to the new one, as Redis's buffer
    /// does). Call with every shard's gate held, so the switch is an instant: writes before it are
    /// in the old file, writes after it in the new one. The old file is fsynced and closed after the
    /// switch, outside the write lock.
    /// </summary>
    public void SwitchTo(string incrementalPath)
    {
        SafeFileHandle old;
        bool written;
        long seq;
        lock (_fileLock)
        {
            written = WritePendingLocked();
            var next = Open(incrementalPath);
            old = _handle;
            _handle = next;
            _offset = RandomAccess.GetLength(next);
            _unsynced = _offset > 0;
            CurrentSize = _offset;
            lock (_lock)
            {
                seq = _appended;
                // What failed to go to the old file starts the new one in the database it was selected in there.
                if (!written && _pendingStartDb > 0 && _pending.WrittenCount > 0)
                {
                    var carried = _pending;
                    _pending = new ArrayBufferWriter<byte>(carried.WrittenCount + 64);
                    Span<byte> digits = stackalloc byte[20];
                    int n = RedisNumbers.FormatInt64(_pendingStartDb, digits);
                    WriteHeader(2);
                    WriteBulk("SELECT"u8);
                    WriteBulk(digits[..n]);
                    _pending.Write(carried.WrittenSpan);
                }
                _pendingStartDb = -1;
                _selectedDb = -1; // the new file starts with its own SELECT
            }
        }
        try
        {
            RandomAccess.FlushToDisk(old);
        }
        catch (IOException)
        {
            // The rewrite that starts now writes the dataset of this instant as the new base.
        }
        old.Dispose();
        if (written) Publish(seq);
    }

    private void Run()
    {
        long lastFsync = Stopwatch.GetTimestamp();
        while (true)
        {
            var policy = Policy;
            _dataReady.WaitOne(policy == FsyncPolicy.Always ? 250 : 100);
            policy = Policy;
            bool written;
            bool unsynced;
            long seq;
            SafeFileHandle handle;
            lock (_fileLock)
            {
                written = WritePendingLocked();
                seq = _written;
                unsynced = _unsynced;
                handle = _handle;
            }
            if (!written)
            {
                Thread.Sleep(100);
                if (_stopping) break;
                continue;
            }
            // The file stays unsynced meanwhile, so the first turn after the rewrite or save fsyncs it.
            bool deferred = unsynced && !_stopping && policy != FsyncPolicy.No && _deferFsync?.Invoke() == true;
            bool sync = unsynced && !deferred && (policy == FsyncPolicy.Always || _stopping
                || (policy == FsyncPolicy.EverySec && Stopwatch.GetElapsedTime(lastFsync) >= TimeSpan.FromSeconds(1)));
            if (sync)
            {
                long syncStart = Stopwatch.GetTimestamp();
                lock (_fileLock)
                {
                    if (ReferenceEquals(handle, _handle)) _unsynced = false;
                }
                try
                {
                    RandomAccess.FlushToDisk(handle);
                    Interlocked.Increment(ref _fsyncs);
                    if (_fsyncFailed)
                    {
                        _fsyncFailed = false;
                        _log.Warning("AOF write error looks solved, Redis can write again.");
                    }
                }
                catch (ObjectDisposedException)
                {
                    // A rewrite switched files meanwhile and fsynced the old one itself.
                }
                catch (IOException ex)
                {
                    lock (_fileLock) _unsynced = true;
                    if (!_fsyncFailed) _log.Warning($"Error writing to the AOF file: {SystemErrors.Describe(ex)}");
                    _lastError = SystemErrors.Describe(ex);
                    _fsyncFailed = true;
                    Thread.Sleep(100);
                    continue;
                }
                // Redis's aof-fsync-always: the fsync every write waits for under appendfsync always.
                if (policy == FsyncPolicy.Always && _latency != null)
                    _latency.AddIfNeeded(LatencyMonitor.Events.AofFsyncAlways, (long)Stopwatch.GetElapsedTime(syncStart).TotalMilliseconds);
                lastFsync = Stopwatch.GetTimestamp();
            }
            // With everysec and no, replies never wait: only always publishes what is on disk.
            if (sync || deferred || policy != FsyncPolicy.Always) Publish(seq);
            if (_stopping && !sync)
            {
                lock (_lock)
                {
                    if (_pending.WrittenCount == 0) break;
                }
            }
        }
        Publish(long.MaxValue);
    }

    private void Publish(long seq)
    {
        List<TaskCompletionSource>? ready = null;
        lock (_lock)
        {
            if (seq > _durable) Volatile.Write(ref _durable, seq);
            for (int i = _waiters.Count - 1; i >= 0; i--)
            {
                if (_waiters[i].Seq > seq) continue;
                (ready ??= []).Add(_waiters[i].Done);
                _waiters.RemoveAt(i);
            }
        }
        if (ready != null) foreach (var done in ready) done.TrySetResult();
    }

    /// <summary>
    /// The server stops: what was appended and not yet written goes to the file, which is fsynced
    /// now, on the caller's thread (Redis's flushAppendOnlyFile(force) and fsync at shutdown).
    /// Null, or the error of the write or the fsync.
    /// </summary>
    public string? FlushAndSync()
    {
        long seq;
        lock (_fileLock)
        {
            if (!WritePendingLocked()) return LastWriteError;
            seq = _written;
            try
            {
                RandomAccess.FlushToDisk(_handle);
                _unsynced = false;
            }
            catch (IOException ex)
            {
                return SystemErrors.Describe(ex);
            }
        }
        Publish(seq);
        return null;
    }

    /// <summary>Writes and fsyncs what is pending, then closes the file.</summary>
    public void Dispose()
    {
        _stopping = true;
        _dataReady.Set();
        _thread.Join(TimeSpan.FromSeconds(10));
        lock (_fileLock) _handle.Dispose();
        _dataReady.Dispose();
    }
}
