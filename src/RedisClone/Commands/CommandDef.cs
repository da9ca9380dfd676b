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
    /// On the one shard a SCAN cursor (argument 1) is in: cursor mod shard count. A cursor that does
    /// not parse routes nowhere (runs on the connection's thread) and the handler replies the error.
    /// </summary>
    ScanCursor,
}

/// <summary>
/// One row of the command table: everything the dispatcher, COMMAND INFO and COMMAND GETKEYS need.
/// Arity follows Redis: it counts the command name; negative means "at least".
/// </summary>
internal sealed class CommandDef
{
    public CommandDef(string name, int arity, CommandFlags flags, int firstKey, int lastKey, int step,
        CommandHandler handler, Routing routing = Routing.Keys, string group = "generic",
        KeyFinder? keys = null, CommandDef[]? subcommands = null)
    {
        Name = name.ToLowerInvariant();
        Arity = arity;
        Flags = flags;
        FirstKey = firstKey;
        LastKey = lastKey;
        Step = step;
        Handler = handler;
        Routing = firstKey == 0 && keys == null && routing == Routing.Keys ? Routing.Connection : routing;
        Group = group;
        Keys = keys;
        Subcommands = subcommands;
        FullName = Name;
        if (subcommands != null)
            foreach (var sub in subcommands)
            {
                sub.Parent = this;
                sub.FullName = Name + "|" + sub.Name;
            }
    }

    /// <summary>Lower-case name, as COMMAND and error texts show it.</summary>
    public string Name { get; }

    /// <summary>"client|kill" for subcommands, else <see cref="Name"/>.</summary>
    public string FullName { get; private set; }

    public int Arity { get; }
    public CommandFlags Flags { get; }
    public int FirstKey { get; }
    public int LastKey { get; }
    public int Step { get; }
    public CommandHandler Handler { get; }
    public Routing Routing { get; }

    /// <summary>Redis's doc group: string, generic, connection, server...</summary>
    public string Group { get; }

    /// <summary>For commands whose keys are not at fixed positions (movable keys).</summary>
    public KeyFinder? Keys { get; }

    public CommandDef[]? Subcommands { get; }
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
}
