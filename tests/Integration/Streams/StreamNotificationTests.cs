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

    /// <summary>
    /// Consumer-group events: xgroup-create (after "new" with MKSTREAM), xgroup-setid,
    /// xgroup-destroy, xgroup-createconsumer (also from XCLAIM and XAUTOCLAIM), xgroup-delconsumer,
    /// each only when something changed; XACK and XPENDING emit nothing.
    /// </summary>
    [RedisFact]
    public void GroupWrites_EmitSameEventsAsRedis()
    {
        string[] script =
        [
            "XGROUP CREATE s g $ MKSTREAM", "XGROUP CREATE s g $", "XADD s 1-1 a 1", "XADD s 2-1 a 2", "XGROUP CREATE s h 0",
            "XGROUP SETID s g 0", "XGROUP SETID s nog 0", "XGROUP CREATECONSUMER s g c1", "XGROUP CREATECONSUMER s g c1",
            "XCLAIM s g c2 0 1-1 FORCE", "XCLAIM s g c2 0 2-1 FORCE", "XAUTOCLAIM s g c3 0 0 COUNT 1", "XACK s g 1-1", "XACK s g 1-1",
            "XPENDING s g", "XGROUP DELCONSUMER s g c1", "XGROUP DELCONSUMER s g c1", "XGROUP DELCONSUMER s g c2",
            "XGROUP DESTROY s h", "XGROUP DESTROY s h", "XGROUP CREATE t g 0 FOO MKSTREAM", "DEL s",
        ];
        var commands = script.Select(Differential.SplitLine).ToArray();
        foreach (var flags in new[] { "KEAn", "Kt", "Eg" })
        {
            var theirs = KeyspaceEvents.Collect(servers.Reference!.Connect, flags, commands, db: 14);
            var ours = KeyspaceEvents.Collect(servers.Ours.Connect, flags, commands, db: 14);
            Assert.Equal(string.Join("\n", theirs), string.Join("\n", ours));
            if (flags != "Eg") Assert.Contains(ours, e => e.Contains("xgroup-createconsumer", StringComparison.Ordinal));
        }
    }
}
