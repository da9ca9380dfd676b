using System.Numerics;

namespace RedisClone.Common;

/// <summary>
/// An exact software model of the x87 80-bit extended-precision value that Redis uses as C
/// <c>long double</c> on x86-64 (64-bit significand with an explicit integer bit, 15-bit exponent).
/// </summary>
/// <remarks>
/// INCRBYFLOAT and HINCRBYFLOAT parse, add and print in this format, and their replies depend on
/// its 11 extra bits of precision (<c>1 + 0.3333333333333333333</c> is <c>1.33333333333333333</c>,
/// which <see cref="double"/> cannot produce). The value is <c>±Significand × 2^Exponent</c>;
/// finite values are kept canonical (top significand bit set, or the minimum exponent for
/// subnormals and zero) so that equal values compare equal. NaN is never represented: Redis
/// rejects it before a value is stored.
/// </remarks>
internal readonly struct ExtendedDouble : IEquatable<ExtendedDouble>
{
    /// <summary>Bits in the significand, including the explicit integer bit.</summary>
    public const int Precision = 64;

    /// <summary>Exponent of the least significant bit of a subnormal (2^-16445 is the smallest value).</summary>
    public const int MinExponent = -16445;

    /// <summary>Largest exponent of the leading bit of a finite value (max is just under 2^16384).</summary>
    public const int MaxLeadingBitExponent = 16383;

    private ExtendedDouble(bool negative, ulong significand, int exponent, bool infinity)
    {
        IsNegative = negative;
        Significand = significand;
        Exponent = exponent;
        IsInfinity = infinity;
    }

    /// <summary>Positive zero.</summary>
    public static ExtendedDouble Zero => new(false, 0, MinExponent, false);

    /// <summary>Positive infinity.</summary>
    public static ExtendedDouble PositiveInfinity => new(false, 0, 0, true);

    /// <summary>Negative infinity.</summary>
    public static ExtendedDouble NegativeInfinity => new(true, 0, 0, true);

    /// <summary>True for negative values, negative zero and negative infinity.</summary>
    public bool IsNegative { get; }

    /// <summary>The magnitude's significand; zero for zero and for infinities.</summary>
    public ulong Significand { get; }

    /// <summary>Power of two that <see cref="Significand"/> is scaled by.</summary>
    public int Exponent { get; }

    /// <summary>True for ±infinity (strtold accepts the literal "inf").</summary>
    public bool IsInfinity { get; }

    /// <summary>True for ±0.</summary>
    public bool IsZero => !IsInfinity && Significand == 0;

    /// <summary>
    /// The value Redis uses for an integer-encoded string: every <see cref="long"/> fits the
    /// 64-bit significand exactly.
    /// </summary>
    public static ExtendedDouble FromInt64(long value)
    {
        if (value == 0)
        {
            return Zero;
        }

        bool negative = value < 0;
        ulong magnitude = negative ? 0UL - (ulong)value : (ulong)value;
        int shift = BitOperations.LeadingZeroCount(magnitude);
        return new ExtendedDouble(negative, magnitude << shift, -shift, false);
    }

    /// <summary>Widens a double; every double is exactly representable.</summary>
    public static ExtendedDouble FromDouble(double value)
    {
        if (double.IsNaN(value))
        {
            throw new ArgumentException("NaN has no ExtendedDouble representation.", nameof(value));
        }

        bool negative = double.IsNegative(value);
        if (double.IsInfinity(value))
        {
            return negative ? NegativeInfinity : PositiveInfinity;
        }

        ulong bits = BitConverter.DoubleToUInt64Bits(value);
        int biased = (int)((bits >> 52) & 0x7FF);
        ulong fraction = bits & ((1UL << 52) - 1);
        ulong mantissa = biased == 0 ? fraction : fraction | (1UL << 52);
        int exponent = biased == 0 ? -1074 : biased - 1075;
        return FromExact(negative, mantissa, exponent);
    }

    /// <summary>
    /// Wraps a rounded significand and exponent from <see cref="RedisNumbers"/>; the caller
    /// guarantees the canonical form (top bit set, or the minimum exponent).
    /// </summary>
    internal static ExtendedDouble Create(bool negative, ulong significand, int exponent) =>
        new(negative, significand, exponent, false);

    /// <summary>Signed zero, kept apart from <see cref="Zero"/> because -0 survives addition of -0.</summary>
    internal static ExtendedDouble SignedZero(bool negative) => new(negative, 0, MinExponent, false);

    /// <summary>Builds a value already known to fit exactly (at most 64 significant bits, in range).</summary>
    private static ExtendedDouble FromExact(bool negative, ulong magnitude, int exponent)
    {
        if (magnitude == 0)
        {
            return SignedZero(negative);
        }

        int shift = BitOperations.LeadingZeroCount(magnitude);
        // Subnormal doubles are normal here: the extended exponent range is far wider.
        return new ExtendedDouble(negative, magnitude << shift, exponent - shift, false);
    }

    /// <inheritdoc />
    public bool Equals(ExtendedDouble other) =>
        IsNegative == other.IsNegative && Significand == other.Significand && Exponent == other.Exponent &&
        IsInfinity == other.IsInfinity;

    /// <inheritdoc />
    public override bool Equals(object? obj) => obj is ExtendedDouble other && Equals(other);

    /// <inheritdoc />
    public override int GetHashCode() => HashCode.Combine(IsNegative, Significand, Exponent, IsInfinity);

    /// <summary>Debug text: the exact binary value, like C's <c>%La</c> but with a decimal exponent of the LSB.</summary>
    public override string ToString() =>
        IsInfinity ? (IsNegative ? "-inf" : "inf")
                   : $"{(IsNegative ? "-" : "")}0x{Significand:X16}p{Exponent}";
}
