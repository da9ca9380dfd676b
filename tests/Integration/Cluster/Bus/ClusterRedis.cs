using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster.Bus;

/// <summary>
/// A private redis-server in cluster mode on a loopback port between 27000 and 29999 whose bus port
/// (port + 10000) is free too, with its own directory (nodes.conf) and log file. Killed and its
/// directory removed on dispose.
/// </summary>
internal sealed class ClusterRedis : IDisposable
{
    private readonly Process _process;

    private ClusterRedis(Process process, int port, string dir)
    {
        _process = process;
        Port = port;
        Dir = dir;
    }

    public int Port { get; }

    public int BusPort => Port + 10000;

    public string Dir { get; }

    public string LogText => File.Exists(Path.Combine(Dir, "redis.log")) ? File.ReadAllText(Path.Combine(Dir, "redis.log")) : "";

    public RespClient Connect() => new(new IPEndPoint(IPAddress.Loopback, Port));

    /// <summary>One reply's text without its RESP framing (a bulk string's content, a simple string, an error).</summary>
    public string Call(params string[] args)
    {
        using var c = Connect();
        string reply = c.Call(args);
        if (reply.StartsWith('$'))
        {
            int start = reply.IndexOf("\r\n", StringComparison.Ordinal) + 2;
            return reply[start..^2];
        }
        return reply.TrimEnd('\r', '\n');
    }

    /// <summary>A port in 27000-29999 such that it and port + 10000 are free now.</summary>
    public static int PickPortPair() => OurCluster.PickPortPair(27000, 30000);

    /// <summary>Starts one; null when redis-server is missing.</summary>
    public static ClusterRedis? Start(string extraArgs = "")
    {
        var path = ReferenceRedis.ServerPath;
        if (path == null) return null;
        for (int attempt = 0; attempt < 5; attempt++)
        {
            int port = PickPortPair();
            string dir = Directory.CreateTempSubdirectory("bus-redis").FullName;
            var psi = new ProcessStartInfo(path,
                $"--port {port} --bind 127.0.0.1 --cluster-enabled yes --cluster-config-file nodes.conf --dir \"{dir}\" " +
                $"--save \"\" --appendonly no --daemonize no --loglevel verbose --logfile redis.log {extraArgs}")
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            var process = Process.Start(psi)!;
            var instance = new ClusterRedis(process, port, dir);
            var deadline = DateTime.UtcNow.AddSeconds(30);
            while (DateTime.UtcNow < deadline && !process.HasExited)
            {
                if (instance.LogText.Contains("Ready to accept connections", StringComparison.Ordinal)) return instance;
                Thread.Sleep(50);
            }
            instance.Dispose(); // exited (a port taken meanwhile) or never ready: another port
        }
        return null;
    }

    public void Dispose()
    {
        try { if (!_process.HasExited) _process.Kill(); } catch (InvalidOperationException) { }
        _process.WaitForExit(10_000);
        try { Directory.Delete(Dir, recursive: true); } catch (IOException) { }
    }
}
