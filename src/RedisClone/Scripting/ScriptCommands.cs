using RedisClone.Commands;
using RedisClone.Common;
using RedisClone.Protocol;

namespace RedisClone.Scripting;

/// <summary>
/// EVAL, EVALSHA, their read-only variants and SCRIPT. A script runs with every shard's gate held (the table routes these
/// commands to all shards): simple and atomic whatever keys the script touches, declared or not.
/// Later: take only the declared keys' shards and refuse undeclared keys as Redis's cluster rules do.
/// </summary>
internal static class ScriptCommands
{
    // Redis's SCRIPT DEBUG is left out: there is no Lua debugger here.
    private static readonly HelpReply HelpText = new("SCRIPT",
        "EXISTS <sha1> [<sha1> ...]",
        "    For each SHA1 digest given, 1 if the cache holds a script with that digest,",
        "    else 0.",
        "FLUSH [ASYNC|SYNC]",
        "    Empty the script cache. Both modes, and no mode, empty it before replying:",
        "    there is little to free.",
        "KILL",
        "    Stop the EVAL script running now, provided it has not written yet (if it has,",
        "    only SHUTDOWN NOSAVE stops it).",
        "LOAD <script>",
        "    Compile <script> and keep it in the cache without running it; replies its SHA1",
        "    digest, for EVALSHA.");

    /// <summary>EVAL script numkeys [key ...] [arg ...] — compiles (once per SHA1) and runs the script.</summary>
    public static void Eval(ref CommandContext ctx) => Run(ref ctx, evalSha: false, readOnly: false);

    /// <summary>EVALSHA sha1 numkeys [key ...] [arg ...] — runs a cached script, or NOSCRIPT.</summary>
    public static void EvalSha(ref CommandContext ctx) => Run(ref ctx, evalSha: true, readOnly: false);

    /// <summary>EVAL_RO script numkeys [key ...] [arg ...] — EVAL whose redis.call refuses write commands.</summary>
    public static void EvalRo(ref CommandContext ctx) => Run(ref ctx, evalSha: false, readOnly: true);

    /// <summary>EVALSHA_RO sha1 numkeys [key ...] [arg ...] — EVALSHA whose redis.call refuses write commands.</summary>
    public static void EvalShaRo(ref CommandContext ctx) => Run(ref ctx, evalSha: true, readOnly: true);

    /// <summary>
    /// numkeys (argument 2) of EVAL and FCALL, checked as Redis checks it (not a number:
    /// <paramref name="notInteger"/>; more than the arguments after it; negative); false after replying the error.
    /// </summary>
    internal static bool TryNumKeys(ref CommandContext ctx, ReadOnlySpan<byte> notInteger, out int numKeys)
    {
        numKeys = 0;
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long n))
        {
            ctx.Error(notInteger);
            return false;
        }
        if (n > ctx.ArgCount - 3)
        {
            ctx.Error(RespErrors.NumKeysTooMany);
            return false;
        }
        if (n < 0)
        {
            ctx.Error(RespErrors.NumKeysNegative);
            return false;
        }
        numKeys = (int)n;
        return true;
    }

    private static void Run(ref CommandContext ctx, bool evalSha, bool readOnly)
    {
        if (!TryNumKeys(ref ctx, RespErrors.NotInteger, out int numKeys)) return;
        var engine = ctx.Server.Scripts;
        // The SHA1 as lower-case text on the stack: a cached script is found without a string.
        Span<char> sha = stackalloc char[40];
        if (evalSha)
        {
            var arg = ctx.Arg(1);
            if (arg.Length != 40)
            {
                ctx.Error(RespErrors.NoScript);
                return;
            }
            for (int i = 0; i < 40; i++) sha[i] = (char)(arg[i] is >= (byte)'A' and <= (byte)'Z' ? arg[i] + 32 : arg[i]);
        }
        else
        {
            LuaEngine.HashBody(ctx.Arg(1), sha);
        }
        lock (engine.Sync)
        {
            if (engine.Run(sha, ref ctx, 3, numKeys, readOnly)) return;
            if (evalSha)
            {
                ctx.Error(RespErrors.NoScript);
                return;
            }
            string? error = engine.Load(ctx.Arg(1), out _);
            if (error != null) ctx.Error(LuaEngine.Sanitize("ERR " + error));
            else engine.Run(sha, ref ctx, 3, numKeys, readOnly);
        }
    }

    /// <summary>The keys of EVAL/EVALSHA: numkeys (argument 2) names the arguments after it.</summary>
    public static int EvalKeys(ref CommandContext ctx, scoped Span<int> keys)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long numKeys) || numKeys < 0 || numKeys > ctx.ArgCount - 3) return 0;
        for (int i = 0; i < numKeys && i < keys.Length; i++) keys[i] = 3 + i;
        return (int)numKeys;
    }

    /// <summary>SCRIPT LOAD script — compiles and caches the script; its SHA1.</summary>
    public static void Load(ref CommandContext ctx)
    {
        var engine = ctx.Server.Scripts;
        lock (engine.Sync)
        {
            string? error = engine.Load(ctx.Arg(2), out string sha);
            if (error != null) ctx.Error(LuaEngine.Sanitize("ERR " + error));
            else ctx.Reply.Bulk(sha);
        }
    }

    /// <summary>SCRIPT EXISTS sha1 [sha1 ...] — 1 or 0 for each.</summary>
    public static void Exists(ref CommandContext ctx)
    {
        var engine = ctx.Server.Scripts;
        lock (engine.Sync)
        {
            ctx.Reply.ArrayHeader(ctx.ArgCount - 2);
            for (int i = 2; i < ctx.ArgCount; i++)
            {
                var arg = ctx.Arg(i);
                ctx.Reply.Integer(arg.Length == 40 && engine.Exists(RespErrors.Latin(arg).ToLowerInvariant()) ? 1 : 0);
            }
        }
    }

    /// <summary>SCRIPT FLUSH [ASYNC|SYNC] — forgets every script (both modes flush at once: the cache is small).</summary>
    public static void Flush(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 3 || (ctx.ArgCount == 3 && !ctx.ArgIs(2, "SYNC") && !ctx.ArgIs(2, "ASYNC")))
        {
            ctx.Error(RespErrors.ScriptFlushOption);
            return;
        }
        var engine = ctx.Server.Scripts;
        lock (engine.Sync) engine.Flush();
        ctx.Reply.Ok();
    }

    /// <summary>
    /// SCRIPT KILL — stops the running EVAL script unless it has written: NOTBUSY when none runs,
    /// UNKILLABLE after a write, BUSY (FUNCTION KILL's text) when a function runs. Takes no gate (the
    /// script holds them all); the executor runs it once the script is busy or over (see
    /// <see cref="ScriptWatchdog.WaitBusyOrIdleAsync"/>).
    /// </summary>
    public static void Kill(ref CommandContext ctx) => ReplyKill(ref ctx, ctx.Server.ScriptWatchdog.Kill(ScriptKind.Eval), ScriptKind.Eval);

    /// <summary>The reply of SCRIPT KILL (<paramref name="requester"/> Eval) or FUNCTION KILL (Function).</summary>
    internal static void ReplyKill(ref CommandContext ctx, KillOutcome outcome, ScriptKind requester)
    {
        switch (outcome)
        {
            case KillOutcome.Killed:
                ctx.Reply.Ok();
                break;
            case KillOutcome.NotBusy:
                ctx.Error(RespErrors.NotBusy);
                break;
            case KillOutcome.Unkillable:
                ctx.Error(RespErrors.UnkillableScript);
                break;
            default:
                // SCRIPT KILL while a function runs answers the function's BUSY text, and the reverse.
                ctx.Error(requester == ScriptKind.Eval ? RespErrors.BusyFunction : RespErrors.BusyEval);
                break;
        }
    }

    /// <summary>The -BUSY error for the kind of script running (null when none is busy).</summary>
    public static string? BusyError(ScriptKind busy)
        => busy switch { ScriptKind.Eval => RespErrors.BusyEval, ScriptKind.Function => RespErrors.BusyFunction, _ => null };

    /// <summary>SCRIPT HELP.</summary>
    public static void Help(ref CommandContext ctx) => HelpText.Write(ref ctx);

    /// <summary>SCRIPT alone: the container's handler is never reached with a valid subcommand.</summary>
    public static void Container(ref CommandContext ctx) => Help(ref ctx);
}
