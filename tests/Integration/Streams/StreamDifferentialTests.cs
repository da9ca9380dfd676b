using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>
/// XADD, XLEN, XRANGE, XREVRANGE, XDEL and XTRIM against redis-server, byte for byte, in RESP2 and
/// RESP3: explicit IDs (auto-generated ones depend on the clock), every ID error, trimming exact and
/// approximate (whole nodes: the same XLEN as redis-server proves the same node boundaries).
/// </summary>
public class StreamDifferentialTests
{
    private static readonly string[] Basics =
    [
        "XADD s 1-1 a 1 b 2",
        "XADD s 1-1 a 1",
        "XADD s 1-0 a 1",
        "XADD s 0-0 a 1",
        "XADD t 0-0 a 1",
        "XADD s 1-* c 3",
        "XADD s 5 a 1 b 2",
        "XADD s 5-* a x b y",
        "XADD s 7-3 other 9",
        "XADD s 8-1 a 1 b 2",
        "XADD s abc a 1",
        "XADD s 1-abc a 1",
        "XADD s 9-1 a",
        "XADD s 9-1",
        "XADD s NOMKSTREAM",
        "XADD missing NOMKSTREAM 1-1 a 1",
        "EXISTS missing",
        "XLEN s",
        "XLEN nope",
        "XRANGE s - +",
        "XREVRANGE s + -",
        "XRANGE s 1 5",
        "XRANGE s (1-1 (7-3",
        "XREVRANGE s (8-1 (1-1",
        "XRANGE s (- +",
        "XRANGE s - (+",
        "XRANGE s 5-1 +",
        "XRANGE s - + COUNT 2",
        "XREVRANGE s + - COUNT 2",
        "XRANGE s - + COUNT 0",
        "XRANGE s - + COUNT -3",
        "XRANGE s - + COUNT x",
        "XRANGE s - + FOO",
        "XRANGE s x +",
        "XRANGE s (18446744073709551615-18446744073709551615 +",
        "XRANGE s - (0-0",
        "XRANGE nope - +",
        "XDEL s 5-0 5-1 99-0",
        "XDEL s 5-0",
        "XDEL s bad",
        "XDEL nope bad",
        "XRANGE s - +",
        "XLEN s",
        "TYPE s",
        "OBJECT ENCODING s",
        "SET str x",
        "XADD str 1-1 a 1",
        "XLEN str",
        "XRANGE str - +",
        "LPUSH s x",
        "GET s",
        "COPY s s2",
        "XRANGE s2 - +",
        "RENAME s2 s3",
        "XREVRANGE s3 + - COUNT 1",
        "EXPIRE s3 100",
        "TTL s3",
        "XTRIM s MAXLEN 2",
        "XRANGE s - +",
        "XTRIM s MINID 8-1",
        "XRANGE s - +",
        "XTRIM s MAXLEN 0",
        "XLEN s",
        "EXISTS s",
        "XADD s 9-9 a 1",
        "XADD s 9-9 a 1",
    ];

    [RedisFact]
    public void Stream_BasicsAndErrors_MatchRedis() => Differential.AssertSame(Basics);

    [RedisFact]
    public void Stream_BasicsAndErrorsResp3_MatchRedis()
        => Differential.AssertSameResp3(Basics.Select(Differential.SplitLine).ToArray());

    [RedisFact]
    public void XSetId_RulesAndErrors_MatchRedis() => Differential.AssertSame(
        "XSETID missing 5-0", "XADD s 10-1 f v", "XADD s 20-1 f v", "XSETID s 100-5", "XADD s 100-5 f v", "XADD s 100-6 f v",
        "XSETID s 15", "XSETID s 100-6", "XSETID s 100-6 ENTRIESADDED 3", "XSETID s 100-6 ENTRIESADDED 2",
        "XSETID s 100-6 ENTRIESADDED -1", "XSETID s 100-6 ENTRIESADDED x", "XSETID s 100-6 MAXDELETEDID 200-0",
        "XSETID s 100-6 MAXDELETEDID 50-0", "XSETID s 100-7 MAXDELETEDID 0-0",
        "XSETID s 100-7 MAXDELETEDID abc", "XSETID s -", "XSETID s +", "XSETID s abc", "XSETID s 1-2-3", "XSETID s 100-7 FOO 1",
        "XSETID s 100-7 ENTRIESADDED", "XSETID s 100-7 MAXDELETEDID", "XSETID s 100-7 entriesadded 10 maxdeletedid 100-6",
        "XADD s 100-7 f v", "XADD s 100-8 f v", "XRANGE s - +", "XLEN s",
        "XADD e MAXLEN 0 5-1 f v", "XSETID e 0-0", "XSETID e 0", "XADD e 0-1 f v",
        "SET str x", "XSETID str 1-1", "XSETID s", "PING");

    /// <summary>
    /// Redis 7.2 (#11444) refuses an XSETID below the stream's greatest deleted ID, which 7.0 (the
    /// reference server) let through: checked against 7.2's text here.
    /// </summary>
    [Fact]
    public void XSetId_BelowMaxDeletedId_RefusedAs72()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xsetid") + "s";
        c.Call("XADD", key, "10-1", "f", "v");
        c.Call("XADD", key, "20-1", "f", "v");
        Assert.Equal(":1\r\n", c.Call("XDEL", key, "20-1"));
        Assert.Equal("-ERR The ID specified in XSETID is smaller than current max_deleted_entry_id\r\n", c.Call("XSETID", key, "15-0"));
        Assert.Equal("-ERR The ID specified in XSETID is smaller than current max_deleted_entry_id\r\n", c.Call("XSETID", key, "5-0"));
        Assert.Equal("+OK\r\n", c.Call("XSETID", key, "20-1"));
    }

    [RedisFact]
    public void XAdd_TrimOptionErrors_MatchRedis() => Differential.AssertSame(
        "XADD s MAXLEN 1 MINID 1 1-1 a 1",
        "XADD s MAXLEN -1 1-1 a 1",
        "XADD s MAXLEN x 1-1 a 1",
        "XADD s LIMIT 10 1-1 a 1",
        "XADD s MAXLEN 5 LIMIT 10 1-1 a 1",
        "XADD s MAXLEN = 5 LIMIT 10 1-1 a 1",
        "XADD s MAXLEN ~ 5 LIMIT -1 1-1 a 1",
        "XADD s MINID ~ - 1-1 a 1",
        "XADD s MINID ~ 0 LIMIT 0 1-1 a 1",
        "XADD s MAXLEN = 0 2-1 a 1",
        "XRANGE s - +",
        "XTRIM s",
        "XTRIM s FOO 1",
        "XTRIM s LIMIT 1 MAXLEN 1",
        "XTRIM s MAXLEN 1 LIMIT 1",
        "XTRIM nope MAXLEN 1",
        "XTRIM s MINID ~ 0",
        "XTRIM s MAXLEN",
        "XTRIM s MAXLEN ~");

    /// <summary>250 entries make three nodes of 100 (stream-node-max-entries); '~' removes whole nodes only.</summary>
    [RedisFact]
    public void XTrim_Approximate_RemovesWholeNodesAsRedis()
    {
        var script = new List<string[]>();
        for (int i = 1; i <= 250; i++) script.Add(["XADD", "s", $"{i}-1", "f", $"v{i}", "g", "x"]);
        script.Add(["XTRIM", "s", "MAXLEN", "~", "120"]);
        script.Add(["XLEN", "s"]);
        script.Add(["XTRIM", "s", "MAXLEN", "~", "10"]);
        script.Add(["XLEN", "s"]);
        script.Add(["XRANGE", "s", "-", "+", "COUNT", "1"]);
        script.Add(["XDEL", "s", "220-1"]);
        script.Add(["XDEL", "s", "221-1"]);
        script.Add(["XTRIM", "s", "MINID", "~", "230"]);
        script.Add(["XLEN", "s"]);
        script.Add(["XTRIM", "s", "MINID", "235"]);
        script.Add(["XRANGE", "s", "-", "+", "COUNT", "2"]);
        script.Add(["XREVRANGE", "s", "+", "-", "COUNT", "2"]);
        for (int i = 300; i <= 700; i++) script.Add(["XADD", "s", "MAXLEN", "~", "150", $"{i}-0", "f", $"{i}"]);
        script.Add(["XLEN", "s"]);
        script.Add(["XRANGE", "s", "-", "+", "COUNT", "1"]);
        for (int i = 800; i <= 900; i++) script.Add(["XADD", "s", "MAXLEN", "~", "50", "LIMIT", "30", $"{i}-0", "f", $"{i}"]);
        script.Add(["XLEN", "s"]);
        // Big values close nodes by stream-node-max-bytes before they reach 100 entries.
        string big = new('b', 700);
        for (int i = 1000; i <= 1060; i++) script.Add(["XADD", "big", $"{i}-0", "field", big]);
        script.Add(["XTRIM", "big", "MAXLEN", "~", "30"]);
        script.Add(["XLEN", "big"]);
        script.Add(["XRANGE", "big", "-", "+", "COUNT", "1"]);
        Differential.AssertSame(script.ToArray());
    }

    [RedisFact]
    public void XRange_MixedFieldsAcrossNodes_MatchRedis()
    {
        var script = new List<string[]>();
        for (int i = 1; i <= 230; i++)
            script.Add(i % 3 == 0 ? ["XADD", "s", $"{i}-0", "a", $"{i}"] : ["XADD", "s", $"{i}-0", "a", "1", "b", $"{i * 1000}"]);
        script.Add(["XRANGE", "s", "99", "102"]);
        script.Add(["XREVRANGE", "s", "202", "(198"]);
        script.Add(["XREVRANGE", "s", "+", "-", "COUNT", "5"]);
        script.Add(["XDEL", "s", "100-0"]);
        script.Add(["XDEL", "s", "101-0"]);
        script.Add(["XRANGE", "s", "99", "102"]);
        script.Add(["XREVRANGE", "s", "102", "99"]);
        script.Add(["XRANGE", "s", "-", "+"]);
        Differential.AssertSame(script.ToArray());
    }

    [RedisFact]
    public void KeyCommands_OnStream_MatchRedis() => Differential.AssertSame(
        "XADD s 1-1 a 1 b 2",
        "XADD s 2-5 a 10 b 20",
        "XADD s 3-0 c 100",
        "XADD s 4-0 n -7 big 18446744073709551616",
        "DEBUG DIGEST-VALUE s",
        "EXPIRE s 1000",
        "DEBUG DIGEST-VALUE s",
        "PERSIST s",
        "SORT s",
        "SORT_RO s",
        "LLEN s",
        "HGET s a",
        "SCAN 0 TYPE stream",
        "SCAN 0 TYPE hash",
        "MOVE s 10",
        "EXISTS s",
        "SELECT 10",
        "XRANGE s - +",
        "MOVE s 9",
        "SELECT 9",
        "COPY s t",
        "XDEL t 2-5",
        "XLEN s",
        "XLEN t",
        "UNLINK t",
        "DEL s",
        "EXISTS s t",
        "XADD s 0-1 a 1",
        "XDEL s 0-1",
        "XLEN s",
        "TYPE s",
        "XRANGE s - +",
        "XADD s 0-1 a 1",
        "XADD s 0-* a 1",
        "XADD s 18446744073709551615-18446744073709551615 a 1",
        "XADD s 18446744073709551615-* a 1",
        "XADD s * a 1",
        "XADD s 18446744073709551616-1 a 1",
        "XADD s 01-2 a 1",
        "XRANGE s - +");

    /// <summary>IDs are read as Redis's string2ull reads them: strtoull's leading blanks, sign and zeros pass; trailing text does not.</summary>
    [RedisFact]
    public void XAdd_IdSpellings_MatchRedis() => Differential.AssertSame(
        ["XADD", "s", " 5-1", "a", "1"],
        ["XADD", "s", "+6-1", "a", "1"],
        ["XADD", "s", "007-01", "a", "1"],
        ["XADD", "s", "8-1 ", "a", "1"],
        ["XADD", "s", "9--1", "a", "1"],
        ["XADD", "s", "10-1-1", "a", "1"],
        ["XADD", "s", "-", "a", "1"],
        ["XADD", "s", "+", "a", "1"],
        ["XADD", "s", "", "a", "1"],
        ["XADD", "s", "11-", "a", "1"],
        ["XADD", "s", "12-*", "a", "1"],
        ["XADD", "s", "12-*", "a", "1"],
        ["XADD", "s", "*-1", "a", "1"],
        ["XADD", "s", "99999999999999999999-1", "a", "1"],
        ["XADD", "s", "13-1", "a", ""],
        ["XADD", "s", "14-1", "", "x"],
        ["XRANGE", "s", "(", "+"],
        ["XRANGE", "s", "((5", "+"],
        ["XRANGE", "s", " 6", "+ "],
        ["XRANGE", "s", "7", "12", "COUNT", "1", "COUNT", "2"],
        ["XRANGE", "s", "7", "12", "COUNT", "9223372036854775807"],
        ["XRANGE", "s", "-", "+"],
        ["XREVRANGE", "s", "+", "-", "COUNT", "3"]);

    [RedisFact]
    public void Stream_FromScriptsAndTransactions_MatchRedis() => Differential.AssertSame(
        ["EVAL", "return redis.call('XADD', KEYS[1], '1-1', 'a', '1', 'b', '2')", "1", "s"],
        ["EVAL", "return redis.call('XRANGE', KEYS[1], '-', '+')", "1", "s"],
        ["EVAL", "return redis.pcall('XADD', KEYS[1], '1-1', 'a', '1')", "1", "s"],
        ["EVAL", "return redis.call('XLEN', KEYS[1])", "1", "s"],
        ["MULTI"],
        ["XADD", "s", "2-1", "c", "3"],
        ["XADD", "s", "2-1", "c", "3"],
        ["XTRIM", "s", "MAXLEN", "1"],
        ["XRANGE", "s", "-", "+"],
        ["EXEC"],
        ["MULTI"],
        ["XADD", "s", "3-1"],
        ["EXEC"]);
}
