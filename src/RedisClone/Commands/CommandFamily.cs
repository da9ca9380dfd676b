using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Commands;

/// <summary>
/// COMMAND and its subcommands (COUNT, DOCS, GETKEYS, GETKEYSANDFLAGS, INFO, LIST, HELP): the
/// command table described back to clients, from the <see cref="CommandDef"/> entries and their
/// parsed <see cref="CommandMetadata"/>. redis-cli builds its hints from COMMAND DOCS; cluster-aware
/// clients read key positions and tips from COMMAND INFO.
/// </summary>
/// <remarks>
/// Replies follow Redis 7's layout field for field, including its mix of sets, maps and arrays in
/// RESP3. Redis lists commands and subcommands in hash-table order, which changes between runs; we
/// list them in table order.
/// </remarks>
internal static class CommandFamily
{
    private static readonly HelpReply HelpText = new("COMMAND",
        "(no subcommand)",
        "    Describe every command of this server, each in COMMAND INFO's format.",
        "COUNT",
        "    How many top-level commands this server has (subcommands not counted).",
        "LIST",
        "    The name of every command and subcommand (\"client|kill\"). FILTERBY followed by",
        "    MODULE <name>, ACLCAT <category> or PATTERN <glob> keeps only the matching ones.",
        "INFO [<command-name> ...]",
        "    For each name, its arity, flags, key positions, ACL categories and tips (nil for",
        "    a name we do not know); with no name, the same for every command.",
        "DOCS [<command-name> ...]",
        "    For each name, its summary, group, version, complexity and arguments, as redis-cli",
        "    reads them for its hints; with no name, the same for every command.",
        "GETKEYS <full-command>",
        "    Find which of the arguments of <full-command> are keys, without running it.",
        "GETKEYSANDFLAGS <full-command>",
        "    As GETKEYS, each key paired with what the command does to it (RO, RW, access...).");

    /// <summary>COMMAND — COMMAND INFO of every command.</summary>
    public static void Command(ref CommandContext ctx)
    {
        var all = ctx.Server.Commands.All;
        ctx.Reply.ArrayHeader(all.Count);
        foreach (var def in all) WriteInfo(ctx.Reply, def);
    }

    /// <summary>COMMAND COUNT — the number of top-level commands.</summary>
    public static void CommandCount(ref CommandContext ctx) => ctx.Reply.Integer(ctx.Server.Commands.All.Count);

    /// <summary>COMMAND INFO [command-name ...] — one description per name (nil when unknown), or all.</summary>
    /// <remarks>Names may be "container|subcommand".</remarks>
    public static void CommandInfo(ref CommandContext ctx)
    {
        if (ctx.ArgCount == 2)
        {
            Command(ref ctx);
            return;
        }
        ctx.Reply.ArrayHeader(ctx.ArgCount - 2);
        for (int i = 2; i < ctx.ArgCount; i++)
        {
            var def = FindByFullName(ctx.Server.Commands, ctx.Arg(i));
            if (def == null) ctx.Reply.NullBulk();
            else WriteInfo(ctx.Reply, def);
        }
    }

    /// <summary>COMMAND DOCS [command-name ...] — a map from name to documentation; unknown names are left out.</summary>
    public static void CommandDocs(ref CommandContext ctx)
    {
        var w = ctx.Reply;
        if (ctx.ArgCount == 2)
        {
            var all = ctx.Server.Commands.All;
            w.MapHeader(all.Count);
            foreach (var def in all)
            {
                w.Bulk(def.FullName);
                WriteDocs(w, def);
            }
            return;
        }
        var found = new List<CommandDef>(ctx.ArgCount - 2);
        for (int i = 2; i < ctx.ArgCount; i++)
            if (FindByFullName(ctx.Server.Commands, ctx.Arg(i)) is { } def) found.Add(def);
        w.MapHeader(found.Count);
        foreach (var def in found)
        {
            w.Bulk(def.FullName);
            WriteDocs(w, def);
        }
    }

    /// <summary>COMMAND GETKEYS command [arg ...] — the keys the command would use.</summary>
    public static void CommandGetKeys(ref CommandContext ctx) => GetKeys(ref ctx, withFlags: false);

    /// <summary>COMMAND GETKEYSANDFLAGS command [arg ...] — each key with its key-spec flags.</summary>
    public static void CommandGetKeysAndFlags(ref CommandContext ctx) => GetKeys(ref ctx, withFlags: true);

    /// <summary>COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern] — command and subcommand names.</summary>
    /// <remarks>No modules exist, so a module filter matches nothing; patterns match names in any case.</remarks>
    public static void CommandList(ref CommandContext ctx)
    {
        int mode = 0; // 0 all, 1 module, 2 category, 3 pattern
        if (ctx.ArgCount != 2)
        {
            if (ctx.ArgCount != 5 || !ctx.ArgIs(2, "FILTERBY"))
            {
                ctx.Syntax();
                return;
            }
            if (ctx.ArgIs(3, "MODULE")) mode = 1;
            else if (ctx.ArgIs(3, "ACLCAT")) mode = 2;
            else if (ctx.ArgIs(3, "PATTERN")) mode = 3;
            else
            {
                ctx.Syntax();
                return;
            }
        }
        var category = mode == 2 ? CommandMetadata.CategoryByName(ctx.Arg(4)) : AclCategories.None;
        var pattern = mode == 3 ? ctx.Arg(4).ToArray() : null;
        var names = new List<string>();
        foreach (var def in ctx.Server.Commands.All)
        {
            Add(def);
            if (def.Subcommands != null)
                foreach (var sub in def.Subcommands) Add(sub);
        }
        ctx.Reply.ArrayHeader(names.Count);
        foreach (var name in names) ctx.Reply.Bulk(name);

        void Add(CommandDef def)
        {
            bool keep = mode switch
            {
                0 => true,
                2 => (CommandMetadata.Of(def).Acl & category) != 0,
                3 => GlobMatcher.IsMatch(pattern, System.Text.Encoding.UTF8.GetBytes(def.FullName), nocase: true),
                _ => false,
            };
            if (keep) names.Add(def.FullName);
        }
    }

    /// <summary>COMMAND HELP — what the subcommands do.</summary>
    public static void CommandHelp(ref CommandContext ctx) => HelpText.Write(ref ctx);

    /// <summary>"get", "client|kill" (any case), or null; more than one '|' names nothing, as in Redis.</summary>
    internal static CommandDef? FindByFullName(CommandTable table, ReadOnlySpan<byte> name)
    {
        int bar = name.IndexOf((byte)'|');
        if (bar < 0) return table.Find(name);
        var rest = name.Slice(bar + 1);
        if (rest.IndexOf((byte)'|') >= 0) return null;
        return table.Find(name.Slice(0, bar))?.FindSubcommand(rest);
    }

    private static void GetKeys(ref CommandContext ctx, bool withFlags)
    {
        // The command under test starts at argument 2; look it up as the dispatcher would.
        int argc = ctx.ArgCount - 2;
        var def = ctx.Server.Commands.Find(ctx.Arg(2));
        if (def?.Subcommands != null && argc >= 2) def = def.FindSubcommand(ctx.Arg(3));
        if (def == null)
        {
            ctx.Error(RespErrors.InvalidCommandSpecified);
            return;
        }
        if (!CommandMetadata.HasKeys(def))
        {
            ctx.Error(RespErrors.CommandHasNoKeys);
            return;
        }
        if (!def.ArityOk(argc))
        {
            ctx.Error(RespErrors.InvalidArgumentCountForCommand);
            return;
        }

        var args = new byte[argc][];
        for (int i = 0; i < argc; i++) args[i] = ctx.Arg(i + 2).ToArray();
        var keys = KeysWithFlags(ctx.Server, ctx.Client, def, args, ctx.NowMs);

        if (keys.Count == 0)
        {
            if ((def.Flags & CommandFlags.NoMandatoryKeys) != 0) ctx.Reply.ArrayHeader(0);
            else ctx.Error(RespErrors.InvalidArgumentsForCommand);
            return;
        }
        var w = ctx.Reply;
        w.ArrayHeader(keys.Count);
        foreach (var (position, flags) in keys)
        {
            if (!withFlags)
            {
                w.Bulk(args[position]);
                continue;
            }
            w.ArrayHeader(2);
            w.Bulk(args[position]);
            WriteKeySpecFlags(w, flags);
        }
    }

    /// <summary>
    /// The positions of the keys in <paramref name="args"/> (args[0] is the command's name) with the
    /// flags of their key specs, as Redis's getKeysFromCommandWithSpecs finds them: the specs, else the
    /// command's own finder. COMMAND GETKEYS and the ACL key checks use it.
    /// </summary>
    public static List<(int Position, KeySpecFlags Flags)> KeysWithFlags(RedisServer server, ClientSession client, CommandDef def,
        byte[][] args, long nowMs)
    {
        var keys = new List<(int Position, KeySpecFlags Flags)>();
        if (!CommandMetadata.TryGetKeysFromSpecs(def, args, keys) && def.KeyFinder != null)
            FindWithKeyFinder(server, client, def, args, nowMs, keys);
        return keys;
    }

    /// <summary>
    /// Movable keys the specs cannot follow: run the command's own finder over a copy of its
    /// arguments. The finder gives positions only, so each key takes the flags of the spec that starts
    /// at its position, else of the first spec that is not at a fixed index.
    /// </summary>
    private static void FindWithKeyFinder(RedisServer server, ClientSession client, CommandDef def, byte[][] args, long nowMs,
        List<(int Position, KeySpecFlags Flags)> keys)
    {
        var buffer = new CommandBuffer();
        buffer.BeginCommand();
        foreach (var arg in args) arg.CopyTo(buffer.AddArg(arg.Length));
        buffer.EndCommand();
        var inner = new CommandContext(buffer, 0, new RespWriter(NullBufferWriter.Instance, client.Protocol),
            client, server, nowMs);
        Span<int> positions = stackalloc int[256];
        int count = def.KeyFinder!(ref inner, positions);
        var meta = CommandMetadata.Of(def);
        var specs = meta.KeySpecs;
        // A finder asking for every gate (a count past its span) fills the span by repeating its keys.
        var listed = count > positions.Length ? new HashSet<int>() : null;
        for (int k = 0; k < Math.Min(count, positions.Length); k++)
        {
            if (listed != null && !listed.Add(positions[k])) continue;
            var flags = KeySpecFlags.None;
            foreach (var spec in specs)
                if (spec.Begin == BeginSearch.Index && spec.Index == positions[k]) { flags = spec.Flags; break; }
            if (flags == KeySpecFlags.None)
                foreach (var spec in specs)
                    if (spec.Begin != BeginSearch.Index) { flags = spec.Flags; break; }
            if (flags == KeySpecFlags.None && specs.Length > 0) flags = specs[0].Flags;
            // The finder's command may know better which role a key plays (SORT's STORE destination).
            if (meta.VarFlags != null) flags = meta.VarFlags(args, positions[k], flags);
            keys.Add((positions[k], flags & ~(KeySpecFlags.Incomplete | KeySpecFlags.VariableFlags)));
        }
    }

    // --- COMMAND INFO layout

    private static void WriteInfo(RespWriter w, CommandDef def)
    {
        var meta = CommandMetadata.Of(def);
        w.ArrayHeader(10);
        w.Bulk(def.FullName);
        w.Integer(def.Arity);

        int n = 0;
        foreach (var (flag, _) in CommandMetadata.FlagNames)
            if ((meta.Flags & flag) != 0) n++;
        w.SetHeader(n);
        foreach (var (flag, name) in CommandMetadata.FlagNames)
            if ((meta.Flags & flag) != 0) w.SimpleString(name);

        w.Integer(def.FirstKey);
        w.Integer(def.LastKey);
        w.Integer(def.Step);

        var names = CommandMetadata.CategoryNames;
        w.SetHeader(System.Numerics.BitOperations.PopCount((uint)meta.Acl));
        for (int i = 0; i < names.Length; i++)
            if (((uint)meta.Acl & (1u << i)) != 0) w.SimpleString("@" + names[i]);

        w.SetHeader(meta.Tips.Length);
        foreach (var tip in meta.Tips) w.Bulk(tip);

        w.SetHeader(meta.KeySpecs.Length);
        foreach (var spec in meta.KeySpecs) WriteKeySpec(w, spec);

        if (def.Subcommands == null)
        {
            w.SetHeader(0);
            return;
        }
        w.ArrayHeader(def.Subcommands.Length);
        foreach (var sub in def.Subcommands) WriteInfo(w, sub);
    }

    private static void WriteKeySpec(RespWriter w, KeySpec spec)
    {
        w.MapHeader(spec.Notes != null ? 4 : 3);
        if (spec.Notes != null)
        {
            w.Bulk("notes"u8);
            w.Bulk(spec.Notes);
        }
        w.Bulk("flags"u8);
        WriteKeySpecFlags(w, spec.Flags);

        w.Bulk("begin_search"u8);
        w.MapHeader(2);
        w.Bulk("type"u8);
        switch (spec.Begin)
        {
            case BeginSearch.Index:
                w.Bulk("index"u8);
                w.Bulk("spec"u8);
                w.MapHeader(1);
                w.Bulk("index"u8);
                w.Integer(spec.Index);
                break;
            case BeginSearch.Keyword:
                w.Bulk("keyword"u8);
                w.Bulk("spec"u8);
                w.MapHeader(2);
                w.Bulk("keyword"u8);
                w.Bulk(spec.Keyword!);
                w.Bulk("startfrom"u8);
                w.Integer(spec.Index);
                break;
            default:
                w.Bulk("unknown"u8);
                w.Bulk("spec"u8);
                w.MapHeader(0);
                break;
        }

        w.Bulk("find_keys"u8);
        w.MapHeader(2);
        w.Bulk("type"u8);
        switch (spec.Find)
        {
            case FindKeys.Range:
                w.Bulk("range"u8);
                w.Bulk("spec"u8);
                w.MapHeader(3);
                w.Bulk("lastkey"u8);
                w.Integer(spec.LastKeyOrNumIdx);
                w.Bulk("keystep"u8);
                w.Integer(spec.KeyStep);
                w.Bulk("limit"u8);
                w.Integer(spec.Limit);
                break;
            case FindKeys.KeyNum:
                w.Bulk("keynum"u8);
                w.Bulk("spec"u8);
                w.MapHeader(3);
                w.Bulk("keynumidx"u8);
                w.Integer(spec.LastKeyOrNumIdx);
                w.Bulk("firstkey"u8);
                w.Integer(spec.FirstKey);
                w.Bulk("keystep"u8);
                w.Integer(spec.KeyStep);
                break;
            default:
                w.Bulk("unknown"u8);
                w.Bulk("spec"u8);
                w.MapHeader(0);
                break;
        }
    }

    private static void WriteKeySpecFlags(RespWriter w, KeySpecFlags flags)
    {
        var names = CommandMetadata.KeySpecFlagNames;
        w.SetHeader(System.Numerics.BitOperations.PopCount((uint)flags));
        for (int i = 0; i < names.Length; i++)
            if (((int)flags & (1 << i)) != 0) w.SimpleString(names[i]);
    }

    // --- COMMAND DOCS layout

    private static void WriteDocs(RespWriter w, CommandDef def)
    {
        var meta = CommandMetadata.Of(def);
        bool deprecated = meta.DeprecatedSince != null;
        int docFlags = (deprecated ? 1 : 0) + (meta.SysCmd ? 1 : 0);
        bool complexity = meta.Complexity.Length > 0; // MONITOR has none in Redis's docs
        int fields = 3 + (complexity ? 1 : 0) + (docFlags > 0 ? 1 : 0) + (deprecated ? 1 : 0) + (meta.ReplacedBy != null ? 1 : 0)
            + (meta.History.Length > 0 ? 1 : 0) + (meta.Args.Length > 0 ? 1 : 0) + (def.Subcommands != null ? 1 : 0);
        w.MapHeader(fields);
        w.Bulk("summary"u8);
        w.Bulk(meta.Summary);
        w.Bulk("since"u8);
        w.Bulk(meta.Since);
        w.Bulk("group"u8);
        w.Bulk(meta.Group);
        if (complexity)
        {
            w.Bulk("complexity"u8);
            w.Bulk(meta.Complexity);
        }
        if (docFlags > 0)
        {
            w.Bulk("doc_flags"u8);
            w.SetHeader(docFlags);
            if (deprecated) w.SimpleString("deprecated"u8);
            if (meta.SysCmd) w.SimpleString("syscmd"u8);
        }
        if (deprecated)
        {
            w.Bulk("deprecated_since"u8);
            w.Bulk(meta.DeprecatedSince!);
        }
        if (meta.ReplacedBy != null)
        {
            w.Bulk("replaced_by"u8);
            w.Bulk(meta.ReplacedBy);
        }
        if (meta.History.Length > 0)
        {
            w.Bulk("history"u8);
            w.SetHeader(meta.History.Length);
            foreach (var (version, text) in meta.History)
            {
                w.ArrayHeader(2);
                w.Bulk(version);
                w.Bulk(text);
            }
        }
        if (meta.Args.Length > 0)
        {
            w.Bulk("arguments"u8);
            WriteArgs(w, meta.Args);
        }
        if (def.Subcommands != null)
        {
            w.Bulk("subcommands"u8);
            w.MapHeader(def.Subcommands.Length);
            foreach (var sub in def.Subcommands)
            {
                w.Bulk(sub.FullName);
                WriteDocs(w, sub);
            }
        }
    }

    private static void WriteArgs(RespWriter w, CommandArg[] args)
    {
        w.ArrayHeader(args.Length);
        foreach (var a in args)
        {
            int flags = (a.Optional ? 1 : 0) + (a.Multiple ? 1 : 0) + (a.MultipleToken ? 1 : 0);
            bool nested = a.Type is ArgType.OneOf or ArgType.Block;
            int fields = 2 + (a.KeySpecIndex >= 0 ? 1 : 0) + (a.Token != null ? 1 : 0) + (a.Since != null ? 1 : 0)
                + (a.DeprecatedSince != null ? 1 : 0) + (flags > 0 ? 1 : 0) + (nested ? 1 : 0);
            w.MapHeader(fields);
            w.Bulk("name"u8);
            w.Bulk(a.Name);
            w.Bulk("type"u8);
            w.Bulk(a.TypeName);
            if (a.KeySpecIndex >= 0)
            {
                w.Bulk("key_spec_index"u8);
                w.Integer(a.KeySpecIndex);
            }
            if (a.Token != null)
            {
                w.Bulk("token"u8);
                w.Bulk(a.Token);
            }
            if (a.Since != null)
            {
                w.Bulk("since"u8);
                w.Bulk(a.Since);
            }
            if (a.DeprecatedSince != null)
            {
                w.Bulk("deprecated_since"u8);
                w.Bulk(a.DeprecatedSince);
            }
            if (flags > 0)
            {
                w.Bulk("flags"u8);
                w.SetHeader(flags);
                if (a.Optional) w.SimpleString("optional"u8);
                if (a.Multiple) w.SimpleString("multiple"u8);
                if (a.MultipleToken) w.SimpleString("multiple_token"u8);
            }
            if (nested)
            {
                w.Bulk("arguments"u8);
                WriteArgs(w, a.Children ?? []);
            }
        }
    }
}
