using System.Diagnostics;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Keys;

/// <summary>
/// INFO's lazyfreed_objects, against redis-server: UNLINK (and DEL under lazyfree-lazy-user-del) of
/// a value whose free effort is over 64 (a big stream, a hashtable-encoded set) counts one, a small
/// value none, and an async flush every key it flushed.
/// </summary>
public class LazyFreeTests
{
    /// <summary>lazyfreed_objects once nothing is pending (redis-server frees on a thread of its own).</summary>
    private static string LazyFreed(RespClient c)
    {
        string info = "";
        var sw = Stopwatch.StartNew();
        while (sw.Elapsed < TimeSpan.FromSeconds(10))
        {
            info = c.Call("INFO", "memory");
            if (info.Contains("lazyfree_pending_objects:0\r\n")) break;
            Thread.Sleep(20);
        }
        return info.Split("\r\n").FirstOrDefault(l => l.StartsWith("lazyfreed_objects:", StringComparison.Ordinal)) ?? "missing";
    }

    private static List<string> Scenario(RespClient c)
    {
        var seen = new List<string>();
        c.Call("FLUSHALL", "SYNC");
        c.Call("CONFIG", "RESETSTAT");
        seen.Add(LazyFreed(c));
        c.Call("EVAL", "for i=1,20000 do redis.call('XADD', KEYS[1], '*', 'f', i) end return 1", "1", "big-stream");
        seen.Add(c.Call("UNLINK", "big-stream"));
        seen.Add(LazyFreed(c));
        c.Call("XADD", "small-stream", "*", "f", "1");
        seen.Add(c.Call("UNLINK", "small-stream"));
        seen.Add(LazyFreed(c));
        c.Call("EVAL", "for i=1,200 do redis.call('SADD', KEYS[1], 'member' .. i) end return 1", "1", "big-set");
        seen.Add(c.Call("DEL", "big-set"));
        seen.Add(LazyFreed(c));
        c.Call("CONFIG", "SET", "lazyfree-lazy-user-del", "yes");
        c.Call("EVAL", "for i=1,200 do redis.call('SADD', KEYS[1], 'member' .. i) end return 1", "1", "big-set");
        seen.Add(c.Call("DEL", "big-set"));
        seen.Add(LazyFreed(c));
        c.Call("CONFIG", "SET", "lazyfree-lazy-user-del", "no");
        c.Call("MSET", "a", "1", "b", "2", "c", "3");
        c.Call("SELECT", "1");
        c.Call("SET", "d", "4");
        c.Call("SELECT", "0");
        seen.Add(c.Call("FLUSHALL", "ASYNC"));
        seen.Add(LazyFreed(c));
        c.Call("MSET", "a", "1", "b", "2");
        seen.Add(c.Call("FLUSHDB", "ASYNC"));
        seen.Add(LazyFreed(c));
        c.Call("MSET", "a", "1", "b", "2");
        seen.Add(c.Call("FLUSHALL", "SYNC"));
        seen.Add(LazyFreed(c));
        c.Call("CONFIG", "RESETSTAT");
        seen.Add(LazyFreed(c));
        return seen;
    }

    [RedisFact]
    public async Task LazyfreedObjects_UnlinkAndAsyncFlush_CountedAsRedisDoes()
    {
        List<string> theirs, ours;
        using (var redis = ReferenceRedis.StartOrNull())
        {
            Assert.NotNull(redis);
            using var c = redis.Connect();
            theirs = Scenario(c);
        }
        await using (var server = TestServer.Start(4))
        {
            using var c = server.Connect();
            ours = Scenario(c);
        }
        Assert.Equal(theirs, ours);
        Assert.Equal("lazyfreed_objects:1", ours[2]);
    }
}
