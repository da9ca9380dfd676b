namespace RedisClone.Storage;

/// <summary>A score interval, each end inclusive or exclusive (ZRANGEBYSCORE's "(1.5" is exclusive).</summary>
internal readonly struct ScoreRange(double min, bool minExclusive, double max, bool maxExclusive) : ISortedSetRange
{
    public readonly double Min = min;
    public readonly double Max = max;
    public readonly bool MinExclusive = minExclusive;
    public readonly bool MaxExclusive = maxExclusive;

    public bool IsEmpty => Min > Max || (Min == Max && (MinExclusive || MaxExclusive));

    public bool NeedsMember => false;

    public bool BelowMin(double score, scoped ReadOnlySpan<byte> member) => MinExclusive ? score <= Min : score < Min;

    public bool AboveMax(double score, scoped ReadOnlySpan<byte> member) => MaxExclusive ? score >= Max : score > Max;
}
