using RedisClone.Protocol;

namespace RedisClone.Commands;

/// <summary>
/// SAVE and BGSAVE: the RDB file written now, with every gate held, or in the background from a
/// snapshot of this instant (see Persistence/RdbSnapshot.cs). Both run with every shard's gate held,
/// which is what makes the instant one instant across shards.
/// </summary>
internal static class PersistenceCommands
{
    /// <summary>SAVE — writes the RDB file, then OK; refused while a background save runs.</summary>
    public static void Save(ref CommandContext ctx)
    {
        var rdb = ctx.Server.Rdb;
        if (rdb.InProgress)
        {
            ctx.Error(RespErrors.BackgroundSaveInProgress);
            return;
        }
        if (rdb.SaveForeground() != null)
        {
            ctx.Error(RespErrors.BareErr);
            return;
        }
        ctx.Reply.Ok();
    }

    /// <summary>
    /// BGREWRITEAOF — rewrites the AOF in the background: a new base file from a snapshot of this
    /// instant, appending moving to a new incremental file; scheduled while a background save runs
    /// or inside MULTI/EXEC. With appendonly off only the base file is made, as Redis 7 does.
    /// </summary>
    public static void BgRewriteAof(ref CommandContext ctx)
    {
        var server = ctx.Server;
        if (server.AofFiles?.RewriteInProgress == true)
        {
            ctx.Error(RespErrors.RewriteInProgress);
            return;
        }
        server.EnsureAofFiles();
        var aof = server.AofFiles!;
        if (server.Rdb.InProgress || ctx.Client.InExec)
        {
            aof.RewriteScheduled = true;
            ctx.Reply.SimpleString("Background append only file rewriting scheduled"u8);
            return;
        }
        if (!aof.TryStartRewrite())
        {
            ctx.Error(RespErrors.RewriteFailed);
            return;
        }
        ctx.Reply.SimpleString("Background append only file rewriting started"u8);
    }

    /// <summary>BGSAVE [SCHEDULE] — starts a background save; inside MULTI/EXEC it is scheduled instead, as Redis does.</summary>
    public static void BgSave(ref CommandContext ctx)
    {
        if (ctx.ArgCount > 1 && !(ctx.ArgCount == 2 && ctx.ArgIs(1, "SCHEDULE")))
        {
            ctx.Syntax();
            return;
        }
        var rdb = ctx.Server.Rdb;
        if (rdb.InProgress)
        {
            ctx.Error(RespErrors.BackgroundSaveInProgress);
            return;
        }
        if (ctx.Server.AofFiles?.RewriteInProgress == true)
        {
            if (!ctx.ArgIs(ctx.ArgCount - 1, "SCHEDULE"))
            {
                ctx.Error(RespErrors.BgSaveWhileRewriting);
                return;
            }
            rdb.Scheduled = true;
            ctx.Reply.SimpleString("Background saving scheduled"u8);
            return;
        }
        if (ctx.Client.InExec)
        {
            // The snapshot must not be taken halfway through the transaction: the cron starts it.
            rdb.Scheduled = true;
            ctx.Reply.SimpleString("Background saving scheduled"u8);
            return;
        }
        rdb.TryStartBackground();
        ctx.Reply.SimpleString("Background saving started"u8);
    }
}
