using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// Debian's redis-server, started on a free loopback port for differential tests, or null when it
/// is not installed. One instance is shared; tests that use it work in their own keys or database.
/// </summary>
public sealed class ReferenceRedis : IDisposable
{
    public const string MissingMessage =
        "redis-server is not installed: differential tests need it (apt-get install -y redis-server)";

    private static readonly Lazy<ReferenceRedis?> SharedInstance = new(() => StartOrNull());
    private readonly Process _process;

    private ReferenceRedis(Process process, int port)
    {
        _process = process;
        Port = port;
    }

    public static string? ServerPath => FindOnPath("redis-server");
    public static string? CliPath => FindOnPath("redis-cli");
    public static string? BenchmarkPath => FindOnPath("redis-benchmark");

    public static bool Available => ServerPath != null;

    /// <summary>The shared reference server, or null when redis-server is missing.</summary>
    public static ReferenceRedis? Shared => SharedInstance.Value;

    public int Port { get; }

    public RespClient Connect() => new(new IPEndPoint(IPAddress.Loopback, Port));

    /// <summary>
    /// Starts a private redis-server, or returns null when it is not installed.
    /// <paramref name="extraArgs"/> are appended to its command line (e.g. "--enable-debug-command yes").
    /// </summary>
    public static ReferenceRedis? StartOrNull(string extraArgs = "")
    {
        var path = ServerPath;
        if (path == null) return null;
        int port = FreePort();
        var psi = new ProcessStartInfo(path, $"--port {port} --bind 127.0.0.1 --save \"\" --appendonly no --daemonize no --loglevel warning {extraArgs}")
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
        var sw = Stopwatch.StartNew();
        while (sw.ElapsedMilliseconds < 10_000)
        {
            try
            {
                using var s = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
                s.Connect(IPAddress.Loopback, port);
                var instance = new ReferenceRedis(process, port);
                AppDomain.CurrentDomain.ProcessExit += (_, _) => instance.Dispose();
                return instance;
            }
            catch (SocketException)
            {
                Thread.Sleep(50);
            }
        }
        process.Kill();
        return null;
    }

    public static int FreePort()
    {
        using var l = new TcpListener(IPAddress.Loopback, 0);
        l.Start();
        return ((IPEndPoint)l.LocalEndpoint).Port;
    }

    public static string? FindOnPath(string name)
    {
        foreach (var dir in (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':'))
        {
            if (dir.Length == 0) continue;
            var p = Path.Combine(dir, name);
            if (File.Exists(p)) return p;
        }
        foreach (var dir in new[] { "/usr/bin", "/usr/local/bin", "/usr/sbin" })
        {
            var p = Path.Combine(dir, name);
            if (File.Exists(p)) return p;
        }
        return null;
    }

    public void Dispose()
    {
        try { if (!_process.HasExited) _process.Kill(); } catch (InvalidOperationException) { }
    }
}

/// <summary>A fact that is skipped, with a message saying why, when redis-server is not installed.</summary>
public sealed class RedisFactAttribute : FactAttribute
{
    public RedisFactAttribute()
    {
        if (!ReferenceRedis.Available) Skip = ReferenceRedis.MissingMessage;
    }
}

/// <summary>A theory that is skipped, with a message saying why, when redis-server is not installed.</summary>
public sealed class RedisTheoryAttribute : TheoryAttribute
{
    public RedisTheoryAttribute()
    {
        if (!ReferenceRedis.Available) Skip = ReferenceRedis.MissingMessage;
    }
}

/// <summary>A fact that is skipped when redis-cli (Debian's redis-tools) is not installed.</summary>
public sealed class RedisCliFactAttribute : FactAttribute
{
    public RedisCliFactAttribute()
    {
        if (ReferenceRedis.CliPath == null) Skip = "redis-cli is not installed (apt-get install -y redis-tools)";
    }
}
