using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// The streams family: XADD, XLEN, XRANGE, XREVRANGE, XDEL, XTRIM and XSETID over
/// <see cref="RedisStream"/> values; consumer groups are in StreamCommands.Groups.cs, XINFO in
/// StreamCommands.Info.cs, XREAD and XREADGROUP in StreamCommands.Read.cs.
/// </summary>
/// <remarks>
/// Arguments are checked in Redis's order (XADD and XTRIM parse every option before looking the
/// key up; XDEL looks the key up before parsing its IDs). Keyspace events as Redis 7: "xadd", then
/// "xtrim" when XADD's trimming removed something; "xtrim" and "xdel" only when entries went.
/// A stream emptied by XDEL or XTRIM stays, as in Redis.
/// </remarks>
internal static partial class StreamCommands
{
    // ---------------------------------------------------------------- argument parsing

    /// <summary>
    /// string2ull: a canonical non-negative int64, or what strtoull accepts (leading spaces, a sign,
    /// leading zeros, values past int64) as a whole string.
    /// </summary>
    private static bool TryParseUInt64(ReadOnlySpan<byte> s, out ulong value)
    {
        value = 0;
        if (s.Length <= 20 && RedisNumbers.TryParseInt64(s, out long n))
        {
            if (n < 0) return false;
            value = (ulong)n;
            return true;
        }
        int i = 0;
        while (i < s.Length && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) i++;
        bool negative = false;
        if (i < s.Length && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
        if (i == s.Length) return false;
        ulong v = 0;
        for (; i < s.Length; i++)
        {
            uint d = (uint)(s[i] - '0');
            if (d > 9) return false;
            if (v > (ulong.MaxValue - d) / 10) return false; // ERANGE
            v = v * 10 + d;
        }
        value = negative ? unchecked(0 - v) : v;
        return true;
    }

    /// <summary>
    /// streamGenericParseIDOrReply: "-" and "+" (unless <paramref name="strict"/>), "ms" (sequence
    /// <paramref name="missingSeq"/>), "ms-seq", and with <paramref name="allowAutoSeq"/> "ms-*"
    /// (then <paramref name="seqGiven"/> is false).
    /// </summary>
    private static bool TryParseId(ReadOnlySpan<byte> text, ulong missingSeq, bool strict, bool allowAutoSeq,
        out StreamId id, out bool seqGiven)
    {
        id = default;
        seqGiven = true;
        if (text.Length > 127) return false;
        if (text.Length == 1 && (text[0] == '-' || text[0] == '+'))
        {
            if (strict) return false;
            id = text[0] == '-' ? StreamId.Min : StreamId.Max;
            return true;
        }
        // Redis reads the ID as a C string: it ends at a NUL byte.
        int nul = text.IndexOf((byte)0);
        if (nul >= 0) text = text.Slice(0, nul);
        int dash = text.IndexOf((byte)'-');
        if (!TryParseUInt64(dash < 0 ? text : text.Slice(0, dash), out ulong ms)) return false;
        ulong seq = missingSeq;
        if (dash >= 0)
        {
            var rest = text.Slice(dash + 1);
            if (allowAutoSeq && rest.Length == 1 && rest[0] == '*')
            {
                seq = 0;
                seqGiven = false;
            }
            else if (!TryParseUInt64(rest, out seq)) return false;
        }
        id = new StreamId(ms, seq);
        return true;
    }

    /// <summary>An interval bound: "(" makes it exclusive, after which "-" and "+" are refused.</summary>
    private static bool TryParseBound(ReadOnlySpan<byte> text, ulong missingSeq, out StreamId id, out bool exclusive)
    {
        exclusive = text.Length > 1 && text[0] == '(';
        return exclusive
            ? TryParseId(text.Slice(1), missingSeq, strict: true, allowAutoSeq: false, out id, out _)
            : TryParseId(text, missingSeq, strict: false, allowAutoSeq: false, out id, out _);
    }

    /// <summary>XADD's and XTRIM's options, as streamParseAddOrTrimArgsOrReply reads them.</summary>
    private struct TrimArgs
    {
        public RedisStream.TrimStrategy Strategy;
        /// <summary>The index of the threshold argument (after '~' or '=' when given), for the propagated rewrite.</summary>
        public int ThresholdIndex;
        public long MaxLen;
        public StreamId MinId;
        public bool Approximate;
        public long Limit;
        public bool NoMkStream;
        public bool IdGiven, SeqGiven;
        public StreamId Id;
        /// <summary>KEEPREF, DELREF or ACKED (Redis 8.2); KEEPREF unless given.</summary>
        public RedisStream.DeletePolicy Policy;
        public bool PolicyGiven;
    }

    /// <summary>
    /// KEEPREF, DELREF or ACKED at argument <paramref name="index"/>, when no policy was given yet:
    /// a second one is not an option (XADD then reads it as the ID, the others answer a syntax error).
    /// </summary>
    private static bool TryParsePolicy(ref CommandContext ctx, int index, ref bool given, ref RedisStream.DeletePolicy policy)
    {
        if (given) return false;
        if (ctx.ArgIs(index, "KEEPREF")) policy = RedisStream.DeletePolicy.KeepRef;
        else if (ctx.ArgIs(index, "DELREF")) policy = RedisStream.DeletePolicy.DelRef;
        else if (ctx.ArgIs(index, "ACKED")) policy = RedisStream.DeletePolicy.Acked;
        else return false;
        given = true;
        return true;
    }

    /// <summary>Parses from argument 2; returns the ID's index for XADD (or the end for XTRIM), -1 after replying an error.</summary>
    private static int ParseTrimArgs(ref CommandContext ctx, bool xadd, out TrimArgs args)
    {
        args = default;
        bool limitGiven = false;
        int i = 2;
        for (; i < ctx.ArgCount; i++)
        {
            int more = ctx.ArgCount - 1 - i;
            var opt = ctx.Arg(i);
            if (xadd && opt.Length == 1 && opt[0] == '*') break;
            bool maxLen = ctx.ArgIs(i, "MAXLEN");
            if ((maxLen || ctx.ArgIs(i, "MINID")) && more > 0)
            {
                if (args.Strategy != RedisStream.TrimStrategy.None)
                {
                    ctx.Error(RespErrors.StreamTrimBoth);
                    return -1;
                }
                args.Approximate = false;
                var next = ctx.Arg(i + 1);
                if (more >= 2 && next.Length == 1 && (next[0] == '~' || next[0] == '='))
                {
                    args.Approximate = next[0] == '~';
                    i++;
                }
                if (maxLen)
                {
                    if (!RedisNumbers.TryParseInt64(ctx.Arg(i + 1), out args.MaxLen))
                    {
                        ctx.Error(RespErrors.NotInteger);
                        return -1;
                    }
                    if (args.MaxLen < 0)
                    {
                        ctx.Error(RespErrors.StreamMaxLenNegative);
                        return -1;
                    }
                    args.Strategy = RedisStream.TrimStrategy.MaxLen;
                }
                else
                {
                    if (!TryParseId(ctx.Arg(i + 1), 0, strict: true, allowAutoSeq: false, out args.MinId, out _))
                    {
                        ctx.Error(RespErrors.StreamInvalidId);
                        return -1;
                    }
                    args.Strategy = RedisStream.TrimStrategy.MinId;
                }
                args.ThresholdIndex = i + 1;
                i++;
            }
            else if (ctx.ArgIs(i, "LIMIT") && more > 0)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(i + 1), out args.Limit))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return -1;
                }
                if (args.Limit < 0)
                {
                    ctx.Error(RespErrors.StreamLimitNegative);
                    return -1;
                }
                limitGiven = true;
                i++;
            }
            else if (TryParsePolicy(ref ctx, i, ref args.PolicyGiven, ref args.Policy))
            {
                // KEEPREF, DELREF or ACKED (Redis 8.2): the word is the whole option.
            }
            else if (xadd && ctx.ArgIs(i, "NOMKSTREAM"))
            {
                args.NoMkStream = true;
            }
            else if (xadd)
            {
                if (!TryParseId(opt, 0, strict: true, allowAutoSeq: true, out args.Id, out args.SeqGiven))
                {
                    ctx.Error(RespErrors.StreamInvalidId);
                    return -1;
                }
                args.IdGiven = true;
                break;
            }
            else
            {
                ctx.Error(RespErrors.Syntax);
                return -1;
            }
        }
        if (args.Limit != 0 && args.Strategy == RedisStream.TrimStrategy.None)
        {
            ctx.Error(RespErrors.StreamLimitWithoutStrategy);
            return -1;
        }
        if (!xadd && args.Strategy == RedisStream.TrimStrategy.None)
        {
            ctx.Error(RespErrors.StreamTrimWithoutStrategy);
            return -1;
        }
        if (ctx.Client.MustObey)
        {
            // A master's stream or the AOF: the trim was rewritten exact ("=" and the threshold it
            // reached) but may still carry its LIMIT, which is not enforced (Redis's mustObeyClient).
            args.Limit = 0;
        }
        else if (limitGiven)
        {
            if (!args.Approximate)
            {
                ctx.Error(RespErrors.StreamLimitWithoutApprox);
                return -1;
            }
        }
        else if (args.Approximate)
        {
            // Without LIMIT, '~' still bounds the work: 100 nodes' worth of entries.
            args.Limit = 100 * ctx.Server.Config.StreamNodeMaxEntries;
            if (args.Limit <= 0) args.Limit = 10000;
            if (args.Limit > 1000000) args.Limit = 1000000;
        }
        else
        {
            args.Limit = 0;
        }
        return i;
    }

    /// <summary>XADD's field-value arguments, read where they lie.</summary>
    private readonly ref struct ArgFields(CommandContext ctx, int first) : IStreamFields
    {
        private readonly CommandContext _ctx = ctx;
        public int PairCount => (_ctx.ArgCount - first) / 2;
        public ReadOnlySpan<byte> Field(int index) => _ctx.Arg(first + 2 * index);
        public ReadOnlySpan<byte> Value(int index) => _ctx.Arg(first + 2 * index + 1);
    }

    // ---------------------------------------------------------------- commands

    /// <summary>XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [field value ...] — the new entry's ID.</summary>
    public static void XAdd(ref CommandContext ctx)
    {
        int idPos = ParseTrimArgs(ref ctx, xadd: true, out var args);
        if (idPos < 0) return;
        int fieldPos = idPos + 1;
        if (ctx.ArgCount - fieldPos < 2 || (ctx.ArgCount - fieldPos) % 2 == 1)
        {
            ctx.Error(RespErrors.WrongArity("xadd"));
            return;
        }
        if (args.IdGiven && args.SeqGiven && args.Id == StreamId.Min)
        {
            ctx.Error(RespErrors.StreamIdZero);
            return;
        }
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite(ref ctx, db, key, out _, out RedisStream? stream)) return;
        bool created = false;
        if (stream == null)
        {
            if (args.NoMkStream)
            {
                ctx.Unchanged = true;
                ctx.Reply.NullBulk();
                return;
            }
            stream = new RedisStream();
            created = true;
        }
        if (stream.LastId == StreamId.Max)
        {
            ctx.Error(RespErrors.StreamExhausted);
            return;
        }

        var last = stream.LastId;
        StreamId id;
        bool valid = true;
        if (!args.IdGiven)
        {
            ulong now = (ulong)ctx.NowMs;
            if (now > last.Ms) id = new StreamId(now, 0);
            else valid = last.TryIncrement(out id);
        }
        else if (args.SeqGiven) id = args.Id;
        else if (last.Ms == args.Id.Ms)
        {
            valid = last.Seq != ulong.MaxValue;
            id = new StreamId(last.Ms, valid ? last.Seq + 1 : 0);
        }
        else id = args.Id;

        var config = ctx.Server.Config;
        var result = valid
            ? stream.Append(new ArgFields(ctx, fieldPos), id, config.StreamNodeMaxBytes, config.StreamNodeMaxEntries)
            : RedisStream.AppendResult.IdTooSmall;
        if (result != RedisStream.AppendResult.Added)
        {
            ctx.Error(result == RedisStream.AppendResult.IdTooSmall ? RespErrors.StreamIdTooSmall : RespErrors.StreamElementsTooLarge);
            return;
        }
        if (created) db.Add(key.ToArray(), stream);

        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        ctx.Reply.Bulk(text.Slice(0, id.Format(text)));
        ctx.Notify(Ev.Stream, "xadd", key);
        var lastDeleted = StreamId.Min;
        if (args.Strategy != RedisStream.TrimStrategy.None
            && stream.Trim(args.Strategy, args.MaxLen, args.MinId, args.Approximate, args.Limit, args.Policy, out lastDeleted) > 0)
            ctx.Notify(Ev.Stream, "xtrim", key);
        bool rewriteId = !args.IdGiven || !args.SeqGiven;
        if (rewriteId || args.Approximate) Propagate(ref ctx, stream, in args, rewriteId ? idPos : -1, id, lastDeleted);
    }

    /// <summary>
    /// Propagates XADD or XTRIM as Redis rewrites them: a generated ID in place of "*" or "ms-*",
    /// and an approximate trim as the exact one it turned out to be ("~" becomes "=" and the
    /// threshold the length, or the first ID, the stream was left with), so a replica or an AOF
    /// replay trims exactly the same entries whatever its node sizes.
    /// </summary>
    /// <remarks>
    /// Approximate trims under DELREF and ACKED are where we part from Redis 8.2, whose rewrite (the
    /// length, or the first ID left, tombstones included) lets a replica trim other entries than the
    /// master did: under ACKED an entry a group still needs may stay in front of entries that went,
    /// and a MAXLEN walk on the replica may stop at a node the master's went past; under DELREF with
    /// MINID the first node may keep the tombstones of what went, so its first ID says nothing. What
    /// these trims removed is always the first live entries they could remove, up to the last one
    /// (<paramref name="lastDeleted"/>), so we send "MINID = (that ID + 1)" with the policy: on the
    /// same state the replica removes exactly those. DELREF with MAXLEN keeps Redis's rewrite (every
    /// entry can go, so the length says it all).
    /// </remarks>
    private static void Propagate(ref CommandContext ctx, RedisStream stream, in TrimArgs args, int idPos, StreamId id,
        StreamId lastDeleted)
    {
        if (ctx.Propagation is not { } log) return;
        Span<byte> idText = stackalloc byte[StreamId.MaxTextLength];
        int idLength = id.Format(idText);
        Span<byte> trimText = stackalloc byte[StreamId.MaxTextLength];
        int trimLength = 0;
        // Everything up to the last entry removed (0-0, nothing, when none was); see remarks.
        var bound = StreamId.Min;
        bool asMinId = args.Approximate
                       && (args.Policy == RedisStream.DeletePolicy.Acked
                           || args.Policy == RedisStream.DeletePolicy.DelRef && args.Strategy == RedisStream.TrimStrategy.MinId)
                       && (lastDeleted == StreamId.Min || lastDeleted.TryIncrement(out bound));
        if (asMinId) trimLength = bound.Format(trimText);
        else if (args.Approximate)
            trimLength = args.Strategy == RedisStream.TrimStrategy.MaxLen
                ? RedisNumbers.FormatInt64(stream.Length, trimText)
                : stream.FirstStoredId.Format(trimText);
        log.Rewrite(ctx.DbIndex);
        for (int i = 0; i < ctx.ArgCount; i++)
        {
            if (asMinId && i == args.ThresholdIndex - 2) log.Add("MINID"u8);
            else if (args.Approximate && i == args.ThresholdIndex - 1) log.Add("="u8);
            else if (args.Approximate && i == args.ThresholdIndex) log.Add(trimText.Slice(0, trimLength));
            else if (i == idPos) log.Add(idText.Slice(0, idLength));
            else log.Add(ctx.Arg(i));
        }
    }

    /// <summary>
    /// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id] — sets the ID a
    /// stream's next entry must exceed (what replicas receive to stay in step), never below its last
    /// live entry or its greatest deleted ID.
    /// </summary>
    public static void XSetId(ref CommandContext ctx)
    {
        if (!TryParseId(ctx.Arg(2), 0, strict: true, allowAutoSeq: false, out var id, out _))
        {
            ctx.Error(RespErrors.StreamInvalidId);
            return;
        }
        long entriesAdded = -1;
        var maxDeleted = StreamId.Min;
        for (int i = 3; i < ctx.ArgCount; i += 2)
        {
            bool more = i + 1 < ctx.ArgCount;
            if (more && ctx.ArgIs(i, "ENTRIESADDED"))
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(i + 1), out entriesAdded))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (entriesAdded < 0)
                {
                    ctx.Error(RespErrors.XSetIdEntriesAddedNegative);
                    return;
                }
            }
            else if (more && ctx.ArgIs(i, "MAXDELETEDID"))
            {
                if (!TryParseId(ctx.Arg(i + 1), 0, strict: true, allowAutoSeq: false, out maxDeleted, out _))
                {
                    ctx.Error(RespErrors.StreamInvalidId);
                    return;
                }
                if (id < maxDeleted)
                {
                    ctx.Error(RespErrors.XSetIdBelowGivenMaxDeleted);
                    return;
                }
            }
            else
            {
                ctx.Error(RespErrors.Syntax);
                return;
            }
        }
        var key = ctx.Arg(1);
        if (!Lookup.TryWrite(ref ctx, ctx.Db(key), key, out _, out RedisStream? stream)) return;
        if (stream == null)
        {
            ctx.Error(RespErrors.NoSuchKey);
            return;
        }
        // Redis 7.2 (#11444); 7.0 let this through.
        if (id < stream.MaxDeletedId)
        {
            ctx.Error(RespErrors.XSetIdBelowMaxDeleted);
            return;
        }
        if (stream.Length > 0)
        {
            if (id < stream.LastLiveId())
            {
                ctx.Error(RespErrors.XSetIdBelowTop);
                return;
            }
            if (entriesAdded != -1 && stream.Length > entriesAdded)
            {
                ctx.Error(RespErrors.XSetIdEntriesAddedBelowLength);
                return;
            }
        }
        stream.SetIds(id, entriesAdded, maxDeleted);
        ctx.Reply.Ok();
        ctx.Notify(Ev.Stream, "xsetid", key);
    }

    /// <summary>XLEN key — the number of entries, 0 when the key is missing.</summary>
    public static void XLen(ref CommandContext ctx)
    {
        if (!Lookup.TryRead(ref ctx, ctx.Arg(1), out RedisStream? stream)) return;
        ctx.Reply.Integer(stream?.Length ?? 0);
    }

    /// <summary>XRANGE key start end [COUNT count] — entries from start to end, oldest first.</summary>
    public static void XRange(ref CommandContext ctx) => Range(ref ctx, reverse: false);

    /// <summary>XREVRANGE key end start [COUNT count] — entries from end down to start, newest first.</summary>
    public static void XRevRange(ref CommandContext ctx) => Range(ref ctx, reverse: true);

    private static void Range(ref CommandContext ctx, bool reverse)
    {
        var startArg = ctx.Arg(reverse ? 3 : 2);
        var endArg = ctx.Arg(reverse ? 2 : 3);
        if (!TryParseBound(startArg, 0, out var start, out bool startExclusive))
        {
            ctx.Error(RespErrors.StreamInvalidId);
            return;
        }
        if (startExclusive && !start.TryIncrement(out start))
        {
            ctx.Error(RespErrors.StreamInvalidStart);
            return;
        }
        if (!TryParseBound(endArg, ulong.MaxValue, out var end, out bool endExclusive))
        {
            ctx.Error(RespErrors.StreamInvalidId);
            return;
        }
        if (endExclusive && !end.TryDecrement(out end))
        {
            ctx.Error(RespErrors.StreamInvalidEnd);
            return;
        }
        long count = -1;
        for (int j = 4; j < ctx.ArgCount; j++)
        {
            if (ctx.ArgIs(j, "COUNT") && ctx.ArgCount - j - 1 >= 1)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out count))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (count < 0) count = 0;
                j++;
            }
            else
            {
                ctx.Error(RespErrors.Syntax);
                return;
            }
        }
        if (!Lookup.TryRead(ref ctx, ctx.Arg(1), out RedisStream? stream)) return;
        if (stream == null)
        {
            ctx.Reply.ArrayHeader(0);
            return;
        }
        if (count == 0)
        {
            ctx.Reply.NullArray();
            return;
        }
        if (count == -1) count = long.MaxValue;
        WriteEntries(ctx.Reply, stream, start, end, count, reverse);
    }

    /// <summary>
    /// Replies the live entries from <paramref name="start"/> to <paramref name="end"/>, at most
    /// <paramref name="count"/>, as [id, [field, value, ...]] pairs (XRANGE's reply, and XREAD's per stream).
    /// </summary>
    private static void WriteEntries(RespWriter reply, RedisStream stream, StreamId start, StreamId end, long count, bool reverse)
    {
        // The reply's length comes first: count the entries, then walk again to write them.
        var cursor = stream.Seek(start, end, reverse);
        long n = 0;
        while (n < count && stream.MoveNext(ref cursor)) n++;
        reply.ArrayHeader(n);
        cursor = stream.Seek(start, end, reverse);
        for (long i = 0; i < n && stream.MoveNext(ref cursor); i++) WriteEntry(reply, ref cursor);
    }

    /// <summary>The cursor's current entry as [id, [field, value, ...]].</summary>
    private static void WriteEntry(RespWriter reply, ref RedisStream.Cursor cursor)
    {
        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        reply.ArrayHeader(2);
        reply.Bulk(text.Slice(0, cursor.Id.Format(text)));
        reply.ArrayHeader(cursor.FieldCount * 2);
        for (long f = 0; f < cursor.FieldCount; f++)
        {
            RedisStream.NextPair(ref cursor, out var field, out var value);
            BulkElement(reply, cursor.Lp, field, text);
            BulkElement(reply, cursor.Lp, value, text);
        }
    }

    private static void BulkElement(RespWriter reply, byte[] lp, ListpackValue v, scoped Span<byte> scratch)
    {
        if (v.IsInt) reply.Bulk(scratch.Slice(0, RedisNumbers.FormatInt64(v.Int, scratch)));
        else reply.Bulk(lp.AsSpan(v.Start, v.Length));
    }

    /// <summary>XDEL key id [id ...] — how many of the entries existed and were deleted.</summary>
    public static void XDel(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite(ref ctx, db, key, out _, out RedisStream? stream)) return;
        if (stream == null)
        {
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        for (int j = 2; j < ctx.ArgCount; j++)
        {
            if (!TryParseId(ctx.Arg(j), 0, strict: true, allowAutoSeq: false, out _, out _))
            {
                ctx.Error(RespErrors.StreamInvalidId);
                return;
            }
        }
        long deleted = 0;
        for (int j = 2; j < ctx.ArgCount; j++)
        {
            TryParseId(ctx.Arg(j), 0, strict: true, allowAutoSeq: false, out var id, out _);
            if (stream.Delete(id)) deleted++;
        }
        if (deleted > 0)
        {
            stream.FinishDeletes();
            ctx.Notify(Ev.Stream, "xdel", key);
        }
        else ctx.Unchanged = true;
        ctx.Reply.Integer(deleted);
    }

    /// <summary>
    /// XDELEX's and XACKDEL's options from argument <paramref name="first"/> (Redis 8.2's
    /// streamParseAckDelArgsOrReply): at most one of KEEPREF, DELREF, ACKED, and "IDS numids id..."
    /// (a later IDS replaces an earlier one), in any order. False after replying the error.
    /// </summary>
    private static bool ParseDeleteArgs(ref CommandContext ctx, int first, out RedisStream.DeletePolicy policy,
        out int idsAt, out int idCount)
    {
        policy = RedisStream.DeletePolicy.KeepRef;
        bool policyGiven = false;
        idsAt = -1;
        idCount = 0;
        for (int j = first; j < ctx.ArgCount;)
        {
            if (TryParsePolicy(ref ctx, j, ref policyGiven, ref policy))
            {
                j++;
            }
            else if (ctx.ArgIs(j, "IDS") && j + 1 < ctx.ArgCount)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out long n) || n < 1)
                {
                    ctx.Error(RespErrors.StreamNumIdsNotPositive);
                    return false;
                }
                if (n > ctx.ArgCount - j - 2)
                {
                    ctx.Error(RespErrors.StreamNumIdsMismatch);
                    return false;
                }
                idsAt = j + 2;
                idCount = (int)n;
                j = idsAt + idCount;
            }
            else
            {
                ctx.Error(RespErrors.Syntax);
                return false;
            }
        }
        if (idsAt < 0)
        {
            ctx.Error(RespErrors.StreamIdsRequired);
            return false;
        }
        return true;
    }

    /// <summary>XDELEX's and XACKDEL's reply for a missing key (or group): -1 for every ID.</summary>
    private static void AllNotFound(ref CommandContext ctx, int idCount)
    {
        ctx.Unchanged = true;
        ctx.Reply.ArrayHeader(idCount);
        for (int i = 0; i < idCount; i++) ctx.Reply.Integer(-1);
    }

    /// <summary>Checks every ID of the IDS list before anything changes (all or nothing, as Redis).</summary>
    private static bool ValidateIds(ref CommandContext ctx, int idsAt, int idCount)
    {
        for (int j = idsAt; j < idsAt + idCount; j++)
        {
            if (!TryParseId(ctx.Arg(j), 0, strict: true, allowAutoSeq: false, out _, out _))
            {
                ctx.Error(RespErrors.StreamInvalidId);
                return false;
            }
        }
        return true;
    }

    /// <summary>
    /// XDELEX key [KEEPREF | DELREF | ACKED] IDS numids id [id ...] (Redis 8.2) — per ID: 1 deleted,
    /// -1 no such entry, 2 kept because a consumer group still needs it (ACKED only; also for an ID
    /// not in the stream that a group has not been delivered yet or holds pending).
    /// </summary>
    /// <remarks>
    /// WRONGTYPE comes before the options are checked, a missing key (all -1) before the IDs are.
    /// "xdel" fires and the key is signalled when something was deleted. DELREF that only dropped
    /// pending entries of IDs no longer in the stream still propagates (without an event or a
    /// signal), as Redis does since 8.2's fix for it (#15569); 8.2.0 let the replica keep them.
    /// </remarks>
    public static void XDelEx(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite(ref ctx, db, key, out _, out RedisStream? stream)) return;
        if (!ParseDeleteArgs(ref ctx, 2, out var policy, out int idsAt, out int idCount)) return;
        if (stream == null)
        {
            AllNotFound(ref ctx, idCount);
            return;
        }
        if (!ValidateIds(ref ctx, idsAt, idCount)) return;
        var minLastId = policy == RedisStream.DeletePolicy.Acked ? stream.MinGroupLastId() : StreamId.Max;
        long deleted = 0;
        bool referencesDropped = false;
        ctx.Reply.ArrayHeader(idCount);
        for (int j = idsAt; j < idsAt + idCount; j++)
        {
            TryParseId(ctx.Arg(j), 0, strict: true, allowAutoSeq: false, out var id, out _);
            if (policy == RedisStream.DeletePolicy.Acked && stream.IsReferenced(id, minLastId))
            {
                ctx.Reply.Integer(2);
                continue;
            }
            if (policy == RedisStream.DeletePolicy.DelRef) referencesDropped |= stream.RemoveReferences(id);
            bool gone = stream.Delete(id);
            if (gone) deleted++;
            ctx.Reply.Integer(gone ? 1 : -1);
        }
        if (deleted > 0)
        {
            stream.FinishDeletes();
            ctx.Notify(Ev.Stream, "xdel", key);
        }
        else if (referencesDropped) ctx.SignalledItself = true;
        else ctx.Unchanged = true;
    }

    /// <summary>XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count] — how many entries were removed.</summary>
    public static void XTrim(ref CommandContext ctx)
    {
        if (ParseTrimArgs(ref ctx, xadd: false, out var args) < 0) return;
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite(ref ctx, db, key, out _, out RedisStream? stream)) return;
        if (stream == null)
        {
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        long deleted = stream.Trim(args.Strategy, args.MaxLen, args.MinId, args.Approximate, args.Limit, args.Policy, out var lastDeleted);
        if (deleted > 0)
        {
            ctx.Notify(Ev.Stream, "xtrim", key);
            if (args.Approximate) Propagate(ref ctx, stream, in args, -1, default, lastDeleted);
        }
        else ctx.Unchanged = true;
        ctx.Reply.Integer(deleted);
    }
}
