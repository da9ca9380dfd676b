using System.Diagnostics;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Strings;

/// <summary>Counters and multi-key writes under concurrent clients: no lost updates, no torn reads.</summary>
public class StringConcurrencyTests
{
    private static TestServer Server => TestServer.Shared;

    [Fact]
    public async Task Incr_EightClientsOnFourShards_FinalValuesExact()
    {
        const int Clients = 8, PerClient = 2000, Batch = 50;
        var keys = KeyspacePeek.KeysOnDistinctShards(Server, TestServer.KeyPrefix("incrrace"), 4);
        var tasks = Enumerable.Range(0, Clients).Select(id => Task.Run(() =>
        {
            using var c = Server.Connect();
            // Half the clients pipeline (batches squashed per shard), half send one at a time.
            int batch = id % 2 == 0 ? Batch : 1;
            for (int sent = 0; sent < PerClient; sent += batch)
            {
                var frame = new MemoryStream();
                for (int i = 0; i < batch; i++) frame.Write(RespClient.Encode("INCR", keys[(sent + i) % keys.Length]));
                c.SendRaw(frame.ToArray());
                for (int i = 0; i < batch; i++) Assert.StartsWith(":", c.ReadReply());
            }
        })).ToArray();
        var all = Task.WhenAll(tasks);
        Assert.True(await Task.WhenAny(all, Task.Delay(TimeSpan.FromSeconds(60))) == all, "INCR clients did not finish");
        await all;

        using var check = Server.Connect();
        const int PerKey = Clients * PerClient / 4;
        string expected = $"${PerKey.ToString().Length}\r\n{PerKey}\r\n";
        var mget = check.Call(["MGET", .. keys]);
        Assert.Equal("*4\r\n" + string.Concat(Enumerable.Repeat(expected, 4)), mget);
    }

    [Fact]
    public async Task MSet_ConcurrentWithMGet_NeverMixesGenerations()
    {
        var keys = KeyspacePeek.KeysOnDistinctShards(Server, TestServer.KeyPrefix("msetrace"), 4);
        using (var setup = Server.Connect())
            Assert.Equal("+OK\r\n", setup.Call(["MSET", .. keys.SelectMany(k => new[] { k, "init" })]));

        var deadline = Stopwatch.StartNew();
        var duration = TimeSpan.FromSeconds(2);
        long reads = 0, writes = 0;
        // Dedicated threads (blocking clients must not wait for a busy thread pool), and at least
        // 50 rounds each: a client that started late still races the others.
        Task Client(Action body) => Task.Factory.StartNew(body, TaskCreationOptions.LongRunning);
        var writers = Enumerable.Range(0, 3).Select(id => Client(() =>
        {
            using var c = Server.Connect();
            for (int gen = 0; deadline.Elapsed < duration || gen < 50; gen++)
            {
                // Keys in a different order per writer, so gates are requested in varied orders.
                string value = $"w{id}-{gen}";
                var args = new List<string> { "MSET" };
                for (int i = 0; i < keys.Length; i++)
                {
                    args.Add(keys[(i + id) % keys.Length]);
                    args.Add(value);
                }
                Assert.Equal("+OK\r\n", c.Call(args.ToArray()));
                Interlocked.Increment(ref writes);
            }
        }));
        var readers = Enumerable.Range(0, 3).Select(id => Client(() =>
        {
            using var c = Server.Connect();
            for (int round = 0; deadline.Elapsed < duration || round < 50; round++)
            {
                string reply = c.Call(["MGET", .. keys]);
                var lines = reply.Split("\r\n");
                // *4, then ($len, value) × 4: every value must be the same generation.
                Assert.Equal("*4", lines[0]);
                var values = new[] { lines[2], lines[4], lines[6], lines[8] };
                Assert.True(values.All(v => v == values[0]), "MGET saw a torn MSET: " + string.Join(", ", values));
                Interlocked.Increment(ref reads);
            }
        }));
        var all = Task.WhenAll(writers.Concat(readers));
        Assert.True(await Task.WhenAny(all, Task.Delay(TimeSpan.FromSeconds(30))) == all, "MSET/MGET clients did not finish");
        await all;
        Assert.True(reads > 0 && writes > 0);
    }
}
