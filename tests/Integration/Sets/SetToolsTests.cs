using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Sets;

/// <summary>redis-benchmark's set tests (SADD, SPOP) against RedisClone.</summary>
public class SetToolsTests
{
    [RedisCliFact]
    public void RedisBenchmark_SAddSPop_RunWithoutErrors()
    {
        var output = ToolRunner.Benchmark(TestServer.Shared.Port, "-n 20000 -t sadd,spop");
        Assert.Contains("SADD:", output);
        Assert.Contains("SPOP:", output);
    }
}
