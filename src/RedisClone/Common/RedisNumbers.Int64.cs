using System.Numerics;

namespace RedisClone.Common;

/// <summary>
/// Integers: parsing with Redis's string2ll rules, decimal formatting, and digit counts (how long an
/// integer's text is, for sizes computed without writing it).
/// </summary>
internal static partial class RedisNumbers
{
    /// <summary>Longest text <see cref="TryParseInt64"/> accepts, and longest <see cref="FormatInt64"/> writes.</summary>
    public const int MaxInt64Length = 20;

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
}
