using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// The streams family, consumer groups: XGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, and what
/// XREADGROUP shares with them (how a group's state propagates).
/// </summary>
/// <remarks>
/// <para>Arguments are checked in Redis 7.2's order, which differs per command: XGROUP parses its
/// options before looking the key up; XACK and XCLAIM look the key and group up first; XPENDING and
/// XAUTOCLAIM parse everything first.</para>
/// <para>None of these commands breaks a WATCH or wakes a blocked client (Redis does not signal
/// the key), except XGROUP CREATE MKSTREAM when it creates the stream and XGROUP DESTROY, which
/// wakes XREADGROUP clients blocked on the key so they see the group is gone. XCLAIM and
/// XAUTOCLAIM propagate as one XCLAIM per pending entry they touched (see
/// <see cref="PropagateClaim"/>), never as sent. Their only event is "xgroup-createconsumer".</para>
/// </remarks>
internal static partial class StreamCommands
{
    private static readonly HelpReply XGroupHelpText = new("XGROUP",
        "CREATE <key> <groupname> <id|$> [option]",
        "    Make a consumer group that delivers the entries after <id> ($: the last). Options:",
        "    * MKSTREAM: when <key> does not exist,",
        "      start it as an empty stream.",
        "    * ENTRIESREAD <entries_read>",
        "      Start the group's read counter there (replication uses it).",
        "CREATECONSUMER <key> <groupname> <consumer>",
        "    Add a consumer to the group; 0 when it already exists.",
        "DELCONSUMER <key> <groupname> <consumer>",
        "    Remove a consumer with its pending entries; replies how many it had.",
        "DESTROY <key> <groupname>",
        "    Remove the group with its consumers and pending entries.",
        "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
        "    Move the group's last delivered ID (and set its read counter).");

    // ---------------------------------------------------------------- shared pieces

    /// <summary>
    /// User text inside an error made with Redis's addReplyErrorFormat: it stops at a NUL (%s). Its
    /// CR and LF become spaces when the reply is written, as Redis does.
    /// </summary>
    private static string ErrorText(ReadOnlySpan<byte> text) => RespErrors.Latin(RespErrors.UpToNul(text));

    /// <summary>"-NOGROUP No such key 'k' or consumer group 'g'" (XPENDING, XCLAIM, XAUTOCLAIM).</summary>
    private static void NoKeyOrGroup(ref CommandContext ctx, ReadOnlySpan<byte> key, ReadOnlySpan<byte> group)
        => ctx.Error(RespErrors.NoKeyOrGroup(ErrorText(key), ErrorText(group)));

    /// <summary>
    /// The stream at argument 1 and its group named by argument 2, read as XPENDING, XCLAIM and
    /// XAUTOCLAIM look them up; false after replying WRONGTYPE or NOGROUP.
    /// </summary>
    private static bool TryFindGroup(ref CommandContext ctx, out RedisStream stream, out StreamGroup group)
    {
        stream = null!;
        group = null!;
        var key = ctx.Arg(1);
        if (!Lookup.TryRead(ref ctx, key, out RedisStream? found)) return false;
        var g = found?.FindGroup(ctx.Arg(2));
        if (g == null)
        {
            NoKeyOrGroup(ref ctx, key, ctx.Arg(2));
            return false;
        }
        stream = found!;
        group = g;
        return true;
    }

    /// <summary>A write that Redis does not signal (no WATCH broken, nobody woken): told to the dispatcher.</summary>
    private static void NotSignalled(ref CommandContext ctx) => ctx.SignalledItself = true;

    /// <summary>Writes one entry as <c>[id, [field, value, ...]]</c>; false (nothing written) when it is not in the stream.</summary>
    private static bool WriteEntry(ref CommandContext ctx, RedisStream stream, StreamId id)
    {
        var cursor = stream.Seek(id, id, reverse: false);
        if (!stream.MoveNext(ref cursor)) return false;
        WriteEntry(ctx.Reply, ref cursor);
        return true;
    }

    private static void BulkId(ref CommandContext ctx, StreamId id)
    {
        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        ctx.Reply.Bulk(text.Slice(0, id.Format(text)));
    }

    // ---------------------------------------------------------------- XGROUP

    /// <summary>
    /// XGROUP CREATE|SETID|DESTROY|CREATECONSUMER|DELCONSUMER key group ... — one handler for the
    /// five, as Redis's xgroupCommand: options (MKSTREAM, ENTRIESREAD) first, then the key (it must
    /// exist unless MKSTREAM), then the group (it must exist but for CREATE and DESTROY), then the
    /// subcommand's own argument count and work.
    /// </summary>
    public static void XGroup(ref CommandContext ctx)
    {
        bool create = ctx.ArgIs(1, "CREATE"), setId = ctx.ArgIs(1, "SETID");
        bool mkStream = false;
        long entriesRead = StreamGroup.InvalidEntriesRead;
        for (int i = 5; i < ctx.ArgCount;)
        {
            if (create && ctx.ArgIs(i, "MKSTREAM"))
            {
                mkStream = true;
                i++;
            }
            else if ((create || setId) && ctx.ArgIs(i, "ENTRIESREAD") && i + 1 < ctx.ArgCount)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(i + 1), out entriesRead))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (entriesRead < 0 && entriesRead != StreamGroup.InvalidEntriesRead)
                {
                    ctx.Error(RespErrors.XGroupEntriesReadNegative);
                    return;
                }
                i += 2;
            }
            else
            {
                ctx.Error(RespErrors.SubcommandSyntax(ctx.Arg(0), ctx.Arg(1)));
                return;
            }
        }

        var key = ctx.Arg(2);
        var groupName = ctx.Arg(3);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite(ref ctx, db, key, out _, out RedisStream? stream)) return;
        StreamGroup? group = null;
        if (!mkStream)
        {
            if (stream == null)
            {
                ctx.Error(RespErrors.XGroupKeyMissing);
                return;
            }
            group = stream.FindGroup(groupName);
            if (group == null && !create && !ctx.ArgIs(1, "DESTROY"))
            {
                ctx.Error(RespErrors.NoGroupForKey(ErrorText(groupName), ErrorText(key)));
                return;
            }
        }

        if (create && ctx.ArgCount <= 8) XGroupCreate(ref ctx, db, key, groupName, stream, entriesRead);
        else if (setId && (ctx.ArgCount == 5 || ctx.ArgCount == 7)) XGroupSetId(ref ctx, key, stream!, group!, entriesRead);
        else if (ctx.ArgIs(1, "DESTROY") && ctx.ArgCount == 4)
        {
            NotSignalled(ref ctx);
            if (group == null)
            {
                ctx.Unchanged = true;
                ctx.Reply.Raw(Resp.Zero);
                return;
            }
            stream!.DestroyGroup(groupName);
            ctx.Reply.Raw(Resp.One);
            ctx.Notify(Ev.Stream, "xgroup-destroy", key);
            // XREADGROUP clients blocked on this group must wake to learn it is gone (Redis's
            // signalKeyAsReady); a WATCH is not broken.
            if (db.HasBlocked) db.WakeBlocked(key);
        }
        else if (ctx.ArgIs(1, "CREATECONSUMER") && ctx.ArgCount == 5)
        {
            NotSignalled(ref ctx);
            group!.GetOrCreateConsumer(ctx.Arg(4), ctx.NowMs, out bool created);
            ctx.Reply.Integer(created ? 1 : 0);
            if (created) ctx.Notify(Ev.Stream, "xgroup-createconsumer", key);
            else ctx.Unchanged = true;
        }
        else if (ctx.ArgIs(1, "DELCONSUMER") && ctx.ArgCount == 5)
        {
            NotSignalled(ref ctx);
            var consumer = group!.FindConsumer(ctx.Arg(4));
            long pending = 0;
            if (consumer != null)
            {
                pending = group.DeleteConsumer(consumer);
                ctx.Notify(Ev.Stream, "xgroup-delconsumer", key);
            }
            else ctx.Unchanged = true;
            ctx.Reply.Integer(pending);
        }
        else ctx.Error(RespErrors.SubcommandSyntax(ctx.Arg(0), ctx.Arg(1)));
    }

    /// <summary>XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD entries-read] — OK, or BUSYGROUP when the name is taken.</summary>
    private static void XGroupCreate(ref CommandContext ctx, Database db, ReadOnlySpan<byte> key, ReadOnlySpan<byte> groupName,
        RedisStream? stream, long entriesRead)
    {
        StreamId id;
        var idArg = ctx.Arg(4);
        if (idArg.Length == 1 && idArg[0] == '$') id = stream?.LastId ?? StreamId.Min;
        else if (!TryParseId(idArg, 0, strict: true, allowAutoSeq: false, out id, out _))
        {
            ctx.Error(RespErrors.StreamInvalidId);
            return;
        }
        bool made = stream == null;
        if (made)
        {
            // MKSTREAM: the command can no longer fail. A new key is a real change (WATCH, waiters).
            stream = new RedisStream();
            db.Add(key.ToArray(), stream);
        }
        else NotSignalled(ref ctx);
        if (stream!.TryCreateGroup(groupName, id, entriesRead) == null)
        {
            ctx.Error(RespErrors.BusyGroup);
            return;
        }
        ctx.Reply.Ok();
        ctx.Notify(Ev.Stream, "xgroup-create", key);
    }

    /// <summary>XGROUP SETID key group id|$ [ENTRIESREAD entries-read] — OK; the read counter becomes the given one, or unknown.</summary>
    private static void XGroupSetId(ref CommandContext ctx, ReadOnlySpan<byte> key, RedisStream stream, StreamGroup group, long entriesRead)
    {
        StreamId id;
        var idArg = ctx.Arg(4);
        if (idArg.Length == 1 && idArg[0] == '$') id = stream.LastId;
        else if (!TryParseId(idArg, 0, strict: false, allowAutoSeq: false, out id, out _))
        {
            ctx.Error(RespErrors.StreamInvalidId);
            return;
        }
        NotSignalled(ref ctx);
        group.LastId = id;
        group.EntriesRead = entriesRead;
        ctx.Reply.Ok();
        ctx.Notify(Ev.Stream, "xgroup-setid", key);
    }

    /// <summary>XGROUP HELP — the subcommands, one simple string per line.</summary>
    public static void XGroupHelp(ref CommandContext ctx) => XGroupHelpText.Write(ref ctx);

    // ---------------------------------------------------------------- XACK

    /// <summary>
    /// XACK key group id [id ...] — how many of the IDs were pending in the group and are no longer.
    /// 0 without the key or the group, before the IDs are even parsed; an invalid ID fails the whole
    /// command before anything is acknowledged.
    /// </summary>
    public static void XAck(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        if (!Lookup.TryRead(ref ctx, key, out RedisStream? stream)) return;
        var group = stream?.FindGroup(ctx.Arg(2));
        NotSignalled(ref ctx);
        if (group == null)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        for (int j = 3; j < ctx.ArgCount; j++)
        {
            if (!TryParseId(ctx.Arg(j), 0, strict: true, allowAutoSeq: false, out _, out _))
            {
                ctx.Error(RespErrors.StreamInvalidId);
                return;
            }
        }
        long acknowledged = 0;
        for (int j = 3; j < ctx.ArgCount; j++)
        {
            TryParseId(ctx.Arg(j), 0, strict: true, allowAutoSeq: false, out var id, out _);
            if (group.Acknowledge(id)) acknowledged++;
        }
        if (acknowledged > 0) ctx.Db(key).Owner.MarkChanged(stream!);
        else ctx.Unchanged = true;
        ctx.Reply.Integer(acknowledged);
    }

    /// <summary>
    /// XACKDEL key group [KEEPREF | DELREF | ACKED] IDS numids id [id ...] (Redis 8.2) — acknowledges
    /// each ID in the group and deletes the entry; per ID: -1 not pending in the group, 1
    /// acknowledged and deleted (or already gone from the stream), 2 acknowledged but kept because
    /// another group still needs it (ACKED only).
    /// </summary>
    /// <remarks>
    /// WRONGTYPE comes before the options are checked; a missing key or group answers -1 for every
    /// ID (no NOGROUP) before the IDs are checked. With deletions: "xdel" and the key signalled;
    /// acknowledgements alone propagate without either, as XACK.
    /// </remarks>
    public static void XAckDel(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        if (!Lookup.TryRead(ref ctx, key, out RedisStream? stream)) return;
        if (!ParseDeleteArgs(ref ctx, 3, out var policy, out int idsAt, out int idCount)) return;
        var group = stream?.FindGroup(ctx.Arg(2));
        if (group == null)
        {
            AllNotFound(ref ctx, idCount);
            return;
        }
        if (!ValidateIds(ref ctx, idsAt, idCount)) return;
        // Acknowledging never moves a group's last-delivered ID: one minimum serves every ID.
        var minLastId = policy == RedisStream.DeletePolicy.Acked ? stream!.MinGroupLastId() : StreamId.Max;
        long deleted = 0, acknowledged = 0;
        ctx.Reply.ArrayHeader(idCount);
        for (int j = idsAt; j < idsAt + idCount; j++)
        {
            TryParseId(ctx.Arg(j), 0, strict: true, allowAutoSeq: false, out var id, out _);
            if (!group.Acknowledge(id))
            {
                ctx.Reply.Integer(-1);
                continue;
            }
            acknowledged++;
            bool canDelete = true;
            if (policy == RedisStream.DeletePolicy.Acked) canDelete = !stream!.IsReferenced(id, minLastId);
            else if (policy == RedisStream.DeletePolicy.DelRef) stream!.RemoveReferences(id);
            if (canDelete && stream!.Delete(id)) deleted++;
            ctx.Reply.Integer(canDelete ? 1 : 2);
        }
        if (acknowledged > 0) ctx.Db(key).Owner.MarkChanged(stream!);
        if (deleted > 0)
        {
            stream!.FinishDeletes();
            ctx.Notify(Ev.Stream, "xdel", key);
        }
        else if (acknowledged > 0) NotSignalled(ref ctx);
        else ctx.Unchanged = true;
    }

    // ---------------------------------------------------------------- XPENDING

    /// <summary>
    /// XPENDING key group [[IDLE min-idle-time] start end count [consumer]] — without a range, a
    /// summary: how many entries are pending, the smallest and greatest pending IDs, and per consumer
    /// with pending entries its count; with one, up to count pending entries from start to end (of
    /// one consumer when named), each as its ID, owner, idle ms and delivery count.
    /// </summary>
    public static void XPending(ref CommandContext ctx)
    {
        int argc = ctx.ArgCount;
        if (argc != 3 && (argc < 6 || argc > 9))
        {
            ctx.Error(RespErrors.Syntax);
            return;
        }
        long minIdle = 0, count = 0;
        StreamId start = default, end = default;
        int consumerArg = -1;
        if (argc >= 6)
        {
            int startIndex = 3;
            if (ctx.ArgIs(3, "IDLE"))
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(4), out minIdle))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (argc < 8)
                {
                    ctx.Error(RespErrors.Syntax);
                    return;
                }
                startIndex += 2;
            }
            if (!RedisNumbers.TryParseInt64(ctx.Arg(startIndex + 2), out count))
            {
                ctx.Error(RespErrors.NotInteger);
                return;
            }
            if (count < 0) count = 0;
            if (!TryParseBound(ctx.Arg(startIndex), 0, out start, out bool startExclusive))
            {
                ctx.Error(RespErrors.StreamInvalidId);
                return;
            }
            if (startExclusive && !start.TryIncrement(out start))
            {
                ctx.Error(RespErrors.StreamInvalidStart);
                return;
            }
            if (!TryParseBound(ctx.Arg(startIndex + 1), ulong.MaxValue, out end, out bool endExclusive))
            {
                ctx.Error(RespErrors.StreamInvalidId);
                return;
            }
            if (endExclusive && !end.TryDecrement(out end))
            {
                ctx.Error(RespErrors.StreamInvalidEnd);
                return;
            }
            // Redis takes the argument after count as the consumer and ignores any after it.
            if (startIndex + 3 < argc) consumerArg = startIndex + 3;
        }

        var key = ctx.Arg(1);
        if (!TryFindGroup(ref ctx, out var stream, out var group)) return;

        if (argc == 3)
        {
            ctx.Reply.ArrayHeader(4);
            ctx.Reply.Integer(group.Pel.Count);
            if (!group.Pel.TryGetFirst(out var first, out _))
            {
                ctx.Reply.NullBulk();
                ctx.Reply.NullBulk();
                ctx.Reply.NullArray();
                return;
            }
            group.Pel.TryGetLast(out var last, out _);
            BulkId(ref ctx, first);
            BulkId(ref ctx, last);
            int withPending = 0;
            for (int i = 0; i < group.Consumers.Count; i++)
                if (group.Consumers.ItemAt(i).Pel.Count > 0) withPending++;
            ctx.Reply.ArrayHeader(withPending);
            for (int i = 0; i < group.Consumers.Count; i++)
            {
                var consumer = group.Consumers.ItemAt(i);
                if (consumer.Pel.Count == 0) continue;
                ctx.Reply.ArrayHeader(2);
                ctx.Reply.Bulk(consumer.Name);
                ctx.Reply.BulkInteger(consumer.Pel.Count);
            }
            return;
        }

        var pel = group.Pel;
        if (consumerArg >= 0)
        {
            var consumer = group.FindConsumer(ctx.Arg(consumerArg));
            if (consumer == null)
            {
                ctx.Reply.ArrayHeader(0);
                return;
            }
            pel = consumer.Pel;
        }
        long now = ctx.NowMs;
        // The reply's length comes first: count the matching entries, then walk again to write them.
        long n = 0;
        for (var c = pel.Seek(start); n < count && c.MoveNext() && c.Key <= end;)
            if (minIdle == 0 || now - c.Value.DeliveryTime >= minIdle) n++;
        ctx.Reply.ArrayHeader(n);
        long written = 0;
        for (var c = pel.Seek(start); written < n && c.MoveNext();)
        {
            var nack = c.Value;
            if (minIdle != 0 && now - nack.DeliveryTime < minIdle) continue;
            written++;
            ctx.Reply.ArrayHeader(4);
            BulkId(ref ctx, c.Key);
            ctx.Reply.Bulk(nack.Consumer!.Name);
            ctx.Reply.Integer(Math.Max(0, now - nack.DeliveryTime));
            ctx.Reply.Integer(nack.DeliveryCount);
        }
    }
    // ---------------------------------------------------------------- XCLAIM

    /// <summary>
    /// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME ms-unix-time]
    /// [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID id] — gives the consumer the pending entries among
    /// the IDs idle at least min-idle-time (FORCE: also IDs not pending, if in the stream) and
    /// replies them (JUSTID: their IDs; the delivery count then stays). Pending entries whose stream
    /// entry is gone are dropped. The consumer is created if missing, claim or not (Redis 7.2; 7.0
    /// created it only on a claim).
    /// </summary>
    public static void XClaim(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var groupName = ctx.Arg(2);
        if (!TryFindGroup(ref ctx, out var stream, out var group)) return;
        if (!RedisNumbers.TryParseInt64(ctx.Arg(4), out long minIdle))
        {
            ctx.Error(RespErrors.XClaimMinIdle);
            return;
        }
        if (minIdle < 0) minIdle = 0;

        // The IDs run until the first argument that is not one; options follow.
        int j = 5;
        while (j < ctx.ArgCount && TryParseId(ctx.Arg(j), 0, strict: true, allowAutoSeq: false, out _, out _)) j++;
        int lastIdArg = j - 1;
        long now = ctx.NowMs;
        long deliveryTime = -1, retryCount = -1;
        bool force = false, justId = false;
        var lastId = StreamId.Min;
        for (; j < ctx.ArgCount; j++)
        {
            bool more = j + 1 < ctx.ArgCount;
            if (ctx.ArgIs(j, "FORCE")) force = true;
            else if (ctx.ArgIs(j, "JUSTID")) justId = true;
            else if (ctx.ArgIs(j, "IDLE") && more)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(++j), out deliveryTime))
                {
                    ctx.Error(RespErrors.XClaimIdle);
                    return;
                }
                deliveryTime = now - deliveryTime;
            }
            else if (ctx.ArgIs(j, "TIME") && more)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(++j), out deliveryTime))
                {
                    ctx.Error(RespErrors.XClaimTime);
                    return;
                }
            }
            else if (ctx.ArgIs(j, "RETRYCOUNT") && more)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(++j), out retryCount))
                {
                    ctx.Error(RespErrors.XClaimRetryCount);
                    return;
                }
            }
            else if (ctx.ArgIs(j, "LASTID") && more)
            {
                if (!TryParseId(ctx.Arg(++j), 0, strict: true, allowAutoSeq: false, out lastId, out _))
                {
                    ctx.Error(RespErrors.StreamInvalidId);
                    return;
                }
            }
            else
            {
                ctx.Error(RespErrors.XClaimUnrecognizedOption(ErrorText(ctx.Arg(j))));
                return;
            }
        }

        NotSignalled(ref ctx);
        var log = ctx.Propagation;
        log?.Prevent();
        bool changed = false, propagateLastId = false;
        if (lastId > group.LastId)
        {
            group.LastId = lastId;
            propagateLastId = changed = true;
        }
        // A time in the future or before the epoch is taken as now rather than refused: clients
        // compute it from their own clocks.
        if (deliveryTime < 0 || deliveryTime > now) deliveryTime = now;

        var consumer = group.GetOrCreateConsumer(ctx.Arg(3), now, out bool created);
        if (created)
        {
            changed = true;
            ctx.Notify(Ev.Stream, "xgroup-createconsumer", key);
        }
        consumer.SeenTime = now;

        var claimed = new List<StreamId>();
        for (int a = 5; a <= lastIdArg; a++)
        {
            TryParseId(ctx.Arg(a), 0, strict: true, allowAutoSeq: false, out var id, out _);
            bool pending = group.Pel.TryGetValue(id, out var nack);
            if (!stream!.EntryExists(id))
            {
                if (pending)
                {
                    // The entry is gone: drop it from the PEL, and tell the replicas the same way.
                    if (log != null) PropagateClaim(log, ctx.DbIndex, key, groupName, ctx.Arg(a), nack, group);
                    propagateLastId = false;
                    changed = true;
                    group.Acknowledge(id);
                }
                continue;
            }
            if (force && !pending)
            {
                nack = group.AddUnowned(id, now);
                pending = true;
            }
            if (!pending) continue;
            if (nack.Consumer != null && minIdle != 0 && now - nack.DeliveryTime < minIdle) continue;
            group.TransferTo(id, nack, consumer);
            nack.DeliveryTime = deliveryTime;
            if (retryCount >= 0) nack.DeliveryCount = retryCount;
            else if (!justId) nack.DeliveryCount++;
            claimed.Add(id);
            consumer.ActiveTime = now;
            if (log != null) PropagateClaim(log, ctx.DbIndex, key, groupName, ctx.Arg(a), nack, group);
            propagateLastId = false;
            changed = true;
        }
        // A consumer made here that no XCLAIM names would be missing on the replica (Redis 7.0 to 7.4
        // propagate nothing for it): we send it as XGROUP CREATECONSUMER, on purpose.
        if (created && claimed.Count == 0 && log != null) PropagateConsumerCreation(log, ctx.DbIndex, key, groupName, consumer.Name);
        if (propagateLastId && log != null) PropagateGroupId(log, ctx.DbIndex, key, groupName, group);

        if (changed) ctx.Db(key).Owner.MarkChanged(stream!);
        else ctx.Unchanged = true;
        ctx.Reply.ArrayHeader(claimed.Count);
        foreach (var id in claimed)
        {
            if (justId) BulkId(ref ctx, id);
            else WriteEntry(ref ctx, stream!, id);
        }
    }

    // ---------------------------------------------------------------- XAUTOCLAIM

    /// <summary>XAUTOCLAIM's COUNT at most: LONG_MAX / max(sizeof(streamID), the attempts factor).</summary>
    private const long AutoClaimMaxCount = long.MaxValue / 16;

    /// <summary>XAUTOCLAIM looks at up to this many pending entries per entry COUNT asks for.</summary>
    private const long AutoClaimAttemptsFactor = 10;

    /// <summary>
    /// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID] — claims for the
    /// consumer up to COUNT (100) pending entries from start on that are idle at least
    /// min-idle-time, looking at no more than ten times COUNT; replies the ID to continue from (0-0
    /// at the end), the claimed entries (JUSTID: their IDs, the delivery count left alone), and,
    /// since 7.0, the IDs of pending entries it dropped because their stream entries were deleted
    /// (each counts towards COUNT).
    /// </summary>
    public static void XAutoClaim(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(4), out long minIdle))
        {
            ctx.Error(RespErrors.XAutoClaimMinIdle);
            return;
        }
        if (minIdle < 0) minIdle = 0;
        if (!TryParseBound(ctx.Arg(5), 0, out var start, out bool startExclusive))
        {
            ctx.Error(RespErrors.StreamInvalidId);
            return;
        }
        if (startExclusive && !start.TryIncrement(out start))
        {
            ctx.Error(RespErrors.StreamInvalidStart);
            return;
        }
        long count = 100;
        bool justId = false;
        for (int j = 6; j < ctx.ArgCount; j++)
        {
            if (ctx.ArgIs(j, "COUNT") && j + 1 < ctx.ArgCount)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out count) || count < 1 || count > AutoClaimMaxCount)
                {
                    ctx.Error(RespErrors.XAutoClaimCount);
                    return;
                }
                j++;
            }
            else if (ctx.ArgIs(j, "JUSTID")) justId = true;
            else
            {
                ctx.Error(RespErrors.Syntax);
                return;
            }
        }

        var key = ctx.Arg(1);
        var groupName = ctx.Arg(2);
        if (!TryFindGroup(ref ctx, out var stream, out var group)) return;
        // Redis allocates COUNT IDs up front for the deleted ones, and fails when it cannot.
        if (count * 16 > GC.GetGCMemoryInfo().TotalAvailableMemoryBytes)
        {
            ctx.Error(RespErrors.XAutoClaimCountTooHigh);
            return;
        }

        NotSignalled(ref ctx);
        var log = ctx.Propagation;
        log?.Prevent();
        long now = ctx.NowMs;
        bool changed = false;
        var consumer = group.GetOrCreateConsumer(ctx.Arg(3), now, out bool created);
        if (created)
        {
            changed = true;
            ctx.Notify(Ev.Stream, "xgroup-createconsumer", key);
        }
        consumer.SeenTime = now;

        long attempts = count * AutoClaimAttemptsFactor;
        var claimed = new List<StreamId>();
        var deleted = new List<StreamId>();
        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        var cursor = group.Pel.Seek(start);
        while (attempts-- > 0 && count > 0 && cursor.MoveNext())
        {
            var id = cursor.Key;
            var nack = cursor.Value;
            if (!stream!.EntryExists(id))
            {
                if (log != null) PropagateClaim(log, ctx.DbIndex, key, groupName, text.Slice(0, id.Format(text)), nack, group);
                group.Acknowledge(id);
                deleted.Add(id);
                changed = true;
                count--;
                cursor = group.Pel.Seek(id); // the removal invalidated the cursor: on from the next ID
                continue;
            }
            if (minIdle != 0 && now - nack.DeliveryTime < minIdle) continue;
            // Moving the entry between consumers leaves the group's list, and so the cursor, as it was.
            group.TransferTo(id, nack, consumer);
            nack.DeliveryTime = now;
            if (!justId) nack.DeliveryCount++;
            claimed.Add(id);
            count--;
            consumer.ActiveTime = now;
            if (log != null) PropagateClaim(log, ctx.DbIndex, key, groupName, text.Slice(0, id.Format(text)), nack, group);
            changed = true;
        }
        var next = cursor.MoveNext() ? cursor.Key : StreamId.Min;
        // As XCLAIM: a consumer made here that no XCLAIM names goes as XGROUP CREATECONSUMER (not in Redis).
        if (created && claimed.Count == 0 && log != null) PropagateConsumerCreation(log, ctx.DbIndex, key, groupName, consumer.Name);

        if (changed) ctx.Db(key).Owner.MarkChanged(stream!);
        else ctx.Unchanged = true;
        ctx.Reply.ArrayHeader(3);
        BulkId(ref ctx, next);
        ctx.Reply.ArrayHeader(claimed.Count);
        foreach (var id in claimed)
        {
            if (justId) BulkId(ref ctx, id);
            else WriteEntry(ref ctx, stream!, id);
        }
        ctx.Reply.ArrayHeader(deleted.Count);
        foreach (var id in deleted) BulkId(ref ctx, id);
    }

    // ---------------------------------------------------------------- propagation of group state

    /// <summary>
    /// Logs one pending entry's state as Redis's streamPropagateXCLAIM does, so a replica or an AOF
    /// replay rebuilds it whatever its clock: <c>XCLAIM key group consumer 0 id TIME delivery-time
    /// RETRYCOUNT delivery-count FORCE JUSTID LASTID group-last-id</c>, the consumer being the entry's
    /// owner. XREADGROUP (for each entry delivered without NOACK), XCLAIM and XAUTOCLAIM (for each
    /// entry claimed, and for each pending entry dropped because its stream entry is gone: the
    /// replica drops it the same way) log one each, and the command itself propagates nothing
    /// (<see cref="PropagationLog.Prevent"/>, which the caller does).
    /// </summary>
    internal static void PropagateClaim(PropagationLog log, int db, ReadOnlySpan<byte> key, ReadOnlySpan<byte> groupName,
        StreamId id, StreamNack nack, StreamGroup group)
    {
        Span<byte> idText = stackalloc byte[StreamId.MaxTextLength];
        PropagateClaim(log, db, key, groupName, idText.Slice(0, id.Format(idText)), nack, group);
    }

    /// <summary>
    /// <see cref="PropagateClaim(PropagationLog, int, ReadOnlySpan{byte}, ReadOnlySpan{byte}, StreamId, StreamNack, StreamGroup)"/>
    /// with the ID as text: XCLAIM propagates each ID as its client wrote it ("5" stays "5").
    /// </summary>
    internal static void PropagateClaim(PropagationLog log, int db, ReadOnlySpan<byte> key, ReadOnlySpan<byte> groupName,
        ReadOnlySpan<byte> idText, StreamNack nack, StreamGroup group)
    {
        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        log.Also(db).Add("XCLAIM"u8).Add(key).Add(groupName).Add(nack.Consumer!.Name).Add("0"u8);
        log.Add(idText);
        log.Add("TIME"u8).Add(nack.DeliveryTime).Add("RETRYCOUNT"u8).Add(nack.DeliveryCount);
        log.Add("FORCE"u8).Add("JUSTID"u8).Add("LASTID"u8).Add(text.Slice(0, group.LastId.Format(text)));
        log.Close();
    }

    /// <summary>
    /// Logs a group's last ID and read counter as Redis's streamPropagateGroupID does:
    /// <c>XGROUP SETID key group last-id ENTRIESREAD entries-read</c>. Used when XREADGROUP moved
    /// the last ID (the XCLAIMs' LASTID does not carry the counter), and when XCLAIM LASTID moved it
    /// without claiming anything (XCLAIM moves no counter, on the master or the replica).
    /// </summary>
    internal static void PropagateGroupId(PropagationLog log, int db, ReadOnlySpan<byte> key, ReadOnlySpan<byte> groupName,
        StreamGroup group)
    {
        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        log.Also(db).Add("XGROUP"u8).Add("SETID"u8).Add(key).Add(groupName);
        log.Add(text.Slice(0, group.LastId.Format(text))).Add("ENTRIESREAD"u8).Add(group.EntriesRead);
        log.Close();
    }

    /// <summary>
    /// Logs <c>XGROUP CREATECONSUMER key group consumer</c>, as Redis's streamPropagateConsumerCreation
    /// does when XREADGROUP NOACK creates a consumer (no XCLAIM would create it on the replica). We
    /// also send it, where Redis sends nothing and its replica lacks the consumer, when XREADGROUP
    /// without NOACK, XCLAIM or XAUTOCLAIM created a consumer and delivered or claimed nothing for it.
    /// </summary>
    internal static void PropagateConsumerCreation(PropagationLog log, int db, ReadOnlySpan<byte> key,
        ReadOnlySpan<byte> groupName, ReadOnlySpan<byte> consumerName)
    {
        log.Also(db).Add("XGROUP"u8).Add("CREATECONSUMER"u8).Add(key).Add(groupName).Add(consumerName);
        log.Close();
    }
}
