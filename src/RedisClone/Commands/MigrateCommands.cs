using System.Buffers;
using System.Globalization;
using System.Text;
using RedisClone.Cluster;
using RedisClone.Common;
using RedisClone.Persistence;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// MIGRATE: moves keys to another instance (this server or redis-server) as DUMP payloads sent in
/// RESTORE commands, then deletes them here unless COPY.
/// </summary>
/// <remarks>
/// <para>
/// Redis runs MIGRATE start to end inside its one thread, blocking every client while it waits on
/// the target. Here it runs in two steps so that no event loop waits on the network and no gate is
/// held across it: the handler parses, finds the keys and serializes them with their gates held,
/// starts the transfer (<see cref="MigrateTransfer"/>) and leaves a <see cref="PendingMigration"/> on
/// the session; the connection then awaits the transfer with nothing held, and runs the handler
/// once more with the gates taken again, which deletes the keys the target acknowledged and replies.
/// Nothing the client sent after MIGRATE runs before that, so its replies keep their order.
/// </para>
/// <para>
/// Between the two steps other clients may change the keys, which cannot happen in Redis. A key
/// changed meanwhile (any write, expiry, FLUSHDB, SWAPDB: what would break a WATCH on it) is not
/// deleted: the target holds the value as it was when MIGRATE read it, and deleting the newer value
/// would lose a write nobody was told about. The reply is still +OK: the transfer succeeded; the key
/// simply stays here too, as after COPY. Keys left unchanged are deleted, as in Redis.
/// </para>
/// <para>
/// Inside MULTI/EXEC and scripts (where Redis runs it too; it is not flagged noscript or no-multi)
/// the transaction must stay atomic, so the transfer runs synchronously on the shard thread with
/// the transaction's gates held, bounded by MIGRATE's timeout; EXEC with a MIGRATE queued always
/// runs on a shard thread, never on an event loop. Migrating to this same server from there waits
/// out the timeout (the target's RESTORE needs a gate the MIGRATE holds), as the same MIGRATE in
/// Redis does (its one thread cannot answer itself).
/// </para>
/// </remarks>
internal static class MigrateCommands
{
    /// <summary>
    /// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
    /// [AUTH2 username password] [KEYS key [key ...]] — +OK, +NOKEY when no key exists, or the error.
    /// </summary>
    public static void Migrate(ref CommandContext ctx)
    {
        if (ctx.Client.Migration is { } pending)
        {
            Finish(ref ctx, pending);
            return;
        }

        bool copy = false, replace = false;
        byte[]? username = null, password = null;
        int firstKey = 3, keyCount = 1;
        for (int j = 6; j < ctx.ArgCount; j++)
        {
            int more = ctx.ArgCount - 1 - j;
            if (ctx.ArgIs(j, "COPY")) copy = true;
            else if (ctx.ArgIs(j, "REPLACE")) replace = true;
            else if (ctx.ArgIs(j, "AUTH"))
            {
                if (more < 1)
                {
                    ctx.Syntax();
                    return;
                }
                password = ctx.Arg(++j).ToArray();
            }
            else if (ctx.ArgIs(j, "AUTH2"))
            {
                if (more < 2)
                {
                    ctx.Syntax();
                    return;
                }
                username = ctx.Arg(++j).ToArray();
                password = ctx.Arg(++j).ToArray();
            }
            else if (ctx.ArgIs(j, "KEYS"))
            {
                if (ctx.Arg(3).Length != 0)
                {
                    ctx.Error(RespErrors.MigrateKeysNeedEmptyKey);
                    return;
                }
                firstKey = j + 1;
                keyCount = ctx.ArgCount - j - 1;
                break; // every remaining argument is a key
            }
            else
            {
                ctx.Syntax();
                return;
            }
        }

        // The timeout is parsed before the database, as Redis does; 0 or less means one second.
        if (!RedisNumbers.TryParseInt64(ctx.Arg(5), out long timeoutMs) || !RedisNumbers.TryParseInt64(ctx.Arg(4), out long dbId))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (timeoutMs <= 0) timeoutMs = 1000;

        // The keys that exist (a key named twice goes twice, as in Redis), serialized now.
        var keys = new List<byte[]>(keyCount);
        var restores = new ArrayBufferWriter<byte>(256);
        var payload = new ArrayBufferWriter<byte>(64);
        var w = new RespWriter(restores, 2);
        bool compress = ctx.Server.Config.RdbCompression;
        Span<byte> digits = stackalloc byte[20];
        for (int k = 0; k < keyCount; k++)
        {
            var key = ctx.Arg(firstKey + k);
            var db = ctx.Db(key);
            int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: true);
            if (slot < 0) continue;
            var entry = db.Table.At(slot);
            if (DumpCommands.VisibleValue(entry.Value, ctx.NowMs) is not { } value) continue; // every field expired: as a missing key
            entry.Value = value;
            long ttl = 0;
            if (entry.HasTtl) ttl = Math.Max(1, db.Table.ExpireAt(slot) - ctx.NowMs);
            payload.ResetWrittenCount();
            if (!RdbValueWriter.Write(payload, in entry, compress))
            {
                ctx.Error(RespErrors.WrongType);
                return;
            }
            RdbString.AppendFooter(payload, RdbType.VersionFor(entry.Value));
            // A cluster node sends RESTORE-ASKING, which the target serves in a slot it is importing.
            w.ArrayHeader(replace ? 5 : 4);
            w.Bulk(ctx.Server.Cluster != null ? "RESTORE-ASKING"u8 : "RESTORE"u8);
            w.Bulk(key);
            ttl.TryFormat(digits, out int n, provider: CultureInfo.InvariantCulture);
            w.Bulk(digits[..n]);
            w.Bulk(payload.WrittenSpan);
            if (replace) w.Bulk("REPLACE"u8);
            keys.Add(key.ToArray());
        }
        ctx.Unchanged = true; // nothing is deleted in this step
        if (keys.Count == 0)
        {
            ctx.Reply.Raw(Resp.NoKey);
            return;
        }

        var transfer = new MigrateTransfer(Encoding.Latin1.GetString(ctx.Arg(1)), Encoding.Latin1.GetString(ctx.Arg(2)), dbId,
            timeoutMs, username, password, restores.WrittenSpan.ToArray(), keys.Count);
        var sockets = ctx.Server.MigrateSockets;
        if (ctx.Client.DenyBlocking)
        {
            // MULTI/EXEC or a script: atomic, so done here with the gates held (see the remarks).
            transfer.RunAsync(sockets).GetAwaiter().GetResult();
            Complete(ref ctx, transfer, keys, null, copy);
            return;
        }

        // Any change to a key from now on keeps it from being deleted in the second step.
        var watches = new KeyChange[keys.Count];
        for (int k = 0; k < keys.Count; k++)
        {
            // The database object itself: SWAPDB may put another one at this number meanwhile.
            watches[k] = new KeyChange(ctx.Db(keys[k]));
            watches[k].Db.Watch(keys[k], watches[k]);
        }
        Interlocked.Add(ref ctx.Server.WatchedKeyCount, keys.Count);
        ctx.Server.Cluster?.MigrationStarted(keys); // writes to them in a migrating slot: -TRYAGAIN until the second step
        ctx.Client.Migration = new PendingMigration(transfer, keys, watches, copy, Task.Run(() => transfer.RunAsync(sockets)));
    }

    /// <summary>The second step: the transfer is over and the gates are held again.</summary>
    private static void Finish(ref CommandContext ctx, PendingMigration pending)
    {
        ctx.Client.Migration = null;
        ctx.Server.Cluster?.MigrationEnded(pending.Keys);
        for (int k = 0; k < pending.Keys.Count; k++) pending.Watches[k].Db.Unwatch(pending.Keys[k], pending.Watches[k]);
        Interlocked.Add(ref ctx.Server.WatchedKeyCount, -pending.Keys.Count);
        Complete(ref ctx, pending.Transfer, pending.Keys, pending.Watches, pending.Copy);
    }

    /// <summary>
    /// Deletes the keys the target acknowledged (unless COPY, and unless changed since they were
    /// read), propagated as one DEL of them as Redis rewrites MIGRATE, and replies.
    /// </summary>
    private static void Complete(ref CommandContext ctx, MigrateTransfer transfer, List<byte[]> keys, KeyChange[]? watches, bool copy)
    {
        List<byte[]>? deleted = null;
        if (!copy)
        {
            for (int k = 0; k < keys.Count; k++)
            {
                if (!transfer.Acknowledged[k] || (watches != null && watches[k].Changed)) continue;
                var key = keys[k];
                var db = ctx.Db(key);
                if (!db.Delete(key, ctx.NowMs)) continue;
                if (db.HasWatchers) db.SignalModified(key);
                ctx.Notify(Ev.Generic, "del", key);
                (deleted ??= []).Add(key);
            }
        }
        ctx.SignalledItself = true;
        ctx.Unchanged = deleted == null;
        if (deleted != null && ctx.Propagation is { } log)
        {
            log.Rewrite(ctx.DbIndex).Add("DEL"u8);
            foreach (var key in deleted) log.Add(key);
            // Deleted keys propagate even when a later key failed and the reply is an error.
            if (transfer.Error != null) log.Force(PropagationTarget.Both);
        }
        if (transfer.Error != null) ctx.Error(transfer.Error);
        else ctx.Reply.Ok();
    }

    /// <summary>
    /// MIGRATE's keys, as Redis's migrateGetKeys finds them: argument 3, or with KEYS (after skipping
    /// AUTH's one and AUTH2's two arguments) every argument after it; none when KEYS comes with a
    /// non-empty key argument (the command then replies the error).
    /// </summary>
    public static int MigrateKeys(ref CommandContext ctx, scoped Span<int> keys)
    {
        int first = 3, count = 1;
        for (int i = 6; i < ctx.ArgCount; i++)
        {
            if (ctx.ArgIs(i, "KEYS"))
            {
                if (ctx.Arg(3).Length > 0)
                {
                    count = 0;
                }
                else
                {
                    first = i + 1;
                    count = ctx.ArgCount - first;
                }
                break;
            }
            if (ctx.ArgIs(i, "AUTH")) i += 1;
            else if (ctx.ArgIs(i, "AUTH2")) i += 2;
        }
        for (int k = 0; k < Math.Min(count, keys.Length); k++) keys[k] = first + k;
        return count;
    }

    /// <summary>A key's watch for the time a transfer is in flight: set when anything changes the key.</summary>
    internal sealed class KeyChange(Database db) : IKeyWatcher
    {
        private volatile bool _changed;

        /// <summary>Where the watch is registered.</summary>
        public Database Db { get; } = db;

        public bool Changed => _changed;

        public void Invalidate() => _changed = true;
    }

    /// <summary>A MIGRATE between its two steps: the transfer running, the keys it sent and their watches.</summary>
    internal sealed class PendingMigration(MigrateTransfer transfer, List<byte[]> keys, KeyChange[] watches, bool copy, Task done)
    {
        public MigrateTransfer Transfer { get; } = transfer;
        public List<byte[]> Keys { get; } = keys;
        public KeyChange[] Watches { get; } = watches;
        public bool Copy { get; } = copy;

        /// <summary>Completes (never faults) when the transfer is over.</summary>
        public Task Done { get; } = done;
    }
}
