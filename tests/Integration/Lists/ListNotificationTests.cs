using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Lists;

/// <summary>
/// A redis-server and a RedisClone of this class's own: notify-keyspace-events is server-wide, so
/// the shared servers (whose flags other tests switch) would mix events.
/// </summary>
public sealed class ListNotificationServers : IDisposable
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
/// Keyspace events of the list write commands: the same events in the same order as redis-server,
/// for pushes, pops, moves between keys (on different shards too), edits, emptied keys ("del"),
/// created keys ("new") and no-ops (nothing).
/// </summary>
public class ListNotificationTests(ListNotificationServers servers) : IClassFixture<ListNotificationServers>
{
    private static readonly string[] Script =
    [
        "LPUSH l a b c", "RPUSH l d", "LPUSHX l x", "RPUSHX l y", "LPUSHX nokey x", "RPUSHX nokey x",
        "LPOP l", "RPOP l", "LPOP l 2", "LPOP l 0", "LPOP nokey", "RPOP nokey 2",
        "RPUSH m 1 2 3 4 5", "LSET m 0 z", "LSET m 9 z", "LSET nokey 0 z",
        "LINSERT m BEFORE 2 q", "LINSERT m AFTER nope q", "LINSERT nokey BEFORE a b",
        "LREM m 0 nope", "LREM m 1 q", "LTRIM m 0 -1", "LTRIM m 1 2", "LTRIM nokey 0 1",
        "RPOPLPUSH m n", "LMOVE m n LEFT RIGHT", "LMOVE n n LEFT LEFT", "LMOVE nokey n LEFT LEFT",
        "LMPOP 2 nokey n RIGHT COUNT 1", "LMPOP 1 nokey LEFT",
        // Emptying: pops, LREM, LTRIM and moves delete the key.
        "RPUSH e1 a", "LPOP e1", "RPUSH e2 a", "LREM e2 0 a", "RPUSH e3 a b", "LTRIM e3 5 6",
        "RPUSH e4 a", "RPOPLPUSH e4 e5", "LMPOP 1 e5 LEFT COUNT 5", "RPUSH e6 a", "EXPIRE e6 100", "RPOP e6 3",
        // Errors send nothing.
        "SET str v", "LPUSH str a", "LPOP str", "LMOVE str n LEFT LEFT", "LMOVE l str LEFT LEFT", "LPOP l -1",
        // Reads send nothing.
        "LRANGE n 0 -1", "LLEN n", "LINDEX n 0", "LPOS n a",
    ];

    [RedisFact]
    public void ListCommands_AllEvents_SameAsRedis() => AssertSameEvents("KEA", Script);

    [RedisFact]
    public void ListCommands_NewAndListClassOnly_SameAsRedis() => AssertSameEvents("Kln", Script);

    /// <summary>Runs a script with a pattern subscriber attached and returns every message it got.</summary>
    private static List<string> Events(Func<RespClient> connect, string flags, string[][] script, int settleMs = 300)
    {
        using var admin = connect();
        using var sub = connect();
        admin.Call("CONFIG", "SET", "notify-keyspace-events", flags);
        admin.Call("SELECT", "13");
        admin.Call("FLUSHDB");
        sub.Call("PSUBSCRIBE", "__key*@13__:*");
        foreach (var cmd in script) admin.Call(cmd);
        Thread.Sleep(settleMs);
        var events = new List<string>();
        while (true)
        {
            string? message = sub.TryReadReply(200)?.Replace("\r\n", " ");
            if (message == null) break;
            events.Add(message);
        }
        admin.Call("CONFIG", "SET", "notify-keyspace-events", "");
        admin.Call("FLUSHDB");
        return events;
    }

    private void AssertSameEvents(string flags, string[] script)
    {
        var commands = script.Select(Differential.SplitLine).ToArray();
        var theirs = Events(servers.Reference!.Connect, flags, commands);
        var ours = Events(servers.Ours.Connect, flags, commands);
        Assert.Equal(string.Join("\n", theirs), string.Join("\n", ours));
        Assert.NotEmpty(ours);
    }
}
