using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.PubSub;

/// <summary>Pub/sub scripts on one connection against redis-server: byte-identical replies.</summary>
public class PubSubDifferentialTests
{
    [RedisFact]
    public void SubscribeScripts_SameAsRedis()
    {
        Differential.AssertSame(
            "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "SUBSCRIBE", "PSUBSCRIBE",
            "SUBSCRIBE c1", "SUBSCRIBE c2", "SUBSCRIBE c1", "PING", "PING x", "GET k", "PSUBSCRIBE c*", "SSUBSCRIBE s1", "PUBSUB NUMSUB c1",
            "UNSUBSCRIBE c1", "UNSUBSCRIBE nope", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "GET k",
            "PUBSUB NUMSUB", "PUBSUB NUMPAT", "PUBSUB FOO", "PUBSUB HELP x", "PUBSUB SHARDNUMSUB", "PUBLISH nobody x", "SPUBLISH nobody x",
            "PUBSUB CHANNELS nomatch*", "PUBSUB SHARDCHANNELS nomatch*");
    }
}
