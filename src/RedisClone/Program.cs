using RedisClone.Server;

namespace RedisClone;

/// <summary>Entry point: options → server; Ctrl+C / SIGTERM → graceful stop.</summary>
internal static class Program
{
    private const string InlineCompletions = "DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS";

    public static async Task<int> Main(string[] args)
    {
        // Where .NET's socket engine serves clients (not Linux, whose own event loops do; see
        // Network/Epoll) and for accepting: run socket completions on the runtime's epoll threads
        // instead of hopping to the thread pool. Must be set before the first socket is created.
        if (Environment.GetEnvironmentVariable(InlineCompletions) == null)
            Environment.SetEnvironmentVariable(InlineCompletions, "1");

        ServerOptions options;
        try
        {
            options = ServerOptions.Parse(args);
        }
        catch (ArgumentException ex)
        {
            Console.Error.WriteLine($"*** FATAL CONFIG FILE ERROR (RedisClone) ***");
            Console.Error.WriteLine(ex.Message);
            return 1;
        }

        await using var server = new RedisServer(options);
        try
        {
            server.Start();
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

        using var sigterm = System.Runtime.InteropServices.PosixSignalRegistration.Create(
            System.Runtime.InteropServices.PosixSignal.SIGTERM, ctx => { ctx.Cancel = true; OnSignal(server, "SIGTERM"); });
        Console.CancelKeyPress += (_, e) => { e.Cancel = true; OnSignal(server, "SIGINT"); };

        // Through the log (Redis's "Ready to accept connections" is a notice), which also loads and
        // opens its sinks now, while descriptors are to spare.
        server.Log.Notice($"RedisClone {ServerInfo.Version} ready to accept connections on port {server.Port} " +
                          $"({server.Shards.Count} shards, {options.Databases} databases)");
        if (server.TlsPort != 0) server.Log.Notice($"Ready to accept TLS connections on port {server.TlsPort}");
        await server.Stopped;
        return 0;
    }

    private static int _signals;

    /// <summary>
    /// SIGTERM or SIGINT: save when save points are configured, then stop. A save that fails keeps
    /// the server running (as Redis: stopping would lose the data); a second signal stops it anyway.
    /// </summary>
    private static void OnSignal(RedisServer server, string name)
    {
        if (Interlocked.Increment(ref _signals) > 1)
        {
            server.Log.Warning($"You insist... exiting now.");
            _ = server.StopAsync();
            return;
        }
        server.Log.Warning($"Received {name} scheduling shutdown...");
        _ = Task.Run(async () =>
        {
            if (server.Config.SavePoints.Length > 0 && server.SaveForShutdown() != null)
            {
                server.Log.Warning($"{name} received but errors trying to shut down the server, check the logs for more information");
                return;
            }
            server.Log.Warning("Redis is now ready to exit, bye bye...");
            await server.StopAsync();
        });
    }
}
