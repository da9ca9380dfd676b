using System.Diagnostics;
using System.Globalization;
using System.Text;
using RedisClone.Tests.CommandInfo;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.SortedSets;

/// <summary>
/// Exact replies over a raw socket for what the reference server cannot check: Redis 7.2's ZRANK
/// WITHSCORE, replies that are random (ZRANDMEMBER: their rules, not their bytes), keys spread over
/// shards, the keyspace commands on sorted sets, and redis-benchmark's sorted set tests.
/// </summary>
public class SortedSetWireTests
{
    private static TestServer Server => TestServer.Shared;

    [Fact]
    public void ZAddAndRange_Pipelined_RepliesInOrder()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("zwire") + "z";
        var batch = new StringBuilder();
        foreach (var cmd in new[]
        {
            new[] { "ZADD", k, "1", "a", "2.5", "b", "-0", "c" },
            ["ZRANGE", k, "0", "-1", "WITHSCORES"],
            ["ZADD", k, "XX", "NX", "1", "a"],
            ["ZSCORE", k, "b"],
            ["ZINCRBY", k, "-inf", "a"],
            ["ZINCRBY", k, "inf", "a"],
            ["PING"],
        })
            batch.Append(Encoding.Latin1.GetString(RespClient.Encode(cmd)));
        c.SendRaw(Encoding.Latin1.GetBytes(batch.ToString()));
        Assert.Equal(":3\r\n", c.ReadReply());
        Assert.Equal("*6\r\n$1\r\nc\r\n$1\r\n0\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$3\r\n2.5\r\n", c.ReadReply());
        Assert.Equal("-ERR XX and NX options at the same time are not compatible\r\n", c.ReadReply());
        Assert.Equal("$3\r\n2.5\r\n", c.ReadReply());
        Assert.Equal("$4\r\n-inf\r\n", c.ReadReply());
        Assert.Equal("-ERR resulting score is not a number (NaN)\r\n", c.ReadReply());
        Assert.Equal("+PONG\r\n", c.ReadReply());
    }

    [Fact]
    public void ZRank_WithScore_Redis72Replies()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("zrank") + "z";
        c.Call("ZADD", k, "1", "a", "2.5", "b", "3", "c");
        Assert.Equal("*2\r\n:1\r\n$3\r\n2.5\r\n", c.Call("ZRANK", k, "b", "WITHSCORE"));
        Assert.Equal("*2\r\n:0\r\n$1\r\n3\r\n", c.Call("ZREVRANK", k, "c", "withscore"));
        Assert.Equal("*-1\r\n", c.Call("ZRANK", k, "nosuch", "WITHSCORE"));
        Assert.Equal("*-1\r\n", c.Call("ZREVRANK", k + "missing", "a", "WITHSCORE"));
        Assert.Equal("$-1\r\n", c.Call("ZRANK", k, "nosuch"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("ZRANK", k, "a", "WITHSCORES"));
        Assert.Equal("-ERR wrong number of arguments for 'zrank' command\r\n", c.Call("ZRANK", k, "a", "WITHSCORE", "x"));
        Assert.Equal("-ERR wrong number of arguments for 'zrevrank' command\r\n", c.Call("ZREVRANK", k));
        c.Call("HELLO", "3");
        Assert.Equal("*2\r\n:1\r\n,2.5\r\n", c.Call("ZRANK", k, "b", "WITHSCORE"));
        Assert.Equal("_\r\n", c.Call("ZRANK", k, "nosuch", "WITHSCORE"));
        Assert.Equal("_\r\n", c.Call("ZRANK", k, "nosuch"));
    }

    [Fact]
    public void CommandInfo_ZRank_Redis72Shape()
    {
        using var c = Server.Connect();
        var info = RespTree.Parse(c.Call("COMMAND", "INFO", "zrank")).Children[0];
        Assert.Equal(":-3\r\n", info.Children[1].Raw);
        var docs = c.Call("COMMAND", "DOCS", "zrevrank");
        Assert.Contains("$9\r\nwithscore\r\n", docs);
        Assert.Contains("$5\r\n7.2.0\r\n", docs);
    }

    [Fact]
    public void Resp3_PairsAndDoubles()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("zresp3") + "z";
        c.Call("HELLO", "3");
        c.Call("ZADD", k, "1", "a", "inf", "b");
        Assert.Equal("*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,inf\r\n", c.Call("ZRANGE", k, "0", "-1", "WITHSCORES"));
        Assert.Equal(",inf\r\n", c.Call("ZSCORE", k, "b"));
        Assert.Equal("*2\r\n$1\r\na\r\n,1\r\n", c.Call("ZPOPMIN", k));
        Assert.Equal("*1\r\n*2\r\n$1\r\nb\r\n,inf\r\n", c.Call("ZPOPMAX", k, "1"));
        Assert.Equal("_\r\n", c.Call("ZMPOP", "1", k, "MIN"));
    }

    [Fact]
    public void ZRandMember_PositiveCount_DistinctMembersOfTheSet()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("zrand");
        foreach (var (key, size) in new[] { (p + "small", 20), (p + "big", 500) })
        {
            c.Call(["ZADD", key, .. Enumerable.Range(0, size).SelectMany(i => new[] { i.ToString(CultureInfo.InvariantCulture), "m" + i })]);
            foreach (int count in new[] { 1, 2, 5, size / 2, size - 1 })
            {
                var picks = RespTree.Parse(c.Call("ZRANDMEMBER", key, count.ToString(CultureInfo.InvariantCulture))).Children.Select(x => x.Text!).ToList();
                Assert.Equal(count, picks.Count);
                Assert.Equal(count, picks.Distinct().Count());
                Assert.All(picks, m => Assert.StartsWith("m", m));
            }
            var withScores = RespTree.Parse(c.Call("ZRANDMEMBER", key, "7", "WITHSCORES")).Children;
            Assert.Equal(14, withScores.Count);
            for (int i = 0; i < 14; i += 2) Assert.Equal("m" + withScores[i + 1].Text, withScores[i].Text);
        }
    }

    [Fact]
    public void ZRandMember_NegativeCount_ExactCountWithRepeats()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("zrandneg") + "z";
        c.Call("ZADD", k, "1", "a", "2", "b", "3", "c");
        var picks = RespTree.Parse(c.Call("ZRANDMEMBER", k, "-1000")).Children.Select(x => x.Text!).ToList();
        Assert.Equal(1000, picks.Count);
        Assert.Equal(["a", "b", "c"], picks.Distinct().Order());
        c.Call("HELLO", "3");
        var pairs = RespTree.Parse(c.Call("ZRANDMEMBER", k, "-5", "WITHSCORES")).Children;
        Assert.Equal(5, pairs.Count);
        Assert.All(pairs, pair => Assert.Equal(2, pair.Children.Count));
        Assert.Matches("^\\$1\\r\\n[abc]\\r\\n$", c.Call("ZRANDMEMBER", k));
    }

    [Fact]
    public void ZRandMember_HugeNegativeCount_RefusedNotAllocated()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("zrandhuge") + "z";
        c.Call("ZADD", k, "1", "a");
        Assert.StartsWith("-ERR value is out of range", c.Call("ZRANDMEMBER", k, "-9223372036854775807"));
        Assert.StartsWith("-ERR value is out of range", c.Call("ZRANDMEMBER", k, "-4611686018427387903", "WITHSCORES"));
        Assert.StartsWith("-ERR value is out of range", c.Call("ZRANDMEMBER", k, "-2000000000"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    /// <summary>The shared server has 4 shards: inputs and destination hash to different ones and the commands still see them all.</summary>
    [Fact]
    public void SetOperations_KeysOnDifferentShards_AllSeen()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("zshards");
        var keys = Enumerable.Range(0, 8).Select(i => p + "in" + i).ToArray();
        for (int i = 0; i < keys.Length; i++) c.Call("ZADD", keys[i], i.ToString(CultureInfo.InvariantCulture), "common", "1", "own" + i);
        Assert.Equal(":9\r\n", c.Call(["ZUNIONSTORE", p + "dst", "8", .. keys]));
        Assert.Equal("$2\r\n28\r\n", c.Call("ZSCORE", p + "dst", "common"));
        Assert.Equal(":1\r\n", c.Call(["ZINTERSTORE", p + "dst2", "8", .. keys, "AGGREGATE", "MAX"]));
        Assert.Equal("$1\r\n7\r\n", c.Call("ZSCORE", p + "dst2", "common"));
        Assert.Equal(":1\r\n", c.Call(["ZINTERCARD", "8", .. keys]));
        Assert.Equal("*1\r\n$4\r\nown0\r\n", c.Call(["ZDIFF", "8", .. keys]));
        Assert.Equal($"*2\r\n${keys[0].Length}\r\n{keys[0]}\r\n*1\r\n*2\r\n$6\r\ncommon\r\n$1\r\n0\r\n",
            c.Call(["ZMPOP", "2", p + "missing", keys[0], "MIN"]));
        Assert.Equal(":2\r\n", c.Call("ZRANGESTORE", p + "range", keys[3], "0", "-1"));
    }

    [Fact]
    public void KeyspaceCommands_OnSortedSet_Work()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("zkeys") + "{k}";
        c.Call("ZADD", p + "z", "1", "a", "2", "b");
        Assert.Equal("+zset\r\n", c.Call("TYPE", p + "z"));
        Assert.Equal("$8\r\nlistpack\r\n", c.Call("OBJECT", "ENCODING", p + "z"));
        Assert.Equal(":1\r\n", c.Call("COPY", p + "z", p + "copy"));
        c.Call("ZADD", p + "copy", "3", "c");
        Assert.Equal(":2\r\n", c.Call("ZCARD", p + "z"));
        c.Call("ZADD", p + "copy", "4", new string('x', 100));
        Assert.Equal("$8\r\nskiplist\r\n", c.Call("OBJECT", "ENCODING", p + "copy"));
        Assert.Equal(":1\r\n", c.Call("COPY", p + "copy", p + "copy2"));
        Assert.Equal("$8\r\nskiplist\r\n", c.Call("OBJECT", "ENCODING", p + "copy2"));
        c.Call("ZREM", p + "copy2", "a");
        Assert.Equal("$1\r\n1\r\n", c.Call("ZSCORE", p + "copy", "a"));
        Assert.Equal("+OK\r\n", c.Call("RENAME", p + "copy2", p + "renamed"));
        Assert.Equal(":3\r\n", c.Call("ZCARD", p + "renamed"));
        Assert.Equal(":1\r\n", c.Call("EXPIRE", p + "renamed", "100"));
        c.Call("ZADD", p + "renamed", "9", "more");
        Assert.Contains(c.Call("TTL", p + "renamed"), new[] { ":100\r\n", ":99\r\n" }); // a slow machine may pass the half second
        Assert.Equal(":1\r\n", c.Call("PEXPIRE", p + "renamed", "1"));
        Thread.Sleep(20);
        Assert.Equal(":0\r\n", c.Call("ZCARD", p + "renamed"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "renamed"));
        c.Call("SET", p + "str", "v");
        Assert.Equal("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", c.Call("GET", p + "z"));
        Assert.Equal("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", c.Call("ZADD", p + "str", "1", "a"));
        Assert.Equal(":3\r\n", c.Call("DEL", p + "z", p + "copy", p + "str"));
        Assert.Equal("+none\r\n", c.Call("TYPE", p + "z"));
    }

    [Fact]
    public async Task ScanType_Zset_FindsOnlySortedSets()
    {
        var server = TestServer.Start(shards: 3);
        try
        {
            using var c = server.Connect();
            for (int i = 0; i < 40; i++) c.Call("ZADD", "z" + i, "1", "m");
            for (int i = 0; i < 40; i++) c.Call("SET", "s" + i, "v");
            var found = new List<string>();
            string cursor = "0";
            do
            {
                var reply = RespTree.Parse(c.Call("SCAN", cursor, "TYPE", "zset", "COUNT", "15"));
                cursor = reply.Children[0].Text!;
                found.AddRange(reply.Children[1].Children.Select(k => k.Text!));
            }
            while (cursor != "0");
            Assert.Equal(Enumerable.Range(0, 40).Select(i => "z" + i).Order(), found.Order());
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    /// <summary>A skiplist ZSCAN walk returns every member present throughout exactly once, even while the set grows and shrinks.</summary>
    [Fact]
    public void ZScan_WhileChanging_ReturnsStableMembersOnce()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("zscanwalk") + "z";
        c.Call(["ZADD", k, .. Enumerable.Range(0, 1000).SelectMany(i => new[] { (i % 10).ToString(CultureInfo.InvariantCulture), "s" + i })]);
        var seen = new List<string>();
        string cursor = "0";
        int round = 0;
        do
        {
            var reply = RespTree.Parse(c.Call("ZSCAN", k, cursor, "COUNT", "25"));
            cursor = reply.Children[0].Text!;
            var items = reply.Children[1].Children;
            for (int i = 0; i < items.Count; i += 2) seen.Add(items[i].Text!);
            c.Call("ZADD", k, "5", "t" + round);
            c.Call("ZREM", k, "t" + (round - 3));
            round++;
        }
        while (cursor != "0");
        var stable = seen.Where(m => m.StartsWith('s')).ToList();
        Assert.Equal(1000, stable.Count);
        Assert.Equal(1000, stable.Distinct().Count());
    }

    [RedisCliFact]
    public void RedisBenchmark_ZAddZPopMin_NoErrors()
    {
        var output = ToolRunner.Benchmark(Server.Port, "-n 20000 -t zadd,zpopmin");
        Assert.Contains("ZADD:", output);
        Assert.Contains("ZPOPMIN:", output);
    }
}
