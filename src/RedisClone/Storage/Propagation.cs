using System.Buffers.Text;
using System.Runtime.CompilerServices;

namespace RedisClone.Storage;

/// <summary>Where a propagated command goes: Redis's PROPAGATE_AOF and PROPAGATE_REPL.</summary>
[Flags]
internal enum PropagationTarget : byte
{
    None = 0,
    Aof = 1,
    Replicas = 2,
    Both = Aof | Replicas,
}

/// <summary>
/// Receives the writes of each execution unit (a command, a transaction, one key the active expiry
/// cycle removed) as Redis replicates them: their effects, not the commands as sent.
/// </summary>
/// <remarks>
/// Called on the thread that ran the unit, with the gates of every shard it touched still held, so
/// units that touch one key arrive in the order they ran; units on other shards may arrive at the
/// same time from other threads. The unit's bytes are only valid during the call.
/// </remarks>
internal interface IPropagationListener
{
    void Propagate(PropagatedUnit unit);
}

/// <summary>
/// One execution unit's propagated commands. <see cref="Transaction"/> says Redis would wrap them
/// in MULTI/EXEC: more than one command, unless the unit was a SCAN or RANDOMKEY that removed
/// expired keys as it went (Redis 7.2's propagatePendingCommands).
/// </summary>
internal readonly ref struct PropagatedUnit
{
    private readonly PropagationLog _log;

    internal PropagatedUnit(PropagationLog log, bool transaction)
    {
        _log = log;
        Transaction = transaction;
    }

    public bool Transaction { get; }
    public int Count => _log.OpCount;
    public int Db(int command) => _log.OpDb(command);
    public PropagationTarget Target(int command) => _log.OpTarget(command);
    public int ArgCount(int command) => _log.OpArgCount(command);
    public ReadOnlySpan<byte> Arg(int command, int index) => _log.OpArg(command, index);
}

/// <summary>
/// Collects what an execution unit propagates, per thread. Execution opens a unit around each
/// command it runs (and around EXEC's whole queue); the command's own arguments are logged after it
/// ran when it changed the dataset, unless its handler rewrote them (<see cref="Rewrite"/>: SET EX as
/// SET PXAT, SPOP as SREM ...) or prevented them. Other writes join the unit as they happen
/// (<see cref="Also"/>: a key found expired on access is a DEL before the command that found it).
/// </summary>
/// <remarks>
/// Exists only while a listener is attached: <see cref="Current"/> is null otherwise, and handlers
/// test it before building anything, so commands pay nothing when nobody listens. Arguments are
/// copied into one arena that is reused from unit to unit.
/// </remarks>
internal sealed class PropagationLog
{
    // This thread's log, open while _depth > 0. One thread static: each access to one costs a call
    // (__tls_get_addr) when the runtime was loaded as a shared library, and every command enters.
    [ThreadStatic] private static PropagationLog? t_log;

    private IPropagationListener? _listener;
    private int _depth;
    private bool _noTransaction;

    private byte[] _arena = new byte[4096];
    private int _used;
    private (int Offset, int Length)[] _args = new (int, int)[64];
    private int _argCount;
    private Op[] _ops = new Op[8];
    private int _opCount;

    // The command running now: its replacement arguments (when rewritten) and whether it propagates at all.
    private Op _rewrite;
    private bool _rewritten;
    private bool _prevented;
    private PropagationTarget _forced;
    private PropagationTarget _scriptTargets = PropagationTarget.Both;

    // The op being built by Also or Rewrite: arguments from _openFirst on.
    private int _openFirst = -1;
    private bool _openIsRewrite;
    private int _openDb;
    private PropagationTarget _openTarget;

    internal struct Op
    {
        public int Db;
        public int FirstArg;
        public int ArgCount;
        public PropagationTarget Target;
    }

    /// <summary>The log of the unit open on this thread, or null when none is (nobody listens, or no command runs).</summary>
    public static PropagationLog? Current
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => t_log is { _depth: > 0 } log ? log : null;
    }

    /// <summary>Opens a unit on this thread, or joins the one already open (a command inside EXEC).</summary>
    public static PropagationLog Enter(IPropagationListener listener)
    {
        var log = t_log ??= new PropagationLog();
        if (log._depth == 0)
        {
            log._listener = listener;
            log._noTransaction = false;
        }
        log._depth++;
        return log;
    }

    /// <summary>
    /// Closes a level; the outermost hands the unit to the listener and clears it. True when it
    /// did hand one over (the listeners then left their positions in this thread's statics:
    /// AofWriter.ThreadSequence, ReplicationState.ThreadOffset).
    /// </summary>
    public bool Exit()
    {
        if (--_depth > 0) return false;
        var listener = _listener!;
        _listener = null;
        try
        {
            if (_opCount == 0) return false;
            listener.Propagate(new PropagatedUnit(this, _opCount > 1 && !_noTransaction));
            return true;
        }
        finally
        {
            _opCount = 0;
            _argCount = 0;
            _used = 0;
            _scriptTargets = PropagationTarget.Both;
        }
    }

    /// <summary>
    /// True when this is the command that opened the unit (not one run inside EXEC or a script).
    /// </summary>
    public bool Outermost => _depth == 1;

    /// <summary>Redis's CMD_TOUCHES_ARBITRARY_KEYS run directly: what it propagates is not wrapped in MULTI/EXEC.</summary>
    public void NoTransaction() => _noTransaction = true;

    /// <summary>Starts a command: clears the running command's rewrite state, returning it for <see cref="EndCommand"/> to restore.</summary>
    /// <remarks>A command run inside another (a script's redis.call) must not lose the outer one's rewrite.</remarks>
    public SavedCommand BeginCommand()
    {
        var saved = new SavedCommand(_rewrite, _rewritten, _prevented, _forced);
        _rewritten = _prevented = false;
        _forced = PropagationTarget.None;
        return saved;
    }

    /// <summary>
    /// Ends the running command. When it changed the dataset (Redis's dirty counter moved) or forced
    /// propagation, logs its rewrite, or returns true with <paramref name="target"/> so the caller logs
    /// its arguments as sent with <see cref="Also"/>. Then restores <paramref name="saved"/>.
    /// </summary>
    public bool EndCommand(bool changed, SavedCommand saved, out PropagationTarget target)
    {
        CloseOpen();
        target = ((changed ? PropagationTarget.Both : PropagationTarget.None) | _forced) & _scriptTargets;
        bool asSent = false;
        if (_prevented || target == PropagationTarget.None)
        {
            target = PropagationTarget.None;
        }
        else if (_rewritten)
        {
            var op = _rewrite;
            op.Target = target;
            AddOp(op);
        }
        else
        {
            asSent = true;
        }
        (_rewrite, _rewritten, _prevented, _forced) = (saved.Rewrite, saved.Rewritten, saved.Prevented, saved.Forced);
        return asSent;
    }

    /// <summary>What <see cref="BeginCommand"/> saved of the command it interrupted.</summary>
    internal readonly record struct SavedCommand(Op Rewrite, bool Rewritten, bool Prevented, PropagationTarget Forced);

    /// <summary>
    /// redis.set_repl: where the commands a script runs from now on propagate (their own
    /// propagation only: keys found expired still go everywhere, as in Redis). Reset when the unit closes.
    /// </summary>
    public void SetScriptTargets(PropagationTarget targets) => _scriptTargets = targets;

    /// <summary>Logs nothing for the running command itself (its handler logged what it did with <see cref="Also"/>).</summary>
    public void Prevent() => _prevented = true;

    /// <summary>Logs the running command even when it changed nothing (FLUSHALL on an empty server; PUBLISH to replicas).</summary>
    public void Force(PropagationTarget target) => _forced |= target;

    /// <summary>Starts the command that replaces the running one's arguments; add them with <see cref="Add(ReadOnlySpan{byte})"/>.</summary>
    public PropagationLog Rewrite(int db)
    {
        CloseOpen();
        Open(db, PropagationTarget.Both, rewrite: true);
        return this;
    }

    /// <summary>Starts another command of the unit, logged now (before the running command's own).</summary>
    public PropagationLog Also(int db, PropagationTarget target = PropagationTarget.Both)
    {
        CloseOpen();
        Open(db, target, rewrite: false);
        return this;
    }

    /// <summary>A DEL (or UNLINK) of <paramref name="key"/>, logged now: a key removed because it expired.</summary>
    public void Deleted(int db, ReadOnlySpan<byte> key, bool unlink)
        => Also(db).Add(unlink ? "UNLINK"u8 : "DEL"u8).Add(key).CloseOpen();

    public PropagationLog Add(ReadOnlySpan<byte> arg)
    {
        AddArg(arg);
        return this;
    }

    public PropagationLog Add(long value)
    {
        Span<byte> digits = stackalloc byte[20];
        Utf8Formatter.TryFormat(value, digits, out int n);
        AddArg(digits.Slice(0, n));
        return this;
    }

    internal int OpCount => _opCount;
    internal int OpDb(int op) => _ops[op].Db;
    internal PropagationTarget OpTarget(int op) => _ops[op].Target;
    internal int OpArgCount(int op) => _ops[op].ArgCount;

    internal ReadOnlySpan<byte> OpArg(int op, int index)
    {
        var (offset, length) = _args[_ops[op].FirstArg + index];
        return _arena.AsSpan(offset, length);
    }

    private void Open(int db, PropagationTarget target, bool rewrite)
    {
        _openFirst = _argCount;
        _openDb = db;
        _openTarget = target;
        _openIsRewrite = rewrite;
    }

    /// <summary>Ends the command being built by <see cref="Also"/> or <see cref="Rewrite"/> (the next one, or the unit's end, also does).</summary>
    public void Close() => CloseOpen();

    private void CloseOpen()
    {
        if (_openFirst < 0) return;
        var op = new Op { Db = _openDb, FirstArg = _openFirst, ArgCount = _argCount - _openFirst, Target = _openTarget };
        _openFirst = -1;
        if (_openIsRewrite)
        {
            _rewrite = op;
            _rewritten = true;
        }
        else
        {
            AddOp(op);
        }
    }

    private void AddOp(Op op)
    {
        if (_opCount == _ops.Length) Array.Resize(ref _ops, _ops.Length * 2);
        _ops[_opCount++] = op;
    }

    private void AddArg(ReadOnlySpan<byte> arg)
    {
        if (_used + arg.Length > _arena.Length)
            Array.Resize(ref _arena, Math.Max(_arena.Length * 2, _used + arg.Length));
        arg.CopyTo(_arena.AsSpan(_used));
        if (_argCount == _args.Length) Array.Resize(ref _args, _args.Length * 2);
        _args[_argCount++] = (_used, arg.Length);
        _used += arg.Length;
    }
}

/// <summary>Hands each unit to several listeners in turn (the AOF and the replication stream).</summary>
internal sealed class PropagationFanout(IPropagationListener[] listeners) : IPropagationListener
{
    public void Propagate(PropagatedUnit unit)
    {
        foreach (var listener in listeners) listener.Propagate(unit);
    }
}
