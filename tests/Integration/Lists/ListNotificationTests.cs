using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Lists;

/// <summary>
/// Keyspace events of the list write commands: the same events in the same order as redis-server,
/// for pushes, pops, moves between keys (on different shards too), edits, emptied keys ("del"),
/// created keys ("new") and no-ops (nothing).
/// </summary>
public class ListNotificationTests(NotificationServers servers) : IClassFixture<NotificationServers>
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
    public void ListCommands_AllEvents_SameAsRedis() => KeyspaceEvents.AssertSame(servers, "KEA", Script);

    [RedisFact]
    public void ListCommands_NewAndListClassOnly_SameAsRedis() => KeyspaceEvents.AssertSame(servers, "Kln", Script);

}
