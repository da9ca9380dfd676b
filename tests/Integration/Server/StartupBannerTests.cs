using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// What the server says it is at start-up, as redis-server does: with always-show-logo (or on a
/// terminal) a picture carrying the lines tools read from Redis's logo (<c>Running in standalone
/// mode</c>, <c>Port: N</c>, <c>PID: N</c>); otherwise Redis's one line <c>Running mode=standalone, port=N.</c>.
/// </summary>
public class StartupBannerTests
{
    private static async Task<List<string>> StartupLines(params string[] args)
    {
        var lines = new List<string>();
        await using var redis = await RedisCloneServer.StartAsync(new RedisCloneOptions
        {
            Arguments = ["--shards", "1", .. args],
            Log = line => { lock (lines) lines.Add(line); },
        });
        lock (lines)
        {
            lines.Add($"(port {redis.Port})");
            return [.. lines];
        }
    }

    [Fact]
    public async Task AlwaysShowLogo_Yes_PictureCarriesPortPidAndMode()
    {
        var lines = await StartupLines("--always-show-logo", "yes");
        string port = lines[^1][6..^1];
        Assert.Contains(lines, l => l.EndsWith($"   PID: {Environment.ProcessId}"));
        Assert.Contains(lines, l => l.EndsWith($"   Port: {port}"));
        Assert.Contains(lines, l => l.EndsWith("   Running in standalone mode"));
        Assert.DoesNotContain(lines, l => l.Contains("Running mode="));
        // Before the ready line, as Redis's logo comes before it.
        Assert.True(lines.FindIndex(l => l.Contains("PID: ")) < lines.FindIndex(l => l.EndsWith("Ready to accept connections tcp")));
    }

    [Fact]
    public async Task AlwaysShowLogo_Default_RedisOneLine()
    {
        var lines = await StartupLines();
        string port = lines[^1][6..^1];
        Assert.Contains(lines, l => l.EndsWith($" * Running mode=standalone, port={port}."));
        Assert.DoesNotContain(lines, l => l.Contains("PID: "));
    }

    [Fact]
    public async Task AlwaysShowLogo_LogFile_PictureInTheFile()
    {
        string dir = Directory.CreateTempSubdirectory("rcb").FullName;
        try
        {
            string log = Path.Combine(dir, "server.log");
            await StartupLines("--always-show-logo", "yes", "--logfile", log);
            string text;
            using (var reader = new StreamReader(new FileStream(log, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete)))
                text = reader.ReadToEnd();
            Assert.Contains($"   PID: {Environment.ProcessId}\n", text);
            Assert.Contains("   Running in standalone mode\n", text);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>The process as tooling starts it, output piped: it waits for <c>PID:</c> in the output.</summary>
    [Fact]
    public void AlwaysShowLogo_Process_PrintsPidLineOnStandardOutput()
    {
        using var server = ExternalServer.StartListening(openFiles: 4096, "--save '' --always-show-logo yes");
        server.WaitForOutput($"PID: {server.Pid}", timeoutMs: 60_000);
        server.WaitForOutput($"Port: {server.Port}", timeoutMs: 60_000);
    }
}
