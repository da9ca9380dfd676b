using RedisClone.Common;

namespace RedisClone.Storage;

/// <summary>A stream entry ID: milliseconds and a sequence number, both unsigned 64-bit, ordered as a pair.</summary>
internal readonly record struct StreamId(ulong Ms, ulong Seq) : IComparable<StreamId>
{
    public static readonly StreamId Min = new(0, 0);
    public static readonly StreamId Max = new(ulong.MaxValue, ulong.MaxValue);

    /// <summary>"ms-seq" as text needs at most 20 + 1 + 20 bytes.</summary>
    public const int MaxTextLength = 41;

    public int CompareTo(StreamId other) => Ms != other.Ms ? Ms.CompareTo(other.Ms) : Seq.CompareTo(other.Seq);

    public static bool operator <(StreamId a, StreamId b) => a.CompareTo(b) < 0;
    public static bool operator >(StreamId a, StreamId b) => a.CompareTo(b) > 0;
    public static bool operator <=(StreamId a, StreamId b) => a.CompareTo(b) <= 0;
    public static bool operator >=(StreamId a, StreamId b) => a.CompareTo(b) >= 0;

    /// <summary>The next ID (streamIncrID); false when this is the largest possible one.</summary>
    public bool TryIncrement(out StreamId next)
    {
        if (Seq != ulong.MaxValue) { next = new(Ms, Seq + 1); return true; }
        if (Ms != ulong.MaxValue) { next = new(Ms + 1, 0); return true; }
        next = Min;
        return false;
    }

    /// <summary>The previous ID (streamDecrID); false when this is 0-0.</summary>
    public bool TryDecrement(out StreamId previous)
    {
        if (Seq != 0) { previous = new(Ms, Seq - 1); return true; }
        if (Ms != 0) { previous = new(Ms - 1, ulong.MaxValue); return true; }
        previous = Max;
        return false;
    }

    /// <summary>Writes "ms-seq" into <paramref name="dest"/> (at least <see cref="MaxTextLength"/> bytes); returns its length.</summary>
    public int Format(Span<byte> dest)
    {
        int n = FormatUInt64(Ms, dest);
        dest[n++] = (byte)'-';
        return n + FormatUInt64(Seq, dest.Slice(n));
    }

    private static int FormatUInt64(ulong value, Span<byte> dest)
    {
        if (value <= long.MaxValue) return RedisNumbers.FormatInt64((long)value, dest);
        value.TryFormat(dest, out int written, default, System.Globalization.CultureInfo.InvariantCulture);
        return written;
    }

    public override string ToString() => $"{Ms}-{Seq}";
}
