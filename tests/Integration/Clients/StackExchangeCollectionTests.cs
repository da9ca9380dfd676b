using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Clients;

/// <summary>
/// Lists, hashes, sets and SORT through StackExchange.Redis's typed API, each call made on
/// redis-server and on RedisClone and the client's results compared. Replies Redis gives in no set
/// order (set members, scans, random picks) are compared sorted or by what is certain about them.
/// </summary>
[Collection(StackExchangePair.Collection)]
public sealed class StackExchangeCollectionTests(StackExchangePair pair)
{
    private readonly string _p = TestServer.KeyPrefix("se-coll");

    [RedisFact]
    public async Task Lists_PushPopRangeInsertRemove_SameAsRedis()
    {
        string k = _p + "l";
        await pair.Same(db => db.ListLeftPushAsync(k, "x", When.Exists));
        await pair.Same(db => db.ListRightPushAsync(k, ["a", "b", "c", "d", "e", "c", "f"]));
        await pair.Same(db => db.ListLeftPushAsync(k, ["z", "y"]));
        await pair.Same(db => db.ListRightPushAsync(k, "g", When.Exists));
        await pair.Same(db => db.ListRangeAsync(k));
        foreach (var (start, stop) in new (long, long)[] { (0, 2), (-3, -1), (5, 100), (4, 1), (-100, 0) })
            await pair.Same(db => db.ListRangeAsync(k, start, stop));
        await pair.Same(db => db.ListGetByIndexAsync(k, -1));
        await pair.Same(db => db.ListGetByIndexAsync(k, 99));
        await pair.Same(db => db.ListSetByIndexAsync(k, 1, "Y"));
        await pair.Same(db => db.ListSetByIndexAsync(k, 99, "Y"));
        await pair.Same(db => db.ListSetByIndexAsync(_p + "missing", 0, "Y"));
        await pair.Same(db => db.ListInsertBeforeAsync(k, "c", "before-c"));
        await pair.Same(db => db.ListInsertAfterAsync(k, "c", "after-c"));
        await pair.Same(db => db.ListInsertAfterAsync(k, "nope", "x"));
        await pair.Same(db => db.ListInsertAfterAsync(_p + "missing", "c", "x"));
        await pair.Same(db => db.ListRemoveAsync(k, "c", -1));
        await pair.Same(db => db.ListRemoveAsync(k, "nope"));
        await pair.Same(db => db.ListRangeAsync(k));
        await pair.Same(db => db.ListPositionAsync(k, "c"));
        await pair.Same(db => db.ListRightPushAsync(k, ["c", "q", "c"]));
        await pair.Same(db => db.ListPositionAsync(k, "c", rank: -1));
        await pair.Same(db => db.ListPositionAsync(k, "c", rank: 2, maxLength: 5));
        await pair.Same(db => db.ListPositionAsync(k, "nope"));
        await pair.Same(db => db.ListPositionsAsync(k, "c", 10));
        await pair.Same(db => db.ListPositionsAsync(k, "c", 0, rank: -1));
        await pair.Same(db => db.ListPositionsAsync(k, "c", 2, rank: 2, maxLength: 100));
        await pair.Same(db => db.ListPositionAsync(k, "c", rank: 0));
        await pair.Same(db => db.ListLeftPopAsync(k));
        await pair.Same(db => db.ListLeftPopAsync(k, 3));
        await pair.Same(db => db.ListRightPopAsync(k, 2));
        await pair.Same(db => db.ListLeftPopAsync(k, 0));
        await pair.Same(db => db.ListLeftPopAsync(_p + "missing", 2));
        await pair.Same(db => db.ListRightPopAsync(_p + "missing"));
        await pair.Same(db => db.ListTrimAsync(k, 1, -2));
        await pair.Same(db => db.ListRangeAsync(k));
        await pair.Same(db => db.ListLengthAsync(k));
        await pair.Same(db => db.ListLengthAsync(_p + "missing"));
        await pair.Same(db => db.StringSetAsync(_p + "str", "v"));
        await pair.Same(db => db.ListLeftPushAsync(_p + "str", "v"));
        await pair.Same(db => db.ListLeftPopAsync(_p + "str", 2));
    }

    [RedisFact]
    public async Task Lists_MoveAndMultiKeyPop_SameAsRedis()
    {
        string a = _p + "a", b = _p + "b";
        await pair.Same(db => db.ListRightPushAsync(a, ["1", "2", "3", "4"]));
        await pair.Same(db => db.ListMoveAsync(a, b, ListSide.Left, ListSide.Right));
        await pair.Same(db => db.ListMoveAsync(a, b, ListSide.Right, ListSide.Left));
        await pair.Same(db => db.ListMoveAsync(a, a, ListSide.Left, ListSide.Right)); // rotates
        await pair.Same(db => db.ListMoveAsync(_p + "missing", b, ListSide.Left, ListSide.Right));
        await pair.Same(db => db.ListRightPopLeftPushAsync(a, b));
        await pair.Same(db => db.ListRangeAsync(a));
        await pair.Same(db => db.ListRangeAsync(b));
        await pair.Same(db => db.ListLeftPopAsync([_p + "missing", b, a], 2));
        await pair.Same(db => db.ListRightPopAsync([_p + "missing", b, a], 10));
        await pair.Same(db => db.ListLeftPopAsync([_p + "missing", b], 1));
        await pair.Same(db => db.ListLeftPopAsync([a], 0));
    }

    [RedisFact]
    public async Task Lists_BlockingCommandsThroughExecute_SameAsRedis()
    {
        string a = _p + "ba", b = _p + "bb";
        await pair.Same(db => db.ListRightPushAsync(a, ["1", "2", "3", "4", "5", "6"]));
        await pair.SameExecute("BLPOP", _p + "missing", a, "0");
        await pair.SameExecute("BRPOP", a, "0.01");
        await pair.SameExecute("BLMOVE", a, b, "LEFT", "RIGHT", "0");
        await pair.SameExecute("BRPOPLPUSH", a, b, "0");
        await pair.SameExecute("BLMPOP", "0", "2", _p + "missing", b, "RIGHT", "COUNT", "5");
        await pair.SameExecute("BLMPOP", "0.01", "1", _p + "missing", "LEFT");
        await pair.SameExecute("BLPOP", _p + "missing", "0.01");
        await pair.SameExecute("BLPOP", a, "-1");
        await pair.SameExecute("BLPOP", a, "abc");
        await pair.SameExecute("BLMPOP", "0", "1", a, "UP");

        // A client blocked on an empty list is served by another client's push.
        await pair.SameOn(async s =>
        {
            using var blocker = s.ConnectAnother();
            var popped = blocker.GetDatabase().ExecuteAsync("BLMPOP", "10", "2", _p + "empty1", _p + "empty2", "LEFT", "COUNT", "2");
            await Eventually.WaitFor(() => ClientsBlocked(s) == 1, () => $"a client blocked on {s}");
            await s.Db.ListRightPushAsync(_p + "empty2", ["p", "q", "r"]);
            return await popped;
        });
        await pair.Same(db => db.ListRangeAsync(_p + "empty2"));
    }

    private static int ClientsBlocked(StackExchangePair.Side s)
        => int.Parse(s.Server.Info("clients").SelectMany(g => g).First(kv => kv.Key == "blocked_clients").Value);

    [RedisFact]
    public async Task Hashes_SetGetIncrementDeleteLength_SameAsRedis()
    {
        string h = _p + "h";
        await pair.Same(db => db.HashSetAsync(h, [new HashEntry("a", "1"), new HashEntry("b", "two"), new HashEntry("c", "3.5")]));
        await pair.Same(db => db.HashSetAsync(h, "a", "10"));
        await pair.Same(db => db.HashSetAsync(h, "a", "11", When.NotExists));
        await pair.Same(db => db.HashSetAsync(h, "d", "4", When.NotExists));
        await pair.Same(db => db.HashGetAsync(h, "a"));
        await pair.Same(db => db.HashGetAsync(h, ["a", "missing", "b"]));
        await pair.Same(db => db.HashGetAllAsync(h));
        await pair.Same(db => db.HashKeysAsync(h));
        await pair.Same(db => db.HashValuesAsync(h));
        await pair.Same(db => db.HashLengthAsync(h));
        await pair.Same(db => db.HashExistsAsync(h, "b"));
        await pair.Same(db => db.HashExistsAsync(h, "zz"));
        await pair.Same(db => db.HashStringLengthAsync(h, "b"));
        await pair.Same(db => db.HashStringLengthAsync(h, "zz"));
        await pair.Same(db => db.HashStringLengthAsync(_p + "missing", "zz"));
        await pair.Same(db => db.HashIncrementAsync(h, "a", 5));
        await pair.Same(db => db.HashDecrementAsync(h, "new", 2));
        await pair.Same(db => db.HashIncrementAsync(h, "c", 0.25));
        await pair.Same(db => db.HashIncrementAsync(h, "c", 1e20));
        await pair.Same(db => db.HashIncrementAsync(h, "b", 1));
        await pair.Same(db => db.HashIncrementAsync(h, "b", 1.0));
        await pair.Same(db => db.HashIncrementAsync(h, "a", long.MaxValue));
        await pair.Same(db => db.HashDeleteAsync(h, ["a", "missing", "new"]));
        await pair.Same(db => db.HashDeleteAsync(h, "b"));
        await pair.Same(db => db.HashGetAllAsync(h));
        await pair.Same(db => db.HashGetAllAsync(_p + "missing"));
        await pair.Same(db => db.StringSetAsync(_p + "str", "v"));
        await pair.Same(db => db.HashGetAsync(_p + "str", "f"));
    }

    [RedisFact]
    public async Task Hashes_ScanAndRandomFields_SameAsRedis()
    {
        string h = _p + "hs", big = _p + "hbig";
        await pair.Same(db => db.HashSetAsync(h, Enumerable.Range(0, 20).Select(i => new HashEntry("f" + i, "v" + i)).ToArray()));
        await pair.Same(db => db.HashSetAsync(big, Enumerable.Range(0, 300).Select(i => new HashEntry("f" + i, "v" + i)).ToArray()));
        foreach (var key in new[] { h, big })
        {
            await pair.SameOn(async s => (await Collect(s.Db.HashScanAsync(key, "f1*", pageSize: 7))).OrderBy(e => (string)e.Name!).ToArray());
            await pair.SameOn(async s => (await Collect(s.Db.HashScanAsync(key))).Count);
            await pair.Same(async db =>
            {
                var all = (await db.HashGetAllAsync(key)).ToDictionary(e => (string)e.Name!, e => (string)e.Value!);
                var one = await db.HashRandomFieldAsync(key);
                var three = await db.HashRandomFieldsAsync(key, 3);
                var repeated = await db.HashRandomFieldsAsync(key, -40);
                var withValues = await db.HashRandomFieldsWithValuesAsync(key, 5);
                var everything = await db.HashRandomFieldsAsync(key, 1000);
                return new
                {
                    One = all.ContainsKey(one!),
                    Three = three.Distinct().Count() == 3 && three.All(f => all.ContainsKey(f!)),
                    Repeated = repeated.Length == 40 && repeated.All(f => all.ContainsKey(f!)),
                    WithValues = withValues.Length == 5 && withValues.All(e => all[e.Name!] == e.Value),
                    Everything = everything.Length == all.Count,
                };
            });
        }
        await pair.Same(db => db.HashRandomFieldAsync(_p + "missing"));
        await pair.Same(db => db.HashRandomFieldsAsync(_p + "missing", 3));
        await pair.Same(db => db.HashRandomFieldsWithValuesAsync(_p + "missing", -3));
        await pair.Same(db => db.HashRandomFieldsAsync(h, 0));
    }

    [Fact]
    public async Task Hashes_FieldExpiry_WorkThroughStackExchangeRedis()
    {
        // HEXPIRE and friends (Redis 7.4), which redis-server 7.0 lacks: ours alone, through the client's own API.
        var db = pair.Ours.Db;
        string h = _p + "hx";
        await db.HashSetAsync(h, [new HashEntry("f", "v"), new HashEntry("g", "w")]);
        Assert.Equal([ExpireResult.Success, ExpireResult.NoSuchField], await db.HashFieldExpireAsync(h, ["f", "nope"], TimeSpan.FromSeconds(100)));
        long[] ttls = await db.HashFieldGetTimeToLiveAsync(h, ["f", "g", "nope"]);
        Assert.InRange(ttls[0], 90_000, 100_000);
        Assert.Equal([-1L, -2L], ttls.Skip(1).ToArray());
        Assert.Equal([PersistResult.Success, PersistResult.ConditionNotMet], await db.HashFieldPersistAsync(h, ["f", "g"]));
        long[] expireTimes = await db.HashFieldGetExpireDateTimeAsync(h, ["f"]);
        Assert.Equal([-1L], expireTimes);
        var names = new List<string>();
        await foreach (var name in db.HashScanNoValuesAsync(h)) names.Add(name!);
        Assert.Equal(["f", "g"], names.Order());
    }

    [RedisFact]
    public async Task Sets_AddRemoveContainsCombine_SameAsRedis()
    {
        string a = _p + "sa", b = _p + "sb", c = _p + "sc";
        await pair.Same(db => db.SetAddAsync(a, ["1", "2", "3", "x", "y"]));
        await pair.Same(db => db.SetAddAsync(b, ["2", "3", "4", "y", "z"]));
        await pair.Same(db => db.SetAddAsync(c, ["3", "y"]));
        await pair.Same(db => db.SetAddAsync(a, "1"));
        await pair.Same(async db => (await db.SetMembersAsync(a)).Select(v => (string)v!).Order().ToArray());
        await pair.Same(db => db.SetContainsAsync(a, "x"));
        await pair.Same(db => db.SetContainsAsync(a, ["x", "nope", "1"]));
        await pair.Same(db => db.SetContainsAsync(_p + "missing", ["x", "y"]));
        await pair.Same(db => db.SetLengthAsync(a));
        foreach (var op in new[] { SetOperation.Union, SetOperation.Intersect, SetOperation.Difference })
        {
            await pair.Same(async db => (await db.SetCombineAsync(op, [a, b, c])).Select(v => (string)v!).Order().ToArray());
            await pair.Same(async db => (await db.SetCombineAsync(op, a, _p + "missing")).Select(v => (string)v!).Order().ToArray());
            await pair.Same(db => db.SetCombineAndStoreAsync(op, _p + "dest", [a, b]));
            await pair.Same(async db => (await db.SetMembersAsync(_p + "dest")).Select(v => (string)v!).Order().ToArray());
        }
        await pair.Same(db => db.SetIntersectionLengthAsync([a, b]));
        await pair.Same(db => db.SetIntersectionLengthAsync([a, b, c], 1));
        await pair.Same(db => db.SetIntersectionLengthAsync([a, _p + "missing"]));
        await pair.Same(db => db.SetIntersectionLengthAsync([a, b], -1));
        await pair.Same(db => db.SetMoveAsync(a, b, "x"));
        await pair.Same(db => db.SetMoveAsync(a, b, "x"));
        await pair.Same(db => db.SetRemoveAsync(b, ["x", "nope", "z"]));
        await pair.Same(async db => (await db.SetMembersAsync(b)).Select(v => (string)v!).Order().ToArray());
        await pair.Same(db => db.StringSetAsync(_p + "str", "v"));
        await pair.Same(db => db.SetAddAsync(_p + "str", "v"));
        await pair.Same(db => db.SetCombineAsync(SetOperation.Union, a, _p + "str"));
    }

    [RedisFact]
    public async Task Sets_PopRandomAndScan_SameAsRedis()
    {
        foreach (var (name, members) in new[] { ("ints", Enumerable.Range(0, 50).Select(i => (RedisValue)i)), ("strs", Enumerable.Range(0, 50).Select(i => (RedisValue)("m" + i))) })
        {
            string k = _p + name;
            await pair.Same(db => db.SetAddAsync(k, members.ToArray()));
            await pair.SameOn(async s => (await Collect(s.Db.SetScanAsync(k, "*1*", pageSize: 5))).Select(v => (string)v!).Order().ToArray());
            await pair.Same(async db =>
            {
                var all = (await db.SetMembersAsync(k)).Select(v => (string)v!).ToHashSet();
                var one = await db.SetRandomMemberAsync(k);
                var some = await db.SetRandomMembersAsync(k, 5);
                var repeated = await db.SetRandomMembersAsync(k, -80);
                var popped = await db.SetPopAsync(k, 10);
                var left = (await db.SetMembersAsync(k)).Select(v => (string)v!).ToHashSet();
                return new
                {
                    One = all.Contains(one!),
                    Some = some.Distinct().Count() == 5 && some.All(m => all.Contains(m!)),
                    Repeated = repeated.Length == 80 && repeated.All(m => all.Contains(m!)),
                    Popped = popped.Length == 10 && popped.All(m => all.Contains(m!) && !left.Contains(m!)),
                    Left = left.Count,
                };
            });
            await pair.Same(async db => (await db.SetPopAsync(k, 100)).Length);
            await pair.Same(db => db.KeyExistsAsync(k));
        }
        await pair.Same(db => db.SetPopAsync(_p + "missing"));
        await pair.Same(db => db.SetPopAsync(_p + "missing", 3));
        await pair.Same(db => db.SetRandomMembersAsync(_p + "missing", 3));
    }

    [RedisFact]
    public async Task Sort_ByGetLimitAlphaAndStore_SameAsRedis()
    {
        string l = _p + "{s}list", w = _p + "{s}w_", o = _p + "{s}o_", h = _p + "{s}h_";
        await pair.Same(db => db.ListRightPushAsync(l, ["3", "1", "10", "2", "20"]));
        foreach (var id in new[] { "1", "2", "3", "10", "20" })
        {
            await pair.Same(db => db.StringSetAsync(w + id, (100 - int.Parse(id)).ToString()));
            await pair.Same(db => db.StringSetAsync(o + id, "object-" + id));
            await pair.Same(db => db.HashSetAsync(h + id, "name", "n" + id));
        }
        await pair.Same(db => db.SortAsync(l));
        await pair.Same(db => db.SortAsync(l, order: Order.Descending));
        await pair.Same(db => db.SortAsync(l, sortType: SortType.Alphabetic));
        await pair.Same(db => db.SortAsync(l, 1, 2));
        await pair.Same(db => db.SortAsync(l, 1, -1));
        await pair.Same(db => db.SortAsync(l, by: w + "*"));
        await pair.Same(db => db.SortAsync(l, by: "nosort"));
        await pair.Same(db => db.SortAsync(l, by: w + "*", get: ["#", o + "*", h + "*->name", _p + "{s}missing_*"]));
        await pair.Same(db => db.SortAsync(l, 0, 2, Order.Descending, SortType.Alphabetic, w + "*", [o + "*"]));
        await pair.Same(db => db.SortAndStoreAsync(_p + "{s}dest", l, 0, 3, Order.Descending, SortType.Numeric, by: w + "*", get: ["#", o + "*"]));
        await pair.Same(db => db.ListRangeAsync(_p + "{s}dest"));
        await pair.Same(db => db.SortAndStoreAsync(_p + "{s}dest", _p + "{s}missing"));
        await pair.Same(db => db.KeyExistsAsync(_p + "{s}dest"));
        await pair.Same(db => db.SetAddAsync(_p + "{s}words", ["pear", "apple", "fig"]));
        await pair.Same(db => db.SortAsync(_p + "{s}words"));
        await pair.Same(db => db.SortAsync(_p + "{s}words", sortType: SortType.Alphabetic));
        await pair.Same(db => db.SortedSetAddAsync(_p + "{s}z", [new SortedSetEntry("c", 1), new SortedSetEntry("a", 2), new SortedSetEntry("b", 3)]));
        await pair.Same(db => db.SortAsync(_p + "{s}z", sortType: SortType.Alphabetic, by: "nosort"));
        await pair.Same(db => db.SortAsync(_p + "{s}z", 1, 5, sortType: SortType.Alphabetic, by: "nosort"));
    }

    internal static async Task<List<T>> Collect<T>(IAsyncEnumerable<T> items)
    {
        var list = new List<T>();
        await foreach (var item in items) list.Add(item);
        return list;
    }
}
