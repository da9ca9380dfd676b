using RedisClone.Common;
using RedisClone.Protocol;

namespace RedisClone.Commands;

/// <summary>SLOWLOG GET [count], LEN, RESET, HELP over the server's <see cref="Server.SlowLog"/>.</summary>
internal static class SlowLogCommands
{
    private static readonly HelpReply HelpText = new("SLOWLOG",
        "GET [<count>]",
        "    The newest <count> entries of the slow log (10 by default, -1 for all). Each",
        "    entry holds an ID, the Unix time it was logged, how long the command ran in",
        "    microseconds, its arguments, the client's address and port, and the client's",
        "    name.",
        "LEN",
        "    How many entries the slow log holds.",
        "RESET",
        "    Empty the slow log.");

    /// <summary>SLOWLOG GET [count] — newest first; count -1 means every entry.</summary>
    public static void Get(ref CommandContext ctx)
    {
        long count = 10;
        if (ctx.ArgCount > 3)
        {
            // Redis's handler takes GET with at most a count (the table's arity allows more).
            ctx.Error(RespErrors.SubcommandSyntax(ctx.Arg(0), ctx.Arg(1)));
            return;
        }
        if (ctx.ArgCount == 3 && (!RedisNumbers.TryParseInt64(ctx.Arg(2), out count) || count < -1))
        {
            ctx.Error(RespErrors.SlowlogCount);
            return;
        }
        var entries = ctx.Server.SlowLog.Newest(count);
        ctx.Reply.ArrayHeader(entries.Count);
        foreach (var e in entries)
        {
            ctx.Reply.ArrayHeader(6);
            ctx.Reply.Integer(e.Id);
            ctx.Reply.Integer(e.Time);
            ctx.Reply.Integer(e.Duration);
            ctx.Reply.ArrayHeader(e.Args.Length);
            foreach (var a in e.Args) ctx.Reply.Bulk(a);
            ctx.Reply.Bulk(System.Text.Encoding.UTF8.GetBytes(e.Peer));
            ctx.Reply.Bulk(System.Text.Encoding.UTF8.GetBytes(e.Name));
        }
    }

    /// <summary>SLOWLOG LEN.</summary>
    public static void Len(ref CommandContext ctx) => ctx.Reply.Integer(ctx.Server.SlowLog.Count);

    /// <summary>SLOWLOG RESET.</summary>
    public static void Reset(ref CommandContext ctx)
    {
        ctx.Server.SlowLog.Reset();
        ctx.Reply.Ok();
    }

    /// <summary>SLOWLOG HELP.</summary>
    public static void Help(ref CommandContext ctx) => HelpText.Write(ref ctx);
}
