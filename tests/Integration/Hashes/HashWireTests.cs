using System.Diagnostics;
using RedisClone.Tests.CommandInfo;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Hashes;

/// <summary>The hash family over a raw socket on the shared server: exact reply bytes, and properties of random replies.</summary>
public class HashWireTests
{
    private const string WrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
    private const string OutOfRange = "-ERR value is out of range\r\n";

    private static TestServer Server => TestServer.Shared;

    private static string Bulk(string s) => $"${s.Length}\r\n{s}\r\n";

    /// <summary>A hash of <paramref name="n"/> fields f0.. with values v0..; over 512 fields it is a hashtable.</summary>
    private static void Fill(RespClient c, string key, int n)
    {
        var args = new List<string> { "HSET", key };
        for (int i = 0; i < n; i++) args.AddRange(["f" + i, "v" + i]);
        Assert.Equal($":{n}\r\n", c.Call(args.ToArray()));
    }

    [Fact]
    public void Pipeline_MixedCommands_RepliesInOrder()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("hpipe") + "h";
        var batch = new List<byte>();
        string[][] cmds =
        [
            ["HSET", k, "a", "1", "b", "2"],
            ["HGET", k, "a"],
            ["HINCRBY", k, "a", "41"],
            ["HMGET", k, "a", "zz", "b"],
            ["HSET", k, "odd"],
            ["HDEL", k, "b", "zz"],
            ["HGETALL", k],
            ["HLEN", k],
            ["PING"],
        ];
        foreach (var cmd in cmds) batch.AddRange(RespClient.Encode(cmd));
        c.SendRaw(batch.ToArray());
        Assert.Equal(":2\r\n", c.ReadReply());
        Assert.Equal("$1\r\n1\r\n", c.ReadReply());
        Assert.Equal(":42\r\n", c.ReadReply());
        Assert.Equal("*3\r\n$2\r\n42\r\n$-1\r\n$1\r\n2\r\n", c.ReadReply());
        Assert.Equal("-ERR wrong number of arguments for 'hset' command\r\n", c.ReadReply());
        Assert.Equal(":1\r\n", c.ReadReply());
        Assert.Equal("*2\r\n$1\r\na\r\n$2\r\n42\r\n", c.ReadReply());
        Assert.Equal(":1\r\n", c.ReadReply());
        Assert.Equal("+PONG\r\n", c.ReadReply());
    }

    [Fact]
    public void HGetAll_Resp3_IsAMap()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("hmap") + "h";
        c.Call("HSET", k, "x", "1", "y", "2");
        c.Call("HELLO", "3");
        Assert.Equal("%2\r\n$1\r\nx\r\n$1\r\n1\r\n$1\r\ny\r\n$1\r\n2\r\n", c.Call("HGETALL", k));
        Assert.Equal("%0\r\n", c.Call("HGETALL", k + "missing"));
        Assert.Equal("*2\r\n$1\r\n1\r\n_\r\n", c.Call("HMGET", k, "x", "nope"));
    }

    [Fact]
    public void AllCommands_WrongType_ReplyWrongType()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("hwrong") + "s";
        c.Call("SET", k, "x");
        string[][] cmds =
        [
            ["HSET", k, "a", "1"], ["HMSET", k, "a", "1"], ["HSETNX", k, "a", "1"], ["HGET", k, "a"],
            ["HMGET", k, "a"], ["HGETALL", k], ["HKEYS", k], ["HVALS", k], ["HLEN", k], ["HEXISTS", k, "a"],
            ["HDEL", k, "a"], ["HSTRLEN", k, "a"], ["HINCRBY", k, "a", "1"], ["HINCRBYFLOAT", k, "a", "1"],
            ["HRANDFIELD", k], ["HRANDFIELD", k, "-2"], ["HSCAN", k, "0"],
        ];
        foreach (var cmd in cmds) Assert.Equal(WrongType, c.Call(cmd));
        Assert.Equal("$1\r\nx\r\n", c.Call("GET", k));
    }

    [Theory]
    [InlineData(5)]
    [InlineData(600)]
    public void HRandField_PositiveCount_DistinctFieldsOfTheHash(int size)
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("hrand") + "h";
        Fill(c, k, size);
        foreach (int count in new[] { 1, 2, 3, size - 1, size, size + 10 })
        {
            var reply = RespTree.Parse(c.Call("HRANDFIELD", k, count.ToString()));
            var fields = reply.Children.Select(ch => ch.Text!).ToList();
            Assert.Equal(Math.Min(count, size), fields.Count);
            Assert.Equal(fields.Count, fields.Distinct().Count());
            Assert.All(fields, f => Assert.Matches("^f\\d+$", f));
            Assert.All(fields, f => Assert.True(int.Parse(f[1..]) < size));
        }
        var withValues = RespTree.Parse(c.Call("HRANDFIELD", k, "3", "WITHVALUES"));
        Assert.Equal(Math.Min(3, size) * 2, withValues.Children.Count);
        foreach (var (field, value) in withValues.Pairs()) Assert.Equal("v" + field[1..], value.Text);
    }

    [Theory]
    [InlineData(5)]
    [InlineData(600)]
    public void HRandField_NegativeCount_ExactCountWithRepeats(int size)
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("hrandneg") + "h";
        Fill(c, k, size);
        var reply = RespTree.Parse(c.Call("HRANDFIELD", k, "-2000"));
        Assert.Equal(2000, reply.Children.Count);
        var distinct = reply.Children.Select(ch => ch.Text!).Distinct().ToList();
        Assert.All(distinct, f => Assert.True(int.Parse(f[1..]) < size));
        // 2000 uniform draws from 5 fields hit all of them; from 600, well over half.
        Assert.True(distinct.Count >= Math.Min(size, 300), $"only {distinct.Count} distinct fields");

        c.Call("HELLO", "3");
        var pairs = RespTree.Parse(c.Call("HRANDFIELD", k, "-7", "WITHVALUES"));
        Assert.Equal('*', pairs.Type);
        Assert.Equal(7, pairs.Children.Count);
        foreach (var pair in pairs.Children)
        {
            Assert.Equal('*', pair.Type);
            Assert.Equal(2, pair.Children.Count);
            Assert.Equal("v" + pair.Children[0].Text![1..], pair.Children[1].Text);
        }
        var single = c.Call("HRANDFIELD", k);
        Assert.Matches("^\\$\\d+\r\nf\\d+\r\n$", single);
    }

    [Fact]
    public void HRandField_HugeNegativeCount_RefusedWithoutAllocating()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("hrandhuge") + "h";
        Fill(c, k, 10);
        var sw = Stopwatch.StartNew();
        Assert.Equal(OutOfRange, c.Call("HRANDFIELD", k, "-9223372036854775807"));
        Assert.Equal(OutOfRange, c.Call("HRANDFIELD", k, "-4611686018427387903", "WITHVALUES"));
        Assert.Equal(OutOfRange, c.Call("HRANDFIELD", k, "-1000000000"));
        Assert.Equal(OutOfRange, c.Call("HRANDFIELD", k, "-4611686018427387904", "WITHVALUES"));
        Assert.True(sw.ElapsedMilliseconds < 5000);
        // Positive counts are bounded by the hash itself.
        Assert.Equal(20, RespTree.Parse(c.Call("HRANDFIELD", k, "4611686018427387903", "WITHVALUES")).Children.Count);
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void HScan_HashtableWhileModified_ReturnsEveryStableFieldOnce()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("hscanmod") + "h";
        Fill(c, k, 1000);
        Assert.Equal("$9\r\nhashtable\r\n", c.Call("OBJECT", "ENCODING", k));
        var seen = new List<string>();
        string cursor = "0";
        int round = 0;
        do
        {
            var reply = RespTree.Parse(c.Call("HSCAN", k, cursor, "COUNT", "25"));
            cursor = reply.Children[0].Text!;
            var items = reply.Children[1].Children;
            Assert.True(items.Count % 2 == 0);
            for (int i = 0; i < items.Count; i += 2) seen.Add(items[i].Text!);
            // Churn: add new fields, delete some odd ones, grow the table past a few resizes.
            for (int j = 0; j < 8; j++) c.Call("HSET", k, $"new{round}_{j}", "x");
            c.Call("HDEL", k, "f" + (2 * round + 1));
            round++;
        } while (cursor != "0" && round < 10_000);
        Assert.Equal("0", cursor);
        var stable = seen.Where(f => f.StartsWith('f')).ToList();
        Assert.Equal(stable.Count, stable.Distinct().Count());
        for (int i = 0; i < 1000; i += 2) Assert.Contains("f" + i, stable);
    }

    [Fact]
    public void HScan_CountIsWork_MatchFiltersAfterwards()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("hscancount") + "h";
        Fill(c, k, 600);
        var reply = RespTree.Parse(c.Call("HSCAN", k, "0", "COUNT", "20"));
        // 20 fields, each with its value: Redis 7.2 counts COUNT in fields (7.0.15 in strings, so 10 fields).
        Assert.Equal(40, reply.Children[1].Children.Count);
        Assert.NotEqual("0", reply.Children[0].Text);
        reply = RespTree.Parse(c.Call("HSCAN", k, "0", "MATCH", "f1", "COUNT", "100000"));
        Assert.Equal("*2\r\n$1\r\n0\r\n*2\r\n$2\r\nf1\r\n$2\r\nv1\r\n", reply.Raw);
        Assert.Equal("*2\r\n$1\r\n0\r\n*0\r\n", c.Call("HSCAN", k, "99999999999"));
    }

    [Fact]
    public async Task HIncrBy_ConcurrentClients_NoLostUpdates()
    {
        var k = TestServer.KeyPrefix("hincrconc") + "h";
        var tasks = Enumerable.Range(0, 4).Select(_ => Task.Run(() =>
        {
            using var c = Server.Connect();
            for (int i = 0; i < 500; i++) c.Call("HINCRBY", k, "n", "1");
        })).ToArray();
        await Task.WhenAll(tasks);
        using var check = Server.Connect();
        Assert.Equal("$4\r\n2000\r\n", check.Call("HGET", k, "n"));
    }

    [Fact]
    public void Expired_Hash_IsGoneForEveryCommand()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("hexp") + "h";
        c.Call("HSET", k, "a", "1");
        Assert.Equal(":1\r\n", c.Call("PEXPIRE", k, "30"));
        Thread.Sleep(80);
        Assert.Equal("$-1\r\n", c.Call("HGET", k, "a"));
        Assert.Equal(":0\r\n", c.Call("HLEN", k));
        Assert.Equal(":1\r\n", c.Call("HINCRBY", k, "a", "1"));
        Assert.Equal(":-1\r\n", c.Call("TTL", k));
        Assert.Equal(Bulk("1"), c.Call("HGET", k, "a"));
    }
}
