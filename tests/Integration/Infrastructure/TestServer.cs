using System.Net;
using RedisClone.Server;

namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// A RedisClone server started in-process on 127.0.0.1 with an OS-chosen port, through the public
/// embedding API (<see cref="RedisCloneServer"/>). <see cref="Shared"/>
/// is one server for every test that only touches its own keys (use <see cref="KeyPrefix"/>);
/// tests that flush, swap databases or change configuration start their own with <see cref="Start"/>.
/// </summary>
public sealed class TestServer : IAsyncDisposable
{
    private static readonly Lazy<TestServer> SharedServer = new(() => Start(shards: 4));
    private static int _prefixCounter;

    private readonly RedisCloneServer _server;

    private TestServer(RedisCloneServer server) => _server = server;

    /// <summary>A server shared by all tests; 4 shards so multi-shard paths are exercised.</summary>
    public static TestServer Shared => SharedServer.Value;

    public int Port => _server.Port;

    /// <summary>The metrics endpoint's port (--metrics-port), or 0.</summary>
    public int MetricsPort => _server.Server.MetricsPort;

    internal RedisServer Server => _server.Server;

    /// <summary>Starts a private server. <paramref name="extraArgs"/> are redis-server style options.</summary>
    public static TestServer Start(int shards = 4, params string[] extraArgs)
        => Start(new RedisCloneOptions { Arguments = ["--shards", shards.ToString(), .. extraArgs] });

    /// <summary>
    /// A private server reading <paramref name="configFile"/> first, as redis-server's first
    /// argument; what the file sets stands (a free port and loopback only when it names none).
    /// </summary>
    public static TestServer StartWithConfig(string configFile, params string[] extraArgs)
        => Start(new RedisCloneOptions { ConfigFile = configFile, Arguments = extraArgs });

    /// <summary>
    /// A private server on <c>--transport sockets</c> (Pipelines.Sockets.Unofficial), the transport used
    /// where the epoll event loops are not available (anything but Linux) and for TLS.
    /// </summary>
    public static TestServer StartWithSocketEngine(int shards = 4, params string[] args)
        => Start(shards, ["--transport", "sockets", .. args]);

    /// <summary>
    /// Started as the public embedding API starts a server (RedisCloneServer): unless the test says
    /// otherwise, a free port on 127.0.0.1, no save points and a directory of its own, so a test
    /// server neither writes dump.rdb where the tests run nor loads one another server left there.
    /// REDISCLONE_TEST_TRANSPORT=sockets runs every such server on the other transport. The server's
    /// own exceptions come through (tests assert on them).
    /// </summary>
    private static TestServer Start(RedisCloneOptions options)
    {
        if (Environment.GetEnvironmentVariable("REDISCLONE_TEST_TRANSPORT") is { Length: > 0 } transport
            && !options.Arguments.Contains("--transport"))
            options.Arguments = [.. options.Arguments, "--transport", transport];
        return new(RedisCloneServer.Start(options));
    }

    /// <summary>A key prefix no other test uses, so tests can share <see cref="Shared"/>.</summary>
    public static string KeyPrefix(string test) => $"{test}:{Interlocked.Increment(ref _prefixCounter)}:";

    public RespClient Connect() => new(new IPEndPoint(IPAddress.Loopback, Port));

    public ValueTask DisposeAsync() => _server.DisposeAsync();
}
