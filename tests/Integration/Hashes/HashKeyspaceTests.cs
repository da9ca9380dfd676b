using RedisClone.Tests.CommandInfo;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Hashes;

/// <summary>Keyspace commands on hash values: TYPE, OBJECT ENCODING, COPY, RENAME, MOVE, DEL, EXPIRE and SCAN TYPE.</summary>
public class HashKeyspaceTests
{
    private static TestServer Server => TestServer.Shared;

    [Theory]
    [InlineData(3, "listpack")]
    [InlineData(600, "hashtable")]
    public void KeyCommands_OnHash_WorkForBothEncodings(int size, string encoding)
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("hkeys");
        // A hash tag keeps source and destination on one shard; the untagged pair may span shards.
        string src = "{" + p + "}src", dst = "{" + p + "}dst", far = p + "far";
        var args = new List<string> { "HSET", src };
        for (int i = 0; i < size; i++) args.AddRange(["f" + i, "v" + i]);
        c.Call(args.ToArray());

        Assert.Equal("+hash\r\n", c.Call("TYPE", src));
        Assert.Equal($"${encoding.Length}\r\n{encoding}\r\n", c.Call("OBJECT", "ENCODING", src));

        Assert.Equal(":1\r\n", c.Call("COPY", src, dst));
        Assert.Equal($"${encoding.Length}\r\n{encoding}\r\n", c.Call("OBJECT", "ENCODING", dst));
        c.Call("HSET", dst, "f0", "changed");
        Assert.Equal("$2\r\nv0\r\n", c.Call("HGET", src, "f0"));
        Assert.Equal(":0\r\n", c.Call("COPY", src, dst));
        Assert.Equal(":1\r\n", c.Call("COPY", src, dst, "REPLACE"));
        Assert.Equal("$2\r\nv0\r\n", c.Call("HGET", dst, "f0"));

        Assert.Equal(":1\r\n", c.Call("COPY", src, far));
        Assert.Equal($":{size}\r\n", c.Call("HLEN", far));

        Assert.Equal("+OK\r\n", c.Call("RENAME", dst, p + "renamed"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", dst));
        Assert.Equal($":{size}\r\n", c.Call("HLEN", p + "renamed"));
        Assert.Equal("+hash\r\n", c.Call("TYPE", p + "renamed"));

        // One SCAN call covers one shard at most: iterate to cursor 0.
        var found = Keys.KeyReplies.ScanAll(c, "MATCH", "*" + p + "*", "TYPE", "hash", "COUNT", "1000000").Keys.Order().ToList();
        Assert.Equal(new[] { p + "far", p + "renamed", "{" + p + "}src" }.Order().ToList(), found);
        Assert.Empty(Keys.KeyReplies.ScanAll(c, "MATCH", "*" + p + "*", "TYPE", "string", "COUNT", "1000000").Keys);

        Assert.Equal(":1\r\n", c.Call("EXPIRE", far, "100"));
        Assert.Contains(c.Call("TTL", far), new[] { ":100\r\n", ":99\r\n" }); // a slow machine may pass the half second
        c.Call("HSET", far, "extra", "1");
        Assert.Contains(c.Call("TTL", far), new[] { ":100\r\n", ":99\r\n" }); // writing a field keeps the key's TTL
        Assert.Equal(":1\r\n", c.Call("PERSIST", far));

        Assert.Equal(":3\r\n", c.Call("DEL", src, far, p + "renamed"));
        Assert.Equal("+none\r\n", c.Call("TYPE", src));
    }

    [Fact]
    public void Move_HashToOtherDb_KeepsContents()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("hmove") + "h";
        c.Call("HSET", k, "a", "1");
        Assert.Equal(":1\r\n", c.Call("MOVE", k, "5"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", k));
        c.Call("SELECT", "5");
        Assert.Equal("$1\r\n1\r\n", c.Call("HGET", k, "a"));
        c.Call("DEL", k);
    }
}
