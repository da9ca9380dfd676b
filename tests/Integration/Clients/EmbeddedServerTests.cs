using System.Net;
using System.Net.Sockets;
using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Clients;

/// <summary>
/// The embedding API (<see cref="RedisCloneServer"/>) as a test author uses it: one line starts a
/// server on a free port, StackExchange.Redis connects to its ConnectionString, several run at once,
/// nothing is written to the console or the working directory unless asked, and disposal frees the
/// port. The example in docs/packages.md is <c>EmbeddedServerReadmeExample.cs</c>, checked here to be the same text.
/// </summary>
public sealed class EmbeddedServerTests
{
    private static Task<ConnectionMultiplexer> ConnectAsync(RedisCloneServer server, string extra = "")
        => ConnectionMultiplexer.ConnectAsync(server.ConnectionString + ",abortConnect=true,connectTimeout=10000,syncTimeout=10000" + extra);

    [Fact]
    public async Task StartAsync_Defaults_StackExchangeRedisRunsCommands()
    {
        await using var redis = await RedisCloneServer.StartAsync();
        Assert.NotEqual(0, redis.Port);
        Assert.Equal(new IPEndPoint(IPAddress.Loopback, redis.Port), redis.EndPoint);
        Assert.Equal($"127.0.0.1:{redis.Port}", redis.ConnectionString);

        await using var mux = await ConnectAsync(redis, ",allowAdmin=true");
        var db = mux.GetDatabase();
        Assert.True(await db.StringSetAsync("greeting", "hello"));
        Assert.Equal("hello", (string?)await db.StringGetAsync("greeting"));
        Assert.Equal(3, await db.ListRightPushAsync("list", ["a", "b", "c"]));
        Assert.Equal(7, await db.StringIncrementAsync("counter", 7));
        var server = mux.GetServer(redis.EndPoint);
        Assert.True(server.Version >= new Version(7, 2));
        Assert.Equal(3, await server.DatabaseSizeAsync());
        // The defaults: no save points, a working directory of its own (not the test's).
        var config = (await server.ConfigGetAsync("*")).ToDictionary(p => p.Key, p => p.Value);
        Assert.Equal("", config["save"]);
        Assert.NotEqual(Path.GetFullPath(Directory.GetCurrentDirectory()), Path.GetFullPath(config["dir"]));
        Assert.Equal("127.0.0.1", config["bind"]);
    }

    [Fact]
    public async Task StartAsync_Arguments_AppliedAsRedisServerOptions()
    {
        await using var redis = await RedisCloneServer.StartAsync("--maxmemory", "10mb", "--requirepass", "s3cret", "--databases", "4");
        await Assert.ThrowsAnyAsync<RedisConnectionException>(
            () => ConnectionMultiplexer.ConnectAsync(redis.ConnectionString + ",abortConnect=true,connectTimeout=2000"));
        await using var mux = await ConnectAsync(redis, ",password=s3cret,allowAdmin=true");
        var server = mux.GetServer(redis.EndPoint);
        Assert.Equal("10485760", (await server.ConfigGetAsync("maxmemory")).Single().Value);
        Assert.Equal("4", (await server.ConfigGetAsync("databases")).Single().Value);
    }

    [Fact]
    public async Task StartAsync_Options_PortConfigFileAndLog()
    {
        string dir = Directory.CreateTempSubdirectory("redisclone-embedded-").FullName;
        try
        {
            string conf = Path.Combine(dir, "redis.conf");
            File.WriteAllText(conf, "maxmemory-policy allkeys-lru\nhz 20\n");
            var lines = new List<string>();
            await using var redis = await RedisCloneServer.StartAsync(new RedisCloneOptions
            {
                ConfigFile = conf,
                Arguments = { "--hz", "25" },
                Log = line => { lock (lines) lines.Add(line); },
            });
            await using var mux = await ConnectAsync(redis, ",allowAdmin=true");
            var server = mux.GetServer(redis.EndPoint);
            Assert.Equal("allkeys-lru", (await server.ConfigGetAsync("maxmemory-policy")).Single().Value);
            Assert.Equal("25", (await server.ConfigGetAsync("hz")).Single().Value); // the arguments come after the file
            lock (lines)
            {
                Assert.Contains(lines, l => l.EndsWith("* Ready to accept connections tcp"));
                Assert.Contains(lines, l => l.EndsWith($"* Running mode=standalone, port={redis.Port}."));
            }
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public async Task DebugLog_GoesToTheServersLog_NotTheConsole()
    {
        var lines = new List<string>();
        var console = Console.Out;
        var captured = new StringWriter();
        Console.SetOut(captured);
        try
        {
            await using var redis = await RedisCloneServer.StartAsync(new RedisCloneOptions
            {
                Arguments = { "--enable-debug-command", "yes" },
                Log = line => { lock (lines) lines.Add(line); },
            });
            await using var mux = await ConnectAsync(redis, ",allowAdmin=true");
            Assert.Equal("OK", (string?)await mux.GetDatabase().ExecuteAsync("DEBUG", "LOG", "marker-1234"));
        }
        finally
        {
            Console.SetOut(console);
        }
        lock (lines) Assert.Contains(lines, l => l.EndsWith("# DEBUG LOG: marker-1234")); // Redis logs it at warning level
        Assert.DoesNotContain("marker-1234", captured.ToString());
    }

    [Fact]
    public async Task StartAsync_NoLogRequested_WritesNothingToTheConsole()
    {
        var console = Console.Out;
        var captured = new StringWriter();
        Console.SetOut(captured);
        int port;
        try
        {
            await using var redis = await RedisCloneServer.StartAsync("--loglevel", "verbose");
            port = redis.Port;
        }
        finally
        {
            Console.SetOut(console);
        }
        // Only this server's lines name its port (other tests' servers may write meanwhile).
        Assert.DoesNotContain($"port={port},", captured.ToString());
    }

    [Fact]
    public async Task StartAsync_SeveralServers_EachItsOwnPortAndData()
    {
        var servers = await Task.WhenAll(Enumerable.Range(0, 3).Select(_ => RedisCloneServer.StartAsync()));
        try
        {
            Assert.Equal(3, servers.Select(s => s.Port).Distinct().Count());
            for (int i = 0; i < servers.Length; i++)
            {
                await using var mux = await ConnectAsync(servers[i]);
                await mux.GetDatabase().StringSetAsync("who", i);
            }
            for (int i = 0; i < servers.Length; i++)
            {
                await using var mux = await ConnectAsync(servers[i]);
                Assert.Equal(i, (int)await mux.GetDatabase().StringGetAsync("who"));
            }
        }
        finally
        {
            foreach (var s in servers) await s.DisposeAsync();
        }
    }

    [Fact]
    public async Task DisposeAsync_PortAndDirectoryFreed_SamePortStartsAgain()
    {
        var first = await RedisCloneServer.StartAsync();
        int port = first.Port;
        string dir;
        await using (var mux = await ConnectAsync(first, ",allowAdmin=true"))
        {
            dir = (await mux.GetServer(first.EndPoint).ConfigGetAsync("dir")).Single().Value;
            Assert.True(Directory.Exists(dir));
            await mux.GetDatabase().StringSetAsync("k", "v");
            await first.DisposeAsync();
            Assert.False(Directory.Exists(dir), "the server's temporary directory is deleted");
        }
        using (var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp))
        {
            var refused = Assert.Throws<SocketException>(() => probe.Connect(IPAddress.Loopback, port));
            Assert.Equal(SocketError.ConnectionRefused, refused.SocketErrorCode);
        }
        await using var second = await RedisCloneServer.StartAsync(new RedisCloneOptions { Port = port });
        Assert.Equal(port, second.Port);
        await using var again = await ConnectAsync(second);
        Assert.False(await again.GetDatabase().KeyExistsAsync("k"), "nothing was kept from the first server");
    }

    [Fact]
    public async Task StartAsync_DataDirectory_SavedOnDisposeAndLoadedAgain()
    {
        string dir = Path.Combine(Directory.CreateTempSubdirectory("redisclone-embedded-").FullName, "data");
        try
        {
            await using (var redis = await RedisCloneServer.StartAsync(new RedisCloneOptions { DataDirectory = dir }))
            {
                await using var mux = await ConnectAsync(redis);
                await mux.GetDatabase().StringSetAsync("kept", "yes");
            }
            Assert.True(File.Exists(Path.Combine(dir, "dump.rdb")));
            await using (var redis = await RedisCloneServer.StartAsync(new RedisCloneOptions { DataDirectory = dir }))
            {
                await using var mux = await ConnectAsync(redis);
                Assert.Equal("yes", (string?)await mux.GetDatabase().StringGetAsync("kept"));
            }
        }
        finally
        {
            Directory.Delete(Path.GetDirectoryName(dir)!, recursive: true);
        }
    }

    [Fact]
    public async Task StartAsync_DefaultsThenSaveCommand_NothingInTheWorkingDirectory()
    {
        string cwdDump = Path.Combine(Directory.GetCurrentDirectory(), "dump.rdb");
        bool before = File.Exists(cwdDump);
        await using (var redis = await RedisCloneServer.StartAsync())
        {
            await using var mux = await ConnectAsync(redis, ",allowAdmin=true");
            await mux.GetDatabase().StringSetAsync("k", "v");
            Assert.Equal("OK", (string?)await mux.GetDatabase().ExecuteAsync("SAVE"));
        }
        Assert.Equal(before, File.Exists(cwdDump));
    }

    [Fact]
    public async Task StartAsync_RefusedSetting_ArgumentException()
    {
        var bad = await Assert.ThrowsAnyAsync<ArgumentException>(() => RedisCloneServer.StartAsync("--maxmemory", "lots"));
        Assert.Contains("argument must be a memory value", bad.Message);
        var unknown = await Assert.ThrowsAnyAsync<ArgumentException>(() => RedisCloneServer.StartAsync("--no-such-thing", "1"));
        Assert.Contains("Bad directive or wrong number of arguments", unknown.Message);
    }

    [Fact]
    public async Task StartAsync_PortTaken_InvalidOperationExceptionSaysWhy()
    {
        await using var first = await RedisCloneServer.StartAsync();
        var taken = await Assert.ThrowsAsync<InvalidOperationException>(
            () => RedisCloneServer.StartAsync(new RedisCloneOptions { Port = first.Port }));
        Assert.Contains("Address already in use", taken.Message);
    }

    [Fact]
    public void PublicApi_OnlyTheEmbeddingTypes()
    {
        var exported = typeof(RedisCloneServer).Assembly.GetExportedTypes().Select(t => t.FullName).Order();
        Assert.Equal(["RedisClone.RedisCloneOptions", "RedisClone.RedisCloneServer"], exported);
    }

    [Fact]
    public void PackagesDoc_EmbeddingExample_IsTheTestedFile()
    {
        string example = File.ReadAllText(Path.Combine(Repository.Root, "tests", "Integration", "Clients", "EmbeddedServerReadmeExample.cs"));
        Assert.Equal(example.Replace("\r\n", "\n"), Repository.CSharpBlock("docs/packages.md", "class RedisCloneFixture"));
    }
}
