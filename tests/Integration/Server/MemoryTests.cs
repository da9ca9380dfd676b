using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Server;

/// <summary>
/// INFO's used_memory follows the dataset (Storage/MemoryMeter): it rises with keys and comes back
/// down when they are flushed, deleted or expire, whatever the type or the path that moved them,
/// and it does not move while the server is idle.
/// </summary>
public class MemoryTests
{
    private const int Keys = 100_000;

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

    private static long Dataset(RespClient c) => Memory(c)["used_memory_dataset"];

    /// <summary>The dataset figure once every shard has settled its collections (it holds over a few ticks).</summary>
    private static long Settled(RespClient c)
    {
        long last = Dataset(c);
        for (int i = 0; i < 100; i++)
        {
            Thread.Sleep(150);
            long now = Dataset(c);
            if (now == last) return now;
            last = now;
        }
        Assert.Fail($"dataset still moving: {last}");
        return last;
    }

    /// <summary>Sends <paramref name="count"/> commands made by <paramref name="command"/> in pipelined batches of 1000, reading every reply.</summary>
    private static void Pipeline(RespClient c, int count, Func<int, string[]> command)
    {
        for (int start = 0; start < count; start += 1000)
        {
            int n = Math.Min(1000, count - start);
            var batch = new MemoryStream();
            for (int i = start; i < start + n; i++) batch.Write(RespClient.Encode(command(i)));
            c.SendRaw(batch.ToArray());
            for (int i = 0; i < n; i++)
            {
                string reply = c.ReadReply();
                Assert.False(reply.StartsWith('-'), reply);
            }
        }
    }

    private static string Value(int i) => $"value-{i:D10}-0123456789abcdef"; // 32 bytes

    private static void AssertBackToStart(RespClient c, Dictionary<string, long> start, string after)
    {
        var now = Memory(c);
        Assert.True(now["used_memory_dataset"] == start["used_memory_dataset"],
            $"after {after}: dataset {now["used_memory_dataset"]}, at the start {start["used_memory_dataset"]}");
        // The rest is the key tables (given back when emptied) and the client's buffers.
        Assert.True(Math.Abs(now["used_memory"] - start["used_memory"]) < 512 * 1024,
            $"after {after}: used_memory {now["used_memory"]}, at the start {start["used_memory"]}");
    }

    private static void AssertLoaded(RespClient c, Dictionary<string, long> start, long atLeast)
    {
        var now = Memory(c);
        Assert.True(now["used_memory"] - start["used_memory"] >= atLeast,
            $"used_memory {now["used_memory"]} did not rise by {atLeast} from {start["used_memory"]}");
        Assert.True(now["used_memory_dataset"] - start["used_memory_dataset"] >= atLeast,
            $"used_memory_dataset {now["used_memory_dataset"]} did not rise by {atLeast}");
    }

    [Fact]
    public async Task UsedMemory_100kKeys_RisesAndFallsBackAfterFlushAll()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        var start = Memory(c);

        Pipeline(c, Keys, i => ["SET", $"key:{i}", Value(i)]);
        // Each key is at least its 32-byte value and its name.
        AssertLoaded(c, start, Keys * 40L);

        Assert.Equal("+OK\r\n", c.Call("FLUSHALL"));
        AssertBackToStart(c, start, "FLUSHALL");
    }

    [Fact]
    public async Task UsedMemory_100kKeys_FallsBackAfterDelAndUnlink()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        var start = Memory(c);

        Pipeline(c, Keys, i => ["SET", $"key:{i}", Value(i)]);
        AssertLoaded(c, start, Keys * 40L);
        Pipeline(c, Keys / 100, i => [i % 2 == 0 ? "DEL" : "UNLINK", .. Enumerable.Range(i * 100, 100).Select(k => $"key:{k}")]);

        Assert.Equal(":0\r\n", c.Call("DBSIZE"));
        AssertBackToStart(c, start, "DEL/UNLINK");
    }

    [Fact]
    public async Task UsedMemory_100kKeys_FallsBackAfterTheyExpire()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        var start = Memory(c);

        // Long enough to be measured loaded on a busy machine (100k pipelined SETs took over 300 ms under load).
        Pipeline(c, Keys, i => ["SET", $"key:{i}", Value(i), "PX", "5000"]);
        AssertLoaded(c, start, Keys * 40L);

        // Active expiry alone removes them (nothing reads the keys).
        await Eventually.WaitFor(() => Dataset(c) == start["used_memory_dataset"],
            () => $"dataset {Dataset(c)} after expiry, at the start {start["used_memory_dataset"]}", seconds: 60);
        AssertBackToStart(c, start, "expiry");
    }

    [Fact]
    public async Task UsedMemory_Idle_DoesNotMoveWithInfoCalls()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        Pipeline(c, 1000, i => ["SET", $"key:{i}", Value(i)]);
        c.Call("RPUSH", "list", "a", "b", "c");
        c.Call("HSET", "hash", "f", "v");
        Thread.Sleep(300); // past a settle tick of the shards
        var first = Memory(c);
        for (int i = 0; i < 50; i++)
        {
            var now = Memory(c);
            Assert.Equal(first["used_memory"], now["used_memory"]);
            Assert.Equal(first["used_memory_dataset"], now["used_memory_dataset"]);
        }
        Assert.True(first["used_memory_dataset"] > 1000 * 40L);
        Assert.True(first["used_memory_overhead"] >= first["used_memory_startup"]);
        Assert.Equal(first["used_memory"], first["used_memory_overhead"] + first["used_memory_dataset"]);
    }

    [Fact]
    public async Task UsedMemory_Collections_GrowAndConvertThenFallBackWhenDeleted()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        long start = Dataset(c);

        // Small first (listpack, intset), then past the limits (quicklist, hashtable, skiplist).
        c.Call("RPUSH", "l", "a");
        c.Call("HSET", "h", "f", "v");
        c.Call("SADD", "s", "1");
        c.Call("ZADD", "z", "1", "m");
        await Eventually.WaitFor(() => Dataset(c) > start, () => "small collections not charged");
        long small = Dataset(c);

        Pipeline(c, 20_000, i => (i % 4) switch
        {
            0 => new[] { "RPUSH", "l", Value(i) },
            1 => new[] { "HSET", "h", $"field:{i}", Value(i) },
            2 => new[] { "SADD", "s", $"member:{i}" },
            _ => new[] { "ZADD", "z", i.ToString(), $"member:{i}" },
        });
        Assert.Equal("$9\r\nquicklist\r\n", c.Call("OBJECT", "ENCODING", "l"));
        Assert.Equal("$9\r\nhashtable\r\n", c.Call("OBJECT", "ENCODING", "h"));
        Assert.Equal("$9\r\nhashtable\r\n", c.Call("OBJECT", "ENCODING", "s"));
        Assert.Equal("$8\r\nskiplist\r\n", c.Call("OBJECT", "ENCODING", "z"));
        // Settled at the shards' next tick: at least the elements' bytes.
        await Eventually.WaitFor(() => Dataset(c) - small > 5000 * (32 + 32 + 10 + 10),
            () => $"dataset {Dataset(c)} did not grow from {small}");

        // Shrinking in place shows too.
        long full = Settled(c);
        c.Call("LTRIM", "l", "0", "9");
        await Eventually.WaitFor(() => Dataset(c) < full - 5000 * 32, () => $"dataset {Dataset(c)} did not shrink from {full} after LTRIM");

        Assert.Equal(":4\r\n", c.Call("DEL", "l", "h", "s", "z"));
        Assert.Equal(start, Dataset(c));
        Thread.Sleep(250); // a settle tick after the delete must not bring anything back
        Assert.Equal(start, Dataset(c));
    }

    [Fact]
    public async Task UsedMemory_MovesWithRenameMoveCopySwapdbAndEncodingChanges()
    {
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        long start = Dataset(c);
        Pipeline(c, 2000, i => i % 2 == 0 ? ["SET", $"k{i}", Value(i)] : ["RPUSH", $"l{i}", Value(i), "x", "y"]);
        long loaded = Settled(c);
        Assert.True(loaded > start + 2000 * 40L);

        // RENAME and MOVE keep the total (key names of the same length); COPY adds, deleting the copy takes it off.
        Pipeline(c, 2000, i => ["RENAME", i % 2 == 0 ? $"k{i}" : $"l{i}", i % 2 == 0 ? $"K{i}" : $"L{i}"]);
        Assert.Equal(loaded, Dataset(c));
        Pipeline(c, 2000, i => ["MOVE", i % 2 == 0 ? $"K{i}" : $"L{i}", "3"]);
        Assert.Equal(loaded, Dataset(c));
        c.Call("SELECT", "3");
        Pipeline(c, 2000, i => ["COPY", i % 2 == 0 ? $"K{i}" : $"L{i}", i % 2 == 0 ? $"C{i}" : $"D{i}"]);
        Assert.True(Settled(c) > loaded + 2000 * 40L, "COPY did not add");
        Pipeline(c, 2000, i => ["DEL", i % 2 == 0 ? $"C{i}" : $"D{i}"]);
        Assert.Equal(loaded, Dataset(c));

        // SWAPDB exchanges contents: the total stays; FLUSHDB of the swapped-in number empties it.
        Assert.Equal("+OK\r\n", c.Call("SWAPDB", "3", "5"));
        Assert.Equal(loaded, Dataset(c));
        // Strings edited in place or grown (APPEND, SETRANGE, INCR to more digits) are charged at once.
        c.Call("SELECT", "5");
        c.Call("APPEND", "K0", new string('a', 1000));
        Assert.True(Dataset(c) >= loaded + 1000);
        c.Call("SETRANGE", "K2", "2000", "z");
        Assert.True(Dataset(c) >= loaded + 2900); // K2 was 32 bytes, now 2001
        Assert.Equal("+OK\r\n", c.Call("FLUSHDB"));
        Assert.Equal(start, Dataset(c));
        c.Call("SELECT", "3");
        Assert.Equal(":0\r\n", c.Call("DBSIZE"));
    }

    [Fact]
    public async Task UsedMemory_CollectionRenamedToAnotherShardBeforeItsTick_IsSettledThere()
    {
        // Each hash is grown (listed to settle on its shard), renamed at once to a name of another
        // shard, and grown again there: its growth must be settled by the new shard, not lost between
        // the two lists (each value is listed once per shard by a flag, and the old shard skips it).
        await using var server = TestServer.Start(shards: 4);
        using var c = server.Connect();
        long start = Dataset(c);
        var batch = new List<string[]>();
        for (int i = 0; i < 300; i++)
        {
            batch.Add(["HSET", $"h{i}", "a", "1"]);
            batch.Add(["HSET", $"h{i}", "b", new string('x', 500)]);
            batch.Add(["RENAME", $"h{i}", $"moved{i}"]);
            batch.Add(["HSET", $"moved{i}", "c", new string('y', 500)]);
        }
        Pipeline(c, batch.Count, i => batch[i]);
        Assert.True(Settled(c) >= start + 300 * 1000L, "the growth after the move was not settled");
        Pipeline(c, 300, i => ["DEL", $"moved{i}"]);
        Assert.Equal(start, Dataset(c));
    }

    [Fact]
    public async Task UsedMemory_Stream_GrowsWithXAddShrinksWithXTrimAndFallsBackWhenDeleted()
    {
        await using var server = TestServer.Start(shards: 2);
        using var c = server.Connect();
        long start = Dataset(c);

        Pipeline(c, 20_000, i => ["XADD", "st", $"{i + 1}-0", "name", Value(i), "n", i.ToString()]);
        // Every entry holds at least its 32-byte value.
        await Eventually.WaitFor(() => Dataset(c) - start > 20_000 * 32L, () => $"dataset {Dataset(c)} did not grow from {start}");
        long full = Settled(c);

        Assert.Equal(":10000\r\n", c.Call("XTRIM", "st", "MAXLEN", "10000"));
        await Eventually.WaitFor(() => Dataset(c) < full - 10_000 * 32L, () => $"dataset {Dataset(c)} did not shrink from {full} after XTRIM");

        Assert.Equal(":1\r\n", c.Call("COPY", "st", "copy"));
        Assert.Equal(":2\r\n", c.Call("DEL", "st", "copy"));
        Assert.Equal(start, Dataset(c));
        Thread.Sleep(250); // a settle tick after the delete must not bring anything back
        Assert.Equal(start, Dataset(c));
    }
}
