using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.PubSub;

/// <summary>
/// PUBSUB NUMPAT, NUMSUB, CHANNELS, SHARDCHANNELS and SHARDNUMSUB (and INFO's pubsub_patterns and
/// pubsub_channels) with several subscribed clients, against redis-server: patterns and channels are
/// counted once however many clients subscribe to them (issue 26: three patterns, one of them
/// shared by two clients, made NUMPAT 4 instead of 3).
/// </summary>
public class PubSubCountTests
{
    [RedisFact]
    public void PubSubCounts_SharedPatternsAndChannels_CountedOnceLikeRedis() => BlockingDifferential.AssertSame(4, r =>
    {
        const int Observer = 4;
        r.Call(0, "PSUBSCRIBE", "a*");
        r.Call(0, "PSUBSCRIBE", "b*");
        r.Call(1, "PSUBSCRIBE", "b*");
        r.Call(1, "PSUBSCRIBE", "c*");
        r.Call(2, "SUBSCRIBE", "ch1");
        r.Call(2, "SUBSCRIBE", "ch2");
        r.Call(3, "SUBSCRIBE", "ch2");
        r.Call(2, "SSUBSCRIBE", "s1");
        r.Call(3, "SSUBSCRIBE", "s1");
        r.Call(3, "SSUBSCRIBE", "s2");
        Counts(r, Observer);
        // The shared pattern stays while one client still has it.
        r.Call(1, "PUNSUBSCRIBE", "b*");
        r.Call(3, "UNSUBSCRIBE", "ch2");
        r.Call(2, "SUNSUBSCRIBE", "s1");
        Counts(r, Observer);
        r.Call(0, "PUNSUBSCRIBE", "b*");
        r.Call(Observer, "PUBSUB", "NUMPAT");
        // A client that goes away takes its subscriptions with it.
        r[1].Dispose();
        r[3].Dispose();
        r.Call(Observer, "PING"); // a round trip, so the closed connections are seen
        Eventually(r, Observer, "PUBSUB", "NUMPAT", ":1\r\n");
        Eventually(r, Observer, "PUBSUB", "SHARDNUMSUB", "s1", "s2", "*4\r\n$2\r\ns1\r\n:0\r\n$2\r\ns2\r\n:0\r\n");
        Counts(r, Observer);
    });

    private static void Counts(BlockingDifferential.Run r, int observer)
    {
        r.Call(observer, "PUBSUB", "NUMPAT");
        r.Call(observer, "PUBSUB", "NUMSUB", "ch1", "ch2", "ch3", "s1");
        r.Call(observer, "PUBSUB", "SHARDNUMSUB", "s1", "s2", "ch1");
        r.Record(observer, "PUBSUB CHANNELS (sorted)", Sorted(r[observer].Call("PUBSUB", "CHANNELS")));
        r.Call(observer, "PUBSUB", "CHANNELS", "*2");
        r.Record(observer, "PUBSUB SHARDCHANNELS (sorted)", Sorted(r[observer].Call("PUBSUB", "SHARDCHANNELS")));
        r.Call(observer, "PUBSUB", "SHARDCHANNELS", "s2");
        string info = r[observer].Call("INFO", "stats");
        foreach (var field in new[] { "pubsub_channels:", "pubsub_patterns:" })
        {
            int at = info.IndexOf(field, StringComparison.Ordinal);
            r.Record(observer, "INFO " + field, at < 0 ? "(none)" : info[at..info.IndexOf('\r', at)]);
        }
    }

    /// <summary>An array reply of bulk strings with its elements sorted (the servers' orders differ).</summary>
    private static string Sorted(string reply)
    {
        var lines = reply.Split("\r\n", StringSplitOptions.RemoveEmptyEntries);
        var items = new List<string>();
        for (int i = 1; i + 1 < lines.Length; i += 2) items.Add(lines[i] + "\r\n" + lines[i + 1]);
        items.Sort(StringComparer.Ordinal);
        return lines[0] + "\r\n" + string.Concat(items.Select(x => x + "\r\n"));
    }

    /// <summary>Asks until the reply is <paramref name="expected"/> (a disconnect is noticed in its own time), then records it.</summary>
    private static void Eventually(BlockingDifferential.Run r, int observer, params string[] commandThenExpected)
    {
        var command = commandThenExpected[..^1];
        string expected = commandThenExpected[^1];
        var deadline = DateTime.UtcNow.AddSeconds(10);
        string reply;
        while ((reply = r[observer].Call(command)) != expected && DateTime.UtcNow < deadline) Thread.Sleep(5);
        r.Record(observer, string.Join(' ', command), reply);
    }
}
