using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Clients;

/// <summary>
/// IServer's commands (INFO, CONFIG, DBSIZE, TIME, LASTSAVE, ROLE, CLIENT LIST, SLOWLOG, MEMORY
/// STATS, COMMAND COUNT/GETKEYS, ECHO, LATENCY LATEST, FLUSHDB) and exact-channel pub/sub through
/// StackExchange.Redis, on redis-server and on RedisClone. Where a reply is a measurement (times,
/// memory, counts of commands a newer Redis has more of) its shape is compared, not its value.
/// </summary>
[Collection(StackExchangePair.Collection)]
public sealed class StackExchangeServerTests(StackExchangePair pair)
{
    private readonly string _p = TestServer.KeyPrefix("se-server");

    [RedisFact]
    public async Task Info_SectionsAndFieldsTheClientReads_SameShapeAsRedis()
    {
        await pair.SameOn(async s => (await s.Server.InfoAsync()).Select(g => g.Key).ToArray());
        foreach (var section in new[] { "server", "clients", "memory", "persistence", "stats", "replication", "cpu", "keyspace" })
        {
            await pair.SameOn(async s => (await s.Server.InfoAsync(section)).Select(g => g.Key).ToArray());
        }
        // The fields a 7.0 INFO has are all in ours (7.2 adds some), with values of the same kind.
        foreach (var section in new[] { "server", "clients", "persistence", "stats", "replication" })
        {
            var theirs = (await pair.Theirs.Server.InfoAsync(section)).SelectMany(g => g).ToDictionary(kv => kv.Key, kv => kv.Value);
            var ours = (await pair.Ours.Server.InfoAsync(section)).SelectMany(g => g).ToDictionary(kv => kv.Key, kv => kv.Value);
            var missing = theirs.Keys.Except(ours.Keys).Where(k => !RemovedIn72.Contains(k)).ToArray();
            Assert.True(missing.Length == 0, $"INFO {section} lacks: {string.Join(", ", missing)}");
        }
        await pair.SameOn(async s => (await s.Server.InfoAsync("replication")).SelectMany(g => g)
            .Where(kv => kv.Key is "role" or "connected_slaves").ToArray());
        Assert.StartsWith("8.2.", (await pair.Ours.Server.InfoAsync("server")).SelectMany(g => g).First(kv => kv.Key == "redis_version").Value);
        await pair.SameOn(async s => (await s.Server.InfoRawAsync("nosuchsection"))?.Length);
    }

    // Fields redis-server 7.0 prints that 7.2 no longer does (7.2.6 src/server.c genRedisInfoString).
    private static readonly HashSet<string> RemovedIn72 = [];

    [RedisFact]
    public async Task Config_GetSetAndErrors_SameAsRedis()
    {
        await pair.SameOn(s => s.Server.ConfigGetAsync("maxmemory"));
        await pair.SameOn(s => s.Server.ConfigGetAsync("maxmemory-polic*"));
        await pair.SameOn(s => s.Server.ConfigGetAsync("nosuchparameter"));
        await pair.SameOn(async s => (await s.Server.ConfigGetAsync("*")).Length > 150);
        await pair.SameOn(s => s.Server.ConfigSetAsync("slowlog-max-len", "200").ContinueWith(t => t.Status.ToString()));
        await pair.SameOn(s => s.Server.ConfigGetAsync("slowlog-max-len"));
        await pair.SameOn(async s => { await s.Server.ConfigSetAsync("maxmemory-policy", "sometimes"); return "set"; }); // or the error text
        await pair.SameOn(async s => { await s.Server.ConfigSetAsync("nosuchparameter", "1"); return "set"; }); // or the error text
        await pair.SameOn(s => s.Server.ConfigSetAsync("slowlog-max-len", "128").ContinueWith(t => t.Status.ToString()));
    }

    [RedisFact]
    public async Task DatabaseSizeFlushTimeLastSaveRole_SameAsRedis()
    {
        await pair.SameOn(async s =>
        {
            var db = s.Mux.GetDatabase(7);
            await s.Server.FlushDatabaseAsync(7);
            long empty = await s.Server.DatabaseSizeAsync(7);
            for (int i = 0; i < 25; i++) await db.StringSetAsync(_p + i, i);
            long filled = await s.Server.DatabaseSizeAsync(7);
            await s.Server.FlushDatabaseAsync(7);
            return (empty, filled, await s.Server.DatabaseSizeAsync(7), await db.KeyExistsAsync(_p + 1));
        });
        await pair.SameOn(async s => Math.Abs((await s.Server.TimeAsync() - DateTime.UtcNow).TotalSeconds) < 5);
        await pair.SameOn(async s => (await s.Server.LastSaveAsync()) is var t && t > new DateTime(2020, 1, 1) && t <= DateTime.UtcNow.AddMinutes(1));
        await pair.SameOn(async s => await s.Server.RoleAsync() is Role.Master { Replicas.Count: 0 });
        await pair.SameOn(async s => (await s.Server.RoleAsync()).Value);
        await pair.SameOn(s => s.Server.EchoAsync("hello world"));
        await pair.SameOn(s => s.Server.EchoAsync(""));
    }

    [RedisFact]
    public async Task ClientList_ShowsTheConnectionsFields_SameAsRedis()
    {
        await pair.SameOn(async s =>
        {
            var clients = await s.Server.ClientListAsync();
            var me = clients.FirstOrDefault(c => c.Name == s.Mux.ClientName && c.Raw!.Contains(" cmd=client|list"));
            return new
            {
                Found = me != null,
                me?.Database,
                me?.ClientType,
                me?.Flags,
                me?.Protocol,
                Fields = me?.Raw!.Split(' ').Select(f => f.Split('=')[0]).Except(["ssub", "lib-name", "lib-ver", "watch"]).ToArray(), // 7.2 adds these, 7.4 watch
            };
        });
        // Redis 7.4's CLIENT LIST line, field for field (7.2.6 src/networking.c catClientInfoString, with 7.4's watch).
        var mine = (await pair.Ours.Server.ClientListAsync()).First(c => c.Raw!.Contains(" cmd=client|list"));
        Assert.Equal("id addr laddr fd name age idle flags db sub psub ssub multi watch qbuf qbuf-free argv-mem multi-mem rbs rbp obl oll omem tot-mem events cmd user redir resp lib-name lib-ver",
            string.Join(' ', mine.Raw!.Split(' ').Select(f => f.Split('=')[0])));
    }

    [RedisFact]
    public async Task SlowlogGet_AfterAThresholdOfZero_SameEntriesAsRedis()
    {
        try
        {
            await pair.SameOn(async s =>
            {
                await s.Server.SlowlogResetAsync();
                await s.Server.ConfigSetAsync("slowlog-log-slower-than", "0");
                await s.Db.StringSetAsync(_p + "slow", "v");
                await s.Db.ExecuteAsync("ECHO", new string('x', 200));
                await s.Server.ConfigSetAsync("slowlog-log-slower-than", "10000");
                var entries = await s.Server.SlowlogGetAsync(10);
                return entries.Select(e => new { Args = e.Arguments.Select(a => a.ToString()).ToArray(), Sane = e.UniqueId >= 0 && e.Duration >= TimeSpan.Zero }).ToArray();
            });
            await pair.SameOn(async s => (await s.Server.SlowlogGetAsync(1)).Length);
        }
        finally
        {
            await pair.Theirs.Server.ConfigSetAsync("slowlog-log-slower-than", "10000");
            await pair.Ours.Server.ConfigSetAsync("slowlog-log-slower-than", "10000");
        }
    }

    [RedisFact]
    public async Task MemoryStatsCommandsAndLatency_SameShapeAsRedis()
    {
        await pair.SameOn(async s =>
        {
            var stats = (await s.Server.MemoryStatsAsync())!;
            var map = stats.ToDictionary();
            return new { Type = stats.Resp2Type, Keys = map.Keys.Where(k => !k.StartsWith("db.")).Order().ToArray(), Db0 = map.ContainsKey("db.0") };
        });
        await pair.SameOn(async s => await s.Server.CommandCountAsync() > 200);
        await pair.SameOn(s => s.Server.CommandGetKeysAsync(["MSET", "a", "1", "b", "2"]));
        await pair.SameOn(s => s.Server.CommandGetKeysAsync(["ZUNIONSTORE", "dest", "2", "s1", "s2", "WEIGHTS", "1", "2"]));
        await pair.SameOn(s => s.Server.CommandGetKeysAsync(["SORT", "list", "BY", "w_*", "STORE", "out"]));
        await pair.SameOn(s => s.Server.CommandGetKeysAsync(["EVAL", "return 1", "2", "k1", "k2", "arg"]));
        await pair.SameOn(s => s.Server.CommandGetKeysAsync(["PING"]));
        await pair.SameOn(s => s.Server.CommandGetKeysAsync(["NOSUCHCOMMAND", "x"]));
        await pair.SameOn(s => s.Server.CommandGetKeysAsync(["GET"]));
        await pair.SameOn(async s => (await s.Server.CommandListAsync()).Length > 200);
        await pair.SameOn(s => s.Server.LatencyLatestAsync());
        await pair.SameOn(s => s.Server.LatencyHistoryAsync("command"));
        await pair.SameOn(s => s.Server.LatencyResetAsync());
        await pair.SameOn(async s => (await s.Server.LatencyDoctorAsync()).Length > 0);
        await pair.SameOn(async s => (await s.Server.MemoryDoctorAsync()).Length > 0);
    }

    [RedisFact]
    public async Task PubSub_ExactChannels_CountsAndDeliveryAsRedis()
    {
        string ch = _p + "news";
        await pair.SameOn(async s =>
        {
            var sub = s.Mux.GetSubscriber();
            var got = new System.Collections.Concurrent.ConcurrentQueue<string>();
            var channel = RedisChannel.Literal(ch);
            // A queue hands messages over one at a time, in order (a plain handler may run them concurrently).
            (await sub.SubscribeAsync(channel)).OnMessage(m => got.Enqueue($"{m.Channel}:{m.Message}"));
            long none = await s.Db.PublishAsync(RedisChannel.Literal(ch + "-other"), "x");
            long one = await s.Db.PublishAsync(channel, "first");
            await s.Db.PublishAsync(channel, "second");
            await Eventually.WaitFor(() => got.Count == 2, () => $"two messages on {s}");
            var channels = (await s.Server.SubscriptionChannelsAsync(RedisChannel.Pattern(_p + "*"))).Select(c => c.ToString()).ToArray();
            long subscribers = await s.Server.SubscriptionSubscriberCountAsync(channel);
            await sub.UnsubscribeAsync(channel);
            long afterUnsubscribe = await s.Db.PublishAsync(channel, "third");
            long countAfter = await s.Server.SubscriptionSubscriberCountAsync(channel);
            return new { none, one, Messages = got.ToArray(), channels, subscribers, afterUnsubscribe, countAfter };
        });
        await pair.SameOn(s => s.Server.SubscriptionPatternCountAsync());
    }

    [RedisFact]
    public async Task PubSub_Resp3PublishToItself_DeliveredInOrderAsRedis()
    {
        string ch = _p + "self";
        await pair.SameOn(async s =>
        {
            await using var mux = await ConnectionMultiplexer.ConnectAsync(StackExchangeConnections.Options(s.Port, RedisProtocol.Resp3));
            var got = new System.Collections.Concurrent.ConcurrentQueue<string>();
            (await mux.GetSubscriber().SubscribeAsync(RedisChannel.Literal(ch))).OnMessage(m => got.Enqueue((string)m.Message!));
            var published = Enumerable.Range(0, 50).Select(i => mux.GetDatabase().PublishAsync(RedisChannel.Literal(ch), "m" + i)).ToArray();
            long[] counts = await Task.WhenAll(published);
            await Eventually.WaitFor(() => got.Count == 50, () => $"50 messages on {s}, got {got.Count}");
            return new { Counts = counts.Distinct().ToArray(), Messages = got.ToArray() };
        });
    }
}
