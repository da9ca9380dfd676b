using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.SortedSets;

/// <summary>
/// A redis-server and a RedisClone for this class alone: notify-keyspace-events is server-wide, so
/// the shared reference (whose flags other tests switch) would mix events.
/// </summary>
public sealed class SortedSetNotificationServers : IDisposable
{
    public ReferenceRedis? Reference { get; } = ReferenceRedis.StartOrNull();
    public TestServer Ours { get; } = TestServer.Start(shards: 4);

    public void Dispose()
    {
        Reference?.Dispose();
        Ours.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }
}

/// <summary>
/// Keyspace events of the sorted set write commands: the same events, in the same order, as
/// redis-server, including created keys ("new"), emptied keys ("del") and writes that change nothing.
/// </summary>
public class SortedSetNotificationTests(SortedSetNotificationServers servers) : IClassFixture<SortedSetNotificationServers>
{
    private static List<string> Events(Func<RespClient> connect, string flags, string[][] script)
    {
        using var admin = connect();
        using var sub = connect();
        admin.Call("CONFIG", "SET", "notify-keyspace-events", flags);
        admin.Call("SELECT", "14");
        admin.Call("FLUSHDB");
        sub.Call("PSUBSCRIBE", "__key*@14__:*");
        foreach (var cmd in script) admin.Call(cmd);
        Thread.Sleep(300);
        var events = new List<string>();
        while (sub.TryReadReply(200)?.Replace("\r\n", " ") is { } message) events.Add(message);
        admin.Call("CONFIG", "SET", "notify-keyspace-events", "");
        admin.Call("FLUSHDB");
        return events;
    }

    [RedisFact]
    public void Writes_EmitSameEventsAsRedis()
    {
        string[] script =
        [
            "ZADD z 1 a 2 b 3 c", "ZADD z 1 a", "ZADD z XX 5 nosuch", "ZADD z CH 9 a", "ZINCRBY z 1 a", "ZADD z INCR 0 b",
            "ZADD z NX 1 a", "ZREM z nosuch", "ZREM z a", "ZREMRANGEBYSCORE z 100 200", "ZREMRANGEBYSCORE z 2 2",
            "ZADD z 1 x 2 y 3 w", "ZREMRANGEBYRANK z 0 0", "ZREMRANGEBYLEX z - +", "ZREMRANGEBYRANK z 0 -1",
            "ZADD p 1 a 2 b 3 c", "ZPOPMIN p", "ZPOPMAX p 0", "ZPOPMAX p 5", "ZPOPMIN p",
            "ZADD m 1 a", "ZMPOP 2 nokey m MAX COUNT 3",
            "ZADD s1 1 a 2 b", "ZADD s2 2 b 3 c",
            "ZUNIONSTORE u 2 s1 s2", "ZINTERSTORE i 2 s1 s2", "ZDIFFSTORE d 2 s1 s2", "ZUNIONSTORE u 2 s1 s2",
            "ZINTERSTORE i 2 s1 nokey", "ZINTERSTORE i 2 s1 nokey",
            "ZRANGESTORE r s1 0 -1", "ZRANGESTORE r s1 5 10", "ZRANGESTORE r s1 5 10",
            "ZADD e 1 a", "ZREM e a",
        ];
        var commands = script.Select(Differential.SplitLine).ToArray();
        foreach (var flags in new[] { "KEAn", "Kz", "Eg" })
        {
            var theirs = Events(servers.Reference!.Connect, flags, commands);
            var ours = Events(servers.Ours.Connect, flags, commands);
            Assert.Equal(string.Join("\n", theirs), string.Join("\n", ours));
            Assert.NotEmpty(ours);
        }
    }
}
