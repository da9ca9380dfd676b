using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    private const string StreamTrimArgs =
        "trim{strategy(MAXLEN | minid:MINID@6.2.0) [operator(equal:'=' | approximately:'~')] threshold [LIMIT=count:integer@6.2.0]}";

    /// <summary>Redis 8.2's choice of what deleting an entry does to the groups' references to it.</summary>
    private const string DeletePolicyArgs = "condition(KEEPREF | DELREF | ACKED)";

    /// <summary>XGROUP CREATE and SETID: the group's starting ID, or '$' for the stream's last.</summary>
    private const string GroupIdArgs = "id-selector(id | new-id:'$')";

    /// <summary>The streams family (handlers in <see cref="StreamCommands"/>).</summary>
    private static IEnumerable<CommandDef> StreamRows() =>
    [
        new("xadd", -5, Write | DenyOom | Fast, StreamCommands.XAdd,
            keys: "RW update -- UPDATE instead of INSERT because of the optional trimming feature", group: "stream")
        {
            Summary = "Adds an entry to a stream, creating the key unless NOMKSTREAM; can trim the stream in the same call.",
            Since = "5.0.0", Complexity = "O(1) to add, O(N) for N entries trimmed",
            Args = "key:key [NOMKSTREAM@6.2.0] [" + DeletePolicyArgs + "@8.2.0] [" + StreamTrimArgs + "] id_or_auto(auto_id:'*' | id) field_value{field value}...",
            History = "6.2.0: NOMKSTREAM, trimming by MINID and LIMIT; 7.0.0: IDs with an automatic sequence (ms-*); "
                + "8.2.0: KEEPREF, DELREF and ACKED, for what trimming does to consumer groups' references",
            Tips = "nondeterministic_output",
        },
        new("xlen", 2, ReadOnly | Fast, StreamCommands.XLen, keys: "RO", group: "stream")
        {
            Summary = "Returns the number of entries in a stream.",
            Since = "5.0.0", Complexity = "O(1)", Args = "key:key",
        },
        new("xrange", -4, ReadOnly, StreamCommands.XRange, keys: "RO access", group: "stream")
        {
            Summary = "Returns the entries of a stream between two IDs, oldest first.",
            Since = "5.0.0", Complexity = "O(N), N = entries returned", Args = "key:key start end [COUNT=count:integer]",
            History = "6.2.0: Exclusive bounds with (",
        },
        new("xrevrange", -4, ReadOnly, StreamCommands.XRevRange, keys: "RO access", group: "stream")
        {
            Summary = "Returns the entries of a stream between two IDs, newest first.",
            Since = "5.0.0", Complexity = "O(N), N = entries returned", Args = "key:key end start [COUNT=count:integer]",
            History = "6.2.0: Exclusive bounds with (",
        },
        new("xsetid", -3, Write | DenyOom | Fast, StreamCommands.XSetId, keys: "RW update", group: "stream")
        {
            Summary = "Sets the last ID of a stream (and its entries-added and greatest deleted ID), as replication does.",
            Since = "5.0.0", Complexity = "O(1)",
            Args = "key:key last-id:string [ENTRIESADDED=entries_added:integer@7.0.0] [MAXDELETEDID=max_deleted_entry_id:string@7.0.0]",
            History = "7.0.0: Added the `entries_added` and `max_deleted_entry_id` arguments.",
        },
        new("xdel", -3, Write | Fast, StreamCommands.XDel, keys: "RW delete", group: "stream")
        {
            Summary = "Deletes entries of a stream by ID; returns how many existed.",
            Since = "5.0.0", Complexity = "O(1) per entry", Args = "key:key id...",
        },
        new("xdelex", -5, Write | Fast, StreamCommands.XDelEx, keys: "RW delete", group: "stream")
        {
            Summary = "Deletes entries of a stream by ID, choosing what happens to consumer groups' references; a status per ID.",
            Since = "8.2.0", Complexity = "O(1) per entry (times the groups, with DELREF or ACKED)",
            Args = "key:key [" + DeletePolicyArgs + "] IDS=ids{numids:integer id...}",
        },
        new("xread", -4, ReadOnly | Blocking, StreamCommands.XRead, keys: "RO access kw=STREAMS,1 r=-1,1,2", group: "stream",
            keyFinder: StreamCommands.ReadKeys)
        {
            Summary = "Returns the entries of one or more streams after the given IDs, waiting for new ones with BLOCK.",
            Since = "5.0.0", Complexity = "O(M) per stream, M = entries returned",
            Args = "[COUNT=count:integer] [BLOCK=milliseconds:integer] STREAMS=streams{key:key... id...}",
        },
        new("xreadgroup", -7, Write | Blocking, StreamCommands.XReadGroup, keys: "RO access kw=STREAMS,4 r=-1,1,2", group: "stream",
            keyFinder: StreamCommands.ReadKeys)
        {
            Summary = "Reads a stream as a consumer of a group: new entries with '>', or the consumer's pending ones after an ID; can wait with BLOCK.",
            Since = "5.0.0", Complexity = "O(M) per stream, M = entries returned",
            Args = "GROUP=group-block{group consumer} [COUNT=count:integer] [BLOCK=milliseconds:integer] [NOACK] "
                   + "STREAMS=streams{key:key... id...}",
        },
        new("xtrim", -4, Write, StreamCommands.XTrim, keys: "RW delete", group: "stream")
        {
            Summary = "Removes the oldest entries of a stream, down to a length or up to an ID (whole nodes only with ~).",
            Since = "5.0.0", Complexity = "O(N), N = entries removed",
            Args = "key:key " + StreamTrimArgs + " [" + DeletePolicyArgs + "@8.2.0]",
            History = "6.2.0: Trimming by MINID and LIMIT; 8.2.0: KEEPREF, DELREF and ACKED, for what trimming does to consumer groups' references",
            Tips = "nondeterministic_output",
        },
        new("xinfo", -2, None, ServerCommands.Help, group: "stream")
        {
            Summary = "Subcommands that show a stream's state and its consumer groups.",
            Since = "5.0.0", Complexity = "See each subcommand.",
            Subcommands =
            [
                new("consumers", 4, ReadOnly, StreamCommands.XInfoConsumers, keys: "RO access i=2")
                {
                    Summary = "Returns the consumers of a consumer group: pending entries and idle and inactive times.",
                    Since = "5.0.0", Complexity = "O(N), N = consumers", Args = "key:key group",
                    History = "7.2.0: Added the `inactive` field.",
                    Tips = "nondeterministic_output",
                },
                new("groups", 3, ReadOnly, StreamCommands.XInfoGroups, keys: "RO access i=2")
                {
                    Summary = "Returns the consumer groups of a stream: consumers, pending entries, last delivered ID, entries read and lag.",
                    Since = "5.0.0", Complexity = "O(N), N = groups", Args = "key:key",
                    History = "7.0.0: Added the `entries-read` and `lag` fields",
                },
                new("stream", -3, ReadOnly, StreamCommands.XInfoStream, keys: "RO access i=2")
                {
                    Summary = "Returns a stream's length, node counts, IDs and edge entries; with FULL, its entries and groups in detail.",
                    Since = "5.0.0", Complexity = "O(1); with FULL, O(N) for the entries and pending entries shown",
                    Args = "key:key [full-block{FULL [COUNT=count:integer]}]",
                    History = "6.0.0: Added the `FULL` modifier.; "
                        + "7.0.0: Added the `max-deleted-entry-id`, `entries-added`, `recorded-first-entry-id`, `entries-read` and `lag` fields; "
                        + "7.2.0: Added the `active-time` field, and changed the meaning of `seen-time`.",
                },
                new("help", 2, LS, StreamCommands.XInfoHelp)
                {
                    Summary = "Lists the XINFO subcommands.",
                    Since = "5.0.0", Complexity = "O(1)",
                },
            ],
        },
        // Argument names are 7.2's (7.0 said groupname, consumername, ID, new_id, entries_read).
        new("xgroup", -2, None, ServerCommands.Help, group: "stream")
        {
            Summary = "Subcommands that manage the consumer groups of a stream.",
            Since = "5.0.0", Complexity = "See each subcommand.",
            Subcommands =
            [
                new("create", -5, Write | DenyOom, StreamCommands.XGroup, keys: "RW insert i=2")
                {
                    Summary = "Makes a consumer group on a stream, optionally creating the stream.",
                    Since = "5.0.0", Complexity = "O(1)",
                    Args = "key:key group " + GroupIdArgs + " [MKSTREAM] [ENTRIESREAD=entries-read:integer]",
                    History = "7.0.0: Added the `entries_read` named argument.",
                },
                new("setid", -5, Write, StreamCommands.XGroup, keys: "RW update i=2")
                {
                    Summary = "Moves a consumer group's last delivered ID.",
                    Since = "5.0.0", Complexity = "O(1)",
                    Args = "key:key group " + GroupIdArgs + " [ENTRIESREAD=entriesread:integer]",
                    History = "7.0.0: Added the optional `entries_read` argument.",
                },
                new("destroy", 4, Write, StreamCommands.XGroup, keys: "RW delete i=2")
                {
                    Summary = "Removes a consumer group with its consumers and pending entries.",
                    Since = "5.0.0", Complexity = "O(N), N = entries pending in the group", Args = "key:key group",
                },
                new("createconsumer", 5, Write | DenyOom, StreamCommands.XGroup, keys: "RW insert i=2")
                {
                    Summary = "Adds a consumer to a consumer group.",
                    Since = "6.2.0", Complexity = "O(1)", Args = "key:key group consumer",
                },
                new("delconsumer", 5, Write, StreamCommands.XGroup, keys: "RW delete i=2")
                {
                    Summary = "Removes a consumer from a consumer group, dropping its pending entries.",
                    Since = "5.0.0", Complexity = "O(1)", Args = "key:key group consumer",
                },
                new("help", 2, LS, StreamCommands.XGroupHelp)
                {
                    Summary = "Lists the XGROUP subcommands.",
                    Since = "5.0.0", Complexity = "O(1)",
                },
            ],
        },
        new("xack", -4, Write | Fast, StreamCommands.XAck, keys: "RW update", group: "stream")
        {
            Summary = "Acknowledges entries of a consumer group: removes them from its pending entries list.",
            Since = "5.0.0", Complexity = "O(log N) per ID, N = entries pending in the group", Args = "key:key group id...",
        },
        new("xackdel", -6, Write | Fast, StreamCommands.XAckDel, keys: "RW update delete", group: "stream")
        {
            Summary = "Acknowledges entries of a consumer group and deletes them from the stream, unless (ACKED) another group still needs them; a status per ID.",
            Since = "8.2.0", Complexity = "O(1) per entry (times the groups, with DELREF or ACKED)",
            Args = "key:key group [" + DeletePolicyArgs + "] IDS=ids{numids:integer id...}",
        },
        new("xpending", -3, ReadOnly, StreamCommands.XPending, keys: "RO access", group: "stream")
        {
            Summary = "Returns a consumer group's pending entries: a summary, or the entries of a range.",
            Since = "5.0.0", Complexity = "O(log N + M), M = entries returned (or scanned with IDLE); the summary is O(consumers)",
            Args = "key:key group [filters{[IDLE=min-idle-time:integer@6.2.0] start end count:integer [consumer]}]",
            History = "6.2.0: Added the `IDLE` option and exclusive range intervals.",
            Tips = "nondeterministic_output",
        },
        new("xclaim", -6, Write | Fast, StreamCommands.XClaim, keys: "RW update", group: "stream")
        {
            Summary = "Gives a consumer pending entries of its group that were idle long enough.",
            Since = "5.0.0", Complexity = "O(log N) per ID, N = entries pending in the group",
            Args = "key:key group consumer min-idle-time id... [IDLE=ms:integer] [TIME=unix-time-milliseconds:unix-time] "
                + "[RETRYCOUNT=count:integer] [FORCE] [JUSTID] [LASTID=lastid]",
            Tips = "nondeterministic_output",
        },
        new("xautoclaim", -6, Write | Fast, StreamCommands.XAutoClaim, keys: "RW delete", group: "stream")
        {
            Summary = "Gives a consumer the pending entries of its group, from an ID on, that were idle long enough.",
            Since = "6.2.0", Complexity = "O(log N + COUNT)",
            Args = "key:key group consumer min-idle-time start [COUNT=count:integer] [JUSTID]",
            History = "7.0.0: Added an element to the reply array, containing deleted entries the command cleared from the PEL",
            Tips = "nondeterministic_output",
        },
    ];
}
