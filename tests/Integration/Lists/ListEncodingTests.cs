using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Lists;

/// <summary>
/// OBJECT ENCODING of lists follows Redis 7.2 (Debian's 7.0 says "quicklist" for every list, so these
/// are not differential). The expected transitions were taken from redis-server 7.2.6 running the
/// same commands. Tests that change list-max-listpack-size use a private server.
/// </summary>
public class ListEncodingTests
{
    private static string Encoding(RespClient c, string key) => c.Call("OBJECT", "ENCODING", key);

    private const string Listpack = "$8\r\nlistpack\r\n";
    private const string Quicklist = "$9\r\nquicklist\r\n";

    [Fact]
    public void DefaultLimit_GrowsPast8KB_ThenShrinksBelowHalf()
    {
        using var c = TestServer.Shared.Connect();
        var k = TestServer.KeyPrefix("enc") + "l";
        var v = new string('x', 100);
        // Each element is 103 listpack bytes: 79 fit in 8 KB with room for the next one's 100 bytes, 80 do not.
        for (int i = 1; i <= 79; i++) c.Call("RPUSH", k, v);
        Assert.Equal(Listpack, Encoding(c, k));
        c.Call("RPUSH", k, v);
        Assert.Equal(Quicklist, Encoding(c, k));
        // Back to a listpack only as one node of at most 4 KB: 39 elements.
        for (int i = 80; i > 40; i--) c.Call("RPOP", k);
        Assert.Equal(Quicklist, Encoding(c, k));
        c.Call("RPOP", k);
        Assert.Equal(Listpack, Encoding(c, k));
    }

    [Fact]
    public void MultiElementPush_ConvertsBeforePushing()
    {
        using var c = TestServer.Shared.Connect();
        var p = TestServer.KeyPrefix("encmulti");
        var v = new string('y', 1000);
        c.Call(["RPUSH", p + "a", .. Enumerable.Repeat(v, 8)]);
        Assert.Equal(Listpack, Encoding(c, p + "a"));
        c.Call(["RPUSH", p + "b", .. Enumerable.Repeat(v, 9)]);
        Assert.Equal(Quicklist, Encoding(c, p + "b"));
    }

    [Fact]
    public void LSetAndLInsert_CheckGrowthEvenWhenTheyFail()
    {
        using var c = TestServer.Shared.Connect();
        var p = TestServer.KeyPrefix("encedit");
        var v = new string('y', 1000);
        var z = new string('z', 200);
        foreach (var k in new[] { "a", "b", "c" }) c.Call(["RPUSH", p + k, .. Enumerable.Repeat(v, 8)]);
        c.Call("LSET", p + "a", "0", z);
        Assert.Equal(Quicklist, Encoding(c, p + "a"));
        Assert.Equal("-ERR index out of range\r\n", c.Call("LSET", p + "b", "100", z));
        Assert.Equal(Quicklist, Encoding(c, p + "b"));
        Assert.Equal(":-1\r\n", c.Call("LINSERT", p + "c", "BEFORE", "nope", z));
        Assert.Equal(Quicklist, Encoding(c, p + "c"));
    }

    [Fact]
    public async Task CountLimit_ConvertsAtLimitAndBackAtHalf()
    {
        var server = TestServer.Start(shards: 2, "--list-max-listpack-size", "5");
        try
        {
            using var c = server.Connect();
            var seen = new List<string>();
            for (int i = 1; i <= 7; i++)
            {
                c.Call("RPUSH", "m", i.ToString());
                seen.Add(Encoding(c, "m"));
            }
            for (int i = 0; i < 7; i++)
            {
                c.Call("LPOP", "m");
                seen.Add(Encoding(c, "m"));
            }
            string[] expected =
            [
                Listpack, Listpack, Listpack, Listpack, Listpack, Quicklist, Quicklist,
                Quicklist, Quicklist, Quicklist, Quicklist, Listpack, Listpack, "$-1\r\n",
            ];
            Assert.Equal(expected, seen);

            // A new limit applies to the next conversion check.
            c.Call("RPUSH", "n", "a", "b", "c");
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "list-max-listpack-size", "2"));
            c.Call("RPUSH", "n", "d");
            Assert.Equal(Quicklist, Encoding(c, "n"));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public async Task SmallSizeClass_MinusOne_Converts4KB()
    {
        var server = TestServer.Start(shards: 1, "--list-max-listpack-size", "-1");
        try
        {
            using var c = server.Connect();
            var v = new string('x', 100);
            for (int i = 1; i <= 39; i++) c.Call("RPUSH", "l", v);
            Assert.Equal(Listpack, Encoding(c, "l"));
            c.Call("RPUSH", "l", v);
            Assert.Equal(Quicklist, Encoding(c, "l"));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public void TrimAndRem_ShrinkBackToListpack()
    {
        using var c = TestServer.Shared.Connect();
        var p = TestServer.KeyPrefix("encshrink");
        var v = new string('x', 100);
        c.Call(["RPUSH", p + "t", .. Enumerable.Repeat(v, 200)]);
        Assert.Equal(Quicklist, Encoding(c, p + "t"));
        c.Call("LTRIM", p + "t", "0", "9");
        Assert.Equal(Listpack, Encoding(c, p + "t"));

        c.Call(["RPUSH", p + "r", .. Enumerable.Repeat(v, 200)]);
        c.Call("RPUSH", p + "r", "tail");
        Assert.Equal(":200\r\n", c.Call("LREM", p + "r", "0", v));
        Assert.Equal(Listpack, Encoding(c, p + "r"));
    }
}
