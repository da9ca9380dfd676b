using System.Globalization;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Geo;

/// <summary>The geo commands against redis-server, byte for byte: scores, coordinates, distances, searches and errors.</summary>
public sealed class GeoDifferentialTests
{
    private const string Sicily = "GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 12.758489 38.788135 edge1 "
        + "14.015482 37.734622 Agrigento 13.583333 37.316667 Licata";

    [Fact]
    public void GeoAdd_OptionsScoresAndErrors_AsRedis()
        => Differential.AssertSame(
            Sicily, "ZRANGE Sicily 0 -1 WITHSCORES", "OBJECT ENCODING Sicily",
            "GEOADD Sicily NX 13 38 Palermo 1 1 new", "GEOADD Sicily XX 13 38 Palermo 2 2 other", "GEOADD Sicily XX CH 14 39 Palermo",
            "GEOADD Sicily CH 14 39 Palermo 15 40 Palermo", "GEOADD Sicily ch nx 0 0 zero", "ZRANGE Sicily 0 -1 WITHSCORES",
            "GEOADD g -180 -85.05112878 sw 180 85.05112878 ne -180 85.05112878 nw 180 -85.05112878 se 0 0 o -0 -0 negzero",
            "ZRANGE g 0 -1 WITHSCORES", "GEOPOS g sw ne nw se o negzero", "GEOHASH g sw ne nw se o negzero",
            "GEOADD missing XX 1 1 a", "EXISTS missing",
            "GEOADD g 181 10 a", "GEOADD g -180.0000001 0 a", "GEOADD g 0 85.05112879 a", "GEOADD g 10 -86 a", "GEOADD g 1 1e300 a",
            "GEOADD g 1 inf a", "GEOADD g -inf 1 a", "GEOADD g x 1 a", "GEOADD g 1 y a", "GEOADD g 1 1 a 2 x b", "GEOADD g 1 1 a 200 1 b",
            "EXISTS a", "GEOADD g NX XX 1 1 a", "GEOADD g 1 1", "GEOADD g 1 1 a 2", "GEOADD g CH CH CH", "GEOADD g NX 1 1 a b",
            "GEOADD g GT 1 1 a", "SET s x", "GEOADD s 1 1 a", "GEOADD g 1 1", "GEOADD g", "PING");

    [Fact]
    public void GeoPosGeoHashGeoDist_AsRedis()
        => Differential.AssertSame(
            Sicily, "GEOPOS Sicily Palermo Catania nope", "GEOPOS missing a b", "GEOPOS Sicily", "GEOHASH Sicily Palermo Catania edge1 nope",
            "GEOHASH missing a", "GEOHASH Sicily",
            "GEODIST Sicily Palermo Catania", "GEODIST Sicily Palermo Catania km", "GEODIST Sicily Palermo Catania MI",
            "GEODIST Sicily Palermo Catania Ft", "GEODIST Sicily Palermo Catania m", "GEODIST Sicily Palermo Palermo",
            "GEODIST Sicily Palermo nope", "GEODIST missing a b", "GEODIST Sicily Palermo Catania yd", "GEODIST missing a b yd",
            "GEODIST Sicily Palermo Catania km x", "ZADD z 0 a 4503599627370495 b 123456789 c -1 d 1e20 e",
            "GEOPOS z a b c", "GEOHASH z a b c", "GEODIST z a b", "GEODIST z a c km",
            "SET s x", "GEOPOS s a", "GEOHASH s a", "GEODIST s a b", "GEODIST s a b yd", "PING");

    [Fact]
    public void GeoSearch_OptionsAndErrors_AsRedis()
        => Differential.AssertSame(
            Sicily,
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km DESC WITHCOORD WITHDIST WITHHASH",
            "GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 400 400 km ASC WITHDIST",
            "GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 200 100 km WITHCOORD",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 2", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 2 DESC",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 2 ANY", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km COUNT 1 ANY ASC",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 mi", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 0 m",
            "GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 0 m WITHDIST", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1000000 FT WITHDIST",
            "GEOSEARCH missing FROMLONLAT 15 37 BYRADIUS 200 km", "GEOSEARCH missing FROMMEMBER nope BYRADIUS 200 km",
            "GEOSEARCH Sicily FROMMEMBER nope BYRADIUS 200 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS -1 km",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS x km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 yd",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX x 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 x km",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX -1 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 yd",
            "GEOSEARCH Sicily FROMLONLAT 200 37 BYRADIUS 1 km", "GEOSEARCH Sicily FROMLONLAT x 37 BYRADIUS 1 km",
            "GEOSEARCH Sicily FROMLONLAT 15 37 FROMMEMBER Palermo BYRADIUS 1 km",
            "GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 15 37 BYRADIUS 1 km",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km BYBOX 1 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1 km BYRADIUS 1 km",
            "GEOSEARCH Sicily BYRADIUS 1 km ASC WITHDIST", "GEOSEARCH Sicily FROMLONLAT 15 37 ASC WITHDIST",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km ANY", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km COUNT 0",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km COUNT -1", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km COUNT x",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km COUNT", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km STOREDIST",
            "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km STORE x", "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 1 km bogus",
            "GEOSEARCH Sicily FROMLONLAT 15 BYRADIUS 1 km", "GEOSEARCH Sicily FROMLONLAT 15 37 BYBOX 1 1",
            "geosearch Sicily BYRADIUS 1 km", "GeoSearch Sicily FROMLONLAT 15 37 COUNT 1",
            "SET s x", "GEOSEARCH s FROMLONLAT 15 37 BYRADIUS 1 km", "GEOSEARCH s bogus bogus bogus bogus bogus", "GEOSEARCH Sicily", "PING");

    [Fact]
    public void GeoSearchStore_DistancesScoresAndErrors_AsRedis()
        => Differential.AssertSame(
            "GEOADD {g}src 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 13.583333 37.316667 Licata",
            "GEOSEARCHSTORE {g}dst {g}src FROMLONLAT 15 37 BYRADIUS 200 km ASC", "ZRANGE {g}dst 0 -1 WITHSCORES", "OBJECT ENCODING {g}dst",
            "GEOSEARCHSTORE {g}dst {g}src FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST COUNT 2", "ZRANGE {g}dst 0 -1 WITHSCORES",
            "GEOSEARCHSTORE {g}dst {g}src FROMLONLAT 15 37 BYBOX 300 300 mi STOREDIST", "ZRANGE {g}dst 0 -1 WITHSCORES",
            "GEOSEARCHSTORE {g}dst {g}src FROMLONLAT 0 0 BYRADIUS 1 km", "EXISTS {g}dst",
            "GEOSEARCHSTORE {g}dst {g}src FROMLONLAT 0 0 BYRADIUS 1 km", "SET {g}dst x",
            "GEOSEARCHSTORE {g}dst {g}missing FROMLONLAT 0 0 BYRADIUS 1 km", "EXISTS {g}dst",
            "GEOSEARCHSTORE {g}dst {g}src FROMLONLAT 15 37 BYRADIUS 200 km WITHDIST",
            "GEOSEARCHSTORE {g}dst {g}src FROMLONLAT 15 37 BYRADIUS 200 km WITHHASH COUNT 0",
            "GEOSEARCHSTORE {g}dst {g}src FROMLONLAT 15 37 BYRADIUS 200 km STORE x",
            "GEOSEARCHSTORE {g}dst {g}src BYRADIUS 200 km", "GEOSEARCHSTORE {g}dst {g}src FROMMEMBER nope BYRADIUS 200 km",
            "SET {g}s x", "GEOSEARCHSTORE {g}dst {g}s FROMLONLAT 15 37 BYRADIUS 200 km",
            "GEOSEARCHSTORE {g}s {g}src FROMLONLAT 15 37 BYRADIUS 200 km", "TYPE {g}s",
            "GEOSEARCHSTORE other {g}src FROMLONLAT 15 37 BYRADIUS 200 km STOREDIST", "ZRANGE other 0 -1 WITHSCORES", "PING");

    [Fact]
    public void GeoRadiusReadOnly_AsRedis()
        => Differential.AssertSame(
            Sicily, "GEORADIUS_RO Sicily 15 37 200 km WITHDIST WITHCOORD ASC", "GEORADIUS_RO Sicily 15 37 200 km COUNT 1 DESC",
            "GEORADIUS_RO Sicily 15 37 200 km COUNT 3 ANY WITHHASH", "GEORADIUSBYMEMBER_RO Sicily Palermo 100 km WITHDIST",
            "GEORADIUSBYMEMBER_RO Sicily nope 100 km", "GEORADIUSBYMEMBER_RO missing nope 100 km", "GEORADIUSBYMEMBER_RO missing nope x yd",
            "GEORADIUSBYMEMBER_RO missing nope x yd bogus", "GEORADIUS_RO missing 15 37 200 km", "GEORADIUS_RO missing 200 37 200 km",
            "GEORADIUS_RO Sicily 15 37 200 km STORE x", "GEORADIUS_RO Sicily 15 37 200 km STOREDIST x",
            "GEORADIUS_RO Sicily 15 37 200 km FROMMEMBER Palermo", "GEORADIUS_RO Sicily 15 37 -1 km", "GEORADIUS_RO Sicily 15 37 1 yd",
            "GEORADIUS_RO Sicily 15 37 1 km ANY", "SET s x", "GEORADIUS_RO s 15 37 1 km", "GEORADIUSBYMEMBER_RO s a 1 km", "PING");

    [Fact]
    public void GeoRadiusStore_DestinationsAndErrors_AsRedis()
        => Differential.AssertSame(
            "GEOADD {g}src 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 13.583333 37.316667 Licata",
            "GEORADIUS {g}src 15 37 200 km WITHDIST ASC", "GEORADIUS {g}src 15 37 200 km STORE {g}dst", "ZRANGE {g}dst 0 -1 WITHSCORES",
            "GEORADIUS {g}src 15 37 200 km STOREDIST {g}dst COUNT 2 DESC", "ZRANGE {g}dst 0 -1 WITHSCORES",
            "GEORADIUS {g}src 15 37 200 km STORE {g}a STOREDIST {g}b", "EXISTS {g}a", "ZRANGE {g}b 0 -1 WITHSCORES",
            "GEORADIUS {g}src 15 37 200 km STOREDIST {g}a STORE {g}b", "ZRANGE {g}b 0 -1 WITHSCORES",
            "GEORADIUS {g}src 0 0 1 km STORE {g}dst", "EXISTS {g}dst", "GEORADIUS {g}missing 0 0 1 km STORE {g}b", "EXISTS {g}b",
            "GEORADIUS {g}src 15 37 200 km STORE {g}dst WITHDIST", "GEORADIUS {g}src 15 37 200 km STORE", "GEORADIUS {g}src 15 37 200 km STOREDIST",
            "GEORADIUS {g}src 15 37 200 km FROMMEMBER Palermo", "GEORADIUS {g}src 15 37 200 km BYRADIUS 1 km",
            "GEORADIUSBYMEMBER {g}src Palermo 200 km WITHDIST WITHCOORD", "GEORADIUSBYMEMBER {g}src Palermo 200 km STORE {g}dst",
            "ZRANGE {g}dst 0 -1 WITHSCORES", "GEORADIUSBYMEMBER {g}src Palermo 200 mi STOREDIST {g}dst ASC", "ZRANGE {g}dst 0 -1 WITHSCORES",
            "GEORADIUSBYMEMBER {g}src nope 200 km STORE {g}dst", "GEORADIUSBYMEMBER {g}missing nope x yd STORE {g}dst",
            "GEORADIUSBYMEMBER {g}src Palermo 200 km STORE {g}dst WITHHASH", "GEORADIUS other 15 37 1 km STORE {g}x",
            "GEORADIUS {g}src 15 37 200 km STORE other", "ZRANGE other 0 -1 WITHSCORES",
            "COMMAND GETKEYS GEORADIUS k 1 2 3 km STORE a STOREDIST b", "COMMAND GETKEYS GEORADIUSBYMEMBER k m 3 km STORE a",
            "COMMAND GETKEYS GEORADIUS k 1 2 3 km", "PING");

    [Fact]
    public void GeoSearch_ExtremeShapes_AsRedis()
        => Differential.AssertSame(
            "GEOADD w -180 0 a 180 0 b 179.99999 85 c -179.99999 -85 d 0 85.05112878 n 0 -85.05112878 s 90 45 e -90 -45 f 0 0 o",
            "GEOSEARCH w FROMLONLAT 0 0 BYRADIUS 100000 km ASC WITHDIST", "GEOSEARCH w FROMLONLAT 0 0 BYRADIUS 1e10 m DESC WITHDIST",
            "GEOSEARCH w FROMLONLAT 180 0 BYRADIUS 10 km ASC WITHDIST", "GEOSEARCH w FROMLONLAT -179.9 0 BYBOX 50 50 km WITHCOORD",
            "GEOSEARCH w FROMLONLAT 0 85 BYRADIUS 500 km ASC WITHDIST", "GEOSEARCH w FROMLONLAT 0 -85 BYBOX 20000 20000 km ASC",
            "GEOSEARCH w FROMMEMBER c BYRADIUS 1000 km WITHDIST ASC", "GEOSEARCH w FROMMEMBER o BYBOX 0 0 m WITHDIST",
            "GEOSEARCH w FROMMEMBER o BYRADIUS 0 km WITHCOORD", "GEOSEARCH w FROMLONLAT 90 45 BYBOX 1 1 m WITHHASH",
            "GEOSEARCH w FROMLONLAT 0 0 BYRADIUS 20037 km COUNT 3 DESC WITHDIST", "GEOSEARCH w FROMLONLAT 0 0 BYBOX 40000 40000 km COUNT 9 ANY",
            "GEODIST w a b", "GEODIST w n s km", "GEODIST w c d mi", "GEODIST w o o", "GEOHASH w a b c d n s e f o", "GEOPOS w a b c d n s");

    [Fact]
    public void GeoSearch_WithOptionsResp3_AsRedis()
        => Differential.AssertSameResp3(
            Differential.SplitLine(Sicily),
            Differential.SplitLine("GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 200 km ASC WITHCOORD WITHDIST WITHHASH"),
            Differential.SplitLine("GEOSEARCH Sicily FROMMEMBER Palermo BYBOX 500 500 km DESC WITHCOORD"),
            Differential.SplitLine("GEORADIUS_RO Sicily 15 37 200 km WITHDIST"),
            Differential.SplitLine("GEOPOS Sicily Palermo nope"), Differential.SplitLine("GEOHASH Sicily Palermo nope"),
            Differential.SplitLine("GEODIST Sicily Palermo Catania"), Differential.SplitLine("GEODIST Sicily Palermo nope"));

    /// <summary>
    /// Random points near the poles' latitude limits, across the antimeridian and around the equator;
    /// random searches (radius and box, both orders, with and without COUNT) centered on the same
    /// regions and on members, whose results must be redis-server's, order and ties included.
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    [InlineData(5)]
    [InlineData(6)]
    [InlineData(7)]
    [InlineData(8)]
    public void GeoSearch_RandomPoints_AsRedis(int seed)
    {
        var random = new Random(seed);
        var script = new List<string[]>();
        (double Lon, double Lat)[] regions = [(179.9, 0), (-179.9, 10), (0, 85.0), (45, -85.0), (180, 84.9), (-180, -84.9), (0, 0), (13, 38)];
        string F(double v) => v.ToString("R", CultureInfo.InvariantCulture);
        (double, double) Near((double Lon, double Lat) c, double spread)
        {
            double lon = c.Lon + (random.NextDouble() * 2 - 1) * spread;
            double lat = c.Lat + (random.NextDouble() * 2 - 1) * spread;
            if (lon > 180) lon -= 360;
            if (lon < -180) lon += 360;
            return (lon, Math.Clamp(lat, -85.05112878, 85.05112878));
        }
        var add = new List<string> { "GEOADD", "pts" };
        for (int i = 0; i < 400; i++)
        {
            var (lon, lat) = Near(regions[random.Next(regions.Length)], random.Next(3) switch { 0 => 0.01, 1 => 0.5, _ => 3 });
            add.AddRange([F(lon), F(lat), "p" + i]);
        }
        // A few duplicates of one position make distance ties.
        add.AddRange(["1.5", "2.5", "tieA", "1.5", "2.5", "tieB", "1.5", "2.5", "tieC"]);
        script.Add([.. add]);
        script.Add(["ZRANGE", "pts", "0", "-1", "WITHSCORES"]);
        script.Add(["GEOSEARCH", "pts", "FROMLONLAT", "1.5", "2.5", "BYRADIUS", "10", "km", "ASC", "WITHDIST"]);
        string[] units = ["m", "km", "mi", "ft"];
        for (int i = 0; i < 60; i++)
        {
            var (lon, lat) = Near(regions[random.Next(regions.Length)], random.Next(2) == 0 ? 0.05 : 2);
            var cmd = new List<string> { "GEOSEARCH", "pts" };
            if (random.Next(4) == 0) cmd.AddRange(["FROMMEMBER", "p" + random.Next(400)]);
            else cmd.AddRange(["FROMLONLAT", F(lon), F(lat)]);
            string unit = units[random.Next(units.Length)];
            double scale = unit switch { "m" => 1, "km" => 0.001, "mi" => 1 / 1609.34, _ => 1 / 0.3048 };
            double meters = random.Next(3) switch { 0 => 2_000, 1 => 60_000, _ => 400_000 } * random.NextDouble();
            if (random.Next(2) == 0) cmd.AddRange(["BYRADIUS", F(Math.Round(meters * scale, 3)), unit]);
            else cmd.AddRange(["BYBOX", F(Math.Round(meters * scale, 3)), F(Math.Round(meters * scale * random.NextDouble() * 2, 3)), unit]);
            switch (random.Next(4))
            {
                case 0: cmd.Add("ASC"); break;
                case 1: cmd.Add("DESC"); break;
            }
            if (random.Next(3) == 0)
            {
                cmd.AddRange(["COUNT", (1 + random.Next(random.Next(2) == 0 ? 5 : 60)).ToString(CultureInfo.InvariantCulture)]);
                if (random.Next(6) == 0) cmd.Add("ANY");
            }
            cmd.AddRange(["WITHDIST", "WITHHASH"]);
            if (random.Next(2) == 0) cmd.Add("WITHCOORD");
            script.Add([.. cmd]);
        }
        Differential.AssertSame([.. script]);
    }
}
