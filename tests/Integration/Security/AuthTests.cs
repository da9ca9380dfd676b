using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Security;

/// <summary>
/// requirepass, AUTH, HELLO AUTH and NOAUTH against redis-server started the same way, and redis-cli -a.
/// Where 7.2 words a reply differently from Debian's 7.0 (HELLO's NOAUTH text), ours is checked
/// against 7.2's text instead.
/// </summary>
public class AuthTests
{
    [RedisFact]
    public void Requirepass_UnauthenticatedClient_GetsRedisRepliesInProcessCommandOrder()
    {
        using var servers = new PairedServers("--requirepass", "secret");
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        var diff = PairedServers.Compare(theirs, ours,
        [
            ["PING"],
            ["GET", "k"],
            ["NOSUCHCOMMAND", "a"],        // unknown command before NOAUTH
            ["GET"],                       // arity before NOAUTH
            ["CONFIG", "NOSUCH"],          // unknown subcommand before NOAUTH
            ["AUTH"],
            ["AUTH", "a", "b", "c"],
            ["AUTH", "wrong"],
            ["AUTH", "default", "wrong"],
            ["AUTH", "nosuchuser", "secret"],
            ["AUTH", "secret"],
            ["PING"],
            ["SET", "k", "v"],
            ["GET", "k"],
            ["ACL", "WHOAMI"],
            ["AUTH", "wrong"],             // a failed AUTH keeps the connection authenticated
            ["GET", "k"],
            ["RESET"],                     // back to the default user, not authenticated
            ["GET", "k"],
            ["AUTH", "default", "secret"],
            ["GET", "k"],
            ["CONFIG", "GET", "requirepass"],
        ]);
        Assert.True(diff.Length == 0, diff);
    }

    [RedisFact]
    public void Requirepass_MultiAndExec_NoAuthQueuedAndAborted()
    {
        using var servers = new PairedServers("--requirepass", "secret");
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        var diff = PairedServers.Compare(theirs, ours,
        [
            ["MULTI"], ["GET", "k"], ["EXEC"], ["AUTH", "secret"], ["MULTI"], ["AUTH", "wrong"], ["PING"], ["EXEC"],
        ]);
        Assert.True(diff.Length == 0, diff);
    }

    [RedisFact]
    public void HelloAuth_SwitchesProtocolOnlyWhenTheCredentialsMatch()
    {
        using var servers = new PairedServers("--requirepass", "secret");
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        var diff = PairedServers.Compare(theirs, ours,
        [
            ["HELLO", "3", "AUTH", "default", "wrong"],
            ["HELLO", "3", "AUTH", "default"],
            ["HELLO", "3", "SETNAME", "a b", "AUTH", "default", "secret"],
            ["HELLO", "4", "AUTH", "default", "secret"],
            ["PING"],
        ]);
        Assert.True(diff.Length == 0, diff);

        // HELLO without AUTH before authenticating: 7.2 names "HELLO <proto> AUTH" (7.0: "HELLO AUTH").
        Assert.Equal("-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n",
            ours.Call("HELLO", "3"));
        string hello = ours.Call("HELLO", "3", "AUTH", "default", "secret", "SETNAME", "named");
        Assert.StartsWith("%7\r\n", hello);
        Assert.Contains("name=named ", ours.Call("CLIENT", "INFO"));
        Assert.Equal("+PONG\r\n", ours.Call("PING"));
    }

    [RedisFact]
    public void ConfigSetRequirepass_ActsAtOnce_ConnectedClientsStayAuthenticated()
    {
        using var servers = new PairedServers();
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        var diff = PairedServers.Compare(theirs, ours,
        [
            ["AUTH", "x"],                 // no password configured: the old error
            ["CONFIG", "SET", "requirepass", "pw"],
            ["CONFIG", "GET", "requirepass"],
            ["GET", "k"],                  // this connection was authenticated when it connected
            ["AUTH", "pw"],
        ]);
        using (var theirs2 = servers.ConnectTheirs())
        using (var ours2 = servers.ConnectOurs())
        {
            diff += PairedServers.Compare(theirs2, ours2, [["GET", "k"], ["AUTH", "pw"], ["GET", "k"], ["CONFIG", "SET", "requirepass", ""]]);
        }
        using (var theirs3 = servers.ConnectTheirs())
        using (var ours3 = servers.ConnectOurs())
        {
            diff += PairedServers.Compare(theirs3, ours3, [["GET", "k"], ["AUTH", "pw"], ["CONFIG", "GET", "requirepass"]]);
        }
        Assert.True(diff.Length == 0, diff);
    }

    [Fact]
    public async Task ClientList_ShowsTheAuthenticatedUser()
    {
        await using var server = TestServer.Start(2, "--requirepass", "secret", "--user", "alice", "on", ">pw", "+@all", "~*");
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("AUTH", "alice", "pw"));
        Assert.Contains(" user=alice ", c.Call("CLIENT", "INFO"));
        Assert.Equal("+RESET\r\n", c.Call("RESET"));
        Assert.Equal("-NOAUTH Authentication required.\r\n", c.Call("CLIENT", "INFO"));
        Assert.Equal("+OK\r\n", c.Call("AUTH", "secret"));
        Assert.Contains(" user=default ", c.Call("CLIENT", "INFO"));
    }

    [RedisCliFact]
    public async Task RedisCli_WithPassword_Authenticates()
    {
        await using var server = TestServer.Start(2, "--requirepass", "s3cret");
        var cli = ReferenceRedis.CliPath!;
        var (code, output) = ToolRunner.Run(cli, $"-p {server.Port} -a s3cret --no-auth-warning SET k v");
        Assert.Equal(0, code);
        Assert.Equal("OK", output.Trim());
        (_, output) = ToolRunner.Run(cli, $"-p {server.Port} GET k");
        Assert.Equal("NOAUTH Authentication required.", output.Trim());
        (_, output) = ToolRunner.Run(cli, $"-p {server.Port} -a wrong --no-auth-warning GET k");
        Assert.Contains("WRONGPASS invalid username-password pair or user is disabled.", output);
        (_, output) = ToolRunner.Run(cli, $"-p {server.Port} --user default --pass s3cret --no-auth-warning GET k");
        Assert.Equal("v", output.Trim());
    }

    [Fact]
    public async Task Auth_FailuresAreCountedAndLogged()
    {
        await using var server = TestServer.Start(2, "--requirepass", "secret");
        using var c = server.Connect();
        Assert.Equal("-WRONGPASS invalid username-password pair or user is disabled.\r\n", c.Call("AUTH", "bad"));
        Assert.Equal("-WRONGPASS invalid username-password pair or user is disabled.\r\n", c.Call("auth", "nobody", "bad"));
        Assert.Equal("+OK\r\n", c.Call("AUTH", "secret"));
        Assert.Contains("acl_access_denied_auth:2\r\n", c.Call("INFO", "stats"));
        Assert.Contains("errorstat_WRONGPASS:count=2", c.Call("INFO", "errorstats"));
        string log = c.Call("ACL", "LOG");
        Assert.StartsWith("*2\r\n", log);
        Assert.Contains("$6\r\nobject\r\n$4\r\nauth\r\n$8\r\nusername\r\n$6\r\nnobody\r\n", log);
        Assert.Contains("$6\r\nobject\r\n$4\r\nAUTH\r\n$8\r\nusername\r\n$7\r\ndefault\r\n", log);
        Assert.Contains("$6\r\nreason\r\n$4\r\nauth\r\n$7\r\ncontext\r\n$8\r\ntoplevel\r\n", log);
    }
}

/// <summary>Secrets kept out of SLOWLOG as Redis keeps them: ACL SETUSER's rules, CONFIG SET requirepass's value.</summary>
public class SecretRedactionTests
{
    [RedisFact]
    public void SlowLog_SetUserAndRequirepass_RedactedAsRedis()
    {
        using var servers = new PairedServers();
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        string[][] script =
        [
            ["CONFIG", "SET", "slowlog-log-slower-than", "0"],
            ["SLOWLOG", "RESET"],
            ["ACL", "SETUSER", "alice", "on", ">secret", "+@all"],
            ["CONFIG", "SET", "requirepass", "pw", "maxmemory-samples", "5"],
            ["AUTH", "pw"],
            ["CONFIG", "SET", "requirepass", ""],
        ];
        var diff = PairedServers.Compare(theirs, ours, script);
        string Entries(RespClient c) => System.Text.RegularExpressions.Regex.Replace(c.Call("SLOWLOG", "GET", "10"),
            @"(?<=\r\n):\d+\r\n|\$\d+\r\n127\.0\.0\.1:\d+\r\n", "<n>");
        string mine = Entries(ours);
        Assert.Equal(Differential.Show(Entries(theirs)), Differential.Show(mine));
        Assert.DoesNotContain("secret", mine);
        Assert.Contains("$11\r\nrequirepass\r\n$10\r\n(redacted)\r\n$17\r\nmaxmemory-samples\r\n$1\r\n5\r\n", mine);
        Assert.True(diff.Length == 0, diff);
    }
}
