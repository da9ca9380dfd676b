using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Sets;

/// <summary>
/// OBJECT ENCODING after sequences of commands, by Redis 7.2's rules (the reference server is 7.0,
/// which has no listpack sets, so these are asserted here rather than compared): intset for
/// canonical integers up to set-max-intset-entries, listpack for up to set-max-listpack-entries
/// members of at most set-max-listpack-value bytes, hashtable beyond; never back to smaller.
/// </summary>
public class SetEncodingTests
{
    private static TestServer Server => TestServer.Shared;

    private static string Encoding(RespClient c, string key) => c.Call("OBJECT", "ENCODING", key);

    private const string Intset = "$6\r\nintset\r\n";
    private const string Listpack = "$8\r\nlistpack\r\n";
    private const string Hashtable = "$9\r\nhashtable\r\n";

    private static string[] Ints(int from, int count) => Enumerable.Range(from, count).Select(i => i.ToString()).ToArray();

    private static string[] Strings(int count, string prefix = "m") => Enumerable.Range(0, count).Select(i => prefix + i).ToArray();

    [Fact]
    public void Encoding_Integers_IntsetUntilTheLimit()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("enc") + "s";
        c.Call(["SADD", k, .. Ints(0, 512)]);
        Assert.Equal(Intset, Encoding(c, k));
        c.Call("SADD", k, "512");
        Assert.Equal(Hashtable, Encoding(c, k));
        c.Call(["SREM", k, .. Ints(1, 512)]);
        Assert.Equal(Hashtable, Encoding(c, k)); // never converts back
    }

    [Fact]
    public void Encoding_Strings_ListpackUntilEntriesOrValueLimit()
    {
        using var c = Server.Connect();
        var prefix = TestServer.KeyPrefix("enc");
        c.Call(["SADD", prefix + "a", .. Strings(128)]);
        Assert.Equal(Listpack, Encoding(c, prefix + "a"));
        c.Call("SADD", prefix + "a", "one-more");
        Assert.Equal(Hashtable, Encoding(c, prefix + "a"));

        c.Call("SADD", prefix + "b", new string('x', 64));
        Assert.Equal(Listpack, Encoding(c, prefix + "b"));
        c.Call("SADD", prefix + "b", new string('x', 65));
        Assert.Equal(Hashtable, Encoding(c, prefix + "b"));
        c.Call("SADD", prefix + "c", new string('x', 65));
        Assert.Equal(Hashtable, Encoding(c, prefix + "c"));
    }

    [Fact]
    public void Encoding_IntsetReceivingAString_ListpackWhenItFitsElseHashtable()
    {
        using var c = Server.Connect();
        var prefix = TestServer.KeyPrefix("enc");
        c.Call(["SADD", prefix + "a", .. Ints(0, 100)]);
        c.Call("SADD", prefix + "a", "x");
        Assert.Equal(Listpack, Encoding(c, prefix + "a"));
        Assert.Equal(":101\r\n", c.Call("SCARD", prefix + "a"));
        Assert.Equal(":1\r\n", c.Call("SISMEMBER", prefix + "a", "99"));

        c.Call(["SADD", prefix + "b", .. Ints(0, 128)]);
        c.Call("SADD", prefix + "b", "x");
        Assert.Equal(Hashtable, Encoding(c, prefix + "b"));

        c.Call("SADD", prefix + "c", "1", "01");
        Assert.Equal(Listpack, Encoding(c, prefix + "c"));
        c.Call("SADD", prefix + "d", "-0");
        Assert.Equal(Listpack, Encoding(c, prefix + "d"));
        c.Call("SADD", prefix + "e", "9223372036854775808");
        Assert.Equal(Listpack, Encoding(c, prefix + "e"));
    }

    [Fact]
    public void Encoding_SAddArgumentCount_DecidesUpFront()
    {
        using var c = Server.Connect();
        var prefix = TestServer.KeyPrefix("enc");
        // A new key with more arguments than an intset holds starts as a hashtable, duplicates or not.
        c.Call(["SADD", prefix + "a", .. Enumerable.Repeat("1", 513)]);
        Assert.Equal(Hashtable, Encoding(c, prefix + "a"));
        c.Call(["SADD", prefix + "b", .. Enumerable.Repeat("x", 129)]);
        Assert.Equal(Hashtable, Encoding(c, prefix + "b"));
        // An existing listpack or intset converts before a large SADD.
        c.Call("SADD", prefix + "c", "x");
        c.Call(["SADD", prefix + "c", .. Enumerable.Repeat("x", 129)]);
        Assert.Equal(Hashtable, Encoding(c, prefix + "c"));
        c.Call("SADD", prefix + "d", "1");
        c.Call(["SADD", prefix + "d", .. Enumerable.Repeat("2", 513)]);
        Assert.Equal(Hashtable, Encoding(c, prefix + "d"));
        Assert.Equal(":2\r\n", c.Call("SCARD", prefix + "d"));
    }

    [Fact]
    public void Encoding_StoreResults_FollowRedis72()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("enc") + "{t}";
        c.Call(["SADD", p + "ints", .. Ints(0, 700)]);          // hashtable of integers
        c.Call(["SADD", p + "ints2", .. Ints(300, 700)]);
        c.Call(["SADD", p + "strs", .. Strings(300)]);
        c.Call(["SADD", p + "strs2", .. Strings(100)]);
        c.Call(["SADD", p + "small", "1", "2", "m1"]);

        // SINTERSTORE: all-integer results become an intset even from hashtables.
        // 400 members: past the listpack while building, back to an intset at the end.
        Assert.Equal(":400\r\n", c.Call("SINTERSTORE", p + "d", p + "ints", p + "ints2"));
        Assert.Equal(Intset, Encoding(c, p + "d"));
        Assert.Equal(":700\r\n", c.Call("SINTERSTORE", p + "d", p + "ints", p + "ints"));
        Assert.Equal(Hashtable, Encoding(c, p + "d"));
        c.Call("SINTERSTORE", p + "d", p + "strs", p + "strs2");
        Assert.Equal(Listpack, Encoding(c, p + "d"));
        c.Call("SINTERSTORE", p + "d", p + "strs", p + "strs");
        Assert.Equal(Hashtable, Encoding(c, p + "d"));
        c.Call("SINTERSTORE", p + "d", p + "small", p + "ints");
        Assert.Equal(Intset, Encoding(c, p + "d"));

        // SUNIONSTORE / SDIFFSTORE: built from an empty intset, converting as members arrive.
        c.Call("SUNIONSTORE", p + "d", p + "small", p + "strs2");
        Assert.Equal(Listpack, Encoding(c, p + "d"));
        c.Call("SUNIONSTORE", p + "d", p + "ints");
        Assert.Equal(Hashtable, Encoding(c, p + "d"));
        c.Call("SDIFFSTORE", p + "d", p + "small", p + "strs2");
        Assert.Equal(Intset, Encoding(c, p + "d"));
        c.Call("SDIFFSTORE", p + "d", p + "strs", p + "strs2");
        Assert.Equal(Hashtable, Encoding(c, p + "d"));
    }

    [Fact]
    public void Encoding_SPopLeavingFewSurvivors_RebuildsCompactly()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("enc");
        c.Call(["SADD", p + "ints", .. Ints(0, 700)]);
        c.Call("SPOP", p + "ints", "690");
        Assert.Equal(Listpack, Encoding(c, p + "ints")); // survivors of a hashtable go to a listpack
        c.Call(["SADD", p + "strs", .. Strings(300)]);
        c.Call("SPOP", p + "strs", "299");
        Assert.Equal(Listpack, Encoding(c, p + "strs"));
        c.Call(["SADD", p + "few", .. Strings(300)]);
        c.Call("SPOP", p + "few", "10");
        Assert.Equal(Hashtable, Encoding(c, p + "few")); // popped one by one: stays
        c.Call(["SADD", p + "i", .. Ints(0, 100)]);
        c.Call("SPOP", p + "i", "95");
        Assert.Equal(Intset, Encoding(c, p + "i"));
        Assert.Equal(":5\r\n", c.Call("SCARD", p + "i"));
    }

    [Fact]
    public void Encoding_SMoveToNewKey_CreatedForTheMember()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("enc");
        c.Call("SADD", p + "src", "1", "x");
        c.Call("SMOVE", p + "src", p + "a", "1");
        c.Call("SMOVE", p + "src", p + "b", "x");
        Assert.Equal(Intset, Encoding(c, p + "a"));
        Assert.Equal(Listpack, Encoding(c, p + "b"));
    }

    [Fact]
    public async Task Encoding_ConfigSetThresholds_TakeEffect()
    {
        var server = TestServer.Start(shards: 2);
        try
        {
            using var c = server.Connect();
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "set-max-intset-entries", "3", "set-max-listpack-entries", "4",
                "set-max-listpack-value", "5"));
            c.Call("SADD", "i", "1", "2", "3");
            Assert.Equal(Intset, Encoding(c, "i"));
            c.Call("SADD", "i", "4");
            Assert.Equal(Hashtable, Encoding(c, "i"));
            c.Call("SADD", "l", "a", "b", "c", "d");
            Assert.Equal(Listpack, Encoding(c, "l"));
            c.Call("SADD", "l", "e");
            Assert.Equal(Hashtable, Encoding(c, "l"));
            c.Call("SADD", "v", "abcde");
            Assert.Equal(Listpack, Encoding(c, "v"));
            c.Call("SADD", "v", "abcdef");
            Assert.Equal(Hashtable, Encoding(c, "v"));
            // An intset whose widest integer is longer than the value limit skips the listpack.
            c.Call("SADD", "w", "123456");
            c.Call("SADD", "w", "x");
            Assert.Equal(Hashtable, Encoding(c, "w"));
            Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "set-max-intset-entries", "0", "set-max-listpack-entries", "0"));
            c.Call("SADD", "z", "1");
            Assert.Equal(Hashtable, Encoding(c, "z"));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public void Encoding_Copy_KeepsEncodingAndSharesNothing()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("enc") + "{c}";
        c.Call("SADD", p + "i", "1", "2");
        c.Call("SADD", p + "l", "a", "b");
        c.Call(["SADD", p + "h", .. Strings(200)]);
        foreach (var (key, enc) in new[] { ("i", Intset), ("l", Listpack), ("h", Hashtable) })
        {
            Assert.Equal(":1\r\n", c.Call("COPY", p + key, p + key + "copy"));
            Assert.Equal(enc, Encoding(c, p + key + "copy"));
            c.Call("SADD", p + key + "copy", "added");
            c.Call("SREM", p + key + "copy", key == "i" ? "1" : key == "l" ? "a" : "m0");
            Assert.Equal(":0\r\n", c.Call("SISMEMBER", p + key, "added"));
            Assert.Equal(":1\r\n", c.Call("SISMEMBER", p + key, key == "i" ? "1" : key == "l" ? "a" : "m0"));
        }
    }
}
