using static RedisClone.Commands.CommandFlags;
using static RedisClone.Commands.Routing;

namespace RedisClone.Commands;

/// <summary>
/// The registry: one row per command, from which arity checks, key routing, COMMAND, COMMAND INFO,
/// COMMAND DOCS and COMMAND GETKEYS are derived. Adding a command is one row plus one handler.
/// Arity, flags and key positions are Redis 7's.
/// </summary>
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

    private static CommandDef Sub(string name, int arity, CommandFlags flags, CommandHandler handler, int firstKey = 0,
        int lastKey = 0, int step = 0, Routing routing = Connection)
        => new(name, arity, flags, firstKey, lastKey, step, handler, firstKey > 0 ? Keys : routing);

    /// <summary>Every row: the core families here, the data-type families in CommandTable.*.cs.</summary>
    private static IEnumerable<CommandDef> Build() =>
        [.. CoreRows(), .. ListRows(), .. HashRows(), .. SetRows(), .. SortedSetRows(), .. SortRows(), .. TransactionRows(), .. PubSubRows(), .. BlockingRows()];

    private static IEnumerable<CommandDef> CoreRows()
    {
        const CommandFlags LS = Loading | Stale;
        const CommandFlags Adm = Admin | NoScript | Loading | Stale;
        const CommandFlags Cli = NoScript | Loading | Stale;
        const CommandFlags Clu = Admin | Stale | NoAsyncLoading;
        return
        [
            //  name           arity  flags                            first last step handler
            // --- strings
            new("get",             2, ReadOnly | Fast,                     1,  1, 1, StringCommands.Get, group: "string"),
            new("set",            -3, Write | DenyOom,                     1,  1, 1, StringCommands.Set, group: "string"),
            new("setnx",           3, Write | DenyOom | Fast,              1,  1, 1, StringCommands.SetNx, group: "string"),
            new("setex",           4, Write | DenyOom,                     1,  1, 1, StringCommands.SetEx, group: "string"),
            new("psetex",          4, Write | DenyOom,                     1,  1, 1, StringCommands.PSetEx, group: "string"),
            new("getset",          3, Write | DenyOom | Fast,              1,  1, 1, StringCommands.GetSet, group: "string"),
            new("getdel",          2, Write | Fast,                        1,  1, 1, StringCommands.GetDel, group: "string"),
            new("getex",          -2, Write | Fast,                        1,  1, 1, StringCommands.GetEx, group: "string"),
            new("mget",           -2, ReadOnly | Fast,                     1, -1, 1, StringCommands.MGet, group: "string"),
            new("mset",           -3, Write | DenyOom,                     1, -1, 2, StringCommands.MSet, group: "string"),
            new("msetnx",         -3, Write | DenyOom,                     1, -1, 2, StringCommands.MSetNx, group: "string"),
            new("incr",            2, Write | DenyOom | Fast,              1,  1, 1, StringCommands.Incr, group: "string"),
            new("incrby",          3, Write | DenyOom | Fast,              1,  1, 1, StringCommands.IncrBy, group: "string"),
            new("decr",            2, Write | DenyOom | Fast,              1,  1, 1, StringCommands.Decr, group: "string"),
            new("decrby",          3, Write | DenyOom | Fast,              1,  1, 1, StringCommands.DecrBy, group: "string"),
            new("incrbyfloat",     3, Write | DenyOom | Fast,              1,  1, 1, StringCommands.IncrByFloat, group: "string"),
            new("append",          3, Write | DenyOom | Fast,              1,  1, 1, StringCommands.Append, group: "string"),
            new("strlen",          2, ReadOnly | Fast,                     1,  1, 1, StringCommands.StrLen, group: "string"),
            new("getrange",        4, ReadOnly,                            1,  1, 1, StringCommands.GetRange, group: "string"),
            new("substr",          4, ReadOnly,                            1,  1, 1, StringCommands.GetRange, group: "string"),
            new("setrange",        4, Write | DenyOom,                     1,  1, 1, StringCommands.SetRange, group: "string"),
            new("lcs",            -3, ReadOnly,                            1,  2, 1, StringCommands.Lcs, group: "string"),

            // --- keys
            new("del",            -2, Write,                               1, -1, 1, KeyCommands.Del),
            new("unlink",         -2, Write | Fast,                        1, -1, 1, KeyCommands.Del),
            new("exists",         -2, ReadOnly | Fast,                     1, -1, 1, KeyCommands.Exists),
            new("touch",          -2, ReadOnly | Fast,                     1, -1, 1, KeyCommands.Touch),
            new("type",            2, ReadOnly | Fast,                     1,  1, 1, KeyCommands.Type),
            new("rename",          3, Write,                               1,  2, 1, KeyCommands.Rename),
            new("renamenx",        3, Write | Fast,                        1,  2, 1, KeyCommands.RenameNx),
            new("copy",           -3, Write | DenyOom,                     1,  2, 1, KeyCommands.Copy),
            new("move",            3, Write | Fast,                        1,  1, 1, KeyCommands.Move),
            new("keys",            2, ReadOnly,                            0,  0, 0, KeyCommands.Keys, AllShards),
            new("scan",           -2, ReadOnly,                            0,  0, 0, KeyCommands.Scan, ScanCursor),
            new("randomkey",       1, ReadOnly,                            0,  0, 0, KeyCommands.RandomKey, AllShards),
            new("dbsize",          1, ReadOnly | Fast,                     0,  0, 0, KeyCommands.DbSize, AllShards, "server"),
            new("flushdb",        -1, Write,                               0,  0, 0, KeyCommands.FlushDb, AllShards, "server"),
            new("flushall",       -1, Write,                               0,  0, 0, KeyCommands.FlushAll, AllShards, "server"),
            new("swapdb",          3, Write | Fast,                        0,  0, 0, KeyCommands.SwapDb, AllShards, "server"),
            new("expire",         -3, Write | Fast,                        1,  1, 1, KeyCommands.Expire),
            new("pexpire",        -3, Write | Fast,                        1,  1, 1, KeyCommands.PExpire),
            new("expireat",       -3, Write | Fast,                        1,  1, 1, KeyCommands.ExpireAt),
            new("pexpireat",      -3, Write | Fast,                        1,  1, 1, KeyCommands.PExpireAt),
            new("ttl",             2, ReadOnly | Fast,                     1,  1, 1, KeyCommands.Ttl),
            new("pttl",            2, ReadOnly | Fast,                     1,  1, 1, KeyCommands.PTtl),
            new("expiretime",      2, ReadOnly | Fast,                     1,  1, 1, KeyCommands.ExpireTime),
            new("pexpiretime",     2, ReadOnly | Fast,                     1,  1, 1, KeyCommands.PExpireTime),
            new("persist",         2, Write | Fast,                        1,  1, 1, KeyCommands.Persist),
            new("object",         -2, None,                                0,  0, 0, ServerCommands.Help, subcommands:
            [
                Sub("encoding",    3, ReadOnly, KeyCommands.ObjectEncoding, 2, 2, 1),
                Sub("freq",        3, ReadOnly, KeyCommands.ObjectFreq, 2, 2, 1),
                Sub("idletime",    3, ReadOnly, KeyCommands.ObjectIdleTime, 2, 2, 1),
                Sub("refcount",    3, ReadOnly, KeyCommands.ObjectRefCount, 2, 2, 1),
                Sub("help",        2, LS, KeyCommands.ObjectHelp),
            ]),

            // --- connection
            new("ping",           -1, Fast,                                0,  0, 0, ConnectionCommands.Ping, group: "connection"),
            new("echo",            2, LS | Fast,                           0,  0, 0, ConnectionCommands.Echo, group: "connection"),
            new("select",          2, LS | Fast,                           0,  0, 0, ConnectionCommands.Select, group: "connection"),
            new("quit",           -1, Cli | Fast | NoAuth | AllowBusy,     0,  0, 0, ConnectionCommands.Quit, group: "connection"),
            new("reset",           1, Cli | Fast | NoAuth | AllowBusy,     0,  0, 0, ConnectionCommands.Reset, group: "connection"),
            new("monitor",         1, Adm,                                 0,  0, 0, ConnectionCommands.Monitor, group: "server"),
            new("hello",          -1, Cli | Fast | NoAuth | AllowBusy,     0,  0, 0, ConnectionCommands.Hello, group: "connection"),
            new("auth",           -2, Cli | Fast | NoAuth | AllowBusy,     0,  0, 0, ConnectionCommands.Auth, group: "connection"),
            new("client",         -2, None,                                0,  0, 0, ServerCommands.Help, group: "connection", subcommands:
            [
                Sub("id",          2, Cli, ConnectionCommands.ClientId),
                Sub("setname",     3, Cli, ConnectionCommands.ClientSetName),
                Sub("getname",     2, Cli, ConnectionCommands.ClientGetName),
                Sub("setinfo",     4, Cli, ConnectionCommands.ClientSetInfo),
                Sub("list",       -2, Adm, ConnectionCommands.ClientList),
                Sub("info",        2, Cli, ConnectionCommands.ClientInfo),
                Sub("kill",       -3, Adm, ConnectionCommands.ClientKill),
                Sub("unblock",    -3, Adm, BlockingCommands.ClientUnblock),
                Sub("no-evict",    3, Adm, ConnectionCommands.ClientNoEvict),
                Sub("no-touch",    3, Cli, ConnectionCommands.ClientNoTouch),
                Sub("reply",       3, Cli, ConnectionCommands.ClientReply),
                Sub("getredir",    2, Cli, ConnectionCommands.ClientGetRedir),
                Sub("pause",      -3, Adm, ConnectionCommands.ClientPause),
                Sub("unpause",     2, Adm, ConnectionCommands.ClientUnpause),
                Sub("help",        2, LS, ConnectionCommands.ClientHelp),
            ]),

            // --- server
            new("info",           -1, LS,                                  0,  0, 0, ServerCommands.Info, group: "server"),
            new("config",         -2, None,                                0,  0, 0, ServerCommands.Help, group: "server", subcommands:
            [
                Sub("get",        -3, Adm, ServerCommands.ConfigGet),
                Sub("set",        -4, Adm, ServerCommands.ConfigSet),
                Sub("resetstat",   2, Adm, ServerCommands.ConfigResetStat),
                Sub("rewrite",     2, Adm, ServerCommands.ConfigRewrite),
                Sub("help",        2, LS, ServerCommands.ConfigHelp),
            ]),
            new("command",        -1, LS,                                  0,  0, 0, ServerCommands.Command, group: "server", subcommands:
            [
                Sub("count",       2, LS, ServerCommands.CommandCount),
                Sub("docs",       -2, LS, ServerCommands.CommandDocs),
                Sub("getkeys",    -4, LS, ServerCommands.CommandGetKeys),
                Sub("getkeysandflags", -4, LS, ServerCommands.CommandGetKeysAndFlags),
                Sub("info",       -2, LS, ServerCommands.CommandInfo),
                Sub("list",       -2, LS, ServerCommands.CommandList),
                Sub("help",        2, LS, ServerCommands.CommandHelp),
            ]),
            new("time",            1, LS | Fast,                           0,  0, 0, ServerCommands.Time, group: "server"),
            new("lastsave",        1, LS | Fast,                           0,  0, 0, ServerCommands.LastSave, group: "server"),
            new("debug",          -2, Adm,                                 0,  0, 0, DebugCommands.Debug, AllShards, "server"),
            new("shutdown",       -1, Adm | NoMulti | AllowBusy,           0,  0, 0, ServerCommands.Shutdown, group: "server"),
            // Every subcommand goes to one handler (it answers that cluster support is disabled); the rows
            // exist so arity checks, unknown-subcommand errors and COMMAND INFO match Redis.
            new("cluster",        -2, None,                                0,  0, 0, ServerCommands.Cluster, group: "cluster", subcommands:
            [
                Sub("addslots",   -3, Clu, ServerCommands.Cluster),
                Sub("addslotsrange", -4, Clu, ServerCommands.Cluster),
                Sub("bumpepoch",   2, Clu, ServerCommands.Cluster),
                Sub("count-failure-reports", 3, Admin | Stale, ServerCommands.Cluster),
                Sub("countkeysinslot", 3, Stale, ServerCommands.Cluster),
                Sub("delslots",   -3, Clu, ServerCommands.Cluster),
                Sub("delslotsrange", -4, Clu, ServerCommands.Cluster),
                Sub("failover",   -2, Clu, ServerCommands.Cluster),
                Sub("flushslots",  2, Clu, ServerCommands.Cluster),
                Sub("forget",      3, Clu, ServerCommands.Cluster),
                Sub("getkeysinslot", 4, Stale, ServerCommands.Cluster),
                Sub("help",        2, LS, ServerCommands.Cluster),
                Sub("info",        2, Stale, ServerCommands.Cluster),
                Sub("keyslot",     3, Stale, ServerCommands.Cluster),
                Sub("links",       2, Stale, ServerCommands.Cluster),
                Sub("meet",       -4, Clu, ServerCommands.Cluster),
                Sub("myid",        2, Stale, ServerCommands.Cluster),
                Sub("nodes",       2, Stale, ServerCommands.Cluster),
                Sub("replicas",    3, Admin | Stale, ServerCommands.Cluster),
                Sub("replicate",   3, Clu, ServerCommands.Cluster),
                Sub("reset",      -2, Admin | NoScript | Stale, ServerCommands.Cluster),
                Sub("saveconfig",  2, Clu, ServerCommands.Cluster),
                Sub("set-config-epoch", 3, Clu, ServerCommands.Cluster),
                Sub("setslot",    -4, Clu, ServerCommands.Cluster),
                Sub("shards",      2, Stale, ServerCommands.Cluster),
                Sub("slaves",      3, Admin | Stale, ServerCommands.Cluster),
                Sub("slots",       2, Stale, ServerCommands.Cluster),
            ]),
        ];
    }
}
