using RedisClone.Common;
using RedisClone.Sharding;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Sharding;

/// <summary>Routing by hash slot, and multi-shard commands under heavy overlap.</summary>
public class MultiShardTests
{
    [Fact]
    public void ShardOf_HashTaggedKeys_LandOnSameShard()
    {
        using var shards = new ShardSet(8, 1);
        for (int i = 0; i < 100; i++)
        {
            var a = System.Text.Encoding.ASCII.GetBytes($"{{user{i}}}:name");
            var b = System.Text.Encoding.ASCII.GetBytes($"{{user{i}}}:email");
            Assert.Equal(shards.ShardOf(a), shards.ShardOf(b));
            Assert.Equal(Crc16.HashSlot(a) % 8, shards.ShardOf(a));
        }
    }

    [Fact]
    public void TryEnterAll_WhenOneGateIsHeld_TakesNone()
    {
        using var shards = new ShardSet(4, 1);
        var held = new ManualResetEventSlim();
        var release = new ManualResetEventSlim();
        var holder = new Thread(() =>
        {
            shards[2].Gate.Enter();
            held.Set();
            release.Wait();
            shards[2].Gate.Exit();
        });
        holder.Start();
        held.Wait();
        Assert.False(shards.TryEnterAll(0b0111));
        Assert.False(shards[0].Gate.IsHeldByCurrentThread);
        Assert.False(shards[1].Gate.IsHeldByCurrentThread);
        Assert.True(shards.TryEnterAll(0b1011));
        shards.ExitAll(0b1011);
        release.Set();
        holder.Join();
    }

    [Fact]
    public async Task OverlappingMultiShardWrites_NeverDeadlock_AndStayAtomic()
    {
        await using var server = TestServer.Start(shards: 4);
        string[] keys = Enumerable.Range(0, 8).Select(i => $"k{i}").ToArray();
        using (var setup = server.Connect())
            foreach (var k in keys) setup.Call("SET", k, "0");

        const int Clients = 12, Rounds = 300;
        var tasks = Enumerable.Range(0, Clients).Select(id => Task.Run(() =>
        {
            var random = new Random(id);
            using var c = server.Connect();
            for (int r = 0; r < Rounds; r++)
            {
                // Four distinct keys in a random order, all set to one generation value.
                var pick = keys.OrderBy(_ => random.Next()).Take(4).ToArray();
                string gen = $"{id}-{r}";
                var args = new List<string> { "MSET" };
                foreach (var k in pick) { args.Add(k); args.Add(gen); }
                Assert.Equal("+OK\r\n", c.Call(args.ToArray()));

                var get = new List<string> { "MGET" };
                get.AddRange(pick.Reverse());
                string reply = c.Call(get.ToArray());
                Assert.StartsWith("*4\r\n", reply);
            }
        })).ToArray();

        var all = Task.WhenAll(tasks);
        var finished = await Task.WhenAny(all, Task.Delay(TimeSpan.FromSeconds(90)));
        Assert.True(finished == all, "multi-shard MSET/MGET did not finish: deadlock?");
        await all;
    }
}
