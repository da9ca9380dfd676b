using RedisClone.Protocol;
using RedisClone.Storage;

namespace RedisClone.Commands;

/// <summary>
/// The streams family, consumer groups: XGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, and what
/// XREADGROUP shares with them (how a group's state propagates).
/// </summary>
internal static partial class StreamCommands
{
    // ---------------------------------------------------------------- propagation of group state

    /// <summary>
    /// Logs one pending entry's state as Redis's streamPropagateXCLAIM does, so a replica or an AOF
    /// replay rebuilds it whatever its clock: <c>XCLAIM key group consumer 0 id TIME delivery-time
    /// RETRYCOUNT delivery-count FORCE JUSTID LASTID group-last-id</c>, the consumer being the entry's
    /// owner. XREADGROUP (for each entry delivered without NOACK), XCLAIM and XAUTOCLAIM (for each
    /// entry claimed, and for each pending entry dropped because its stream entry is gone: the
    /// replica drops it the same way) log one each, and the command itself propagates nothing
    /// (<see cref="PropagationLog.Prevent"/>, which the caller does).
    /// </summary>
    internal static void PropagateClaim(PropagationLog log, int db, ReadOnlySpan<byte> key, ReadOnlySpan<byte> groupName,
        StreamId id, StreamNack nack, StreamGroup group)
    {
        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        log.Also(db).Add("XCLAIM"u8).Add(key).Add(groupName).Add(nack.Consumer!.Name).Add("0"u8);
        log.Add(text.Slice(0, id.Format(text)));
        log.Add("TIME"u8).Add(nack.DeliveryTime).Add("RETRYCOUNT"u8).Add(nack.DeliveryCount);
        log.Add("FORCE"u8).Add("JUSTID"u8).Add("LASTID"u8).Add(text.Slice(0, group.LastId.Format(text)));
        log.Close();
    }

    /// <summary>
    /// Logs a group's last ID and read counter as Redis's streamPropagateGroupID does:
    /// <c>XGROUP SETID key group last-id ENTRIESREAD entries-read</c>. Used when the last ID moved
    /// without an XCLAIM to carry it (XREADGROUP NOACK, XCLAIM LASTID that claimed nothing).
    /// </summary>
    internal static void PropagateGroupId(PropagationLog log, int db, ReadOnlySpan<byte> key, ReadOnlySpan<byte> groupName,
        StreamGroup group)
    {
        Span<byte> text = stackalloc byte[StreamId.MaxTextLength];
        log.Also(db).Add("XGROUP"u8).Add("SETID"u8).Add(key).Add(groupName);
        log.Add(text.Slice(0, group.LastId.Format(text))).Add("ENTRIESREAD"u8).Add(group.EntriesRead);
        log.Close();
    }

    /// <summary>
    /// Logs <c>XGROUP CREATECONSUMER key group consumer</c>, as Redis's streamPropagateConsumerCreation
    /// does when XREADGROUP NOACK creates a consumer (no XCLAIM would create it on the replica).
    /// </summary>
    internal static void PropagateConsumerCreation(PropagationLog log, int db, ReadOnlySpan<byte> key,
        ReadOnlySpan<byte> groupName, ReadOnlySpan<byte> consumerName)
    {
        log.Also(db).Add("XGROUP"u8).Add("CREATECONSUMER"u8).Add(key).Add(groupName).Add(consumerName);
        log.Close();
    }
}
