using System.Text;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Hashes;

/// <summary>
/// Hash-field expiry as Redis 8.2 behaves (t_hash.c and its tests read for behaviour; no reference
/// server on this machine has these commands): HEXPIRE and friends, HTTL and friends, HPERSIST,
/// HGETEX, HSETEX, HGETDEL, HSCAN NOVALUES, the listpack order with TTLs, and lazy and active expiry.
/// Replies are compared byte for byte.
/// </summary>
public sealed class HashFieldExpiryTests
{
    private readonly string _p = "hfe:" + Guid.NewGuid().ToString("N")[..8] + ":";

    private static string Ints(params long[] values)
        => $"*{values.Length}\r\n" + string.Concat(values.Select(v => $":{v}\r\n"));

    private static string Bulks(params string?[] values)
        => $"*{values.Length}\r\n" + string.Concat(values.Select(v => v == null ? "$-1\r\n" : $"${Encoding.UTF8.GetByteCount(v)}\r\n{v}\r\n"));

    private static long[] ParseInts(string reply)
        => Regex.Matches(reply, @"^:(-?\d+)\r$", RegexOptions.Multiline).Select(m => long.Parse(m.Groups[1].Value)).ToArray();

    private static long NowMs => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();

    // ---------------------------------------------------------------- HEXPIRE family

    [Fact]
    public void HExpire_FieldsAndMissing_RepliesPerFieldAndSetsTtl()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "h";
        c.Call("HSET", h, "f1", "a", "f2", "b");
        Assert.Equal(Ints(1, 1, -2), c.Call("HEXPIRE", h, "100", "FIELDS", "3", "f1", "f2", "nope"));
        var ttl = ParseInts(c.Call("HTTL", h, "FIELDS", "2", "f1", "f2"));
        Assert.All(ttl, t => Assert.InRange(t, 99, 100));
        var pttl = ParseInts(c.Call("HPTTL", h, "FIELDS", "1", "f1"));
        Assert.InRange(pttl[0], 90_000, 100_000);
        long at = ParseInts(c.Call("HPEXPIRETIME", h, "FIELDS", "1", "f1"))[0];
        Assert.InRange(at, NowMs + 90_000, NowMs + 100_000);
        // HEXPIRETIME rounds up, as Redis's (expire + 999) / 1000.
        Assert.Equal(Ints((at + 999) / 1000), c.Call("HEXPIRETIME", h, "FIELDS", "1", "f1"));
        Assert.Equal(Ints(-2, -2), c.Call("HTTL", _p + "missing", "FIELDS", "2", "a", "b"));
        Assert.Equal(Ints(-2), c.Call("HEXPIRE", _p + "missing", "100", "FIELDS", "1", "a"));
        Assert.Equal(":2\r\n", c.Call("HLEN", h));
        Assert.Equal("$8\r\nlistpack\r\n", c.Call("OBJECT", "ENCODING", h));
    }

    [Fact]
    public void HExpire_AbsoluteForms_SetTheGivenTime()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "abs";
        c.Call("HSET", h, "f", "v", "g", "w");
        long atMs = NowMs + 500_000;
        Assert.Equal(Ints(1), c.Call("HPEXPIREAT", h, atMs.ToString(), "FIELDS", "1", "f"));
        Assert.Equal(Ints(atMs), c.Call("HPEXPIRETIME", h, "FIELDS", "1", "f"));
        long atS = NowMs / 1000 + 600;
        Assert.Equal(Ints(1), c.Call("HEXPIREAT", h, atS.ToString(), "FIELDS", "1", "g"));
        Assert.Equal(Ints(atS * 1000), c.Call("HPEXPIRETIME", h, "FIELDS", "1", "g"));
        Assert.Equal(Ints(atS), c.Call("HEXPIRETIME", h, "FIELDS", "1", "g"));
        Assert.Equal(Ints(1), c.Call("HPEXPIRE", h, "300000", "FIELDS", "1", "g"));
        Assert.InRange(ParseInts(c.Call("HPTTL", h, "FIELDS", "1", "g"))[0], 290_000, 300_000);
    }

    [Fact]
    public void HExpire_Conditions_NxXxGtLtAsRedis()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "cond";
        c.Call("HSET", h, "ttl", "v", "none", "v");
        c.Call("HEXPIRE", h, "100", "FIELDS", "1", "ttl");
        // NX: only fields without a TTL.
        Assert.Equal(Ints(0, 1), c.Call("HEXPIRE", h, "200", "NX", "FIELDS", "2", "ttl", "none"));
        c.Call("HPERSIST", h, "FIELDS", "1", "none");
        // XX: only fields with one.
        Assert.Equal(Ints(1, 0), c.Call("HEXPIRE", h, "200", "XX", "FIELDS", "2", "ttl", "none"));
        // GT: a field without a TTL never qualifies; a later time does.
        Assert.Equal(Ints(0, 0), c.Call("HEXPIRE", h, "150", "GT", "FIELDS", "2", "ttl", "none"));
        Assert.Equal(Ints(1), c.Call("hexpire", h, "300", "gt", "fields", "1", "ttl"));
        // LT: a field without a TTL counts as later than any time, so LT sets it.
        Assert.Equal(Ints(0, 1), c.Call("HEXPIRE", h, "400", "LT", "FIELDS", "2", "ttl", "none"));
        Assert.Equal(Ints(1, 0, -2), c.Call("HEXPIRE", h, "250", "LT", "FIELDS", "3", "ttl", "ttl", "nope"));
        var ttls = ParseInts(c.Call("HTTL", h, "FIELDS", "2", "ttl", "none"));
        Assert.InRange(ttls[0], 249, 250);
        Assert.InRange(ttls[1], 399, 400);
    }

    [Fact]
    public void HExpire_TimeInThePast_DeletesFieldsThenKey()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "past";
        c.Call("HSET", h, "a", "1", "b", "2", "c", "3");
        Assert.Equal(Ints(2, -2), c.Call("HEXPIRE", h, "0", "FIELDS", "2", "a", "nope"));
        Assert.Equal(Ints(2), c.Call("HPEXPIREAT", h, "1", "FIELDS", "1", "b"));
        Assert.Equal(":1\r\n", c.Call("HLEN", h));
        // A condition not met keeps even a past time from deleting.
        Assert.Equal(Ints(0), c.Call("HEXPIREAT", h, "1", "XX", "FIELDS", "1", "c"));
        Assert.Equal(Ints(2), c.Call("HEXPIREAT", h, "1", "FIELDS", "1", "c"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", h));

        // The epoch itself is a time in the past too (ioredis's suite checks it against Redis 8).
        c.Call("HSET", h, "a", "1", "b", "2", "c", "3");
        c.Call("HPEXPIRE", h, "100000", "FIELDS", "1", "c");
        Assert.Equal(Ints(2), c.Call("HPEXPIREAT", h, "0", "FIELDS", "1", "a"));
        Assert.Equal(Ints(2), c.Call("HEXPIREAT", h, "0", "FIELDS", "1", "b"));
        Assert.Equal(Ints(2), c.Call("HEXPIREAT", h, "0", "FIELDS", "1", "c"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", h));
        c.Call("HSET", h, "a", "1");
        Assert.Equal("*1\r\n$1\r\n1\r\n", c.Call("HGETEX", h, "PXAT", "0", "FIELDS", "1", "a"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", h));
    }

    [Fact]
    public void HExpire_BadArguments_RedisErrorsInItsOrder()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "err", s = _p + "str";
        c.Call("HSET", h, "f", "v");
        c.Call("SET", s, "x");
        Assert.StartsWith("-WRONGTYPE", c.Call("HEXPIRE", s, "abc", "FIELDS", "1", "f"));
        Assert.Equal("-ERR value is not an integer or out of range\r\n", c.Call("HEXPIRE", h, "abc", "FIELDS", "1", "f"));
        Assert.Equal("-ERR invalid expire time, must be >= 0\r\n", c.Call("HEXPIRE", h, "-1", "FIELDS", "1", "f"));
        Assert.Equal("-ERR invalid expire time in 'hexpire' command\r\n", c.Call("HEXPIRE", h, "70368744177", "FIELDS", "1", "f"));
        Assert.Equal("-ERR invalid expire time in 'hpexpire' command\r\n", c.Call("HPEXPIRE", h, "70368744177663", "FIELDS", "1", "f"));
        Assert.Equal("-ERR invalid expire time in 'hexpireat' command\r\n", c.Call("HEXPIREAT", h, "70368744178", "FIELDS", "1", "f"));
        Assert.Equal("-ERR invalid expire time in 'hpexpireat' command\r\n", c.Call("HPEXPIREAT", h, "70368744177664", "FIELDS", "1", "f"));
        // The largest time allowed (HFE_MAX_ABS_TIME_MSEC, 2^46 - 1 ms) is accepted.
        Assert.Equal(Ints(1), c.Call("HPEXPIREAT", h, "70368744177663", "FIELDS", "1", "f"));
        Assert.Equal(Ints(1), c.Call("HEXPIREAT", h, "70368744177", "FIELDS", "1", "f"));
        Assert.Equal("-ERR Mandatory argument FIELDS is missing or not at the right position\r\n", c.Call("HEXPIRE", h, "10", "FOO", "1", "f"));
        Assert.Equal("-ERR Mandatory argument FIELDS is missing or not at the right position\r\n", c.Call("HEXPIRE", h, "10", "NX", "XX", "FIELDS", "1", "f"));
        Assert.Equal("-ERR Parameter `numFields` should be greater than 0\r\n", c.Call("HEXPIRE", h, "10", "FIELDS", "0", "f"));
        Assert.Equal("-ERR Parameter `numFields` should be greater than 0\r\n", c.Call("HEXPIRE", h, "10", "FIELDS", "x", "f"));
        Assert.Equal("-ERR The `numfields` parameter must match the number of arguments\r\n", c.Call("HEXPIRE", h, "10", "FIELDS", "2", "f"));
        Assert.Equal("-ERR The `numfields` parameter must match the number of arguments\r\n", c.Call("HEXPIRE", h, "10", "NX", "FIELDS", "1"));
        Assert.Equal("-ERR wrong number of arguments for 'hexpire' command\r\n", c.Call("HEXPIRE", h, "10", "FIELDS", "1"));
        // The key is checked first, the time next: a missing key with a bad time is the time's error.
        Assert.Equal("-ERR invalid expire time, must be >= 0\r\n", c.Call("HEXPIRE", _p + "missing", "-5", "FIELDS", "1", "f"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    // ---------------------------------------------------------------- HTTL, HPERSIST

    [Fact]
    public void HTtlAndHPersist_ErrorsAndReplies_AsRedis()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "ttl";
        c.Call("HSET", h, "a", "1", "b", "2");
        c.Call("HEXPIRE", h, "100", "FIELDS", "1", "a");
        foreach (var cmd in new[] { "HTTL", "HPTTL", "HEXPIRETIME", "HPEXPIRETIME", "HPERSIST" })
        {
            Assert.Equal("-ERR Mandatory argument FIELDS is missing or not at the right position\r\n", c.Call(cmd, h, "FIELD", "1", "a"));
            Assert.Equal("-ERR Number of fields must be a positive integer\r\n", c.Call(cmd, h, "FIELDS", "0", "a"));
            Assert.Equal("-ERR Number of fields must be a positive integer\r\n", c.Call(cmd, h, "FIELDS", "-1", "a"));
            Assert.Equal("-ERR The `numfields` parameter must match the number of arguments\r\n", c.Call(cmd, h, "FIELDS", "3", "a", "b"));
            Assert.Equal($"-ERR wrong number of arguments for '{cmd.ToLowerInvariant()}' command\r\n", c.Call(cmd, h, "FIELDS", "1"));
            Assert.Equal(Ints(-2, -2), c.Call(cmd, _p + "nokey", "FIELDS", "2", "a", "b"));
        }
        Assert.Equal(Ints(-1, -2), c.Call("HTTL", h, "FIELDS", "2", "b", "c"));
        Assert.Equal(Ints(1, -1, -2), c.Call("HPERSIST", h, "FIELDS", "3", "a", "b", "c"));
        Assert.Equal(Ints(-1), c.Call("HPERSIST", h, "FIELDS", "1", "a"));
        Assert.Equal(Ints(-1, -1), c.Call("HTTL", h, "FIELDS", "2", "a", "b"));
        c.Call("SET", _p + "s", "x");
        Assert.StartsWith("-WRONGTYPE", c.Call("HTTL", _p + "s", "FIELDS", "1", "a"));
        Assert.StartsWith("-WRONGTYPE", c.Call("HPERSIST", _p + "s", "FIELDS", "1", "a"));
    }

    // ---------------------------------------------------------------- order and encodings

    [Fact]
    public void Listpack_FieldsWithTtlsFirstByTtl_AsRedisListpackEx()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "order";
        c.Call("HSET", h, "a", "1", "b", "2", "c", "3", "d", "4");
        long t = NowMs + 1_000_000;
        c.Call("HPEXPIREAT", h, (t + 5000).ToString(), "FIELDS", "1", "c");
        c.Call("HPEXPIREAT", h, t.ToString(), "FIELDS", "1", "d");
        Assert.Equal(Bulks("d", "4", "c", "3", "a", "1", "b", "2"), c.Call("HGETALL", h));
        // A field given the same time as another goes before it.
        c.Call("HPEXPIREAT", h, t.ToString(), "FIELDS", "1", "a");
        Assert.Equal(Bulks("a", "d", "c", "b"), c.Call("HKEYS", h));
        // Removing a TTL moves the field after every field with one, at the end.
        c.Call("HPERSIST", h, "FIELDS", "1", "d");
        Assert.Equal(Bulks("a", "c", "b", "d"), c.Call("HKEYS", h));
        // HSET on a field with a TTL removes it (the field moves last); HINCRBY keeps it and its place.
        c.Call("HSET", h, "a", "10");
        Assert.Equal(Bulks("c", "b", "d", "a"), c.Call("HKEYS", h));
        Assert.Equal(Ints(-1), c.Call("HTTL", h, "FIELDS", "1", "a"));
        Assert.Equal(":4\r\n", c.Call("HINCRBY", h, "c", "1"));
        Assert.Equal(Bulks("c", "b", "d", "a"), c.Call("HKEYS", h));
        Assert.Equal(Ints(t + 5000), c.Call("HPEXPIRETIME", h, "FIELDS", "1", "c"));
        Assert.Equal(Bulks("4", "2", "4", "10"), c.Call("HVALS", h));
        // A new field goes last; HSCAN of a listpack lists them in the same order.
        c.Call("HSET", h, "e", "5");
        Assert.Equal("*2\r\n$1\r\n0\r\n" + Bulks("c", "4", "b", "2", "d", "4", "a", "10", "e", "5"), c.Call("HSCAN", h, "0"));
        Assert.Equal("*2\r\n$1\r\n0\r\n" + Bulks("c", "b", "d", "a", "e"), c.Call("HSCAN", h, "0", "NOVALUES"));
        Assert.Equal("$8\r\nlistpack\r\n", c.Call("OBJECT", "ENCODING", h));
    }

    [Fact]
    public async Task Conversion_ToHashtable_KeepsEveryTtl()
    {
        // A server of its own: the encoding thresholds are server-wide and other tests change them.
        await using var server = TestServer.Start(1);
        using var c = server.Connect();
        c.Call("CONFIG", "SET", "hash-max-listpack-entries", "128");
        c.Call("CONFIG", "SET", "hash-max-listpack-value", "64");
        string h = _p + "conv";
        c.Call("HSET", h, "a", "1", "b", "2");
        long t = NowMs + 1_000_000;
        c.Call("HPEXPIREAT", h, t.ToString(), "FIELDS", "1", "a");
        var args = new List<string> { "HSET", h };
        for (int i = 0; i < 200; i++) args.AddRange(["x" + i, "v"]);
        c.Call(args.ToArray());
        Assert.Equal("$9\r\nhashtable\r\n", c.Call("OBJECT", "ENCODING", h));
        Assert.Equal(Ints(t, -1), c.Call("HPEXPIRETIME", h, "FIELDS", "2", "a", "b"));
        c.Call("HPEXPIREAT", h, (t + 1).ToString(), "FIELDS", "2", "x1", "x2");
        Assert.Equal(Ints(t, t + 1, t + 1, -1), c.Call("HPEXPIRETIME", h, "FIELDS", "4", "a", "x1", "x2", "x3"));
        // A long value converts at once, TTLs kept too.
        string h2 = _p + "conv2";
        c.Call("HSET", h2, "a", "1");
        c.Call("HPEXPIREAT", h2, t.ToString(), "FIELDS", "1", "a");
        c.Call("HSET", h2, "long", new string('x', 100));
        Assert.Equal("$9\r\nhashtable\r\n", c.Call("OBJECT", "ENCODING", h2));
        Assert.Equal(Ints(t), c.Call("HPEXPIRETIME", h2, "FIELDS", "1", "a"));
    }

    [Fact]
    public void HSetAndHIncrBy_OnFieldWithTtl_HSetClearsItHIncrKeepsIt()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "set";
        c.Call("HSET", h, "a", "1", "b", "2", "c", "3", "d", "1.5");
        c.Call("HEXPIRE", h, "100", "FIELDS", "4", "a", "b", "c", "d");
        c.Call("HSET", h, "a", "x");
        c.Call("HMSET", h, "b", "y");
        Assert.Equal(":6\r\n", c.Call("HINCRBY", h, "c", "3"));
        Assert.Equal("$3\r\n2.5\r\n", c.Call("HINCRBYFLOAT", h, "d", "1"));
        Assert.Equal(":0\r\n", c.Call("HSETNX", h, "c", "z"));
        var ttls = ParseInts(c.Call("HTTL", h, "FIELDS", "4", "a", "b", "c", "d"));
        Assert.Equal([-1L, -1L], ttls[..2]);
        Assert.All(ttls[2..], t => Assert.InRange(t, 99, 100));
    }

    // ---------------------------------------------------------------- HGETDEL, HGETEX, HSETEX

    [Fact]
    public void HGetDel_ReturnsAndRemoves_KeyGoesWhenEmpty()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "gd";
        c.Call("HSET", h, "a", "1", "b", "2", "c", "3");
        Assert.Equal(Bulks("1", null, "3"), c.Call("HGETDEL", h, "FIELDS", "3", "a", "nope", "c"));
        Assert.Equal(Bulks("b", "2"), c.Call("HGETALL", h));
        Assert.Equal(Bulks("2", null), c.Call("HGETDEL", h, "FIELDS", "2", "b", "b"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", h));
        Assert.Equal(Bulks(null, null), c.Call("HGETDEL", h, "FIELDS", "2", "a", "b"));
        Assert.Equal("-ERR Mandatory argument FIELDS is missing or not at the right position\r\n", c.Call("HGETDEL", h, "FIELD", "1", "a"));
        Assert.Equal("-ERR Number of fields must be a positive integer\r\n", c.Call("HGETDEL", h, "FIELDS", "0", "a"));
        Assert.Equal("-ERR The `numfields` parameter must match the number of arguments\r\n", c.Call("HGETDEL", h, "FIELDS", "2", "a"));
        Assert.Equal("-ERR wrong number of arguments for 'hgetdel' command\r\n", c.Call("HGETDEL", h, "FIELDS", "1"));
        c.Call("SET", _p + "s", "x");
        Assert.StartsWith("-WRONGTYPE", c.Call("HGETDEL", _p + "s", "FIELDS", "1", "a"));
    }

    [Fact]
    public void HGetEx_EveryOption_SetsOrRemovesTtlOfFoundFields()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "ge";
        c.Call("HSET", h, "a", "1", "b", "2", "c", "3");
        Assert.Equal(Bulks("1", "2"), c.Call("HGETEX", h, "FIELDS", "2", "a", "b"));
        Assert.Equal(Ints(-1, -1), c.Call("HTTL", h, "FIELDS", "2", "a", "b"));
        Assert.Equal(Bulks("1", null), c.Call("HGETEX", h, "EX", "100", "FIELDS", "2", "a", "nope"));
        Assert.InRange(ParseInts(c.Call("HTTL", h, "FIELDS", "1", "a"))[0], 99, 100);
        Assert.Equal(Bulks("2"), c.Call("HGETEX", h, "PX", "200000", "FIELDS", "1", "b"));
        Assert.InRange(ParseInts(c.Call("HPTTL", h, "FIELDS", "1", "b"))[0], 190_000, 200_000);
        long atS = NowMs / 1000 + 300;
        Assert.Equal(Bulks("3"), c.Call("HGETEX", h, "EXAT", atS.ToString(), "FIELDS", "1", "c"));
        Assert.Equal(Ints(atS), c.Call("HEXPIRETIME", h, "FIELDS", "1", "c"));
        long atMs = NowMs + 400_000;
        Assert.Equal(Bulks("3"), c.Call("HGETEX", h, "PXAT", atMs.ToString(), "FIELDS", "1", "c"));
        Assert.Equal(Ints(atMs), c.Call("HPEXPIRETIME", h, "FIELDS", "1", "c"));
        Assert.Equal(Bulks("1", "2"), c.Call("HGETEX", h, "PERSIST", "FIELDS", "2", "a", "b"));
        Assert.Equal(Ints(-1, -1), c.Call("HTTL", h, "FIELDS", "2", "a", "b"));
        // A time in the past deletes the fields it names (and the key with the last one).
        Assert.Equal(Bulks("1", "2"), c.Call("HGETEX", h, "EX", "0", "FIELDS", "2", "a", "b"));
        Assert.Equal(Bulks("c"), c.Call("HKEYS", h));
        Assert.Equal(Bulks("3"), c.Call("HGETEX", h, "PXAT", "1", "FIELDS", "1", "c"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", h));
        Assert.Equal(Bulks(null, null), c.Call("HGETEX", h, "EX", "10", "FIELDS", "2", "a", "b"));
    }

    [Fact]
    public void HGetEx_BadArguments_RedisErrors()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "gex";
        c.Call("HSET", h, "a", "1");
        Assert.Equal("-ERR value is not an integer or out of range\r\n", c.Call("HGETEX", h, "EX", "x", "FIELDS", "1", "a"));
        Assert.Equal("-ERR invalid expire time, must be >= 0\r\n", c.Call("HGETEX", h, "PX", "-1", "FIELDS", "1", "a"));
        Assert.Equal("-ERR invalid expire time in 'hgetex' command\r\n", c.Call("HGETEX", h, "EXAT", "70368744178", "FIELDS", "1", "a"));
        Assert.Equal("-ERR Mandatory argument FIELDS is missing or not at the right position\r\n", c.Call("HGETEX", h, "KEEPTTL", "FIELDS", "1", "a"));
        Assert.Equal("-ERR Mandatory argument FIELDS is missing or not at the right position\r\n", c.Call("HGETEX", h, "EX", "10", "1", "a"));
        Assert.Equal("-ERR Number of fields must be a positive integer\r\n", c.Call("HGETEX", h, "PERSIST", "FIELDS", "0", "a"));
        Assert.Equal("-ERR The `numfields` parameter must match the number of arguments\r\n", c.Call("HGETEX", h, "FIELDS", "2", "a"));
        Assert.Equal("-ERR wrong number of arguments for 'hgetex' command\r\n", c.Call("HGETEX", h, "EX", "10", "FIELDS"));
        Assert.Equal("+PONG\r\n", c.Call("PING"));
    }

    [Fact]
    public void HSetEx_ConditionsAndTimes_AsRedis()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "se";
        Assert.Equal(":0\r\n", c.Call("HSETEX", h, "FXX", "FIELDS", "1", "a", "1"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", h));
        Assert.Equal(":1\r\n", c.Call("HSETEX", h, "FNX", "EX", "100", "FIELDS", "2", "a", "1", "b", "2"));
        Assert.InRange(ParseInts(c.Call("HTTL", h, "FIELDS", "1", "a"))[0], 99, 100);
        Assert.Equal(":0\r\n", c.Call("HSETEX", h, "FNX", "FIELDS", "2", "c", "3", "a", "x"));
        Assert.Equal(Bulks("1", null), c.Call("HMGET", h, "a", "c"));
        Assert.Equal(":0\r\n", c.Call("HSETEX", h, "FXX", "FIELDS", "2", "a", "x", "c", "3"));
        // KEEPTTL keeps a field's TTL; no option removes it.
        Assert.Equal(":1\r\n", c.Call("HSETEX", h, "FXX", "KEEPTTL", "FIELDS", "1", "a", "k"));
        Assert.InRange(ParseInts(c.Call("HTTL", h, "FIELDS", "1", "a"))[0], 99, 100);
        Assert.Equal(":1\r\n", c.Call("HSETEX", h, "FIELDS", "1", "a", "n"));
        Assert.Equal(Ints(-1), c.Call("HTTL", h, "FIELDS", "1", "a"));
        long atMs = NowMs + 500_000;
        Assert.Equal(":1\r\n", c.Call("HSETEX", h, "PXAT", atMs.ToString(), "FIELDS", "1", "c", "3"));
        Assert.Equal(Ints(atMs), c.Call("HPEXPIRETIME", h, "FIELDS", "1", "c"));
        long atS = NowMs / 1000 + 700;
        Assert.Equal(":1\r\n", c.Call("HSETEX", h, "EXAT", atS.ToString(), "FIELDS", "1", "c", "3"));
        Assert.Equal(Ints(atS), c.Call("HEXPIRETIME", h, "FIELDS", "1", "c"));
        Assert.Equal(":1\r\n", c.Call("HSETEX", h, "PX", "800000", "FIELDS", "1", "c", "3"));
        Assert.InRange(ParseInts(c.Call("HPTTL", h, "FIELDS", "1", "c"))[0], 790_000, 800_000);
        // A time in the past: the fields are set and gone at once (the key with them).
        Assert.Equal(":1\r\n", c.Call("HSETEX", h, "EX", "0", "FIELDS", "3", "a", "1", "b", "2", "c", "3"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", h));
    }

    [Fact]
    public void HSetEx_BadArguments_RedisErrors()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "sex";
        Assert.Equal("-ERR Only one of FXX or FNX arguments can be specified\r\n", c.Call("HSETEX", h, "FNX", "FXX", "FIELDS", "1", "a", "1"));
        Assert.Equal("-ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified\r\n", c.Call("HSETEX", h, "EX", "1", "PX", "1", "FIELDS", "1", "a", "1"));
        Assert.Equal("-ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified\r\n", c.Call("HSETEX", h, "KEEPTTL", "EX", "1", "FIELDS", "1", "a", "1"));
        Assert.Equal("-ERR unknown argument: BAD\r\n", c.Call("HSETEX", h, "BAD", "FIELDS", "1", "a", "1"));
        Assert.Equal("-ERR invalid number of fields\r\n", c.Call("HSETEX", h, "FIELDS", "0", "a", "1"));
        Assert.Equal("-ERR invalid number of fields\r\n", c.Call("HSETEX", h, "FIELDS", "x", "a", "1"));
        Assert.Equal("-ERR wrong number of arguments for 'hsetex' command\r\n", c.Call("HSETEX", h, "FIELDS", "2", "a", "1"));
        Assert.Equal("-ERR wrong number of arguments for 'hsetex' command\r\n", c.Call("HSETEX", h, "FIELDS", "1", "a", "1", "b"));
        Assert.Equal("-ERR wrong number of arguments for 'hsetex' command\r\n", c.Call("HSETEX", h, "EX", "10", "FIELDS", "1", "a"));
        Assert.Equal("-ERR invalid expire time, must be >= 0\r\n", c.Call("HSETEX", h, "EX", "-1", "FIELDS", "1", "a", "1"));
        Assert.Equal("-ERR invalid expire time in 'hsetex' command\r\n", c.Call("HSETEX", h, "PXAT", "70368744177664", "FIELDS", "1", "a", "1"));
        Assert.Equal("-ERR value is not an integer or out of range\r\n", c.Call("HSETEX", h, "EX", "ten", "FIELDS", "1", "a", "1"));
        Assert.Equal("-ERR wrong number of arguments for 'hsetex' command\r\n", c.Call("HSETEX", h, "FIELDS", "1", "a"));
        c.Call("SET", _p + "s", "x");
        Assert.StartsWith("-WRONGTYPE", c.Call("HSETEX", _p + "s", "FIELDS", "1", "a", "1"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", h));
    }

    // ---------------------------------------------------------------- HSCAN NOVALUES

    [Fact]
    public void HScan_NoValues_FieldsOnlyInBothEncodings()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "scan";
        c.Call("HSET", h, "a", "1", "b", "2");
        Assert.Equal("*2\r\n$1\r\n0\r\n" + Bulks("a", "b"), c.Call("HSCAN", h, "0", "NOVALUES"));
        Assert.Equal("*2\r\n$1\r\n0\r\n" + Bulks("b"), c.Call("HSCAN", h, "0", "MATCH", "b*", "NOVALUES", "COUNT", "5"));
        var args = new List<string> { "HSET", h };
        for (int i = 0; i < 300; i++) args.AddRange(["f" + i, "v" + i]);
        c.Call(args.ToArray());
        var seen = new HashSet<string>();
        string cursor = "0";
        for (int round = 0; round < 1000; round++)
        {
            var reply = (List<object?>)Keys.KeyReplies.Parse(c.Call("HSCAN", h, cursor, "NOVALUES", "COUNT", "50"))!;
            cursor = (string)reply[0]!;
            foreach (var f in (List<object?>)reply[1]!) Assert.True(seen.Add((string)f!), $"{f} twice");
            if (cursor == "0") break;
        }
        Assert.Equal(302, seen.Count);
        Assert.DoesNotContain("v1", seen);
    }

    // ---------------------------------------------------------------- lazy expiry

    [Fact]
    public async Task LazyExpiry_ExpiredFieldsInvisibleToReads_HLenCountsUntilRemoved()
    {
        await using var server = TestServer.Start(2, "--enable-debug-command", "yes");
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
        c.Call("HSET", "h", "a", "1", "b", "2", "c", "3", "n", "7");
        c.Call("HPEXPIRE", "h", "1", "FIELDS", "3", "a", "c", "n");
        Eventually.Wait(() => c.Call("HPTTL", "h", "FIELDS", "1", "a") == Ints(-2), () => "a expires");
        // Walks skip them; HLEN counts them while stored, as Redis's hashTypeLength(o, 0).
        Assert.Equal(":4\r\n", c.Call("HLEN", "h"));
        Assert.Equal(Bulks("b", "2"), c.Call("HGETALL", "h"));
        Assert.Equal(Bulks("b"), c.Call("HKEYS", "h"));
        Assert.Equal(Bulks("2"), c.Call("HVALS", "h"));
        Assert.Equal("*2\r\n$1\r\n0\r\n" + Bulks("b", "2"), c.Call("HSCAN", "h", "0"));
        Assert.Equal(Ints(-2, -2), c.Call("HPERSIST", "h", "FIELDS", "2", "a", "c"));
        Assert.Equal(":4\r\n", c.Call("HLEN", "h"));
        // Lookups by name remove what they find expired.
        Assert.Equal("$-1\r\n", c.Call("HGET", "h", "a"));
        Assert.Equal(":3\r\n", c.Call("HLEN", "h"));
        Assert.Equal(":0\r\n", c.Call("HEXISTS", "h", "c"));
        Assert.Equal(":0\r\n", c.Call("HSTRLEN", "h", "c"));
        Assert.Equal(":2\r\n", c.Call("HLEN", "h"));
        // HINCRBY on an expired field starts from 0 (without a TTL).
        Assert.Equal(":5\r\n", c.Call("HINCRBY", "h", "n", "5"));
        Assert.Equal(Ints(-1), c.Call("HTTL", "h", "FIELDS", "1", "n"));
        Assert.Equal(Bulks("2", "5"), c.Call("HMGET", "h", "b", "n"));
        // The last field going takes the key.
        c.Call("HPEXPIRE", "h", "1", "FIELDS", "2", "b", "n");
        Eventually.Wait(() => c.Call("HPTTL", "h", "FIELDS", "1", "b") == Ints(-2), () => "b expires");
        Assert.Equal(":1\r\n", c.Call("EXISTS", "h"));
        Assert.Equal(Bulks(null, null, null), c.Call("HMGET", "h", "b", "n", "x"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", "h"));
        // HRANDFIELD removes every expired field first.
        c.Call("HSET", "r", "a", "1", "b", "2");
        c.Call("HPEXPIRE", "r", "1", "FIELDS", "1", "a");
        Eventually.Wait(() => c.Call("HPTTL", "r", "FIELDS", "1", "a") == Ints(-2), () => "a expires");
        Assert.Equal("$1\r\nb\r\n", c.Call("HRANDFIELD", "r"));
        Assert.Equal(":1\r\n", c.Call("HLEN", "r"));
        Assert.Equal(Bulks("b", "2"), c.Call("HRANDFIELD", "r", "5", "WITHVALUES"));
        // SORT ... GET hash->field hides an expired field.
        c.Call("HSET", "w_1", "x", "one");
        c.Call("HPEXPIRE", "w_1", "1", "FIELDS", "1", "x");
        c.Call("RPUSH", "l", "1");
        Eventually.Wait(() => c.Call("HPTTL", "w_1", "FIELDS", "1", "x") == Ints(-2), () => "x expires");
        Assert.Equal(Bulks((string?)null), c.Call("SORT", "l", "GET", "w_*->x"));
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "1"));
    }

    // ---------------------------------------------------------------- active expiry

    [Fact]
    public async Task ActiveExpiry_ManyFieldsExpiringTogether_HashRemovedAndCounted()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        var args = new List<string> { "HSET", "big" };
        for (int i = 0; i < 5000; i++) args.AddRange(["f" + i, "v"]);
        c.Call(args.ToArray());
        c.Call("HSET", "small", "a", "1", "keep", "2");
        var expire = new List<string> { "HPEXPIRE", "big", "200", "FIELDS", "5000" };
        for (int i = 0; i < 5000; i++) expire.Add("f" + i);
        Assert.Equal(Ints(Enumerable.Repeat(1L, 5000).ToArray()), c.Call(expire.ToArray()));
        c.Call("HPEXPIRE", "small", "200", "FIELDS", "1", "a");
        Assert.Matches(@"db0:keys=2,expires=0,avg_ttl=0,subexpiry=2\r\n", c.Call("INFO", "keyspace"));
        Eventually.Wait(() => c.Call("EXISTS", "big") == ":0\r\n" && c.Call("HLEN", "small") == ":1\r\n",
            () => $"big {c.Call("HLEN", "big")} small {c.Call("HLEN", "small")}", seconds: 30);
        Assert.Contains("expired_subkeys:5001\r\n", c.Call("INFO", "stats"));
        Assert.Matches(@"db0:keys=1,expires=0,avg_ttl=0,subexpiry=0\r\n", c.Call("INFO", "keyspace"));
        Assert.Equal(Bulks("keep", "2"), c.Call("HGETALL", "small"));
    }

    // ---------------------------------------------------------------- MULTI, keys commands

    [Fact]
    public void MultiExec_FieldExpiryCommands_RunQueued()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "multi";
        c.Call("HSET", h, "a", "1");
        Assert.Equal("+OK\r\n", c.Call("MULTI"));
        Assert.Equal("+QUEUED\r\n", c.Call("HEXPIRE", h, "100", "FIELDS", "1", "a"));
        Assert.Equal("+QUEUED\r\n", c.Call("HTTL", h, "FIELDS", "1", "a"));
        Assert.Equal("+QUEUED\r\n", c.Call("HPERSIST", h, "FIELDS", "1", "a"));
        Assert.Equal("+QUEUED\r\n", c.Call("HGETDEL", h, "FIELDS", "1", "a"));
        Assert.Equal("*4\r\n" + Ints(1) + Ints(100) + Ints(1) + Bulks("1"), c.Call("EXEC"));
        Assert.Equal("-ERR wrong number of arguments for 'httl' command\r\n", c.Call("HTTL", h, "FIELDS", "1"));
    }

    [Fact]
    public void KeyCommands_RenameCopyRestore_KeepFieldTtlsAndExpire()
    {
        using var c = TestServer.Shared.Connect();
        string h = _p + "{k}h", r = _p + "{k}r", cp = _p + "{k}cp";
        c.Call("HSET", h, "a", "1", "b", "2");
        long at = NowMs + 900_000;
        c.Call("HPEXPIREAT", h, at.ToString(), "FIELDS", "1", "a");
        Assert.Equal("+OK\r\n", c.Call("RENAME", h, r));
        Assert.Equal(Ints(at, -1), c.Call("HPEXPIRETIME", r, "FIELDS", "2", "a", "b"));
        Assert.Equal(":1\r\n", c.Call("COPY", r, cp));
        Assert.Equal(Ints(at), c.Call("HPEXPIRETIME", cp, "FIELDS", "1", "a"));
        Assert.Equal(Bulks("a", "b"), c.Call("HKEYS", cp));
    }

    [Fact]
    public void CommandInfo_NewCommands_ArityFlagsAndKeys()
    {
        using var c = TestServer.Shared.Connect();
        string info = c.Call("COMMAND", "INFO", "hexpire", "httl", "hpersist", "hgetdel", "hgetex", "hsetex");
        Assert.StartsWith("*6\r\n*10\r\n$7\r\nhexpire\r\n:-6\r\n*3\r\n+write\r\n+denyoom\r\n+fast\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@write\r\n+@hash\r\n+@fast\r\n", info);
        Assert.Contains("$4\r\nhttl\r\n:-5\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@read\r\n+@hash\r\n+@fast\r\n", info);
        Assert.Contains("$7\r\nhgetdel\r\n:-5\r\n*2\r\n+write\r\n+fast\r\n", info);
        Assert.Contains("$6\r\nhsetex\r\n:-6\r\n*3\r\n+write\r\n+denyoom\r\n+fast\r\n", info);
        Assert.Equal("*1\r\n$1\r\nh\r\n", c.Call("COMMAND", "GETKEYS", "HSETEX", "h", "FIELDS", "1", "a", "b"));
    }
}
