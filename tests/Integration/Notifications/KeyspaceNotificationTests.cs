using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Notifications;

/// <summary>
/// notify-keyspace-events: the same events, in the same order, as redis-server for the same
/// commands (string and keyspace commands), and "expired" from the active expiry cycle.
/// </summary>
public class KeyspaceNotificationTests
{
    private static readonly string[][] Script =
    [
        ["SET", "a", "1"], ["SET", "a", "2", "EX", "100"], ["SETNX", "a", "3"], ["SETNX", "b", "1"],
        ["INCR", "b"], ["INCRBYFLOAT", "b", "1.5"], ["APPEND", "b", "x"], ["GETSET", "b", "y"],
        ["MSET", "c", "1", "d", "2"], ["GETEX", "c", "EX", "50"], ["GETEX", "c", "PERSIST"], ["GETDEL", "d"],
        ["EXPIRE", "a", "200"], ["PERSIST", "a"], ["RENAME", "a", "e"], ["DEL", "e", "nothing"],
        ["SETEX", "f", "10", "v"], ["PEXPIRE", "f", "0"], ["DEL", "f"],
        ["SETRANGE", "g", "3", "abc"], ["SETRANGE", "g", "0", "x"], ["SETRANGE", "g", "0", ""], ["SETRANGE", "h", "5", ""],
    ];

    [RedisFact]
    public void StringAndKeyCommands_EmitSameEventsAsRedis()
        => KeyspaceEvents.AssertSameOnPrivateServers(Script);

    [RedisFact]
    public void KeyMissEvents_SameAsRedis()
    {
        string[][] script = [["GET", "missing"], ["SET", "present", "1"], ["GET", "present"], ["GETSET", "missing2", "x"]];
        KeyspaceEvents.AssertSameOnPrivateServers(script, "Em");
    }

    [Fact]
    public async Task ActiveExpiry_PublishesExpiredEvent()
    {
        var server = TestServer.Start(shards: 2);
        try
        {
            var events = KeyspaceEvents.Collect(server.Connect, "Ex", [["SET", "gone", "1", "PX", "30"]], settleMs: 1500);
            Assert.Contains(events, e => e.Contains("__keyevent@13__:expired") && e.EndsWith("gone "));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }
}
