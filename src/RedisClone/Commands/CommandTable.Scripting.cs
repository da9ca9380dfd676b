using RedisClone.Scripting;
using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>
    /// Lua scripting (handlers in <see cref="ScriptCommands"/>). Scripts route to every shard: each
    /// runs with all gates held, atomic whatever keys it touches (later: only the declared keys'
    /// shards), on a shard thread (Routing.Script). EVAL's keys follow numkeys: the finder gives them
    /// to COMMAND GETKEYS.
    /// </summary>
    private static IEnumerable<CommandDef> ScriptingRows()
    {
        // Redis words a note on EVAL's key spec, and none on EVALSHA's.
        const string EvalKeys = "RW access update i=2 n=0,1,1 -- We cannot tell how the keys will be used so we assume the worst, RW and UPDATE";
        const string EvalShaKeys = "RW access update i=2 n=0,1,1";
        const string EvalRoKeys = "RO access i=2 n=0,1,1 -- We cannot tell how the keys will be used so we assume the worst, RO and ACCESS";
        const string EvalShaRoKeys = "RO access i=2 n=0,1,1";
        const CommandFlags Eval = NoScript | SkipMonitor | MayReplicate | NoMandatoryKeys | Stale | MovableKeys;
        const CommandFlags EvalRo = NoScript | SkipMonitor | NoMandatoryKeys | Stale | ReadOnly | MovableKeys;
        // FCALL is not may-replicate, unlike EVAL (Redis's tables).
        const CommandFlags FCall = NoScript | SkipMonitor | NoMandatoryKeys | Stale | MovableKeys;
        const string FCallKeys = "RW access update i=2 n=0,1,1 -- We cannot tell how the keys will be used so we assume the worst, RW and UPDATE";
        const string FCallRoKeys = "RO access i=2 n=0,1,1 -- We cannot tell how the keys will be used so we assume the worst, RO and ACCESS";
        const string AllShardsSucceed = "request_policy:all_shards response_policy:all_succeeded";
        return
        [
            new("eval", -3, Eval, ScriptCommands.Eval, keys: EvalKeys, group: "scripting",
                routing: Routing.Script, keyFinder: ScriptCommands.EvalKeys)
            {
                Summary = "Runs a Lua script on the server.",
                Since = "2.6.0", Complexity = "Depends on the script that is executed.",
                Args = "script:string numkeys:integer [key:key...] [arg:string...]",
            },
            new("evalsha", -3, Eval, ScriptCommands.EvalSha, keys: EvalShaKeys, group: "scripting",
                routing: Routing.Script, keyFinder: ScriptCommands.EvalKeys)
            {
                Summary = "Runs a cached Lua script by its SHA1 digest.",
                Since = "2.6.0", Complexity = "Depends on the script that is executed.",
                Args = "sha1:string numkeys:integer [key:key...] [arg:string...]",
            },
            new("eval_ro", -3, EvalRo, ScriptCommands.EvalRo, keys: EvalRoKeys, group: "scripting",
                routing: Routing.Script, keyFinder: ScriptCommands.EvalKeys)
            {
                Summary = "Runs a Lua script that may only read: its write commands are refused.",
                Since = "7.0.0", Complexity = "Depends on the script that is executed.",
                Args = "script:string numkeys:integer [key:key...] [arg:string...]",
            },
            new("evalsha_ro", -3, EvalRo, ScriptCommands.EvalShaRo, keys: EvalShaRoKeys, group: "scripting",
                routing: Routing.Script, keyFinder: ScriptCommands.EvalKeys)
            {
                Summary = "Runs a cached Lua script by its SHA1 digest; its write commands are refused.",
                Since = "7.0.0", Complexity = "Depends on the script that is executed.",
                Args = "sha1:string numkeys:integer [key:key...] [arg:string...]",
            },
            new("fcall", -3, FCall | MayReplicate, FunctionCommands.FCall, keys: FCallKeys, group: "scripting",
                routing: Routing.Script, keyFinder: ScriptCommands.EvalKeys)
            {
                Summary = "Runs a function of a loaded library.",
                Since = "7.0.0", Complexity = "Depends on the function that is executed.",
                Args = "function:string numkeys:integer [key:key...] [arg:string...]",
            },
            new("fcall_ro", -3, FCall | ReadOnly, FunctionCommands.FCallRo, keys: FCallRoKeys, group: "scripting",
                routing: Routing.Script, keyFinder: ScriptCommands.EvalKeys)
            {
                Summary = "Runs a function flagged no-writes: its write commands are refused.",
                Since = "7.0.0", Complexity = "Depends on the function that is executed.",
                Args = "function:string numkeys:integer [key:key...] [arg:string...]",
            },
            // The subcommands that take the function store's lock route to every shard: a running
            // function holds that lock with every gate held, so an event loop that took the gates
            // never waits for the lock, and one that could not posts the work instead of stalling
            // its other clients for the length of the function (the threading contract).
            new("function", -2, None, FunctionCommands.Container, group: "scripting")
            {
                Summary = "Subcommands that manage function libraries.",
                Since = "7.0.0", Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new("delete", 3, Write | NoScript, FunctionCommands.Delete, routing: Routing.AllShards)
                    {
                        Summary = "Removes a library and its functions.",
                        Since = "7.0.0", Complexity = "O(1)", Args = "library-name:string", Tips = AllShardsSucceed,
                    },
                    new("dump", 2, NoScript, FunctionCommands.Dump, routing: Routing.AllShards)
                    {
                        Summary = "Serializes every library into one payload.",
                        Since = "7.0.0", Complexity = "O(N), N = functions",
                    },
                    new("flush", -2, Write | NoScript, FunctionCommands.Flush, routing: Routing.AllShards)
                    {
                        Summary = "Removes every library.",
                        Since = "7.0.0", Complexity = "O(N), N = functions removed", Args = "[async(ASYNC | SYNC)]",
                        Tips = AllShardsSucceed,
                    },
                    new("help", 2, Loading | Stale, FunctionCommands.Help)
                    {
                        Summary = "Shows what the FUNCTION subcommands do.",
                        Since = "7.0.0", Complexity = "O(1)",
                    },
                    new("list", -2, NoScript, FunctionCommands.List, routing: Routing.AllShards)
                    {
                        Summary = "Describes the libraries and their functions.",
                        Since = "7.0.0", Complexity = "O(N), N = functions",
                        Args = "[LIBRARYNAME=library-name-pattern:string] [WITHCODE]", Tips = "nondeterministic_output_order",
                    },
                    new("load", -3, Write | DenyOom | NoScript, FunctionCommands.Load, routing: Routing.AllShards)
                    {
                        Summary = "Loads a library of functions from its code.",
                        Since = "7.0.0", Complexity = "O(1), compilation aside", Args = "[REPLACE] function-code:string",
                        Tips = AllShardsSucceed,
                    },
                    new("restore", -3, Write | DenyOom | NoScript, FunctionCommands.Restore, routing: Routing.AllShards)
                    {
                        Summary = "Loads the libraries of a FUNCTION DUMP payload.",
                        Since = "7.0.0", Complexity = "O(N), N = functions in the payload",
                        Args = "serialized-value:string [policy(FLUSH | APPEND | REPLACE)]", Tips = AllShardsSucceed,
                    },
                    new("kill", 2, NoScript | AllowBusy, FunctionCommands.Kill)
                    {
                        Summary = "Stops the function running now, unless it has written to the dataset.",
                        Since = "7.0.0", Complexity = "O(1)",
                        Tips = "request_policy:all_shards response_policy:one_succeeded",
                    },
                    new("stats", 2, NoScript | AllowBusy, FunctionCommands.Stats)
                    {
                        Summary = "Tells which function runs now and how many libraries and functions are loaded.",
                        Since = "7.0.0", Complexity = "O(1)",
                        Tips = "nondeterministic_output request_policy:all_shards response_policy:special",
                    },
                ],
            },
            // LOAD, EXISTS and FLUSH take the script cache's lock, which a running script holds:
            // every shard's gates first, as for FUNCTION's subcommands above.
            new("script", -2, None, ScriptCommands.Container, group: "scripting")
            {
                Summary = "Subcommands that manage the script cache.",
                Since = "2.6.0", Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new("exists", -3, NoScript, ScriptCommands.Exists, routing: Routing.AllShards)
                    {
                        Summary = "Tells whether scripts are in the script cache.",
                        Since = "2.6.0", Complexity = "O(N), N = scripts checked", Args = "sha1:string...",
                        Tips = "request_policy:all_shards response_policy:agg_logical_and",
                    },
                    new("flush", -2, NoScript, ScriptCommands.Flush, routing: Routing.AllShards)
                    {
                        Summary = "Removes every script from the script cache.",
                        Since = "2.6.0", Complexity = "O(N), N = scripts in cache", Args = "[async(ASYNC | SYNC)@6.2.0]",
                        History = "6.2.0: Added the `ASYNC` and `SYNC` flushing mode modifiers.",
                        Tips = "request_policy:all_nodes response_policy:all_succeeded",
                    },
                    new("help", 2, Loading | Stale, ScriptCommands.Help)
                    {
                        Summary = "Shows what the SCRIPT subcommands do.",
                        Since = "5.0.0", Complexity = "O(1)",
                    },
                    new("kill", 2, NoScript | AllowBusy, ScriptCommands.Kill)
                    {
                        Summary = "Stops the script running now, unless it has written to the dataset.",
                        Since = "2.6.0", Complexity = "O(1)",
                        Tips = "request_policy:all_shards response_policy:one_succeeded",
                    },
                    new("load", 3, NoScript | Stale, ScriptCommands.Load, routing: Routing.AllShards)
                    {
                        Summary = "Compiles a script and caches it without running it; returns its SHA1.",
                        Since = "2.6.0", Complexity = "O(N), N = bytes of the script", Args = "script:string",
                        Tips = "request_policy:all_nodes response_policy:all_succeeded",
                    },
                ],
            },
        ];
    }
}
