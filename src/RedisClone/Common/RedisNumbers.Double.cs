using System.Numerics;

namespace RedisClone.Common;

/// <summary>
/// Doubles: parsing as Redis's string2d (scores) and as a bare strtod (score range bounds), and the
/// two ways Redis prints a double: <c>%.17g</c> (replies) and fpconv's shortest round-trip text
/// (DEBUG DIGEST).
/// </summary>
internal static partial class RedisNumbers
{
    /// <summary>Longest text <see cref="FormatDouble"/> writes ("-2.2250738585072014e-308").</summary>
    public const int MaxDoubleLength = 24;

    /// <summary>
    /// Significant digits kept when parsing a double. Any midpoint between two doubles has at most
    /// 767, so replacing the rest by one nonzero digit never changes the rounding.
    /// </summary>
    private const int MaxDoubleDigits = 800;

    private const int DoublePrecision = 53;
    private const int DoubleMinExponent = -1074;
    private const int DoubleMaxLeadingBitExponent = 1023;

    /// <summary>Powers of ten that doubles hold exactly, for the one-rounding fast path.</summary>
    private static readonly double[] ExactDoublePowersOf10 =
    [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];

    /// <summary>
    /// Parses a double like Redis's string2d (used for scores, ZADD/ZINCRBY/ZRANGEBYSCORE...):
    /// strtod's full grammar — decimal, hex ("0x1p-3"), "inf"/"infinity" in any case, optional
    /// sign — that must consume the whole text. Rejects empty text, a leading space, NaN, and
    /// values that overflow to infinity or underflow to zero (strtod's ERANGE); subnormals pass.
    /// </summary>
    public static bool TryParseDouble(ReadOnlySpan<byte> s, out double value)
    {
        value = 0;
        ulong significand;
        int exponent;
        Conversion conversion;
        switch (Scan(s, out bool negative, out int start, out int end, out long exponentText))
        {
            case FloatSyntax.Infinity:
                value = negative ? double.NegativeInfinity : double.PositiveInfinity;
                return true;
            case FloatSyntax.Decimal:
                if (TryParseDecimalFast(s[start..end], exponentText, negative, out value))
                {
                    return true;
                }

                conversion = ConvertDecimal(s[start..end], exponentText, MaxDoubleDigits, DoublePrecision,
                    DoubleMinExponent, DoubleMaxLeadingBitExponent, out significand, out exponent);
                break;
            case FloatSyntax.Hex:
                conversion = ConvertHex(s[start..end], exponentText, DoublePrecision, DoubleMinExponent,
                    DoubleMaxLeadingBitExponent, out significand, out exponent);
                break;
            default:
                return false;
        }

        if (conversion != Conversion.Ok)
        {
            return false;
        }

        value = ComposeDouble(negative, significand, exponent);
        return true;
    }

    /// <summary>
    /// Parses like a bare C <c>strtod</c> whose end pointer must reach the end of a C string, which
    /// is how Redis reads score range bounds (zslParseRange: ZRANGEBYSCORE, ZCOUNT, ZREMRANGEBYSCORE):
    /// the text stops at a NUL byte, leading white space is skipped, an empty text is 0 (nothing
    /// converted, and the end pointer already sits on the terminator), and out-of-range values are
    /// not errors but ±infinity or ±0. NaN and trailing garbage fail.
    /// </summary>
    public static bool TryParseStrtod(ReadOnlySpan<byte> s, out double value)
    {
        value = 0;
        int nul = s.IndexOf((byte)0);
        if (nul >= 0)
        {
            s = s[..nul];
        }

        if (s.IsEmpty)
        {
            return true;
        }

        int skip = 0;
        while (skip < s.Length && IsCSpace(s[skip]))
        {
            skip++;
        }

        ulong significand;
        int exponent;
        Conversion conversion;
        switch (Scan(s[skip..], out bool negative, out int start, out int end, out long exponentText))
        {
            case FloatSyntax.Infinity:
                value = negative ? double.NegativeInfinity : double.PositiveInfinity;
                return true;
            case FloatSyntax.Decimal:
                conversion = ConvertDecimal(s[(skip + start)..(skip + end)], exponentText, MaxDoubleDigits, DoublePrecision,
                    DoubleMinExponent, DoubleMaxLeadingBitExponent, out significand, out exponent);
                break;
            case FloatSyntax.Hex:
                conversion = ConvertHex(s[(skip + start)..(skip + end)], exponentText, DoublePrecision, DoubleMinExponent,
                    DoubleMaxLeadingBitExponent, out significand, out exponent);
                break;
            default:
                return false;
        }

        value = conversion switch
        {
            Conversion.Overflow => negative ? double.NegativeInfinity : double.PositiveInfinity,
            Conversion.Underflow => negative ? -0.0 : 0.0,
            _ => ComposeDouble(negative, significand, exponent),
        };
        return true;
    }

    /// <summary>
    /// Writes <paramref name="value"/> as C's <c>printf("%.17g")</c> does, which is what Redis 7.0's
    /// addReplyDouble sends (ZSCORE 1.1 is "1.1000000000000001"), except that infinities are "inf"
    /// and "-inf" as Redis special-cases them. Returns the byte count (at most <see cref="MaxDoubleLength"/>).
    /// </summary>
    public static int FormatDouble(double value, Span<byte> dest)
    {
        if (!double.IsFinite(value))
        {
            ReadOnlySpan<byte> text = double.IsNaN(value)
                ? (double.IsNegative(value) ? "-nan"u8 : "nan"u8)
                : (value > 0 ? "inf"u8 : "-inf"u8);
            return CopyTo(text, dest);
        }

        if (value == 0)
        {
            return CopyTo(double.IsNegative(value) ? "-0"u8 : "0"u8, dest);
        }

        double magnitude = Math.Abs(value);
        if (magnitude < 1e17 && magnitude == Math.Floor(magnitude))
        {
            // Integers below 10^17 have at most 17 digits, so %.17g prints them exactly.
            return FormatInt64((long)value, dest);
        }

        if (!TryDigits17Fast(magnitude, out ulong digits, out int exponent10))
        {
            Digits17Exact(magnitude, out digits, out exponent10);
        }

        return WriteGeneral17(value < 0, digits, exponent10, dest);
    }

    /// <summary>
    /// Writes <paramref name="value"/> the way Redis 7.2's fpconv_dtoa does (DEBUG DIGEST formats
    /// sorted set scores with it): the shortest digits that read back as the same double, laid out
    /// as a plain integer while the exponent is below the digit count + 7 ("100", "12300000",
    /// "1e+20"), as a plain fraction down to 10^-7 ("0.001", "1.5"), otherwise in scientific
    /// notation without exponent padding ("1e-7", "1.5e-10", "1e+300"); "0", "-0", "inf", "-inf",
    /// "nan". Returns the byte count (at most 24).
    /// </summary>
    /// <remarks>
    /// fpconv finds its digits with Grisu2, which for a small fraction of doubles settles for a
    /// digit string one longer than the shortest; here the digits are .NET's shortest round-trip
    /// ones, so for those rare values the text (and a digest over it) differs from Redis's.
    /// </remarks>
    public static int FormatDoubleShortest(double value, Span<byte> dest)
    {
        int pos = 0;
        if (double.IsNegative(value) && !double.IsNaN(value)) dest[pos++] = (byte)'-';
        if (double.IsNaN(value)) return pos + CopyTo("nan"u8, dest[pos..]);
        if (double.IsInfinity(value)) return pos + CopyTo("inf"u8, dest[pos..]);
        if (value == 0) return pos + CopyTo("0"u8, dest[pos..]);

        // "R" gives the shortest round-trip text, as "1.5", "1E+20" or "1.5E-10": reduce it to a
        // digit string and a power of ten (value = digits × 10^exp10).
        string text = Math.Abs(value).ToString("R", System.Globalization.CultureInfo.InvariantCulture);
        int e = text.IndexOfAny(['E', 'e']);
        int exp10 = e < 0 ? 0 : int.Parse(text.AsSpan(e + 1), System.Globalization.CultureInfo.InvariantCulture);
        string mantissa = e < 0 ? text : text.Substring(0, e);
        int dot = mantissa.IndexOf('.');
        if (dot >= 0)
        {
            exp10 -= mantissa.Length - dot - 1;
            mantissa = mantissa.Remove(dot, 1);
        }
        mantissa = mantissa.TrimStart('0');
        int trimmed = mantissa.TrimEnd('0').Length;
        exp10 += mantissa.Length - trimmed;
        mantissa = mantissa.Substring(0, trimmed);

        int n = mantissa.Length;
        int decimalExponent = exp10 + n - 1; // of the first digit
        int magnitude = Math.Abs(decimalExponent);
        if (exp10 >= 0 && magnitude < n + 7)
        {
            foreach (char c in mantissa) dest[pos++] = (byte)c;
            for (int i = 0; i < exp10; i++) dest[pos++] = (byte)'0';
            return pos;
        }
        if (exp10 < 0 && (exp10 > -7 || magnitude < 4))
        {
            int integerDigits = n + exp10;
            if (integerDigits <= 0)
            {
                dest[pos++] = (byte)'0';
                dest[pos++] = (byte)'.';
                for (int i = 0; i < -integerDigits; i++) dest[pos++] = (byte)'0';
                foreach (char c in mantissa) dest[pos++] = (byte)c;
            }
            else
            {
                for (int i = 0; i < n; i++)
                {
                    if (i == integerDigits) dest[pos++] = (byte)'.';
                    dest[pos++] = (byte)mantissa[i];
                }
            }
            return pos;
        }
        dest[pos++] = (byte)mantissa[0];
        if (n > 1)
        {
            dest[pos++] = (byte)'.';
            for (int i = 1; i < n; i++) dest[pos++] = (byte)mantissa[i];
        }
        dest[pos++] = (byte)'e';
        dest[pos++] = decimalExponent < 0 ? (byte)'-' : (byte)'+';
        return pos + FormatInt64(magnitude, dest[pos..]);
    }

    /// <summary>
    /// Lays out 17 significant digits (<paramref name="digits"/> in [10^16, 10^17), value =
    /// digits × 10^(exponent10 − 16)) with %g's rules: scientific when the exponent is below −4 or
    /// at least the precision, trailing zeros and a bare '.' removed, exponent of two or more digits.
    /// </summary>
    private static int WriteGeneral17(bool negative, ulong digits, int exponent10, Span<byte> dest)
    {
        Span<byte> d = stackalloc byte[17];
        WriteDigits(digits, d);
        int significant = 17;
        while (d[significant - 1] == (byte)'0')
        {
            significant--;
        }

        Span<byte> buffer = stackalloc byte[MaxDoubleLength];
        int pos = 0;
        if (negative)
        {
            buffer[pos++] = (byte)'-';
        }

        if (exponent10 < -4 || exponent10 >= 17)
        {
            buffer[pos++] = d[0];
            if (significant > 1)
            {
                buffer[pos++] = (byte)'.';
                d[1..significant].CopyTo(buffer[pos..]);
                pos += significant - 1;
            }

            buffer[pos++] = (byte)'e';
            buffer[pos++] = exponent10 < 0 ? (byte)'-' : (byte)'+';
            int e = Math.Abs(exponent10);
            if (e < 10)
            {
                buffer[pos++] = (byte)'0';
            }

            pos += FormatInt64(e, buffer[pos..]);
        }
        else if (exponent10 >= 0)
        {
            int integerDigits = exponent10 + 1;
            d[..integerDigits].CopyTo(buffer[pos..]);
            pos += integerDigits;
            if (significant > integerDigits)
            {
                buffer[pos++] = (byte)'.';
                d[integerDigits..significant].CopyTo(buffer[pos..]);
                pos += significant - integerDigits;
            }
        }
        else
        {
            buffer[pos++] = (byte)'0';
            buffer[pos++] = (byte)'.';
            for (int i = exponent10 + 1; i < 0; i++)
            {
                buffer[pos++] = (byte)'0';
            }

            d[..significant].CopyTo(buffer[pos..]);
            pos += significant;
        }

        return CopyTo(buffer[..pos], dest);
    }

    /// <summary>
    /// 17 correctly rounded significant digits for 10^-6 ≤ v &lt; 10^17 using 128-bit integers:
    /// there v = m × 2^e with −e ≤ 74, and m × 10^(16−X) stays below 2^127.
    /// </summary>
    private static bool TryDigits17Fast(double v, out ulong digits, out int exponent10)
    {
        digits = 0;
        exponent10 = 0;
        if (v < 1e-6 || v >= 1e17)
        {
            return false;
        }

        DecomposeDouble(v, out ulong mantissa, out int exponent2);
        if (exponent2 >= 0)
        {
            return false;
        }

        int shift = -exponent2;
        UInt128 mask = (UInt128.One << shift) - 1;
        UInt128 half = UInt128.One << (shift - 1);
        int x = (int)Math.Floor(Math.Log10(v));
        for (int attempt = 0; attempt < 3; attempt++)
        {
            int scale = 16 - x;
            if (scale < 0 || scale > 22)
            {
                return false;
            }

            UInt128 product = (UInt128)mantissa * Pow10U128(scale);
            UInt128 quotient = product >> shift;
            if (quotient >= PowersOf10[17])
            {
                x++;
                continue;
            }

            if (quotient < PowersOf10[16])
            {
                x--;
                continue;
            }

            UInt128 remainder = product & mask;
            ulong q = (ulong)quotient;
            if (remainder > half || (remainder == half && (q & 1) != 0))
            {
                q++;
            }

            if (q == PowersOf10[17])
            {
                q = PowersOf10[16];
                x++;
            }

            digits = q;
            exponent10 = x;
            return true;
        }

        return false;
    }

    /// <summary>The general, exact version of <see cref="TryDigits17Fast"/>, for any finite v &gt; 0.</summary>
    private static void Digits17Exact(double v, out ulong digits, out int exponent10)
    {
        DecomposeDouble(v, out ulong mantissa, out int exponent2);
        int x = (int)Math.Floor(Math.Log10(v));
        BigInteger lower = PowersOf10[16];
        BigInteger upper = PowersOf10[17];
        while (true)
        {
            int scale = 16 - x;
            BigInteger numerator = mantissa;
            BigInteger denominator = BigInteger.One;
            if (scale >= 0)
            {
                numerator *= BigInteger.Pow(10, scale);
            }
            else
            {
                denominator = BigInteger.Pow(10, -scale);
            }

            if (exponent2 >= 0)
            {
                numerator <<= exponent2;
            }
            else
            {
                denominator <<= -exponent2;
            }

            BigInteger quotient = BigInteger.DivRem(numerator, denominator, out BigInteger remainder);
            if (quotient >= upper)
            {
                x++;
                continue;
            }

            if (quotient < lower)
            {
                x--;
                continue;
            }

            ulong q = (ulong)quotient;
            int comparison = (remainder << 1).CompareTo(denominator);
            if (comparison > 0 || (comparison == 0 && (q & 1) != 0))
            {
                q++;
            }

            if (q == PowersOf10[17])
            {
                q = PowersOf10[16];
                x++;
            }

            digits = q;
            exponent10 = x;
            return;
        }
    }

    /// <summary>
    /// Clinger's fast path: a mantissa below 2^53 and a power of ten up to 10^22 are both exact
    /// doubles, so one IEEE multiply or divide is the correctly rounded result.
    /// </summary>
    private static bool TryParseDecimalFast(ReadOnlySpan<byte> mantissa, long exponentText, bool negative, out double value)
    {
        value = 0;
        if (mantissa.Length > 16 || exponentText < -22 || exponentText > 22)
        {
            return false;
        }

        ulong digits = 0;
        long exponent10 = exponentText;
        bool fraction = false;
        foreach (byte c in mantissa)
        {
            if (c == (byte)'.')
            {
                fraction = true;
                continue;
            }

            digits = (digits * 10) + (uint)(c - '0');
            if (fraction)
            {
                exponent10--;
            }
        }

        // 16 digits can exceed 2^53, and converting those to double would round twice.
        if (digits > 1UL << 53 || exponent10 < -22 || exponent10 > 22)
        {
            return false;
        }

        double d = digits;
        d = exponent10 >= 0 ? d * ExactDoublePowersOf10[(int)exponent10] : d / ExactDoublePowersOf10[(int)-exponent10];
        value = negative ? -d : d;
        return true;
    }

    private static void DecomposeDouble(double v, out ulong mantissa, out int exponent2)
    {
        ulong bits = BitConverter.DoubleToUInt64Bits(v);
        int biased = (int)((bits >> 52) & 0x7FF);
        mantissa = bits & ((1UL << 52) - 1);
        if (biased == 0)
        {
            exponent2 = DoubleMinExponent;
        }
        else
        {
            mantissa |= 1UL << 52;
            exponent2 = biased - 1075;
        }
    }

    private static double ComposeDouble(bool negative, ulong significand, int exponent)
    {
        ulong bits = significand & ((1UL << 52) - 1);
        if (significand >= 1UL << 52)
        {
            bits |= (ulong)(exponent + 1075) << 52;
        }

        if (negative)
        {
            bits |= 1UL << 63;
        }

        return BitConverter.UInt64BitsToDouble(bits);
    }

    private static UInt128 Pow10U128(int n) =>
        n <= 19 ? PowersOf10[n] : (UInt128)PowersOf10[19] * PowersOf10[n - 19];
}
