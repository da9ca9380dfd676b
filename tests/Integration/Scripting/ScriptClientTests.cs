using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// What client libraries build on scripts: StackExchange.Redis's LuaScript (EVALSHA first, EVAL on
/// NOSCRIPT), ScriptEvaluate with keys and values, and the lock release redis-py's Lock runs.
/// </summary>
public sealed class ScriptClientTests
{
    /// <summary>redis-py's Lock.release: delete the key only while it still holds our token.</summary>
    private const string LockRelease = """
        local token = redis.call('get', KEYS[1])
        if not token or token ~= ARGV[1] then
            return 0
        end
        redis.call('del', KEYS[1])
        return 1
        """;

    private static ConnectionMultiplexer Connect(TestServer server)
        => ConnectionMultiplexer.Connect(new ConfigurationOptions
        {
            EndPoints = { { "127.0.0.1", server.Port } },
            ConnectTimeout = 10_000,
            SyncTimeout = 10_000,
            AbortOnConnectFail = true,
        });

    [Fact]
    public async Task StackExchangeRedis_LuaScript_RunsThroughEvalSha()
    {
        await using var mux = Connect(TestServer.Shared);
        var db = mux.GetDatabase();
        string p = TestServer.KeyPrefix("lua");
        var script = LuaScript.Prepare("redis.call('set', @key, @value) return redis.call('incrby', @counter, @by)");
        var result = await db.ScriptEvaluateAsync(script, new { key = (RedisKey)(p + "k"), value = "v", counter = (RedisKey)(p + "n"), by = 5 });
        Assert.Equal(5, (long)result);
        result = await db.ScriptEvaluateAsync(script, new { key = (RedisKey)(p + "k"), value = "w", counter = (RedisKey)(p + "n"), by = 5 });
        Assert.Equal(10, (long)result);
        Assert.Equal("w", (string?)await db.StringGetAsync(p + "k"));

        var array = await db.ScriptEvaluateAsync("return {KEYS[1], ARGV[1], 3}", [p + "a"], ["b"]);
        var items = (RedisResult[])array!;
        Assert.Equal([p + "a", "b", "3"], items.Select(i => (string?)i));
    }

    [Fact]
    public async Task LockRelease_EvalSha_DeletesOnlyOwnToken()
    {
        await using var mux = Connect(TestServer.Shared);
        var db = mux.GetDatabase();
        string key = TestServer.KeyPrefix("lock") + "lock";
        var server = mux.GetServer("127.0.0.1", TestServer.Shared.Port);
        byte[] sha = await server.ScriptLoadAsync(LockRelease);
        Assert.Equal(20, sha.Length);

        Assert.True(await db.StringSetAsync(key, "token-a", TimeSpan.FromSeconds(30), When.NotExists));
        Assert.Equal(0, (long)await db.ScriptEvaluateAsync(sha, [key], ["token-b"]));
        Assert.True(await db.KeyExistsAsync(key));
        Assert.Equal(1, (long)await db.ScriptEvaluateAsync(sha, [key], ["token-a"]));
        Assert.False(await db.KeyExistsAsync(key));
        Assert.Equal(0, (long)await db.ScriptEvaluateAsync(sha, [key], ["token-a"]));
    }
}
