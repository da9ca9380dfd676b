using System.Text;
using RedisClone.Storage;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Strings;

/// <summary>
/// Strings grown in place by APPEND and SETRANGE (Storage/GrowableString): every reader sees them
/// as Redis does, they grow with Redis's spare room, and the memory meter counts that room.
/// </summary>
public class GrowableStringTests
{
    private const string WrongType = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

    private static TestServer Server => TestServer.Shared;

    /// <summary>A chunk of 1 to 97 bytes, different for each <paramref name="i"/>, without spaces.</summary>
    private static string Chunk(int i) => new((char)('a' + i % 26), i * 37 % 97 + 1);

    // ------------------------------------------------------------ against redis-server

    [RedisFact]
    public void GrownStrings_ReadsAndEdits_MatchRedis()
    {
        var script = new List<string[]>();
        int length = 0;
        for (int i = 0; i < 300; i++)
        {
            script.Add(["APPEND", "g", Chunk(i)]);
            length += Chunk(i).Length;
        }
        script.AddRange(new[]
        {
            "GET g", "STRLEN g", "TYPE g", "OBJECT ENCODING g", "GETRANGE g 0 -1", "GETRANGE g 100 5000",
            "GETRANGE g -50 -1", $"GETRANGE g {length - 3} {length + 100}", "GETRANGE g 100000 200000",
            "SUBSTR g 3 9", "MGET g nokey g",
            "SETRANGE g 10 XYZ", "GETRANGE g 0 20", "STRLEN g",
            $"SETRANGE g {length + 50} tail", "STRLEN g", $"GETRANGE g {length - 5} -1",
            "APPEND g more", "STRLEN g", "GET g", "OBJECT ENCODING g",
            "GETEX g", "SET g replaced GET", "GET g", "OBJECT ENCODING g",
            "APPEND g -again", "OBJECT ENCODING g", "GETSET g short", "OBJECT ENCODING g", "GET g",
        }.Select(Differential.SplitLine));
        script.Add(["SETRANGE", "g", "0", ""]);
        script.Add(["APPEND", "g", ""]);
        script.Add(["OBJECT", "ENCODING", "g"]);

        script.Add(["SETRANGE", "s", "3", "abc"]);
        int sLength = 6;
        for (int i = 0; i < 200; i++)
        {
            script.Add(["SETRANGE", "s", sLength.ToString(), Chunk(i)]);
            sLength += Chunk(i).Length;
        }
        script.AddRange(new[]
        {
            "GET s", "STRLEN s", "OBJECT ENCODING s", "SETRANGE s 5000 z", "STRLEN s", "GETRANGE s 4990 -1",
            "COPY s sc", "OBJECT ENCODING sc", "GET sc", "APPEND sc X", "STRLEN s", "STRLEN sc",
            "RENAME s s2", "GET s2", "OBJECT ENCODING s2", "GETDEL s2", "EXISTS s2", "EXISTS s",
        }.Select(Differential.SplitLine));
        Differential.AssertSame(script.ToArray());
    }

    [RedisFact]
    public void GrownStrings_CountersSortLcsAndWrongType_MatchRedis()
    {
        var script = new List<string[]>();
        script.AddRange(new[]
        {
            "APPEND n 1", "OBJECT ENCODING n", "APPEND n 2", "APPEND n 3", "OBJECT ENCODING n", "INCR n",
            "OBJECT ENCODING n", "GET n", "APPEND n 0", "DECRBY n 5", "INCRBY n 1000",
            "APPEND f 1", "APPEND f .5", "INCRBYFLOAT f 1", "GET f",
            "APPEND x 12", "APPEND x y", "INCR x", "INCRBYFLOAT x 1", "GET x",
            "SETRANGE d 0 7", "SETRANGE d 1 0", "DECR d",
            "RPUSH l 3 1 2",
            "APPEND w_1 3", "APPEND w_1 0", "APPEND w_2 1", "APPEND w_2 0", "APPEND w_3 2", "APPEND w_3 0",
            "APPEND o_1 one", "APPEND o_1 -grown", "APPEND o_2 two", "APPEND o_2 -grown", "APPEND o_3 three",
            "APPEND o_3 -grown",
            "SORT l BY w_* GET o_* GET #", "SORT l BY w_* DESC GET o_*", "SORT l BY nosort GET o_*",
        }.Select(Differential.SplitLine));
        for (int i = 0; i < 40; i++)
        {
            script.Add(["APPEND", "a", "ACG"[i % 3] + Chunk(i).Substring(0, Math.Min(4, Chunk(i).Length))]);
            script.Add(["APPEND", "b", Chunk(i * 7).Substring(0, Math.Min(3, Chunk(i * 7).Length)) + "TGA"[i % 3]]);
        }
        script.AddRange(new[]
        {
            "LCS a b", "LCS a b LEN", "LCS a b IDX MINMATCHLEN 3 WITHMATCHLEN", "LCS a nokey", "LCS b a IDX",
            "LPUSH lst x", "APPEND lst y", "SETRANGE lst 0 y", "LCS a lst",
            "LPUSH a x", "SADD a x", "HSET a f v", "ZADD a 1 m", "TYPE a", "STRLEN a",
        }.Select(Differential.SplitLine));
        Differential.AssertSame(script.ToArray());
    }

    // ------------------------------------------------------------ the stored object

    [Fact]
    public void CapacityFor_UnderAndOverOneMegabyte_DoublesThenAddsOneMegabyte()
    {
        Assert.Equal(200, GrowableString.CapacityFor(100));
        Assert.Equal(2 * (1024 * 1024 - 1), GrowableString.CapacityFor(1024 * 1024 - 1));
        Assert.Equal(2 * 1024 * 1024, GrowableString.CapacityFor(1024 * 1024));
        Assert.Equal(4 * 1024 * 1024, GrowableString.CapacityFor(3 * 1024 * 1024));
        Assert.Equal(Array.MaxLength, GrowableString.CapacityFor(Array.MaxLength - 10));
    }

    [Fact]
    public void Append_ManySuffixes_GrowsInPlaceIntoSpareRoom()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("growroom") + "k";
        Assert.Equal(":5\r\n", c.Call("APPEND", k, "hello"));
        // A new key is a plain SET of the argument: an exact array, embstr.
        Assert.IsType<byte[]>(KeyspacePeek.Value(Server, k));
        Assert.Equal("$6\r\nembstr\r\n", c.Call("OBJECT", "ENCODING", k));

        Assert.Equal(":10\r\n", c.Call("APPEND", k, "world"));
        var grown = Assert.IsType<GrowableString>(KeyspacePeek.Value(Server, k));
        Assert.Equal(20, grown.Capacity);
        Assert.Equal("$3\r\nraw\r\n", c.Call("OBJECT", "ENCODING", k));

        // Appends that fit keep the buffer; one that does not reallocates by the rule, same object.
        int capacity = grown.Capacity, length = 10, reallocations = 0;
        for (int i = 0; i < 200; i++)
        {
            length += Chunk(i).Length;
            Assert.Equal($":{length}\r\n", c.Call("APPEND", k, Chunk(i)));
            Assert.Same(grown, KeyspacePeek.Value(Server, k));
            if (grown.Capacity != capacity)
            {
                Assert.True(length > capacity, $"reallocated at {length} with room for {capacity}");
                Assert.Equal(GrowableString.CapacityFor(length), grown.Capacity);
                capacity = grown.Capacity;
                reallocations++;
            }
        }
        Assert.InRange(reallocations, 1, 12);
        var expected = "helloworld" + string.Concat(Enumerable.Range(0, 200).Select(Chunk));
        Assert.Equal($"${length}\r\n{expected}\r\n", c.Call("GET", k));

        // SETRANGE within the string writes in place; SET makes a fresh exact value.
        Assert.Equal($":{length}\r\n", c.Call("SETRANGE", k, "0", "HELLO"));
        Assert.Same(grown, KeyspacePeek.Value(Server, k));
        Assert.Equal("$5\r\nHELLO\r\n", c.Call("GETRANGE", k, "0", "4"));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "12"));
        Assert.IsType<byte[]>(KeyspacePeek.Value(Server, k));
        Assert.Equal("$3\r\nint\r\n", c.Call("OBJECT", "ENCODING", k));
        Assert.False(KeyspacePeek.IsRaw(Server, k));
    }

    [Fact]
    public void SetRange_PastTheEnd_GrowsWithZeroPadding()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("growzero") + "k";
        Assert.Equal(":3\r\n", c.Call("SETRANGE", k, "0", "abc"));
        Assert.IsType<byte[]>(KeyspacePeek.Value(Server, k)); // exact, as Redis's sdsnewlen
        Assert.Equal(":8\r\n", c.Call("SETRANGE", k, "5", "xyz"));
        var grown = Assert.IsType<GrowableString>(KeyspacePeek.Value(Server, k));
        Assert.Equal(16, grown.Capacity);
        Assert.Equal("$8\r\nabc\0\0xyz\r\n", c.Call("GET", k));
        // Room left from the growth is zeroed when the string reaches it, whatever it held.
        Assert.Equal(":12\r\n", c.Call("SETRANGE", k, "11", "!"));
        Assert.Same(grown, KeyspacePeek.Value(Server, k));
        Assert.Equal("$12\r\nabc\0\0xyz\0\0\0!\r\n", c.Call("GET", k));
        Assert.Equal(":12\r\n", c.Call("STRLEN", k));
        Assert.Equal("$3\r\nraw\r\n", c.Call("OBJECT", "ENCODING", k));
    }

    [Fact]
    public void GrownString_OtherTypesCommands_ReplyWrongType()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("growtype") + "k";
        c.Call("APPEND", k, "a");
        c.Call("APPEND", k, "b");
        Assert.IsType<GrowableString>(KeyspacePeek.Value(Server, k));
        Assert.Equal(WrongType, c.Call("LPUSH", k, "x"));
        Assert.Equal(WrongType, c.Call("SADD", k, "x"));
        Assert.Equal(WrongType, c.Call("HGET", k, "x"));
        Assert.Equal(WrongType, c.Call("ZSCORE", k, "x"));
        Assert.Equal("+string\r\n", c.Call("TYPE", k));
        Assert.Equal("$2\r\nab\r\n", c.Call("GET", k));
    }

    [Fact]
    public async Task DebugDigestAndObject_GrownString_SameAsTheStringSetWhole()
    {
        await using var server = TestServer.Start(2, "--enable-debug-command", "yes");
        using var c = server.Connect();
        var whole = new StringBuilder();
        for (int i = 0; i < 100; i++)
        {
            c.Call("APPEND", "{d}grown", Chunk(i));
            whole.Append(Chunk(i));
        }
        c.Call("SET", "{d}set", whole.ToString());
        Assert.IsType<GrowableString>(KeyspacePeek.Value(server, "{d}grown"));

        var digests = c.Call("DEBUG", "DIGEST-VALUE", "{d}grown", "{d}set").Split("\r\n");
        Assert.Equal(digests[1], digests[2]);
        string SerializedLength(string key)
            => c.Call("DEBUG", "OBJECT", key).Split(' ').Single(f => f.StartsWith("serializedlength:"));
        Assert.Equal(SerializedLength("{d}set"), SerializedLength("{d}grown"));
        Assert.Contains("encoding:raw", c.Call("DEBUG", "OBJECT", "{d}grown"));

        // A digest of the whole keyspace does not depend on which form the string has.
        string before = c.Call("DEBUG", "DIGEST");
        c.Call("SET", "{d}grown", whole.ToString());
        Assert.Equal(before, c.Call("DEBUG", "DIGEST"));
    }

    [Fact]
    public async Task AppendAndSetRange_AtProtoMaxBulkLen_RefuseOneByteMore()
    {
        await using var server = TestServer.Start(1);
        using var c = server.Connect();
        const string TooBig = "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n";
        Assert.Equal("+OK\r\n", c.Call("CONFIG", "SET", "proto-max-bulk-len", "1mb"));
        var chunk = new string('m', 1024);
        for (int i = 1; i <= 1024; i++) Assert.Equal($":{i * 1024}\r\n", c.Call("APPEND", "k", chunk));
        Assert.True(((GrowableString)KeyspacePeek.Value(server, "k")!).Capacity > 1024 * 1024);
        // The room past the limit is not the string's: the limit is on its length.
        Assert.Equal(TooBig, c.Call("APPEND", "k", "x"));
        Assert.Equal(TooBig, c.Call("SETRANGE", "k", "1048576", "x"));
        Assert.Equal(TooBig, c.Call("SETRANGE", "k", "1048575", "xy"));
        Assert.Equal(":1048576\r\n", c.Call("SETRANGE", "k", "1048575", "x"));
        Assert.Equal(":1048576\r\n", c.Call("APPEND", "k", ""));
        Assert.Equal(":1048576\r\n", c.Call("STRLEN", "k"));
    }

    // ------------------------------------------------------------ memory

    private static Dictionary<string, long> Memory(RespClient c)
    {
        var fields = new Dictionary<string, long>();
        foreach (var line in c.Call("INFO", "memory").Split("\r\n"))
        {
            int colon = line.IndexOf(':');
            if (colon > 0 && long.TryParse(line.AsSpan(colon + 1), out long v)) fields[line[..colon]] = v;
        }
        return fields;
    }

    [Fact]
    public async Task UsedMemory_GrownString_CountsTheCapacityAndFallsBackOnDelete()
    {
        await using var server = TestServer.Start(1);
        using var c = server.Connect();
        const string Key = "growmem";
        var start = Memory(c);

        var chunk = new string('q', 100);
        for (int sent = 0; sent < 10_000; sent += 1000)
        {
            var batch = new MemoryStream();
            for (int i = 0; i < 1000; i++) batch.Write(RespClient.Encode(["APPEND", Key, chunk]));
            c.SendRaw(batch.ToArray());
            for (int i = 0; i < 1000; i++) Assert.StartsWith(":", c.ReadReply());
        }
        var grown = Assert.IsType<GrowableString>(KeyspacePeek.Value(server, Key));
        Assert.Equal(1_000_000, grown.Length);
        Assert.True(grown.Capacity > grown.Length && grown.Capacity <= GrowableString.CapacityFor(grown.Length));

        // The dataset holds exactly the key and the string's object with its whole buffer.
        var loaded = Memory(c);
        long dataset = loaded["used_memory_dataset"] - start["used_memory_dataset"];
        Assert.Equal(MemoryMeter.ArrayBytes(Key.Length) + grown.AllocatedBytes, dataset);
        Assert.InRange(dataset, grown.Capacity, grown.Capacity + 1024);
        // used_memory moves with it (the rest is the key table and this client's buffers).
        Assert.InRange(loaded["used_memory"] - start["used_memory"], dataset - 512 * 1024, dataset + 512 * 1024);

        // A new value gives the room back (a small one embedded with the key: one array); deleting
        // gives everything back.
        Assert.Equal("+OK\r\n", c.Call("SET", Key, "small"));
        Assert.Equal(MemoryMeter.ArrayBytes(Key.Length + 5),
            Memory(c)["used_memory_dataset"] - start["used_memory_dataset"]);
        Assert.Equal(":1000005\r\n", c.Call("APPEND", Key, new string('r', 1_000_000)));
        Assert.IsType<GrowableString>(KeyspacePeek.Value(server, Key));
        Assert.Equal(":1\r\n", c.Call("DEL", Key));
        Assert.Equal(start["used_memory_dataset"], Memory(c)["used_memory_dataset"]);
    }
}
