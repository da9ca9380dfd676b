using System.Net;
using System.Net.Sockets;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster;

/// <summary>
/// Cluster nodes of this server started in-process, each on a loopback port in 30000-32999 whose bus
/// port (+10000) is free, with its own nodes.conf in a temporary directory; disposed together.
/// </summary>
internal sealed class OurCluster : IAsyncDisposable
{
    private readonly List<TestServer?> _nodes = new();
    private readonly List<string[]> _args = new();
    private readonly string _dir = Directory.CreateTempSubdirectory("clu-bus-").FullName;

    public IReadOnlyList<TestServer?> Nodes => _nodes;

    public TestServer this[int i] => _nodes[i] ?? throw new InvalidOperationException($"node {i} was stopped");

    /// <summary>Starts <paramref name="count"/> nodes with <paramref name="nodeTimeoutMs"/>.</summary>
    public static OurCluster Start(int count, int nodeTimeoutMs = 5000)
    {
        var c = new OurCluster();
        for (int i = 0; i < count; i++) c.Add(nodeTimeoutMs);
        return c;
    }

    public TestServer Add(int nodeTimeoutMs)
    {
        for (int attempt = 0; ; attempt++)
        {
            int port = PickPortPair();
            try
            {
                string[] args = ["--port", port.ToString(), "--cluster-enabled", "yes",
                    "--cluster-config-file", Path.Combine(_dir, $"nodes-{_nodes.Count}-{port}.conf"),
                    "--cluster-node-timeout", nodeTimeoutMs.ToString(),
                    "--logfile", Path.Combine(_dir, $"node-{_nodes.Count}-{port}.log")];
                var s = TestServer.Start(2, args);
                _nodes.Add(s);
                _args.Add(args);
                return s;
            }
            catch (Exception) when (attempt < 4)
            {
                // the port was taken meanwhile: another one
            }
        }
    }

    /// <summary>Stops node <paramref name="i"/> (its bus links close with it).</summary>
    public async Task StopAsync(int i)
    {
        if (_nodes[i] is { } s)
        {
            _nodes[i] = null;
            await s.DisposeAsync();
        }
    }

    /// <summary>Starts node <paramref name="i"/> again, stopped before, on its port with its nodes.conf (its data is gone: no save points).</summary>
    public TestServer Restart(int i)
    {
        if (_nodes[i] != null) throw new InvalidOperationException($"node {i} is running");
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                var s = TestServer.Start(2, _args[i]);
                _nodes[i] = s;
                return s;
            }
            catch (Exception) when (attempt < 20)
            {
                Thread.Sleep(250); // the port not free again yet
            }
        }
    }

    /// <summary>Gives each node a third of the slots, then node 0 meets the others.</summary>
    public void AssignThirdsAndMeet()
    {
        int[][] ranges = [[0, 5460], [5461, 10922], [10923, 16383]];
        for (int i = 0; i < 3; i++)
            Assert.Equal("+OK", Call(i, "CLUSTER", "ADDSLOTSRANGE", ranges[i][0].ToString(), ranges[i][1].ToString()));
        for (int i = 1; i < _nodes.Count; i++)
            Assert.Equal("+OK", Call(0, "CLUSTER", "MEET", "127.0.0.1", this[i].Port.ToString()));
    }

    /// <summary>One command on node <paramref name="i"/>: a bulk's content, else the reply without its final CRLF.</summary>
    public string Call(int i, params string[] args) => Text(this[i].Connect(), args);

    internal static string Text(RespClient c, params string[] args)
    {
        using (c)
        {
            string reply = c.Call(args);
            if (reply.StartsWith('$') || reply.StartsWith('='))
            {
                int start = reply.IndexOf("\r\n", StringComparison.Ordinal) + 2;
                return reply[start..^2];
            }
            return reply.TrimEnd('\r', '\n');
        }
    }

    /// <summary>CLUSTER NODES as this node's lines, each without the myself flag and the ping/pong times (what every node should agree on).</summary>
    public static string Normalized(string nodes)
    {
        var lines = nodes.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Select(l => l.Split(' '))
            .Select(f => string.Join(' ', new[] { f[0], f[1], f[2].Replace("myself,", ""), f[3], f[6], f[7] }.Concat(f.Skip(8))))
            .OrderBy(l => l, StringComparer.Ordinal);
        return string.Join('\n', lines);
    }

    /// <summary>Waits until every running node knows <paramref name="count"/> nodes, all connected, none in handshake, and says ok.</summary>
    public async Task WaitFormedAsync(int count, int seconds = 30)
    {
        await Eventually.WaitFor(() =>
        {
            foreach (var n in _nodes)
            {
                if (n == null) continue;
                string nodes = Text(n.Connect(), "CLUSTER", "NODES");
                var lines = nodes.Split('\n', StringSplitOptions.RemoveEmptyEntries);
                if (lines.Length != count || lines.Any(l => l.Contains("handshake") || l.Contains("disconnected") || l.Contains("fail"))) return false;
                if (!Text(n.Connect(), "CLUSTER", "INFO").Contains("cluster_state:ok")) return false;
            }
            return true;
        }, Describe, seconds);
    }

    /// <summary>
    /// Waits until the masters' config epochs are all different and every node sees the same ones
    /// (the collisions of a cluster made with ADDSLOTS and MEET are settled), as redis-cli --cluster
    /// checks before it moves slots: a slot moved by hand before that can be claimed back by its old
    /// owner's older message with a bumped epoch.
    /// </summary>
    public async Task WaitEpochsSettledAsync(int seconds = 30)
    {
        await Eventually.WaitFor(() =>
        {
            string? agreed = null;
            foreach (var n in _nodes)
            {
                if (n == null) continue;
                var epochs = Text(n.Connect(), "CLUSTER", "NODES").Split('\n', StringSplitOptions.RemoveEmptyEntries)
                    .Select(l => l.Split(' ')).Where(f => f[2].Contains("master"))
                    .Select(f => f[0] + ":" + f[6]).Order(StringComparer.Ordinal).ToList();
                if (epochs.Select(e => e[(e.IndexOf(':') + 1)..]).Distinct().Count() != epochs.Count) return false;
                string view = string.Join(',', epochs);
                if (agreed != null && agreed != view) return false;
                agreed = view;
            }
            return true;
        }, Describe, seconds);
    }

    public string Describe()
        => string.Join("\n----\n", _nodes.Where(n => n != null).Select(n => $"{n!.Port}:\n{Text(n.Connect(), "CLUSTER", "NODES")}\n{Text(n.Connect(), "CLUSTER", "INFO")}\n{Text(n.Connect(), "INFO", "replication")}"))
           + "\n----\n" + string.Join("\n----\n", Directory.GetFiles(_dir, "*.log").Select(f => $"{f}:\n" + string.Join('\n', File.ReadLines(f).TakeLast(60))));

    /// <summary>A port in 30000-32999 such that it and port + 10000 are free now.</summary>
    public static int PickPortPair() => PickPortPair(30000, 33000);

    /// <summary>A port in [<paramref name="from"/>, <paramref name="to"/>) such that it and port + 10000 (a bus port) are free now.</summary>
    public static int PickPortPair(int from, int to)
    {
        for (int attempt = 0; attempt < 200; attempt++)
        {
            int port = Random.Shared.Next(from, to);
            if (Free(port) && Free(port + 10000)) return port;
        }
        throw new InvalidOperationException($"no free port pair in {from}-{to - 1}");
    }

    private static bool Free(int port)
    {
        try
        {
            using var l = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            l.Bind(new IPEndPoint(IPAddress.Loopback, port));
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }

    /// <summary>The node ids' configEpochs from a CLUSTER NODES text.</summary>
    public static Dictionary<string, string> Epochs(string nodes)
        => nodes.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => l.Split(' ')).ToDictionary(f => f[0], f => f[6]);

    public static readonly Regex Moved = new(@"^-MOVED (\d+) 127\.0\.0\.1:(\d+)$");

    public async ValueTask DisposeAsync()
    {
        foreach (var n in _nodes)
            if (n != null) await n.DisposeAsync();
        _nodes.Clear();
        try { Directory.Delete(_dir, recursive: true); } catch (IOException) { }
    }
}
