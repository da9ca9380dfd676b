using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// A command a script calls but Redis's scriptCall refuses before running it (wrong arity, not
/// allowed from scripts, ACL, a write from a read-only script, out of memory) counts in
/// commandstats as a rejected call of that command, as a refusal at the top level does; an unknown
/// command counts nowhere; a command that runs and replies an error counts as a failed call.
/// </summary>
public class ScriptCommandStatsTests
{
    private static readonly string[][] Refusals =
    [
        ["EVAL", "return redis.pcall('get')", "0"],
        ["EVAL", "return redis.pcall('nosuch')", "0"],
        ["EVAL", "return redis.pcall('subscribe', 'x')", "0"],
        ["EVAL", "#!lua flags=no-writes\nreturn redis.pcall('set', 'a', 'b')", "0"],
        ["EVAL_RO", "return redis.pcall('del', 'a')", "0"],
        ["EVAL", "return redis.pcall('incr', 'str')", "0"],
        ["FUNCTION", "LOAD", "REPLACE", "#!lua name=stats\nredis.register_function('f', function(keys, args) return redis.pcall(unpack(args)) end)"],
        ["FCALL", "f", "0", "lpush"],
        ["FCALL", "f", "0", "exec"],
        ["AUTH", "app", "pw"],
        ["EVAL", "return redis.pcall('get', 'other')", "0"],
        ["EVAL", "return redis.pcall('hgetall', 'app:h')", "0"],
        ["FCALL", "f", "0", "get", "other"],
        ["FCALL", "f", "0", "hgetall", "app:h"],
        ["AUTH", "default", "x"],
        ["CONFIG", "SET", "maxmemory", "1"],
        ["EVAL", "return redis.pcall('rpush', 'list', 'x')", "0"],
        ["CONFIG", "SET", "maxmemory", "0"],
    ];

    /// <summary>The commandstats lines of the commands named, without their timings.</summary>
    private static string Counts(RespClient c, params string[] names)
    {
        string info = c.Call("INFO", "commandstats");
        var lines = names.Select(n => Regex.Match(info, "cmdstat_" + Regex.Escape(n) + ":([^\r]*)").Groups[1].Value)
            .Select(l => Regex.Replace(l, "usec=[0-9]+,usec_per_call=[0-9.]+,", ""));
        return string.Join("\n", names.Zip(lines, (n, l) => n + " " + l));
    }

    private static readonly string[] Names = ["get", "nosuch", "subscribe", "set", "del", "incr", "lpush", "exec", "hgetall", "rpush", "eval", "eval_ro", "fcall"];

    [RedisFact]
    public void Commandstats_CommandsRefusedInsideScripts_CountedAsRedis()
    {
        using var servers = new PairedServers();
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        var setup = new[]
        {
            new[] { "ACL", "SETUSER", "app", "on", ">pw", "~app:*", "+@read", "+@scripting" },
            ["SET", "str", "abc"], ["CONFIG", "RESETSTAT"],
        };
        var diff = PairedServers.Compare(theirs, ours, setup);
        // The replies themselves differ in 7.0's ACL wording; the counts are what is compared here.
        foreach (var cmd in Refusals)
        {
            theirs.Call(cmd);
            ours.Call(cmd);
        }
        Assert.True(diff.Length == 0, diff);
        Assert.Equal(Counts(theirs, Names), Counts(ours, Names));
    }

    [Fact]
    public async Task Commandstats_CommandRefusedInsideScript_CountsRejectedCall()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        Assert.StartsWith("-ERR Wrong number of args", c.Call("EVAL", "return redis.pcall('get')", "0"));
        Assert.StartsWith("-ERR This Redis command is not allowed from script", c.Call("EVAL", "return redis.pcall('subscribe', 'x')", "0"));
        Assert.StartsWith("-ERR Write commands are not allowed", c.Call("EVAL_RO", "return redis.pcall('del', 'a')", "0"));
        string stats = c.Call("INFO", "commandstats");
        Assert.Matches("cmdstat_get:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0\r\n", stats);
        Assert.Matches("cmdstat_subscribe:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0\r\n", stats);
        Assert.Matches("cmdstat_del:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0\r\n", stats);
    }
}
