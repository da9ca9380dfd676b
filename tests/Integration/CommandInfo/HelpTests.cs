using RedisClone.Commands;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.CommandInfo;

/// <summary>
/// The HELP subcommand of every container (CLIENT HELP, CONFIG HELP, DEBUG HELP...). Its
/// descriptions are our own words, so the replies are not compared with redis-server byte for
/// byte; what a client can rely on is: an array of simple strings, Redis's first line, a syntax
/// line per subcommand (the same text as Redis's, in Redis's order, each followed by an indented
/// description) and HELP last. The syntax lines must cover every subcommand the command table has
/// (DEBUG, which has no subcommand rows, is pinned in DebugCommandTests). The error replies around
/// HELP (HELP with an argument, unknown subcommands) stay byte for byte in the differential tests.
/// </summary>
public class HelpTests
{
    /// <summary>Every container with a HELP of its own; <see cref="Table_EveryContainerWithHelp_IsTested"/> keeps this list whole.</summary>
    private static readonly string[] ContainerNames = ["ACL", "CLIENT", "COMMAND", "CONFIG", "DEBUG", "FUNCTION", "LATENCY", "MEMORY", "MODULE", "OBJECT", "PUBSUB", "SCRIPT", "SLOWLOG", "XGROUP", "XINFO"];

    public static TheoryData<string> Containers => new(ContainerNames);

    /// <summary>Redis's subcommands (first word of the syntax line) that this server does not have, so its HELP leaves them out.</summary>
    private static readonly Dictionary<string, string[]> LeftOut = new()
    {
        ["SCRIPT"] = ["DEBUG"],                                // no Lua debugger
        ["DEBUG"] =
        [
            "AOF-FLUSH-SLEEP", "ASSERT", "CONFIG-REWRITE-FORCE-ALL", "CRASH-AND-RECOVER", "LEAK", "HTSTATS", "HTSTATS-KEY",
            "LOADAOF", "REPLICATE", "MALLCTL", "MALLCTL-STR", "DROP-CLUSTER-PACKET-FILTER", "OOM", "PANIC",
            "RESTART", "SDSLEN", "SEGFAULT", "SET-SKIP-CHECKSUM-VALIDATION", "STRUCTSIZE", "CLIENT-EVICTION", "CLUSTERLINK",
        ],
    };

    /// <summary>Syntax lines Redis 7.2 has and the reference (Debian's 7.0) has not.</summary>
    private static readonly Dictionary<string, string[]> Since72 = new()
    {
        ["CLIENT"] = ["SETINFO <option> <value>", "NO-TOUCH (ON|OFF)"],
    };

    private static readonly Lazy<TestServer> Ours = new(() => TestServer.Start(2, "--enable-debug-command", "yes"));
    private static readonly Lazy<ReferenceRedis?> Reference = new(() => ReferenceRedis.StartOrNull("--enable-debug-command yes"));

    [Theory]
    [MemberData(nameof(Containers))]
    public void Help_Shape_ArrayOfSimpleStringsWithHeaderSyntaxLinesAndHelpLast(string container)
    {
        using var c = Ours.Value.Connect();
        var lines = HelpLines(c.Call(container, "HELP"));
        Assert.Equal($"{container} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", lines[0]);
        Assert.Equal("HELP", lines[^2]);
        Assert.StartsWith("    ", lines[^1]);
        for (int i = 1; i < lines.Count; i++)
        {
            Assert.False(string.IsNullOrWhiteSpace(lines[i]), $"line {i} is empty");
            if (!lines[i].StartsWith(' ')) Assert.True(i + 1 < lines.Count && lines[i + 1].StartsWith("    "), $"'{lines[i]}' has no description");
        }
    }

    [Theory]
    [MemberData(nameof(Containers))]
    public void Help_Resp3_SameBytesAsResp2(string container)
    {
        using var c = Ours.Value.Connect();
        string resp2 = c.Call(container, "HELP");
        c.Call("HELLO", "3");
        Assert.Equal(resp2, c.Call(container, "HELP"));
    }

    [Theory]
    [MemberData(nameof(Containers))]
    public void Help_SyntaxLines_NameExactlyTheTablesSubcommands(string container)
    {
        var def = CommandTable.Instance.Find(System.Text.Encoding.ASCII.GetBytes(container.ToLowerInvariant()))!;
        if (def.Subcommands == null) return; // DEBUG: see DebugCommandTests.Help_ListsExactlyTheSupportedSubcommands
        using var c = Ours.Value.Connect();
        var named = SyntaxLines(HelpLines(c.Call(container, "HELP")))
            .Where(l => !l.StartsWith('(')) // COMMAND's "(no subcommand)"
            .Select(l => l.Split(' ')[0].ToLowerInvariant())
            .Distinct().Order();
        Assert.Equal(def.Subcommands.Select(s => s.Name).Order(), named);
    }

    [Fact]
    public void Table_EveryContainerWithHelp_IsTested()
    {
        var withHelp = CommandTable.Instance.All
            .Where(d => d.Subcommands?.Any(s => s.Name == "help") == true)
            .Select(d => d.Name.ToUpperInvariant())
            .Where(n => n != "CLUSTER") // CLUSTER HELP answers that cluster support is disabled, as Redis does
            .Order();
        Assert.Equal(ContainerNames.Where(n => n != "DEBUG").Order(), withHelp);
    }

    /// <summary>
    /// Redis's first line and syntax lines, in Redis's order: the reference's syntax lines without
    /// the subcommands we leave out are ours without 7.2's additions.
    /// </summary>
    [RedisTheory]
    [MemberData(nameof(Containers))]
    public void Help_FirstAndSyntaxLines_SameAsRedis(string container)
    {
        var reference = Reference.Value ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        using var r = reference.Connect();
        using var c = Ours.Value.Connect();
        var theirs = HelpLines(r.Call(container, "HELP"));
        var ours = HelpLines(c.Call(container, "HELP"));
        Assert.Equal(theirs[0], ours[0]);

        string[] leftOut = LeftOut.GetValueOrDefault(container, []);
        string[] since72 = Since72.GetValueOrDefault(container, []);
        var expected = SyntaxLines(theirs).Where(l => !leftOut.Contains(l.Split(' ')[0])).ToList();
        var oursWithout72 = SyntaxLines(ours).Where(l => !since72.Contains(l)).ToList();
        Assert.Equal(expected, oursWithout72);
        Assert.All(since72, l => Assert.Contains(l, ours));
        Assert.Equal("HELP", expected[^1]);
    }

    /// <summary>
    /// Our descriptions are our own: no description line is one of Redis's, except the lines that
    /// only give an option's syntax (CLIENT KILL's "* ADDR (&lt;ip:port&gt;|&lt;unixsocket&gt;:0)") or continue a syntax line.
    /// </summary>
    [RedisTheory]
    [MemberData(nameof(Containers))]
    public void Help_Descriptions_NotRedisText(string container)
    {
        var reference = Reference.Value ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        using var r = reference.Connect();
        using var c = Ours.Value.Connect();
        var theirs = HelpLines(r.Call(container, "HELP")).Skip(1).Where(l => l.StartsWith(' ')).Select(l => l.Trim()).ToHashSet();
        var copied = HelpLines(c.Call(container, "HELP")).Skip(1)
            .Where(l => l.StartsWith(' ') && theirs.Contains(l.Trim()))
            .Where(l => !System.Text.RegularExpressions.Regex.IsMatch(l, @"^ +\* [A-Z-]+ [<(].*[>)]$"))
            // A syntax line's continuation (CLIENT TRACKING's "         [OPTIN] [OPTOUT] [NOLOOP]") is syntax too.
            .Where(l => !System.Text.RegularExpressions.Regex.IsMatch(l, @"^ +(\[[A-Z]+\] ?)+$"));
        Assert.Empty(copied);
    }

    /// <summary>The reply's lines; fails unless it is an array of simple strings.</summary>
    private static List<string> HelpLines(string reply)
    {
        var tree = RespTree.Parse(reply);
        Assert.Equal('*', tree.Type);
        Assert.All(tree.Children, line => Assert.Equal('+', line.Type));
        return tree.Children.Select(line => line.Text!).ToList();
    }

    /// <summary>The unindented lines after the first: one per subcommand form, HELP last.</summary>
    private static IEnumerable<string> SyntaxLines(List<string> lines) => lines.Skip(1).Where(l => !l.StartsWith(' '));
}
