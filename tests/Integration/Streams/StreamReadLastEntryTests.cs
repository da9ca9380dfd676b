using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// Redis 7.4's "+" ID for XREAD: the stream's last entry (redis-server 7.0 has no such ID, so these
/// assert the bytes Redis 7.4's xreadCommand gives: "+" is the ID just before the last one).
/// </summary>
public class StreamReadLastEntryTests
{
    private static string Entry(string id, string field, string value)
        => $"*2\r\n${id.Length}\r\n{id}\r\n*2\r\n${field.Length}\r\n{field}\r\n${value.Length}\r\n{value}\r\n";

    [Fact]
    public void XRead_PlusId_ReturnsOnlyTheLastEntry()
    {
        using var c = TestServer.Shared.Connect();
        string s = "xplus:" + Guid.NewGuid().ToString("N");
        c.Call("XADD", s, "1-1", "a", "1");
        c.Call("XADD", s, "2-1", "b", "2");
        c.Call("XADD", s, "3-1", "c", "3");
        string expected = $"*1\r\n*2\r\n${s.Length}\r\n{s}\r\n*1\r\n" + Entry("3-1", "c", "3");
        Assert.Equal(expected, c.Call("XREAD", "STREAMS", s, "+"));
        // COUNT does not widen it: only the last entry is after "+".
        Assert.Equal(expected, c.Call("XREAD", "COUNT", "10", "STREAMS", s, "+"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void XRead_PlusBesideOtherIds_EachStreamReadItsOwnWay()
    {
        using var c = TestServer.Shared.Connect();
        string p = "{xplus2}:" + Guid.NewGuid().ToString("N");
        string s = p + ":s", t = p + ":t";
        c.Call("XADD", s, "1-1", "a", "1");
        c.Call("XADD", s, "2-1", "b", "2");
        c.Call("XADD", t, "5-0", "x", "y");
        c.Call("XADD", t, "6-0", "z", "w");
        Assert.Equal(
            $"*2\r\n*2\r\n${s.Length}\r\n{s}\r\n*1\r\n" + Entry("2-1", "b", "2")
            + $"*2\r\n${t.Length}\r\n{t}\r\n*2\r\n" + Entry("5-0", "x", "y") + Entry("6-0", "z", "w"),
            c.Call("XREAD", "STREAMS", s, t, "+", "0"));
        // RESP3: a map, as for any XREAD.
        c.Call("HELLO", "3");
        Assert.Equal($"%1\r\n${s.Length}\r\n{s}\r\n*1\r\n" + Entry("2-1", "b", "2"), c.Call("XREAD", "STREAMS", s, "+"));
    }

    [Fact]
    public void XRead_PlusOnMissingKeyOrDeletedLastEntry_NullArray()
    {
        using var c = TestServer.Shared.Connect();
        string s = "xplus3:" + Guid.NewGuid().ToString("N");
        Assert.Equal("*-1\r\n", c.Call("XREAD", "STREAMS", s, "+"));
        c.Call("XADD", s, "1-1", "a", "1");
        c.Call("XADD", s, "2-1", "b", "2");
        c.Call("XDEL", s, "2-1");
        // The last ID stays 2-1: nothing is after 2-0, as in Redis (not the last entry left).
        Assert.Equal("*-1\r\n", c.Call("XREAD", "STREAMS", s, "+"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void XRead_PlusOnStreamWhoseLastIdIsZero_Error()
    {
        using var c = TestServer.Shared.Connect();
        string s = "xplus4:" + Guid.NewGuid().ToString("N");
        Assert.Equal("+OK\r\n", c.Call("XGROUP", "CREATE", s, "g", "$", "MKSTREAM"));
        Assert.Equal("-ERR the stream last element ID is 0-0\r\n", c.Call("XREAD", "STREAMS", s, "+"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void XReadGroup_PlusId_ErrorAfterTheGroupIsFound()
    {
        using var c = TestServer.Shared.Connect();
        string s = "xplus5:" + Guid.NewGuid().ToString("N");
        c.Call("XADD", s, "1-1", "a", "1");
        // A missing group is reported first (the key and group are checked before the ID).
        Assert.StartsWith("-NOGROUP ", c.Call("XREADGROUP", "GROUP", "g", "c", "STREAMS", s, "+"));
        c.Call("XGROUP", "CREATE", s, "g", "0");
        Assert.Equal(
            "-ERR The + ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying "
            + "a proper ID, or use the > ID to get new messages. The + ID would just return an empty result set.\r\n",
            c.Call("XREADGROUP", "GROUP", "g", "c", "STREAMS", s, "+"));
        c.Call("SET", s + ":str", "v");
        Assert.StartsWith("-WRONGTYPE ", c.Call("XREAD", "STREAMS", s + ":str", "+"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    /// <summary>
    /// A blocked "+" is resolved again when the client runs on (Redis re-runs the command with "+" in
    /// it): of two entries added in one transaction only the last comes back.
    /// </summary>
    [Fact]
    public void XRead_BlockedOnPlus_WokenWithTheLastEntryOnly()
    {
        using var observer = TestServer.Shared.Connect();
        using var waiter = TestServer.Shared.Connect();
        string s = "xplus6:" + Guid.NewGuid().ToString("N");
        Blocked.Send(waiter, observer, "XREAD", "BLOCK", "0", "STREAMS", s, "+");
        observer.Call("MULTI");
        observer.Call("XADD", s, "1-1", "a", "1");
        observer.Call("XADD", s, "2-1", "b", "2");
        observer.Call("EXEC");
        Assert.Equal($"*1\r\n*2\r\n${s.Length}\r\n{s}\r\n*1\r\n" + Entry("2-1", "b", "2"), waiter.ReadReply());
        Assert.Equal("+PONG\r\n", waiter.Call("PING"));
    }
}
