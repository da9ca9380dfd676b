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
    /// <summary>
    /// The master's commands see a key whose TTL has passed on the replica's clock but that the
    /// master has not deleted yet (no DEL came), whatever shards the command spans (Redis's
    /// expireIfNeeded returns "not expired" to the master client); and an expiry time already past
    /// when it arrives (SET PXAT, PEXPIREAT, GETEX PXAT: the stream lags) keeps the key until the
    /// master says what becomes of it, as Redis's checkAlreadyExpired on a replica. The soak found
    /// a replica that had deleted such keys at once and lost the PERSIST that followed.
    /// </summary>
    /// <summary>
    /// CLIENT KILL TYPE master while the replica is in the middle of a batch of its master's stream:
    /// the batch is applied whole and its offset passed on, then the link closes, and the PSYNC that
    /// follows asks for what comes after it. Killed mid-batch, the rest of the batch used to be
    /// skipped while its offset was counted, so the PSYNC never brought it back.
    /// </summary>
    [Fact]
    public async Task MasterClientKilled_MidBatch_BatchAppliedAndPsyncAfterIt()
    {
        byte[] rdb = await EmptyRdbAsync();
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int masterPort = ((IPEndPoint)listener.LocalEndpoint).Port;
        await using var server = TestServer.Start(4);
        using var r = server.Connect();
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", masterPort.ToString()));
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(25));
        using (var socket = await listener.AcceptSocketAsync(cts.Token))
        {
            socket.ReceiveTimeout = 25_000;
            using var stream = new NetworkStream(socket);
            ReadCommand(stream); // PING
            stream.Write("+PONG\r\n"u8);
            ReadCommand(stream);
            ReadCommand(stream);
            stream.Write("+OK\r\n+OK\r\n"u8);
            ReadCommand(stream); // PSYNC
            string replid = new('c', 40);
            stream.Write(Encoding.ASCII.GetBytes($"+FULLRESYNC {replid} 0\r\n${rdb.Length}\r\n"));
            stream.Write(rdb);
            Eventually.Wait(() => r.Call("INFO", "replication").Contains("master_link_status:up"), () => r.Call("INFO", "replication"), 25);
            using var started = server.Connect();
            started.Call("SUBSCRIBE", "started");
            // One write: a script that keeps the master client busy for a while, then a SET after it.
            var batch = new List<byte>();
            batch.AddRange(RespClient.Encode("SELECT", "0"));
            batch.AddRange(RespClient.Encode("SET", "before", "1"));
            batch.AddRange(RespClient.Encode("EVAL", "redis.call('PUBLISH', 'started', '1') local t = redis.call('TIME') local s = t[1] * 1000000 + t[2] " +
                "repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - s > 1500000 redis.call('SET', 'slow', '1')", "0"));
            batch.AddRange(RespClient.Encode("SET", "after", "1"));
            stream.Write(batch.ToArray());
            // The script tells a subscriber it has started (pub/sub needs no gate), then spins.
            Assert.Contains("started", started.ReadReply());
            Assert.Equal(":1\r\n", r.Call("CLIENT", "KILL", "TYPE", "master"));
            using var again = await listener.AcceptSocketAsync(cts.Token);
            again.ReceiveTimeout = 25_000;
            using var stream2 = new NetworkStream(again);
            string psync = "";
            for (int i = 0; i < 5 && !psync.Contains("PSYNC"); i++)
            {
                psync = ReadCommand(stream2);
                if (psync.Contains("PING")) stream2.Write("+PONG\r\n"u8);
                else if (!psync.Contains("PSYNC")) stream2.Write("+OK\r\n"u8);
            }
            Assert.Contains(replid, psync);
            Assert.Contains($"${(batch.Count + 1).ToString().Length}\r\n{batch.Count + 1}\r\n", psync); // the offset after the whole batch
            Assert.Equal("$1\r\n1\r\n", r.Call("GET", "after"));
            Assert.Equal("$1\r\n1\r\n", r.Call("GET", "slow"));
        }
    }

    [Fact]
    public async Task MasterStream_KeysPastTheirTtl_KeptUntilTheMasterDeletes()
    {
        byte[] rdb = await EmptyRdbAsync();
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int masterPort = ((IPEndPoint)listener.LocalEndpoint).Port;
        await using var server = TestServer.Start(4);
        using var r = server.Connect();
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", masterPort.ToString()));
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(25));
        using var socket = await listener.AcceptSocketAsync(cts.Token);
        socket.ReceiveTimeout = 25_000;
        using var stream = new NetworkStream(socket);
        ReadCommand(stream); // PING
        stream.Write("+PONG\r\n"u8);
        ReadCommand(stream);
        ReadCommand(stream);
        stream.Write("+OK\r\n+OK\r\n"u8);
        ReadCommand(stream); // PSYNC
        stream.Write(Encoding.ASCII.GetBytes($"+FULLRESYNC {new string('b', 40)} 0\r\n${rdb.Length}\r\n"));
        stream.Write(rdb);
        void Send(params string[] args) => stream.Write(RespClient.Encode(args));
        long at = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() + 300;
        Send("SELECT", "0");
        foreach (var (key, create) in new (string, string[])[]
                 {
                     ("l", ["RPUSH", "l", "a"]), ("z", ["ZADD", "z", "1", "a"]), ("s", ["SADD", "s", "x"]),
                     ("h", ["HSET", "h", "f", "v"]), ("str", ["SET", "str", "abc"]), ("x", ["XADD", "x", "1-1", "f", "v"]),
                 })
        {
            Send(create);
            Send("PEXPIREAT", key, at.ToString());
        }
        Thread.Sleep(600); // past the TTLs: a client no longer sees them, the master's commands still do
        Send("RPUSH", "l", "b");
        Send("LMOVE", "l", "l:dst", "LEFT", "RIGHT");
        Send("MULTI");
        Send("LMOVE", "l", "l:dst", "LEFT", "RIGHT");
        Send("EXEC");
        Send("ZUNIONSTORE", "z:dst", "1", "z");
        Send("SUNIONSTORE", "s:dst", "s");
        Send("MULTI");
        Send("HSET", "h", "g", "w");
        Send("COPY", "h", "h:dst");
        Send("PERSIST", "h:dst");
        Send("EXEC");
        Send("APPEND", "str", "d");
        Send("COPY", "str", "str:dst");
        Send("PERSIST", "str:dst");
        Send("COPY", "x", "x:dst", "DB", "1");
        Send("SELECT", "1");
        Send("PERSIST", "x:dst");
        string past = (DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() - 1000).ToString();
        Send("SET", "late:set", "v1", "PXAT", past);
        Send("PERSIST", "late:set");
        Send("SET", "late:expire", "v2");
        Send("PEXPIREAT", "late:expire", past);
        Send("PERSIST", "late:expire");
        Send("SET", "late:getex", "v3");
        Send("GETEX", "late:getex", "PXAT", past);
        Send("PERSIST", "late:getex");
        Send("SET", "late:hidden", "v4", "PXAT", past);
        Send("SET", "done", "1");
        Eventually.Wait(() => r.Call("SELECT", "1") == "+OK\r\n" && r.Call("GET", "done") == "$1\r\n1\r\n", () => "the stream applied", 25);
        Assert.Equal("*1\r\n$5\r\nx:dst\r\n", r.Call("KEYS", "x*"));
        Assert.Equal(":-1\r\n", r.Call("PTTL", "x:dst"));
        r.Call("SELECT", "0");
        Assert.Equal("*2\r\n$1\r\na\r\n$1\r\nb\r\n", r.Call("LRANGE", "l:dst", "0", "-1"));
        Assert.Equal("*2\r\n$1\r\na\r\n$1\r\n1\r\n", r.Call("ZRANGE", "z:dst", "0", "-1", "WITHSCORES"));
        Assert.Equal("*1\r\n$1\r\nx\r\n", r.Call("SMEMBERS", "s:dst"));
        Assert.Equal(":2\r\n", r.Call("HLEN", "h:dst"));
        Assert.Equal("$4\r\nabcd\r\n", r.Call("GET", "str:dst"));
        r.Call("SELECT", "1");
        Assert.Equal("*3\r\n$2\r\nv1\r\n$2\r\nv2\r\n$2\r\nv3\r\n", r.Call("MGET", "late:set", "late:expire", "late:getex"));
        Assert.Equal(":-1\r\n", r.Call("PTTL", "late:set"));
        Assert.Equal(":-1\r\n", r.Call("PTTL", "late:getex"));
        Assert.Equal(":0\r\n", r.Call("EXISTS", "late:hidden"));
        Assert.Equal(":6\r\n", r.Call("DBSIZE")); // late:hidden counts: there, hidden until its DEL
        r.Call("SELECT", "0");
        // The keys themselves stay hidden from clients until the master's DELs come.
        Assert.Equal(":0\r\n", r.Call("EXISTS", "l", "z", "s", "h", "str"));
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "NO", "ONE"));
    }
}
