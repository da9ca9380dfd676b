namespace RedisClone.Storage;

/// <summary>
/// A consumer of a consumer group (Redis's streamConsumer): its name, when it was last seen and last
/// active, and its own pending entries list (the same <see cref="StreamNack"/> objects as the group's).
/// </summary>
internal sealed class StreamConsumer(byte[] name, long seenTime)
{
    /// <summary>The name, case-sensitive bytes.</summary>
    public readonly byte[] Name = name;

    /// <summary>
    /// Unix time in ms of its last attempt to read or claim (XREADGROUP, XCLAIM, XAUTOCLAIM set it
    /// whether or not anything came back); XINFO CONSUMERS' idle is now minus this.
    /// </summary>
    public long SeenTime = seenTime;

    /// <summary>
    /// Unix time in ms of its last successful read or claim, -1 until there is one (Redis 7.2's
    /// active-time; XINFO CONSUMERS' inactive is now minus this, or -1).
    /// </summary>
    public long ActiveTime = -1;

    /// <summary>The entries delivered to this consumer and not acknowledged, by ID.</summary>
    public readonly StreamIdMap<StreamNack> Pel = new();

    /// <summary>Bytes held by this consumer and its list (not the shared pending entries themselves).</summary>
    internal long AllocatedBytes() => MemoryMeter.ObjectHeader + 24 + MemoryMeter.ArrayBytes(Name.Length) + Pel.AllocatedBytes;
}
