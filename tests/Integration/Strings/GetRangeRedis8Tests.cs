using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Strings;

/// <summary>
/// GETRANGE (and SUBSTR) as Redis 8.0 answers an end index that is still negative once the length is
/// added (#12272): an empty string, where Redis 7.x (and the 7.0 reference) clamped it to 0 and
/// answered the first byte. Every other range is still differential-tested in StringDifferentialTests.
/// </summary>
public class GetRangeRedis8Tests
{
    [Fact]
    public void GetRange_EndStillNegativeAfterAddingLength_EmptyString()
    {
        using var c = TestServer.Shared.Connect();
        var k = TestServer.KeyPrefix("getrange8") + "k";
        c.Call("SET", k, "hello");
        Assert.Equal("$0\r\n\r\n", c.Call("GETRANGE", k, "0", "-100"));
        Assert.Equal("$0\r\n\r\n", c.Call("GETRANGE", k, "-100", "-90"));
        Assert.Equal("$0\r\n\r\n", c.Call("GETRANGE", k, "0", "-6"));
        Assert.Equal("$0\r\n\r\n", c.Call("SUBSTR", k, "0", "-100"));
        Assert.Equal("$0\r\n\r\n", c.Call("GETRANGE", k, "-9223372036854775808", "-9223372036854775808"));
        // The edges just inside the string are unchanged.
        Assert.Equal("$1\r\nh\r\n", c.Call("GETRANGE", k, "0", "-5"));
        Assert.Equal("$1\r\nh\r\n", c.Call("GETRANGE", k, "-100", "-5"));
        Assert.Equal("$5\r\nhello\r\n", c.Call("GETRANGE", k, "-100", "100"));
        // An integer-encoded value reads as its digits, by the same rules.
        c.Call("SET", k, "12345");
        Assert.Equal("$0\r\n\r\n", c.Call("GETRANGE", k, "0", "-6"));
        Assert.Equal("$2\r\n12\r\n", c.Call("GETRANGE", k, "-9", "-4"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }
}
