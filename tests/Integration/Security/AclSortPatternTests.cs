using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Security;

/// <summary>
/// SORT and SORT_RO read keys named by their BY and GET patterns, keys that are not among the
/// command's arguments, so the ACL key check cannot see them. Redis (7.0 and 7.2 alike) refuses a
/// BY pattern with '*' and any GET unless one selector that allows the command also reads every
/// key (allkeys, ~* or %R~*); BY without '*' (BY nosort) reads no key and is allowed. The refusal is
/// an ordinary error reply of the command, on every path: top level, MULTI, EVAL and FCALL.
/// </summary>
public class AclSortPatternTests
{
    /// <summary>Redis 7.0 words ACL refusals differently; 7.2's words (what we answer) replace them (the user is app).</summary>
    private static string To72(string reply)
        => Regex.Replace(reply, "this user has no permissions to run the '([^']*)' command", "User app has no permissions to run the '$1' command")
            .Replace("this user has no permissions to access one of the keys used as arguments", "No permissions to access a key")
            .Replace("The user executing the script can't access at least one of the keys mentioned in the command arguments",
                "ACL failure in script: No permissions to access a key");

    private static readonly string[][] Setup =
    [
        ["ACL", "SETUSER", "app", "on", ">pw", "~app:*", "+@read", "+sort", "+@scripting", "+multi", "+exec"],
        // Full read access, but only through a selector that does not allow SORT_RO.
        ["ACL", "SETUSER", "sel", "on", ">pw", "~app:*", "+@read", "+@scripting", "(~* +get)"],
        // A second selector that allows SORT_RO and reads every key.
        ["ACL", "SETUSER", "sel2", "on", ">pw", "~app:*", "+@read", "(%R~* +sort_ro +eval)"],
        ["ACL", "SETUSER", "reader", "on", ">pw", "~app:*", "%R~*", "+@read", "+@scripting"],
        ["ACL", "SETUSER", "writer", "on", ">pw", "~app:*", "%W~*", "+@read", "+@scripting"],
        ["RPUSH", "app:list", "2", "1", "3"],
        ["MSET", "w_1", "30", "w_2", "20", "w_3", "10", "obj_1", "secret1", "obj_2", "secret2", "obj_3", "secret3"],
        ["FUNCTION", "LOAD", "REPLACE",
            "#!lua name=sortlib\n" +
            "redis.register_function('sortby', function(keys, args) return redis.call('sort_ro', keys[1], 'by', args[1]) end)\n" +
            "redis.register_function('sortget', function(keys, args) return redis.pcall('sort_ro', keys[1], 'get', args[1]) end)"],
    ];

    private static readonly string[][] AsApp =
    [
        ["AUTH", "app", "pw"],
        ["SORT_RO", "app:list", "BY", "w_*", "GET", "obj_*"],
        ["SORT_RO", "app:list", "BY", "w_*"],
        ["SORT_RO", "app:list", "GET", "obj_*"],
        ["SORT_RO", "app:list", "GET", "#"],
        ["SORT_RO", "app:list", "BY", "nosort", "GET", "#"],
        ["SORT_RO", "app:list", "BY", "nosort"],
        ["SORT_RO", "app:list", "BY", "w_"],
        ["SORT_RO", "app:list"],
        ["SORT", "app:list", "BY", "w_*", "STORE", "app:dst"],
        ["SORT", "app:list", "GET", "obj_*", "STORE", "app:dst"],
        ["SORT", "app:list", "BY", "nosort", "STORE", "app:dst"],
        ["LRANGE", "app:dst", "0", "-1"],
        // Options are parsed in order: an error met before the pattern wins, one after it loses.
        ["SORT_RO", "app:list", "LIMIT", "x", "1", "BY", "w_*"],
        ["SORT_RO", "app:list", "BY", "w_*", "LIMIT", "x", "1"],
        ["SORT_RO", "app:list", "BY", "w_*", "NOSUCH"],
        ["SORT_RO", "app:list", "NOSUCH", "BY", "w_*"],
        ["SORT_RO", "other", "BY", "w_*"],
        ["MULTI"], ["SORT_RO", "app:list", "BY", "w_*", "GET", "obj_*"], ["SORT_RO", "app:list", "BY", "nosort"], ["EXEC"],
        ["EVAL", "return redis.call('sort_ro', KEYS[1], 'by', 'w_*', 'get', 'obj_*')", "1", "app:list"],
        ["EVAL", "return redis.pcall('sort_ro', KEYS[1], 'get', '#')", "1", "app:list"],
        ["EVAL", "return redis.call('sort_ro', KEYS[1], 'by', 'nosort')", "1", "app:list"],
        ["FCALL", "sortby", "1", "app:list", "w_*"],
        ["FCALL", "sortby", "1", "app:list", "nosort"],
        ["FCALL", "sortget", "1", "app:list", "obj_*"],
        ["PING"],
    ];

    [RedisFact]
    public void Sort_PatternsWithoutFullKeyAccess_RefusedAsRedis()
    {
        using var servers = new PairedServers();
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        var diff = PairedServers.Compare(theirs, ours, Setup);
        diff += PairedServers.Compare(theirs, ours, AsApp, To72);
        Assert.True(diff.Length == 0, diff);
    }

    /// <summary>
    /// Read access to every key allows the patterns (%R~*, even beside narrower patterns, or in a
    /// second selector that allows SORT_RO); write access to every key, or full access through a
    /// selector that does not allow SORT_RO, does not.
    /// </summary>
    [RedisFact]
    public void Sort_PatternsBySelectorAccess_AsRedis()
    {
        using var servers = new PairedServers();
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        var diff = PairedServers.Compare(theirs, ours, Setup);
        foreach (var user in new[] { "reader", "writer", "sel", "sel2" })
        {
            diff += PairedServers.Compare(theirs, ours,
            [
                ["AUTH", user, "pw"],
                ["SORT_RO", "app:list", "BY", "w_*", "GET", "obj_*", "GET", "#"],
                ["SORT_RO", "app:list", "GET", "#"],
                ["SORT_RO", "app:list", "BY", "nosort"],
                ["EVAL", "return redis.pcall('sort_ro', 'app:list', 'by', 'w_*', 'get', 'obj_*')", "0"],
                ["AUTH", "default", "x"],
                // The check is made by Redis's SORT itself, not by the ACL: DRYRUN allows it.
                ["ACL", "DRYRUN", user, "SORT_RO", "app:list", "BY", "w_*"],
            ], To72);
        }
        Assert.True(diff.Length == 0, diff);
    }

    [Fact]
    public async Task Sort_PatternOutsideKeyPatterns_RefusedOnEveryPath()
    {
        await using var server = TestServer.Start(2);
        using var admin = server.Connect();
        foreach (var cmd in Setup) Assert.DoesNotMatch("^-", admin.Call(cmd));
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("AUTH", "app", "pw"));
        const string By = "-ERR BY option of SORT denied due to insufficient ACL permissions.";
        const string Get = "-ERR GET option of SORT denied due to insufficient ACL permissions.";
        Assert.Equal(By + "\r\n", c.Call("SORT_RO", "app:list", "BY", "w_*", "GET", "obj_*"));
        Assert.Equal(Get + "\r\n", c.Call("SORT_RO", "app:list", "GET", "obj_*"));
        Assert.Equal(Get + "\r\n", c.Call("SORT_RO", "app:list", "BY", "nosort", "GET", "#"));
        Assert.Equal(By + "\r\n", c.Call("SORT", "app:list", "BY", "w_*", "STORE", "app:dst"));
        Assert.Equal("*3\r\n$1\r\n2\r\n$1\r\n1\r\n$1\r\n3\r\n", c.Call("SORT_RO", "app:list", "BY", "nosort"));
        Assert.Equal("+OK\r\n", c.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", c.Call("SORT_RO", "app:list", "GET", "obj_*"));
        Assert.Equal("*1\r\n" + Get + "\r\n", c.Call("EXEC"));
        Assert.Matches("^" + Regex.Escape(By) + " script: [0-9a-f]{40}, on @user_script:1\\.\r\n$",
            c.Call("EVAL", "return redis.call('sort_ro', KEYS[1], 'by', 'w_*')", "1", "app:list"));
        Assert.Equal(By + " script: sortby, on @user_function:2.\r\n", c.Call("FCALL", "sortby", "1", "app:list", "w_*"));
        Assert.Equal(Get + "\r\n", c.Call("FCALL", "sortget", "1", "app:list", "obj_*"));
        // Nothing was logged: the ACL itself allowed each command.
        Assert.Equal("*0\r\n", admin.Call("ACL", "LOG"));
    }
}
