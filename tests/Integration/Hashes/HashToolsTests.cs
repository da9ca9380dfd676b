using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Hashes;

/// <summary>redis-benchmark's HSET test against RedisClone (skipped when redis-tools is not installed).</summary>
public class HashToolsTests
{
    [RedisCliFact]
    public void RedisBenchmark_HSet_RunsWithoutErrors()
    {
        var output = ToolRunner.Benchmark(TestServer.Shared.Port, "-n 20000 -t hset");
        Assert.Contains("HSET:", output);
    }
}
