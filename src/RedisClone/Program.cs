using RedisClone.Server;

namespace RedisClone;

/// <summary>Entry point: options → server; Ctrl+C / SIGTERM → graceful stop.</summary>
internal static class Program
{
    private const string InlineCompletions = "DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS";

    public static async Task<int> Main(string[] args)
    {
        // Where .NET's socket engine serves clients (the sockets transport: off Linux, for TLS, and
        // with --transport sockets; see Network/PipelinesTransport) and for accepting: run socket
        // completions on the runtime's epoll threads instead of hopping to the thread pool. Must be
        // set before the first socket is created.
        if (Environment.GetEnvironmentVariable(InlineCompletions) == null)
            Environment.SetEnvironmentVariable(InlineCompletions, "1");
        InheritedSignals.ResetIgnoredSigint(); // before anything starts the runtime's signal handling

        switch (args.Length > 0 ? args[0] : "")
        {
            case "-v" or "--version":
                Console.WriteLine(ServerInfo.VersionLine);
                return 0;
            case "-h" or "--help":
                Console.Error.WriteLine(ServerInfo.Usage);
                return 1; // as redis-server
            case "--ping":
                return PingProbe.Run(args.AsSpan(1)); // a container's health check (no redis-cli there)
            case "--test-memory" or "--check-system":
                Console.Error.WriteLine($"{args[0]} is a redis-server tool for checking the machine; this server does not have it.");
                return 1;
        }

        ServerOptions options;
        RedisServer server;
        try
        {
            options = ServerOptions.Parse(args);
            server = new RedisServer(options);
        }
        catch (Server.Config.ConfigFileException ex)
        {
            ReportConfigError(ex);
            return 1;
        }

        await using var _ = server;
        // The start-up banner, in Redis's order: who, how configured, how it runs.
        server.Log.Warning("oO0OoO0OoO0Oo RedisClone is starting oO0OoO0OoO0Oo");
        server.Log.Warning($"RedisClone version={ServerInfo.Version}, bits={IntPtr.Size * 8}, build={ServerInfo.BuildId}, " +
                           $"runtime=.NET {Environment.Version}, pid={Environment.ProcessId}, just started");
        server.Log.Warning(options.ConfigFile == null
            ? "Warning: no config file specified, using the default config. In order to specify a config file use RedisClone /path/to/redis.conf"
            : $"Configuration loaded from {options.ConfigFile}");
        // SIGTERM (docker stop, systemd, kill) and SIGINT (Ctrl+C) stop the server as Redis's do
        // (Server/ServerShutdown), during the start's loading too; the runtime's own handling is
        // cancelled, so the process ends when Main returns: 0 after a graceful stop.
        using var sigterm = System.Runtime.InteropServices.PosixSignalRegistration.Create(
            System.Runtime.InteropServices.PosixSignal.SIGTERM, ctx => { ctx.Cancel = true; server.Shutdown.OnSignal(sigint: false); });
        using var sigint = System.Runtime.InteropServices.PosixSignalRegistration.Create(
            System.Runtime.InteropServices.PosixSignal.SIGINT, ctx => { ctx.Cancel = true; server.Shutdown.OnSignal(sigint: true); });
        try
        {
            server.Start();
        }
        catch (Network.ListenFailedException ex) when (ex.Unix)
        {
            server.Log.Warning(ex.Message); // Redis's one line, then exit(1)
            return 1;
        }
        catch (Network.ListenFailedException ex)
        {
            Console.Error.WriteLine(ex.Message);
            Console.Error.WriteLine(ex.Tls
                ? $"Failed listening on port {server.Config.TlsPort} (tls), aborting."
                : $"Failed listening on port {options.Port} (TCP), aborting.");
            return 1;
        }
        catch (TlsConfigException)
        {
            return 1; // the reasons are logged
        }
        catch (OpenFilesLimitException)
        {
            return 1; // the reason is logged
        }
        catch (Cluster.ClusterStartException ex)
        {
            if (ex.LogLine) server.Log.Warning(ex.Message);
            return 1; // otherwise logged where it happened
        }
        catch (Persistence.RdbLoadException)
        {
            return 1; // logged with the file and the offset
        }

        // One per process: it may run a full collection, which would be wrong for a test process
        // hosting many servers.
        using var reclaimer = new MemoryReclaimer(() =>
        {
            var (dataset, tables) = InfoBuilder.DataMemory(server);
            return dataset + tables;
        });

        server.LogReady($"maxclients={options.MaxClients}");
        await server.Stopped;
        return 0;
    }

    /// <summary>A configuration that cannot be used, reported as redis-server reports it (on standard error).</summary>
    private static void ReportConfigError(Server.Config.ConfigFileException ex)
    {
        if (ex.LogLine)
        {
            using var log = new ServerLog(new Server.Config.ConfigRegistry(null));
            log.Warning(ex.Message);
            return;
        }
        Console.Error.WriteLine();
        Console.Error.WriteLine($"*** FATAL CONFIG FILE ERROR (Redis {ServerInfo.Version}) ***");
        if (ex.Line > 0)
        {
            Console.Error.WriteLine($"Reading the configuration file, at line {ex.Line}");
            Console.Error.WriteLine($">>> '{ex.Text}'");
        }
        Console.Error.WriteLine(ex.Message);
    }
}
