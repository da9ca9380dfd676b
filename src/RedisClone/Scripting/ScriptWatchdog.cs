using System.Diagnostics;
using KeraLua;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Scripting;

/// <summary>What runs a script: EVAL and its variants, or FCALL (their BUSY and kill texts differ).</summary>
internal enum ScriptKind { None = 0, Eval = 1, Function = 2 }

/// <summary>What SCRIPT KILL or FUNCTION KILL found.</summary>
internal enum KillOutcome { Killed, NotBusy, Unkillable, WrongKind }

/// <summary>
/// The server's view of the one script running (scripts hold every shard gate and their engine's
/// lock, so there is at most one): when it started, whether it has written, whether it passed
/// <c>busy-reply-threshold</c> (then every other client gets -BUSY) and whether it was killed.
/// </summary>
/// <remarks>
/// <para>
/// Redis checks the script's run time from a count hook every 100,000 Lua instructions and, past the
/// threshold, serves other clients from inside that hook. Here the other clients are served by the
/// event loops anyway (a script runs on a shard thread, never on a loop), so nothing runs inside the
/// script while it runs normally: no hook at all (an always-on count hook halves Lua's speed in
/// 5.4). One watchdog thread for the server looks at the running script every few milliseconds and
/// marks the server busy once it passes the threshold; it sleeps when no script has run for a while.
/// </para>
/// <para>
/// A kill installs a count hook on the script's coroutine from the killing thread (lua_sethook may
/// be called asynchronously, as lua.c does from its SIGINT handler). The hook yields the coroutine
/// (in Lua 5.4 a yield from a count hook returns normally, with no longjmp over managed frames) and
/// the engine's Resume comes back with Yield: the script is over whatever pcall it was inside, the
/// coroutine is reset and the state stays usable. A kill is refused once a write command ran; the
/// two are ordered by one compare-and-swap, so a write cannot start after a kill was granted.
/// </para>
/// </remarks>
internal sealed class ScriptWatchdog : IDisposable
{
    // _run: the sequence number of the current run << 2 | its phase.
    private const long Idle = 0, Running = 1, Busy = 2;
    private const long PhaseMask = 3;
    // _flags of the current run.
    private const int Wrote = 1, KillGranted = 2;

    // The hook yields; only from where a yield is allowed (inside a C function such as a sort
    // comparator it would be a Lua error, raised over this managed frame): elsewhere it fires again.
    private static readonly LuaHookFunction YieldHook = OnHook;

    private readonly Func<long> _thresholdMs;
    private readonly ServerLog? _log;
    private readonly Lock _sync = new();
    private readonly ManualResetEventSlim _wake = new(false, spinCount: 0);
    private long _run;
    private long _startTimestamp;
    private int _flags;
    private ScriptKind _kind;
    private string _name = "";
    private Lua? _coroutine;
    private CommandBuffer? _caller;
    private int _callerIndex;
    private Thread? _thread;
    private volatile bool _stopping;
    private volatile bool _sleeping = true; // also before the thread first starts: the first script starts it
    private List<TaskCompletionSource>? _waiters;

    public ScriptWatchdog(Func<long> thresholdMs, ServerLog? log)
    {
        _thresholdMs = thresholdMs;
        _log = log;
    }

    /// <summary>
    /// The kind of the running script once it has passed the threshold, else None: what every other
    /// client's command is checked against (one volatile read).
    /// </summary>
    public ScriptKind BusyKind => (Volatile.Read(ref _run) & PhaseMask) == Busy ? _kind : ScriptKind.None;

    /// <summary>The kind of the running script, busy or not; None when none runs.</summary>
    public ScriptKind RunningKind => (Volatile.Read(ref _run) & PhaseMask) != Idle ? _kind : ScriptKind.None;

    /// <summary>
    /// The running script's name (a SHA1, or a function name), the command that runs it (copied) and
    /// how long it has run; for FUNCTION STATS.
    /// </summary>
    public (string Name, byte[][] Command, long ElapsedMs)? RunningScript
    {
        get
        {
            lock (_sync)
            {
                if ((_run & PhaseMask) == Idle || _caller == null) return null;
                var command = new byte[_caller.ArgCount(_callerIndex)][];
                for (int a = 0; a < command.Length; a++) command[a] = _caller.Arg(_callerIndex, a).ToArray();
                return (_name, command, (long)Stopwatch.GetElapsedTime(_startTimestamp).TotalMilliseconds);
            }
        }
    }

    /// <summary>
    /// A script starts on <paramref name="coroutine"/>, run by command <paramref name="callerIndex"/>
    /// of <paramref name="caller"/> (which stays as it is until <see cref="End"/>). Called by the thread
    /// that runs it.
    /// </summary>
    public void Begin(Lua coroutine, ScriptKind kind, string name, CommandBuffer caller, int callerIndex)
    {
        _coroutine = coroutine;
        _kind = kind;
        _name = name;
        _caller = caller;
        _callerIndex = callerIndex;
        _flags = 0;
        _startTimestamp = Stopwatch.GetTimestamp();
        // A full fence (not a plain volatile write): the watchdog's going to sleep reads _run after
        // writing _sleeping, this reads _sleeping after writing _run, so one of them sees the other.
        Interlocked.Exchange(ref _run, ((_run >> 2) + 1) << 2 | Running);
        if (_sleeping) WakeWatchdog();
    }

    /// <summary>
    /// The script ended (returned, failed or was killed). Clears the busy state; true when it was
    /// killed. The coroutine's hook is removed by the caller once this returned (no kill can be
    /// granted after it).
    /// </summary>
    public bool End()
    {
        lock (_sync)
        {
            Volatile.Write(ref _run, _run & ~PhaseMask);
            _coroutine = null;
            _caller = null;
        }
        if (Volatile.Read(ref _waiters) != null) ReleaseWaiters();
        return (Volatile.Read(ref _flags) & KillGranted) != 0;
    }

    /// <summary>
    /// A write command is about to run from the script (Redis's SCRIPT_WRITE_DIRTY, set before the
    /// command runs, whether or not it changes anything). False when the script was killed: the
    /// command must not run.
    /// </summary>
    public bool TryMarkWrite()
    {
        while (true)
        {
            int flags = Volatile.Read(ref _flags);
            if ((flags & KillGranted) != 0) return false;
            if ((flags & Wrote) != 0 || Interlocked.CompareExchange(ref _flags, flags | Wrote, flags) == flags) return true;
        }
    }

    /// <summary>Set by <see cref="KillForShutdown"/>: a script killed now was not killed by a user.</summary>
    public bool ShuttingDown { get; private set; }

    /// <summary>True once the running script ran a write command (Redis's SCRIPT_WRITE_DIRTY).</summary>
    public bool HasWritten => (Volatile.Read(ref _flags) & Wrote) != 0;

    /// <summary>True once the running script was killed: redis.call runs nothing more.</summary>
    public bool Killed => (Volatile.Read(ref _flags) & KillGranted) != 0;

    /// <summary>SCRIPT KILL (<paramref name="requester"/> Eval) or FUNCTION KILL (Function), in Redis's order of checks.</summary>
    public KillOutcome Kill(ScriptKind requester)
    {
        lock (_sync)
        {
            if ((_run & PhaseMask) == Idle) return KillOutcome.NotBusy;
            if ((Volatile.Read(ref _flags) & Wrote) != 0) return KillOutcome.Unkillable;
            if (requester != _kind) return KillOutcome.WrongKind;
            if (Interlocked.CompareExchange(ref _flags, KillGranted, 0) != 0) return KillOutcome.Unkillable; // a write won the race
            _coroutine!.SetHook(YieldHook, LuaHookMask.Count, 1);
            return KillOutcome.Killed;
        }
    }

    /// <summary>
    /// The server stops (SHUTDOWN NOSAVE, SIGTERM): the running script is killed whether it wrote or
    /// not, as Redis exits from inside it. Waits up to <paramref name="timeout"/> for it to end.
    /// </summary>
    public void KillForShutdown(TimeSpan timeout)
    {
        lock (_sync)
        {
            ShuttingDown = true;
            if ((_run & PhaseMask) == Idle) return;
            Interlocked.Or(ref _flags, KillGranted);
            _coroutine!.SetHook(YieldHook, LuaHookMask.Count, 1);
        }
        var deadline = Stopwatch.GetTimestamp() + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        while ((Volatile.Read(ref _run) & PhaseMask) != Idle && Stopwatch.GetTimestamp() < deadline) Thread.Sleep(1);
    }

    /// <summary>
    /// Completes once the running script is busy or over (at once when none runs, or it is busy).
    /// SCRIPT KILL waits on it: Redis reads a kill only once the script has passed the threshold (it
    /// serves no client before), so a script that ends in time is never killed, and the kill answers
    /// NOTBUSY.
    /// </summary>
    public Task WaitBusyOrIdleAsync()
    {
        if ((Volatile.Read(ref _run) & PhaseMask) != Running) return Task.CompletedTask;
        var waiter = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_sync)
        {
            if ((_run & PhaseMask) != Running) return Task.CompletedTask;
            (_waiters ??= new()).Add(waiter);
        }
        if (_sleeping) WakeWatchdog();
        return waiter.Task;
    }

    private void ReleaseWaiters()
    {
        List<TaskCompletionSource>? waiters;
        lock (_sync)
        {
            waiters = _waiters;
            _waiters = null;
        }
        if (waiters != null) foreach (var w in waiters) w.TrySetResult();
    }

    private static void OnHook(IntPtr state, IntPtr debug)
    {
        var lua = Lua.FromIntPtr(state);
        if (lua.IsYieldable)
        {
            lua.Yield(0);
            return;
        }
        // Inside a C function's callback (a sort comparator, a gsub replacement): look again every
        // thousand instructions until the script is back where it can yield.
        lua.SetHook(YieldHook, LuaHookMask.Count, 1000);
    }

    private void WakeWatchdog()
    {
        lock (_sync)
        {
            if (_thread == null)
            {
                if (_stopping) return;
                _thread = new Thread(Watch) { IsBackground = true, Name = "script-watchdog" };
                _thread.Start();
                return;
            }
        }
        _wake.Set();
    }

    /// <summary>
    /// The watchdog: every few milliseconds while scripts run, marks the running one busy once it
    /// passes the threshold. After a second without any script it sleeps until the next one starts.
    /// </summary>
    private void Watch()
    {
        _sleeping = false;
        long lastRun = -1;
        int idleTicks = 0;
        while (!_stopping)
        {
            long threshold = Math.Max(0, _thresholdMs());
            int tick = (int)Math.Clamp(threshold / 10, 1, 100);
            long run = Volatile.Read(ref _run);
            long phase = run & PhaseMask;
            if (phase == Running)
            {
                long elapsedMs = (long)Stopwatch.GetElapsedTime(Volatile.Read(ref _startTimestamp)).TotalMilliseconds;
                if (elapsedMs >= threshold && Interlocked.CompareExchange(ref _run, (run & ~PhaseMask) | Busy, run) == run)
                {
                    // As Redis's scriptInterrupt when it enters the timed-out mode.
                    _log?.Warning($"Slow script detected: still in execution after {elapsedMs} milliseconds. " +
                                  $"You can try killing the script using the {(_kind == ScriptKind.Eval ? "SCRIPT KILL" : "FUNCTION KILL")} command. " +
                                  $"Script name is: {_name}.");
                    ReleaseWaiters();
                }
            }
            if (run != lastRun || phase != Idle)
            {
                lastRun = run;
                idleTicks = 0;
            }
            else if (++idleTicks * tick >= 1000)
            {
                _wake.Reset();
                _sleeping = true;
                Interlocked.MemoryBarrier();
                if (Volatile.Read(ref _run) == lastRun) _wake.Wait();
                _sleeping = false;
                idleTicks = 0;
                continue;
            }
            Thread.Sleep(tick);
        }
    }

    public void Dispose()
    {
        _stopping = true;
        _wake.Set();
    }
}
