using System.Buffers;
using System.Globalization;
using System.Security.Cryptography;
using KeraLua;
using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Scripting;

/// <summary>Runs one command a script sent through redis.call; sets <paramref name="error"/> when it cannot run from a script.</summary>
/// <remarks>
/// Execution supplies it (Scripting sits below Execution, which runs every command): the command is
/// looked up, checked and run by the same call that runs a client's command.
/// </remarks>
/// <param name="readOnly">The script came from EVAL_RO/EVALSHA_RO: write commands are refused.</param>
/// <param name="watchdog">Told before a write command runs; refuses it once the script was killed.</param>
internal delegate void ScriptCommandRunner(RedisServer server, ClientSession session, CommandBuffer command,
    IBufferWriter<byte> sink, long nowMs, bool readOnly, ScriptWatchdog watchdog, out string? error);

/// <summary>
/// One Lua state per server: the compatibility layer and the redis library loaded once, each script
/// compiled once and kept by its SHA1 (SCRIPT FLUSH drops the state, as Redis does). Not thread-safe:
/// callers hold <see cref="Sync"/>; EVAL also holds every shard's gate (see ScriptCommands).
/// </summary>
/// <remarks>
/// A script runs in a coroutine of the state (<see cref="Execute"/>), so that SCRIPT KILL can end it
/// by making it yield (see <see cref="ScriptWatchdog"/>), and the state stays usable afterwards.
/// </remarks>
internal sealed class LuaEngine : IDisposable
{
    /// <summary>Set by Execution before any command runs.</summary>
    public static ScriptCommandRunner? Runner;

    private static readonly LuaFunction CallDelegate = Call;
    private static readonly LuaFunction Sha1Delegate = Sha1Hex;
    private static readonly LuaFunction LogDelegate = Log;

    // The engine whose script is running on this thread (the callbacks are static: KeraLua needs
    // delegates kept alive, and a static one needs no allocation per state).
    [ThreadStatic] private static LuaEngine? _running;

    private readonly RedisServer _server;
    private readonly Dictionary<string, int> _scripts = new(StringComparer.Ordinal);
    private readonly ClientSession _session;
    private readonly CommandBuffer _command = new();
    private readonly ArrayBufferWriter<byte> _reply = new();
    private Lua _lua;
    private Lua _co;
    private int _env;
    private int _runner;
    private long _nowMs;
    private bool _readOnly;

    public LuaEngine(RedisServer server)
    {
        _server = server;
        _session = new ClientSession(-1, null, null, static () => { });
        (_lua, _co, _env, _runner) = NewState();
    }

    public object Sync { get; } = new();

    public int ScriptCount => _scripts.Count;

    /// <summary>
    /// A state with the bootstrap loaded, the coroutine scripts run in, and the registry references
    /// of the scripts' environment and of the function that runs a script under the error handler.
    /// </summary>
    private static (Lua, Lua, int, int) NewState()
    {
        var lua = new Lua();
        lua.Register("__redis_call", CallDelegate);
        lua.Register("__redis_sha1hex", Sha1Delegate);
        lua.Register("__redis_log", LogDelegate);
        var version = Version.Parse(ServerInfo.Version);
        var source = LuaBootstrap.Source.Replace("__CHUNK__", LuaBootstrap.ChunkName)
            .Replace("__VERSION_NUM__", ((version.Major << 16) | (version.Minor << 8) | version.Build).ToString(CultureInfo.InvariantCulture))
            .Replace("__VERSION__", ServerInfo.Version);
        if (lua.LoadString(source, LuaBootstrap.ChunkName) != LuaStatus.OK || lua.PCall(0, 0, 0) != LuaStatus.OK)
            throw new InvalidOperationException("Lua bootstrap failed: " + lua.ToString(-1, false));
        lua.GetGlobal("__redis__env");
        int env = lua.Ref(LuaRegistry.Index);
        lua.PushNil();
        lua.SetGlobal("__redis__env");
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

    /// <summary>Compiles <paramref name="body"/> unless its SHA1 is cached; null on success, else Redis's error text.</summary>
    public string? Load(ReadOnlySpan<byte> body, out string sha)
    {
        sha = Sha1Hex(body);
        if (_scripts.ContainsKey(sha)) return null;
        var lua = _lua;
        if (lua.LoadBuffer(body.ToArray(), "@user_script") != LuaStatus.OK)
        {
            // Lua 5.1 quotes the end-of-file token ("near '<eof>'"), 5.4 does not.
            string message = lua.ToString(-1, false).Replace("near <eof>", "near '<eof>'");
            lua.Pop(1);
            return "Error compiling script (new function): " + message;
        }
        // The chunk's one upvalue is its _ENV: the protected environment instead of _G.
        lua.RawGetInteger(LuaRegistry.Index, _env);
        lua.SetUpValue(-2, 1);
        _scripts[sha] = lua.Ref(LuaRegistry.Index);
        return null;
    }

    /// <summary>Drops every script: a new state, as Redis's SCRIPT FLUSH.</summary>
    public void Flush()
    {
        _scripts.Clear();
        var old = _lua;
        (_lua, _co, _env, _runner) = NewState();
        old.Dispose();
    }

    /// <summary>
    /// Runs the cached script <paramref name="sha"/> with KEYS and ARGV from the command's arguments
    /// and writes its converted reply (RESP2 rules) into <paramref name="ctx"/>. False when no such script.
    /// <paramref name="readOnly"/>: EVAL_RO/EVALSHA_RO, whose redis.call refuses writes.
    /// </summary>
    public bool Run(string sha, ref CommandContext ctx, int firstKey, int numKeys, bool readOnly)
    {
        if (!_scripts.TryGetValue(sha, out int reference)) return false;
        var lua = _lua;
        SetArray(lua, "KEYS", ref ctx, firstKey, numKeys);
        SetArray(lua, "ARGV", ref ctx, firstKey + numKeys, ctx.ArgCount - firstKey - numKeys);
        lua.RawGetInteger(LuaRegistry.Index, reference);
        Execute(ref ctx, ScriptKind.Eval, sha, sha, readOnly);
        return true;
    }

    /// <summary>
    /// Runs the function on top of the main state's stack (popped) as a script of
    /// <paramref name="kind"/> and writes its reply, or its error as Redis words it (errors name
    /// <paramref name="errorName"/>: "script: NAME, on @user_script:LINE."), into <paramref name="ctx"/>.
    /// The function runs in the state's coroutine, watched by the server's <see cref="ScriptWatchdog"/>:
    /// past busy-reply-threshold other clients get -BUSY, and SCRIPT KILL / FUNCTION KILL (per
    /// <paramref name="kind"/>) can end it. FCALL runs its function through here too.
    /// </summary>
    /// <param name="name">What the slow-script log line and FUNCTION STATS call it (the SHA1, a function's name).</param>
    /// <param name="readOnly">redis.call refuses write commands (EVAL_RO, a no-writes script).</param>
    internal void Execute(ref CommandContext ctx, ScriptKind kind, string name, string errorName, bool readOnly)
    {
        _readOnly = readOnly;
        var lua = _lua;
        var co = _co;
        co.RawGetInteger(LuaRegistry.Index, _runner);
        lua.XMove(co, 1);
        _session.Db = ctx.DbIndex;
        _nowMs = ctx.NowMs;
        var watchdog = ctx.Server.ScriptWatchdog;
        var previous = _running;
        _running = this;
        LuaStatus status;
        int results;
        watchdog.Begin(co, kind, name);
        try
        {
            status = co.Resume(null, 1, out results);
        }
        finally
        {
            _running = previous;
        }
        bool killed = watchdog.End();
        if (killed) co.SetHook(null, 0, 0);
        if (status == LuaStatus.OK && results == 2 && co.ToBoolean(-2)) LuaReply.Write(co, ref ctx);
        else if (status == LuaStatus.OK && results == 2) ReplyError(co, ref ctx, errorName);
        else if (status == LuaStatus.Yield)
        {
            // Killed, or the script yielded itself (5.1 cannot: it runs in the main thread there).
            if (killed && !watchdog.ShuttingDown) ctx.Server.Log.Notice("Lua script killed by user with SCRIPT KILL.");
            ReplyYielded(co, ref ctx, errorName, killed ? "ERR Script killed by user with SCRIPT KILL..."
                : "ERR attempt to yield across metamethod/C-call boundary");
        }
        else ReplyError(co, ref ctx, errorName);
        if (status == LuaStatus.OK) co.SetTop(0);
        else co.ResetThread();
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
        lua.CreateTable(count, 0);
        for (int j = 0; j < count; j++)
        {
            lua.PushBuffer(ctx.Arg(from + j).ToArray());
            lua.RawSetInteger(-2, j + 1);
        }
        lua.SetGlobal(name);
    }

    /// <summary>An error the script raised: "-msg script: sha, on @user_script:line." as Redis's luaCallFunction.</summary>
    private static void ReplyError(Lua lua, ref CommandContext ctx, string sha)
    {
        if (!lua.IsTable(-1))
        {
            string msg = lua.IsString(-1) ? lua.ToString(-1, false) : "execution failure";
            if (msg.Length > 100) msg = msg[..100];
            ctx.Error(Sanitize($"ERR Error running script f_{sha}, {msg}"));
            return;
        }
        string? text = GetStringField(lua, "err");
        string? source = GetStringField(lua, "source");
        string? line = GetStringField(lua, "line");
        var message = text ?? "";
        if (line != null && source != null) message += $" script: {sha}, on {source}:{line}.";
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
        for (int a = 2; a <= argc + 1; a++)
        {
            var type = lua.Type(a);
            if (type == LuaType.Number)
            {
                var text = FormatNumber(lua, a);
                System.Text.Encoding.ASCII.GetBytes(text, command.AddArg(text.Length));
            }
            else if (type == LuaType.String)
            {
                var bytes = lua.ToBuffer(a, false);
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
        Runner!(engine._server, engine._session, command, sink, engine._nowMs, engine._readOnly, engine._server.ScriptWatchdog, out string? error);
        if (error != null) return PushError(lua, error, raise);
        var written = sink.WrittenSpan;
        LuaReply.Push(lua, written);
        lua.PushBoolean(raise && written.Length > 0 && written[0] == (byte)'-');
        return 2;
    }

    /// <summary>
    /// A number argument as Redis 7.2 formats it (fpconv_dtoa, the shortest round-trip form): 10/2
    /// gives "5", 0.1 gives "0.1".
    /// </summary>
    private static string FormatNumber(Lua lua, int index)
    {
        if (lua.IsInteger(index)) return lua.ToInteger(index).ToString(CultureInfo.InvariantCulture);
        double d = lua.ToNumber(index);
        if (d == Math.Floor(d) && Math.Abs(d) < 1e17) return ((long)d).ToString(CultureInfo.InvariantCulture);
        return d.ToString("R", CultureInfo.InvariantCulture).Replace("E", "e");
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
