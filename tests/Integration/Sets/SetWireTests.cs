using System.Text;
using RedisClone.Tests.CommandInfo;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Sets;

/// <summary>The set family over a raw socket on the shared server, asserting exact reply bytes.</summary>
public class SetWireTests
{
    private const string WrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

    private static TestServer Server => TestServer.Shared;

    private static List<string> Members(string raw) => RespTree.Parse(raw).Children.Select(c => c.Text!).ToList();

    /// <summary>Two key names that the shared server places on different shards.</summary>
    private static (string A, string B) KeysOnTwoShards(string prefix)
    {
        var shards = Server.Server.Shards;
        string a = prefix + "a";
        for (int i = 0; ; i++)
        {
            string b = prefix + "b" + i;
            if (shards.ShardOf(Encoding.UTF8.GetBytes(a)) != shards.ShardOf(Encoding.UTF8.GetBytes(b))) return (a, b);
        }
    }

    [Fact]
    public void SAdd_NewAndExistingMembers_CountsOnlyNewOnes()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("sadd") + "s";
        Assert.Equal(":3\r\n", c.Call("SADD", k, "a", "b", "c"));
        Assert.Equal(":1\r\n", c.Call("SADD", k, "a", "d", "d"));
        Assert.Equal(":0\r\n", c.Call("SADD", k, "a"));
        Assert.Equal(":4\r\n", c.Call("SCARD", k));
        Assert.Equal("-ERR wrong number of arguments for 'sadd' command\r\n", c.Call("SADD", k));
    }

    [Fact]
    public void SRem_LastMember_DeletesKey()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("srem") + "s";
        c.Call("SADD", k, "1", "2", "x");
        Assert.Equal(":2\r\n", c.Call("SREM", k, "1", "nope", "x"));
        Assert.Equal(":1\r\n", c.Call("SREM", k, "2", "2"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", k));
        Assert.Equal(":0\r\n", c.Call("SREM", k, "2"));
        Assert.Equal("+none\r\n", c.Call("TYPE", k));
    }

    [Fact]
    public void SMembers_Intset_AscendingExactBytes()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("smembers") + "s";
        c.Call("SADD", k, "10", "-3", "7", "100000", "-9223372036854775808");
        Assert.Equal("*5\r\n$20\r\n-9223372036854775808\r\n$2\r\n-3\r\n$1\r\n7\r\n$2\r\n10\r\n$6\r\n100000\r\n", c.Call("SMEMBERS", k));
        Assert.Equal("*0\r\n", c.Call("SMEMBERS", k + "missing"));
        c.Call("HELLO", "3");
        Assert.Equal("~0\r\n", c.Call("SINTER", k, k + "missing"));
        Assert.Equal("~0\r\n", c.Call("SMEMBERS", k + "missing"));
        Assert.StartsWith("~5\r\n", c.Call("SMEMBERS", k));
    }

    [Fact]
    public void Members_BinaryAndEmpty_RoundTripInEveryEncoding()
    {
        using var c = Server.Connect();
        var prefix = TestServer.KeyPrefix("binary");
        var every = Enumerable.Range(0, 256).Select(i => (byte)i).ToArray();
        var nul = new byte[] { 0, 0, 0 };
        var empty = Array.Empty<byte>();
        var small = Encoding.UTF8.GetBytes(prefix + "listpack");
        var big = Encoding.UTF8.GetBytes(prefix + "hashtable");
        Assert.Equal(":3\r\n", c.Call("SADD"u8.ToArray(), small, nul, empty, "1"u8.ToArray()));
        Assert.Equal("$8\r\nlistpack\r\n", c.Call("OBJECT", "ENCODING", prefix + "listpack"));
        Assert.Equal(":3\r\n", c.Call("SADD"u8.ToArray(), big, every, nul, empty));
        Assert.Equal("$9\r\nhashtable\r\n", c.Call("OBJECT", "ENCODING", prefix + "hashtable"));
        foreach (var key in new[] { small, big })
        {
            Assert.Equal(":1\r\n", c.Call("SISMEMBER"u8.ToArray(), key, empty));
            Assert.Equal(":1\r\n", c.Call("SISMEMBER"u8.ToArray(), key, nul));
            Assert.Equal(":0\r\n", c.Call("SISMEMBER"u8.ToArray(), key, new byte[] { 0, 0 }));
        }
        Assert.Equal(":1\r\n", c.Call("SISMEMBER"u8.ToArray(), big, every));
        var members = Members(c.Call("SMEMBERS"u8.ToArray(), big));
        Assert.Contains(Encoding.Latin1.GetString(every), members);
        Assert.Contains("", members);
        Assert.Equal(":1\r\n", c.Call("SREM"u8.ToArray(), small, empty));
        Assert.Equal(":2\r\n", c.Call("SCARD"u8.ToArray(), small));
    }

    [Fact]
    public void WrongType_EveryCommand_RepliesWrongType()
    {
        using var c = Server.Connect();
        var prefix = TestServer.KeyPrefix("wrongtype");
        var str = prefix + "str";
        var set = prefix + "set";
        c.Call("SET", str, "x");
        c.Call("SADD", set, "1");
        string[][] commands =
        [
            ["SADD", str, "a"], ["SREM", str, "a"], ["SCARD", str], ["SISMEMBER", str, "a"], ["SMISMEMBER", str, "a"],
            ["SMEMBERS", str], ["SPOP", str], ["SPOP", str, "2"], ["SRANDMEMBER", str], ["SRANDMEMBER", str, "2"],
            ["SMOVE", str, set, "a"], ["SMOVE", set, str, "1"], ["SINTER", set, str], ["SINTERSTORE", prefix + "d", set, str],
            ["SUNION", str], ["SUNIONSTORE", prefix + "d", str], ["SDIFF", set, str], ["SDIFFSTORE", prefix + "d", str],
            ["SINTERCARD", "2", set, str], ["SSCAN", str, "0"],
        ];
        foreach (var cmd in commands) Assert.Equal(WrongType, c.Call(cmd));
        Assert.Equal("$1\r\nx\r\n", c.Call("GET", str));
        Assert.Equal(":1\r\n", c.Call("SCARD", set));
    }

    [Fact]
    public void Pipeline_ManyCommandsInOneWrite_RepliesInOrder()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("pipeline") + "s";
        var batch = new List<byte>();
        for (int i = 0; i < 100; i++) batch.AddRange(RespClient.Encode("SADD", k, i.ToString()));
        batch.AddRange(RespClient.Encode("SCARD", k));
        batch.AddRange(RespClient.Encode("PING"));
        c.SendRaw(batch.ToArray());
        for (int i = 0; i < 100; i++) Assert.Equal(":1\r\n", c.ReadReply());
        Assert.Equal(":100\r\n", c.ReadReply());
        Assert.Equal("+PONG\r\n", c.ReadReply());
    }

    // ------------------------------------------------------------ SPOP / SRANDMEMBER (random: properties)

    [Theory]
    [InlineData(20, "")]      // intset
    [InlineData(20, "m")]     // listpack
    [InlineData(700, "")]     // hashtable of integers
    [InlineData(300, "m")]    // hashtable
    public void SPop_WithCount_ReturnsDistinctMembersAndRemovesThem(int size, string memberPrefix)
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("spop") + "s";
        var all = Enumerable.Range(0, size).Select(i => memberPrefix + i).ToHashSet();
        c.Call(["SADD", k, .. all]);
        // A small count (members popped one by one) and a large one (survivors rebuilt).
        foreach (int count in new[] { size / 10, size * 8 / 10 })
        {
            var before = Members(c.Call("SMEMBERS", k)).ToHashSet();
            var popped = Members(c.Call("SPOP", k, count.ToString()));
            Assert.Equal(count, popped.Count);
            Assert.Equal(count, popped.Distinct().Count());
            Assert.Subset(before, popped.ToHashSet());
            var after = Members(c.Call("SMEMBERS", k)).ToHashSet();
            Assert.Equal(before.Count - count, after.Count);
            Assert.Empty(after.Intersect(popped));
        }
        string one = RespTree.Parse(c.Call("SPOP", k)).Text!;
        Assert.Contains(one, all);
        Assert.Equal(":0\r\n", c.Call("SISMEMBER", k, one));
        var rest = Members(c.Call("SPOP", k, "100000"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", k));
        Assert.DoesNotContain(one, rest);
    }

    [Theory]
    [InlineData(10, "")]
    [InlineData(10, "m")]
    [InlineData(600, "")]
    [InlineData(600, "m")]
    public void SRandMember_Counts_FollowUniquenessRules(int size, string memberPrefix)
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("srandmember") + "s";
        var all = Enumerable.Range(0, size).Select(i => memberPrefix + i).ToHashSet();
        c.Call(["SADD", k, .. all]);
        foreach (int count in new[] { 1, 3, size / 2, size - 1, size, size + 5 })
        {
            var got = Members(c.Call("SRANDMEMBER", k, count.ToString()));
            Assert.Equal(Math.Min(count, size), got.Count);
            Assert.Equal(got.Count, got.Distinct().Count());
            Assert.Subset(all, got.ToHashSet());
        }
        var repeats = Members(c.Call("SRANDMEMBER", k, "-" + (size * 3)));
        Assert.Equal(size * 3, repeats.Count);
        Assert.Subset(all, repeats.ToHashSet());
        Assert.True(repeats.Distinct().Count() < repeats.Count);
        Assert.Contains(RespTree.Parse(c.Call("SRANDMEMBER", k)).Text!, all);
        Assert.Equal(":" + size + "\r\n", c.Call("SCARD", k));
    }

    [Fact]
    public void SRandMember_NegativeCount_RoughlyUniform()
    {
        using var c = Server.Connect();
        var prefix = TestServer.KeyPrefix("uniform");
        foreach (var (key, members) in new[] { (prefix + "i", Enumerable.Range(0, 10).Select(i => i.ToString())),
                     (prefix + "l", Enumerable.Range(0, 10).Select(i => "m" + i)),
                     (prefix + "h", Enumerable.Range(0, 200).Select(i => "h" + i)) })
        {
            var list = members.ToList();
            c.Call(["SADD", key, .. list]);
            var draws = Members(c.Call("SRANDMEMBER", key, "-" + (list.Count * 1000)));
            var histogram = draws.GroupBy(d => d).ToDictionary(g => g.Key, g => g.Count());
            Assert.Equal(list.Count, histogram.Count);
            // 1000 expected per member; a fair draw stays far inside these bounds.
            Assert.All(histogram.Values, n => Assert.InRange(n, 800, 1200));
        }
    }

    [Fact]
    public void SRandMember_HugeNegativeCount_RefusedWithoutAllocating()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("huge") + "s";
        c.Call("SADD", k, "a", "b", "1");
        Assert.Equal("-ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807\r\n",
            c.Call("SRANDMEMBER", k, "-9223372036854775808"));
        const string TooLarge = "-ERR value is out of range, the reply to this count would exceed proto-max-bulk-len\r\n";
        Assert.Equal(TooLarge, c.Call("SRANDMEMBER", k, "-9223372036854775807"));
        Assert.Equal(TooLarge, c.Call("SRANDMEMBER", k, "-4611686018427387904"));
        // Huge positive counts are bounded by the set itself; missing keys answer as Redis does.
        Assert.Equal(3, Members(c.Call("SRANDMEMBER", k, "9223372036854775807")).Count);
        Assert.Equal("*0\r\n", c.Call("SRANDMEMBER", k + "missing", "-9223372036854775807"));
        Assert.Equal(3, Members(c.Call("SPOP", k, "9223372036854775807")).Count);
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    // ------------------------------------------------------------ keys on several shards

    [Fact]
    public void SMove_KeysOnDifferentShards_MovesAndCreatesDestination()
    {
        using var c = Server.Connect();
        var (a, b) = KeysOnTwoShards(TestServer.KeyPrefix("smove"));
        c.Call("SADD", a, "1", "2", "x");
        Assert.Equal(":1\r\n", c.Call("SMOVE", a, b, "x"));
        Assert.Equal(":1\r\n", c.Call("SMOVE", a, b, "1"));
        Assert.Equal(":0\r\n", c.Call("SMOVE", a, b, "nope"));
        Assert.Equal("*1\r\n$1\r\n2\r\n", c.Call("SMEMBERS", a));
        Assert.Equal(":1\r\n", c.Call("SMOVE", a, b, "2"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", a));
        Assert.Equal(":3\r\n", c.Call("SCARD", b));
        c.Call("SET", a, "str");
        Assert.Equal(WrongType, c.Call("SMOVE", b, a, "1"));
        Assert.Equal(":3\r\n", c.Call("SCARD", b));
    }

    [Fact]
    public async Task SMove_ConcurrentWithSUnion_TotalNeverChanges()
    {
        var (a, b) = KeysOnTwoShards(TestServer.KeyPrefix("smoveatomic"));
        using (var setup = Server.Connect()) setup.Call(["SADD", a, .. Enumerable.Range(0, 200).Select(i => "m" + i)]);
        var mover = Task.Run(() =>
        {
            using var c = Server.Connect();
            for (int round = 0; round < 3; round++)
                for (int i = 0; i < 200; i++)
                {
                    Assert.Equal(":1\r\n", c.Call("SMOVE", round % 2 == 0 ? a : b, round % 2 == 0 ? b : a, "m" + i));
                }
        });
        using var reader = Server.Connect();
        int checks = 0;
        while (!mover.IsCompleted && checks < 5000)
        {
            // Both gates are held for each SMOVE and each SUNION: a member is never seen in both or neither.
            Assert.Equal(200, Members(reader.Call("SUNION", a, b)).Count);
            checks++;
        }
        await mover;
        Assert.Equal(":200\r\n", reader.Call("SCARD", b));
    }

    [Fact]
    public void StoreAndCard_KeysOnEveryShard_WorkAsOneCommand()
    {
        using var c = Server.Connect();
        var prefix = TestServer.KeyPrefix("multishard");
        var keys = Enumerable.Range(0, 12).Select(i => prefix + i).ToArray();
        for (int i = 0; i < keys.Length; i++)
            c.Call(["SADD", keys[i], "common", "k" + i, .. Enumerable.Range(0, i + 1).Select(n => n.ToString())]);
        Assert.Equal(":2\r\n", c.Call(["SINTERSTORE", prefix + "dst", .. keys]));
        Assert.Equal(new[] { "0", "common" }, Members(c.Call("SMEMBERS", prefix + "dst")).Order());
        Assert.Equal(":2\r\n", c.Call(["SINTERCARD", keys.Length.ToString(), .. keys]));
        Assert.Equal(":1\r\n", c.Call(["SINTERCARD", keys.Length.ToString(), .. keys, "LIMIT", "1"]));
        Assert.Equal(":25\r\n", c.Call(["SUNIONSTORE", prefix + "dst", .. keys]));
        Assert.Equal(":2\r\n", c.Call(["SDIFFSTORE", prefix + "dst", keys[^1], .. keys[..^1]]));
        Assert.Equal(new[] { "11", "k11" }, Members(c.Call("SMEMBERS", prefix + "dst")).Order());
        Assert.Equal(":0\r\n", c.Call(["SINTERSTORE", prefix + "dst", .. keys, prefix + "missing"]));
        Assert.Equal(":0\r\n", c.Call("EXISTS", prefix + "dst"));
    }

    [Fact]
    public void SInterCard_ManyKeys_MoreThanTheFinderIndexes()
    {
        using var c = Server.Connect();
        var prefix = TestServer.KeyPrefix("manykeys");
        var keys = Enumerable.Range(0, 300).Select(i => prefix + i).ToArray();
        foreach (var k in keys) c.Call("SADD", k, "a", "b");
        Assert.Equal(":2\r\n", c.Call(["SINTERCARD", keys.Length.ToString(), .. keys]));
        Assert.Equal(":2\r\n", c.Call(["SINTERSTORE", prefix + "d", .. keys]));
    }

    [Fact]
    public void SInterCard_BadNumKeys_ErrorsWithoutTouchingKeys()
    {
        using var c = Server.Connect();
        Assert.Equal("-ERR numkeys should be greater than 0\r\n", c.Call("SINTERCARD", "0", "a"));
        Assert.Equal("-ERR numkeys should be greater than 0\r\n", c.Call("SINTERCARD", "x", "a"));
        Assert.Equal("-ERR Number of keys can't be greater than number of args\r\n", c.Call("SINTERCARD", "5", "a", "b"));
        Assert.Equal("-ERR LIMIT can't be negative\r\n", c.Call("SINTERCARD", "1", "a", "LIMIT", "-1"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("SINTERCARD", "1", "a", "LIMIT"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    // ------------------------------------------------------------ SSCAN

    [Fact]
    public void SScan_SmallEncodings_EverythingInOneCallWithCursorZero()
    {
        using var c = Server.Connect();
        var prefix = TestServer.KeyPrefix("sscansmall");
        c.Call("SADD", prefix + "i", "3", "1", "2");
        c.Call("SADD", prefix + "l", "b", "a", "c");
        Assert.Equal("*2\r\n$1\r\n0\r\n*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n", c.Call("SSCAN", prefix + "i", "0", "COUNT", "1"));
        Assert.Equal("*2\r\n$1\r\n0\r\n*3\r\n$1\r\nb\r\n$1\r\na\r\n$1\r\nc\r\n", c.Call("SSCAN", prefix + "l", "77"));
        Assert.Equal("*2\r\n$1\r\n0\r\n*1\r\n$1\r\na\r\n", c.Call("SSCAN", prefix + "l", "0", "MATCH", "a*"));
    }

    [Fact]
    public void SScan_HashtableChangingDuringScan_ReturnsEveryStableMemberOnce()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("sscanbig") + "s";
        var stable = Enumerable.Range(0, 2000).Select(i => "s" + i).ToList();
        c.Call(["SADD", k, .. stable]);
        c.Call(["SADD", k, .. Enumerable.Range(0, 500).Select(i => "gone" + i)]);
        var seen = new List<string>();
        string cursor = "0";
        int round = 0, added = 0;
        do
        {
            var reply = RespTree.Parse(c.Call("SSCAN", k, cursor, "COUNT", "50"));
            cursor = reply.Children[0].Text!;
            seen.AddRange(reply.Children[1].Children.Select(m => m.Text!));
            // Grow the table (forcing resizes) and delete other members while the scan runs.
            if (round < 20)
            {
                c.Call(["SADD", k, .. Enumerable.Range(added, 100).Select(i => "new" + i)]);
                added += 100;
            }
            if (round < 50) c.Call(["SREM", k, .. Enumerable.Range(round * 10, 10).Select(i => "gone" + i)]);
            round++;
        } while (cursor != "0" && round < 10_000);
        Assert.Equal("0", cursor);
        var stableSeen = seen.Where(m => m.StartsWith('s')).ToList();
        Assert.Equal(stable.Count, stableSeen.Count);
        Assert.Equal(stable.Order(), stableSeen.Order());
        Assert.Equal(seen.Count, seen.Distinct().Count());
    }

    [Fact]
    public void SScan_CountIsWorkPerCall()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("sscancount") + "s";
        c.Call(["SADD", k, .. Enumerable.Range(0, 1000).Select(i => "m" + i)]);
        var reply = RespTree.Parse(c.Call("SSCAN", k, "0", "COUNT", "100"));
        Assert.NotEqual("0", reply.Children[0].Text);
        Assert.InRange(reply.Children[1].Children.Count, 90, 110);
        reply = RespTree.Parse(c.Call("SSCAN", k, "0", "COUNT", "5000"));
        Assert.Equal("0", reply.Children[0].Text);
        Assert.Equal(1000, reply.Children[1].Children.Count);
        Assert.Equal("*2\r\n$1\r\n0\r\n*0\r\n", c.Call("SSCAN", k, "99999999999"));
    }
}
