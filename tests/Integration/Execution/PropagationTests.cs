using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Execution;

/// <summary>
/// The propagation hook: each write reaches the listener as Redis replicates it (its effects, not the
/// command as sent), compared with what redis-server sends a replica for the same script.
/// </summary>
public sealed class PropagationTests
{
    [RedisFact]
    public void Write_AsSent_PropagatesVerbatim()
        => PropagationDifferential.AssertSame("SET k v", "LPUSH l a b", "HSET h f v", "SADD s x", "ZADD z 1 m", "INCR n", "APPEND k w");

    [RedisFact]
    public void WriteThatChangesNothing_PropagatesNothing()
        => PropagationDifferential.AssertSame("SET k v", "SETNX k w", "DEL missing", "SADD s x", "SADD s x",
            "EXPIRE missing 10", "SET k2 v NX", "SET k v XX GET", "SREM s nope", "LPUSHX nolist a", "HDEL h nope", "PERSIST k");

    /// <summary>
    /// FUNCTION LOAD, DELETE and FLUSH propagate as sent (failed ones not at all); FCALL propagates
    /// the writes its function made, in MULTI/EXEC when more than one, as EVAL.
    /// </summary>
    [RedisFact]
    public void Functions_ManagementAsSent_FCallAsItsWrites()
        => PropagationDifferential.AssertSame(
            ["FUNCTION", "FLUSH"],
            ["FUNCTION", "LOAD", "#!lua name=plib\n" +
                "redis.register_function('pset', function(keys, args) redis.call('SET', keys[1], args[1]) redis.call('INCR', 'pcount') return 1 end)\n" +
                "redis.register_function('pone', function(keys) redis.call('DEL', keys[1]) return 1 end)\n" +
                "redis.register_function{function_name='pget', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}}"],
            ["FUNCTION", "LOAD", "#!lua name=plib\nredis.register_function('x', function() end)"],
            ["FUNCTION", "LOAD", "REPLACE", "#!lua name=other\nredis.register_function('y', function() end)"],
            ["FCALL", "pset", "1", "pk", "v"],
            ["FCALL", "pone", "1", "pk"],
            ["FCALL_RO", "pget", "1", "pk"],
            ["FCALL", "pget", "1", "pk"],
            ["FCALL", "nosuch", "0"],
            ["FUNCTION", "DELETE", "plib"],
            ["FUNCTION", "DELETE", "plib"],
            ["FUNCTION", "FLUSH", "ASYNC"],
            ["FUNCTION", "FLUSH", "bad"]);

    /// <summary>FUNCTION RESTORE propagates as sent, its payload byte for byte; a refused one not at all.</summary>
    [Fact]
    public async Task FunctionRestore_PropagatesAsSent()
    {
        await using var server = TestServer.Start(2);
        var recorder = new PropagationRecorder();
        server.Server.PropagationListener = recorder;
        using var c = server.Connect();
        c.Call("FUNCTION", "LOAD", "#!lua name=rlib\nredis.register_function('rf', function() return 1 end)");
        string dump = c.Call("FUNCTION", "DUMP");
        var payload = Encoding.Latin1.GetBytes(dump[(dump.IndexOf("\r\n", StringComparison.Ordinal) + 2)..^2]);
        c.Call("FUNCTION", "FLUSH");
        recorder.Take();
        byte[] Bytes(string s) => Encoding.ASCII.GetBytes(s);
        Assert.Equal("+OK\r\n", c.Call(Bytes("FUNCTION"), Bytes("RESTORE"), payload));
        Assert.StartsWith("-ERR Library rlib already exists", c.Call(Bytes("FUNCTION"), Bytes("RESTORE"), payload, Bytes("APPEND")));
        Assert.Equal("+OK\r\n", c.Call(Bytes("FUNCTION"), Bytes("RESTORE"), payload, Bytes("REPLACE")));
        Assert.Equal(["0 FUNCTION RESTORE " + Encoding.Latin1.GetString(payload), "0 FUNCTION RESTORE " + Encoding.Latin1.GetString(payload) + " REPLACE"],
            recorder.Take());
    }

    [RedisFact]
    public void ReadCommand_PropagatesNothing()
        => PropagationDifferential.AssertSame("SET k v", "GET k", "EXISTS k", "TTL k", "LRANGE l 0 -1");

    [RedisFact]
    public void SetWithRelativeExpire_PropagatesAsSetPxat()
        => PropagationDifferential.AssertSame("SET k v EX 100", "SET k v PX 100000", "SETEX k2 100 v", "PSETEX k3 100000 v",
            "SET k4 v EXAT 99999999999", "SET k5 v PXAT 99999999999999", "SET k6 v NX EX 100 GET", "SET k7 v KEEPTTL");

    [RedisFact]
    public void SetGet_PropagatesWithoutGet()
        => PropagationDifferential.AssertSame("SET k v", "SET k w GET", "SET k x XX GET");

    [RedisFact]
    public void ExpireFamily_PropagatesAsPexpireat()
        => PropagationDifferential.AssertSame("SET k v", "EXPIRE k 100", "PEXPIRE k 100000", "EXPIREAT k 99999999999",
            "PEXPIREAT k 99999999999999", "EXPIRE k 200 GT", "EXPIRE k 100 NX", "PERSIST k");

    [RedisFact]
    public void ExpireInThePast_PropagatesAsDel()
        => PropagationDifferential.AssertSame("SET k v", "EXPIRE k -1", "SET k2 v", "PEXPIREAT k2 1", "SET k3 v", "GETEX k3 PXAT 1");

    [RedisFact]
    public void GetEx_PropagatesAsPexpireatOrPersist()
        => PropagationDifferential.AssertSame("SET k v", "GETEX k", "GETEX k EX 100", "GETEX k PERSIST", "GETEX k PERSIST", "GETDEL k", "GETDEL k");

    [RedisFact]
    public void IncrByFloat_PropagatesAsSetKeepTtl()
        => PropagationDifferential.AssertSame("SET n 1.5", "INCRBYFLOAT n 0.25", "INCRBYFLOAT m 3", "HINCRBYFLOAT h f 1.5", "GETSET n 7");

    [RedisFact]
    public void Geo_GeoAddAsZAddSearchesOnlyWhenStoring()
        => PropagationDifferential.AssertSame(
            "GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", "GEOADD g nx Ch 13 38 Palermo 1 1 a",
            "GEOADD g XX 13.361389 38.115556 Palermo", "GEOADD g XX 1 1 nope", "GEOADD g 500 1 bad",
            "GEORADIUS g 15 37 200 km", "GEORADIUSBYMEMBER g Palermo 200 km", "GEOSEARCH g FROMLONLAT 15 37 BYRADIUS 200 km",
            "GEORADIUS g 15 37 200 km STORE {g}d", "GEOSEARCHSTORE d2 g FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST",
            "GEOSEARCHSTORE d2 g FROMLONLAT 0 0 BYRADIUS 1 km", "GEOSEARCHSTORE d2 g FROMLONLAT 0 0 BYRADIUS 1 km");

    [RedisFact]
    public void SPop_PropagatesAsSremOrDel()
        => PropagationDifferential.AssertSame("SADD one a", "SPOP one", "SADD few a b c", "SPOP few 5", "SADD s2 x", "SPOP s2 1", "SPOP missing");

    [RedisFact]
    public void Transaction_WrapsItsWritesInMultiExec()
        => PropagationDifferential.AssertSame("MULTI", "SET a 1", "INCR a", "GET a", "EXEC");

    [RedisFact]
    public void TransactionWithOneWrite_PropagatesItAlone()
        => PropagationDifferential.AssertSame("MULTI", "GET a", "SET a 1", "EXEC");

    [RedisFact]
    public void TransactionWithoutWrites_PropagatesNothing()
        => PropagationDifferential.AssertSame("MULTI", "GET a", "SETNX b 1", "SETNX b 2", "EXEC", "MULTI", "DISCARD");

    [RedisFact]
    public void ExpiredKeyFoundByRead_PropagatesDel()
        => PropagationDifferential.AssertSame("SET k v PX 1", "!sleep 20", "GET k");

    [RedisFact]
    public void ExpiredKeyFoundByWrite_PropagatesDelThenTheWriteInMultiExec()
        => PropagationDifferential.AssertSame("SET k v PX 1", "!sleep 20", "SET k w");

    [RedisFact]
    public void BlockingPopServedAtOnce_PropagatesAsPop()
        => PropagationDifferential.AssertSame("RPUSH l a b c", "BLPOP l 0", "BRPOP l 0", "RPUSH l2 x", "BLMOVE l l2 LEFT RIGHT 0",
            "BRPOPLPUSH l2 l 0", "ZADD z 1 a 2 b", "BZPOPMIN z 0", "BZPOPMAX z 0");

    [RedisFact]
    public void MPop_PropagatesAsPopWithCount()
        => PropagationDifferential.AssertSame("RPUSH l a b c", "LMPOP 1 l LEFT COUNT 2", "BLMPOP 0 1 l RIGHT",
            "ZADD z 1 a 2 b 3 c", "ZMPOP 1 z MIN COUNT 2", "BZMPOP 0 1 z MAX");

    [RedisFact]
    public void Publish_PropagatesToReplicas()
        => PropagationDifferential.AssertSame("PUBLISH ch hello", "SPUBLISH sch hi");

    [RedisFact]
    public void SPopManyMembers_PropagatesSremBatchesInMultiExec()
    {
        var add = new List<string> { "SADD", "big" };
        for (int i = 0; i < 3000; i++) add.Add("m" + i);
        // Removing all but a few leaves Redis's third case (survivors copied out); the popped
        // members differ between servers, so compare the shape: how many SREMs of how many members.
        var lines = PropagationDifferential.Propagated(string.Join(' ', add), "SPOP big 2990");
        Assert.Equal(["MULTI", "SREM 1024", "SREM 1024", "SREM 942", "EXEC"],
            lines.Skip(1).Select(l => l.StartsWith("9 SREM") ? "SREM " + (l.Split(' ').Length - 3) : l));
        lines = PropagationDifferential.Propagated(string.Join(' ', add), "SPOP big 10");
        Assert.Equal(["SREM 10"], lines.Skip(1).Select(l => "SREM " + (l.Split(' ').Length - 3)));
    }

    [RedisFact]
    public void Flush_PropagatesEvenWhenEmpty()
        => PropagationDifferential.AssertSame("FLUSHDB", "FLUSHALL");

    [Fact]
    public void ExpiredKeyFoundByWrite_OwnListener_SeesDelBeforeWrite()
    {
        var lines = PropagationDifferential.Propagated("SET k v PX 1", "!sleep 20", "SET k w");
        Assert.Equal(["9 SET k v PXAT <ms>", "MULTI", "9 DEL k", "9 SET k w", "EXEC"], lines);
    }

    [Fact]
    public async Task BlockedPopServedByPush_PropagatesThePushThenThePop()
    {
        await using var server = TestServer.Start(shards: 4);
        var recorder = new PropagationRecorder();
        server.Server.PropagationListener = recorder;
        using var waiter = server.Connect();
        using var zwaiter = server.Connect();
        using var pusher = server.Connect();
        Blocked.Send(waiter, pusher, "BLMOVE", "src", "dst", "RIGHT", "LEFT", "0");
        Blocked.Send(zwaiter, pusher, "BZPOPMAX", "z1", "z2", "0");
        pusher.Call("MULTI");
        pusher.Call("RPUSH", "src", "a", "b");
        pusher.Call("ZADD", "z2", "1", "m");
        pusher.Call("EXEC");
        Assert.Equal("$1\r\nb\r\n", waiter.ReadReply());
        Assert.StartsWith("*3\r\n$2\r\nz2\r\n", zwaiter.ReadReply());
        // Redis serves blocked clients after the unit that fed them: the transaction goes out first,
        // then each served command as the non-blocking command it amounts to.
        // The two waiters are separate clients, served in either order.
        var lines = recorder.Take();
        Assert.Equal(["MULTI", "0 RPUSH src a b", "0 ZADD z2 1 m", "EXEC"], lines.Take(4));
        Assert.Equal(["0 LMOVE src dst RIGHT LEFT", "0 ZPOPMAX z2"], lines.Skip(4).Order());
    }

    [Fact]
    public async Task KeyRemovedByActiveExpiry_PropagatesDelAsItsOwnUnit()
    {
        await using var server = TestServer.Start(shards: 2);
        var recorder = new PropagationRecorder();
        server.Server.PropagationListener = recorder;
        using var c = server.Connect();
        c.Call("SET", "gone", "v", "PX", "1");
        c.Call("SET", "kept", "v");
        await Eventually.WaitFor(() => c.Call("DBSIZE") == ":1\r\n", () => "the active cycle removes the expired key");
        Assert.Equal(["0 SET gone v PXAT <ms>", "0 SET kept v", "0 DEL gone"],
            recorder.Take().Select(l => System.Text.RegularExpressions.Regex.Replace(l, @"\d{13,}", "<ms>")));
    }

    [Fact]
    public async Task LazyfreeLazyExpire_PropagatesExpiredKeysAsUnlink()
    {
        await using var server = TestServer.Start(2, "--lazyfree-lazy-expire", "yes", "--enable-debug-command", "yes");
        var recorder = new PropagationRecorder();
        server.Server.PropagationListener = recorder;
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
        c.Call("SET", "k", "v");
        c.Call("EXPIRE", "k", "-1");
        c.Call("SET", "k2", "v", "PX", "1");
        Thread.Sleep(20);
        c.Call("GET", "k2");
        Assert.Equal(["0 SET k v", "0 UNLINK k", "0 SET k2 v PXAT <ms>", "0 UNLINK k2"],
            recorder.Take().Select(l => System.Text.RegularExpressions.Regex.Replace(l, @"\d{13,}", "<ms>")));
    }
}
