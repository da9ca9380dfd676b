using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// The streams family, reading: XREAD and XREADGROUP, which serve what is there or block (see
/// <see cref="BlockingCommands"/> for the waiting itself).
/// </summary>
/// <remarks>
/// <para>As Redis's xreadCommand: the options are read left to right up to STREAMS (the first bad
/// one decides the error); then, stream by stream, the key is looked up (WRONGTYPE, NOGROUP) and its
/// ID parsed; then every stream with something to give is served, in the order named. Nothing to
/// give: a null array, or with BLOCK a wait on every key. The reply is an array of [key, entries]
/// in RESP2 and a map in RESP3.</para>
/// <para>A blocked XREAD's "$" means "after the last entry when I blocked": the IDs are resolved
/// then and kept with the wait, and the command run again on wake-up reads them back (Redis 7.2
/// rewrites the "$" arguments of the blocked command instead), so only entries added after it
/// blocked are returned.</para>
/// <para>Redis 7.4's "+" ID (XREAD only) stands for "just before the last entry", so the last entry is
/// what is read; it is resolved on every run, the re-run of a woken XREAD included.</para>
/// </remarks>
internal static partial class StreamCommands
{
    /// <summary>The options of XREAD and XREADGROUP, as xreadCommand reads them.</summary>
    private struct ReadArgs
    {
        /// <summary>BLOCK's milliseconds (0 = forever); -1 without BLOCK.</summary>
        public long TimeoutMs;
        /// <summary>COUNT (negative becomes 0); 0 = no limit.</summary>
        public long Count;
        /// <summary>The index of the first key, just after STREAMS.</summary>
        public int FirstKey;
        public int StreamCount;
        /// <summary>The index of the group name (the consumer follows it); 0 without GROUP.</summary>
        public int GroupArg;
        public bool NoAck;
    }

    // Scratch for the streams part of a reply, whose count is known only once every stream was
    // served (XREADGROUP's delivery changes what a later mention of the same key sees).
    [ThreadStatic] private static ReplyBuffer? _readScratch;

    /// <summary>XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...] — entries after each ID.</summary>
    public static void XRead(ref CommandContext ctx) => Read(ref ctx, group: false);

    /// <summary>The keys of XREAD and XREADGROUP: the first half of the arguments after STREAMS (none when the options do not parse).</summary>
    public static int ReadKeys(ref CommandContext ctx, scoped Span<int> keys)
    {
        bool group = ctx.Arg(0).Length == 10;
        if (!TryParseReadArgs(ref ctx, group, reply: false, out var args)) return 0;
        for (int i = 0; i < args.StreamCount && i < keys.Length; i++) keys[i] = args.FirstKey + i;
        return args.StreamCount;
    }

    /// <summary>
    /// Reads the options up to STREAMS; false after replying the error (or, without
    /// <paramref name="reply"/>, silently: the key finder asks too).
    /// </summary>
    private static bool TryParseReadArgs(ref CommandContext ctx, bool group, bool reply, out ReadArgs args)
    {
        args = default;
        args.TimeoutMs = -1;
        for (int i = 1; i < ctx.ArgCount; i++)
        {
            int more = ctx.ArgCount - i - 1;
            if (ctx.ArgIs(i, "BLOCK") && more > 0)
            {
                if (ctx.Client.IsScriptClient)
                    return Fail(ref ctx, reply, RespErrors.BlockFromScript(ctx.Arg(0)));
                i++;
                if (!RedisNumbers.TryParseInt64(ctx.Arg(i), out long ms)) return Fail(ref ctx, reply, RespErrors.TimeoutNotInteger);
                if (ms < 0) return Fail(ref ctx, reply, RespErrors.TimeoutNegative);
                if (ms > 0 && ms > long.MaxValue - ctx.NowMs) return Fail(ref ctx, reply, RespErrors.TimeoutOutOfRange);
                args.TimeoutMs = ms;
            }
            else if (ctx.ArgIs(i, "COUNT") && more > 0)
            {
                i++;
                if (!RedisNumbers.TryParseInt64(ctx.Arg(i), out args.Count)) return Fail(ref ctx, reply, RespErrors.NotInteger);
                if (args.Count < 0) args.Count = 0;
            }
            else if (ctx.ArgIs(i, "STREAMS") && more > 0)
            {
                args.FirstKey = i + 1;
                if (more % 2 != 0) return Fail(ref ctx, reply, RespErrors.UnbalancedStreams(group));
                args.StreamCount = more / 2;
                break;
            }
            else if (ctx.ArgIs(i, "GROUP") && more >= 2)
            {
                if (!group) return Fail(ref ctx, reply, RespErrors.XReadGroupOption);
                args.GroupArg = i + 1;
                i += 2;
            }
            else if (ctx.ArgIs(i, "NOACK"))
            {
                if (!group) return Fail(ref ctx, reply, RespErrors.XReadNoAckOption);
                args.NoAck = true;
            }
            else return Fail(ref ctx, reply, RespErrors.Syntax);
        }
        if (args.FirstKey == 0) return Fail(ref ctx, reply, RespErrors.Syntax);
        if (group && args.GroupArg == 0) return Fail(ref ctx, reply, RespErrors.XReadGroupMissingGroup);
        return true;
    }

    private static bool Fail(ref CommandContext ctx, bool reply, ReadOnlySpan<byte> error)
    {
        if (reply) ctx.Error(error);
        return false;
    }

    private static bool Fail(ref CommandContext ctx, bool reply, string error)
    {
        if (reply) ctx.Error(error);
        return false;
    }

    /// <summary>
    /// XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...]
    /// id [id ...] — with "&gt;", entries never delivered to the group (each becomes pending for the
    /// consumer unless NOACK); with an ID, the consumer's own pending entries after it.
    /// </summary>
    public static void XReadGroup(ref CommandContext ctx) => Read(ref ctx, group: true);

    /// <summary>XREAD and XREADGROUP: parse, look up, serve or block.</summary>
    /// <remarks>
    /// XREADGROUP propagates what it did, not itself (Redis's streamPropagateXCLAIM and
    /// streamPropagateGroupID): each entry delivered (without NOACK) as an XCLAIM, then the group's
    /// last ID and read counter as XGROUP SETID ... ENTRIESREAD (as Redis 7.4 does; 7.2 only under
    /// NOACK), and a consumer it created as XGROUP CREATECONSUMER unless an XCLAIM names it (Redis:
    /// only under NOACK). A history read propagates each entry delivered again as an XCLAIM too
    /// (Redis propagates nothing).
    /// </remarks>
    private static void Read(ref CommandContext ctx, bool group)
    {
        // Whatever happens, the command as sent is not what replicas need.
        ctx.Propagation?.Prevent();
        if (!TryParseReadArgs(ref ctx, group, reply: true, out var args)) return;
        int n = args.StreamCount;
        Span<StreamId> ids = n <= 16 ? stackalloc StreamId[16] : new StreamId[n];
        ids = ids.Slice(0, n);
        var groupName = group ? ctx.Arg(args.GroupArg) : default;
        var resumed = ctx.Client.Resuming?.StreamIds;
        for (int i = 0; i < n; i++)
        {
            var key = ctx.Arg(args.FirstKey + i);
            if (!Lookup.TryRead(ref ctx, key, out RedisStream? stream)) return;
            if (group && stream?.FindGroup(groupName) == null)
            {
                ctx.Error(RespErrors.XReadNoGroup(key, groupName));
                return;
            }
            var idArg = ctx.Arg(args.FirstKey + n + i);
            if (idArg.Length == 1 && idArg[0] == '$')
            {
                if (group)
                {
                    ctx.Error(RespErrors.XReadGroupDollarId);
                    return;
                }
                ids[i] = resumed != null ? resumed[i] : stream?.LastId ?? StreamId.Min;
                continue;
            }
            if (idArg.Length == 1 && idArg[0] == '+')
            {
                // Redis 7.4: "+" reads the stream's last entry: the ID just before the last one, so the
                // entries after it are that one. Resolved afresh on every run (a woken XREAD too, as
                // Redis re-runs the command with "+" still in it): the last entry when it is served.
                if (group)
                {
                    ctx.Error(RespErrors.XReadGroupPlusId);
                    return;
                }
                if (stream == null) ids[i] = StreamId.Min;
                else if (!stream.LastId.TryDecrement(out ids[i]))
                {
                    ctx.Error(RespErrors.XReadPlusOnZeroId);
                    return;
                }
                continue;
            }
            if (idArg.Length == 1 && idArg[0] == '>')
            {
                if (!group)
                {
                    ctx.Error(RespErrors.XReadGreaterThanId);
                    return;
                }
                // The greatest ID stands for ">" (as in Redis: naming that ID reads new entries too).
                ids[i] = StreamId.Max;
                continue;
            }
            if (!TryParseId(idArg, 0, strict: true, allowAutoSeq: false, out ids[i], out _))
            {
                ctx.Error(RespErrors.StreamInvalidId);
                return;
            }
        }

        var scratch = _readScratch ??= new ReplyBuffer(256);
        scratch.Clear();
        var body = new RespWriter(scratch, ctx.Reply.Protocol);
        long count = args.Count == 0 ? long.MaxValue : args.Count;
        long served = 0;
        for (int i = 0; i < n; i++)
        {
            var key = ctx.Arg(args.FirstKey + i);
            // A second lookup, as Redis's serving loop does its own (it counts as a keyspace hit or miss).
            Lookup.TryRead(ref ctx, key, out RedisStream? stream);
            if (stream == null) continue;
            var after = ids[i];
            bool serve = false, history = false;
            StreamGroup? cg = null;
            StreamConsumer? consumer = null;
            if (group)
            {
                ctx.Db(key).FindLive(key, ctx.NowMs); // the group changes in place: settle its memory
                cg = stream.FindGroup(groupName)!;
                if (after != StreamId.Max) serve = history = true;
                else if (stream.Length > 0 && stream.LastLiveId() > cg.LastId)
                {
                    serve = true;
                    after = cg.LastId;
                }
                consumer = cg.GetOrCreateConsumer(ctx.Arg(args.GroupArg + 1), ctx.NowMs, out bool created);
                if (created)
                {
                    ctx.Notify(Ev.Stream, "xgroup-createconsumer", key);
                    // Redis propagates the consumer only under NOACK, where no XCLAIM will make it on
                    // the replica; we also do when no XCLAIM will (nothing new to deliver, a history
                    // read), or the replica would lack it.
                    if ((args.NoAck || !serve || history) && ctx.Propagation is { } log)
                        PropagateConsumerCreation(log, ctx.DbIndex, key, groupName, consumer.Name);
                }
                consumer.SeenTime = ctx.NowMs;
            }
            else serve = stream.Length > 0 && stream.LastLiveId() > after;
            if (!serve) continue;

            served++;
            if (!body.IsResp3) body.ArrayHeader(2);
            body.Bulk(key);
            // Entries after the ID: from the next one (the last possible ID has none after it).
            if (!after.TryIncrement(out var start)) start = StreamId.Max;
            if (!group) WriteEntries(body, stream, start, StreamId.Max, count, reverse: false);
            else if (history) WriteHistory(ref ctx, body, stream, key, groupName, cg!, consumer!, start, count);
            else Deliver(ref ctx, body, stream, key, groupName, cg!, consumer!, start, count, args.NoAck);
        }
        if (served > 0)
        {
            if (ctx.Reply.IsResp3) ctx.Reply.MapHeader(served);
            else ctx.Reply.ArrayHeader(served);
            ctx.Reply.Raw(scratch.Slice(0, scratch.Written));
            scratch.Clear();
            return;
        }
        if (args.TimeoutMs < 0)
        {
            ctx.Reply.NullArray();
            return;
        }
        if (BlockingCommands.DeniedNil(ref ctx)) return;
        var keys = new byte[n][];
        for (int i = 0; i < n; i++) keys[i] = ctx.Arg(args.FirstKey + i).ToArray();
        var waitIds = ids.ToArray();
        WeakReference<RedisStream>[]? streams = null;
        if (group)
        {
            // A consumer waits for an XADD (or another stream in the key's place): entries past the
            // stream's last ID, not a group moved back by XGROUP SETID. Every stream exists here.
            streams = new WeakReference<RedisStream>[n];
            for (int i = 0; i < n; i++)
            {
                var db = ctx.Db(keys[i]);
                var stream = (RedisStream)db.Table.At(db.FindLiveNoTouch(keys[i], ctx.NowMs)).Value;
                waitIds[i] = stream.LastId;
                streams[i] = new WeakReference<RedisStream>(stream);
            }
        }
        BlockingCommands.Block(ref ctx, new BlockedClient(ctx.DbIndex, keys, args.TimeoutMs, waitIds,
            group ? groupName.ToArray() : null, args.Count, streams));
    }

    /// <summary>
    /// XREADGROUP with "&gt;": replies the entries from <paramref name="start"/> (at most
    /// <paramref name="count"/>) and, for each, moves the group's last ID (and read counter) on and,
    /// unless <paramref name="noAck"/>, makes it pending for <paramref name="consumer"/>, as Redis's
    /// streamReplyWithRange does with a group.
    /// </summary>
    private static void Deliver(ref CommandContext ctx, RespWriter reply, RedisStream stream, ReadOnlySpan<byte> key,
        ReadOnlySpan<byte> groupName, StreamGroup group, StreamConsumer consumer, StreamId start, long count, bool noAck)
    {
        var cursor = stream.Seek(start, StreamId.Max, reverse: false);
        long n = 0;
        while (n < count && stream.MoveNext(ref cursor)) n++;
        reply.ArrayHeader(n);
        var log = ctx.Propagation;
        bool lastIdMoved = false;
        cursor = stream.Seek(start, StreamId.Max, reverse: false);
        for (long i = 0; i < n && stream.MoveNext(ref cursor); i++)
        {
            var id = cursor.Id;
            lastIdMoved |= group.AdvanceLastId(stream, id);
            WriteEntry(reply, ref cursor);
            if (noAck) continue;
            var nack = group.Deliver(id, consumer, ctx.NowMs);
            if (log != null) PropagateClaim(log, ctx.DbIndex, key, groupName, id, nack, group);
        }
        // Redis 7.4 (#12898): the group's last ID and read counter go as XGROUP SETID ... ENTRIESREAD
        // whenever they moved, after the XCLAIMs. Redis 7.0 and 7.2 sent it only under NOACK, trusting the
        // XCLAIMs' LASTID, which moves a replica's last ID but not its counter: its entries-read stayed
        // stale (nil after XGROUP CREATE) and its lag wrong. We follow 7.4 here on purpose.
        if (lastIdMoved && log != null) PropagateGroupId(log, ctx.DbIndex, key, groupName, group);
    }

    /// <summary>
    /// XREADGROUP with an ID: the consumer's pending entries from <paramref name="start"/> (at most
    /// <paramref name="count"/>), each delivered once more (its time now, its count up by one); an
    /// entry deleted from the stream since comes back as [id, nil] and keeps its counters.
    /// </summary>
    /// <remarks>
    /// Each entry delivered again propagates as an XCLAIM with its new time and count, so a replica's
    /// pending list keeps the master's delivery counts. Redis (7.0 to 7.4) propagates nothing here and
    /// its replicas keep the old counts and times: a deliberate difference.
    /// </remarks>
    private static void WriteHistory(ref CommandContext ctx, RespWriter reply, RedisStream stream, ReadOnlySpan<byte> key,
        ReadOnlySpan<byte> groupName, StreamGroup group, StreamConsumer consumer, StreamId start, long count)
    {
        var log = ctx.Propagation;
        var pending = consumer.Pel.Seek(start);
        long n = 0;
        while (n < count && pending.MoveNext()) n++;
        reply.ArrayHeader(n);
        pending = consumer.Pel.Seek(start);
        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        for (long i = 0; i < n && pending.MoveNext(); i++)
        {
            var id = pending.Key;
            var entry = stream.Seek(id, id, reverse: false);
            if (stream.MoveNext(ref entry))
            {
                WriteEntry(reply, ref entry);
                pending.Value.Redeliver(ctx.NowMs);
                if (log != null) PropagateClaim(log, ctx.DbIndex, key, groupName, id, pending.Value, group);
            }
            else
            {
                reply.ArrayHeader(2);
                reply.Bulk(text.Slice(0, id.Format(text)));
                reply.NullArray();
            }
        }
    }
}
