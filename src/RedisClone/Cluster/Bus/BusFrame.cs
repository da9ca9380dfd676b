using System.Buffers;
using System.Buffers.Binary;

namespace RedisClone.Cluster.Bus;

/// <summary>What the first 8 bytes of a message say (<see cref="BusFrame.ReadPrefix"/>).</summary>
internal enum BusFrameStatus
{
    /// <summary>Fewer than 8 bytes so far.</summary>
    NeedMore,

    /// <summary>A message of totlen bytes starts here.</summary>
    Ok,

    /// <summary>Not "RCmb", or totlen below the header's length: Redis frees the link.</summary>
    BadSignatureOrLength,

    /// <summary>totlen above the configured maximum (Redis has none, see <see cref="BusOptions.MaxMessageLength"/>): the link is freed.</summary>
    TooLong,
}

/// <summary>
/// Framing as Redis's clusterReadHandler does it: read the signature and totlen first (8 bytes),
/// reject the link when the signature is wrong or totlen is shorter than a header, then read
/// exactly totlen bytes for the message.
/// </summary>
internal static class BusFrame
{
    /// <summary>Reads the signature and totlen at the start of <paramref name="buffer"/>.</summary>
    public static BusFrameStatus ReadPrefix(in ReadOnlySequence<byte> buffer, long maxLength, out uint totlen)
    {
        totlen = 0;
        if (buffer.Length < BusLayout.FramePrefixLength) return BusFrameStatus.NeedMore;
        Span<byte> prefix = stackalloc byte[BusLayout.FramePrefixLength];
        buffer.Slice(0, BusLayout.FramePrefixLength).CopyTo(prefix);
        return ReadPrefix(prefix, maxLength, out totlen);
    }

    /// <summary>Reads the signature and totlen at the start of <paramref name="bytes"/>.</summary>
    public static BusFrameStatus ReadPrefix(ReadOnlySpan<byte> bytes, long maxLength, out uint totlen)
    {
        totlen = 0;
        if (bytes.Length < BusLayout.FramePrefixLength) return BusFrameStatus.NeedMore;
        totlen = BinaryPrimitives.ReadUInt32BigEndian(bytes[BusLayout.TotLenOffset..]);
        if (!bytes.StartsWith(BusLayout.Signature) || totlen < BusLayout.HeaderLength) return BusFrameStatus.BadSignatureOrLength;
        if (totlen > maxLength) return BusFrameStatus.TooLong;
        return BusFrameStatus.Ok;
    }
}
