using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Clients;

/// <summary>
/// StackExchange.Redis in the ways services lean on it: a clean connect log, 10,000 operations in
/// flight at once, pattern subscriptions, keyspace notifications, LuaScript with named parameters,
/// RESP3, and reconnecting by itself after the server restarts.
/// </summary>
public sealed class StackExchangeRedisScenarioTests
{
    private static ConfigurationOptions Options(int port, RedisProtocol protocol = RedisProtocol.Resp2)
        => StackExchangeConnections.Options(port, protocol);

    [Fact]
    public async Task Connect_Log_HasNoWarningOrFailure()
    {
        var log = new StringWriter();
        await using var mux = await ConnectionMultiplexer.ConnectAsync(Options(TestServer.Shared.Port), log);
        Assert.True(mux.IsConnected);
        string text = log.ToString();
        Assert.Contains("Connected", text);
        foreach (string bad in new[] { "warning", "failed", "error", "unable", "exception" })
            Assert.DoesNotContain(bad, text, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task Async_TenThousandOperationsInFlight_AllAnswered()
    {
        await using var mux = await ConnectionMultiplexer.ConnectAsync(Options(TestServer.Shared.Port));
        var db = mux.GetDatabase();
        string p = TestServer.KeyPrefix("ser-async");
        var sets = Enumerable.Range(0, 10_000).Select(i => db.StringSetAsync(p + i, i)).ToArray();
        Assert.All(await Task.WhenAll(sets), Assert.True);
        var gets = Enumerable.Range(0, 10_000).Select(i => db.StringGetAsync(p + i)).ToArray();
        var values = await Task.WhenAll(gets);
        for (int i = 0; i < values.Length; i++) Assert.Equal(i, (int)values[i]);
        var incrs = Enumerable.Range(0, 10_000).Select(_ => db.StringIncrementAsync(p + "counter")).ToArray();
        await Task.WhenAll(incrs);
        Assert.Equal(10_000, (long)await db.StringGetAsync(p + "counter"));
    }

    [Fact]
    public async Task PubSub_PatternSubscription_DeliversChannelAndMessage()
    {
        await using var mux = await ConnectionMultiplexer.ConnectAsync(Options(TestServer.Shared.Port));
        string p = TestServer.KeyPrefix("ser-news");
        var received = new TaskCompletionSource<(string Channel, string Message)>(TaskCreationOptions.RunContinuationsAsynchronously);
        var sub = mux.GetSubscriber();
        await sub.SubscribeAsync(RedisChannel.Pattern(p + "*"), (channel, message) => received.TrySetResult((channel!, message!)));
        Assert.Equal(1, await sub.PublishAsync(RedisChannel.Literal(p + "sport"), "goal"));
        var got = await received.Task.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal((p + "sport", "goal"), got);
    }

    [Fact]
    public async Task KeyspaceNotifications_SetAndExpire_Delivered()
    {
        await using var server = TestServer.Start(2, "--notify-keyspace-events", "KEA");
        await using var mux = await ConnectionMultiplexer.ConnectAsync(Options(server.Port));
        var events = new System.Collections.Concurrent.ConcurrentQueue<string>();
        var sub = mux.GetSubscriber();
        // Through a ChannelMessageQueue: its handler sees messages one at a time, in the order they
        // arrived. (A handler given to SubscribeAsync may run for several messages at once, so it can
        // see "expire" before "set" although the server sent them in order.)
        var queue = await sub.SubscribeAsync(RedisChannel.Literal("__keyspace@0__:watched"));
        queue.OnMessage(message => events.Enqueue(message.Message!));
        var db = mux.GetDatabase();
        await db.StringSetAsync("watched", "v", TimeSpan.FromMilliseconds(100));
        await Eventually.WaitFor(() => events.Contains("expired"), () => $"events so far: {string.Join(",", events)}");
        Assert.Equal(["set", "expire", "expired"], events.ToArray()); // SET with PX also signals its expiry, as Redis does
    }

    [Fact]
    public async Task LuaScript_NamedParameters_RunAndCached()
    {
        await using var mux = await ConnectionMultiplexer.ConnectAsync(Options(TestServer.Shared.Port));
        var db = mux.GetDatabase();
        string p = TestServer.KeyPrefix("ser-lua");
        var script = LuaScript.Prepare("redis.call('set', @key, @value) return redis.call('incrby', @counter, @by)");
        var first = await script.EvaluateAsync(db, new { key = (RedisKey)(p + "k"), value = "v", counter = (RedisKey)(p + "n"), by = 5 });
        Assert.Equal(5, (long)first);
        // Loaded once, then run by its SHA (EVALSHA).
        var loaded = await script.LoadAsync(mux.GetServer("127.0.0.1", TestServer.Shared.Port));
        var second = await loaded.EvaluateAsync(db, new { key = (RedisKey)(p + "k"), value = "w", counter = (RedisKey)(p + "n"), by = 2 });
        Assert.Equal(7, (long)second);
        Assert.Equal("w", (string?)await db.StringGetAsync(p + "k"));
    }

    [Fact]
    public async Task Resp3_Connection_SpeaksResp3AndPushesPubSub()
    {
        await using var mux = await ConnectionMultiplexer.ConnectAsync(Options(TestServer.Shared.Port, RedisProtocol.Resp3));
        var server = mux.GetServer("127.0.0.1", TestServer.Shared.Port);
        Assert.Equal(RedisProtocol.Resp3, server.Protocol);
        var db = mux.GetDatabase();
        string p = TestServer.KeyPrefix("ser-resp3");
        await db.HashSetAsync(p + "h", [new("a", "1"), new("b", "2")]);
        var all = await db.HashGetAllAsync(p + "h");
        Assert.Equal(["a=1", "b=2"], all.Select(e => $"{e.Name}={e.Value}").Order());
        Assert.Equal(1.5, await db.SortedSetIncrementAsync(p + "z", "m", 1.5));
        // On RESP3, subscriptions share the interactive connection: messages come as pushes.
        var received = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        await mux.GetSubscriber().SubscribeAsync(RedisChannel.Literal(p + "ch"), (_, message) => received.TrySetResult(message!));
        await mux.GetSubscriber().PublishAsync(RedisChannel.Literal(p + "ch"), "hi");
        Assert.Equal("hi", await received.Task.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal("1", (string?)await db.HashGetAsync(p + "h", "a"));
    }

    [Fact]
    public async Task Reconnect_AfterServerRestart_ClientCarriesOn()
    {
        int port = ReferenceRedis.FreePort();
        var server = TestServer.Start(2, "--port", port.ToString());
        try
        {
            await using var mux = await ConnectionMultiplexer.ConnectAsync(Options(port));
            var db = mux.GetDatabase();
            await db.StringSetAsync("before", "1");
            await server.DisposeAsync();
            await Eventually.WaitFor(() => !mux.IsConnected, () => "the client to see the server go");
            server = TestServer.Start(2, "--port", port.ToString());
            await Eventually.WaitFor(() => mux.IsConnected, () => "the client to reconnect", seconds: 30);
            Assert.True(await db.StringSetAsync("after", "2"));
            Assert.Equal("2", (string?)await db.StringGetAsync("after"));
            Assert.False(await db.KeyExistsAsync("before")); // a new server without persistence
        }
        finally
        {
            await server.DisposeAsync();
        }
    }
}
