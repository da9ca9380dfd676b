using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Lists;

/// <summary>
/// Lists through the keyspace commands (TYPE, OBJECT, COPY, RENAME, DEL, EXPIRE, SCAN TYPE), across
/// shards (LMOVE, RPOPLPUSH, LMPOP with keys on different shards) and under concurrent moves.
/// </summary>
public class ListKeyspaceTests
{
    private static TestServer Server => TestServer.Shared;

    /// <summary>Two key names under <paramref name="prefix"/> that live on different shards of the shared server.</summary>
    private static (string A, string B) OnTwoShards(string prefix)
    {
        var shards = Server.Server.Shards;
        string a = prefix + "a";
        int shardA = shards.ShardOf(Encoding.UTF8.GetBytes(a));
        for (int i = 0; ; i++)
        {
            string b = prefix + "b" + i;
            if (shards.ShardOf(Encoding.UTF8.GetBytes(b)) != shardA) return (a, b);
        }
    }

    [Fact]
    public void TypeObjectCopyRename_WorkForLists()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("lks");
        var (src, dst) = OnTwoShards(p);
        c.Call("RPUSH", src, "a", "b", "c");
        Assert.Equal("+list\r\n", c.Call("TYPE", src));
        Assert.Equal("$8\r\nlistpack\r\n", c.Call("OBJECT", "ENCODING", src));
        Assert.Equal(":1\r\n", c.Call("OBJECT", "REFCOUNT", src));

        Assert.Equal(":1\r\n", c.Call("COPY", src, dst));
        c.Call("RPUSH", dst, "d");
        Assert.Equal(":3\r\n", c.Call("LLEN", src));
        Assert.Equal(":4\r\n", c.Call("LLEN", dst));

        // A quicklist copies as a quicklist, independent of its source.
        var big = p + "big";
        c.Call(["RPUSH", big, .. Enumerable.Range(0, 3000).Select(i => "element-" + i)]);
        Assert.Equal("$9\r\nquicklist\r\n", c.Call("OBJECT", "ENCODING", big));
        Assert.Equal(":1\r\n", c.Call("COPY", big, big + "copy"));
        Assert.Equal("$9\r\nquicklist\r\n", c.Call("OBJECT", "ENCODING", big + "copy"));
        c.Call("LTRIM", big, "0", "0");
        Assert.Equal(":3000\r\n", c.Call("LLEN", big + "copy"));
        Assert.Equal("$12\r\nelement-2999\r\n", c.Call("LINDEX", big + "copy", "-1"));

        Assert.Equal("+OK\r\n", c.Call("RENAME", dst, dst + "renamed"));
        Assert.Equal("*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n", c.Call("LRANGE", dst + "renamed", "0", "-1"));
        Assert.Equal(":1\r\n", c.Call("DEL", dst + "renamed"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", dst + "renamed"));
    }

    [Fact]
    public void Expire_ListKey_Disappears()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("lexp") + "l";
        c.Call("RPUSH", k, "a");
        Assert.Equal(":1\r\n", c.Call("PEXPIRE", k, "30"));
        Thread.Sleep(80);
        Assert.Equal(":0\r\n", c.Call("LLEN", k));
        Assert.Equal(":0\r\n", c.Call("RPUSHX", k, "b"));
        Assert.Equal("$-1\r\n", c.Call("LPOP", k));
        // Pushing onto a key whose list expired starts a new list without the old TTL.
        c.Call("RPUSH", k, "fresh");
        Assert.Equal(":-1\r\n", c.Call("TTL", k));
    }

    [Fact]
    public async Task ScanType_FindsListsOnly()
    {
        var server = TestServer.Start(shards: 3);
        try
        {
            using var c = server.Connect();
            for (int i = 0; i < 30; i++) c.Call("RPUSH", "list" + i, "x");
            for (int i = 0; i < 30; i++) c.Call("SET", "str" + i, "x");
            var found = new HashSet<string>();
            string cursor = "0";
            do
            {
                var reply = c.Call("SCAN", cursor, "TYPE", "list", "COUNT", "7");
                var lines = reply.Split("\r\n");
                cursor = lines[2];
                for (int i = 4; i + 1 < lines.Length; i += 2) found.Add(lines[i + 1]);
            } while (cursor != "0");
            Assert.Equal(30, found.Count);
            Assert.All(found, k => Assert.StartsWith("list", k));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public void MoveAcrossShards_BothListsChange()
    {
        using var c = Server.Connect();
        var (a, b) = OnTwoShards(TestServer.KeyPrefix("lxshard"));
        c.Call("RPUSH", a, "1", "2", "3");
        Assert.Equal("$1\r\n3\r\n", c.Call("RPOPLPUSH", a, b));
        Assert.Equal("$1\r\n1\r\n", c.Call("LMOVE", a, b, "LEFT", "RIGHT"));
        Assert.Equal("$1\r\n2\r\n", c.Call("LMOVE", a, b, "LEFT", "LEFT"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", a));
        Assert.Equal("*3\r\n$1\r\n2\r\n$1\r\n3\r\n$1\r\n1\r\n", c.Call("LRANGE", b, "0", "-1"));
        Assert.Equal("*2\r\n$" + b.Length + "\r\n" + b + "\r\n*1\r\n$1\r\n2\r\n", c.Call("LMPOP", "2", a, b, "LEFT"));
    }

    [Fact]
    public void CommandGetKeys_LMPop_ListsNumKeysKeys()
    {
        using var c = Server.Connect();
        Assert.Equal("*2\r\n$1\r\na\r\n$1\r\nb\r\n", c.Call("COMMAND", "GETKEYS", "LMPOP", "2", "a", "b", "LEFT"));
        Assert.Equal("*2\r\n$1\r\na\r\n$1\r\nb\r\n", c.Call("COMMAND", "GETKEYS", "LMOVE", "a", "b", "LEFT", "RIGHT"));
    }

    /// <summary>
    /// Clients move elements around lists spread over shards with LMOVE and RPOPLPUSH; atomic moves
    /// mean no element is ever lost or duplicated, whatever the interleaving.
    /// </summary>
    [Fact]
    public async Task ConcurrentMovesAcrossShards_NoElementLostOrDuplicated()
    {
        var p = TestServer.KeyPrefix("lring");
        var keys = Enumerable.Range(0, 6).Select(i => p + "k" + i).ToArray();
        using (var setup = Server.Connect())
            for (int i = 0; i < keys.Length; i++)
                setup.Call(["RPUSH", keys[i], .. Enumerable.Range(0, 50).Select(j => $"e{i}-{j}")]);

        var workers = Enumerable.Range(0, 4).Select(w => Task.Run(() =>
        {
            using var c = Server.Connect();
            var random = new Random(w);
            for (int n = 0; n < 400; n++)
            {
                string from = keys[random.Next(keys.Length)], to = keys[random.Next(keys.Length)];
                if (random.Next(2) == 0) c.Call("RPOPLPUSH", from, to);
                else c.Call("LMOVE", from, to, random.Next(2) == 0 ? "LEFT" : "RIGHT", random.Next(2) == 0 ? "LEFT" : "RIGHT");
            }
        }));
        await Task.WhenAll(workers).WaitAsync(TimeSpan.FromMinutes(2));

        using var check = Server.Connect();
        var all = new List<string>();
        foreach (var k in keys)
        {
            var lines = check.Call("LRANGE", k, "0", "-1").Split("\r\n");
            for (int i = 2; i < lines.Length; i += 2) all.Add(lines[i]);
        }
        Assert.Equal(300, all.Count);
        Assert.Equal(300, all.Distinct().Count());
    }
}
