using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Geo;

/// <summary>The keyspace events of the geo commands (GEOADD's are ZADD's; the stores have their own) against redis-server.</summary>
public sealed class GeoNotificationTests
{
    private static readonly string[][] Script =
    [
        ["GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"],
        ["GEOADD", "g", "XX", "1", "1", "nope"], ["GEOADD", "g", "NX", "13", "38", "Palermo"], ["GEOADD", "g", "CH", "13", "38", "Palermo"],
        ["GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"],
        ["GEOSEARCHSTORE", "{g}d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"],
        ["GEOSEARCHSTORE", "{g}d", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"],
        ["GEORADIUS", "g", "15", "37", "200", "km", "STOREDIST", "r"], ["GEORADIUS", "g", "0", "0", "1", "km", "STORE", "r"],
        ["GEORADIUS", "g", "15", "37", "200", "km"], ["DEL", "g"],
    ];

    [RedisFact]
    public void GeoCommands_EmitSameEventsAsRedis()
        => KeyspaceEvents.AssertSameOnPrivateServers(Script);
}
