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
            Console.Error.WriteLine($"Failed listening on port {options.Port} (TCP), aborting.");
            return 1;
        }
        catch (OpenFilesLimitException)
        {
            return 1; // the reason is logged
        }

        // One per process: it may run a full collection, which would be wrong for a test process
        // hosting many servers.
        using var reclaimer = new MemoryReclaimer(() =>
        {
            var (dataset, tables) = InfoBuilder.DataMemory(server);
            return dataset + tables;
        });

        using var sigterm = System.Runtime.InteropServices.PosixSignalRegistration.Create(
            System.Runtime.InteropServices.PosixSignal.SIGTERM, ctx => { ctx.Cancel = true; _ = server.StopAsync(); });
        Console.CancelKeyPress += (_, e) => { e.Cancel = true; _ = server.StopAsync(); };

        // Through the log (Redis's "Ready to accept connections" is a notice), which also loads and
        // opens its sinks now, while descriptors are to spare.
        server.Log.Notice($"RedisClone {ServerInfo.Version} ready to accept connections on port {server.Port} " +
                          $"({server.Shards.Count} shards, {options.Databases} databases)");
        await server.Stopped;
        return 0;
    }
}
