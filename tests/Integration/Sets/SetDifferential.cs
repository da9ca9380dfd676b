using System.Text;
using RedisClone.Tests.CommandInfo;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Sets;

/// <summary>
/// Like <see cref="Differential"/>, with three escapes for what Redis does not pin down or what
/// Redis 7.0 (the reference) and 7.2 (what we implement) do differently:
/// <list type="bullet">
/// <item><c>~COMMAND ...</c>: the reply's elements are compared as a sorted multiset (SMEMBERS of a
/// hashtable or listpack, SINTER/SUNION/SDIFF of them): the type, the count and the members must
/// match, not the order. Intsets are compared exactly (their order is ascending in both).</item>
/// <item><c>!COMMAND ...</c>: sent to both, not compared. For OBJECT ENCODING where 7.2's listpack
/// encoding of small non-integer sets differs from 7.0's hashtable, and for HELLO.</item>
/// <item><c>SSCAN* key [options]</c>: a whole cursor walk on each server; the sorted distinct members
/// seen are compared (cursors are opaque and differ by design).</item>
/// </list>
/// Scripts run in database 12 of both servers after FLUSHDB, one at a time; the RedisClone side is a
/// private 4-shard server, so CONFIG SET is allowed (restore what you change at the end).
/// </summary>
internal static class SetDifferential
{
    private static readonly SemaphoreSlim Gate = new(1, 1);
    private static readonly Lazy<TestServer> Server = new(() => TestServer.Start(shards: 4));

    public static void AssertSame(params string[] script) => AssertSame(script.Select(Differential.SplitLine).ToArray());

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
                c.Call("SELECT", "12");
                c.Call("FLUSHDB");
            }
            var failures = new StringBuilder();
            foreach (var line in script)
            {
                var (mode, cmd) = Parse(line);
                string expected = Run(theirs, mode, cmd);
                string actual = Run(ours, mode, cmd);
                if (mode != '!' && expected != actual)
                    failures.AppendLine($"{string.Join(' ', line)}\n  redis:      {Differential.Show(expected)}\n  redisclone: {Differential.Show(actual)}");
            }
            Assert.True(failures.Length == 0, "replies differ from redis-server:\n" + failures);
        }
        finally
        {
            Gate.Release();
        }
    }

    private static (char Mode, string[] Cmd) Parse(string[] line)
    {
        char first = line[0][0];
        if (first is '~' or '!') return (first, [line[0][1..], .. line[1..]]);
        return (' ', line);
    }

    private static string Run(RespClient client, char mode, string[] cmd)
    {
        if (cmd[0].Equals("SSCAN*", StringComparison.OrdinalIgnoreCase)) return ScanAll(client, cmd);
        string raw = client.Call(cmd);
        if (mode != '~' || raw.StartsWith('-')) return raw;
        var tree = RespTree.Parse(raw);
        return $"{tree.Type}{tree.Children.Count}:" + string.Join("|", tree.Children.Select(c => c.Raw).Order(StringComparer.Ordinal));
    }

    /// <summary>Walks SSCAN from cursor 0 to 0 (bounded), returning the sorted distinct members seen, or the first error.</summary>
    private static string ScanAll(RespClient client, string[] cmd)
    {
        var seen = new HashSet<string>();
        string cursor = "0";
        for (int round = 0; round < 100_000; round++)
        {
            string[] call = ["SSCAN", cmd[1], cursor, .. cmd[2..]];
            string raw = client.Call(call);
            if (raw.StartsWith('-')) return raw;
            var tree = RespTree.Parse(raw);
            cursor = tree.Children[0].Text!;
            foreach (var item in tree.Children[1].Children) seen.Add(item.Text!);
            if (cursor == "0") break;
        }
        return string.Join("|", seen.Order(StringComparer.Ordinal));
    }
}
