using RedisClone.Cluster;
using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>Connection commands: they run on the connection's thread and touch no keyspace.</summary>
    private static IEnumerable<CommandDef> ConnectionRows() =>
    [
        new("ping", -1, Fast, ConnectionCommands.Ping, group: "connection")
        {
            Summary = "Checks the connection: replies PONG, or echoes a message.",
            Since = "1.0.0", Complexity = "O(1)", Args = "[message]",
            Tips = "request_policy:all_shards response_policy:all_succeeded",
        },
        new("echo", 2, LS | Fast, ConnectionCommands.Echo, group: "connection")
        {
            Summary = "Replies with the given message.",
            Since = "1.0.0", Complexity = "O(1)", Args = "message",
        },
        new("select", 2, LS | Fast, ConnectionCommands.Select, group: "connection")
        {
            Summary = "Switches the connection to another database.",
            Since = "1.0.0", Complexity = "O(1)", Args = "index:integer",
        },
        new("asking", 1, Fast, ClusterCommands.Asking, group: "cluster")
        {
            Summary = "Sent by cluster clients after an -ASK redirect.",
            Since = "3.0.0", Complexity = "O(1)", Acl = "connection",
        },
        new("readonly", 1, LS | Fast, ClusterCommands.ReadOnly, group: "cluster")
        {
            Summary = "Lets the connection read from a replica of the slot's master on a cluster node.",
            Since = "3.0.0", Complexity = "O(1)", Acl = "connection",
        },
        new("readwrite", 1, LS | Fast, ClusterCommands.ReadWrite, group: "cluster")
        {
            Summary = "Ends READONLY on the connection.",
            Since = "3.0.0", Complexity = "O(1)", Acl = "connection",
        },
        new("quit", -1, Cli | Fast | NoAuth | AllowBusy, ConnectionCommands.Quit, group: "connection")
        {
            Summary = "Closes the connection after replying.",
            Since = "1.0.0", Complexity = "O(1)",
        },
        new("reset", 1, Cli | Fast | NoAuth | AllowBusy, ConnectionCommands.Reset, group: "connection")
        {
            Summary = "Puts the connection back in its initial state.",
            Since = "6.2.0", Complexity = "O(1)",
        },
        new("monitor", 1, Adm, ConnectionCommands.Monitor, group: "server")
        {
            Summary = "Streams every command the server runs to this connection, as it runs.",
            Since = "1.0.0", Complexity = "",
        },
        new("hello", -1, Cli | Fast | NoAuth | AllowBusy, ConnectionCommands.Hello, group: "connection")
        {
            Summary = "Negotiates the protocol version, optionally authenticating and naming the connection.",
            Since = "6.0.0", Complexity = "O(1)",
            Args = "[arguments{protover:integer [AUTH=username_password{username password}] [SETNAME=clientname]}]",
            History = "6.2.0: protover optional, and no arguments reports the connection",
        },
        new("auth", -2, Cli | Fast | NoAuth | AllowBusy, ConnectionCommands.Auth, group: "connection")
        {
            Summary = "Authenticates the connection.",
            Since = "1.0.0", Complexity = "O(N), N = passwords of the user", Args = "[username@6.0.0] password",
            History = "6.0.0: username and password (ACL)",
        },
        new("client", -2, None, ServerCommands.Help, group: "connection")
        {
            Summary = "Subcommands that inspect and control client connections.",
            Since = "2.4.0", Complexity = "See each subcommand.",
            Subcommands =
            [
                new("id", 2, Cli, ConnectionCommands.ClientId)
                {
                    Summary = "Returns the connection's unique id.",
                    Since = "5.0.0", Complexity = "O(1)",
                },
                new("setname", 3, Cli, ConnectionCommands.ClientSetName)
                {
                    Summary = "Names the connection.",
                    Since = "2.6.9", Complexity = "O(1)", Args = "connection-name",
                },
                new("getname", 2, Cli, ConnectionCommands.ClientGetName)
                {
                    Summary = "Returns the connection's name.",
                    Since = "2.6.9", Complexity = "O(1)",
                },
                new("setinfo", 4, Cli, ConnectionCommands.ClientSetInfo)
                {
                    Summary = "Records the client library's name or version for this connection.",
                    Since = "7.2.0", Complexity = "O(1)", Args = "attr(lib-name=libname | lib-ver=libver)",
                },
                new("list", -2, Adm, ConnectionCommands.ClientList)
                {
                    Summary = "Describes the client connections, one line each.",
                    Since = "2.4.0", Complexity = "O(N), N = connections",
                    Args = "[TYPE=normal_master_replica_pubsub(NORMAL | MASTER | REPLICA | PUBSUB)@5.0.0] [ID=id{client-id:integer...}@6.2.0]",
                    Tips = "nondeterministic_output",
                    History = "2.8.12: id field; 5.0.0: TYPE filter; 6.0.0: user field; "
                        + "6.2.0: argv-mem, tot-mem, laddr, redir fields and ID filter; 7.0.0: resp, multi-mem, rbs, rbp fields; 7.0.3: ssub field",
                },
                new("info", 2, Cli, ConnectionCommands.ClientInfo)
                {
                    Summary = "Describes this connection in CLIENT LIST's format.",
                    Since = "6.2.0", Complexity = "O(1)", Tips = "nondeterministic_output",
                },
                new("kill", -3, Adm, ConnectionCommands.ClientKill)
                {
                    Summary = "Closes the client connections that match filters.",
                    Since = "2.4.0", Complexity = "O(N), N = connections",
                    Args = "filter(ip:port~2.8.12 | new-format([ID=client-id:integer@2.8.12] | "
                        + "[TYPE=normal_master_slave_pubsub(NORMAL | MASTER@3.2.0 | SLAVE | REPLICA@5.0.0 | PUBSUB)@2.8.12] | "
                        + "[USER=username] | [ADDR=ip:port] | [LADDR=ip:port@6.2.0] | [SKIPME=yes/no] | [MAXAGE=maxage:integer@7.4.0])...)",
                    // MAXAGE came with Redis 7.4 (the 7.0 reference has no such filter or history entry).
                    History = "2.8.12: filters as name/value pairs; 2.8.12: ID filter; 3.2.0: master TYPE; "
                        + "5.0.0: replica TYPE (slave still accepted); 6.2.0: LADDR filter; 7.4.0: MAXAGE filter",
                },
                new("unblock", -3, Adm, BlockingCommands.ClientUnblock)
                {
                    Summary = "Unblocks a client blocked by a blocking command, as a timeout or as an error.",
                    Since = "5.0.0", Complexity = "O(log N), N = clients",
                    Args = "client-id:integer [timeout_error(TIMEOUT | ERROR)]",
                },
                new("no-evict", 3, Adm, ConnectionCommands.ClientNoEvict)
                {
                    Summary = "Exempts this connection from client eviction, or not.",
                    Since = "7.0.0", Complexity = "O(1)", Args = "enabled(ON | OFF)",
                },
                new("no-touch", 3, Cli, ConnectionCommands.ClientNoTouch)
                {
                    Summary = "Stops this connection's commands from changing keys' access times, or not.",
                    Since = "7.2.0", Complexity = "O(1)", Args = "enabled(ON | OFF)",
                },
                new("reply", 3, Cli, ConnectionCommands.ClientReply)
                {
                    Summary = "Turns the server's replies to this connection on, off, or off for one command.",
                    Since = "3.2.0", Complexity = "O(1)", Args = "on_off_skip(ON | OFF | SKIP)",
                },
                new("getredir", 2, Cli, ConnectionCommands.ClientGetRedir)
                {
                    Summary = "Returns the id of the client receiving this connection's tracking messages.",
                    Since = "6.0.0", Complexity = "O(1)",
                },
                new("tracking", -3, Cli, ConnectionCommands.ClientTracking)
                {
                    Summary = "Turns server-assisted client-side caching on or off for the connection.",
                    Since = "6.0.0", Complexity = "O(1), more with some options",
                    Args = "status(ON | OFF) [REDIRECT=client-id:integer] [PREFIX=prefix...+] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]",
                },
                new("caching", 3, Cli, ConnectionCommands.ClientCaching)
                {
                    Summary = "Says whether the next command's reads are tracked (OPTIN and OPTOUT modes).",
                    Since = "6.0.0", Complexity = "O(1)", Args = "mode(YES | NO)",
                },
                new("trackinginfo", 2, Cli, ConnectionCommands.ClientTrackingInfo)
                {
                    Summary = "Describes the connection's client-side caching state.",
                    Since = "6.2.0", Complexity = "O(1)",
                },
                new("pause", -3, Adm, ConnectionCommands.ClientPause)
                {
                    Summary = "Holds clients' commands (all, or writes only) for a while.",
                    Since = "2.9.50", Complexity = "O(1)", Args = "timeout:integer [mode(WRITE | ALL)@6.2.0]",
                    History = "6.2.0: WRITE mode",
                },
                new("unpause", 2, Adm, ConnectionCommands.ClientUnpause)
                {
                    Summary = "Ends a CLIENT PAUSE.",
                    Since = "6.2.0", Complexity = "O(N), N = paused clients",
                },
                new("help", 2, LS, ConnectionCommands.ClientHelp)
                {
                    Summary = "Lists the CLIENT subcommands.",
                    Since = "5.0.0", Complexity = "O(1)",
                },
            ],
        },
    ];
}
