using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// Runs scripts of commands against a private redis-server and a private RedisClone and compares the
/// raw replies byte for byte, as <see cref="Differential"/>, with every library flushed first on both
/// (functions are server-wide: private servers keep them from other tests). A line whose first
/// argument starts with '!' runs on both without being compared ("!HELLO 3" switches to RESP3).
/// </summary>
internal static class FunctionDifferential
{
    private static readonly SemaphoreSlim Gate = new(1, 1);
    private static readonly Lazy<TestServer> OurServer = new(() => TestServer.Start(shards: 4));
    private static readonly Lazy<ReferenceRedis?> TheirServer = new(() => ReferenceRedis.StartOrNull());

    /// <summary>A library's code: the shebang line, then <paramref name="body"/>.</summary>
    public static string Lib(string name, string body) => $"#!lua name={name}\n{body}";

    public static string[] Load(string name, string body) => ["FUNCTION", "LOAD", Lib(name, body)];

    public static string[] LoadReplace(string name, string body) => ["FUNCTION", "LOAD", "REPLACE", Lib(name, body)];

    public static void AssertSame(params string[] script) => AssertSame(script.Select(Differential.SplitLine).ToArray());

    public static void AssertSame(params string[][] script) => WithBoth((theirs, ours) =>
    {
        var failures = new StringBuilder();
        foreach (var line in script)
        {
            bool compare = !line[0].StartsWith('!');
            string[] cmd = compare ? line : [line[0][1..], .. line[1..]];
            string expected = theirs.Call(cmd);
            string actual = ours.Call(cmd);
            if (compare && expected != actual)
                failures.AppendLine($"{string.Join(' ', line)}\n  redis:      {Differential.Show(expected)}\n  redisclone: {Differential.Show(actual)}");
        }
        Assert.True(failures.Length == 0, "replies differ from redis-server:\n" + failures);
    });

    /// <summary>Runs <paramref name="body"/> with a connection to each server, both with no library, in database 9, RESP2.</summary>
    public static void WithBoth(Action<RespClient, RespClient> body)
    {
        var reference = TheirServer.Value ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        Gate.Wait();
        try
        {
            using var theirs = reference.Connect();
            using var ours = OurServer.Value.Connect();
            foreach (var c in new[] { theirs, ours })
            {
                c.Call("SELECT", "9");
                c.Call("FLUSHDB");
                Assert.Equal("+OK\r\n", c.Call("FUNCTION", "FLUSH"));
            }
            body(theirs, ours);
        }
        finally
        {
            Gate.Release();
        }
    }

    /// <summary>The bytes of a bulk reply.</summary>
    public static byte[] BulkBytes(string reply)
    {
        Assert.StartsWith("$", reply);
        int start = reply.IndexOf("\r\n", StringComparison.Ordinal) + 2;
        return Encoding.Latin1.GetBytes(reply[start..^2]);
    }

    public static byte[][] Args(params object[] args)
        => args.Select(a => a as byte[] ?? Encoding.UTF8.GetBytes((string)a)).ToArray();
}
