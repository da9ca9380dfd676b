using RedisClone.Cluster;
using static RedisClone.Commands.CommandFlags;
using static RedisClone.Commands.Routing;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>Server commands: INFO, CONFIG, COMMAND, DEBUG, SHUTDOWN and the CLUSTER container.</summary>
    private static IEnumerable<CommandDef> ServerRows()
    {
        const CommandFlags Clu = Admin | Stale | NoAsyncLoading;
        return
        [
            new("info", -1, LS, ServerCommands.Info, group: "server")
            {
                Summary = "Reports server information and statistics, by section.",
                Since = "1.0.0", Complexity = "O(1)", Args = "[section...]",
                Tips = "nondeterministic_output request_policy:all_shards response_policy:special", Acl = "dangerous",
                History = "7.0.0: several sections at once",
            },
            new("config", -2, None, ServerCommands.Help, group: "server")
            {
                Summary = "Subcommands that read and change the configuration.",
                Since = "2.0.0", Complexity = "See each subcommand.",
                Subcommands =
                [
                    new("get", -3, Adm, ServerCommands.ConfigGet)
                    {
                        Summary = "Returns the configuration parameters that match patterns.",
                        Since = "2.0.0", Complexity = "O(N), N = parameters", Args = "parameter{parameter}...",
                        History = "7.0.0: several patterns at once",
                    },
                    // With every gate held: CONFIG SET appendonly starts or stops the AOF at an
                    // instant of the whole dataset, and an event loop may not wait for gates.
                    new("set", -4, Adm, ServerCommands.ConfigSet, routing: AllShards)
                    {
                        Summary = "Changes configuration parameters at run time.",
                        Since = "2.0.0", Complexity = "O(N), N = parameters", Args = "parameter_value{parameter value}...",
                        Tips = "request_policy:all_nodes response_policy:all_succeeded",
                        History = "7.0.0: several parameters at once",
                    },
                    new("resetstat", 2, Adm, ServerCommands.ConfigResetStat)
                    {
                        Summary = "Resets the statistics INFO reports.",
                        Since = "2.0.0", Complexity = "O(1)",
                    },
                    new("rewrite", 2, Adm, ServerCommands.ConfigRewrite)
                    {
                        Summary = "Writes the running configuration back to the config file.",
                        Since = "2.8.0", Complexity = "O(1)",
                    },
                    new("help", 2, LS, ServerCommands.ConfigHelp)
                    {
                        Summary = "Lists the CONFIG subcommands.",
                        Since = "5.0.0", Complexity = "O(1)",
                    },
                ],
            },
            new("command", -1, LS, ServerCommands.Command, group: "server")
            {
                Summary = "Describes every command of the server.",
                Since = "2.8.13", Complexity = "O(N), N = commands", Tips = "nondeterministic_output_order", Acl = "connection",
                Subcommands =
                [
                    new("count", 2, LS, ServerCommands.CommandCount)
                    {
                        Summary = "Returns how many commands the server has.",
                        Since = "2.8.13", Complexity = "O(1)", Acl = "connection",
                    },
                    new("docs", -2, LS, ServerCommands.CommandDocs)
                    {
                        Summary = "Documents commands: summary, group, arguments.",
                        Since = "7.0.0", Complexity = "O(N), N = commands asked for", Args = "[command-name...]",
                        Tips = "nondeterministic_output_order", Acl = "connection",
                    },
                    new("getkeys", -4, LS, ServerCommands.CommandGetKeys)
                    {
                        Summary = "Lists the keys a full command would use.",
                        Since = "2.8.13", Complexity = "O(N), N = arguments", Acl = "connection",
                    },
                    new("getkeysandflags", -4, LS, ServerCommands.CommandGetKeysAndFlags)
                    {
                        Summary = "Lists the keys a full command would use, with what it does to each.",
                        Since = "7.0.0", Complexity = "O(N), N = arguments", Acl = "connection",
                    },
                    new("info", -2, LS, ServerCommands.CommandInfo)
                    {
                        Summary = "Describes commands: arity, flags, key positions, ACL categories.",
                        Since = "2.8.13", Complexity = "O(N), N = commands asked for", Args = "[command-name...]",
                        Tips = "nondeterministic_output_order", Acl = "connection", History = "7.0.0: no names means every command",
                    },
                    new("list", -2, LS, ServerCommands.CommandList)
                    {
                        Summary = "Lists command names, optionally filtered.",
                        Since = "7.0.0", Complexity = "O(N), N = commands",
                        Args = "[FILTERBY=filterby(MODULE=module-name | ACLCAT=category | PATTERN=pattern:pattern)]",
                        Tips = "nondeterministic_output_order", Acl = "connection",
                    },
                    new("help", 2, LS, ServerCommands.CommandHelp)
                    {
                        Summary = "Lists the COMMAND subcommands.",
                        Since = "5.0.0", Complexity = "O(1)", Acl = "connection",
                    },
                ],
            },
            new("lolwut", -1, ReadOnly | Fast, LolwutCommands.Lolwut, group: "server")
            {
                Summary = "Draws a piece of computer art and shows the server's version.",
                Since = "5.0.0", Complexity = "", Args = "[VERSION=version:integer]",
            },
            new("wait", 3, None, WaitCommands.Wait, group: "generic")
            {
                Summary = "Waits until the connection's writes reached a number of replicas, or the timeout.",
                Since = "3.0.0", Complexity = "O(1)", Args = "numreplicas:integer timeout:integer", Acl = "connection",
                Tips = "request_policy:all_shards response_policy:agg_min",
            },
            new("waitaof", 4, NoScript, WaitCommands.WaitAof, group: "generic")
            {
                Summary = "Waits until the connection's writes are in the local AOF and a number of replicas', or the timeout.",
                Since = "7.2.0", Complexity = "O(1)", Args = "numlocal:integer numreplicas:integer timeout:integer", Acl = "connection",
                Tips = "request_policy:all_shards response_policy:agg_min",
            },
            new("role", 1, NoScript | LS | Fast | Sentinel, ServerCommands.Role, group: "server")
            {
                Summary = "Returns the server's replication role, offset and replicas.",
                Since = "2.8.12", Complexity = "O(1)", Acl = "admin dangerous",
            },
            new("time", 1, LS | Fast, ServerCommands.Time, group: "server")
            {
                Summary = "Returns the server's clock as seconds and microseconds.",
                Since = "2.6.0", Complexity = "O(1)", Tips = "nondeterministic_output",
            },
            new("lastsave", 1, LS | Fast, ServerCommands.LastSave, group: "server")
            {
                Summary = "Returns the unix time of the last successful save to disk.",
                Since = "1.0.0", Complexity = "O(1)", Tips = "nondeterministic_output", Acl = "admin dangerous",
            },
            new("slowlog", -2, None, ServerCommands.Help, group: "server")
            {
                Summary = "Subcommands that read and reset the log of slow commands.",
                Since = "2.2.12", Complexity = "See each subcommand.",
                Subcommands =
                [
                    new("get", -2, Admin | Loading | Stale, SlowLogCommands.Get)
                    {
                        Summary = "Returns the newest entries of the slow log.",
                        Since = "2.2.12", Complexity = "O(N), N = entries returned", Args = "[count:integer]",
                        History = "4.0.0: Added client IP address, port and name to the reply.",
                        Tips = "request_policy:all_nodes nondeterministic_output",
                    },
                    new("len", 2, Admin | Loading | Stale, SlowLogCommands.Len)
                    {
                        Summary = "Returns how many entries the slow log holds.",
                        Since = "2.2.12", Complexity = "O(1)",
                        Tips = "request_policy:all_nodes response_policy:agg_sum nondeterministic_output",
                    },
                    new("reset", 2, Admin | Loading | Stale, SlowLogCommands.Reset)
                    {
                        Summary = "Empties the slow log.",
                        Since = "2.2.12", Complexity = "O(N), N = entries dropped",
                        Tips = "request_policy:all_nodes response_policy:all_succeeded",
                    },
                    new("help", 2, Loading | Stale, SlowLogCommands.Help)
                    {
                        Summary = "Lists the SLOWLOG subcommands.",
                        Since = "6.2.0", Complexity = "O(1)",
                    },
                ],
            },
            new("module", -2, None, ServerCommands.Help, group: "server")
            {
                Summary = "Subcommands that list, load and unload modules: none is ever loaded here.",
                Since = "4.0.0", Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new("help", 2, Loading | Stale, ModuleCommands.Help)
                    {
                        Summary = "Lists the MODULE subcommands.",
                        Since = "5.0.0", Complexity = "O(1)",
                    },
                    new("list", 2, Admin | NoScript, ModuleCommands.List)
                    {
                        Summary = "Returns the loaded modules: none.",
                        Since = "4.0.0", Complexity = "O(N) where N is the number of loaded modules.",
                        Tips = "nondeterministic_output_order",
                    },
                    new("load", -3, NoAsyncLoading | Admin | NoScript | Protected, ModuleCommands.Load)
                    {
                        Summary = "Loads a module: always fails here.",
                        Since = "4.0.0", Complexity = "O(1)", Args = "path [arg...]",
                    },
                    new("loadex", -3, NoAsyncLoading | Admin | NoScript | Protected, ModuleCommands.Load)
                    {
                        Summary = "Loads a module with configurations and arguments: always fails here.",
                        // Redis 7.2's arguments: ARGS is a string argument (7.0: a block holding "arg").
                        Since = "7.0.0", Complexity = "O(1)", Args = "path [CONFIG=configs{name value}...+] [ARGS=args...]",
                    },
                    new("unload", 3, NoAsyncLoading | Admin | NoScript | Protected, ModuleCommands.Unload)
                    {
                        Summary = "Unloads a module: there is none to unload here.",
                        Since = "4.0.0", Complexity = "O(1)", Args = "name",
                    },
                ],
            },
            new("memory", -2, None, ServerCommands.Help, group: "server")
            {
                Summary = "A container for memory diagnostics commands.",
                Since = "4.0.0", Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new("doctor", 2, None, MemoryCommands.Doctor)
                    {
                        Summary = "Outputs a memory problems report.",
                        Since = "4.0.0", Complexity = "O(1)",
                        Tips = "nondeterministic_output request_policy:all_shards response_policy:special",
                    },
                    new("help", 2, Loading | Stale, MemoryCommands.Help)
                    {
                        Summary = "Returns helpful text about the different subcommands.",
                        Since = "4.0.0", Complexity = "O(1)",
                    },
                    new("malloc-stats", 2, None, MemoryCommands.MallocStats)
                    {
                        Summary = "Returns the allocator statistics.",
                        Since = "4.0.0", Complexity = "Depends on how much memory is allocated, could be slow",
                        Tips = "nondeterministic_output request_policy:all_shards response_policy:special",
                    },
                    new("purge", 2, None, MemoryCommands.Purge)
                    {
                        Summary = "Asks the allocator to release memory.",
                        Since = "4.0.0", Complexity = "Depends on how much memory is allocated, could be slow",
                        Tips = "request_policy:all_shards response_policy:all_succeeded",
                    },
                    new("stats", 2, None, MemoryCommands.Stats)
                    {
                        Summary = "Returns details about memory usage.",
                        Since = "4.0.0", Complexity = "O(1)",
                        Tips = "nondeterministic_output request_policy:all_shards response_policy:special",
                    },
                    new("usage", -3, ReadOnly, MemoryCommands.Usage, keys: "RO i=2")
                    {
                        Summary = "Estimates the memory usage of a key.",
                        Since = "4.0.0", Complexity = "O(N) where N is the number of samples.",
                        Args = "key:key [SAMPLES=count:integer]",
                    },
                ],
            },
            new("latency", -2, None, ServerCommands.Help, group: "server")
            {
                Summary = "Subcommands that report and reset latency events and per-command latency histograms.",
                Since = "2.8.13", Complexity = "See each subcommand.",
                Subcommands =
                [
                    new("doctor", 2, Admin | NoScript | Loading | Stale, LatencyCommands.Doctor)
                    {
                        Summary = "Returns a report, for people, on the latency events seen.",
                        Since = "2.8.13", Complexity = "O(1)",
                        Tips = "nondeterministic_output request_policy:all_nodes response_policy:special",
                    },
                    new("graph", 3, Admin | NoScript | Loading | Stale, LatencyCommands.Graph)
                    {
                        Summary = "Returns an ASCII chart of an event's samples.",
                        Since = "2.8.13", Complexity = "O(1)", Args = "event:string",
                        Tips = "nondeterministic_output request_policy:all_nodes response_policy:special",
                    },
                    new("help", 2, Loading | Stale, LatencyCommands.Help)
                    {
                        Summary = "Lists the LATENCY subcommands.",
                        Since = "2.8.13", Complexity = "O(1)",
                    },
                    new("histogram", -2, Admin | NoScript | Loading | Stale, LatencyCommands.Histogram)
                    {
                        Summary = "Returns the cumulative distribution of the durations of some or all commands.",
                        Since = "7.0.0", Complexity = "O(N), N = commands reported", Args = "[command:string...]",
                        Tips = "nondeterministic_output request_policy:all_nodes response_policy:special",
                    },
                    new("history", 3, Admin | NoScript | Loading | Stale, LatencyCommands.History)
                    {
                        Summary = "Returns the time and latency samples of an event.",
                        Since = "2.8.13", Complexity = "O(1)", Args = "event:string",
                        Tips = "nondeterministic_output request_policy:all_nodes response_policy:special",
                    },
                    new("latest", 2, Admin | NoScript | Loading | Stale, LatencyCommands.Latest)
                    {
                        Summary = "Returns the newest sample of every event.",
                        Since = "2.8.13", Complexity = "O(1)",
                        Tips = "nondeterministic_output request_policy:all_nodes response_policy:special",
                    },
                    new("reset", -2, Admin | NoScript | Loading | Stale, LatencyCommands.Reset)
                    {
                        Summary = "Forgets the samples of some or all events.",
                        Since = "2.8.13", Complexity = "O(1)", Args = "[event:string...]",
                        Tips = "request_policy:all_nodes response_policy:agg_sum",
                    },
                ],
            },
            new("save", 1, Admin | NoScript | NoMulti | NoAsyncLoading, PersistenceCommands.Save, group: "server", routing: AllShards)
            {
                Summary = "Writes the dataset to the RDB file now, blocking other clients until done.",
                Since = "1.0.0", Complexity = "O(N), N = keys in all databases", Acl = "admin dangerous",
            },
            new("bgrewriteaof", 1, Admin | NoScript | NoAsyncLoading, PersistenceCommands.BgRewriteAof, group: "server", routing: AllShards)
            {
                Summary = "Rewrites the AOF in the background: a new base file from this instant, appending to a new incremental file.",
                Since = "1.0.0", Complexity = "O(1) to start", Acl = "admin dangerous",
            },
            new("bgsave", -1, Admin | NoScript | NoAsyncLoading, PersistenceCommands.BgSave, group: "server", routing: AllShards)
            {
                Summary = "Writes the dataset to the RDB file in the background, as it is at this moment.",
                Since = "1.0.0", Complexity = "O(1) to start", Args = "[SCHEDULE@3.2.2]",
                History = "3.2.2: SCHEDULE", Acl = "admin dangerous",
            },
            new("debug", -2, Adm, DebugCommands.Debug, group: "server", routing: AllShards)
            {
                Summary = "Developer and testing commands.",
                Since = "1.0.0", Complexity = "Depends on the subcommand.", SysCmd = true,
            },
            new("shutdown", -1, Adm | NoMulti | AllowBusy, ServerCommands.Shutdown, group: "server")
            {
                Summary = "Stops the server, saving first unless told otherwise.",
                Since = "1.0.0", Complexity = "O(N) when saving, N = keys",
                Args = "[nosave_save(NOSAVE | SAVE)] [NOW@7.0.0] [FORCE@7.0.0] [ABORT@7.0.0]",
                History = "7.0.0: NOW, FORCE and ABORT",
            },
            // Every subcommand goes to one handler (Cluster/ClusterCommands: without cluster-enabled each
            // answers that cluster support is disabled); the entries exist so arity checks, unknown-subcommand
            // errors and COMMAND INFO match Redis. Those that look at keys take every shard's gate.
            new("cluster", -2, None, ClusterCommands.Cluster, group: "cluster")
            {
                Summary = "Subcommands for Redis Cluster.",
                Since = "3.0.0", Complexity = "See each subcommand.",
                Subcommands =
                [
                    new("addslots", -3, Clu, ClusterCommands.Cluster)
                    {
                        Summary = "Assigns hash slots to this node.",
                        Since = "3.0.0", Complexity = "O(N), N = slots", Args = "slot:integer...",
                    },
                    new("addslotsrange", -4, Clu, ClusterCommands.Cluster)
                    {
                        Summary = "Assigns ranges of hash slots to this node.",
                        Since = "7.0.0", Complexity = "O(N), N = slots",
                        Args = "start-slot_end-slot{start-slot:integer end-slot:integer}...",
                    },
                    new("bumpepoch", 2, Clu, ClusterCommands.Cluster)
                    {
                        Summary = "Gives this node a new, higher config epoch.",
                        Since = "3.0.0", Complexity = "O(1)", Tips = "nondeterministic_output",
                    },
                    new("count-failure-reports", 3, Admin | Stale, ClusterCommands.Cluster)
                    {
                        Summary = "Counts the failure reports about a node.",
                        Since = "3.0.0", Complexity = "O(N), N = reports", Args = "node-id", Tips = "nondeterministic_output",
                    },
                    new("countkeysinslot", 3, Stale, ClusterCommands.Cluster, routing: AllShards)
                    {
                        Summary = "Counts the keys in a hash slot.",
                        Since = "3.0.0", Complexity = "O(1)", Args = "slot:integer",
                    },
                    new("delslots", -3, Clu, ClusterCommands.Cluster)
                    {
                        Summary = "Unassigns hash slots from this node.",
                        Since = "3.0.0", Complexity = "O(N), N = slots", Args = "slot:integer...",
                    },
                    new("delslotsrange", -4, Clu, ClusterCommands.Cluster)
                    {
                        Summary = "Unassigns ranges of hash slots from this node.",
                        Since = "7.0.0", Complexity = "O(N), N = slots",
                        Args = "start-slot_end-slot{start-slot:integer end-slot:integer}...",
                    },
                    new("failover", -2, Clu, ClusterCommands.Cluster)
                    {
                        Summary = "Makes this replica take over from its master.",
                        Since = "3.0.0", Complexity = "O(1)", Args = "[options(FORCE | TAKEOVER)]",
                    },
                    new("flushslots", 2, Clu, ClusterCommands.Cluster, routing: AllShards)
                    {
                        Summary = "Unassigns every hash slot of this node.",
                        Since = "3.0.0", Complexity = "O(1)",
                    },
                    new("forget", 3, Clu, ClusterCommands.Cluster)
                    {
                        Summary = "Removes a node from this node's node table.",
                        Since = "3.0.0", Complexity = "O(1)", Args = "node-id",
                    },
                    new("getkeysinslot", 4, Stale, ClusterCommands.Cluster, routing: AllShards)
                    {
                        Summary = "Lists keys of a hash slot.",
                        Since = "3.0.0", Complexity = "O(N), N = keys returned", Args = "slot:integer count:integer",
                        Tips = "nondeterministic_output",
                    },
                    new("help", 2, LS, ClusterCommands.Cluster)
                    {
                        Summary = "Lists the CLUSTER subcommands.",
                        Since = "5.0.0", Complexity = "O(1)",
                    },
                    new("info", 2, Stale, ClusterCommands.Cluster)
                    {
                        Summary = "Reports the state of the cluster.",
                        Since = "3.0.0", Complexity = "O(1)", Tips = "nondeterministic_output",
                    },
                    new("keyslot", 3, Stale, ClusterCommands.Cluster)
                    {
                        Summary = "Returns the hash slot of a key name.",
                        Since = "3.0.0", Complexity = "O(N), N = bytes of the key", Args = "key",
                    },
                    new("links", 2, Stale, ClusterCommands.Cluster)
                    {
                        Summary = "Describes this node's links on the cluster bus.",
                        Since = "7.0.0", Complexity = "O(N), N = links", Tips = "nondeterministic_output",
                    },
                    new("meet", -4, Clu, ClusterCommands.Cluster)
                    {
                        Summary = "Connects this node to another node of a cluster.",
                        Since = "3.0.0", Complexity = "O(1)", Args = "ip port:integer [cluster_bus_port:integer@4.0.0]",
                        History = "4.0.0: cluster bus port argument",
                    },
                    new("myid", 2, Stale, ClusterCommands.Cluster)
                    {
                        Summary = "Returns this node's id.",
                        Since = "3.0.0", Complexity = "O(1)",
                    },
                    new("myshardid", 2, Stale, ClusterCommands.Cluster)
                    {
                        Summary = "Returns this node's shard id.",
                        Since = "7.2.0", Complexity = "O(1)", Tips = "nondeterministic_output",
                    },
                    new("nodes", 2, Stale, ClusterCommands.Cluster)
                    {
                        Summary = "Describes the cluster as this node sees it.",
                        Since = "3.0.0", Complexity = "O(N), N = nodes", Tips = "nondeterministic_output",
                    },
                    new("replicas", 3, Admin | Stale, ClusterCommands.Cluster)
                    {
                        Summary = "Lists the replicas of a master node.",
                        Since = "5.0.0", Complexity = "O(N), N = replicas", Args = "node-id", Tips = "nondeterministic_output",
                    },
                    new("replicate", 3, Clu, ClusterCommands.Cluster, routing: AllShards)
                    {
                        Summary = "Makes this node a replica of a master.",
                        Since = "3.0.0", Complexity = "O(1)", Args = "node-id",
                    },
                    new("reset", -2, Admin | NoScript | Stale, ClusterCommands.Cluster, routing: AllShards)
                    {
                        Summary = "Resets this node's cluster state.",
                        Since = "3.0.0", Complexity = "O(N), N = known nodes", Args = "[hard_soft(HARD | SOFT)]",
                    },
                    new("saveconfig", 2, Clu, ClusterCommands.Cluster)
                    {
                        Summary = "Writes the cluster configuration to disk.",
                        Since = "3.0.0", Complexity = "O(1)",
                    },
                    new("set-config-epoch", 3, Clu, ClusterCommands.Cluster)
                    {
                        Summary = "Sets the config epoch of a new node.",
                        Since = "3.0.0", Complexity = "O(1)", Args = "config-epoch:integer",
                    },
                    new("setslot", -4, Clu, ClusterCommands.Cluster, routing: AllShards)
                    {
                        Summary = "Changes the state of a hash slot on this node.",
                        Since = "3.0.0", Complexity = "O(1)",
                        Args = "slot:integer subcommand(IMPORTING=node-id | MIGRATING=node-id | NODE=node-id | STABLE)",
                    },
                    new("shards", 2, Stale, ClusterCommands.Cluster)
                    {
                        Summary = "Describes the cluster's shards.",
                        Since = "7.0.0", Complexity = "O(N), N = nodes", Tips = "nondeterministic_output",
                    },
                    new("slaves", 3, Admin | Stale, ClusterCommands.Cluster)
                    {
                        Summary = "Lists the replicas of a master node (old name of CLUSTER REPLICAS).",
                        Since = "3.0.0", Complexity = "O(N), N = replicas", Args = "node-id", Tips = "nondeterministic_output",
                        DeprecatedSince = "5.0.0", ReplacedBy = "CLUSTER REPLICAS",
                    },
                    new("slots", 2, Stale, ClusterCommands.Cluster)
                    {
                        Summary = "Maps hash slot ranges to nodes.",
                        Since = "3.0.0", Complexity = "O(N), N = slots", Tips = "nondeterministic_output",
                        History = "4.0.0: node ids in the reply; 7.0.0: more network details per node", DeprecatedSince = "7.0.0",
                        ReplacedBy = "CLUSTER SHARDS",
                    },
                ],
            },
        ];
    }
}
