using System.Security.Cryptography;
using System.Text;
using RedisClone.Tests.Infrastructure;
using static RedisClone.Tests.Clients.ClientTrackingTests;

namespace RedisClone.Tests.Clients;

/// <summary>
/// CLIENT TRACKING for the keys scripts read and write, and the tracking table's bound
/// (tracking-table-max-keys): transcripts compared byte for byte with redis-server's, as in
/// <see cref="ClientTrackingTests"/>.
/// </summary>
public sealed class ClientTrackingLimitAndScriptTests
{
    private const string Library = "#!lua name=trk\n"
        + "redis.register_function('g', function(keys, args) return redis.call('get', keys[1]) end)\n"
        + "redis.register_function{function_name='gro', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes'}}";

    private const string GetScript = "return redis.call('get', KEYS[1])";

    /// <summary>
    /// The commands a script runs are tracked for the client that called it, with its modes: the keys
    /// its reads read (EVAL, EVALSHA, EVAL_RO, FCALL, FCALL_RO), CLIENT CACHING given before EVAL
    /// covering all of them, NOLOOP for its own writes, invalidations after the script's reply, a
    /// redirect. In BCAST mode Redis counts a script's writes as its script client's, not the
    /// caller's: a NOLOOP caller hears of them (but not of its own plain or transaction writes).
    /// </summary>
    [RedisFact]
    public void Tracking_KeysScriptsReadAndWrite_AsRedis()
    {
        string sha = Convert.ToHexStringLower(SHA1.HashData(Encoding.UTF8.GetBytes(GetScript)));
        AssertSameTranscript(t =>
        {
            var a = t.Connect(3);
            var b = t.Connect();
            t.Call(b, "FUNCTION", "LOAD", Library);
            t.Call(b, "SCRIPT", "LOAD", GetScript);
            t.Call(a, "CLIENT", "TRACKING", "on");
            t.Call(a, "FCALL", "g", "1", "f1");
            t.Call(a, "FCALL_RO", "gro", "1", "f2");
            t.Call(a, "EVALSHA", sha, "1", "f3");
            t.Call(a, "EVAL_RO", GetScript, "1", "f4");
            t.Call(b, "MSET", "f1", "1", "f2", "2", "f3", "3", "f4", "4");
            t.Push(a);
            t.Push(a);
            t.Push(a);
            t.Push(a);
            t.None(a);
            // The script's own write: the invalidation follows its reply.
            t.Call(a, "EVAL", "redis.call('get', KEYS[1]) return redis.call('set', KEYS[1], 'x')", "1", "s1");
            t.Push(a);
            t.Call(a, "EVAL", "redis.call('get', KEYS[1]) return redis.call('get', KEYS[2])", "2", "s2", "s3");
            t.Call(b, "MSET", "s2", "1", "s3", "2");
            t.Push(a);
            t.Push(a);
            t.Call(a, "CLIENT", "TRACKING", "off");

            // NOLOOP: the caller's script's writes are its own.
            t.Call(a, "CLIENT", "TRACKING", "on", "NOLOOP");
            t.Call(a, "EVAL", GetScript, "1", "n1");
            t.Call(a, "EVAL", "return redis.call('set', KEYS[1], 'v')", "1", "n1");
            t.None(a);
            t.Call(a, "EVAL", GetScript, "1", "n1");
            t.Call(b, "SET", "n1", "w");
            t.Push(a);
            t.Call(a, "CLIENT", "TRACKING", "off");

            // OPTIN: CLIENT CACHING yes holds for the whole EVAL after it, and only that one.
            t.Call(a, "CLIENT", "TRACKING", "on", "OPTIN");
            t.Call(a, "EVAL", GetScript, "1", "o1");
            t.Call(a, "CLIENT", "CACHING", "yes");
            t.Call(a, "EVAL", "redis.call('get', KEYS[1]) return redis.call('get', KEYS[2])", "2", "o2", "o3");
            t.Call(a, "EVAL", GetScript, "1", "o4");
            t.Call(b, "MSET", "o1", "1", "o2", "2", "o3", "3", "o4", "4");
            t.Push(a);
            t.Push(a);
            t.None(a);
            t.Call(a, "CLIENT", "TRACKING", "off");

            // OPTOUT: CLIENT CACHING no leaves the EVAL after it untracked.
            t.Call(a, "CLIENT", "TRACKING", "on", "OPTOUT");
            t.Call(a, "CLIENT", "CACHING", "no");
            t.Call(a, "EVAL", "redis.call('get', KEYS[1]) return redis.call('get', KEYS[2])", "2", "p1", "p2");
            t.Call(a, "EVAL", GetScript, "1", "p3");
            t.Call(b, "MSET", "p1", "1", "p2", "2", "p3", "3");
            t.Push(a);
            t.None(a);
            t.Call(a, "CLIENT", "TRACKING", "off");

            // BCAST: a script's changes go in one message once it is over.
            t.Call(a, "CLIENT", "TRACKING", "on", "BCAST");
            t.Call(a, "EVAL", "redis.call('set', KEYS[1], 'v') return redis.call('set', KEYS[2], 'v')", "2", "b1", "b2");
            t.Push(a);
            t.Call(a, "CLIENT", "TRACKING", "off");
            t.Call(a, "CLIENT", "TRACKING", "on", "BCAST", "NOLOOP");
            t.Call(a, "EVAL", "return redis.call('set', KEYS[1], 'v')", "1", "b3");
            t.Push(a);
            t.Call(a, "FCALL", "g", "1", "b4"); // a read changes nothing
            t.Call(a, "SET", "b5", "v");
            t.Call(a, "MULTI");
            t.Call(a, "SET", "b6", "v");
            t.Call(a, "EXEC");
            t.None(a);
            t.Call(b, "SET", "b7", "v");
            t.Push(a);
            t.Call(a, "CLIENT", "TRACKING", "off");

            // RESP2 with a redirect: a script's read, told on __redis__:invalidate.
            var r = t.Connect();
            var c = t.Connect();
            string rid = t.Id(r, "R");
            t.Call(r, "SUBSCRIBE", "__redis__:invalidate");
            t.Call(c, "CLIENT", "TRACKING", "on", "REDIRECT", rid);
            t.Call(c, "EVALSHA", sha, "1", "r1");
            t.Call(c, "EVAL", "return redis.call('incr', KEYS[1])", "1", "r1");
            t.Push(r);
            t.None(c);
            Info(t, b);
        });
    }

    /// <summary>
    /// Redis 7.2 tracks the keys a script's read commands read, whichever keys the script declared
    /// (7.0, the reference binary here, tracked the declared ones instead), and not the keys of
    /// EVAL_RO/FCALL_RO themselves.
    /// </summary>
    [Fact]
    public async Task Tracking_ScriptReadsUndeclaredKey_TracksTheKeyRead()
    {
        await using var server = TestServer.Start(2);
        using var a = server.Connect();
        using var b = server.Connect();
        a.Call("HELLO", "3");
        Assert.Equal("+OK\r\n", a.Call("CLIENT", "TRACKING", "on"));
        a.Call("EVAL", "redis.call('get', 'und') return 1", "2", "d1", "d2");
        a.Call("EVAL_RO", "return redis.call('ping')", "1", "d3");
        Assert.Equal("+OK\r\n", b.Call("MSET", "d1", "1", "d2", "2", "d3", "3", "und", "4"));
        Assert.Equal(">2\r\n$10\r\ninvalidate\r\n*1\r\n$3\r\nund\r\n", a.ReadReply());
        Assert.Equal("+PONG\r\n", a.Call("PING"));
        Assert.Contains("tracking_total_keys:0\r\n", a.Call("INFO", "stats"));
    }

    /// <summary>
    /// Over tracking-table-max-keys, keys are evicted before a command runs, as Redis's processCommand
    /// does (cron paused: only commands do it here): ahead of the reply; before queueing in MULTI and
    /// before EXEC's reply, never inside its array; not for a command refused as unknown or for its
    /// arity; silently for a NOLOOP client's own command; on the tracker's connection when another
    /// client's command evicts. INFO's counts follow.
    /// </summary>
    [RedisFact]
    public void Tracking_OverMaxKeys_EvictsBeforeEachCommandAsRedis()
    {
        AssertSameTranscript(t =>
        {
            var a = t.Connect(3);
            var b = t.Connect();
            t.Call(b, "DEBUG", "PAUSE-CRON", "1");

            t.Call(a, "CLIENT", "TRACKING", "on", "NOLOOP");
            t.Call(a, "MGET", "n1", "n2");
            t.Call(b, "CONFIG", "SET", "tracking-table-max-keys", "1");
            t.Call(a, "PING");
            t.None(a);
            Info(t, b);
            Reset(t, a, b);

            // Before a queued command, and before EXEC's reply.
            t.Call(a, "CLIENT", "TRACKING", "on");
            t.Call(a, "MGET", "q1", "q2");
            t.Call(a, "MULTI");
            t.Call(b, "CONFIG", "SET", "tracking-table-max-keys", "1");
            t.Send(a, "PING");
            t.Evicted(a, "q1", "q2");
            t.Reply(a);
            t.Call(a, "EXEC");
            t.None(a);
            Reset(t, a, b);
            t.Call(a, "MGET", "x1", "x2", "x3");
            t.Call(a, "MULTI");
            t.Call(a, "PING");
            t.Call(b, "CONFIG", "SET", "tracking-table-max-keys", "2");
            t.Send(a, "EXEC");
            t.Evicted(a, "x1", "x2", "x3");
            t.Reply(a);
            t.None(a);
            Reset(t, a, b);

            // Refused commands do not get that far.
            t.Call(a, "MGET", "w1", "w2");
            t.Call(b, "CONFIG", "SET", "tracking-table-max-keys", "1");
            t.Call(a, "NOSUCH");
            t.Call(a, "GET");
            t.Send(a, "PING");
            t.Evicted(a, "w1", "w2");
            t.Reply(a);
            t.None(a);
            Reset(t, a, b);

            // Another client's command: the tracker is told at once.
            t.Call(a, "MGET", "o1", "o2", "o3");
            t.Call(b, "CONFIG", "SET", "tracking-table-max-keys", "2");
            t.Call(b, "PING");
            t.Evicted(a, "o1", "o2", "o3");
            t.None(a);
            Info(t, b);
        }, "--enable-debug-command", "yes");

        // No limit; FLUSHALL empties the table (the tracker hears a null invalidation).
        static void Reset(Transcript t, RespClient a, RespClient b)
        {
            t.Call(b, "CONFIG", "SET", "tracking-table-max-keys", "0");
            t.Call(b, "FLUSHALL");
            t.Push(a);
        }
    }

    /// <summary>
    /// Lowering tracking-table-max-keys on an idle server takes effect from the cron, as Redis's
    /// serverCron does it (Redis's test "Tracking gets notification on tracking table key eviction",
    /// there with NOLOOP and a RESP2 redirect): the message comes without another command.
    /// </summary>
    [RedisFact]
    public void Tracking_MaxKeysLoweredOnIdleServer_CronEvicts()
    {
        AssertSameTranscript(t =>
        {
            var r = t.Connect();
            var a = t.Connect();
            var c = t.Connect(3);
            string rid = t.Id(r, "R");
            t.Call(r, "SUBSCRIBE", "__redis__:invalidate");
            t.Call(a, "CLIENT", "TRACKING", "on", "REDIRECT", rid, "NOLOOP");
            t.Call(a, "MGET", "k1", "k2");
            t.Call(a, "CONFIG", "SET", "tracking-table-max-keys", "1");
            t.Evicted(r, "k1", "k2");
            t.None(r);
            Info(t, a);
            t.Call(a, "CLIENT", "TRACKING", "off");
            t.Call(a, "CONFIG", "SET", "tracking-table-max-keys", "0");
            t.Call(a, "FLUSHALL");
            t.Call(c, "CLIENT", "TRACKING", "on");
            t.Call(c, "MGET", "c1", "c2", "c3");
            t.Call(a, "CONFIG", "SET", "tracking-table-max-keys", "2");
            t.Evicted(c, "c1", "c2", "c3");
            t.None(c);
            Info(t, a);
        });
    }

    /// <summary>
    /// A key maxmemory evicts before a tracking client's command runs is invalidated ahead of that
    /// command's reply, as Redis's processCommand evicts before it (Redis's test "Tracking
    /// invalidation message of eviction keys should be before response"); NOLOOP leaves it out.
    /// </summary>
    [RedisFact]
    public void Tracking_MaxmemoryEvictsBeforeCommand_InvalidationAheadOfReply()
    {
        AssertSameTranscript(t =>
        {
            var a = t.Connect(3);
            var b = t.Connect();
            foreach (var mode in new[] { "on", "NOLOOP" })
            {
                t.Call(a, mode == "on" ? ["CLIENT", "TRACKING", "on"] : ["CLIENT", "TRACKING", "on", "NOLOOP"]);
                // About 100 KB over what is used now: the 200 KB bitmap passes it, so the next command
                // evicts the only key with a TTL (volatile-random) first.
                var info = b.Call("INFO", "memory").Split("\r\n");
                long used = long.Parse(info.First(l => l.StartsWith("used_memory:"))["used_memory:".Length..]);
                b.Call("CONFIG", "SET", "maxmemory", (used + 100 * 1024).ToString());
                t.Call(b, "CONFIG", "SET", "maxmemory-policy", "volatile-random");
                t.Call(a, "SETEX", "volatile-key", "10000", "x");
                t.Call(a, "GET", "volatile-key");
                t.Call(a, "SETBIT", "big-key", "1600000", "0");
                t.Call(a, "GETBIT", "big-key", "0");
                if (mode == "on") t.Reply(a);
                t.None(a);
                t.Call(b, "CONFIG", "SET", "maxmemory", "0");
                t.Call(b, "FLUSHALL");
                t.Push(a);
                t.Call(a, "CLIENT", "TRACKING", "off");
            }
        });
    }

    private static void Info(Transcript t, RespClient c)
    {
        var lines = c.Call("INFO", "stats").Split("\r\n").Where(l => l.StartsWith("tracking_total_"));
        t.Log.AppendLine(string.Join(" ", lines));
    }
}
