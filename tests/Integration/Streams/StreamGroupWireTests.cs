using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Streams;

/// <summary>Consumer-group behaviour where Redis 7.2 differs from the 7.0 reference server, checked against 7.2's source.</summary>
public class StreamGroupWireTests
{
    /// <summary>
    /// Redis 7.2 creates XCLAIM's and XAUTOCLAIM's consumer before claiming, so it exists (and
    /// "xgroup-createconsumer" fires) even when nothing was claimed; 7.0 created it only on a claim.
    /// </summary>
    [Fact]
    public void XClaimXAutoClaim_NothingClaimed_StillCreateTheConsumerAs72()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("xclaim72") + "s";
        c.Call("XADD", key, "1-0", "f", "v");
        Assert.Equal("+OK\r\n", c.Call("XGROUP", "CREATE", key, "g", "0"));
        Assert.Equal("*0\r\n", c.Call("XCLAIM", key, "g", "alice", "0", "1-0"));
        Assert.Equal("*3\r\n$3\r\n0-0\r\n*0\r\n*0\r\n", c.Call("XAUTOCLAIM", key, "g", "bob", "0", "0"));
        Assert.Equal(":0\r\n", c.Call("XGROUP", "CREATECONSUMER", key, "g", "alice"));
        Assert.Equal(":0\r\n", c.Call("XGROUP", "CREATECONSUMER", key, "g", "bob"));
        Assert.Equal(":1\r\n", c.Call("XGROUP", "CREATECONSUMER", key, "g", "carol"));
    }

    /// <summary>Redis 7.2's argument names in COMMAND DOCS (7.0 said groupname, consumername, new_id, entries_read; LASTID's was id).</summary>
    [Fact]
    public void CommandDocs_GroupArgumentNames_Are72s()
    {
        using var c = TestServer.Shared.Connect();
        string create = c.Call("COMMAND", "DOCS", "xgroup|create");
        foreach (var name in new[] { "group", "id-selector", "new-id", "entries-read", "mkstream" })
            Assert.Contains($"$4\r\nname\r\n${name.Length}\r\n{name}\r\n", create);
        string setId = c.Call("COMMAND", "DOCS", "xgroup|setid");
        Assert.Contains("$11\r\nentriesread\r\n", setId);
        string consumer = c.Call("COMMAND", "DOCS", "xgroup|delconsumer");
        Assert.Contains("$8\r\nconsumer\r\n", consumer);
        Assert.DoesNotContain("consumername", consumer);
        string claim = c.Call("COMMAND", "DOCS", "xclaim");
        Assert.Contains("$6\r\nlastid\r\n$4\r\ntype\r\n$6\r\nstring\r\n$5\r\ntoken\r\n$6\r\nLASTID\r\n", claim);
    }

    /// <summary>A pending entry list of thousands: XPENDING ranges from the middle and XAUTOCLAIM cursors walk it in order.</summary>
    [Fact]
    public void XPendingXAutoClaim_LargePel_RangesAndCursorsInOrder()
    {
        using var c = TestServer.Shared.Connect();
        string key = TestServer.KeyPrefix("bigpel") + "s";
        var ids = new List<string>();
        for (int i = 1; i <= 3000; i++)
        {
            c.Call("XADD", key, $"{i}-0", "f", "v");
            ids.Add($"{i}-0");
        }
        c.Call("XGROUP", "CREATE", key, "g", "0");
        for (int i = 0; i < ids.Count; i += 500) c.Call(["XCLAIM", key, "g", "a", "0", .. ids.Skip(i).Take(500), "FORCE", "JUSTID"]);
        Assert.StartsWith("*4\r\n:3000\r\n$3\r\n1-0\r\n$6\r\n3000-0\r\n", c.Call("XPENDING", key, "g"));
        string range = c.Call("XPENDING", key, "g", "(1500-0", "+", "2");
        Assert.Contains("$6\r\n1501-0\r\n", range);
        Assert.Contains("$6\r\n1502-0\r\n", range);
        Assert.StartsWith("*2\r\n", range);
        // Delete every third entry: XAUTOCLAIM drops those pending entries as it walks.
        for (int i = 3; i <= 3000; i += 3) c.Call("XDEL", key, $"{i}-0");
        string cursor = "0";
        int claimed = 0, deleted = 0, calls = 0;
        do
        {
            var reply = c.Call("XAUTOCLAIM", key, "g", "b", "0", cursor, "COUNT", "250", "JUSTID");
            var lines = reply.Split("\r\n");
            cursor = lines[2];
            int n = int.Parse(lines[3][1..]);
            claimed += n;
            deleted += int.Parse(lines[4 + 2 * n][1..]);
            calls++;
        } while (cursor != "0-0");
        Assert.Equal(2000, claimed);
        Assert.Equal(1000, deleted);
        Assert.Equal(12, calls);
        Assert.StartsWith("*4\r\n:2000\r\n$3\r\n1-0\r\n$6\r\n2999-0\r\n*1\r\n*2\r\n$1\r\nb\r\n$4\r\n2000\r\n", c.Call("XPENDING", key, "g"));
    }
}
