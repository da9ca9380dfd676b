using System.Net;
using System.Net.Sockets;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Network;

/// <summary>
/// CONFIG SET port and bind at run time, as in Redis 7: the listeners move, the connections they
/// accepted stay; a port or address that cannot be bound is refused with Redis's error text and
/// leaves the old listeners as they were (here the new ones are opened before the old close).
/// </summary>
public class ListenerRebindTests
{
    public static TheoryData<string> Transports => new("epoll", "sockets");

    private static bool Refused(IPAddress address, int port)
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            probe.Connect(address, port);
            return false;
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionRefused)
        {
            return true;
        }
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public async Task ConfigSetPort_NewFreePort_ListensThereOldRefusedOldClientsStay(string transport)
    {
        await using var server = TestServer.Start(1, "--transport", transport);
        int oldPort = server.Port;
        using var c = server.Connect();
        int newPort = ReferenceRedis.FreePort();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "port", newPort.ToString()));
        Assert.Equal(newPort, server.Server.Port);
        using (var moved = new RespClient(new IPEndPoint(IPAddress.Loopback, newPort)))
            Assert.Equal("+PONG\r\n", moved.Call("PING"));
        Assert.True(Refused(IPAddress.Loopback, oldPort), "the old port still accepts");
        // The connection made through the old listener is still served.
        Assert.Equal("+PONG\r\n", c.Call("PING"));
        Assert.Equal($"*2\r\n$4\r\nport\r\n${newPort.ToString().Length}\r\n{newPort}\r\n", c.Call("CONFIG", "GET", "port"));
        Assert.Contains($"\r\ntcp_port:{newPort}\r\n", c.Call("INFO", "server"));
    }

    [Fact]
    public async Task ConfigSetPort_PortInUse_RedisErrorAndOldPortStays()
    {
        await using var server = TestServer.Start(1);
        int oldPort = server.Port;
        using var taken = new TcpListener(IPAddress.Loopback, 0);
        taken.Start();
        int busy = ((IPEndPoint)taken.LocalEndpoint).Port;
        using var c = server.Connect();
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.\r\n",
            c.Call("CONFIG", "SET", "port", busy.ToString()));
        Assert.Equal(oldPort, server.Server.Port);
        using (var again = server.Connect())
            Assert.Equal("+PONG\r\n", again.Call("PING"));
        // Nothing of the call was stored: a second parameter in it neither.
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.\r\n",
            c.Call("CONFIG", "SET", "hz", "33", "port", busy.ToString()));
        Assert.Equal("*2\r\n$2\r\nhz\r\n$2\r\n10\r\n", c.Call("CONFIG", "GET", "hz"));
    }

    [Fact]
    public async Task ConfigSetPort_Zero_ClosesTcpPort()
    {
        string dir = Directory.CreateTempSubdirectory("rcp").FullName;
        try
        {
            string path = Path.Combine(dir, "s.sock");
            await using var server = TestServer.Start(1, "--unixsocket", path);
            int oldPort = server.Port;
            using var unix = new RespClient(new UnixDomainSocketEndPoint(path));
            Assert.Equal("+OK\r\n", unix.Call("CONFIG", "SET", "port", "0"));
            Assert.True(Refused(IPAddress.Loopback, oldPort), "port 0 left the TCP port open");
            Assert.Equal("*2\r\n$4\r\nport\r\n$1\r\n0\r\n", unix.Call("CONFIG", "GET", "port"));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task ConfigSetBind_OtherLoopbackAddress_MovesListener()
    {
        await using var server = TestServer.Start(1);
        int port = server.Port;
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "bind", "127.0.0.2"));
        using (var there = new RespClient(new IPEndPoint(IPAddress.Parse("127.0.0.2"), port)))
            Assert.Equal("+PONG\r\n", there.Call("PING"));
        Assert.True(Refused(IPAddress.Loopback, port), "127.0.0.1 still accepts");
        Assert.Equal("*2\r\n$4\r\nbind\r\n$9\r\n127.0.0.2\r\n", c.Call("CONFIG", "GET", "bind"));
        // An address added beside one that stays: the one bound already is kept, not bound twice.
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "bind", "127.0.0.2 127.0.0.1"));
        using (var back = server.Connect())
            Assert.Equal("+PONG\r\n", back.Call("PING"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
        Assert.Contains($"\r\nlistener0:name=tcp,bind=127.0.0.2,bind=127.0.0.1,port={port}\r\n", c.Call("INFO", "server"));
    }

    [Fact]
    public async Task ConfigSetBind_AddressNotOnHost_RedisErrorAndOldBindStays()
    {
        await using var server = TestServer.Start(1);
        using var c = server.Connect();
        // 192.0.2.1 (TEST-NET-1) is no address of this host: bind fails without sending anything.
        Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.\r\n",
            c.Call("CONFIG", "SET", "bind", "127.0.0.1 192.0.2.1"));
        Assert.Equal("*2\r\n$4\r\nbind\r\n$9\r\n127.0.0.1\r\n", c.Call("CONFIG", "GET", "bind"));
        using var again = server.Connect();
        Assert.Equal("+PONG\r\n", again.Call("PING"));
    }

    [RedisFact]
    public void ConfigSetPortAndBind_Errors_MatchRedis()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        using var taken = new TcpListener(IPAddress.Loopback, 0);
        taken.Start();
        string busy = ((IPEndPoint)taken.LocalEndpoint).Port.ToString();
        using var theirs = reference.Connect();
        using var ours = TestServer.Shared.Connect();
        foreach (var args in new[] { new[] { "CONFIG", "SET", "port", busy }, ["CONFIG", "SET", "bind", "127.0.0.1 192.0.2.1"],
                     ["CONFIG", "SET", "port", "x"], ["CONFIG", "SET", "port", "70000"] })
            Assert.Equal(theirs.Call(args), ours.Call(args));
    }
}
