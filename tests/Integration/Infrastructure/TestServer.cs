using System.Net;
using RedisClone.Server;

namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// A RedisClone server started in-process on 127.0.0.1 with an OS-chosen port. <see cref="Shared"/>
/// is one server for every test that only touches its own keys (use <see cref="KeyPrefix"/>);
/// tests that flush, swap databases or change configuration start their own with <see cref="Start"/>.
/// </summary>
public sealed class TestServer : IAsyncDisposable
{
    private static readonly Lazy<TestServer> SharedServer = new(() => Start(shards: 4));
    private static int _prefixCounter;

    private readonly RedisServer _server;

    /// <summary>The directory made for this server (see <see cref="Start"/>), removed when it is disposed.</summary>
    private string? _ownDir;

    private TestServer(RedisServer server, string? ownDir = null)
    {
        _server = server;
        _ownDir = ownDir;
    }

    /// <summary>A server shared by all tests; 4 shards so multi-shard paths are exercised.</summary>
    public static TestServer Shared => SharedServer.Value;

    public int Port => _server.Port;

    /// <summary>The metrics endpoint's port (--metrics-port), or 0.</summary>
    public int MetricsPort => _server.MetricsPort;

    internal RedisServer Server => _server;

    /// <summary>Starts a private server. <paramref name="extraArgs"/> are redis-server style options.</summary>
    public static TestServer Start(int shards = 4, params string[] extraArgs) => Start(null, shards, extraArgs);

    /// <summary>A private server reading <paramref name="configFile"/> first, as redis-server's first argument.</summary>
    public static TestServer StartWithConfig(string configFile, params string[] extraArgs) => Start(configFile, 2, extraArgs);

    private static TestServer Start(string? configFile, int shards, string[] extraArgs)
    {
        // With a file, its own settings stand (options come after it and would win): only the
        // loopback address, and a free port unless the file names one.
        var args = configFile == null
            ? new List<string> { "--port", "0", "--bind", "127.0.0.1", "--shards", shards.ToString() }
            : new List<string> { configFile, "--bind", "127.0.0.1" };
        if (configFile != null && !File.ReadAllText(configFile).Contains("port ")) args.AddRange(["--port", "0"]);
        // No save points and a directory of its own, unless the test says otherwise: a test server
        // neither writes dump.rdb where the tests run nor loads one another server left there.
        if (!extraArgs.Contains("--save")) args.AddRange(["--save", ""]);
        string? ownDir = null;
        if (!extraArgs.Contains("--dir")) args.AddRange(["--dir", ownDir = Directory.CreateTempSubdirectory("redisclone-test-").FullName]);
        // REDISCLONE_TEST_TRANSPORT=sockets runs every in-process server on the other transport.
        if (Environment.GetEnvironmentVariable("REDISCLONE_TEST_TRANSPORT") is { Length: > 0 } transport && !extraArgs.Contains("--transport"))
            args.AddRange(["--transport", transport]);
        args.AddRange(extraArgs);
        var server = new RedisServer(ServerOptions.Parse(args.ToArray()));
        try
        {
            server.Start();
        }
        catch
        {
            if (ownDir != null) TryDelete(ownDir);
            throw;
        }
        return new TestServer(server, ownDir);
    }

    /// <summary>
    /// A private server on <c>--transport sockets</c> (Pipelines.Sockets.Unofficial), the transport used
    /// where the epoll event loops are not available (anything but Linux) and for TLS.
    /// </summary>
    public static TestServer StartWithSocketEngine(int shards = 4, params string[] args)
        => Start(shards, ["--transport", "sockets", .. args]);

    /// <summary>A key prefix no other test uses, so tests can share <see cref="Shared"/>.</summary>
    public static string KeyPrefix(string test) => $"{test}:{Interlocked.Increment(ref _prefixCounter)}:";

    public RespClient Connect() => new(new IPEndPoint(IPAddress.Loopback, Port));

    public async ValueTask DisposeAsync()
    {
        await _server.StopAsync();
        if (_ownDir != null) TryDelete(_ownDir);
    }

    private static void TryDelete(string dir)
    {
        try
        {
            Directory.Delete(dir, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}
