using System.Globalization;

namespace RedisClone.Scripting.Libraries;

/// <summary>
/// C's strtod on the front of a text: how much of it is a number and its value. cjson reads JSON
/// numbers with it (so "0x10", "1e999", "inf" and "nan(...)" mean what they mean in C).
/// </summary>
internal static class Strtod
{
    /// <summary>The bytes consumed (0 when no number starts the text) and the value.</summary>
    public static int Parse(ReadOnlySpan<byte> s, out double value)
    {
        value = 0;
        int p = 0;
        while (p < s.Length && s[p] is (byte)' ' or (byte)'\t' or (byte)'\n' or (byte)'\v' or (byte)'\f' or (byte)'\r') p++;
        int signAt = p;
        bool negative = false;
        if (p < s.Length && s[p] is (byte)'+' or (byte)'-')
        {
            negative = s[p] == (byte)'-';
            p++;
        }
        var rest = s[p..];
        if (StartsWithIgnoreCase(rest, "inf"u8))
        {
            value = negative ? double.NegativeInfinity : double.PositiveInfinity;
            return p + (StartsWithIgnoreCase(rest, "infinity"u8) ? 8 : 3);
        }
        if (StartsWithIgnoreCase(rest, "nan"u8))
        {
            value = double.NaN;
            int end = p + 3;
            if (end < s.Length && s[end] == (byte)'(')
            {
                int q = end + 1;
                while (q < s.Length && (char.IsAsciiLetterOrDigit((char)s[q]) || s[q] == (byte)'_')) q++;
                if (q < s.Length && s[q] == (byte)')') end = q + 1;
            }
            return end;
        }
        if (rest.Length >= 2 && rest[0] == (byte)'0' && (rest[1] | 0x20) == 'x')
        {
            int hex = ParseHex(rest[2..], out double magnitude);
            if (hex > 0)
            {
                value = negative ? -magnitude : magnitude;
                return p + 2 + hex;
            }
            value = negative ? -0.0 : 0.0;
            return p + 1; // just the "0"
        }
        int q2 = p;
        int digits = 0;
        while (q2 < s.Length && char.IsAsciiDigit((char)s[q2])) { q2++; digits++; }
        if (q2 < s.Length && s[q2] == (byte)'.')
        {
            q2++;
            while (q2 < s.Length && char.IsAsciiDigit((char)s[q2])) { q2++; digits++; }
        }
        if (digits == 0) return 0;
        if (q2 < s.Length && (s[q2] | 0x20) == 'e')
        {
            int e = q2 + 1;
            if (e < s.Length && s[e] is (byte)'+' or (byte)'-') e++;
            if (e < s.Length && char.IsAsciiDigit((char)s[e]))
            {
                while (e < s.Length && char.IsAsciiDigit((char)s[e])) e++;
                q2 = e;
            }
        }
        value = double.Parse(s[signAt..q2], NumberStyles.Float, CultureInfo.InvariantCulture);
        return q2;
    }

    /// <summary>Hex digits, an optional fraction and a binary exponent ("1.8p3"); the count consumed, 0 when no digit.</summary>
    private static int ParseHex(ReadOnlySpan<byte> s, out double value)
    {
        value = 0;
        ulong mantissa = 0;
        int exponent = 0, p = 0, digits = 0;
        bool fraction = false;
        for (; p < s.Length; p++)
        {
            int d = HexValue(s[p]);
            if (d < 0)
            {
                if (s[p] == (byte)'.' && !fraction)
                {
                    fraction = true;
                    continue;
                }
                break;
            }
            digits++;
            bool room = mantissa >> 60 == 0;
            if (room) mantissa = (mantissa << 4) | (uint)d;
            if (room && fraction) exponent -= 4;
            else if (!room && !fraction) exponent += 4; // integer digits past 64 bits only scale
        }
        if (digits == 0) return 0;
        if (p < s.Length && (s[p] | 0x20) == 'p')
        {
            int e = p + 1;
            bool negative = false;
            if (e < s.Length && s[e] is (byte)'+' or (byte)'-')
            {
                negative = s[e] == (byte)'-';
                e++;
            }
            if (e < s.Length && char.IsAsciiDigit((char)s[e]))
            {
                int power = 0;
                while (e < s.Length && char.IsAsciiDigit((char)s[e]))
                {
                    if (power < 100_000) power = power * 10 + (s[e] - '0');
                    e++;
                }
                exponent += negative ? -power : power;
                p = e;
            }
        }
        value = Math.ScaleB(mantissa, exponent);
        return p;
    }

    private static int HexValue(byte c) => c switch
    {
        >= (byte)'0' and <= (byte)'9' => c - '0',
        >= (byte)'a' and <= (byte)'f' => c - 'a' + 10,
        >= (byte)'A' and <= (byte)'F' => c - 'A' + 10,
        _ => -1,
    };

    private static bool StartsWithIgnoreCase(ReadOnlySpan<byte> s, ReadOnlySpan<byte> lower)
    {
        if (s.Length < lower.Length) return false;
        for (int i = 0; i < lower.Length; i++)
            if ((s[i] | 0x20) != lower[i]) return false;
        return true;
    }
}
