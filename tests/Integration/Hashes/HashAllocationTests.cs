using System.Text;
using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Tests.Hashes;

/// <summary>
/// Runs hash handlers directly (no sockets, no shard threads) and counts the bytes they allocate:
/// reads, and overwrites of existing fields with same-sized values, must allocate nothing, in both encodings.
/// </summary>
public class HashAllocationTests
{
    [Fact]
    public void HotPath_SteadyStateOnExistingFields_AllocatesNothing()
    {
        var server = new RedisServer(ServerOptions.Parse(["--port", "0", "--shards", "1"]));
        try
        {
            var commands = new CommandBuffer();
            var big = new List<string> { "HSET", "big" };
            for (int i = 0; i < 600; i++) big.AddRange(["f" + i, "v" + i]);
            Add(commands, big.ToArray());
            foreach (var key in new[] { "small", "big" })
            {
                Add(commands, "HSET", key, "name", "value-1", "n", "100");
                Add(commands, "HSET", key, "name", "value-2");
                Add(commands, "HMSET", key, "name", "value-3", "other", "x");
                Add(commands, "HGET", key, "name");
                Add(commands, "HGET", key, "missing");
                Add(commands, "HMGET", key, "name", "n", "missing");
                Add(commands, "HEXISTS", key, "name");
                Add(commands, "HLEN", key);
                Add(commands, "HSTRLEN", key, "name");
                Add(commands, "HINCRBY", key, "n", "1");
                Add(commands, "HINCRBY", key, "n", "-1");
                Add(commands, "HSETNX", key, "name", "ignored");
            }

            var replies = new ReplyBuffer(1 << 16);
            var client = new ClientSession(1, null, null, () => { });
            var handlers = new CommandHandler[commands.Count];
            for (int i = 0; i < commands.Count; i++) handlers[i] = server.Commands.Find(commands.Arg(i, 0))!.Handler;

            void RunAll(int from)
            {
                long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
                for (int i = from; i < commands.Count; i++)
                {
                    var ctx = new CommandContext(commands, i, new RespWriter(replies, 2), client, server, now);
                    handlers[i](ref ctx);
                    Assert.False(ctx.Failed);
                }
                replies.Clear();
            }

            RunAll(0); // creates the keys
            RunAll(1); // and warms up
            // Allocation per command shows in every attempt; a one-off (something shared initialised
            // lazily while the suite runs beside it, seen once as 5,848 bytes in 1,000 rounds) in one only.
            long allocated = long.MaxValue;
            for (int attempt = 0; attempt < 3 && allocated != 0; attempt++)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 1000; i++) RunAll(1);
                allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            }
            Assert.True(allocated == 0, $"allocated {allocated / 1000.0} bytes per round of {commands.Count - 1} commands");
        }
        finally
        {
            server.Shards.Dispose();
        }
    }

    private static void Add(CommandBuffer buffer, params string[] args)
    {
        buffer.BeginCommand();
        foreach (var a in args) Encoding.ASCII.GetBytes(a, buffer.AddArg(a.Length));
        buffer.EndCommand();
    }
}
