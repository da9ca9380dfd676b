using System.Diagnostics;
using System.Net;
using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Replication;

/// <summary>
/// Debian's redis-sentinel managing a group of these servers as it manages Redis: three sentinels
/// monitor a master of ours with two replicas of ours; the master is SIGKILLed; a replica is
/// promoted, the other re-pointed, and the old master, started again, rejoins as a replica. Writes
/// WAIT acknowledged before the kill are on the new master, and a client that follows Sentinel
/// (StackExchange.Redis with a service name) writes to the new master. The longer side-by-side run
/// with redis-servers, timed, is bench/memtier/failover.py.
/// </summary>
[Collection("Sentinel")]
public sealed class SentinelTests
{
    private const string Group = "g";

    [SentinelFact]
    public void Sentinel_MasterKilled_ReplicaPromotedOthersFollowOldMasterRejoins()
    {
        using var group = new NodeGroup();
        var master = group.Start(ReferenceRedis.FreePort(), replicaOf: null);
        var replicas = new[] { group.Start(ReferenceRedis.FreePort(), master.Port), group.Start(ReferenceRedis.FreePort(), master.Port) };
        foreach (var r in replicas)
            Eventually.Wait(() => Info(r.Port, "replication").Contains("master_link_status:up"), () => $"replica {r.Port} linked:\n{r.Output}", 30);
        var sentinels = Enumerable.Range(0, 3).Select(_ => group.StartSentinel(master.Port)).ToArray();
        foreach (var s in sentinels)
            Eventually.Wait(() => SentinelMaster(s).Contains("slaves=2,sentinels=3"),
                () => $"sentinel {s} sees both replicas and the other sentinels: {SentinelMaster(s)}", 90);

        var options = new ConfigurationOptions { ServiceName = Group, AbortOnConnectFail = false, ConnectTimeout = 5000 };
        foreach (var p in sentinels) options.EndPoints.Add(new IPEndPoint(IPAddress.Loopback, p));
        using var follower = ConnectionMultiplexer.Connect(options);
        Assert.True(follower.GetDatabase().StringSet("before", "1"));

        // redis-py's Sentinel client, when Debian's python3-redis is there, writes through the failover.
        using var pyFollower = RedisPySentinelFollower.StartOrNull(sentinels, Group, master.Port);

        var acknowledged = new List<string>();
        using (var client = new RespClient(new IPEndPoint(IPAddress.Loopback, master.Port)))
        {
            for (int i = 0; i < 50; i++)
            {
                Assert.Equal("+OK\r\n", client.Call("SET", $"w:{i}", i.ToString()));
                if (client.Call("WAIT", "1", "1000") != ":0\r\n") acknowledged.Add($"w:{i}");
            }
        }
        Assert.NotEmpty(acknowledged);

        master.Signal(9);
        master.WaitForExit();
        int newMaster = 0;
        Eventually.Wait(() => (newMaster = MasterAddress(sentinels[0])) != master.Port && newMaster != 0,
            () => $"a replica promoted; sentinel says {MasterAddress(sentinels[0])}", 90);
        var promoted = replicas.Single(r => r.Port == newMaster);
        var other = replicas.Single(r => r.Port != newMaster);
        Assert.Contains("role:master", Info(promoted.Port, "replication"));
        using (var client = new RespClient(new IPEndPoint(IPAddress.Loopback, newMaster)))
        {
            foreach (var key in acknowledged) Assert.Equal(":1\r\n", client.Call("EXISTS", key));
            Assert.Equal("+OK\r\n", client.Call("SET", "after", "1"));
        }
        Eventually.Wait(() => Info(other.Port, "replication") is var text && text.Contains($"master_port:{newMaster}") && text.Contains("master_link_status:up"),
            () => $"the other replica follows the new master:\n{Info(other.Port, "replication")}", 90);

        // The client that follows Sentinel writes to the new master.
        Eventually.Wait(() =>
        {
            try { return follower.GetDatabase().StringSet("follower", "2"); }
            catch (RedisException) { return false; }
        }, () => "StackExchange.Redis writes after the failover", 90);
        using (var client = new RespClient(new IPEndPoint(IPAddress.Loopback, newMaster)))
            Assert.Equal("$1\r\n2\r\n", client.Call("GET", "follower"));

        if (pyFollower != null)
        {
            Assert.True(pyFollower.WaitForExit(90_000), $"redis-py follows the failover:\n{pyFollower.Output}");
            Assert.True(pyFollower.ExitCode == 0, $"redis-py follows the failover (exit {pyFollower.ExitCode}):\n{pyFollower.Output}");
            Assert.Contains($"switched {newMaster}", pyFollower.Output);
            using var client = new RespClient(new IPEndPoint(IPAddress.Loopback, newMaster));
            Assert.StartsWith("$", client.Call("GET", "pyfollower"));
        }

        // It rejoins as a replica of the master Sentinel names now: on a saturated machine the new
        // master can miss down-after-milliseconds (1 s) and the other replica be promoted in turn.
        var restarted = group.Restart(master);
        int current = 0;
        Eventually.Wait(() => (current = MasterAddress(sentinels[0])) is not 0 && current != restarted.Port
                               && Info(restarted.Port, "replication") is var text && text.Contains($"master_port:{current}") && text.Contains("master_link_status:up"),
            () => $"the old master rejoins as a replica of the current master {current} (promoted first: {newMaster}):\n{Info(restarted.Port, "replication")}\n{restarted.Output}", 120);
        using (var client = new RespClient(new IPEndPoint(IPAddress.Loopback, restarted.Port)))
            Eventually.Wait(() => client.Call("EXISTS", "after") == ":1\r\n", () => "the old master has the new master's writes", 30);
    }

    private static string Info(int port, string section)
    {
        try
        {
            using var client = new RespClient(new IPEndPoint(IPAddress.Loopback, port), 5000);
            return client.Call("INFO", section);
        }
        catch (Exception ex) when (ex is System.Net.Sockets.SocketException or IOException or TimeoutException)
        {
            return ex.Message;
        }
    }

    private static string SentinelMaster(int sentinelPort)
    {
        var text = Info(sentinelPort, "sentinel");
        return text.Split('\n').FirstOrDefault(l => l.StartsWith("master0:", StringComparison.Ordinal))?.Trim() ?? text;
    }

    private static int MasterAddress(int sentinelPort)
    {
        try
        {
            using var client = new RespClient(new IPEndPoint(IPAddress.Loopback, sentinelPort), 5000);
            var reply = client.Call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", Group);
            var lines = reply.Split("\r\n");
            return lines.Length >= 5 && int.TryParse(lines[4], out int port) ? port : 0;
        }
        catch (Exception ex) when (ex is System.Net.Sockets.SocketException or IOException or TimeoutException)
        {
            return 0;
        }
    }

    /// <summary>Our servers (each with a config file, as Sentinel's CONFIG REWRITE wants) and the sentinels, all stopped at the end.</summary>
    private sealed class NodeGroup : IDisposable
    {
        private readonly string _dir = Directory.CreateTempSubdirectory("sentinel-test-").FullName;
        private readonly List<ExternalServer> _servers = [];
        private readonly List<Process> _sentinels = [];

        public ExternalServer Start(int port, int? replicaOf)
        {
            string conf = Path.Combine(_dir, $"node-{port}.conf");
            if (!File.Exists(conf))
                File.WriteAllText(conf, $"dir {_dir}\ndbfilename dump-{port}.rdb\nsave \"\"\nappendonly no\n" +
                                        (replicaOf is { } m ? $"replicaof 127.0.0.1 {m}\n" : ""));
            var server = ExternalServer.StartOnPort(port, conf);
            _servers.Add(server);
            return server;
        }

        public ExternalServer Restart(ExternalServer old) => Start(old.Port, null);

        public int StartSentinel(int masterPort)
        {
            int port = ReferenceRedis.FreePort();
            string conf = Path.Combine(_dir, $"sentinel-{port}.conf");
            File.WriteAllText(conf, $"port {port}\nbind 127.0.0.1\ndir {_dir}\n" +
                                    $"sentinel monitor {Group} 127.0.0.1 {masterPort} 2\n" +
                                    $"sentinel down-after-milliseconds {Group} 1000\n" +
                                    $"sentinel failover-timeout {Group} 10000\n" +
                                    $"sentinel parallel-syncs {Group} 1\n");
            var psi = new ProcessStartInfo(SentinelFactAttribute.SentinelPath!, conf)
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            var process = Process.Start(psi)!;
            process.OutputDataReceived += (_, _) => { };
            process.ErrorDataReceived += (_, _) => { };
            process.BeginOutputReadLine();
            process.BeginErrorReadLine();
            _sentinels.Add(process);
            Eventually.Wait(() =>
            {
                try
                {
                    using var probe = new RespClient(new IPEndPoint(IPAddress.Loopback, port), 1000);
                    return probe.Call("PING") == "+PONG\r\n";
                }
                catch (Exception ex) when (ex is System.Net.Sockets.SocketException or IOException or TimeoutException)
                {
                    return false;
                }
            }, () => $"redis-sentinel listening on {port}", 15);
            return port;
        }

        public void Dispose()
        {
            foreach (var p in _sentinels)
            {
                try { if (!p.HasExited) p.Kill(); p.WaitForExit(5000); } catch (InvalidOperationException) { }
                p.Dispose();
            }
            foreach (var s in _servers) s.Dispose();
            try { Directory.Delete(_dir, recursive: true); } catch (IOException) { }
        }
    }

    /// <summary>
    /// A python3 process using redis-py's Sentinel (Debian's python3-redis): it writes to the master
    /// Sentinel names, through errors, until a write succeeds on a master other than the one it
    /// started with, prints "switched PORT" and exits 0 (1 after its own deadline).
    /// </summary>
    private sealed class RedisPySentinelFollower : IDisposable
    {
        private const string Python = "/usr/bin/python3";

        private const string Script = """
            import sys, time
            from redis.sentinel import Sentinel
            from redis.exceptions import RedisError
            ports = [int(p) for p in sys.argv[1].split(",")]
            group, old = sys.argv[2], int(sys.argv[3])
            sentinel = Sentinel([("127.0.0.1", p) for p in ports], socket_timeout=1)
            master = sentinel.master_for(group, socket_timeout=1)
            deadline = time.time() + 150
            i = 0
            while time.time() < deadline:
                i += 1
                try:
                    master.set("pyfollower", str(i))
                    host, port = sentinel.discover_master(group)
                    if port != old:
                        print("switched %d" % port, flush=True)
                        sys.exit(0)
                except RedisError as e:
                    print("error %s" % type(e).__name__, flush=True)
                time.sleep(0.05)
            print("deadline", flush=True)
            sys.exit(1)
            """;

        private readonly Process _process;
        private readonly System.Text.StringBuilder _output = new();

        private RedisPySentinelFollower(Process process)
        {
            _process = process;
        }

        public string Output
        {
            get
            {
                lock (_output) return _output.ToString();
            }
        }

        public int ExitCode => _process.ExitCode;

        public bool WaitForExit(int ms)
        {
            if (!_process.WaitForExit(ms)) return false;
            _process.WaitForExit(); // the output's last lines
            return true;
        }

        public static RedisPySentinelFollower? StartOrNull(int[] sentinels, string group, int masterPort)
        {
            if (!File.Exists(Python)) return null;
            using (var probe = Process.Start(new ProcessStartInfo(Python, ["-c", "import redis.sentinel"]) { RedirectStandardError = true })!)
            {
                probe.WaitForExit(30_000);
                if (!probe.HasExited || probe.ExitCode != 0) return null; // no python3-redis: only StackExchange.Redis is checked
            }
            var psi = new ProcessStartInfo(Python, ["-c", Script, string.Join(",", sentinels), group, masterPort.ToString()])
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            var process = Process.Start(psi)!;
            var follower = new RedisPySentinelFollower(process);
            process.OutputDataReceived += (_, e) => { if (e.Data != null) lock (follower._output) follower._output.AppendLine(e.Data); };
            process.ErrorDataReceived += (_, e) => { if (e.Data != null) lock (follower._output) follower._output.AppendLine(e.Data); };
            process.BeginOutputReadLine();
            process.BeginErrorReadLine();
            return follower;
        }

        public void Dispose()
        {
            try { if (!_process.HasExited) _process.Kill(); } catch (InvalidOperationException) { }
            _process.Dispose();
        }
    }
}

/// <summary>A fact that is skipped, with a message saying why, when redis-sentinel is not installed.</summary>
public sealed class SentinelFactAttribute : FactAttribute
{
    public static string? SentinelPath => ReferenceRedis.FindOnPath("redis-sentinel");

    public SentinelFactAttribute()
    {
        if (SentinelPath == null) Skip = "redis-sentinel is not installed (apt-get install -y redis-sentinel)";
    }
}
