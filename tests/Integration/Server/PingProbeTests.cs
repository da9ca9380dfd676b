using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// <c>RedisClone --ping [host] [port]</c>, the container image's health check: the built server run
/// as a process, against servers that answer, refuse, want a password, or stay silent.
/// </summary>
public sealed class PingProbeTests
{
    [Fact]
    public async Task Ping_RunningServer_ExitsZeroAndPrintsPong()
    {
        await using var server = TestServer.Start(1);
        var r = RunPing(["127.0.0.1", server.Port.ToString()]);
        Assert.Equal(0, r.ExitCode);
        Assert.Equal("PONG", r.Stdout.Trim());
    }

    [Fact]
    public async Task Ping_HostName_IsResolved()
    {
        await using var server = TestServer.Start(1);
        Assert.Equal(0, RunPing(["localhost", server.Port.ToString()]).ExitCode);
    }

    [Fact]
    public void Ping_NobodyListening_ExitsOne()
    {
        var r = RunPing(["127.0.0.1", ReferenceRedis.FreePort().ToString()]);
        Assert.Equal(1, r.ExitCode);
        Assert.Contains("refused", r.Stderr, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task Ping_RequirePassWithoutPassword_ExitsOneWithNoAuth()
    {
        await using var server = TestServer.Start(1, "--requirepass", "s3cret pw");
        var r = RunPing(["127.0.0.1", server.Port.ToString()]);
        Assert.Equal(1, r.ExitCode);
        Assert.Contains("NOAUTH", r.Stderr);
    }

    [Fact]
    public async Task Ping_RequirePassWithPasswordInEnvironment_ExitsZero()
    {
        await using var server = TestServer.Start(1, "--requirepass", "s3cret pw");
        var r = RunPing(["127.0.0.1", server.Port.ToString()], password: "s3cret pw");
        Assert.Equal(0, r.ExitCode);
        Assert.Equal("PONG", r.Stdout.Trim());
    }

    [Fact]
    public async Task Ping_WrongPassword_ExitsOneWithWrongPass()
    {
        await using var server = TestServer.Start(1, "--requirepass", "s3cret pw");
        var r = RunPing(["127.0.0.1", server.Port.ToString()], password: "nope");
        Assert.Equal(1, r.ExitCode);
        Assert.Contains("WRONGPASS", r.Stderr);
    }

    [Fact]
    public void Ping_ServerThatNeverAnswers_GivesUpWithinSeconds()
    {
        using var silent = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        silent.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        silent.Listen(); // accepted by the kernel's backlog, never read from or answered
        var sw = Stopwatch.StartNew();
        var r = RunPing(["127.0.0.1", ((IPEndPoint)silent.LocalEndPoint!).Port.ToString()]);
        Assert.Equal(1, r.ExitCode);
        Assert.Contains("no answer", r.Stderr);
        Assert.True(sw.Elapsed < TimeSpan.FromSeconds(25), $"took {sw.Elapsed}"); // 2 s timeout plus process start-up on a loaded machine
    }

    [Fact]
    public void Ping_BadArguments_ExitsTwo()
    {
        Assert.Equal(2, RunPing(["127.0.0.1", "notaport"]).ExitCode);
        Assert.Equal(2, RunPing(["127.0.0.1", "6379", "extra"]).ExitCode);
    }

    private static (int ExitCode, string Stdout, string Stderr) RunPing(string[] args, string? password = null)
    {
        var psi = new ProcessStartInfo("dotnet", [Path.Combine(AppContext.BaseDirectory, "RedisClone.dll"), "--ping", .. args])
        {
            RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
        };
        psi.Environment.Remove("REDISCLI_AUTH");
        if (password != null) psi.Environment["REDISCLI_AUTH"] = password;
        using var p = Process.Start(psi)!;
        var stdout = p.StandardOutput.ReadToEndAsync();
        var stderr = p.StandardError.ReadToEndAsync();
        if (!p.WaitForExit(60_000))
        {
            p.Kill(entireProcessTree: true);
            throw new TimeoutException("RedisClone --ping did not exit");
        }
        return (p.ExitCode, stdout.Result, stderr.Result);
    }
}
