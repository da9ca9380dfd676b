using System.Text;
using RedisClone.Tests.CommandInfo;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Hashes;

/// <summary>
/// Like <see cref="Differential"/>, for hashes whose order Redis does not define: replies to HGETALL,
/// HKEYS and HVALS are compared as sorted multisets, and the pseudo-command <c>HSCAN* key [options]</c>
/// runs a whole cursor walk on each server and compares the sorted union of what it returned. Every
/// other reply must be byte-identical; HELLO's reply (versions and ids differ by design) is not
/// compared, so scripts can switch to RESP3. <see cref="AssertSameOrdered"/> compares everything
/// but HELLO byte for byte. Scripts run in database 11 of both servers after FLUSHDB,
/// one script at a time; the RedisClone side is a private server, so CONFIG SET is allowed
/// (restore what you change at the end of the script).
/// </summary>
internal static class HashDifferential
{
    private static readonly SemaphoreSlim Gate = new(1, 1);
    private static readonly Lazy<TestServer> Server = new(() => TestServer.Start(shards: 4));

    public static void AssertSameUnordered(params string[] script)
        => Compare(sortUnordered: true, script.Select(Differential.SplitLine).ToArray());

    public static void AssertSameUnordered(params string[][] script) => Compare(sortUnordered: true, script);

    public static void AssertSameOrdered(params string[] script)
        => Compare(sortUnordered: false, script.Select(Differential.SplitLine).ToArray());

    private static void Compare(bool sortUnordered, string[][] script)
    {
        var reference = ReferenceRedis.Shared ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        Gate.Wait();
        try
        {
            using var theirs = reference.Connect();
            using var ours = Server.Value.Connect();
            foreach (var c in new[] { theirs, ours })
            {
                c.Call("SELECT", "11");
                c.Call("FLUSHDB");
            }
            var failures = new StringBuilder();
            foreach (var cmd in script)
            {
                string expected = Run(theirs, cmd, sortUnordered);
                string actual = Run(ours, cmd, sortUnordered);
                if (expected != actual)
                    failures.AppendLine($"{string.Join(' ', cmd)}\n  redis:      {Differential.Show(expected)}\n  redisclone: {Differential.Show(actual)}");
            }
            Assert.True(failures.Length == 0, "replies differ from redis-server:\n" + failures);
        }
        finally
        {
            Gate.Release();
        }
    }

    /// <summary>One command's reply, normalised where Redis's order is undefined.</summary>
    private static string Run(RespClient client, string[] cmd, bool sortUnordered)
    {
        string name = cmd[0].ToUpperInvariant();
        if (name == "HSCAN*") return ScanAll(client, cmd);
        string raw = client.Call(cmd);
        if (name == "HELLO") return raw[0] + "hello";
        if (raw.StartsWith('-') || !sortUnordered) return raw;
        return name switch
        {
            "HGETALL" => SortedPairs(RespTree.Parse(raw)),
            "HKEYS" or "HVALS" => SortedItems(RespTree.Parse(raw)),
            _ => raw,
        };
    }

    private static string SortedPairs(RespTree tree)
    {
        var pairs = tree.Pairs().Select(p => p.Key + "=" + p.Value.Text).Order(StringComparer.Ordinal);
        return $"{tree.Type}{tree.Children.Count}:" + string.Join("|", pairs);
    }

    private static string SortedItems(RespTree tree)
        => $"{tree.Type}{tree.Children.Count}:" + string.Join("|", tree.Children.Select(c => c.Raw).Order(StringComparer.Ordinal));

    /// <summary>Walks HSCAN from cursor 0 to 0 (bounded), returning the sorted pairs seen, or the first error.</summary>
    private static string ScanAll(RespClient client, string[] cmd)
    {
        var seen = new List<string>();
        string cursor = "0";
        for (int round = 0; round < 100_000; round++)
        {
            string[] call = ["HSCAN", cmd[1], cursor, .. cmd[2..]];
            string raw = client.Call(call);
            if (raw.StartsWith('-')) return raw;
            var tree = RespTree.Parse(raw);
            cursor = tree.Children[0].Text!;
            var items = tree.Children[1].Children;
            for (int i = 0; i + 1 < items.Count; i += 2) seen.Add(items[i].Text + "=" + items[i + 1].Text);
            if (cursor == "0") break;
        }
        // A walk may return a field twice (Redis allows it during rehashing); compare distinct pairs.
        return string.Join("|", seen.Distinct().Order(StringComparer.Ordinal));
    }
}
