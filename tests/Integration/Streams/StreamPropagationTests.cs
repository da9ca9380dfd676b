using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// What XADD and XTRIM propagate, against redis-server's replication stream: generated IDs in
/// place of "*" and "ms-*", approximate trimming rewritten as the exact trim it did.
/// </summary>
public class StreamPropagationTests
{
    [RedisFact]
    public void XAddXTrim_PropagateAsRedis()
    {
        var script = new List<string[]>
        {
            new[] { "XADD", "s", "5-1", "a", "1" },
            new[] { "XADD", "s", "5-*", "a", "2" },
            new[] { "XADD", "s", "6", "a", "3" },
            new[] { "xadd", "s", "maxlen", "=", "10", "7-*", "a", "4" },
            new[] { "XADD", "s", "MAXLEN", "1", "8-1", "a", "5" },
            new[] { "XADD", "s", "NOMKSTREAM", "9-1", "a", "6" },
            new[] { "XADD", "nokey", "NOMKSTREAM", "9-1", "a", "6" },
            new[] { "XTRIM", "s", "MAXLEN", "5" },
            new[] { "XDEL", "s", "1-1" },
            new[] { "XDEL", "s", "8-1" },
        };
        for (int i = 1; i <= 250; i++) script.Add(["XADD", "t", "MAXLEN", "~", "120", $"{i}-*", "f", "v"]);
        script.Add(["XTRIM", "t", "MAXLEN", "~", "10"]);
        script.Add(["XTRIM", "t", "MAXLEN", "~", "500"]);
        for (int i = 1; i <= 150; i++) script.Add(["XADD", "m", "MINID", "~", "60", "LIMIT", "100", $"{i}-0", "f", "v"]);
        script.Add(["XTRIM", "m", "MINID", "~", "140", "LIMIT", "100"]);
        script.Add(["XDEL", "m", "101-0"]);
        script.Add(["XTRIM", "m", "MINID", "=", "102"]);
        PropagationDifferential.AssertSame(script.ToArray());
    }

    [Fact]
    public void XAdd_AutoId_PropagatesTheGeneratedId()
    {
        var propagated = PropagationDifferential.Propagated("XADD s * a 1", "XADD s NOMKSTREAM * a 2");
        Assert.All(propagated, line => Assert.DoesNotContain(" * ", line));
        Assert.Equal(2, propagated.Count(line => line.Contains("XADD", StringComparison.Ordinal)));
    }
}
