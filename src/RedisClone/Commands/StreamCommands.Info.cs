using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;

namespace RedisClone.Commands;

/// <summary>
/// XINFO: STREAM, GROUPS, CONSUMERS and HELP, the read-only views of a stream and its consumer
/// groups, in Redis 7.2's fields and order (maps in RESP3, flat arrays of name-value pairs in RESP2).
/// </summary>
/// <remarks>
/// As in Redis, every subcommand but HELP looks its key up before reading its own options, so a
/// missing key answers "no such key" (and another type WRONGTYPE) whatever follows it. Arity is the
/// table's, per subcommand (XINFO GROUPS with three arguments is an arity error, not a syntax one).
/// </remarks>
internal static partial class StreamCommands
{
    private static readonly HelpReply XInfoHelpText = new("XINFO",
        "CONSUMERS <key> <groupname>",
        "    Each consumer of group <groupname>: its name, how many entries it has pending,",
        "    and the milliseconds since it last tried to read or claim and since it last did.",
        "GROUPS <key>",
        "    Each consumer group of the stream: consumers, pending entries, last delivered ID,",
        "    entries read and lag.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    The stream's length, node counts and IDs, with its first and last entries; FULL",
        "    shows instead its entries and every group with its consumers and pending entries",
        "    (10 of each list unless COUNT says, 0 for all).");

    /// <summary>XINFO HELP — the subcommands and what each one shows.</summary>
    public static void XInfoHelp(ref CommandContext ctx) => XInfoHelpText.Write(ref ctx);

    /// <summary>The key of an XINFO subcommand: the stream, or false after "no such key" or WRONGTYPE.</summary>
    private static bool TryXInfoStream(ref CommandContext ctx, out RedisStream stream)
    {
        stream = null!;
        if (!Lookup.TryRead(ref ctx, ctx.Arg(2), out RedisStream? found)) return false;
        if (found == null)
        {
            ctx.Error(RespErrors.NoSuchKey);
            return false;
        }
        stream = found;
        return true;
    }

    /// <summary>
    /// XINFO STREAM key [FULL [COUNT count]] — length, radix-tree-keys, radix-tree-nodes,
    /// last-generated-id, max-deleted-entry-id, entries-added, recorded-first-entry-id, then either
    /// groups (a count), first-entry and last-entry, or with FULL the entries (COUNT of them, 10 by
    /// default, all for 0; a negative COUNT means 10) and every group in full (COUNT also caps each
    /// pending entries list shown).
    /// </summary>
    /// <remarks>radix-tree-nodes costs O(nodes) here (see <see cref="RedisStream.RadixTreeNodes"/>), where Redis keeps a counter.</remarks>
    public static void XInfoStream(ref CommandContext ctx)
    {
        if (!TryXInfoStream(ref ctx, out var stream)) return;
        int options = ctx.ArgCount - 3;
        bool full = options > 0;
        long count = 10;
        if (full)
        {
            if ((options != 1 && options != 3) || !ctx.ArgIs(3, "FULL") || (options == 3 && !ctx.ArgIs(4, "COUNT")))
            {
                ctx.Error(RespErrors.SubcommandSyntax(ctx.Arg(0), ctx.Arg(1)));
                return;
            }
            if (options == 3)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(5), out count))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (count < 0) count = 10;
            }
        }

        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        ctx.Reply.MapHeader(full ? 9 : 10);
        ctx.Reply.Bulk("length"u8);
        ctx.Reply.Integer(stream.Length);
        ctx.Reply.Bulk("radix-tree-keys"u8);
        ctx.Reply.Integer(stream.NodeCount);
        ctx.Reply.Bulk("radix-tree-nodes"u8);
        ctx.Reply.Integer(stream.RadixTreeNodes());
        ctx.Reply.Bulk("last-generated-id"u8);
        ctx.Reply.Bulk(text.Slice(0, stream.LastId.Format(text)));
        ctx.Reply.Bulk("max-deleted-entry-id"u8);
        ctx.Reply.Bulk(text.Slice(0, stream.MaxDeletedId.Format(text)));
        ctx.Reply.Bulk("entries-added"u8);
        ctx.Reply.Integer(stream.EntriesAdded);
        ctx.Reply.Bulk("recorded-first-entry-id"u8);
        ctx.Reply.Bulk(text.Slice(0, stream.FirstId.Format(text)));
        if (!full)
        {
            ctx.Reply.Bulk("groups"u8);
            ctx.Reply.Integer(stream.GroupCount);
            ctx.Reply.Bulk("first-entry"u8);
            WriteEdgeEntry(ref ctx, stream, reverse: false);
            ctx.Reply.Bulk("last-entry"u8);
            WriteEdgeEntry(ref ctx, stream, reverse: true);
            return;
        }

        ctx.Reply.Bulk("entries"u8);
        if (count == 0) count = long.MaxValue;
        var cursor = stream.Seek(StreamId.Min, StreamId.Max, reverse: false);
        long n = 0;
        while (n < count && stream.MoveNext(ref cursor)) n++;
        ctx.Reply.ArrayHeader(n);
        cursor = stream.Seek(StreamId.Min, StreamId.Max, reverse: false);
        for (long i = 0; i < n && stream.MoveNext(ref cursor); i++) WriteEntry(ctx.Reply, ref cursor);
        ctx.Reply.Bulk("groups"u8);
        ctx.Reply.ArrayHeader(stream.GroupCount);
        for (int g = 0; g < stream.GroupCount; g++) WriteGroupFull(ref ctx, stream, stream.GroupAt(g), count);
    }

    /// <summary>
    /// One group in XINFO STREAM FULL: name, last-delivered-id, entries-read, lag, pel-count, its
    /// first <paramref name="count"/> pending entries [id, consumer, delivery-time, delivery-count],
    /// and each consumer with its own first <paramref name="count"/> pending entries.
    /// </summary>
    private static void WriteGroupFull(ref CommandContext ctx, RedisStream stream, StreamGroup group, long count)
    {
        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        ctx.Reply.MapHeader(7);
        ctx.Reply.Bulk("name"u8);
        ctx.Reply.Bulk(group.Name);
        ctx.Reply.Bulk("last-delivered-id"u8);
        ctx.Reply.Bulk(text.Slice(0, group.LastId.Format(text)));
        WriteEntriesReadAndLag(ref ctx, stream, group);
        ctx.Reply.Bulk("pel-count"u8);
        ctx.Reply.Integer(group.Pel.Count);
        ctx.Reply.Bulk("pending"u8);
        ctx.Reply.ArrayHeader(Math.Min(group.Pel.Count, count));
        var pending = group.Pel.Seek(StreamId.Min);
        for (long i = 0; i < count && pending.MoveNext(); i++)
        {
            var nack = pending.Value;
            ctx.Reply.ArrayHeader(4);
            ctx.Reply.Bulk(text.Slice(0, pending.Key.Format(text)));
            ctx.Reply.Bulk(nack.Consumer!.Name);
            ctx.Reply.Integer(nack.DeliveryTime);
            ctx.Reply.Integer(nack.DeliveryCount);
        }
        ctx.Reply.Bulk("consumers"u8);
        ctx.Reply.ArrayHeader(group.Consumers.Count);
        for (int c = 0; c < group.Consumers.Count; c++)
        {
            var consumer = group.Consumers.ItemAt(c);
            ctx.Reply.MapHeader(5);
            ctx.Reply.Bulk("name"u8);
            ctx.Reply.Bulk(consumer.Name);
            ctx.Reply.Bulk("seen-time"u8);
            ctx.Reply.Integer(consumer.SeenTime);
            // Redis 7.2: active-time is new (7.0 has four fields here).
            ctx.Reply.Bulk("active-time"u8);
            ctx.Reply.Integer(consumer.ActiveTime);
            ctx.Reply.Bulk("pel-count"u8);
            ctx.Reply.Integer(consumer.Pel.Count);
            ctx.Reply.Bulk("pending"u8);
            ctx.Reply.ArrayHeader(Math.Min(consumer.Pel.Count, count));
            var own = consumer.Pel.Seek(StreamId.Min);
            for (long i = 0; i < count && own.MoveNext(); i++)
            {
                ctx.Reply.ArrayHeader(3);
                ctx.Reply.Bulk(text.Slice(0, own.Key.Format(text)));
                ctx.Reply.Integer(own.Value.DeliveryTime);
                ctx.Reply.Integer(own.Value.DeliveryCount);
            }
        }
    }

    /// <summary>A group's entries-read (nil when unknown) and lag (nil when it cannot be known), as XINFO shows them.</summary>
    private static void WriteEntriesReadAndLag(ref CommandContext ctx, RedisStream stream, StreamGroup group)
    {
        ctx.Reply.Bulk("entries-read"u8);
        if (group.EntriesRead != StreamGroup.InvalidEntriesRead) ctx.Reply.Integer(group.EntriesRead);
        else ctx.Reply.NullBulk();
        ctx.Reply.Bulk("lag"u8);
        if (stream.TryGetLag(group, out long lag)) ctx.Reply.Integer(lag);
        else ctx.Reply.NullBulk();
    }

    /// <summary>
    /// XINFO GROUPS key — each consumer group in name order: name, consumers, pending,
    /// last-delivered-id, entries-read (nil when unknown) and lag (nil when it cannot be known).
    /// </summary>
    public static void XInfoGroups(ref CommandContext ctx)
    {
        if (!TryXInfoStream(ref ctx, out var stream)) return;
        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        ctx.Reply.ArrayHeader(stream.GroupCount);
        for (int g = 0; g < stream.GroupCount; g++)
        {
            var group = stream.GroupAt(g);
            ctx.Reply.MapHeader(6);
            ctx.Reply.Bulk("name"u8);
            ctx.Reply.Bulk(group.Name);
            ctx.Reply.Bulk("consumers"u8);
            ctx.Reply.Integer(group.Consumers.Count);
            ctx.Reply.Bulk("pending"u8);
            ctx.Reply.Integer(group.Pel.Count);
            ctx.Reply.Bulk("last-delivered-id"u8);
            ctx.Reply.Bulk(text.Slice(0, group.LastId.Format(text)));
            WriteEntriesReadAndLag(ref ctx, stream, group);
        }
    }

    /// <summary>
    /// XINFO CONSUMERS key group — each consumer of the group in name order: name, pending, idle (ms
    /// since it was last seen, never below 0) and inactive (ms since its last successful read or
    /// claim, -1 when it never had one). NOGROUP when the group does not exist.
    /// </summary>
    /// <remarks>Redis 7.2: inactive is new, and idle counts from the last attempt (7.0: from any use).</remarks>
    public static void XInfoConsumers(ref CommandContext ctx)
    {
        if (!TryXInfoStream(ref ctx, out var stream)) return;
        var group = stream.FindGroup(ctx.Arg(3));
        if (group == null)
        {
            ctx.Error(RespErrors.NoGroupForKey(ErrorText(ctx.Arg(3)), ErrorText(ctx.Arg(2))));
            return;
        }
        long now = ctx.NowMs;
        ctx.Reply.ArrayHeader(group.Consumers.Count);
        for (int c = 0; c < group.Consumers.Count; c++)
        {
            var consumer = group.Consumers.ItemAt(c);
            ctx.Reply.MapHeader(4);
            ctx.Reply.Bulk("name"u8);
            ctx.Reply.Bulk(consumer.Name);
            ctx.Reply.Bulk("pending"u8);
            ctx.Reply.Integer(consumer.Pel.Count);
            ctx.Reply.Bulk("idle"u8);
            ctx.Reply.Integer(Math.Max(0, now - consumer.SeenTime));
            ctx.Reply.Bulk("inactive"u8);
            ctx.Reply.Integer(consumer.ActiveTime != -1 ? now - consumer.ActiveTime : -1);
        }
    }

    /// <summary>The first (or last) live entry, or a null when the stream is empty.</summary>
    private static void WriteEdgeEntry(ref CommandContext ctx, RedisStream stream, bool reverse)
    {
        var cursor = stream.Seek(StreamId.Min, StreamId.Max, reverse);
        if (stream.MoveNext(ref cursor)) WriteEntry(ctx.Reply, ref cursor);
        else ctx.Reply.NullBulk();
    }
}
