using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.SortedSets;

/// <summary>
/// Keyspace events of the sorted set write commands: the same events, in the same order, as
/// redis-server, including created keys ("new"), emptied keys ("del") and writes that change nothing.
/// </summary>
public class SortedSetNotificationTests(NotificationServers servers) : IClassFixture<NotificationServers>
{
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
            var theirs = KeyspaceEvents.Collect(servers.Reference!.Connect, flags, commands, db: 14);
            var ours = KeyspaceEvents.Collect(servers.Ours.Connect, flags, commands, db: 14);
            Assert.Equal(string.Join("\n", theirs), string.Join("\n", ours));
            Assert.NotEmpty(ours);
        }
    }
}
