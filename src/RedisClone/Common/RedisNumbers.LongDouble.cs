using System.Buffers;
using System.Globalization;
using System.Numerics;

namespace RedisClone.Common;

/// <summary>
/// Long doubles, for INCRBYFLOAT and HINCRBYFLOAT: parsing as Redis's string2ld, addition rounded as
/// the x87 FPU rounds it, and ld2string's human format, all on the 80-bit <see cref="ExtendedDouble"/>.
/// </summary>
internal static partial class RedisNumbers
{
    /// <summary>
    /// Redis's MAX_LONG_DOUBLE_CHARS: string2ld copies into a buffer this big, so it rejects texts
    /// of this length or longer.
    /// </summary>
    public const int MaxLongDoubleChars = 5 * 1024;

    /// <summary>
    /// Longest text <see cref="FormatLongDoubleHuman"/> writes: '-' plus the 4933 integer digits of
    /// the largest finite value (fractions are shorter).
    /// </summary>
    public const int MaxLongDoubleHumanLength = 4934;

    /// <summary>
    /// Parses text like Redis 7.0's string2ld (INCRBYFLOAT's value and increment): strtold's grammar
    /// over the whole text, shorter than <see cref="MaxLongDoubleChars"/>, no leading space, not
    /// NaN, and not out of range (overflow to infinity, or underflow to zero). The literal "inf" is
    /// accepted — the addition then reports it.
    /// </summary>
    public static bool TryParseLongDouble(ReadOnlySpan<byte> s, out ExtendedDouble value)
    {
        value = ExtendedDouble.Zero;
        if (s.Length >= MaxLongDoubleChars)
        {
            return false;
        }

        ulong significand;
        int exponent;
        Conversion conversion;
        switch (Scan(s, out bool negative, out int start, out int end, out long exponentText))
        {
            case FloatSyntax.Infinity:
                value = negative ? ExtendedDouble.NegativeInfinity : ExtendedDouble.PositiveInfinity;
                return true;
            case FloatSyntax.Decimal:
                // The length limit bounds the digits, so no truncation is needed (or allowed: an
                // 80-bit midpoint can need thousands of digits).
                conversion = ConvertDecimal(s[start..end], exponentText, int.MaxValue, ExtendedDouble.Precision,
                    ExtendedDouble.MinExponent, ExtendedDouble.MaxLeadingBitExponent, out significand, out exponent);
                break;
            case FloatSyntax.Hex:
                conversion = ConvertHex(s[start..end], exponentText, ExtendedDouble.Precision,
                    ExtendedDouble.MinExponent, ExtendedDouble.MaxLeadingBitExponent, out significand, out exponent);
                break;
            default:
                return false;
        }

        if (conversion != Conversion.Ok)
        {
            return false;
        }

        value = significand == 0
            ? ExtendedDouble.SignedZero(negative)
            : ExtendedDouble.Create(negative, significand, exponent);
        return true;
    }

    /// <summary>
    /// Adds like the x87 FPU (one rounding to 64 bits, half-even). Returns false when the sum is
    /// infinite or NaN, which INCRBYFLOAT reports as "increment would produce NaN or Infinity".
    /// </summary>
    public static bool TryAdd(ExtendedDouble a, ExtendedDouble b, out ExtendedDouble sum)
    {
        if (a.IsInfinity || b.IsInfinity)
        {
            sum = a.IsInfinity ? a : b;
            return false;
        }

        if (a.IsZero || b.IsZero)
        {
            // x + 0 is exact; for 0 + 0 the sum is -0 only when both are -0.
            sum = !a.IsZero ? a : !b.IsZero ? b : ExtendedDouble.SignedZero(a.IsNegative && b.IsNegative);
            return true;
        }

        ExtendedDouble large = a;
        ExtendedDouble small = b;
        if (small.Exponent > large.Exponent)
        {
            (large, small) = (small, large);
        }

        int gap = large.Exponent - small.Exponent;
        if (gap >= 66)
        {
            // The small operand is below a quarter ulp of the large one (whose significand is
            // normalized, since only the minimum exponent holds subnormals), so it cannot move
            // the rounded result, even when the large one is a power of two being decremented.
            sum = large;
            return true;
        }

        if (gap <= 63)
        {
            UInt128 x = (UInt128)large.Significand << gap;
            UInt128 y = small.Significand;
            if (large.IsNegative == small.IsNegative)
            {
                return TryRoundExtended(large.IsNegative, x + y, small.Exponent, out sum);
            }

            if (x == y)
            {
                // Exact cancellation is +0 when rounding to nearest.
                sum = ExtendedDouble.Zero;
                return true;
            }

            return x > y
                ? TryRoundExtended(large.IsNegative, x - y, small.Exponent, out sum)
                : TryRoundExtended(small.IsNegative, y - x, small.Exponent, out sum);
        }

        BigInteger bx = new BigInteger(large.Significand) << gap;
        BigInteger by = small.Significand;
        BigInteger total = (large.IsNegative ? -bx : bx) + (small.IsNegative ? -by : by);
        if (total.IsZero)
        {
            sum = ExtendedDouble.Zero;
            return true;
        }

        return TryRoundExtended(total.Sign < 0, BigInteger.Abs(total), small.Exponent, out sum);
    }

    /// <summary>
    /// Writes the value as Redis's ld2string(LD_STR_HUMAN) does: <c>%.17Lf</c> (exact, half-even),
    /// then trailing zeros and a bare '.' removed, and "-0" turned into "0". Infinities are "inf"
    /// and "-inf". Returns the byte count (at most <see cref="MaxLongDoubleHumanLength"/>).
    /// </summary>
    public static int FormatLongDoubleHuman(ExtendedDouble value, Span<byte> dest)
    {
        if (value.IsInfinity)
        {
            return CopyTo(value.IsNegative ? "-inf"u8 : "inf"u8, dest);
        }

        if (value.IsZero)
        {
            return CopyTo("0"u8, dest);
        }

        ulong significand = value.Significand;
        int exponent = value.Exponent;
        if (exponent >= 0)
        {
            // An integer: the 17 fraction digits are all zeros and get stripped.
            return exponent <= 64
                ? WriteUInt128(value.IsNegative, (UInt128)significand << exponent, dest)
                : WriteBigInteger(value.IsNegative, new BigInteger(significand) << exponent, dest);
        }

        // Round significand × 2^exponent × 10^17 to an integer. Below 2^-64 the value is under
        // half of 10^-17, so it prints as zero (and "-0" becomes "0").
        UInt128 scaled = UInt128.Zero;
        int shift = -exponent;
        if (shift <= 127)
        {
            UInt128 product = (UInt128)significand * PowersOf10[17];
            scaled = product >> shift;
            UInt128 remainder = product & ((UInt128.One << shift) - 1);
            UInt128 half = UInt128.One << (shift - 1);
            if (remainder > half || (remainder == half && (scaled & 1) != 0))
            {
                scaled++;
            }
        }

        if (scaled == 0)
        {
            return CopyTo("0"u8, dest);
        }

        Span<byte> digits = stackalloc byte[40];
        scaled.TryFormat(digits, out int count, default, CultureInfo.InvariantCulture);
        Span<byte> buffer = stackalloc byte[48];
        int pos = 0;
        if (value.IsNegative)
        {
            buffer[pos++] = (byte)'-';
        }

        int fractionStart;
        if (count > 17)
        {
            digits[..(count - 17)].CopyTo(buffer[pos..]);
            pos += count - 17;
            fractionStart = count - 17;
        }
        else
        {
            buffer[pos++] = (byte)'0';
            fractionStart = 0;
        }

        int fractionEnd = count;
        while (fractionEnd > fractionStart && digits[fractionEnd - 1] == (byte)'0')
        {
            fractionEnd--;
        }

        if (fractionEnd > fractionStart)
        {
            buffer[pos++] = (byte)'.';
            for (int i = count; i < 17; i++)
            {
                buffer[pos++] = (byte)'0';
            }

            digits[fractionStart..fractionEnd].CopyTo(buffer[pos..]);
            pos += fractionEnd - fractionStart;
        }

        return CopyTo(buffer[..pos], dest);
    }

    private static int WriteUInt128(bool negative, UInt128 magnitude, Span<byte> dest)
    {
        Span<byte> buffer = stackalloc byte[41];
        int pos = 0;
        if (negative)
        {
            buffer[pos++] = (byte)'-';
        }

        magnitude.TryFormat(buffer[pos..], out int count, default, CultureInfo.InvariantCulture);
        return CopyTo(buffer[..(pos + count)], dest);
    }

    private static int WriteBigInteger(bool negative, BigInteger magnitude, Span<byte> dest)
    {
        char[] chars = ArrayPool<char>.Shared.Rent(MaxLongDoubleHumanLength);
        try
        {
            magnitude.TryFormat(chars, out int count, default, CultureInfo.InvariantCulture);
            int length = count + (negative ? 1 : 0);
            if (dest.Length < length)
            {
                ThrowDestinationTooSmall();
            }

            int pos = 0;
            if (negative)
            {
                dest[pos++] = (byte)'-';
            }

            for (int i = 0; i < count; i++)
            {
                dest[pos++] = (byte)chars[i];
            }

            return pos;
        }
        finally
        {
            ArrayPool<char>.Shared.Return(chars);
        }
    }

    private static bool TryRoundExtended(bool negative, UInt128 magnitude, int exponent, out ExtendedDouble result)
    {
        if (RoundBinary(magnitude, exponent, false, ExtendedDouble.Precision, ExtendedDouble.MinExponent,
                ExtendedDouble.MaxLeadingBitExponent, out ulong significand, out int lsb) != Conversion.Ok)
        {
            result = negative ? ExtendedDouble.NegativeInfinity : ExtendedDouble.PositiveInfinity;
            return false;
        }

        result = significand == 0 ? ExtendedDouble.SignedZero(negative) : ExtendedDouble.Create(negative, significand, lsb);
        return true;
    }

    private static bool TryRoundExtended(bool negative, BigInteger magnitude, int exponent, out ExtendedDouble result)
    {
        if (RoundBinary(magnitude, exponent, false, ExtendedDouble.Precision, ExtendedDouble.MinExponent,
                ExtendedDouble.MaxLeadingBitExponent, out ulong significand, out int lsb) != Conversion.Ok)
        {
            result = negative ? ExtendedDouble.NegativeInfinity : ExtendedDouble.PositiveInfinity;
            return false;
        }

        result = significand == 0 ? ExtendedDouble.SignedZero(negative) : ExtendedDouble.Create(negative, significand, lsb);
        return true;
    }
}
