using System.Globalization;
using System.Net;
using RedisClone.Server;

namespace RedisClone;

/// <summary>
/// A RedisClone server running inside the calling process: what a test needs instead of a Redis
/// container. It starts in milliseconds on a free loopback port, speaks the same protocol as the
/// standalone server (any Redis client can connect to <see cref="ConnectionString"/>), and stops
/// when disposed. Several can run in one process; none installs signal handlers or writes to the
/// console, and none writes files unless asked (see <see cref="RedisCloneOptions"/>).
/// </summary>
/// <example>
/// <code>
/// await using var redis = await RedisCloneServer.StartAsync();
/// using var connection = await ConnectionMultiplexer.ConnectAsync(redis.ConnectionString);
/// </code>
/// </example>
public sealed class RedisCloneServer : IAsyncDisposable
{
    /// <summary>Shards when the settings name none: enough to run multi-shard paths, few threads per server.</summary>
    private const int EmbeddedShards = 4;

    /// <summary>The temporary working directory made for this server, deleted on disposal; null when the caller chose one.</summary>
    private readonly string? _ownDirectory;

    private RedisCloneServer(RedisServer server, string? ownDirectory)
    {
        Server = server;
        _ownDirectory = ownDirectory;
        var bound = server.EndPoint ?? new IPEndPoint(IPAddress.Loopback, server.TlsPort);
        // A server listening on every address is reached through loopback.
        var address = bound.Address.Equals(IPAddress.Any) ? IPAddress.Loopback
            : bound.Address.Equals(IPAddress.IPv6Any) ? IPAddress.IPv6Loopback
            : bound.Address;
        EndPoint = new IPEndPoint(address, bound.Port);
    }

    /// <summary>
    /// Save at disposal when save points are configured (the public start sets it; the tests'
    /// <c>TestServer</c> does not: its persistence tests decide themselves when files are written).
    /// </summary>
    internal bool SaveOnDispose { get; private set; }

    /// <summary>The server itself (tests reach its internals through it).</summary>
    internal RedisServer Server { get; }

    /// <summary>The TCP port the server listens on (the one the operating system chose when asked for 0).</summary>
    public int Port => EndPoint.Port;

    /// <summary>Where to connect: the address the server listens on (loopback when it listens on all) and its port.</summary>
    public IPEndPoint EndPoint { get; }

    /// <summary>
    /// <c>host:port</c>, as StackExchange.Redis's <c>ConnectionMultiplexer.Connect</c> and most
    /// clients take it. Append options such as <c>,password=...</c> or <c>,allowAdmin=true</c> as needed.
    /// </summary>
    public string ConnectionString => EndPoint.ToString();

    /// <summary>Starts a server with the defaults described on <see cref="RedisCloneOptions"/>.</summary>
    /// <returns>The running server, accepting connections.</returns>
    public static Task<RedisCloneServer> StartAsync() => StartAsync(new RedisCloneOptions());

    /// <summary>
    /// Starts a server with settings in redis-server's command-line form, e.g.
    /// <c>StartAsync("--maxmemory", "10mb", "--requirepass", "secret")</c>.
    /// </summary>
    /// <param name="arguments">Option names (<c>--name</c>) each followed by its values.</param>
    /// <returns>The running server, accepting connections.</returns>
    /// <exception cref="ArgumentException">A setting the server refuses (unknown, or a bad value).</exception>
    /// <exception cref="InvalidOperationException">The server could not start (the port is taken, the data cannot be loaded...).</exception>
    public static Task<RedisCloneServer> StartAsync(params string[] arguments)
        => StartAsync(new RedisCloneOptions { Arguments = arguments });

    /// <summary>Starts a server as <paramref name="options"/> describe.</summary>
    /// <returns>The running server, accepting connections.</returns>
    /// <exception cref="ArgumentException">A setting the server refuses (unknown, or a bad value), or a configuration file that cannot be read.</exception>
    /// <exception cref="InvalidOperationException">The server could not start (the port is taken, the data cannot be loaded...).</exception>
    public static async Task<RedisCloneServer> StartAsync(RedisCloneOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        // What the server logs while it starts explains a failure whose exception does not (TLS files, say).
        var startLog = new List<string>();
        bool starting = true;
        var user = options.Log;
        void Lines(string line)
        {
            if (Volatile.Read(ref starting))
                lock (startLog) startLog.Add(line);
            user?.Invoke(line);
        }
        try
        {
            // Off the caller's thread: loading a data file can take a while.
            var server = await Task.Run(() => Start(options, Lines)).ConfigureAwait(false);
            server.SaveOnDispose = true;
            return server;
        }
        catch (Server.Config.ConfigFileException ex)
        {
            throw new ArgumentException(ex.Text == null ? ex.Message : $"{ex.Message} (at '{ex.Text}')", ex);
        }
        catch (Exception ex) when (ex is not ArgumentException)
        {
            string logged;
            lock (startLog) logged = string.Join('\n', startLog.TakeLast(10));
            throw new InvalidOperationException(
                $"The server did not start: {ex.Message}" + (logged.Length > 0 ? "\nIts log:\n" + logged : ""), ex);
        }
        finally
        {
            Volatile.Write(ref starting, false);
        }
    }

    /// <summary>
    /// Starts a server synchronously, letting the server's own exceptions through (the tests'
    /// <c>TestServer</c> asserts on them). <paramref name="lines"/> replaces <see cref="RedisCloneOptions.Log"/>.
    /// </summary>
    internal static RedisCloneServer Start(RedisCloneOptions options, Action<string>? lines = null)
    {
        var args = new List<string>();
        if (options.ConfigFile != null) args.Add(Path.GetFullPath(options.ConfigFile));
        if (options.Port is { } port) args.AddRange(["--port", port.ToString(CultureInfo.InvariantCulture)]);
        if (options.DataDirectory != null)
        {
            Directory.CreateDirectory(options.DataDirectory);
            args.AddRange(["--dir", Path.GetFullPath(options.DataDirectory)]);
        }
        args.AddRange(options.Arguments);
        if (args.Contains("-"))
            throw new ArgumentException("An embedded server does not read its configuration from standard input ('-'): use ConfigFile.");

        // The caller's settings are read once to learn what they leave unset; those get the embedded
        // defaults, appended last (nothing earlier sets them, so their place changes nothing else).
        var given = ServerOptions.Parse(args.ToArray()).Given;
        if (!given.Contains("port")) args.AddRange(["--port", "0"]);
        if (!given.Contains("bind")) args.AddRange(["--bind", "127.0.0.1"]);
        if (!given.Contains("save") && options.DataDirectory == null) args.AddRange(["--save", ""]);
        if (!given.Contains("shards"))
            args.AddRange(["--shards", Math.Clamp(Environment.ProcessorCount, 1, EmbeddedShards).ToString(CultureInfo.InvariantCulture)]);
        if (!given.Contains("io-threads")) args.AddRange(["--io-threads", "1"]);
        string? ownDirectory = null;
        if (!given.Contains("dir")) args.AddRange(["--dir", ownDirectory = Directory.CreateTempSubdirectory("redisclone-").FullName]);

        RedisServer? server = null;
        try
        {
            var serverOptions = ServerOptions.Parse(args.ToArray());
            serverOptions.LogToConsole = false;
            serverOptions.LogLines = lines ?? options.Log;
            server = new RedisServer(serverOptions);
            server.Start();
            server.LogReady($"embedded in pid={Environment.ProcessId}");
            return new RedisCloneServer(server, ownDirectory);
        }
        catch
        {
            // A failed start may have started the shard threads; they go with the rest.
            server?.StopAsync().GetAwaiter().GetResult();
            if (ownDirectory != null) TryDelete(ownDirectory);
            throw;
        }
    }

    /// <summary>
    /// Stops the server: closes its listeners and every connection, stops its threads and deletes
    /// its temporary directory. Its port is free again when this completes. With save points (as
    /// with <see cref="RedisCloneOptions.DataDirectory"/>) it first saves, as redis-server does when
    /// it is asked to stop; with the defaults nothing is written.
    /// </summary>
    public async ValueTask DisposeAsync()
    {
        // With save points, the stop SHUTDOWN makes (hold the clients, save, drain the connections);
        // a save that fails is logged and the server is stopped all the same.
        bool stopping = SaveOnDispose && !Server.StoppingToken.IsCancellationRequested && Server.Config.SavePoints.Length > 0
            && await Task.Run(() => Server.Shutdown.Run(ShutdownFlags.None)).ConfigureAwait(false);
        if (!stopping) await Server.StopAsync().ConfigureAwait(false);
        await Server.Stopped.ConfigureAwait(false); // a SHUTDOWN's stop may still be under way
        if (_ownDirectory != null) TryDelete(_ownDirectory);
    }

    private static void TryDelete(string directory)
    {
        try
        {
            Directory.Delete(directory, recursive: true);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
        }
    }
}
