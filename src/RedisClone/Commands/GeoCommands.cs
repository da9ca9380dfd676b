using System.Globalization;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Storage;
using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// Geospatial indexes (GEOADD, GEOPOS, GEODIST, GEOHASH, GEOSEARCH, GEOSEARCHSTORE, GEORADIUS*_RO):
/// sorted sets whose scores are 52-bit geohashes (<see cref="GeoHash"/>), so every sorted-set command
/// works on them and their scores are redis-server's.
/// </summary>
/// <remarks>
/// A search walks Redis's nine cells (the center cell at the step estimated from the radius and its
/// eight neighbours, some dropped when the shape cannot reach them) in Redis's order, each as a
/// score range, and keeps the points whose exact distance passes; so the candidates, the unsorted
/// order and the tie order after sorting (a stable sort, as glibc's qsort) are redis-server's.
/// </remarks>
internal static partial class GeoCommands
{
    private static RedisSortedSet.Limits Limits(ref CommandContext ctx)
        => new(ctx.Server.Config.ZsetMaxListpackEntries, ctx.Server.Config.ZsetMaxListpackValue);

    // ---------------------------------------------------------------- GEOADD

    /// <summary>GEOADD key [NX|XX] [CH] longitude latitude member [...] — ZADD with each pair encoded as its score.</summary>
    public static void GeoAdd(ref CommandContext ctx)
    {
        bool nx = false, xx = false, ch = false;
        int at = 2;
        for (; at < ctx.ArgCount; at++)
        {
            if (ctx.ArgIs(at, "NX")) nx = true;
            else if (ctx.ArgIs(at, "XX")) xx = true;
            else if (ctx.ArgIs(at, "CH")) ch = true;
            else break;
        }
        int left = ctx.ArgCount - at;
        if (left % 3 != 0 || (nx && xx) || left == 0)
        {
            ctx.Syntax();
            return;
        }
        int elements = left / 3;
        for (int j = 0; j < elements; j++)
        {
            if (!TryParsePoint(ref ctx, at + j * 3, out _, out _)) return;
        }

        var key = ctx.Arg(1);
        var db = ctx.Db(key);
        if (!Lookup.TryWrite<RedisSortedSet>(ref ctx, db, key, out int slot, out var zset)) return;
        long added = 0, updated = 0;
        if (zset == null)
        {
            if (xx)
            {
                ctx.Unchanged = true;
                ctx.Reply.Raw(Resp.Zero);
                return;
            }
            zset = RedisSortedSet.Create(ctx.Arg(at + 2), Limits(ref ctx));
            slot = db.Add(key.ToArray(), zset);
        }
        var flags = nx ? RedisSortedSet.AddFlags.Nx : xx ? RedisSortedSet.AddFlags.Xx : RedisSortedSet.AddFlags.None;
        var limits = Limits(ref ctx);
        for (int j = 0; j < elements; j++)
        {
            RedisNumbers.TryParseDouble(ctx.Arg(at + j * 3), out double lon);
            RedisNumbers.TryParseDouble(ctx.Arg(at + j * 3 + 1), out double lat);
            var outcome = zset.Add(ctx.Arg(at + j * 3 + 2), GeoHash.Score(lon, lat), flags, limits, out _);
            if (outcome == RedisSortedSet.AddOutcome.Added) added++;
            else if (outcome == RedisSortedSet.AddOutcome.Updated) updated++;
        }
        if (zset.Count == 0) db.RemoveAt(slot);
        // GEOADD runs as ZADD in Redis: the same event name, and nothing when nothing changed.
        if (added > 0 || updated > 0)
        {
            ctx.Notify(Ev.ZSet, "zadd", key);
            PropagateAsZAdd(ref ctx, at, elements);
        }
        else ctx.Unchanged = true;
        ctx.Reply.Integer(ch ? added + updated : added);
    }

    /// <summary>
    /// Redis replaces GEOADD's arguments with a ZADD before running it, so replicas and the AOF get
    /// "zadd key [options as given] score member ...", the scores as integers.
    /// </summary>
    private static void PropagateAsZAdd(ref CommandContext ctx, int at, int elements)
    {
        var log = ctx.Propagation;
        if (log == null) return;
        log.Rewrite(ctx.DbIndex).Add("zadd"u8);
        for (int i = 1; i < at; i++) log.Add(ctx.Arg(i));
        for (int j = 0; j < elements; j++)
        {
            RedisNumbers.TryParseDouble(ctx.Arg(at + j * 3), out double lon);
            RedisNumbers.TryParseDouble(ctx.Arg(at + j * 3 + 1), out double lat);
            log.Add((long)GeoHash.Score(lon, lat)).Add(ctx.Arg(at + j * 3 + 2));
        }
    }

    // ---------------------------------------------------------------- GEOPOS, GEOHASH, GEODIST

    /// <summary>GEOPOS key member [...] — each member's decoded [longitude, latitude], or a null array.</summary>
    public static void GeoPos(ref CommandContext ctx)
    {
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var zset)) return;
        ctx.Reply.ArrayHeader(ctx.ArgCount - 2);
        for (int j = 2; j < ctx.ArgCount; j++)
        {
            if (zset == null || !zset.TryGetScore(ctx.Arg(j), out double score))
            {
                ctx.Reply.NullArray();
                continue;
            }
            var (lon, lat) = GeoHash.DecodeScore(score);
            ctx.Reply.ArrayHeader(2);
            HumanDouble(ref ctx, lon);
            HumanDouble(ref ctx, lat);
        }
    }

    /// <summary>GEOHASH key member [...] — each member's 11-character standard geohash, or nil.</summary>
    public static void GeoHashCommand(ref CommandContext ctx)
    {
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var zset)) return;
        ctx.Reply.ArrayHeader(ctx.ArgCount - 2);
        Span<byte> text = stackalloc byte[11];
        for (int j = 2; j < ctx.ArgCount; j++)
        {
            if (zset == null || !zset.TryGetScore(ctx.Arg(j), out double score))
            {
                ctx.Reply.NullBulk();
                continue;
            }
            var (lon, lat) = GeoHash.DecodeScore(score);
            GeoHash.StandardText(lon, lat, text);
            ctx.Reply.Bulk(text);
        }
    }

    /// <summary>GEODIST key member1 member2 [M|KM|FT|MI] — the distance (4 decimals), nil if a member is missing.</summary>
    public static void GeoDist(ref CommandContext ctx)
    {
        double toMeters = 1;
        if (ctx.ArgCount == 5)
        {
            if (!TryParseUnit(ref ctx, 4, out toMeters)) return;
        }
        else if (ctx.ArgCount > 5)
        {
            ctx.Syntax();
            return;
        }
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(1), out var zset)) return;
        if (zset == null || !zset.TryGetScore(ctx.Arg(2), out double s1) || !zset.TryGetScore(ctx.Arg(3), out double s2))
        {
            ctx.Reply.NullBulk();
            return;
        }
        var (lon1, lat1) = GeoHash.DecodeScore(s1);
        var (lon2, lat2) = GeoHash.DecodeScore(s2);
        Distance(ref ctx, GeoHash.Distance(lon1, lat1, lon2, lat2) / toMeters);
    }

    // ---------------------------------------------------------------- searches

    [Flags]
    private enum SearchKind
    {
        RadiusCoords = 1,
        RadiusMember = 2,
        Search = 4,
        SearchStore = 8,
        NoStore = 16,
    }

    /// <summary>GEOSEARCH key FROMMEMBER m|FROMLONLAT lon lat BYRADIUS r unit|BYBOX w h unit [ASC|DESC] [COUNT n [ANY]] [WITH...].</summary>
    public static void GeoSearch(ref CommandContext ctx) => SearchGeneric(ref ctx, 1, SearchKind.Search);

    /// <summary>GEOSEARCHSTORE dst src ... [STOREDIST] — GEOSEARCH's members stored in dst (scores, or distances); how many.</summary>
    public static void GeoSearchStore(ref CommandContext ctx) => SearchGeneric(ref ctx, 2, SearchKind.Search | SearchKind.SearchStore);

    /// <summary>GEORADIUS key lon lat radius unit [...] [STORE key|STOREDIST key] — GEOSEARCH FROMLONLAT BYRADIUS in the older syntax, or stored.</summary>
    public static void GeoRadius(ref CommandContext ctx) => SearchGeneric(ref ctx, 1, SearchKind.RadiusCoords);

    /// <summary>GEORADIUSBYMEMBER key member radius unit [...] [STORE key|STOREDIST key] — GEOSEARCH FROMMEMBER BYRADIUS in the older syntax, or stored.</summary>
    public static void GeoRadiusByMember(ref CommandContext ctx) => SearchGeneric(ref ctx, 1, SearchKind.RadiusMember);

    /// <summary>
    /// GEORADIUS and GEORADIUSBYMEMBER's keys (Redis's georadiusGetKeys): the source, and the
    /// argument after the last STORE or STOREDIST from the sixth argument on.
    /// </summary>
    public static int RadiusKeys(ref CommandContext ctx, scoped Span<int> keys)
    {
        keys[0] = 1;
        int stored = -1;
        for (int i = 5; i < ctx.ArgCount; i++)
        {
            if ((ctx.ArgIs(i, "STORE") || ctx.ArgIs(i, "STOREDIST")) && i + 1 < ctx.ArgCount)
            {
                stored = i + 1;
                i++;
            }
        }
        if (stored < 0) return 1;
        keys[1] = stored;
        return 2;
    }

    /// <summary>GEORADIUS_RO key lon lat radius unit [...] — GEOSEARCH FROMLONLAT BYRADIUS in the older syntax.</summary>
    public static void GeoRadiusRo(ref CommandContext ctx) => SearchGeneric(ref ctx, 1, SearchKind.RadiusCoords | SearchKind.NoStore);

    /// <summary>GEORADIUSBYMEMBER_RO key member radius unit [...] — GEOSEARCH FROMMEMBER BYRADIUS in the older syntax.</summary>
    public static void GeoRadiusByMemberRo(ref CommandContext ctx) => SearchGeneric(ref ctx, 1, SearchKind.RadiusMember | SearchKind.NoStore);

    /// <summary>The search area: a center, and a radius or a box, in the unit's meters.</summary>
    private struct Shape
    {
        public double Lon, Lat;
        public bool IsBox;
        public double Radius, Width, Height;
        public double Conversion;
    }

    private struct Hit
    {
        public byte[] Member;
        public double Lon, Lat, Dist, Score;
    }

    /// <summary>
    /// Redis's georadiusGeneric: the source key first (WRONGTYPE before anything), the fixed
    /// arguments of the old syntax, then the options left to right, each parsed (and failing) where
    /// it stands, then the combination errors in Redis's order, and only then the search.
    /// </summary>
    private static void SearchGeneric(ref CommandContext ctx, int srcAt, SearchKind kind)
    {
        if (!Lookup.TryRead<RedisSortedSet>(ref ctx, ctx.Arg(srcAt), out var zset)) return;
        var shape = new Shape();
        int baseArgs;
        int storeAt = 0; // the destination key's argument, 0 without one
        if ((kind & SearchKind.RadiusCoords) != 0)
        {
            baseArgs = 6;
            if (!TryParsePoint(ref ctx, 2, out shape.Lon, out shape.Lat)) return;
            if (!TryParseRadius(ref ctx, 4, ref shape)) return;
        }
        else if ((kind & SearchKind.RadiusMember) != 0)
        {
            baseArgs = 5;
            if (zset != null)
            {
                if (!zset.TryGetScore(ctx.Arg(2), out double score))
                {
                    ctx.Error(RespErrors.GeoMemberNotDecodable);
                    return;
                }
                (shape.Lon, shape.Lat) = GeoHash.DecodeScore(score);
                if (!TryParseRadius(ref ctx, 3, ref shape)) return;
            }
        }
        else
        {
            baseArgs = srcAt + 1;
            if ((kind & SearchKind.SearchStore) != 0) storeAt = 1;
        }

        bool withDist = false, withHash = false, withCoord = false, any = false, storeDist = false;
        bool fromMember = false, fromLonLat = false, byRadius = false, byBox = false;
        int sort = 0; // 0 none, 1 ascending, -1 descending
        long count = 0;
        bool search = (kind & SearchKind.Search) != 0, noStore = (kind & SearchKind.NoStore) != 0;
        int remaining = ctx.ArgCount - baseArgs;
        for (int i = 0; i < remaining; i++)
        {
            int a = baseArgs + i;
            if (ctx.ArgIs(a, "WITHDIST")) withDist = true;
            else if (ctx.ArgIs(a, "WITHHASH")) withHash = true;
            else if (ctx.ArgIs(a, "WITHCOORD")) withCoord = true;
            else if (ctx.ArgIs(a, "ANY")) any = true;
            else if (ctx.ArgIs(a, "ASC")) sort = 1;
            else if (ctx.ArgIs(a, "DESC")) sort = -1;
            else if (ctx.ArgIs(a, "COUNT") && i + 1 < remaining)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(a + 1), out count))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return;
                }
                if (count <= 0)
                {
                    ctx.Error(RespErrors.GeoCountNotPositive);
                    return;
                }
                i++;
            }
            else if (ctx.ArgIs(a, "STORE") && i + 1 < remaining && !noStore && !search)
            {
                storeAt = a + 1;
                storeDist = false;
                i++;
            }
            else if (ctx.ArgIs(a, "STOREDIST") && i + 1 < remaining && !noStore && !search)
            {
                storeAt = a + 1;
                storeDist = true;
                i++;
            }
            else if (ctx.ArgIs(a, "STOREDIST") && search && (kind & SearchKind.SearchStore) != 0)
            {
                storeDist = true;
            }
            else if (ctx.ArgIs(a, "FROMMEMBER") && i + 1 < remaining && search && !fromLonLat)
            {
                if (zset != null)
                {
                    if (!zset.TryGetScore(ctx.Arg(a + 1), out double score))
                    {
                        ctx.Error(RespErrors.GeoMemberNotDecodable);
                        return;
                    }
                    (shape.Lon, shape.Lat) = GeoHash.DecodeScore(score);
                }
                fromMember = true;
                i++;
            }
            else if (ctx.ArgIs(a, "FROMLONLAT") && i + 2 < remaining && search && !fromMember)
            {
                if (!TryParsePoint(ref ctx, a + 1, out shape.Lon, out shape.Lat)) return;
                fromLonLat = true;
                i += 2;
            }
            else if (ctx.ArgIs(a, "BYRADIUS") && i + 2 < remaining && search && !byBox)
            {
                if (!TryParseRadius(ref ctx, a + 1, ref shape)) return;
                byRadius = true;
                i += 2;
            }
            else if (ctx.ArgIs(a, "BYBOX") && i + 3 < remaining && search && !byRadius)
            {
                if (!TryParseBox(ref ctx, a + 1, ref shape)) return;
                byBox = true;
                i += 3;
            }
            else
            {
                ctx.Syntax();
                return;
            }
        }

        bool store = storeAt != 0;
        if (store && (withDist || withHash || withCoord))
        {
            ctx.Error(search ? RespErrors.GeoSearchStoreWith : RespErrors.GeoRadiusStoreWith);
            return;
        }
        if (search && !(fromMember || fromLonLat))
        {
            ctx.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + CommandName(ref ctx));
            return;
        }
        if (search && !(byRadius || byBox))
        {
            ctx.Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + CommandName(ref ctx));
            return;
        }
        if (any && count == 0)
        {
            ctx.Error(RespErrors.GeoAnyWithoutCount);
            return;
        }
        // GEORADIUS and GEORADIUSBYMEMBER are writes only when they store: a plain search propagates nothing.
        if (!store) ctx.Unchanged = true;
        if (zset == null)
        {
            if (store) StoreResult(ref ctx, storeAt, search, [], 0, false);
            else ctx.Reply.Raw(Resp.EmptyArray);
            return;
        }
        if (count != 0 && sort == 0 && !any) sort = 1;

        var hits = new List<Hit>();
        Search(zset, shape, any ? count : 0, hits);
        if (hits.Count == 0 && !store)
        {
            ctx.Reply.Raw(Resp.EmptyArray);
            return;
        }
        int returned = count == 0 || hits.Count < count ? hits.Count : (int)count;
        if (sort != 0)
        {
            // Redis sorts everything with qsort (glibc's is a stable merge sort), or only the first
            // COUNT places with its own partial quicksort, whose tie order we reproduce step by step.
            if (returned == hits.Count) SortByDistance(System.Runtime.InteropServices.CollectionsMarshal.AsSpan(hits), sort);
            else PartialQuickSort.Sort(System.Runtime.InteropServices.CollectionsMarshal.AsSpan(hits), sort, 0, returned - 1);
        }

        if (store)
        {
            StoreResult(ref ctx, storeAt, search, hits, returned, storeDist, shape.Conversion);
            return;
        }
        int options = (withDist ? 1 : 0) + (withCoord ? 1 : 0) + (withHash ? 1 : 0);
        ctx.Reply.ArrayHeader(returned);
        for (int i = 0; i < returned; i++)
        {
            var hit = hits[i];
            if (options > 0) ctx.Reply.ArrayHeader(options + 1);
            ctx.Reply.Bulk(hit.Member);
            if (withDist) Distance(ref ctx, hit.Dist / shape.Conversion);
            if (withHash) ctx.Reply.Integer((long)hit.Score);
            if (withCoord)
            {
                ctx.Reply.ArrayHeader(2);
                HumanDouble(ref ctx, hit.Lon);
                HumanDouble(ref ctx, hit.Lat);
            }
        }
    }

    /// <summary>GEOSEARCHSTORE's end: the destination becomes the result (deleted when empty); reply its size.</summary>
    private static void StoreResult(ref CommandContext ctx, int dstAt, bool search, List<Hit> hits, int returned, bool storeDist,
        double conversion = 1)
    {
        var dst = ctx.Arg(dstAt);
        var db = ctx.Db(dst);
        if (returned == 0)
        {
            if (db.Delete(dst, ctx.NowMs)) ctx.Notify(Ev.Generic, "del", dst);
            else ctx.Unchanged = true;
            ctx.Reply.Raw(Resp.Zero);
            return;
        }
        var limits = Limits(ref ctx);
        var zset = RedisSortedSet.Create(hits[0].Member, limits);
        long longest = 0, bytes = 0;
        for (int i = 0; i < returned; i++)
        {
            longest = Math.Max(longest, hits[i].Member.Length);
            bytes += SortedSetPack.EntrySize(hits[i].Member.Length);
        }
        if (longest <= limits.ListpackValue) zset.ReserveForAdds(returned, bytes, limits);
        for (int i = 0; i < returned; i++)
        {
            var hit = hits[i];
            zset.Add(hit.Member, storeDist ? hit.Dist / conversion : hit.Score, RedisSortedSet.AddFlags.None, limits, out _);
        }
        zset.TrimExcess();
        ctx.SetKey(db, dst, zset);
        ctx.Notify(Ev.ZSet, search ? "geosearchstore" : "georadiusstore", dst);
        ctx.Reply.Integer(returned);
    }

    /// <summary>
    /// Redis's geohashCalculateAreasByShapeWGS84 plus membersOfAllNeighbors: the nine cells, each a
    /// score range [cell start, next cell start), points filtered by the exact shape test; with a
    /// <paramref name="limit"/> (COUNT ... ANY) the walk stops once that many were found.
    /// </summary>
    private static void Search(RedisSortedSet zset, in Shape shape, long limit, List<Hit> hits)
    {
        // The bounding box of the shape in degrees (geohashBoundingBox).
        double height = shape.Conversion * (shape.IsBox ? shape.Height / 2 : shape.Radius);
        double width = shape.Conversion * (shape.IsBox ? shape.Width / 2 : shape.Radius);
        double latDelta = height / GeoHash.EarthRadius / (Math.PI / 180.0);
        double lonDeltaTop = width / GeoHash.EarthRadius / Math.Cos((shape.Lat + latDelta) * (Math.PI / 180.0)) / (Math.PI / 180.0);
        double lonDeltaBottom = width / GeoHash.EarthRadius / Math.Cos((shape.Lat - latDelta) * (Math.PI / 180.0)) / (Math.PI / 180.0);
        bool south = shape.Lat < 0;
        double minLon = south ? shape.Lon - lonDeltaBottom : shape.Lon - lonDeltaTop;
        double maxLon = south ? shape.Lon + lonDeltaBottom : shape.Lon + lonDeltaTop;
        double minLat = shape.Lat - latDelta, maxLat = shape.Lat + latDelta;

        double radiusMeters = shape.IsBox
            ? Math.Sqrt((shape.Width / 2) * (shape.Width / 2) + (shape.Height / 2) * (shape.Height / 2))
            : shape.Radius;
        radiusMeters *= shape.Conversion;
        int step = GeoHash.EstimateStep(radiusMeters, shape.Lat);

        GeoHash.TryEncode(shape.Lon, shape.Lat, step, out var center);
        Span<GeoHash.Cell> cells = stackalloc GeoHash.Cell[9];
        Neighbours(center, cells);
        var area = GeoHash.Decode(center);
        if (step > 1
            && (GeoHash.Decode(cells[1]).LatMax < maxLat || GeoHash.Decode(cells[2]).LatMin > minLat
                || GeoHash.Decode(cells[3]).LonMax < maxLon || GeoHash.Decode(cells[4]).LonMin > minLon))
        {
            step--;
            GeoHash.TryEncode(shape.Lon, shape.Lat, step, out center);
            Neighbours(center, cells);
            area = GeoHash.Decode(center);
        }
        if (step >= 2)
        {
            // Order: 0 center, 1 north, 2 south, 3 east, 4 west, 5 NE, 6 NW, 7 SE, 8 SW.
            if (area.LatMin < minLat) cells[2] = cells[8] = cells[7] = default;
            if (area.LatMax > maxLat) cells[1] = cells[5] = cells[6] = default;
            if (area.LonMin < minLon) cells[4] = cells[8] = cells[6] = default;
            if (area.LonMax > maxLon) cells[3] = cells[7] = cells[5] = default;
        }

        int last = 0;
        for (int i = 0; i < 9; i++)
        {
            if (cells[i].IsNone) continue;
            if (last != 0 && cells[i] == cells[last]) continue;
            if (hits.Count > 0 && limit > 0 && hits.Count >= limit) break;
            var next = new GeoHash.Cell(cells[i].Bits + 1, cells[i].Step);
            PointsInRange(zset, GeoHash.Align52(cells[i]), GeoHash.Align52(next), shape, limit, hits);
            last = i;
        }
    }

    private static void Neighbours(GeoHash.Cell center, Span<GeoHash.Cell> cells)
    {
        cells[0] = center;
        cells[1] = GeoHash.Move(center, 0, 1);
        cells[2] = GeoHash.Move(center, 0, -1);
        cells[3] = GeoHash.Move(center, 1, 0);
        cells[4] = GeoHash.Move(center, -1, 0);
        cells[5] = GeoHash.Move(center, 1, 1);
        cells[6] = GeoHash.Move(center, -1, 1);
        cells[7] = GeoHash.Move(center, 1, -1);
        cells[8] = GeoHash.Move(center, -1, -1);
    }

    /// <summary>Members with min &lt;= score &lt; max inside the shape, in score order (geoGetPointsInRange).</summary>
    private static void PointsInRange(RedisSortedSet zset, double min, double max, in Shape shape, long limit, List<Hit> hits)
    {
        var range = new ScoreRange(min, false, max, true);
        if (!zset.FirstInRange(range, out var c, out _)) return;
        Span<byte> scratch = stackalloc byte[RedisSortedSet.ScratchSize];
        do
        {
            double score = zset.ScoreAt(c);
            if (score >= max) break;
            if (Within(shape, score, out double lon, out double lat, out double dist))
            {
                hits.Add(new Hit { Member = zset.MemberAt(c, scratch).ToArray(), Lon = lon, Lat = lat, Dist = dist, Score = score });
            }
            if (hits.Count > 0 && limit > 0 && hits.Count >= limit) break;
        }
        while (zset.MoveNext(ref c));
    }

    /// <summary>Redis's geoWithinShape: the exact radius test, or the box test (latitude first).</summary>
    private static bool Within(in Shape shape, double score, out double lon, out double lat, out double dist)
    {
        (lon, lat) = GeoHash.DecodeScore(score);
        dist = 0;
        if (!shape.IsBox)
        {
            dist = GeoHash.Distance(shape.Lon, shape.Lat, lon, lat);
            return dist <= shape.Radius * shape.Conversion;
        }
        double widthM = shape.Width * shape.Conversion, heightM = shape.Height * shape.Conversion;
        if (GeoHash.LatDistance(lat, shape.Lat) > heightM / 2) return false;
        if (GeoHash.Distance(lon, lat, shape.Lon, lat) > widthM / 2) return false;
        dist = GeoHash.Distance(shape.Lon, shape.Lat, lon, lat);
        return true;
    }

    /// <summary>
    /// A stable sort by distance (glibc's qsort, which Redis calls, is a merge sort: ties keep their
    /// order): a merge sort over the hits with a pooled buffer.
    /// </summary>
    private static void SortByDistance(Span<Hit> hits, int direction)
    {
        if (hits.Length < 2) return;
        var buffer = System.Buffers.ArrayPool<Hit>.Shared.Rent(hits.Length);
        try
        {
            MergeSort(hits, buffer.AsSpan(0, hits.Length), direction);
        }
        finally
        {
            Array.Clear(buffer, 0, hits.Length); // drop the member references
            System.Buffers.ArrayPool<Hit>.Shared.Return(buffer);
        }
    }

    private static void MergeSort(Span<Hit> v, Span<Hit> scratch, int direction)
    {
        if (v.Length <= 16)
        {
            for (int i = 1; i < v.Length; i++)
            {
                var item = v[i];
                int j = i;
                for (; j > 0 && PartialQuickSort.Compare(v[j - 1], item, direction) > 0; j--) v[j] = v[j - 1];
                v[j] = item;
            }
            return;
        }
        int mid = v.Length / 2;
        MergeSort(v[..mid], scratch[..mid], direction);
        MergeSort(v[mid..], scratch[mid..], direction);
        int l = 0, r = mid, o = 0;
        while (l < mid && r < v.Length) scratch[o++] = PartialQuickSort.Compare(v[l], v[r], direction) <= 0 ? v[l++] : v[r++];
        while (l < mid) scratch[o++] = v[l++];
        while (r < v.Length) scratch[o++] = v[r++];
        scratch.CopyTo(v);
    }

    // ---------------------------------------------------------------- argument parsing

    /// <summary>A longitude/latitude pair: each a float ("value is not a valid float"), then both within the geo limits.</summary>
    private static bool TryParsePoint(ref CommandContext ctx, int at, out double lon, out double lat)
    {
        lat = 0;
        if (!RedisNumbers.TryParseDouble(ctx.Arg(at), out lon) || !RedisNumbers.TryParseDouble(ctx.Arg(at + 1), out lat))
        {
            ctx.Error(RespErrors.NotFloat);
            return false;
        }
        if (!GeoHash.InLimits(lon, lat))
        {
            ctx.Error("ERR invalid longitude,latitude pair " + FormatF6(lon) + "," + FormatF6(lat));
            return false;
        }
        return true;
    }

    /// <summary>C's "%f": six decimals, "inf" for infinities.</summary>
    private static string FormatF6(double value)
        => double.IsInfinity(value) ? (value > 0 ? "inf" : "-inf") : value.ToString("F6", CultureInfo.InvariantCulture);

    private static bool TryParseUnit(ref CommandContext ctx, int at, out double toMeters)
    {
        if (ctx.ArgIs(at, "M")) toMeters = 1;
        else if (ctx.ArgIs(at, "KM")) toMeters = 1000;
        else if (ctx.ArgIs(at, "FT")) toMeters = 0.3048;
        else if (ctx.ArgIs(at, "MI")) toMeters = 1609.34;
        else
        {
            toMeters = -1;
            ctx.Error(RespErrors.GeoUnsupportedUnit);
            return false;
        }
        return true;
    }

    private static bool TryParseRadius(ref CommandContext ctx, int at, ref Shape shape)
    {
        if (!RedisNumbers.TryParseDouble(ctx.Arg(at), out double radius))
        {
            ctx.Error(RespErrors.GeoNeedNumericRadius);
            return false;
        }
        if (radius < 0)
        {
            ctx.Error(RespErrors.GeoRadiusNegative);
            return false;
        }
        shape.Radius = radius;
        shape.IsBox = false;
        if (!TryParseUnit(ref ctx, at + 1, out shape.Conversion)) return false;
        return true;
    }

    private static bool TryParseBox(ref CommandContext ctx, int at, ref Shape shape)
    {
        if (!RedisNumbers.TryParseDouble(ctx.Arg(at), out double width))
        {
            ctx.Error(RespErrors.GeoNeedNumericWidth);
            return false;
        }
        if (!RedisNumbers.TryParseDouble(ctx.Arg(at + 1), out double height))
        {
            ctx.Error(RespErrors.GeoNeedNumericHeight);
            return false;
        }
        if (height < 0 || width < 0)
        {
            ctx.Error(RespErrors.GeoBoxNegative);
            return false;
        }
        shape.Width = width;
        shape.Height = height;
        shape.IsBox = true;
        if (!TryParseUnit(ref ctx, at + 2, out shape.Conversion)) return false;
        return true;
    }

    /// <summary>The command name as the client typed it (Redis quotes argv[0] in two search errors).</summary>
    private static string CommandName(ref CommandContext ctx) => System.Text.Encoding.UTF8.GetString(ctx.Arg(0));

    // ---------------------------------------------------------------- replies

    /// <summary>Redis's addReplyHumanLongDouble: "%.17Lf" trimmed, a bulk string in RESP2 and a double in RESP3.</summary>
    private static void HumanDouble(ref CommandContext ctx, double value)
    {
        Span<byte> text = stackalloc byte[64];
        int n = RedisNumbers.FormatLongDoubleHuman(ExtendedDouble.FromDouble(value), text);
        if (!ctx.Reply.IsResp3)
        {
            ctx.Reply.Bulk(text.Slice(0, n));
            return;
        }
        ctx.Reply.Raw(","u8);
        ctx.Reply.Raw(text.Slice(0, n));
        ctx.Reply.Raw("\r\n"u8);
    }

    /// <summary>
    /// Redis 7.2's addReplyDoubleDistance (fixedpoint_d2string with 4 digits): the distance times
    /// 10^4 rounded to the nearest integer, ties to even as llrint, printed with four decimals; always
    /// a bulk string. 7.0 printed "%.4f", which rounds the exact value: the two differ only when
    /// d * 10^4 lands on a rounding tie.
    /// </summary>
    private static void Distance(ref CommandContext ctx, double meters)
    {
        Span<byte> text = stackalloc byte[48];
        ctx.Reply.Bulk(text[..FormatDistance(meters, text)]);
    }

    /// <summary>The text of <see cref="Distance"/> written into <paramref name="text"/> (48 bytes suffice); its length.</summary>
    internal static int FormatDistance(double meters, Span<byte> text)
    {
        long scaled = (long)Math.Round(meters * 10000.0, MidpointRounding.ToEven);
        int n = 0;
        if (scaled < 0) text[n++] = (byte)'-';
        ulong magnitude = scaled < 0 ? (ulong)(-(scaled + 1)) + 1 : (ulong)scaled;
        System.Buffers.Text.Utf8Formatter.TryFormat(magnitude / 10000, text[n..], out int written);
        n += written;
        text[n++] = (byte)'.';
        System.Buffers.Text.Utf8Formatter.TryFormat(magnitude % 10000, text[n..], out written, new System.Buffers.StandardFormat('D', 4));
        return n + written;
    }
}
