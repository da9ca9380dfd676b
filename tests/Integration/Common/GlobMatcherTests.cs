using System.Diagnostics;
using System.Text;
using RedisClone.Common;

namespace RedisClone.Tests.Common;

/// <summary>
/// Glob matching. The case-sensitive table is KEYS output from redis-server 7.0.15 (one key in
/// the database per row); the nocase rows are COMMAND LIST FILTERBY PATTERN, which matches with
/// nocase. A differential run of 4.8M pattern/key pairs against KEYS agreed as well.
/// </summary>
public sealed class GlobMatcherTests
{
    private static byte[] Bytes(string s) => Encoding.Latin1.GetBytes(s);

    [Theory]
        [InlineData("**", "", false)]
        [InlineData("", "", true)]
        [InlineData("", "a", false)]
        [InlineData("a*", "a", true)]
        [InlineData("*a", "a", true)]
        [InlineData("*a*", "bab", true)]
        [InlineData("h?llo", "hello", true)]
        [InlineData("h?llo", "hllo", false)]
        [InlineData("h*llo", "hllo", true)]
        [InlineData("h*llo", "heeeello", true)]
        [InlineData("h[ae]llo", "hello", true)]
        [InlineData("h[ae]llo", "hillo", false)]
        [InlineData("h[^e]llo", "hallo", true)]
        [InlineData("h[^e]llo", "hello", false)]
        [InlineData("h[a-b]llo", "hbllo", true)]
        [InlineData("h[b-a]llo", "hallo", true)]
        [InlineData("h[a-b]llo", "hcllo", false)]
        [InlineData("h\\*llo", "h*llo", true)]
        [InlineData("h\\*llo", "hello", false)]
        [InlineData("\\", "\\", true)]
        [InlineData("a\\", "a\\", true)]
        [InlineData("[", "[", false)]
        [InlineData("[", "a", false)]
        [InlineData("[a", "a", true)]
        [InlineData("[a", "ab", false)]
        [InlineData("[^", "x", true)]
        [InlineData("[^", "^", true)]
        [InlineData("[]", "]", false)]
        [InlineData("[]]", "]", false)]
        [InlineData("[]a]", "a", false)]
        [InlineData("[a-]", "a", true)]
        [InlineData("[a-]", "-", false)]
        [InlineData("[a-]b]", "b", true)]
        [InlineData("[a-]b]", "_", true)]
        [InlineData("[a-]b]", "^", true)]
        [InlineData("[\\]]", "]", true)]
        [InlineData("[\\", "\\", true)]
        [InlineData("[a\\", "\\", true)]
        [InlineData("[\\a]", "a", true)]
        [InlineData("[-a]", "-", true)]
        [InlineData("[a-c-e]", "-", true)]
        [InlineData("[a-c-e]", "d", false)]
        [InlineData("[\u0080-\u00ff]", "\u0090", true)]
        [InlineData("[\u0080-\u00ff]", "a", false)]
        [InlineData("[a-\u00ff]", "\u00ff", true)]
        [InlineData("[a-\u00ff]", "\u0090", false)]
        [InlineData("[a-\u00ff]", "A", true)]
        [InlineData("[a-\u00ff]", "b", false)]
        [InlineData("[\u0000-a]", "\u0090", false)]
        [InlineData("*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false)]
        [InlineData("a*b*c", "abxbxc", true)]
        [InlineData("a*b*c", "abxbx", false)]
        [InlineData("?", "", false)]
        [InlineData("?*", "x", true)]
        [InlineData("*?", "", false)]
        [InlineData("a**", "a", true)]
        [InlineData("a*?", "a", false)]
        [InlineData("a*?", "ab", true)]
        [InlineData("*.txt", "file.txt", true)]
        [InlineData("user:*:name", "user:1000:name", true)]
        [InlineData("user:*:name", "user:1000:email", false)]
        [InlineData("[abc", "c", true)]
        [InlineData("x[abc", "xb", true)]
        [InlineData("[^abc", "d", true)]
        [InlineData("[^abc", "a", false)]
        [InlineData("a[", "a[", false)]
        [InlineData("a[]", "a]", false)]
        [InlineData("*]", "]", true)]
        [InlineData("*[", "[", false)]
        [InlineData("\\[a]", "[a]", true)]
        [InlineData("[!a]", "b", false)]
        [InlineData("[!a]", "!", true)]
        [InlineData("[z-a]", "m", true)]
        [InlineData("a*", "b", false)]
        [InlineData("*b", "aaab", true)]
        [InlineData("*b", "aaaba", false)]
        [InlineData("\\a", "a", true)]
        [InlineData("[\\-]", "-", true)]
        [InlineData("[\\^a]", "^", true)]
        [InlineData("[a^]", "^", true)]
    public void IsMatch_RedisCases_MatchKeys(string pattern, string text, bool expected)
    {
        Assert.Equal(expected, GlobMatcher.IsMatch(Bytes(pattern), Bytes(text)));
    }

    [Fact]
    public void IsMatch_LoneStarAgainstEmptyText_IsFalseLikeStringmatchlen()
    {
        // KEYS * and SCAN without MATCH never call the matcher, which is why they list the "" key.
        Assert.False(GlobMatcher.IsMatch("*"u8, ""u8));
        Assert.True(GlobMatcher.IsMatch("*"u8, "x"u8));
    }

    /// <summary>COMMAND LIST FILTERBY PATTERN p against the command "get" (or "config|get").</summary>
    [Theory]
    [InlineData("GET", "get", true)]
    [InlineData("G?T", "get", true)]
    [InlineData("[A-Z]et", "get", true)]   // bounds are lowered too
    [InlineData("[Z-A]et", "get", true)]   // reversed range swapped, then lowered
    [InlineData("[a-Z]et", "get", false)]  // swapped to Z..a, lowered to z..a: empty
    [InlineData("g[\\E]t", "get", false)]  // an escape inside a class ignores nocase
    [InlineData("g[\\e]t", "get", true)]
    [InlineData("g\\Et", "get", true)]     // an escape outside a class honours it
    [InlineData("config|[G]et", "config|get", true)]
    public void IsMatch_NoCase_MatchesCommandListFilter(string pattern, string text, bool expected)
    {
        Assert.Equal(expected, GlobMatcher.IsMatch(Bytes(pattern), Bytes(text), nocase: true));
    }

    [Fact]
    public void IsMatch_CaseSensitiveByDefault()
    {
        Assert.False(GlobMatcher.IsMatch("GET"u8, "get"u8));
        Assert.True(GlobMatcher.IsMatch("GET"u8, "get"u8, nocase: true));
        Assert.False(GlobMatcher.IsMatch("\u00c9"u8, "\u00e9"u8, nocase: true)); // only ASCII folds
    }

    [Fact]
    public void IsMatch_ThousandAndOneStarGroups_GiveUpLikeRedis()
    {
        // Redis 7.0 stops at a nesting depth of 1000 and reports no match (checked with KEYS).
        byte[] key = Bytes(new string('a', 1001) + "b");
        Assert.False(GlobMatcher.IsMatch(Bytes(Repeat("a*", 1001) + "b"), key));
        Assert.True(GlobMatcher.IsMatch(Bytes(Repeat("a*", 1000) + "b"), key));
        Assert.True(GlobMatcher.IsMatch(Bytes(Repeat("a*", 1000) + "*b"), key)); // "**" is one group
        Assert.True(GlobMatcher.IsMatch(Bytes(Repeat("a*", 1001)), key));        // a trailing star never nests
    }

    [Fact]
    public void IsMatch_HostilePattern_RunsInLinearishTime()
    {
        byte[] text = Bytes(new string('a', 100_000));
        byte[] pattern = Bytes("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b");
        var stopwatch = Stopwatch.StartNew();
        Assert.False(GlobMatcher.IsMatch(pattern, text));
        Assert.True(GlobMatcher.IsMatch(pattern[..^1], text));
        Assert.True(stopwatch.Elapsed < TimeSpan.FromSeconds(2), $"took {stopwatch.Elapsed}");
    }

    [Fact]
    public void IsMatch_RandomInputs_AgreeWithExhaustiveBacktracking()
    {
        var rng = new Random(5);
        const string patternAlphabet = "ab*?[]^-\\";
        const string textAlphabet = "ab[]^-\\*?";
        for (int i = 0; i < 50_000; i++)
        {
            byte[] pattern = RandomBytes(rng, patternAlphabet, rng.Next(0, 8));
            byte[] text = RandomBytes(rng, textAlphabet, rng.Next(0, 7));
            Assert.True(
                Reference(pattern, text) == GlobMatcher.IsMatch(pattern, text),
                $"pattern={Encoding.Latin1.GetString(pattern)} text={Encoding.Latin1.GetString(text)}");
        }
    }

    [Fact]
    public void IsMatch_DoesNotAllocate()
    {
        byte[] pattern = Bytes("user:*:[a-z]?*name");
        byte[] text = Bytes("user:1000:xyname");
        Assert.True(GlobMatcher.IsMatch(pattern, text));
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 1000; i++)
        {
            GlobMatcher.IsMatch(pattern, text);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }

    private static string Repeat(string s, int count) => string.Concat(Enumerable.Repeat(s, count));

    private static byte[] RandomBytes(Random rng, string alphabet, int length)
    {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)alphabet[rng.Next(alphabet.Length)];
        }

        return bytes;
    }

    /// <summary>
    /// An independent oracle: splits the pattern into tokens (star or a one-byte predicate built
    /// from GlobMatcher's single-token semantics checked against the KEYS table above) and tries
    /// every split of the text, exponentially. Only the star placement logic is under test here.
    /// </summary>
    private static bool Reference(byte[] pattern, byte[] text)
    {
        if (text.Length == 0)
        {
            return pattern.Length == 0;
        }

        var tokens = new List<byte[]?>(); // null = star
        int p = 0;
        while (p < pattern.Length)
        {
            if (pattern[p] == (byte)'*')
            {
                if (tokens.Count == 0 || tokens[^1] is not null)
                {
                    tokens.Add(null);
                }

                p++;
                continue;
            }

            int end = TokenEnd(pattern, p);
            tokens.Add(pattern[p..end]);
            p = end;
        }

        return Match(tokens, 0, text, 0);
    }

    private static bool Match(List<byte[]?> tokens, int k, byte[] text, int t)
    {
        if (k == tokens.Count)
        {
            return t == text.Length;
        }

        if (tokens[k] is null)
        {
            for (int skip = t; skip <= text.Length; skip++)
            {
                if (Match(tokens, k + 1, text, skip))
                {
                    return true;
                }
            }

            return false;
        }

        // A one-token pattern against a one-byte text exercises exactly that token.
        return t < text.Length && GlobMatcher.IsMatch(tokens[k], text.AsSpan(t, 1)) && Match(tokens, k + 1, text, t + 1);
    }

    /// <summary>Where the non-star token starting at <paramref name="p"/> ends.</summary>
    private static int TokenEnd(byte[] pattern, int p)
    {
        switch (pattern[p])
        {
            case (byte)'\\':
                return Math.Min(p + 2, pattern.Length);
            case (byte)'[':
                int i = p + 1;
                if (i < pattern.Length && pattern[i] == (byte)'^')
                {
                    i++;
                }

                while (i < pattern.Length)
                {
                    if (pattern[i] == (byte)'\\' && pattern.Length - i >= 2)
                    {
                        i += 2;
                    }
                    else if (pattern[i] == (byte)']')
                    {
                        return i + 1;
                    }
                    else if (pattern.Length - i >= 3 && pattern[i + 1] == (byte)'-')
                    {
                        i += 3;
                    }
                    else
                    {
                        i++;
                    }
                }

                return pattern.Length;
            default:
                return p + 1;
        }
    }
}
