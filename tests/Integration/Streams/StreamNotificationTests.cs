using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// Keyspace events of the stream write commands against redis-server: "xadd" (with "new" for a
/// created key), "xtrim" after XADD only when its trimming removed entries, "xdel" and "xtrim" only
/// when something went, nothing for NOMKSTREAM on a missing key.
/// </summary>
public class StreamNotificationTests(NotificationServers servers) : IClassFixture<NotificationServers>
{
    [RedisFact]
    public void Writes_EmitSameEventsAsRedis()
    {
        string[] script =
        [
            "XADD s 1-1 a 1", "XADD s 2-1 a 2", "XADD s 3-1 b 3", "XADD s MAXLEN 10 4-1 a 4", "XADD s MAXLEN 2 5-1 a 5",
            "XADD s 5-1 a 6", "XADD nokey NOMKSTREAM 1-1 a 1", "XDEL s 99-1", "XDEL s 4-1 5-1", "XTRIM s MAXLEN 5",
            "XADD s 6-1 a 1", "XADD s 7-1 a 1", "XTRIM s MINID 7", "XTRIM s MAXLEN ~ 0", "XTRIM nokey MAXLEN 0",
            "XADD e 1-1 a 1", "XDEL e 1-1", "EXISTS e", "DEL e", "SET str x", "XADD str 1-1 a 1",
        ];
        var commands = script.Select(Differential.SplitLine).ToArray();
        foreach (var flags in new[] { "KEAn", "Kt", "Eg" })
        {
            var theirs = KeyspaceEvents.Collect(servers.Reference!.Connect, flags, commands, db: 14);
            var ours = KeyspaceEvents.Collect(servers.Ours.Connect, flags, commands, db: 14);
            Assert.Equal(string.Join("\n", theirs), string.Join("\n", ours));
            Assert.NotEmpty(ours);
        }
    }
}
