using System.Net;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// maxmemory-clients: the largest clients are closed once all clients together hold the limit,
/// CLIENT NO-EVICT exempts one, and INFO counts evicted_clients. Each scenario runs on a private
/// redis-server too and must end the same way there.
/// </summary>
public sealed class ClientEvictionTests
{
    private const string PartialSet = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3000000\r\n";

    /// <summary>
    /// One scenario on one server: whether the big client was closed, and whether INFO counts an
    /// eviction. (Redis may close the small client too when it evicts the client it is reading
    /// from, whose memory is released only later; so the small one is not compared.)
    /// </summary>
    private static (bool Closed, bool Evicted) BigQueryBuffer(EndPoint endPoint, bool noEvict, string limit)
    {
        using (var setup = new RespClient(endPoint))
            Assert.Equal("+OK\r\n", setup.Call("CONFIG", "SET", "maxmemory-clients", limit));
        using var small = new RespClient(endPoint);
        Assert.Equal("+PONG\r\n", small.Call("PING"));
        var big = new RespClient(endPoint);
        if (noEvict) Assert.Equal("+OK\r\n", big.Call("CLIENT", "NO-EVICT", "ON"));
        big.SendRaw(PartialSet);
        // 2 MB of a 3 MB value, sent in pieces: the query buffer grows past the limit.
        var chunk = new byte[64 * 1024];
        Array.Fill(chunk, (byte)'x');
        try
        {
            for (int i = 0; i < 32; i++) big.SendRaw(chunk);
        }
        catch (System.Net.Sockets.SocketException)
        {
            // Closed while sending: evicted.
        }
        bool closed = big.ClosedWithin(1500);
        // A NO-EVICT client over the limit leaves every other client to be evicted as soon as it
        // is looked at (the small one here): it goes before the count is read.
        big.Dispose();
        Thread.Sleep(200);
        using var after = new RespClient(endPoint);
        string info = after.Call("INFO", "stats");
        bool evicted = info.Split("\r\n").First(l => l.StartsWith("evicted_clients:", StringComparison.Ordinal)) != "evicted_clients:0";
        Assert.Equal("+OK\r\n", after.Call("CONFIG", "SET", "maxmemory-clients", "0"));
        return (closed, evicted);
    }

    [RedisTheory]
    [InlineData(false, "1mb")]
    [InlineData(true, "1mb")]
    [InlineData(false, "10mb")]
    public async Task MaxMemoryClients_ClientWithBigQueryBuffer_SameOutcomeAsRedis(bool noEvict, string limit)
    {
        using var redis = ReferenceRedis.StartOrNull()!;
        await using var server = TestServer.Start(2);
        var expected = BigQueryBuffer(new IPEndPoint(IPAddress.Loopback, redis.Port), noEvict, limit);
        var actual = BigQueryBuffer(new IPEndPoint(IPAddress.Loopback, server.Port), noEvict, limit);
        Assert.Equal(expected, actual);
        Assert.Equal(!noEvict && limit == "1mb", actual.Closed); // the scenario tests what it means to
    }

    [Fact]
    public async Task MaxMemoryClients_BigClientEvicted_OthersServed()
    {
        await using var server = TestServer.Start(2, "--maxmemory-clients", "1mb");
        using var small = server.Connect();
        Assert.Equal("+PONG\r\n", small.Call("PING"));
        Assert.Equal((true, true), BigQueryBuffer(new IPEndPoint(IPAddress.Loopback, server.Port), false, "1mb"));
        Assert.Equal("+PONG\r\n", small.Call("PING"));
        Assert.Contains("evicted_clients:1\r\n", small.Call("INFO", "stats"));
        Assert.Equal("+OK\r\n", small.Call("CONFIG", "RESETSTAT"));
        Assert.Contains("evicted_clients:0\r\n", small.Call("INFO", "stats"));
    }

    [Fact]
    public async Task MaxMemoryClients_PercentOfMaxMemory_ResolvedAndFloored()
    {
        await using var server = TestServer.Start(2, "--maxmemory", "100mb", "--maxmemory-clients", "2%");
        Assert.Equal(2 * 1024 * 1024, server.Server.ClientEviction.Limit); // 2% of 100 MB
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "maxmemory-clients", "1"));
        Assert.Equal(128 * 1024, server.Server.ClientEviction.Limit); // Redis's floor
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "maxmemory-clients", "0"));
        Assert.Equal(0, server.Server.ClientEviction.Limit);
    }

    [Fact]
    public async Task MaxMemoryClients_ClientsGone_TotalBackToTheRemainingOnes()
    {
        await using var server = TestServer.Start(2, "--maxmemory-clients", "50mb");
        using var keep = server.Connect();
        Assert.Equal("+PONG\r\n", keep.Call("PING"));
        for (int i = 0; i < 20; i++)
        {
            using var c = server.Connect();
            c.SendRaw(PartialSet);
            c.SendRaw(new string('x', 100_000));
            Assert.Equal("+PONG\r\n", keep.Call("PING"));
        }
        await Eventually.WaitFor(() => server.Server.Clients.Count == 1, () => $"{server.Server.Clients.Count} clients");
        server.Server.ClientEviction.Cron();
        // Only the remaining client's buffers are counted (its receive buffer and reply block).
        Assert.InRange(server.Server.ClientEviction.Total, 1, 512 * 1024);
    }
}
