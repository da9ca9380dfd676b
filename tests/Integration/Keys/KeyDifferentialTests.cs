using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Keys;

/// <summary>
/// The keyspace family against redis-server: byte-identical replies for every command, option and
/// error (Differential.AssertSame), and the same sets of keys where only the order may differ
/// (KEYS, SCAN).
/// </summary>
public class KeyDifferentialTests
{
    // A reference server and a clone of our own for the order-insensitive comparisons, so they can
    // fill and flush whole databases without disturbing the shared instances.
    private static readonly Lazy<ReferenceRedis?> PrivateReference = new(() => ReferenceRedis.StartOrNull());
    private static readonly Lazy<TestServer> PrivateServer = new(() => TestServer.Start(shards: 4));
    private static readonly SemaphoreSlim SortedGate = new(1, 1);

    private static readonly string Long45 = new('z', 45);
    private static readonly string Long44 = new('z', 44);

    [RedisFact]
    public void DelExistsTouchType_SameAsRedis() => Differential.AssertSame(
        "SET a 1", "SET b 2", "SET c 3",
        "EXISTS a", "EXISTS a a b nope a", "EXISTS nope",
        "TOUCH a b nope a", "TOUCH nope",
        "TYPE a", "TYPE nope",
        "DEL a a nope b", "DEL nope", "EXISTS a b c",
        "UNLINK c c", "UNLINK c",
        "DEL", "EXISTS", "TOUCH", "TYPE", "TYPE a b",
        "PING");

    [RedisFact]
    public void RenameRenameNx_SameAsRedis() => Differential.AssertSame(
        "RENAME nokey x", "RENAME nokey nokey", "RENAMENX nokey x",
        "SET k v", "RENAME k k", "RENAMENX k k", "GET k",
        "SET k2 v2", "RENAMENX k k2", "GET k2",
        "RENAME k k2", "GET k2", "EXISTS k",
        "SET t 1 EX 1000", "RENAME t t2", "TTL t2", "TTL t",
        "SET u 1", "PEXPIREAT u 4102444800000", "SET w 2", "RENAME w u", "TTL u",
        "APPEND r x", "APPEND r y", "RENAME r r2", "OBJECT ENCODING r2",
        "RENAME a", "RENAMENX a b c",
        "PING");

    [RedisFact]
    public void Copy_SameAsRedis() => Differential.AssertSame(
        "SELECT 10", "FLUSHDB", "SELECT 9",
        "SET k hello", "PEXPIREAT k 4102444800000",
        "COPY k k", "COPY k k DB 9", "COPY nokey dst",
        "COPY k dst", "GET dst", "PEXPIRETIME dst",
        "COPY k dst", "SET k world", "COPY k dst REPLACE", "GET dst", "TTL dst",
        "SET dst same", "GET k",
        "COPY k k DB 10", "COPY k k2 DB 10 REPLACE REPLACE", "COPY k k2 REPLACE DB 10",
        "SELECT 10", "GET k", "GET k2", "TTL k", "FLUSHDB", "SELECT 9",
        "COPY k x DB 16", "COPY k x DB -1", "COPY k x DB abc", "COPY k x DB",
        "COPY k x foo", "COPY k x REPLACE foo", "COPY k x foo DB abc", "COPY k x DB abc foo",
        "COPY k k DB 99", "COPY nokey x DB 99",
        "SET n 42", "COPY n n2", "OBJECT ENCODING n2",
        "SET e 12", "SETRANGE e 0 3", "COPY e e2", "OBJECT ENCODING e2", "OBJECT REFCOUNT e2",
        "COPY k", "COPY",
        "PING");

    [RedisFact]
    public void Move_SameAsRedis() => Differential.AssertSame(
        "SELECT 10", "FLUSHDB", "SELECT 9",
        "SET k v", "MOVE k 9", "MOVE nokey 9", "MOVE k 16", "MOVE k -1", "MOVE k abc", "MOVE k 1.5",
        "MOVE nokey 10",
        "SET m 12", "PEXPIREAT m 4102444800000", "MOVE m 10", "EXISTS m",
        "SET m again", "MOVE m 10", "GET m",
        "SELECT 10", "GET m", "PEXPIRETIME m", "OBJECT ENCODING m", "FLUSHDB", "SELECT 9",
        "MOVE k", "MOVE k 1 2",
        "PING");

    [RedisFact]
    public void ExpireFamily_OptionsAndErrors_SameAsRedis() => Differential.AssertSame(
        "SET k v",
        "EXPIRE k 100 NX XX", "EXPIRE k 100 NX GT", "EXPIRE k 100 NX LT", "EXPIRE k 100 GT LT",
        "EXPIRE k 100 XX GT LT", "PEXPIRE k 100 nx xx", "EXPIREAT k 100 nx gt", "PEXPIREAT k 1 gt lt",
        "EXPIRE k 100 foo", "EXPIRE k abc foo", "EXPIRE k abc", "EXPIRE k 1.5", "EXPIRE k 1x", "EXPIRE k 01",
        "EXPIRE k 9223372036854775807", "EXPIRE k 922337203685477580", "EXPIRE k -9223372036854775808",
        "EXPIRE k 9223372036854776", "EXPIRE k -9223372036854776",
        "PEXPIRE k 9223372036854775807", "EXPIREAT k 9223372036854775807", "EXPIREAT k 9223372036854776",
        "EXPIREAT k -9223372036854776",
        "TTL k",
        "EXPIRE nokey 10", "EXPIRE nokey 10 XX", "EXPIRE nokey -10",
        "EXPIRE k 100 XX", "EXPIRE k 100 GT", "EXPIRE k 100 LT", "TTL k",
        "EXPIRE k 100 NX", "EXPIRE k 100 NX", "EXPIRE k 50 GT", "EXPIRE k 90 GT", "EXPIRE k 200 GT",
        "EXPIRE k 300 LT", "EXPIRE k 150 LT", "EXPIRE k 150 LT", "EXPIRE k 150 XX", "TTL k",
        "EXPIRE k 140 XX GT", "EXPIRE k 160 XX GT", "TTL k",
        "PEXPIREAT k 4102444800000", "EXPIRETIME k", "PEXPIRETIME k", "TTL nokey", "PTTL nokey",
        "EXPIREAT k 4102444801", "PEXPIRETIME k",
        "PERSIST k", "PERSIST k", "PERSIST nokey", "TTL k", "PTTL k", "EXPIRETIME k", "PEXPIRETIME k",
        "EXPIRE k 100 LT", "TTL k",
        "EXPIRE k 0", "EXISTS k",
        "SET k v", "PEXPIRE k -9223372036854775808", "EXISTS k",
        "SET k v", "PEXPIREAT k 9223372036854775807", "PEXPIRETIME k",
        "SET k v", "EXPIREAT k 1", "EXISTS k",
        "SET k v", "PEXPIREAT k 0 NX", "EXISTS k",
        "SET k v EX 100", "EXPIRE k -1 GT", "EXPIRE k -1 LT", "EXISTS k",
        "EXPIRE", "EXPIRE k", "TTL", "TTL a b", "PERSIST", "EXPIRETIME", "PEXPIRETIME a b",
        "PING");

    [RedisFact]
    public void Object_SameAsRedis() => Differential.AssertSame(
        [
            ["SET", "int", "-12345"], ["SET", "zero", "0"], ["SET", "max", "9223372036854775807"],
            ["SET", "over", "9223372036854775808"], ["SET", "lead", "007"], ["SET", "minus0", "-0"],
            ["SET", "plus", "+5"], ["SET", "space", " 5"], ["SET", "emb", Long44], ["SET", "raw", Long45],
            ["SET", "empty", ""], ["SET", "shared", "9999"], ["SET", "notshared", "10000"], ["SET", "neg", "-1"],
            ["SET", "i20", "-9223372036854775808"], ["SET", "word", "hello"],
            ["APPEND", "app", "12"], ["APPEND", "word", "!"], ["SETRANGE", "sr", "0", "5"],
            ["INCR", "ctr"], ["INCRBY", "bigctr", "123456"],
            ["OBJECT", "ENCODING", "int"], ["OBJECT", "ENCODING", "zero"], ["OBJECT", "ENCODING", "max"],
            ["OBJECT", "ENCODING", "over"], ["OBJECT", "ENCODING", "lead"], ["OBJECT", "ENCODING", "minus0"],
            ["OBJECT", "ENCODING", "plus"], ["OBJECT", "ENCODING", "space"], ["OBJECT", "ENCODING", "emb"],
            ["OBJECT", "ENCODING", "raw"], ["OBJECT", "ENCODING", "empty"], ["OBJECT", "ENCODING", "i20"],
            ["OBJECT", "ENCODING", "word"], ["OBJECT", "ENCODING", "app"], ["OBJECT", "ENCODING", "sr"],
            ["OBJECT", "ENCODING", "ctr"], ["OBJECT", "ENCODING", "bigctr"], ["OBJECT", "ENCODING", "nokey"],
            ["OBJECT", "encoding", "int"],
            ["OBJECT", "REFCOUNT", "zero"], ["OBJECT", "REFCOUNT", "shared"], ["OBJECT", "REFCOUNT", "notshared"],
            ["OBJECT", "REFCOUNT", "neg"], ["OBJECT", "REFCOUNT", "int"], ["OBJECT", "REFCOUNT", "word"],
            ["OBJECT", "REFCOUNT", "app"], ["OBJECT", "REFCOUNT", "sr"], ["OBJECT", "REFCOUNT", "ctr"],
            ["OBJECT", "REFCOUNT", "lead"], ["OBJECT", "REFCOUNT", "nokey"],
            ["OBJECT", "FREQ", "int"], ["OBJECT", "FREQ", "nokey"], ["OBJECT", "IDLETIME", "nokey"],
            ["OBJECT", "help", "x", "y"],
            ["OBJECT"], ["OBJECT", "ENCODING"], ["OBJECT", "ENCODING", "a", "b"], ["OBJECT", "HELP", "x"],
            ["OBJECT", "FOO"], ["OBJECT", "FOO", "k"], ["OBJECT", "REFCOUNT"], ["OBJECT", "IDLETIME", "a", "b"],
            ["PING"],
        ]);

    // SCAN cursors are each server's own encoding, so byte comparisons only use scans Redis finishes
    // in one call (cursor 0); ours are followed to cursor 0 (Differential.FinishScan, one call covers
    // one shard); whole iterations are compared as key sets below.
    [RedisFact]
    public void KeyspaceCommands_RepliesAndErrors_SameAsRedis() => Differential.AssertSame(
        "DBSIZE", "RANDOMKEY", "KEYS *", "SCAN 0",
        "SET only v", "DBSIZE", "RANDOMKEY", "KEYS *", "KEYS o*", "KEYS x*", "SCAN 0",
        "SCAN 0 MATCH o*", "SCAN 0 MATCH x*", "SCAN 0 TYPE string", "SCAN 0 TYPE STRING", "SCAN 0 TYPE list",
        "SCAN 0 TYPE nosuchtype", "SCAN 0 MATCH * COUNT 5 TYPE string", "SCAN 0 MATCH x* MATCH o*",
        "SCAN 00", "SCAN -0", "SCAN +0",
        "SCAN abc", "SCAN 1.5", "SCAN 18446744073709551616", "SCAN -18446744073709551616", "SCAN -", "SCAN +",
        "SCAN 0x1", "SCAN 0 COUNT 0", "SCAN 0 COUNT -1", "SCAN 0 COUNT abc", "SCAN 0 COUNT",
        "SCAN 0 COUNT 5 COUNT 0", "SCAN 0 MATCH", "SCAN 0 TYPE", "SCAN 0 foo", "SCAN 0 foo bar",
        "SCAN abc COUNT 0", "SCAN 0 COUNT 9223372036854775807", "SCAN 0 COUNT 9223372036854775808",
        "DEL only", "SCAN -1", "SCAN 18446744073709551615", "SCAN 12345",
        "SCAN", "KEYS", "KEYS a b", "DBSIZE x", "RANDOMKEY x",
        "FLUSHDB foo", "FLUSHDB ASYNC SYNC", "FLUSHDB sync x", "FLUSHALL foo", "FLUSHALL ASYNC SYNC",
        "SET a 1", "SET b 2", "DBSIZE", "FLUSHDB ASYNC", "DBSIZE", "SET a 1", "FLUSHDB sync", "DBSIZE",
        "SET a 1", "FLUSHDB", "DBSIZE",
        "SWAPDB 0", "SWAPDB a 1", "SWAPDB 0 b", "SWAPDB a b", "SWAPDB 0 16", "SWAPDB -1 0", "SWAPDB 99 abc",
        "SWAPDB 1.5 2", "SWAPDB 2147483648 0", "SWAPDB 9 9",
        "PING");

    [RedisFact]
    public void SwapDb_SameAsRedis() => Differential.AssertSame(
        "SELECT 10", "FLUSHDB", "SET x in10", "SELECT 9", "SET y in9", "SET z 1 EX 1000",
        "SWAPDB 9 10", "GET x", "GET y", "TTL z", "DBSIZE",
        "SELECT 10", "GET y", "TTL z", "DBSIZE",
        "SWAPDB 10 9", "GET y", "GET x", "FLUSHDB", "SELECT 9", "GET y",
        "PING");

    [RedisFact]
    public void Keys_Patterns_SameKeySetsAsRedis()
    {
        string[] keys =
        [
            "user:1", "user:2", "user:10", "user:abc", "User:1", "item:1", "item:2:x", "a", "b", "ab", "abc",
            "h?llo", "hello", "hallo", "hxllo", "[x]", "*star", "back\\slash", "", "  ", "long:" + new string('q', 300),
        ];
        string[] patterns =
        [
            "*", "user:*", "user:?", "user:??", "*:1", "[ab]", "[a-b]*", "[^a]*", "h?llo", "h[ae]llo", "h[^e]llo",
            "h\\?llo", "\\[x\\]", "\\*star", "*\\\\*", "", "  ", "?", "*:*:*", "long:*q", "[", "*[", "nomatch*",
            "*a*b*c*", "U*", "u*",
        ];
        CompareSortedKeys(
            keys.Select(k => new[] { "SET", k, "v" }),
            patterns.Select(p => new[] { "KEYS", p }),
            (c, cmd) => KeyReplies.Strings(c.Call(cmd)));
    }

    [RedisFact]
    public void Scan_FullIterations_SameKeySetsAsRedis()
    {
        var setup = new List<string[]>();
        for (int i = 0; i < 400; i++) setup.Add(["SET", $"{(i % 4 == 0 ? "even" : "odd")}:{i}", "v"]);
        for (int i = 0; i < 20; i++) setup.Add(["SET", $"ttl:{i}", "v", "EX", "1000"]);
        string[][] scans =
        [
            [],
            ["COUNT", "1"],
            ["COUNT", "3"],
            ["COUNT", "1000"],
            ["MATCH", "even:*"],
            ["MATCH", "ttl:1?", "COUNT", "7"],
            ["MATCH", "*"],
            ["TYPE", "string", "COUNT", "50"],
            ["TYPE", "hash"],
            ["MATCH", "odd:*", "TYPE", "String"],
        ];
        CompareSortedKeys(setup, scans, (c, options) => KeyReplies.ScanAll(c, options).Keys.Distinct().ToList());
    }

    /// <summary>
    /// Runs <paramref name="setup"/> on a private redis-server and a private clone (after FLUSHALL),
    /// then each query, and asserts both return the same keys in any order.
    /// </summary>
    private static void CompareSortedKeys(IEnumerable<string[]> setup, IEnumerable<string[]> queries,
        Func<RespClient, string[], List<string>> run)
    {
        var reference = PrivateReference.Value ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        SortedGate.Wait();
        try
        {
            using var theirs = reference.Connect();
            using var ours = PrivateServer.Value.Connect();
            var commands = setup.ToList();
            foreach (var c in new[] { theirs, ours })
            {
                Assert.Equal("+OK\r\n", c.Call("FLUSHALL"));
                KeyReplies.Pipeline(c, commands);
            }
            var failures = new List<string>();
            foreach (var query in queries)
            {
                var expected = run(theirs, query).Order(StringComparer.Ordinal).ToList();
                var actual = run(ours, query).Order(StringComparer.Ordinal).ToList();
                if (!expected.SequenceEqual(actual))
                    failures.Add($"{string.Join(' ', query)}: redis {expected.Count} keys, redisclone {actual.Count}; " +
                        $"only redis: [{string.Join(", ", expected.Except(actual).Take(5))}], " +
                        $"only redisclone: [{string.Join(", ", actual.Except(expected).Take(5))}]");
            }
            Assert.True(failures.Count == 0, "key sets differ from redis-server:\n" + string.Join('\n', failures));
        }
        finally
        {
            SortedGate.Release();
        }
    }
}
