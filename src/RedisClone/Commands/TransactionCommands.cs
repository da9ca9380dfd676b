using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Commands;

/// <summary>
/// MULTI, DISCARD, WATCH, UNWATCH. Queueing and EXEC belong to the executor, which owns the
/// connection's batch (see Execution/BatchExecutor.Transactions.cs).
/// </summary>
internal static class TransactionCommands
{
    /// <summary>MULTI — starts queueing commands for EXEC.</summary>
    public static void Multi(ref CommandContext ctx)
    {
        var client = ctx.Client;
        if (client.InMulti)
        {
            ctx.Error(RespErrors.MultiNested);
            return;
        }
        client.BeginMulti();
        ctx.Reply.Ok();
    }

    /// <summary>EXEC — only reached outside MULTI: the dispatcher runs a transaction itself.</summary>
    public static void Exec(ref CommandContext ctx) => ctx.Error(RespErrors.ExecWithoutMulti);

    /// <summary>DISCARD — drops the queued commands and every WATCH.</summary>
    public static void Discard(ref CommandContext ctx)
    {
        var client = ctx.Client;
        if (!client.InMulti)
        {
            ctx.Error(RespErrors.DiscardWithoutMulti);
            return;
        }
        client.EndMulti();
        UnwatchAll(ctx.Server, client);
        ctx.Reply.Ok();
    }

    /// <summary>WATCH key [key ...] — EXEC will fail if one of these keys changes first.</summary>
    /// <remarks>Runs with the gates of the keys' shards held.</remarks>
    public static void Watch(ref CommandContext ctx)
    {
        var client = ctx.Client;
        if (client.InMulti)
        {
            ctx.Error(RespErrors.WatchInsideMulti);
            return;
        }
        var shards = ctx.Server.Shards;
        for (int i = 1; i < ctx.ArgCount; i++)
        {
            var key = ctx.Arg(i);
            if (client.IsWatching(ctx.DbIndex, key)) continue;
            var db = ctx.Db(key);
            int slot = db.Table.Find(key);
            long at = slot >= 0 ? db.Table.ExpireAt(slot) : 0;
            bool expired = at != 0 && at <= ctx.NowMs;
            db.Watch(key, client);
            client.AddWatch(new WatchedKey(ctx.DbIndex, key.ToArray(), shards.ShardOf(key), expired));
            Interlocked.Increment(ref ctx.Server.WatchedKeyCount);
        }
        ctx.Reply.Ok();
    }

    /// <summary>UNWATCH — forgets every watched key.</summary>
    public static void Unwatch(ref CommandContext ctx)
    {
        UnwatchAll(ctx.Server, ctx.Client);
        ctx.Reply.Ok();
    }

    /// <summary>The shards holding <paramref name="client"/>'s watched keys.</summary>
    public static ulong WatchMask(ClientSession client)
    {
        ulong mask = 0;
        if (client.Watched != null)
            foreach (var w in client.Watched) mask |= 1UL << w.Shard;
        return mask;
    }

    /// <summary>
    /// Forgets every key the client watches. The caller holds the gates of the watched keys' shards
    /// (<see cref="WatchMask"/>): the executor routes DISCARD, UNWATCH, RESET and EXEC that way.
    /// </summary>
    public static void UnwatchAll(RedisServer server, ClientSession client)
    {
        var watched = client.Watched;
        if (watched == null || watched.Count == 0)
        {
            client.ClearWatches();
            return;
        }
        foreach (var w in watched) server.Shards[w.Shard].Store[w.Db].Unwatch(w.Key, client);
        Interlocked.Add(ref server.WatchedKeyCount, -watched.Count);
        client.ClearWatches();
    }

    /// <summary>
    /// True if EXEC must fail: a watched key changed, or expired after WATCH (Redis 7 counts a key
    /// that was live at WATCH and is logically expired at EXEC as changed). Gates are held.
    /// </summary>
    public static bool WatchBroken(RedisServer server, ClientSession client, long nowMs)
    {
        if (client.WatchDirty) return true;
        if (client.Watched == null) return false;
        foreach (var w in client.Watched)
        {
            if (w.ExpiredAtWatch) continue;
            var db = server.Shards[w.Shard].Store[w.Db];
            int slot = db.Table.Find(w.Key);
            if (slot < 0) continue;
            long at = db.Table.ExpireAt(slot);
            if (at != 0 && at <= nowMs) return true;
        }
        return false;
    }
}
