using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Transactions;

/// <summary>Transaction scripts run against redis-server and RedisClone: byte-identical replies.</summary>
public class TransactionDifferentialTests
{
    [RedisFact]
    public void MultiExec_Scripts_SameAsRedis()
    {
        Differential.AssertSame(
            "EXEC", "DISCARD", "MULTI", "MULTI", "WATCH x", "SET a 1", "INCR a", "SET s abc", "INCR s", "GET a", "EXEC",
            "MULTI", "SET b 1", "FOO", "EXEC", "GET b",
            "MULTI", "GET", "EXEC",
            "MULTI", "SHUTDOWN", "EXEC",
            "MULTI", "DISCARD", "EXEC",
            "WATCH w", "SET w 1", "MULTI", "GET w", "EXEC", "UNWATCH",
            "WATCH w2", "MULTI", "SET w2 2", "EXEC", "GET w2",
            "MULTI", "PING", "ECHO hi", "INCRBY n 5", "MGET n w2 nothing", "EXEC",
            "MULTI", "EXEC",
            "WATCH nx1", "SETNX nx1 1", "SETNX nx1 2", "MULTI", "PING", "EXEC",
            "SET nx2 1", "WATCH nx2", "SETNX nx2 2", "SET nx2 3 NX", "MSETNX nx2 4 other 5", "MULTI", "PING", "EXEC",
            // Keys a write only reads do not break a WATCH; the keys it writes do.
            "SADD src a b", "WATCH src", "SINTERSTORE dst src", "MULTI", "PING", "EXEC",
            "WATCH dst", "SUNIONSTORE dst src", "MULTI", "PING", "EXEC");
    }
}
