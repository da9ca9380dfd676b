using System.Net;
using System.Net.Sockets;
using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// CLIENT LIST / CLIENT INFO's socket and buffer fields (fd, qbuf, multi-mem, omem, events) and
/// INFO's client_recent_max_input_buffer, measured from the connections' real buffers.
/// Reference values in comments are redis-server 7.0.15's for the same requests.
/// </summary>
public class ClientBufferTests
{
    private static TestServer Server => TestServer.Shared;

    private static long Id(RespClient c) => long.Parse(c.Call("CLIENT", "ID").TrimStart(':').TrimEnd());

    /// <summary>CLIENT INFO's line, or the CLIENT LIST line of client <paramref name="id"/>, as field → value.</summary>
    private static Dictionary<string, string>? Fields(string reply, long? id = null)
    {
        string body = reply.Substring(reply.IndexOf("\r\n", StringComparison.Ordinal) + 2);
        foreach (string line in body.Split('\n'))
        {
            if (!line.StartsWith("id=", StringComparison.Ordinal)) continue;
            var f = line.Split(' ').Select(p => p.Split('=', 2)).ToDictionary(kv => kv[0], kv => kv[1]);
            if (id == null || f["id"] == id.ToString()) return f;
        }
        return null;
    }

    private static Dictionary<string, string> Listed(RespClient observer, long id)
        => Fields(observer.Call("CLIENT", "LIST"), id) ?? throw new InvalidOperationException($"client {id} not listed");

    [Fact]
    public void ClientInfo_Fd_RealDescriptorDistinctPerClient()
    {
        using var a = Server.Connect();
        using var b = Server.Connect();
        int fdA = int.Parse(Fields(a.Call("CLIENT", "INFO"))!["fd"]);
        int fdB = int.Parse(Fields(b.Call("CLIENT", "INFO"))!["fd"]);
        Assert.True(fdA > 0, $"fd={fdA}");
        Assert.True(fdB > 0, $"fd={fdB}");
        Assert.NotEqual(fdA, fdB);
        Assert.Equal(fdB.ToString(), Listed(a, Id(b))["fd"]);
    }

    [Fact]
    public async Task ClientInfo_SocketEngine_FdIsTheSocketsDescriptor()
    {
        await using var server = TestServer.StartWithSocketEngine(shards: 1);
        using var a = server.Connect();
        using var b = server.Connect();
        int fdA = int.Parse(Fields(a.Call("CLIENT", "INFO"))!["fd"]);
        int fdB = int.Parse(Fields(b.Call("CLIENT", "INFO"))!["fd"]);
        Assert.True(fdA > 0 && fdB > 0 && fdA != fdB, $"fd={fdA}, fd={fdB}");
    }

    [Fact]
    public void ClientInfo_OwnCommand_InQbufAndArgvMem()
    {
        using var c = Server.Connect();
        var f = Fields(c.Call("CLIENT", "INFO"))!;
        Assert.Equal("26", f["qbuf"]);      // redis: qbuf=26, the request still in its query buffer
        Assert.Equal("10", f["argv-mem"]);  // "client" + "info"
        Assert.Equal("r", f["events"]);
    }

    [Fact]
    public async Task ClientList_HalfSentCommand_ShowsItsBytesInQbuf()
    {
        using var observer = Server.Connect();
        using var half = Server.Connect();
        long id = Id(half);
        string key = TestServer.KeyPrefix("qbuf") + "k";
        var value = new string('x', 100_000);
        byte[] whole = RespClient.Encode("SET", key, value);
        int firstPart = whole.Length - 50_000;
        half.SendRaw(whole.AsSpan(0, firstPart).ToArray());

        long qbuf = 0;
        await Eventually.WaitFor(() => (qbuf = long.Parse(Listed(observer, id)["qbuf"])) >= 50_000,
            () => $"qbuf={qbuf} for a client that sent {firstPart} bytes of a command");

        half.SendRaw(whole.AsSpan(firstPart).ToArray());
        Assert.Equal("+OK\r\n", half.ReadReply());
        Assert.Equal("0", Listed(observer, id)["qbuf"]);
    }

    [Fact]
    public void ClientList_Multi_CountsQueuedCommandsAndTheirMemory()
    {
        using var observer = Server.Connect();
        using var c = Server.Connect();
        long id = Id(c);
        Assert.Equal("+OK\r\n", c.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", c.Call("SET", "a", new string('b', 100)));
        Assert.Equal("+QUEUED\r\n", c.Call("GET", "a"));
        var f = Listed(observer, id);
        Assert.Equal("2", f["multi"]);
        Assert.Equal("148", f["multi-mem"]); // redis: 108 argument bytes + 8 per argument
        Assert.Equal("x", f["flags"]);
        c.Call("DISCARD");
        Assert.Equal("0", Listed(observer, id)["multi-mem"]);
    }

    [Fact]
    public async Task ClientList_ClientNotReadingReplies_ShowsOmemAndWriteEvents()
    {
        using var observer = Server.Connect();
        string key = TestServer.KeyPrefix("omem") + "big";
        Assert.Equal("+OK\r\n", observer.Call("SET", key, new string('v', 64 * 1024)));

        // A small receive window that is never read: the replies (about 20 MB) back up in the server.
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp)
        {
            ReceiveBufferSize = 4096, ReceiveTimeout = 10_000, SendTimeout = 10_000,
        };
        socket.Connect(new IPEndPoint(IPAddress.Loopback, Server.Port));
        socket.Send(RespClient.Encode("CLIENT", "ID"));
        var reply = new byte[64];
        int n = socket.Receive(reply);
        long id = long.Parse(Encoding.ASCII.GetString(reply, 0, n).TrimStart(':').TrimEnd());
        var pipeline = new MemoryStream();
        for (int i = 0; i < 300; i++) pipeline.Write(RespClient.Encode("GET", key));
        socket.Send(pipeline.ToArray());

        Dictionary<string, string> f = new();
        await Eventually.WaitFor(() =>
            {
                f = Listed(observer, id);
                return long.Parse(f["omem"]) > 0 && long.Parse(f["oll"]) > 0 && f["events"] == "rw";
            },
            () => $"omem={f.GetValueOrDefault("omem")} oll={f.GetValueOrDefault("oll")} events={f.GetValueOrDefault("events")}");
        Assert.True(long.Parse(f["tot-mem"]) >= long.Parse(f["omem"]));
    }

    [Fact]
    public void Info_RecentMaxInputBuffer_RisesAfterBigCommand()
    {
        using var c = Server.Connect();
        const int size = 4_000_000;
        Assert.Equal("+OK\r\n", c.Call("SET", TestServer.KeyPrefix("recentmax") + "k", new string('z', size)));
        string info = c.Call("INFO", "clients");
        var line = info.Split("\r\n").Single(l => l.StartsWith("client_recent_max_input_buffer:", StringComparison.Ordinal));
        long max = long.Parse(line.Split(':')[1]);
        Assert.True(max >= size, line);
        c.Call("DEL", TestServer.KeyPrefix("recentmax") + "k");
    }
}
