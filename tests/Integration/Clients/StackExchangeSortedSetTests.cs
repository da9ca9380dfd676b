using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Clients;

/// <summary>
/// Sorted sets through StackExchange.Redis's typed API: every SortedSetRangeBy* variant with its
/// Exclude, Order, skip and take; combining (with weights and aggregates), ZRANGESTORE, pops
/// (ZMPOP and the blocking pops through Execute) and random members; each call made on
/// redis-server and on RedisClone and the client's results compared.
/// </summary>
[Collection(StackExchangePair.Collection)]
public sealed class StackExchangeSortedSetTests(StackExchangePair pair)
{
    private readonly string _p = TestServer.KeyPrefix("se-zset");

    private async Task<string> Fill(string name, int count = 10)
    {
        string k = _p + name;
        await pair.Same(db => db.SortedSetAddAsync(k, Enumerable.Range(0, count)
            .Select(i => new SortedSetEntry(((char)('a' + i)).ToString(), i % 2 == 0 ? i : i + 0.5)).ToArray()));
        return k;
    }

    [RedisFact]
    public async Task SortedSetAdd_WhenFlagsAndIncrements_SameAsRedis()
    {
        string k = _p + "add";
        await pair.Same(db => db.SortedSetAddAsync(k, "a", 1));
        await pair.Same(db => db.SortedSetAddAsync(k, "a", 2));
        foreach (var when in new[] { SortedSetWhen.NotExists, SortedSetWhen.Exists, SortedSetWhen.GreaterThan, SortedSetWhen.LessThan,
                     SortedSetWhen.Exists | SortedSetWhen.GreaterThan, SortedSetWhen.NotExists | SortedSetWhen.GreaterThan })
        {
            await pair.Same(db => db.SortedSetAddAsync(k, "a", 5, when));
            await pair.Same(db => db.SortedSetAddAsync(k, "a", 0.5, when));
            await pair.Same(db => db.SortedSetAddAsync(k, [new SortedSetEntry("a", 3), new SortedSetEntry("b" + (int)when, 1)], when));
            await pair.Same(db => db.SortedSetUpdateAsync(k, "a", 7, when));
            await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(k));
        }
        await pair.Same(db => db.SortedSetAddAsync(k, "inf", double.PositiveInfinity));
        await pair.Same(db => db.SortedSetAddAsync(k, "ninf", double.NegativeInfinity));
        await pair.Same(db => db.SortedSetIncrementAsync(k, "a", 2.5));
        await pair.Same(db => db.SortedSetDecrementAsync(k, "new", 1));
        await pair.Same(db => db.SortedSetIncrementAsync(k, "inf", double.NegativeInfinity));
        await pair.Same(db => db.SortedSetScoreAsync(k, "a"));
        await pair.Same(db => db.SortedSetScoreAsync(k, "nope"));
        await pair.Same(db => db.SortedSetScoresAsync(k, ["a", "nope", "inf"]));
        await pair.Same(db => db.SortedSetRankAsync(k, "a"));
        await pair.Same(db => db.SortedSetRankAsync(k, "a", Order.Descending));
        await pair.Same(db => db.SortedSetRankAsync(k, "nope"));
        await pair.Same(db => db.SortedSetLengthAsync(k));
        await pair.Same(db => db.SortedSetRemoveAsync(k, ["a", "nope"]));
        await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(k));
        await pair.Same(db => db.StringSetAsync(_p + "str", "v"));
        await pair.Same(db => db.SortedSetAddAsync(_p + "str", "a", 1));
        await pair.Same(db => db.SortedSetScoreAsync(_p + "str", "a"));
    }

    [RedisFact]
    public async Task SortedSetRangeByRankAndScore_ExcludeOrderSkipTake_SameAsRedis()
    {
        string k = await Fill("r");
        foreach (var order in new[] { Order.Ascending, Order.Descending })
        {
            foreach (var (start, stop) in new (long, long)[] { (0, -1), (2, 4), (-3, -1), (5, 2), (8, 100) })
            {
                await pair.Same(db => db.SortedSetRangeByRankAsync(k, start, stop, order));
                await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(k, start, stop, order));
            }
            foreach (var exclude in new[] { Exclude.None, Exclude.Start, Exclude.Stop, Exclude.Both })
            {
                foreach (var (start, stop) in new[] { (2.0, 6.0), (6.0, 2.0), (double.NegativeInfinity, 3.5), (4.0, double.PositiveInfinity), (1.5, 1.5) })
                {
                    await pair.Same(db => db.SortedSetRangeByScoreAsync(k, start, stop, exclude, order));
                    await pair.Same(db => db.SortedSetRangeByScoreWithScoresAsync(k, start, stop, exclude, order, skip: 1, take: 2));
                    await pair.Same(db => db.SortedSetLengthAsync(k, start, stop, exclude));
                }
                await pair.Same(db => db.SortedSetRangeByScoreAsync(k, exclude: exclude, order: order, skip: 3));
                await pair.Same(db => db.SortedSetRangeByScoreAsync(k, exclude: exclude, order: order, skip: 2, take: 0));
            }
        }
        await pair.Same(db => db.SortedSetRangeByRankAsync(_p + "missing"));
        await pair.Same(db => db.SortedSetRangeByScoreWithScoresAsync(_p + "missing", 0, 1));
    }

    [RedisFact]
    public async Task SortedSetRangeByValue_LexBoundsAndRemoval_SameAsRedis()
    {
        string k = _p + "lex";
        await pair.Same(db => db.SortedSetAddAsync(k, "abcdefg".Select(c => new SortedSetEntry(c.ToString(), 0)).ToArray()));
        foreach (var order in new[] { Order.Ascending, Order.Descending })
        {
            foreach (var exclude in new[] { Exclude.None, Exclude.Start, Exclude.Stop, Exclude.Both })
            {
                await pair.Same(db => db.SortedSetRangeByValueAsync(k, "b", "e", exclude, order));
                await pair.Same(db => db.SortedSetRangeByValueAsync(k, "e", "b", exclude, order));
                await pair.Same(db => db.SortedSetRangeByValueAsync(k, "b", "e", exclude, order, skip: 1, take: 2));
                await pair.Same(db => db.SortedSetRangeByValueAsync(k, default, "c", exclude, order));
                await pair.Same(db => db.SortedSetRangeByValueAsync(k, "c", default, exclude, order, take: 3));
                await pair.Same(db => db.SortedSetLengthByValueAsync(k, "b", "e", exclude));
            }
        }
        await pair.Same(db => db.SortedSetRangeByValueAsync(k, "b", "e", Exclude.None, 1, 2));
        await pair.Same(db => db.SortedSetRemoveRangeByValueAsync(k, "b", "d", Exclude.Start));
        await pair.Same(db => db.SortedSetRangeByRankAsync(k));
        await pair.Same(db => db.SortedSetAddAsync(k, "z", 1));
        await pair.Same(db => db.SortedSetRangeByValueAsync(k, "a", "z")); // scores differ: unspecified but deterministic
    }

    [RedisFact]
    public async Task SortedSetRemoveRanges_SameAsRedis()
    {
        string k = await Fill("rm");
        await pair.Same(db => db.SortedSetRemoveRangeByRankAsync(k, 0, 1));
        await pair.Same(db => db.SortedSetRemoveRangeByRankAsync(k, -2, -1));
        await pair.Same(db => db.SortedSetRemoveRangeByScoreAsync(k, 3, 5.5, Exclude.Stop));
        await pair.Same(db => db.SortedSetRemoveRangeByScoreAsync(k, 100, 200));
        await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(k));
        await pair.Same(db => db.SortedSetRemoveRangeByScoreAsync(k, double.NegativeInfinity, double.PositiveInfinity));
        await pair.Same(db => db.KeyExistsAsync(k));
    }

    [RedisFact]
    public async Task SortedSetCombine_WeightsAggregatesAndStore_SameAsRedis()
    {
        string a = _p + "{c}a", b = _p + "{c}b", s = _p + "{c}set", dest = _p + "{c}dest";
        await pair.Same(db => db.SortedSetAddAsync(a, [new("x", 1), new("y", 2), new("z", 3)]));
        await pair.Same(db => db.SortedSetAddAsync(b, [new("y", 10), new("z", 20), new("w", 30)]));
        await pair.Same(db => db.SetAddAsync(s, ["x", "w", "v"]));
        foreach (var op in new[] { SetOperation.Union, SetOperation.Intersect, SetOperation.Difference })
        {
            await pair.Same(db => db.SortedSetCombineAsync(op, [a, b]));
            await pair.Same(db => db.SortedSetCombineWithScoresAsync(op, [a, b]));
            await pair.Same(db => db.SortedSetCombineWithScoresAsync(op, [a, s, _p + "{c}missing"]));
            await pair.Same(db => db.SortedSetCombineAndStoreAsync(op, dest, a, b));
            await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(dest));
            if (op == SetOperation.Difference) continue; // ZDIFF takes neither weights nor an aggregate
            foreach (var aggregate in new[] { Aggregate.Sum, Aggregate.Min, Aggregate.Max })
            {
                await pair.Same(db => db.SortedSetCombineWithScoresAsync(op, [a, b, s], [2, 0.5, 3], aggregate));
                await pair.Same(db => db.SortedSetCombineAndStoreAsync(op, dest, [a, b], [-1, 1], aggregate));
                await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(dest));
            }
        }
        await pair.SameExecute("ZDIFF", "2", a, b, "WEIGHTS", "1", "2"); // the client refuses to send this itself
        await pair.SameExecute("ZUNION", "2", a, b, "WEIGHTS", "1");
        await pair.SameExecute("ZINTER", "2", a, b, "AGGREGATE", "AVG");
        await pair.SameExecute("ZUNIONSTORE", dest, "0", a);
        await pair.Same(db => db.SortedSetIntersectionLengthAsync([a, b]));
        await pair.Same(db => db.SortedSetIntersectionLengthAsync([a, b, s], 1));
        await pair.Same(db => db.SortedSetIntersectionLengthAsync([a, _p + "{c}missing"]));
    }

    [RedisFact]
    public async Task SortedSetRangeAndStore_EveryOrderAndBound_SameAsRedis()
    {
        string k = await Fill("{rs}src");
        string dest = _p + "{rs}dest";
        foreach (var order in new[] { Order.Ascending, Order.Descending })
        {
            await pair.Same(db => db.SortedSetRangeAndStoreAsync(k, dest, 1, 4, SortedSetOrder.ByRank, order: order));
            await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(dest));
            foreach (var exclude in new[] { Exclude.None, Exclude.Both })
            {
                RedisValue low = order == Order.Ascending ? 2 : 7, high = order == Order.Ascending ? 7 : 2;
                await pair.Same(db => db.SortedSetRangeAndStoreAsync(k, dest, low, high, SortedSetOrder.ByScore, exclude, order, 1, 2));
                await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(dest));
            }
        }
        await pair.Same(db => db.SortedSetRangeAndStoreAsync(k, dest, 0, 100, SortedSetOrder.ByScore, take: 3));
        await pair.Same(db => db.SortedSetRangeAndStoreAsync(k, dest, 1, 2, SortedSetOrder.ByRank, skip: 1));
        await pair.Same(db => db.SortedSetRangeAndStoreAsync(k, dest, 100, 200, SortedSetOrder.ByScore));
        await pair.Same(db => db.KeyExistsAsync(dest));
        string lex = _p + "{rs}lex";
        await pair.Same(db => db.SortedSetAddAsync(lex, "abcdef".Select(c => new SortedSetEntry(c.ToString(), 0)).ToArray()));
        await pair.Same(db => db.SortedSetRangeAndStoreAsync(lex, dest, "b", "e", SortedSetOrder.ByLex, Exclude.Stop));
        await pair.Same(db => db.SortedSetRangeByRankAsync(dest));
        await pair.Same(db => db.SortedSetRangeAndStoreAsync(lex, dest, "e", "b", SortedSetOrder.ByLex, Exclude.None, Order.Descending, 1, 2));
        await pair.Same(db => db.SortedSetRangeByRankAsync(dest));
        await pair.Same(db => db.SortedSetRangeAndStoreAsync(lex, dest, "-", "+", SortedSetOrder.ByLex));
        await pair.Same(db => db.SortedSetRangeByRankAsync(dest));
    }

    [RedisFact]
    public async Task SortedSetPop_SingleMultiKeyAndBlocking_SameAsRedis()
    {
        string k = await Fill("{p}a");
        string other = await Fill("{p}b", 3);
        await pair.Same(db => db.SortedSetPopAsync(k));
        await pair.Same(db => db.SortedSetPopAsync(k, Order.Descending));
        await pair.Same(db => db.SortedSetPopAsync(k, 2));
        await pair.Same(db => db.SortedSetPopAsync(k, 2, Order.Descending));
        await pair.Same(db => db.SortedSetPopAsync(_p + "{p}missing"));
        await pair.Same(db => db.SortedSetPopAsync(_p + "{p}missing", 3));
        await pair.Same(db => db.SortedSetPopAsync([_p + "{p}missing", other, k], 2));
        await pair.Same(db => db.SortedSetPopAsync([other, k], 5, Order.Descending));
        await pair.Same(db => db.SortedSetPopAsync([_p + "{p}missing"], 1));
        await pair.Same(db => db.SortedSetPopAsync([other], 0));
        await pair.SameExecute("BZPOPMIN", _p + "{p}missing", k, "0");
        await pair.SameExecute("BZPOPMAX", k, "0.01");
        await pair.SameExecute("BZMPOP", "0", "2", _p + "{p}missing", k, "MAX", "COUNT", "2");
        await pair.SameExecute("BZMPOP", "0.01", "1", _p + "{p}missing", "MIN");
        await pair.SameExecute("BZPOPMIN", _p + "{p}missing", "0.01");
        await pair.SameExecute("BZMPOP", "0", "1", k, "SIDEWAYS");
        await pair.SameExecute("ZMPOP", "1", k, "MIN", "COUNT", "0");
        await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(k));
        await pair.SameOn(async s =>
        {
            using var blocker = s.ConnectAnother();
            var popped = blocker.GetDatabase().ExecuteAsync("BZPOPMAX", _p + "{p}empty", "10");
            await Eventually.WaitFor(() => s.Server.Info("clients").SelectMany(g => g).First(kv => kv.Key == "blocked_clients").Value == "1",
                () => $"a client blocked on {s}");
            await s.Db.SortedSetAddAsync(_p + "{p}empty", [new("lo", 1), new("hi", 2)]);
            return await popped;
        });
    }

    [RedisFact]
    public async Task SortedSetRandomMembersAndScan_SameAsRedis()
    {
        foreach (int size in new[] { 10, 300 })
        {
            string k = await Fill("rand" + size, size);
            await pair.SameOn(async s => (await StackExchangeCollectionTests.Collect(s.Db.SortedSetScanAsync(k, "*a*", pageSize: 4)))
                .OrderBy(e => (string)e.Element!).ToArray());
            await pair.Same(async db =>
            {
                var all = (await db.SortedSetRangeByRankWithScoresAsync(k)).ToDictionary(e => (string)e.Element!, e => e.Score);
                var one = await db.SortedSetRandomMemberAsync(k);
                var some = await db.SortedSetRandomMembersAsync(k, 4);
                var repeated = await db.SortedSetRandomMembersAsync(k, -30);
                var withScores = await db.SortedSetRandomMembersWithScoresAsync(k, -7);
                return new
                {
                    One = all.ContainsKey(one!),
                    Some = some.Distinct().Count() == 4 && some.All(m => all.ContainsKey(m!)),
                    Repeated = repeated.Length == 30 && repeated.All(m => all.ContainsKey(m!)),
                    WithScores = withScores.Length == 7 && withScores.All(e => all[e.Element!] == e.Score),
                    Everything = (await db.SortedSetRandomMembersAsync(k, 100_000)).Length,
                };
            });
        }
        await pair.Same(db => db.SortedSetRandomMemberAsync(_p + "missing"));
        await pair.Same(db => db.SortedSetRandomMembersAsync(_p + "missing", 5));
        await pair.Same(db => db.SortedSetRandomMembersWithScoresAsync(_p + "missing", 5));
    }
}
