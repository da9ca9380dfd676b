namespace RedisClone.Storage;

/// <summary>
/// A value edited in place (list, hash, set, sorted set): it can say how many bytes it holds, and it
/// carries what its database's <see cref="MemoryMeter"/> last charged for it (see there).
/// </summary>
internal abstract class MeteredValue
{
    /// <summary>This base's fields plus the object header: every collection object's fixed cost.</summary>
    protected const int BaseBytes = MemoryMeter.ObjectHeader + 16;

    /// <summary>The meter of the database holding this value; null while it is not stored in one.</summary>
    internal MemoryMeter? Meter;

    // What Meter holds for this value (bits 0-62), and in bit 63 whether the shard of Meter has it in
    // its list of values to settle (so it is listed once). Two fields in one: every hash, set, sorted
    // set, list and stream carries them, and 8 bytes a key show on 100,000 small ones.
    private long _charge;

    /// <summary>What <see cref="Meter"/> holds for this value.</summary>
    internal long ChargedBytes
    {
        get => _charge & long.MaxValue;
        set => _charge = value | (_charge & long.MinValue);
    }

    /// <summary>
    /// True while the shard of <see cref="Meter"/> (<see cref="MemoryMeter.Store"/>) lists this value
    /// to settle. Cleared when the value leaves its database, so a value moved to another shard is
    /// listed there: the old shard's list may still hold it, and skips it (its meter's shard is not that one).
    /// </summary>
    internal bool Pending
    {
        get => _charge < 0;
        set => _charge = value ? _charge | long.MinValue : _charge & long.MaxValue;
    }

    /// <summary>An estimate of the bytes this value's objects and arrays hold now (their capacities).</summary>
    public abstract long AllocatedBytes();
}
