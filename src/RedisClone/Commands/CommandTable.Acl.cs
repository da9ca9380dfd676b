using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    /// <summary>ACL and its subcommands: users, permissions and the ACL log (Commands/Acl).</summary>
    private static IEnumerable<CommandDef> AclRows() =>
    [
        new("acl", -2, Sentinel, ServerCommands.Help, group: "server")
        {
            Summary = "Subcommands that manage ACL users and their permissions.",
            Since = "6.0.0", Complexity = "Depends on subcommand.",
            Subcommands =
            [
                new("cat", -2, Cli | Sentinel, AclCommands.Cat)
                {
                    Summary = "Lists the ACL categories, or the commands in one category.",
                    Since = "6.0.0", Complexity = "O(1) since the categories and commands are a fixed set.", Args = "[category]",
                },
                new("deluser", -3, Adm | Sentinel, AclCommands.DelUser)
                {
                    Summary = "Deletes ACL users and closes their connections.",
                    Since = "6.0.0", Complexity = "O(1) amortized time considering the typical user.", Args = "username...",
                    Tips = "request_policy:all_nodes response_policy:all_succeeded",
                },
                new("dryrun", -4, Adm | Sentinel, AclCommands.DryRun)
                {
                    Summary = "Tells whether a user could run a command, without running it.",
                    Since = "7.0.0", Complexity = "O(1).", Args = "username command [arg...]",
                },
                new("genpass", -2, Cli | Sentinel, AclCommands.GenPass)
                {
                    Summary = "Returns random hex digits to use as a password.",
                    Since = "6.0.0", Complexity = "O(1)", Args = "[bits:integer]",
                },
                new("getuser", 3, Adm | Sentinel, AclCommands.GetUser)
                {
                    Summary = "Describes a user's flags, passwords and permissions.",
                    Since = "6.0.0", Complexity = "O(N). Where N is the number of password, command and pattern rules that the user has.",
                    Args = "username",
                    History = "6.2.0: Added Pub/Sub channel patterns.;7.0.0: Added selectors and changed the format of key and channel patterns from a list to their rule representation.",
                },
                new("help", 2, LS | Sentinel, AclCommands.Help)
                {
                    Summary = "Lists the ACL subcommands.",
                    Since = "6.0.0", Complexity = "O(1)",
                },
                new("list", 2, Adm | Sentinel, AclCommands.List)
                {
                    Summary = "Lists every user in the aclfile's format.",
                    Since = "6.0.0", Complexity = "O(N). Where N is the number of configured users.",
                },
                new("load", 2, Adm | Sentinel, AclCommands.Load)
                {
                    Summary = "Replaces the users with those of the aclfile.",
                    Since = "6.0.0", Complexity = "O(N). Where N is the number of configured users.",
                },
                new("log", -2, Adm | Sentinel, AclCommands.Log)
                {
                    Summary = "Lists recent refusals and failed authentications, or clears them.",
                    Since = "6.0.0", Complexity = "O(N) with N being the number of entries shown.",
                    Args = "[operation(count:integer | RESET)]",
                    History = "7.2.0: Added entry ID, timestamp created, and timestamp last updated.",
                },
                new("save", 2, Adm | Sentinel, AclCommands.Save)
                {
                    Summary = "Writes the users to the aclfile.",
                    Since = "6.0.0", Complexity = "O(N). Where N is the number of configured users.",
                    Tips = "request_policy:all_nodes response_policy:all_succeeded",
                },
                new("setuser", -3, Adm | Sentinel, AclCommands.SetUser)
                {
                    Summary = "Creates a user or changes its rules.",
                    Since = "6.0.0", Complexity = "O(N). Where N is the number of rules provided.", Args = "username [rule...]",
                    Tips = "request_policy:all_nodes response_policy:all_succeeded",
                    History = "6.2.0: Added Pub/Sub channel patterns.;7.0.0: Added selectors and key based permissions.",
                },
                new("users", 2, Adm | Sentinel, AclCommands.Users)
                {
                    Summary = "Lists the user names.",
                    Since = "6.0.0", Complexity = "O(N). Where N is the number of configured users.",
                },
                new("whoami", 2, Cli | Sentinel, AclCommands.WhoAmI)
                {
                    Summary = "Returns the name of the connection's user.",
                    Since = "6.0.0", Complexity = "O(1)",
                },
            ],
        },
    ];
}
