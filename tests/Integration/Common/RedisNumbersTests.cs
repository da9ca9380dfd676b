using System.Text;
using RedisClone.Common;

namespace RedisClone.Tests.Common;

/// <summary>
/// Integer and double conversions. Expected values were taken from redis-server 7.0.15
/// (INCRBY for string2ll, ZADD + ZSCORE on a skiplist-encoded sorted set for string2d and
/// <c>%.17g</c>); a differential fuzz against glibc's strtod/printf backed the rest.
/// </summary>
public sealed class RedisNumbersTests
{
    private static byte[] Bytes(string s) => Encoding.Latin1.GetBytes(s);

    private static string FormatDouble(double value)
    {
        Span<byte> buffer = stackalloc byte[RedisNumbers.MaxDoubleLength];
        int length = RedisNumbers.FormatDouble(value, buffer);
        return Encoding.ASCII.GetString(buffer[..length]);
    }

    // ------------------------------------------------------------------ FormatDoubleShortest (Redis 7.2's fpconv_dtoa)

    [Theory]
    [InlineData(1.1, "1.1")]
    [InlineData(2.5, "2.5")]
    [InlineData(-123.456, "-123.456")]
    [InlineData(0.1, "0.1")]
    [InlineData(0.30000000000000004, "0.30000000000000004")]
    [InlineData(0.001, "0.001")]
    [InlineData(3e-5, "0.00003")]
    [InlineData(1e-6, "0.000001")]
    [InlineData(1e-7, "1e-7")]
    [InlineData(-1e-7, "-1e-7")]
    [InlineData(1.5e-10, "1.5e-10")]
    [InlineData(5e-324, "5e-324")]
    [InlineData(10000000.0, "10000000")]
    [InlineData(100000000.0, "1e+8")]
    [InlineData(12300000.0, "12300000")]
    [InlineData(1234567000.0, "1234567000")]
    [InlineData(123456789.0, "123456789")]
    [InlineData(12345678912345678.0, "12345678912345678")]
    [InlineData(1e16, "1e+16")]
    [InlineData(1e20, "1e+20")]
    [InlineData(1e300, "1e+300")]
    [InlineData(1.7976931348623157e308, "1.7976931348623157e+308")]
    [InlineData(0.0, "0")]
    [InlineData(-0.0, "-0")]
    [InlineData(double.PositiveInfinity, "inf")]
    [InlineData(double.NegativeInfinity, "-inf")]
    public void FormatDoubleShortest_Fpconv72Layout(double value, string expected)
    {
        Span<byte> buffer = stackalloc byte[24];
        int length = RedisNumbers.FormatDoubleShortest(value, buffer);
        Assert.Equal(expected, Encoding.ASCII.GetString(buffer[..length]));
    }

    // ------------------------------------------------------------------ TryParseInt64

    [Theory]
    [InlineData("0", true, 0L)]
    [InlineData("-0", false, 0L)]
    [InlineData("1", true, 1L)]
    [InlineData("-1", true, -1L)]
    [InlineData("+1", false, 0L)]
    [InlineData("01", false, 0L)]
    [InlineData("00", false, 0L)]
    [InlineData("-01", false, 0L)]
    [InlineData("007", false, 0L)]
    [InlineData(" 1", false, 0L)]
    [InlineData("1 ", false, 0L)]
    [InlineData("", false, 0L)]
    [InlineData("-", false, 0L)]
    [InlineData("9223372036854775807", true, long.MaxValue)]
    [InlineData("9223372036854775808", false, 0L)]
    [InlineData("-9223372036854775808", true, long.MinValue)]
    [InlineData("-9223372036854775809", false, 0L)]
    [InlineData("18446744073709551615", false, 0L)]
    [InlineData("18446744073709551616", false, 0L)]
    [InlineData("99999999999999999999", false, 0L)]
    [InlineData("123456789012345678901", false, 0L)]
    [InlineData("12a", false, 0L)]
    [InlineData("1.0", false, 0L)]
    [InlineData("1e3", false, 0L)]
    [InlineData("0x10", false, 0L)]
    [InlineData("1\u00002", false, 0L)]
    [InlineData("1234567890", true, 1234567890L)]
    public void TryParseInt64_RedisCases_MatchString2ll(string text, bool ok, long expected)
    {
        Assert.Equal(ok, RedisNumbers.TryParseInt64(Bytes(text), out long value));
        Assert.Equal(expected, value);
    }

    [Fact]
    public void TryParseInt64_EveryFormattedValue_RoundTrips()
    {
        var rng = new Random(1);
        Span<byte> buffer = stackalloc byte[RedisNumbers.MaxInt64Length];
        for (int i = 0; i < 20_000; i++)
        {
            long value = rng.Next(4) switch
            {
                0 => rng.NextInt64(long.MinValue, long.MaxValue),
                1 => rng.Next(-1000, 1000),
                2 => (long)Math.Pow(10, rng.Next(0, 19)) - rng.Next(0, 2),
                _ => -(long)Math.Pow(10, rng.Next(0, 19)) + rng.Next(0, 2),
            };
            int length = RedisNumbers.FormatInt64(value, buffer);
            Assert.True(RedisNumbers.TryParseInt64(buffer[..length], out long parsed));
            Assert.Equal(value, parsed);
        }
    }

    // ------------------------------------------------------------------ FormatInt64 / DigitCount

    [Theory]
    [InlineData(0L)]
    [InlineData(1L)]
    [InlineData(-1L)]
    [InlineData(9L)]
    [InlineData(10L)]
    [InlineData(-10L)]
    [InlineData(99L)]
    [InlineData(100L)]
    [InlineData(999_999_999_999_999_999L)]
    [InlineData(1_000_000_000_000_000_000L)]
    [InlineData(long.MaxValue)]
    [InlineData(long.MinValue)]
    [InlineData(long.MinValue + 1)]
    public void FormatInt64_Values_MatchInvariantToString(long value)
    {
        string expected = value.ToString(System.Globalization.CultureInfo.InvariantCulture);
        Span<byte> buffer = stackalloc byte[RedisNumbers.MaxInt64Length];
        int length = RedisNumbers.FormatInt64(value, buffer);
        Assert.Equal(expected, Encoding.ASCII.GetString(buffer[..length]));
        Assert.Equal(expected.Length, RedisNumbers.DigitCount(value));
    }

    [Fact]
    public void DigitCount_PowersOfTenBoundaries_AreExact()
    {
        long power = 1;
        for (int digits = 1; digits <= 19; digits++)
        {
            Assert.Equal(digits, RedisNumbers.DigitCount(power));
            Assert.Equal(digits + 1, RedisNumbers.DigitCount(-power));
            Assert.Equal(digits == 1 ? 1 : digits - 1, RedisNumbers.DigitCount(power - 1));
            if (digits < 19)
            {
                power *= 10;
            }
        }
    }

    [Fact]
    public void FormatInt64_DestinationTooSmall_Throws()
    {
        byte[] buffer = new byte[3];
        Assert.Throws<ArgumentException>(() => RedisNumbers.FormatInt64(-1000, buffer));
    }

    // ------------------------------------------------------------------ TryParseDouble + FormatDouble

    /// <summary>ZADD z TEXT m; ZSCORE z m on redis-server 7.0 (null expected = ZADD's "not a valid float").</summary>
    [Theory]
    [InlineData("1.1", "1.1000000000000001")]
    [InlineData("0.1", "0.10000000000000001")]
    [InlineData("1", "1")]
    [InlineData("-1", "-1")]
    [InlineData("0", "0")]
    [InlineData("-0", "-0")]
    [InlineData("-0.0", "-0")]
    [InlineData("+0", "0")]
    [InlineData("1e16", "10000000000000000")]
    [InlineData("1e17", "1e+17")]
    [InlineData("1e-5", "1.0000000000000001e-05")]
    [InlineData("0.0001", "0.0001")]
    [InlineData("0.00001", "1.0000000000000001e-05")]
    [InlineData("123.456", "123.456")]
    [InlineData("1e21", "1e+21")]
    [InlineData("1e22", "1e+22")]
    [InlineData("1e100", "1e+100")]
    [InlineData("-1e-100", "-1e-100")]
    [InlineData("4.9e-324", "4.9406564584124654e-324")]
    [InlineData("2.5e-324", "4.9406564584124654e-324")]
    [InlineData("2.4e-324", null)]
    [InlineData("1e-320", "9.9998886718268301e-321")]
    [InlineData("2.2250738585072014e-308", "2.2250738585072014e-308")]
    [InlineData("1.7976931348623157e308", "1.7976931348623157e+308")]
    [InlineData("1.7976931348623158e308", "1.7976931348623157e+308")]
    [InlineData("1.7976931348623159e308", null)]
    [InlineData("1e309", null)]
    [InlineData("1e-400", null)]
    [InlineData("0e-400", "0")]
    [InlineData("0x10", "16")]
    [InlineData("0x1p-3", "0.125")]
    [InlineData("0X.8", "0.5")]
    [InlineData("0x1.8P+1", "3")]
    [InlineData("-0x.1p-2", "-0.015625")]
    [InlineData("0x1p-1074", "4.9406564584124654e-324")]
    [InlineData("0x1p-1075", null)]
    [InlineData("0x1.0000000000001p-1075", "4.9406564584124654e-324")]
    [InlineData("0x1.fffffffffffff8p1023", null)]
    [InlineData("0x1.fffffffffffff7ffp1023", "1.7976931348623157e+308")]
    [InlineData("0x", null)]
    [InlineData("0x1p", null)]
    [InlineData("inf", "inf")]
    [InlineData("+inf", "inf")]
    [InlineData("-inf", "-inf")]
    [InlineData("INF", "inf")]
    [InlineData("Infinity", "inf")]
    [InlineData("-INFINITY", "-inf")]
    [InlineData("infin", null)]
    [InlineData("nan", null)]
    [InlineData("-nan", null)]
    [InlineData("NaN(1)", null)]
    [InlineData("", null)]
    [InlineData(" 1", null)]
    [InlineData("1 ", null)]
    [InlineData("\t1", null)]
    [InlineData("\n1", null)]
    [InlineData("1\u0000", null)]
    [InlineData("+", null)]
    [InlineData("-", null)]
    [InlineData(".", null)]
    [InlineData(".5", "0.5")]
    [InlineData("5.", "5")]
    [InlineData("+.5e1", "5")]
    [InlineData("1e", null)]
    [InlineData("1e+", null)]
    [InlineData("1e-", null)]
    [InlineData("1E+5", "100000")]
    [InlineData("1.e5", "100000")]
    [InlineData("00012", "12")]
    [InlineData("1_000", null)]
    [InlineData("1,5", null)]
    [InlineData("0.30000000000000004", "0.30000000000000004")]
    [InlineData("9007199254740993", "9007199254740992")]
    [InlineData("9007199254740992.5", "9007199254740992")]
    [InlineData("3.0000000000000000000000000000000000000001", "3")]
    [InlineData("2.98023223876953125e-8", "2.9802322387695312e-08")]
    [InlineData("1.4901161193847656e-8", "1.4901161193847656e-08")]
    [InlineData("123456789012345678", "1.2345678901234568e+17")]
    [InlineData("12345678901234567", "12345678901234568")]
    [InlineData("1234567890123456.7", "1234567890123456.8")]
    [InlineData("0.1234567890123456789", "0.12345678901234568")]
    [InlineData("1e-6", "9.9999999999999995e-07")]
    [InlineData("1e-7", "9.9999999999999995e-08")]
    [InlineData("9.999999999999999e16", "99999999999999984")]
    [InlineData("99999999999999999", "1e+17")]
    [InlineData("0.00009999999999999999", "9.9999999999999991e-05")]
    [InlineData("-1.5e-5", "-1.5e-05")]
    [InlineData("5e-324", "4.9406564584124654e-324")]
    [InlineData("8.98846567431158e307", "8.9884656743115795e+307")]
    [InlineData("9383454110449127e-16", "0.93834541104491265")]
    [InlineData("1.0000000000000002", "1.0000000000000002")]
    [InlineData("0.000001", "9.9999999999999995e-07")]
    [InlineData("0.0000012345", "1.2345e-06")]
    [InlineData("1e99999999999999999999999999", null)]
    [InlineData("0e99999999999999999999999999", "0")]
    [InlineData("1e-99999999999999999999999999", null)]
    public void TryParseDouble_ThenFormat_MatchesZaddZscore(string text, string? expected)
    {
        bool ok = RedisNumbers.TryParseDouble(Bytes(text), out double value);
        Assert.Equal(expected is not null, ok);
        if (ok)
        {
            Assert.Equal(expected, FormatDouble(value));
        }
    }

    [Fact]
    public void TryParseDouble_HugeMantissaWithLeadingZeros_IsExact()
    {
        // ZADD accepts any length: 100,000 zeros after the point and a matching exponent is 0.5.
        string text = "0." + new string('0', 100_000) + "5e100000";
        Assert.True(RedisNumbers.TryParseDouble(Bytes(text), out double value));
        Assert.Equal(0.5, value);

        Assert.True(RedisNumbers.TryParseDouble(Bytes("1." + new string('0', 6000)), out value));
        Assert.Equal(1.0, value);
    }

    [Fact]
    public void TryParseDouble_MidpointsBetweenDoubles_RoundHalfEven()
    {
        // 2^53 + 1 lies exactly between 2^53 and 2^53 + 2: ties go to the even significand.
        Assert.True(RedisNumbers.TryParseDouble("9007199254740993"u8, out double value));
        Assert.Equal(9007199254740992.0, value);
        Assert.True(RedisNumbers.TryParseDouble("9007199254740995"u8, out value));
        Assert.Equal(9007199254740996.0, value);

        // Just above the midpoint, however far the deciding digit is, rounds up.
        Assert.True(RedisNumbers.TryParseDouble(Bytes("9007199254740993." + new string('0', 1000) + "1"), out value));
        Assert.Equal(9007199254740994.0, value);
    }

    [Fact]
    public void TryParseDouble_RandomDoublesRoundTrip_ThroughRoundTripText()
    {
        var rng = new Random(7);
        for (int i = 0; i < 20_000; i++)
        {
            double d = BitConverter.Int64BitsToDouble(rng.NextInt64());
            if (!double.IsFinite(d))
            {
                continue;
            }

            string text = d.ToString("R", System.Globalization.CultureInfo.InvariantCulture);
            Assert.True(RedisNumbers.TryParseDouble(Bytes(text), out double parsed), text);
            Assert.Equal(BitConverter.DoubleToInt64Bits(d), BitConverter.DoubleToInt64Bits(parsed));

            // %.17g always round-trips a double.
            Assert.True(RedisNumbers.TryParseDouble(Bytes(FormatDouble(d)), out parsed));
            Assert.Equal(BitConverter.DoubleToInt64Bits(d), BitConverter.DoubleToInt64Bits(parsed));
        }
    }

    /// <summary>Expected strings from glibc's <c>printf("%.17g")</c>.</summary>
    [Theory]
    [InlineData(double.PositiveInfinity, "inf")]
    [InlineData(double.NegativeInfinity, "-inf")]
    [InlineData(0.0, "0")]
    [InlineData(-0.0, "-0")]
    [InlineData(1.5, "1.5")]
    [InlineData(-2.25, "-2.25")]
    [InlineData(100.0, "100")]
    [InlineData(1e15, "1000000000000000")]
    [InlineData(123456789012345678.0, "1.2345678901234568e+17")]
    [InlineData(0.5, "0.5")]
    [InlineData(3.814697265625e-6, "3.814697265625e-06")]
    [InlineData(2.98023223876953125e-8, "2.9802322387695312e-08")] // 2^-25: an exact tie, half-even
    [InlineData(1.7976931348623157e308, "1.7976931348623157e+308")]
    [InlineData(-4.9406564584124654e-324, "-4.9406564584124654e-324")]
    [InlineData(1e-4, "0.0001")]
    [InlineData(1.2345e-4, "0.00012344999999999999")]
    [InlineData(12345678.9, "12345678.9")]
    [InlineData(0.1 + 0.2, "0.30000000000000004")]
    [InlineData(9.5, "9.5")]
    [InlineData(1e16 + 2, "10000000000000002")]
    public void FormatDouble_Values_MatchPrintf17g(double value, string expected)
    {
        Assert.Equal(expected, FormatDouble(value));
    }

    [Fact]
    public void FormatDouble_NaN_PrintsLikeGlibcBySignBit()
    {
        // Redis never stores a NaN score, but the formatter stays total: glibc prints the sign.
        Assert.Equal("nan", FormatDouble(BitConverter.UInt64BitsToDouble(0x7FF8000000000000)));
        Assert.Equal("-nan", FormatDouble(BitConverter.UInt64BitsToDouble(0xFFF8000000000000)));
    }

    [Fact]
    public void FormatDouble_LongestOutput_FitsMaxDoubleLength()
    {
        Assert.Equal(RedisNumbers.MaxDoubleLength, FormatDouble(-2.2250738585072014e-308).Length);
        Assert.Equal("-2.2250738585072014e-308", FormatDouble(-2.2250738585072014e-308));
    }

    // ------------------------------------------------------------------ allocation discipline

    [Fact]
    public void HotPaths_DoNotAllocate()
    {
        Span<byte> buffer = stackalloc byte[64];
        ReadOnlySpan<byte> score = "123.456"u8;
        ReadOnlySpan<byte> integer = "-9223372036854775808"u8;

        // Warm up (JIT, static tables) before measuring.
        for (int i = 0; i < 3; i++)
        {
            RedisNumbers.TryParseInt64(integer, out long l);
            RedisNumbers.FormatInt64(l, buffer);
            RedisNumbers.TryParseDouble(score, out double d);
            RedisNumbers.FormatDouble(d, buffer);
            RedisNumbers.FormatDouble(1.1, buffer);
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 1000; i++)
        {
            RedisNumbers.TryParseInt64(integer, out long l);
            RedisNumbers.FormatInt64(l, buffer);
            RedisNumbers.TryParseDouble(score, out double d);
            RedisNumbers.FormatDouble(d, buffer);
            RedisNumbers.FormatDouble(1.1, buffer);
            RedisNumbers.FormatDouble(-1e-5, buffer);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }
}
