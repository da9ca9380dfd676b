using System.Security.Cryptography;
using System.Text;

namespace RedisClone.Commands.Acl;

/// <summary>
/// An ACL user: a name and its current rules (<see cref="State"/>). Connections hold the user they
/// authenticated as; its rules are replaced whole by ACL SETUSER, so a connection sees the new rules
/// from its next command on, as in Redis.
/// </summary>
internal sealed class AclUser
{
    private volatile AclUserState _state;

    public AclUser(string name, AclUserState state)
    {
        Name = name;
        NameBytes = Encoding.Latin1.GetBytes(name);
        state.Publish();
        _state = state;
    }

    public string Name { get; }
    public byte[] NameBytes { get; }

    /// <summary>The rules now in force; never changed once published (replace it instead).</summary>
    public AclUserState State
    {
        get => _state;
        set
        {
            value.Publish();
            _state = value;
        }
    }
}

/// <summary>
/// A user's flags, password hashes and selectors (the first is the root). Built by applying rules to
/// a copy (<see cref="Clone"/>), then published whole (<see cref="AclUser.State"/>).
/// </summary>
internal sealed class AclUserState
{
    public bool Enabled { get; private set; }
    public bool NoPass { get; private set; }
    public bool SkipSanitizePayload { get; private set; }

    /// <summary>SHA-256 hex digests of the passwords, in the order added.</summary>
    public List<string> Passwords { get; private set; } = [];

    public List<AclSelector> Selectors { get; private set; } = [];

    public AclSelector Root => Selectors[0];

    /// <summary>A new user: off, no password, no permissions (channels per acl-pubsub-default).</summary>
    public static AclUserState Empty(bool allChannels)
    {
        var state = new AclUserState();
        state.Selectors.Add(new AclSelector(root: true, allChannels));
        return state;
    }

    /// <summary>Redis's default user: on, nopass, ~* &amp;* +@all.</summary>
    public static AclUserState Default(bool allChannels)
    {
        var state = Empty(allChannels);
        foreach (var op in new[] { "+@all", "~*", "&*", "on", "nopass" }) state.Apply(op, allChannels);
        return state;
    }

    /// <summary>
    /// Every command, key and channel through the root selector: the per-command check is skipped.
    /// Fixed when the state is published (one field read per command on the hot path).
    /// </summary>
    public bool Unrestricted { get; private set; }

    /// <summary>Called as the state becomes a user's rules: it is not changed after this.</summary>
    public void Publish() => Unrestricted = Root.Unrestricted;

    public AclUserState Clone() => new()
    {
        Enabled = Enabled,
        NoPass = NoPass,
        SkipSanitizePayload = SkipSanitizePayload,
        Passwords = [.. Passwords],
        Selectors = Selectors.Select(s => s.Clone()).ToList(),
    };

    /// <summary>
    /// Applies one rule (ACLSetUser's vocabulary). Returns null, or the reason it was refused in
    /// Redis's words (without the "Error in ACL SETUSER modifier" prefix).
    /// </summary>
    /// <param name="allChannels">acl-pubsub-default is allchannels: new selectors and "reset" start with &amp;*.</param>
    public string? Apply(string op, bool allChannels)
    {
        if (op.Length == 0) return null;
        if (Is(op, "on")) Enabled = true;
        else if (Is(op, "off")) Enabled = false;
        else if (Is(op, "skip-sanitize-payload")) SkipSanitizePayload = true;
        else if (Is(op, "sanitize-payload")) SkipSanitizePayload = false;
        else if (Is(op, "nopass"))
        {
            NoPass = true;
            Passwords.Clear();
        }
        else if (Is(op, "resetpass"))
        {
            NoPass = false;
            Passwords.Clear();
        }
        else if (op[0] == '>' || op[0] == '#')
        {
            string hash;
            if (op[0] == '>') hash = Hash(op.AsSpan(1));
            else if (!IsHash(op.AsSpan(1))) return ErrorText(AclSelector.RuleError.BadHash);
            else hash = op.Substring(1);
            if (!Passwords.Contains(hash)) Passwords.Add(hash);
            NoPass = false;
        }
        else if (op[0] == '<' || op[0] == '!')
        {
            string hash;
            if (op[0] == '<') hash = Hash(op.AsSpan(1));
            else if (!IsHash(op.AsSpan(1))) return ErrorText(AclSelector.RuleError.BadHash);
            else hash = op.Substring(1);
            if (!Passwords.Remove(hash)) return ErrorText(AclSelector.RuleError.NoSuchPassword);
        }
        else if (op[0] == '(' && op[^1] == ')')
        {
            var selector = new AclSelector(root: false, allChannels);
            foreach (var inner in AclRules.SplitArgs(op.Substring(1, op.Length - 2)) ?? [])
            {
                var error = selector.Apply(inner);
                if (error != AclSelector.RuleError.None) return ErrorText(error);
            }
            Selectors.Add(selector);
        }
        else if (Is(op, "clearselectors"))
        {
            Selectors.RemoveRange(1, Selectors.Count - 1);
        }
        else if (Is(op, "reset"))
        {
            NoPass = false;
            Passwords.Clear();
            Root.Apply("resetkeys");
            Root.Apply("resetchannels");
            if (allChannels) Root.Apply("allchannels");
            Enabled = false;
            SkipSanitizePayload = false;
            Selectors.RemoveRange(1, Selectors.Count - 1);
            Root.Apply("-@all");
        }
        else
        {
            var error = Root.Apply(op);
            if (error != AclSelector.RuleError.None) return ErrorText(error);
        }
        return null;
    }

    /// <summary>Redis's ACLSetUserStringError texts.</summary>
    public static string ErrorText(AclSelector.RuleError error) => error switch
    {
        AclSelector.RuleError.UnknownCommand => "Unknown command or category name in ACL",
        AclSelector.RuleError.Syntax => "Syntax error",
        AclSelector.RuleError.KeyAfterAll => "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns",
        AclSelector.RuleError.ChannelAfterAll => "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels",
        AclSelector.RuleError.NoSuchPassword => "The password you are trying to remove from the user does not exist",
        AclSelector.RuleError.BadHash => "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters",
        AclSelector.RuleError.FirstArgOfSubcommand => "Allowing first-arg of a subcommand is not supported",
        _ => "Wrong format",
    };

    /// <summary>True when <paramref name="password"/> is one of the user's (any password with nopass).</summary>
    public bool CheckPassword(ReadOnlySpan<byte> password)
    {
        if (NoPass) return true;
        var hash = Encoding.ASCII.GetBytes(Hash(password));
        foreach (var p in Passwords)
            if (CryptographicOperations.FixedTimeEquals(hash, Encoding.ASCII.GetBytes(p))) return true;
        return false;
    }

    /// <summary>SHA-256 of the password as 64 lower-case hex digits, as Redis stores passwords.</summary>
    public static string Hash(ReadOnlySpan<byte> password) => Convert.ToHexStringLower(SHA256.HashData(password));

    private static string Hash(ReadOnlySpan<char> password) => Hash(Encoding.Latin1.GetBytes(password.ToArray()));

    private static bool IsHash(ReadOnlySpan<char> text)
    {
        if (text.Length != 64) return false;
        foreach (char c in text)
            if (!(c is >= '0' and <= '9' or >= 'a' and <= 'f')) return false;
        return true;
    }

    private static bool Is(string op, string word) => string.Equals(op, word, StringComparison.OrdinalIgnoreCase);

    /// <summary>The user as ACL LIST shows it after its name: flags, password hashes, root selector, other selectors.</summary>
    public string Describe()
    {
        var text = new StringBuilder();
        foreach (var flag in Flags()) text.Append(flag).Append(' ');
        foreach (var p in Passwords) text.Append('#').Append(p).Append(' ');
        text.Append(Root.Describe());
        for (int i = 1; i < Selectors.Count; i++) text.Append(" (").Append(Selectors[i].Describe()).Append(')');
        return text.ToString();
    }

    /// <summary>The flags in Redis's order: on/off, nopass, skip-sanitize-payload/sanitize-payload.</summary>
    public IEnumerable<string> Flags()
    {
        yield return Enabled ? "on" : "off";
        if (NoPass) yield return "nopass";
        yield return SkipSanitizePayload ? "skip-sanitize-payload" : "sanitize-payload";
    }
}
