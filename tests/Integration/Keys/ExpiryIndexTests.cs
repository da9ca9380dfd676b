using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Keys;

/// <summary>
/// The expiry index (the keys with a TTL, which active expiry samples) stays exact through every
/// path that gives a key a TTL, takes it away or removes the key: after each command of a script it
/// holds each key with a TTL once and nothing else, INFO's keys/expires match redis-server's, and so
/// does every reply. A stale entry is what made active expiry slow (issue 12, see ActiveExpiryTests).
/// </summary>
public class ExpiryIndexTests
{
    // "#sleep ms" pauses the script (for lazy expiry); every other line is a command run on both servers.
    private static readonly string[] Script =
    [
        "DEBUG SET-ACTIVE-EXPIRE 0", // lazy expiry below must be met by a command, on both servers
        // Adding TTLs: SET EX/PX, SETEX, PSETEX, EXPIRE family, GETEX, SET KEEPTTL keeps it.
        "SET s1 v EX 100", "SET s2 v PX 100000", "SETEX s3 100 v", "PSETEX s4 100000 v",
        "SET s5 v", "EXPIRE s5 100", "PEXPIRE s5 200000", "EXPIREAT s5 99999999999", "PEXPIREAT s5 99999999999000",
        "SET s6 v", "GETEX s6 EX 100", "GETEX s6 PX 100000", "SET s6 w KEEPTTL", "INCR n", "EXPIRE n 100", "INCR n",
        "APPEND s6 x", "SETRANGE s6 0 y", "EXPIRE s6 100 NX", "EXPIRE s6 50 LT", "EXPIRE s6 500 GT",
        // Removing TTLs: PERSIST, GETEX PERSIST, overwrite by SET/GETSET/MSET/SET NX GET..., type change.
        "PERSIST s1", "PERSIST s1", "GETEX s2 PERSIST", "SET s3 new", "GETSET s4 new", "MSET s5 a s6 b",
        "SET t1 v EX 100", "SET t1 v GET", "SET t2 v EX 100", "SET t2 v XX PX 50000", "SET t2 w NX",
        "LPUSH t3 a", "EXPIRE t3 100", "SET t3 string", "SADD t4 a", "EXPIRE t4 100", "SET t4 s EX 100",
        // Removing keys: DEL, UNLINK, GETDEL, EXPIRE in the past, collections emptied.
        "SET d1 v EX 100", "SET d2 v EX 100", "SET d3 v EX 100", "SET d4 v EX 100",
        "DEL d1", "UNLINK d2", "GETDEL d3", "EXPIRE d4 -1", "PEXPIREAT s3 1",
        "RPUSH l1 a", "EXPIRE l1 100", "LPOP l1", "RPUSH l2 a b", "EXPIRE l2 100", "RPOP l2 2",
        "RPUSH l3 a", "EXPIRE l3 100", "LREM l3 0 a", "RPUSH l4 a", "EXPIRE l4 100", "LTRIM l4 1 0",
        "RPUSH l5 a", "EXPIRE l5 100", "RPOPLPUSH l5 l6", "EXPIRE l6 100", "LMOVE l6 l7 LEFT RIGHT", "LMPOP 1 l7 LEFT",
        "SADD e1 a", "EXPIRE e1 100", "SPOP e1", "SADD e2 a", "EXPIRE e2 100", "SPOP e2 5",
        "SADD e3 a", "EXPIRE e3 100", "SREM e3 a", "SADD e4 a", "EXPIRE e4 100", "SMOVE e4 e5 a", "EXPIRE e5 100",
        "HSET h1 f v", "EXPIRE h1 100", "HDEL h1 f", "ZADD z1 1 a", "EXPIRE z1 100", "ZPOPMIN z1",
        "ZADD z2 1 a", "EXPIRE z2 100", "ZREM z2 a", "ZADD z3 1 a 2 b", "EXPIRE z3 100", "ZREMRANGEBYSCORE z3 0 5",
        "ZADD z4 1 a", "EXPIRE z4 100", "ZMPOP 1 z4 MIN COUNT 5",
        // Stores over a destination with a TTL replace it without one.
        "SADD src a b", "SET dst v EX 100", "SUNIONSTORE dst src", "SET dst2 v EX 100", "SINTERSTORE dst2 nothing src",
        "SET dst3 v EX 100", "ZUNIONSTORE dst3 1 src", "SET dst4 v EX 100", "SORT src ALPHA STORE dst4",
        "SET dst5 v EX 100", "ZRANGESTORE dst5 dst3 0 -1",
        // RENAME: the TTL moves with the key, the overwritten destination's goes.
        "SET r1 v EX 100", "RENAME r1 r2", "SET r3 v EX 100", "SET r4 v", "RENAME r3 r4", "SET r5 v", "SET r6 v EX 100",
        "RENAME r5 r6", "SET r7 v EX 100", "RENAMENX r7 r8", "SET r9 v EX 100", "RENAME r9 r9",
        // MOVE and COPY across databases; SWAPDB; slot reuse: a new key in a freed slot has no TTL.
        "SET m1 v EX 100", "MOVE m1 3", "SET m2 v", "SET m3 v EX 100", "MOVE m3 3",
        "SET c1 v EX 100", "COPY c1 c2", "COPY c1 c3 DB 4", "SET c4 v", "COPY c4 c2 REPLACE", "COPY c1 c4 REPLACE",
        "SELECT 3", "SET m3 local", "SET x3 v EX 100", "SWAPDB 3 4", "SELECT 4", "PERSIST m1", "DEL m3",
        "SELECT 3", "SET x4 v EX 100", "SWAPDB 0 3", "SELECT 0", "DEL x4", "SELECT 3", "DEL c1", "SWAPDB 0 3", "SELECT 0",
        "SET u1 v EX 100", "DEL u1", "SET u2 v", "SET u3 v EX 100", "DEL u2 u3", "SET u4 v", "SET u5 v",
        // MULTI/EXEC runs the same paths.
        "MULTI", "SET x1 v EX 100", "PERSIST x1", "SET x2 v EX 100", "DEL x2", "EXEC",
        // Lazy expiry: a command meets an expired key and deletes it.
        "SET lz1 v PX 1", "SET lz2 v PX 1", "LPUSH lz3 a", "PEXPIRE lz3 1", "#sleep 20",
        "GET lz1", "EXISTS lz2", "LLEN lz3", "SET lz1 again",
        // FLUSHDB, FLUSHALL.
        "SET f1 v EX 100", "SELECT 4", "FLUSHDB", "SET f2 v EX 100", "SELECT 0", "FLUSHALL",
        "SET f3 v EX 100", "SET f4 v", "DEBUG SET-ACTIVE-EXPIRE 1",
    ];

    [Fact]
    public async Task ExpiryIndex_EveryPathThatSetsOrClearsATtl_StaysExact()
    {
        using var reference = ReferenceRedis.StartOrNull("--enable-debug-command yes");
        await using var server = TestServer.Start(shards: 4, "--enable-debug-command", "yes");
        using var ours = server.Connect();
        using var theirs = reference?.Connect();
        var failures = new List<string>();
        bool queuing = false; // inside MULTI: INFO would be queued too, so checks wait for EXEC
        foreach (string line in Script)
        {
            if (line.StartsWith("#sleep ", StringComparison.Ordinal))
            {
                Thread.Sleep(int.Parse(line[7..]));
                continue;
            }
            var cmd = Differential.SplitLine(line);
            string mine = ours.Call(cmd);
            string? expected = theirs?.Call(cmd);
            if (expected != null && expected != mine)
                failures.Add($"{line}: redis {Differential.Show(expected)}, ours {Differential.Show(mine)}");
            if (cmd[0] == "MULTI") queuing = true;
            if (cmd[0] == "EXEC") queuing = false;
            if (queuing) continue;
            if (CheckIndexes(server) is { } broken) failures.Add($"{line}: {broken}");
            if (theirs == null) continue;
            string keyspaceTheirs = Keyspace(theirs), keyspaceOurs = Keyspace(ours);
            if (keyspaceTheirs != keyspaceOurs) failures.Add($"{line}: INFO keyspace redis [{keyspaceTheirs}], ours [{keyspaceOurs}]");
        }
        Assert.True(failures.Count == 0, string.Join("\n", failures));
    }

    /// <summary>Null when every database of every shard has an exact expiry index; otherwise which is wrong and how.</summary>
    private static string? CheckIndexes(TestServer server)
    {
        var shards = server.Server.Shards;
        for (int s = 0; s < shards.Count; s++)
        {
            lock (shards[s].Gate)
            {
                var store = shards[s].Store;
                for (int db = 0; db < store.DatabaseCount; db++)
                    if (store[db].CheckExpiryIndex() is { } problem) return $"shard {s} db {db}: {problem}";
            }
        }
        return null;
    }

    /// <summary>INFO keyspace's dbN:keys=..,expires=.. lines, avg_ttl left out (a running estimate in Redis).</summary>
    private static string Keyspace(RespClient c)
        => string.Join(" ", Regex.Matches(c.Call("INFO", "keyspace"), @"db\d+:keys=\d+,expires=\d+").Select(m => m.Value));
}
