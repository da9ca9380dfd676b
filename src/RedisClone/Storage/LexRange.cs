namespace RedisClone.Storage;

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
