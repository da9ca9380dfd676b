using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Replication;

/// <summary>
/// The replica's side of the protocol byte for byte, against a fake master on a socket: the
/// handshake it sends, the offsets it acknowledges (REPLCONF GETACK answered with the offset before
/// it; FACK with the AOF on).
/// </summary>
public sealed class ReplicaLinkWireTests
{
    /// <summary>An empty dataset's RDB file, as this server writes it.</summary>
    private static async Task<byte[]> EmptyRdbAsync()
    {
        string dir = Directory.CreateTempSubdirectory("replica-wire-rdb").FullName;
        try
        {
            await using (var server = TestServer.Start(1, "--dir", dir))
            {
                using var c = server.Connect();
                Assert.Equal("+OK\r\n", c.Call("SAVE"));
            }
            return File.ReadAllBytes(Path.Combine(dir, "dump.rdb"));
        }
        finally
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    private static string ReadCommand(NetworkStream stream)
    {
        // Reads one multibulk command as sent (the handshake's commands are small).
        var text = new StringBuilder();
        int count = -1, seen = 0;
        while (true)
        {
            string line = ReadLine(stream);
            text.Append(line).Append("\r\n");
            if (count < 0)
            {
                count = int.Parse(line[1..]);
                continue;
            }
            if (line.StartsWith('$')) continue;
            if (++seen == count) return text.ToString();
        }
    }

    private static string ReadLine(NetworkStream stream)
    {
        var line = new StringBuilder();
        while (true)
        {
            int b = stream.ReadByte();
            if (b < 0) throw new EndOfStreamException(line.ToString());
            if (b == '\n' && line.Length > 0 && line[^1] == '\r') return line.ToString(0, line.Length - 1);
            line.Append((char)b);
        }
    }

    [Fact]
    public async Task Link_FakeMaster_HandshakeAckAndFack()
    {
        byte[] rdb = await EmptyRdbAsync();
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int masterPort = ((IPEndPoint)listener.LocalEndpoint).Port;
        string dir = Directory.CreateTempSubdirectory("replica-wire").FullName;
        try
        {
            await using var server = TestServer.Start(1, "--dir", dir, "--appendonly", "yes", "--appendfsync", "always",
                "--replica-announce-port", "4242");
            using var r = server.Connect();
            string myId = ReplicaOfRedisTests.Info(r, "master_replid")!;
            Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", masterPort.ToString()));
            using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(25));
            using var socket = await listener.AcceptSocketAsync(cts.Token);
            socket.ReceiveTimeout = 25_000;
            using var stream = new NetworkStream(socket);
            Assert.Equal("*1\r\n$4\r\nPING\r\n", ReadCommand(stream));
            stream.Write("+PONG\r\n"u8);
            Assert.Equal("*3\r\n$8\r\nREPLCONF\r\n$14\r\nlistening-port\r\n$4\r\n4242\r\n", ReadCommand(stream));
            Assert.Equal("*5\r\n$8\r\nREPLCONF\r\n$4\r\ncapa\r\n$3\r\neof\r\n$4\r\ncapa\r\n$6\r\npsync2\r\n", ReadCommand(stream));
            stream.Write("+OK\r\n+OK\r\n"u8);
            // A master that became a replica offers its own history (PSYNC2).
            Assert.Equal($"*3\r\n$5\r\nPSYNC\r\n$40\r\n{myId}\r\n$1\r\n1\r\n", ReadCommand(stream));
            string masterId = new('a', 40);
            stream.Write(Encoding.ASCII.GetBytes($"+FULLRESYNC {masterId} 100\r\n\n\n${rdb.Length}\r\n"));
            stream.Write(rdb);
            // The first ACK comes at once, with the master's offset.
            Assert.Matches(@"^\*(3|5)\r\n\$8\r\nREPLCONF\r\n\$3\r\nACK\r\n\$3\r\n100\r\n", ReadCommand(stream));
            byte[] set = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"u8.ToArray(); // 27 bytes
            stream.Write(set);
            stream.Write("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n"u8);
            // GETACK is answered with the offset before it; FACK says how much is fsynced in the AOF,
            // and reaches everything applied once the SET is on disk (a later ACK, once a second).
            var ack = new Regex(@"^\*5\r\n\$8\r\nREPLCONF\r\n\$3\r\nACK\r\n\$3\r\n(\d+)\r\n\$4\r\nFACK\r\n\$\d+\r\n(\d+)\r\n$");
            var first = ack.Match(ReadCommand(stream));
            Assert.True(first.Success);
            Assert.Equal("127", first.Groups[1].Value);
            // Later ACKs count the GETACK's 37 bytes too.
            string fack = first.Groups[2].Value;
            for (int i = 0; i < 20 && fack != "164"; i++)
            {
                var next = ack.Match(ReadCommand(stream));
                Assert.True(next.Success);
                Assert.Equal("164", next.Groups[1].Value);
                fack = next.Groups[2].Value;
            }
            Assert.Equal("164", fack);
            Assert.Equal("$1\r\nv\r\n", r.Call("GET", "k"));
            Assert.Equal("164", ReplicaOfRedisTests.Info(r, "master_repl_offset"));
            Assert.Equal(masterId, ReplicaOfRedisTests.Info(r, "master_replid"));
            Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "NO", "ONE"));
        }
        finally
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }
}
