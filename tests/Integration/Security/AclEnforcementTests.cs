using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Security;

/// <summary>
/// NOPERM on commands, subcommands, first arguments, keys (read/write patterns) and channels, inside
/// MULTI and scripts, against redis-server running the same users. Redis 7.2 reworded the refusals
/// ("User u has no permissions to run...", "No permissions to access a key", "ACL failure in
/// script: ..."); Debian's 7.0 replies are translated to 7.2's words before comparing, and nothing
/// else is.
/// </summary>
public class AclEnforcementTests
{
    private static string To72(string reply, string user)
    {
        reply = Regex.Replace(reply, "this user has no permissions to run the '([^']*)' command", $"User {user} has no permissions to run the '$1' command");
        reply = reply.Replace("this user has no permissions to access one of the keys used as arguments", "No permissions to access a key");
        reply = reply.Replace("this user has no permissions to access one of the channels used as arguments", "No permissions to access a channel");
        reply = reply.Replace("The user executing the script can't access at least one of the keys mentioned in the command arguments", "ACL failure in script: No permissions to access a key");
        reply = reply.Replace("The user executing the script can't publish to the channel mentioned in the command", "ACL failure in script: No permissions to access a channel");
        reply = Regex.Replace(reply, "The user executing the script can't run this command or subcommand", m => "ACL failure in script: User " + user + " has no permissions to run the '<cmd>' command");
        return reply;
    }

    private static readonly string[] Eve =
        ["ACL", "SETUSER", "eve", "reset", "on", ">pw", "~k*", "%R~r*", "%W~w*", "&c*", "+get", "+set", "+mget", "+mset", "+copy", "+publish",
         "+subscribe", "+psubscribe", "+ssubscribe", "+multi", "+exec", "+discard", "+client|getname", "+select|0", "+eval", "+acl|whoami", "+sort", "+lmove"];

    [RedisFact]
    public void Noperm_CommandsKeysAndChannels_AsRedis()
    {
        using var servers = new PairedServers();
        using (var admin = servers.ConnectTheirs()) admin.Call(Eve);
        using (var admin = servers.ConnectOurs()) admin.Call(Eve);
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        string[][] script =
        [
            ["AUTH", "eve", "pw"],
            ["GET", "other"], ["GET", "kx"], ["SET", "kx", "1"], ["SET", "rx", "1"], ["GET", "rx"], ["SET", "wx", "1"], ["GET", "wx"],
            ["MGET", "k1", "other"], ["MSET", "k1", "1", "r1", "2"], ["COPY", "k1", "w1"], ["COPY", "w1", "k1"], ["COPY", "r1", "w2"],
            ["LMOVE", "k1", "w1", "LEFT", "RIGHT"], ["SORT", "k1", "STORE", "r9"],
            ["DEL", "kx"], ["CLIENT", "GETNAME"], ["CLIENT", "LIST"], ["CLIENT", "NOSUCH"], ["NOSUCH"], ["GET"],
            ["SELECT", "0"], ["SELECT", "1"],
            ["PUBLISH", "zz", "m"], ["PUBLISH", "cz", "m"],
            ["MULTI"], ["GET", "other"], ["SET", "kx", "1"], ["EXEC"],
            ["MULTI"], ["SET", "kx", "2"], ["GET", "kx"], ["EXEC"],
            ["MULTI"], ["WATCH", "kx"], ["DISCARD"],        // no-multi is refused before the ACL
            ["EVAL", "return redis.pcall('get','other')", "0"],
            ["EVAL", "return redis.pcall('set','rx', 'v')", "0"],
            ["EVAL", "return redis.call('get','kx')", "0"],
            ["EVAL", "return redis.acl_check_cmd('get','other')", "0"],
            ["EVAL", "return redis.acl_check_cmd('get','kx')", "0"],
            ["EVAL", "return redis.acl_check_cmd('del','kx')", "0"],
            ["EVAL", "return redis.acl_check_cmd('nosuch')", "0"],
            ["ACL", "WHOAMI"],
            ["PSUBSCRIBE", "c*x"],
            ["SUBSCRIBE", "c1", "d1"],
            ["SSUBSCRIBE", "d1"],
            ["SUBSCRIBE", "c1"],
        ];
        var diff = PairedServers.Compare(theirs, ours, script, r => To72(r, "eve"));
        Assert.True(diff.Length == 0, diff);
    }

    [Fact]
    public async Task Noperm_ScriptCallOfForbiddenCommand_ErrorNamesTheCommand()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        c.Call(Eve);
        Assert.Equal("+OK\r\n", c.Call("AUTH", "eve", "pw"));
        Assert.Equal("-ERR ACL failure in script: User eve has no permissions to run the 'del' command script: 6a3d69aa069cc1d641b180a84f5aada83adea839, on @user_script:1.\r\n",
            c.Call("EVAL", "return redis.call('del','kx')", "0"));
        using var admin = server.Connect();
        string log = admin.Call("ACL", "LOG", "1");
        Assert.Contains("$6\r\nreason\r\n$7\r\ncommand\r\n$7\r\ncontext\r\n$3\r\nlua\r\n$6\r\nobject\r\n$3\r\ndel\r\n$8\r\nusername\r\n$3\r\neve\r\n", log);
    }

    private const string CallerLib =
        "#!lua name=caller\n" +
        "redis.register_function('f', function(keys, args) return redis.call(unpack(args)) end)\n" +
        "redis.register_function('g', function(keys, args) local r = redis.call(unpack(args)) return r end)";

    [Fact]
    public async Task Noperm_FunctionCallOfForbiddenCommandOrKey_ErrorNamesTheFunction()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        c.Call(Eve);
        Assert.StartsWith("$", c.Call("FUNCTION", "LOAD", CallerLib));
        c.Call("ACL", "SETUSER", "eve", "+fcall");
        Assert.Equal("+OK\r\n", c.Call("AUTH", "eve", "pw"));
        // "return redis.call(...)" is a tail call: the error still names the function's line, as in Redis.
        Assert.Equal("-ERR ACL failure in script: User eve has no permissions to run the 'del' command script: f, on @user_function:2.\r\n",
            c.Call("FCALL", "f", "0", "del", "kx"));
        Assert.Equal("-ERR ACL failure in script: No permissions to access a key script: f, on @user_function:2.\r\n",
            c.Call("FCALL", "f", "0", "get", "other"));
        Assert.Equal("-ERR ACL failure in script: No permissions to access a key script: g, on @user_function:3.\r\n",
            c.Call("FCALL", "g", "0", "get", "other"));
        Assert.Equal("-ERR Wrong number of args calling Redis command from script script: f, on @user_function:2.\r\n",
            c.Call("FCALL", "f", "0", "get"));
    }

    [RedisFact]
    public void Noperm_FunctionCalls_AsRedis()
    {
        using var servers = new PairedServers();
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        var diff = PairedServers.Compare(theirs, ours, [Eve, ["ACL", "SETUSER", "eve", "+fcall"], ["FUNCTION", "LOAD", CallerLib]]);
        diff += PairedServers.Compare(theirs, ours,
        [
            ["AUTH", "eve", "pw"],
            ["FCALL", "f", "0", "get", "other"], ["FCALL", "g", "0", "get", "other"], ["FCALL", "f", "0", "set", "rx", "1"],
            ["FCALL", "f", "0", "get", "kx"], ["FCALL", "f", "1", "other", "get", "kx"],
            ["FCALL", "f", "0", "get"], ["FCALL", "f", "0", "nosuch"], ["FCALL", "f", "0", "subscribe", "c1"],
            ["FCALL", "f", "0", "publish", "zz", "m"],
            ["PING"],
        ], r => To72(r, "eve"));
        Assert.True(diff.Length == 0, diff);
    }

    [Fact]
    public async Task AclLog_EntriesGroupAndCarry72Fields()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        c.Call(Eve);
        using var e = server.Connect();
        Assert.Equal("+OK\r\n", e.Call("AUTH", "eve", "pw"));
        Assert.StartsWith("-NOPERM", e.Call("GET", "other"));
        Assert.StartsWith("-NOPERM", e.Call("GET", "other"));
        Assert.StartsWith("-NOPERM", e.Call("DEL", "k"));
        Assert.Equal("+OK\r\n", e.Call("MULTI"));
        Assert.StartsWith("-NOPERM", e.Call("GET", "other"));
        string log = c.Call("ACL", "LOG");
        Assert.StartsWith("*3\r\n*20\r\n", log);
        // Newest first: the MULTI refusal, DEL, then the two GETs grouped into one entry (count 2).
        var counts = Regex.Matches(log, "\\$5\r\ncount\r\n:(\\d+)\r\n").Select(m => m.Groups[1].Value).ToList();
        Assert.Equal(["1", "1", "2"], counts);
        Assert.Contains("$7\r\ncontext\r\n$5\r\nmulti\r\n$6\r\nobject\r\n$5\r\nother\r\n", log);
        var ids = Regex.Matches(log, "\\$8\r\nentry-id\r\n:(\\d+)\r\n").Select(m => m.Groups[1].Value).ToList();
        Assert.Equal(["2", "1", "0"], ids);
        Assert.Contains("$17\r\ntimestamp-created\r\n:", log);
        Assert.Contains("$22\r\ntimestamp-last-updated\r\n:", log);
        Assert.Contains("user=eve", log);
        Assert.Contains("acl_access_denied_key:3\r\n", c.Call("INFO", "stats"));
        Assert.Contains("acl_access_denied_cmd:1\r\n", c.Call("INFO", "stats"));
        Assert.StartsWith("*1\r\n", c.Call("ACL", "LOG", "1"));
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "acllog-max-len", "1"));
        Assert.StartsWith("-NOPERM", e.Call("PUBLISH", "zz", "m"));
        Assert.StartsWith("*1\r\n", c.Call("ACL", "LOG"));
        Assert.Equal("+OK\r\n", c.Call("ACL", "LOG", "RESET"));
        Assert.Equal("*0\r\n", c.Call("ACL", "LOG"));
    }

    [RedisFact]
    public void Exec_AclChangedAfterQueueing_RefusesThatCommandOnly()
    {
        using var servers = new PairedServers();
        using (var a = servers.ConnectTheirs()) a.Call(Eve);
        using (var a = servers.ConnectOurs()) a.Call(Eve);
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        using var theirsAdmin = servers.ConnectTheirs();
        using var oursAdmin = servers.ConnectOurs();
        var diff = PairedServers.Compare(theirs, ours, [["AUTH", "eve", "pw"], ["MULTI"], ["SET", "kx", "1"], ["GET", "kx"], ["PUBLISH", "c1", "m"]]);
        diff += PairedServers.Compare(theirsAdmin, oursAdmin, [["ACL", "SETUSER", "eve", "-set", "resetchannels"]]);
        diff += PairedServers.Compare(theirs, ours, [["EXEC"], ["GET", "kx"]]);
        diff += PairedServers.Compare(theirsAdmin, oursAdmin, [["ACL", "SETUSER", "eve", "resetkeys", "+set"]]);
        diff += PairedServers.Compare(theirs, ours, [["MULTI"], ["SET", "kx", "1"], ["GET", "kx"]], r => To72(r, "eve"));
        diff += PairedServers.Compare(theirs, ours, [["EXEC"]], r => To72(r, "eve"));
        Assert.True(diff.Length == 0, diff);
    }

    [Fact]
    public async Task DelUser_ClosesItsConnections_CurrentOneAfterTheReply()
    {
        await using var server = TestServer.Start(2);
        using var admin = server.Connect();
        admin.Call("ACL", "SETUSER", "gone", "on", ">pw", "+@all", "~*", "&*");
        using var victim = server.Connect();
        Assert.Equal("+OK\r\n", victim.Call("AUTH", "gone", "pw"));
        using var self = server.Connect();
        Assert.Equal("+OK\r\n", self.Call("AUTH", "gone", "pw"));
        Assert.Equal(":1\r\n", self.Call("ACL", "DELUSER", "gone"));
        Assert.True(self.IsClosedByServer());
        Assert.True(victim.IsClosedByServer());
        Assert.Equal("+PONG\r\n", admin.Call("PING"));
    }

    [Fact]
    public async Task SetUser_LosingChannelPermission_ClosesSubscribersThatNoLongerFit()
    {
        await using var server = TestServer.Start(2);
        using var admin = server.Connect();
        admin.Call("ACL", "SETUSER", "sub", "on", ">pw", "+@all", "~*", "resetchannels", "&news.*", "&sport");
        using var news = server.Connect();
        news.Call("AUTH", "sub", "pw");
        Assert.StartsWith("*3\r\n$9\r\nsubscribe\r\n", news.Call("SUBSCRIBE", "news.a"));
        using var sport = server.Connect();
        sport.Call("AUTH", "sub", "pw");
        Assert.StartsWith("*3\r\n$9\r\nsubscribe\r\n", sport.Call("SUBSCRIBE", "sport"));
        // Adding a pattern keeps everyone; dropping &sport closes only the client subscribed to it.
        Assert.Equal("+OK\r\n", admin.Call("ACL", "SETUSER", "sub", "&more"));
        Assert.Equal("+OK\r\n", admin.Call("ACL", "SETUSER", "sub", "resetchannels", "&news.*"));
        Assert.True(sport.IsClosedByServer());
        Assert.Equal(":1\r\n", admin.Call("PUBLISH", "news.a", "hello"));
        Assert.Equal("*3\r\n$7\r\nmessage\r\n$6\r\nnews.a\r\n$5\r\nhello\r\n", news.ReadReply());
    }

    [RedisFact]
    public void ClientKillUser_ClosesThatUsersConnections_AsRedis()
    {
        using var servers = new PairedServers("--user", "alice", "on", ">pw", "+@all", "~*");
        using var theirsAlice = servers.ConnectTheirs();
        using var oursAlice = servers.ConnectOurs();
        theirsAlice.Call("AUTH", "alice", "pw");
        oursAlice.Call("AUTH", "alice", "pw");
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        var diff = PairedServers.Compare(theirs, ours,
            [["CLIENT", "KILL", "USER", "nosuch"], ["CLIENT", "KILL", "USER", "alice"], ["CLIENT", "KILL", "USER", "alice"], ["PING"]]);
        Assert.True(diff.Length == 0, diff);
        Assert.True(oursAlice.IsClosedByServer());
    }

    [Fact]
    public async Task Noperm_RejectedCommandsCountedAsRejected()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        c.Call(Eve);
        c.Call("AUTH", "eve", "pw");
        Assert.StartsWith("-NOPERM", c.Call("GET", "other"));
        c.Call("AUTH", "default", "x");
        Assert.Contains("cmdstat_get:calls=0,", c.Call("INFO", "commandstats"));
        Assert.Contains("rejected_calls=1", c.Call("INFO", "commandstats"));
        Assert.Contains("errorstat_NOPERM:count=1", c.Call("INFO", "errorstats"));
    }
}
