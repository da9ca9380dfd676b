using System.Net;
using System.Net.Sockets;
using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Execution;

/// <summary>
/// A client that pipelines many large replies without reading them holds a bounded amount of
/// memory in the server: the batch pauses once about 64 KB (plus the reply that passed it) wait to
/// be sent, and goes on as the client reads. Every reply still arrives, in order.
/// </summary>
public sealed class OutputBoundTests(Xunit.Abstractions.ITestOutputHelper output)
{
    private const int ValueSize = 1 << 20;
    private const int Gets = 200;

    private static long Id(RespClient c) => long.Parse(c.Call("CLIENT", "ID").TrimStart(':').TrimEnd());

    private static long OutputMemory(RespClient observer, long id)
    {
        string list = observer.Call("CLIENT", "LIST");
        foreach (string line in list.Split('\n'))
        {
            if (!line.StartsWith($"id={id} ", StringComparison.Ordinal)) continue;
            var fields = line.Split(' ').Select(p => p.Split('=', 2)).Where(kv => kv.Length == 2).ToDictionary(kv => kv[0], kv => kv[1]);
            return long.Parse(fields["omem"]);
        }
        throw new InvalidOperationException($"client {id} not listed");
    }

    [Theory]
    [InlineData(1)]
    [InlineData(8)]
    public async Task Pipeline_ClientNotReadingLargeReplies_ServerHoldsAboutOneReply(int keys)
    {
        await using var server = TestServer.Start(shards: 4);
        using var observer = server.Connect();
        var value = new string('v', ValueSize);
        for (int k = 0; k < keys; k++) Assert.Equal("+OK\r\n", observer.Call("SET", "big" + k, value));

        using var reader = server.Connect();
        long id = Id(reader);
        var pipeline = new MemoryStream();
        for (int i = 0; i < Gets; i++) pipeline.Write(RespClient.Encode("GET", "big" + (i % keys)));
        reader.SendRaw(pipeline.ToArray());

        // Without the bound the server would queue all 200 MB of replies at once; give it time to
        // run as far as it will, sampling the client's queued replies meanwhile.
        long peak = 0;
        for (int sample = 0; sample < 20; sample++)
        {
            peak = Math.Max(peak, OutputMemory(observer, id));
            Thread.Sleep(50);
        }
        output.WriteLine($"peak queued replies: {peak} bytes ({Gets} GETs of {ValueSize} bytes over {keys} keys)");
        Assert.True(peak > 0, "the client's replies never queued in the server");
        Assert.True(peak <= 4 * ValueSize, $"the server queued {peak} bytes of replies for a client that does not read");

        for (int i = 0; i < Gets; i++)
        {
            var reply = reader.ReadReplyBytes();
            Assert.Equal(ValueSize + 10 + 2, reply.Length); // "$1048576\r\n" + value + "\r\n"
        }
        Assert.Equal("+PONG\r\n", reader.Call("PING"));
    }

    [Fact]
    public async Task NormalOutputLimit_ReplyPastHardLimit_ClosesTheClient()
    {
        await using var server = TestServer.Start(shards: 2);
        using var admin = server.Connect();
        Assert.Equal("+OK\r\n", admin.Call("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0"));
        Assert.Equal("+OK\r\n", admin.Call("SET", "small", new string('s', 256 * 1024)));
        Assert.Equal("+OK\r\n", admin.Call("SET", "big", new string('b', 2 << 20)));

        using var c = server.Connect();
        Assert.Equal($"$262144\r\n{new string('s', 256 * 1024)}\r\n", c.Call("GET", "small"));
        c.Send("GET", "big");
        Assert.True(c.IsClosedByServer(), "a 2 MB reply under a 1 MB hard limit must close the client, as Redis does");
        Assert.Equal("+PONG\r\n", admin.Call("PING"));
    }

    [RedisFact]
    public void NormalOutputLimit_ReplyPastHardLimit_RedisClosesTheClientToo()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        using var admin = reference.Connect();
        admin.Call("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0");
        admin.Call("SET", "big", new string('b', 2 << 20));
        using var c = reference.Connect();
        c.Send("GET", "big");
        Assert.True(c.IsClosedByServer());
    }
}
