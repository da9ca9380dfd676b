using System.Buffers;
using System.Diagnostics;
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
/// each getting a sequence number. One writer thread moves the buffer to the file: with
/// <c>always</c> it fsyncs after every write it makes and then publishes the sequence now on disk;
/// a connection waits for the sequence of its last write before its replies go out
/// (<see cref="WaitDurableAsync"/>). Many clients' writes share one fsync (group commit), which is
/// what keeps <c>always</c> fast. With <c>everysec</c> the file is written as writes come and
/// fsynced once a second; with <c>no</c> the kernel decides.</para>
/// </remarks>
internal sealed class AofWriter : IPropagationListener, IDisposable
{
    public enum FsyncPolicy { Always, EverySec, No }

    private readonly ServerLog _log;
    private readonly object _lock = new();
    private FileStream _file;
    private readonly object _fileLock = new();
    private readonly Thread _thread;
    private readonly AutoResetEvent _dataReady = new(false);
    private ArrayBufferWriter<byte> _pending = new(1 << 16);
    private ArrayBufferWriter<byte> _writing = new(1 << 16);
    private readonly List<(long Seq, TaskCompletionSource Done)> _waiters = [];
    private int _selectedDb = -1;
    private long _appended, _durable;

    /// <summary>
    /// Sequences come from one counter for the process, so a client's sequence from a writer since
    /// replaced (CONFIG SET appendonly no, then yes) is never above a new writer's: a new writer
    /// starts with everything before it counted as on disk.
    /// </summary>
    private static long s_sequence;
    private volatile bool _stopping;
    private readonly LatencyMonitor? _latency;
    private readonly Func<FsyncPolicy> _policySource;

    /// <summary>The sequence of the last unit the current thread appended (read by the execution layer after a command).</summary>
    [ThreadStatic] public static long ThreadSequence;

    /// <param name="latency">Where the writes and always-fsyncs that reach latency-monitor-threshold are recorded.</param>
    public AofWriter(string incrementalPath, Func<FsyncPolicy> policy, ServerLog log, LatencyMonitor? latency = null)
    {
        _log = log;
        _latency = latency;
        _policySource = policy;
        _file = new FileStream(incrementalPath, FileMode.Append, FileAccess.Write, FileShare.Read, 1 << 16);
        _appended = _durable = Interlocked.Read(ref s_sequence);
        CurrentSize = _file.Length;
        _thread = new Thread(Run) { IsBackground = true, Name = "aof-writer" };
        _thread.Start();
    }

    /// <summary>appendfsync as configured now (CONFIG SET changes it at any time).</summary>
    public FsyncPolicy Policy => _policySource();

    /// <summary>Bytes of the incremental file.</summary>
    public long CurrentSize { get; private set; }

    /// <summary>False after a write or fsync failed (aof_last_write_status).</summary>
    public bool LastWriteOk { get; private set; } = true;

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
                if (!any && unit.Transaction) WriteWord("MULTI"u8);
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
        _dataReady.Set();
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
    /// Moves appending to a new incremental file (an AOF rewrite starts): what was appended so far
    /// is written and fsynced to the old file first. Call with every shard's gate held, so the
    /// switch is an instant: writes before it are in the old file, writes after it in the new one.
    /// </summary>
    public void SwitchTo(string incrementalPath)
    {
        long seq;
        lock (_fileLock)
        {
            lock (_lock)
            {
                _file.Write(_pending.WrittenSpan);
                CurrentSize += _pending.WrittenCount;
                _pending.ResetWrittenCount();
                seq = _appended;
                _selectedDb = -1; // the new file starts with its own SELECT
            }
            _file.Flush(flushToDisk: true);
            _file.Dispose();
            _file = new FileStream(incrementalPath, FileMode.Append, FileAccess.Write, FileShare.Read, 1 << 16);
            CurrentSize = 0;
        }
        Publish(seq);
    }

    private void Run()
    {
        long lastFsync = Stopwatch.GetTimestamp();
        bool dirty = false;
        while (true)
        {
            _dataReady.WaitOne(Policy == FsyncPolicy.EverySec ? 1000 : 250);
            Monitor.Enter(_fileLock);
            ArrayBufferWriter<byte> batch;
            long seq;
            lock (_lock)
            {
                batch = _pending;
                _pending = _writing;
                _writing = batch;
                seq = _appended;
            }
            try
            {
                if (batch.WrittenCount > 0)
                {
                    long writeStart = Stopwatch.GetTimestamp();
                    _file.Write(batch.WrittenSpan);
                    _file.Flush(flushToDisk: false);
                    if (_latency != null)
                    {
                        // As Redis's aof-write: the write call, here with no child process ("alone").
                        long ms = (long)Stopwatch.GetElapsedTime(writeStart).TotalMilliseconds;
                        _latency.AddIfNeeded(LatencyMonitor.Events.AofWriteAlone, ms);
                        _latency.AddIfNeeded(LatencyMonitor.Events.AofWrite, ms);
                    }
                    CurrentSize += batch.WrittenCount;
                    dirty = true;
                }
                batch.ResetWrittenCount();
                var policy = Policy;
                bool sync = dirty && (policy == FsyncPolicy.Always || _stopping
                    || (policy == FsyncPolicy.EverySec && Stopwatch.GetElapsedTime(lastFsync) >= TimeSpan.FromSeconds(1)));
                if (sync)
                {
                    long syncStart = Stopwatch.GetTimestamp();
                    _file.Flush(flushToDisk: true);
                    // Redis's aof-fsync-always: the fsync every write waits for under appendfsync always.
                    if (policy == FsyncPolicy.Always && _latency != null)
                        _latency.AddIfNeeded(LatencyMonitor.Events.AofFsyncAlways, (long)Stopwatch.GetElapsedTime(syncStart).TotalMilliseconds);
                    lastFsync = Stopwatch.GetTimestamp();
                    dirty = false;
                }
                LastWriteOk = true;
                // With everysec and no, replies never wait: only always publishes what is on disk.
                if (sync || policy != FsyncPolicy.Always) Publish(seq);
            }
            catch (IOException ex)
            {
                if (LastWriteOk) _log.Warning($"Error writing to the AOF file: {ex.Message}");
                LastWriteOk = false;
                // The data stays in memory for the next attempt.
                lock (_lock)
                {
                    var rest = new ArrayBufferWriter<byte>(batch.WrittenCount + _pending.WrittenCount);
                    rest.Write(batch.WrittenSpan);
                    rest.Write(_pending.WrittenSpan);
                    _pending = rest;
                    batch.ResetWrittenCount();
                }
                Monitor.Exit(_fileLock);
                Thread.Sleep(100);
                continue;
            }
            Monitor.Exit(_fileLock);
            if (_stopping && !dirty)
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
            try
            {
                lock (_lock)
                {
                    _file.Write(_pending.WrittenSpan);
                    CurrentSize += _pending.WrittenCount;
                    _pending.ResetWrittenCount();
                    seq = _appended;
                }
                _file.Flush(flushToDisk: true);
            }
            catch (IOException ex)
            {
                return ex.Message;
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
        _file.Dispose();
        _dataReady.Dispose();
    }
}
