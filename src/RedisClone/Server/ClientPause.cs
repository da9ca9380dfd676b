using RedisClone.Commands;

namespace RedisClone.Server;

/// <summary>
/// CLIENT PAUSE / CLIENT UNPAUSE, as Redis 7.2's pause by client command: until the end time, ALL
/// holds back every client's commands and WRITE the ones that may change data or replicate (write
/// and may-replicate commands, EXEC of such a transaction, scripts not declared no-writes); both
/// stop key expiry (active and lazy: an expired key reads as missing but stays). A new pause keeps
/// the later end time and the stricter mode.
/// </summary>
/// <remarks>
/// A held client waits in a FIFO queue (its earlier replies flushed). When the pause ends or
/// becomes less strict, the clients queued then are let go one at a time, in the order they
/// were paused: each runs the command it was held on, then passes the turn on
/// (<see cref="PassTurn"/>), so their commands run in that order, as Redis re-processes its
/// postponed clients in list order. One held again goes back to the end of the queue.
/// </remarks>
internal sealed class ClientPause
{
    private enum Mode { None, Write, All }

    private readonly RedisServer _server;
    private readonly object _lock = new();
    private readonly LinkedList<TaskCompletionSource> _waiters = new();
    private Mode _mode;
    private long _endMs;
    private volatile bool _stopping;
    private volatile bool _active;

    /// <summary>FAILOVER holds writes until it ends, beside (not instead of) a CLIENT PAUSE (Redis's PAUSE_DURING_FAILOVER).</summary>
    private bool _failover;
    private int _releasing;
    private bool _turnOut;
    private Timer? _timer;

    public ClientPause(RedisServer server) => _server = server;

    /// <summary>The server's stop holds every client (<see cref="HoldForShutdown"/>).</summary>
    public bool Stopping => _stopping;

    /// <summary>A pause is set (it may have just run out: <see cref="Holds"/> checks the time).</summary>
    public bool Active => _active;

    /// <summary>CLIENT PAUSE: until <paramref name="endMs"/> (Unix ms), every command (<paramref name="all"/>) or writes only.</summary>
    public void Pause(long endMs, bool all)
    {
        lock (_lock)
        {
            var previous = Effective;
            _mode = all || _mode == Mode.All ? Mode.All : Mode.Write;
            if (_endMs < endMs) _endMs = endMs;
            Update(previous);
        }
    }

    /// <summary>CLIENT UNPAUSE: the pause ends now.</summary>
    public void Unpause()
    {
        lock (_lock)
        {
            var previous = Effective;
            _mode = Mode.None;
            _endMs = 0;
            Update(previous);
        }
    }

    /// <summary>
    /// FAILOVER: writes wait from now until the failover ends or is aborted (<paramref name="hold"/>
    /// false), whatever CLIENT PAUSE and UNPAUSE do meanwhile.
    /// </summary>
    public void HoldWritesForFailover(bool hold)
    {
        lock (_lock)
        {
            var previous = Effective;
            _failover = hold;
            Update(previous);
        }
    }

    /// <summary>A failover holds writes (a master then does not ping its replicas: their offsets must stay the master's).</summary>
    public bool HoldsForFailover
    {
        get
        {
            lock (_lock) return _failover;
        }
    }

    /// <summary>The pause in force: CLIENT PAUSE's, or at least WRITE while a failover holds writes.</summary>
    private Mode Effective => _failover && _mode == Mode.None ? Mode.Write : _mode;

    /// <summary>
    /// The server is stopping: every client's next command waits (the commands already running
    /// finish), so the final save holds exactly what clients were answered. Nothing is let go
    /// until <see cref="EndShutdownHold"/>; a CLIENT PAUSE meanwhile only moves its own end time.
    /// </summary>
    public void HoldForShutdown()
    {
        lock (_lock)
        {
            _stopping = true;
            Update(Effective);
        }
        Interlocked.MemoryBarrier(); // the hold is visible before the caller looks at which clients still run
    }

    /// <summary>
    /// The stop failed (a save error): clients go on as before it, in the order they were held.
    /// With <paramref name="closing"/> the server is going away instead: every held client is let
    /// go at once to find its connection closing.
    /// </summary>
    public void EndShutdownHold(bool closing)
    {
        lock (_lock)
        {
            if (closing)
            {
                foreach (var waiter in _waiters) waiter.TrySetResult();
                _waiters.Clear();
                return;
            }
            _stopping = false;
            Update(Mode.All); // held like ALL: the queue goes as a pause that ends
        }
    }

    /// <summary>Brings the state up to date with the clock; releases the queue when the pause got less strict. Under the lock.</summary>
    private void Update(Mode previous)
    {
        long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        if (_mode != Mode.None && _endMs <= now)
        {
            _mode = Mode.None;
            _endMs = 0;
        }
        _active = _mode != Mode.None || _stopping || _failover;
        if (_stopping)
        {
            for (int i = 0; i < _server.Shards.Count; i++) _server.Shards[i].Store.ExpiryPaused = true;
            _timer?.Dispose();
            _timer = null;
            return;
        }
        for (int i = 0; i < _server.Shards.Count; i++) _server.Shards[i].Store.ExpiryPaused = _active;
        _timer?.Dispose();
        _timer = null;
        if (_mode != Mode.None)
        {
            long wait = Math.Clamp(_endMs - now, 1, int.MaxValue);
            _timer = new Timer(static state => ((ClientPause)state!).Expire(), this, wait, Timeout.Infinite);
        }
        if (Effective < previous)
        {
            _releasing = _waiters.Count;
            ReleaseOne();
        }
    }

    private void Expire()
    {
        lock (_lock) Update(Effective);
    }

    /// <summary>
    /// Whether <paramref name="def"/> (command <paramref name="i"/> of <paramref name="commands"/>,
    /// from <paramref name="client"/>) must wait now. Read only while <see cref="Active"/>.
    /// </summary>
    public bool Holds(CommandDef def, ClientSession client, Protocol.CommandBuffer commands, int i)
    {
        // Replicas are never paused (their ACKs are what a stop waits for), as in Redis.
        if (client.IsReplica) return false;
        if (_stopping) return true;
        Mode mode;
        lock (_lock)
        {
            if (_mode != Mode.None && _endMs <= DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()) Update(Effective);
            mode = _stopping ? Mode.All : Effective;
        }
        if (mode == Mode.All) return true;
        if (mode == Mode.None) return false;
        if (def.Handler == TransactionCommands.Exec)
        {
            if (!client.InMulti || client.QueuedDefs is not { } queued) return false;
            for (int j = 0; j < queued.Count; j++)
                if (MayWrite(queued[j], client.Queued!, j)) return true;
            return false;
        }
        return MayWrite(def, commands, i);
    }

    /// <summary>
    /// Redis's may-replicate test with a script's own flags: EVAL of a script whose shebang says
    /// no-writes, and FCALL of a function flagged no-writes, do not count (EVALSHA keeps EVALSHA's flags here).
    /// </summary>
    private bool MayWrite(CommandDef def, Protocol.CommandBuffer commands, int i)
    {
        if ((def.Flags & (CommandFlags.Write | CommandFlags.MayReplicate)) == 0) return false;
        if (def.Handler == Scripting.ScriptCommands.Eval && commands.ArgCount(i) > 1)
        {
            return Scripting.ScriptShebang.Parse(commands.Arg(i, 1), out var flags, out _) != null
                || (flags & Scripting.ScriptFlags.EvalCompat) != 0 || (flags & Scripting.ScriptFlags.NoWrites) == 0;
        }
        if (def.Handler == Scripting.FunctionCommands.FCall && commands.ArgCount(i) > 1)
        {
            var function = _server.Functions.Find(commands.Arg(i, 1));
            return function == null || (function.Flags & Scripting.ScriptFlags.NoWrites) == 0;
        }
        return true;
    }

    /// <summary>Queues a held client; the task completes when its turn to run again comes.</summary>
    public Task Enqueue(out object ticket)
    {
        var waiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        ticket = waiter;
        lock (_lock)
        {
            _waiters.AddLast(waiter);
            if (!_active && !_stopping)
            {
                // The pause ended between the check and here: it goes with the round under way.
                _releasing++;
                ReleaseOne();
            }
        }
        return waiter.Task;
    }

    /// <summary>A queued client went away: it leaves the queue (or passes its turn, if it had just been given one).</summary>
    public void Forget(object ticket)
    {
        var waiter = (TaskCompletionSource)ticket;
        lock (_lock)
        {
            if (_waiters.Remove(waiter)) return;
        }
        if (waiter.Task.IsCompleted) PassTurn();
    }

    /// <summary>The released client has run the command it was held on: the next one queued at the release goes.</summary>
    public void PassTurn()
    {
        lock (_lock)
        {
            _turnOut = false;
            ReleaseOne();
        }
    }

    /// <summary>Lets the first queued client go, unless one let go has not passed its turn yet. Under the lock.</summary>
    private void ReleaseOne()
    {
        if (_turnOut) return;
        if (_releasing <= 0 || _waiters.First is not { } first)
        {
            _releasing = 0;
            return;
        }
        _releasing--;
        _waiters.RemoveFirst();
        _turnOut = true;
        first.Value.TrySetResult();
    }
}
