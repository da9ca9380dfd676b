using System.Diagnostics;
using System.Reflection;
using System.Text;
using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Tests.Strings;

/// <summary>
/// Runs string handlers directly (no sockets, no shard threads) and counts the bytes they allocate:
/// overwriting existing keys with same-sized values must allocate nothing, and growing a string by
/// appends must allocate in proportion to its final length, not to the square of it.
/// </summary>
public class StringAllocationTests
{
    [Fact]
    public void HotPath_SteadyStateOnExistingKeys_AllocatesNothing()
    {
        var server = new RedisServer(ServerOptions.Parse(["--port", "0", "--shards", "1"]));
        try
        {
            var commands = new CommandBuffer();
            Add(commands, "SET", "key", "value-1");
            Add(commands, "GET", "key");
            Add(commands, "SET", "key", "value-2", "XX");
            Add(commands, "SET", "key", "value-3", "KEEPTTL");
            Add(commands, "SET", "ttl", "value-4", "EX", "1000");
            Add(commands, "SETEX", "ttl", "1000", "value-5");
            Add(commands, "MSET", "key", "value-6", "other", "value-7");
            Add(commands, "MGET", "key", "other", "missing");
            Add(commands, "GETSET", "key", "value-8");
            Add(commands, "SET", "counter", "100000");
            Add(commands, "INCR", "counter");
            Add(commands, "INCRBY", "counter", "5");
            Add(commands, "DECRBY", "counter", "3");
            Add(commands, "DECR", "counter");
            Add(commands, "STRLEN", "key");
            Add(commands, "GETRANGE", "key", "0", "3");
            Add(commands, "SETRANGE", "key", "0", "V");

            var replies = new ReplyBuffer(1 << 16);
            var client = new ClientSession(1, null, null, () => { });
            var handlers = new CommandHandler[commands.Count];
            for (int i = 0; i < commands.Count; i++) handlers[i] = server.Commands.Find(commands.Arg(i, 0))!.Handler;

            void RunAll()
            {
                long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
                for (int i = 0; i < commands.Count; i++)
                {
                    var ctx = new CommandContext(commands, i, new RespWriter(replies, 2), client, server, now);
                    handlers[i](ref ctx);
                    Assert.False(ctx.Failed);
                }
                replies.Clear();
            }

            RunAll(); // creates the keys
            RunAll(); // and warms up
            // A per-command allocation shows in every window; the runtime itself (tiering, a GC started
            // by other tests) has once been seen to charge a few bytes to one window under full-suite load.
            var windows = new List<long>();
            for (int w = 0; w < 3; w++)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 1000; i++) RunAll();
                windows.Add(GC.GetAllocatedBytesForCurrentThread() - before);
                if (windows[^1] == 0) break;
            }
            Assert.True(windows[^1] == 0,
                $"allocated {string.Join(", ", windows.Select(b => b / 1000.0))} bytes per round of {commands.Count} commands");
        }
        finally
        {
            server.Shards.Dispose();
        }
    }

    /// <summary>
    /// SET of a new key with a small value allocates one object, the key's array with the value's
    /// bytes embedded after it (Storage/EmbeddedString), not a key array and a value array. Slots
    /// freed by DEL are reused, so no table growth is counted.
    /// </summary>
    [Fact]
    public void Set_NewKeyWithSmallValue_AllocatesOneArrayForKeyAndValue()
    {
        const int Keys = 1000;
        var server = new RedisServer(ServerOptions.Parse(["--port", "0", "--shards", "1"]));
        try
        {
            string value = new('v', 32);
            var sets = new CommandBuffer();
            var dels = new CommandBuffer();
            for (int i = 0; i < Keys; i++)
            {
                string key = $"key:{i:D12}"; // 16 bytes, as bench/memtier/memory.py loads
                Add(sets, "SET", key, value);
                if (i > 0) Add(dels, "DEL", key); // key 0 stays, so the table keeps its size
            }
            var replies = new ReplyBuffer(1 << 16);
            var client = new ClientSession(1, null, null, () => { });
            var set = server.Commands.Find("SET"u8)!.Handler;
            var del = server.Commands.Find("DEL"u8)!.Handler;
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();

            void Run(CommandBuffer commands, CommandHandler handler, int from)
            {
                for (int i = from; i < commands.Count; i++)
                {
                    replies.Clear();
                    var ctx = new CommandContext(commands, i, new RespWriter(replies, 2), client, server, now);
                    handler(ref ctx);
                    Assert.False(ctx.Failed);
                }
            }

            Run(sets, set, 0);
            Run(dels, del, 0);
            long before = GC.GetAllocatedBytesForCurrentThread();
            Run(sets, set, 1); // keys 1.. are new again
            long perSet = (GC.GetAllocatedBytesForCurrentThread() - before) / (Keys - 1);

            long oneArray = 24 + 16 + 32; // array header + key + value (48, a multiple of 8)
            Assert.True(perSet == oneArray,
                $"SET of a new 16-byte key with a 32-byte value allocated {perSet} bytes; one array of both is {oneArray} " +
                $"(a key array and a value array: {24 + 16 + 24 + 32})");
        }
        finally
        {
            server.Shards.Dispose();
        }
    }

    /// <summary>
    /// 10,000 APPENDs of 100 bytes to one key: with spare room grown by Redis's rule, the bytes
    /// allocated are a small multiple of the final 1,000,000-byte string (the buffers' geometric
    /// series); copying the whole string on every append would allocate about 5 GB.
    /// </summary>
    [Fact]
    public void Append_TenThousandSuffixesToOneKey_AllocatesInProportionToTheFinalLength()
    {
        var commands = new CommandBuffer();
        Add(commands, "APPEND", "grow", new string('a', 100));
        AssertLinearGrowth(commands, _ => 0);
    }

    /// <summary>The same growth by SETRANGE at the string's end (Redis's sdsgrowzero is greedy too).</summary>
    [Fact]
    public void SetRange_TenThousandWritesPastTheEnd_AllocatesInProportionToTheFinalLength()
    {
        var commands = new CommandBuffer();
        for (int i = 0; i < Appends; i++) Add(commands, "SETRANGE", "grow", (i * 100).ToString(), new string('s', 100));
        AssertLinearGrowth(commands, i => i);
    }

    private const int Appends = 10_000;

    /// <summary>Runs command <paramref name="commandOf"/>(i) for i below <see cref="Appends"/>, each adding 100 bytes to "grow".</summary>
    private static void AssertLinearGrowth(CommandBuffer commands, Func<int, int> commandOf)
    {
        var server = new RedisServer(ServerOptions.Parse(["--port", "0", "--shards", "1"]));
        try
        {
            var replies = new ReplyBuffer(1 << 16);
            var client = new ClientSession(1, null, null, () => { });
            var handler = server.Commands.Find(commands.Arg(0, 0))!.Handler;
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            const long FinalLength = Appends * 100L;

            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Appends; i++)
            {
                replies.Clear();
                var ctx = new CommandContext(commands, commandOf(i), new RespWriter(replies, 2), client, server, now);
                handler(ref ctx);
                Assert.False(ctx.Failed);
            }
            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;

            Assert.Equal($":{FinalLength}\r\n", Encoding.ASCII.GetString(replies.Slice(0, replies.Written)));
            Assert.True(allocated < 8 * FinalLength,
                $"{Appends} writes of 100 bytes allocated {allocated:N0} bytes for a {FinalLength:N0}-byte string");
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
