using System.Text;
using RedisClone.Server;

namespace RedisClone.Commands.Acl;

/// <summary>
/// The server's ACL users (the "default" user always among them), the ACL log and the aclfile.
/// Changes (ACL SETUSER, DELUSER, LOAD, requirepass) take a lock and publish whole user states;
/// the per-command checks read a user's published state without one.
/// </summary>
internal sealed class AclStore
{
    private readonly RedisServer _server;
    private readonly object _gate = new();

    // Names compare as bytes (Latin-1 strings, ordinal), the order of Redis's radix tree.
    private SortedDictionary<string, AclUser> _users = new(StringComparer.Ordinal);
    private volatile bool _authRequired;

    public AclStore(RedisServer server)
    {
        _server = server;
        Default = new AclUser("default", AclUserState.Default(AllChannelsByDefault));
        _users.Add(Default.Name, Default);
        Log = new AclLog();
    }

    /// <summary>The user every new connection starts as.</summary>
    public AclUser Default { get; }

    public AclLog Log { get; }

    /// <summary>Redis's authRequired for a connection not yet authenticated: the default user has a password, or is off.</summary>
    public bool AuthRequired => _authRequired;

    private bool AllChannelsByDefault => _server.Config.AclPubSubDefaultAllChannels;

    private void Published() => _authRequired = !Default.State.NoPass || !Default.State.Enabled;

    /// <summary>
    /// A new connection (and RESET): the default user, authenticated at once when it is on and has
    /// nopass. Such a connection stays authenticated if a password is set later, as in Redis.
    /// </summary>
    public void SetDefaultAuth(ClientSession client)
    {
        client.User = Default;
        var state = Default.State;
        client.Authenticated = state.NoPass && state.Enabled;
    }

    public AclUser? Find(ReadOnlySpan<byte> name)
    {
        var key = Encoding.Latin1.GetString(name);
        lock (_gate) return _users.GetValueOrDefault(key);
    }

    /// <summary>Every user, by name.</summary>
    public List<AclUser> Users()
    {
        lock (_gate) return [.. _users.Values];
    }

    /// <summary>
    /// The user <paramref name="name"/> when <paramref name="password"/> is one of its passwords (any,
    /// with nopass) and it is on; null otherwise (an AUTH failure, logged in the ACL log by the caller).
    /// </summary>
    public AclUser? Authenticate(ReadOnlySpan<byte> name, ReadOnlySpan<byte> password)
    {
        var user = Find(name);
        if (user == null) return null;
        var state = user.State;
        return state.Enabled && state.CheckPassword(password) ? user : null;
    }

    /// <summary>
    /// requirepass: the default user's passwords become this one (an empty value makes it nopass), as
    /// Redis 7 treats the old directive.
    /// </summary>
    public void SetRequirePass(string password)
    {
        lock (_gate)
        {
            var state = Default.State.Clone();
            state.Apply("resetpass", AllChannelsByDefault);
            state.Apply(password.Length == 0 ? "nopass" : ">" + password, AllChannelsByDefault);
            Default.State = state;
            Published();
        }
    }

    /// <summary>
    /// ACL SETUSER: applies every rule to a copy of the user (a new one if it does not exist) and
    /// publishes it only when all of them were valid. Returns the error text ("ERR ...") or null.
    /// </summary>
    /// <param name="current">The client running the command: closed after its reply instead of at once.</param>
    public string? SetUser(string name, IReadOnlyList<string> rules, ClientSession? current)
    {
        var merged = AclRules.MergeSelectors(rules, out int unmatched);
        if (merged == null) return $"ERR Unmatched parenthesis in acl selector starting at '{rules[unmatched]}'.";
        lock (_gate)
        {
            var existing = _users.GetValueOrDefault(name);
            var state = existing?.State.Clone() ?? AclUserState.Empty(AllChannelsByDefault);
            foreach (var rule in merged)
            {
                var error = state.Apply(rule, AllChannelsByDefault);
                if (error != null) return $"ERR Error in ACL SETUSER modifier '{rule}': {error}";
            }
            if (existing != null)
            {
                var old = existing.State;
                existing.State = state;
                KillSubscribersIfNeeded(existing, old, state);
            }
            else
            {
                _users.Add(name, new AclUser(name, state));
            }
            Published();
            return null;
        }
    }

    /// <summary>
    /// The "user name rules..." directive of the command line and the config file (and of an aclfile
    /// line): creates or replaces the user. Returns Redis's error text or null.
    /// </summary>
    /// <remarks>
    /// Redis collects these and applies them once the server is up; as no module can add commands
    /// later here, applying at once is the same. A second directive for the same user replaces it
    /// (Redis refuses a duplicate except for "default").
    /// </remarks>
    public string? ApplyUserDirective(string line)
    {
        var args = AclRules.SplitArgs(line);
        if (args == null || args.Count < 2 || !string.Equals(args[0], "user", StringComparison.OrdinalIgnoreCase))
            return "Bad directive or wrong number of arguments";
        return ApplyUser(args[1], args.Skip(2).ToList());
    }

    /// <summary>One user from the command line (<c>--user name rules...</c>) or a config file.</summary>
    public string? ApplyUser(string name, IReadOnlyList<string> rules)
    {
        if (AclSelector.HasSpaces(name)) return "Spaces not allowed in ACL usernames";
        var merged = AclRules.MergeSelectors(rules, out _);
        if (merged == null) return "Unmatched parenthesis in acl selector";
        var state = AclUserState.Empty(AllChannelsByDefault);
        foreach (var rule in merged)
        {
            var error = state.Apply(rule, AllChannelsByDefault);
            if (error != null) return $"Error in user declaration '{rule}': {error}";
        }
        lock (_gate)
        {
            if (_users.TryGetValue(name, out var existing)) existing.State = state;
            else _users.Add(name, new AclUser(name, state));
            Published();
        }
        if (!state.Enabled)
            _server.Log.Notice($"The user '{name}' is disabled (there is no 'on' modifier in the user description). Make sure this is not a configuration error.");
        return null;
    }

    /// <summary>
    /// ACL DELUSER: removes the users and closes their connections (the current one after its
    /// reply). "default" cannot be removed. Returns how many existed, or -1 when "default" was named.
    /// </summary>
    public int DeleteUsers(IReadOnlyList<string> names, ClientSession? current)
    {
        lock (_gate)
        {
            foreach (var name in names)
                if (name == "default") return -1;
            int deleted = 0;
            foreach (var name in names)
            {
                if (!_users.Remove(name, out var user)) continue;
                deleted++;
                KillClientsOf(user, current);
            }
            return deleted;
        }
    }

    /// <summary>Closes every connection authenticated as <paramref name="user"/> (Redis frees them asynchronously).</summary>
    private void KillClientsOf(AclUser user, ClientSession? current)
    {
        foreach (var client in _server.Clients.Values)
        {
            if (client.User != user) continue;
            client.User = Default;
            client.Authenticated = false;
            if (client == current) client.CloseAfterReply = true;
            else client.Kill();
        }
    }

    /// <summary>
    /// After a user's channel permissions shrank: closes its subscribed connections whose
    /// subscriptions the new rules no longer allow (Redis's ACLKillPubsubClientsIfNeeded).
    /// </summary>
    private void KillSubscribersIfNeeded(AclUser user, AclUserState old, AclUserState updated)
    {
        foreach (var s in updated.Selectors)
            if (s.AllChannels) return;
        var upcoming = updated.Selectors.SelectMany(s => s.Channels).ToList();
        bool superset = true;
        foreach (var s in old.Selectors)
        {
            if (s.AllChannels || !s.Channels.TrueForAll(c => upcoming.Exists(u => u.Pattern == c.Pattern)))
            {
                superset = false;
                break;
            }
        }
        if (superset) return;
        foreach (var client in _server.Clients.Values)
        {
            if (client.User != user || !client.InPubSubMode) continue;
            bool kill = false;
            foreach (var pattern in client.Subscriptions(1))
                kill |= !AclSelector.ChannelInList(upcoming, pattern, isPattern: true);
            foreach (var channel in client.Subscriptions(0))
                kill |= !AclSelector.ChannelInList(upcoming, channel, isPattern: false);
            foreach (var channel in client.Subscriptions(2))
                kill |= !AclSelector.ChannelInList(upcoming, channel, isPattern: false);
            if (kill) client.Kill();
        }
    }

    // ------------------------------------------------------------------ aclfile

    /// <summary>The aclfile's text as ACL SAVE writes it: one "user name rules" line per user.</summary>
    public string Describe()
    {
        var text = new StringBuilder();
        foreach (var user in Users()) text.Append("user ").Append(user.Name).Append(' ').Append(user.State.Describe()).Append('\n');
        return text.ToString();
    }

    /// <summary>ACL SAVE: writes every user to a temporary file and renames it over the aclfile; false on an I/O error (logged).</summary>
    public bool Save(string path)
    {
        string temp = $"{path}.tmp-{Environment.ProcessId}-{DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()}";
        try
        {
            using (var file = new FileStream(temp, FileMode.Create, FileAccess.Write))
            {
                file.Write(Encoding.Latin1.GetBytes(Describe()));
                file.Flush(flushToDisk: true);
            }
            File.Move(temp, path, overwrite: true);
            return true;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            _server.Log.Warning($"Writing ACL file for ACL SAVE: {ex.Message}");
            try { File.Delete(temp); } catch (IOException) { }
            return false;
        }
    }

    /// <summary>
    /// ACL LOAD (and start-up with aclfile): every line must be "user name rules...". Any error leaves
    /// the users as they were and returns Redis's message; otherwise the users are replaced (the
    /// default user keeps its identity, so its connections stay) and null is returned.
    /// </summary>
    public string? Load(string path, ClientSession? current = null)
    {
        byte[] bytes;
        try
        {
            bytes = File.ReadAllBytes(path);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return $"Error loading ACLs, opening file '{path}': {Common.SystemErrors.Describe(ex)}";
        }
        var errors = new StringBuilder();
        var loaded = new SortedDictionary<string, AclUserState>(StringComparer.Ordinal);
        var lines = Encoding.Latin1.GetString(bytes).Split('\n');
        for (int i = 0; i < lines.Length; i++)
        {
            int lineNumber = i + 1;
            var line = lines[i].Trim(' ', '\t', '\r', '\n');
            if (line.Length == 0) continue;
            var argv = line.Split(' ').Where(a => a.Length > 0).ToList();
            if (argv.Count == 0) continue;
            if (argv[0] != "user" || argv.Count < 2)
            {
                errors.Append($"{path}:{lineNumber} should start with user keyword followed by the username. ");
                continue;
            }
            if (AclSelector.HasSpaces(argv[1]))
            {
                errors.Append($"'{path}:{lineNumber}: username '{argv[1]}' contains invalid characters. ");
                continue;
            }
            if (loaded.ContainsKey(argv[1]))
            {
                errors.Append($"WARNING: Duplicate user '{argv[1]}' found on line {lineNumber}. ");
                continue;
            }
            var state = AclUserState.Empty(AllChannelsByDefault);
            loaded.Add(argv[1], state);
            var merged = AclRules.MergeSelectors(argv.Skip(2).ToList(), out _);
            if (merged == null)
            {
                errors.Append($"{path}:{lineNumber}: Unmatched parenthesis in selector definition.");
                continue;
            }
            bool syntaxError = false;
            foreach (var raw in merged)
            {
                var rule = raw.Trim('\t', '\r', '\n');
                var error = state.Apply(rule, AllChannelsByDefault);
                if (error == null) continue;
                if (error == AclUserState.ErrorText(AclSelector.RuleError.UnknownCommand))
                    errors.Append($"{path}:{lineNumber}: Error in applying operation '{rule}': {error}. ");
                else if (!syntaxError)
                {
                    errors.Append($"{path}:{lineNumber}: {error}. ");
                    syntaxError = true;
                }
            }
        }
        if (errors.Length > 0)
            return errors.Append("WARNING: ACL errors detected, no change to the previously active ACL rules was performed").ToString();

        lock (_gate)
        {
            var users = new SortedDictionary<string, AclUser>(StringComparer.Ordinal);
            foreach (var (name, state) in loaded)
                users.Add(name, name == "default" ? Default : new AclUser(name, state));
            var defaultState = loaded.GetValueOrDefault("default") ?? AclUserState.Default(AllChannelsByDefault);
            Default.State = defaultState;
            users["default"] = Default;
            var old = _users;
            _users = users;
            foreach (var (name, user) in old)
                if (user != Default) KillClientsOf(user, current);
            Published();
        }
        return null;
    }
}
