using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// SLOWLOG against redis-server: with slowlog-log-slower-than 0 every command is logged, so the
/// same script gives the same log on both servers once the figures that differ (IDs, times,
/// durations, client ports) are masked: which commands are logged (EXEC's and a script's inner
/// commands, the latter under the script client's "?:0"), newest first, long arguments and long argument lists cut as Redis cuts them, AUTH's
/// secret redacted, client names, slowlog-max-len, and every error.
/// </summary>
public class SlowLogTests
{
    private static readonly Regex Integers = new(@"(?<=\n|^):\d+\r\n", RegexOptions.Compiled);
    private static readonly Regex Peers = new(@"\$\d+\r\n127\.0\.0\.1:\d+\r\n", RegexOptions.Compiled);

    private static string Mask(string reply) => Peers.Replace(Integers.Replace(reply, ":N\r\n"), "<peer>\r\n");

    private static List<string> Run(RespClient c)
    {
        var replies = new List<string>();
        string long200 = new('x', 200);
        string[][] script =
        [
            ["CONFIG", "SET", "slowlog-log-slower-than", "0"],
            ["CONFIG", "SET", "slowlog-max-len", "128"],
            ["SLOWLOG", "RESET"],
            ["SET", "k", long200],
            ["RPUSH", "list", .. Enumerable.Range(0, 40).Select(i => "e" + i)],
            ["CLIENT", "SETNAME", "slow-client"],
            ["AUTH", "secret"],
            ["HELLO", "2", "AUTH", "default", "secret"],
            ["MULTI"], ["INCR", "n"], ["GET", "k"], ["EXEC"],
            ["EVAL", "redis.call('SET', 'fromscript', '1') return 1", "0"],
            ["SLOWLOG", "LEN"],
        ];
        foreach (var cmd in script)
        {
            string reply = Mask(c.Call(cmd));
            // HELLO's reply names each server's version; what matters here is how it is logged.
            if (cmd[0] != "HELLO") replies.Add(reply);
        }
        replies.Add(Mask(c.Call("SLOWLOG", "GET", "-1")));
        replies.Add(Mask(c.Call("SLOWLOG", "GET", "2")));
        replies.Add(Mask(c.Call("SLOWLOG", "GET")));
        replies.Add(c.Call("SLOWLOG", "GET", "-2"));
        replies.Add(c.Call("SLOWLOG", "GET", "x"));
        replies.Add(c.Call("SLOWLOG", "GET", "1", "2"));
        replies.Add(c.Call("SLOWLOG", "LEN", "x"));
        replies.Add(c.Call("SLOWLOG", "FOO"));
        replies.Add(c.Call("SLOWLOG"));
        c.Call("CONFIG", "SET", "slowlog-max-len", "2");
        c.Call("SET", "a", "1");
        c.Call("SET", "b", "2");
        c.Call("SET", "c", "3");
        replies.Add(Mask(c.Call("SLOWLOG", "GET", "-1")));
        c.Call("CONFIG", "SET", "slowlog-log-slower-than", "-1");
        c.Call("SLOWLOG", "RESET");
        c.Call("SET", "d", "4");
        replies.Add(c.Call("SLOWLOG", "LEN"));
        c.Call("CONFIG", "SET", "slowlog-log-slower-than", "100000000");
        c.Call("SET", "e", "5");
        replies.Add(c.Call("SLOWLOG", "LEN"));
        return replies;
    }

    [RedisFact]
    public async Task Slowlog_SameEntriesAsRedis()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        await using var server = TestServer.Start(2);
        List<string> theirs, ours;
        using (var c = reference.Connect()) theirs = Run(c);
        using (var c = server.Connect()) ours = Run(c);
        for (int i = 0; i < theirs.Count; i++)
            Assert.True(theirs[i] == ours[i], $"reply {i} differs:\n  redis:      {Differential.Show(theirs[i])}\n  redisclone: {Differential.Show(ours[i])}");
    }

    [RedisFact]
    public async Task Slowlog_ConfigSetOfTheThreshold_JudgedByTheValueItSets()
    {
        // Redis compares a command's duration with the threshold in force after it ran: the CONFIG
        // SET that lowers it to 0 is logged (even from -1, off), the one that raises it is not.
        string[][] script =
        [
            ["CONFIG", "SET", "slowlog-log-slower-than", "-1"],
            ["SLOWLOG", "RESET"],
            ["CONFIG", "SET", "slowlog-log-slower-than", "0"],
            ["CONFIG", "SET", "slowlog-log-slower-than", "100000000"],
            ["CONFIG", "SET", "slowlog-log-slower-than", "0"],
            ["CONFIG", "SET", "slowlog-log-slower-than", "-1"],
            ["SLOWLOG", "GET", "-1"],
        ];
        using var reference = ReferenceRedis.StartOrNull()!;
        await using var server = TestServer.Start(2);
        using var theirs = reference.Connect();
        using var ours = server.Connect();
        foreach (var cmd in script)
            Assert.Equal(Differential.Show(Mask(theirs.Call(cmd))), Differential.Show(Mask(ours.Call(cmd))));
    }

    [Fact]
    public async Task Slowlog_DurationsAndTimes_AreReal()
    {
        await using var server = TestServer.Start(2, "--enable-debug-command", "yes");
        using var c = server.Connect();
        c.Call("CONFIG", "SET", "slowlog-log-slower-than", "50000");
        c.Call("SET", "fast", "1");
        c.Call("SLOWLOG", "RESET"); // the first commands of a fresh process may be slow (JIT)
        c.Call("SET", "fast", "1");
        c.Call("DEBUG", "SLEEP", "0.1");
        string reply = c.Call("SLOWLOG", "GET", "1");
        var numbers = reply.Split("\r\n").Where(t => t.StartsWith(':')).Select(t => long.Parse(t[1..])).ToArray();
        Assert.Equal(3, numbers.Length); // one entry: id, time, duration
        Assert.InRange(numbers[1], DateTimeOffset.UtcNow.ToUnixTimeSeconds() - 5, DateTimeOffset.UtcNow.ToUnixTimeSeconds());
        Assert.InRange(numbers[2], 100_000, 5_000_000);
        Assert.Contains("$5\r\nDEBUG\r\n$5\r\nSLEEP\r\n", reply);
    }
}
