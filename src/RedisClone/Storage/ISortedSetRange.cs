namespace RedisClone.Storage;

/// <summary>
/// A range of sorted set elements, by score or by member: which elements fall before its start and
/// which after its end. The order of a sorted set makes both tests monotone for score ranges, and
/// for member ranges when every score is equal (Redis leaves other cases undefined).
/// </summary>
internal interface ISortedSetRange
{
    /// <summary>True when no element can be in the range (min above max, or equal with an exclusive end).</summary>
    bool IsEmpty { get; }

    /// <summary>False when the tests ignore the member, so it need not be fetched.</summary>
    bool NeedsMember { get; }

    /// <summary>The element sorts before the range's start.</summary>
    bool BelowMin(double score, scoped ReadOnlySpan<byte> member);

    /// <summary>The element sorts after the range's end.</summary>
    bool AboveMax(double score, scoped ReadOnlySpan<byte> member);
}
