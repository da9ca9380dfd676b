using System.Buffers;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Numerics;

namespace RedisClone.Common;

/// <summary>
/// Integer and floating-point text conversions with the exact accept/reject rules and output bytes
/// of Redis 7.0 (string2ll, string2d, string2ld, <c>%.17g</c> and <c>%.17Lf</c>), allocation-free on
/// the common paths.
/// </summary>
/// <remarks>
/// Redis leans on glibc here (strtod, strtold, printf), whose conversions are exact with
/// round-half-even. Rather than trusting .NET's own parser and formatter to agree with glibc on
/// every edge (hex floats, "infinity", 20-digit mantissas, ties), the conversions are done here
/// from first principles: exact integer arithmetic in <see cref="UInt128"/>, falling back to
/// <see cref="BigInteger"/> only for very long or very large/small inputs.
/// </remarks>
internal static class RedisNumbers
{
    /// <summary>Longest text <see cref="TryParseInt64"/> accepts, and longest <see cref="FormatInt64"/> writes.</summary>
    public const int MaxInt64Length = 20;

    /// <summary>Longest text <see cref="FormatDouble"/> writes ("-2.2250738585072014e-308").</summary>
    public const int MaxDoubleLength = 24;

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
    /// Significant digits kept when parsing a double. Any midpoint between two doubles has at most
    /// 767, so replacing the rest by one nonzero digit never changes the rounding.
    /// </summary>
    private const int MaxDoubleDigits = 800;

    private const int DoublePrecision = 53;
    private const int DoubleMinExponent = -1074;
    private const int DoubleMaxLeadingBitExponent = 1023;

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

    /// <summary>Powers of ten that doubles hold exactly, for the one-rounding fast path.</summary>
    private static readonly double[] ExactDoublePowersOf10 =
    [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
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

    // ---------------------------------------------------------------- integers

    /// <summary>
    /// Parses a signed 64-bit integer with Redis's string2ll rules: optional '-', no '+', no spaces,
    /// no leading zeros (so "-0" and "007" are rejected), at most 20 characters, no overflow.
    /// </summary>
    public static bool TryParseInt64(ReadOnlySpan<byte> s, out long value)
    {
        value = 0;
        if (s.IsEmpty || s.Length > MaxInt64Length)
        {
            return false;
        }

        if (s.Length == 1 && s[0] == (byte)'0')
        {
            return true;
        }

        int i = 0;
        bool negative = s[0] == (byte)'-';
        if (negative && ++i == s.Length)
        {
            return false;
        }

        // The first digit must be 1-9: this is what rejects leading zeros and "-0".
        uint first = (uint)(s[i] - '1');
        if (first > 8)
        {
            return false;
        }

        ulong magnitude = first + 1;
        for (i++; i < s.Length; i++)
        {
            uint digit = (uint)(s[i] - '0');
            if (digit > 9)
            {
                return false;
            }

            // 20 digits can exceed ulong, so check before multiplying.
            if (magnitude > (ulong.MaxValue - digit) / 10)
            {
                return false;
            }

            magnitude = (magnitude * 10) + digit;
        }

        if (negative)
        {
            if (magnitude > 1UL << 63)
            {
                return false;
            }

            value = (long)(0UL - magnitude);
            return true;
        }

        if (magnitude > long.MaxValue)
        {
            return false;
        }

        value = (long)magnitude;
        return true;
    }

    /// <summary>Writes <paramref name="value"/> in decimal ASCII; returns the byte count (at most 20).</summary>
    public static int FormatInt64(long value, Span<byte> dest)
    {
        int length = DigitCount(value);
        if (dest.Length < length)
        {
            ThrowDestinationTooSmall();
        }

        ulong magnitude = value < 0 ? 0UL - (ulong)value : (ulong)value;
        WriteDigits(magnitude, dest[..length]);
        if (value < 0)
        {
            dest[0] = (byte)'-';
        }

        return length;
    }

    /// <summary>Length of the decimal text of <paramref name="value"/>, counting the '-' sign.</summary>
    public static int DigitCount(long value) =>
        value < 0 ? DigitCount(0UL - (ulong)value) + 1 : DigitCount((ulong)value);

    private static int DigitCount(ulong value)
    {
        // log10 estimate from the bit length, corrected by one comparison.
        int bits = 64 - BitOperations.LeadingZeroCount(value | 1);
        int estimate = (bits * 1233) >> 12;
        // (value | 1): zero has one digit; setting the low bit never crosses a power of ten.
        return estimate + ((value | 1) >= PowersOf10[estimate] ? 1 : 0);
    }

    /// <summary>Fills <paramref name="dest"/> right-aligned with the digits of <paramref name="value"/>.</summary>
    private static void WriteDigits(ulong value, Span<byte> dest)
    {
        int i = dest.Length;
        do
        {
            ulong quotient = value / 10;
            dest[--i] = (byte)('0' + (int)(value - (quotient * 10)));
            value = quotient;
        }
        while (value != 0);
    }

    // ---------------------------------------------------------------- doubles

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

    // ---------------------------------------------------------------- long doubles (INCRBYFLOAT)

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

    // ---------------------------------------------------------------- shared conversion machinery

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

    private static UInt128 Pow10U128(int n) =>
        n <= 19 ? PowersOf10[n] : (UInt128)PowersOf10[19] * PowersOf10[n - 19];

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
