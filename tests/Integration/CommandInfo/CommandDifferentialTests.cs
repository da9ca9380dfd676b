using System.Text;
using RedisClone.Commands;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.CommandInfo;

/// <summary>
/// COMMAND INFO, DOCS, LIST and GETKEYS against Debian's redis-server 7.0, for every command and
/// subcommand in our table. Redis lists subcommands in hash-table order (it changes between runs),
/// so container replies are compared subcommand by subcommand.
/// </summary>
public class CommandDifferentialTests
{
    /// <summary>Ours, not in 7.0 nor 7.2: Redis 7.4 and 8.0's hash-field expiry (issue 29; checked in Hashes/HashFieldExpiryTests).</summary>
    private static readonly string[] HashFieldExpiry = ["hexpire", "hpexpire", "hexpireat", "hpexpireat", "httl", "hpttl", "hexpiretime",
        "hpexpiretime", "hpersist", "hgetdel", "hgetex", "hsetex"];

    /// <summary>Ours, not in 7.0: Redis 7.2 added them (and later versions, listed above and below).</summary>
    private static readonly HashSet<string> OnlyOurs = ["client|setinfo", "client|no-touch", "waitaof", "cluster|myshardid",
        // Issue 29: Valkey 9.0's DELIFEQ (checked in Strings/SetIfEqTests); Redis 8.2's XDELEX and
        // XACKDEL (checked in Streams/StreamRedis82Tests).
        "delifeq", "xdelex", "xackdel", .. HashFieldExpiry];

    /// <summary>
    /// Commands whose 7.2 shape (ours) differs from 7.0's: ZRANK/ZREVRANK gained WITHSCORE (arity -3).
    /// Their 7.2 facts are checked in SortedSets/SortedSetWireTests. LATENCY RESET's response policy
    /// became agg_sum (7.0: all_succeeded), checked in Server/LatencyTests.
    /// </summary>
    private static readonly HashSet<string> ChangedIn72 = ["zrank", "zrevrank",
        // 7.2 gave them the all_nodes/all_succeeded tips (checked in Security/AclCommandTests).
        "acl|setuser", "acl|deluser", "acl|save",
        // 7.2 changed LATENCY RESET's response policy (checked in LatencyTests).
        "latency", "latency|reset"];

    /// <summary>Commands whose flags alone changed in 7.2: WAIT lost noscript (checked in Server/WaitTests).</summary>
    private static readonly HashSet<string> FlagsChangedIn72 = ["wait"];

    /// <summary>
    /// Commands whose 7.2 docs alone differ from 7.0's: PFMERGE's sourcekey became optional (checked
    /// in HyperLogLog/HyperLogLogDifferentialTests); XGROUP's subcommands and XCLAIM renamed their
    /// arguments (groupname to group, LASTID's id to lastid...: checked in Streams/StreamGroupWireTests);
    /// XINFO STREAM's FULL became a block of its own and it and XINFO CONSUMERS gained a 7.2.0
    /// history entry (checked in Streams/StreamInfoDifferentialTests). XREADGROUP's GROUP block is
    /// group-block (7.0: group_consumer; checked in Streams/StreamReadDifferentialTests). A
    /// subcommand here is skipped inside its container's docs.
    /// </summary>
    private static readonly HashSet<string> DocsChangedIn72 = ["pfmerge", "xgroup", "xclaim", "xinfo|stream", "xinfo|consumers", "xreadgroup",
        // ACL CAT's argument became "category" (7.0: categoryname); ACL LOG gained a 7.2.0 history
        // entry (both checked in Security/AclCommandTests).
        "acl|cat", "acl|log",
        // MIGRATE's arguments got 7.2 names (key-selector, empty-string with the token "", auth,
        // auth2, keys; 7.0: key_or_empty_string, empty_string with an empty token, password,
        // username_password, key): checked in Keys/MigrateTests.
        "migrate",
        // MODULE LOADEX's ARGS became a string argument of its own (7.0: a block holding "arg";
        // checked in Server/ModuleCommandTests).
        "module|loadex",
        // Issue 29 (after 7.2): CLIENT KILL's MAXAGE filter (Redis 7.4; checked in Server/ClientKillMaxAgeTests),
        // SET's IFEQ (Valkey 8.1; checked in Strings/SetIfEqTests), XADD's and XTRIM's KEEPREF, DELREF
        // and ACKED (Redis 8.2; checked in Streams/StreamRedis82Tests), and HSCAN's NOVALUES (7.4;
        // checked in Hashes/HashFieldExpiryTests).
        "client|kill", "set", "xadd", "xtrim", "hscan"];

    /// <summary>Redis 7.0 subcommands we do not have (yet).</summary>
    // script|debug and script|kill: not yet (scripting issue 13).
    private static readonly HashSet<string> OnlyTheirs = ["client|unblock",
        "script|debug", "script|kill",
        // function|kill: comes with busy scripts (another change).
        "function|kill"];

    private static IEnumerable<CommandDef> AllDefs()
    {
        foreach (var def in CommandTable.Instance.All)
        {
            yield return def;
            if (def.Subcommands != null)
                foreach (var sub in def.Subcommands) yield return sub;
        }
    }

    private static RespClient Reference(int protocol)
    {
        var c = ReferenceRedis.Shared!.Connect();
        if (protocol == 3) c.Call("HELLO", "3");
        return c;
    }

    [RedisFact]
    public void CommandInfo_EveryCommandResp2_MatchesRedis() => CompareInfo(2);

    [RedisFact]
    public void CommandInfo_EveryCommandResp3_MatchesRedis() => CompareInfo(3);

    private static void CompareInfo(int protocol)
    {
        using var theirs = Reference(protocol);
        var failures = new StringBuilder();
        foreach (var def in AllDefs())
        {
            if (OnlyOurs.Contains(def.FullName) || ChangedIn72.Contains(def.FullName)) continue;
            var expected = RespTree.Parse(theirs.Call("COMMAND", "INFO", def.FullName)).Children[0];
            var actual = RespTree.Parse(InProcess.Call(protocol, "COMMAND", "INFO", def.FullName)).Children[0];
            if (expected.IsNull)
            {
                failures.AppendLine($"{def.FullName}: redis-server does not know it");
                continue;
            }
            if (expected.Children.Count != 10 || actual.Children.Count != 10)
            {
                if (expected.Raw != actual.Raw) failures.AppendLine($"{def.FullName}:\n  redis: {Show(expected.Raw)}\n  ours:  {Show(actual.Raw)}");
                continue;
            }
            for (int i = 0; i < 9; i++)
                if (expected.Children[i].Raw != actual.Children[i].Raw && !(i == 2 && FlagsChangedIn72.Contains(def.FullName)))
                    failures.AppendLine($"{def.FullName} field {i + 1}:\n  redis: {Show(expected.Children[i].Raw)}\n  ours:  {Show(actual.Children[i].Raw)}");
            CompareSubcommands(def.FullName, expected.Children[9], actual.Children[9], n => n.Children[0].Text!,
                (name, e, a) =>
                {
                    if (e.Raw != a.Raw && !ChangedIn72.Contains(name)) failures.AppendLine($"{name}:\n  redis: {Show(e.Raw)}\n  ours:  {Show(a.Raw)}");
                }, failures);
        }
        Assert.True(failures.Length == 0, "COMMAND INFO differs from redis-server:\n" + failures);
    }

    /// <summary>
    /// The first key, last key and step our entries derive from their key specs are redis-server's
    /// (routing uses them too, not only COMMAND INFO). ZRANK/ZREVRANK's range did not change in 7.2.
    /// </summary>
    [RedisFact]
    public void LegacyRange_EveryCommand_MatchesRedis()
    {
        using var theirs = Reference(2);
        var failures = new StringBuilder();
        foreach (var def in AllDefs())
        {
            if (OnlyOurs.Contains(def.FullName)) continue;
            var info = RespTree.Parse(theirs.Call("COMMAND", "INFO", def.FullName)).Children[0];
            var expected = $"{info.Children[3].Text} {info.Children[4].Text} {info.Children[5].Text}";
            var actual = $"{def.FirstKey} {def.LastKey} {def.Step}";
            if (expected != actual) failures.AppendLine($"{def.FullName}: redis {expected}, ours {actual}");
        }
        Assert.True(failures.Length == 0, "legacy key ranges differ:\n" + failures);
    }

    private static void CompareSubcommands(string container, RespTree expected, RespTree actual,
        Func<RespTree, string> nameOf, Action<string, RespTree, RespTree> compare, StringBuilder failures, bool isMap = false)
    {
        if (expected.Type != actual.Type) failures.AppendLine($"{container}: subcommands are '{actual.Type}', redis says '{expected.Type}'");
        Dictionary<string, RespTree> Index(RespTree list)
        {
            var map = new Dictionary<string, RespTree>();
            if (isMap)
                foreach (var (key, value) in list.Pairs()) map[key] = value;
            else
                foreach (var child in list.Children) map[nameOf(child)] = child;
            return map;
        }
        var theirs = Index(expected);
        var ours = Index(actual);
        foreach (var (name, node) in theirs)
        {
            if (ours.TryGetValue(name, out var mine)) compare(name, node, mine);
            else if (!OnlyTheirs.Contains(name)) failures.AppendLine($"{name}: missing from ours");
        }
        foreach (var name in ours.Keys)
            if (!theirs.ContainsKey(name) && !OnlyOurs.Contains(name)) failures.AppendLine($"{name}: not in redis-server");
    }

    [RedisFact]
    public void CommandDocs_EveryCommandResp2_ArgumentsAndFactsMatchRedis() => CompareDocs(2);

    [RedisFact]
    public void CommandDocs_EveryCommandResp3_ArgumentsAndFactsMatchRedis() => CompareDocs(3);

    private static void CompareDocs(int protocol)
    {
        using var theirs = Reference(protocol);
        var failures = new StringBuilder();
        foreach (var def in CommandTable.Instance.All)
        {
            if (OnlyOurs.Contains(def.FullName) || ChangedIn72.Contains(def.FullName) || DocsChangedIn72.Contains(def.FullName)) continue;
            var expected = RespTree.Parse(theirs.Call("COMMAND", "DOCS", def.FullName));
            var actual = RespTree.Parse(InProcess.Call(protocol, "COMMAND", "DOCS", def.FullName));
            if (expected.Type != actual.Type || expected.Children.Count != 2 || actual.Children.Count != 2)
            {
                failures.AppendLine($"{def.FullName}: reply shape\n  redis: {Show(expected.Raw)}\n  ours:  {Show(actual.Raw)}");
                continue;
            }
            CompareDoc(def.FullName, expected.Children[1], actual.Children[1], failures);
        }
        Assert.True(failures.Length == 0, "COMMAND DOCS differs from redis-server:\n" + failures);
    }

    /// <summary>Everything but our own words: summary, complexity, replaced_by and the history texts.</summary>
    private static void CompareDoc(string name, RespTree expected, RespTree actual, StringBuilder failures)
    {
        if (DocsChangedIn72.Contains(name)) return;
        if (expected.Type != actual.Type) failures.AppendLine($"{name}: docs type '{actual.Type}', redis '{expected.Type}'");
        var e = expected.Pairs();
        var a = actual.Pairs();
        string eKeys = string.Join(",", e.Select(p => p.Key)), aKeys = string.Join(",", a.Select(p => p.Key));
        if (eKeys != aKeys)
        {
            failures.AppendLine($"{name}: fields {aKeys}, redis {eKeys}");
            return;
        }
        for (int i = 0; i < e.Count; i++)
        {
            var (key, ev) = e[i];
            var av = a[i].Value;
            switch (key)
            {
                case "summary" or "complexity" or "replaced_by":
                    if (ev.Type != av.Type) failures.AppendLine($"{name} {key}: type differs");
                    break;
                case "history":
                    string Versions(RespTree h) => h.Type + string.Join(",", h.Children.Select(c => c.Type + c.Children[0].Text));
                    if (Versions(ev) != Versions(av)) failures.AppendLine($"{name} history: {Versions(av)}, redis {Versions(ev)}");
                    break;
                case "subcommands":
                    CompareSubcommands(name, ev, av, _ => "", (sub, x, y) => CompareDoc(sub, x, y, failures), failures, isMap: true);
                    break;
                default:
                    if (ev.Raw != av.Raw) failures.AppendLine($"{name} {key}:\n  redis: {Show(ev.Raw)}\n  ours:  {Show(av.Raw)}");
                    break;
            }
        }
    }

    [RedisFact]
    public void CommandList_Filters_MatchRedisOnOurCommands()
    {
        using var theirs = Reference(2);
        using var ours = TestServer.Shared.Connect();
        var ourNames = AllDefs().Select(d => d.FullName).ToHashSet();
        List<string[]> filters = [[], ["FILTERBY", "PATTERN", "o*"], ["FILTERBY", "PATTERN", "*|*"],
            ["FILTERBY", "PATTERN", "C*"], ["FILTERBY", "PATTERN", "?et"], ["FILTERBY", "MODULE", "x"], ["FILTERBY", "ACLCAT", "nope"]];
        foreach (var cat in CommandMetadata.CategoryNames) filters.Add(["FILTERBY", "ACLCAT", cat]);
        filters.Add(["FILTERBY", "aclcat", "WRITE"]);
        var failures = new StringBuilder();
        foreach (var filter in filters)
        {
            string[] cmd = ["COMMAND", "LIST", .. filter];
            var expected = RespTree.Parse(theirs.Call(cmd)).Children.Select(c => c.Text!).Where(ourNames.Contains).Order().ToList();
            var reply = RespTree.Parse(ours.Call(cmd));
            var actual = reply.Children.Select(c => c.Text!).ToList();
            Assert.Equal(actual.Count, actual.Distinct().Count());
            var extra = actual.Where(n => !OnlyOurs.Contains(n)).Order().ToList();
            if (!expected.SequenceEqual(extra))
                failures.AppendLine($"{string.Join(' ', cmd)}:\n  redis: {string.Join(' ', expected)}\n  ours:  {string.Join(' ', extra)}");
        }
        Assert.True(failures.Length == 0, "COMMAND LIST differs:\n" + failures);
    }

    [RedisFact]
    public void CommandList_BadFilters_SameErrorsAsRedis() => Differential.AssertSame(
        "COMMAND LIST FILTERBY",
        "COMMAND LIST x",
        "COMMAND LIST FILTERBY x y",
        "COMMAND LIST FILTERBY PATTERN",
        "COMMAND LIST FILTERBY PATTERN a b",
        "COMMAND LIST FILTERBY ACLCAT nope",
        "COMMAND LIST FILTERBY MODULE x");

    [RedisFact]
    public void CommandGetKeys_Cases_SameRepliesAsRedis()
    {
        string[] targets =
        [
            "get k", "GET k", "set k v", "set k v GET", "set k v EX 10 get", "set k v NX", "mset a 1 b 2", "mset a 1 b",
            "mget a b c", "del a b c", "exists a", "touch a b", "rename a b", "renamenx a b", "copy a b DB 1 REPLACE",
            "lcs a b LEN", "getex k PERSIST", "getdel k", "expire k 10 NX", "append k v", "setrange k 1 v", "strlen k",
            "object encoding k", "object freq k", "object nope k", "object", "object encoding",
            "client kill x", "client", "client nope x", "nope a", "get a b", "ping a", "keys *", "scan 0", "dbsize",
            "command info", "cluster info", "client|kill x", "msetnx a 1 b 2", "getrange k 0 1", "psetex k 1 v",
        ];
        var script = new List<string[]>();
        foreach (var t in targets)
        {
            script.Add(["COMMAND", "GETKEYS", .. Differential.SplitLine(t)]);
            script.Add(["COMMAND", "GETKEYSANDFLAGS", .. Differential.SplitLine(t)]);
        }
        script.Add(["COMMAND", "GETKEYS", "get"]);
        script.Add(["COMMAND", "GETKEYS"]);
        script.Add(["COMMAND", "GETKEYSANDFLAGS", "set"]);
        Differential.AssertSame(script.ToArray());
    }

    [RedisFact]
    public void Command_LookupsAndErrors_SameRepliesAsRedis() => Differential.AssertSame(
        "COMMAND INFO nope",
        "COMMAND INFO get nope GET",
        "COMMAND INFO client|kill CLIENT|SETNAME client|nope get|x client| |get a|b|c",
        "COMMAND INFO OBJECT|encoding",
        "COMMAND DOCS nope",
        "COMMAND DOCS nope also-nope",
        "COMMAND COUNT x",
        "COMMAND FOO",
        "COMMAND HELP x",
        "COMMAND INFO lcs mset rename copy del");

    private static string Show(string raw) => Differential.Show(raw.Length > 600 ? raw[..600] + "..." : raw);
}
