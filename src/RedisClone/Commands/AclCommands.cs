using System.Security.Cryptography;
using System.Text;
using RedisClone.Commands.Acl;
using RedisClone.Common;
using RedisClone.Protocol;

namespace RedisClone.Commands;

/// <summary>
/// ACL's subcommands: users (SETUSER, GETUSER, DELUSER, LIST, USERS, WHOAMI), categories (CAT),
/// passwords (GENPASS), checks (DRYRUN), the ACL log and the aclfile (SAVE, LOAD). The users live in
/// <see cref="AclStore"/>; names, passwords and patterns are bytes, kept as Latin-1 strings.
/// </summary>
internal static class AclCommands
{
    private const int GenPassMaxBits = 4096;

    private static readonly HelpReply HelpText = new("ACL",
        "CAT [<category>]",
        "    Without a category: every ACL category. With one: the commands and",
        "    subcommands that belong to it.",
        "DELUSER <username> [<username> ...]",
        "    Remove the users and close their connections.",
        "DRYRUN <username> <command> [<arg> ...]",
        "    Whether the user could run the command with these arguments; nothing runs.",
        "GETUSER <username>",
        "    The user's flags, password hashes, permissions and selectors.",
        "GENPASS [<bits>]",
        "    Random hex digits from a secure source: 256 bits unless <bits> says how many",
        "    (up to 4096).",
        "LIST",
        "    Every user as a line of the ACL file.",
        "LOAD",
        "    Replace the users with those of the ACL file (all or nothing).",
        "LOG [<count> | RESET]",
        "    The newest refused commands and failed logins, or RESET to clear them.",
        "SAVE",
        "    Write every user to the ACL file.",
        "SETUSER <username> <attribute> [<attribute> ...]",
        "    Create the user, or change it, applying the rules in order (all or nothing).",
        "USERS",
        "    The user names.",
        "WHOAMI",
        "    The user this connection runs as.");

    private const string NoAclFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.";

    /// <summary>ACL HELP.</summary>
    public static void Help(ref CommandContext ctx) => HelpText.Write(ref ctx);

    /// <summary>Redis's reply for a subcommand given too many arguments (its own parsing, not the table's arity).</summary>
    private static void SubcommandSyntax(ref CommandContext ctx)
        => ctx.Error(RespErrors.SubcommandSyntax(ctx.Arg(0), ctx.Arg(1)));

    /// <summary>ACL SETUSER username [rule ...] — creates or changes the user; every rule valid or none applied.</summary>
    public static void SetUser(ref CommandContext ctx)
    {
        var name = ctx.ArgString(2);
        if (AclSelector.HasSpaces(name))
        {
            ctx.Error("ERR Usernames can't contain spaces or null characters");
            return;
        }
        var rules = new string[ctx.ArgCount - 3];
        for (int i = 3; i < ctx.ArgCount; i++) rules[i - 3] = ctx.ArgString(i);
        var error = ctx.Server.Acl.SetUser(name, rules, ctx.Client);
        if (error != null) ctx.Error(error);
        else ctx.Reply.Ok();
    }

    /// <summary>ACL DELUSER username [username ...] — how many existed; their connections close.</summary>
    public static void DelUser(ref CommandContext ctx)
    {
        var names = new string[ctx.ArgCount - 2];
        for (int i = 2; i < ctx.ArgCount; i++) names[i - 2] = ctx.ArgString(i);
        int deleted = ctx.Server.Acl.DeleteUsers(names, ctx.Client);
        if (deleted < 0) ctx.Error("ERR The 'default' user cannot be removed");
        else ctx.Reply.Integer(deleted);
    }

    /// <summary>ACL GETUSER username — a map of flags, passwords, commands, keys, channels and selectors; nil for no such user.</summary>
    public static void GetUser(ref CommandContext ctx)
    {
        var user = ctx.Server.Acl.Find(ctx.Arg(2));
        if (user == null)
        {
            ctx.Reply.NullBulk();
            return;
        }
        var state = user.State;
        var w = ctx.Reply;
        w.MapHeader(6);
        w.Bulk("flags"u8);
        var flags = state.Flags().ToList();
        w.SetHeader(flags.Count);
        foreach (var flag in flags) w.Bulk(flag);
        w.Bulk("passwords"u8);
        w.ArrayHeader(state.Passwords.Count);
        foreach (var p in state.Passwords) w.Bulk(p);
        WriteSelector(w, state.Root);
        w.Bulk("selectors"u8);
        w.ArrayHeader(state.Selectors.Count - 1);
        for (int i = 1; i < state.Selectors.Count; i++)
        {
            w.MapHeader(3);
            WriteSelector(w, state.Selectors[i]);
        }
    }

    private static void WriteSelector(RespWriter w, AclSelector s)
    {
        w.Bulk("commands"u8);
        w.Bulk(Latin(s.DescribeCommands()));
        w.Bulk("keys"u8);
        w.Bulk(Latin(s.DescribeKeys()));
        w.Bulk("channels"u8);
        w.Bulk(Latin(s.DescribeChannels()));
    }

    /// <summary>ACL LIST — every user as "user name rules...".</summary>
    public static void List(ref CommandContext ctx)
    {
        var users = ctx.Server.Acl.Users();
        ctx.Reply.ArrayHeader(users.Count);
        foreach (var user in users) ctx.Reply.Bulk(Latin("user " + user.Name + " " + user.State.Describe()));
    }

    /// <summary>ACL USERS — the user names, in byte order.</summary>
    public static void Users(ref CommandContext ctx)
    {
        var users = ctx.Server.Acl.Users();
        ctx.Reply.ArrayHeader(users.Count);
        foreach (var user in users) ctx.Reply.Bulk(user.NameBytes);
    }

    /// <summary>ACL WHOAMI — the connection's user.</summary>
    public static void WhoAmI(ref CommandContext ctx)
    {
        if (ctx.Client.User is { } user) ctx.Reply.Bulk(user.NameBytes);
        else ctx.Reply.NullBulk();
    }

    /// <summary>ACL CAT [category] — the category names, or the commands (and subcommands) in one.</summary>
    public static void Cat(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 3)
        {
            SubcommandSyntax(ref ctx);
            return;
        }
        if (ctx.ArgCount == 2)
        {
            ctx.Reply.ArrayHeader(CommandMetadata.CategoryNames.Length);
            foreach (var name in CommandMetadata.CategoryNames) ctx.Reply.Bulk(name);
            return;
        }
        var category = CommandMetadata.CategoryByName(ctx.Arg(2));
        if (category == AclCategories.None)
        {
            ctx.Error($"ERR Unknown category '{RespErrors.Latin(ctx.Arg(2)[..Math.Min(ctx.Arg(2).Length, 128)])}'");
            return;
        }
        var names = new List<string>();
        foreach (var def in CommandTable.Instance.All)
        {
            if ((CommandMetadata.Of(def).Acl & category) != 0) names.Add(def.FullName);
            if (def.Subcommands == null) continue;
            foreach (var sub in def.Subcommands)
                if ((CommandMetadata.Of(sub).Acl & category) != 0) names.Add(sub.FullName);
        }
        ctx.Reply.ArrayHeader(names.Count);
        foreach (var name in names) ctx.Reply.Bulk(name);
    }

    /// <summary>ACL GENPASS [bits] — (bits+3)/4 random hex digits, 256 bits by default.</summary>
    public static void GenPass(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 3)
        {
            SubcommandSyntax(ref ctx);
            return;
        }
        long bits = 256;
        if (ctx.ArgCount == 3 && !RedisNumbers.TryParseInt64(ctx.Arg(2), out bits))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (bits <= 0 || bits > GenPassMaxBits)
        {
            ctx.Error($"ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to {GenPassMaxBits}");
            return;
        }
        int chars = (int)((bits + 3) / 4);
        var hex = Convert.ToHexStringLower(RandomNumberGenerator.GetBytes((chars + 1) / 2));
        ctx.Reply.Bulk(Encoding.ASCII.GetBytes(hex, 0, chars));
    }

    /// <summary>ACL LOG [count | RESET] — the newest entries (10 by default), or clears the log.</summary>
    public static void Log(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 3)
        {
            SubcommandSyntax(ref ctx);
            return;
        }
        var log = ctx.Server.Acl.Log;
        long count = 10;
        if (ctx.ArgCount == 3)
        {
            if (ctx.ArgIs(2, "RESET"))
            {
                log.Reset();
                ctx.Reply.Ok();
                return;
            }
            if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out count))
            {
                ctx.Error(RespErrors.NotInteger);
                return;
            }
            if (count < 0) count = 0;
        }
        var entries = log.Newest(count);
        long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        var w = ctx.Reply;
        w.ArrayHeader(entries.Count);
        foreach (var e in entries)
        {
            w.MapHeader(10);
            w.Bulk("count"u8);
            w.Integer(e.Count);
            w.Bulk("reason"u8);
            w.Bulk(e.Reason switch
            {
                AclResult.DeniedCommand => "command"u8,
                AclResult.DeniedKey => "key"u8,
                AclResult.DeniedChannel => "channel"u8,
                AclResult.DeniedAuth => "auth"u8,
                _ => "unknown"u8,
            });
            w.Bulk("context"u8);
            w.Bulk(e.Context switch
            {
                AclLogContext.TopLevel => "toplevel"u8,
                AclLogContext.Multi => "multi"u8,
                AclLogContext.Lua => "lua"u8,
                _ => "unknown"u8,
            });
            w.Bulk("object"u8);
            w.Bulk(Latin(e.Object));
            w.Bulk("username"u8);
            w.Bulk(Latin(e.Username));
            w.Bulk("age-seconds"u8);
            w.Double((now - e.UpdatedMs) / 1000.0);
            w.Bulk("client-info"u8);
            w.Bulk(Latin(e.ClientInfo));
            w.Bulk("entry-id"u8);
            w.Integer(e.Id);
            w.Bulk("timestamp-created"u8);
            w.Integer(e.CreatedMs);
            w.Bulk("timestamp-last-updated"u8);
            w.Integer(e.UpdatedMs);
        }
    }

    /// <summary>
    /// ACL DRYRUN username command [arg ...] — OK when the user could run it; otherwise the reason as
    /// a bulk string (naming the key or channel), not an error. Nothing runs and nothing is logged.
    /// </summary>
    public static void DryRun(ref CommandContext ctx)
    {
        var user = ctx.Server.Acl.Find(ctx.Arg(2));
        if (user == null)
        {
            ctx.Error($"ERR User '{ctx.ArgString(2)}' not found");
            return;
        }
        var def = ctx.Server.Commands.Find(ctx.Arg(3));
        if (def?.Subcommands != null && ctx.ArgCount - 3 >= 2) def = def.FindSubcommand(ctx.Arg(4));
        if (def == null)
        {
            ctx.Error($"ERR Command '{ctx.ArgString(3)}' not found");
            return;
        }
        int argc = ctx.ArgCount - 3;
        if (!def.ArityOk(argc))
        {
            ctx.Error($"ERR wrong number of arguments for '{def.FullName}' command");
            return;
        }
        var buffer = new CommandBuffer();
        buffer.BeginCommand();
        for (int a = 3; a < ctx.ArgCount; a++) ctx.Arg(a).CopyTo(buffer.AddArg(ctx.Arg(a).Length));
        buffer.EndCommand();
        var result = AclChecks.Check(ctx.Server, ctx.Client, user.State, def, buffer, 0, ctx.NowMs, out int position);
        if (result == AclResult.Ok)
        {
            ctx.Reply.Ok();
            return;
        }
        ctx.Reply.Bulk(Latin(AclChecks.Message(result, user, def, buffer.Arg(0, position), verbose: true)));
    }

    /// <summary>ACL SAVE — writes the users to the aclfile.</summary>
    public static void Save(ref CommandContext ctx)
    {
        var file = ctx.Server.Config.AclFile;
        if (file.Length == 0)
        {
            ctx.Error(NoAclFile);
            return;
        }
        if (ctx.Server.Acl.Save(file)) ctx.Reply.Ok();
        else ctx.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information");
    }

    /// <summary>ACL LOAD — replaces the users with the aclfile's, or changes nothing and says why.</summary>
    public static void Load(ref CommandContext ctx)
    {
        var file = ctx.Server.Config.AclFile;
        if (file.Length == 0)
        {
            ctx.Error(NoAclFile);
            return;
        }
        var errors = ctx.Server.Acl.Load(file, ctx.Client);
        if (errors == null) ctx.Reply.Ok();
        else ctx.Error("ERR " + errors);
    }

    private static byte[] Latin(string text) => Encoding.Latin1.GetBytes(text);
}
