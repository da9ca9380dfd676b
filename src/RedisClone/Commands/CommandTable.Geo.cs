using static RedisClone.Commands.CommandFlags;

namespace RedisClone.Commands;

internal sealed partial class CommandTable
{
    private const string GeoUnit = "unit(M | KM | FT | MI)";

    /// <summary>The geo family (handlers in <see cref="GeoCommands"/>): sorted sets scored by 52-bit geohashes.</summary>
    private static IEnumerable<CommandDef> GeoRows() =>
    [
        new("geoadd", -5, Write | DenyOom, GeoCommands.GeoAdd, keys: "RW update", group: "geo")
        {
            Summary = "Adds points (longitude, latitude, name) to a geo index or moves existing ones; creates the key when missing.",
            Since = "3.2.0", Complexity = "O(log N) per point, N = points in the index",
            Args = "key:key [condition(NX | XX)@6.2.0] [change:CH@6.2.0] longitude_latitude_member{longitude:double latitude:double member}...",
            History = "6.2.0: Added the `CH`, `NX` and `XX` options.",
        },
        new("geodist", -4, ReadOnly, GeoCommands.GeoDist, keys: "RO access", group: "geo")
        {
            Summary = "Returns how far apart two points of a geo index are, in meters or another unit.",
            Since = "3.2.0", Complexity = "O(log N)",
            Args = "key:key member1 member2 [" + GeoUnit + "]",
        },
        new("geohash", -2, ReadOnly, GeoCommands.GeoHashCommand, keys: "RO access", group: "geo")
        {
            Summary = "Returns the standard 11-character geohash text of points of a geo index.",
            Since = "3.2.0", Complexity = "O(log N) per point asked for",
            Args = "key:key member...",
        },
        new("geopos", -2, ReadOnly, GeoCommands.GeoPos, keys: "RO access", group: "geo")
        {
            Summary = "Returns the longitude and latitude of points of a geo index.",
            Since = "3.2.0", Complexity = "O(N), N = points asked for",
            Args = "key:key member...",
        },
        new("geosearch", -7, ReadOnly, GeoCommands.GeoSearch, keys: "RO access", group: "geo")
        {
            Summary = "Returns the points of a geo index inside a circle or a box around a point or a member.",
            Since = "6.2.0", Complexity = "O(N + log M), N = points in the cells around the shape, M = points in the shape",
            Args = GeoSearchFromBy + " [order(ASC | DESC)] [count{COUNT=count:integer [ANY]}] [WITHCOORD] [WITHDIST] [WITHHASH]",
            History = "7.0.0: Added support for uppercase unit names.",
        },
        new("geosearchstore", -8, Write | DenyOom, GeoCommands.GeoSearchStore, keys: "OW update; RO access", group: "geo")
        {
            Summary = "Stores the points GEOSEARCH would return in a sorted set, scored by geohash or by distance.",
            Since = "6.2.0", Complexity = "O(N + log M), N = points in the cells around the shape, M = points in the shape",
            Args = "destination:key source:key " + GeoSearchFromBy[8..] + " [order(ASC | DESC)] [count{COUNT=count:integer [ANY]}] [STOREDIST]",
            History = "7.0.0: Added support for uppercase unit names.",
        },
        new("georadius", -6, Write | DenyOom, GeoCommands.GeoRadius, keys: "RO access; OW update kw=STORE,6; OW update kw=STOREDIST,6",
            group: "geo", keyFinder: GeoCommands.RadiusKeys)
        {
            Summary = "Returns the points of a geo index within a radius of a position, or stores them in a sorted set.",
            Since = "3.2.0", Complexity = "O(N + log M), N = points in the cells around the circle, M = points in the index",
            Args = "key:key longitude:double latitude:double radius:double " + GeoUnit
                + " [WITHCOORD] [WITHDIST] [WITHHASH] [count{COUNT=count:integer [ANY@6.2.0]}] [order(ASC | DESC)] [STORE=key:key] [STOREDIST=key:key]",
            History = "6.2.0: Added the `ANY` option for `COUNT`.; 7.0.0: Added support for uppercase unit names.",
            DeprecatedSince = "6.2.0", ReplacedBy = "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` argument",
        },
        new("georadiusbymember", -5, Write | DenyOom, GeoCommands.GeoRadiusByMember, keys: "RO access; OW update kw=STORE,5; OW update kw=STOREDIST,5",
            group: "geo", keyFinder: GeoCommands.RadiusKeys)
        {
            Summary = "Returns the points of a geo index within a radius of one of its members, or stores them in a sorted set.",
            Since = "3.2.0", Complexity = "O(N + log M), N = points in the cells around the circle, M = points in the index",
            Args = "key:key member radius:double " + GeoUnit
                + " [WITHCOORD] [WITHDIST] [WITHHASH] [count{COUNT=count:integer [ANY]}] [order(ASC | DESC)] [STORE=key:key] [STOREDIST=key:key]",
            History = "7.0.0: Added support for uppercase unit names.",
            DeprecatedSince = "6.2.0", ReplacedBy = "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` arguments",
        },
        new("georadius_ro", -6, ReadOnly, GeoCommands.GeoRadiusRo, keys: "RO access", group: "geo")
        {
            Summary = "Returns the points of a geo index within a radius of a position (GEORADIUS without storing).",
            Since = "3.2.10", Complexity = "O(N + log M), N = points in the cells around the circle, M = points in the index",
            Args = "key:key longitude:double latitude:double radius:double " + GeoUnit
                + " [WITHCOORD] [WITHDIST] [WITHHASH] [count{COUNT=count:integer [ANY@6.2.0]}] [order(ASC | DESC)]",
            History = "6.2.0: Added the `ANY` option for `COUNT`.",
            DeprecatedSince = "6.2.0", ReplacedBy = "`GEOSEARCH` with the `BYRADIUS` argument",
        },
        new("georadiusbymember_ro", -5, ReadOnly, GeoCommands.GeoRadiusByMemberRo, keys: "RO access", group: "geo")
        {
            Summary = "Returns the points of a geo index within a radius of one of its members (GEORADIUSBYMEMBER without storing).",
            Since = "3.2.10", Complexity = "O(N + log M), N = points in the cells around the circle, M = points in the index",
            Args = "key:key member radius:double " + GeoUnit
                + " [WITHCOORD] [WITHDIST] [WITHHASH] [count{COUNT=count:integer [ANY]}] [order(ASC | DESC)]",
            DeprecatedSince = "6.2.0", ReplacedBy = "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments",
        },
    ];

    /// <summary>GEOSEARCH's key, center and shape arguments (GEOSEARCHSTORE reuses them after "key:key ").</summary>
    private const string GeoSearchFromBy = "key:key from(FROMMEMBER=member | FROMLONLAT=longitude_latitude{longitude:double latitude:double}) "
        + "by(circle{BYRADIUS=radius:double " + GeoUnit + "} | box{BYBOX=width:double height:double " + GeoUnit + "})";
}
