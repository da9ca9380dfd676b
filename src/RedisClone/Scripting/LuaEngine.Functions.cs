using System.Diagnostics;
using KeraLua;
using RedisClone.Commands;
using RedisClone.Server;

namespace RedisClone.Scripting;

internal sealed partial class LuaEngine
{
    private int _loadLibrary;

    /// <summary>How long a library's code may run at FUNCTION LOAD (Redis's LOAD_TIMEOUT_MS).</summary>
    private const long LoadTimeoutMs = 500;

    private static readonly LuaHookFunction LoadHook = OnLoadHook;

    [ThreadStatic] private static long t_loadDeadline;

    /// <summary>Every 100,000 instructions of a loading library: past the deadline, yield (where a yield is allowed).</summary>
    private static void OnLoadHook(IntPtr state, IntPtr debug)
    {
        if (Stopwatch.GetTimestamp() < t_loadDeadline) return;
        var lua = Lua.FromIntPtr(state);
        if (lua.IsYieldable) lua.Yield(0);
    }

    /// <summary>
    /// The functions' state: a Lua state of its own (EVAL's SCRIPT FLUSH never touches it), with the
    /// same bootstrap plus the library API of <see cref="FunctionBootstrap"/>.
    /// </summary>
    public static LuaEngine ForFunctions(RedisServer server)
    {
        var engine = new LuaEngine(server, FunctionBootstrap.Source);
        var lua = engine._lua;
        lua.GetGlobal("__redis__load_library");
        engine._loadLibrary = lua.Ref(LuaRegistry.Index);
        lua.PushNil();
        lua.SetGlobal("__redis__load_library");
        return engine;
    }

    /// <summary>
    /// Compiles a library's code and runs it with the load-time API (only <c>redis.register_function</c>,
    /// <c>redis.log</c> and the version), adding what it registers to <paramref name="registered"/>.
    /// Null on success, else Redis's error text (without "ERR ").
    /// </summary>
    public string? LoadLibrary(ReadOnlySpan<byte> code, List<RegisteredFunction> registered)
    {
        var lua = _lua;
        int top = lua.GetTop();
        if (lua.LoadBuffer(code.ToArray(), "@user_function") != LuaStatus.OK)
        {
            string message = lua.ToString(-1, false).Replace("near <eof>", "near '<eof>'");
            lua.SetTop(top);
            return "Error compiling function: " + message;
        }
        // As EVAL's scripts: "return redis.call(...)" inside a function keeps its line in errors.
        TailCalls.Rewrite(lua, "@user_function");
        lua.RawGetInteger(LuaRegistry.Index, _env);
        lua.SetUpValue(-2, 1);
        lua.RawGetInteger(LuaRegistry.Index, _loadLibrary);
        lua.Insert(-2);
        // The library's code runs in the state's coroutine with a count hook: past Redis's 500 ms
        // load limit the hook makes it yield (C# never raises a Lua error), and the load fails.
        var co = _co;
        lua.XMove(co, 2);
        var previous = _running;
        _running = this; // redis.log at load time writes to this server's log
        t_loadDeadline = Stopwatch.GetTimestamp() + Stopwatch.Frequency * LoadTimeoutMs / 1000;
        co.SetHook(LoadHook, LuaHookMask.Count, 100_000);
        LuaStatus status;
        int results;
        try
        {
            status = co.Resume(null, 1, out results);
        }
        finally
        {
            co.SetHook(null, 0, 0);
            _running = previous;
        }
        if (status == LuaStatus.Yield)
        {
            co.ResetThread();
            return "Error registering functions: ERR FUNCTION LOAD timeout";
        }
        if (status != LuaStatus.OK || results != 2)
        {
            string failure = co.ToString(-1, false);
            co.ResetThread();
            return "Error registering functions: ERR " + failure;
        }
        co.XMove(lua, 2);
        if (!lua.ToBoolean(-2))
        {
            string message = lua.ToString(-1, false);
            lua.SetTop(top);
            return "Error registering functions: " + message;
        }
        // A list of {name=, description=, flags=, callback=}.
        for (int i = 1; lua.RawGetInteger(-1, i) == LuaType.Table; i++)
        {
            string name = GetStringField(lua, "name")!;
            lua.GetField(-1, "description"); // a string or nil: the Lua side converted numbers
            byte[]? description = lua.Type(-1) == LuaType.String ? lua.ToBuffer(-1, false) : null;
            lua.Pop(1);
            lua.GetField(-1, "flags");
            var flags = (ScriptFlags)lua.ToInteger(-1);
            lua.Pop(1);
            lua.GetField(-1, "callback");
            int reference = lua.Ref(LuaRegistry.Index);
            registered.Add(new RegisteredFunction(name, description, flags, reference));
            lua.Pop(1);
        }
        lua.SetTop(top);
        MeasureVm();
        return null;
    }

    /// <summary>Lets the state collect a function's callback (its library was deleted, replaced or never linked).</summary>
    public void Release(int reference) => _lua.Unref(LuaRegistry.Index, reference);

    /// <summary>
    /// Calls a registered function as Redis's FCALL does: the keys and the other arguments as two Lua
    /// tables (its two parameters; no KEYS/ARGV globals), its reply or error into <paramref name="ctx"/>.
    /// </summary>
    public void RunFunction(int reference, string name, ref CommandContext ctx, int firstKey, int numKeys, bool readOnly,
        bool allowOom = false, bool allowCrossSlot = false)
    {
        _allowOom = allowOom;
        _allowCrossSlot = allowCrossSlot;
        var lua = _lua;
        PushArray(lua, ref ctx, firstKey, numKeys);
        PushArray(lua, ref ctx, firstKey + numKeys, ctx.ArgCount - firstKey - numKeys);
        lua.RawGetInteger(LuaRegistry.Index, reference);
        lua.Rotate(-3, 1); // the function under its two arguments
        Execute(ref ctx, ScriptKind.Function, name, isFunction: true, readOnly, argCount: 2);
    }

    /// <summary>A table of the arguments from <paramref name="from"/> on (pushed straight from the command's bytes).</summary>
    private static void PushArray(Lua lua, ref CommandContext ctx, int from, int count)
    {
        var l = lua.Handle;
        Libraries.LuaApi.lua_createtable(l, count, 0);
        for (int j = 0; j < count; j++)
        {
            Libraries.LuaApi.PushBytes(l, ctx.Arg(from + j));
            Libraries.LuaApi.lua_rawseti(l, -2, j + 1);
        }
    }
}
