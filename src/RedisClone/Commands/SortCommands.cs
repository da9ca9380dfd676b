using RedisClone.Common;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// SORT and SORT_RO: the elements of a list, set or sorted set, ordered numerically or
/// byte-wise, optionally by values read from other keys (BY), with values read from other keys in
/// their place (GET), a window (LIMIT), and for SORT the result stored as a list (STORE).
/// </summary>
/// <remarks>
/// <para><b>Routing.</b> BY and GET patterns name keys made from each element ("weight_*",
/// "obj_*->field"), which may live on any shard. Standalone Redis allows them (Cluster refuses), so
/// when a pattern can name a key the key finder claims more keys than its span, which makes the
/// dispatcher hold every shard's gate for the command (see <see cref="FindKeys"/>).</para>
/// <para><b>Order.</b> Redis sorts with the C library's qsort, a stable merge sort in glibc, and
/// breaks numeric ties by comparing the elements' bytes. Here ties left equal by Redis's comparison
/// keep the elements' input order (an index tiebreak), which is what a stable sort does. Without
/// STORE, ALPHA compares with strcoll; in the C and C.UTF-8 locales Redis runs in that is strcmp,
/// which stops at a NUL byte, so that is what is done here too. With STORE (and for numeric ties)
/// Redis compares the whole strings byte-wise. With BY and a LIMIT narrower than the whole, Redis
/// uses a partial quicksort instead, which may leave elements tied under ALPHA (equal or missing
/// BY values) in an order of its own; here they stay in input order.</para>
/// <para><b>Scores.</b> Numeric sorting reads each value as C's strtod does (leading white space,
/// hex floats, "inf"; the text stops at a NUL byte) and refuses the whole command when a value is
/// not entirely a number, is NaN, or is out of range (strtod's ERANGE, which glibc also raises for
/// an inexact result below the smallest normal double). An empty value counts as 0.</para>
/// </remarks>
internal static class SortCommands
{
    /// <summary>What a parsed SORT command asks for; argument indexes refer to the command.</summary>
    private struct Options
    {
        public bool Desc;
        public bool Alpha;
        public long LimitStart;
        public long LimitCount;
        /// <summary>The BY pattern's index, or 0.</summary>
        public int By;
        /// <summary>The STORE destination's index (the last STORE wins), or 0.</summary>
        public int Store;
        /// <summary>GET patterns' indexes, in order (collected for the handler only).</summary>
        public List<int>? Gets;
        /// <summary>Some GET pattern has a '*': it reads keys.</summary>
        public bool GetReadsKeys;
        public int GetCount => Gets?.Count ?? 0;
    }

    /// <summary>
    /// SORT key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC] [ALPHA]
    /// [STORE destination] — the sorted elements (or GET values), or with STORE the length of the
    /// list stored at destination (an empty result deletes destination).
    /// </summary>
    public static void Sort(ref CommandContext ctx) => Run(ref ctx, readOnly: false);

    /// <summary>
    /// SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC] [ALPHA]
    /// — SORT without STORE, which is a syntax error here.
    /// </summary>
    public static void SortRo(ref CommandContext ctx) => Run(ref ctx, readOnly: true);

    /// <summary>SORT's keys: the sorted key and the last STORE destination, or every shard when a pattern names keys.</summary>
    public static int SortKeys(ref CommandContext ctx, scoped Span<int> keys) => FindKeys(ref ctx, keys, readOnly: false);

    /// <summary>SORT_RO's keys: the sorted key, or every shard when a pattern names keys.</summary>
    public static int SortRoKeys(ref CommandContext ctx, scoped Span<int> keys) => FindKeys(ref ctx, keys, readOnly: true);

    /// <summary>
    /// The sorted key and, for SORT, STORE's destination as Redis's sortGetKeys finds it (a lenient
    /// scan that COMMAND GETKEYS reports), plus the destination the command will really write when
    /// its strict parse picks another one. A BY or GET pattern with '*' reads keys derived from the
    /// elements, anywhere: then the span is filled with the command's own keys, repeated, and the
    /// count returned is one more than the span, which the dispatcher reads as "take every gate"
    /// (readers of the span still find only valid keys there).
    /// </summary>
    private static int FindKeys(ref CommandContext ctx, scoped Span<int> keys, bool readOnly)
    {
        if (keys.Length < 3)
        {
            keys.Fill(1); // too small to list STORE: claim every gate
            return keys.Length + 1;
        }
        int n = 0;
        keys[n++] = 1;
        int lenient = readOnly ? 0 : FindStoreLeniently(ref ctx);
        if (lenient != 0) keys[n++] = lenient;
        bool patterns = false;
        // An unparsable command fails before touching anything: the keys above are enough.
        if (TryParse(ref ctx, readOnly, reply: false, out var options))
        {
            if (options.Store != 0 && options.Store != lenient) keys[n++] = options.Store;
            patterns = options.GetReadsKeys || (options.By != 0 && HasStar(ctx.Arg(options.By)));
        }
        if (!patterns) return n;
        for (int k = n; k < keys.Length; k++) keys[k] = keys[k % n];
        return keys.Length + 1;
    }

    /// <summary>
    /// Redis's sortGetKeys: LIMIT skips two words, GET and BY one, any other word none, and the
    /// last STORE followed by a word names the destination. It can disagree with the real parse
    /// ("STORE get STORE d" reports "get"); COMMAND GETKEYS shows what it says.
    /// </summary>
    private static int FindStoreLeniently(ref CommandContext ctx)
    {
        int store = 0;
        for (int i = 2; i < ctx.ArgCount; i++)
        {
            if (ctx.ArgIs(i, "LIMIT")) i += 2;
            else if (ctx.ArgIs(i, "STORE") && i + 1 < ctx.ArgCount) store = i + 1;
            else if (ctx.ArgIs(i, "GET") || ctx.ArgIs(i, "BY")) i++;
        }
        return store;
    }

    /// <summary>Key-spec flags for COMMAND GETKEYSANDFLAGS: the sorted key is read, any other is STORE's destination.</summary>
    internal static KeySpecFlags KeyFlags(byte[][] args, int keyPosition, KeySpecFlags specFlags)
        => keyPosition == 1 ? KeySpecFlags.RO | KeySpecFlags.Access : KeySpecFlags.OW | KeySpecFlags.Update;

    // ---------------------------------------------------------------- parsing

    /// <summary>
    /// Redis's option loop: each word is matched in turn, an option missing its arguments is a
    /// syntax error, and a bad LIMIT number is reported as soon as it is met. With
    /// <paramref name="reply"/> false nothing is written and nothing allocated (the key finder's use).
    /// </summary>
    private static bool TryParse(ref CommandContext ctx, bool readOnly, bool reply, out Options o)
    {
        o = new Options { LimitCount = -1 };
        int fullKeyAccess = 0; // unknown until a pattern asks
        for (int j = 2; j < ctx.ArgCount; j++)
        {
            int left = ctx.ArgCount - j - 1;
            if (ctx.ArgIs(j, "ASC"))
            {
                o.Desc = false;
            }
            else if (ctx.ArgIs(j, "DESC"))
            {
                o.Desc = true;
            }
            else if (ctx.ArgIs(j, "ALPHA"))
            {
                o.Alpha = true;
            }
            else if (ctx.ArgIs(j, "LIMIT") && left >= 2)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(j + 1), out o.LimitStart)
                    || !RedisNumbers.TryParseInt64(ctx.Arg(j + 2), out o.LimitCount))
                {
                    if (reply) ctx.Error(Protocol.RespErrors.NotInteger);
                    return false;
                }
                j += 2;
            }
            else if (!readOnly && ctx.ArgIs(j, "STORE") && left >= 1)
            {
                o.Store = ++j;
            }
            else if (ctx.ArgIs(j, "BY") && left >= 1)
            {
                o.By = ++j;
                // A BY pattern with '*' reads keys no ACL key check saw: Redis allows it only to a
                // user who may read every key (a constant BY reads none).
                if (reply && HasStar(ctx.Arg(j)) && !FullKeyAccess(ref ctx, readOnly, ref fullKeyAccess))
                {
                    ctx.Error(Protocol.RespErrors.SortByDenied);
                    return false;
                }
            }
            else if (ctx.ArgIs(j, "GET") && left >= 1)
            {
                // Any GET, "#" included, as Redis checks it.
                if (reply && !FullKeyAccess(ref ctx, readOnly, ref fullKeyAccess))
                {
                    ctx.Error(Protocol.RespErrors.SortGetDenied);
                    return false;
                }
                o.GetReadsKeys |= HasStar(ctx.Arg(++j));
                if (reply) (o.Gets ??= new List<int>()).Add(j);
            }
            else
            {
                if (reply) ctx.Syntax();
                return false;
            }
        }
        return true;
    }

    /// <summary>
    /// Redis's user_has_full_key_access: whether the client's user reads every key through a
    /// selector that allows this SORT (<see cref="Acl.AclChecks.HasFullKeyAccess"/>). Asked at most
    /// once per command (<paramref name="known"/>: 0 unknown, 1 yes, 2 no) and only when a pattern
    /// needs it; a user with every permission costs one test. The same in MULTI and scripts, where
    /// the client is the script's, running as its caller's user.
    /// </summary>
    private static bool FullKeyAccess(ref CommandContext ctx, bool readOnly, ref int known)
    {
        if (known == 0)
        {
            var user = ctx.Client.User;
            bool full = user == null || user.State.Unrestricted;
            if (!full)
            {
                var def = ctx.Server.Commands.Find(readOnly ? "sort_ro"u8 : "sort"u8)!;
                var (buffer, index) = ctx.Command;
                full = Acl.AclChecks.HasFullKeyAccess(ctx.Server, ctx.Client, def, buffer, index, ctx.NowMs, Acl.KeyAccess.Read);
            }
            known = full ? 1 : 2;
        }
        return known == 1;
    }

    /// <summary>C's strchr(pattern, '*'): the text ends at the first NUL byte.</summary>
    private static bool HasStar(ReadOnlySpan<byte> pattern) => CString(pattern).IndexOf((byte)'*') >= 0;

    /// <summary>The part of <paramref name="text"/> a C string function sees: up to the first NUL.</summary>
    private static ReadOnlySpan<byte> CString(ReadOnlySpan<byte> text)
    {
        int nul = text.IndexOf((byte)0);
        return nul < 0 ? text : text.Slice(0, nul);
    }

    // ---------------------------------------------------------------- the command

    private static void Run(ref CommandContext ctx, bool readOnly)
    {
        if (!TryParse(ref ctx, readOnly, reply: true, out var o)) return;

        bool dontSort = false;
        int sortBy = o.By;
        if (sortBy != 0 && !HasStar(ctx.Arg(sortBy))) dontSort = true;

        var key = ctx.Arg(1);
        var value = ctx.Db(key).GetForRead(key, ctx.NowMs);
        if (value != null && value is not RedisList && value is not RedisSet && !IsSortedSet(value))
        {
            ctx.WrongType();
            return;
        }

        // A set has no order of its own: sorted into a list or inside a script (EVAL or FCALL), an
        // unsorted set would differ from one server to the next, so Redis sorts it by its bytes.
        // Redis 7.0 and 7.2 still do so in scripts, though scripts now replicate their effects.
        if (dontSort && value is RedisSet && (o.Store != 0 || ctx.Client.IsScriptClient))
        {
            dontSort = false;
            o.Alpha = true;
            sortBy = 0;
        }

        var run = new SortRun(o.Desc, o.Alpha, byPattern: sortBy != 0, store: o.Store != 0);
        PrepareSortedSet(value);
        long length = Length(value);

        // Redis's LIMIT arithmetic, clamped to the size so that no sum overflows.
        long start = Math.Min(Math.Max(o.LimitStart, 0), length);
        long count = Math.Min(Math.Max(o.LimitCount, -1), length);
        long end = count < 0 ? length - 1 : start + count - 1;
        if (start >= length)
        {
            start = length - 1;
            end = length - 2;
        }
        if (end >= length) end = length - 1;

        bool ordered = value is RedisList || IsSortedSet(value);
        if (dontSort && ordered)
        {
            // The container's own order (reversed for DESC), only the window asked for.
            if (end >= start) LoadRange(value!, run, start, end - start + 1, o.Desc);
            end -= start;
            start = 0;
        }
        else if (value != null)
        {
            LoadAll(value, run);
        }

        if (!dontSort)
        {
            if (!LoadKeys(ref ctx, run, sortBy))
            {
                ctx.Error(Protocol.RespErrors.SortNotDoubles);
                return;
            }
            run.Sort();
        }

        int getCount = o.GetCount;
        long outputLength = (getCount > 0 ? getCount : 1) * (end - start + 1);
        if (o.Store == 0)
        {
            // SORT is flagged as a write for its STORE form; without it nothing changed (the
            // sorted set's conversion is invisible to WATCH in Redis too).
            ctx.Unchanged = true;
            Reply(ref ctx, run, o, (int)start, (int)end, outputLength);
            return;
        }
        Store(ref ctx, run, o, (int)start, (int)end, outputLength);
    }

    /// <summary>Fills in what each element sorts by; false when a numeric value is not a number.</summary>
    private static bool LoadKeys(ref CommandContext ctx, SortRun run, int sortBy)
    {
        bool ok = true;
        var lookup = new PatternLookup();
        for (int j = 0; j < run.Count; j++)
        {
            ReadOnlySpan<byte> by;
            if (sortBy != 0)
            {
                // A missing key leaves the element at score 0 (numeric) or first (ALPHA).
                if (!lookup.TryFind(ref ctx, ctx.Arg(sortBy), run.Element(j), out by)) continue;
            }
            else
            {
                by = run.Element(j);
            }

            if (run.Alpha)
            {
                if (sortBy != 0) run.SetCompareValue(j, by);
            }
            else if (SortScore.TryParse(by, out double score))
            {
                run.SetScore(j, score);
            }
            else
            {
                // Redis keeps going (every lookup still happens) and fails at the end.
                ok = false;
            }
        }
        return ok;
    }

    private static void Reply(ref CommandContext ctx, SortRun run, in Options o, int start, int end, long outputLength)
    {
        var w = ctx.Reply;
        w.ArrayHeader(outputLength);
        var lookup = new PatternLookup();
        for (int j = start; j <= end; j++)
        {
            var element = run.Element(j);
            if (o.GetCount == 0) w.Bulk(element);
            for (int g = 0; g < o.GetCount; g++)
            {
                if (lookup.TryFind(ref ctx, ctx.Arg(o.Gets![g]), element, out var found)) w.Bulk(found);
                else w.NullBulk();
            }
        }
    }

    /// <summary>STORE: the result as a list (missing GET values as empty strings) replacing destination and its TTL.</summary>
    /// <remarks>
    /// Redis 7.2 pushes the result onto a quicklist and then makes it a listpack when it fits one
    /// node (7.0 always leaves a quicklist; the list family here follows 7.2's encodings). The same test is made push by push here: before each element the list grows as a
    /// quicklist node would take it (its length plus Redis's 8-byte estimate of entry overhead), so
    /// it stays a listpack exactly when every element would have fitted the first node.
    /// </remarks>
    private static void Store(ref CommandContext ctx, SortRun run, in Options o, int start, int end, long outputLength)
    {
        var list = new RedisList();
        long fill = ctx.Server.Config.ListMaxListpackSize;
        var lookup = new PatternLookup();
        for (int j = start; j <= end; j++)
        {
            var element = run.Element(j);
            if (o.GetCount == 0)
            {
                Push(list, fill, element);
                continue;
            }
            for (int g = 0; g < o.GetCount; g++)
                Push(list, fill, lookup.TryFind(ref ctx, ctx.Arg(o.Gets![g]), element, out var found) ? found : default);
        }

        var dest = ctx.Arg(o.Store);
        var db = ctx.Db(dest);
        if (outputLength > 0)
        {
            ctx.SetKey(db, dest, list);
            ctx.Notify(Ev.List, "sortstore", dest);
        }
        else if (db.Delete(dest, ctx.NowMs))
        {
            ctx.Notify(Ev.Generic, "del", dest);
        }
        else
        {
            ctx.Unchanged = true; // no key to delete: nothing happened
        }
        ctx.Reply.Integer(outputLength);

        static void Push(RedisList list, long fill, ReadOnlySpan<byte> value)
        {
            list.PrepareToGrow(fill, value.Length + 8L, 1);
            list.PushTail(value);
        }
    }

    /// <summary>
    /// Redis's lookupKeyByPattern: "#" is the element itself; otherwise the first '*' is replaced by
    /// the element, and "->field" after it (with a non-empty field) reads a hash field instead of a
    /// string. A pattern without '*' names nothing. Keys are looked up as reads (hits, misses, lazy
    /// expiry). C string rules apply to the searches: they stop at a NUL byte of the pattern.
    /// </summary>
    private struct PatternLookup
    {
        private byte[]? _key;
        private byte[]? _scratch;

        public bool TryFind(scoped ref CommandContext ctx, ReadOnlySpan<byte> pattern, ReadOnlySpan<byte> element,
            out ReadOnlySpan<byte> value)
        {
            value = default;
            if (pattern.Length >= 1 && pattern[0] == (byte)'#' && (pattern.Length == 1 || pattern[1] == 0))
            {
                value = element;
                return true;
            }
            var text = CString(pattern);
            int star = text.IndexOf((byte)'*');
            if (star < 0) return false;

            int fieldStart = -1;
            int arrow = text.Slice(star + 1).IndexOf("->"u8);
            if (arrow >= 0 && star + 1 + arrow + 2 < text.Length) fieldStart = star + 1 + arrow + 2;

            int postfix = (fieldStart < 0 ? pattern.Length : fieldStart - 2) - (star + 1);
            int keyLength = star + element.Length + postfix;
            if (_key == null || _key.Length < keyLength) _key = new byte[Math.Max(keyLength, 64)];
            pattern.Slice(0, star).CopyTo(_key);
            element.CopyTo(_key.AsSpan(star));
            pattern.Slice(star + 1, postfix).CopyTo(_key.AsSpan(star + element.Length));
            var key = _key.AsSpan(0, keyLength);

            var db = ctx.Db(key);
            int slot = db.FindForRead(key, ctx.NowMs);
            if (slot < 0) return false;
            ref var entry = ref db.Table.At(slot);
            object found = entry.Value;
            if (fieldStart >= 0)
                return found is RedisHash hash && hash.TryGetLive(pattern.Slice(fieldStart), ctx.NowMs, out value);
            if (StringValue.TryGet(in entry, out value)) return true;
            switch (found)
            {
                case long l:
                    _scratch ??= new byte[24];
                    value = _scratch.AsSpan(0, RedisNumbers.FormatInt64(l, _scratch));
                    return true;
                default:
                    return false;
            }
        }
    }

    // ---------------------------------------------------------------- the sorted value

    private static bool IsSortedSet(object? value) => value is RedisSortedSet;

    /// <summary>
    /// Redis converts a listpack sorted set to its skiplist encoding for SORT (and SORT_RO), for
    /// good: OBJECT ENCODING shows "skiplist" afterwards.
    /// </summary>
    /// <remarks>
    /// RedisSortedSet has no public conversion; adding a member it does not hold under limits that
    /// forbid a listpack converts it, and removing that member again keeps the encoding. This
    /// should become a call to a conversion method of RedisSortedSet once it has one.
    /// </remarks>
    private static void PrepareSortedSet(object? value)
    {
        if (value is not RedisSortedSet zset || !zset.IsListpack) return;
        Span<byte> probe = stackalloc byte[20];
        long n = 0;
        int length;
        do length = RedisNumbers.FormatInt64(n++, probe);
        while (zset.Contains(probe.Slice(0, length)));
        var member = probe.Slice(0, length);
        zset.Add(member, 0, RedisSortedSet.AddFlags.None, new RedisSortedSet.Limits(0, 0), out _);
        zset.Remove(member);
    }

    private static long Length(object? value) => value switch
    {
        RedisList list => list.Count,
        RedisSet set => set.Count,
        RedisSortedSet zset => zset.Count,
        _ => 0,
    };

    /// <summary>Every element, in the value's iteration order.</summary>
    private static void LoadAll(object value, SortRun run)
    {
        Span<byte> scratch = stackalloc byte[32];
        switch (value)
        {
            case RedisList list:
                if (list.Count == 0) return;
                for (var cursor = list.At(0); cursor.Valid; cursor.MoveNext()) run.Add(cursor.Text(scratch));
                break;
            case RedisSet set:
                int position = 0;
                while (set.Next(ref position, scratch, out var member)) run.Add(member);
                break;
            case RedisSortedSet zset:
                // Redis reads its hash table here (no defined order); score order serves as well.
                for (var c = zset.First; c.IsValid; zset.MoveNext(ref c)) run.Add(zset.MemberAt(c, scratch));
                break;
        }
    }

    /// <summary><paramref name="count"/> elements of a list or sorted set from <paramref name="start"/>, counted from the tail for DESC.</summary>
    private static void LoadRange(object value, SortRun run, long start, long count, bool desc)
    {
        Span<byte> scratch = stackalloc byte[32];
        switch (value)
        {
            case RedisList list:
                var cursor = list.At(desc ? list.Count - start - 1 : start);
                for (long n = 0; n < count && cursor.Valid; n++)
                {
                    run.Add(cursor.Text(scratch));
                    if (desc) cursor.MovePrev();
                    else cursor.MoveNext();
                }
                break;
            case RedisSortedSet zset:
                var at = zset.AtRank(desc ? zset.Count - 1 - start : start);
                for (long n = 0; n < count && at.IsValid; n++)
                {
                    run.Add(zset.MemberAt(at, scratch));
                    if (desc) zset.MovePrevious(ref at);
                    else zset.MoveNext(ref at);
                }
                break;
        }
    }

    /// <summary>
    /// The elements being sorted (copied into one buffer) with what each sorts by, and the
    /// comparison Redis's sortCompare makes, completed by an input-order tiebreak.
    /// </summary>
    private sealed class SortRun(bool desc, bool alpha, bool byPattern, bool store)
    {
        /// <summary>One element: where its bytes (and its BY value) are in the buffer, and its score.</summary>
        private struct Item
        {
            public int Offset;
            public int Length;
            public int CompareOffset;
            /// <summary>-1: no value to compare by (the BY key was missing).</summary>
            public int CompareLength;
            /// <summary>Input position: the tiebreak that makes the sort behave as a stable one.</summary>
            public int Index;
            public double Score;
        }

        private byte[] _bytes = new byte[256];
        private int _used;
        private Item[] _items = new Item[16];

        public int Count { get; private set; }

        public bool Alpha => alpha;

        public void Add(ReadOnlySpan<byte> element)
        {
            if (Count == _items.Length) Array.Resize(ref _items, Count * 2);
            _items[Count] = new Item { Offset = Append(element), Length = element.Length, CompareLength = -1, Index = Count };
            Count++;
        }

        /// <summary>Element <paramref name="j"/> (in sorted order once <see cref="Sort"/> ran).</summary>
        public ReadOnlySpan<byte> Element(int j)
        {
            ref var item = ref _items[j];
            return _bytes.AsSpan(item.Offset, item.Length);
        }

        public void SetScore(int j, double score) => _items[j].Score = score;

        public void SetCompareValue(int j, ReadOnlySpan<byte> value)
        {
            int offset = Append(value);
            _items[j].CompareOffset = offset;
            _items[j].CompareLength = value.Length;
        }

        public void Sort() => _items.AsSpan(0, Count).Sort(new Comparer(_bytes, desc, alpha, byPattern, store));

        private int Append(ReadOnlySpan<byte> data)
        {
            if (_bytes.Length - _used < data.Length)
                Array.Resize(ref _bytes, (int)Math.Min(Array.MaxLength, Math.Max((long)_bytes.Length * 2, (long)_used + data.Length)));
            data.CopyTo(_bytes.AsSpan(_used));
            int offset = _used;
            _used += data.Length;
            return offset;
        }

        /// <summary>Redis's sortCompare, then input order; a struct so the sort is specialised for it.</summary>
        private readonly struct Comparer(byte[] bytes, bool desc, bool alpha, bool byPattern, bool store) : IComparer<Item>
        {
            public int Compare(Item x, Item y)
            {
                int cmp = Primary(in x, in y);
                if (desc) cmp = -cmp;
                return cmp != 0 ? cmp : x.Index.CompareTo(y.Index);
            }

            private int Primary(in Item x, in Item y)
            {
                if (!alpha)
                {
                    if (x.Score > y.Score) return 1;
                    if (x.Score < y.Score) return -1;
                    return Sign(Bytes(x.Offset, x.Length).SequenceCompareTo(Bytes(y.Offset, y.Length)));
                }
                if (byPattern)
                {
                    if (x.CompareLength < 0 || y.CompareLength < 0)
                        return x.CompareLength < 0 ? (y.CompareLength < 0 ? 0 : -1) : 1;
                    return Collate(Bytes(x.CompareOffset, x.CompareLength), Bytes(y.CompareOffset, y.CompareLength));
                }
                return Collate(Bytes(x.Offset, x.Length), Bytes(y.Offset, y.Length));
            }

            /// <summary>Byte-wise with STORE, else strcoll in the C locale: strcmp, blind past a NUL.</summary>
            private int Collate(ReadOnlySpan<byte> x, ReadOnlySpan<byte> y)
                => Sign(store ? x.SequenceCompareTo(y) : CString(x).SequenceCompareTo(CString(y)));

            private static int Sign(int value) => value > 0 ? 1 : value < 0 ? -1 : 0;

            private ReadOnlySpan<byte> Bytes(int offset, int length) => bytes.AsSpan(offset, length);
        }
    }

    /// <summary>C's strtod as SORT uses it (see the class remarks).</summary>
    internal static class SortScore
    {
        /// <summary>DBL_MIN: below it a nonzero result is subnormal.</summary>
        private const double SmallestNormal = 2.2250738585072014E-308;

        public static bool TryParse(ReadOnlySpan<byte> text, out double value)
        {
            value = 0;
            text = CString(text);
            // No text at all: strtod converts nothing and stops at the terminator, which passes.
            if (text.IsEmpty) return true;
            int i = 0;
            while (i < text.Length && IsCSpace(text[i])) i++;
            // White space alone: nothing converted, strtod points back at the start, a failure.
            if (i == text.Length) return false;
            var number = text.Slice(i);
            if (!RedisNumbers.TryParseDouble(number, out value)) return false;
            double magnitude = Math.Abs(value);
            return magnitude >= SmallestNormal || magnitude == 0 || double.IsInfinity(value) || IsExact(number, magnitude);
        }

        private static bool IsCSpace(byte c) => c == (byte)' ' || (c >= (byte)'\t' && c <= (byte)'\r');

        /// <summary>
        /// Whether text that rounded to a subnormal double is that double exactly; glibc reports
        /// ERANGE for an inexact one. The text is a valid strtod number (checked by the caller).
        /// </summary>
        private static bool IsExact(ReadOnlySpan<byte> text, double magnitude)
        {
            // The double is m * 2^-1074 with m below 2^52.
            long m = BitConverter.DoubleToInt64Bits(magnitude) & ((1L << 52) - 1);
            int i = text[0] is (byte)'+' or (byte)'-' ? 1 : 0;
            bool hex = text.Length > i + 1 && text[i] == (byte)'0' && (text[i + 1] | 0x20) == (byte)'x';
            if (hex) i += 2;
            byte marker = hex ? (byte)'p' : (byte)'e';

            // Significant digits and the power (of 16 or 10) they are scaled by, before the exponent.
            int end = i;
            while (end < text.Length && (text[end] | 0x20) != marker) end++;
            var mantissa = text.Slice(i, end - i);
            long exponent = 0;
            if (end < text.Length)
            {
                var e = text.Slice(end + 1);
                bool negative = e[0] == (byte)'-';
                foreach (byte c in e)
                    if (c is >= (byte)'0' and <= (byte)'9') exponent = Math.Min(exponent * 10 + (c - '0'), 1L << 40);
                if (negative) exponent = -exponent;
            }

            var digits = new List<int>(mantissa.Length);
            long scale = 0; // digits * base^scale
            bool fraction = false;
            foreach (byte c in mantissa)
            {
                if (c == (byte)'.')
                {
                    fraction = true;
                    continue;
                }
                int d = c <= (byte)'9' ? c - '0' : (c | 0x20) - 'a' + 10;
                if (fraction) scale--;
                if (digits.Count == 0 && d == 0) continue;
                digits.Add(d);
            }
            while (digits.Count > 0 && digits[^1] == 0)
            {
                digits.RemoveAt(digits.Count - 1);
                scale++;
            }

            // A subnormal has at most 767 significant decimal digits (fewer in hex); more cannot be exact.
            if (digits.Count > 800) return false;
            var n = System.Numerics.BigInteger.Zero;
            if (hex)
            {
                // value = n * 2^(4*scale + exponent); exact when that equals m * 2^-1074.
                if (digits.Count > 14) return false;
                foreach (int d in digits) n = n * 16 + d;
                long shift = 4 * scale + exponent + 1074;
                if (shift < 0) return false;
                return shift < 64 && (n << (int)shift) == m;
            }
            // value = n * 10^(scale + exponent); every subnormal is m * 5^1074 / 10^1074 exactly,
            // so an exact decimal has at most 1074 digits after the point.
            long power = scale + exponent;
            if (power >= 0 || power < -1074) return false;
            foreach (int d in digits) n = n * 10 + d;
            return n * System.Numerics.BigInteger.Pow(2, 1074) == m * System.Numerics.BigInteger.Pow(10, (int)-power);
        }
    }
}
