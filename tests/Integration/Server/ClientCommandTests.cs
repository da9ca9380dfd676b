using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>CLIENT's subcommands over the wire, including CLIENT REPLY in pipelines and CLIENT KILL.</summary>
public class ClientCommandTests
{
    private static TestServer Server => TestServer.Shared;

    private static long Id(RespClient c) => long.Parse(c.Call("CLIENT", "ID").TrimStart(':').TrimEnd());

    /// <summary>The CLIENT INFO line as field → value (the bulk header and trailing newline removed).</summary>
    private static Dictionary<string, string> Fields(string reply)
    {
        string line = reply.Substring(reply.IndexOf("\r\n", StringComparison.Ordinal) + 2);
        if (line.StartsWith("txt:", StringComparison.Ordinal)) line = line.Substring(4);
        line = line.Substring(0, line.IndexOf('\n'));
        return line.Split(' ').Select(f => f.Split('=', 2)).ToDictionary(kv => kv[0], kv => kv[1]);
    }

    [Fact]
    public void ClientId_TwoConnections_DistinctIncreasing()
    {
        using var a = Server.Connect();
        using var b = Server.Connect();
        long ida = Id(a), idb = Id(b);
        Assert.True(idb > ida);
        Assert.Equal($":{ida}\r\n", a.Call("CLIENT", "ID"));
        Assert.Equal("-ERR wrong number of arguments for 'client|id' command\r\n", a.Call("CLIENT", "ID", "x"));
    }

    [Fact]
    public void ClientSetName_ValidInvalidAndEmpty()
    {
        using var c = Server.Connect();
        Assert.Equal("$-1\r\n", c.Call("CLIENT", "GETNAME"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "SETNAME", "my-conn_1!~"));
        Assert.Equal("$11\r\nmy-conn_1!~\r\n", c.Call("CLIENT", "GETNAME"));
        foreach (string bad in new[] { "a b", "a\nb", "tab\t", "caf\u00e9" })
            Assert.Equal("-ERR Client names cannot contain spaces, newlines or special characters.\r\n", c.Call("CLIENT", "SETNAME", bad));
        Assert.Equal("$11\r\nmy-conn_1!~\r\n", c.Call("CLIENT", "GETNAME"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "SETNAME", ""));
        Assert.Equal("$-1\r\n", c.Call("CLIENT", "GETNAME"));
    }

    [Fact]
    public void ClientSetInfo_LibNameAndVersion_ShowInClientInfo()
    {
        using var c = Server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "SETINFO", "lib-name", "redis-py"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "SETINFO", "LIB-VER", "5.0.1"));
        var f = Fields(c.Call("CLIENT", "INFO"));
        Assert.Equal("redis-py", f["lib-name"]);
        Assert.Equal("5.0.1", f["lib-ver"]);
        Assert.Equal("-ERR Unrecognized option 'lib-foo'\r\n", c.Call("CLIENT", "SETINFO", "lib-foo", "x"));
        Assert.Equal("-ERR lib-name cannot contain spaces, newlines or special characters.\r\n", c.Call("CLIENT", "SETINFO", "lib-name", "a b"));
        Assert.Equal("-ERR LIB-VER cannot contain spaces, newlines or special characters.\r\n", c.Call("CLIENT", "SETINFO", "LIB-VER", "1\n2"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "SETINFO", "lib-ver", ""));
        f = Fields(c.Call("CLIENT", "INFO"));
        Assert.Equal("", f["lib-ver"]);
        Assert.Equal("-ERR wrong number of arguments for 'client|setinfo' command\r\n", c.Call("CLIENT", "SETINFO", "lib-name"));
    }

    [Fact]
    public void ClientInfo_Line_HasRedis74FieldsInOrder()
    {
        using var c = Server.Connect();
        c.Call("CLIENT", "SETNAME", "info-test");
        c.Call("SELECT", "2");
        string reply = c.Call("CLIENT", "INFO");
        var m = Regex.Match(reply, @"^\$(\d+)\r\n(.*)\n\r\n$", RegexOptions.Singleline);
        Assert.True(m.Success, reply);
        Assert.Equal(int.Parse(m.Groups[1].Value), m.Groups[2].Value.Length + 1);
        string[] names = m.Groups[2].Value.Split(' ').Select(f => f.Split('=')[0]).ToArray();
        Assert.Equal(new[]
        {
            "id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub", "psub", "ssub", "multi", "watch", "qbuf",
            "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp", "obl", "oll", "omem", "tot-mem", "events", "cmd", "user",
            "redir", "resp", "lib-name", "lib-ver",
        }, names);
        var f = Fields(reply);
        Assert.Equal(Id(c).ToString(), f["id"]);
        Assert.Equal("info-test", f["name"]);
        Assert.Equal("N", f["flags"]);
        Assert.Equal("2", f["db"]);
        Assert.Equal("client|info", f["cmd"]);
        Assert.Equal("default", f["user"]);
        Assert.Equal("-1", f["redir"]);
        Assert.Equal("2", f["resp"]);
        Assert.Equal("10", f["argv-mem"]); // "client" + "info"
        Assert.Matches(@"^127\.0\.0\.1:\d+$", f["addr"]);
        Assert.Equal($"127.0.0.1:{Server.Port}", f["laddr"]);
    }

    [Fact]
    public void ClientInfo_Resp3_VerbatimString()
    {
        using var c = Server.Connect();
        c.Call("HELLO", "3");
        string reply = c.Call("CLIENT", "INFO");
        Assert.Matches(@"^=\d+\r\ntxt:id=\d+ .* resp=3 lib-name= lib-ver=\n\r\n$", reply);
    }

    [Fact]
    public void ClientNoEvictNoTouch_FlagsShowAndSyntaxErrors()
    {
        using var c = Server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "NO-EVICT", "on"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "NO-TOUCH", "ON"));
        Assert.Equal("eT", Fields(c.Call("CLIENT", "INFO"))["flags"]);
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "NO-EVICT", "OFF"));
        Assert.Equal("T", Fields(c.Call("CLIENT", "INFO"))["flags"]);
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "NO-TOUCH", "off"));
        Assert.Equal("N", Fields(c.Call("CLIENT", "INFO"))["flags"]);
        Assert.Equal("-ERR syntax error\r\n", c.Call("CLIENT", "NO-EVICT", "maybe"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("CLIENT", "NO-TOUCH", "maybe"));
    }

    [Fact]
    public void ClientReply_OffSkipOn_InOnePipeline()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("reply");
        var batch = new MemoryStream();
        void Add(params string[] args) => batch.Write(RespClient.Encode(args));
        Add("SET", p + "a", "1");          // +OK
        Add("CLIENT", "REPLY", "OFF");     // nothing
        Add("SET", p + "b", "2");          // dropped
        Add("GET", p + "a");               // dropped
        Add("NOSUCHCOMMAND");              // dropped (even errors)
        Add("CLIENT", "REPLY", "SKIP");    // ignored while OFF
        Add("PING", "off");                // dropped
        Add("CLIENT", "REPLY", "ON");      // +OK
        Add("CLIENT", "REPLY", "SKIP");    // nothing
        Add("GET", p + "b");               // dropped (the one skipped)
        Add("GET", p + "b");               // $1 2
        Add("CLIENT", "REPLY", "SKIP");    // nothing
        Add("CLIENT", "REPLY", "SKIP");    // nothing: the second SKIP is the skipped command, and skips again
        Add("PING", "a");                  // dropped
        Add("PING", "b");                  // $1 b
        Add("CLIENT", "REPLY", "SKIP");
        Add("CLIENT", "REPLY", "ON");      // +OK: ON is always heard
        Add("PING");                       // +PONG
        c.SendRaw(batch.ToArray());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal("$1\r\n2\r\n", c.ReadReply());
        Assert.Equal("$1\r\nb\r\n", c.ReadReply());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.Equal("+PONG\r\n", c.ReadReply());
        Assert.Equal("-ERR syntax error\r\n", c.Call("CLIENT", "REPLY", "MAYBE"));
        Assert.Equal("$1\r\n2\r\n", c.Call("GET", p + "b"));
    }

    [Fact]
    public void ClientReply_OffAcrossWrites_ResetTurnsRepliesBackOn()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("replyoff");
        c.Send("CLIENT", "REPLY", "OFF");
        c.Send("SET", p + "k", "v");
        c.Send("INCR", p + "k"); // an error, dropped too
        Assert.Equal("+RESET\r\n", c.Call("RESET"));
        Assert.Equal("$1\r\nv\r\n", c.Call("GET", p + "k"));
    }

    [Fact]
    public void ClientList_AllTypeAndId_Filters()
    {
        using var a = Server.Connect();
        using var b = Server.Connect();
        long ida = Id(a), idb = Id(b);
        string all = a.Call("CLIENT", "LIST");
        Assert.Contains($"id={ida} ", all);
        Assert.Contains($"id={idb} ", all);
        string normal = a.Call("CLIENT", "LIST", "TYPE", "normal");
        Assert.Contains($"id={idb} ", normal);
        Assert.Equal("$0\r\n\r\n", a.Call("CLIENT", "LIST", "TYPE", "master"));
        Assert.Equal("$0\r\n\r\n", a.Call("CLIENT", "LIST", "TYPE", "replica"));
        Assert.DoesNotContain($"id={idb} ", a.Call("CLIENT", "LIST", "TYPE", "pubsub"));

        string byId = a.Call("CLIENT", "LIST", "ID", idb.ToString(), "999999999", ida.ToString());
        var lines = byId.Substring(byId.IndexOf("\r\n", StringComparison.Ordinal) + 2).TrimEnd('\r', '\n').Split('\n');
        Assert.Equal(2, lines.Length);
        Assert.StartsWith($"id={idb} ", lines[0]);
        Assert.StartsWith($"id={ida} ", lines[1]);
        Assert.Contains(" cmd=client|list ", lines[1]);
        Assert.Contains(" cmd=client|id ", lines[0]);

        Assert.Equal("-ERR Unknown client type 'bogus'\r\n", a.Call("CLIENT", "LIST", "TYPE", "bogus"));
        Assert.Equal("-ERR Invalid client ID\r\n", a.Call("CLIENT", "LIST", "ID", "1", "x"));
        Assert.Equal("-ERR syntax error\r\n", a.Call("CLIENT", "LIST", "TYPE"));
        Assert.Equal("-ERR syntax error\r\n", a.Call("CLIENT", "LIST", "foo"));
        Assert.Equal("-ERR syntax error\r\n", a.Call("CLIENT", "LIST", "TYPE", "normal", "x"));
    }

    [Fact]
    public async Task ClientListAndKill_TypePubsub_MeansSubscribedClients()
    {
        await using var server = TestServer.Start(shards: 1);
        using var a = server.Connect();
        using var sub = server.Connect();
        long id = Id(sub);
        sub.Call("SUBSCRIBE", "news");
        Assert.Contains($"id={id} ", a.Call("CLIENT", "LIST", "TYPE", "pubsub"));
        Assert.DoesNotContain($"id={id} ", a.Call("CLIENT", "LIST", "TYPE", "normal"));
        sub.Call("UNSUBSCRIBE");
        Assert.Contains($"id={id} ", a.Call("CLIENT", "LIST", "TYPE", "normal"));
        sub.Call("PSUBSCRIBE", "n*");
        Assert.Equal(":0\r\n", a.Call("CLIENT", "KILL", "TYPE", "normal", "ID", id.ToString()));
        Assert.Equal(":1\r\n", a.Call("CLIENT", "KILL", "TYPE", "pubsub"));
        Assert.True(sub.IsClosedByServer());
    }

    [Fact]
    public void ClientKill_ById_ClosesOtherConnection()
    {
        using var a = Server.Connect();
        using var b = Server.Connect();
        long idb = Id(b);
        Assert.Equal(":1\r\n", a.Call("CLIENT", "KILL", "ID", idb.ToString()));
        Assert.True(b.IsClosedByServer());
        Assert.Equal(":0\r\n", a.Call("CLIENT", "KILL", "ID", idb.ToString()));
        Assert.Equal("+PONG\r\n", a.Call("PING"));
    }

    [Fact]
    public void ClientKill_OldAddrForm_OkOrNoSuchClient()
    {
        using var a = Server.Connect();
        using var b = Server.Connect();
        string addr = Fields(b.Call("CLIENT", "INFO"))["addr"];
        Assert.Equal("+OK\r\n", a.Call("CLIENT", "KILL", addr));
        Assert.True(b.IsClosedByServer());
        Assert.Equal("-ERR No such client\r\n", a.Call("CLIENT", "KILL", addr));
        Assert.Equal("-ERR No such client\r\n", a.Call("CLIENT", "KILL", "ID")); // the old form with addr "ID"
    }

    [Fact]
    public void ClientKill_Self_SkipMeDefaultsToYes()
    {
        using var c = Server.Connect();
        long id = Id(c);
        Assert.Equal(":0\r\n", c.Call("CLIENT", "KILL", "ID", id.ToString()));
        Assert.Equal(":0\r\n", c.Call("CLIENT", "KILL", "ID", id.ToString(), "SKIPME", "yes"));
        Assert.Equal(":1\r\n", c.Call("CLIENT", "KILL", "ID", id.ToString(), "SKIPME", "no"));
        Assert.True(c.IsClosedByServer());
    }

    [Fact]
    public void ClientKill_AddrLaddrUserMaxAge_Filters()
    {
        using var a = Server.Connect();
        using var b = Server.Connect();
        var fb = Fields(b.Call("CLIENT", "INFO"));
        // LADDR alone would hit every client of the shared server: combine it with b's own ADDR.
        Assert.Equal(":0\r\n", a.Call("CLIENT", "KILL", "ADDR", fb["addr"], "LADDR", "10.9.9.9:1"));
        Assert.Equal(":0\r\n", a.Call("CLIENT", "KILL", "ADDR", fb["addr"], "MAXAGE", "100000"));
        Assert.Equal(":1\r\n", a.Call("CLIENT", "KILL", "ADDR", fb["addr"], "LADDR", fb["laddr"], "USER", "default", "TYPE", "normal"));
        Assert.True(b.IsClosedByServer());
    }

    [Fact]
    public void ClientKill_Errors_MatchRedis()
    {
        using var c = Server.Connect();
        Assert.Equal("-ERR client-id should be greater than 0\r\n", c.Call("CLIENT", "KILL", "ID", "x"));
        Assert.Equal("-ERR client-id should be greater than 0\r\n", c.Call("CLIENT", "KILL", "ID", "0"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("CLIENT", "KILL", "foo", "bar"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("CLIENT", "KILL", "SKIPME", "maybe"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("CLIENT", "KILL", "ID", "1", "SKIPME"));
        Assert.Equal("-ERR Unknown client type 'foo'\r\n", c.Call("CLIENT", "KILL", "TYPE", "foo"));
        Assert.Equal("-ERR No such user 'foo'\r\n", c.Call("CLIENT", "KILL", "USER", "foo"));
        Assert.Equal("-ERR maxage is not an integer or out of range\r\n", c.Call("CLIENT", "KILL", "MAXAGE", "x"));
        Assert.Equal("-ERR maxage should be greater than 0\r\n", c.Call("CLIENT", "KILL", "MAXAGE", "0"));
        Assert.Equal("-ERR wrong number of arguments for 'client|kill' command\r\n", c.Call("CLIENT", "KILL"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void ClientPauseUnpauseGetRedir_AcceptedWithRedisErrors()
    {
        using var c = Server.Connect();
        Assert.Equal(":-1\r\n", c.Call("CLIENT", "GETREDIR"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "TRACKING", "on"));
        Assert.Equal(":0\r\n", c.Call("CLIENT", "GETREDIR"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "TRACKING", "off"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "PAUSE", "0"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "PAUSE", "0", "WRITE"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "PAUSE", "0", "all"));
        Assert.Equal("+OK\r\n", c.Call("CLIENT", "UNPAUSE"));
        Assert.Equal("-ERR timeout is not an integer or out of range\r\n", c.Call("CLIENT", "PAUSE", "x"));
        Assert.Equal("-ERR timeout is negative\r\n", c.Call("CLIENT", "PAUSE", "-1"));
        Assert.Equal("-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n", c.Call("CLIENT", "PAUSE", "10", "READ"));
        Assert.Equal("-ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP.\r\n",
            c.Call("CLIENT", "pause", "10", "WRITE", "x"));
    }

    [Fact]
    public void Client_UnknownSubcommandAndHelp()
    {
        using var c = Server.Connect();
        Assert.Equal("-ERR unknown subcommand 'FOO'. Try CLIENT HELP.\r\n", c.Call("CLIENT", "FOO"));
        Assert.Equal("-ERR wrong number of arguments for 'client' command\r\n", c.Call("CLIENT"));
        string help = c.Call("CLIENT", "HELP");
        Assert.StartsWith("*", help);
        Assert.Contains("+CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n", help);
        Assert.Contains("+SETINFO <option> <value>\r\n", help);
        Assert.Contains("+UNBLOCK <clientid> [TIMEOUT|ERROR]\r\n", help);
        Assert.Matches("\r\n\\+HELP\r\n\\+    [^\r\n]+\r\n$", help);
        int count = int.Parse(help.Substring(1, help.IndexOf('\r') - 1));
        Assert.Equal(count, Regex.Matches(help, "\r\n\\+").Count);
    }
}
