using System.Net;
using System.Net.Sockets;
using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Keys;

/// <summary>
/// MIGRATE between this server, redis-server and stand-in targets that answer only when told (or
/// never): replies, errors and what is left on both sides. No assertion depends on timing: a target
/// that stalls is released by the test, and the timeouts tested are ones that must expire.
/// </summary>
public class MigrateTests
{
    private const string Ok = "+OK\r\n";

    private static string[] A(params string[] args) => args;

    [RedisFact]
    public void Migrate_ArgumentErrorsAndNoKey_SameAsRedis() => Differential.AssertSame(
        A("SET", "mig:k", "v"),
        A("MIGRATE", "127.0.0.1", "1", "mig:k", "0", "1000", "FOO"),
        A("MIGRATE", "127.0.0.1", "1", "mig:k", "0", "1000", "COPY", "AUTH"),
        A("MIGRATE", "127.0.0.1", "1", "mig:k", "0", "1000", "AUTH2", "user"),
        A("MIGRATE", "127.0.0.1", "1", "mig:k", "0", "1000", "KEYS", "a"),
        A("MIGRATE", "127.0.0.1", "1", "mig:k", "x", "y"),
        A("MIGRATE", "127.0.0.1", "1", "mig:k", "x", "1000"),
        A("MIGRATE", "127.0.0.1", "1", "mig:k", "0", "1e3"),
        A("MIGRATE", "127.0.0.1", "1", "mig:nokey", "0", "1000"),
        A("MIGRATE", "127.0.0.1", "1", "", "0", "1000", "KEYS"),
        A("MIGRATE", "127.0.0.1", "1", "", "0", "1000", "REPLACE", "AUTH", "KEYS", "KEYS", "mig:n1", "mig:n2"),
        A("MIGRATE", "127.0.0.1", "1", "mig:k", "0"),
        A("COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "0", "COPY", "AUTH", "p", "KEYS", "a", "b"),
        A("COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "0", "AUTH2", "KEYS", "x", "KEYS", "a"),
        A("COMMAND", "GETKEYS", "MIGRATE", "h", "1", "k", "0", "0", "KEYS", "a", "b"),
        A("COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "0"),
        A("COMMAND", "GETKEYSANDFLAGS", "MIGRATE", "h", "1", "k", "0", "0", "COPY"),
        A("COMMAND", "GETKEYSANDFLAGS", "MIGRATE", "h", "1", "", "0", "0", "KEYS", "a"),
        A("COMMAND", "INFO", "MIGRATE"),
        A("PING"));

    [Fact]
    public void Migrate_CommandDocs_HaveRedis72ArgumentNames()
    {
        using var c = TestServer.Shared.Connect();
        string docs = c.Call("COMMAND", "DOCS", "MIGRATE");
        foreach (var name in new[] { "key-selector", "empty-string", "auth", "auth2", "keys", "destination-db" })
            Assert.Contains($"$4\r\nname\r\n${name.Length}\r\n{name}\r\n", docs);
        Assert.Contains("$5\r\ntoken\r\n$2\r\n\"\"\r\n", docs); // 7.0 sent an empty token
        Assert.DoesNotContain("key_or_empty_string", docs);
    }

    [Fact]
    public async Task Migrate_ToThisServer_MovesKeysWithTtlToTheTargetDb()
    {
        await using var source = TestServer.Start(4);
        await using var target = TestServer.Start(2);
        using var s = source.Connect();
        using var t = target.Connect();
        s.Call("SET", "str", "hello");
        s.Call("PEXPIRE", "str", "500000");
        s.Call("RPUSH", "list", "a", "b", "c");
        s.Call("HSET", "hash", "f", "v");
        s.Call("ZADD", "zset", "1.5", "m");

        Assert.Equal(Ok, s.Call("MIGRATE", "127.0.0.1", target.Port.ToString(), "", "3", "5000", "KEYS", "str", "list", "missing", "hash", "zset"));

        Assert.Equal(":0\r\n", s.Call("EXISTS", "str", "list", "hash", "zset"));
        t.Call("SELECT", "3");
        Assert.Equal("$5\r\nhello\r\n", t.Call("GET", "str"));
        long pttl = long.Parse(t.Call("PTTL", "str").Trim(':', '\r', '\n'));
        Assert.InRange(pttl, 1, 500000);
        Assert.Equal("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", t.Call("LRANGE", "list", "0", "-1"));
        Assert.Equal("$1\r\nv\r\n", t.Call("HGET", "hash", "f"));
        Assert.Equal("$3\r\n1.5\r\n", t.Call("ZSCORE", "zset", "m"));
        Assert.Equal(":-1\r\n", t.Call("PTTL", "list"));
        // The connection to the target stays cached for the next MIGRATE.
        Assert.Contains("migrate_cached_sockets:1\r\n", s.Call("INFO", "stats"));

        // Again over the cached connection, the single-key form, into another database (SELECT again).
        s.Call("SET", "one", "1");
        Assert.Equal(Ok, s.Call("MIGRATE", "127.0.0.1", target.Port.ToString(), "one", "0", "5000"));
        t.Call("SELECT", "0");
        Assert.Equal("$1\r\n1\r\n", t.Call("GET", "one"));
        Assert.Equal("+NOKEY\r\n", s.Call("MIGRATE", "127.0.0.1", target.Port.ToString(), "one", "0", "5000"));
        Assert.Equal("+PONG\r\n", s.Call("PING"));
    }

    [Fact]
    public async Task Migrate_CachedConnection_ClosedOnceIdleForTenSeconds()
    {
        await using var source = TestServer.Start(2);
        await using var target = TestServer.Start(2);
        using var s = source.Connect();
        using var t = target.Connect();
        s.Call("SET", "idle", "1");
        Assert.Equal(Ok, s.Call("MIGRATE", "127.0.0.1", target.Port.ToString(), "idle", "0", "5000"));
        Assert.Contains("migrate_cached_sockets:1\r\n", s.Call("INFO", "stats"));
        Assert.Contains("connected_clients:2\r\n", t.Call("INFO", "clients"));
        // Redis's cron closes a cached connection unused for more than 10 seconds.
        await Eventually.WaitFor(() => s.Call("INFO", "stats").Contains("migrate_cached_sockets:0\r\n"),
            () => "the cached connection was never closed", seconds: 60);
        await Eventually.WaitFor(() => t.Call("INFO", "clients").Contains("connected_clients:1\r\n"),
            () => "the target still has the migrating connection", seconds: 30);
    }

    [Fact]
    public async Task Migrate_ClientReplySkip_SkipsTheReplyAfterTheTransfer()
    {
        await using var source = TestServer.Start(2);
        await using var target = TestServer.Start(2);
        using var s = source.Connect();
        using var t = target.Connect();
        s.Call("SET", "quiet", "1");
        s.Send("CLIENT", "REPLY", "SKIP");
        s.Send("MIGRATE", "127.0.0.1", target.Port.ToString(), "quiet", "0", "5000");
        Assert.Equal("+PONG\r\n", s.Call("PING"));
        Assert.Equal("$1\r\n1\r\n", t.Call("GET", "quiet"));
        Assert.Equal(":0\r\n", s.Call("EXISTS", "quiet"));
    }

    [Fact]
    public async Task Migrate_CopyAndReplace_KeepSourceAndOverwriteTarget()
    {
        await using var source = TestServer.Start(2);
        await using var target = TestServer.Start(2);
        using var s = source.Connect();
        using var t = target.Connect();
        string port = target.Port.ToString();
        s.Call("SET", "k", "new");
        t.Call("SET", "k", "old");

        Assert.Equal("-ERR Target instance replied with error: BUSYKEY Target key name already exists.\r\n",
            s.Call("MIGRATE", "127.0.0.1", port, "k", "0", "5000"));
        Assert.Equal("$3\r\nnew\r\n", s.Call("GET", "k"));
        Assert.Equal("$3\r\nold\r\n", t.Call("GET", "k"));

        Assert.Equal(Ok, s.Call("MIGRATE", "127.0.0.1", port, "k", "0", "5000", "COPY", "REPLACE"));
        Assert.Equal("$3\r\nnew\r\n", s.Call("GET", "k"));
        Assert.Equal("$3\r\nnew\r\n", t.Call("GET", "k"));

        // Without COPY the source key goes; a key named twice is sent twice (the second RESTORE fails).
        s.Call("SET", "k", "newer");
        Assert.Equal(Ok, s.Call("MIGRATE", "127.0.0.1", port, "", "0", "5000", "REPLACE", "KEYS", "k"));
        Assert.Equal(":0\r\n", s.Call("EXISTS", "k"));
        Assert.Equal("$5\r\nnewer\r\n", t.Call("GET", "k"));
        s.Call("SET", "d", "1");
        Assert.Equal("-ERR Target instance replied with error: BUSYKEY Target key name already exists.\r\n",
            s.Call("MIGRATE", "127.0.0.1", port, "", "0", "5000", "KEYS", "d", "d"));
        Assert.Equal(":0\r\n", s.Call("EXISTS", "d")); // the first RESTORE was acknowledged
        Assert.Contains("errorstat_ERR:count=2", s.Call("INFO", "errorstats"));
    }

    [Fact]
    public async Task Migrate_AuthAndAuth2_AuthenticateOnTheTarget()
    {
        await using var source = TestServer.Start(2);
        await using var target = TestServer.Start(2, "--requirepass", "secret");
        using var s = source.Connect();
        string port = target.Port.ToString();
        s.Call("SET", "a", "1");

        Assert.Equal("-ERR Target instance replied with error: NOAUTH Authentication required.\r\n",
            s.Call("MIGRATE", "127.0.0.1", port, "a", "0", "5000"));
        Assert.Equal("-ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled.\r\n",
            s.Call("MIGRATE", "127.0.0.1", port, "a", "0", "5000", "AUTH", "wrong"));
        Assert.Equal(":1\r\n", s.Call("EXISTS", "a"));
        Assert.Equal(Ok, s.Call("MIGRATE", "127.0.0.1", port, "a", "0", "5000", "AUTH", "secret"));
        s.Call("SET", "b", "2");
        Assert.Equal(Ok, s.Call("MIGRATE", "127.0.0.1", port, "", "0", "5000", "AUTH2", "default", "secret", "KEYS", "b"));

        using var t = target.Connect();
        t.Call("AUTH", "secret");
        Assert.Equal("*2\r\n$1\r\n1\r\n$1\r\n2\r\n", t.Call("MGET", "a", "b"));
        Assert.Equal(":0\r\n", s.Call("EXISTS", "a", "b"));
    }

    [RedisFact]
    public async Task Migrate_ToAndFromRedisServer_MovesValues()
    {
        using var reference = ReferenceRedis.StartOrNull()!;
        await using var server = TestServer.Start(4);
        using var ours = server.Connect();
        using var theirs = reference.Connect();
        ours.Call("RPUSH", "l", "x", "y");
        ours.Call("ZADD", "z", "2", "b", "1", "a");
        ours.Call("SET", "s", "v", "PX", "900000");

        Assert.Equal(Ok, ours.Call("MIGRATE", "127.0.0.1", reference.Port.ToString(), "", "1", "5000", "KEYS", "l", "z", "s"));
        theirs.Call("SELECT", "1");
        Assert.Equal("*2\r\n$1\r\nx\r\n$1\r\ny\r\n", theirs.Call("LRANGE", "l", "0", "-1"));
        Assert.Equal("*2\r\n$1\r\na\r\n$1\r\nb\r\n", theirs.Call("ZRANGE", "z", "0", "-1"));
        Assert.StartsWith(":", theirs.Call("PTTL", "s"));
        Assert.NotEqual(":-1\r\n", theirs.Call("PTTL", "s"));
        Assert.Equal(":0\r\n", ours.Call("EXISTS", "l", "z", "s"));
        // The reference holds l now: migrating another l there must meet BUSYKEY, passed through.
        ours.Call("RPUSH", "l", "again");
        Assert.Equal("-ERR Target instance replied with error: BUSYKEY Target key name already exists.\r\n",
            ours.Call("MIGRATE", "127.0.0.1", reference.Port.ToString(), "l", "1", "5000"));
        ours.Call("DEL", "l");

        // And back: redis-server migrates to this server.
        Assert.Equal(Ok, theirs.Call("MIGRATE", "127.0.0.1", server.Port.ToString(), "", "0", "5000", "KEYS", "l", "z", "s"));
        Assert.Equal("*2\r\n$1\r\nx\r\n$1\r\ny\r\n", ours.Call("LRANGE", "l", "0", "-1"));
        Assert.Equal("*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n", ours.Call("ZRANGE", "z", "0", "-1", "WITHSCORES"));
        Assert.NotEqual(":-1\r\n", ours.Call("PTTL", "s"));
        Assert.Equal(":0\r\n", theirs.Call("EXISTS", "l", "z", "s"));
    }

    [Fact]
    public async Task Migrate_Propagates_DelOfTheKeysTheTargetTook()
    {
        await using var source = TestServer.Start(2);
        await using var target = TestServer.Start(2);
        var recorder = new PropagationRecorder();
        source.Server.PropagationListener = recorder;
        using var s = source.Connect();
        using var t = target.Connect();
        string port = target.Port.ToString();
        s.Call("SELECT", "2");
        s.Call("MSET", "{p}a", "1", "{p}b", "2");
        t.Call("SET", "{p}b", "taken");
        recorder.Take();

        Assert.Equal(Ok, s.Call("MIGRATE", "127.0.0.1", port, "{p}a", "0", "5000", "COPY"));
        Assert.Empty(recorder.Take()); // COPY deletes nothing
        t.Call("DEL", "{p}a");
        Assert.StartsWith("-ERR Target instance replied with error: BUSYKEY",
            s.Call("MIGRATE", "127.0.0.1", port, "", "0", "5000", "KEYS", "{p}a", "{p}a"));
        Assert.Equal(["2 DEL {p}a"], recorder.Take()); // acknowledged before the error: deleted, propagated
        Assert.StartsWith("-ERR Target instance replied with error: BUSYKEY", s.Call("MIGRATE", "127.0.0.1", port, "{p}b", "0", "5000"));
        Assert.Empty(recorder.Take());
        Assert.Equal(":1\r\n", s.Call("EXISTS", "{p}b"));
    }

    [Fact]
    public async Task Migrate_TargetNeverReplies_TimesOutAndKeepsTheKey()
    {
        await using var server = TestServer.Start(2);
        using var target = new StallingTarget();
        using var c = server.Connect();
        c.Call("SET", "k", "v");
        Assert.Equal("-IOERR error or timeout reading to target instance\r\n",
            c.Call("MIGRATE", "127.0.0.1", target.Port.ToString(), "k", "0", "200"));
        Assert.Equal("$1\r\nv\r\n", c.Call("GET", "k"));
        Assert.Contains("errorstat_IOERR:count=1", c.Call("INFO", "errorstats"));
    }

    [Fact]
    public async Task Migrate_UnreachableTargets_ReplyRedisIoErrors()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        c.Call("SET", "k", "v");
        int closed = FreePort();
        // A refused connection shows as a failed write (Redis's connect returns before it knows).
        Assert.Equal("-IOERR error or timeout writing to target instance\r\n",
            c.Call("MIGRATE", "127.0.0.1", closed.ToString(), "k", "0", "1000"));
        Assert.Equal("-IOERR error or timeout connecting to the client\r\n",
            c.Call("MIGRATE", "no-such-host.invalid", "6379", "k", "0", "1000"));
        Assert.Equal("-IOERR error or timeout connecting to the client\r\n",
            c.Call("MIGRATE", "127.0.0.1", "-5", "k", "0", "1000"));
        Assert.Equal("$1\r\nv\r\n", c.Call("GET", "k"));
    }

    [Fact]
    public async Task Migrate_WhileTargetStalls_ServerServesOthersOnTheSameKeys()
    {
        await using var server = TestServer.Start(1); // one shard: any held gate would stall everyone
        using var target = new StallingTarget();
        using var migrating = server.Connect();
        using var other = server.Connect();
        migrating.Call("SET", "k", "v");
        migrating.Send("MIGRATE", "127.0.0.1", target.Port.ToString(), "k", "0", "60000");
        var sent = target.ReadUntil("RESTORE");
        Assert.Contains("SELECT", sent);

        // The transfer waits on the target: the key's shard is free for everyone else.
        Assert.Equal("$1\r\nv\r\n", other.Call("GET", "k"));
        Assert.Equal(Ok, other.Call("SET", "unrelated", "1"));
        Assert.Equal("+PONG\r\n", other.Call("PING"));

        target.Reply("+OK\r\n+OK\r\n");
        Assert.Equal(Ok, migrating.ReadReply());
        Assert.Equal(":0\r\n", other.Call("EXISTS", "k"));
        Assert.Equal("$1\r\n1\r\n", other.Call("GET", "unrelated"));
    }

    [Fact]
    public async Task Migrate_KeyChangedDuringTransfer_IsNotDeleted()
    {
        await using var server = TestServer.Start(2);
        using var target = new StallingTarget();
        using var migrating = server.Connect();
        using var other = server.Connect();
        migrating.Call("MSET", "{t}changed", "v", "{t}same", "w");
        migrating.Send("MIGRATE", "127.0.0.1", target.Port.ToString(), "", "0", "60000", "KEYS", "{t}changed", "{t}same");
        target.ReadUntil("{t}same");
        Assert.Equal(":2\r\n", other.Call("APPEND", "{t}changed", "x"));
        target.Reply("+OK\r\n+OK\r\n+OK\r\n");
        Assert.Equal(Ok, migrating.ReadReply());
        // The target holds the value as it was read; the newer one stays here instead of being lost.
        Assert.Equal("$2\r\nvx\r\n", other.Call("GET", "{t}changed"));
        Assert.Equal(":0\r\n", other.Call("EXISTS", "{t}same"));
    }

    [Fact]
    public async Task Migrate_ClientDisconnectsMidway_KeysStillMove()
    {
        await using var server = TestServer.Start(2);
        using var target = new StallingTarget();
        using var other = server.Connect();
        other.Call("SET", "gone", "v");
        using (var migrating = server.Connect())
        {
            migrating.Send("MIGRATE", "127.0.0.1", target.Port.ToString(), "gone", "0", "60000");
            target.ReadUntil("RESTORE");
        }
        target.Reply("+OK\r\n+OK\r\n");
        // As in Redis, where the command runs to its end before the disconnect is noticed.
        await Eventually.WaitFor(() => other.Call("EXISTS", "gone") == ":0\r\n", () => "the migrated key was not deleted");
        Assert.Equal("+PONG\r\n", other.Call("PING"));
    }

    [Fact]
    public async Task Migrate_InMultiAndScripts_RunsInPlace()
    {
        await using var source = TestServer.Start(2);
        await using var target = TestServer.Start(2);
        using var s = source.Connect();
        using var t = target.Connect();
        string port = target.Port.ToString();
        s.Call("SET", "m", "1");
        s.Call("MULTI");
        Assert.Equal("+QUEUED\r\n", s.Call("MIGRATE", "127.0.0.1", port, "m", "0", "5000", "COPY"));
        Assert.Equal("*1\r\n+OK\r\n", s.Call("EXEC"));
        Assert.Equal("$1\r\n1\r\n", t.Call("GET", "m"));

        Assert.Equal(Ok, s.Call("EVAL", "return redis.call('migrate','127.0.0.1',ARGV[1],KEYS[1],'0','5000','REPLACE')", "1", "m", port));
        Assert.Equal(":0\r\n", s.Call("EXISTS", "m"));
        Assert.Equal("+NOKEY\r\n", s.Call("EVAL", "return redis.call('migrate','127.0.0.1',ARGV[1],'','0','5000','KEYS',KEYS[1])", "1", "m", port));
    }

    [Fact]
    public async Task Migrate_Acl_ChecksEveryKeyOfTheKeysForm()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        Assert.Equal(Ok, c.Call("ACL", "SETUSER", "mover", "on", ">pw", "~allowed*", "+@all"));
        Assert.Equal(Ok, c.Call("AUTH", "mover", "pw"));
        Assert.Equal("+NOKEY\r\n", c.Call("MIGRATE", "127.0.0.1", "1", "allowed1", "0", "1000"));
        Assert.Equal("+NOKEY\r\n", c.Call("MIGRATE", "127.0.0.1", "1", "", "0", "1000", "KEYS", "allowed1", "allowed2"));
        Assert.StartsWith("-NOPERM", c.Call("MIGRATE", "127.0.0.1", "1", "denied", "0", "1000"));
        Assert.StartsWith("-NOPERM", c.Call("MIGRATE", "127.0.0.1", "1", "", "0", "1000", "KEYS", "allowed1", "denied"));
        Assert.StartsWith("-NOPERM", c.Call("MIGRATE", "127.0.0.1", "1", "", "0", "1000", "AUTH", "x", "KEYS", "denied"));
    }

    [Fact]
    public async Task Migrate_AuthArguments_AreRedactedInSlowlog()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        c.Call("CONFIG", "SET", "slowlog-log-slower-than", "0");
        c.Call("MIGRATE", "127.0.0.1", "1", "", "0", "1000", "AUTH2", "user", "pass", "KEYS", "nokey");
        string log = c.Call("SLOWLOG", "GET", "1");
        Assert.Contains("(redacted)", log);
        Assert.DoesNotContain("pass", log);
        Assert.DoesNotContain("user", log);
        Assert.Contains("nokey", log);
    }

    private static int FreePort()
    {
        using var l = new TcpListener(IPAddress.Loopback, 0);
        l.Start();
        return ((IPEndPoint)l.LocalEndpoint).Port;
    }

    /// <summary>A target that accepts one connection, reads what it is sent, and answers only what the test tells it to.</summary>
    private sealed class StallingTarget : IDisposable
    {
        private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
        private readonly Task<Socket> _accepted;
        private readonly StringBuilder _received = new();

        public StallingTarget()
        {
            _listener.Start();
            _accepted = _listener.AcceptSocketAsync();
        }

        public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

        /// <summary>Reads until <paramref name="text"/> has arrived (bounded: 10 s); returns all received so far.</summary>
        public string ReadUntil(string text)
        {
            Assert.True(_accepted.Wait(TimeSpan.FromSeconds(10)), "MIGRATE never connected");
            var socket = _accepted.Result;
            socket.ReceiveTimeout = 10_000;
            var buffer = new byte[4096];
            while (!_received.ToString().Contains(text))
            {
                int n = socket.Receive(buffer);
                Assert.True(n > 0, "the connection closed before " + text + " arrived");
                _received.Append(Encoding.Latin1.GetString(buffer, 0, n));
            }
            return _received.ToString();
        }

        public void Reply(string text) => _accepted.Result.Send(Encoding.ASCII.GetBytes(text));

        public void Dispose()
        {
            _listener.Stop();
            if (_accepted.IsCompletedSuccessfully) _accepted.Result.Dispose();
        }
    }
}
