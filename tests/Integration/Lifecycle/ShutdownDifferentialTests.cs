using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Lifecycle;

/// <summary>
/// SHUTDOWN's refusals (every option combination that does not stop the server, in MULTI, in a
/// script) and the shutdown-on-sigterm / shutdown-on-sigint configs, compared with redis-server.
/// Combinations that would stop the server are tried in <see cref="SignalStopTests"/>.
/// </summary>
public sealed class ShutdownDifferentialTests
{
    /// <summary>Every option list with an unknown word, SAVE with NOSAVE, or ABORT with anything, plus a plain ABORT.</summary>
    [RedisFact]
    public void Shutdown_RefusedOptionCombinations_SameAsRedis()
    {
        string[] options = ["NOSAVE", "SAVE", "NOW", "FORCE", "ABORT"];
        var script = new List<string[]>();
        // Every ordered pair and triple of options; those that would stop the server are left out.
        foreach (string a in options)
        foreach (string b in options)
        {
            if (Refused(a, b)) script.Add(["SHUTDOWN", a, b]);
            foreach (string c in options)
                if (Refused(a, b, c)) script.Add(["SHUTDOWN", a, b, c]);
        }
        script.Add(["SHUTDOWN", "abort"]);
        script.Add(["SHUTDOWN", "ABORT", "ABORT"]);
        script.Add(["SHUTDOWN", "NOSAVE", "BOGUS"]);
        script.Add(["SHUTDOWN", "BOGUS", "NOSAVE"]);
        script.Add(["SHUTDOWN", ""]);
        script.Add(["SHUTDOWN", "save", "nosave"]);
        script.Add(["PING"]);
        Differential.AssertSame(script.ToArray());
    }

    private static bool Refused(params string[] options)
    {
        bool abort = options.Contains("ABORT");
        return abort || (options.Contains("SAVE") && options.Contains("NOSAVE"));
    }

    /// <summary>SHUTDOWN is refused inside MULTI (the transaction is then discarded) and from scripts.</summary>
    [RedisFact]
    public void Shutdown_InMultiAndInScripts_RefusedAsRedis() => Differential.AssertSame(
        ["MULTI"], ["SHUTDOWN", "NOSAVE"], ["EXEC"],
        ["MULTI"], ["SHUTDOWN", "ABORT"], ["EXEC"],
        ["EVAL", "return redis.call('shutdown', 'nosave')", "0"],
        ["EVAL", "return redis.pcall('shutdown')", "0"],
        ["EVAL", "return redis.pcall('shutdown', 'abort')", "0"],
        ["PING"]);

    [RedisFact]
    public void ShutdownOnSignalConfigs_GetSetAndErrors_SameAsRedis()
    {
        var script = new List<string[]>();
        foreach (string name in (string[])["shutdown-on-sigterm", "shutdown-on-sigint"])
        {
            script.Add(["CONFIG", "GET", name]);
            foreach (string value in (string[])["save", "nosave", "now", "force", "default", "force now", "now force save",
                         "default save", "save default", "NOW", "nosave now force", "save save", "save nosave", "nosave save now",
                         "bogus", "save bogus", "", "now  force", "default default"])
            {
                script.Add(["CONFIG", "SET", name, value]);
                script.Add(["CONFIG", "GET", name]);
            }
        }
        // (A pattern lists them in redis-server's hash order, which changes from run to run.)
        script.Add(["CONFIG", "GET", "shutdown-timeout"]);
        Differential.AssertSameOnPrivateServers(2, script.ToArray());
    }

    /// <summary>SHUTDOWN is an admin command: a user without @admin gets NOPERM, before any option is read.</summary>
    [RedisFact]
    public void Shutdown_UserWithoutAdmin_NopermAsRedis()
    {
        using var pair = new PairedServers();
        using var theirs = pair.ConnectTheirs();
        using var ours = pair.ConnectOurs();
        string diff = PairedServers.Compare(theirs, ours, [
            ["ACL", "SETUSER", "app", "on", ">secret", "+@all", "-@admin", "~*"],
            ["AUTH", "app", "secret"],
            ["SHUTDOWN"],
            ["SHUTDOWN", "NOSAVE"],
            ["SHUTDOWN", "ABORT"],
            ["SHUTDOWN", "BOGUS"],
            ["ACL", "LOG", "RESET"],
            ["PING"],
        ], normalizeTheirs: reply => reply.Replace("-NOPERM this user has", "-NOPERM User app has")); // 7.2 names the user
        Assert.True(diff.Length == 0, diff);
    }

    /// <summary>rdb-key-save-delay is hidden, as in Redis: found by its name, not by a pattern.</summary>
    [RedisFact]
    public void RdbKeySaveDelay_HiddenFromPatterns_SameAsRedis() => Differential.AssertSameOnPrivateServers(2,
        ["CONFIG", "GET", "rdb-key-save-delay"],
        ["CONFIG", "GET", "rdb-key-*"],
        ["CONFIG", "SET", "rdb-key-save-delay", "100"],
        ["CONFIG", "GET", "rdb-key-save-delay"],
        ["CONFIG", "SET", "rdb-key-save-delay", "x"],
        ["CONFIG", "SET", "rdb-key-save-delay", "0"]);
}
