namespace RedisClone.Common;

/// <summary>
/// Redis's glob matching (stringmatchlen: KEYS, SCAN MATCH, PSUBSCRIBE, CONFIG GET...) with the
/// same answers on every input, quirks included, in linear-ish time and without allocating.
/// </summary>
/// <remarks>
/// <para>
/// Syntax: <c>*</c> any run, <c>?</c> any byte, <c>[abc]</c>, <c>[^abc]</c>, <c>[a-z]</c> (a reversed
/// range like <c>[z-a]</c> is swapped), and <c>\x</c> for a literal x, also inside brackets.
/// Redis's quirks that are kept on purpose, because clients can observe them:
/// </para>
/// <list type="bullet">
/// <item>Empty text matches only the empty pattern (even <c>*</c> does not match it here; KEYS and
/// SCAN special-case a lone <c>*</c> before calling the matcher).</item>
/// <item>An unterminated <c>[</c> class runs to the end of the pattern; a lone <c>[</c> matches nothing.</item>
/// <item>In a range, <c>]</c> can be the upper bound (<c>[a-]</c> never closes), bytes compare as
/// signed C chars (so 0x80-0xFF sort below ASCII), and with nocase the bounds are lowered after
/// swapping. An escaped byte inside a class is compared case-sensitively even with nocase.</item>
/// <item>Redis 7.0 gives up (no match) once a pattern reaches its 1001st star group that is not the
/// pattern's end, a recursion guard that shows through as "no match".</item>
/// </list>
/// <para>
/// Every token other than <c>*</c> consumes exactly one byte, so the classic greedy algorithm with
/// one backtrack point (the most recent star) is exact: a later star can absorb whatever an earlier
/// star would have absorbed. That replaces Redis's recursion, which is exponential on patterns like
/// <c>*a*a*a*a*b</c> without its skip-longer-matches escape hatch.
/// </para>
/// </remarks>
internal static class GlobMatcher
{
    /// <summary>Redis stops recursing past this many nested stars and reports no match.</summary>
    private const int MaxStarNesting = 1000;

    /// <summary>True when <paramref name="text"/> matches the glob <paramref name="pattern"/>.</summary>
    /// <param name="nocase">ASCII case-insensitive, as CONFIG GET and friends use it.</param>
    public static bool IsMatch(ReadOnlySpan<byte> pattern, ReadOnlySpan<byte> text, bool nocase = false)
    {
        if (text.IsEmpty)
        {
            // Redis's loop needs at least one byte of text to start.
            return pattern.IsEmpty;
        }

        int p = 0;
        int t = 0;
        int stars = 0;
        int backtrackPattern = -1;
        int backtrackText = 0;
        int backtrackStars = 0;
        while (t < text.Length)
        {
            if (p < pattern.Length && pattern[p] == (byte)'*')
            {
                while (p + 1 < pattern.Length && pattern[p + 1] == (byte)'*')
                {
                    p++;
                }

                if (p == pattern.Length - 1)
                {
                    return true;
                }

                if (++stars > MaxStarNesting)
                {
                    return false;
                }

                p++;
                backtrackPattern = p;
                backtrackText = t;
                backtrackStars = stars;
                continue;
            }

            if (p < pattern.Length && TryMatchToken(pattern, ref p, text[t], nocase))
            {
                t++;
                continue;
            }

            if (backtrackPattern < 0)
            {
                return false;
            }

            // Let the last star swallow one more byte and retry what follows it.
            p = backtrackPattern;
            t = ++backtrackText;
            stars = backtrackStars;
        }

        while (p < pattern.Length && pattern[p] == (byte)'*')
        {
            p++;
        }

        return p == pattern.Length;
    }

    /// <summary>Matches the token at <paramref name="p"/> against one byte; on success moves past it.</summary>
    private static bool TryMatchToken(ReadOnlySpan<byte> pattern, ref int p, byte c, bool nocase)
    {
        int i = p;
        switch (pattern[i])
        {
            case (byte)'?':
                p = i + 1;
                return true;
            case (byte)'[':
                return TryMatchClass(pattern, ref p, c, nocase);
            case (byte)'\\':
                // A trailing backslash is an ordinary byte.
                if (i + 1 < pattern.Length)
                {
                    i++;
                }

                break;
        }

        if (!SameByte(pattern[i], c, nocase))
        {
            return false;
        }

        p = i + 1;
        return true;
    }

    /// <summary>Matches a bracket class starting at <paramref name="p"/> (which is on the '[').</summary>
    private static bool TryMatchClass(ReadOnlySpan<byte> pattern, ref int p, byte c, bool nocase)
    {
        int i = p + 1;
        bool negate = At(pattern, i) == (byte)'^';
        if (negate)
        {
            i++;
        }

        bool match = false;
        while (true)
        {
            // At(end) reads as NUL, like the terminator Redis's pattern buffer always has.
            byte b = At(pattern, i);
            if (b == (byte)'\\' && pattern.Length - i >= 2)
            {
                i++;
                match |= pattern[i] == c;
            }
            else if (b == (byte)']')
            {
                break;
            }
            else if (i == pattern.Length)
            {
                // Unterminated: the class ends with the pattern.
                i--;
                break;
            }
            else if (pattern.Length - i >= 3 && pattern[i + 1] == (byte)'-')
            {
                // Signed comparison, as C's plain char is signed on the platforms Redis targets.
                int start = (sbyte)b;
                int end = (sbyte)pattern[i + 2];
                int value = (sbyte)c;
                if (start > end)
                {
                    (start, end) = (end, start);
                }

                if (nocase)
                {
                    start = ToLower(start);
                    end = ToLower(end);
                    value = ToLower(value);
                }

                i += 2;
                match |= value >= start && value <= end;
            }
            else
            {
                match |= SameByte(b, c, nocase);
            }

            i++;
        }

        if (negate)
        {
            match = !match;
        }

        if (!match)
        {
            return false;
        }

        p = i + 1;
        return true;
    }

    private static byte At(ReadOnlySpan<byte> pattern, int i) => i < pattern.Length ? pattern[i] : (byte)0;

    private static bool SameByte(byte a, byte b, bool nocase) =>
        a == b || (nocase && ToLower(a) == ToLower(b));

    /// <summary>C tolower() in the "C" locale: only A-Z change.</summary>
    private static int ToLower(int c) => (uint)(c - 'A') <= 'Z' - 'A' ? c + 32 : c;
}
