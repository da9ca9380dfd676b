using System.Buffers;
using System.Globalization;
using System.Security.Cryptography;
using KeraLua;
using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Server;
using RedisClone.Storage;

namespace RedisClone.Scripting;

/// <summary>Runs one command a script sent through redis.call; sets <paramref name="error"/> when it cannot run from a script.</summary>
/// <remarks>
/// Execution supplies it (Scripting sits below Execution, which runs every command): the command is
/// looked up, checked and run by the same call that runs a client's command.
/// </remarks>
/// <param name="readOnly">The script came from EVAL_RO/EVALSHA_RO: write commands are refused.</param>
/// <param name="watchdog">Told before a write command runs; refuses it once the script was killed.</param>
/// <param name="denyOom">Memory was over maxmemory when the script's command was checked and the script may not
/// ignore it: its first denyoom command, before any write, is refused (Redis's scriptVerifyOOM).</param>
internal delegate void ScriptCommandRunner(RedisServer server, ClientSession session, CommandBuffer command,
    IBufferWriter<byte> sink, long nowMs, bool readOnly, bool denyOom, ScriptWatchdog watchdog, out string? error);

/// <summary>
/// A Lua state with the compatibility layer and the redis library loaded once, and the machinery that
/// runs a script in it and serves its redis.call. The server has two, as Redis: EVAL's, where each
/// script is compiled once and kept by its SHA1 (SCRIPT FLUSH drops the state, as Redis does), and
/// the functions' (<see cref="ForFunctions"/>, LuaEngine.Functions.cs), where libraries register
/// functions. Not thread-safe: callers hold <see cref="Sync"/>; a running script also holds every
/// shard's gate (see ScriptCommands, FunctionCommands).
/// </summary>
/// <remarks>
/// A script runs in a coroutine of the state (<see cref="Execute"/>), so that SCRIPT KILL and
/// FUNCTION KILL can end it by making it yield (see <see cref="ScriptWatchdog"/>), and the state
/// stays usable afterwards.
/// </remarks>
internal sealed partial class LuaEngine : IDisposable
{
    /// <summary>Set by Execution before any command runs.</summary>
    public static ScriptCommandRunner? Runner;

    private static readonly LuaFunction CallDelegate = Call;
    private static readonly LuaFunction Sha1Delegate = Sha1Hex;
    private static readonly LuaFunction LogDelegate = Log;
    private static readonly LuaFunction SetRespDelegate = SetResp;
    private static readonly LuaFunction SetReplDelegate = SetRepl;
    private static readonly LuaFunction AclCheckDelegate = AclCheckCmd;

    // The engine whose script is running on this thread (the callbacks are static: KeraLua needs
    // delegates kept alive, and a static one needs no allocation per state).
    [ThreadStatic] private static LuaEngine? _running;

    private readonly RedisServer _server;
    private readonly Dictionary<string, (int Reference, ScriptFlags Flags)> _scripts = new(StringComparer.Ordinal);
    private readonly ClientSession _session;
    private readonly CommandBuffer _command = new();
    private readonly ArrayBufferWriter<byte> _reply = new();
    private Lua _lua;
    private Lua _co;
    private int _env;
    private int _runner;
    private long _nowMs;
    private bool _readOnly;
    // Set by each run: the caller was out of memory at its command's check and the script has no allow-oom.
    private bool _denyOom;
    // The script about to run declared allow-oom (set just before Execute, which consumes it).
    private bool _allowOom;
    // The running script's allow-cross-slot-keys flag (a cluster node's check of its commands' slots).
    private bool _allowCrossSlot;

    public LuaEngine(RedisServer server) : this(server, extraSource: null)
    {
    }

    /// <param name="extraSource">Lua run after the bootstrap (the functions' library API), or null.</param>
    private LuaEngine(RedisServer server, string? extraSource)
    {
        _server = server;
        // MONITOR shows the commands a script runs as coming from "lua"; they never block (CLIENT_SCRIPT).
        _session = new ClientSession(-1, null, null, static () => { }, address: "lua") { IsScriptClient = true };
        (_lua, _co, _env, _runner) = NewState(extraSource);
    }

    public object Sync { get; } = new();

    // What INFO memory shows: written by the thread running the engine, read by any (INFO takes no lock).
    private long _vmBytes;
    private long _scriptBytes;
    private int _scriptCount;

    /// <summary>Scripts in the cache (number_of_cached_scripts).</summary>
    public int ScriptCount => Volatile.Read(ref _scriptCount);

    /// <summary>
    /// The Lua state's memory as Lua counts it (used_memory_vm_eval, or used_memory_vm_functions
    /// for the functions' state), as of the last script run, load or flush.
    /// </summary>
    public long VmBytes => Volatile.Read(ref _vmBytes);

    /// <summary>
    /// The script cache's own memory as Redis counts it (used_memory_scripts_eval): each script's
    /// SHA1 and body with their string headers, its entry, and the table's slots; nothing when empty.
    /// </summary>
    public long CacheBytes
    {
        get
        {
            int count = ScriptCount;
            if (count == 0) return 0;
            long slots = Math.Max(4, (long)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)count));
            return Volatile.Read(ref _scriptBytes) + slots * sizeof(long);
        }
    }

    /// <summary>Bytes Redis spends on one cached script: the SHA1 (a 40-character string), the body, a table entry and its script record.</summary>
    private static long ScriptEntryBytes(int bodyLength) => 48 + (bodyLength + 20) + 24 + 16;

    /// <summary>Refreshes <see cref="VmBytes"/>: a read of two counters of the state.</summary>
    private void MeasureVm()
        => Volatile.Write(ref _vmBytes, _lua.GarbageCollector(LuaGC.Count, 0) * 1024L + _lua.GarbageCollector(LuaGC.Countb, 0));

    /// <summary>
    /// A state with the bootstrap (and <paramref name="extraSource"/>) loaded, the coroutine scripts
    /// run in, and the registry references of the scripts' environment (<c>__redis__env</c>, which
    /// the extra source may replace) and of the function that runs a script under the error handler.
    /// </summary>
    private static (Lua, Lua, int, int) NewState(string? extraSource = null)
    {
        var lua = new Lua();
        Libraries.LuaLibrarySource.Open(lua);
        lua.Register("__redis_call", CallDelegate);
        lua.Register("__redis_sha1hex", Sha1Delegate);
        lua.Register("__redis_log", LogDelegate);
        lua.Register("__redis_setresp", SetRespDelegate);
        lua.Register("__redis_set_repl", SetReplDelegate);
        lua.Register("__redis_acl_check_cmd", AclCheckDelegate);
        var version = Version.Parse(ServerInfo.Version);
        var source = LuaBootstrap.Source.Replace("__CHUNK__", LuaBootstrap.ChunkName)
            .Replace("__VERSION_NUM__", ((version.Major << 16) | (version.Minor << 8) | version.Build).ToString(CultureInfo.InvariantCulture))
            .Replace("__VERSION__", ServerInfo.Version);
        if (lua.LoadString(source, LuaBootstrap.ChunkName) != LuaStatus.OK || lua.PCall(0, 0, 0) != LuaStatus.OK)
            throw new InvalidOperationException("Lua bootstrap failed: " + lua.ToString(-1, false));
        if (extraSource != null && (lua.LoadString(extraSource, LuaBootstrap.ChunkName) != LuaStatus.OK || lua.PCall(0, 0, 0) != LuaStatus.OK))
            throw new InvalidOperationException("Lua bootstrap failed: " + lua.ToString(-1, false));
        lua.GetGlobal("__redis__env");
        int env = lua.Ref(LuaRegistry.Index);
        lua.PushNil();
        lua.SetGlobal("__redis__env");
        lua.PushNil();
        lua.SetGlobal("__redis__guard");
        lua.GetGlobal("__redis__run");
        int runner = lua.Ref(LuaRegistry.Index);
        lua.PushNil();
        lua.SetGlobal("__redis__run");
        var co = lua.NewThread();
        lua.Ref(LuaRegistry.Index); // anchored for the state's lifetime
        return (lua, co, env, runner);
    }

    public static string Sha1Hex(ReadOnlySpan<byte> body) => Convert.ToHexStringLower(SHA1.HashData(body));

    public bool Exists(string sha) => _scripts.ContainsKey(sha);

    /// <summary>
    /// The cached script whose lower-case SHA1 is <paramref name="sha"/>, found without making a
    /// string: the key (for errors and logs) and its entry.
    /// </summary>
    private bool TryFind(scoped ReadOnlySpan<char> sha, out string key, out (int Reference, ScriptFlags Flags) script)
        => _scripts.GetAlternateLookup<ReadOnlySpan<char>>().TryGetValue(sha, out key!, out script);

    /// <summary>
    /// EVAL's lookup: the SHA1 of <paramref name="body"/> (written, lower-case, into
    /// <paramref name="sha"/>, 40 chars) names a cached script.
    /// </summary>
    public static void HashBody(ReadOnlySpan<byte> body, Span<char> sha)
    {
        Span<byte> digest = stackalloc byte[20];
        SHA1.HashData(body, digest);
        Convert.TryToHexStringLower(digest, sha, out _);
    }

    /// <summary>Compiles <paramref name="body"/> unless its SHA1 is cached; null on success, else Redis's error text.</summary>
    public string? Load(ReadOnlySpan<byte> body, out string sha)
    {
        sha = Sha1Hex(body);
        if (_scripts.ContainsKey(sha)) return null;
        string? shebangError = ScriptShebang.Parse(body, out var flags, out int shebangLength);
        if (shebangError != null) return shebangError;
        var lua = _lua;
        // The shebang line is left out, its line feed kept: line numbers stay the user's.
        if (lua.LoadBuffer(body[shebangLength..].ToArray(), "@user_script") != LuaStatus.OK)
        {
            // Lua 5.1 quotes the end-of-file token ("near '<eof>'"), 5.4 does not.
            string message = lua.ToString(-1, false).Replace("near <eof>", "near '<eof>'");
            lua.Pop(1);
            return "Error compiling script (new function): " + message;
        }
        TailCalls.Rewrite(lua, "@user_script");
        // The chunk's one upvalue is its _ENV: the protected environment instead of _G.
        lua.RawGetInteger(LuaRegistry.Index, _env);
        lua.SetUpValue(-2, 1);
        _scripts[sha] = (lua.Ref(LuaRegistry.Index), flags);
        Volatile.Write(ref _scriptBytes, _scriptBytes + ScriptEntryBytes(body.Length));
        Volatile.Write(ref _scriptCount, _scripts.Count);
        MeasureVm();
        return null;
    }

    /// <summary>Drops every script: a new state, as Redis's SCRIPT FLUSH.</summary>
    public void Flush()
    {
        System.Diagnostics.Debug.Assert(_loadLibrary == 0, "the functions' state is never flushed: FunctionStore releases libraries");
        _scripts.Clear();
        var old = _lua;
        (_lua, _co, _env, _runner) = NewState();
        old.Dispose();
        Volatile.Write(ref _scriptBytes, 0);
        Volatile.Write(ref _scriptCount, 0);
        MeasureVm();
    }

    /// <summary>
    /// Runs the cached script <paramref name="sha"/> with KEYS and ARGV from the command's arguments
    /// and writes its converted reply (RESP2 rules) into <paramref name="ctx"/>. False when no such script.
    /// <paramref name="readOnly"/>: EVAL_RO/EVALSHA_RO, whose redis.call refuses writes.
    /// </summary>
    public bool Run(scoped ReadOnlySpan<char> shaText, ref CommandContext ctx, int firstKey, int numKeys, bool readOnly)
    {
        if (!TryFind(shaText, out string sha, out var script)) return false;
        var (reference, flags) = script;
        if ((flags & ScriptFlags.EvalCompat) == 0)
        {
            // Redis's scriptPrepareForRun: a script that declared flags and may write cannot run from
            // an _RO command; one that declared no-writes runs read-only.
            if ((flags & ScriptFlags.NoWrites) == 0 && readOnly)
            {
                ctx.Error(RespErrors.ScriptWriteFlagOnRo);
                return true;
            }
            if ((flags & ScriptFlags.NoWrites) != 0) readOnly = true;
            // A script with flags and without allow-oom or no-writes is a denyoom command (the
            // top-level EVAL was refused already; EVALSHA's flags are known only here).
            if (ScriptShebang.DeniesOom(flags) && ctx.Client.OomAtStart && ctx.Server.Config.MaxMemory != 0)
            {
                ctx.Error(RespErrors.OomReply);
                return true;
            }
            // Likewise a script with flags and without no-writes is a write command: MISCONF while
            // persisting fails (EVAL was refused before it ran; EVALSHA is refused here).
            if (ScriptShebang.MayWrite(flags) && ctx.Server.WritesDeniedByDiskError() is { } diskError)
            {
                ctx.Error(diskError);
                return true;
            }
            // And NOREPLICAS with too few good replicas (scriptPrepareForRun).
            if (ScriptShebang.MayWrite(flags) && ctx.Server.WritesDeniedByReplicas() is { } replicasError)
            {
                ctx.Error(replicasError);
                return true;
            }
        }
        _allowOom = (flags & ScriptFlags.EvalCompat) == 0 && (flags & ScriptFlags.AllowOom) != 0;
        _allowCrossSlot = (flags & ScriptFlags.EvalCompat) != 0 || (flags & ScriptFlags.AllowCrossSlotKeys) != 0;
        var lua = _lua;
        SetArray(lua, "KEYS", ref ctx, firstKey, numKeys);
        SetArray(lua, "ARGV", ref ctx, firstKey + numKeys, ctx.ArgCount - firstKey - numKeys);
        lua.RawGetInteger(LuaRegistry.Index, reference);
        Execute(ref ctx, ScriptKind.Eval, sha, isFunction: false, readOnly, argCount: 0);
        return true;
    }

    /// <summary>
    /// Runs the function under the <paramref name="argCount"/> values on top of the main state's
    /// stack (all popped) as a script of <paramref name="kind"/> and writes its reply, or its error as
    /// Redis words it ("script: NAME, on @user_script:LINE."), into <paramref name="ctx"/>. The
    /// function runs in the state's coroutine, watched by the server's <see cref="ScriptWatchdog"/>:
    /// past busy-reply-threshold other clients get -BUSY, and SCRIPT KILL / FUNCTION KILL (per
    /// <paramref name="kind"/>) can end it. EVAL and FCALL both run through here.
    /// </summary>
    /// <param name="name">The SHA1 of an EVAL script or a function's name: errors, the slow-script log line and FUNCTION STATS name it.</param>
    /// <param name="readOnly">redis.call refuses write commands (EVAL_RO, FCALL_RO, a no-writes script).</param>
    internal void Execute(ref CommandContext ctx, ScriptKind kind, string name, bool isFunction, bool readOnly, int argCount)
    {
        _readOnly = readOnly;
        _denyOom = !_allowOom && ctx.Client.OomAtStart;
        _allowOom = false;
        _session.ClusterCrossSlotAllowed = _allowCrossSlot;
        _allowCrossSlot = false;
        var lua = _lua;
        var co = _co;
        co.RawGetInteger(LuaRegistry.Index, _runner);
        lua.XMove(co, 1 + argCount);
        _session.Db = ctx.DbIndex;
        _session.Protocol = 2; // redis.setresp(3) changes it for this run
        // redis.call runs as the caller's ACL user, as Redis's script client takes its user.
        _session.User = ctx.Client.User;
        _session.Authenticated = true;
        _session.ScriptCaller = ctx.Client;
        _nowMs = ctx.NowMs;
        var watchdog = ctx.Server.ScriptWatchdog;
        var previous = _running;
        _running = this;
        var log = PropagationLog.Current;
        log?.SetScriptTargets(PropagationTarget.Both);
        LuaStatus status;
        int results;
        var (caller, callerIndex) = ctx.Command;
        watchdog.Begin(co, kind, name, caller, callerIndex);
        try
        {
            status = co.Resume(null, 1 + argCount, out results);
        }
        finally
        {
            _running = previous;
            log?.SetScriptTargets(PropagationTarget.Both);
        }
        bool killed = watchdog.End();
        if (killed) co.SetHook(null, 0, 0);
        if (status == LuaStatus.OK && results == 2 && co.ToBoolean(-2)) LuaReply.Write(co, ref ctx, _session.Protocol == 3);
        else if (status == LuaStatus.OK && results == 2) ReplyError(co, ref ctx, name, isFunction);
        else if (status == LuaStatus.Yield)
        {
            // Killed, or the script yielded itself (5.1 cannot: it runs in the main thread there).
            // Redis words a killed function's error and log line as a script's (one count hook for both).
            if (killed && !watchdog.ShuttingDown) ctx.Server.Log.Notice("Lua script killed by user with SCRIPT KILL.");
            ReplyYielded(co, ref ctx, name, killed ? "ERR Script killed by user with SCRIPT KILL..."
                : "ERR attempt to yield across metamethod/C-call boundary");
        }
        else ReplyError(co, ref ctx, name, isFunction);
        if (status == LuaStatus.OK) co.SetTop(0);
        else co.ResetThread();
        MeasureVm();
    }

    /// <summary>
    /// The reply of a script that yielded (killed): Redis raises its error from inside the script,
    /// so the error names the script line it was on.
    /// </summary>
    private static void ReplyYielded(Lua co, ref CommandContext ctx, string errorName, string error)
    {
        var ar = new LuaDebug();
        for (int level = 0; co.GetStack(level, ref ar) == 1; level++)
        {
            co.GetInfo("Sl", ref ar);
            if (ar.What == "C" || ar.Source == LuaBootstrap.ChunkName) continue;
            ctx.Error(Sanitize($"{error} script: {errorName}, on {ar.Source}:{ar.CurrentLine}."));
            return;
        }
        ctx.Error(Sanitize(error));
    }

    private static void SetArray(Lua lua, string name, ref CommandContext ctx, int from, int count)
    {
        PushArray(lua, ref ctx, from, count);
        lua.SetGlobal(name); // KeraLua marshals the name to native memory: no managed allocation
    }

    /// <summary>
    /// An error the script raised: "-msg script: name, on @user_script:line." as Redis's luaCallFunction
    /// (a function's name, or an EVAL script's SHA1).
    /// </summary>
    private static void ReplyError(Lua lua, ref CommandContext ctx, string name, bool isFunction)
    {
        if (!lua.IsTable(-1))
        {
            string msg = lua.IsString(-1) ? lua.ToString(-1, false) : "execution failure";
            if (msg.Length > 100) msg = msg[..100];
            ctx.Error(Sanitize($"ERR Error running script {(isFunction ? "" : "f_")}{name}, {msg}"));
            return;
        }
        string? text = GetStringField(lua, "err");
        string? source = GetStringField(lua, "source");
        string? line = GetStringField(lua, "line");
        var message = text ?? "";
        if (line != null && source != null) message += $" script: {name}, on {source}:{line}.";
        ctx.Error(Sanitize(message));
    }

    internal static string? GetStringField(Lua lua, string field)
    {
        lua.GetField(-1, field);
        // lua_isstring: strings and numbers (KeraLua's IsString checks for strings only).
        var type = lua.Type(-1);
        string? value = type == LuaType.String ? lua.ToString(-1, false)
            : type == LuaType.Number ? (lua.IsInteger(-1) ? lua.ToInteger(-1).ToString(CultureInfo.InvariantCulture) : lua.ToString(-1, false))
            : null;
        lua.Pop(1);
        return value;
    }

    /// <summary>Error replies are one line: Redis turns CR and LF into spaces.</summary>
    internal static string Sanitize(string error) => error.Replace('\r', ' ').Replace('\n', ' ');

    /// <summary>redis.call / redis.pcall: (raise, command, args...) → reply, failed.</summary>
    private static int Call(IntPtr state)
    {
        var engine = _running;
        // Scripts run in the engine's coroutine: its wrapper, without the one FromIntPtr allocates.
        var lua = engine != null && engine._co.Handle == state ? engine._co : Lua.FromIntPtr(state);
        bool raise = lua.ToBoolean(1);
        int argc = lua.GetTop() - 1;
        if (engine == null) return PushError(lua, "redis.call is only available while a script runs", raise);
        if (argc == 0) return PushError(lua, "Please specify at least one argument for this redis lib call", raise);
        var command = engine._command;
        command.Clear();
        command.BeginCommand();
        var l = lua.Handle;
        Span<byte> number = stackalloc byte[32];
        for (int a = 2; a <= argc + 1; a++)
        {
            var type = lua.Type(a);
            if (type == LuaType.Number)
            {
                int n = FormatNumber(lua, a, number);
                number[..n].CopyTo(command.AddArg(n));
            }
            else if (type == LuaType.String)
            {
                var bytes = Libraries.LuaApi.StringAt(l, a);
                bytes.CopyTo(command.AddArg(bytes.Length));
            }
            else
            {
                command.DropOpenCommand();
                return PushError(lua, "Lua redis lib command arguments must be strings or integers", raise);
            }
        }
        command.EndCommand();
        var sink = engine._reply;
        sink.ResetWrittenCount();
        int top = lua.GetTop();
        try
        {
            Runner!(engine._server, engine._session, command, sink, engine._nowMs, engine._readOnly, engine._denyOom, engine._server.ScriptWatchdog, out string? error);
            if (error != null) return PushError(lua, error, raise);
            var written = sink.WrittenSpan;
            LuaReply.Push(lua, written);
            lua.PushBoolean(raise && written.Length > 0 && written[0] == (byte)'-');
            return 2;
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // An exception must not cross the native Lua frames (it would end the process).
            lua.SetTop(top);
            return PushError(lua, ex.Message, raise);
        }
    }

    /// <summary>
    /// A number argument as Redis 7.2 formats it (fpconv_dtoa, the shortest round-trip form): 10/2
    /// gives "5", 0.1 gives "0.1".
    /// </summary>
    private static string FormatNumber(Lua lua, int index)
    {
        Span<byte> text = stackalloc byte[32];
        return System.Text.Encoding.ASCII.GetString(text[..FormatNumber(lua, index, text)]);
    }

    /// <summary>The same, written into <paramref name="dest"/> (32 bytes suffice); returns the length.</summary>
    private static int FormatNumber(Lua lua, int index, Span<byte> dest)
    {
        long integer;
        if (lua.IsInteger(index)) integer = lua.ToInteger(index);
        else
        {
            double d = lua.ToNumber(index);
            if (!(d == Math.Floor(d) && Math.Abs(d) < 1e17))
            {
                d.TryFormat(dest, out int written, "R", CultureInfo.InvariantCulture);
                for (int i = 0; i < written; i++)
                    if (dest[i] == (byte)'E') dest[i] = (byte)'e';
                return written;
            }
            integer = (long)d;
        }
        return RedisClone.Common.RedisNumbers.FormatInt64(integer, dest);
    }

    /// <summary>Pushes {err="ERR msg"} and whether the wrapper should raise it.</summary>
    private static int PushError(Lua lua, string message, bool raise)
    {
        LuaReply.PushErrorTable(lua, message.StartsWith('-') ? message : "-ERR " + message);
        lua.PushBoolean(raise);
        return 2;
    }

    private static int Sha1Hex(IntPtr state)
    {
        var lua = Lua.FromIntPtr(state);
        var type = lua.Type(1);
        byte[] bytes = type is LuaType.String ? lua.ToBuffer(1, false)
            : type is LuaType.Number ? System.Text.Encoding.ASCII.GetBytes(FormatNumber(lua, 1)) : [];
        lua.PushString(Sha1Hex(bytes));
        return 1;
    }

    /// <summary>redis.setresp(n): the protocol the script's redis.call replies come in; an error text when n is not 2 or 3.</summary>
    private static int SetResp(IntPtr state)
    {
        var lua = Lua.FromIntPtr(state);
        var engine = _running;
        int argc = lua.GetTop();
        if (argc != 1) return PushMessage(lua, "redis.setresp() requires one argument.");
        // lua_tonumber then a C int cast: anything that is not a number counts as 0.
        double resp = lua.ToNumber(1);
        if (resp is not (>= 2 and < 3) and not (>= 3 and < 4)) return PushMessage(lua, "RESP version must be 2 or 3.");
        if (engine != null) engine._session.Protocol = (int)resp;
        return 0;
    }

    /// <summary>redis.set_repl(flags): where the script's following writes propagate (REPL_NONE keeps them off the AOF and replicas).</summary>
    private static int SetRepl(IntPtr state)
    {
        var lua = Lua.FromIntPtr(state);
        if (lua.GetTop() != 1) return PushMessage(lua, "redis.set_repl() requires one argument.");
        double value = lua.ToNumber(-1);
        int flags = double.IsFinite(value) && Math.Abs(value) < int.MaxValue ? (int)value : -1;
        if ((flags & ~(int)PropagationTarget.Both) != 0)
            return PushMessage(lua, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
        PropagationLog.Current?.SetScriptTargets((PropagationTarget)flags);
        return 0;
    }

    /// <summary>
    /// redis.acl_check_cmd(command, args...): whether the script's caller (its ACL user) may run the
    /// command with these arguments; an error for a command that does not exist.
    /// </summary>
    private static int AclCheckCmd(IntPtr state)
    {
        var lua = Lua.FromIntPtr(state);
        var engine = _running;
        int argc = lua.GetTop();
        if (argc == 0) return PushMessage(lua, "Please specify at least one argument for this redis lib call");
        for (int a = 1; a <= argc; a++)
            if (lua.Type(a) is not (LuaType.Number or LuaType.String))
                return PushMessage(lua, "Lua redis lib command arguments must be strings or integers");
        var buffer = new CommandBuffer();
        buffer.BeginCommand();
        for (int a = 1; a <= argc; a++)
        {
            var arg = lua.Type(a) == LuaType.String ? lua.ToBuffer(a, false) : System.Text.Encoding.ASCII.GetBytes(FormatNumber(lua, a));
            arg.CopyTo(buffer.AddArg(arg.Length));
        }
        buffer.EndCommand();
        var def = engine?._server.Commands.Find(buffer.Arg(0, 0));
        if (def != null && def.Subcommands != null && argc >= 2) def = def.FindSubcommand(buffer.Arg(0, 1));
        if (def == null) return PushMessage(lua, "Invalid command passed to redis.acl_check_cmd()");
        bool allowed = true;
        if (engine!._session.User is { } user && !user.State.Unrestricted)
            allowed = Commands.Acl.AclChecks.Check(engine._server, engine._session, user.State, def, buffer, 0, engine._nowMs, out _)
                      == Commands.Acl.AclResult.Ok;
        lua.PushNil();
        lua.PushBoolean(allowed);
        return 2;
    }

    /// <summary>An error the Lua wrapper raises: (message) — the wrapper turns it into {err="ERR message"}.</summary>
    private static int PushMessage(Lua lua, string message)
    {
        lua.PushString(message);
        return 1;
    }

    private static int Log(IntPtr state)
    {
        var lua = Lua.FromIntPtr(state);
        var engine = _running;
        var level = (ServerLog.Level)(int)lua.ToInteger(1);
        engine?._server.Log.Write(level, lua.ToString(2, false));
        return 0;
    }

    public void Dispose() => _lua.Dispose();
}
