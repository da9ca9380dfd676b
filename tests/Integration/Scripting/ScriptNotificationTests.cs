using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Scripting;

/// <summary>Writes a script or a function makes emit the keyspace notifications of the commands it runs, as in Redis.</summary>
public sealed class ScriptNotificationTests
{
    private static readonly string[][] Script =
    [
        ["EVAL", "redis.call('SET', KEYS[1], 'v') redis.call('EXPIRE', KEYS[1], 100) redis.call('LPUSH', KEYS[2], 'a', 'b') " +
                 "redis.call('LPOP', KEYS[2]) redis.call('DEL', KEYS[1]) return 1", "2", "sn:a", "sn:l"],
        ["EVAL", "redis.pcall('INCR', KEYS[1]) return redis.call('HSET', KEYS[2], 'f', 1)", "2", "sn:l", "sn:h"],
        ["FUNCTION", "LOAD", "REPLACE", "#!lua name=snlib\nredis.register_function('touch', function(keys) return redis.call('SADD', keys[1], 'm') end)"],
        ["FCALL", "touch", "1", "sn:s"],
        ["EVAL", "return redis.call('GET', KEYS[1])", "1", "sn:missing"],
    ];

    [RedisFact]
    public void ScriptAndFunctionWrites_EmitSameEventsAsRedis()
        => KeyspaceEvents.AssertSameOnPrivateServers(Script);
}
