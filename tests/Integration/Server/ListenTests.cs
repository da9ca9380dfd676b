using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using RedisClone.Network;
using RedisClone.Server;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// Binding as redis-server does: a port another server holds is an error (the second server exits
/// with status 1 and redis's message) instead of a second process silently sharing the port, and
/// a restart while old connections sit in TIME_WAIT still binds (plain SO_REUSEADDR).
/// </summary>
public class ListenTests
{
    private static RedisServer NewServer(params string[] args)
        => new(ServerOptions.Parse([.. args, "--shards", "1"]));

    [Fact]
    public async Task Start_PortInUse_FailsWithRedisMessage()
    {
        await using var first = TestServer.Start(shards: 1);
        int port = first.Port;
        await using var second = NewServer("--port", port.ToString(), "--bind", "127.0.0.1");

        var ex = Assert.Throws<ListenFailedException>(second.Start);

        Assert.Equal($"Could not create server TCP listening socket 127.0.0.1:{port}: bind: Address already in use", ex.Message);
        // Every client still reaches the first server's keyspace.
        using var c = first.Connect();
        Assert.Equal("+OK\r\n", c.Call("SET", "listen:k", "1"));
        for (int i = 0; i < 20; i++)
        {
            using var other = first.Connect();
            Assert.Equal("$1\r\n1\r\n", other.Call("GET", "listen:k"));
        }
    }

    [Theory]
    [InlineData("::1", "127.0.0.1")]
    [InlineData("127.0.0.1", "::1")]
    public async Task Start_SeveralAddresses_OneInUse_FailsAndListensOnNone(string a, string b)
    {
        await using var first = TestServer.Start(shards: 1);
        int port = first.Port;
        await using var second = NewServer("--port", port.ToString(), "--bind", a, b);

        var ex = Assert.Throws<ListenFailedException>(second.Start);

        Assert.Equal($"Could not create server TCP listening socket 127.0.0.1:{port}: bind: Address already in use", ex.Message);
        // The other address was given back: nothing listens on [::1]:port.
        using var probe = new Socket(AddressFamily.InterNetworkV6, SocketType.Stream, ProtocolType.Tcp);
        var refused = Assert.Throws<SocketException>(() => probe.Connect(new IPEndPoint(IPAddress.IPv6Loopback, port)));
        Assert.Equal(SocketError.ConnectionRefused, refused.SocketErrorCode);
    }

    [Fact]
    public async Task Start_OptionalAddressInUse_StillFails()
    {
        // "-addr" only forgives an address the host does not have, as in redis.
        await using var first = TestServer.Start(shards: 1);
        await using var second = NewServer("--port", first.Port.ToString(), "--bind", "-127.0.0.1");

        var ex = Assert.Throws<ListenFailedException>(second.Start);

        Assert.Equal($"Could not create server TCP listening socket 127.0.0.1:{first.Port}: bind: Address already in use", ex.Message);
    }

    [Fact]
    public async Task Start_AfterRestartWithConnectionsInTimeWait_Binds()
    {
        int port;
        await using (var first = TestServer.Start(shards: 1))
        {
            port = first.Port;
            // The server closes these connections first (QUIT), so their server-side ends, on the
            // listening port, go to TIME_WAIT.
            for (int i = 0; i < 3; i++)
            {
                using var c = first.Connect();
                Assert.Equal("+OK\r\n", c.Call("QUIT"));
                Assert.True(c.IsClosedByServer());
            }
        }

        await using var restarted = NewServer("--port", port.ToString(), "--bind", "127.0.0.1");
        restarted.Start();
        using var client = new RespClient(new IPEndPoint(IPAddress.Loopback, port));
        Assert.Equal("+PONG\r\n", client.Call("PING"));
    }

    [Fact]
    public async Task Executable_PortInUse_ExitsWithStatus1AndRedisMessage()
    {
        await using var first = TestServer.Start(shards: 1);
        string dll = typeof(RedisServer).Assembly.Location;
        Assert.True(File.Exists(Path.ChangeExtension(dll, ".runtimeconfig.json")), $"no runtimeconfig next to {dll}");

        var (code, output) = ToolRunner.Run("dotnet", $"\"{dll}\" --port {first.Port} --bind 127.0.0.1 --shards 1", timeoutMs: 30_000);

        Assert.True(code == 1, $"exit {code}: {output}");
        Assert.Contains($"Could not create server TCP listening socket 127.0.0.1:{first.Port}: bind: Address already in use", output);
        using var c = first.Connect();
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }
}
