using System.Diagnostics.CodeAnalysis;
using System.Numerics;

namespace RedisClone.Common;

/// <summary>
/// Integer and floating-point text conversions with the exact accept/reject rules and output bytes
/// of Redis 7.0 (string2ll, string2d, string2ld, <c>%.17g</c> and <c>%.17Lf</c>), allocation-free on
/// the common paths. One file per concern: integers in RedisNumbers.Int64.cs, doubles in
/// RedisNumbers.Double.cs, INCRBYFLOAT's long doubles in RedisNumbers.LongDouble.cs. This file holds
/// the machinery the floating-point parts share: strtod's grammar (<see cref="Scan"/>), the exact
/// decimal and hex conversions, the one rounding step they all end in, and small byte helpers.
/// </summary>
/// <remarks>
/// Redis leans on glibc here (strtod, strtold, printf), whose conversions are exact with
/// round-half-even. Rather than trusting .NET's own parser and formatter to agree with glibc on
/// every edge (hex floats, "infinity", 20-digit mantissas, ties), the conversions are done here
/// from first principles: exact integer arithmetic in <see cref="UInt128"/>, falling back to
/// <see cref="BigInteger"/> only for very long or very large/small inputs.
/// </remarks>
internal static partial class RedisNumbers
{
    /// <summary>Keep 30 hex digits (120 bits): plenty for a 64-bit result plus a rounding bit.</summary>
    private const int MaxHexDigits = 30;

    /// <summary>Exponent magnitudes past this are saturated: the value is 0 or infinite long before.</summary>
    private const long ExponentLimit = 1_000_000_000_000;

    // Static arrays, not span-returning properties: those allocate in Debug builds for non-byte types.
    private static readonly ulong[] PowersOf10 =
    [
        1UL, 10UL, 100UL, 1_000UL, 10_000UL, 100_000UL, 1_000_000UL, 10_000_000UL, 100_000_000UL,
        1_000_000_000UL, 10_000_000_000UL, 100_000_000_000UL, 1_000_000_000_000UL, 10_000_000_000_000UL,
        100_000_000_000_000UL, 1_000_000_000_000_000UL, 10_000_000_000_000_000UL,
        100_000_000_000_000_000UL, 1_000_000_000_000_000_000UL, 10_000_000_000_000_000_000UL,
    ];

    /// <summary>What <see cref="Scan"/> found.</summary>
    private enum FloatSyntax : byte
    {
        Invalid,
        Infinity,
        Decimal,
        Hex,
    }

    /// <summary>Outcome of converting an exact value to a binary format.</summary>
    private enum Conversion : byte
    {
        Ok,
        Overflow,
        Underflow,
    }

    /// <summary>
    /// Checks text against strtod's grammar and requires it to be consumed whole, as string2d and
    /// string2ld do. For decimal and hex numbers, [start, end) is the mantissa (digits and at most
    /// one '.') and <paramref name="exponent"/> the saturated value after 'e' or 'p'.
    /// </summary>
    private static FloatSyntax Scan(ReadOnlySpan<byte> s, out bool negative, out int start, out int end, out long exponent)
    {
        negative = false;
        start = end = 0;
        exponent = 0;

        // Redis checks isspace() on the first byte only; strtod would skip it, Redis refuses.
        if (s.IsEmpty || IsCSpace(s[0]))
        {
            return FloatSyntax.Invalid;
        }

        int i = 0;
        if (s[0] == (byte)'+' || s[0] == (byte)'-')
        {
            negative = s[0] == (byte)'-';
            i = 1;
        }

        ReadOnlySpan<byte> rest = s[i..];
        if (EqualsAsciiIgnoreCase(rest, "inf"u8) || EqualsAsciiIgnoreCase(rest, "infinity"u8))
        {
            return FloatSyntax.Infinity;
        }

        // "nan" and "nan(...)" fall through and fail the digit check: Redis rejects NaN anyway.
        bool hex = rest.Length >= 2 && rest[0] == (byte)'0' && (rest[1] | 0x20) == (byte)'x';
        if (hex)
        {
            i += 2;
        }

        start = i;
        int digits = 0;
        bool dot = false;
        for (; i < s.Length; i++)
        {
            byte c = s[i];
            if (hex ? IsHexDigit(c) : IsDigit(c))
            {
                digits++;
            }
            else if (c == (byte)'.' && !dot)
            {
                dot = true;
            }
            else
            {
                break;
            }
        }

        // Without a digit strtod stops before the mantissa (or after the "0" of "0x"), so the
        // text is never consumed whole.
        if (digits == 0)
        {
            return FloatSyntax.Invalid;
        }

        end = i;
        if (i < s.Length && (s[i] | 0x20) == (hex ? (byte)'p' : (byte)'e'))
        {
            // An exponent marker without digits is left unconsumed by strtod: trailing garbage.
            if (!TryScanExponent(s[(i + 1)..], out exponent))
            {
                return FloatSyntax.Invalid;
            }

            i = s.Length;
        }

        return i == s.Length ? (hex ? FloatSyntax.Hex : FloatSyntax.Decimal) : FloatSyntax.Invalid;
    }

    /// <summary>Parses "[+-]digits" filling the whole span; saturates huge exponents.</summary>
    private static bool TryScanExponent(ReadOnlySpan<byte> s, out long exponent)
    {
        exponent = 0;
        int i = 0;
        bool negative = false;
        if (i < s.Length && (s[i] == (byte)'+' || s[i] == (byte)'-'))
        {
            negative = s[i] == (byte)'-';
            i++;
        }

        if (i == s.Length)
        {
            return false;
        }

        for (; i < s.Length; i++)
        {
            if (!IsDigit(s[i]))
            {
                return false;
            }

            if (exponent < ExponentLimit)
            {
                exponent = (exponent * 10) + (s[i] - '0');
            }
        }

        if (negative)
        {
            exponent = -exponent;
        }

        return true;
    }

    /// <summary>
    /// Converts decimal digits × 10^exponentText exactly, rounding once to the target format.
    /// Keeps at most <paramref name="maxDigits"/> significant digits plus a sticky nonzero digit.
    /// </summary>
    private static Conversion ConvertDecimal(ReadOnlySpan<byte> mantissa, long exponentText, int maxDigits,
        int precision, int minExponent, int maxLeadingBitExponent, out ulong significand, out int exponent)
    {
        significand = 0;
        exponent = minExponent;

        // Gather significant digits: the first 19 into a ulong, the rest (if any) into a BigInteger
        // 18 at a time. exponent10 tracks the power of ten that scales the gathered digits.
        ulong small = 0;
        BigInteger big = BigInteger.Zero;
        ulong chunk = 0;
        int chunkLength = 0;
        int count = 0;
        long exponent10 = 0;
        bool fraction = false;
        bool dropped = false;
        foreach (byte c in mantissa)
        {
            if (c == (byte)'.')
            {
                fraction = true;
                continue;
            }

            uint digit = (uint)(c - '0');
            if (fraction)
            {
                exponent10--;
            }

            if (count == 0 && digit == 0)
            {
                continue;
            }

            if (count >= maxDigits)
            {
                dropped |= digit != 0;
                exponent10++;
                continue;
            }

            if (count < 19)
            {
                small = (small * 10) + digit;
            }
            else
            {
                if (count == 19)
                {
                    big = small;
                }

                chunk = (chunk * 10) + digit;
                if (++chunkLength == 18)
                {
                    big = (big * PowersOf10[18]) + chunk;
                    chunk = 0;
                    chunkLength = 0;
                }
            }

            count++;
        }

        if (count == 0)
        {
            // All zeros: an exact zero whatever the exponent, which strtod accepts.
            return Conversion.Ok;
        }

        if (count > 19)
        {
            if (chunkLength > 0)
            {
                big = (big * PowersOf10[chunkLength]) + chunk;
            }

            if (dropped)
            {
                // One more nonzero digit stands in for everything dropped (see MaxDoubleDigits).
                big = (big * 10) + 1;
                exponent10--;
                count++;
            }
        }

        exponent10 += Math.Clamp(exponentText, -ExponentLimit, ExponentLimit);

        // The value lies in [10^(magnitude-1), 10^magnitude). Settle the hopeless cases before
        // building huge powers of ten; 0.30103 slightly exceeds log10(2), so both tests are safe.
        long magnitude = exponent10 + count;
        if (magnitude - 1 >= ((maxLeadingBitExponent + 1) * 0.30103) + 1)
        {
            return Conversion.Overflow;
        }

        if (magnitude <= ((minExponent - 1) * 0.30103) - 1)
        {
            return Conversion.Underflow;
        }

        Conversion result;
        if (count <= 19 && exponent10 >= 0 && exponent10 <= 19)
        {
            UInt128 value = (UInt128)small * PowersOf10[(int)exponent10];
            result = RoundBinary(value, 0, false, precision, minExponent, maxLeadingBitExponent, out significand, out exponent);
        }
        else if (count <= 19 && exponent10 < 0 && exponent10 >= -18)
        {
            // Scale the digits to the top of 128 bits so the quotient keeps at least 65 bits; the
            // remainder becomes the sticky bit.
            int shift = BitOperations.LeadingZeroCount(small) + 63;
            UInt128 numerator = (UInt128)small << shift;
            ulong denominator = PowersOf10[(int)-exponent10];
            UInt128 quotient = numerator / denominator;
            bool sticky = quotient * denominator != numerator;
            result = RoundBinary(quotient, -shift, sticky, precision, minExponent, maxLeadingBitExponent, out significand, out exponent);
        }
        else
        {
            BigInteger digits = count <= 19 ? small : big;
            if (exponent10 >= 0)
            {
                BigInteger value = digits * BigInteger.Pow(10, (int)exponent10);
                result = RoundBinary(value, 0, false, precision, minExponent, maxLeadingBitExponent, out significand, out exponent);
            }
            else
            {
                BigInteger denominator = BigInteger.Pow(10, (int)-exponent10);
                long shift = Math.Max(0, precision + 2 + denominator.GetBitLength() - digits.GetBitLength());
                BigInteger quotient = BigInteger.DivRem(digits << (int)shift, denominator, out BigInteger remainder);
                result = RoundBinary(quotient, -shift, !remainder.IsZero, precision, minExponent, maxLeadingBitExponent,
                    out significand, out exponent);
            }
        }

        // A nonzero text that rounds to zero is strtod's ERANGE underflow, which Redis rejects.
        return result == Conversion.Ok && significand == 0 ? Conversion.Underflow : result;
    }

    /// <summary>Converts hex digits × 2^exponentText, rounding once (strtod's "0x1.8p3" form).</summary>
    private static Conversion ConvertHex(ReadOnlySpan<byte> mantissa, long exponentText, int precision, int minExponent,
        int maxLeadingBitExponent, out ulong significand, out int exponent)
    {
        significand = 0;
        exponent = minExponent;
        UInt128 value = UInt128.Zero;
        int count = 0;
        long exponent2 = 0;
        bool fraction = false;
        bool sticky = false;
        foreach (byte c in mantissa)
        {
            if (c == (byte)'.')
            {
                fraction = true;
                continue;
            }

            uint digit = HexValue(c);
            if (fraction)
            {
                exponent2 -= 4;
            }

            if (count == 0 && digit == 0)
            {
                continue;
            }

            if (count >= MaxHexDigits)
            {
                sticky |= digit != 0;
                exponent2 += 4;
                continue;
            }

            value = (value << 4) | digit;
            count++;
        }

        if (count == 0)
        {
            return Conversion.Ok;
        }

        exponent2 += Math.Clamp(exponentText, -ExponentLimit, ExponentLimit);
        Conversion result = RoundBinary(value, exponent2, sticky, precision, minExponent, maxLeadingBitExponent,
            out significand, out exponent);
        return result == Conversion.Ok && significand == 0 ? Conversion.Underflow : result;
    }

    private static Conversion RoundBinary(BigInteger magnitude, long exponent, bool sticky, int precision, int minExponent,
        int maxLeadingBitExponent, out ulong significand, out int lsbExponent)
    {
        // Keep the top 126 bits: the rounding position is then at least 62 bits above the cut,
        // so the discarded bits only matter as a sticky bit.
        long bits = magnitude.GetBitLength();
        if (bits > 126)
        {
            int cut = (int)(bits - 126);
            sticky |= BigInteger.TrailingZeroCount(magnitude) < cut;
            magnitude >>= cut;
            exponent += cut;
        }

        return RoundBinary((UInt128)magnitude, exponent, sticky, precision, minExponent, maxLeadingBitExponent,
            out significand, out lsbExponent);
    }

    /// <summary>
    /// The one rounding step every conversion ends in. The result's last bit sits at
    /// max(leading bit − precision + 1, minExponent) — the second term is gradual underflow.
    /// A zero significand means the value rounded to zero.
    /// </summary>
    private static Conversion RoundBinary(UInt128 magnitude, long exponent, bool sticky, int precision, int minExponent,
        int maxLeadingBitExponent, out ulong significand, out int lsbExponent)
    {
        significand = 0;
        lsbExponent = minExponent;
        if (magnitude == UInt128.Zero)
        {
            return Conversion.Ok;
        }

        int bits = 128 - (int)UInt128.LeadingZeroCount(magnitude);
        if (bits + exponent - 1 > maxLeadingBitExponent)
        {
            return Conversion.Overflow;
        }

        long lsb = Math.Max(bits + exponent - precision, minExponent);
        long shift = lsb - exponent;
        ulong q;
        if (shift <= 0)
        {
            q = (ulong)(magnitude << (int)-shift);
        }
        else if (shift > bits)
        {
            // Below half of the smallest step: rounds to zero.
            return Conversion.Ok;
        }
        else
        {
            UInt128 quotient = shift == 128 ? UInt128.Zero : magnitude >> (int)shift;
            UInt128 remainder = magnitude - (shift == 128 ? UInt128.Zero : quotient << (int)shift);
            UInt128 half = UInt128.One << (int)(shift - 1);
            q = (ulong)quotient;
            if (remainder > half || (remainder == half && (sticky || (q & 1) != 0)))
            {
                ulong full = precision == 64 ? ulong.MaxValue : (1UL << precision) - 1;
                if (q == full)
                {
                    // Carry out of the top bit: 1.111…1 rounds up to 10.000…0.
                    q = 1UL << (precision - 1);
                    lsb++;
                }
                else
                {
                    q++;
                }
            }
        }

        if (q != 0 && lsb + (64 - BitOperations.LeadingZeroCount(q)) - 1 > maxLeadingBitExponent)
        {
            return Conversion.Overflow;
        }

        significand = q;
        lsbExponent = (int)lsb;
        return Conversion.Ok;
    }

    // ---------------------------------------------------------------- small helpers

    private static bool IsDigit(byte c) => (uint)(c - '0') <= 9;

    private static bool IsHexDigit(byte c) => IsDigit(c) || (uint)((c | 0x20) - 'a') <= 5;

    private static uint HexValue(byte c) => IsDigit(c) ? (uint)(c - '0') : (uint)((c | 0x20) - 'a' + 10);

    /// <summary>C's isspace() in the "C" locale, which is what Redis runs its ctype calls in.</summary>
    private static bool IsCSpace(byte c) => c == (byte)' ' || (uint)(c - '\t') <= '\r' - '\t';

    private static bool EqualsAsciiIgnoreCase(ReadOnlySpan<byte> text, ReadOnlySpan<byte> lowerLetters)
    {
        if (text.Length != lowerLetters.Length)
        {
            return false;
        }

        for (int i = 0; i < text.Length; i++)
        {
            if ((text[i] | 0x20) != lowerLetters[i])
            {
                return false;
            }
        }

        return true;
    }

    private static int CopyTo(ReadOnlySpan<byte> text, Span<byte> dest)
    {
        if (!text.TryCopyTo(dest))
        {
            ThrowDestinationTooSmall();
        }

        return text.Length;
    }

    [DoesNotReturn]
    private static void ThrowDestinationTooSmall() =>
        throw new ArgumentException("Destination buffer is too small.", "dest");
}
