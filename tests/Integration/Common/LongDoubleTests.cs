using System.Text;
using RedisClone.Common;

namespace RedisClone.Tests.Common;

/// <summary>
/// The 80-bit long double emulation behind INCRBYFLOAT: parse (string2ld), add (x87), print
/// (ld2string LD_STR_HUMAN). Every expected reply below was produced by redis-server 7.0.15 on
/// x86-64; a differential fuzz against glibc's strtold/printf("%.17Lf") covered random inputs.
/// </summary>
public sealed class LongDoubleTests
{
    private const string NotAFloat = "ERR value is not a valid float";
    private const string NanOrInfinity = "ERR increment would produce NaN or Infinity";

    private static byte[] Bytes(string s) => Encoding.Latin1.GetBytes(s);

    /// <summary>INCRBYFLOAT as the command will compose it: a missing key counts as 0.</summary>
    private static string IncrByFloat(string? current, string increment)
    {
        ExtendedDouble value = ExtendedDouble.Zero;
        if (current is not null && !RedisNumbers.TryParseLongDouble(Bytes(current), out value))
        {
            return NotAFloat;
        }

        if (!RedisNumbers.TryParseLongDouble(Bytes(increment), out ExtendedDouble delta))
        {
            return NotAFloat;
        }

        if (!RedisNumbers.TryAdd(value, delta, out ExtendedDouble sum))
        {
            return NanOrInfinity;
        }

        return Format(sum);
    }

    private static string Format(ExtendedDouble value)
    {
        byte[] buffer = new byte[RedisNumbers.MaxLongDoubleHumanLength];
        int length = RedisNumbers.FormatLongDoubleHuman(value, buffer);
        return Encoding.ASCII.GetString(buffer, 0, length);
    }

    /// <summary>SET k CURRENT (or no key for null); INCRBYFLOAT k INCREMENT on redis-server 7.0.</summary>
    [Theory]
    [InlineData("10.5", "0.1", "10.6")]
    [InlineData("3.0e3", "200", "3200")]
    [InlineData("5.0e3", "-5e3", "0")]
    [InlineData("1", "0.3333333333333333333", "1.33333333333333333")]
    [InlineData("17.9", "1", "18.9")]
    [InlineData(null, "0.1", "0.1")]
    [InlineData(null, "1", "1")]
    [InlineData(null, "-1.5", "-1.5")]
    [InlineData("0", "0.1", "0.1")]
    [InlineData("0.1", "0.2", "0.3")]
    [InlineData("0x10", "1", "17")]
    [InlineData("1", "0x1p-3", "1.125")]
    [InlineData("1", "1e-400", "1")]
    [InlineData("0", "1e-4940", "0")]
    [InlineData("0", "-1e-20", "0")]
    [InlineData("0", "1.0e-17", "0.00000000000000001")]
    [InlineData("0", "5e-18", "0")]
    [InlineData("0", "5.1e-18", "0.00000000000000001")]
    [InlineData("0", "1.5e-17", "0.00000000000000002")]
    [InlineData("0", "2.5e-17", "0.00000000000000002")]
    [InlineData("0", "0.000003814697265625", "0.00000381469726562")]
    [InlineData("0", "0.000011444091796875", "0.00001144409179688")]
    [InlineData("1", "+2", "3")]
    [InlineData("1", ".5", "1.5")]
    [InlineData("1", "5.", "6")]
    [InlineData("1", "-0", "1")]
    [InlineData("-1", "1", "0")]
    [InlineData("123456789012345678901234567890", "1", "123456789012345678899921813504")]
    [InlineData("9223372036854775807", "1", "9223372036854775808")]
    [InlineData("-9223372036854775808", "-1", "-9223372036854775809")]
    [InlineData("18446744073709551615", "1", "18446744073709551616")]
    [InlineData("1.5", "-3", "-1.5")]
    [InlineData("-0.5", "0.25", "-0.25")]
    [InlineData("3.14159265358979323846", "0", "3.14159265358979324")]
    [InlineData("1e20", "1", "100000000000000000000")]
    [InlineData("1e19", "0.5", "10000000000000000000")]
    [InlineData("100", "-99.99", "0.01")]
    [InlineData("0.1", "-0.1", "0")]
    [InlineData("12345.6789", "-12345.6789", "0")]
    [InlineData("1e4000", "-1e4000", "0")]
    [InlineData("1", "1e-17", "1.00000000000000001")]
    [InlineData("1", "1e-16", "1.0000000000000001")]
    [InlineData("1", "1e-18", "1")]
    [InlineData("99.999999999999999999", "0", "100")]
    [InlineData("0.99999999999999999", "0", "0.99999999999999999")]
    [InlineData("0.999999999999999999", "0", "1")]
    [InlineData("2.5", "2.5", "5")]
    [InlineData("-2.5", "-2.5", "-5")]
    [InlineData("1.00000000000000000000000000000000000000001", "0", "1")]
    [InlineData("inf", "1", "ERR increment would produce NaN or Infinity")]
    [InlineData("1", "inf", "ERR increment would produce NaN or Infinity")]
    [InlineData("1", "-inf", "ERR increment would produce NaN or Infinity")]
    [InlineData("1", "infinity", "ERR increment would produce NaN or Infinity")]
    [InlineData("1", "nan", "ERR value is not a valid float")]
    [InlineData("1", " 1", "ERR value is not a valid float")]
    [InlineData("1", "1 ", "ERR value is not a valid float")]
    [InlineData("1", "", "ERR value is not a valid float")]
    [InlineData("", "1", "ERR value is not a valid float")]
    [InlineData("abc", "1", "ERR value is not a valid float")]
    [InlineData("1", "abc", "ERR value is not a valid float")]
    [InlineData("1", "1e5000", "ERR value is not a valid float")]
    [InlineData("1", "1e-5000", "ERR value is not a valid float")]
    [InlineData("0", "1.8e-4951", "ERR value is not a valid float")]
    [InlineData("0", "1.9e-4951", "0")]
    [InlineData("1.18973149535723176502e+4932", "1.18973149535723176502e+4932", "ERR increment would produce NaN or Infinity")]
    [InlineData("1", "0x", "ERR value is not a valid float")]
    [InlineData("1", "1e", "ERR value is not a valid float")]
    [InlineData("1", "\u00091", "ERR value is not a valid float")]
    [InlineData("1", "1\u00002", "ERR value is not a valid float")]
    [InlineData("5", "-5", "0")]
    [InlineData("-5", "5", "0")]
    [InlineData("0.0", "-0.0", "0")]
    [InlineData("1e-10", "0", "0.0000000001")]
    [InlineData("-1e-10", "0", "-0.0000000001")]
    [InlineData("123.456", "0.000000000000000001", "123.456")]
    [InlineData("1234567890.123456789", "0", "1234567890.12345678894780576")]
    [InlineData("0x1.fffffffffffffffep+16383", "0x1p+16320", "ERR increment would produce NaN or Infinity")]
    public void IncrByFloat_RedisCases_MatchRedisReply(string? current, string increment, string expected)
    {
        Assert.Equal(expected, IncrByFloat(current, increment));
    }

    /// <summary>Results too long to inline: length, head and tail of Redis's reply.</summary>
    [Theory]
    [InlineData("1.18973149535723176502e+4932", "0", 4933, "1189731495357231765021263853030970205169", "444156604419552086811989770240")]
    [InlineData("0x1.fffffffffffffffep+16383", "0", 4933, "1189731495357231765021263853030970205169", "444156604419552086811989770240")]
    [InlineData("1e4932", "0", 4933, "1000000000000000000006018949387963891323", "163141086538418113791886622720")]
    [InlineData("-1e4932", "0", 4934, "-100000000000000000000601894938796389132", "163141086538418113791886622720")]
    [InlineData("1e308", "1e308", 309, "1999999999999999999933717593116912913211", "849020905456510092687857156096")]
    public void IncrByFloat_HugeResults_MatchRedisReply(string current, string increment, int length, string head, string tail)
    {
        string result = IncrByFloat(current, increment);
        Assert.Equal(length, result.Length);
        Assert.StartsWith(head, result, StringComparison.Ordinal);
        Assert.EndsWith(tail, result, StringComparison.Ordinal);
    }

    [Fact]
    public void IncrByFloat_LargestValues_FitMaxLongDoubleHumanLength()
    {
        Assert.Equal(RedisNumbers.MaxLongDoubleHumanLength, IncrByFloat("-0x1.fffffffffffffffep+16383", "0").Length);

        // What INCRBYFLOAT stores must parse again on the next call.
        string stored = IncrByFloat("-0x1.fffffffffffffffep+16383", "0");
        Assert.Equal(stored, IncrByFloat(stored, "0"));
    }

    [Fact]
    public void TryParseLongDouble_LengthLimit_IsMaxLongDoubleCharsExclusive()
    {
        // string2ld copies into a MAX_LONG_DOUBLE_CHARS buffer, NUL included.
        string longest = "0." + new string('0', RedisNumbers.MaxLongDoubleChars - 3);
        Assert.True(RedisNumbers.TryParseLongDouble(Bytes(longest), out ExtendedDouble value));
        Assert.True(value.IsZero);
        Assert.False(RedisNumbers.TryParseLongDouble(Bytes(longest + "0"), out _));

        // 5119 characters long but 10^5118 overflows: rejected for range, not length.
        Assert.False(RedisNumbers.TryParseLongDouble(Bytes("1" + new string('0', 5118)), out _));
    }

    [Fact]
    public void TryParseLongDouble_LongMantissa_RoundsOnceFromTheExactValue()
    {
        // 1 + 2^-64 is the midpoint between 1 and the next 80-bit value 1 + 2^-63: ties to even (1).
        const string midpoint = "1.0000000000000000000542101086242752217003726400434970855712890625";
        Assert.True(RedisNumbers.TryParseLongDouble(Bytes(midpoint), out ExtendedDouble tie));
        Assert.Equal(ExtendedDouble.FromInt64(1), tie);

        // A nonzero digit 4,000 places later decides it upwards.
        Assert.True(RedisNumbers.TryParseLongDouble(Bytes(midpoint + new string('0', 4000) + "1"), out ExtendedDouble above));
        Assert.Equal(0x8000000000000001UL, above.Significand);
        Assert.Equal(-63, above.Exponent);
    }

    [Fact]
    public void TryParseLongDouble_Subnormals_AreKeptAndZeroUnderflowIsRejected()
    {
        // 2^-16445 is the smallest 80-bit value; half of it (and below) underflows to zero: ERANGE.
        Assert.True(RedisNumbers.TryParseLongDouble("0x1p-16445"u8, out ExtendedDouble smallest));
        Assert.Equal(1UL, smallest.Significand);
        Assert.Equal(ExtendedDouble.MinExponent, smallest.Exponent);
        Assert.False(RedisNumbers.TryParseLongDouble("0x1p-16446"u8, out _));
        Assert.True(RedisNumbers.TryParseLongDouble("0x1.8p-16446"u8, out ExtendedDouble roundedUp));
        Assert.Equal(smallest, roundedUp);
        Assert.True(RedisNumbers.TryParseLongDouble("0e-99999"u8, out ExtendedDouble zero));
        Assert.True(zero.IsZero);
    }

    [Fact]
    public void TryAdd_SignedZeros_FollowIeeeRoundToNearest()
    {
        Assert.True(RedisNumbers.TryParseLongDouble("-0"u8, out ExtendedDouble negativeZero));
        Assert.True(negativeZero.IsNegative);

        Assert.True(RedisNumbers.TryAdd(negativeZero, negativeZero, out ExtendedDouble sum));
        Assert.True(sum.IsZero && sum.IsNegative);
        Assert.Equal("0", Format(sum)); // ld2string turns "-0" into "0"

        Assert.True(RedisNumbers.TryAdd(negativeZero, ExtendedDouble.Zero, out sum));
        Assert.True(sum.IsZero && !sum.IsNegative);

        Assert.True(RedisNumbers.TryAdd(ExtendedDouble.FromInt64(-5), ExtendedDouble.FromInt64(5), out sum));
        Assert.True(sum.IsZero && !sum.IsNegative);
    }

    [Fact]
    public void TryAdd_Infinities_ReportFailure()
    {
        Assert.False(RedisNumbers.TryAdd(ExtendedDouble.PositiveInfinity, ExtendedDouble.FromInt64(1), out _));
        Assert.False(RedisNumbers.TryAdd(ExtendedDouble.PositiveInfinity, ExtendedDouble.NegativeInfinity, out _));

        // Overflow of two finite values.
        Assert.True(RedisNumbers.TryParseLongDouble("0x1.fffffffffffffffep+16383"u8, out ExtendedDouble max));
        Assert.False(RedisNumbers.TryAdd(max, max, out _));
        Assert.True(RedisNumbers.TryAdd(max, ExtendedDouble.FromInt64(1), out ExtendedDouble same));
        Assert.Equal(max, same);
    }

    [Fact]
    public void TryAdd_FarApartOperands_LeaveTheLargerUnchanged()
    {
        Assert.True(RedisNumbers.TryParseLongDouble("0x1p+100"u8, out ExtendedDouble big));
        Assert.True(RedisNumbers.TryParseLongDouble("0x1p-16000"u8, out ExtendedDouble tiny));
        Assert.True(RedisNumbers.TryAdd(big, tiny, out ExtendedDouble sum));
        Assert.Equal(big, sum);

        // Subtracting a tiny amount from a power of two stays on it too (the step below is half as big).
        ExtendedDouble negativeTiny = ExtendedDouble.Create(true, tiny.Significand, tiny.Exponent);
        Assert.True(RedisNumbers.TryAdd(big, negativeTiny, out sum));
        Assert.Equal(big, sum);
    }

    [Fact]
    public void TryAdd_GapOfSixtyFourBits_RoundsCorrectly()
    {
        // 2^64 + (1 + 2^-63): one ulp of the result is 2; the small part adds 1.000...(just above half).
        Assert.True(RedisNumbers.TryParseLongDouble("0x1p+64"u8, out ExtendedDouble big));
        Assert.True(RedisNumbers.TryParseLongDouble("0x1.0000000000000002p+0"u8, out ExtendedDouble justOverOne));
        Assert.True(RedisNumbers.TryAdd(big, justOverOne, out ExtendedDouble sum));
        Assert.Equal("18446744073709551618", Format(sum));

        // Exactly 1 is a tie between 2^64 and 2^64 + 2: stays on the even one.
        Assert.True(RedisNumbers.TryAdd(big, ExtendedDouble.FromInt64(1), out sum));
        Assert.Equal("18446744073709551616", Format(sum));
    }

    [Fact]
    public void FromInt64_AndFromDouble_MatchParsedText()
    {
        foreach (long value in new[] { 0L, 1L, -1L, 10L, long.MaxValue, long.MinValue, 123456789L })
        {
            Assert.True(RedisNumbers.TryParseLongDouble(Bytes(value.ToString(System.Globalization.CultureInfo.InvariantCulture)), out ExtendedDouble parsed));
            Assert.Equal(parsed, ExtendedDouble.FromInt64(value));
        }

        foreach (double value in new[] { 0.1, -2.5, 1e300, 5e-324, 2.2250738585072009e-308, double.MaxValue })
        {
            // Hex text denotes the double exactly, so both routes must give the same 80-bit value.
            Assert.True(RedisNumbers.TryParseLongDouble(Bytes(HexText(value)), out ExtendedDouble viaText));
            Assert.Equal(viaText, ExtendedDouble.FromDouble(value));
        }

        Assert.True(ExtendedDouble.FromDouble(double.NegativeInfinity).IsInfinity);
        Assert.Equal("0.125", Format(ExtendedDouble.FromDouble(0.125)));
        Assert.Equal("0.10000000000000001", Format(ExtendedDouble.FromDouble(0.1)));
    }

    /// <summary>C's %a form of a double: "0x1.fffp+3", or "0x0.fffp-1022" for subnormals.</summary>
    private static string HexText(double value)
    {
        long bits = BitConverter.DoubleToInt64Bits(value);
        string sign = bits < 0 ? "-" : "";
        int biased = (int)((bits >> 52) & 0x7FF);
        long fraction = bits & ((1L << 52) - 1);
        return biased == 0
            ? $"{sign}0x0.{fraction:x13}p-1022"
            : $"{sign}0x1.{fraction:x13}p{biased - 1023}";
    }

    [Fact]
    public void CommonIncrByFloat_DoesNotAllocate()
    {
        byte[] buffer = new byte[64];
        for (int i = 0; i < 3; i++)
        {
            RunOnce(buffer);
        }

        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 1000; i++)
        {
            RunOnce(buffer);
        }

        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);

        static void RunOnce(byte[] buffer)
        {
            RedisNumbers.TryParseLongDouble("10.5"u8, out ExtendedDouble value);
            RedisNumbers.TryParseLongDouble("0.1"u8, out ExtendedDouble delta);
            RedisNumbers.TryAdd(value, delta, out ExtendedDouble sum);
            RedisNumbers.FormatLongDoubleHuman(sum, buffer);
        }
    }
}
