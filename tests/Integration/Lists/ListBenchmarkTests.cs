using System.Diagnostics;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Lists;

/// <summary>redis-benchmark's list tests against the shared server: every request must succeed.</summary>
public class ListBenchmarkTests
{
    [RedisCliFact]
    public void RedisBenchmark_ListTests_RunWithoutErrors()
    {
        var bench = ReferenceRedis.BenchmarkPath;
        Assert.NotNull(bench);
        var psi = new ProcessStartInfo(bench!,
            $"-h 127.0.0.1 -p {TestServer.Shared.Port} -q -n 20000 -t lpush,rpush,lpop,rpop,lrange_100,lrange_300,lrange_500,lrange_600")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        using var p = Process.Start(psi)!;
        var stdout = p.StandardOutput.ReadToEndAsync();
        var stderr = p.StandardError.ReadToEndAsync();
        if (!p.WaitForExit(300_000))
        {
            p.Kill(entireProcessTree: true);
            Assert.Fail("redis-benchmark did not finish in 5 minutes");
        }
        string output = stdout.Result + stderr.Result;
        Assert.True(p.ExitCode == 0, output);
        Assert.DoesNotContain("ERR", output);
        foreach (var test in new[] { "LPUSH:", "RPUSH:", "LPOP:", "RPOP:", "LRANGE_100", "LRANGE_300", "LRANGE_500", "LRANGE_600" })
            Assert.Contains(test, output);
    }
}
