using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Notifications;

/// <summary>
/// Keyspace events of the hash and set write commands: the same events, in the same order, as
/// redis-server, including emptied keys ("del"), created keys ("new") and no-ops (nothing); and
/// no-op writes leave WATCHes alone, as in Redis.
/// </summary>
public class HashSetNotificationTests(NotificationServers servers) : IClassFixture<NotificationServers>
{

    private static readonly string[] HashScript =
    [
        "HSET h a 1 b 2", "HSET h a 1", "HSET h a 2", "HMSET h a 1", "HMSET h2 x 1 y 2",
        "HSETNX h a 5", "HSETNX h c 5", "HSETNX h3 c 5",
        "HDEL h zz", "HDEL nokey zz", "HDEL h a b zz", "HDEL h c",
        "HINCRBY h4 f 1", "HINCRBY h4 f 0", "HINCRBY h4 f x", "HINCRBY h4 g 1", "HSET h4 s abc", "HINCRBY h4 s 1",
        "HSET h4 big 9223372036854775807", "HINCRBY h4 big 1", "HINCRBY nokey f x",
        "HINCRBYFLOAT h5 f 1.5", "HINCRBYFLOAT h5 f 0", "HINCRBYFLOAT h5 f abc", "HINCRBYFLOAT h4 s 1",
        "HINCRBYFLOAT h5 f inf", "HINCRBYFLOAT nokey f inf",
        "HDEL h4 f g s big", "HDEL h4 f",
        // A hash with a TTL emptied by HDEL; errors on a key of another type send nothing.
        "HSET e a 1", "EXPIRE e 100", "HDEL e a",
        "SET str x", "HSET str a 1", "HMSET str a 1", "HSETNX str a 1", "HDEL str a", "HINCRBY str a 1",
        "HINCRBYFLOAT str a 1", "HSET odd a",
        // Read commands send nothing.
        "HGET h2 x", "HGETALL h2", "HLEN h2", "HRANDFIELD h2", "HSCAN h2 0",
    ];

    private static readonly string[] SetScript =
    [
        "SADD s a b c", "SADD s a", "SADD s a d", "SREM s zz", "SREM nokey a", "SREM s a zz", "SREM s b c d",
        "SADD s 1 2 3 4 5", "SPOP s", "SPOP nokey", "SPOP nokey 2", "SPOP s 0", "SPOP s -1", "SPOP s 1",
        "SPOP s 2", "SPOP s 10",
        // Count leaving few members (the set is rebuilt from survivors), then the last one alone.
        "SADD t 1 2 3 4 5 6 7 8 9 10", "SPOP t 9", "SPOP t",
        "SADD u a b c d e f g h i j", "SPOP u 3", "SPOP u 6", "SPOP u 1",
        "SADD m1 a b", "SMOVE m1 m2 zz", "SMOVE m1 m2 a", "SMOVE m1 m2 b", "SMOVE m2 m2 a", "SMOVE m2 m2 zz",
        "SMOVE nokey m2 a", "SADD m3 a", "SMOVE m2 m3 a", "SADD m4 x y", "SMOVE m4 m3 x", "SMOVE m4 m3 y",
        "SET str x", "SADD str a", "SREM str a", "SPOP str", "SPOP str 2", "SMOVE str m3 a", "SMOVE m3 str a",
        "SADD ttl a", "EXPIRE ttl 100", "SREM ttl a",
        // Read commands send nothing.
        "SADD r a b", "SCARD r", "SISMEMBER r a", "SMEMBERS r", "SRANDMEMBER r 5", "SINTER r r", "SUNION r x",
        "SDIFF r x", "SINTERCARD 2 r r", "SSCAN r 0",
    ];

    private static readonly string[] StoreScript =
    [
        "SADD a 1 2 3", "SADD b 2 3 4", "SADD c 9",
        "SINTERSTORE d a b", "SINTERSTORE d a b", "SINTERSTORE d a nokey", "SINTERSTORE d a nokey",
        "SINTERSTORE e a c", "SINTERSTORE e a c", "SINTERSTORE e a b", "SINTERSTORE e a c",
        "SET d2 x", "EXPIRE d2 100", "SINTERSTORE d2 a b",
        "SUNIONSTORE u a b", "SUNIONSTORE u a b", "SUNIONSTORE u nokey nokey2", "SUNIONSTORE u nokey nokey2",
        "SDIFFSTORE df a b", "SDIFFSTORE df a a", "SDIFFSTORE df a a", "SDIFFSTORE df2 nokey a",
        "SDIFFSTORE df3 a nokey", "SDIFFSTORE df3 a b c",
        // Storing over a source, and over a key of another type.
        "SUNIONSTORE a a", "SINTERSTORE a a", "SDIFFSTORE b b nokey", "SET s2 str", "SINTERSTORE s2 a b",
        "SET s3 str", "SUNIONSTORE s3 nokey", "SET s4 str", "SINTERSTORE s4 a nokey",
        // Errors send nothing (WRONGTYPE on a source).
        "SINTERSTORE x a s2", "SUNIONSTORE x a s2", "SDIFFSTORE x s2 a",
    ];

    [RedisFact]
    public void HashWrites_EmitSameEventsAsRedis() => KeyspaceEvents.AssertSame(servers, "KEAn", HashScript);

    [RedisFact]
    public void SetWrites_EmitSameEventsAsRedis() => KeyspaceEvents.AssertSame(servers, "KEAn", SetScript);

    [RedisFact]
    public void SetStores_EmitSameEventsAsRedis() => KeyspaceEvents.AssertSame(servers, "KEAn", StoreScript);

    [RedisFact]
    public void HashAndSetWrites_OnlyEnabledClasses_EmitSameEventsAsRedis()
    {
        string[] all = [.. HashScript, .. SetScript, .. StoreScript];
        KeyspaceEvents.AssertSame(servers, "Kh", all);
        KeyspaceEvents.AssertSame(servers, "Esg", all);
    }

    [RedisFact]
    public void NoOpWrites_LeaveWatchAlone_SameAsRedis()
    {
        Differential.AssertSame(
            "HSET h a 1", "SADD s a", "SADD s2 b", "SET str x",
            "WATCH h s s2 nokey dst",
            "HSETNX h a 2", "HDEL h zz", "HDEL nokey zz",
            "SADD s a", "SREM s zz", "SREM nokey a", "SPOP nokey", "SPOP nokey 3", "SPOP s 0",
            "SMOVE s s2 zz", "SMOVE s s a", "SMOVE nokey s a",
            "SINTERSTORE dst s s2", "SINTERSTORE dst s nokey", "SUNIONSTORE dst nokey", "SDIFFSTORE dst s s",
            "HSET str a 1", "SADD str a",
            "MULTI", "PING", "EXEC");
    }

    [RedisFact]
    public void SMove_MemberAlreadyInDestination_SignalsOnlySource_SameAsRedis()
    {
        Differential.AssertSame(
            "SADD src a b", "SADD dst a",
            "WATCH dst", "SMOVE src dst a", "MULTI", "PING", "EXEC",
            "WATCH src", "SMOVE src dst b", "MULTI", "PING", "EXEC");
    }

    [RedisFact]
    public void Writes_BreakWatch_SameAsRedis()
    {
        string[] writes =
        [
            "HSET h a 1", "HMSET h a 1", "HSETNX h b 1", "HDEL h a", "HINCRBY h n 1", "HINCRBYFLOAT h n 1",
            "SADD s z", "SREM s a", "SPOP s", "SPOP s 1", "SMOVE s t a", "SINTERSTORE s t t", "SUNIONSTORE s t",
            "SDIFFSTORE s t nokey", "SINTERSTORE s nokey",
        ];
        var script = new List<string>();
        foreach (var write in writes)
        {
            // One member in s, so SPOP's reply is not random.
            script.AddRange(["FLUSHDB", "HSET h a 1", "SADD s a", "SADD t x"]);
            script.AddRange(["WATCH h s", write, "MULTI", "PING", "EXEC"]);
        }
        Differential.AssertSame([.. script]);
    }
}
