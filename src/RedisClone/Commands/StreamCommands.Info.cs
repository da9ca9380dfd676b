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
        "    and the milliseconds since it was last seen and since it last read something.",
        "GROUPS <key>",
        "    Each consumer group of the stream: consumers, pending entries, last delivered ID,",
        "    entries read and lag.",
        "STREAM <key> [FULL [COUNT <count>]",
        "    The stream's length, node counts and IDs, with its first and last entries; FULL",
        "    lists entries (10 unless COUNT says, 0 for all) and every group's state instead.");

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
    /// default, all for 0; a negative COUNT means 10) and every group in full.
    /// </summary>
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
            ctx.Reply.Integer(0);
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
        for (long i = 0; i < n && stream.MoveNext(ref cursor); i++) WriteEntry(ref ctx, ref cursor);
        ctx.Reply.Bulk("groups"u8);
        ctx.Reply.ArrayHeader(0);
    }

    /// <summary>The first (or last) live entry, or a null when the stream is empty.</summary>
    private static void WriteEdgeEntry(ref CommandContext ctx, RedisStream stream, bool reverse)
    {
        var cursor = stream.Seek(StreamId.Min, StreamId.Max, reverse);
        if (stream.MoveNext(ref cursor)) WriteEntry(ref ctx, ref cursor);
        else ctx.Reply.NullBulk();
    }
}
