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
            new("script", -2, None, ScriptCommands.Container, group: "scripting")
            {
                Summary = "Subcommands that manage the script cache.",
                Since = "2.6.0", Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new("exists", -3, NoScript, ScriptCommands.Exists)
                    {
                        Summary = "Tells whether scripts are in the script cache.",
                        Since = "2.6.0", Complexity = "O(N), N = scripts checked", Args = "sha1:string...",
                        Tips = "request_policy:all_shards response_policy:agg_logical_and",
                    },
                    new("flush", -2, NoScript, ScriptCommands.Flush)
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
                    new("load", 3, NoScript | Stale, ScriptCommands.Load)
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
