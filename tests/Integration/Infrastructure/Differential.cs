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

    public static void AssertSame(params string[][] script)
    {
        var reference = ReferenceRedis.Shared ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        Gate.Wait();
        try
        {
            using var theirs = reference.Connect();
            using var ours = Server.Value.Connect();
            foreach (var c in new[] { theirs, ours })
            {
                c.Call("SELECT", "9");
                c.Call("FLUSHDB");
            }
            var failures = new StringBuilder();
            foreach (var cmd in script)
            {
                string expected = theirs.Call(cmd);
                string actual = ours.Call(cmd);
                if (expected != actual)
                    failures.AppendLine($"{string.Join(' ', cmd)}\n  redis:     {Show(expected)}\n  redisclone: {Show(actual)}");
            }
            Assert.True(failures.Length == 0, "replies differ from redis-server:\n" + failures);
        }
        finally
        {
            Gate.Release();
        }
    }

    /// <summary>Splits on spaces; "\x20" style escapes are not needed by callers, use string[] for odd bytes.</summary>
    public static string[] SplitLine(string line) => line.Split(' ', StringSplitOptions.RemoveEmptyEntries);

    public static string Show(string raw) => raw.Replace("\r\n", "\\r\\n");
}
