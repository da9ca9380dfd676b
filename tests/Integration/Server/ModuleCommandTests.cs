using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// MODULE: LIST is empty and HELP answers; LOAD, LOADEX and UNLOAD are protected by
/// enable-module-command as in Redis 7, and once allowed fail as a library that does not load
/// fails in Redis (this server loads no modules). The replies are compared with redis-server.
/// </summary>
public class ModuleCommandTests
{
    private const string NotAllowed = "-ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.\r\n";

    private static readonly Lazy<TestServer> Allowed = new(() => TestServer.Start(1, "--enable-module-command", "yes"));

    private static readonly string[][] Calls =
    [
        ["MODULE", "LIST"], ["MODULE", "LOAD", "/nonexistent/x.so"], ["MODULE", "LOAD", "/nonexistent/x.so", "a", "b"],
        ["MODULE", "LOADEX", "/nonexistent/x.so"], ["MODULE", "LOADEX", "/nonexistent/x.so", "CONFIG", "a", "b", "ARGS", "1"],
        ["MODULE", "UNLOAD", "foo"], ["MODULE"], ["MODULE", "FOO"], ["MODULE", "LOAD"], ["MODULE", "UNLOAD"],
        ["MODULE", "UNLOAD", "a", "b"], ["MODULE", "LIST", "x"], ["MODULE", "HELP", "x"], ["PING"],
    ];

    [Fact]
    public void Module_ListAndHelp_AnsweredByDefault()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("*0\r\n", c.Call("MODULE", "LIST"));
        string help = c.Call("MODULE", "HELP");
        Assert.StartsWith("*", help);
        Assert.Contains("+MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+LIST\r\n", help);
        Assert.Contains("\r\n+UNLOAD <name>\r\n", help);
    }

    [Fact]
    public void Module_LoadAndUnloadByDefault_NotAllowed()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal(NotAllowed, c.Call("MODULE", "LOAD", "/nonexistent/x.so"));
        Assert.Equal(NotAllowed, c.Call("MODULE", "LOADEX", "/nonexistent/x.so"));
        Assert.Equal(NotAllowed, c.Call("MODULE", "UNLOAD", "foo"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void Module_LoadAllowed_FailsAsAFailedLoad()
    {
        using var c = Allowed.Value.Connect();
        Assert.Equal("-ERR Error loading the extension. Please check the server logs.\r\n", c.Call("MODULE", "LOAD", "/nonexistent/x.so"));
        Assert.Equal("-ERR Error loading the extension. Please check the server logs.\r\n", c.Call("MODULE", "LOADEX", "/nonexistent/x.so", "ARGS", "1"));
        Assert.Equal("-ERR Error unloading module: no such module with that name\r\n", c.Call("MODULE", "UNLOAD", "foo"));
        Assert.Equal("*0\r\n", c.Call("MODULE", "LIST"));
    }

    [Fact]
    public async Task Module_EnableModuleCommandInConfigFile_Accepted()
    {
        string dir = Directory.CreateTempSubdirectory("rcm").FullName;
        try
        {
            string conf = Path.Combine(dir, "redis.conf");
            File.WriteAllText(conf, "enable-module-command yes\n");
            await using var server = TestServer.StartWithConfig(conf, "--port", "0", "--bind", "127.0.0.1", "--save", "");
            using var c = server.Connect();
            Assert.Equal("*2\r\n$21\r\nenable-module-command\r\n$3\r\nyes\r\n", c.Call("CONFIG", "GET", "enable-module-command"));
            Assert.Equal("-ERR Error unloading module: no such module with that name\r\n", c.Call("MODULE", "UNLOAD", "foo"));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>Redis 7.2's COMMAND DOCS for LOADEX: ARGS is a string argument (7.0 had a block holding "arg").</summary>
    [Fact]
    public void Module_CommandDocsLoadex_Redis72Arguments()
    {
        using var c = TestServer.Shared.Connect();
        string docs = c.Call("COMMAND", "DOCS", "module|loadex");
        Assert.Contains("$4\r\nname\r\n$4\r\nargs\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\ntoken\r\n$4\r\nARGS\r\n$5\r\nflags\r\n*2\r\n+optional\r\n+multiple\r\n", docs);
        Assert.Contains("$5\r\ntoken\r\n$6\r\nCONFIG\r\n$5\r\nflags\r\n*3\r\n+optional\r\n+multiple\r\n+multiple_token\r\n", docs);
    }

    [Fact]
    public void Module_ConfigSetEnableModuleCommand_Immutable()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'enable-module-command') - can't set immutable config\r\n",
            c.Call("CONFIG", "SET", "enable-module-command", "yes"));
    }

    [RedisFact]
    public void Module_DefaultConfig_RepliesMatchRedis()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        using var theirs = reference.Connect();
        using var ours = TestServer.Shared.Connect();
        foreach (var call in Calls) Assert.Equal(theirs.Call(call), ours.Call(call));
    }

    [RedisFact]
    public void Module_EnabledCommand_RepliesMatchRedis()
    {
        using var reference = ReferenceRedis.StartOrNull("--enable-module-command yes")!;
        using var theirs = reference.Connect();
        using var ours = Allowed.Value.Connect();
        foreach (var call in Calls) Assert.Equal(theirs.Call(call), ours.Call(call));
    }
}
