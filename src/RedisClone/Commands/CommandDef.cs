namespace RedisClone.Commands;

/// <summary>Runs one command. Arity is already checked; the gates it needs are held.</summary>
internal delegate void CommandHandler(ref CommandContext ctx);

/// <summary>Returns the argument indexes of a command's keys into <paramref name="keys"/> (count returned).</summary>
internal delegate int KeyFinder(ref CommandContext ctx, scoped Span<int> keys);

/// <summary>Redis's command flags, as COMMAND INFO names them.</summary>
[Flags]
internal enum CommandFlags : uint
{
    None = 0,
    Write = 1 << 0,
    ReadOnly = 1 << 1,
    DenyOom = 1 << 2,
    Admin = 1 << 3,
    PubSub = 1 << 4,
    NoScript = 1 << 5,
    Blocking = 1 << 6,
    Loading = 1 << 7,
    Stale = 1 << 8,
    SkipMonitor = 1 << 9,
    SkipSlowlog = 1 << 10,
    Fast = 1 << 11,
    NoAuth = 1 << 12,
    MayReplicate = 1 << 13,
    Sentinel = 1 << 14,
    OnlySentinel = 1 << 15,
    NoMandatoryKeys = 1 << 16,
    Protected = 1 << 17,
    NoAsyncLoading = 1 << 18,
    NoMulti = 1 << 19,
    MovableKeys = 1 << 20,
    AllowBusy = 1 << 21,
    /// <summary>Runs in a slot this cluster node is importing as if sent after ASKING (RESTORE-ASKING).</summary>
    Asking = 1 << 22,
}

/// <summary>Where a command runs (see the threading essay in Sharding/ShardSet.cs).</summary>
internal enum Routing
{
    /// <summary>On the shard(s) of its keys; atomic across shards when they differ.</summary>
    Keys,
    /// <summary>On the connection's thread, touching no keyspace (PING, CLIENT, CONFIG...).</summary>
    Connection,
    /// <summary>With every shard's gate held (FLUSHDB, KEYS, SWAPDB...).</summary>
    AllShards,
    /// <summary>
    /// A script (EVAL, FCALL...): with every shard's gate held, and always on a shard thread, never on
    /// an event loop, however free the gates are. A script may run for seconds; the loops must go on
    /// answering the other clients meanwhile (-BUSY once it passes busy-reply-threshold, and SCRIPT
    /// KILL). Costs a thread hop per script.
    /// </summary>
    Script,
    /// <summary>
    /// On the one shard a SCAN cursor (argument 1) is in: cursor mod shard count. A cursor that does
    /// not parse routes nowhere (runs on the connection's thread) and the handler replies the error.
    /// </summary>
    ScanCursor,
}

/// <summary>
/// One entry of the command table: everything the dispatcher, COMMAND INFO, COMMAND DOCS and COMMAND
/// GETKEYS need. The constructor takes what the dispatcher uses (name, arity, flags, handler, key
/// specs, routing); the initializer takes the documentation, parsed on first use by
/// <see cref="CommandMetadata"/>. Arity follows Redis: it counts the command name; negative means "at least".
/// </summary>
/// <remarks>
/// Key positions are stated once, as key specs (syntax on <see cref="CommandMetadata"/>). The legacy
/// first key, last key and step that COMMAND INFO prints and that routing uses are derived from them
/// the way Redis derives them (<see cref="LegacyRange"/>).
/// </remarks>
internal sealed class CommandDef
{
    public CommandDef(string name, int arity, CommandFlags flags, CommandHandler handler, string? keys = null,
        string group = "generic", Routing routing = Routing.Keys, KeyFinder? keyFinder = null)
    {
        Name = name.ToLowerInvariant();
        FullName = Name;
        Arity = arity;
        Flags = flags;
        Handler = handler;
        KeySpecs = keys != null ? CommandMetadata.ParseKeySpecs(keys, Name) : [];
        (FirstKey, LastKey, Step) = LegacyRange(KeySpecs);
        Routing = FirstKey == 0 && keyFinder == null && routing == Routing.Keys ? Routing.Connection : routing;
        Group = group;
        KeyFinder = keyFinder;
    }

    /// <summary>Lower-case name, as COMMAND and error texts show it.</summary>
    public string Name { get; }

    /// <summary>"client|kill" for subcommands, else <see cref="Name"/>.</summary>
    public string FullName { get; private set; }

    public int Arity { get; }
    public CommandFlags Flags { get; }

    /// <summary>Where the keys are and what the command does to them: the one statement of key positions.</summary>
    public KeySpec[] KeySpecs { get; }

    /// <summary>Redis's legacy key range, derived from <see cref="KeySpecs"/>: 0 when none is fixed.</summary>
    public int FirstKey { get; }
    /// <summary>Last key position; negative counts from the end (-1 is the last argument).</summary>
    public int LastKey { get; }
    public int Step { get; }
    public CommandHandler Handler { get; }
    public Routing Routing { get; }

    /// <summary>Redis's doc group: string, generic, connection, server...</summary>
    public string Group { get; }

    /// <summary>For commands whose keys are not at fixed positions (movable keys): gives the dispatcher their positions.</summary>
    public KeyFinder? KeyFinder { get; }

    // --- documentation, in the syntax described on CommandMetadata; parsed on first use

    public required string Since { get; init; }
    /// <summary>Our own words: what the command does.</summary>
    public required string Summary { get; init; }
    public required string Complexity { get; init; }
    /// <summary>The argument tree of COMMAND DOCS.</summary>
    public string? Args { get; init; }
    /// <summary>Space-separated command tips.</summary>
    public string? Tips { get; init; }
    /// <summary>ACL categories that the group and the flags do not imply.</summary>
    public string? Acl { get; init; }
    /// <summary>"version: change" items separated by ';'.</summary>
    public string? History { get; init; }
    public string? DeprecatedSince { get; init; }
    public string? ReplacedBy { get; init; }
    /// <summary>Redis's "syscmd" doc flag.</summary>
    public bool SysCmd { get; init; }
    /// <summary>Computes the flags of keys whose spec says variable_flags.</summary>
    public VariableKeyFlags? VarFlags { get; init; }

    public CommandDef[]? Subcommands
    {
        get;
        init
        {
            field = value;
            if (value == null) return;
            foreach (var sub in value)
            {
                sub.Parent = this;
                sub.FullName = Name + "|" + sub.Name;
            }
        }
    }

    public CommandDef? Parent { get; private set; }

    /// <summary>Index among all commands and subcommands, for per-server counters (CommandStats).</summary>
    public int Id { get; internal set; } = -1;

    /// <summary>True if <paramref name="argc"/> satisfies the arity rule.</summary>
    public bool ArityOk(int argc) => Arity >= 0 ? argc == Arity : argc >= -Arity;

    public CommandDef? FindSubcommand(ReadOnlySpan<byte> name)
    {
        if (Subcommands == null) return null;
        foreach (var sub in Subcommands)
            if (System.Text.Ascii.EqualsIgnoreCase(name, sub.Name)) return sub;
        return null;
    }

    /// <summary>
    /// The first key, last key and step of COMMAND INFO, from the key specs as Redis's
    /// populateCommandLegacyRangeSpec computes them: a lone index + range spec is the range itself;
    /// otherwise the index + range specs of step 1 that follow one another are joined, and the others
    /// (keyword, keynum, unknown, not adjacent) are left out. No such spec: 0, 0, 0.
    /// </summary>
    internal static (int First, int Last, int Step) LegacyRange(KeySpec[] specs)
    {
        static bool Fixed(KeySpec s) => s.Begin == BeginSearch.Index && s.Find == FindKeys.Range;
        static int Absolute(int index, int last) => last >= 0 ? index + last : last;

        if (specs.Length == 1 && Fixed(specs[0]))
            return (specs[0].Index, Absolute(specs[0].Index, specs[0].LastKeyOrNumIdx), specs[0].KeyStep);

        int first = int.MaxValue, last = 0, previousLast = 0;
        foreach (var spec in specs)
        {
            if (!Fixed(spec) || spec.KeyStep != 1 || (previousLast != 0 && previousLast != spec.Index - 1)) continue;
            first = Math.Min(first, spec.Index);
            // Compared unsigned, as Redis does, so a last key counted from the end (negative) wins.
            last = (int)Math.Max((uint)last, (uint)Absolute(spec.Index, spec.LastKeyOrNumIdx));
            previousLast = last;
        }
        return first == int.MaxValue ? (0, 0, 0) : (first, last, 1);
    }
}
