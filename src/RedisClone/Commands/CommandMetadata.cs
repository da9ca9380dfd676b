using System.Runtime.CompilerServices;

namespace RedisClone.Commands;

/// <summary>ACL categories, declared in the order Redis lists them in COMMAND INFO and ACL CAT.</summary>
[Flags]
internal enum AclCategories : uint
{
    None = 0,
    Keyspace = 1 << 0,
    Read = 1 << 1,
    Write = 1 << 2,
    Set = 1 << 3,
    SortedSet = 1 << 4,
    List = 1 << 5,
    Hash = 1 << 6,
    String = 1 << 7,
    Bitmap = 1 << 8,
    HyperLogLog = 1 << 9,
    Geo = 1 << 10,
    Stream = 1 << 11,
    PubSub = 1 << 12,
    Admin = 1 << 13,
    Fast = 1 << 14,
    Slow = 1 << 15,
    Blocking = 1 << 16,
    Dangerous = 1 << 17,
    Connection = 1 << 18,
    Transaction = 1 << 19,
    Scripting = 1 << 20,
}

/// <summary>Key-spec flags, declared in the order Redis lists them.</summary>
[Flags]
internal enum KeySpecFlags : ushort
{
    None = 0,
    /// <summary>Read-only: the key's value is read, never changed.</summary>
    RO = 1 << 0,
    /// <summary>Read-write: the value is read and changed.</summary>
    RW = 1 << 1,
    /// <summary>Overwrite: the value is replaced without being read.</summary>
    OW = 1 << 2,
    /// <summary>Remove: the key is deleted.</summary>
    RM = 1 << 3,
    Access = 1 << 4,
    Update = 1 << 5,
    Insert = 1 << 6,
    Delete = 1 << 7,
    /// <summary>Looks like a key for routing but is not one (SPUBLISH's channel).</summary>
    NotKey = 1 << 8,
    /// <summary>The spec may miss some keys; GETKEYS falls back to the command's own finder.</summary>
    Incomplete = 1 << 9,
    /// <summary>The flags depend on the arguments; a hook in the metadata computes them.</summary>
    VariableFlags = 1 << 10,
}

/// <summary>How a key spec finds its first key.</summary>
internal enum BeginSearch { Index, Keyword, Unknown }

/// <summary>How a key spec finds the keys after the first.</summary>
internal enum FindKeys { Range, KeyNum, Unknown }

/// <summary>
/// One Redis 7 key spec: where the keys of one role (source, destination...) are in the arguments,
/// and what the command does to them.
/// </summary>
internal sealed class KeySpec
{
    public KeySpecFlags Flags;
    public string? Notes;
    public BeginSearch Begin;
    /// <summary>Index position, or the keyword search's start (negative counts from the end).</summary>
    public int Index;
    public string? Keyword;
    public FindKeys Find;
    /// <summary>Range: last key relative to the first (negative: from the end); keynum: index of the count.</summary>
    public int LastKeyOrNumIdx;
    /// <summary>Keynum: first key relative to the count's position.</summary>
    public int FirstKey;
    public int KeyStep = 1;
    /// <summary>Range with a negative last key: only 1/limit of the remaining arguments are keys.</summary>
    public int Limit;

    /// <summary>True when the keys are not at fixed positions (COMMAND INFO's "movablekeys").</summary>
    public bool IsMovable => Begin != BeginSearch.Index || Find != FindKeys.Range;
}

/// <summary>The types COMMAND DOCS gives arguments.</summary>
internal enum ArgType { String, Integer, Double, Key, Pattern, UnixTime, PureToken, OneOf, Block }

/// <summary>One argument of COMMAND DOCS: redis-cli builds its hints from these trees.</summary>
internal sealed class CommandArg
{
    public required string Name;
    public ArgType Type;
    public string? Token;
    public string? Since;
    public string? DeprecatedSince;
    /// <summary>For key arguments: the index of the key spec that finds this key.</summary>
    public int KeySpecIndex = -1;
    public bool Optional;
    public bool Multiple;
    public bool MultipleToken;
    /// <summary>Alternatives of a oneof, or the parts of a block.</summary>
    public CommandArg[]? Children;

    public string TypeName => Type switch
    {
        ArgType.Integer => "integer",
        ArgType.Double => "double",
        ArgType.Key => "key",
        ArgType.Pattern => "pattern",
        ArgType.UnixTime => "unix-time",
        ArgType.PureToken => "pure-token",
        ArgType.OneOf => "oneof",
        ArgType.Block => "block",
        _ => "string",
    };
}

/// <summary>
/// Computes the flags of a key whose spec says <see cref="KeySpecFlags.VariableFlags"/>, from the
/// command's arguments (<paramref name="args"/>[0] is the command name).
/// </summary>
internal delegate KeySpecFlags VariableKeyFlags(byte[][] args, int keyPosition, KeySpecFlags specFlags);

/// <summary>Everything COMMAND INFO and COMMAND DOCS say about one command, parsed from its table entry on first use.</summary>
internal sealed class CommandMeta
{
    public required string Summary;
    public required string Since;
    public required string Complexity;
    public required string Group;
    public string? DeprecatedSince;
    public string? ReplacedBy;
    public bool SysCmd;
    public (string Version, string Text)[] History = [];
    public string[] Tips = [];
    /// <summary>All categories: the explicit ones plus those implied by the flags.</summary>
    public AclCategories Acl;
    public KeySpec[] KeySpecs = [];
    public CommandArg[] Args = [];
    public VariableKeyFlags? VarFlags;
    /// <summary>The entry's flags plus "movablekeys" when a key spec is not index + range.</summary>
    public CommandFlags Flags;
}

/// <summary>
/// Command metadata: the documentation each <see cref="CommandDef"/> carries as text (see the
/// CommandTable.*.cs family files), parsed on first use. What can be derived is derived: the group
/// comes from the entry (a subcommand's from its parent), ACL categories from the group plus the
/// flags (Redis's rules), the legacy first/last/step from the key specs (<see cref="CommandDef.LegacyRange"/>).
/// </summary>
/// <remarks>
/// <para><b>Arguments</b> are written close to Redis's usage syntax, one item per argument:</para>
/// <list type="bullet">
/// <item><c>value</c> a string; <c>name:type</c> with type key, integer, double, pattern or unix-time.</item>
/// <item><c>NX</c> a pure token named "nx"; <c>len:LEN</c> a pure token with another name.</item>
/// <item><c>EX=seconds:integer</c> an argument introduced by a token (any case: <c>lib-name=libname</c>).</item>
/// <item><c>name(a | b)</c> one of the alternatives; <c>name{a b}</c> a block of arguments in sequence.</item>
/// <item><c>[item]</c> optional. Suffixes: <c>...</c> multiple, <c>+</c> the token repeats too,
/// <c>@7.0.0</c> since, <c>~2.8.12</c> deprecated since, <c>#0</c> key spec index (key arguments
/// otherwise count up from 0 in order).</item>
/// <item>A name holding ':' that is not followed by a type or a token stays a name (<c>ip:port</c>).</item>
/// <item><c>name:'~'</c> a pure token written in quotes, for tokens made of syntax characters (XADD's <c>=</c>, <c>~</c>, <c>*</c>).</item>
/// </list>
/// <para><b>Key specs</b> are separated by ';'. Each is its flags (<c>RW access update</c>...) and
/// optionally: <c>i=2</c> index, <c>kw=STREAMS,1</c> keyword and start, <c>bs=unknown</c>;
/// <c>r=-1,1,0</c> range (last, step, limit), <c>n=0,1,1</c> keynum (count index, first, step),
/// <c>fk=unknown</c>; and <c>-- notes</c> to the end of the spec. Without a begin search, spec n
/// (counting from 0) starts at index n+1; without find keys, it is one key (<c>r=0,1,0</c>). So
/// <c>RW insert</c> is a key at 1, <c>RO; OW</c> keys at 1 and 2, and <c>RO access r=-1,1,0</c>
/// every argument from 1 on. Subcommands count from the command name too: OBJECT ENCODING's key is
/// <c>i=2</c>.</para>
/// </remarks>
internal static partial class CommandMetadata
{
    private static readonly ConditionalWeakTable<CommandDef, CommandMeta> Resolved = new();

    /// <summary>The metadata of a command or subcommand, built on first use.</summary>
    public static CommandMeta Of(CommandDef def) => Resolved.GetValue(def, Resolve);

    private static CommandMeta Resolve(CommandDef def)
    {
        string group = def.Parent?.Group ?? def.Group;
        var meta = new CommandMeta
        {
            Summary = def.Summary,
            Since = def.Since,
            Complexity = def.Complexity,
            Group = group,
            DeprecatedSince = def.DeprecatedSince,
            ReplacedBy = def.ReplacedBy,
            SysCmd = def.SysCmd,
            VarFlags = def.VarFlags,
            KeySpecs = def.KeySpecs,
        };
        if (def.Tips != null) meta.Tips = def.Tips.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (def.History != null) meta.History = ParseHistory(def.History);
        meta.Args = def.Args != null ? ParseArgs(def.Args) : [];

        var explicitAcl = def.Acl != null ? ParseAcl(def.Acl) : def.Subcommands != null ? AclCategories.None : GroupCategory(group);
        meta.Acl = explicitAcl | ImpliedCategories(def.Flags, explicitAcl);

        meta.Flags = def.Flags;
        foreach (var spec in meta.KeySpecs)
            if (spec.IsMovable) meta.Flags |= CommandFlags.MovableKeys;
        if (def.KeyFinder != null) meta.Flags |= CommandFlags.MovableKeys;
        return meta;
    }

    /// <summary>The category every command of a doc group carries (Redis declares it per command; it always matches).</summary>
    private static AclCategories GroupCategory(string group) => group switch
    {
        "generic" => AclCategories.Keyspace,
        "string" => AclCategories.String,
        "list" => AclCategories.List,
        "hash" => AclCategories.Hash,
        "set" => AclCategories.Set,
        "sorted-set" => AclCategories.SortedSet,
        "stream" => AclCategories.Stream,
        "hyperloglog" => AclCategories.HyperLogLog,
        "geo" => AclCategories.Geo,
        "bitmap" => AclCategories.Bitmap,
        "pubsub" => AclCategories.PubSub,
        "connection" => AclCategories.Connection,
        "transactions" => AclCategories.Transaction,
        "scripting" => AclCategories.Scripting,
        _ => AclCategories.None,
    };

    /// <summary>Redis's implicit categories: from write/readonly/admin/pubsub/fast/blocking, and @slow when not fast.</summary>
    private static AclCategories ImpliedCategories(CommandFlags flags, AclCategories explicitAcl)
    {
        var acl = AclCategories.None;
        if ((flags & CommandFlags.Write) != 0) acl |= AclCategories.Write;
        // Read-only scripting commands (EVAL_RO...) are not put in @read: they may run anything.
        if ((flags & CommandFlags.ReadOnly) != 0 && (explicitAcl & AclCategories.Scripting) == 0) acl |= AclCategories.Read;
        if ((flags & CommandFlags.Admin) != 0) acl |= AclCategories.Admin | AclCategories.Dangerous;
        if ((flags & CommandFlags.PubSub) != 0) acl |= AclCategories.PubSub;
        if ((flags & CommandFlags.Fast) != 0) acl |= AclCategories.Fast;
        if ((flags & CommandFlags.Blocking) != 0) acl |= AclCategories.Blocking;
        if ((acl & AclCategories.Fast) == 0 && (explicitAcl & AclCategories.Fast) == 0) acl |= AclCategories.Slow;
        return acl;
    }

    /// <summary>ACL category names without '@', in reply order.</summary>
    public static readonly string[] CategoryNames =
    [
        "keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap", "hyperloglog",
        "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection",
        "transaction", "scripting",
    ];

    /// <summary>The category named <paramref name="name"/> (any case, no '@'), or None.</summary>
    public static AclCategories CategoryByName(ReadOnlySpan<byte> name)
    {
        for (int i = 0; i < CategoryNames.Length; i++)
            if (System.Text.Ascii.EqualsIgnoreCase(name, CategoryNames[i])) return (AclCategories)(1u << i);
        return AclCategories.None;
    }

    private static AclCategories ParseAcl(string text)
    {
        var acl = AclCategories.None;
        foreach (var word in text.Split(' ', StringSplitOptions.RemoveEmptyEntries))
        {
            int i = Array.IndexOf(CategoryNames, word.TrimStart('@'));
            if (i < 0) throw new FormatException($"unknown ACL category '{word}'");
            acl |= (AclCategories)(1u << i);
        }
        return acl;
    }

    /// <summary>The entry's flags as COMMAND INFO names them, in Redis's order (some flags are not shown).</summary>
    public static readonly (CommandFlags Flag, string Name)[] FlagNames =
    [
        (CommandFlags.Write, "write"), (CommandFlags.ReadOnly, "readonly"), (CommandFlags.DenyOom, "denyoom"),
        (CommandFlags.Admin, "admin"), (CommandFlags.PubSub, "pubsub"), (CommandFlags.NoScript, "noscript"),
        (CommandFlags.Blocking, "blocking"), (CommandFlags.Loading, "loading"), (CommandFlags.Stale, "stale"),
        (CommandFlags.SkipMonitor, "skip_monitor"), (CommandFlags.SkipSlowlog, "skip_slowlog"), (CommandFlags.Asking, "asking"),
        (CommandFlags.Fast, "fast"), (CommandFlags.NoAuth, "no_auth"),
        (CommandFlags.NoMandatoryKeys, "no_mandatory_keys"), (CommandFlags.NoAsyncLoading, "no_async_loading"),
        (CommandFlags.NoMulti, "no_multi"), (CommandFlags.MovableKeys, "movablekeys"),
        (CommandFlags.AllowBusy, "allow_busy"),
    ];

    /// <summary>Key-spec flag names in reply order, matching <see cref="KeySpecFlags"/>' bits.</summary>
    public static readonly string[] KeySpecFlagNames =
        ["RO", "RW", "OW", "RM", "access", "update", "insert", "delete", "not_key", "incomplete", "variable_flags"];

    // --- key specs

    /// <summary>Parses key specs written as described on <see cref="CommandMetadata"/>; <paramref name="command"/> names errors.</summary>
    internal static KeySpec[] ParseKeySpecs(string text, string command)
    {
        var parts = text.Split(';');
        var specs = new KeySpec[parts.Length];
        for (int n = 0; n < parts.Length; n++)
        {
            string part = parts[n];
            string? notes = null;
            int dash = part.IndexOf("--", StringComparison.Ordinal);
            if (dash >= 0)
            {
                notes = part.Substring(dash + 2).Trim();
                part = part.Substring(0, dash);
            }
            var spec = new KeySpec { Begin = BeginSearch.Index, Index = n + 1, Find = FindKeys.Range };
            spec.Notes = notes;
            foreach (var word in part.Split(' ', StringSplitOptions.RemoveEmptyEntries))
            {
                int eq = word.IndexOf('=');
                if (eq < 0)
                {
                    int bit = Array.IndexOf(KeySpecFlagNames, word);
                    if (bit < 0) throw new FormatException($"{command}: unknown key spec flag '{word}'");
                    spec.Flags |= (KeySpecFlags)(1 << bit);
                    continue;
                }
                string key = word.Substring(0, eq), value = word.Substring(eq + 1);
                var nums = value.Split(',');
                switch (key)
                {
                    case "i":
                        spec.Begin = BeginSearch.Index;
                        spec.Index = int.Parse(value);
                        break;
                    case "kw":
                        spec.Begin = BeginSearch.Keyword;
                        spec.Keyword = nums[0];
                        spec.Index = int.Parse(nums[1]);
                        break;
                    case "bs" when value == "unknown":
                        spec.Begin = BeginSearch.Unknown;
                        break;
                    case "r":
                        spec.Find = FindKeys.Range;
                        spec.LastKeyOrNumIdx = int.Parse(nums[0]);
                        spec.KeyStep = int.Parse(nums[1]);
                        spec.Limit = int.Parse(nums[2]);
                        break;
                    case "n":
                        spec.Find = FindKeys.KeyNum;
                        spec.LastKeyOrNumIdx = int.Parse(nums[0]);
                        spec.FirstKey = int.Parse(nums[1]);
                        spec.KeyStep = int.Parse(nums[2]);
                        break;
                    case "fk" when value == "unknown":
                        spec.Find = FindKeys.Unknown;
                        break;
                    default:
                        throw new FormatException($"{command}: bad key spec item '{word}'");
                }
            }
            specs[n] = spec;
        }
        return specs;
    }

    // --- history

    private static (string, string)[] ParseHistory(string text)
    {
        var items = text.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        var history = new (string, string)[items.Length];
        for (int i = 0; i < items.Length; i++)
        {
            int colon = items[i].IndexOf(':');
            history[i] = (items[i].Substring(0, colon).Trim(), items[i].Substring(colon + 1).Trim());
        }
        return history;
    }

    // --- arguments

    internal static CommandArg[] ParseArgs(string text)
    {
        var parser = new ArgParser(text);
        var args = parser.Sequence('\0');
        int keyIndex = -1;
        NumberKeys(args, ref keyIndex);
        return args;
    }

    private static void NumberKeys(CommandArg[] args, ref int last)
    {
        foreach (var a in args)
        {
            if (a.Type == ArgType.Key)
            {
                if (a.KeySpecIndex < 0) a.KeySpecIndex = last + 1;
                last = a.KeySpecIndex;
            }
            if (a.Children != null) NumberKeys(a.Children, ref last);
        }
    }

    /// <summary>Recursive descent over the argument syntax described on <see cref="CommandMetadata"/>.</summary>
    private ref struct ArgParser(string text)
    {
        private readonly string _text = text;
        private int _pos;

        public CommandArg[] Sequence(char end)
        {
            var items = new List<CommandArg>();
            while (true)
            {
                SkipSpaces();
                if (_pos == _text.Length)
                {
                    if (end != '\0') throw Error($"missing '{end}'");
                    break;
                }
                if (_text[_pos] == end)
                {
                    _pos++;
                    break;
                }
                items.Add(Item());
            }
            return items.ToArray();
        }

        private CommandArg[] Alternatives()
        {
            var items = new List<CommandArg>();
            while (true)
            {
                SkipSpaces();
                items.Add(Item());
                SkipSpaces();
                if (_pos == _text.Length) throw Error("missing ')'");
                char c = _text[_pos++];
                if (c == ')') break;
                if (c != '|') throw Error($"unexpected '{c}' in alternatives");
            }
            return items.ToArray();
        }

        private CommandArg Item()
        {
            if (_text[_pos] == '[')
            {
                _pos++;
                SkipSpaces();
                var inner = Item();
                SkipSpaces();
                if (_pos == _text.Length || _text[_pos] != ']') throw Error("missing ']'");
                _pos++;
                inner.Optional = true;
                return inner;
            }

            string word = Word();
            string? token = null;
            if (Peek('='))
            {
                _pos++;
                token = word;
                word = Word();
            }
            CommandArg arg;
            if (Peek('('))
            {
                _pos++;
                arg = new CommandArg { Name = word, Type = ArgType.OneOf, Children = Alternatives() };
            }
            else if (Peek('{'))
            {
                _pos++;
                arg = new CommandArg { Name = word, Type = ArgType.Block, Children = Sequence('}') };
            }
            else
            {
                arg = Leaf(word);
            }
            if (token != null) arg.Token = token;

            while (_pos < _text.Length)
            {
                if (string.CompareOrdinal(_text, _pos, "...", 0, 3) == 0)
                {
                    _pos += 3;
                    arg.Multiple = true;
                }
                else if (Peek('+'))
                {
                    _pos++;
                    arg.MultipleToken = true;
                }
                else if (Peek('@'))
                {
                    _pos++;
                    arg.Since = Version();
                }
                else if (Peek('~'))
                {
                    _pos++;
                    arg.DeprecatedSince = Version();
                }
                else if (Peek('#'))
                {
                    _pos++;
                    arg.KeySpecIndex = int.Parse(Version());
                }
                else break;
            }
            return arg;
        }

        private static CommandArg Leaf(string word)
        {
            int colon = word.LastIndexOf(':');
            if (colon > 0)
            {
                string name = word.Substring(0, colon), kind = word.Substring(colon + 1);
                ArgType? type = kind switch
                {
                    "key" => ArgType.Key,
                    "integer" => ArgType.Integer,
                    "double" => ArgType.Double,
                    "pattern" => ArgType.Pattern,
                    "unix-time" => ArgType.UnixTime,
                    "string" => ArgType.String,
                    _ => null,
                };
                if (type != null) return new CommandArg { Name = name, Type = type.Value };
                if (kind.Length > 2 && kind[0] == '\'' && kind[^1] == '\'')
                    return new CommandArg { Name = name, Type = ArgType.PureToken, Token = kind[1..^1] };
                if (IsToken(kind)) return new CommandArg { Name = name, Type = ArgType.PureToken, Token = kind };
            }
            if (IsToken(word)) return new CommandArg { Name = word.ToLowerInvariant(), Type = ArgType.PureToken, Token = word };
            return new CommandArg { Name = word, Type = ArgType.String };
        }

        private static bool IsToken(string word)
        {
            bool letter = false;
            foreach (char c in word)
            {
                if (char.IsAsciiLetterLower(c)) return false;
                letter |= char.IsAsciiLetterUpper(c);
            }
            return letter;
        }

        private string Word()
        {
            int start = _pos;
            while (_pos < _text.Length && !" \t()[]{}|=@~#+.".Contains(_text[_pos]))
            {
                // A quoted token ('=', '~', '*') may hold the characters that are syntax elsewhere.
                if (_text[_pos] == '\'') _pos = _text.IndexOf('\'', _pos + 1) is int q and >= 0 ? q : throw Error("missing quote");
                _pos++;
            }
            if (_pos == start) throw Error("expected a name");
            return _text.Substring(start, _pos - start);
        }

        private string Version()
        {
            int start = _pos;
            while (_pos < _text.Length && (char.IsAsciiDigit(_text[_pos]) || _text[_pos] == '.')) _pos++;
            // A version never ends with '.', so a following "..." stays a suffix.
            while (_pos > start && _text[_pos - 1] == '.') _pos--;
            if (_pos == start) throw Error("expected a version");
            return _text.Substring(start, _pos - start);
        }

        private readonly bool Peek(char c) => _pos < _text.Length && _text[_pos] == c;

        private void SkipSpaces()
        {
            while (_pos < _text.Length && _text[_pos] == ' ') _pos++;
        }

        private readonly FormatException Error(string what) => new($"argument syntax: {what} at {_pos} in \"{_text}\"");
    }
}
