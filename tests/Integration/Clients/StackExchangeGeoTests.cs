using RedisClone.Tests.Infrastructure;
using StackExchange.Redis;

namespace RedisClone.Tests.Clients;

/// <summary>
/// Geo commands through StackExchange.Redis's typed API: GEORADIUS and GEOSEARCH(STORE) with every
/// shape, origin, order, count and unit and each WITH option; each call made on redis-server and on
/// RedisClone and the client's results (distances, hashes, positions) compared.
/// </summary>
[Collection(StackExchangePair.Collection)]
public sealed class StackExchangeGeoTests(StackExchangePair pair)
{
    private readonly string _p = TestServer.KeyPrefix("se-geo");

    private static readonly GeoEntry[] Sicily =
    [
        new(13.361389, 38.115556, "Palermo"),
        new(15.087269, 37.502669, "Catania"),
        new(13.583333, 37.316667, "Agrigento"),
        new(14.015, 37.49, "Caltanissetta"),
        new(12.758489, 38.788135, "edge1"),
        new(17.241510, 38.222900, "edge2"),
    ];

    private static readonly GeoUnit[] Units = [GeoUnit.Meters, GeoUnit.Kilometers, GeoUnit.Miles, GeoUnit.Feet];

    private static readonly GeoRadiusOptions[] Options =
    [
        GeoRadiusOptions.None, GeoRadiusOptions.Default, GeoRadiusOptions.WithCoordinates | GeoRadiusOptions.WithDistance | GeoRadiusOptions.WithGeoHash,
        GeoRadiusOptions.WithGeoHash,
    ];

    private async Task<string> Fill(string name = "{g}sicily")
    {
        string k = _p + name;
        await pair.Same(db => db.GeoAddAsync(k, Sicily));
        return k;
    }

    [RedisFact]
    public async Task GeoAddDistanceHashPosition_SameAsRedis()
    {
        string k = await Fill();
        await pair.Same(db => db.GeoAddAsync(k, 13.361389, 38.115556, "Palermo"));
        await pair.Same(db => db.GeoAddAsync(k, new GeoEntry(2.35, 48.85, "Paris")));
        await pair.Same(db => db.GeoAddAsync(k, 200, 100, "nowhere"));
        foreach (var unit in Units)
        {
            await pair.Same(db => db.GeoDistanceAsync(k, "Palermo", "Catania", unit));
            await pair.Same(db => db.GeoDistanceAsync(k, "Palermo", "nowhere", unit));
        }
        await pair.Same(db => db.GeoHashAsync(k, "Palermo"));
        await pair.Same(db => db.GeoHashAsync(k, ["Palermo", "missing", "Paris"]));
        await pair.Same(db => db.GeoPositionAsync(k, "Catania"));
        await pair.Same(db => db.GeoPositionAsync(k, ["Catania", "missing", "edge2"]));
        await pair.Same(db => db.GeoPositionAsync(_p + "{g}missing", "Catania"));
        await pair.Same(db => db.GeoHashAsync(_p + "{g}missing", ["x"]));
        await pair.Same(db => db.GeoRemoveAsync(k, "Paris"));
        await pair.Same(db => db.GeoRemoveAsync(k, "Paris"));
        await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(k));
    }

    [RedisFact]
    public async Task GeoRadius_MemberAndPoint_EveryUnitOrderCountAndOption_SameAsRedis()
    {
        string k = await Fill();
        foreach (var unit in Units)
        foreach (var order in new Order?[] { null, Order.Ascending, Order.Descending })
        foreach (var options in Options)
        {
            double radius = unit switch { GeoUnit.Meters => 200_000, GeoUnit.Kilometers => 200, GeoUnit.Miles => 120, _ => 600_000 };
            await pair.Same(async db => Ordered(await db.GeoRadiusAsync(k, "Palermo", radius, unit, -1, order, options), order));
            await pair.Same(async db => Ordered(await db.GeoRadiusAsync(k, 15, 37, radius, unit, 3, order, options), order));
        }
        await pair.Same(db => db.GeoRadiusAsync(k, "missing", 100, GeoUnit.Kilometers));
        await pair.Same(db => db.GeoRadiusAsync(_p + "{g}missing", 15, 37, 100, GeoUnit.Kilometers));
        await pair.Same(db => db.GeoRadiusAsync(k, 15, 37, 1, GeoUnit.Meters));
    }

    [RedisFact]
    public async Task GeoSearch_CircleAndBox_FromMemberAndPoint_SameAsRedis()
    {
        string k = await Fill();
        GeoSearchShape[] shapes =
        [
            new GeoSearchCircle(200, GeoUnit.Kilometers), new GeoSearchCircle(150_000, GeoUnit.Meters), new GeoSearchCircle(100, GeoUnit.Miles),
            new GeoSearchBox(400, 400, GeoUnit.Kilometers), new GeoSearchBox(200_000, 100_000, GeoUnit.Meters), new GeoSearchBox(600_000, 900_000, GeoUnit.Feet),
        ];
        foreach (var shape in shapes)
        foreach (var order in new Order?[] { null, Order.Ascending, Order.Descending })
        {
            foreach (var options in Options)
            {
                await pair.Same(async db => Ordered(await db.GeoSearchAsync(k, "Palermo", shape, -1, true, order, options), order));
                await pair.Same(async db => Ordered(await db.GeoSearchAsync(k, 15, 37, shape, 2, true, order, options), order));
            }
            // ANY: the first matches found, in whatever order the search met them (sorted only when asked).
            await pair.Same(async db => (await db.GeoSearchAsync(k, 15, 37, shape, 2, false, order, GeoRadiusOptions.None)).Length);
        }
        await pair.Same(db => db.GeoSearchAsync(k, "missing", new GeoSearchCircle(10)));
        await pair.Same(db => db.GeoSearchAsync(_p + "{g}missing", 1, 1, new GeoSearchBox(10, 10)));
        await pair.SameExecute("GEOSEARCH", k, "FROMMEMBER", "Palermo", "BYRADIUS", "10", "km", "BYBOX", "1", "1", "km");
        await pair.SameExecute("GEOSEARCH", k, "FROMLONLAT", "15", "37", "BYRADIUS", "10", "km", "ANY");
        await pair.SameExecute("GEOSEARCH", k, "FROMLONLAT", "15", "37", "BYRADIUS", "300", "parsecs");
        await pair.SameExecute("GEORADIUS", k, "15", "37", "200", "km", "STORE", _p + "{g}dest", "WITHDIST");
    }

    [RedisFact]
    public async Task GeoSearchAndStore_DistancesOrCoordinates_SameAsRedis()
    {
        string k = await Fill();
        string dest = _p + "{g}dest";
        foreach (var storeDistances in new[] { false, true })
        foreach (var order in new Order?[] { null, Order.Ascending, Order.Descending })
        {
            await pair.Same(db => db.GeoSearchAndStoreAsync(k, dest, "Palermo", new GeoSearchCircle(200, GeoUnit.Kilometers), -1, true, order, storeDistances));
            await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(dest));
            await pair.Same(db => db.GeoSearchAndStoreAsync(k, dest, 15, 37, new GeoSearchBox(300, 300, GeoUnit.Miles), 2, true, order, storeDistances));
            await pair.Same(db => db.SortedSetRangeByRankWithScoresAsync(dest));
        }
        await pair.Same(db => db.GeoSearchAndStoreAsync(k, dest, 0, 0, new GeoSearchCircle(1)));
        await pair.Same(db => db.KeyExistsAsync(dest));
        await pair.Same(db => db.GeoSearchAndStoreAsync(_p + "{g}missing", dest, 0, 0, new GeoSearchCircle(1)));
    }

    /// <summary>Without an order Redis returns matches in no set order: those are compared sorted by member.</summary>
    private static GeoRadiusResult[] Ordered(GeoRadiusResult[] results, Order? order)
        => order == null ? results.OrderBy(r => (string)r.Member!).ToArray() : results;
}
