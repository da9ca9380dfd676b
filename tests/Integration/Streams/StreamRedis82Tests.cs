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

    // ---------------------------------------------------------------- XADD and XTRIM

    /// <summary>Entries 1-0 .. n-0, group g delivered them all (consumer c), then the given ones acknowledged.</summary>
    private static void DeliveredThenAcked(RespClient c, string key, int n, params int[] acked)
    {
        for (int i = 1; i <= n; i++) c.Call("XADD", key, $"{i}-0", "f", "v");
        c.Call("XGROUP", "CREATE", key, "g", "0");
        c.Call("XREADGROUP", "GROUP", "g", "c", "STREAMS", key, ">");
        foreach (int i in acked) Assert.Equal(":1\r\n", c.Call("XACK", key, "g", $"{i}-0"));
    }

    private static string Ids(RespClient c, string key)
        => string.Join(" ", System.Text.RegularExpressions.Regex.Matches(c.Call("XRANGE", key, "-", "+"), @"\*2\r\n\$\d+\r\n([0-9]+-[0-9]+)\r\n")
            .Select(m => m.Groups[1].Value));

    [Fact]
    public void XTrim_Acked_RemovesOnlyEntriesNoGroupNeeds()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xtrim-acked") + "s";
        DeliveredThenAcked(c, key, 6, 2, 4);
        c.Call("XADD", key, "7-0", "f", "v"); // not delivered yet
        Assert.Equal(":2\r\n", c.Call("XTRIM", key, "MAXLEN", "0", "ACKED"));
        Assert.Equal("1-0 3-0 5-0 6-0 7-0", Ids(c, key));
        Assert.Equal(":1\r\n", c.Call("XACK", key, "g", "5-0"));
        Assert.Equal(":1\r\n", c.Call("XTRIM", key, "acked", "MINID", "7"));
        Assert.Equal("1-0 3-0 6-0 7-0", Ids(c, key));
        Assert.Equal(":0\r\n", c.Call("XTRIM", key, "MINID", "7", "ACKED"));
        // Trimming never moves max-deleted-entry-id (as Redis); the first entry is kept current.
        Assert.Equal(Bulk("0-0"), InfoField(c, key, "max-deleted-entry-id"));
        Assert.Equal(Bulk("1-0"), InfoField(c, key, "recorded-first-entry-id"));
        // The pending entries are untouched.
        Assert.StartsWith("*4\r\n:3\r\n$3\r\n1-0\r\n$3\r\n6-0\r\n", c.Call("XPENDING", key, "g"));
    }

    [Fact]
    public void XTrim_DelRef_RemovesTheTrimmedEntriesFromPendingLists()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xtrim-delref") + "s";
        DeliveredThenAcked(c, key, 5, 2);
        Assert.Equal(":3\r\n", c.Call("XTRIM", key, "MINID", "4", "DELREF"));
        Assert.Equal("4-0 5-0", Ids(c, key));
        Assert.Equal("*4\r\n:2\r\n$3\r\n4-0\r\n$3\r\n5-0\r\n*1\r\n*2\r\n$1\r\nc\r\n$1\r\n2\r\n", c.Call("XPENDING", key, "g"));
        Assert.Contains($"{Bulk("pending")}:2\r\n", c.Call("XINFO", "CONSUMERS", key, "g"));
        Assert.Equal(":1\r\n", c.Call("XTRIM", key, "MAXLEN", "1", "DELREF"));
        Assert.StartsWith("*4\r\n:1\r\n$3\r\n5-0\r\n", c.Call("XPENDING", key, "g"));
    }

    [Fact]
    public void XTrim_KeepRefOrNothing_LeavesPendingEntries()
    {
        using var c = TestServer.Shared.Connect();
        foreach (string[] policy in new[] { Array.Empty<string>(), ["KEEPREF"], ["keepref"] })
        {
            string key = TestServer.KeyPrefix("xtrim-keepref") + "s";
            DeliveredThenAcked(c, key, 4);
            Assert.Equal(":3\r\n", c.Call(["XTRIM", key, "MAXLEN", "1", .. policy]));
            Assert.Equal("4-0", Ids(c, key));
            Assert.StartsWith("*4\r\n:4\r\n$3\r\n1-0\r\n$3\r\n4-0\r\n", c.Call("XPENDING", key, "g"));
        }
    }

    [Fact]
    public void XAdd_Policies_TrimAfterAdding()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xadd-policy") + "s";
        DeliveredThenAcked(c, key, 3, 1);
        // The new entry is not delivered yet, 2-0 and 3-0 are pending: only 1-0 can go.
        Assert.Equal(Bulk("4-0"), c.Call("XADD", key, "ACKED", "MAXLEN", "0", "4-0", "f", "v"));
        Assert.Equal("2-0 3-0 4-0", Ids(c, key));
        Assert.Equal(Bulk("5-0"), c.Call("XADD", key, "NOMKSTREAM", "DELREF", "MAXLEN", "2", "5-0", "f", "v"));
        Assert.Equal("4-0 5-0", Ids(c, key));
        Assert.Equal(NothingPending, c.Call("XPENDING", key, "g"));
        Assert.Equal(Bulk("6-0"), c.Call("XADD", key, "MINID", "6", "KEEPREF", "6-0", "f", "v"));
        Assert.Equal("6-0", Ids(c, key));
        // A policy alone is allowed (nothing to trim).
        Assert.Equal(Bulk("7-0"), c.Call("XADD", key, "ACKED", "7-0", "f", "v"));
    }

    [Fact]
    public void XAddXTrim_PolicyTwice_XAddReadsItAsTheIdXTrimSyntaxError()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("policy-twice") + "s";
        c.Call("XADD", key, "1-0", "f", "v");
        const string badId = "-ERR Invalid stream ID specified as stream command argument\r\n";
        Assert.Equal(badId, c.Call("XADD", key, "KEEPREF", "KEEPREF", "*", "f", "v"));
        Assert.Equal(badId, c.Call("XADD", key, "ACKED", "DELREF", "*", "f", "v"));
        Assert.Equal(badId, c.Call("XADD", key, "MAXLEN", "1", "DELREF", "ACKED", "*", "f", "v"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("XTRIM", key, "MAXLEN", "0", "ACKED", "ACKED"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("XTRIM", key, "KEEPREF", "MAXLEN", "0", "DELREF"));
        Assert.Equal("-ERR syntax error, XTRIM must be called with a trimming strategy\r\n", c.Call("XTRIM", key, "ACKED", "LIMIT", "0"));
        Assert.Equal("-ERR syntax error, LIMIT cannot be used without the special ~ option\r\n", c.Call("XTRIM", key, "MAXLEN", "0", "LIMIT", "5", "ACKED"));
        Assert.Equal(":1\r\n", c.Call("XLEN", key));
        Assert.Equal(":1\r\n", c.Call("XTRIM", key, "DELREF", "MAXLEN", "0"));
    }

    /// <summary>
    /// Under DELREF and ACKED '~' does not stop at the first node that cannot go whole: entries are
    /// looked at one by one (nodes of 4 entries here), nodes that could go are walked past even when
    /// some entry stays, and only LIMIT bounds the work.
    /// </summary>
    [Fact]
    public async Task XTrim_ApproximateWithPolicies_WalksEntriesAcrossNodes()
    {
        await using var server = TestServer.Start(2, "--stream-node-max-entries", "4");
        using var c = server.Connect();
        DeliveredThenAcked(c, "a", 12, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
        Assert.Equal(":3\r\n", InfoField(c, "a", "radix-tree-keys"));
        Assert.Equal(":11\r\n", c.Call("XTRIM", "a", "MAXLEN", "~", "0", "ACKED"));
        Assert.Equal("2-0", Ids(c, "a"));

        DeliveredThenAcked(c, "b", 12, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
        // The first node (4 entries) fits the limit of 4, the second would not.
        Assert.Equal(":3\r\n", c.Call("XTRIM", "b", "MAXLEN", "~", "0", "LIMIT", "4", "ACKED"));
        Assert.Equal("2-0 5-0 6-0 7-0 8-0 9-0 10-0 11-0 12-0", Ids(c, "b"));

        // KEEPREF with '~' removes whole nodes only; DELREF trims inside the first node.
        for (int i = 1; i <= 12; i++) c.Call("XADD", "k", $"{i}-0", "f", "v");
        for (int i = 1; i <= 12; i++) c.Call("XADD", "d", $"{i}-0", "f", "v");
        Assert.Equal(":0\r\n", c.Call("XTRIM", "k", "MAXLEN", "~", "10"));
        Assert.Equal(":2\r\n", c.Call("XTRIM", "d", "MAXLEN", "~", "10", "DELREF"));
        Assert.Equal(":10\r\n", c.Call("XLEN", "d"));
        Assert.Equal(":8\r\n", c.Call("XTRIM", "k", "MAXLEN", "~", "2"));
        Assert.Equal(":4\r\n", c.Call("XLEN", "k"));
    }

    // ---------------------------------------------------------------- events, propagation, replicas

    [Fact]
    public async Task Writes_KeyspaceEvents_XDelWhenDeletedXTrimWhenTrimmed()
    {
        await using var server = TestServer.Start(2);
        string[][] script =
        [
            ["XADD", "s", "1-0", "f", "v"], ["XADD", "s", "2-0", "f", "v"], ["XADD", "s", "3-0", "f", "v"], ["XADD", "s", "4-0", "f", "v"],
            ["XGROUP", "CREATE", "s", "g", "0"], ["XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "STREAMS", "s", ">"],
            ["XDELEX", "s", "IDS", "1", "9-0"], ["XDELEX", "s", "ACKED", "IDS", "1", "1-0"], ["XDELEX", "s", "IDS", "1", "3-0"],
            ["XACKDEL", "s", "g", "ACKED", "IDS", "1", "1-0"], ["XACKDEL", "s", "g", "IDS", "1", "1-0"], ["XACKDEL", "s", "g", "IDS", "1", "2-0"],
            ["XTRIM", "s", "MAXLEN", "0", "ACKED"], ["XADD", "s", "ACKED", "MAXLEN", "0", "5-0", "f", "v"],
            ["XTRIM", "s", "MAXLEN", "0", "DELREF"],
        ];
        var events = KeyspaceEvents.Collect(server.Connect, "Et", script)
            .Select(e => System.Text.RegularExpressions.Regex.Match(e, @"__keyevent@\d+__:(\S+)").Groups[1].Value);
        Assert.Equal(string.Join(" ",
            "xadd", "xadd", "xadd", "xadd", "xgroup-create", "xgroup-createconsumer",
            "xdel",   // XDELEX 3-0 (9-0 is not there, 1-0 is pending)
            "xdel",   // XACKDEL ACKED 1-0: acknowledged, and 2-0 is the group's last ID
            "xdel",   // XACKDEL 2-0 (1-0 was not pending any more)
            "xadd",   // XADD ACKED: 4-0 and 5-0 were never delivered, nothing trimmed (nor by XTRIM ACKED)
            "xtrim"), string.Join(" ", events));
    }

    [Fact]
    public void XDelExXAckDel_Propagate_WhenTheyChangedSomething()
    {
        var lines = PropagationDifferential.Propagated(
            "XADD s 1-0 f v", "XADD s 2-0 f v", "XADD s 3-0 f v", "XGROUP CREATE s g 0", "XREADGROUP GROUP g c STREAMS s >",
            "XDELEX s IDS 1 9-0", "XDELEX s ACKED IDS 1 1-0", "XDELEX s KEEPREF IDS 1 3-0", "XDELEX s DELREF IDS 1 3-0",
            "XDELEX s DELREF IDS 1 3-0", "XACKDEL s g IDS 1 9-0", "XACKDEL s g ACKED IDS 2 1-0 2-0", "XACKDEL nokey g IDS 1 1-0");
        var tail = lines.Where(l => l.Contains("XDELEX", StringComparison.Ordinal) || l.Contains("XACKDEL", StringComparison.Ordinal)).ToList();
        Assert.Equal(
        [
            "9 XDELEX s KEEPREF IDS 1 3-0",
            "9 XDELEX s DELREF IDS 1 3-0", // only the pending entry went: still sent, or a replica keeps it
            "9 XACKDEL s g ACKED IDS 2 1-0 2-0",
        ], tail);
    }

    [Fact]
    public void XTrimXAdd_ApproximateAcked_PropagateAsExactMinIdPastTheLastEntryRemoved()
    {
        var script = new List<string>
        {
            "XADD s 1-0 f v", "XADD s 2-0 f v", "XADD s 3-0 f v", "XGROUP CREATE s g 0", "XREADGROUP GROUP g c COUNT 1 STREAMS s >",
            "XGROUP SETID s g 3-0", "XTRIM s MAXLEN ~ 0 ACKED", "XTRIM s MINID ~ 10 LIMIT 1000 ACKED", "XADD s ACKED MAXLEN ~ 0 4-* f v",
            "XADD s 5-0 f v", "XADD s 6-0 f v", "XTRIM s MINID ~ 5 DELREF", "XTRIM s MAXLEN ~ 0 DELREF",
        };
        var lines = PropagationDifferential.Propagated(script.ToArray());
        var trims = lines.Where(l => l.Contains("XTRIM", StringComparison.Ordinal) || l.Contains("XADD s ACKED", StringComparison.Ordinal)).ToList();
        Assert.Equal(
        [
            "9 XTRIM s MINID = 3-1 ACKED",         // 2-0 and 3-0 went, 1-0 is pending
            "9 XADD s ACKED MINID = 0-0 4-0 f v",   // nothing could go (1-0 pending, 4-0 not delivered)
            "9 XTRIM s MINID = 4-1 DELREF",         // Redis would send 1-0, the tombstone heading the node
            "9 XTRIM s MAXLEN = 0 DELREF",
        ], trims);
    }

    private static string? Info(RespClient c, string field)
    {
        var m = System.Text.RegularExpressions.Regex.Match(c.Call("INFO", "replication"), $"(?m)^{field}:([^\r]*)\r$");
        return m.Success ? m.Groups[1].Value : null;
    }

    /// <summary>
    /// A replica of this server (in process) ends with the master's entries and pending entries after
    /// every new option, including approximate trims with LIMIT (rewritten exact, the LIMIT kept and
    /// not enforced on the replica, as Redis's mustObeyClient) and the ACKED trim that Redis 8.2's own
    /// rewrite ("MAXLEN = length") would replay differently.
    /// </summary>
    [Fact]
    public async Task Replica_NewOptions_EndsWithTheMastersData()
    {
        string[] args = ["--repl-diskless-sync-delay", "0", "--stream-node-max-entries", "4"];
        await using var master = TestServer.Start(2, args);
        await using var replica = TestServer.Start(2, args);
        using var m = master.Connect();
        using var r = replica.Connect();
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", master.Port.ToString()));
        Eventually.Wait(() => Info(r, "master_link_status") == "up", () => r.Call("INFO", "replication"), WaitSeconds);

        // Nodes [1..4] [5 6]: 1-3 stay pending, 4-6 acknowledged. MAXLEN ~ 0 ACKED removes 4, 5, 6;
        // "MAXLEN = 3 ACKED" on the replica would stop after the first node (3 > 6 - 4) with 5 left.
        DeliveredThenAcked(m, "s", 6, 4, 5, 6);
        Assert.Equal(":3\r\n", m.Call("XTRIM", "s", "MAXLEN", "~", "0", "ACKED"));
        Assert.Equal("1-0 2-0 3-0", Ids(m, "s"));

        DeliveredThenAcked(m, "t", 12, 1, 2, 5, 6, 7, 8, 9, 10);
        m.Call("XADD", "t", "ACKED", "MAXLEN", "~", "0", "LIMIT", "4", "*", "f", "v");
        m.Call("XADD", "t", "KEEPREF", "MINID", "~", "100", "LIMIT", "8", "*", "f", "v");
        Assert.Equal(":1\r\n", m.Call("XTRIM", "t", "MINID", "~", "10", "DELREF"));
        for (int i = 1; i <= 12; i++) m.Call("XADD", "u", $"{i}-0", "f", "v");
        m.Call("XGROUP", "CREATE", "u", "g1", "0");
        m.Call("XGROUP", "CREATE", "u", "g2", "0");
        m.Call("XREADGROUP", "GROUP", "g1", "a", "COUNT", "8", "STREAMS", "u", ">");
        m.Call("XREADGROUP", "GROUP", "g2", "b", "COUNT", "4", "STREAMS", "u", ">");
        m.Call("XACKDEL", "u", "g1", "ACKED", "IDS", "3", "1-0", "5-0", "6-0");
        m.Call("XACKDEL", "u", "g2", "IDS", "2", "1-0", "2-0");
        m.Call("XACKDEL", "u", "g1", "DELREF", "IDS", "1", "3-0");
        m.Call("XDELEX", "u", "DELREF", "IDS", "2", "4-0", "2-0");
        m.Call("XDELEX", "u", "ACKED", "IDS", "3", "6-0", "7-0", "12-0");
        m.Call("XTRIM", "u", "MAXLEN", "~", "2", "ACKED");

        Eventually.Wait(() => Info(m, "master_repl_offset") is { } o && o == Info(r, "slave_repl_offset"),
            () => $"offsets: master {Info(m, "master_repl_offset")}, replica {Info(r, "slave_repl_offset")}", WaitSeconds);
        foreach (var (key, groups) in new[] { ("s", new[] { "g" }), ("t", new[] { "g" }), ("u", new[] { "g1", "g2" }) })
        {
            Assert.Equal(m.Call("XRANGE", key, "-", "+"), r.Call("XRANGE", key, "-", "+"));
            Assert.Equal(m.Call("XLEN", key), r.Call("XLEN", key));
            foreach (var g in groups) Assert.Equal(m.Call("XPENDING", key, g), r.Call("XPENDING", key, g));
            // entries-read aside: a replica of this server does not get it after XREADGROUP (see the report).
            static string Groups(RespClient c, string key) => System.Text.RegularExpressions.Regex.Replace(
                c.Call("XINFO", "GROUPS", key), @"entries-read\r\n(:\d+|\$-1)\r\n\$3\r\nlag\r\n(:\d+|\$-1)", "");
            Assert.Equal(Groups(m, key), Groups(r, key));
            Assert.Equal(InfoField(m, key, "max-deleted-entry-id"), InfoField(r, key, "max-deleted-entry-id"));
            Assert.Equal(InfoField(m, key, "recorded-first-entry-id"), InfoField(r, key, "recorded-first-entry-id"));
        }
        Assert.Equal("1-0 2-0 3-0", Ids(r, "s"));
    }

    // ---------------------------------------------------------------- COMMAND

    [Fact]
    public void CommandInfoDocs_NewCommands_AsRedis82()
    {
        using var c = TestServer.Shared.Connect();
        string xdelex = c.Call("COMMAND", "INFO", "xdelex");
        Assert.StartsWith("*1\r\n*10\r\n$6\r\nxdelex\r\n:-5\r\n*2\r\n+write\r\n+fast\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@write\r\n+@stream\r\n+@fast\r\n", xdelex);
        Assert.Contains("*2\r\n+RW\r\n+delete\r\n", xdelex);
        string xackdel = c.Call("COMMAND", "INFO", "xackdel");
        Assert.StartsWith("*1\r\n*10\r\n$7\r\nxackdel\r\n:-6\r\n*2\r\n+write\r\n+fast\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@write\r\n+@stream\r\n+@fast\r\n", xackdel);
        Assert.Contains("*3\r\n+RW\r\n+update\r\n+delete\r\n", xackdel);
        string docs = c.Call("COMMAND", "DOCS", "xackdel");
        Assert.Contains($"{Bulk("since")}{Bulk("8.2.0")}", docs);
        foreach (var token in new[] { "KEEPREF", "DELREF", "ACKED", "IDS" }) Assert.Contains($"{Bulk("token")}{Bulk(token)}", docs);
        Assert.Contains($"{Bulk("name")}{Bulk("numids")}{Bulk("type")}{Bulk("integer")}", docs);
        foreach (var cmd in new[] { "xadd", "xtrim" })
        {
            string d = c.Call("COMMAND", "DOCS", cmd);
            Assert.Contains($"{Bulk("name")}{Bulk("condition")}", d);
            Assert.Contains(Bulk("8.2.0"), d);
        }
        Assert.Contains(Bulk("xdelex"), c.Call("ACL", "CAT", "stream"));
        Assert.Contains(Bulk("xackdel"), c.Call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "fast"));
    }
}
