using System.Text;
using RedisClone.Tests.CommandInfo;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.SortedSets;

/// <summary>
/// Like <see cref="Differential"/>, with escapes for what Redis does not pin down or where Redis 7.0
/// (the reference) and 7.2 (what we implement) differ:
/// <list type="bullet">
/// <item><c>!COMMAND ...</c>: sent to both, not compared (HELLO, which names the version;
/// ZRANK ... WITHSCORE, which 7.0 refuses).</item>
/// <item><c>ZSCAN* key [options]</c>: a whole cursor walk on each server; the sorted distinct
/// (member, score) pairs seen are compared. A skiplist's scan order is a hash order in Redis and a
/// slot order here; cursors are opaque.</item>
/// </list>
/// Scripts run in database 14 of both servers after FLUSHDB, one at a time; both sides are private
/// servers (a redis-server and a 4-shard RedisClone), so CONFIG SET is allowed (the helper restores
/// the zset limits afterwards).
/// </summary>
internal static class SortedSetDifferential
{
    private static readonly SemaphoreSlim Gate = new(1, 1);
    private static readonly Lazy<TestServer> Server = new(() => TestServer.Start(shards: 4));

    // A private reference server: these scripts change zset-max-listpack-* with CONFIG SET, which
    // would leak into other tests' CONFIG GET comparisons on the shared one.
    private static readonly Lazy<ReferenceRedis?> Reference = new(() => ReferenceRedis.StartOrNull());

    public static void AssertSame(params string[] script) => AssertSame(script.Select(Differential.SplitLine).ToArray());

    public static void AssertSame(params string[][] script)
    {
        var reference = Reference.Value ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        Gate.Wait();
        try
        {
            using var theirs = reference.Connect();
            using var ours = Server.Value.Connect();
            foreach (var c in new[] { theirs, ours })
            {
                c.Call("SELECT", "14");
                c.Call("FLUSHDB");
            }
            var failures = new StringBuilder();
            try
            {
                foreach (var line in script)
                {
                    bool compare = !line[0].StartsWith('!');
                    string[] cmd = compare ? line : [line[0][1..], .. line[1..]];
                    string expected = Run(theirs, cmd);
                    string actual = Run(ours, cmd);
                    if (compare && expected != actual)
                        failures.AppendLine($"{string.Join(' ', line)}\n  redis:      {Differential.Show(expected)}\n  redisclone: {Differential.Show(actual)}");
                }
            }
            finally
            {
                foreach (var c in new[] { theirs, ours })
                {
                    c.Call("HELLO", "2");
                    c.Call("CONFIG", "SET", "zset-max-listpack-entries", "128");
                    c.Call("CONFIG", "SET", "zset-max-listpack-value", "64");
                }
            }
            Assert.True(failures.Length == 0, "replies differ from redis-server:\n" + failures);
        }
        finally
        {
            Gate.Release();
        }
    }

    private static string Run(RespClient client, string[] cmd)
    {
        if (!cmd[0].Equals("ZSCAN*", StringComparison.OrdinalIgnoreCase)) return client.Call(cmd);
        var pairs = new SortedSet<string>(StringComparer.Ordinal);
        string cursor = "0";
        int calls = 0;
        do
        {
            var reply = RespTree.Parse(client.Call(["ZSCAN", cmd[1], cursor, .. cmd[2..]]));
            if (reply.Type == '-') return reply.Raw;
            cursor = reply.Children[0].Text!;
            var items = reply.Children[1].Children;
            for (int i = 0; i + 1 < items.Count; i += 2) pairs.Add(items[i].Text + " " + items[i + 1].Text);
            Assert.True(++calls < 100_000, "ZSCAN did not finish");
        }
        while (cursor != "0");
        return string.Join(",", pairs);
    }
}
