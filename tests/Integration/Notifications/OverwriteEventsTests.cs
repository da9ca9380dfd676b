using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Notifications;

/// <summary>
/// Redis 8.2's keyspace event classes o ("overwritten": a write gave an existing key a new value)
/// and c ("type_changed": ...of another type). No reference server has them here (Debian's
/// redis-server is 7.0), so the facts come from Redis 8.2's notify.c, db.c (setKey, RENAME, COPY),
/// cluster.c (RESTORE) and tests/unit/pubsub.tcl: the events come from setKey (SET and its
/// variants, GETSET, MSET, BITOP, SORT STORE and the *STORE commands) after the value is replaced
/// and before the command's own event; RESTORE REPLACE, RENAME and COPY send them after their own.
/// Neither class is part of A. Without o and c everything stays as 7.0 has it (differential).
/// </summary>
public class OverwriteEventsTests(NotificationServers servers) : IClassFixture<NotificationServers>
{
    private const int Db = 13;

    /// <summary>
    /// Sets <paramref name="flags"/>, runs <paramref name="script"/> in database 13 of our private
    /// server with a pattern subscriber on every database's events, and returns the events it got:
    /// "event key" from __keyevent, "[key] event" from __keyspace, prefixed "dbN " outside db 13.
    /// The end is a PUBLISH the pattern also matches, so no wait is timed.
    /// </summary>
    private List<string> Events(string flags, params string[] script)
    {
        using var admin = servers.Ours.Connect();
        using var sub = servers.Ours.Connect();
        Assert.Equal("+OK\r\n", admin.Call("CONFIG", "SET", "notify-keyspace-events", flags));
        admin.Call("FLUSHALL");
        admin.Call("SELECT", Db.ToString());
        sub.Call("PSUBSCRIBE", "__key*__:*");
        // A line with '|' is split there (for arguments holding spaces), any other at spaces.
        foreach (var line in script) admin.Call(line.Contains('|') ? line.Split('|') : Differential.SplitLine(line));
        admin.Call("PUBLISH", "__keyevent@0__:end-of-script", "-");
        var events = new List<string>();
        for (int i = 0; i < 10_000; i++)
        {
            // *4 $8 pmessage $n pattern $n channel $n payload
            var parts = sub.ReadReply().Split("\r\n");
            string channel = parts[6], payload = parts[8];
            if (channel.EndsWith("end-of-script", StringComparison.Ordinal)) break;
            int at = channel.IndexOf('@'), end = channel.IndexOf("__:", StringComparison.Ordinal);
            string db = channel[(at + 1)..end], name = channel[(end + 3)..];
            string text = channel.StartsWith("__keyevent", StringComparison.Ordinal) ? $"{name} {payload}" : $"[{name}] {payload}";
            events.Add(db == Db.ToString() ? text : $"db{db} {text}");
        }
        admin.Call("CONFIG", "SET", "notify-keyspace-events", "");
        admin.Call("FLUSHALL");
        return events;
    }

    private static void Same(IEnumerable<string> expected, List<string> actual)
        => Assert.Equal(string.Join("\n", expected), string.Join("\n", actual));

    // ---------------------------------------------------------------- the flags

    [Fact]
    public void Config_OverwrittenAndTypeChangedFlags_ParsedAndRenderedAsRedis82()
    {
        using var c = servers.Ours.Connect();
        try
        {
            foreach (var (set, get) in new[]
            {
                ("o", "o"), ("c", "c"), ("oc", "oc"), ("co", "oc"), ("Eoc", "ocE"), ("KEoc", "ocKE"),
                ("gocKE", "gocKE"), ("$lshzxetdnoc", "$lshzxetdnoc"), ("ngo", "gno"), ("Ko", "oK"),
                // Neither is part of A, and like n they are not shown once A is (Redis renders A alone).
                ("EAo", "AE"), ("Aoc", "A"), ("AocKEm", "AKEm"),
            })
            {
                Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "notify-keyspace-events", set));
                Assert.Equal($"*2\r\n$22\r\nnotify-keyspace-events\r\n${get.Length}\r\n{get}\r\n", c.Call("CONFIG", "GET", "notify-keyspace-events"));
            }
            // The error text is still 7.x's list (Redis 8.2 did not add o and c to it); the old value stays.
            Assert.Equal("-ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'.\r\n",
                c.Call("CONFIG", "SET", "notify-keyspace-events", "oX"));
            Assert.Equal("*2\r\n$22\r\nnotify-keyspace-events\r\n$4\r\nAKEm\r\n", c.Call("CONFIG", "GET", "notify-keyspace-events"));
        }
        finally
        {
            c.Call("CONFIG", "SET", "notify-keyspace-events", "");
        }
    }

    [RedisFact]
    public void Config_FlagsWithoutNewClasses_RenderAsRedis70()
    {
        using var theirs = servers.Reference!.Connect();
        using var ours = servers.Ours.Connect();
        try
        {
            foreach (var flags in new[] { "", "A", "KEA", "EAn", "gn", "$lshzxetd", "g$lshzxetdn", "Km", "Em$", "xe", "AKEmn", "ndE" })
            {
                Assert.Equal(theirs.Call("CONFIG", "SET", "notify-keyspace-events", flags), ours.Call("CONFIG", "SET", "notify-keyspace-events", flags));
                Assert.Equal(theirs.Call("CONFIG", "GET", "notify-keyspace-events"), ours.Call("CONFIG", "GET", "notify-keyspace-events"));
            }
        }
        finally
        {
            theirs.Call("CONFIG", "SET", "notify-keyspace-events", "");
            ours.Call("CONFIG", "SET", "notify-keyspace-events", "");
        }
    }

    // ---------------------------------------------------------------- the string family

    [Fact]
    public void Set_ExistingKey_OverwrittenBeforeSet()
    {
        Same(["set foo", "overwritten foo", "set foo"], Events("E$o", "SET foo bar", "SET foo baz"));
        Same(["overwritten foo"], Events("Eo", "SET foo bar", "SET foo baz"));
        Same(["[foo] set", "[foo] overwritten", "[foo] set"], Events("K$o", "SET foo bar", "SET foo baz"));
        // A alone includes neither class.
        Same(["set foo", "set foo"], Events("EA", "SET foo bar", "SET foo baz"));
        // Same type: no type_changed.
        Same([], Events("Ec", "SET foo bar", "SET foo baz"));
    }

    [Fact]
    public void Set_OverAnotherType_OverwrittenThenTypeChanged()
    {
        Same(["overwritten k", "type_changed k"], Events("Eoc", "HSET k f v", "SET k s"));
        Same(["type_changed k"], Events("Ec", "HSET k f v", "SET k s"));
        Same(["hset k", "overwritten k", "type_changed k", "set k"], Events("Eoch$", "HSET k f v", "SET k s"));
    }

    [Fact]
    public void SetVariants_OverwriteExistingKey_SendOverwritten()
    {
        var script = new[]
        {
            "SET a 1", "SET a 2 GET", "SET a 3 XX", "SET a 4 EX 100", "SET a 5 KEEPTTL", "SETEX a 100 6", "PSETEX a 100000 7",
            "GETSET a 8", "MSET a 9 b 1", "LPUSH l x", "MSET l 1 a 2", "SET l 3 PXAT 9999999999999",
        };
        Same(["overwritten a", "overwritten a", "overwritten a", "overwritten a", "overwritten a", "overwritten a",
              "overwritten a", "overwritten a", "overwritten l", "type_changed l", "overwritten a", "overwritten l"],
            Events("Eoc", script));
        // Each key's own events, in order: overwritten before set, expire after.
        Same(["set a", "set b", "overwritten a", "set a", "expire a", "overwritten a", "set a", "overwritten b", "set b", "set c"],
            Events("E$go", "SET a 1", "SET b 0", "SET a 2 EX 100", "MSET a 3 b 4 c 5"));
    }

    [Fact]
    public void StringWrites_NotReplacingTheValue_SendNeither()
    {
        // In-place edits (INCR, APPEND, SETRANGE, SETBIT...), a refused SET and a new key are not overwrites.
        Same([], Events("Eoc",
            "SET n 1", "INCR n", "INCRBY n 5", "DECR n", "INCRBYFLOAT n 1.5", "APPEND n x", "SETRANGE n 0 y", "SETBIT n 1 1",
            "SET n 2 NX", "SETNX n 3", "SET missing 1 XX", "MSETNX n 1 z 2", "GETEX n EX 100", "GETDEL n", "SET fresh 1",
            "PFADD h a", "PFADD h b", "PFMERGE h h", "LPUSH l a", "LPUSH l b", "HSET hh f 1", "HSET hh f 2", "SADD s a",
            "SPOP s", "SADD s a b", "ZADD z 1 a", "ZADD z 2 a", "XADD x * f v", "EXPIRE n2 10", "DEL fresh"));
    }

    // ---------------------------------------------------------------- setKey's other callers

    [Fact]
    public void StoreCommands_OverAnotherType_OverwrittenThenTypeChangedBeforeOwnEvent()
    {
        var script = new[]
        {
            "SET x{t} x", "RPUSH l{t} 4 3 2 1", "SORT l{t} STORE x{t}",
            "SADD s1{t} a b c d", "SADD s2{t} b e f", "SDIFFSTORE x{t} s1{t} s2{t}",
            "SET d1{t} x", "SINTERSTORE d1{t} s1{t} s2{t}",
            "SET d2{t} x", "SUNIONSTORE d2{t} s1{t} s2{t}",
            "SET d3{t} x", "ZADD z1{t} 1 a 2 b", "ZADD z2{t} 3 c 4 d", "ZUNIONSTORE d3{t} 2 z1{t} z2{t}",
            "SET d4{t} x", "ZADD z2{t} 2 a", "ZINTERSTORE d4{t} 2 z1{t} z2{t}",
            "SET d5{t} x", "ZDIFFSTORE d5{t} 2 z1{t} z2{t}",
            "SET d6{t} x", "ZADD zs{t} 1 a 2 b 3 c 4 d", "ZRANGESTORE d6{t} zs{t} 1 2",
            "SET d7{t} x", "GEOADD g{t} 13.361389 38.115556 Palermo 15.087269 37.502669 Catania", "GEORADIUS g{t} 15 37 200 km STORE d7{t}",
            "SET d8{t} x", "GEORADIUS g{t} 15 37 200 km STOREDIST d8{t}",
            "SET d9{t} x", "GEOSEARCHSTORE d9{t} g{t} FROMLONLAT 15 37 BYRADIUS 200 km",
            "SET d10{t} x", "GEOSEARCHSTORE d10{t} g{t} FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST",
            "SADD b{t} A", "SET p{t} \x0f", "SET q{t} \xff", "BITOP AND b{t} p{t} q{t}",
        };
        var keys = new[] { "x{t}", "x{t}", "d1{t}", "d2{t}", "d3{t}", "d4{t}", "d5{t}", "d6{t}", "d7{t}", "d8{t}", "d9{t}", "d10{t}", "b{t}" };
        Same(keys.SelectMany(k => new[] { $"overwritten {k}", $"type_changed {k}" }), Events("Eoc", script));

        // The order around the command's own event (SORT's sortstore, SUNIONSTORE's, BITOP's set).
        Same(["rpush l{t}", "set x{t}", "overwritten x{t}", "type_changed x{t}", "sortstore x{t}"],
            Events("Eocl$", "RPUSH l{t} 2 1", "SET x{t} x", "SORT l{t} STORE x{t}"));
        Same(["sadd s{t}", "sadd u{t}", "overwritten u{t}", "sunionstore u{t}"],
            Events("Eocs", "SADD s{t} a", "SADD u{t} b", "SUNIONSTORE u{t} s{t}"));
    }

    [Fact]
    public void StoreCommands_EmptyResultOrNewKey_SendNeither()
    {
        // An empty result deletes the destination ("del"), it does not overwrite it; a new destination is new.
        Same(["del d{t}", "del e{t}"], Events("Egoc",
            "SET d{t} x", "SINTERSTORE d{t} nokey{t} other{t}", "SET e{t} x", "SORT nokey{t} STORE e{t}",
            "SADD s{t} a", "SUNIONSTORE fresh{t} s{t}", "ZADD z{t} 1 a", "ZRANGESTORE fresh2{t} z{t} 0 -1"));
    }

    // ---------------------------------------------------------------- RESTORE, RENAME, COPY

    [Fact]
    public void RestoreReplace_OtherType_RestoreThenOverwrittenThenTypeChanged()
    {
        // DUMP and RESTORE inside one script keep the binary payload off the test's text client.
        const string script = "redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1]), 'REPLACE')";
        Same(["restore r{t}", "overwritten r{t}", "type_changed r{t}"],
            Events("Egoc", "SET src{t} v", "HSET r{t} f v", $"EVAL|{script}|2|src{{t}}|r{{t}}"));
        Same(["restore r{t}", "overwritten r{t}"],
            Events("Egoc", "SET src{t} v", "SET r{t} old", $"EVAL|{script}|2|src{{t}}|r{{t}}"));
        // Onto a missing key there is nothing to overwrite.
        Same(["restore r{t}"], Events("Egoc", "SET src{t} v", $"EVAL|{script}|2|src{{t}}|r{{t}}"));
    }

    [Fact]
    public void Rename_OntoExistingKey_AfterRenameTo()
    {
        Same(["rename_from x{t}", "rename_to hs{t}", "overwritten hs{t}", "type_changed hs{t}"],
            Events("Egoc", "HSET hs{t} f v", "SADD x{t} 1 2 3", "RENAME x{t} hs{t}"));
        Same(["rename_from x{t}", "rename_to y{t}", "overwritten y{t}"],
            Events("Egoc", "SET y{t} 1", "SET x{t} 2", "RENAME x{t} y{t}"));
        // RENAMENX never overwrites; RENAME onto a free name or onto itself overwrites nothing.
        Same(["rename_from x{t}", "rename_to z{t}"],
            Events("Egoc", "SET y{t} 1", "SET x{t} 2", "RENAMENX x{t} y{t}", "RENAME x{t} z{t}", "RENAME z{t} z{t}"));
    }

    [Fact]
    public void Copy_Replace_AfterCopyTo_InTheDestinationDatabase()
    {
        Same(["copy_to l{t}", "overwritten l{t}", "type_changed l{t}"],
            Events("Egoc", "HSET hs{t} 1 2 3 4", "LPUSH l{t} 1 2 3 4", "COPY hs{t} l{t} REPLACE"));
        // Without REPLACE an existing destination stops COPY: nothing at all.
        Same([], Events("Egoc", "HSET hs{t} 1 2", "LPUSH l{t} 1", "COPY hs{t} l{t}"));
        // Into another database: the events name that database.
        Same(["db5 copy_to k", "db5 overwritten k", "db5 type_changed k"],
            Events("Egoc", "SELECT 5", "LPUSH k 1", "SELECT 13", "SET k v", "COPY k k DB 5 REPLACE"));
    }

    // ---------------------------------------------------------------- 7.0's events unchanged

    [RedisFact]
    public void Overwrites_WithoutTheNewClasses_SameEventsAsRedis70()
    {
        KeyspaceEvents.AssertSame(servers, "KEA",
        [
            "SET a 1", "SET a 2", "SET a 3 GET", "SETEX a 100 4", "GETSET a 5", "MSET a 6 b 7", "HSET h f v", "SET h x",
            "SADD s1 a", "SADD s2 b", "SET d x", "SUNIONSTORE d s1 s2", "RPUSH l 1", "SORT l STORE d",
            "SET r 1", "SET q 2", "RENAME q r", "SET c 1", "COPY r c REPLACE",
        ]);
    }
}
