using RedisClone.Tests.CommandInfo;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Sets;

/// <summary>The keyspace commands on set values: TYPE, OBJECT, COPY, RENAME, DEL, expiry and SCAN TYPE.</summary>
public class SetKeyspaceTests
{
    private static TestServer Server => TestServer.Shared;

    [Fact]
    public void KeyspaceCommands_OnSet_Work()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("setkeys") + "{k}";
        c.Call("SADD", p + "s", "1", "2", "x");
        Assert.Equal("+set\r\n", c.Call("TYPE", p + "s"));
        Assert.Equal("$8\r\nlistpack\r\n", c.Call("OBJECT", "ENCODING", p + "s"));
        Assert.Equal(":1\r\n", c.Call("OBJECT", "REFCOUNT", p + "s"));

        Assert.Equal(":1\r\n", c.Call("COPY", p + "s", p + "copy"));
        Assert.Equal(":0\r\n", c.Call("COPY", p + "s", p + "copy"));
        c.Call("SET", p + "str", "v");
        Assert.Equal(":1\r\n", c.Call("COPY", p + "s", p + "str", "REPLACE"));
        Assert.Equal("+set\r\n", c.Call("TYPE", p + "str"));

        Assert.Equal("+OK\r\n", c.Call("RENAME", p + "copy", p + "renamed"));
        Assert.Equal(":3\r\n", c.Call("SCARD", p + "renamed"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "copy"));

        Assert.Equal(":1\r\n", c.Call("EXPIRE", p + "renamed", "100"));
        c.Call("SADD", p + "renamed", "more");
        Assert.Contains(c.Call("TTL", p + "renamed"), new[] { ":100\r\n", ":99\r\n" }); // a slow machine may pass the half second
        Assert.Equal(":1\r\n", c.Call("PEXPIRE", p + "renamed", "1"));
        Thread.Sleep(20);
        Assert.Equal(":0\r\n", c.Call("SCARD", p + "renamed"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "renamed"));

        Assert.Equal(":2\r\n", c.Call("DEL", p + "s", p + "str"));
        Assert.Equal("+none\r\n", c.Call("TYPE", p + "s"));
    }

    [Fact]
    public async Task ScanType_Set_FindsOnlySets()
    {
        var server = TestServer.Start(shards: 3);
        try
        {
            using var c = server.Connect();
            for (int i = 0; i < 50; i++) c.Call("SADD", "set" + i, "m");
            for (int i = 0; i < 50; i++) c.Call("SET", "str" + i, "v");
            var found = new List<string>();
            string cursor = "0";
            do
            {
                var reply = RespTree.Parse(c.Call("SCAN", cursor, "TYPE", "set", "COUNT", "20"));
                cursor = reply.Children[0].Text!;
                found.AddRange(reply.Children[1].Children.Select(k => k.Text!));
            } while (cursor != "0");
            Assert.Equal(Enumerable.Range(0, 50).Select(i => "set" + i).Order(), found.Order());
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    [Fact]
    public void StoreCommands_OverwriteDestination_DropTtlAndType()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("setstore") + "{k}";
        c.Call("SET", p + "d", "text", "EX", "1000");
        c.Call("SADD", p + "a", "1", "2");
        Assert.Equal(":2\r\n", c.Call("SUNIONSTORE", p + "d", p + "a"));
        Assert.Equal(":-1\r\n", c.Call("TTL", p + "d"));
        Assert.Equal("+set\r\n", c.Call("TYPE", p + "d"));
        Assert.Equal(":0\r\n", c.Call("SINTERSTORE", p + "d", p + "a", p + "missing"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "d"));
    }
}
