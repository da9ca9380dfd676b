using System.Net;
using System.Net.Sockets;
using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// timeout (idle clients closed, except blocked, subscribed and MONITOR clients, as Redis's
/// clientsCronHandleTimeout) and tcp-keepalive (the keepalive options on the server's side of each
/// accepted socket, as Redis's anetKeepAlive sets them).
/// </summary>
public class ClientTimeoutTests
{
    /// <summary>A raw client, so "closed by the server" (end of stream) and "still open" (the read timed out) differ.</summary>
    private sealed class RawClient : IDisposable
    {
        private readonly Socket _socket = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);

        public RawClient(int port) => _socket.Connect(IPAddress.Loopback, port);

        public void Send(string text) => _socket.Send(Encoding.ASCII.GetBytes(text));

        public string Receive(int timeoutMs = 5000)
        {
            _socket.ReceiveTimeout = timeoutMs;
            var buffer = new byte[4096];
            int n = _socket.Receive(buffer);
            return Encoding.ASCII.GetString(buffer, 0, n);
        }

        /// <summary>True when the server closes the connection within <paramref name="timeoutMs"/>; false when it stays open.</summary>
        public bool ClosedWithin(int timeoutMs)
        {
            _socket.ReceiveTimeout = timeoutMs;
            try
            {
                return _socket.Receive(new byte[64]) == 0;
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.TimedOut || e.SocketErrorCode == SocketError.WouldBlock)
            {
                return false;
            }
            catch (SocketException)
            {
                return true; // reset
            }
        }

        public void Dispose() => _socket.Dispose();
    }

    /// <summary>Runs <paramref name="scenario"/> against RedisClone and, when installed, redis-server, with the same arguments.</summary>
    private static async Task OnBoth(string args, Action<int> scenario)
    {
        await using (var server = TestServer.Start(1, args.Split(' ')))
            scenario(server.Port);
        using var reference = ReferenceRedis.StartOrNull(args);
        if (reference != null) scenario(reference.Port);
    }

    [Fact]
    public Task Timeout_IdleClient_ClosedWhileActiveOneStays() => OnBoth("--timeout 1", port =>
    {
        using var idle = new RawClient(port);
        using var active = new RawClient(port);
        idle.Send("PING\r\n");
        Assert.Equal("+PONG\r\n", idle.Receive());
        // The active client talks every 300 ms; the idle one is closed after 1 whole second (and
        // less than a further second or two of cron granularity).
        var started = Environment.TickCount64;
        bool closed = false;
        while (Environment.TickCount64 - started < 5000)
        {
            active.Send("PING\r\n");
            Assert.Equal("+PONG\r\n", active.Receive());
            if (idle.ClosedWithin(300))
            {
                closed = true;
                break;
            }
        }
        Assert.True(closed, "the idle client was not closed");
        Assert.True(Environment.TickCount64 - started >= 900, "closed too early");
        active.Send("PING\r\n");
        Assert.Equal("+PONG\r\n", active.Receive());
    });

    [Fact]
    public Task Timeout_BlockedClient_NotClosed() => OnBoth("--timeout 1", port =>
    {
        using var blocked = new RawClient(port);
        blocked.Send("*3\r\n$5\r\nBLPOP\r\n$10\r\ntimeout:bl\r\n$1\r\n3\r\n");
        // Still waiting after three seconds of silence, then served; not closed right after either.
        Assert.Equal("*-1\r\n", blocked.Receive(6000));
        blocked.Send("PING\r\n");
        Assert.Equal("+PONG\r\n", blocked.Receive());
    });

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public Task Timeout_SubscribedClient_NotClosed(int protocol) => OnBoth("--timeout 1", port =>
    {
        using var subscriber = new RawClient(port);
        if (protocol == 3)
        {
            subscriber.Send("HELLO 3\r\n");
            Assert.StartsWith("%", subscriber.Receive());
        }
        subscriber.Send("SUBSCRIBE timeout:ch\r\n");
        Assert.Contains("timeout:ch", subscriber.Receive());
        Assert.False(subscriber.ClosedWithin(3000));
        using var publisher = new RawClient(port);
        publisher.Send("PUBLISH timeout:ch hello\r\n");
        Assert.Equal(":1\r\n", publisher.Receive());
        Assert.Contains("hello", subscriber.Receive());
    });

    [Fact]
    public Task Timeout_MonitorClient_NotClosed() => OnBoth("--timeout 1", port =>
    {
        using var monitor = new RawClient(port);
        monitor.Send("MONITOR\r\n");
        Assert.Equal("+OK\r\n", monitor.Receive());
        Assert.False(monitor.ClosedWithin(3000));
    });

    [Fact]
    public Task Timeout_ConfigSet_ActsAtOnce() => OnBoth("--timeout 0", port =>
    {
        using var idle = new RawClient(port);
        idle.Send("PING\r\n");
        Assert.Equal("+PONG\r\n", idle.Receive());
        Assert.False(idle.ClosedWithin(2500));
        using var admin = new RawClient(port);
        admin.Send("CONFIG SET timeout 1\r\n");
        Assert.Equal("+OK\r\n", admin.Receive());
        // Idle for over two seconds already: closed at the next look.
        Assert.True(idle.ClosedWithin(2500));
        admin.Send("CONFIG SET timeout 0\r\n");
        Assert.Equal("+OK\r\n", admin.Receive());
    });

    [Fact]
    public Task Timeout_CommandArrivingSlowly_CountsAsInteraction() => OnBoth("--timeout 2", port =>
    {
        using var slow = new RawClient(port);
        // A command sent a piece every 700 ms for four seconds: every read resets the idle clock.
        slow.Send("*2\r\n$4\r\nECHO\r\n$6\r\n");
        foreach (char ch in "abcdef")
        {
            Thread.Sleep(700);
            slow.Send(ch.ToString());
        }
        slow.Send("\r\n");
        Assert.Equal("$6\r\nabcdef\r\n", slow.Receive());
    });

    [Theory]
    [InlineData(300, 300, 100)]
    [InlineData(2, 2, 1)]
    [InlineData(60, 60, 20)]
    public async Task TcpKeepAlive_AcceptedSocket_HasRedisOptions(int seconds, int idle, int interval)
    {
        await using var server = TestServer.Start(1, "--tcp-keepalive", seconds.ToString());
        using var c = server.Connect();
        Assert.Equal("+PONG\r\n", c.Call("PING"));
        var socket = ServerSideSocket(server);
        Assert.Equal(1, (int)socket.GetSocketOption(SocketOptionLevel.Socket, SocketOptionName.KeepAlive)!);
        Assert.Equal(idle, (int)socket.GetSocketOption(SocketOptionLevel.Tcp, SocketOptionName.TcpKeepAliveTime)!);
        Assert.Equal(interval, (int)socket.GetSocketOption(SocketOptionLevel.Tcp, SocketOptionName.TcpKeepAliveInterval)!);
        Assert.Equal(3, (int)socket.GetSocketOption(SocketOptionLevel.Tcp, SocketOptionName.TcpKeepAliveRetryCount)!);
    }

    [Fact]
    public async Task TcpKeepAlive_ZeroAndConfigSet_AppliesToNewClients()
    {
        await using var server = TestServer.Start(1, "--tcp-keepalive", "0");
        using var first = server.Connect();
        Assert.Equal("+PONG\r\n", first.Call("PING"));
        Assert.Equal(0, (int)ServerSideSocket(server).GetSocketOption(SocketOptionLevel.Socket, SocketOptionName.KeepAlive)!);
        Assert.Equal("+OK\r\n", first.Call("CONFIG", "SET", "tcp-keepalive", "30"));
        using var second = server.Connect();
        Assert.Equal("+PONG\r\n", second.Call("PING"));
        var socket = ServerSideSocket(server, newest: true);
        Assert.Equal(1, (int)socket.GetSocketOption(SocketOptionLevel.Socket, SocketOptionName.KeepAlive)!);
        Assert.Equal(30, (int)socket.GetSocketOption(SocketOptionLevel.Tcp, SocketOptionName.TcpKeepAliveTime)!);
        Assert.Equal(10, (int)socket.GetSocketOption(SocketOptionLevel.Tcp, SocketOptionName.TcpKeepAliveInterval)!);
    }

    /// <summary>
    /// The server's end of a client connection: the server runs in this process, so its descriptor
    /// is one of ours (wrapped without taking ownership).
    /// </summary>
    private static Socket ServerSideSocket(TestServer server, bool newest = false)
    {
        var sessions = server.Server.Clients.Values.OrderBy(s => s.Id).ToList();
        var session = newest ? sessions[^1] : sessions[0];
        int fd = session.Buffers!.Fd;
        Assert.True(fd >= 0);
        return new Socket(new SafeSocketHandle(fd, ownsHandle: false));
    }
}
