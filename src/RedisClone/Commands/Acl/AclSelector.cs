using System.Text;
using RedisClone.Common;

namespace RedisClone.Commands.Acl;

/// <summary>How a key pattern lets keys be used: %R~ reads, %W~ writes, ~ both.</summary>
[Flags]
internal enum KeyAccess { None = 0, Read = 1, Write = 2, All = Read | Write }

/// <summary>What an ACL check found: allowed, or which kind of argument was refused.</summary>
/// <remarks>Ordered as Redis ranks them when several selectors fail: a key beats the command, a channel beats a key.</remarks>
internal enum AclResult { Ok = 0, DeniedCommand = 1, DeniedKey = 2, DeniedChannel = 3, DeniedAuth = 4 }

/// <summary>
/// One set of permissions of a user, as Redis 7's selectors: which commands (a bit per command and
/// subcommand of the table, plus first arguments allowed of commands otherwise refused), which keys
/// (glob patterns, each for reading, writing or both) and which Pub/Sub channels. A user has a root
/// selector (its rules outside parentheses) and any number of others; a command runs when one
/// selector allows all of it.
/// </summary>
/// <remarks>
/// Once a selector belongs to a published user state it is never changed: ACL SETUSER works on a
/// copy (<see cref="Clone"/>) and publishes the result whole, so checks on other threads need no lock.
/// The command rules are kept in the order given, as Redis 7.2 keeps them, so GETUSER and LIST
/// describe them back as written (a later rule for the same command replaces the earlier one).
/// </remarks>
internal sealed class AclSelector
{
    private ulong[] _allowed;

    /// <param name="allChannels">acl-pubsub-default: new selectors start with every channel or none.</param>
    public AclSelector(bool root, bool allChannels)
    {
        IsRoot = root;
        AllChannels = allChannels;
        _allowed = new ulong[(CommandTable.Instance.Count + 63) / 64];
    }

    public bool IsRoot { get; }

    /// <summary>Every command, and any added later (+@all / allcommands, until -@all or a command is removed).</summary>
    public bool AllCommands { get; private set; }

    /// <summary>Set by +@all and cleared only by -@all: what decides whether the description starts with +@all.</summary>
    public bool FutureCommands { get; private set; }

    public bool AllKeys { get; private set; }
    public bool AllChannels { get; private set; }

    /// <summary>Key patterns in the order added, with the access each grants.</summary>
    public List<(string Pattern, byte[] Bytes, KeyAccess Access)> Keys { get; private set; } = [];

    /// <summary>Channel patterns in the order added.</summary>
    public List<(string Pattern, byte[] Bytes)> Channels { get; private set; } = [];

    /// <summary>The +/- command and category rules, in order, lower case ("+get", "-@write", "+select|0").</summary>
    private List<string> _rules = [];

    /// <summary>Allowed first arguments of commands whose bit is clear (Redis's allowed_firstargs), by command id.</summary>
    private Dictionary<int, List<string>>? _firstArgs;

    /// <summary>Every command, every key and every channel: the user costs nothing per command.</summary>
    public bool Unrestricted => AllCommands && AllKeys && AllChannels;

    public AclSelector Clone()
    {
        var copy = new AclSelector(IsRoot, AllChannels)
        {
            AllCommands = AllCommands,
            FutureCommands = FutureCommands,
            AllKeys = AllKeys,
            Keys = [.. Keys],
            Channels = [.. Channels],
            _rules = [.. _rules],
        };
        copy._allowed = (ulong[])_allowed.Clone();
        if (_firstArgs != null)
        {
            copy._firstArgs = new Dictionary<int, List<string>>();
            foreach (var (id, list) in _firstArgs) copy._firstArgs[id] = [.. list];
        }
        return copy;
    }

    // ------------------------------------------------------------------ rules

    /// <summary>Why a rule was refused, mapped to Redis's texts by <see cref="AclUser.ErrorText"/>.</summary>
    public enum RuleError { None, Syntax, UnknownCommand, KeyAfterAll, ChannelAfterAll, NoSuchPassword, BadHash, FirstArgOfSubcommand }

    /// <summary>Applies one selector rule (ACLSetSelector's vocabulary); the error if it is not one.</summary>
    public RuleError Apply(string op)
    {
        if (Is(op, "allkeys") || op == "~*")
        {
            AllKeys = true;
            Keys.Clear();
        }
        else if (Is(op, "resetkeys"))
        {
            AllKeys = false;
            Keys.Clear();
        }
        else if (Is(op, "allchannels") || op == "&*")
        {
            AllChannels = true;
            Channels.Clear();
        }
        else if (Is(op, "resetchannels"))
        {
            AllChannels = false;
            Channels.Clear();
        }
        else if (Is(op, "allcommands") || Is(op, "+@all"))
        {
            Array.Fill(_allowed, ulong.MaxValue);
            AllCommands = true;
            FutureCommands = true;
            _rules.Clear();
            _firstArgs = null;
        }
        else if (Is(op, "nocommands") || Is(op, "-@all"))
        {
            Array.Clear(_allowed);
            AllCommands = false;
            FutureCommands = false;
            _rules.Clear();
            _firstArgs = null;
        }
        else if (op.Length > 0 && (op[0] == '~' || op[0] == '%'))
        {
            return AddKeyPattern(op);
        }
        else if (op.Length > 0 && op[0] == '&')
        {
            if (AllChannels) return RuleError.ChannelAfterAll;
            var pattern = op.Substring(1);
            if (HasSpaces(pattern)) return RuleError.Syntax;
            if (!Channels.Exists(c => c.Pattern == pattern)) Channels.Add((pattern, Encoding.Latin1.GetBytes(pattern)));
            AllChannels = false;
        }
        else if (op.Length > 1 && (op[0] == '+' || op[0] == '-') && op[1] == '@')
        {
            var category = CommandMetadata.CategoryByName(Encoding.Latin1.GetBytes(op.Substring(2)));
            if (category == AclCategories.None) return RuleError.UnknownCommand;
            bool allow = op[0] == '+';
            UpdateRules(op.Substring(1), allow);
            foreach (var def in CommandTable.Instance.All) SetCategory(def, category, allow);
        }
        else if (op.Length > 0 && op[0] == '+')
        {
            return Allow(op.Substring(1));
        }
        else if (op.Length > 0 && op[0] == '-')
        {
            var def = Lookup(op.Substring(1));
            if (def == null) return RuleError.UnknownCommand;
            ChangePermission(def, false);
            UpdateRules(def.FullName, false);
        }
        else
        {
            return RuleError.Syntax;
        }
        return RuleError.None;
    }

    private RuleError AddKeyPattern(string op)
    {
        if (AllKeys) return RuleError.KeyAfterAll;
        var access = KeyAccess.None;
        int offset = 1;
        if (op[0] == '%')
        {
            for (; offset < op.Length; offset++)
            {
                char c = char.ToUpperInvariant(op[offset]);
                if (c == 'R' && (access & KeyAccess.Read) == 0) access |= KeyAccess.Read;
                else if (c == 'W' && (access & KeyAccess.Write) == 0) access |= KeyAccess.Write;
                else if (op[offset] == '~' && access != KeyAccess.None)
                {
                    offset++;
                    break;
                }
                else return RuleError.Syntax;
            }
        }
        else
        {
            access = KeyAccess.All;
        }
        if (access == KeyAccess.None) return RuleError.Syntax;
        // "%R" alone (no '~') runs off the end with the flags set: Redis then adds an empty pattern.
        var pattern = op.Substring(Math.Min(offset, op.Length));
        if (HasSpaces(pattern)) return RuleError.Syntax;
        int at = Keys.FindIndex(k => k.Pattern == pattern);
        if (at < 0) Keys.Add((pattern, Encoding.Latin1.GetBytes(pattern), access));
        else Keys[at] = (pattern, Keys[at].Bytes, Keys[at].Access | access);
        AllKeys = false;
        return RuleError.None;
    }

    private RuleError Allow(string name)
    {
        int bar = name.LastIndexOf('|');
        if (bar < 0)
        {
            var def = Lookup(name);
            if (def == null) return RuleError.UnknownCommand;
            ChangePermission(def, true);
            UpdateRules(def.FullName, true);
            return RuleError.None;
        }
        var command = Lookup(name.Substring(0, bar));
        if (command == null) return RuleError.UnknownCommand;
        if (command.Parent != null) return RuleError.FirstArgOfSubcommand;
        var first = name.Substring(bar + 1);
        if (first.Length == 0) return RuleError.Syntax;
        if (command.Subcommands != null)
        {
            var sub = Lookup(name);
            if (sub == null) return RuleError.UnknownCommand;
            ChangePermission(sub, true);
        }
        else
        {
            // SELECT|0-style rules: a first argument allowed of a command otherwise refused. Redis
            // logs a deprecation warning for them and still accepts them.
            var list = (_firstArgs ??= new Dictionary<int, List<string>>()).TryGetValue(command.Id, out var l) ? l : _firstArgs[command.Id] = [];
            if (!list.Exists(a => string.Equals(a, first, StringComparison.OrdinalIgnoreCase))) list.Add(first);
        }
        UpdateRules(name, true);
        return RuleError.None;
    }

    /// <summary>A command or "container|subcommand" by name, in any case; null if there is none.</summary>
    public static CommandDef? Lookup(string name)
    {
        var parts = name.Split('|');
        if (parts.Length is < 1 or > 2) return null;
        var def = CommandTable.Instance.Find(Encoding.Latin1.GetBytes(parts[0]));
        if (def == null) return null;
        if (parts.Length == 1 || def.Subcommands == null) return parts.Length == 1 ? def : null;
        return def.FindSubcommand(Encoding.Latin1.GetBytes(parts[1]));
    }

    private void SetBit(int id, bool allow)
    {
        if (allow) _allowed[id >> 6] |= 1UL << (id & 63);
        else
        {
            _allowed[id >> 6] &= ~(1UL << (id & 63));
            AllCommands = false;
        }
    }

    private bool GetBit(int id) => (_allowed[id >> 6] & (1UL << (id & 63))) != 0;

    /// <summary>Allows or refuses a command, and with a container every subcommand of it.</summary>
    private void ChangePermission(CommandDef def, bool allow)
    {
        SetBit(def.Id, allow);
        _firstArgs?.Remove(def.Id);
        if (def.Subcommands != null)
            foreach (var sub in def.Subcommands) SetBit(sub.Id, allow);
    }

    /// <summary>Redis walks containers then their subcommands, so a container in the category takes all its subcommands along.</summary>
    private void SetCategory(CommandDef def, AclCategories category, bool allow)
    {
        if ((CommandMetadata.Of(def).Acl & category) != 0) ChangePermission(def, allow);
        if (def.Subcommands != null)
            foreach (var sub in def.Subcommands) SetCategory(sub, category, allow);
    }

    /// <summary>Records a rule, dropping earlier rules for the same command (or its subcommands).</summary>
    private void UpdateRules(string rule, bool allow)
    {
        rule = rule.ToLowerInvariant();
        _rules.RemoveAll(r =>
        {
            var existing = r.AsSpan(1);
            return existing.SequenceEqual(rule) || (existing.Length > rule.Length && existing.StartsWith(rule) && existing[rule.Length] == '|');
        });
        _rules.Add((allow ? "+" : "-") + rule);
    }

    private static bool Is(string op, string word) => string.Equals(op, word, StringComparison.OrdinalIgnoreCase);

    /// <summary>Redis refuses spaces and NUL bytes in patterns and user names.</summary>
    public static bool HasSpaces(string s)
    {
        // C's isspace in the C locale, plus NUL.
        foreach (char c in s)
            if (c is ' ' or '\t' or '\n' or '\v' or '\f' or '\r' or '\0') return true;
        return false;
    }

    // ------------------------------------------------------------------ descriptions

    /// <summary>The command rules as ACL GETUSER's "commands" shows them: +@all or -@all, then the rules in order.</summary>
    public string DescribeCommands()
    {
        var text = new StringBuilder(FutureCommands ? "+@all" : "-@all");
        foreach (var rule in _rules) text.Append(' ').Append(rule);
        return text.ToString();
    }

    /// <summary>GETUSER's "keys": ~* or the patterns separated by spaces.</summary>
    public string DescribeKeys()
        => AllKeys ? "~*" : string.Join(' ', Keys.Select(k => KeyRule(k.Pattern, k.Access)));

    /// <summary>GETUSER's "channels": &amp;* or the patterns separated by spaces.</summary>
    public string DescribeChannels()
        => AllChannels ? "&*" : string.Join(' ', Channels.Select(c => "&" + c.Pattern));

    /// <summary>The selector as ACL LIST shows it: keys, channels, then commands.</summary>
    public string Describe()
    {
        var text = new StringBuilder();
        if (AllKeys) text.Append("~* ");
        else foreach (var k in Keys) text.Append(KeyRule(k.Pattern, k.Access)).Append(' ');
        if (AllChannels) text.Append("&* ");
        else
        {
            text.Append("resetchannels ");
            foreach (var c in Channels) text.Append('&').Append(c.Pattern).Append(' ');
        }
        text.Append(DescribeCommands());
        return text.ToString();
    }

    private static string KeyRule(string pattern, KeyAccess access) => access switch
    {
        KeyAccess.Read => "%R~" + pattern,
        KeyAccess.Write => "%W~" + pattern,
        _ => "~" + pattern,
    };

    // ------------------------------------------------------------------ checks

    /// <summary>Whether the selector lets <paramref name="def"/> run (the command itself, not its keys).</summary>
    public bool AllowsCommand(CommandDef def, ReadOnlySpan<byte> firstArg, bool hasFirstArg)
    {
        if (AllCommands || (def.Flags & CommandFlags.NoAuth) != 0 || GetBit(def.Id)) return true;
        if (!hasFirstArg || _firstArgs == null || !_firstArgs.TryGetValue(def.Id, out var allowed)) return false;
        foreach (var a in allowed)
            if (Ascii.EqualsIgnoreCase(firstArg, Encoding.Latin1.GetBytes(a))) return true;
        return false;
    }

    /// <summary>
    /// Whether every key is open for <paramref name="needed"/> (Redis's ACLSelectorHasUnrestrictedKeyAccess):
    /// allkeys, or a pattern that is exactly "*" granting that access (%R~* for reading).
    /// </summary>
    public bool AllowsEveryKey(KeyAccess needed)
    {
        if (AllKeys) return true;
        foreach (var (pattern, _, access) in Keys)
            if (pattern == "*" && (access & needed) == needed) return true;
        return false;
    }

    /// <summary>Whether the key may be used with the access its key spec says.</summary>
    public bool AllowsKey(ReadOnlySpan<byte> key, KeyAccess needed)
    {
        if (AllKeys) return true;
        foreach (var (_, bytes, access) in Keys)
            if ((access & needed) == needed && GlobMatcher.IsMatch(bytes, key)) return true;
        return false;
    }

    /// <summary>
    /// Whether the channel may be used: a channel name is matched against the patterns; a pattern
    /// (PSUBSCRIBE) only equals one literally.
    /// </summary>
    public bool AllowsChannel(ReadOnlySpan<byte> channel, bool isPattern)
    {
        if (AllChannels) return true;
        return ChannelInList(Channels, channel, isPattern);
    }

    public static bool ChannelInList(List<(string Pattern, byte[] Bytes)> list, ReadOnlySpan<byte> channel, bool isPattern)
    {
        foreach (var (_, bytes) in list)
            if (isPattern ? channel.SequenceEqual(bytes) : GlobMatcher.IsMatch(bytes, channel)) return true;
        return false;
    }
}
