using System.Net;
using System.Net.NetworkInformation;
using System.Net.Sockets;
using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Security;

/// <summary>
/// What Redis refuses before a client may run anything: protected mode (a non-loopback peer while
/// the default user has no password) and large requests from a client that must still authenticate.
/// </summary>
public class ConnectionGuardTests
{
    /// <summary>
    /// The replies to raw bytes, and whether the server then closed the connection within
    /// <paramref name="closeWithinMs"/> (a server that closes does so right after its reply: the
    /// wait is long only for a connection that stays open, or a server slow on a loaded machine).
    /// </summary>
    private static (string Replies, bool Closed) Exchange(RespClient c, string raw, int replies, int closeWithinMs)
    {
        c.SendRaw(Encoding.ASCII.GetBytes(raw));
        var text = new StringBuilder();
        for (int i = 0; i < replies; i++) text.Append(c.ReadReply());
        return (text.ToString(), c.ClosedWithin(closeWithinMs));
    }

    public static TheoryData<string, int> UnauthenticatedRequests => new()
    {
        { "*11\r\n", 1 },                                           // more than 10 arguments
        { "*10\r\n", 0 },                                           // 10 is allowed (then waits for them)
        { "*1\r\n$16385\r\n", 1 },                                 // a bulk over 16 KB
        { "*1\r\n$16384\r\n" + new string('x', 16384) + "\r\n", 1 }, // 16 KB is allowed: NOAUTH
        { "*-1\r\n*11\r\n", 1 },
        { "*abc\r\n", 1 },                                          // invalid length wins
        { "*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n*11\r\n$4\r\nMSET\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\nd\r\n$1\r\n4\r\n$1\r\ne\r\n$1\r\n5\r\n", 2 },
        { "*2\r\n$4\r\nAUTH\r\n$5\r\nwrong\r\n*11\r\n", 2 },
        { "PING\r\n*11\r\n", 2 },                                   // inline lines have no such limit
    };

    [RedisTheory]
    [MemberData(nameof(UnauthenticatedRequests))]
    public void Unauthenticated_LargeRequests_ProtocolErrorAndClose(string raw, int replies)
    {
        using var servers = new PairedServers("--requirepass", "secret");
        using var theirs = servers.ConnectTheirs();
        using var ours = servers.ConnectOurs();
        // redis-server closes right after writing the error (its reply is always read first: 7.0.15
        // sends each of these cases its reply, then FIN, 1000 of 1000 times under CPU load). A
        // connection left open is waited for 3 s on redis-server; ours is then given as long to
        // close as any, and 1 s to show it stays open.
        var expected = Exchange(theirs, raw, replies, closeWithinMs: 3000);
        var actual = Exchange(ours, raw, replies, closeWithinMs: expected.Closed ? 10_000 : 1000);
        Assert.Equal(Differential.Show(expected.Replies), Differential.Show(actual.Replies));
        Assert.Equal(expected.Closed, actual.Closed);
    }

    [Fact]
    public async Task Unauthenticated_MultibulkOverTen_ExactTextThenClosed()
    {
        await using var server = TestServer.Start(2, "--requirepass", "secret");
        using var c = server.Connect();
        var (replies, closed) = Exchange(c, "*11\r\n", 1, closeWithinMs: 10_000);
        Assert.Equal("-ERR Protocol error: unauthenticated multibulk length\r\n", replies);
        Assert.True(closed);
        using var d = server.Connect();
        (replies, closed) = Exchange(d, "*1\r\n$16385\r\n", 1, closeWithinMs: 10_000);
        Assert.Equal("-ERR Protocol error: unauthenticated bulk length\r\n", replies);
        Assert.True(closed);
        // Without a password nobody is unauthenticated.
        await using var open = TestServer.Start(2);
        using var e = open.Connect();
        Assert.Equal(":11\r\n", e.Call([.. new[] { "RPUSH", "l" }, .. Enumerable.Range(0, 11).Select(i => i.ToString())]));
    }

    /// <summary>An IPv4 address of this machine other than loopback, or null.</summary>
    internal static IPAddress? ExternalAddress()
        => NetworkInterface.GetAllNetworkInterfaces()
            .Where(n => n.OperationalStatus == OperationalStatus.Up && n.NetworkInterfaceType != NetworkInterfaceType.Loopback)
            .SelectMany(n => n.GetIPProperties().UnicastAddresses)
            .Select(a => a.Address)
            .FirstOrDefault(a => a.AddressFamily == AddressFamily.InterNetwork && !IPAddress.IsLoopback(a));

    private const string Denied =
        "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Set up an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n";

    [ExternalAddressFact]
    public async Task ProtectedMode_NonLoopbackPeerWithoutPassword_DeniedAndClosed()
    {
        var external = ExternalAddress();
        await using var server = TestServer.Start(2, "--bind", "0.0.0.0", "--protected-mode", "yes");
        using (var c = new RespClient(new IPEndPoint(external!, server.Port)))
        {
            c.Send("PING");
            Assert.Equal(Denied, c.ReadReply());
            Assert.True(c.IsClosedByServer());
        }
        using var local = server.Connect();
        Assert.Equal("+PONG\r\n", local.Call("PING"));
        Assert.Contains("rejected_connections:1\r\n", local.Call("INFO", "stats"));
        // A password on the default user, or protected mode off, lets the peer in; at once.
        Assert.Equal("+OK\r\n", local.Call("CONFIG", "SET", "requirepass", "pw"));
        using (var c = new RespClient(new IPEndPoint(external!, server.Port)))
            Assert.Equal("-NOAUTH Authentication required.\r\n", c.Call("PING"));
        Assert.Equal("+OK\r\n", local.Call("CONFIG", "SET", "requirepass", ""));
        Assert.Equal("+OK\r\n", local.Call("CONFIG", "SET", "protected-mode", "no"));
        using (var c = new RespClient(new IPEndPoint(external!, server.Port)))
            Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [ExternalAddressFact(NeedsRedis = true)]
    public void ProtectedMode_DeniedText_SameAsRedis()
    {
        var external = ExternalAddress();
        using var servers = new PairedServers("--bind", "0.0.0.0", "--protected-mode", "yes");
        using var theirs = new RespClient(new IPEndPoint(external!, servers.ReferencePort));
        using var ours = new RespClient(new IPEndPoint(external!, servers.OurPort));
        theirs.Send("PING");
        ours.Send("PING");
        // 7.2 fixed 7.0's "4) Setup a an authentication password" to "4) Set up an ...".
        Assert.Equal(theirs.ReadReply().Replace("4) Setup a an ", "4) Set up an "), ours.ReadReply());
        Assert.True(ours.IsClosedByServer());
    }
}

/// <summary>Skips a protected-mode test on a machine with no non-loopback IPv4 address to connect from.</summary>
public sealed class ExternalAddressFactAttribute : FactAttribute
{
    public ExternalAddressFactAttribute()
    {
        if (ConnectionGuardTests.ExternalAddress() == null) Skip = "this machine has no non-loopback IPv4 address to connect from";
    }

    /// <summary>The test also needs redis-server.</summary>
    public bool NeedsRedis
    {
        get => false;
        init
        {
            if (value && !ReferenceRedis.Available) Skip ??= ReferenceRedis.MissingMessage;
        }
    }
}
