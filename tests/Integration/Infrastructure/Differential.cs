using System.Text;

namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// Runs the same script of commands against RedisClone and against Debian's redis-server and
/// asserts that every reply is byte-identical. Each script runs in a fresh database (it selects
/// database 9 on both servers and flushes it), so scripts must not depend on other databases.
/// </summary>
public static class Differential
{
    private static readonly SemaphoreSlim Gate = new(1, 1);
    private static readonly Lazy<TestServer> Server = new(() => TestServer.Start(shards: 4));

    /// <summary>Each line is one command: arguments separated by spaces, or a string[] built by the test.</summary>
    public static void AssertSame(params string[] script)
        => AssertSame(script.Select(line => SplitLine(line)).ToArray());

    public static void AssertSame(params string[][] script) => AssertSame(2, script);

    /// <summary>The same, with both connections switched to RESP3 (HELLO 3) first.</summary>
    public static void AssertSameResp3(params string[][] script) => AssertSame(3, script);

    /// <summary>The same with arguments as raw bytes (values outside ASCII, such as HLL strings).</summary>
    public static void AssertSameBytes(params byte[][][] script)
        => AssertSame(2, script.Select(cmd => cmd.Select(a => Encoding.Latin1.GetString(a)).ToArray()).ToArray(), latin1: true);

    private static void AssertSame(int protocol, string[][] script, bool latin1 = false)
    {
        var reference = ReferenceRedis.Shared ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        Gate.Wait();
        try
        {
            using var theirs = reference.Connect();
            using var ours = Server.Value.Connect();
            foreach (var c in new[] { theirs, ours })
            {
                if (protocol == 3) c.Call("HELLO", "3");
                c.Call("SELECT", "9");
                c.Call("FLUSHDB");
            }
            Compare(theirs, ours, script, latin1);
        }
        finally
        {
            Gate.Release();
        }
    }

    /// <summary>
    /// The same on a private redis-server and a private RedisClone started for this call, for scripts
    /// that change the configuration (CONFIG SET) and so must not run on the shared servers.
    /// </summary>
    public static void AssertSameOnPrivateServers(int protocol, params string[][] script)
    {
        using var reference = ReferenceRedis.StartOrNull() ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        var server = TestServer.Start(shards: 2);
        try
        {
            using var theirs = reference.Connect();
            using var ours = server.Connect();
            if (protocol == 3)
            {
                theirs.Call("HELLO", "3");
                ours.Call("HELLO", "3");
            }
            Compare(theirs, ours, script, latin1: false);
        }
        finally
        {
            server.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    private static void Compare(RespClient theirs, RespClient ours, string[][] script, bool latin1)
    {
        var failures = new StringBuilder();
        foreach (var cmd in script)
        {
            string expected = latin1 ? theirs.Call(ToLatin1(cmd)) : theirs.Call(cmd);
            string actual = FinishScan(ours, cmd, latin1 ? ours.Call(ToLatin1(cmd)) : ours.Call(cmd));
            if (expected != actual)
                failures.AppendLine($"{string.Join(' ', cmd)}\n  redis:     {Show(expected)}\n  redisclone: {Show(actual)}");
        }
        Assert.True(failures.Length == 0, "replies differ from redis-server:\n" + failures);
    }

    private static byte[][] ToLatin1(string[] cmd) => cmd.Select(a => Encoding.Latin1.GetBytes(a)).ToArray();

    /// <summary>Splits on spaces; "\x20" style escapes are not needed by callers, use string[] for odd bytes.</summary>
    public static string[] SplitLine(string line) => line.Split(' ', StringSplitOptions.RemoveEmptyEntries);

    public static string Show(string raw) => raw.Replace("\r\n", "\\r\\n");

    /// <summary>
    /// One SCAN call of ours covers one shard at most, where redis-server finishes a small database in
    /// one call: a SCAN reply with a non-zero cursor is followed to cursor 0 and answered as one reply
    /// holding every key met, in order, so it compares byte for byte with Redis's single call.
    /// </summary>
    private static string FinishScan(RespClient c, string[] cmd, string reply)
    {
        if (cmd.Length < 2 || !cmd[0].Equals("SCAN", StringComparison.OrdinalIgnoreCase) || !reply.StartsWith("*2\r\n"))
            return reply;
        var parsed = (List<object?>)Keys.KeyReplies.Parse(reply)!;
        var keys = ((List<object?>)parsed[1]!).Select(o => (string)o!).ToList();
        string cursor = (string)parsed[0]!;
        for (int calls = 0; cursor != "0"; calls++)
        {
            Assert.True(calls < 100_000, "SCAN did not finish");
            string[] next = [.. cmd];
            next[1] = cursor;
            parsed = (List<object?>)Keys.KeyReplies.Parse(c.Call(next))!;
            cursor = (string)parsed[0]!;
            keys.AddRange(((List<object?>)parsed[1]!).Select(o => (string)o!));
        }
        var sb = new StringBuilder($"*2\r\n$1\r\n0\r\n*{keys.Count}\r\n");
        foreach (var k in keys) sb.Append($"${Encoding.UTF8.GetByteCount(k)}\r\n{k}\r\n");
        return sb.ToString();
    }
}
