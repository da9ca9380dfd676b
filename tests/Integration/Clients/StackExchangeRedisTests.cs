using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Clients;

/// <summary>
/// StackExchange.Redis, the .NET client most services use, pointed at the server: its connect
/// handshake (CLIENT SETNAME/SETINFO, CONFIG GET, INFO, CLUSTER NODES, SENTINEL, ECHO...) must
/// succeed, and everyday calls, batches and transactions must give what they give against Redis.
/// </summary>
public sealed class StackExchangeRedisTests
{
    private static ConnectionMultiplexer Connect(TestServer server, bool allowAdmin = false)
        => StackExchangeConnections.Connect(server.Port, allowAdmin);

    [Fact]
    public async Task Connect_Handshake_SeesAStandaloneRedis7()
    {
        await using var mux = Connect(TestServer.Shared, allowAdmin: true);
        Assert.True(mux.IsConnected);
        var server = mux.GetServer("127.0.0.1", TestServer.Shared.Port);
        Assert.Equal(ServerType.Standalone, server.ServerType);
        Assert.True(server.Version >= new Version(7, 2), $"version {server.Version}");
        Assert.False(server.IsReplica);
        Assert.True(await mux.GetDatabase().PingAsync() < TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task Strings_SetGetIncrExpire_AsRedis()
    {
        await using var mux = Connect(TestServer.Shared);
        var db = mux.GetDatabase();
        string p = TestServer.KeyPrefix("ser");
        Assert.True(await db.StringSetAsync(p + "k", "v", TimeSpan.FromSeconds(100)));
        Assert.Equal("v", (string?)await db.StringGetAsync(p + "k"));
        var ttl = await db.KeyTimeToLiveAsync(p + "k");
        Assert.InRange(ttl!.Value.TotalSeconds, 90, 100);
        Assert.False(await db.StringSetAsync(p + "k", "w", when: When.NotExists));
        Assert.Equal(5, await db.StringIncrementAsync(p + "n", 5));
        Assert.Equal(2.5, await db.StringIncrementAsync(p + "f", 2.5));
        Assert.Equal(11, await db.StringAppendAsync(p + "k", "0123456789"));
        var values = await db.StringGetAsync([p + "k", p + "missing", p + "n"]);
        Assert.Equal(["v0123456789", null, "5"], values.Select(v => (string?)v));
        Assert.True(await db.KeyDeleteAsync(p + "k"));
        Assert.False(await db.KeyExistsAsync(p + "k"));
    }

    [Fact]
    public async Task Collections_HashListSetSortedSet_AsRedis()
    {
        await using var mux = Connect(TestServer.Shared);
        var db = mux.GetDatabase();
        string p = TestServer.KeyPrefix("ser");
        await db.HashSetAsync(p + "h", [new HashEntry("a", 1), new HashEntry("b", "two")]);
        Assert.Equal("two", (string?)await db.HashGetAsync(p + "h", "b"));
        Assert.Equal(2, await db.HashLengthAsync(p + "h"));
        Assert.Equal(3, await db.ListRightPushAsync(p + "l", ["x", "y", "z"]));
        Assert.Equal(["x", "y", "z"], (await db.ListRangeAsync(p + "l")).Select(v => (string?)v));
        Assert.Equal("x", (string?)await db.ListLeftPopAsync(p + "l"));
        Assert.Equal(2, await db.SetAddAsync(p + "s", ["m", "n", "m"]));
        Assert.True(await db.SetContainsAsync(p + "s", "n"));
        await db.SortedSetAddAsync(p + "z", [new SortedSetEntry("low", 1), new SortedSetEntry("high", 9)]);
        Assert.Equal(["high", "low"], (await db.SortedSetRangeByRankAsync(p + "z", order: Order.Descending)).Select(v => (string?)v));
        Assert.Equal(9, await db.SortedSetScoreAsync(p + "z", "high"));
    }

    [Fact]
    public async Task Transaction_WithCondition_AppliesOnlyWhenTheConditionHolds()
    {
        await using var mux = Connect(TestServer.Shared);
        var db = mux.GetDatabase();
        string p = TestServer.KeyPrefix("ser");
        var tx = db.CreateTransaction();
        tx.AddCondition(Condition.KeyNotExists(p + "lock"));
        _ = tx.StringSetAsync(p + "lock", "me");
        _ = tx.StringIncrementAsync(p + "count");
        Assert.True(await tx.ExecuteAsync());
        Assert.Equal(1, (long)await db.StringGetAsync(p + "count"));

        tx = db.CreateTransaction();
        tx.AddCondition(Condition.KeyNotExists(p + "lock"));
        _ = tx.StringIncrementAsync(p + "count");
        Assert.False(await tx.ExecuteAsync());
        Assert.Equal(1, (long)await db.StringGetAsync(p + "count"));
    }

    /// <summary>
    /// The client waits on a pool thread for a condition's reply, read by another pool thread: with
    /// the pool's workers all asleep it stalled until its 10 s timeout, which the test process's
    /// minimum thread count (<see cref="TestProcess"/>) prevents.
    /// </summary>
    [Fact]
    public async Task Transaction_WithCondition_WhileThePoolIsBusy_CompletesBeforeTheTimeout()
    {
        await using var mux = Connect(TestServer.Shared);
        var db = mux.GetDatabase();
        string p = TestServer.KeyPrefix("ser");
        await db.StringSetAsync(p + "lock", "held");
        var sleepers = Enumerable.Range(0, 40).Select(_ => Task.Run(() => Thread.Sleep(1500))).ToArray();
        try
        {
            var tx = db.CreateTransaction();
            tx.AddCondition(Condition.KeyNotExists(p + "lock"));
            _ = tx.StringIncrementAsync(p + "count");
            Assert.False(await tx.ExecuteAsync());
        }
        finally
        {
            await Task.WhenAll(sleepers);
        }
        Assert.False(await db.KeyExistsAsync(p + "count"));
    }

    [Fact]
    public async Task Batch_ManyPipelinedCommands_AllAnsweredInOrder()
    {
        await using var mux = Connect(TestServer.Shared);
        var db = mux.GetDatabase();
        string p = TestServer.KeyPrefix("ser");
        var batch = db.CreateBatch();
        var sets = Enumerable.Range(0, 500).Select(i => batch.StringSetAsync(p + i, i)).ToArray();
        var gets = Enumerable.Range(0, 500).Select(i => batch.StringGetAsync(p + i)).ToArray();
        batch.Execute();
        Assert.All(await Task.WhenAll(sets), Assert.True);
        var values = await Task.WhenAll(gets);
        for (int i = 0; i < 500; i++) Assert.Equal(i, (int)values[i]);
    }

    [Fact]
    public async Task PubSub_SubscribeAndPublish_DeliversTheMessage()
    {
        await using var mux = Connect(TestServer.Shared);
        string channel = TestServer.KeyPrefix("ser-channel");
        var received = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        var subscriber = mux.GetSubscriber();
        await subscriber.SubscribeAsync(RedisChannel.Literal(channel), (_, message) => received.TrySetResult(message!));
        Assert.Equal(1, await mux.GetDatabase().PublishAsync(RedisChannel.Literal(channel), "hello"));
        Assert.Equal("hello", await received.Task.WaitAsync(TimeSpan.FromSeconds(10)));
    }

    [Fact]
    public async Task Keys_ScanThroughTheClient_VisitsEveryKey()
    {
        await using var server = TestServer.Start(shards: 4);
        await using var mux = Connect(server, allowAdmin: true);
        var db = mux.GetDatabase();
        for (int i = 0; i < 300; i++) await db.StringSetAsync("scan:" + i, i);
        var keys = mux.GetServer("127.0.0.1", server.Port).Keys(pattern: "scan:*", pageSize: 50).Select(k => (string)k!).ToHashSet();
        Assert.Equal(300, keys.Count);
    }
}
