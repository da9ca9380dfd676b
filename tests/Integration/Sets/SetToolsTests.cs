using System.Diagnostics;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Sets;

/// <summary>redis-benchmark's set tests (SADD, SPOP) against RedisClone.</summary>
public class SetToolsTests
{
    [RedisCliFact]
    public void RedisBenchmark_SAddSPop_RunWithoutErrors()
    {
        var bench = ReferenceRedis.BenchmarkPath;
        Assert.NotNull(bench);
        var psi = new ProcessStartInfo(bench!, $"-h 127.0.0.1 -p {TestServer.Shared.Port} -q -n 20000 -t sadd,spop")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        using var p = Process.Start(psi)!;
        var stdout = p.StandardOutput.ReadToEndAsync();
        var stderr = p.StandardError.ReadToEndAsync();
        if (!p.WaitForExit(120_000))
        {
            p.Kill(entireProcessTree: true);
            Assert.Fail("redis-benchmark did not finish in 120 s");
        }
        string output = stdout.Result + stderr.Result;
        Assert.Equal(0, p.ExitCode);
        Assert.DoesNotContain("ERR", output);
        Assert.Contains("SADD:", output);
        Assert.Contains("SPOP:", output);
    }
}
