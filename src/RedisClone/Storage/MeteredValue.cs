namespace RedisClone.Storage;

/// <summary>
/// A value edited in place (list, hash, set, sorted set): it can say how many bytes it holds, and it
/// carries what its database's <see cref="MemoryMeter"/> last charged for it (see there).
/// </summary>
internal abstract class MeteredValue
{
    /// <summary>This base's fields plus the object header: every collection object's fixed cost.</summary>
    protected const int BaseBytes = MemoryMeter.ObjectHeader + 24;

    /// <summary>The meter of the database holding this value; null while it is not stored in one.</summary>
    internal MemoryMeter? Meter;

    /// <summary>What <see cref="Meter"/> holds for this value.</summary>
    internal long ChargedBytes;

    /// <summary>The shard whose list of values to settle holds this one (so it is listed once).</summary>
    internal ShardStore? PendingIn;

    /// <summary>An estimate of the bytes this value's objects and arrays hold now (their capacities).</summary>
    public abstract long AllocatedBytes();
}
