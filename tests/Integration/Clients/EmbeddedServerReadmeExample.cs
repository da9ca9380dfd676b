using RedisClone;
using StackExchange.Redis;
using Xunit;

namespace RedisClone.Tests.Clients;

// One server for all the tests of a class: started before the first, disposed after the last.
public sealed class RedisCloneFixture : IAsyncLifetime
{
    public RedisCloneServer Server { get; private set; } = null!;
    public ConnectionMultiplexer Redis { get; private set; } = null!;

    public async Task InitializeAsync()
    {
        // A free loopback port, data in memory only, no log. Settings are redis-server's:
        // StartAsync("--maxmemory", "64mb"), or new RedisCloneOptions { ... } for a log or a data directory.
        Server = await RedisCloneServer.StartAsync();
        Redis = await ConnectionMultiplexer.ConnectAsync(Server.ConnectionString);
    }

    public async Task DisposeAsync()
    {
        await Redis.DisposeAsync();
        await Server.DisposeAsync();
    }
}

public sealed class ShoppingCartTests(RedisCloneFixture fixture) : IClassFixture<RedisCloneFixture>
{
    [Fact]
    public async Task AddItem_SameItemTwice_CountsTwo()
    {
        IDatabase db = fixture.Redis.GetDatabase();
        await db.HashIncrementAsync("cart:42", "apple");
        await db.HashIncrementAsync("cart:42", "apple");
        Assert.Equal(2, (long)await db.HashGetAsync("cart:42", "apple"));
    }
}
