using System.Text.RegularExpressions;
using RedisClone.Commands;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Security;

/// <summary>
/// ACL's subcommands against redis-server. Users are created with "reset" first: Redis 7.2 gives
/// new users the sanitize-payload flag at creation, 7.0 only on "reset", so with it both describe
/// users alike. Command rules are chosen so that 7.0's description (derived from the command bits)
/// reads as 7.2's (the rules as written); where they cannot agree, ours is checked against 7.2's text.
/// </summary>
public class AclCommandTests
{
    private static readonly string[][] Setup =
    [
        ["ACL", "SETUSER", "default", "reset", "on", "nopass", "~*", "&*", "+@all"],
    ];

    [RedisFact]
    public void AclSetUserGetUserList_DescribeUsersAsRedis()
    {
        using var servers = new PairedServers();
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        string[][] script =
        [
            .. Setup,
            ["ACL", "SETUSER", "alice", "reset", "on", ">pw", "~foo*", "%R~bar*", "%W~w*", "%RW~rw*", "&chan*", "-@all", "+@read", "+client|id", "(+set ~x*)"],
            ["ACL", "GETUSER", "alice"],
            ["ACL", "SETUSER", "bob", "reset", "+@all", "-@dangerous", "~*", "#" + new string('a', 64), ">other"],
            ["ACL", "GETUSER", "bob"],
            ["ACL", "SETUSER", "bob", "<other", "!" + new string('a', 64), "nopass", "resetkeys", "allchannels", "(~a* %R~b* &c resetchannels +get)", "(+@hash ~h*)"],
            ["ACL", "GETUSER", "bob"],
            ["ACL", "SETUSER", "bob", "clearselectors", "off", "skip-sanitize-payload"],
            ["ACL", "GETUSER", "bob"],
            ["ACL", "SETUSER", "bob", "resetpass", "nocommands", "allkeys", "resetchannels", "sanitize-payload"],
            ["ACL", "GETUSER", "bob"],
            ["ACL", "LIST"],
            ["ACL", "USERS"],
            ["ACL", "GETUSER", "nosuch"],
            ["ACL", "WHOAMI"],
            ["ACL", "DELUSER", "nosuch", "bob"],
            ["ACL", "USERS"],
        ];
        var diff = PairedServers.Compare(theirs, ours, script);
        using var theirs3 = servers.ConnectTheirs();
        using var ours3 = servers.ConnectOurs();
        theirs3.Call("HELLO", "3");
        ours3.Call("HELLO", "3");
        diff += PairedServers.Compare(theirs3, ours3, [["ACL", "GETUSER", "alice"], ["ACL", "GETUSER", "default"], ["ACL", "GETUSER", "nosuch"]]);
        Assert.True(diff.Length == 0, diff);
    }

    [RedisFact]
    public void AclSetUser_InvalidRules_AnswerAsRedisAndChangeNothing()
    {
        using var servers = new PairedServers();
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        string[][] script =
        [
            .. Setup,
            ["ACL", "SETUSER", "x", "reset", "on", "~a"],
            ["ACL", "SETUSER", "x", "~*", "~a"],
            ["ACL", "SETUSER", "x", "allkeys", "~a"],
            ["ACL", "SETUSER", "x", "&a", "allchannels", "&b"],
            ["ACL", "SETUSER", "x", "+nosuch"],
            ["ACL", "SETUSER", "x", "-nosuch"],
            ["ACL", "SETUSER", "x", "+@nosuch"],
            ["ACL", "SETUSER", "x", "-select|0"],
            ["ACL", "SETUSER", "x", "#abc"],
            ["ACL", "SETUSER", "x", "#" + new string('A', 64)],
            ["ACL", "SETUSER", "x", "!abc"],
            ["ACL", "SETUSER", "x", "<nopw"],
            ["ACL", "SETUSER", "x", "(+get", "~a"],
            ["ACL", "SETUSER", "x", "(+get"],
            ["ACL", "SETUSER", "x", "(+nosuch)"],
            ["ACL", "SETUSER", "x", "+client|id|x"],
            ["ACL", "SETUSER", "x", "+get|"],
            ["ACL", "SETUSER", "x", "+config|nosuch"],
            ["ACL", "SETUSER", "x", "%X~a"],
            ["ACL", "SETUSER", "x", "%~a"],
            ["ACL", "SETUSER", "x", "%RR~a"],
            ["ACL", "SETUSER", "x", "bad"],
            ["ACL", "SETUSER", "x", "on", "bad"],
            ["ACL", "SETUSER", "a b"],
            ["ACL", "GETUSER", "x"],
            ["ACL", "DELUSER", "default"],
            ["ACL", "DELUSER", "x", "default"],
            ["ACL", "USERS"],
        ];
        var diff = PairedServers.Compare(theirs, ours, script);
        Assert.True(diff.Length == 0, diff);
    }

    [RedisFact]
    public void AclCatGenPassHelpLoadSave_AnswerAsRedis()
    {
        using var servers = new PairedServers();
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        string[][] script =
        [
            ["ACL", "CAT"],
            ["ACL", "CAT", "nosuch"],
            ["ACL", "CAT", "a", "b"],
            ["ACL", "GENPASS", "0"],
            ["ACL", "GENPASS", "4097"],
            ["ACL", "GENPASS", "abc"],
            ["ACL", "GENPASS", "1", "2"],
            ["ACL", "LOG", "abc"],
            ["ACL", "LOG", "1", "2"],
            ["ACL", "LOG", "RESET"],
            ["ACL", "LOAD"],
            ["ACL", "SAVE"],
            ["ACL", "NOSUCH"],
            ["ACL"],
            ["ACL", "WHOAMI", "x"],
            ["ACL", "DRYRUN", "default"],
            ["ACL", "DRYRUN", "nosuch", "get", "k"],
            ["ACL", "DRYRUN", "default", "nosuch"],
            ["ACL", "DRYRUN", "default", "get"],
            ["ACL", "DRYRUN", "default", "get", "k"],
            ["ACL", "DRYRUN", "default", "config", "get", "x"],
            ["ACL", "DRYRUN", "default", "config", "nosuch"],
        ];
        var diff = PairedServers.Compare(theirs, ours, script);
        Assert.True(diff.Length == 0, diff);
        Assert.Matches("^\\$64\r\n[0-9a-f]{64}\r\n$", ours.Call("ACL", "GENPASS"));
        Assert.Matches("^\\$2\r\n[0-9a-f]{2}\r\n$", ours.Call("ACL", "GENPASS", "5"));
        Assert.Matches("^\\$1024\r\n[0-9a-f]{1024}\r\n$", ours.Call("ACL", "GENPASS", "4096"));
        // ACL HELP: our own words, Redis's shape (one line per entry line, same count).
        Assert.Equal(Lines(theirs.Call("ACL", "HELP")), Lines(ours.Call("ACL", "HELP")));
    }

    private static int Lines(string reply) => int.Parse(reply.Substring(1, reply.IndexOf('\r') - 1));

    [RedisTheory]
    [InlineData("read")]
    [InlineData("write")]
    [InlineData("admin")]
    [InlineData("dangerous")]
    [InlineData("fast")]
    [InlineData("slow")]
    [InlineData("keyspace")]
    [InlineData("pubsub")]
    [InlineData("connection")]
    [InlineData("scripting")]
    [InlineData("blocking")]
    public void AclCat_Category_ListsTheCommandsRedisListsThatWeHave(string category)
    {
        using var theirs = ReferenceRedis.Shared!.Connect();
        using var ours = TestServer.Shared.Connect();
        var expected = Members(theirs.Call("ACL", "CAT", category));
        var actual = Members(ours.Call("ACL", "CAT", category));
        // Only commands both servers have: one we lack (CLIENT TRACKING...) is not listed, one 7.2 added (CLIENT SETINFO, CLIENT NO-TOUCH, CLUSTER MYSHARDID) is ours only.
        var ourNames = CommandTable.Instance.All.SelectMany(d => (d.Subcommands ?? []).Select(s => s.FullName).Prepend(d.FullName)).ToHashSet();
        var theirsKnown = Members(theirs.Call("COMMAND", "LIST")).ToHashSet();
        var missing = expected.Where(c => ourNames.Contains(c) && !actual.Contains(c)).ToList();
        var extra = actual.Where(c => theirsKnown.Contains(c.Split('|')[0]) && !expected.Contains(c) && c != "client|setinfo" && c != "client|no-touch" && c != "cluster|myshardid").ToList();
        Assert.Equal(actual.Count, actual.Distinct().Count());
        Assert.All(actual, c => Assert.Contains(c, ourNames));
        Assert.True(missing.Count == 0 && extra.Count == 0, $"missing: {string.Join(' ', missing)}; extra: {string.Join(' ', extra)}");
    }

    private static List<string> Members(string reply)
        => Regex.Matches(reply, @"\$\d+\r\n([^\r]*)\r\n").Select(m => m.Groups[1].Value).ToList();

    [Fact]
    public async Task AclSetUser_Redis72Descriptions_KeepRulesAsWritten()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        // 7.2 keeps the rules in order; a later rule for a command replaces the earlier one.
        Assert.Equal("+OK\r\n", c.Call("ACL", "SETUSER", "carol", "+@hash", "-hset", "+hset", "-@write", "+config|get", "-config", "allkeys"));
        Assert.Equal(Bulk("-@all +@hash +hset -@write -config"), Field(c.Call("ACL", "GETUSER", "carol"), "commands"));
        Assert.Equal("+OK\r\n", c.Call("ACL", "SETUSER", "carol", "+@all", "-debug"));
        Assert.Equal(Bulk("+@all -debug"), Field(c.Call("ACL", "GETUSER", "carol"), "commands"));
        var list = c.Call("ACL", "LIST");
        Assert.Contains("user carol off sanitize-payload ~* resetchannels +@all -debug", list);
        Assert.Contains("user default on nopass sanitize-payload ~* &* +@all", list);
        // DRYRUN names the user and the argument (7.2's verbose text; 7.0 said "This user").
        Assert.Equal("+OK\r\n", c.Call("ACL", "SETUSER", "dave", "on", "nopass", "~k*", "&c*", "+get", "+publish"));
        Assert.Equal(Bulk("User dave has no permissions to access the 'other' key"), c.Call("ACL", "DRYRUN", "dave", "get", "other"));
        Assert.Equal(Bulk("User dave has no permissions to run the 'set' command"), c.Call("ACL", "DRYRUN", "dave", "set", "k", "v"));
        Assert.Equal(Bulk("User dave has no permissions to access the 'zz' channel"), c.Call("ACL", "DRYRUN", "dave", "publish", "zz", "m"));
        Assert.Equal("+OK\r\n", c.Call("ACL", "DRYRUN", "dave", "get", "kx"));
    }

    [Fact]
    public void CommandDocs_AclSubcommands_Redis72Facts()
    {
        using var c = TestServer.Shared.Connect();
        foreach (var sub in new[] { "setuser", "deluser", "save" })
            Assert.Contains("$24\r\nrequest_policy:all_nodes\r\n$29\r\nresponse_policy:all_succeeded\r\n", c.Call("COMMAND", "INFO", "acl|" + sub));
        Assert.Contains("$4\r\nname\r\n$8\r\ncategory\r\n", c.Call("COMMAND", "DOCS", "acl|cat"));
        Assert.Contains("$5\r\n7.2.0\r\n$62\r\nAdded entry ID, timestamp created, and timestamp last updated.\r\n", c.Call("COMMAND", "DOCS", "acl|log"));
    }

    private static string Bulk(string text) => $"${text.Length}\r\n{text}\r\n";

    private static string Field(string map, string name)
    {
        int at = map.IndexOf($"${name.Length}\r\n{name}\r\n", StringComparison.Ordinal);
        var rest = map.Substring(at + $"${name.Length}\r\n{name}\r\n".Length);
        int len = int.Parse(rest.Substring(1, rest.IndexOf('\r') - 1));
        return rest.Substring(0, rest.IndexOf('\r') + 2 + len + 2);
    }
}
