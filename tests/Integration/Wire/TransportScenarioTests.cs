using System.Net;
using System.Net.Sockets;
using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Wire;

/// <summary>
/// What a transport must do beyond moving bytes, on each of them (<c>--transport epoll</c> and
/// <c>--transport sockets</c>): pub/sub pushes woken from the publisher's thread, blocked clients
/// woken or gone, CLIENT KILL and the output buffer limit closing a client whose replies back up,
/// CLIENT LIST's qbuf and omem, QUIT's reply before the close, and INFO's byte counters.
/// (<see cref="WireTests"/> covers pipelining, big values, slow readers and half-closed sockets on both.)
/// </summary>
public abstract class TransportScenarioTests : IAsyncLifetime
{
    private TestServer? _server;

    protected abstract string Transport { get; }

    private TestServer Server => _server!;

    public Task InitializeAsync()
    {
        _server = TestServer.Start(2, "--transport", Transport);
        return Task.CompletedTask;
    }

    public async Task DisposeAsync() => await _server!.DisposeAsync();

    private static long Id(RespClient c) => long.Parse(c.Call("CLIENT", "ID").TrimStart(':').TrimEnd());

    /// <summary>CLIENT LIST's fields of client <paramref name="id"/>, or null when it is not listed.</summary>
    private static Dictionary<string, string>? Listed(RespClient observer, long id)
    {
        string reply = observer.Call("CLIENT", "LIST");
        foreach (string line in reply.Substring(reply.IndexOf("\r\n", StringComparison.Ordinal) + 2).Split('\n'))
        {
            if (!line.StartsWith("id=", StringComparison.Ordinal)) continue;
            var f = line.Split(' ').Select(p => p.Split('=', 2)).ToDictionary(kv => kv[0], kv => kv[1]);
            if (f["id"] == id.ToString()) return f;
        }
        return null;
    }

    private static long InfoField(RespClient c, string section, string field)
    {
        foreach (string line in c.Call("INFO", section).Split("\r\n"))
        {
            if (line.StartsWith(field + ":", StringComparison.Ordinal)) return long.Parse(line[(field.Length + 1)..]);
        }
        throw new InvalidOperationException($"no {field} in INFO {section}");
    }

    /// <summary>A raw socket with a small receive window that sends <paramref name="requests"/> GETs of
    /// <paramref name="key"/> and never reads: its replies back up in the server.</summary>
    private Socket NonReader(string key, int requests)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp)
        {
            ReceiveBufferSize = 4096, SendTimeout = 10_000,
        };
        socket.Connect(new IPEndPoint(IPAddress.Loopback, Server.Port));
        var burst = new MemoryStream();
        burst.Write(RespClient.Encode("CLIENT", "SETNAME", "nonreader"));
        for (int i = 0; i < requests; i++) burst.Write(RespClient.Encode("GET", key));
        var bytes = burst.ToArray();
        _ = Task.Run(() =>
        {
            try { socket.Send(bytes); }
            catch (Exception) { /* closed by the server, or the send buffer stayed full */ }
        });
        return socket;
    }

    private static long IdByName(RespClient observer, string name)
    {
        string reply = observer.Call("CLIENT", "LIST");
        foreach (string line in reply.Split('\n'))
        {
            if (line.Contains($" name={name} ")) return long.Parse(line.Split(' ')[0][3..]);
        }
        return -1;
    }

    [Fact]
    public async Task Publish_ThousandMessages_SubscriberGetsAllInOrder()
    {
        using var sub = Server.Connect();
        Assert.StartsWith("*3\r\n$9\r\nsubscribe\r\n", sub.Call("SUBSCRIBE", "news"));
        using var pub = Server.Connect();
        var publishers = Enumerable.Range(0, 2).Select(p => Task.Run(() =>
        {
            using var c = Server.Connect();
            for (int i = 0; i < 500; i++) Assert.Equal(":1\r\n", c.Call("PUBLISH", "news", $"{p}:{i}"));
        })).ToArray();
        var next = new int[2];
        for (int n = 0; n < 1000; n++)
        {
            string reply = sub.ReadReply();
            string payload = reply.Split("\r\n")[^2];
            int p = payload[0] - '0';
            Assert.Equal($"{p}:{next[p]}", payload); // each publisher's order kept
            next[p]++;
        }
        await Task.WhenAll(publishers);
        Assert.Equal(":1\r\n", pub.Call("PUBLISH", "news", "last"));
        Assert.EndsWith("$4\r\nlast\r\n", sub.ReadReply());
    }

    [Fact]
    public async Task Blpop_WokenByPushFromAnotherClient_GetsTheElement()
    {
        string key = TestServer.KeyPrefix("blpop") + "list";
        using var blocked = Server.Connect();
        blocked.Send("BLPOP", key, "10");
        using var other = Server.Connect();
        await Eventually.WaitFor(() => InfoField(other, "clients", "blocked_clients") >= 1, () => "the client never blocked");
        Assert.Equal(":1\r\n", other.Call("RPUSH", key, "x"));
        Assert.Equal($"*2\r\n${key.Length}\r\n{key}\r\n$1\r\nx\r\n", blocked.ReadReply());
    }

    [Fact]
    public async Task Blpop_ClientGoneWhileBlocked_WaiterRemovedElementStays()
    {
        string key = TestServer.KeyPrefix("blpopgone") + "list";
        using var other = Server.Connect();
        long before = InfoField(other, "clients", "blocked_clients");
        var blocked = Server.Connect();
        blocked.Send("BLPOP", key, "0");
        await Eventually.WaitFor(() => InfoField(other, "clients", "blocked_clients") > before, () => "the client never blocked");
        blocked.Dispose();
        await Eventually.WaitFor(() => InfoField(other, "clients", "blocked_clients") == before, () => "still counted as blocked");
        Assert.Equal(":1\r\n", other.Call("RPUSH", key, "kept"));
        Assert.Equal(":1\r\n", other.Call("LLEN", key));
    }

    [Fact]
    public async Task ClientKill_ClientNotReadingItsReplies_ClosedAndOmemShownBefore()
    {
        using var observer = Server.Connect();
        string key = TestServer.KeyPrefix("kill") + "big";
        Assert.Equal("+OK\r\n", observer.Call("SET", key, new string('v', 64 * 1024)));
        using var socket = NonReader(key, 300); // about 20 MB of replies
        long id = -1;
        await Eventually.WaitFor(() => (id = IdByName(observer, "nonreader")) > 0, () => "the client never named itself");
        long omem = 0;
        await Eventually.WaitFor(() => (omem = long.Parse(Listed(observer, id)?["omem"] ?? "0")) > 0,
            () => $"omem={omem} for a client that does not read 20 MB of replies");

        Assert.Equal(":1\r\n", observer.Call("CLIENT", "KILL", "ID", id.ToString()));
        await Eventually.WaitFor(() => Listed(observer, id) == null, () => "the killed client is still listed");
        Assert.Equal("+PONG\r\n", observer.Call("PING"));
    }

    [Fact]
    public void OutputBufferLimit_ReplyPastNormalHardLimit_ClosesTheClient()
    {
        using var admin = Server.Connect();
        string key = TestServer.KeyPrefix("obl") + "big";
        Assert.Equal("+OK\r\n", admin.Call("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0"));
        Assert.Equal("+OK\r\n", admin.Call("SET", key, new string('b', 2 << 20)));
        using var c = Server.Connect();
        Assert.Equal("+PONG\r\n", c.Call("PING"));
        c.Send("GET", key);
        Assert.True(c.IsClosedByServer(), "a 2 MB reply under a 1 MB hard limit must close the client, as Redis does");
        Assert.Equal("+PONG\r\n", admin.Call("PING"));
    }

    [Fact]
    public void Pipeline_ClientNotReadingLargeReplies_ServerHoldsAFewReplies()
    {
        using var observer = Server.Connect();
        string key = TestServer.KeyPrefix("bound") + "big";
        var value = new string('v', 1 << 20);
        Assert.Equal("+OK\r\n", observer.Call("SET", key, value));
        using var reader = Server.Connect();
        long id = Id(reader);
        var pipeline = new MemoryStream();
        for (int i = 0; i < 100; i++) pipeline.Write(RespClient.Encode("GET", key));
        reader.SendRaw(pipeline.ToArray());
        long peak = 0;
        for (int sample = 0; sample < 20; sample++)
        {
            peak = Math.Max(peak, long.Parse(Listed(observer, id)!["omem"]));
            Thread.Sleep(50);
        }
        Assert.True(peak > 0, "the client's replies never queued in the server");
        Assert.True(peak <= 4 << 20, $"the server queued {peak} bytes of replies for a client that does not read");
        for (int i = 0; i < 100; i++) Assert.Equal((1 << 20) + 12, reader.ReadReplyBytes().Length);
        Assert.Equal("+PONG\r\n", reader.Call("PING"));
    }

    [Fact]
    public async Task ClientList_HalfSentCommand_QbufShowsItsBytes()
    {
        using var observer = Server.Connect();
        using var half = Server.Connect();
        long id = Id(half);
        string key = TestServer.KeyPrefix("qbuf") + "k";
        byte[] whole = RespClient.Encode("SET", key, new string('x', 100_000));
        half.SendRaw(whole.AsSpan(0, whole.Length - 50_000).ToArray());
        long qbuf = 0;
        await Eventually.WaitFor(() => (qbuf = long.Parse(Listed(observer, id)!["qbuf"])) >= 40_000,
            () => $"qbuf={qbuf} for a client that sent half of a 100 KB command");
        half.SendRaw(whole.AsSpan(whole.Length - 50_000).ToArray());
        Assert.Equal("+OK\r\n", half.ReadReply());
    }

    /// <summary>
    /// An inline command without its line end is not parsed at all: qbuf is every byte of it, as
    /// redis-server 7.0 shows (qbuf=20006 for the same request), the input buffer's free room and
    /// size show it too, and so does INFO's client_recent_max_input_buffer.
    /// </summary>
    [Fact]
    public async Task ClientList_PartialInlineCommand_QbufCountsItsBytes()
    {
        using var observer = Server.Connect();
        using var partial = Server.Connect();
        long id = Id(partial);
        string key = TestServer.KeyPrefix("qbufinline") + "k";
        string request = $"SET {key} " + new string('v', 20_000);
        partial.SendRaw(request);
        Dictionary<string, string>? f = null;
        await Eventually.WaitFor(() => (f = Listed(observer, id))!["qbuf"] == request.Length.ToString(),
            () => $"qbuf={f?["qbuf"]} for a client that sent {request.Length} bytes of an inline command");
        Assert.True(long.Parse(f!["qbuf-free"]) > 0, $"qbuf-free={f["qbuf-free"]}");
        Assert.True(long.Parse(f["tot-mem"]) >= request.Length + long.Parse(f["qbuf-free"]), $"tot-mem={f["tot-mem"]}");
        Assert.InRange(InfoField(observer, "clients", "client_recent_max_input_buffer"), request.Length, long.MaxValue);

        partial.SendRaw("\r\n");
        Assert.Equal("+OK\r\n", partial.ReadReply());
        Assert.Equal("0", Listed(observer, id)!["qbuf"]);
    }

    [Fact]
    public void Quit_ManyRepliesBefore_AllArriveThenClose()
    {
        string key = TestServer.KeyPrefix("quit") + "k";
        var value = new string('q', 100_000);
        using (var setup = Server.Connect()) Assert.Equal("+OK\r\n", setup.Call("SET", key, value));
        using var c = Server.Connect();
        var batch = new MemoryStream();
        for (int i = 0; i < 50; i++) batch.Write(RespClient.Encode("GET", key)); // 5 MB: more than the socket takes at once
        batch.Write(RespClient.Encode("QUIT"));
        c.SendRaw(batch.ToArray());
        for (int i = 0; i < 50; i++) Assert.Equal($"${value.Length}\r\n{value}\r\n", c.ReadReply());
        Assert.Equal("+OK\r\n", c.ReadReply());
        Assert.True(c.IsClosedByServer());
    }

    [Fact]
    public void Info_NetBytes_CountEveryByteBothWays()
    {
        using var c = Server.Connect();
        string[] info = ["INFO", "stats"];
        string before = c.Call(info);
        long input = RespClient.Encode(info).Length, output = before.Length;
        foreach (var command in new[] { new[] { "SET", "netbytes", new string('x', 300) }, ["GET", "netbytes"], ["PING"] })
        {
            input += RespClient.Encode(command).Length;
            output += c.Call(command).Length;
        }
        string after = c.Call(info);
        long Field(string reply, string name) => long.Parse(reply.Split("\r\n").First(l => l.StartsWith(name + ":"))[(name.Length + 1)..]);
        // The server is this test's own: exactly these bytes.
        Assert.Equal(input, Field(after, "total_net_input_bytes") - Field(before, "total_net_input_bytes"));
        Assert.Equal(output, Field(after, "total_net_output_bytes") - Field(before, "total_net_output_bytes"));
    }
}

/// <summary>The scenarios on the epoll event loops (the default on Linux).</summary>
public sealed class EpollTransportScenarioTests : TransportScenarioTests
{
    protected override string Transport => "epoll";
}

/// <summary>The scenarios on Pipelines.Sockets.Unofficial (the transport elsewhere, and an option on Linux).</summary>
public sealed class SocketsTransportScenarioTests : TransportScenarioTests
{
    protected override string Transport => "sockets";
}
