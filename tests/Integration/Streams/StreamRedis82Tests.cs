using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// Redis 8.2's stream additions (issue 29): XDELEX, XACKDEL, and XADD's and XTRIM's KEEPREF, DELREF
/// and ACKED. redis-server 7.0 has none of them, so these are checked against Redis 8.2's source,
/// documentation and tests (tests/unit/type/stream*.tcl): replies per ID, error texts and their
/// order, what the consumer groups' pending entries look like afterwards, keyspace events, what
/// propagates, and a replica of this server ending with the same data.
/// </summary>
public class StreamRedis82Tests
{
    private const int WaitSeconds = 25;

    private static string Ints(params long[] values)
    {
        var sb = new StringBuilder().Append('*').Append(values.Length).Append("\r\n");
        foreach (var v in values) sb.Append(':').Append(v).Append("\r\n");
        return sb.ToString();
    }

    private static string Bulk(string s) => $"${s.Length}\r\n{s}\r\n";

    /// <summary>"XPENDING key group" with nothing pending.</summary>
    private const string NothingPending = "*4\r\n:0\r\n$-1\r\n$-1\r\n*-1\r\n";

    /// <summary>A stream with entries 1-0 .. n-0 and groups g1 and g2 that were both delivered all of them (by c1 and c2).</summary>
    private static string TwoGroupsDelivered(RespClient c, string test, int n = 2)
    {
        string key = TestServer.KeyPrefix(test) + "s";
        for (int i = 1; i <= n; i++) c.Call("XADD", key, $"{i}-0", "f", "v");
        Assert.Equal("+OK\r\n", c.Call("XGROUP", "CREATE", key, "g1", "0"));
        Assert.Equal("+OK\r\n", c.Call("XGROUP", "CREATE", key, "g2", "0"));
        c.Call("XREADGROUP", "GROUP", "g1", "c1", "STREAMS", key, ">");
        c.Call("XREADGROUP", "GROUP", "g2", "c2", "STREAMS", key, ">");
        return key;
    }

    /// <summary>XINFO STREAM's value for <paramref name="field"/> (a bulk or an integer line).</summary>
    private static string InfoField(RespClient c, string key, string field)
    {
        string info = c.Call("XINFO", "STREAM", key);
        int at = info.IndexOf(Bulk(field), StringComparison.Ordinal);
        Assert.True(at >= 0, info);
        string rest = info[(at + Bulk(field).Length)..];
        return rest[..(rest.IndexOf("\r\n", StringComparison.Ordinal) + 2)] is var line && line.StartsWith('$')
            ? rest[..(rest.IndexOf("\r\n", line.Length, StringComparison.Ordinal) + 2)]
            : line;
    }

    // ---------------------------------------------------------------- XDELEX

    [Fact]
    public void XDelEx_KeepRef_DeletesAndLeavesPendingEntries()
    {
        using var c = TestServer.Shared.Connect();
        string key = TwoGroupsDelivered(c, "xdelex-keep", 3);
        Assert.Equal(Ints(1, -1), c.Call("XDELEX", key, "IDS", "2", "1-0", "9-0"));
        Assert.Equal(Ints(1, -1), c.Call("xdelex", key, "keepref", "ids", "2", "2-0", "2-0"));
        Assert.Equal(":1\r\n", c.Call("XLEN", key));
        // The groups still hold the deleted entries as pending.
        Assert.Equal("*4\r\n:3\r\n$3\r\n1-0\r\n$3\r\n3-0\r\n*1\r\n*2\r\n$2\r\nc1\r\n$1\r\n3\r\n", c.Call("XPENDING", key, "g1"));
        Assert.Equal("*4\r\n:3\r\n$3\r\n1-0\r\n$3\r\n3-0\r\n*1\r\n*2\r\n$2\r\nc2\r\n$1\r\n3\r\n", c.Call("XPENDING", key, "g2"));
        // As XDEL: the greatest deleted ID and the first entry are kept up to date.
        Assert.Equal(Bulk("2-0"), InfoField(c, key, "max-deleted-entry-id"));
        Assert.Equal(Bulk("3-0"), InfoField(c, key, "recorded-first-entry-id"));
        Assert.Equal(":3\r\n", InfoField(c, key, "entries-added"));
    }

    [Fact]
    public void XDelEx_DelRef_RemovesTheEntryFromEveryPendingList()
    {
        using var c = TestServer.Shared.Connect();
        string key = TwoGroupsDelivered(c, "xdelex-delref", 3);
        Assert.Equal(Ints(1, 1), c.Call("XDELEX", key, "DELREF", "IDS", "2", "1-0", "2-0"));
        Assert.Equal("*4\r\n:1\r\n$3\r\n3-0\r\n$3\r\n3-0\r\n*1\r\n*2\r\n$2\r\nc1\r\n$1\r\n1\r\n", c.Call("XPENDING", key, "g1"));
        Assert.Equal("*4\r\n:1\r\n$3\r\n3-0\r\n$3\r\n3-0\r\n*1\r\n*2\r\n$2\r\nc2\r\n$1\r\n1\r\n", c.Call("XPENDING", key, "g2"));
        Assert.Contains($"{Bulk("pending")}:1\r\n", c.Call("XINFO", "CONSUMERS", key, "g1"));
        // An ID no longer in the stream: -1, yet its pending entries go (options may follow IDS).
        c.Call("XDEL", key, "3-0");
        Assert.Equal(Ints(-1), c.Call("XDELEX", key, "IDS", "1", "3-0", "DELREF"));
        Assert.Equal(NothingPending, c.Call("XPENDING", key, "g1"));
        Assert.Equal(NothingPending, c.Call("XPENDING", key, "g2"));
        Assert.Contains($"{Bulk("pending")}:0\r\n", c.Call("XINFO", "CONSUMERS", key, "g2"));
    }

    /// <summary>Redis's "XGROUP DESTROY correctly manage min_cgroup_last_id cache" and "removes all consumer group references".</summary>
    [Fact]
    public void XDelEx_Acked_DeletesOnlyWhatNoGroupNeeds()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xdelex-acked") + "s";
        for (int i = 1; i <= 5; i++) c.Call("XADD", key, $"{i}-0", "f", "v");
        c.Call("XGROUP", "CREATE", key, "group1", "1-0");
        c.Call("XGROUP", "CREATE", key, "group2", "3-0");
        Assert.Equal(Ints(1), c.Call("XDELEX", key, "ACKED", "IDS", "1", "1-0"));
        // 2-0 is after group1's last delivered ID; 9-0 is not in the stream but not delivered either.
        Assert.Equal(Ints(2, 2), c.Call("XDELEX", key, "ACKED", "IDS", "2", "2-0", "9-0"));
        Assert.Equal(":1\r\n", c.Call("XGROUP", "DESTROY", key, "group1"));
        Assert.Equal(Ints(1, -1, 2), c.Call("XDELEX", key, "ACKED", "IDS", "3", "2-0", "1-0", "4-0"));

        // Pending in a group: referenced until acknowledged.
        c.Call("XREADGROUP", "GROUP", "group2", "c", "STREAMS", key, ">");
        Assert.Equal(Ints(2, 2), c.Call("XDELEX", key, "ACKED", "IDS", "2", "4-0", "5-0"));
        Assert.Equal(":1\r\n", c.Call("XACK", key, "group2", "4-0"));
        Assert.Equal(Ints(1, 2), c.Call("XDELEX", key, "ACKED", "IDS", "2", "4-0", "5-0"));
        Assert.Equal(":1\r\n", c.Call("XGROUP", "DESTROY", key, "group2"));
        // Without groups nothing is referenced.
        Assert.Equal(Ints(1, -1, 1), c.Call("XDELEX", key, "ACKED", "IDS", "3", "5-0", "9-0", "3-0"));
        Assert.Equal(":0\r\n", c.Call("XLEN", key));
    }

    [Fact]
    public void XDelEx_MissingKey_AllMinusOneBeforeIdsAreChecked()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xdelex-missing") + "s";
        Assert.Equal(Ints(-1, -1), c.Call("XDELEX", key, "IDS", "2", "1-1", "bad"));
        Assert.Equal(Ints(-1), c.Call("XDELEX", key, "ACKED", "IDS", "1", "1-1"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", key));
    }

    [Fact]
    public void XDelEx_BadArguments_RedisErrorsInRedisOrder()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xdelex-errors") + "s";
        string str = TestServer.KeyPrefix("xdelex-errors") + "str";
        c.Call("XADD", key, "1-0", "f", "v");
        c.Call("SET", str, "x");
        const string numids = "-ERR Number of IDs must be a positive integer\r\n";
        const string mismatch = "-ERR The `numids` parameter must match the number of arguments\r\n";
        const string syntax = "-ERR syntax error\r\n";
        Assert.Equal("-ERR wrong number of arguments for 'xdelex' command\r\n", c.Call("XDELEX", key, "IDS", "1"));
        Assert.Equal(numids, c.Call("XDELEX", key, "IDS", "0", "1-0"));
        Assert.Equal(numids, c.Call("XDELEX", key, "IDS", "-5", "1-0"));
        Assert.Equal(numids, c.Call("XDELEX", key, "IDS", "abc", "1-0"));
        Assert.Equal(numids, c.Call("XDELEX", key, "IDS", "99999999999999999999", "1-0"));
        Assert.Equal(mismatch, c.Call("XDELEX", key, "IDS", "3", "1-0", "2-0"));
        Assert.Equal(syntax, c.Call("XDELEX", key, "IDS", "1", "1-0", "2-0"));
        Assert.Equal(syntax, c.Call("XDELEX", key, "KEEPREF", "DELREF", "IDS", "1", "1-0"));
        Assert.Equal(syntax, c.Call("XDELEX", key, "ACKED", "IDS", "1", "1-0", "ACKED"));
        Assert.Equal(syntax, c.Call("XDELEX", key, "FOO", "IDS", "1", "1-0"));
        Assert.Equal(syntax, c.Call("XDELEX", key, "KEEPREF", "1-0", "IDS"));
        Assert.Equal("-ERR Invalid stream ID specified as stream command argument\r\n", c.Call("XDELEX", key, "IDS", "2", "1-0", "+"));
        // All or nothing: the valid ID before the bad one stayed.
        Assert.Equal(":1\r\n", c.Call("XLEN", key));
        // WRONGTYPE before the options are looked at.
        Assert.Equal("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", c.Call("XDELEX", str, "IDS", "0", "x"));
        // A later IDS replaces an earlier one.
        Assert.Equal(Ints(1), c.Call("XDELEX", key, "IDS", "1", "9-0", "IDS", "1", "1-0"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    // ---------------------------------------------------------------- XACKDEL

    [Fact]
    public void XAckDel_KeepRef_AcknowledgesAndDeletes_OtherGroupKeepsItsPending()
    {
        using var c = TestServer.Shared.Connect();
        string key = TwoGroupsDelivered(c, "xackdel-keep");
        Assert.Equal(Ints(1, 1), c.Call("XACKDEL", key, "g1", "KEEPREF", "IDS", "2", "1-0", "2-0"));
        Assert.Equal(":0\r\n", c.Call("XLEN", key));
        Assert.Equal(NothingPending, c.Call("XPENDING", key, "g1"));
        Assert.Equal("*4\r\n:2\r\n$3\r\n1-0\r\n$3\r\n2-0\r\n*1\r\n*2\r\n$2\r\nc2\r\n$1\r\n2\r\n", c.Call("XPENDING", key, "g2"));
        // Acknowledged but already gone from the stream: still 1. Not pending any more: -1.
        Assert.Equal(Ints(1, 1), c.Call("XACKDEL", key, "g2", "IDS", "2", "1-0", "2-0"));
        Assert.Equal(Ints(-1), c.Call("XACKDEL", key, "g2", "IDS", "1", "1-0"));
        Assert.Equal(NothingPending, c.Call("XPENDING", key, "g2"));
        Assert.Equal(Bulk("2-0"), InfoField(c, key, "max-deleted-entry-id"));
    }

    [Fact]
    public void XAckDel_DelRef_RemovesTheEntryFromEveryGroup()
    {
        using var c = TestServer.Shared.Connect();
        string key = TwoGroupsDelivered(c, "xackdel-delref");
        Assert.Equal(Ints(1, 1), c.Call("XACKDEL", key, "g1", "DELREF", "IDS", "2", "1-0", "2-0"));
        Assert.Equal(":0\r\n", c.Call("XLEN", key));
        Assert.Equal(NothingPending, c.Call("XPENDING", key, "g1"));
        Assert.Equal(NothingPending, c.Call("XPENDING", key, "g2"));
        Assert.Contains($"{Bulk("pending")}:0\r\n", c.Call("XINFO", "CONSUMERS", key, "g2"));
        Assert.Equal(Ints(-1, -1), c.Call("XACKDEL", key, "g2", "DELREF", "IDS", "2", "1-0", "2-0"));
    }

    [Fact]
    public void XAckDel_Acked_DeletesOnceEveryGroupAcknowledged()
    {
        using var c = TestServer.Shared.Connect();
        string key = TwoGroupsDelivered(c, "xackdel-acked");
        Assert.Equal(Ints(2, 2), c.Call("XACKDEL", key, "g1", "ACKED", "IDS", "2", "1-0", "2-0"));
        Assert.Equal(":2\r\n", c.Call("XLEN", key));
        Assert.Equal(NothingPending, c.Call("XPENDING", key, "g1"));
        Assert.Equal("*4\r\n:2\r\n$3\r\n1-0\r\n$3\r\n2-0\r\n*1\r\n*2\r\n$2\r\nc2\r\n$1\r\n2\r\n", c.Call("XPENDING", key, "g2"));
        Assert.Equal(Ints(1, 1), c.Call("XACKDEL", key, "g2", "ACKED", "IDS", "2", "1-0", "2-0"));
        Assert.Equal(":0\r\n", c.Call("XLEN", key));

        // A group that was never delivered the entry needs it too.
        string other = TestServer.KeyPrefix("xackdel-acked") + "t";
        c.Call("XADD", other, "1-0", "f", "v");
        c.Call("XGROUP", "CREATE", other, "reader", "0");
        c.Call("XGROUP", "CREATE", other, "late", "0");
        c.Call("XREADGROUP", "GROUP", "reader", "r", "STREAMS", other, ">");
        Assert.Equal(Ints(2), c.Call("XACKDEL", other, "reader", "ACKED", "IDS", "1", "1-0"));
        Assert.Equal(":1\r\n", c.Call("XLEN", other));
    }

    [Fact]
    public void XAckDel_MissingKeyOrGroup_AllMinusOneWithoutNoGroup()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xackdel-missing") + "s";
        Assert.Equal(Ints(-1, -1), c.Call("XACKDEL", key, "g", "IDS", "2", "1-1", "2-2"));
        c.Call("XADD", key, "1-0", "f", "v");
        Assert.Equal(Ints(-1, -1), c.Call("XACKDEL", key, "g", "IDS", "2", "1-1", "bad"));
        // More IDs than Redis keeps on its stack (8): all answered.
        c.Call("XGROUP", "CREATE", key, "g", "$");
        var ids = Enumerable.Range(0, 50).Select(i => $"{i}-1").ToArray();
        Assert.Equal(Ints(Enumerable.Repeat(-1L, 50).ToArray()), c.Call(["XACKDEL", key, "g", "IDS", "50", .. ids]));
        Assert.Equal(":1\r\n", c.Call("XLEN", key));
    }

    [Fact]
    public void XAckDel_BadArguments_RedisErrorsInRedisOrder()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xackdel-errors") + "s";
        string str = TestServer.KeyPrefix("xackdel-errors") + "str";
        c.Call("XADD", key, "1-0", "f", "v");
        c.Call("XGROUP", "CREATE", key, "g", "0");
        c.Call("XREADGROUP", "GROUP", "g", "c", "STREAMS", key, ">");
        c.Call("SET", str, "x");
        const string syntax = "-ERR syntax error\r\n";
        Assert.Equal("-ERR wrong number of arguments for 'xackdel' command\r\n", c.Call("XACKDEL", key, "g"));
        Assert.Equal("-ERR wrong number of arguments for 'xackdel' command\r\n", c.Call("XACKDEL", key, "g", "IDS", "1"));
        Assert.Equal("-ERR Number of IDs must be a positive integer\r\n", c.Call("XACKDEL", key, "g", "IDS", "abc", "1-1"));
        Assert.Equal("-ERR Number of IDs must be a positive integer\r\n", c.Call("XACKDEL", key, "g", "IDS", "0", "1-1"));
        Assert.Equal("-ERR The `numids` parameter must match the number of arguments\r\n", c.Call("XACKDEL", key, "g", "IDS", "3", "1-1", "2-2"));
        Assert.Equal(syntax, c.Call("XACKDEL", key, "g", "IDS", "1", "1-1", "2-2"));
        Assert.Equal(syntax, c.Call("XACKDEL", key, "g", "KEEPREF", "DELREF", "IDS", "1", "1-1"));
        Assert.Equal(syntax, c.Call("XACKDEL", key, "g", "KEEPREF", "ACKED", "IDS", "1", "1-1"));
        Assert.Equal(syntax, c.Call("XACKDEL", key, "g", "DELREF", "ACKED", "IDS", "1", "1-1"));
        Assert.Equal("-ERR Invalid stream ID specified as stream command argument\r\n", c.Call("XACKDEL", key, "g", "IDS", "2", "1-0", "x"));
        // Nothing acknowledged by the failed call.
        Assert.Equal(":1\r\n", c.Call("XACK", key, "g", "1-0"));
        Assert.Equal("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", c.Call("XACKDEL", str, "g", "IDS", "0", "x"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }
}
