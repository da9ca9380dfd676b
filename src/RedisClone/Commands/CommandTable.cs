using static RedisClone.Commands.CommandFlags;
using static RedisClone.Commands.Routing;

namespace RedisClone.Commands;

/// <summary>
/// The registry: one entry per command, from which arity checks, key routing, COMMAND, COMMAND INFO,
/// COMMAND DOCS and COMMAND GETKEYS are derived. Adding a command is one entry in its family's file
/// (CommandTable.Lists.cs...) plus one handler. Arity, flags and key specs are Redis 7's.
/// </summary>
/// <remarks>
/// An entry is a <see cref="CommandDef"/>: the constructor says what the dispatcher needs, the
/// initializer documents the command for COMMAND DOCS and COMMAND INFO:
/// <code>
/// new("lpush", -3, Write | DenyOom | Fast, ListCommands.LPush, keys: "RW insert", group: "list")
/// {
///     Summary = "Adds elements at the head of a list, creating it when missing; returns the new length.",
///     Since = "1.0.0", Complexity = "O(1) per element added", Args = "key:key element...",
/// },
/// </code>
/// Key positions are written once, in the key specs; COMMAND INFO's first/last/step and the routing
/// of keys derive from them. Summaries and complexities are our own words; argument trees, key specs,
/// tips and ACL categories are Redis 7's facts (COMMAND INFO and the argument trees of COMMAND DOCS
/// must match redis-server byte for byte; a differential test checks every command). Only ACL
/// categories that the group and the flags do not imply are written. Key-spec notes are the one text
/// kept as Redis words it: it is part of the COMMAND INFO reply.
/// </remarks>
internal sealed partial class CommandTable
{
    public static readonly CommandTable Instance = new(Build());

    private const int BucketCount = 512;

    // Name lookup without allocating or converting: bucket by (length, first and last letter
    // folded to lower case), then a vectorised case-insensitive compare of the bytes.
    private readonly (byte[] Name, CommandDef Def)[][] _buckets;

    public CommandTable(IEnumerable<CommandDef> rows)
    {
        var map = new Dictionary<string, CommandDef>(StringComparer.OrdinalIgnoreCase);
        foreach (var row in rows) map.Add(row.Name, row);
        All = map.Values.OrderBy(d => d.Name, StringComparer.Ordinal).ToArray();
        int id = 0;
        foreach (var def in All)
        {
            def.Id = id++;
            if (def.Subcommands == null) continue;
            foreach (var sub in def.Subcommands) sub.Id = id++;
        }
        Count = id;
        var lists = new List<(byte[], CommandDef)>[BucketCount];
        foreach (var def in All)
        {
            var name = System.Text.Encoding.ASCII.GetBytes(def.Name);
            (lists[Bucket(name)] ??= new()).Add((name, def));
        }
        _buckets = lists.Select(l => l?.ToArray() ?? []).ToArray();
    }

    /// <summary>Every top-level command, sorted by name.</summary>
    public IReadOnlyList<CommandDef> All { get; }

    /// <summary>Commands plus subcommands: the range of <see cref="CommandDef.Id"/>.</summary>
    public int Count { get; }

    /// <summary>Finds a command by name in any case, without allocating.</summary>
    public CommandDef? Find(ReadOnlySpan<byte> name)
    {
        if (name.Length == 0) return null;
        foreach (var (candidate, def) in _buckets[Bucket(name)])
            if (candidate.Length == name.Length && System.Text.Ascii.EqualsIgnoreCase(candidate, name)) return def;
        return null;
    }

    private static int Bucket(ReadOnlySpan<byte> name)
        => (name.Length * 31 + (name[0] | 0x20) * 7 + (name[^1] | 0x20)) & (BucketCount - 1);

    // Flag sets several core families share.
    private const CommandFlags LS = Loading | Stale;
    private const CommandFlags Adm = Admin | NoScript | Loading | Stale;
    private const CommandFlags Cli = NoScript | Loading | Stale;

    /// <summary>Every entry, one family file (CommandTable.*.cs) each.</summary>
    private static IEnumerable<CommandDef> Build() =>
    [
        .. StringRows(), .. BitmapRows(), .. HyperLogLogRows(), .. KeyRows(), .. ConnectionRows(), .. ServerRows(), .. ListRows(),
        .. HashRows(), .. SetRows(), .. SortedSetRows(), .. GeoRows(), .. StreamRows(), .. SortRows(), .. TransactionRows(),
        .. PubSubRows(), .. BlockingRows(), .. ScriptingRows(), .. AclRows(), .. ReplicationMasterRows(), .. ReplicationReplicaRows(), .. FailoverRows(),
    ];
}
