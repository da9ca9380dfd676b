using System.Diagnostics;
using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Tools;

/// <summary>
/// Redis's own tools against RedisClone: redis-cli (pipe mode, scan, bigkeys, repeat, RESP3) and
/// redis-benchmark. Skipped with a message when Debian's redis-tools is not installed.
/// </summary>
public class RedisToolsTests
{
    private static string Cli => ReferenceRedis.CliPath!;

    [RedisCliFact]
    public void RedisCli_Pipe_HundredThousandSets_NoErrors()
    {
        var prefix = TestServer.KeyPrefix("clipipe");
        var sb = new StringBuilder();
        for (int i = 0; i < 100_000; i++)
        {
            string k = prefix + i, v = "value" + i;
            sb.Append($"*3\r\n$3\r\nSET\r\n${Encoding.UTF8.GetByteCount(k)}\r\n{k}\r\n${v.Length}\r\n{v}\r\n");
        }
        var (code, output) = ToolRunner.Run(Cli, $"-h 127.0.0.1 -p {TestServer.Shared.Port} --pipe", sb.ToString());
        Assert.Equal(0, code);
        Assert.Contains("errors: 0, replies: 100000", output);
        using var c = TestServer.Shared.Connect();
        Assert.Equal("$10\r\nvalue99999\r\n", c.Call("GET", prefix + "99999"));
    }

    [RedisCliFact]
    public void RedisCli_ScanAndBigkeys_ListKeys()
    {
        var server = TestServer.Start(shards: 3);
        try
        {
            using (var c = server.Connect())
            {
                for (int i = 0; i < 300; i++) c.Call("SET", "scan:" + i, new string('x', i));
                c.Call("SET", "other", "1");
            }
            var (code, output) = ToolRunner.Run(Cli, $"-h 127.0.0.1 -p {server.Port} --scan --pattern scan:*");
            Assert.Equal(0, code);
            var keys = output.Split('\n', StringSplitOptions.RemoveEmptyEntries).ToHashSet();
            Assert.Equal(300, keys.Count);
            Assert.Contains("scan:299", keys);

            (code, output) = ToolRunner.Run(Cli, $"-h 127.0.0.1 -p {server.Port} --bigkeys");
            Assert.Equal(0, code);
            Assert.Contains("Biggest string found", output);
            Assert.Contains("scan:299", output);
            Assert.Contains("301 strings", output);
        }
        finally
        {
            server.DisposeAsync().AsTask().Wait();
        }
    }

    [RedisCliFact]
    public void RedisCli_RepeatAndResp3_Work()
    {
        var key = TestServer.KeyPrefix("clirepeat") + "n";
        var (code, output) = ToolRunner.Run(Cli, $"-h 127.0.0.1 -p {TestServer.Shared.Port} -r 25 INCR {key}");
        Assert.Equal(0, code);
        // Not a terminal: redis-cli prints raw replies, one per repeat.
        Assert.Equal("25", output.Split('\n', StringSplitOptions.RemoveEmptyEntries)[^1].Trim());

        (code, output) = ToolRunner.Run(Cli, $"-3 -h 127.0.0.1 -p {TestServer.Shared.Port} HELLO 3");
        Assert.Equal(0, code);
        Assert.Contains("proto 3\n", output);
    }

    [RedisCliFact]
    public void RedisBenchmark_CoreTests_RunWithoutErrors()
    {
        var bench = ReferenceRedis.BenchmarkPath;
        Assert.NotNull(bench);
        var (code, output) = ToolRunner.Run(bench!,
            $"-h 127.0.0.1 -p {TestServer.Shared.Port} -q -n 20000 -c 20 -t ping_inline,ping_mbulk,set,get,incr,mset");
        Assert.Equal(0, code);
        Assert.DoesNotContain("ERR", output);
        foreach (var test in new[] { "PING_INLINE:", "PING_MBULK:", "SET:", "GET:", "INCR:", "MSET (10 keys):" })
            Assert.Contains(test, output);

        (code, output) = ToolRunner.Run(bench!,
            $"-h 127.0.0.1 -p {TestServer.Shared.Port} -q -n 20000 -c 20 -P 16 -t set,get");
        Assert.Equal(0, code);
        Assert.DoesNotContain("ERR", output);
    }
}
