using RedisClone.Commands;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.CommandInfo;

/// <summary>COMMAND's own behaviour and the metadata table's consistency, without a reference server.</summary>
public class CommandTests
{
    private static IEnumerable<CommandDef> AllDefs()
    {
        foreach (var def in CommandTable.Instance.All)
        {
            yield return def;
            if (def.Subcommands != null)
                foreach (var sub in def.Subcommands) yield return sub;
        }
    }

    [Fact]
    public void Table_EveryName_IsUnique()
    {
        var names = AllDefs().Select(d => d.FullName).ToList();
        Assert.Equal(names.Count, names.Distinct().Count());
    }

    /// <summary>COMMAND INFO's legacy range, derived from the key specs, for the shapes that test the derivation.</summary>
    [Theory]
    [InlineData("get", 1, 1, 1)]
    [InlineData("mset", 1, -1, 2)]          // one range spec: its step is kept
    [InlineData("blpop", 1, -2, 1)]         // the timeout is not a key
    [InlineData("rename", 1, 2, 1)]         // two adjacent single-key specs join
    [InlineData("lcs", 1, 2, 1)]            // one spec of two keys
    [InlineData("sinterstore", 1, -1, 1)]   // a destination then a range to the end
    [InlineData("zunionstore", 1, 1, 1)]    // the keynum spec is left out
    [InlineData("lmpop", 0, 0, 0)]          // keynum only
    [InlineData("sort", 1, 1, 1)]           // unknown begin-search specs are left out
    [InlineData("spublish", 1, 1, 1)]       // not_key specs still give a range, as in Redis
    [InlineData("object|encoding", 2, 2, 1)]
    [InlineData("ping", 0, 0, 0)]
    public void LegacyRange_DerivedFromKeySpecs_IsRedisRange(string name, int first, int last, int step)
    {
        var def = AllDefs().Single(d => d.FullName == name);
        Assert.Equal((first, last, step), (def.FirstKey, def.LastKey, def.Step));
    }

    [Theory]
    [InlineData("RW; RO i=3", 1, 1, 1)]                  // not adjacent: the second is left out
    [InlineData("RW; RO r=1,2,0", 1, 1, 1)]              // a step other than 1 is left out
    [InlineData("RO i=2 n=0,1,1; RW i=1", 1, 1, 1)]      // order does not matter
    [InlineData("RW r=-1,1,0; RO i=2", 1, -1, 1)]        // counted from the end wins
    [InlineData("RO kw=STREAMS,1 r=-1,1,2", 0, 0, 0)]
    [InlineData("RO bs=unknown fk=unknown", 0, 0, 0)]
    public void LegacyRange_SeveralSpecs_FollowsRedis(string specs, int first, int last, int step)
        => Assert.Equal((first, last, step), CommandDef.LegacyRange(CommandMetadata.ParseKeySpecs(specs, "test")));

    [Fact]
    public void Routing_CommandsWithoutKeys_RunOnTheConnection()
    {
        foreach (var def in AllDefs())
            if (def.FirstKey == 0 && def.KeyFinder == null)
                Assert.True(def.Routing != Routing.Keys, def.FullName);
            else if (def.Routing == Routing.Keys)
                Assert.True(def.FirstKey > 0 || def.KeyFinder != null, def.FullName);
    }

    [Fact]
    public void Metadata_EveryEntry_ParsesAndIsConsistent()
    {
        foreach (var def in AllDefs())
        {
            var meta = CommandMetadata.Of(def);
            Assert.False(string.IsNullOrEmpty(meta.Summary), def.FullName);
            Assert.False(string.IsNullOrEmpty(meta.Since), def.FullName);
            // Redis documents none for MONITOR, LOLWUT, SYNC and PSYNC.
            if (def.Name is not ("monitor" or "lolwut" or "sync" or "psync")) Assert.False(string.IsNullOrEmpty(meta.Complexity), def.FullName);
            Assert.True(def.KeyFinder == null || meta.KeySpecs.Length > 0, $"{def.FullName} has a key finder but no key spec");
            foreach (var key in KeyArgs(meta.Args))
                Assert.True(key.KeySpecIndex >= 0 && key.KeySpecIndex < meta.KeySpecs.Length, $"{def.FullName}: {key.Name} points at no key spec");
            if (def.Subcommands == null) Assert.NotEqual(AclCategories.None, meta.Acl & (AclCategories.Fast | AclCategories.Slow));
        }
    }

    private static IEnumerable<CommandArg> KeyArgs(CommandArg[] args)
    {
        foreach (var a in args)
        {
            if (a.Type == ArgType.Key) yield return a;
            if (a.Children != null)
                foreach (var k in KeyArgs(a.Children)) yield return k;
        }
    }

    [Fact]
    public void ParseArgs_RedisLikeSyntax_BuildsTheTree()
    {
        var args = CommandMetadata.ParseArgs(
            "key:key value [condition(NX | XX)@2.6.12] [EX=seconds:integer] [len:LEN] ip:port~2.8.12 other:key#0 [PREFIX=prefix...+] b{x:double y:unix-time}...");
        Assert.Equal(["key", "value", "condition", "seconds", "len", "ip:port", "other", "prefix", "b"], args.Select(a => a.Name));
        Assert.Equal(0, args[0].KeySpecIndex);
        Assert.Equal(ArgType.OneOf, args[2].Type);
        Assert.True(args[2].Optional);
        Assert.Equal("2.6.12", args[2].Since);
        Assert.Equal(["NX", "XX"], args[2].Children!.Select(c => c.Token));
        Assert.Equal(["nx", "xx"], args[2].Children!.Select(c => c.Name));
        Assert.Equal(("EX", ArgType.Integer), (args[3].Token, args[3].Type));
        Assert.Equal(("LEN", ArgType.PureToken), (args[4].Token, args[4].Type));
        Assert.Equal((ArgType.String, "2.8.12"), (args[5].Type, args[5].DeprecatedSince));
        Assert.Equal(0, args[6].KeySpecIndex);
        Assert.True(args[7].Multiple && args[7].MultipleToken && args[7].Optional);
        Assert.Equal(ArgType.Block, args[8].Type);
        Assert.True(args[8].Multiple);
        Assert.Equal([ArgType.Double, ArgType.UnixTime], args[8].Children!.Select(c => c.Type));
    }

    [Fact]
    public void ParseArgs_Unbalanced_Throws()
    {
        Assert.Throws<FormatException>(() => CommandMetadata.ParseArgs("[key"));
        Assert.Throws<FormatException>(() => CommandMetadata.ParseArgs("a(B | C"));
        Assert.Throws<FormatException>(() => CommandMetadata.ParseArgs("a{b"));
    }

    [Fact]
    public void CommandCount_ReturnsTopLevelCommands()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal($":{CommandTable.Instance.All.Count}\r\n", c.Call("COMMAND", "COUNT"));
    }

    [Fact]
    public void Command_NoArguments_DescribesEveryCommandLikeInfo()
    {
        using var c = TestServer.Shared.Connect();
        var all = RespTree.Parse(c.Call("COMMAND"));
        Assert.Equal(CommandTable.Instance.All.Count, all.Children.Count);
        Assert.Equal(all.Raw, c.Call("COMMAND", "INFO"));
        foreach (var entry in all.Children)
        {
            var one = RespTree.Parse(c.Call("COMMAND", "INFO", entry.Children[0].Text!));
            Assert.Equal(entry.Raw, one.Children[0].Raw);
        }
    }

    [Fact]
    public void CommandDocs_NoArguments_DocumentsEveryCommand()
    {
        using var c = TestServer.Shared.Connect();
        var docs = RespTree.Parse(c.Call("COMMAND", "DOCS")).Pairs();
        Assert.Equal(CommandTable.Instance.All.Select(d => d.Name), docs.Select(p => p.Key));
        var client = docs.Single(p => p.Key == "client").Value.Pairs();
        var subs = client.Single(p => p.Key == "subcommands").Value.Pairs().Select(p => p.Key).ToList();
        Assert.Contains("client|setinfo", subs);
        Assert.Contains("client|kill", subs);
    }

    [Fact]
    public void CommandInfo_UnknownNames_Nil()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("*3\r\n$-1\r\n$-1\r\n$-1\r\n", c.Call("COMMAND", "INFO", "nope", "get|x", "client|nope"));
        Assert.Equal("_\r\n", RespTree.Parse(InProcess.Call(3, "COMMAND", "INFO", "nope")).Children[0].Raw);
        Assert.Equal("*0\r\n", c.Call("COMMAND", "DOCS", "nope"));
        Assert.Equal("%0\r\n", InProcess.Call(3, "COMMAND", "DOCS", "nope"));
    }

    [Fact]
    public void CommandInfo_ClientSetInfo_Redis72Shape()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal(
            "*1\r\n*10\r\n$14\r\nclient|setinfo\r\n:4\r\n*3\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n" +
            "*2\r\n+@slow\r\n+@connection\r\n*0\r\n*0\r\n*0\r\n",
            c.Call("COMMAND", "INFO", "client|setinfo"));
        var docs = RespTree.Parse(c.Call("COMMAND", "DOCS", "client|setinfo")).Children[1].Pairs();
        var attr = docs.Single(p => p.Key == "arguments").Value.Children[0].Pairs();
        Assert.Equal("oneof", attr.Single(p => p.Key == "type").Value.Text);
        var tokens = attr.Single(p => p.Key == "arguments").Value.Children.Select(ch => ch.Pairs().Single(p => p.Key == "token").Value.Text);
        Assert.Equal(["lib-name", "lib-ver"], tokens);
    }

    [Fact]
    public void CommandGetKeysAndFlags_SetWithGet_ReadsTheKey()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("*1\r\n*2\r\n$1\r\nk\r\n*2\r\n+OW\r\n+update\r\n", c.Call("COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v"));
        Assert.Equal("*1\r\n*2\r\n$1\r\nk\r\n*3\r\n+RW\r\n+access\r\n+update\r\n", c.Call("COMMAND", "GETKEYSANDFLAGS", "SET", "k", "v", "gEt"));
    }

    [Fact]
    public void CommandGetKeys_Errors_RedisTexts()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("-ERR Invalid command specified\r\n", c.Call("COMMAND", "GETKEYS", "nope", "a"));
        Assert.Equal("-ERR The command has no key arguments\r\n", c.Call("COMMAND", "GETKEYS", "ping", "a"));
        Assert.Equal("-ERR Invalid number of arguments specified for command\r\n", c.Call("COMMAND", "GETKEYS", "get", "a", "b"));
        Assert.Equal("-ERR wrong number of arguments for 'command|getkeys' command\r\n", c.Call("COMMAND", "GETKEYS", "get"));
        Assert.Equal($":{CommandTable.Instance.All.Count}\r\n", c.Call("COMMAND", "COUNT"));
    }

    [Fact]
    public void CommandList_ContainerSubcommands_Listed()
    {
        using var c = TestServer.Shared.Connect();
        var names = RespTree.Parse(c.Call("COMMAND", "LIST")).Children.Select(n => n.Text).ToList();
        Assert.Equal(AllDefs().Count(), names.Count);
        Assert.Contains("cluster|slots", names);
        Assert.Contains("command|getkeysandflags", names);
        Assert.Equal("*0\r\n", c.Call("COMMAND", "LIST", "FILTERBY", "MODULE", "json"));
    }

    [Fact]
    public void CommandHelp_HelpShape()
    {
        using var c = TestServer.Shared.Connect();
        var help = RespTree.Parse(c.Call("COMMAND", "HELP"));
        Assert.StartsWith("COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", help.Children[0].Text);
        Assert.Equal("HELP", help.Children[^2].Text);
        Assert.All(help.Children, line => Assert.Equal('+', line.Type));
    }

    [Fact]
    public void ClusterSubcommands_ArityAndUnknown_CheckedByTheDispatcher()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("-ERR wrong number of arguments for 'cluster|keyslot' command\r\n", c.Call("CLUSTER", "KEYSLOT"));
        Assert.Equal("-ERR unknown subcommand 'foo'. Try CLUSTER HELP.\r\n", c.Call("CLUSTER", "foo"));
    }
}
