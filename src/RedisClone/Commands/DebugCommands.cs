using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Server;
using RedisClone.Server.Config;
using RedisClone.Storage;

namespace RedisClone.Commands;

/// <summary>
/// DEBUG: the subcommands of Redis 7.2's DEBUG that mean something for a server without
/// persistence or replication, with Redis's replies, error texts and argument checks. Test suites
/// (Redis's own, client libraries') use them to fingerprint a dataset (DIGEST), to get one reply
/// of each RESP type (PROTOCOL), to fake errors (ERROR), to fill a database fast (POPULATE) and to
/// stop background work (SET-ACTIVE-EXPIRE, PAUSE-CRON, SLEEP).
/// </summary>
/// <remarks>
/// <para>
/// DEBUG runs with every shard's gate held (Routing.AllShards), so it sees and may change every
/// key at once, and SLEEP stops the whole keyspace as it stops Redis's single thread.
/// </para>
/// <para>
/// Left out, and answered as unknown subcommands: what would crash or restart the server
/// (SEGFAULT, PANIC, ASSERT, OOM, RESTART, CRASH-AND-RECOVER), persistence (LOADAOF,
/// AOF-FLUSH-SLEEP, SET-SKIP-CHECKSUM-VALIDATION, CONFIG-REWRITE-FORCE-ALL), replication and
/// cluster links (REPLICATE, DROP-CLUSTER-PACKET-FILTER, CLUSTERLINK), scripting
/// (SET-DISABLE-DENY-SCRIPTS), and what reports C internals this server does not have (SDSLEN,
/// STRUCTSIZE, LEAK, MALLCTL, MALLCTL-STR, HTSTATS, HTSTATS-KEY, CLIENT-EVICTION).
/// </para>
/// </remarks>
internal static class DebugCommands
{
    /// <summary>
    /// DEBUG HELP: the subcommands this server has, in Redis's order with Redis's syntax lines
    /// (REPLYBUFFER's doubled bar is Redis's), described in our words.
    /// </summary>
    private static readonly HelpReply HelpText = new("DEBUG",
        "CHANGE-REPL-ID",
        "    Draw a new random replication ID, the master_replid INFO shows.",
        "DIGEST",
        "    40 hex digits summing up every database: keys, values and which keys have a",
        "    TTL. The same data gives the same digest; an empty server gives 40 zeros.",
        "DIGEST-VALUE <key> [<key> ...]",
        "    The same kind of fingerprint for each key's value alone (40 zeros if missing).",
        "ERROR <string>",
        "    Send <string> back as an error reply, to see how a client copes with errors.",
        "LOG <message>",
        "    Print <message> on the server's standard output, which serves as its log.",
        "OBJECT <key>",
        "    How the value of <key> is stored: encoding, reference count, size, idle time.",
        "POPULATE <count> [<prefix>] [<size>]",
        "    Create string keys <prefix>:0 to <prefix>:<count-1> (prefix 'key') holding",
        "    'value:<n>', zero padded or cut to <size> bytes when given. Keys that exist",
        "    are left alone.",
        "PROTOCOL <type>",
        "    One reply of the kind named, to exercise a client's parser: string, integer,",
        "    double, bignum, null, array, set, map, attrib, push, verbatim, true or false.",
        "RELOAD [option ...]",
        "    Write the RDB file, empty the server, and load the file back. Options:",
        "    * MERGE: a key in the file replaces the key of that name in memory.",
        "    * NOFLUSH: keep what is in memory (a key also in the file is then an",
        "      error, unless MERGE).",
        "    * NOSAVE: load the file as it is, without writing it first.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    0 stops deleting expired keys in the background (they still expire when",
        "    accessed); 1 starts it again.",
        "QUICKLIST-PACKED-THRESHOLD <size>",
        "    Checked and accepted (0 to 4gb); lists here never use plain nodes, so it has",
        "    no effect.",
        "SLEEP <seconds>",
        "    Hold every shard for <seconds> (a decimal number): no command that touches",
        "    keys runs meanwhile.",
        "STRINGMATCH-TEST",
        "    Run the glob pattern matcher on a million random patterns and strings.",
        "LISTPACK <key>",
        "    Print the entries of a listpack encoded value to the server's standard output.",
        "QUICKLIST <key> [<0|1>]",
        "    Print the nodes of a quicklist encoded list to the server's standard output;",
        "    1 prints every node's entries too.",
        "PAUSE-CRON <0|1>",
        "    1 stops the periodic background work (active expiry, LRU clock); 0 resumes it.",
        "REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
        "    Checked and accepted; reply buffers here are not resized by a timer, so it has",
        "    no effect.",
        "REPLYBUFFER RESIZING <0|1>",
        "    Checked and accepted, with no effect, for the same reason.");

    /// <summary>
    /// DEBUG subcommand [arg ...] — see <see cref="HelpText"/>; allowed only when
    /// enable-debug-command is yes (or local, from a loopback client), as in Redis.
    /// </summary>
    /// <remarks>
    /// Subcommands are matched by name and argument count together, in Redis's order, so a known
    /// name with the wrong count gets Redis's "unknown subcommand or wrong number of arguments".
    /// </remarks>
    /// <summary>DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: save, flush (functions too), load back; every gate is held.</summary>
    private static void Reload(ref CommandContext ctx)
    {
        bool merge = false, flush = true, save = true;
        for (int j = 2; j < ctx.ArgCount; j++)
        {
            if (ctx.ArgIs(j, "MERGE")) merge = true;
            else if (ctx.ArgIs(j, "NOFLUSH")) flush = false;
            else if (ctx.ArgIs(j, "NOSAVE")) save = false;
            else
            {
                ctx.Error(RespErrors.DebugReloadOptions);
                return;
            }
        }
        var server = ctx.Server;
        if (save && server.Rdb.SaveForeground() != null)
        {
            ctx.Error(RespErrors.BareErr);
            return;
        }
        if (flush)
        {
            var shards = server.Shards;
            for (int i = 0; i < shards.Count; i++)
                for (int db = 0; db < shards[i].Store.DatabaseCount; db++) shards[i].Store[db].Clear();
            server.Functions.Flush();
        }
        try
        {
            Persistence.RdbLoader.Load(server, server.Config.RdbPath, merge: merge);
        }
        catch (Persistence.RdbLoadException ex)
        {
            server.Log.Warning($"DEBUG RELOAD: {ex.Message} (offset {ex.Offset})");
            ctx.Error(RespErrors.DebugReloadFailed);
            return;
        }
        server.Log.Notice("DB reloaded by DEBUG RELOAD");
        ctx.Reply.Ok();
    }

    public static void Debug(ref CommandContext ctx)
    {
        if (!ConfigRegistry.ProtectedActionAllowed(ctx.Server.Config.EnableDebugCommand, ServerCommands.IsLocal(ctx.Client)))
        {
            ctx.Error(RespErrors.DebugNotAllowed);
            return;
        }
        int argc = ctx.ArgCount;
        if (argc == 2 && ctx.ArgIs(1, "HELP")) HelpText.Write(ref ctx);
        else if (ctx.ArgIs(1, "LOG") && argc == 3) Log(ref ctx);
        else if (ctx.ArgIs(1, "OBJECT") && argc == 3) DebugObject(ref ctx);
        else if (ctx.ArgIs(1, "LISTPACK") && argc == 3) Listpack(ref ctx);
        else if (ctx.ArgIs(1, "QUICKLIST") && (argc == 3 || argc == 4)) Quicklist(ref ctx);
        else if (ctx.ArgIs(1, "POPULATE") && argc >= 3 && argc <= 5) Populate(ref ctx);
        else if (ctx.ArgIs(1, "DIGEST") && argc == 2) Digest(ref ctx);
        else if (ctx.ArgIs(1, "RELOAD")) Reload(ref ctx);
        else if (ctx.ArgIs(1, "DIGEST-VALUE")) DigestValue(ref ctx);
        else if (ctx.ArgIs(1, "PROTOCOL") && argc == 3) Protocol(ref ctx);
        else if (ctx.ArgIs(1, "SLEEP") && argc == 3) Sleep(ref ctx);
        else if (ctx.ArgIs(1, "SET-ACTIVE-EXPIRE") && argc == 3) SetActiveExpire(ref ctx);
        else if (ctx.ArgIs(1, "QUICKLIST-PACKED-THRESHOLD") && argc == 3) QuicklistPackedThreshold(ref ctx);
        else if (ctx.ArgIs(1, "ERROR") && argc == 3) Error(ref ctx);
        else if (ctx.ArgIs(1, "CHANGE-REPL-ID") && argc == 2) ChangeReplId(ref ctx);
        else if (ctx.ArgIs(1, "STRINGMATCH-TEST") && argc == 2) StringMatchTest(ref ctx);
        else if (ctx.ArgIs(1, "PAUSE-CRON") && argc == 3) PauseCron(ref ctx);
        else if (ctx.ArgIs(1, "REPLYBUFFER") && argc == 4) ReplyBuffer(ref ctx);
        else UnknownSubcommand(ref ctx);
    }

    private static void UnknownSubcommand(ref CommandContext ctx) => ctx.Error(RespErrors.SubcommandSyntax(ctx.Arg(0), ctx.Arg(1)));

    // ---------------------------------------------------------------- replies for client tests

    /// <summary>
    /// DEBUG ERROR string — the string itself as an error reply ("-string"), CR and LF turned into
    /// spaces. Like Redis it is written as a plain reply, so it does not count in errorstats or as
    /// a failed call.
    /// </summary>
    private static void Error(ref CommandContext ctx)
    {
        byte[] line = new byte[ctx.Arg(2).Length + 3];
        line[0] = (byte)'-';
        ctx.Arg(2).CopyTo(line.AsSpan(1));
        for (int i = 1; i < line.Length - 2; i++)
            if (line[i] == '\r' || line[i] == '\n') line[i] = (byte)' ';
        line[^2] = (byte)'\r';
        line[^1] = (byte)'\n';
        ctx.Reply.Raw(line);
    }

    /// <summary>
    /// DEBUG PROTOCOL type — one fixed sample of a reply type, encoded for the connection's
    /// protocol: RESP2 gets Redis's downgrades (map → flat array, set → array, true/false → 1/0,
    /// double, bignum and verbatim → bulk strings, null → nil bulk, no attribute) and an error
    /// for push, which RESP2 cannot carry. An attribute and a push are each followed by a normal
    /// reply, so a client that skips them still reads one reply.
    /// </summary>
    private static void Protocol(ref CommandContext ctx)
    {
        var reply = ctx.Reply;
        if (ctx.ArgIs(2, "STRING")) reply.Bulk("Hello World"u8);
        else if (ctx.ArgIs(2, "INTEGER")) reply.Integer(12345);
        else if (ctx.ArgIs(2, "DOUBLE")) reply.Double(3.141);
        else if (ctx.ArgIs(2, "BIGNUM")) reply.BigNumber("1234567999999999999999999999999999999"u8);
        else if (ctx.ArgIs(2, "NULL")) reply.NullBulk();
        else if (ctx.ArgIs(2, "ARRAY") || ctx.ArgIs(2, "SET"))
        {
            if (ctx.ArgIs(2, "SET")) reply.SetHeader(3);
            else reply.ArrayHeader(3);
            for (int i = 0; i < 3; i++) reply.Integer(i);
        }
        else if (ctx.ArgIs(2, "MAP"))
        {
            reply.MapHeader(3);
            for (int i = 0; i < 3; i++)
            {
                reply.Integer(i);
                reply.Boolean(i == 1);
            }
        }
        else if (ctx.ArgIs(2, "ATTRIB"))
        {
            if (reply.IsResp3)
            {
                reply.AttributeHeader(1);
                reply.Bulk("key-popularity"u8);
                reply.ArrayHeader(2);
                reply.Bulk("key:123"u8);
                reply.Integer(90);
            }
            reply.Bulk("Some real reply following the attribute"u8);
        }
        else if (ctx.ArgIs(2, "PUSH"))
        {
            if (!reply.IsResp3)
            {
                ctx.Error(RespErrors.Resp2NotSupported);
                return;
            }
            reply.PushHeader(2);
            reply.Bulk("server-cpu-usage"u8);
            reply.Integer(42);
            reply.Bulk("Some real reply following the push reply"u8);
        }
        else if (ctx.ArgIs(2, "TRUE")) reply.Boolean(true);
        else if (ctx.ArgIs(2, "FALSE")) reply.Boolean(false);
        else if (ctx.ArgIs(2, "VERBATIM")) reply.Verbatim("This is a verbatim\nstring"u8);
        else ctx.Error(RespErrors.DebugProtocolType);
    }

    // ---------------------------------------------------------------- digests

    /// <summary>
    /// DEBUG DIGEST — the dataset's fingerprint as 40 hex digits in a status reply: for each
    /// non-empty database in order, its number is mixed into the result, then every key's digest
    /// (see <see cref="ValueDigest"/>) is folded in with <see cref="ValueDigest.Xor"/> (the SHA1
    /// of the key's digest is XORed), so key order and shard layout do not matter.
    /// Keys past their TTL that are not deleted yet count, as in Redis.
    /// </summary>
    private static void Digest(ref CommandContext ctx)
    {
        var shards = ctx.Server.Shards;
        Span<byte> result = stackalloc byte[ValueDigest.Size];
        Span<byte> keyDigest = stackalloc byte[ValueDigest.Size];
        result.Clear();
        for (int db = 0; db < ctx.Server.Options.Databases; db++)
        {
            long keys = 0;
            for (int s = 0; s < shards.Count; s++) keys += shards[s].Store[db].Count;
            if (keys == 0) continue;
            ValueDigest.MixNumber(result, (uint)db);
            for (int s = 0; s < shards.Count; s++)
            {
                var table = shards[s].Store[db].Table;
                for (int slot = 0; slot < table.SlotCount; slot++)
                {
                    if (!table.IsUsed(slot)) continue;
                    ref var entry = ref table.At(slot);
                    keyDigest.Clear();
                    ValueDigest.AddKey(keyDigest, in entry);
                    ValueDigest.Xor(result, keyDigest);
                }
            }
        }
        ctx.Reply.SimpleString(Hex(result));
    }

    /// <summary>
    /// DEBUG DIGEST-VALUE [key ...] — an array with the digest of each key's value (not its name),
    /// 40 zeros for a missing key. Like Redis it does not expire keys on the way.
    /// </summary>
    private static void DigestValue(ref CommandContext ctx)
    {
        Span<byte> digest = stackalloc byte[ValueDigest.Size];
        ctx.Reply.ArrayHeader(ctx.ArgCount - 2);
        for (int i = 2; i < ctx.ArgCount; i++)
        {
            var key = ctx.Arg(i);
            var table = ctx.Db(key).Table;
            int slot = table.Find(key);
            digest.Clear();
            if (slot >= 0)
            {
                ref var entry = ref table.At(slot);
                ValueDigest.AddValue(digest, in entry);
            }
            ctx.Reply.SimpleString(Hex(digest));
        }
    }

    private static byte[] Hex(ReadOnlySpan<byte> digest) => Encoding.ASCII.GetBytes(Convert.ToHexStringLower(digest));

    // ---------------------------------------------------------------- keyspace

    /// <summary>
    /// DEBUG POPULATE count [prefix] [size] — adds string keys "prefix:0" .. "prefix:count-1" (the
    /// name is cut at 127 bytes, as Redis's buffer cuts it) to the selected database, skipping keys
    /// that exist. Each value is "value:n", or exactly size bytes: that text then zeros, or cut.
    /// The keys are new to WATCH and keyspace events ("new") but, as in Redis, nothing is
    /// propagated.
    /// </summary>
    private static void Populate(ref CommandContext ctx)
    {
        if (!RedisNumbers.TryParseInt64(ctx.Arg(2), out long count) || count < 0)
        {
            ctx.Error(RespErrors.NotPositive);
            return;
        }
        // Redis first sizes its key table for all of them and reports failure to allocate; ours
        // holds at most int.MaxValue keys per shard, so more than that cannot be allocated either.
        if (count > int.MaxValue)
        {
            ctx.Error(RespErrors.DebugPopulateOom);
            return;
        }
        long size = 0;
        if (ctx.ArgCount == 5 && (!RedisNumbers.TryParseInt64(ctx.Arg(4), out size) || size < 0))
        {
            ctx.Error(RespErrors.NotPositive);
            return;
        }
        // Redis would try to allocate it and die; no string may be longer than proto-max-bulk-len.
        if (size > ctx.Server.Config.ProtoMaxBulkLen)
        {
            ctx.Error(RespErrors.StringTooLong);
            return;
        }
        // The prefix is a C string to Redis: it ends at the first NUL byte.
        ReadOnlySpan<byte> prefix = ctx.ArgCount >= 4 ? ctx.Arg(3) : "key"u8;
        int nul = prefix.IndexOf((byte)0);
        if (nul >= 0) prefix = prefix.Slice(0, nul);

        const int MaxKeyLength = 127;
        Span<byte> name = stackalloc byte[MaxKeyLength + 1 + 20 + 1];
        Span<byte> text = stackalloc byte[6 + 20];
        "value:"u8.CopyTo(text);
        for (long j = 0; j < count; j++)
        {
            int keyLength = Math.Min(prefix.Length, MaxKeyLength);
            prefix.Slice(0, keyLength).CopyTo(name);
            name[keyLength++] = (byte)':';
            keyLength += RedisNumbers.FormatInt64(j, name.Slice(keyLength));
            var key = name.Slice(0, Math.Min(keyLength, MaxKeyLength));

            var db = ctx.Db(key);
            if (db.FindLive(key, ctx.NowMs) >= 0) continue;

            int textLength = 6 + RedisNumbers.FormatInt64(j, text.Slice(6));
            byte[] value;
            if (size == 0) value = text.Slice(0, textLength).ToArray();
            else
            {
                value = new byte[size];
                text.Slice(0, (int)Math.Min(size, textLength)).CopyTo(value);
            }
            db.Add(key.ToArray(), value);
            if (db.HasWatchers) db.SignalModified(key);
        }
        ctx.Reply.Ok();
    }

    /// <summary>
    /// DEBUG OBJECT key — "Value at:... refcount:N encoding:E serializedlength:N lru:N
    /// lru_seconds_idle:N", plus for a quicklist " ql_nodes:N ql_avg_node:F ql_listpack_max:N
    /// ql_compressed:0 ql_uncompressed_size:N". Like Redis it looks the key up without expiring
    /// it. serializedlength is the RDB size of the value without LZF compression (Redis
    /// compresses strings over 20 bytes when that helps), and 0 for types whose RDB encoding does
    /// not exist yet. ql_compressed is always 0: nodes here are never compressed, whatever
    /// list-compress-depth says.
    /// </summary>
    private static void DebugObject(ref CommandContext ctx)
    {
        var key = ctx.Arg(2);
        var db = ctx.Db(key);
        int slot = db.Table.Find(key);
        if (slot < 0)
        {
            ctx.Error(RespErrors.NoSuchKey);
            return;
        }
        ref var entry = ref db.Table.At(slot);
        bool raw = (entry.HashAndFlag & KeyTable.RawFlag) != 0;
        object value = StringValue.Detached(in entry);
        object identity = entry.IsEmbedded ? entry.Bytes : entry.Value; // stable across calls, unlike a detached copy
        uint stamp = db.Table.LastAccess(slot);
        long serialized = StringValue.TryGet(in entry, out var bytes) ? SerializedStringLength(bytes) : 0;
        string extra = "";
        if (value is RedisList { IsListpack: false } list)
        {
            long nodeBytes = 0;
            for (int i = 0; i < list.NodeCount; i++) nodeBytes += Storage.Listpack.Bytes(list.NodeBuffer(i));
            extra = string.Create(CultureInfo.InvariantCulture,
                $" ql_nodes:{list.NodeCount} ql_avg_node:{(double)list.Count / list.NodeCount:F2} ql_listpack_max:{list.QuicklistFill}" +
                $" ql_compressed:0 ql_uncompressed_size:{nodeBytes}");
        }
        ctx.Reply.SimpleString(
            $"Value at:0x{RuntimeHelpers.GetHashCode(identity):x} refcount:{ValueTypes.RefCount(value, raw)} " +
            $"encoding:{ValueTypes.EncodingName(value, raw)} serializedlength:{serialized} " +
            $"lru:{stamp & 0xFFFFFF} lru_seconds_idle:{LruClock.SecondsSince(stamp)}{extra}");
    }

    /// <summary>RDB size of a string: integers in 32-bit range as 1-, 2- or 4-byte ints after a type byte, else length + bytes.</summary>
    private static long SerializedStringLength(ReadOnlySpan<byte> s)
    {
        if (s.Length <= 11 && RedisNumbers.TryParseInt64(s, out long n))
        {
            if (n >= sbyte.MinValue && n <= sbyte.MaxValue) return 2;
            if (n >= short.MinValue && n <= short.MaxValue) return 3;
            if (n >= int.MinValue && n <= int.MaxValue) return 5;
        }
        long len = s.Length;
        long header = len < 64 ? 1 : len < 16384 ? 2 : len <= uint.MaxValue ? 5 : 9;
        return header + len;
    }

    /// <summary>
    /// DEBUG LISTPACK key — prints a listpack encoded value's entries to standard output (in our
    /// own layout; Redis prints its listpack's bytes) and says so in a status reply.
    /// </summary>
    private static void Listpack(ref CommandContext ctx)
    {
        if (!TryLookup(ref ctx, out object? value, out bool raw)) return;
        if (ValueTypes.EncodingName(value, raw) != "listpack")
        {
            ctx.Error(RespErrors.NotListpack);
            return;
        }
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"{{listpack}} key: {RespErrors.Latin(ctx.Arg(2))}, type: {ValueTypes.TypeName(value)}\n");
        int index = 0;
        foreach (string element in Elements(value)) text.Append(CultureInfo.InvariantCulture, $"{{entry {index++}}} {element}\n");
        text.Append("{end}");
        Console.Out.WriteLine(text.ToString());
        ctx.Reply.SimpleString("Listpack structure printed on stdout"u8);
    }

    /// <summary>
    /// DEBUG QUICKLIST key [0|1] — prints a quicklist's nodes (with 1 — any nonzero atoi — each
    /// node's entries too) to standard output and says so in a status reply.
    /// </summary>
    private static void Quicklist(ref CommandContext ctx)
    {
        if (!TryLookup(ref ctx, out object? value, out _)) return;
        bool full = ctx.ArgCount == 4 && Atoi(ctx.Arg(3)) != 0;
        if (value is not RedisList { IsListpack: false } list)
        {
            ctx.Error(RespErrors.NotQuicklist);
            return;
        }
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture,
            $"{{quicklist}} key: {RespErrors.Latin(ctx.Arg(2))}, count: {list.Count}, nodes: {list.NodeCount}, fill: {list.QuicklistFill}\n");
        for (int n = 0; n < list.NodeCount; n++)
        {
            byte[] node = list.NodeBuffer(n);
            text.Append(CultureInfo.InvariantCulture, $"{{node {n}}} entries: {Storage.Listpack.Count(node)}, bytes: {Storage.Listpack.Bytes(node)}\n");
            if (!full) continue;
            for (int p = Storage.Listpack.First(node); p >= 0; p = Storage.Listpack.Next(node, p))
            {
                var v = Storage.Listpack.Get(node, p);
                text.Append("  ").Append(v.IsInt ? v.Int.ToString(CultureInfo.InvariantCulture) : RespErrors.Latin(node.AsSpan(v.Start, v.Length))).Append('\n');
            }
        }
        text.Append("{end}");
        Console.Out.WriteLine(text.ToString());
        ctx.Reply.SimpleString("Quicklist structure printed on stdout"u8);
    }

    /// <summary>A value's elements as text, in iteration order ("member score" and "field value" pairs on one line).</summary>
    private static IEnumerable<string> Elements(object value)
    {
        var lines = new List<string>();
        Span<byte> scratch = stackalloc byte[32];
        switch (value)
        {
            case RedisList list:
                if (list.Count > 0)
                    for (var c = list.At(0); c.Valid; c.MoveNext()) lines.Add(RespErrors.Latin(c.Text(scratch)));
                break;
            case RedisSet set:
            {
                int position = 0;
                while (set.Next(ref position, scratch, out var member)) lines.Add(RespErrors.Latin(member));
                break;
            }
            case RedisSortedSet zset:
                if (zset.Count == 0) break;
                var cursor = zset.First;
                do
                {
                    int n = RedisNumbers.FormatDouble(zset.ScoreAt(cursor), scratch);
                    string score = RespErrors.Latin(scratch.Slice(0, n));
                    lines.Add(RespErrors.Latin(zset.MemberAt(cursor, scratch)) + " " + score);
                } while (zset.MoveNext(ref cursor));
                break;
            case RedisHash hash:
                for (int pos = hash.FirstPosition(); pos >= 0; pos = hash.NextPosition(pos))
                    lines.Add(RespErrors.Latin(hash.FieldAt(pos)) + " " + RespErrors.Latin(hash.ValueAt(pos)));
                break;
        }
        return lines;
    }

    /// <summary>
    /// Redis's objectCommandLookup (as OBJECT uses it): expires the key if due, counts a hit or a
    /// miss, sends no keymiss event, leaves the access time; "no such key" when missing.
    /// </summary>
    private static bool TryLookup(ref CommandContext ctx, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out object? value, out bool raw)
    {
        var key = ctx.Arg(2);
        var db = ctx.Db(key);
        int slot = db.FindLiveNoTouch(key, ctx.NowMs);
        if (slot < 0)
        {
            db.Owner.KeyspaceMisses++;
            ctx.Error(RespErrors.NoSuchKey);
            value = null;
            raw = false;
            return false;
        }
        db.Owner.KeyspaceHits++;
        ref var entry = ref db.Table.At(slot);
        value = StringValue.Detached(in entry);
        raw = (entry.HashAndFlag & KeyTable.RawFlag) != 0;
        return true;
    }

    // ---------------------------------------------------------------- server state

    /// <summary>DEBUG LOG message — writes "DEBUG LOG: message" to the server's log at warning level, as Redis does.</summary>
    private static void Log(ref CommandContext ctx)
    {
        ctx.Server.Log.Warning($"DEBUG LOG: {RespErrors.Latin(ctx.Arg(2))}");
        ctx.Reply.Ok();
    }

    /// <summary>
    /// DEBUG SLEEP seconds — blocks every shard (all gates are held) for that long. strtod
    /// semantics: the longest numeric prefix, 0 when there is none; negative sleeps not at all.
    /// </summary>
    private static void Sleep(ref CommandContext ctx)
    {
        double seconds = ParseDoublePrefix(ctx.Arg(2));
        // Thread.Sleep takes at most int.MaxValue ms (24.8 days): longer is as good as forever.
        if (seconds > 0) Thread.Sleep((int)Math.Min(seconds * 1000, int.MaxValue));
        ctx.Reply.Ok();
    }

    /// <summary>DEBUG SET-ACTIVE-EXPIRE 0|1 — atoi: nonzero turns every shard's active expiry cycle on.</summary>
    private static void SetActiveExpire(ref CommandContext ctx)
    {
        bool on = Atoi(ctx.Arg(2)) != 0;
        for (int i = 0; i < ctx.Server.Shards.Count; i++) ctx.Server.Shards[i].ActiveExpiry = on;
        ctx.Reply.Ok();
    }

    /// <summary>DEBUG PAUSE-CRON 0|1 — atoi: nonzero stops every shard's periodic work (see Shard.CronPaused) and the server cron's tracking-table bound.</summary>
    private static void PauseCron(ref CommandContext ctx)
    {
        bool paused = Atoi(ctx.Arg(2)) != 0;
        for (int i = 0; i < ctx.Server.Shards.Count; i++) ctx.Server.Shards[i].CronPaused = paused;
        ctx.Server.CronPaused = paused;
        ctx.Reply.Ok();
    }

    /// <summary>
    /// DEBUG QUICKLIST-PACKED-THRESHOLD size — checks the size as Redis does (a memory value,
    /// 0 for the default, at most 4 GB less 1 MB) and accepts it. Redis stores list elements at
    /// least this big in "plain" nodes of their own; lists here have no plain nodes (see
    /// <see cref="Storage.Quicklist"/>), so there is nothing to change.
    /// </summary>
    private static void QuicklistPackedThreshold(ref CommandContext ctx)
    {
        const ulong Max = (1UL << 32) - (1UL << 20);
        if (!ConfigRegistry.TryParseMemory(ctx.ArgString(2), out ulong size) || size > Max) ctx.Error(RespErrors.DebugPackedThreshold);
        else ctx.Reply.Ok();
    }

    /// <summary>
    /// DEBUG REPLYBUFFER PEAK-RESET-TIME NEVER|RESET|ms, or RESIZING 0|1 — checked as Redis checks
    /// them (the time must be an integer), then accepted: Redis shrinks idle reply buffers from a
    /// timer and these tune that timer, which this server does not have.
    /// </summary>
    private static void ReplyBuffer(ref CommandContext ctx)
    {
        if (ctx.ArgIs(2, "PEAK-RESET-TIME"))
        {
            if (!ctx.ArgIs(3, "NEVER") && !ctx.ArgIs(3, "RESET") && !RedisNumbers.TryParseInt64(ctx.Arg(3), out _))
            {
                ctx.Error(RespErrors.NotInteger);
                return;
            }
        }
        else if (!ctx.ArgIs(2, "RESIZING"))
        {
            UnknownSubcommand(ref ctx);
            return;
        }
        ctx.Reply.Ok();
    }

    /// <summary>DEBUG CHANGE-REPL-ID — a new random master_replid (master_replid2 stays cleared).</summary>
    private static void ChangeReplId(ref CommandContext ctx)
    {
        ctx.Server.Replication.ChangeReplicationId();
        ctx.Reply.Ok();
    }

    /// <summary>
    /// DEBUG STRINGMATCH-TEST — Redis's fuzz test of its glob matcher, run on ours: random
    /// patterns and strings of up to 31 bytes below 128. It can only fail by throwing (an internal
    /// error); Redis runs ten million rounds, this runs one million to keep the pause short.
    /// </summary>
    private static void StringMatchTest(ref CommandContext ctx)
    {
        var random = new Random();
        Span<byte> text = stackalloc byte[32];
        Span<byte> pattern = stackalloc byte[32];
        for (int round = 0; round < 1_000_000; round++)
        {
            int textLength = random.Next(32), patternLength = random.Next(32);
            for (int i = 0; i < textLength; i++) text[i] = (byte)random.Next(128);
            for (int i = 0; i < patternLength; i++) pattern[i] = (byte)random.Next(128);
            GlobMatcher.IsMatch(pattern.Slice(0, patternLength), text.Slice(0, textLength));
        }
        ctx.Reply.SimpleString("Apparently Redis did not crash: test passed"u8);
    }

    // ---------------------------------------------------------------- C number parsing

    /// <summary>C's atoi as glibc has it: (int)strtol — leading blanks, a sign, digits, saturating at the long range, then cut to 32 bits.</summary>
    private static int Atoi(ReadOnlySpan<byte> text)
    {
        int i = 0;
        while (i < text.Length && (text[i] == ' ' || (text[i] >= '\t' && text[i] <= '\r'))) i++;
        bool negative = false;
        if (i < text.Length && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
        UInt128 magnitude = 0;
        UInt128 limit = (UInt128)long.MaxValue + 1;
        for (; i < text.Length && text[i] >= '0' && text[i] <= '9'; i++)
            if (magnitude <= limit) magnitude = magnitude * 10 + (uint)(text[i] - '0');
        long value;
        if (negative) value = magnitude >= limit ? long.MinValue : -(long)magnitude;
        else value = magnitude > long.MaxValue ? long.MaxValue : (long)magnitude;
        return unchecked((int)value);
    }

    /// <summary>C's strtod on a prefix: digits with optional sign, fraction and exponent; 0 when nothing parses.</summary>
    private static double ParseDoublePrefix(ReadOnlySpan<byte> text)
    {
        int i = 0;
        while (i < text.Length && (text[i] == ' ' || text[i] == '\t')) i++;
        int start = i;
        if (i < text.Length && (text[i] == '+' || text[i] == '-')) i++;
        int digits = 0;
        while (i < text.Length && text[i] >= '0' && text[i] <= '9') { i++; digits++; }
        if (i < text.Length && text[i] == '.')
        {
            i++;
            while (i < text.Length && text[i] >= '0' && text[i] <= '9') { i++; digits++; }
        }
        if (digits == 0) return 0;
        int end = i;
        if (i < text.Length && (text[i] == 'e' || text[i] == 'E'))
        {
            int j = i + 1;
            if (j < text.Length && (text[j] == '+' || text[j] == '-')) j++;
            int expDigits = 0;
            while (j < text.Length && text[j] >= '0' && text[j] <= '9') { j++; expDigits++; }
            if (expDigits > 0) end = j;
        }
        return double.TryParse(Encoding.ASCII.GetString(text.Slice(start, end - start)),
            NumberStyles.Float, CultureInfo.InvariantCulture, out double v) ? v : 0;
    }
}
