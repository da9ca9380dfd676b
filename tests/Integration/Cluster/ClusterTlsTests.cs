using System.Diagnostics;
using RedisClone.Tests.Cluster.Bus;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// tls-cluster: the bus over TLS (each node presents tls-client-cert-file when it connects out and
/// checks the peer against tls-ca-cert-file, tls-auth-clients applying to bus connections too), the
/// bus port derived from the TLS port, and the ports each client is told: a client of the TLS port
/// hears the nodes' TLS ports in CLUSTER NODES, SLOTS and redirections, a plain one their plain
/// ports (Redis 7.2's shouldReturnTlsInfo; 7.0 answered by tls-cluster alone).
/// </summary>
public sealed class ClusterTlsTests : IClassFixture<TlsFiles>
{
    private readonly TlsFiles _files;

    public ClusterTlsTests(TlsFiles files) => _files = files;

    /// <summary>The TLS arguments of a node whose bus runs over TLS.</summary>
    private string[] TlsArgs(int tlsPort) =>
    [
        .. _files.ServerArgs(tlsPort), "--tls-cluster", "yes",
        "--tls-client-cert-file", _files.Path("client.crt"), "--tls-client-key-file", _files.Path("client.key"),
    ];

    /// <summary>A node of this server with a plain port, a TLS port and its bus on the TLS port + 10000.</summary>
    private TestServer StartNode(string dir, out int tlsPort)
    {
        for (int attempt = 0; ; attempt++)
        {
            int port = ReferenceRedis.FreePort();
            tlsPort = OurCluster.PickPortPair();
            try
            {
                return TestServer.Start(2, ["--port", port.ToString(), "--cluster-enabled", "yes",
                    "--cluster-config-file", Path.Combine(dir, $"nodes-{port}.conf"), "--cluster-node-timeout", "5000",
                    .. TlsArgs(tlsPort)]);
            }
            catch (Exception) when (attempt < 4)
            {
                // a port was taken meanwhile: others
            }
        }
    }

    private TlsClient Tls(int tlsPort) => new(tlsPort, _files.Ca, _files.ClientCertificate());

    [Fact]
    public async Task TlsCluster_TwoNodes_FormOverTlsAndTellEachClientItsKindOfPort()
    {
        string dir = Directory.CreateTempSubdirectory("clu-tls-").FullName;
        try
        {
            await using var a = StartNode(dir, out int tlsA);
            await using var b = StartNode(dir, out int tlsB);
            Assert.Equal("+OK", OurCluster.Text(a.Connect(), "CLUSTER", "ADDSLOTSRANGE", "0", "8191"));
            Assert.Equal("+OK", OurCluster.Text(b.Connect(), "CLUSTER", "ADDSLOTSRANGE", "8192", "16383"));
            // Under tls-cluster MEET names the TLS port; the bus is on the TLS port + 10000.
            Assert.Equal("+OK", OurCluster.Text(a.Connect(), "CLUSTER", "MEET", "127.0.0.1", tlsB.ToString()));
            await Eventually.WaitFor(() => Formed(a) && Formed(b),
                () => OurCluster.Text(a.Connect(), "CLUSTER", "NODES") + "\n--\n" + OurCluster.Text(b.Connect(), "CLUSTER", "NODES"), 30);

            string bId = OurCluster.Text(b.Connect(), "CLUSTER", "MYID");
            string plainView = OurCluster.Text(a.Connect(), "CLUSTER", "NODES");
            Assert.Contains($"{bId} 127.0.0.1:{b.Port}@{tlsB + 10000} ", plainView);
            using (var tls = Tls(tlsA))
            {
                string tlsView = tls.Call("CLUSTER NODES");
                Assert.Contains($"{bId} 127.0.0.1:{tlsB}@{tlsB + 10000} ", tlsView);
                Assert.Contains($"127.0.0.1:{tlsA}@{tlsA + 10000} myself,master", tlsView);
                // "foo" hashes to slot 12182, node b's.
                Assert.Equal($"-MOVED 12182 127.0.0.1:{tlsB}\r\n", tls.Call("GET foo"));
                Assert.Contains($":{tlsB}\r\n", tls.Call("CLUSTER SLOTS"));
            }
            using (var plain = a.Connect())
            {
                Assert.Equal($"-MOVED 12182 127.0.0.1:{b.Port}\r\n", plain.Call("GET", "foo"));
                string slots = plain.Call("CLUSTER", "SLOTS");
                Assert.Contains($":{b.Port}\r\n", slots);
                Assert.DoesNotContain($":{tlsB}\r\n", slots);
            }
            // CLUSTER SHARDS names both kinds, as Redis.
            string shards = a.Connect().Call("CLUSTER", "SHARDS");
            Assert.Contains($"$4\r\nport\r\n:{b.Port}\r\n$8\r\ntls-port\r\n:{tlsB}\r\n", shards);

            // nodes.conf under tls-cluster: the TLS port after the address, the plain one as an aux field.
            string conf = ClusterNodeTests.ReadLocked(Path.Combine(dir, $"nodes-{a.Port}.conf"));
            Assert.Contains($"{bId} 127.0.0.1:{tlsB}@{tlsB + 10000},,tcp-port={b.Port},", conf);
        }
        finally
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    [RedisFact]
    public async Task TlsCluster_WithRedisServer_LinksBothWaysOverTls()
    {
        string dir = Directory.CreateTempSubdirectory("clu-tls-").FullName;
        int redisTls = OurCluster.PickPortPair();
        using var redis = ClusterRedis.Start(string.Join(' ', TlsArgs(redisTls).Select(a => a.Contains(' ') ? $"\"{a}\"" : a))
                                             + $" --cluster-port {redisTls + 10000}");
        Assert.NotNull(redis);
        try
        {
            await using var ours = StartNode(dir, out int oursTls);
            Assert.Equal("+OK", redis!.Call("CLUSTER", "ADDSLOTSRANGE", "0", "8191"));
            Assert.Equal("+OK", OurCluster.Text(ours.Connect(), "CLUSTER", "ADDSLOTSRANGE", "8192", "16383"));
            // Ours opens its link to redis-server over TLS, redis-server's answers come back over its own TLS link.
            Assert.Equal("+OK", OurCluster.Text(ours.Connect(), "CLUSTER", "MEET", "127.0.0.1", redisTls.ToString()));
            await Eventually.WaitFor(() => Formed(ours) && FormedText(redis.Call("CLUSTER", "NODES"), redis.Call("CLUSTER", "INFO")),
                () => OurCluster.Text(ours.Connect(), "CLUSTER", "NODES") + "\n--\n" + redis.Call("CLUSTER", "NODES") + "\n" + redis.LogText, 30);

            string oursId = OurCluster.Text(ours.Connect(), "CLUSTER", "MYID");
            // redis-server learnt both our ports from the bus: a plain client of it is told the plain one.
            Assert.Contains($"{oursId} 127.0.0.1:{ours.Port}@{oursTls + 10000} master - 0", redis.Call("CLUSTER", "NODES"));
            string redisId = redis.Call("CLUSTER", "MYID");
            Assert.Contains($"{redisId} 127.0.0.1:{redis.Port}@{redisTls + 10000} master - 0",
                OurCluster.Text(ours.Connect(), "CLUSTER", "NODES"));
            // CLUSTER LINKS: one link each way on both sides.
            Assert.Equal(2, CountLinks(redis.Call("CLUSTER", "LINKS")));
            using var c = ours.Connect();
            Assert.Equal(2, CountLinks(c.Call("CLUSTER", "LINKS")));
        }
        finally
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    [Fact]
    public async Task TlsCluster_PeerWithUnknownCertificate_NeverJoins()
    {
        string dir = Directory.CreateTempSubdirectory("clu-tls-").FullName;
        try
        {
            await using var a = StartNode(dir, out int tlsA);
            // b presents a client certificate from a CA that a does not trust: a's bus refuses b's link
            // at the TLS handshake, so b's MEET never gets an answer.
            int port = ReferenceRedis.FreePort(), tlsB = OurCluster.PickPortPair();
            await using var b = TestServer.Start(2, ["--port", port.ToString(), "--cluster-enabled", "yes",
                "--cluster-config-file", Path.Combine(dir, $"nodes-{port}.conf"),
                .. _files.ServerArgs(tlsB), "--tls-cluster", "yes",
                "--tls-client-cert-file", _files.Path("stranger.crt"), "--tls-client-key-file", _files.Path("stranger.key")]);
            Assert.Equal("+OK", OurCluster.Text(b.Connect(), "CLUSTER", "MEET", "127.0.0.1", tlsA.ToString()));
            var sw = Stopwatch.StartNew();
            while (sw.ElapsedMilliseconds < 3000)
            {
                // a never learns of b: the MEET's link never passes a's handshake.
                Assert.DoesNotContain("\n", OurCluster.Text(a.Connect(), "CLUSTER", "NODES").TrimEnd('\n'));
                await Task.Delay(200);
            }
            Assert.Contains("handshake", OurCluster.Text(b.Connect(), "CLUSTER", "NODES"));
        }
        finally
        {
            try { Directory.Delete(dir, recursive: true); } catch (IOException) { }
        }
    }

    private static bool Formed(TestServer node)
        => FormedText(OurCluster.Text(node.Connect(), "CLUSTER", "NODES"), OurCluster.Text(node.Connect(), "CLUSTER", "INFO"));

    private static bool FormedText(string nodes, string info)
    {
        var lines = nodes.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        return lines.Length == 2 && !lines.Any(l => l.Contains("handshake") || l.Contains("disconnected") || l.Contains("fail"))
               && info.Contains("cluster_state:ok");
    }

    private static int CountLinks(string reply) => reply.Split("direction").Length - 1;
}
