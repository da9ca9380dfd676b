namespace RedisClone.Storage;

/// <summary>
/// A test on a sorted set element that is true for a prefix of the order and false after it (a
/// range's "before the minimum" or "not after the maximum"): what <see cref="SortedSetIndex.LowerBound"/> searches for.
/// </summary>
internal interface IElementTest
{
    /// <summary>False when <see cref="Test"/> ignores the member, so it need not be fetched.</summary>
    bool NeedsMember { get; }

    bool Test(double score, scoped ReadOnlySpan<byte> member);
}
