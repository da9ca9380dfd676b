using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// A script runs atomically across shards: scripts move units between keys that live on different
/// shards while readers sum every key inside a script of their own, and the sum never changes.
/// </summary>
public class ScriptAtomicityTests
{
    private const string Move = """
        local n = tonumber(redis.call('GET', KEYS[1]))
        if n > 0 then
          redis.call('DECR', KEYS[1])
          redis.call('INCR', KEYS[2])
        end
        return n
        """;

    private const string Sum = """
        local total = 0
        for i = 1, #KEYS do total = total + tonumber(redis.call('GET', KEYS[i])) end
        return total
        """;

    [Fact]
    public async Task Eval_MovesAcrossShards_ReadersSeeConstantSum()
    {
        var server = TestServer.Start(shards: 4);
        try
        {
            // Keys without hash tags: with four shards they spread over several of them.
            var keys = Enumerable.Range(0, 8).Select(i => "atom:" + i).ToArray();
            using (var setup = server.Connect())
                foreach (var key in keys) Assert.Equal("+OK\r\n", setup.Call("SET", key, "100"));

            // Threads of their own (the calls block), a fixed number of moves each; readers read
            // until the movers are done.
            const int MovesEach = 500;
            int moversLeft = 4;
            var movers = Enumerable.Range(0, 4).Select(m => Task.Factory.StartNew(() =>
            {
                using var c = server.Connect();
                var random = new Random(m);
                int moves = 0;
                for (; moves < MovesEach; moves++)
                {
                    var from = keys[random.Next(keys.Length)];
                    var to = keys[random.Next(keys.Length)];
                    Assert.StartsWith(":", c.Call("EVAL", Move, "2", from, to));
                }
                Interlocked.Decrement(ref moversLeft);
                return moves;
            }, TaskCreationOptions.LongRunning)).ToArray();
            var readers = Enumerable.Range(0, 2).Select(_ => Task.Factory.StartNew(() =>
            {
                using var c = server.Connect();
                int reads = 0;
                while (Volatile.Read(ref moversLeft) > 0 || reads == 0)
                {
                    Assert.Equal(":800\r\n", c.Call(["EVAL", Sum, keys.Length.ToString(), .. keys]));
                    reads++;
                }
                return reads;
            }, TaskCreationOptions.LongRunning)).ToArray();
            int[] moved = await Task.WhenAll(movers);
            int[] read = await Task.WhenAll(readers);
            Assert.Equal(4 * MovesEach, moved.Sum());
            Assert.True(read.Sum() > 0);
        }
        finally
        {
            await server.DisposeAsync();
        }
    }
}
