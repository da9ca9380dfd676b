using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Lists;

/// <summary>redis-benchmark's list tests against the shared server: every request must succeed.</summary>
public class ListBenchmarkTests
{
    [RedisCliFact]
    public void RedisBenchmark_ListTests_RunWithoutErrors()
    {
        var output = ToolRunner.Benchmark(TestServer.Shared.Port,
            "-n 20000 -t lpush,rpush,lpop,rpop,lrange_100,lrange_300,lrange_500,lrange_600", timeoutMs: 300_000);
        foreach (var test in new[] { "LPUSH:", "RPUSH:", "LPOP:", "RPOP:", "LRANGE_100", "LRANGE_300", "LRANGE_500", "LRANGE_600" })
            Assert.Contains(test, output);
    }
}
