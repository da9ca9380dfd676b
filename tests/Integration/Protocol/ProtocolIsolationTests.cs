using System.Net.Sockets;
using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Protocol;

/// <summary>Runs alone: its heap measurement must not count what parallel tests allocate.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProtocolIsolationCollection
{
    public const string Name = "Protocol isolation (not parallel)";
}

/// <summary>
/// Bad input on one connection never harms other clients or data: a client sending garbage, huge
/// claimed lengths and half commands in a loop, then disconnecting, changes nothing another client
/// sees, and leaves nothing behind on the server's heap.
/// </summary>
[Collection(ProtocolIsolationCollection.Name)]
public sealed class ProtocolIsolationTests
{
    [Fact]
    public async Task Garbage_WhileAnotherClientIncrements_EveryIncrementSeenAndHeapBounded()
    {
        await using var server = TestServer.Start(shards: 4);
        const string counter = "isolation:counter";
        const int increments = 3000;

        var garbage = Task.Run(() => SendGarbage(server, iterations: 200, counter));
        using (var client = server.Connect())
        {
            for (int i = 1; i <= increments; i++)
                Assert.Equal($":{i}\r\n", client.Call("INCR", counter));
            await garbage;
            // The half-sent INCRs of the garbage client never ran.
            Assert.Equal($"${increments.ToString().Length}\r\n{increments}\r\n", client.Call("GET", counter));
        }

        // Connections claiming 512 MB bulks and leaving mid-way: nothing is reserved up front and
        // nothing stays behind once they are gone.
        await Eventually.NoClients(server);
        long before = GC.GetTotalMemory(forceFullCollection: true);
        var payload = new byte[256 * 1024];
        Array.Fill(payload, (byte)'v');
        for (int i = 0; i < 100; i++)
        {
            using var c = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            c.Connect(System.Net.IPAddress.Loopback, server.Port);
            c.Send(Encoding.ASCII.GetBytes("*3\r\n$3\r\nSET\r\n$7\r\nbig:key\r\n$536870912\r\n"));
            c.Send(payload);
            if (i % 2 == 0) c.LingerState = new LingerOption(true, 0); // half of them reset instead of closing
            c.Close();
        }
        await Eventually.NoClients(server);
        long after = GC.GetTotalMemory(forceFullCollection: true);
        Assert.True(after - before < 32L * 1024 * 1024, $"heap grew by {(after - before) / 1024} KB after 100 abandoned 512 MB bulks");

        using var check = server.Connect();
        Assert.Equal("$-1\r\n", check.Call("GET", "big:key"));
        Assert.Equal("+PONG\r\n", check.Call("PING"));
    }

    private static void SendGarbage(TestServer server, int iterations, string counter)
    {
        var random = new Random(12345);
        var noise = new byte[512];
        for (int i = 0; i < iterations; i++)
        {
            using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            socket.Connect(System.Net.IPAddress.Loopback, server.Port);
            byte[] bytes;
            switch (i % 7)
            {
                case 0:
                    random.NextBytes(noise);
                    bytes = noise;
                    break;
                case 1:
                    bytes = Encoding.ASCII.GetBytes("*2\r\n$4\r\nINCR\r\n$536870912\r\n" + new string('x', 10_000));
                    break;
                case 2:
                    bytes = Encoding.ASCII.GetBytes($"*2\r\n$4\r\nINCR\r\n${counter.Length}\r\n{counter[..5]}");
                    break;
                case 3:
                    bytes = Encoding.ASCII.GetBytes("*2147483647\r\n$4\r\nINCR\r\n");
                    break;
                case 4:
                    bytes = Encoding.ASCII.GetBytes(new string('y', 70_000));
                    break;
                case 5:
                    bytes = Encoding.ASCII.GetBytes($"INCR \"{counter}\r\n");
                    break;
                default:
                    bytes = Encoding.ASCII.GetBytes($"*2\r\n$4\r\nINCR\r\n$-7\r\n{counter}\r\n");
                    break;
            }
            try
            {
                socket.Send(bytes);
            }
            catch (SocketException)
            {
                // The server closed first (it answered a protocol error): fine.
            }
            if (i % 3 == 0) socket.LingerState = new LingerOption(true, 0);
        }
    }
}
