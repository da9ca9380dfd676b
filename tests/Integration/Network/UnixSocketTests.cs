using System.Net.Sockets;
using RedisClone.Network;
using RedisClone.Tests.Clients;
using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Network;

/// <summary>
/// unixsocket and unixsocketperm, as redis-server 7 has them: clients on a Unix socket beside the
/// TCP port, on both transports (the epoll loops and Pipelines.Sockets.Unofficial); the socket
/// file made with its permissions, a stale one replaced at start, removed at the stop; CLIENT
/// LIST's addr/laddr (the path and port 0) and flag U, INFO's listener line; a Unix socket client
/// is local (no protected mode, enable-*-command local). Each test has a directory of its own
/// under /tmp (sun_path holds 108 bytes, so the path must stay short).
/// </summary>
[System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
public sealed class UnixSocketTests : IDisposable
{
    private readonly string _dir = Directory.CreateTempSubdirectory("rcu").FullName;

    private string SocketPath => Path.Combine(_dir, "s.sock");

    public void Dispose()
    {
        try { Directory.Delete(_dir, recursive: true); } catch (IOException) { }
    }

    public static TheoryData<string> Transports => new("epoll", "sockets");

    private TestServer Start(string transport, params string[] args)
        => TestServer.Start(1, ["--transport", transport, "--unixsocket", SocketPath, .. args]);

    private RespClient ConnectUnix() => new(new UnixDomainSocketEndPoint(SocketPath));

    [Theory]
    [MemberData(nameof(Transports))]
    public async Task UnixSocket_Commands_AnsweredBesideTcp(string transport)
    {
        await using var server = Start(transport);
        using var unix = ConnectUnix();
        Assert.Equal("+PONG\r\n", unix.Call("PING"));
        Assert.Equal("+OK\r\n", unix.Call("SET", "unix:k", "v"));
        // Pipelined, and a value larger than one receive.
        string big = new('x', 200_000);
        unix.SendRaw(RespClient.Encode("SET", "unix:big", big).Concat(RespClient.Encode("STRLEN", "unix:big")).ToArray());
        Assert.Equal("+OK\r\n", unix.ReadReply());
        Assert.Equal(":200000\r\n", unix.ReadReply());
        using var tcp = server.Connect();
        Assert.Equal("$1\r\nv\r\n", tcp.Call("GET", "unix:k"));
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public async Task UnixSocket_ClientList_ShowsPathPortZeroAndFlagU(string transport)
    {
        await using var server = Start(transport);
        using var unix = ConnectUnix();
        string info = Bulk(unix.Call("CLIENT", "INFO"));
        Assert.Contains($" addr={SocketPath}:0 laddr={SocketPath}:0 ", info);
        Assert.Contains(" flags=U ", info);
        using var tcp = server.Connect();
        Assert.Contains(" flags=N ", Bulk(tcp.Call("CLIENT", "INFO")));
        // CLIENT KILL ADDR takes the address as CLIENT LIST shows it.
        Assert.Equal(":1\r\n", tcp.Call("CLIENT", "KILL", "ADDR", $"{SocketPath}:0"));
    }

    [RedisFact]
    public async Task UnixSocket_ClientInfoFields_MatchRedis()
    {
        string theirsPath = Path.Combine(_dir, "r.sock");
        using var reference = ReferenceRedis.StartOrNull($"--unixsocket {theirsPath}")!;
        string Fields(string line, string path) => string.Join(' ', line.Split(' ')
            .Where(f => f.StartsWith("addr=") || f.StartsWith("laddr=") || f.StartsWith("flags=")))
            .Replace(path, "PATH");
        using (var theirs = new RespClient(new UnixDomainSocketEndPoint(theirsPath)))
        {
            await using var server = Start("epoll");
            using var ours = ConnectUnix();
            Assert.Equal(Fields(Bulk(theirs.Call("CLIENT", "INFO")), theirsPath), Fields(Bulk(ours.Call("CLIENT", "INFO")), SocketPath));
        }
    }

    [Fact]
    public async Task UnixSocket_Permissions_FromUnixSocketPerm()
    {
        await using (Start("epoll", "--unixsocketperm", "700"))
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(SocketPath));
        await using (Start("epoll", "--unixsocketperm", "660"))
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead | UnixFileMode.GroupWrite,
                File.GetUnixFileMode(SocketPath));
    }

    [Fact]
    public async Task UnixSocket_StaleFileAtStart_ReplacedAndRemovedAtStop()
    {
        File.WriteAllText(SocketPath, "left behind by a server that was killed");
        var server = Start("epoll");
        try
        {
            using var unix = ConnectUnix();
            Assert.Equal("+PONG\r\n", unix.Call("PING"));
        }
        finally
        {
            await server.DisposeAsync();
        }
        Assert.False(File.Exists(SocketPath), "the socket file outlived the server");
    }

    [Fact]
    public async Task UnixSocket_Shutdown_RemovesFileWithRedisLine()
    {
        await using var server = TestServer.Start(1, "--unixsocket", SocketPath, "--logfile", Path.Combine(_dir, "log"));
        using (var unix = ConnectUnix())
            unix.Send("SHUTDOWN", "NOSAVE");
        await server.Server.Stopped.WaitAsync(TimeSpan.FromSeconds(60));
        Assert.False(File.Exists(SocketPath));
        using var log = new StreamReader(new FileStream(Path.Combine(_dir, "log"), FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete));
        Assert.Contains("* Removing the unix socket file.", log.ReadToEnd());
    }

    [Fact]
    public async Task UnixSocket_Info_ListsUnixListener()
    {
        await using var server = Start("epoll");
        using var c = server.Connect();
        string info = Bulk(c.Call("INFO", "server"));
        Assert.Contains($"\r\nlistener0:name=tcp,bind=127.0.0.1,port={server.Port}\r\nlistener1:name=unix,bind={SocketPath}\r\n", info);
    }

    [Fact]
    public async Task UnixSocket_ProtectedModeAndLocalOnlyCommands_TreatItAsLocal()
    {
        await using var server = Start("epoll", "--protected-mode", "yes", "--enable-debug-command", "local",
            "--enable-module-command", "local");
        using var unix = ConnectUnix();
        Assert.Equal("+PONG\r\n", unix.Call("PING"));
        Assert.Equal("+OK\r\n", unix.Call("DEBUG", "SET-ACTIVE-EXPIRE", "1"));
        Assert.Equal("-ERR Error unloading module: no such module with that name\r\n", unix.Call("MODULE", "UNLOAD", "x"));
    }

    [Fact]
    public void UnixSocket_PathTooLong_StartFailsWithRedisReason()
    {
        string path = "/tmp/" + new string('p', 120);
        var ex = Assert.Throws<ListenFailedException>(() => TestServer.Start(1, "--unixsocket", path));
        Assert.Equal("Failed opening Unix socket: unix socket path too long (125), must be under 108", ex.Message);
        Assert.False(File.Exists(path));
    }

    [Fact]
    public void UnixSocket_DirectoryMissing_StartFailsWithBindReason()
    {
        string path = Path.Combine(_dir, "missing", "s.sock");
        var ex = Assert.Throws<ListenFailedException>(() => TestServer.Start(1, "--unixsocket", path));
        Assert.StartsWith("Failed opening Unix socket: bind: ", ex.Message);
    }

    [Theory]
    [MemberData(nameof(Transports))]
    public async Task UnixSocket_StackExchangeRedis_Connects(string transport)
    {
        await using var server = Start(transport);
        var options = new ConfigurationOptions
        {
            EndPoints = { new UnixDomainSocketEndPoint(SocketPath) },
            ConnectTimeout = 10_000, SyncTimeout = 10_000, AsyncTimeout = 10_000, AbortOnConnectFail = true,
        };
        await using var mux = await ConnectionMultiplexer.ConnectAsync(options);
        var db = mux.GetDatabase();
        await db.StringSetAsync("unix:se", "over a unix socket");
        Assert.Equal("over a unix socket", (string?)await db.StringGetAsync("unix:se"));
        Assert.Equal(5, await db.StringIncrementAsync("unix:se:n", 5));
    }

    [RedisCliFact]
    public async Task UnixSocket_RedisCli_ConnectsWithDashS()
    {
        await using var server = Start("epoll");
        var (code, output) = ToolRunner.Run(ReferenceRedis.CliPath!, $"-s {SocketPath} SET unix:cli hello", timeoutMs: 60_000);
        Assert.Equal(0, code);
        Assert.Equal("OK", output.Trim());
        (code, output) = ToolRunner.Run(ReferenceRedis.CliPath!, $"-s {SocketPath} GET unix:cli", timeoutMs: 60_000);
        Assert.Equal("hello", output.Trim());
    }

    [RedisCliTheory]
    [MemberData(nameof(Transports))]
    public async Task UnixSocket_RedisBenchmark_RunsWithDashS(string transport)
    {
        await using var server = Start(transport);
        var (code, output) = ToolRunner.Run(ReferenceRedis.BenchmarkPath!, $"-s {SocketPath} -q -n 2000 -c 4 -t ping,set,get", timeoutMs: 120_000);
        Assert.True(code == 0, output);
        Assert.DoesNotContain("ERR", output);
        Assert.Contains("GET: ", output);
        using var tcp = server.Connect();
        Assert.Matches(@"total_commands_processed:(\d{4,})", Bulk(tcp.Call("INFO", "stats")));
    }

    /// <summary>A bulk string reply's text.</summary>
    private static string Bulk(string reply) => reply[(reply.IndexOf("\r\n", StringComparison.Ordinal) + 2)..^2];
}
