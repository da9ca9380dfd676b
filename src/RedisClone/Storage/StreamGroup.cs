namespace RedisClone.Storage;

/// <summary>
/// A consumer group of a stream (Redis's streamCG): the last ID delivered to it, how many entries
/// it has read (7.0's entries-read, for the lag), its pending entries list (PEL) by ID, and its
/// consumers by name.
/// </summary>
/// <remarks>
/// Every <see cref="StreamNack"/> is in the group's PEL and in its owner's PEL (the same object); the
/// methods here keep the two in step. Times are Unix ms passed in by the caller (the command's
/// time snapshot), so one command sees one clock.
/// </remarks>
internal sealed class StreamGroup(byte[] name, StreamId lastId, long entriesRead)
{
    /// <summary>Redis's SCG_INVALID_ENTRIES_READ: the group's read counter is not known.</summary>
    public const long InvalidEntriesRead = -1;

    /// <summary>The group's name, case-sensitive bytes.</summary>
    public readonly byte[] Name = name;

    /// <summary>The last ID delivered to the group: XREADGROUP's "&gt;" serves entries after it.</summary>
    public StreamId LastId = lastId;

    /// <summary>Entries the group has read (its logical read counter), or <see cref="InvalidEntriesRead"/>.</summary>
    public long EntriesRead = entriesRead;

    /// <summary>Every pending entry of the group, by ID.</summary>
    public readonly StreamIdMap<StreamNack> Pel = new();

    /// <summary>The group's consumers in name order.</summary>
    public readonly NameOrderedList<StreamConsumer> Consumers = new();

    /// <summary>The consumer named <paramref name="name"/>, or null.</summary>
    public StreamConsumer? FindConsumer(ReadOnlySpan<byte> name) => Consumers.Find(name);

    /// <summary>
    /// The consumer named <paramref name="name"/>, created (seen at <paramref name="now"/>, never
    /// active) when missing; <paramref name="created"/> says which, for the caller's
    /// "xgroup-createconsumer" event. Callers that read or claim also set its
    /// <see cref="StreamConsumer.SeenTime"/> themselves, as Redis 7.2 does for an existing one.
    /// </summary>
    public StreamConsumer GetOrCreateConsumer(ReadOnlySpan<byte> name, long now, out bool created)
    {
        var consumer = Consumers.Find(name);
        created = consumer == null;
        if (consumer != null) return consumer;
        consumer = new StreamConsumer(name.ToArray(), now);
        Consumers.TryAdd(consumer.Name, consumer);
        return consumer;
    }

    /// <summary>
    /// Removes <paramref name="consumer"/> and drops its pending entries from the group (they are not
    /// handed to anyone); returns how many it had (XGROUP DELCONSUMER's reply).
    /// </summary>
    public long DeleteConsumer(StreamConsumer consumer)
    {
        long pending = consumer.Pel.Count;
        var c = consumer.Pel.Seek(StreamId.Min);
        while (c.MoveNext()) Pel.Remove(c.Key);
        Consumers.Remove(consumer.Name);
        return pending;
    }

    /// <summary>
    /// Records that entry <paramref name="id"/> was delivered to <paramref name="consumer"/> at
    /// <paramref name="now"/> (not under NOACK): a new pending entry (count 1) in both lists, or,
    /// when the group already has one (XGROUP SETID moved the group back), that entry moved to this
    /// consumer with its time set to now and its count reset to 1, as Redis 7.2's
    /// streamReplyWithRange does. The consumer becomes active at <paramref name="now"/>. Returns the
    /// pending entry (its fields are what XREADGROUP propagates as XCLAIM).
    /// </summary>
    public StreamNack Deliver(StreamId id, StreamConsumer consumer, long now)
    {
        if (Pel.TryGetValue(id, out var nack))
        {
            nack.Consumer?.Pel.Remove(id);
            nack.Consumer = consumer;
            nack.DeliveryTime = now;
            nack.DeliveryCount = 1;
            consumer.Pel.TryAdd(id, nack);
        }
        else
        {
            nack = new StreamNack(consumer, now, 1);
            Pel.TryAdd(id, nack);
            consumer.Pel.TryAdd(id, nack);
        }
        consumer.ActiveTime = now;
        return nack;
    }

    /// <summary>
    /// What a read with "&gt;" does for each entry it serves (delivered or under NOACK): when
    /// <paramref name="id"/> is past <see cref="LastId"/>, the group's read counter goes up by one if
    /// it is known and no deleted entry lies at or after <paramref name="id"/>, and is otherwise
    /// estimated afresh from the stream (<see cref="RedisStream.EstimateDistanceFromFirstEverEntry"/>);
    /// then <see cref="LastId"/> becomes <paramref name="id"/>. False when the ID was not past it
    /// (nothing changes; under NOACK Redis then has no new last ID to propagate).
    /// </summary>
    public bool AdvanceLastId(RedisStream stream, StreamId id)
    {
        if (id <= LastId) return false;
        if (EntriesRead != InvalidEntriesRead && !stream.RangeHasTombstones(id, StreamId.Max))
            EntriesRead++;
        else if (stream.EntriesAdded != 0)
            EntriesRead = stream.EstimateDistanceFromFirstEverEntry(id);
        LastId = id;
        return true;
    }

    /// <summary>Acknowledges <paramref name="id"/>: removes its pending entry from both lists; false when it was not pending.</summary>
    public bool Acknowledge(StreamId id)
    {
        if (!Pel.TryGetValue(id, out var nack)) return false;
        Pel.Remove(id);
        nack.Consumer?.Pel.Remove(id);
        return true;
    }

    /// <summary>
    /// XCLAIM FORCE's first step for an ID the group has no pending entry for: a new one, in the
    /// group's list only, with no owner yet, delivered once at <paramref name="now"/> (as Redis's
    /// streamCreateNACK makes it; XCLAIM then counts its own delivery on top unless JUSTID);
    /// <see cref="TransferTo"/> then gives it an owner.
    /// </summary>
    public StreamNack AddUnowned(StreamId id, long now = 0)
    {
        var nack = new StreamNack(null, now, 1);
        Pel.TryAdd(id, nack);
        return nack;
    }

    /// <summary>Moves the pending entry <paramref name="id"/> (<paramref name="nack"/>) to <paramref name="consumer"/>'s list (a no-op when it owns it).</summary>
    public void TransferTo(StreamId id, StreamNack nack, StreamConsumer consumer)
    {
        if (nack.Consumer == consumer) return;
        nack.Consumer?.Pel.Remove(id);
        consumer.Pel.TryAdd(id, nack);
        nack.Consumer = consumer;
    }

    /// <summary>Bytes held by the group: its object, name, lists, pending entries and consumers.</summary>
    internal long AllocatedBytes()
    {
        long bytes = MemoryMeter.ObjectHeader + 40 + MemoryMeter.ArrayBytes(Name.Length) + Pel.AllocatedBytes
                     + Pel.Count * StreamNack.Bytes + MemoryMeter.ObjectHeader + 16 + Consumers.AllocatedBytes;
        for (int i = 0; i < Consumers.Count; i++) bytes += Consumers.ItemAt(i).AllocatedBytes();
        return bytes;
    }

    /// <summary>A copy with its own consumers and pending entries (COPY; Redis's streamDup).</summary>
    internal StreamGroup Clone()
    {
        var copy = new StreamGroup(Name, LastId, EntriesRead);
        var map = new Dictionary<StreamConsumer, StreamConsumer>(ReferenceEqualityComparer.Instance);
        for (int i = 0; i < Consumers.Count; i++)
        {
            var old = Consumers.ItemAt(i);
            var consumer = new StreamConsumer(old.Name, old.SeenTime) { ActiveTime = old.ActiveTime };
            copy.Consumers.TryAdd(consumer.Name, consumer);
            map[old] = consumer;
        }
        var c = Pel.Seek(StreamId.Min);
        while (c.MoveNext())
        {
            var old = c.Value;
            var owner = old.Consumer != null ? map[old.Consumer] : null;
            var nack = new StreamNack(owner, old.DeliveryTime, old.DeliveryCount);
            copy.Pel.TryAdd(c.Key, nack);
            owner?.Pel.TryAdd(c.Key, nack);
        }
        return copy;
    }
}
