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

/// <summary>
/// A member interval for ZRANGEBYLEX and friends: each end is "-" (before everything), "+" (after
/// everything), or a member, inclusive or exclusive. Members compare as bytes (memcmp, then length).
/// </summary>
internal readonly ref struct LexRange : ISortedSetRange
{
    /// <summary>How a range end is given.</summary>
    public enum Bound : byte
    {
        Inclusive,
        Exclusive,
        /// <summary>"-": below every member.</summary>
        NegativeInfinity,
        /// <summary>"+": above every member.</summary>
        PositiveInfinity,
    }

    public LexRange(Bound minKind, ReadOnlySpan<byte> min, Bound maxKind, ReadOnlySpan<byte> max)
    {
        MinKind = minKind;
        Min = min;
        MaxKind = maxKind;
        Max = max;
    }

    public readonly Bound MinKind;
    public readonly ReadOnlySpan<byte> Min;
    public readonly Bound MaxKind;
    public readonly ReadOnlySpan<byte> Max;

    /// <summary>Redis's sdscmplex order: "-" below everything, "+" above everything, else bytes.</summary>
    private static int CompareEnds(Bound a, ReadOnlySpan<byte> x, Bound b, ReadOnlySpan<byte> y)
    {
        if (a == b && a is Bound.NegativeInfinity or Bound.PositiveInfinity) return 0;
        if (a == Bound.NegativeInfinity || b == Bound.PositiveInfinity) return -1;
        if (a == Bound.PositiveInfinity || b == Bound.NegativeInfinity) return 1;
        return x.SequenceCompareTo(y);
    }

    public bool IsEmpty
    {
        get
        {
            // Redis counts "-" and "+" as exclusive ends, so "- -" and "+ +" are empty too.
            int c = CompareEnds(MinKind, Min, MaxKind, Max);
            return c > 0 || (c == 0 && (MinKind != Bound.Inclusive || MaxKind != Bound.Inclusive));
        }
    }

    public bool NeedsMember => true;

    public bool BelowMin(double score, scoped ReadOnlySpan<byte> member) => MinKind switch
    {
        Bound.NegativeInfinity => false,
        Bound.PositiveInfinity => true,
        Bound.Exclusive => member.SequenceCompareTo(Min) <= 0,
        _ => member.SequenceCompareTo(Min) < 0,
    };

    public bool AboveMax(double score, scoped ReadOnlySpan<byte> member) => MaxKind switch
    {
        Bound.NegativeInfinity => true,
        Bound.PositiveInfinity => false,
        Bound.Exclusive => member.SequenceCompareTo(Max) >= 0,
        _ => member.SequenceCompareTo(Max) > 0,
    };
}
