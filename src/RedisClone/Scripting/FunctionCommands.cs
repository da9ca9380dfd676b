using RedisClone.Commands;
using RedisClone.Common;
using RedisClone.Protocol;

namespace RedisClone.Scripting;

/// <summary>
/// FCALL, FCALL_RO and FUNCTION (LOAD, DELETE, FLUSH, LIST, DUMP, RESTORE, STATS, KILL, HELP), as
/// Redis 7.2's functions.c. A function runs like an EVAL script (on a shard thread, every shard's gate
/// held, watched by the ScriptWatchdog) and with the store's lock; the FUNCTION subcommands take the
/// lock only, except STATS and KILL, which answer while a function runs.
/// </summary>
internal static class FunctionCommands
{
    private static readonly HelpReply HelpText = new("FUNCTION",
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Run the code of a library, whose first line is \"#!lua name=<library>\", and keep",
        "    the functions it registers; replies the library's name. REPLACE swaps an existing",
        "    library of that name.",
        "DELETE <LIBRARY NAME>",
        "    Remove a library and its functions.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Describe each library (optionally only those whose name matches the pattern): its",
        "    name, engine and functions with their descriptions and flags, and its code with",
        "    WITHCODE.",
        "STATS",
        "    The function running now (nil when none) with its command and run time, and per",
        "    engine how many libraries and functions it holds.",
        "KILL",
        "    Stop the function running now, provided it has not written yet (if it has, only",
        "    SHUTDOWN NOSAVE stops it).",
        "FLUSH [ASYNC|SYNC]",
        "    Remove every library (both modes, and no mode, do it before replying).",
        "DUMP",
        "    Every library as one serialized payload, for FUNCTION RESTORE.",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Load the libraries of a FUNCTION DUMP payload. APPEND (the default) fails when a",
        "    library already exists; REPLACE swaps it; FLUSH removes every library first. A",
        "    function name already used by another library always fails the restore.");

    private static readonly string[] FlagNames = ["no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"];

    /// <summary>FCALL function numkeys [key ...] [arg ...] — runs a function with its keys and arguments.</summary>
    public static void FCall(ref CommandContext ctx) => Call(ref ctx, readOnly: false);

    /// <summary>FCALL_RO function numkeys [key ...] [arg ...] — runs a function flagged no-writes.</summary>
    public static void FCallRo(ref CommandContext ctx) => Call(ref ctx, readOnly: true);

    private static void Call(ref CommandContext ctx, bool readOnly)
    {
        var store = ctx.Server.Functions;
        lock (store.Sync)
        {
            var function = store.Find(ctx.Arg(1));
            if (function == null)
            {
                ctx.Error(RespErrors.FunctionNotFound);
                return;
            }
            if (!ScriptCommands.TryNumKeys(ref ctx, RespErrors.FunctionBadNumKeys, out int numKeys)) return;
            bool noWrites = (function.Flags & ScriptFlags.NoWrites) != 0;
            if (readOnly && !noWrites)
            {
                ctx.Error(RespErrors.FunctionWriteFlagReadOnly);
                return;
            }
            // A function without allow-oom or no-writes is a denyoom command (Redis's
            // fcallGetCommandFlags): refused when memory was over maxmemory at the check.
            // allow-stale, no-cluster and allow-cross-slot-keys change nothing: no replicas, no cluster mode.
            if (ScriptShebang.DeniesOom(function.Flags) && ctx.Client.OomAtStart && ctx.Server.Config.MaxMemory != 0)
            {
                ctx.Error(RespErrors.OomReply);
                return;
            }
            // A function without no-writes is a write command: MISCONF while persisting fails.
            if (!noWrites && ctx.Server.WritesDeniedByDiskError() is { } diskError)
            {
                ctx.Error(diskError);
                return;
            }
            if (!noWrites && ctx.Server.WritesDeniedByReplicas() is { } replicasError)
            {
                ctx.Error(replicasError);
                return;
            }
            store.Run(function, ref ctx, 3, numKeys, readOnly || noWrites);
        }
    }

    /// <summary>FUNCTION LOAD [REPLACE] function-code — loads a library; its name.</summary>
    public static void Load(ref CommandContext ctx)
    {
        bool replace = false;
        int position = 2;
        for (; position < ctx.ArgCount - 1; position++)
        {
            if (!ctx.ArgIs(position, "REPLACE"))
            {
                ctx.Error(RespErrors.FunctionLoadOption(ctx.ArgString(position)));
                return;
            }
            replace = true;
        }
        var store = ctx.Server.Functions;
        lock (store.Sync)
        {
            string? error = store.Load(ctx.Arg(position), replace, out string name);
            if (error != null) ctx.Error(LuaEngine.Sanitize("ERR " + error));
            else ctx.Reply.Bulk(name);
        }
    }

    /// <summary>FUNCTION DELETE library-name — removes a library and its functions.</summary>
    public static void Delete(ref CommandContext ctx)
    {
        var store = ctx.Server.Functions;
        bool deleted;
        lock (store.Sync) deleted = store.Delete(ctx.ArgString(2));
        if (deleted) ctx.Reply.Ok();
        else ctx.Error(RespErrors.LibraryNotFound);
    }

    /// <summary>FUNCTION FLUSH [ASYNC|SYNC] — removes every library (both modes at once: there is little to free).</summary>
    public static void Flush(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 3)
        {
            ctx.Error(RespErrors.SubcommandSyntax(ctx.Arg(0), ctx.Arg(1)));
            return;
        }
        if (ctx.ArgCount == 3 && !ctx.ArgIs(2, "SYNC") && !ctx.ArgIs(2, "ASYNC"))
        {
            ctx.Error(RespErrors.FunctionFlushOption);
            return;
        }
        var store = ctx.Server.Functions;
        lock (store.Sync) store.Flush();
        ctx.Reply.Ok();
    }

    /// <summary>FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE] — each library (matching the pattern, any case) as a map.</summary>
    public static void List(ref CommandContext ctx)
    {
        bool withCode = false;
        int patternAt = -1;
        for (int i = 2; i < ctx.ArgCount; i++)
        {
            if (!withCode && ctx.ArgIs(i, "WITHCODE"))
            {
                withCode = true;
                continue;
            }
            if (patternAt < 0 && ctx.ArgIs(i, "LIBRARYNAME"))
            {
                if (i >= ctx.ArgCount - 1)
                {
                    ctx.Error(RespErrors.LibraryNameMissing);
                    return;
                }
                patternAt = ++i;
                continue;
            }
            ctx.Error(RespErrors.FunctionListArgument(ctx.ArgString(i)));
            return;
        }
        var store = ctx.Server.Functions;
        lock (store.Sync)
        {
            var pattern = patternAt < 0 ? default : ctx.Arg(patternAt);
            int count = 0;
            foreach (var library in store.All)
                if (patternAt < 0 || Matches(pattern, library.Name)) count++;
            var reply = ctx.Reply;
            reply.ArrayHeader(count);
            foreach (var library in store.All)
            {
                if (patternAt >= 0 && !Matches(pattern, library.Name)) continue;
                reply.MapHeader(withCode ? 4 : 3);
                reply.Bulk("library_name"u8);
                reply.Bulk(library.Name);
                reply.Bulk("engine"u8);
                reply.Bulk(FunctionStore.EngineName);
                reply.Bulk("functions"u8);
                reply.ArrayHeader(library.Functions.Count);
                foreach (var function in library.Functions)
                {
                    reply.MapHeader(3);
                    reply.Bulk("name"u8);
                    reply.Bulk(function.Name);
                    reply.Bulk("description"u8);
                    if (function.Description != null) reply.Bulk(function.Description);
                    else reply.NullBulk();
                    reply.Bulk("flags"u8);
                    int flags = (int)function.Flags;
                    reply.SetHeader(System.Numerics.BitOperations.PopCount((uint)flags));
                    for (int f = 0; f < FlagNames.Length; f++)
                        if ((flags & (1 << f)) != 0) reply.SimpleString(FlagNames[f]);
                }
                if (withCode)
                {
                    reply.Bulk("library_code"u8);
                    reply.Bulk(library.Code);
                }
            }
        }
    }

    private static bool Matches(ReadOnlySpan<byte> pattern, string name)
    {
        Span<byte> bytes = name.Length <= 256 ? stackalloc byte[name.Length] : new byte[name.Length];
        for (int i = 0; i < name.Length; i++) bytes[i] = (byte)name[i];
        return GlobMatcher.IsMatch(pattern, bytes, nocase: true);
    }

    /// <summary>FUNCTION DUMP — every library as a payload for FUNCTION RESTORE (Redis's format: RDB opcodes, version, CRC64).</summary>
    public static void Dump(ref CommandContext ctx)
    {
        var store = ctx.Server.Functions;
        byte[] payload;
        lock (store.Sync) payload = store.Dump();
        ctx.Reply.Bulk(payload);
    }

    /// <summary>FUNCTION RESTORE serialized-value [FLUSH|APPEND|REPLACE] — loads a FUNCTION DUMP payload.</summary>
    public static void Restore(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 4)
        {
            ctx.Error(RespErrors.SubcommandSyntax(ctx.Arg(0), ctx.Arg(1)));
            return;
        }
        var policy = RestorePolicy.Append;
        if (ctx.ArgCount == 4)
        {
            if (ctx.ArgIs(3, "APPEND")) policy = RestorePolicy.Append;
            else if (ctx.ArgIs(3, "REPLACE")) policy = RestorePolicy.Replace;
            else if (ctx.ArgIs(3, "FLUSH")) policy = RestorePolicy.Flush;
            else
            {
                ctx.Error(RespErrors.FunctionRestorePolicy);
                return;
            }
        }
        var store = ctx.Server.Functions;
        string? error;
        lock (store.Sync) error = store.Restore(ctx.Arg(2), policy);
        if (error != null) ctx.Error(LuaEngine.Sanitize("ERR " + error));
        else ctx.Reply.Ok();
    }

    /// <summary>FUNCTION STATS — the running function (nil: see the remarks) and each engine's library and function counts.</summary>
    public static void Stats(ref CommandContext ctx)
    {
        var server = ctx.Server;
        var watchdog = server.ScriptWatchdog;
        // While an EVAL script runs (busy: otherwise this waits for it), Redis answers its BUSY.
        if (watchdog.RunningKind == ScriptKind.Eval)
        {
            ctx.Error(RespErrors.BusyEval);
            return;
        }
        // Read without the store's lock, which a running FCALL holds.
        int libraries = server.LibraryCount, functions = server.FunctionCount;
        var running = watchdog.RunningScript;
        var reply = ctx.Reply;
        reply.MapHeader(2);
        reply.Bulk("running_script"u8);
        if (running is not { } script) reply.NullBulk();
        else
        {
            reply.MapHeader(3);
            reply.Bulk("name"u8);
            reply.Bulk(script.Name);
            reply.Bulk("command"u8);
            reply.ArrayHeader(script.Command.Length);
            foreach (var arg in script.Command) reply.Bulk(arg);
            reply.Bulk("duration_ms"u8);
            reply.Integer(script.ElapsedMs);
        }
        reply.Bulk("engines"u8);
        reply.MapHeader(1);
        reply.Bulk(FunctionStore.EngineName);
        reply.MapHeader(2);
        reply.Bulk("libraries_count"u8);
        reply.Integer(libraries);
        reply.Bulk("functions_count"u8);
        reply.Integer(functions);
    }

    /// <summary>FUNCTION KILL — stops the running function unless it wrote (as SCRIPT KILL does for EVAL scripts).</summary>
    public static void Kill(ref CommandContext ctx)
        => ScriptCommands.ReplyKill(ref ctx, ctx.Server.ScriptWatchdog.Kill(ScriptKind.Function), ScriptKind.Function);

    /// <summary>FUNCTION HELP.</summary>
    public static void Help(ref CommandContext ctx) => HelpText.Write(ref ctx);

    /// <summary>FUNCTION alone: the container's handler is never reached with a valid subcommand.</summary>
    public static void Container(ref CommandContext ctx) => Help(ref ctx);
}
