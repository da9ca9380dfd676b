using System.Buffers;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// The sorted set family (ZADD, ZRANGE and friends, ZUNION/ZINTER/ZDIFF, ZPOP, ZSCAN...), with
/// Redis 7.0's replies, error texts and checking order, plus 7.2's ZRANK/ZREVRANK WITHSCORE.
/// </summary>
/// <remarks>
/// <para>Each handler parses and replies (the Cmd part); what touches the data goes through
/// <see cref="RedisSortedSet"/> (the Op part), which never sees RESP. Handlers run on the shard of
/// their keys with its gate held; the numkeys commands declare their keys through a key finder, so
/// every key they read or write is gated and the command is atomic across shards.</para>
/// <para>Where Redis answers differently per encoding (listpack scores lose the sign of zero, ZSCAN
/// of a listpack returns everything at once with scores as stored), the storage class reproduces it.
/// Score bounds of ranges are read with C's strtod rules (spaces, "", "(" and overflow accepted), as
/// Redis's zslParseRange does; scores given as values (ZADD, ZINCRBY, WEIGHTS) with string2d's.</para>
/// <para>Where Redis chooses at random (ZRANDMEMBER) the reply shapes and uniqueness rules match;
/// the picks are ours. A negative ZRANDMEMBER count is bounded by proto-max-bulk-len instead of being
/// served until memory runs out, as Redis 7.0 would.</para>
/// </remarks>
internal static class SortedSetCommands
{
    /// <summary>
    /// Ours: Redis 7.0 serves any negative ZRANDMEMBER count and runs out of memory on huge ones; we
    /// refuse a count whose reply would exceed proto-max-bulk-len (at most 1 GB).
    /// </summary>

    /// <summary>ZRANDMEMBER_SUB_STRATEGY_MUL: a count this close to the size draws by elimination.</summary>
    private const long RandomSubStrategyMul = 3;

    private static RedisSortedSet.Limits Limits(ref CommandContext ctx)
        => new(ctx.Server.Config.ZsetMaxListpackEntries, ctx.Server.Config.ZsetMaxListpackValue);

    // ---------------------------------------------------------------- key finders

    /// <summary>Keys of ZUNION, ZINTER, ZINTERCARD, ZDIFF, ZMPOP: numkeys at 1, the keys after it.</summary>
    public static int NumKeysAt1(ref CommandContext ctx, scoped Span<int> keys) => NumKeys(ref ctx, 1, keys, 0);

    /// <summary>Keys of ZUNIONSTORE, ZINTERSTORE, ZDIFFSTORE: the destination at 1, numkeys at 2, the keys after it.</summary>
    public static int DestinationAndNumKeysAt2(ref CommandContext ctx, scoped Span<int> keys)
    {
        keys[0] = 1;
        return NumKeys(ref ctx, 2, keys, 1);
    }

    /// <summary>
    /// The keys counted by the numkeys argument at <paramref name="numKeysAt"/>, after <paramref name="already"/>
    /// keys. A bad count adds none: the handler then fails before touching any key.
    /// </summary>
    private static int NumKeys(ref CommandContext ctx, int numKeysAt, scoped Span<int> keys, int already)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(numKeysAt), out long n) || n < 1 || n > ctx.ArgCount - numKeysAt - 1)
            return already;
        int count = (int)n;
        for (int i = 0; i < count && already + i < keys.Length; i++) keys[already + i] = numKeysAt + 1 + i;
        return already + count;
    }

    // ---------------------------------------------------------------- ZADD, ZINCRBY

    /// <summary>
    /// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...] — the number of members
    /// added (or added and changed with CH); with INCR, the member's new score or nil when an option
    /// skipped it.
    /// </summary>
    public static void ZAdd(ref CommandContext ctx) => AddGeneric(ref ctx, RedisSortedSet.AddFlags.None);

    /// <summary>ZINCRBY key increment member — the member's new score (ZADD INCR).</summary>
    public static void ZIncrBy(ref CommandContext ctx) => AddGeneric(ref ctx, RedisSortedSet.AddFlags.Incr);

    /// <remarks>
    /// Redis's zaddGenericCommand: options, then pairs (an odd or empty list is a syntax error), then
    /// the incompatibilities, then every score (all parsed before any change), then the key. Options
    /// are read for ZINCRBY too, which is how "ZINCRBY key nx member" becomes a syntax error.
    /// </remarks>
    private static void AddGeneric(ref CommandContext ctx, RedisSortedSet.AddFlags flags)
    {
        int scoreAt = 2;
        bool ch = false;
        for (; scoreAt < ctx.ArgCount; scoreAt++)
        {
            if (ctx.ArgIs(scoreAt, "NX")) flags |= RedisSortedSet.AddFlags.Nx;
            else if (ctx.ArgIs(scoreAt, "XX")) flags |= RedisSortedSet.AddFlags.Xx;
            else if (ctx.ArgIs(scoreAt, "CH")) ch = true;
            else if (ctx.ArgIs(scoreAt, "INCR")) flags |= RedisSortedSet.AddFlags.Incr;
            else if (ctx.ArgIs(scoreAt, "GT")) flags |= RedisSortedSet.AddFlags.Gt;
            else if (ctx.ArgIs(scoreAt, "LT")) flags |= RedisSortedSet.AddFlags.Lt;
            else break;
        }
        int elements = ctx.ArgCount - scoreAt;
        if (elements == 0 || elements % 2 != 0)
        {
            ctx.Syntax();
            return;
        }
        elements /= 2;
        bool nx = (flags & RedisSortedSet.AddFlags.Nx) != 0, xx = (flags & RedisSortedSet.AddFlags.Xx) != 0;
        bool gt = (flags & RedisSortedSet.AddFlags.Gt) != 0, lt = (flags & RedisSortedSet.AddFlags.Lt) != 0;
        bool incr = (flags & RedisSortedSet.AddFlags.Incr) != 0;
        if (nx && xx)
        {
            ctx.Error(RespErrors.ZAddXxAndNx);
            return;
        }
        if ((gt && nx) || (lt && nx) || (gt && lt))
        {
            ctx.Error(RespErrors.ZAddGtLtNx);
            return;
        }
        if (incr && elements > 1)
        {
            ctx.Error(RespErrors.ZAddIncrSinglePair);
            return;
        }
        // Validate every score first (nothing may change on a bad one); they are parsed again below.
        for (int j = 0; j < elements; j++)
        {
            if (!RedisNumbers.TryParseDouble(ctx.Arg(scoreAt + j * 2), out _))
            {
                ctx.Error(RespErrors.NotFloat);
                return;
            }
        }

        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite<RedisSortedSet>(ref ctx, db, key, out int slot, out var zset)) return;
        long added = 0, updated = 0, processed = 0;
        double score = 0;
        var limits = Limits(ref ctx);
        if (zset == null)
        {
            if (xx)
            {
                ctx.Unchanged = true;
                ReplyAdd(ref ctx, incr, ch, processed, score, added, updated);
                return;
            }
            zset = RedisSortedSet.Create(ctx.Arg(scoreAt + 1), limits);
            slot = db.Add(key.ToArray(), zset);
        }

        if (elements > 1)
        {
            long bytes = 0, longest = 0;
            for (int j = 0; j < elements; j++)
            {
                int length = ctx.Arg(scoreAt + j * 2 + 1).Length;
                longest = Math.Max(longest, length);
                bytes += SortedSetPack.EntrySize(length);
            }
            if (longest <= limits.ListpackValue) zset.ReserveForAdds(elements, bytes, limits);
        }
        for (int j = 0; j < elements; j++)
        {
            RedisNumbers.TryParseDouble(ctx.Arg(scoreAt + j * 2), out double given);
            var outcome = zset.Add(ctx.Arg(scoreAt + j * 2 + 1), given, flags, limits, out double newScore);
            if (outcome == RedisSortedSet.AddOutcome.NotANumber)
            {
                zset.TrimExcess();
                ctx.Error(RespErrors.ScoreNaN);
                return;
            }
            if (outcome == RedisSortedSet.AddOutcome.Added) added++;
            else if (outcome == RedisSortedSet.AddOutcome.Updated) updated++;
            if (outcome != RedisSortedSet.AddOutcome.Skipped) processed++;
            score = newScore;
        }
        if (elements > 1) zset.TrimExcess();
        if (zset.Count == 0) db.RemoveAt(slot);
        // Redis's dirty counter moves by added + updated: a score re-set to itself (ZINCRBY by 0
        // included) or a member an option skipped changes nothing, signals nothing, propagates nothing.
        if (added > 0 || updated > 0) ctx.Notify(Ev.ZSet, incr ? "zincr" : "zadd", key);
        else ctx.Unchanged = true;
        ReplyAdd(ref ctx, incr, ch, processed, score, added, updated);
    }

    private static void ReplyAdd(ref CommandContext ctx, bool incr, bool ch, long processed, double score, long added, long updated)
    {
        if (!incr) ctx.Reply.Integer(ch ? added + updated : added);
        else if (processed > 0) ctx.Reply.Double(score);
        else ctx.Reply.NullBulk();
    }

    // ---------------------------------------------------------------- ZREM, ZCARD, ZSCORE, ZMSCORE

    /// <summary>ZREM key member [member ...] — how many members were removed; an emptied key is deleted.</summary>
    public static void ZRem(ref CommandContext ctx)
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite<RedisSortedSet>(ref ctx, db, key, out int slot, out var zset)) return;
        if (zset == null)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        long deleted = 0;
        bool keyRemoved = false;
        for (int j = 2; j < ctx.ArgCount; j++)
        {
            if (zset.Remove(ctx.Arg(j))) deleted++;
            if (zset.Count == 0)
            {
                db.RemoveAt(slot);
                keyRemoved = true;
                break;
            }
        }
        if (deleted > 0)
        {
            ctx.Notify(Ev.ZSet, "zrem", key);
            if (keyRemoved) ctx.Notify(Ev.Generic, "del", key);
        }
        else ctx.Unchanged = true;
        ctx.Reply.Integer(deleted);
    }

    /// <summary>ZCARD key — the number of members, 0 when the key is missing.</summary>
    public static void ZCard(ref CommandContext ctx)
    {
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var zset)) return;
        ctx.Reply.Integer(zset?.Count ?? 0);
    }

    /// <summary>ZSCORE key member — the member's score (a double in RESP3), or nil.</summary>
    public static void ZScore(ref CommandContext ctx)
    {
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var zset)) return;
        if (zset != null && zset.TryGetScore(ctx.Arg(2), out double score)) ctx.Reply.Double(score);
        else ctx.Reply.NullBulk();
    }

    /// <summary>ZMSCORE key member [member ...] — each member's score or nil; all nil when the key is missing.</summary>
    public static void ZMScore(ref CommandContext ctx)
    {
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var zset)) return;
        ctx.Reply.ArrayHeader(ctx.ArgCount - 2);
        for (int j = 2; j < ctx.ArgCount; j++)
        {
            if (zset != null && zset.TryGetScore(ctx.Arg(j), out double score)) ctx.Reply.Double(score);
            else ctx.Reply.NullBulk();
        }
    }

    // ---------------------------------------------------------------- ZRANK, ZREVRANK

    /// <summary>
    /// ZRANK key member [WITHSCORE] — the member's 0-based rank by ascending score, or nil; with
    /// WITHSCORE (Redis 7.2) a [rank, score] pair, or a nil array.
    /// </summary>
    public static void ZRank(ref CommandContext ctx) => RankGeneric(ref ctx, reverse: false);

    /// <summary>ZREVRANK key member [WITHSCORE] — as ZRANK, ranking from the highest score.</summary>
    public static void ZRevRank(ref CommandContext ctx) => RankGeneric(ref ctx, reverse: true);

    private static void RankGeneric(ref CommandContext ctx, bool reverse)
    {
        if (ctx.ArgCount > 4)
        {
            ctx.Error(RespErrors.WrongArity(reverse ? "zrevrank" : "zrank"));
            return;
        }
        bool withScore = false;
        if (ctx.ArgCount == 4)
        {
            if (!ctx.ArgIs(3, "WITHSCORE"))
            {
                ctx.Syntax();
                return;
            }
            withScore = true;
        }
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var zset)) return;
        double score = 0;
        long rank = zset == null ? -1 : zset.Rank(ctx.Arg(2), reverse, out score);
        if (rank < 0)
        {
            if (withScore) ctx.Reply.NullArray();
            else ctx.Reply.NullBulk();
            return;
        }
        if (withScore) ctx.Reply.ArrayHeader(2);
        ctx.Reply.Integer(rank);
        if (withScore) ctx.Reply.Double(score);
    }

    // ---------------------------------------------------------------- ranges: parsing

    /// <summary>
    /// A score range bound as zslParseRange reads it: "(" makes it exclusive, the rest goes through
    /// strtod (so "", "(" and " 1" are accepted, overflow is infinity); NaN is refused.
    /// </summary>
    private static bool TryParseScoreBound(ReadOnlySpan<byte> text, out double value, out bool exclusive)
    {
        exclusive = text.Length > 0 && text[0] == (byte)'(';
        return RedisNumbers.TryParseStrtod(exclusive ? text[1..] : text, out value) && !double.IsNaN(value);
    }

    private static bool TryParseScoreRange(ReadOnlySpan<byte> min, ReadOnlySpan<byte> max, out ScoreRange range)
    {
        range = default;
        if (!TryParseScoreBound(min, out double lo, out bool loEx) || !TryParseScoreBound(max, out double hi, out bool hiEx))
            return false;
        range = new ScoreRange(lo, loEx, hi, hiEx);
        return true;
    }

    /// <summary>A lex range item: "+" or "-" alone (as a C string), or "[" / "(" followed by the member.</summary>
    private static bool TryParseLexBound(ReadOnlySpan<byte> text, out LexRange.Bound kind, out ReadOnlySpan<byte> value)
    {
        kind = LexRange.Bound.Inclusive;
        value = default;
        if (text.IsEmpty) return false;
        switch (text[0])
        {
            case (byte)'+':
                kind = LexRange.Bound.PositiveInfinity;
                return text.Length == 1 || text[1] == 0;
            case (byte)'-':
                kind = LexRange.Bound.NegativeInfinity;
                return text.Length == 1 || text[1] == 0;
            case (byte)'(':
                kind = LexRange.Bound.Exclusive;
                value = text[1..];
                return true;
            case (byte)'[':
                value = text[1..];
                return true;
            default:
                return false;
        }
    }

    private static bool TryParseLexRange(ReadOnlySpan<byte> min, ReadOnlySpan<byte> max, out LexRange range)
    {
        range = default;
        if (!TryParseLexBound(min, out var minKind, out var minValue) || !TryParseLexBound(max, out var maxKind, out var maxValue))
            return false;
        range = new LexRange(minKind, minValue, maxKind, maxValue);
        return true;
    }

    // ---------------------------------------------------------------- ZCOUNT, ZLEXCOUNT

    /// <summary>ZCOUNT key min max — how many members have a score in the range.</summary>
    public static void ZCount(ref CommandContext ctx)
    {
        if (!TryParseScoreRange(ctx.Arg(2), ctx.Arg(3), out var range))
        {
            ctx.Error(RespErrors.MinMaxNotFloat);
            return;
        }
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var zset)) return;
        ctx.Reply.Integer(zset?.CountInRange(range) ?? 0);
    }

    /// <summary>ZLEXCOUNT key min max — how many members are in the lexicographical range.</summary>
    public static void ZLexCount(ref CommandContext ctx)
    {
        if (!TryParseLexRange(ctx.Arg(2), ctx.Arg(3), out var range))
        {
            ctx.Error(RespErrors.MinMaxNotString);
            return;
        }
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var zset)) return;
        ctx.Reply.Integer(zset?.CountInRange(range) ?? 0);
    }

    // ---------------------------------------------------------------- ZRANGE and its variants

    /// <summary>What a ZRANGE-style range is made of; Auto until BYSCORE/BYLEX is seen (then ranks).</summary>
    private enum RangeKind : byte { Auto, Rank, Score, Lex }

    /// <summary>Which way a range is read; Auto until REV is seen (then forward).</summary>
    private enum Direction : byte { Auto, Forward, Reverse }

    /// <summary>
    /// ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES] — members by
    /// rank, score or member range; with WITHSCORES each with its score (pairs in RESP3).
    /// </summary>
    public static void ZRange(ref CommandContext ctx) => RangeGeneric(ref ctx, 1, false, RangeKind.Auto, Direction.Auto);

    /// <summary>ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count] — stores the range; its size.</summary>
    public static void ZRangeStore(ref CommandContext ctx) => RangeGeneric(ref ctx, 2, true, RangeKind.Auto, Direction.Auto);

    /// <summary>ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count] — members with scores in the range, lowest first.</summary>
    public static void ZRangeByScore(ref CommandContext ctx) => RangeGeneric(ref ctx, 1, false, RangeKind.Score, Direction.Forward);

    /// <summary>ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count] — as ZRANGEBYSCORE, highest first.</summary>
    public static void ZRevRangeByScore(ref CommandContext ctx) => RangeGeneric(ref ctx, 1, false, RangeKind.Score, Direction.Reverse);

    /// <summary>ZRANGEBYLEX key min max [LIMIT offset count] — members in the lexicographical range.</summary>
    public static void ZRangeByLex(ref CommandContext ctx) => RangeGeneric(ref ctx, 1, false, RangeKind.Lex, Direction.Forward);

    /// <summary>ZREVRANGEBYLEX key max min [LIMIT offset count] — as ZRANGEBYLEX, from the end.</summary>
    public static void ZRevRangeByLex(ref CommandContext ctx) => RangeGeneric(ref ctx, 1, false, RangeKind.Lex, Direction.Reverse);

    /// <summary>ZREVRANGE key start stop [WITHSCORES] — members by rank, highest score first.</summary>
    public static void ZRevRange(ref CommandContext ctx) => RangeGeneric(ref ctx, 1, false, RangeKind.Rank, Direction.Reverse);

    /// <summary>Where range results go: the client, or a new sorted set being built for ZRANGESTORE.</summary>
    private struct RangeSink
    {
        public bool Store;
        public bool WithScores;
        public SortedSetIndex? Built;
        public int[]? Slots;
        public int Stored;
        /// <summary>
        /// Store: Redis fills the destination through a listpack until it outgrows it, and the
        /// elements that went through the listpack lost the sign of a zero score on the way.
        /// </summary>
        public bool ThroughListpack;
        public RedisSortedSet.Limits Limits;
        /// <summary>Elements arrive from the highest down (REV); the tree is built from ascending slots.</summary>
        public bool Descending;
    }

    /// <summary>
    /// Redis's zrangeGenericCommand: options first (each only where the variant allows it), then the
    /// conflicts, then the range itself (swapped for REV score/lex ranges), then the key.
    /// </summary>
    private static void RangeGeneric(ref CommandContext ctx, int srcAt, bool store, RangeKind kind, Direction direction)
    {
        int minAt = srcAt + 1, maxAt = srcAt + 2;
        bool withScores = false;
        long offset = 0, limit = -1;
        for (int j = srcAt + 3; j < ctx.ArgCount; j++)
        {
            int left = ctx.ArgCount - j - 1;
            if (!store && ctx.ArgIs(j, "WITHSCORES"))
            {
                withScores = true;
            }
            else if (ctx.ArgIs(j, "LIMIT") && left >= 2)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out offset) || !RedisNumbers.TryParseInt64(ctx.Arg(j + 2), out limit))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                j += 2;
            }
            else if (direction == Direction.Auto && ctx.ArgIs(j, "REV"))
            {
                direction = Direction.Reverse;
            }
            else if (kind == RangeKind.Auto && ctx.ArgIs(j, "BYLEX"))
            {
                kind = RangeKind.Lex;
            }
            else if (kind == RangeKind.Auto && ctx.ArgIs(j, "BYSCORE"))
            {
                kind = RangeKind.Score;
            }
            else
            {
                ctx.Syntax();
                return;
            }
        }
        if (direction == Direction.Auto) direction = Direction.Forward;
        if (kind == RangeKind.Auto) kind = RangeKind.Rank;
        if (limit != -1 && kind == RangeKind.Rank)
        {
            ctx.Error(RespErrors.LimitNeedsBy);
            return;
        }
        if (withScores && kind == RangeKind.Lex)
        {
            ctx.Error(RespErrors.WithScoresByLex);
            return;
        }
        bool reverse = direction == Direction.Reverse;
        if (reverse && kind != RangeKind.Rank) (minAt, maxAt) = (maxAt, minAt);

        long start = 0, end = 0;
        ScoreRange scoreRange = default;
        LexRange lexRange = default;
        switch (kind)
        {
            case RangeKind.Rank:
                if (!RedisNumbers.TryParseInt64(ctx.Arg(minAt), out start) || !RedisNumbers.TryParseInt64(ctx.Arg(maxAt), out end))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                break;
            case RangeKind.Score:
                if (!TryParseScoreRange(ctx.Arg(minAt), ctx.Arg(maxAt), out scoreRange))
                {
                    ctx.Error(RespErrors.MinMaxNotFloat);
                    return;
                }
                break;
            default:
                if (!TryParseLexRange(ctx.Arg(minAt), ctx.Arg(maxAt), out lexRange))
                {
                    ctx.Error(RespErrors.MinMaxNotString);
                    return;
                }
                break;
        }

        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(srcAt), out var zset)) return;
        var sink = new RangeSink { Store = store, WithScores = withScores, Descending = reverse };
        if (zset == null)
        {
            if (store) FinishStore(ref ctx, ref sink);
            else ctx.Reply.Raw(Resp.EmptyArray);
            return;
        }
        switch (kind)
        {
            case RangeKind.Rank:
                RangeByRank(ref ctx, ref sink, zset, start, end, reverse);
                break;
            case RangeKind.Score:
                RangeBy(ref ctx, ref sink, zset, scoreRange, offset, limit, reverse);
                break;
            default:
                RangeBy(ref ctx, ref sink, zset, lexRange, offset, limit, reverse);
                break;
        }
        if (store) FinishStore(ref ctx, ref sink);
    }

    /// <summary>Redis's genericZrangebyrankCommand: negative indexes count from the end; out of range is empty.</summary>
    private static void RangeByRank(ref CommandContext ctx, ref RangeSink sink, RedisSortedSet zset, long start, long end, bool reverse)
    {
        long length = zset.Count;
        if (start < 0) start = length + start;
        if (end < 0) end = length + end;
        if (start < 0) start = 0;
        if (start > end || start >= length)
        {
            Begin(ref ctx, ref sink, 0);
            return;
        }
        if (end >= length) end = length - 1;
        long count = end - start + 1;
        Begin(ref ctx, ref sink, count);
        var c = zset.AtRank(reverse ? length - 1 - start : start);
        Span<byte> scratch = stackalloc byte[RedisSortedSet.ScratchSize];
        for (long i = 0; i < count; i++)
        {
            Emit(ref ctx, ref sink, zset.MemberAt(c, scratch), zset.ScoreAt(c));
            if (reverse) zset.MovePrevious(ref c);
            else zset.MoveNext(ref c);
        }
    }

    /// <summary>
    /// Redis's genericZrangebyscoreCommand / genericZrangebylexCommand: from the first (or, reversed,
    /// the last) element in range, skip <paramref name="offset"/> elements (a negative offset skips
    /// everything), then take up to <paramref name="limit"/> (negative: no limit) while still in range.
    /// </summary>
    private static void RangeBy<T>(ref CommandContext ctx, ref RangeSink sink, RedisSortedSet zset, in T range, long offset, long limit,
        bool reverse) where T : ISortedSetRange, allows ref struct
    {
        if (offset > 0 && offset >= zset.Count)
        {
            Begin(ref ctx, ref sink, 0);
            return;
        }
        bool found = reverse ? zset.LastInRange(range, out var c, out long rank) : zset.FirstInRange(range, out c, out rank);
        if (found && offset != 0)
        {
            long at = reverse ? rank - offset : rank + offset;
            found = offset > 0 && at >= 0 && at < zset.Count;
            if (found) c = zset.AtRank(at);
        }
        if (!found)
        {
            Begin(ref ctx, ref sink, 0);
            return;
        }

        // The reply's length comes first: count with a dry run over the same elements.
        Span<byte> scratch = stackalloc byte[RedisSortedSet.ScratchSize];
        var walk = c;
        long n = 0;
        while (limit < 0 || n < limit)
        {
            double score = zset.ScoreAt(walk);
            var member = range.NeedsMember ? zset.MemberAt(walk, scratch) : default;
            if (reverse ? range.BelowMin(score, member) : range.AboveMax(score, member)) break;
            n++;
            if (!(reverse ? zset.MovePrevious(ref walk) : zset.MoveNext(ref walk))) break;
        }
        Begin(ref ctx, ref sink, n, knownLength: false);
        for (long i = 0; i < n; i++)
        {
            Emit(ref ctx, ref sink, zset.MemberAt(c, scratch), zset.ScoreAt(c));
            if (reverse) zset.MovePrevious(ref c);
            else zset.MoveNext(ref c);
        }
    }

    /// <summary>
    /// Starts the reply, or the destination. <paramref name="knownLength"/> is false for score and
    /// lex ranges, where Redis does not know the length up front and starts with a listpack.
    /// </summary>
    private static void Begin(ref CommandContext ctx, ref RangeSink sink, long count, bool knownLength = true)
    {
        if (sink.Store)
        {
            if (count == 0) return;
            sink.Built = new SortedSetIndex((int)Math.Min(count, 1 << 20));
            sink.Slots = new int[count];
            sink.Limits = Limits(ref ctx);
            sink.ThroughListpack = !knownLength || count <= sink.Limits.ListpackEntries;
            return;
        }
        ctx.Reply.ArrayHeader(sink.WithScores && !ctx.Reply.IsResp3 ? count * 2 : count);
    }

    private static void Emit(ref CommandContext ctx, ref RangeSink sink, scoped ReadOnlySpan<byte> member, double score)
    {
        if (sink.Store)
        {
            if (sink.ThroughListpack)
            {
                if (sink.Stored + 1 > sink.Limits.ListpackEntries || member.Length > sink.Limits.ListpackValue) sink.ThroughListpack = false;
                else if (score == 0) score = 0; // -0 becomes 0
            }
            sink.Slots![sink.Stored++] = sink.Built!.AddUnordered(member, score);
            return;
        }
        var w = ctx.Reply;
        if (sink.WithScores && w.IsResp3) w.ArrayHeader(2);
        w.Bulk(member);
        if (sink.WithScores) w.Double(score);
    }

    /// <summary>ZRANGESTORE's end: the destination becomes the range (deleted when it is empty); reply its size.</summary>
    private static void FinishStore(ref CommandContext ctx, ref RangeSink sink)
    {
        var dst = ctx.Arg(1);
        var db = ctx.Db(dst);
        if (sink.Stored == 0)
        {
            if (db.Delete(dst, ctx.NowMs)) ctx.Notify(Ev.Generic, "del", dst);
            else ctx.Unchanged = true; // no destination to delete: nothing happened
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        var slots = sink.Slots.AsSpan(0, sink.Stored);
        if (sink.Descending) slots.Reverse();
        sink.Built!.Build(slots);
        ctx.SetKey(db, dst, RedisSortedSet.FromIndex(sink.Built, Limits(ref ctx)));
        ctx.Notify(Ev.ZSet, "zrangestore", dst);
        ctx.Reply.Integer(sink.Stored);
    }

    // ---------------------------------------------------------------- ZREMRANGEBY*

    /// <summary>ZREMRANGEBYRANK key start stop — removes the members in the rank range; how many.</summary>
    public static void ZRemRangeByRank(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long start) || !RedisNumbers.TryParseInt64(ctx.Arg(3), out long end))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite<RedisSortedSet>(ref ctx, db, key, out int slot, out var zset)) return;
        if (zset == null)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        long length = zset.Count;
        if (start < 0) start = length + start;
        if (end < 0) end = length + end;
        if (start < 0) start = 0;
        if (start > end || start >= length)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        if (end >= length) end = length - 1;
        zset.RemoveRankRange(start, end - start + 1);
        NotifyRemoved(ref ctx, db, slot, zset, "zremrangebyrank");
        ctx.Reply.Integer(end - start + 1);
    }

    /// <summary>ZREMRANGEBYSCORE key min max — removes the members with scores in the range; how many.</summary>
    public static void ZRemRangeByScore(ref CommandContext ctx)
    {
        if (!TryParseScoreRange(ctx.Arg(2), ctx.Arg(3), out var range))
        {
            ctx.Error(RespErrors.MinMaxNotFloat);
            return;
        }
        RemoveRange(ref ctx, range, "zremrangebyscore");
    }

    /// <summary>ZREMRANGEBYLEX key min max — removes the members in the lexicographical range; how many.</summary>
    public static void ZRemRangeByLex(ref CommandContext ctx)
    {
        if (!TryParseLexRange(ctx.Arg(2), ctx.Arg(3), out var range))
        {
            ctx.Error(RespErrors.MinMaxNotString);
            return;
        }
        RemoveRange(ref ctx, range, "zremrangebylex");
    }

    private static void RemoveRange<T>(ref CommandContext ctx, in T range, string evt) where T : ISortedSetRange, allows ref struct
    {
        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite<RedisSortedSet>(ref ctx, db, key, out int slot, out var zset)) return;
        if (zset == null)
        {
            ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        long removed = zset.RemoveRange(range);
        if (removed > 0) NotifyRemoved(ref ctx, db, slot, zset, evt);
        else ctx.Unchanged = true;
        ctx.Reply.Integer(removed);
    }

    /// <summary>After elements were removed: the family event, then the key's deletion ("del") if it emptied.</summary>
    private static void NotifyRemoved(ref CommandContext ctx, Database db, int slot, RedisSortedSet zset, string evt)
    {
        var key = ctx.Arg(1);
        ctx.Notify(Ev.ZSet, evt, key);
        if (zset.Count > 0) return;
        db.RemoveAt(slot);
        ctx.Notify(Ev.Generic, "del", key);
    }

    // ---------------------------------------------------------------- ZPOPMIN, ZPOPMAX, ZMPOP

    /// <summary>
    /// ZPOPMIN key [count] — removes and returns the lowest-scored members with their scores: flat
    /// [member, score, ...], or in RESP3 with a count, [member, score] pairs.
    /// </summary>
    public static void ZPopMin(ref CommandContext ctx) => PopMinMax(ref ctx, max: false);

    /// <summary>ZPOPMAX key [count] — as ZPOPMIN, highest scores first.</summary>
    public static void ZPopMax(ref CommandContext ctx) => PopMinMax(ref ctx, max: true);

    private static void PopMinMax(ref CommandContext ctx, bool max)
    {
        if (ctx.ArgCount > 3)
        {
            ctx.Syntax();
            return;
        }
        long count = -1;
        if (ctx.ArgCount == 3 && (!RedisNumbers.TryParseInt64(ctx.Arg(2), out count) || count < 0))
        {
            ctx.Error(RespErrors.NotPositive);
            return;
        }
        Pop(ref ctx, 1, 1, max, emitKey: false, count, nested: ctx.Reply.IsResp3 && count != -1, nilWhenEmpty: false);
    }

    /// <summary>
    /// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count] — pops from the first key that holds a
    /// sorted set: [key, [[member, score], ...]], or nil when none does.
    /// </summary>
    public static void ZMPop(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(1), out long numKeys) || numKeys < 1)
        {
            ctx.Error(RespErrors.NumKeysNotPositive);
            return;
        }
        if (numKeys >= ctx.ArgCount - 2)
        {
            ctx.Syntax();
            return;
        }
        int whereAt = 2 + (int)numKeys;
        bool max;
        if (ctx.ArgIs(whereAt, "MIN")) max = false;
        else if (ctx.ArgIs(whereAt, "MAX")) max = true;
        else
        {
            ctx.Syntax();
            return;
        }
        long count = -1;
        for (int j = whereAt + 1; j < ctx.ArgCount; j++)
        {
            if (count == -1 && ctx.ArgIs(j, "COUNT") && j + 1 < ctx.ArgCount)
            {
                j++;
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j), out count) || count < 1)
                {
                    ctx.Error(RespErrors.CountNotPositive);
                    return;
                }
            }
            else
            {
                ctx.Syntax();
                return;
            }
        }
        if (count == -1) count = 1;
        Pop(ref ctx, 2, (int)numKeys, max, emitKey: true, count, nested: true, nilWhenEmpty: true);
    }

    /// <summary>
    /// Redis's genericZpopCommand: the first existing key is used (a WRONGTYPE before it stops the
    /// command); count -1 means one element and a flat reply; the key is deleted when emptied.
    /// </summary>
    internal static void Pop(ref CommandContext ctx, int firstKey, int keyCount, bool max, bool emitKey, long count, bool nested,
        bool nilWhenEmpty)
    {
        Database? db = null;
        RedisSortedSet? zset = null;
        int slot = -1, keyAt = -1;
        for (int k = 0; k < keyCount; k++)
        {
            var key = ctx.Arg(firstKey + k);
            var d = ctx.Db(key);
            if (!Lookup.TryWrite<RedisSortedSet>(ref ctx, d, key, out slot, out zset)) return;
            if (zset == null) continue;
            db = d;
            keyAt = firstKey + k;
            break;
        }
        var w = ctx.Reply;
        if (zset == null)
        {
            ctx.Unchanged = true;
            if (nilWhenEmpty) w.NullArray();
            else w.Raw(Resp.EmptyArray);
            return;
        }
        if (count == 0)
        {
            ctx.Unchanged = true;
            w.Raw(Resp.EmptyArray);
            return;
        }
        if (count == -1) count = 1;
        long length = zset.Count;
        long n = Math.Min(count, length);
        if (!nested && !emitKey) w.ArrayHeader(n * 2);
        else if (nested && !emitKey) w.ArrayHeader(n);
        else if (!nested) // emitKey: BZPOPMIN/BZPOPMAX's shape
        {
            w.ArrayHeader(n * 2 + 1);
            w.Bulk(ctx.Arg(keyAt));
        }
        else
        {
            w.ArrayHeader(2);
            w.Bulk(ctx.Arg(keyAt));
            w.ArrayHeader(n);
        }
        Span<byte> scratch = stackalloc byte[RedisSortedSet.ScratchSize];
        var c = max ? zset.Last : zset.First;
        for (long i = 0; i < n; i++)
        {
            if (nested) w.ArrayHeader(2);
            w.Bulk(zset.MemberAt(c, scratch));
            w.Double(zset.ScoreAt(c));
            if (max) zset.MovePrevious(ref c);
            else zset.MoveNext(ref c);
        }
        zset.RemoveRankRange(max ? length - n : 0, n);
        ctx.Notify(Ev.ZSet, max ? "zpopmax" : "zpopmin", ctx.Arg(keyAt));
        if (zset.Count == 0)
        {
            db!.RemoveAt(slot);
            ctx.Notify(Ev.Generic, "del", ctx.Arg(keyAt));
        }
        if (!emitKey) return; // ZPOPMIN/ZPOPMAX propagate as sent
        // Of several keys only the one popped from changed. BZPOPMIN/BZPOPMAX propagate as
        // ZPOPMIN/ZPOPMAX key, ZMPOP and BZMPOP as ZPOPMIN/ZPOPMAX key count.
        ctx.SignalledItself = true;
        if (db!.HasWatchers) db.SignalModified(ctx.Arg(keyAt));
        if (ctx.Propagation is { } log)
        {
            log.Rewrite(ctx.DbIndex).Add(max ? "ZPOPMAX"u8 : "ZPOPMIN"u8).Add(ctx.Arg(keyAt));
            if (nested) log.Add(n);
        }
    }

    // ---------------------------------------------------------------- ZRANDMEMBER

    /// <summary>
    /// ZRANDMEMBER key [count [WITHSCORES]] — a random member (nil when the key is missing), or an
    /// array: distinct members for a positive count (the whole set, highest first, when the count
    /// covers it), independent picks that may repeat for a negative one; scores as pairs in RESP3.
    /// </summary>
    public static void ZRandMember(ref CommandContext ctx)
    {
        Span<byte> scratch = stackalloc byte[RedisSortedSet.ScratchSize];
        var w = ctx.Reply;
        if (ctx.ArgCount == 2)
        {
            if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var single)) return;
            if (single == null) w.NullBulk();
            else w.Bulk(single.MemberAt(single.Random(Random.Shared), scratch));
            return;
        }

        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long l))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (l == long.MinValue)
        {
            ctx.Error(RespErrors.CountOutOfRange);
            return;
        }
        if (ctx.ArgCount > 4 || (ctx.ArgCount == 4 && !ctx.ArgIs(3, "WITHSCORES")))
        {
            ctx.Syntax();
            return;
        }
        bool withScores = ctx.ArgCount == 4;
        if (withScores && (l < -long.MaxValue / 2 || l > long.MaxValue / 2))
        {
            ctx.Error(RespErrors.ValueOutOfRange);
            return;
        }
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var zset)) return;
        if (zset == null || l == 0)
        {
            w.Raw(Resp.EmptyArray);
            return;
        }

        bool unique = l > 0;
        long count = Math.Abs(l);
        long size = zset.Count;
        bool flat = !withScores || !w.IsResp3;
        var random = Random.Shared;
        if (!unique || count == 1)
        {
            long cap = Math.Min(ctx.Server.Config.ProtoMaxBulkLen, 1L << 30);
            if (count > cap / (zset.MaxMemberLength() + (withScores ? 48L : 16L)))
            {
                ctx.Error(RespErrors.ReplyTooLarge);
                return;
            }
            w.ArrayHeader(withScores && flat ? count * 2 : count);
            if (!zset.IsListpack)
            {
                for (long i = 0; i < count; i++) EmitPick(w, zset, zset.Random(random), withScores, scratch);
                return;
            }
            // A listpack walks to a rank: index the positions once instead.
            var all = ArrayPool<RedisSortedSet.Cursor>.Shared.Rent((int)size);
            var c = zset.First;
            for (int i = 0; i < size; i++, zset.MoveNext(ref c)) all[i] = c;
            for (long i = 0; i < count; i++) EmitPick(w, zset, all[random.Next((int)size)], withScores, scratch);
            ArrayPool<RedisSortedSet.Cursor>.Shared.Return(all);
            return;
        }

        if (count >= size)
        {
            // Redis answers with the whole set from the highest score down.
            w.ArrayHeader(withScores && flat ? size * 2 : size);
            for (var c = zset.Last; c.IsValid; zset.MovePrevious(ref c)) EmitPick(w, zset, c, withScores, scratch);
            return;
        }

        w.ArrayHeader(withScores && flat ? count * 2 : count);
        if (count * RandomSubStrategyMul > size)
        {
            // Close to the size: a partial shuffle of every rank.
            var ranks = ArrayPool<long>.Shared.Rent((int)size);
            for (int i = 0; i < size; i++) ranks[i] = i;
            for (int i = 0; i < count; i++)
            {
                int j = i + random.Next((int)size - i);
                (ranks[i], ranks[j]) = (ranks[j], ranks[i]);
                EmitPick(w, zset, zset.AtRank(ranks[i]), withScores, scratch);
            }
            ArrayPool<long>.Shared.Return(ranks);
            return;
        }
        var picked = new HashSet<long>((int)count);
        while (picked.Count < count)
        {
            long rank = random.NextInt64(size);
            if (picked.Add(rank)) EmitPick(w, zset, zset.AtRank(rank), withScores, scratch);
        }
    }

    private static void EmitPick(RespWriter w, RedisSortedSet zset, RedisSortedSet.Cursor c, bool withScores, Span<byte> scratch)
    {
        if (withScores && w.IsResp3) w.ArrayHeader(2);
        w.Bulk(zset.MemberAt(c, scratch));
        if (withScores) w.Double(zset.ScoreAt(c));
    }

    // ---------------------------------------------------------------- ZUNION, ZINTER, ZDIFF and their STOREs

    /// <summary>The operation of ZUNION/ZINTER/ZDIFF and their STORE and CARD forms.</summary>
    private enum SetOp : byte { Union, Inter, Diff }

    /// <summary>AGGREGATE: how the weighted scores of a member found in several inputs combine.</summary>
    private enum Aggregate : byte { Sum, Min, Max }

    /// <summary>One input of a set operation: a sorted set, a plain set (every score 1), or nothing.</summary>
    private readonly struct Source(object? value, double weight)
    {
        public readonly object? Value = value;
        public readonly double Weight = weight;

        public long Count => Value switch
        {
            RedisSortedSet z => z.Count,
            RedisSet s => s.Count,
            _ => 0,
        };

        public bool TryGetScore(ReadOnlySpan<byte> member, out double score)
        {
            switch (Value)
            {
                case RedisSortedSet z:
                    return z.TryGetScore(member, out score);
                case RedisSet s:
                    score = 1.0;
                    return s.Contains(member);
                default:
                    score = 0;
                    return false;
            }
        }
    }

    /// <summary>
    /// ZUNION numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES] — the
    /// union of the inputs (sorted sets or sets), scores weighted and aggregated.
    /// </summary>
    public static void ZUnion(ref CommandContext ctx) => SetOpGeneric(ref ctx, 0, 1, SetOp.Union, false);

    /// <summary>ZINTER numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...] [WITHSCORES] — the members in every input.</summary>
    public static void ZInter(ref CommandContext ctx) => SetOpGeneric(ref ctx, 0, 1, SetOp.Inter, false);

    /// <summary>ZINTERCARD numkeys key [key ...] [LIMIT limit] — the size of the intersection, counting up to the limit (0: none).</summary>
    public static void ZInterCard(ref CommandContext ctx) => SetOpGeneric(ref ctx, 0, 1, SetOp.Inter, true);

    /// <summary>ZDIFF numkeys key [key ...] [WITHSCORES] — the members of the first input that are in no other.</summary>
    public static void ZDiff(ref CommandContext ctx) => SetOpGeneric(ref ctx, 0, 1, SetOp.Diff, false);

    /// <summary>ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...] — stores the union; its size.</summary>
    public static void ZUnionStore(ref CommandContext ctx) => SetOpGeneric(ref ctx, 1, 2, SetOp.Union, false);

    /// <summary>ZINTERSTORE destination numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...] — stores the intersection; its size.</summary>
    public static void ZInterStore(ref CommandContext ctx) => SetOpGeneric(ref ctx, 1, 2, SetOp.Inter, false);

    /// <summary>ZDIFFSTORE destination numkeys key [key ...] — stores the difference; its size.</summary>
    public static void ZDiffStore(ref CommandContext ctx) => SetOpGeneric(ref ctx, 1, 2, SetOp.Diff, false);

    /// <remarks>
    /// Redis's zunionInterDiffGenericCommand: numkeys, then every key looked up and type-checked
    /// (sorted sets and sets only), then the options. Union and intersection visit the inputs from
    /// the smallest (a stable sort by size), which fixes the order floating-point sums are taken in;
    /// a NaN from a weight times an infinite score counts as 0, and so does inf + -inf in a sum.
    /// </remarks>
    private static void SetOpGeneric(ref CommandContext ctx, int dstAt, int numKeysAt, SetOp op, bool cardinalityOnly)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(numKeysAt), out long numKeys))
        {
            ctx.Error(RespErrors.NotInteger);
            return;
        }
        if (numKeys < 1)
        {
            ctx.Error(RespErrors.NoInputKeys(ctx.Arg(0)));
            return;
        }
        if (numKeys > ctx.ArgCount - (numKeysAt + 1))
        {
            ctx.Syntax();
            return;
        }

        int n = (int)numKeys;
        var values = new object?[n];
        for (int i = 0; i < n; i++)
        {
            var key = ctx.Arg(numKeysAt + 1 + i);
            object? value = ctx.Db(key).GetForRead(key, ctx.NowMs);
            if (value != null && value is not RedisSortedSet && value is not RedisSet)
            {
                ctx.WrongType();
                return;
            }
            values[i] = value;
        }

        var weights = new double[n];
        Array.Fill(weights, 1.0);
        var aggregate = Aggregate.Sum;
        bool withScores = false;
        long limit = 0;
        int j = numKeysAt + 1 + n;
        while (j < ctx.ArgCount)
        {
            int remaining = ctx.ArgCount - j;
            if (op != SetOp.Diff && !cardinalityOnly && remaining >= n + 1 && ctx.ArgIs(j, "WEIGHTS"))
            {
                j++;
                for (int i = 0; i < n; i++, j++)
                {
                    if (!RedisNumbers.TryParseDouble(ctx.Arg(j), out weights[i]))
                    {
                        ctx.Error(RespErrors.WeightNotFloat);
                        return;
                    }
                }
            }
            else if (op != SetOp.Diff && !cardinalityOnly && remaining >= 2 && ctx.ArgIs(j, "AGGREGATE"))
            {
                j++;
                if (ctx.ArgIs(j, "SUM")) aggregate = Aggregate.Sum;
                else if (ctx.ArgIs(j, "MIN")) aggregate = Aggregate.Min;
                else if (ctx.ArgIs(j, "MAX")) aggregate = Aggregate.Max;
                else
                {
                    ctx.Syntax();
                    return;
                }
                j++;
            }
            else if (dstAt == 0 && !cardinalityOnly && ctx.ArgIs(j, "WITHSCORES"))
            {
                j++;
                withScores = true;
            }
            else if (cardinalityOnly && remaining >= 2 && ctx.ArgIs(j, "LIMIT"))
            {
                j++;
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j), out limit) || limit < 0)
                {
                    ctx.Error(RespErrors.LimitNegative);
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

        var sources = new Source[n];
        for (int i = 0; i < n; i++) sources[i] = new Source(values[i], weights[i]);
        if (op != SetOp.Diff)
        {
            // Stable: equal sizes keep their argument order (glibc's qsort, which Redis uses, is a merge sort).
            var order = new int[n];
            for (int i = 0; i < n; i++) order[i] = i;
            var sizes = new long[n];
            for (int i = 0; i < n; i++) sizes[i] = sources[i].Count;
            Array.Sort(order, (a, b) => sizes[a] != sizes[b] ? sizes[a].CompareTo(sizes[b]) : a.CompareTo(b));
            var sorted = new Source[n];
            for (int i = 0; i < n; i++) sorted[i] = sources[order[i]];
            sources = sorted;
        }

        var result = new SortedSetIndex();
        long cardinality = 0;
        switch (op)
        {
            case SetOp.Union:
                Union(sources, aggregate, result);
                break;
            case SetOp.Inter:
                cardinality = Inter(sources, aggregate, cardinalityOnly, limit, result);
                break;
            default:
                Diff(sources, result);
                break;
        }

        if (cardinalityOnly)
        {
            ctx.Reply.Integer(cardinality);
            return;
        }
        if (dstAt > 0)
        {
            var dst = ctx.Arg(dstAt);
            var db = ctx.Db(dst);
            if (result.Count == 0)
            {
                if (db.Delete(dst, ctx.NowMs)) ctx.Notify(Ev.Generic, "del", dst);
                else ctx.Unchanged = true; // no destination to delete: nothing happened
                ctx.Reply.Raw(Resp.Zero);
                return;
            }
            result.BuildFromTable();
            ctx.SetKey(db, dst, RedisSortedSet.FromIndex(result, Limits(ref ctx)));
            ctx.Notify(Ev.ZSet, op switch { SetOp.Union => "zunionstore", SetOp.Inter => "zinterstore", _ => "zdiffstore" }, dst);
            ctx.Reply.Integer(result.Count);
            return;
        }

        result.BuildFromTable();
        var w = ctx.Reply;
        w.ArrayHeader(withScores && !w.IsResp3 ? result.Count * 2L : result.Count);
        Span<byte> scratch = stackalloc byte[RedisSortedSet.ScratchSize];
        for (var leaf = result.Head; leaf != null; leaf = leaf.Next)
        {
            for (int i = 0; i < leaf.Count; i++)
            {
                int slot = leaf.Slots[i];
                if (withScores && w.IsResp3) w.ArrayHeader(2);
                w.Bulk(result.MemberOf(slot, scratch));
                if (withScores) w.Double(result.ScoreOf(slot));
            }
        }
    }

    /// <summary>Redis's zunionInterAggregate.</summary>
    private static double Combine(double target, double value, Aggregate aggregate)
    {
        switch (aggregate)
        {
            case Aggregate.Sum:
                double sum = target + value;
                return double.IsNaN(sum) ? 0.0 : sum;
            case Aggregate.Min:
                return value < target ? value : target;
            default:
                return value > target ? value : target;
        }
    }

    /// <summary>Calls <paramref name="visit"/> for every member of a source, in its own order, with its unweighted score.</summary>
    private static void ForEach(object? value, Action<ReadOnlySpan<byte>, double> visit)
    {
        Span<byte> scratch = stackalloc byte[Math.Max(RedisSortedSet.ScratchSize, RedisSet.ScratchSize)];
        switch (value)
        {
            case RedisSortedSet z:
                for (var c = z.First; c.IsValid; z.MoveNext(ref c)) visit(z.MemberAt(c, scratch), z.ScoreAt(c));
                break;
            case RedisSet s:
                int position = 0;
                while (s.Next(ref position, scratch, out var member)) visit(member, 1.0);
                break;
        }
    }

    private static void Union(Source[] sources, Aggregate aggregate, SortedSetIndex result)
    {
        foreach (var source in sources)
        {
            if (source.Count == 0) continue;
            double weight = source.Weight;
            ForEach(source.Value, (member, score) =>
            {
                double weighted = weight * score;
                if (double.IsNaN(weighted)) weighted = 0;
                int slot = result.Find(member);
                if (slot < 0) result.AddUnordered(member, weighted);
                else result.SetScoreUnordered(slot, Combine(result.ScoreOf(slot), weighted, aggregate));
            });
        }
    }

    private static long Inter(Source[] sources, Aggregate aggregate, bool cardinalityOnly, long limit, SortedSetIndex result)
    {
        // Inputs are ordered by size: an empty first one means an empty intersection.
        if (sources[0].Count == 0) return 0;
        long cardinality = 0;
        bool done = false;
        ForEach(sources[0].Value, (member, score) =>
        {
            if (done) return;
            double total = sources[0].Weight * score;
            if (double.IsNaN(total)) total = 0;
            for (int k = 1; k < sources.Length; k++)
            {
                if (!sources[k].TryGetScore(member, out double value)) return;
                total = Combine(total, value * sources[k].Weight, aggregate);
            }
            if (cardinalityOnly)
            {
                cardinality++;
                if (limit > 0 && cardinality >= limit) done = true;
                return;
            }
            result.AddUnordered(member, total);
        });
        return cardinality;
    }

    private static void Diff(Source[] sources, SortedSetIndex result)
    {
        if (sources[0].Count == 0) return;
        ForEach(sources[0].Value, (member, score) =>
        {
            for (int k = 1; k < sources.Length; k++)
                if (sources[k].TryGetScore(member, out _)) return;
            result.AddUnordered(member, score);
        });
    }

    // ---------------------------------------------------------------- ZSCAN

    /// <summary>
    /// ZSCAN key cursor [MATCH pattern] [COUNT count] — the next cursor and a batch of member, score pairs.
    /// </summary>
    /// <remarks>
    /// As Redis: a listpack is returned whole in one call with cursor 0, whatever the cursor and
    /// COUNT, scores written as the listpack stores them (integers as integers); a missing key answers
    /// an empty scan before the options are parsed. A skiplist's cursor is a table slot: slots never
    /// move, so a member present for the whole scan is returned exactly once. COUNT bounds the work:
    /// stop after COUNT members were seen or 10*COUNT slots visited.
    /// </remarks>
    public static void ZScan(ref CommandContext ctx)
    {
        if (!ScanArguments.TryReadCursor(ref ctx, 2, out ulong cursor)) return;
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var zset)) return;
        if (zset == null)
        {
            ctx.Reply.Raw(Resp.EmptyScan);
            return;
        }
        if (!ScanArguments.TryParse(ref ctx, out long count, out byte[]? patternBytes)) return;
        bool usePattern = patternBytes != null;
        ReadOnlySpan<byte> pattern = patternBytes;
        var w = ctx.Reply;
        Span<byte> scratch = stackalloc byte[RedisSortedSet.ScratchSize];
        Span<byte> text = stackalloc byte[RedisNumbers.MaxDoubleLength];

        if (zset.IsListpack)
        {
            long matched = 0;
            for (var c = zset.First; c.IsValid; zset.MoveNext(ref c))
                if (!usePattern || GlobMatcher.IsMatch(pattern, zset.MemberAt(c, scratch))) matched++;
            w.ArrayHeader(2);
            w.Bulk("0"u8);
            w.ArrayHeader(matched * 2);
            for (var c = zset.First; c.IsValid; zset.MoveNext(ref c))
            {
                var member = zset.MemberAt(c, scratch);
                if (usePattern && !GlobMatcher.IsMatch(pattern, member)) continue;
                w.Bulk(member);
                w.Bulk(text[..FormatListpackScore(zset.ScoreAt(c), text)]);
            }
            return;
        }

        int first = cursor > int.MaxValue ? int.MaxValue : (int)cursor;
        long maxVisits = count > long.MaxValue / 10 ? long.MaxValue : count * 10;
        long seen = 0, visits = 0, found = 0;
        int slot = first;
        while (slot < zset.SlotCount && seen < count && visits < maxVisits)
        {
            visits++;
            int s = slot++;
            if (!zset.IsUsedSlot(s)) continue;
            seen++;
            if (!usePattern || GlobMatcher.IsMatch(pattern, zset.MemberAtSlot(s, scratch))) found++;
        }
        int next = slot >= zset.SlotCount ? 0 : slot;
        w.ArrayHeader(2);
        w.BulkInteger(next);
        w.ArrayHeader(found * 2);
        for (int s = first; s < slot; s++)
        {
            if (!zset.IsUsedSlot(s)) continue;
            var member = zset.MemberAtSlot(s, scratch);
            if (usePattern && !GlobMatcher.IsMatch(pattern, member)) continue;
            w.Bulk(member);
            w.Bulk(text[..RedisNumbers.FormatDouble(zset.ScoreAtSlot(s), text)]);
        }
    }

    /// <summary>
    /// A score as a Redis listpack holds it (what ZSCAN of a listpack shows): integers within ±2^62
    /// as integers (Redis's double2ll), anything else as %.17g.
    /// </summary>
    private static int FormatListpackScore(double score, Span<byte> dest)
    {
        const double Bound = long.MaxValue / 2;
        if (score >= -Bound && score <= Bound && score == Math.Floor(score)) return RedisNumbers.FormatInt64((long)score, dest);
        return RedisNumbers.FormatDouble(score, dest);
    }
}
