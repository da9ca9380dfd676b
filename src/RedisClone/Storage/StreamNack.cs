namespace RedisClone.Storage;

/// <summary>
/// A pending entry of a consumer group (Redis's streamNACK): delivered to a consumer and not yet
/// acknowledged. The group's pending entries list and its owner's list hold the same object.
/// </summary>
internal sealed class StreamNack(StreamConsumer? consumer, long deliveryTime, long deliveryCount)
{
    /// <summary>Unix time in ms of the last delivery (XPENDING's idle time is now minus this).</summary>
    public long DeliveryTime = deliveryTime;

    /// <summary>How many times the entry was delivered (XPENDING's fourth field; XCLAIM RETRYCOUNT sets it).</summary>
    public long DeliveryCount = deliveryCount;

    /// <summary>The consumer it was last delivered to; null only while XCLAIM FORCE is creating it.</summary>
    public StreamConsumer? Consumer = consumer;

    /// <summary>Bytes of one pending entry: the object, plus its slot in two lists.</summary>
    internal const long Bytes = MemoryMeter.ObjectHeader + 24;

    /// <summary>
    /// A history read served this entry again (XREADGROUP with an ID, the entry still in the stream):
    /// its delivery time becomes <paramref name="now"/> and its count goes up by one.
    /// </summary>
    public void Redeliver(long now)
    {
        DeliveryTime = now;
        DeliveryCount++;
    }
}
