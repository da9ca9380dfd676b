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
    /// Returns once the server is ready: listening on its port and done loading what its directory holds.
    /// </summary>
    /// <remarks>
    /// Ready means redis-server's own "Ready to accept connections" line, not a connection that
    /// succeeds: redis-server listens before it loads its data, and while it loads an AOF it serves
    /// clients between commands, answering -LOADING to all but a few (a test that read a directory
    /// right after the port opened saw an empty keyspace). The port comes from <see cref="FreePort"/>,
    /// free when picked but not held: a server started meanwhile elsewhere (one on port 0, say) may
    /// take it first. redis-server then exits, and it is started again on another port; a connection
    /// test alone would have found the other server and handed it out as this one.
    /// </remarks>
    public static ReferenceRedis? StartOrNull(string extraArgs = "")
    {
        var path = ServerPath;
        if (path == null) return null;
        for (int attempt = 0; attempt < 5; attempt++)
        {
            var (instance, portTaken) = TryStart(path, extraArgs);
            if (instance != null || !portTaken) return instance;
        }
        return null;
    }

    private static (ReferenceRedis? Instance, bool PortTaken) TryStart(string path, string extraArgs)
    {
        int port = FreePort();
        // loglevel notice: the ready line is a notice.
        var psi = new ProcessStartInfo(path, $"--port {port} --bind 127.0.0.1 --save \"\" --appendonly no --daemonize no --loglevel notice --logfile \"\" {extraArgs}")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        var process = Process.Start(psi)!;
        var ready = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var output = new System.Text.StringBuilder();
        void OnLine(string? line)
        {
            if (line == null) return;
            lock (output)
            {
                if (output.Length < 64 * 1024) output.AppendLine(line);
            }
            if (line.Contains("Ready to accept connections", StringComparison.Ordinal)) ready.TrySetResult();
        }
        process.OutputDataReceived += (_, e) => OnLine(e.Data);
        process.ErrorDataReceived += (_, e) => OnLine(e.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        // Generous: a loaded machine starts it slowly, and a test may give it a directory to load.
        var exited = process.WaitForExitAsync();
        Task.WaitAny([ready.Task, exited], TimeSpan.FromSeconds(60));
        if (ready.Task.IsCompleted && !process.HasExited)
        {
            var instance = new ReferenceRedis(process, port);
            AppDomain.CurrentDomain.ProcessExit += (_, _) => instance.Dispose();
            return (instance, false);
        }
        try { if (!process.HasExited) process.Kill(); } catch (InvalidOperationException) { }
        process.WaitForExit(5000);
        string text;
        lock (output) text = output.ToString();
        return (null, text.Contains("Address already in use", StringComparison.Ordinal));
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

/// <summary>A theory that is skipped when redis-cli and redis-benchmark (Debian's redis-tools) are not installed.</summary>
public sealed class RedisCliTheoryAttribute : TheoryAttribute
{
    public RedisCliTheoryAttribute()
    {
        if (ReferenceRedis.CliPath == null || ReferenceRedis.BenchmarkPath == null)
            Skip = "redis-cli or redis-benchmark is not installed (apt-get install -y redis-tools)";
    }
}
