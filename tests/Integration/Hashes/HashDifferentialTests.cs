using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Hashes;

/// <summary>
/// The hash family against redis-server, byte for byte: every command, option and error. Small
/// hashes are listpacks on both sides, whose order is defined (insertion order), so their replies
/// are compared exactly; hashtable-encoded hashes go through <see cref="HashDifferential"/>, which
/// compares them as sorted sets.
/// </summary>
public class HashDifferentialTests
{
    private static readonly string Long65 = new('x', 65);
    private static readonly string Long64 = new('y', 64);

    [RedisFact]
    public void HSet_PairsArityAndOrder_MatchRedis() => Differential.AssertSame(
        "HSET h",
        "HSET h a",
        "HSET h a b c",
        "HMSET h a b c",
        "HMSET h a",
        "HSET h a 1 b 2 a 3",
        "HGETALL h",
        "HSET h b 20 c 30",
        "HMSET h d 4 a 10",
        "HGETALL h",
        "HKEYS h",
        "HVALS h",
        "HLEN h",
        "HSETNX h a x",
        "HSETNX h e 5",
        "HSETNX h2 f v",
        "HGETALL h",
        "HGETALL h2",
        "TYPE h",
        "OBJECT ENCODING h",
        "EXISTS h");

    [RedisFact]
    public void HSet_EmptyAndBinaryStrings_MatchRedis() => Differential.AssertSame(
        ["HSET", "h", "", ""],
        ["HSET", "h", "a b", "c\r\nd"],
        ["HGET", "h", ""],
        ["HGET", "h", "a b"],
        ["HSTRLEN", "h", "a b"],
        ["HSTRLEN", "h", ""],
        ["HEXISTS", "h", ""],
        ["HGETALL", "h"],
        ["HDEL", "h", ""],
        ["HGETALL", "h"]);

    [RedisFact]
    public void Reads_MissingKeyAndFields_MatchRedis() => Differential.AssertSame(
        "HGET nokey a",
        "HMGET nokey a b",
        "HGETALL nokey",
        "HKEYS nokey",
        "HVALS nokey",
        "HLEN nokey",
        "HEXISTS nokey a",
        "HSTRLEN nokey a",
        "HDEL nokey a",
        "HSET h a 1",
        "HGET h b",
        "HMGET h b a b",
        "HEXISTS h b",
        "HSTRLEN h b",
        "HDEL h b c",
        "EXISTS nokey");

    [RedisFact]
    public void AllCommands_WrongType_MatchRedis() => Differential.AssertSame(
        "SET s x",
        "HSET s a 1",
        "HSET s a",
        "HMSET s a 1",
        "HSETNX s a 1",
        "HGET s a",
        "HMGET s a",
        "HGETALL s",
        "HKEYS s",
        "HVALS s",
        "HLEN s",
        "HEXISTS s a",
        "HDEL s a",
        "HSTRLEN s a",
        "HINCRBY s a 1",
        "HINCRBY s a x",
        "HINCRBYFLOAT s a 1",
        "HINCRBYFLOAT s a x",
        "HINCRBYFLOAT s a inf",
        "HRANDFIELD s",
        "HRANDFIELD s 0",
        "HRANDFIELD s -3 WITHVALUES",
        "HRANDFIELD s x",
        "HRANDFIELD s 1 WITHVALUE",
        "HSCAN s 0",
        "HSCAN s x",
        "HSCAN s 0 COUNT 0",
        "GET s",
        "HSET h a 1",
        "GET h",
        "INCR h",
        "APPEND h x");

    [RedisFact]
    public void HDel_LastField_DeletesKey() => Differential.AssertSame(
        "HSET h a 1 b 2 c 3",
        "HDEL h a a",
        "HDEL h b c d",
        "EXISTS h",
        "HLEN h",
        "HSET h a 1",
        "HDEL h a",
        "TYPE h");

    [RedisFact]
    public void HIncrBy_OverflowAndBadValues_MatchRedis() => Differential.AssertSame(
        "HINCRBY h a 5",
        "HINCRBY h a -10",
        "HINCRBY h a x",
        "HINCRBY h a 1.5",
        "HINCRBY h a 99999999999999999999",
        "HINCRBY h a ' 1'",
        "HSET h s abc",
        "HINCRBY h s 1",
        "HSET h sp ' 1'",
        "HINCRBY h sp 1",
        "HSET h lead 01",
        "HINCRBY h lead 1",
        "HSET h big 9223372036854775807",
        "HINCRBY h big 1",
        "HINCRBY h big 0",
        "HINCRBY h big -1",
        "HSET h small -9223372036854775808",
        "HINCRBY h small -1",
        "HINCRBY h small 9223372036854775807",
        "HINCRBY h fresh -9223372036854775808",
        "HINCRBY h fresh -1",
        "HINCRBY nokey a x",
        "EXISTS nokey",
        "HINCRBY new a 7",
        "HGETALL h",
        "HGETALL new");

    [RedisFact]
    public void HIncrByFloat_LongDoubleAndErrors_MatchRedis() => Differential.AssertSame(
        "HINCRBYFLOAT h a 1.5",
        "HINCRBYFLOAT h a 0.1",
        "HINCRBYFLOAT h a -1.6",
        "HINCRBYFLOAT h a 1e-5",
        "HINCRBYFLOAT h b 0.3333333333333333333",
        "HINCRBYFLOAT h b 1",
        "HINCRBYFLOAT h c 0x10",
        "HINCRBYFLOAT h c 5.0e3",
        "HINCRBYFLOAT h c nan",
        "HINCRBYFLOAT h c inf",
        "HINCRBYFLOAT h c -inf",
        "HINCRBYFLOAT h c abc",
        "HINCRBYFLOAT h c 1e",
        "HINCRBYFLOAT h c ''",
        "HSET h s abc",
        "HINCRBYFLOAT h s 1",
        "HSET h i inf",
        "HINCRBYFLOAT h i 1",
        "HSET h huge 1e1000000",
        "HINCRBYFLOAT h huge 1",
        "HSET h max 1.7976931348623157e308",
        "HINCRBYFLOAT h max 1.7976931348623157e308",
        "HINCRBYFLOAT h big 1e4000",
        "HINCRBYFLOAT h big 1e4000",
        "HSET h int 9223372036854775807",
        "HINCRBYFLOAT h int 1",
        "HINCRBYFLOAT h neg -0.0",
        "HINCRBYFLOAT nokey a inf",
        "EXISTS nokey",
        "HGET h a",
        "HGET h b",
        "HSTRLEN h big",
        "OBJECT ENCODING h");

    [RedisFact]
    public void Encoding_Thresholds_MatchRedis() => Differential.AssertSame(
        "HSET a f1 v1 f2 v2",
        "OBJECT ENCODING a",
        $"HINCRBY a {Long65} 1",
        "OBJECT ENCODING a",
        "HSET b f1 1",
        "HINCRBYFLOAT b f1 1e60",
        "OBJECT ENCODING b",
        "HINCRBYFLOAT b f1 1e70",
        "OBJECT ENCODING b",
        $"HSET d f1 {Long64}",
        "OBJECT ENCODING d",
        $"HSETNX d f1 {Long65}",
        "OBJECT ENCODING d",
        $"HSETNX d {Long65} v",
        "OBJECT ENCODING d",
        "HSET e f1 v1",
        $"HMSET e f1 {Long65}",
        "OBJECT ENCODING e",
        "HSET g f v",
        $"HMGET g f {Long65}",
        $"HDEL g {Long65}",
        "OBJECT ENCODING g",
        $"HSET g2 a 1 {Long65} 2",
        "OBJECT ENCODING g2",
        "CONFIG SET hash-max-listpack-entries 0",
        "HSET z a b",
        "OBJECT ENCODING z",
        "HSETNX z2 a b",
        "OBJECT ENCODING z2",
        "HINCRBY z3 a 1",
        "OBJECT ENCODING z3",
        "HINCRBYFLOAT z4 a 1",
        "OBJECT ENCODING z4",
        "CONFIG SET hash-max-listpack-entries 2",
        "HSET y a 1 b 2",
        "OBJECT ENCODING y",
        "HSET y a 1 b 2 c 3",
        "OBJECT ENCODING y",
        "HSET w a 1 b 2",
        "HDEL w a",
        "HSET w c 1",
        "OBJECT ENCODING w",
        "HGETALL w",
        "HSET w d 1",
        "OBJECT ENCODING w",
        "HDEL w b c",
        "OBJECT ENCODING w",
        "CONFIG SET hash-max-listpack-entries 512",
        "HSET lv abcdef 1 ab 1",
        "CONFIG SET hash-max-listpack-value 2",
        "HINCRBY lv ab 1",
        "OBJECT ENCODING lv",
        "HINCRBY lv abcdef 1",
        "OBJECT ENCODING lv",
        "HSET lw ab 1",
        "OBJECT ENCODING lw",
        "HSET lw2 ab 123",
        "OBJECT ENCODING lw2",
        "CONFIG SET hash-max-listpack-value 64",
        "COPY y ycopy",
        "OBJECT ENCODING ycopy",
        "COPY g gcopy",
        "OBJECT ENCODING gcopy",
        "HGETALL gcopy");

    [RedisFact]
    public void HRandField_ErrorsAndWholeListpack_MatchRedis() => HashDifferential.AssertSameOrdered(
        "HRANDFIELD nokey",
        "HRANDFIELD nokey 5",
        "HRANDFIELD nokey -5 WITHVALUES",
        "HRANDFIELD nokey x",
        "HSET h z 1 y 2 x 3 w 4",
        "HRANDFIELD h -9223372036854775808",
        "HRANDFIELD h -9223372036854775807 WITHVALUES",
        "HRANDFIELD h 4611686018427387904 WITHVALUES",
        "HRANDFIELD h -4611686018427387905 WITHVALUES",
        "HRANDFIELD h 0",
        "HRANDFIELD h 0 WITHVALUES",
        "HRANDFIELD h 1 WITHVALUE",
        "HRANDFIELD h 1 WITHVALUES x",
        "HRANDFIELD h 1.5",
        "HRANDFIELD h 4",
        "HRANDFIELD h 10 WITHVALUES",
        "HRANDFIELD h 9223372036854775807",
        "HRANDFIELD h 4611686018427387903 WITHVALUES",
        "HDEL h y",
        "HSET h v 5",
        "HRANDFIELD h 100 withvalues",
        "HSET one only 1",
        "HRANDFIELD one",
        "HRANDFIELD one 1",
        "HRANDFIELD one -3",
        "HRANDFIELD one -2 WITHVALUES",
        "HELLO 3",
        "HRANDFIELD nokey",
        "HRANDFIELD h 10 WITHVALUES",
        "HRANDFIELD one -2 WITHVALUES",
        "HRANDFIELD one 1 WITHVALUES",
        "HGETALL h",
        "HGETALL nokey",
        "HMGET h z nope",
        "HSCAN h 0",
        "HSCAN* h",
        "HELLO 2");

    [RedisFact]
    public void HScan_ListpackAndErrors_MatchRedis() => Differential.AssertSame(
        "HSCAN nokey 0",
        "HSCAN nokey x",
        "HSCAN nokey 0 COUNT 0",
        "HSET h z 1 y 2 x 3 w 4 xy 5",
        "HSCAN h 0",
        "HSCAN h 77",
        "HSCAN h -1",
        "HSCAN h ''",
        "HSCAN h abc",
        "HSCAN h 18446744073709551616",
        "HSCAN h 0 MATCH x*",
        "HSCAN h 0 match [wy] count 1",
        "HSCAN h 0 MATCH *",
        "HSCAN h 0 COUNT 0",
        "HSCAN h 0 COUNT -1",
        "HSCAN h 0 COUNT x",
        "HSCAN h 0 COUNT",
        "HSCAN h 0 MATCH",
        "HSCAN h 0 TYPE string",
        "HSCAN h 0 FOO bar");

    [RedisFact]
    public void Hashtable_ContentsAndScan_MatchRedisUnordered()
    {
        var script = new List<string[]>();
        var pairs = new List<string> { "HSET", "big" };
        for (int i = 0; i < 700; i++) pairs.AddRange(["field:" + i, "value:" + (i * 7)]);
        script.Add(pairs.ToArray());
        script.Add(["OBJECT", "ENCODING", "big"]);
        script.Add(["HLEN", "big"]);
        script.Add(["HGETALL", "big"]);
        script.Add(["HKEYS", "big"]);
        script.Add(["HVALS", "big"]);
        script.Add(["HSCAN*", "big"]);
        script.Add(["HSCAN*", "big", "COUNT", "7"]);
        script.Add(["HSCAN*", "big", "MATCH", "field:1*", "COUNT", "3"]);
        for (int i = 0; i < 700; i += 3) script.Add(["HDEL", "big", "field:" + i]);
        script.Add(["HINCRBY", "big", "field:1", "5"]);
        script.Add(["HINCRBYFLOAT", "big", "field:2", "0.5"]);
        script.Add(["HSETNX", "big", "field:0", "back"]);
        script.Add(["HSETNX", "big", "field:1", "no"]);
        script.Add(["HMGET", "big", "field:0", "field:3", "field:4"]);
        script.Add(["HSTRLEN", "big", "field:2"]);
        script.Add(["HGETALL", "big"]);
        script.Add(["HSCAN*", "big", "COUNT", "50"]);
        script.Add(["HRANDFIELD", "big", "0"]);
        script.Add(["OBJECT", "ENCODING", "big"]);
        for (int i = 0; i < 700; i++) script.Add(["HDEL", "big", "field:" + i]);
        script.Add(["EXISTS", "big"]);
        HashDifferential.AssertSameUnordered(script.ToArray());
    }

    /// <summary>Random operations on small hashes: all stay listpacks, so every reply must match exactly.</summary>
    [RedisFact]
    public void RandomOperations_Listpack_MatchRedisExactly()
    {
        foreach (int seed in new[] { 1, 2, 3 })
            Differential.AssertSame(RandomScript(seed, 400, fieldCount: 12).ToArray());
    }

    /// <summary>Random operations with low thresholds, so hashes convert mid-way; unordered replies compared sorted.</summary>
    [RedisFact]
    public void RandomOperations_Converting_MatchRedisUnordered()
    {
        foreach (int seed in new[] { 11, 12 })
        {
            var script = new List<string[]>
            {
                new[] { "CONFIG", "SET", "hash-max-listpack-entries", "6" },
                new[] { "CONFIG", "SET", "hash-max-listpack-value", "8" },
            };
            script.AddRange(RandomScript(seed, 400, fieldCount: 14));
            script.Add(["CONFIG", "SET", "hash-max-listpack-entries", "512"]);
            script.Add(["CONFIG", "SET", "hash-max-listpack-value", "64"]);
            HashDifferential.AssertSameUnordered(script.ToArray());
        }
    }

    private static IEnumerable<string[]> RandomScript(int seed, int steps, int fieldCount)
    {
        var random = new Random(seed);
        string Key() => "k" + random.Next(3);
        string Field() => random.Next(8) == 0 ? "long-field-name-" + random.Next(fieldCount) : "f" + random.Next(fieldCount);
        string Value() => random.Next(4) switch
        {
            0 => random.Next(-100, 100).ToString(),
            1 => "v" + random.Next(1000),
            2 => (random.NextDouble() * 100).ToString("R", System.Globalization.CultureInfo.InvariantCulture),
            _ => new string('z', random.Next(0, 12)),
        };
        for (int i = 0; i < steps; i++)
        {
            string key = Key();
            yield return random.Next(14) switch
            {
                0 => ["HSET", key, Field(), Value(), Field(), Value()],
                1 => ["HSET", key, Field(), Value()],
                2 => ["HSETNX", key, Field(), Value()],
                3 => ["HDEL", key, Field(), Field()],
                4 => ["HGET", key, Field()],
                5 => ["HMGET", key, Field(), Field(), Field()],
                6 => ["HINCRBY", key, Field(), random.Next(-5, 6).ToString()],
                7 => ["HINCRBYFLOAT", key, Field(), "1.25"],
                8 => ["HGETALL", key],
                9 => ["HLEN", key],
                10 => ["HSTRLEN", key, Field()],
                11 => ["HEXISTS", key, Field()],
                12 => ["OBJECT", "ENCODING", key],
                _ => ["HKEYS", key],
            };
        }
        for (int k = 0; k < 3; k++)
        {
            yield return ["HGETALL", "k" + k];
            yield return ["HVALS", "k" + k];
        }
    }
}
