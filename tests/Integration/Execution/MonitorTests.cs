using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Execution;

/// <summary>MONITOR: Redis's line format, what is shown and in which order, and leaving the mode.</summary>
public sealed class MonitorTests
{
    private static readonly Regex Stamp = new(@"^\+\d+\.\d{6} \[(\d+) ([^\]]+)\] ");

    /// <summary>
    /// The line without its time and client address: "[0] \"set\" \"k\" \"v\"" (a script's
    /// commands keep their origin: "[0 lua] ...").
    /// </summary>
    private static string Normalize(string line)
    {
        var m = Stamp.Match(line);
        Assert.True(m.Success, $"not a monitor line: {Differential.Show(line)}");
        Assert.EndsWith("\r\n", line);
        string origin = m.Groups[2].Value == "lua" ? " lua" : "";
        return $"[{m.Groups[1].Value}{origin}] " + line[m.Length..^2];
    }

    /// <summary>Runs the script and returns the monitor lines it produced, up to the closing ECHO.</summary>
    private static List<string> Observe(Func<RespClient> connect, Action<RespClient, RespClient> script)
    {
        using var monitor = connect();
        using var actor = connect();
        using var other = connect();
        Assert.Equal("+OK\r\n", monitor.Call("MONITOR"));
        script(actor, other);
        actor.Call("ECHO", "end-of-script");
        var lines = new List<string>();
        while (true)
        {
            var line = Normalize(monitor.ReadReply());
            if (line.Contains("\"ECHO\" \"end-of-script\"")) return lines;
            lines.Add(line);
        }
    }

    private static void Script(RespClient c, RespClient other)
    {
        c.Call("SET", "mon:k", "a b\"\\\n\r\t\u0001\u007f");
        c.Call("get", "mon:k");
        c.Call("NOSUCHCOMMAND", "x");        // refused by the checks: not shown
        c.Call("GET");                        // arity: not shown
        c.Call("CONFIG", "GET", "maxmemory"); // admin: not shown
        c.Call("MULTI");
        c.Call("SET", "mon:t", "1");
        c.Call("INCR", "mon:t");
        c.Call("EXEC");
        c.Call("MULTI");
        c.Call("NOSUCHCOMMAND");
        c.Call("EXEC");                       // EXECABORT, still shown
        c.Call("EXEC");                       // EXEC without MULTI: an error, shown
        c.Call("SELECT", "1");
        c.Call("SET", "mon:k1", "x");
        c.Call("SELECT", "0");
        c.Call("AUTH", "secret");             // redacted
        c.Call("AUTH", "user", "secret");
        c.Call("HELLO", "2", "AUTH", "user", "secret");
        c.Call("DEL", "mon:k", "mon:t");
        c.Call("DEL", "mon:k1");
    }

    [RedisFact]
    public async Task Monitor_Script_SameLinesAsRedis()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        var expected = Observe(reference.Connect, Script);
        await using var server = TestServer.Start(4); // private: other tests' commands would show up
        var actual = Observe(server.Connect, Script);
        Assert.Equal(expected, actual);
    }

    /// <summary>EVAL and EVALSHA are shown before their script's commands, which come from "lua".</summary>
    [RedisFact]
    public async Task Monitor_ScriptCommands_SameLinesAsRedis()
    {
        static void Scripts(RespClient c, RespClient other)
        {
            c.Call("EVAL", "redis.call('SET', KEYS[1], 'v') return redis.call('GET', KEYS[1])", "1", "mon:s");
            c.Call("EVALSHA", "1234567890123456789012345678901234567890", "0");
            c.Call("EVALSHA", "short", "0");
            c.Call("EVAL_RO", "return redis.call('GET', KEYS[1])", "1", "mon:s");
            c.Call("EVAL", "return redis.pcall('NOSUCHCOMMAND')", "0");
            c.Call("EVAL", "return redis.call('CONFIG', 'GET', 'maxmemory')", "0");
            c.Call("EVAL", "return 1", "x");
            c.Call("SELECT", "2");
            c.Call("EVAL", "return redis.call('DEL', KEYS[1])", "1", "mon:s");
            c.Call("SELECT", "0");
            c.Call("DEL", "mon:s");
        }
        using var reference = ReferenceRedis.StartOrNull()!;
        var expected = Observe(reference.Connect, Scripts);
        await using var server = TestServer.Start(4);
        var actual = Observe(server.Connect, Scripts);
        Assert.Equal(expected, actual);
        Assert.Contains("[0 lua] \"SET\" \"mon:s\" \"v\"", actual);
    }

    private static void Scripts(RespClient c, RespClient other)
    {
        c.Call("FUNCTION", "FLUSH");
        c.Call("FUNCTION", "LOAD", "#!lua name=monlib\nredis.register_function('monf', function(keys) redis.call('SET', keys[1], 'f') return 1 end)");
        c.Call("EVAL", "redis.call('SET', KEYS[1], 'e') return redis.call('GET', KEYS[1])", "1", "mon:e");
        c.Call("FCALL", "monf", "1", "mon:f");
        c.Call("FCALL", "nosuch", "0");       // fed before it fails, as Redis
        c.Call("EVAL", "return 1", "x");      // likewise
        c.Call("FUNCTION", "FLUSH");
    }

    /// <summary>EVAL and FCALL show before the commands their script runs; those come from "lua".</summary>
    [RedisFact]
    public async Task Monitor_Scripts_ShownBeforeTheirCommands()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        var expected = Observe(reference.Connect, Scripts);
        await using var server = TestServer.Start(4);
        var actual = Observe(server.Connect, Scripts);
        Assert.Equal(expected, actual);

        using var monitor = server.Connect();
        using var actor = server.Connect();
        Assert.Equal("+OK\r\n", monitor.Call("MONITOR"));
        actor.Call("EVAL", "return redis.call('PING')", "0");
        Assert.Contains("[0 127.0.0.1:", monitor.ReadReply());
        Assert.Matches(@"^\+\d+\.\d{6} \[0 lua\] ""PING""\r\n$", monitor.ReadReply());
    }

    [Fact]
    public async Task Monitor_Lines_FormatAndEscapes()
    {
        await using var server = TestServer.Start(4);
        var lines = Observe(server.Connect, Script);
        Assert.Equal("[0] \"SET\" \"mon:k\" \"a b\\\"\\\\\\n\\r\\t\\x01\\x7f\"", lines[0]);
        Assert.Equal("[0] \"get\" \"mon:k\"", lines[1]);
        Assert.Equal("[0] \"MULTI\"", lines[2]);
        Assert.Equal("[0] \"SET\" \"mon:t\" \"1\"", lines[3]);
        Assert.Equal("[0] \"INCR\" \"mon:t\"", lines[4]);
        Assert.Equal("[0] \"EXEC\"", lines[5]);
        Assert.Contains("[0] \"AUTH\" \"(redacted)\"", lines);
        Assert.Contains("[0] \"AUTH\" \"(redacted)\" \"(redacted)\"", lines);
        Assert.Contains("[0] \"HELLO\" \"2\" \"AUTH\" \"(redacted)\" \"(redacted)\"", lines);
        Assert.Contains("[1] \"SET\" \"mon:k1\" \"x\"", lines);
        Assert.DoesNotContain(lines, l => l.Contains("CONFIG") || l.Contains("NOSUCHCOMMAND"));
    }

    [Fact]
    public async Task Monitor_BlockedCommand_ShownOnce()
    {
        await using var server = TestServer.Start(2);
        var lines = Observe(server.Connect, (c, other) =>
        {
            other.Send("BLPOP", "mon:bl", "0");
            Blocked.WaitForCount(c, 1);
            c.Call("LPUSH", "mon:bl", "1");
            Assert.StartsWith("*2", other.ReadReply());
            c.Call("LPUSH", "mon:bl", "2");
        }).Where(l => !l.Contains("\"INFO\"") && !l.Contains("\"CLIENT\"")).ToList();
        Assert.Equal(["[0] \"BLPOP\" \"mon:bl\" \"0\"", "[0] \"LPUSH\" \"mon:bl\" \"1\"", "[0] \"LPUSH\" \"mon:bl\" \"2\""], lines);
    }

    [Fact]
    public async Task Monitor_Twice_NoReply_ResetLeaves_ClientListFlagO()
    {
        await using var server = TestServer.Start(2);
        using var monitor = server.Connect();
        using var actor = server.Connect();
        var id = Regex.Match(monitor.Call("CLIENT", "ID"), @"\d+").Value;
        Assert.Equal("+OK\r\n", monitor.Call("MONITOR"));
        monitor.Send("MONITOR"); // already monitoring: no reply at all
        Assert.Matches(@"flags=O ", actor.Call("CLIENT", "LIST", "ID", id));
        // The monitor sees its own commands too (CLIENT LIST is admin: not shown).
        Assert.Equal("+RESET\r\n", monitor.Call("RESET"));
        actor.Call("SET", "mon:after-reset", "1");
        Assert.Equal("+PONG\r\n", monitor.Call("PING")); // nothing was fed in between
    }

    [Fact]
    public void Monitor_InsideMulti_Refused()
    {
        using var c = TestServer.Shared.Connect();
        c.Call("MULTI");
        Assert.Equal("+QUEUED\r\n", c.Call("MONITOR"));
        Assert.Equal("*1\r\n-ERR MONITOR isn't allowed for DENY BLOCKING client\r\n", c.Call("EXEC"));
    }

    [Fact]
    public async Task Monitor_KeyspaceCommands_RefusedAsForAReplica()
    {
        await using var server = TestServer.Start(2);
        using var monitor = server.Connect();
        Assert.Equal("+OK\r\n", monitor.Call("MONITOR"));
        monitor.Send("GET", "k");
        Assert.Equal("-ERR Replica can't interact with the keyspace\r\n", monitor.ReadReply());
        monitor.Send("PING");
        Assert.Equal("+PONG\r\n", monitor.ReadReply());
        Assert.EndsWith("\"PING\"\r\n", monitor.ReadReply()); // its own PING, fed to itself
    }

    [Fact]
    public async Task ClientList_WatchedKeyChanged_FlagD_BlockedArgsAreArgvMem()
    {
        await using var server = TestServer.Start(2);
        using var watcher = server.Connect();
        using var blocked = server.Connect();
        using var other = server.Connect();
        var watcherId = Regex.Match(watcher.Call("CLIENT", "ID"), @"\d+").Value;
        var blockedId = Regex.Match(blocked.Call("CLIENT", "ID"), @"\d+").Value;
        watcher.Call("WATCH", "mon:w");
        other.Call("SET", "mon:w", "1");
        Assert.Matches(" flags=d ", other.Call("CLIENT", "LIST", "ID", watcherId));
        blocked.Send("BLPOP", "nolist", "0");
        Blocked.WaitForCount(other, 1);
        // As Redis: "BLPOP nolist 0" is 12 bytes of arguments, and nothing waits in the query buffer.
        Assert.Matches(" qbuf=0 .* argv-mem=12 ", other.Call("CLIENT", "LIST", "ID", blockedId));
    }
}
