using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// maxmemory against redis-server where both behave alike whatever their accounting: a limit of
/// one byte is passed by either server's used memory, so the refusals, their texts and where they
/// happen (denyoom commands, anything inside MULTI, EXEC of queued denyoom commands, scripts by
/// their flags, a compatibility-mode script's first write), OBJECT FREQ and IDLETIME by policy, and
/// the "evicted" keyspace events can be compared reply for reply.
/// </summary>
public class EvictionDifferentialTests
{
    private const string OomText = "-OOM command not allowed when used memory > 'maxmemory'.\r\n";

    [RedisFact]
    public void NoEviction_OverLimit_RefusesAsRedis()
    {
        string[][] script =
        [
            ["SET", "k", "v"],
            ["FUNCTION", "LOAD", "#!lua name=memlib\nredis.register_function('w', function(keys, args) return redis.call('SET', keys[1], '1') end)\nredis.register_function{function_name='wo', callback=function(keys, args) return redis.call('SET', keys[1], '1') end, flags={'allow-oom'}}\nredis.register_function{function_name='r', callback=function(keys, args) return redis.call('GET', keys[1]) end, flags={'no-writes'}}"],
            ["CONFIG", "SET", "maxmemory-policy", "noeviction"],
            ["CONFIG", "SET", "maxmemory", "1"],
            ["SET", "k", "w"],
            ["APPEND", "k", "x"],
            ["LPUSH", "l", "a"],
            ["GET", "k"],
            ["DEL", "nothing"],
            ["EXPIRE", "k", "100"],
            ["PERSIST", "k"],
            ["INCR", "n"],
            // Inside MULTI every command but EXEC, DISCARD, QUIT and RESET is refused, reads too.
            ["MULTI"],
            ["GET", "k"],
            ["SET", "k", "y"],
            ["EXEC"],
            ["MULTI"],
            ["DISCARD"],
            // Scripts: flags decide; without a shebang the first denyoom call is refused.
            ["EVAL", "#!lua\nreturn 1", "0"],
            ["EVAL", "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])", "1", "k"],
            ["EVAL", "#!lua flags=allow-oom\nreturn redis.call('SET', KEYS[1], 'z')", "1", "k"],
            ["EVAL", "return redis.call('GET', KEYS[1])", "1", "k"],
            ["EVAL", "return redis.call('SET', KEYS[1], 'q')", "1", "k"],
            ["EVAL", "return redis.pcall('SET', KEYS[1], 'q')", "1", "k"],
            ["EVAL", "redis.call('DEL', 'other') return redis.call('SET', KEYS[1], 'q')", "1", "k"],
            ["FCALL", "w", "1", "k"],
            ["FCALL", "wo", "1", "k"],
            ["FCALL", "r", "1", "k"],
            ["FCALL_RO", "r", "1", "k"],
            ["GET", "k"],
            ["CONFIG", "SET", "maxmemory", "0"],
            ["SET", "k", "after"],
            ["FUNCTION", "FLUSH"],
        ];
        Differential.AssertSameOnPrivateServers(2, script);
    }

    [RedisFact]
    public void NoEviction_ExecOfQueuedWrite_AbortsAsRedis()
    {
        // Queued while under the limit, EXEC'd over it: EXEC itself is refused (EXECABORT).
        string[][] script =
        [
            ["CONFIG", "SET", "maxmemory-policy", "noeviction"],
            ["MULTI"],
            ["SET", "k", "v"],
            ["CONFIG", "SET", "maxmemory", "1"],
            ["EXEC"],
            ["EXISTS", "k"],
            ["MULTI"],
            ["GET", "k"],
            ["CONFIG", "SET", "maxmemory", "0"],
            ["EXEC"],
        ];
        Differential.AssertSameOnPrivateServers(2, script);
        Differential.AssertSameOnPrivateServers(3, script);
    }

    [RedisFact]
    public void AllKeysLru_NothingLeftToEvict_RefusesAsRedis()
    {
        // Every key is evicted first, then nothing is left: denyoom commands are refused.
        string[][] script =
        [
            ["SET", "a", "1"],
            ["CONFIG", "SET", "maxmemory-policy", "allkeys-lru"],
            ["CONFIG", "SET", "maxmemory", "1"],
            ["SET", "b", "2"],
            ["DBSIZE"],
            ["CONFIG", "SET", "maxmemory", "0"],
        ];
        Differential.AssertSameOnPrivateServers(2, script);
    }

    [RedisFact]
    public void VolatileLru_NoKeyWithTtl_RefusesAndKeepsKeys()
    {
        string[][] script =
        [
            ["SET", "a", "1"],
            ["SET", "b", "2"],
            ["CONFIG", "SET", "maxmemory-policy", "volatile-lru"],
            ["CONFIG", "SET", "maxmemory", "1"],
            ["SET", "c", "3"],
            ["DBSIZE"],
            ["CONFIG", "SET", "maxmemory", "0"],
            ["SET", "t", "1", "EX", "100"],
            ["CONFIG", "SET", "maxmemory", "1"],
            ["SET", "c", "3"],
            ["EXISTS", "t"],
            ["DBSIZE"],
            ["CONFIG", "SET", "maxmemory", "0"],
        ];
        Differential.AssertSameOnPrivateServers(2, script);
    }

    [RedisFact]
    public void ObjectFreqAndIdleTime_ByPolicy_AsRedis()
    {
        string[][] script =
        [
            // No decay: a minute boundary passed on one server only would take one from its counter.
            ["CONFIG", "SET", "lfu-decay-time", "0"],
            ["SET", "k", "v"],
            ["OBJECT", "FREQ", "k"],
            ["OBJECT", "FREQ", "missing"],
            ["CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"],
            ["OBJECT", "IDLETIME", "k"],
            ["OBJECT", "IDLETIME", "missing"],
            // A new key starts at 5; its first access always counts (the odds are 1 at 5).
            ["SET", "f", "v"],
            ["OBJECT", "FREQ", "f"],
            ["GET", "f"],
            ["OBJECT", "FREQ", "f"],
            ["CONFIG", "SET", "maxmemory-policy", "volatile-lfu"],
            ["SET", "g", "v"],
            ["OBJECT", "FREQ", "g"],
            ["CONFIG", "SET", "maxmemory-policy", "volatile-ttl"],
            ["OBJECT", "FREQ", "g"],
            // OBJECT IDLETIME g now reads g's LFU word as an access time on both servers: a
            // meaningless figure ("LRU and LFU data will take some time to adjust"), not compared.
            ["OBJECT", "IDLETIME", "missing"],
        ];
        Differential.AssertSameOnPrivateServers(2, script);
        Differential.AssertSameOnPrivateServers(3, script);
    }

    [RedisFact]
    public void LfuCounter_LogFactorZero_CountsEveryAccessAsRedis()
    {
        // lfu-log-factor 0 makes every increment certain and lfu-decay-time 0 turns the decay off
        // (a minute boundary passed on one server only would take one from its counter), so the
        // counters are deterministic.
        var script = new List<string[]>
        {
            new[] { "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu" },
            new[] { "CONFIG", "SET", "lfu-log-factor", "0" },
            new[] { "CONFIG", "SET", "lfu-decay-time", "0" },
            new[] { "SET", "h", "v" },
        };
        for (int i = 0; i < 20; i++) script.Add(["GET", "h"]);
        script.Add(["OBJECT", "FREQ", "h"]);
        script.Add(["EXISTS", "h"]); // EXISTS does not count an access
        script.Add(["TYPE", "h"]);
        script.Add(["OBJECT", "FREQ", "h"]);
        script.Add(["TOUCH", "h"]);
        script.Add(["OBJECT", "FREQ", "h"]);
        Differential.AssertSameOnPrivateServers(2, script.ToArray());
    }

    [RedisFact]
    public void Eviction_PublishesEvictedEvents_AsRedis()
    {
        KeyspaceEvents.AssertSameOnPrivateServers(
        [
            ["SET", "a", "1"],
            ["CONFIG", "SET", "maxmemory-policy", "allkeys-random"],
            ["CONFIG", "SET", "maxmemory", "1"],
            ["GET", "a"],
            ["CONFIG", "SET", "maxmemory", "0"],
        ]);
    }

    [RedisFact]
    public void InfoFields_PresentAsRedis()
    {
        using var reference = ReferenceRedis.StartOrNull("--maxmemory 100mb --maxmemory-policy allkeys-lfu")!;
        var server = TestServer.Start(2, "--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lfu");
        try
        {
            using var r = reference.Connect();
            using var c = server.Connect();
            foreach (var field in new[] { "maxmemory:104857600", "maxmemory_human:100.00M", "maxmemory_policy:allkeys-lfu", "mem_not_counted_for_evict:" })
            {
                Assert.Contains("\r\n" + field, r.Call("INFO", "memory"));
                Assert.Contains("\r\n" + field, c.Call("INFO", "memory"));
            }
            foreach (var field in new[] { "evicted_keys:0", "evicted_clients:0" })
            {
                Assert.Contains("\r\n" + field, r.Call("INFO", "stats"));
                Assert.Contains("\r\n" + field, c.Call("INFO", "stats"));
            }
        }
        finally
        {
            server.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    [Fact]
    public async Task NoEviction_OomReply_IsRedisText()
    {
        await using var server = TestServer.Start(2, "--maxmemory", "1");
        using var c = server.Connect();
        Assert.Equal(OomText, c.Call("SET", "k", "v"));
        Assert.Equal("$-1\r\n", c.Call("GET", "k"));
    }
}
