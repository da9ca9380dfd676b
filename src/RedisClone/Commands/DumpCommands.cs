using System.Buffers;
using System.Buffers.Binary;
using RedisClone.Common;
using RedisClone.Persistence;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// DUMP and RESTORE: a value as Redis's serialized form (an RDB value, the RDB version as two
/// little-endian bytes, and a CRC64 of everything before as eight), so values move between this
/// server and redis-server in both directions.
/// </summary>
/// <remarks>
/// Payloads are written with RDB version 10, which Redis 7.0 and 7.2 both accept (7.2 writes 11,
/// which 7.0 refuses); payloads up to version 11 are read. RESTORE checks in Redis's order: the
/// options, then an existing key (BUSYKEY), the TTL, the version and checksum, then the value.
/// </remarks>
internal static class DumpCommands
{
    /// <summary>DUMP key — the serialized value, or nil when the key does not exist.</summary>
    public static void Dump(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        int slot = Lookup.SlotForRead(db, key, ctx.NowMs, touch: true);
        if (slot < 0)
        {
            ctx.Reply.NullBulk();
            return;
        }
        var entry = db.Table.At(slot);
        if (VisibleValue(entry.Value, ctx.NowMs) is not { } value)
        {
            ctx.Reply.NullBulk();
            return;
        }
        entry.Value = value;
        var output = new ArrayBufferWriter<byte>(64);
        if (!RdbValueWriter.Write(output, in entry, ctx.Server.Config.RdbCompression))
        {
            ctx.Error(RespErrors.WrongType);
            return;
        }
        RdbString.AppendFooter(output, RdbType.VersionFor(value));
        ctx.Reply.Bulk(output.WrittenSpan);
    }

    /// <summary>
    /// What DUMP and MIGRATE serialize of <paramref name="value"/>: a hash without its fields already
    /// expired but not yet removed (a copy; reads never see those fields, so neither does a payload),
    /// null when no field is left; any other value as it is. Redis 8.2 writes such fields with their
    /// past TTLs, which expire on the RESTORE side; the fields seen are the same.
    /// </summary>
    internal static object? VisibleValue(object value, long nowMs)
    {
        if (value is not RedisHash { HasFieldTtls: true } hash || !RedisHash.IsExpired(hash.MinExpiry, nowMs)) return value;
        var copy = (RedisHash)hash.DeepCopy();
        for (int p; (p = copy.FirstExpiredPosition(nowMs)) >= 0;) copy.RemoveAt(p);
        return copy.Count == 0 ? null : copy;
    }

    /// <summary>The encoding limits loaded values are stored under, as configured now.</summary>
    public static RdbValueReader.Limits LoadLimits(Server.Config.ConfigRegistry config)
        => new(config.HashMaxListpackEntries, config.HashMaxListpackValue,
            new RedisSet.Limits(config.SetMaxIntsetEntries, config.SetMaxListpackEntries, config.SetMaxListpackValue),
            new RedisSortedSet.Limits(config.ZsetMaxListpackEntries, config.ZsetMaxListpackValue),
            config.ListMaxListpackSize);

    /// <summary>RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency].</summary>
    /// <remarks>
    /// As Redis's objectSetLRUOrLFU: under an LFU maxmemory-policy FREQ sets the key's counter;
    /// under any other policy IDLETIME sets its last access time; the other one is ignored.
    /// </remarks>
    public static void Restore(ref CommandContext ctx)
    {
        bool replace = false, absTtl = false;
        long idle = -1, freq = -1;
        for (int j = 4; j < ctx.ArgCount; j++)
        {
            int additional = ctx.ArgCount - j - 1;
            if (ctx.ArgIs(j, "REPLACE")) replace = true;
            else if (ctx.ArgIs(j, "ABSTTL")) absTtl = true;
            else if (ctx.ArgIs(j, "IDLETIME") && additional >= 1 && freq == -1)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out idle))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (idle < 0)
                {
                    ctx.Error(RespErrors.RestoreIdleTime);
                    return;
                }
                j++;
            }
            else if (ctx.ArgIs(j, "FREQ") && additional >= 1 && idle == -1)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out freq))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (freq < 0 || freq > 255)
                {
                    ctx.Error(RespErrors.RestoreFreq);
                    return;
                }
                j++;
            }
            else
            {
                ctx.Syntax();
                return;
            }
        }

        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        int slot = db.FindLive(key, ctx.NowMs);
        if (!replace && slot >= 0)
        {
            ctx.Error(RespErrors.BusyKey);
            return;
        }
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long ttl))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (ttl < 0)
        {
            ctx.Error(RespErrors.RestoreTtl);
            return;
        }
        var payload = ctx.Arg(3);
        if (!RdbString.VerifyPayload(payload))
        {
            ctx.Error(RespErrors.DumpPayloadWrong);
            return;
        }
        int position = 1;
        object? value = payload.Length > 10
            ? RdbValueReader.Read(payload[..^10], ref position, payload[0], LoadLimits(ctx.Server.Config))
            : null;
        if (value == null)
        {
            ctx.Error(RespErrors.BadDataFormat);
            return;
        }

        bool deleted = false;
        string? replacedType = null; // for Redis 8.2's overwritten / type_changed events
        if (replace && slot >= 0)
        {
            if (ctx.OverwriteEventsOn) replacedType = ValueTypes.TypeName(db.Table.At(slot).Value);
            db.RemoveAt(slot);
            deleted = true;
        }
        if (ttl != 0 && !absTtl) ttl = ttl > long.MaxValue - ctx.NowMs ? long.MaxValue : ttl + ctx.NowMs;
        if (ttl != 0 && ctx.AlreadyExpired(ttl))
        {
            // Born expired: nothing is stored; a key it replaced is gone, which is what propagates.
            if (deleted)
            {
                ctx.Notify(Ev.Generic, "del", key);
                ctx.Propagation?.Rewrite(ctx.DbIndex).Add(ctx.Server.Config.LazyfreeLazyServerDel ? "UNLINK"u8 : "DEL"u8).Add(key);
            }
            else
            {
                ctx.Unchanged = true;
            }
            ctx.Reply.Ok();
            return;
        }

        int added = value is byte[] bytes ? db.AddString(key, bytes, ttl) : db.Add(key.ToArray(), value, ttl);
        bool lfu = ctx.Server.KeyAccess.Lfu;
        if (lfu && freq >= 0) db.Table.SetStamp(added, Storage.KeyAccess.FrequencyStamp((int)freq));
        else if (!lfu && idle >= 0) db.Table.SetIdleSeconds(added, idle);
        ctx.Notify(Ev.Generic, "restore", key);
        if (replacedType != null) ctx.NotifyOverwritten(key, replacedType, ValueTypes.TypeName(value));
        if (ttl != 0 && !absTtl && ctx.Propagation is { } log)
        {
            // The TTL propagates as the absolute time it came to.
            log.Rewrite(ctx.DbIndex);
            for (int i = 0; i < ctx.ArgCount; i++)
            {
                if (i == 2) log.Add(ttl);
                else log.Add(ctx.Arg(i));
            }
            log.Add("ABSTTL"u8);
        }
        ctx.Reply.Ok();
    }
}
