namespace RedisClone.Storage;

/// <summary>
/// The bytes one database's keys and values hold on one shard: INFO's used_memory_dataset, and what
/// maxmemory will enforce. Written under the shard's gate, read by INFO without it.
/// </summary>
/// <remarks>
/// <para>
/// Figures are estimates of what the .NET heap holds for the data, computed the same way on the
/// way in and on the way out: a key is its <c>byte[]</c>; a string value its <c>byte[]</c>, or a
/// <see cref="GrowableString"/> its object and whole buffer (capacity, not length); a
/// list, hash, set or sorted set (a <see cref="MeteredValue"/>) its objects and arrays, by their
/// capacities (listpacks, intsets, node and slot arrays, member arenas). The key table's own slot
/// arrays are overhead, counted by <see cref="Database.OverheadBytes"/>.
/// </para>
/// <para>
/// Strings change size only through <see cref="Database"/> (Add, Set, ReplaceValue, GrowString,
/// RemoveAt), which adjust the meter at once. Collections are edited in place by the command families; the meter
/// remembers what it charged each one, a write lookup (<see cref="Database.FindLive"/>) marks it as
/// possibly changed, and the shard settles the difference under its gate at its next 100 ms tick
/// (<see cref="ShardStore.SettleMemory"/>): a collection's growth shows within that tick, and its
/// deletion at once (what was charged is taken off). So the total never drifts, whatever path
/// changed a value.
/// </para>
/// </remarks>
internal sealed class MemoryMeter
{
    /// <summary>An array's header on 64-bit .NET: object header, method table, length (padded).</summary>
    public const int ArrayHeader = 24;

    /// <summary>An object's header and method table.</summary>
    public const int ObjectHeader = 16;

    /// <summary>A value of a type that has no estimate of its own (charged and released alike).</summary>
    public const int OtherValueBytes = ObjectHeader + 8;

    /// <summary>Bytes of keys and values charged to this meter.</summary>
    public long Bytes;

    /// <summary>The shard of the database this meter counts for (whose list of values to settle a value of it is in).</summary>
    public readonly ShardStore? Store;

    public MemoryMeter(ShardStore? store) => Store = store;

    /// <summary>An array of <paramref name="length"/> elements of <paramref name="elementSize"/> bytes, as the GC lays it out.</summary>
    public static long ArrayBytes(long length, int elementSize = 1) => ArrayHeader + ((length * elementSize + 7) & ~7L);
}
