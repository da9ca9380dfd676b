namespace RedisClone.Commands;

/// <summary>
/// The geohash arithmetic behind the geo commands, as Redis computes it: a point is encoded as the
/// cell it falls in at a given step (bits per axis), latitude bits at even positions and longitude
/// bits at odd ones; a geo key stores the step-26 cell (52 bits) as the member's score.
/// </summary>
/// <remarks>
/// Every formula follows Redis's geohash.c / geohash_helper.c operation for operation (same double
/// arithmetic, same order), because the scores, the decoded coordinates and the distances must be
/// the same bits as redis-server's. Math.Sin/Cos/Asin/Sqrt call the C library, as Redis does.
/// </remarks>
internal static class GeoHash
{
    public const double LonMin = -180, LonMax = 180;
    public const double LatMin = -85.05112878, LatMax = 85.05112878;
    public const int MaxStep = 26;

    /// <summary>Redis's EARTH_RADIUS_IN_METERS.</summary>
    public const double EarthRadius = 6372797.560856;

    /// <summary>Redis's MERCATOR_MAX, the half circumference used to pick a step from a radius.</summary>
    private const double MercatorMax = 20037726.37;

    private const double DegToRad = Math.PI / 180.0;

    /// <summary>A cell: its bits at <see cref="Step"/> bits per axis. Zero bits and step mark "no cell".</summary>
    public readonly record struct Cell(ulong Bits, int Step)
    {
        public bool IsNone => Bits == 0 && Step == 0;
    }

    /// <summary>A cell's bounds in degrees.</summary>
    public readonly record struct Area(double LonMin, double LonMax, double LatMin, double LatMax);

    public static bool InLimits(double lon, double lat) => lon >= LonMin && lon <= LonMax && lat >= LatMin && lat <= LatMax;

    /// <summary>The cell holding the point in the given ranges; false outside the geo limits or the ranges.</summary>
    public static bool TryEncode(double lon, double lat, int step, double lonLow, double lonHigh, double latLow, double latHigh,
        out Cell cell)
    {
        cell = default;
        if (!InLimits(lon, lat)) return false;
        if (lat < latLow || lat > latHigh || lon < lonLow || lon > lonHigh) return false;
        double latOffset = (lat - latLow) / (latHigh - latLow);
        double lonOffset = (lon - lonLow) / (lonHigh - lonLow);
        latOffset *= 1UL << step;
        lonOffset *= 1UL << step;
        cell = new Cell(Spread((uint)latOffset) | (Spread((uint)lonOffset) << 1), step);
        return true;
    }

    /// <summary>The cell holding the point in the geo ranges.</summary>
    public static bool TryEncode(double lon, double lat, int step, out Cell cell)
        => TryEncode(lon, lat, step, LonMin, LonMax, LatMin, LatMax, out cell);

    /// <summary>The score GEOADD stores: the step-26 cell.</summary>
    public static ulong Score(double lon, double lat)
    {
        TryEncode(lon, lat, MaxStep, out var cell);
        return cell.Bits;
    }

    /// <summary>The bounds of a cell in the geo ranges.</summary>
    public static Area Decode(Cell cell)
    {
        uint latBits = Gather(cell.Bits), lonBits = Gather(cell.Bits >> 1);
        const double latScale = LatMax - LatMin, lonScale = LonMax - LonMin;
        double cells = 1UL << cell.Step;
        return new Area(
            LonMin + (lonBits * 1.0 / cells) * lonScale,
            LonMin + ((uint)(lonBits + 1) * 1.0 / cells) * lonScale,
            LatMin + (latBits * 1.0 / cells) * latScale,
            LatMin + ((uint)(latBits + 1) * 1.0 / cells) * latScale);
    }

    /// <summary>A stored score back to coordinates: the center of its step-26 cell, clamped to the limits.</summary>
    public static (double Lon, double Lat) DecodeScore(double score)
    {
        var area = Decode(new Cell((ulong)score, MaxStep));
        double lon = (area.LonMin + area.LonMax) / 2;
        if (lon > LonMax) lon = LonMax;
        if (lon < LonMin) lon = LonMin;
        double lat = (area.LatMin + area.LatMax) / 2;
        if (lat > LatMax) lat = LatMax;
        if (lat < LatMin) lat = LatMin;
        return (lon, lat);
    }

    /// <summary>GEOHASH's text: the point re-encoded over the standard ranges (±180, ±90), 11 base32 characters (the last always '0').</summary>
    public static void StandardText(double lon, double lat, Span<byte> dest)
    {
        ReadOnlySpan<byte> alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"u8;
        TryEncode(lon, lat, MaxStep, -180, 180, -90, 90, out var cell);
        for (int i = 0; i < 10; i++) dest[i] = alphabet[(int)((cell.Bits >> (52 - (i + 1) * 5)) & 0x1f)];
        dest[10] = alphabet[0]; // 52 bits give ten characters; the eleventh is a zero
    }

    /// <summary>The lowest score in the cell, as a step-26 score.</summary>
    public static ulong Align52(Cell cell) => cell.Bits << (52 - cell.Step * 2);

    /// <summary>The cell moved by one along longitude (odd bits) and/or latitude (even bits), wrapping.</summary>
    public static Cell Move(Cell cell, int dLon, int dLat)
    {
        ulong bits = cell.Bits;
        int shift = 64 - cell.Step * 2;
        if (dLon != 0)
        {
            ulong lon = bits & 0xaaaaaaaaaaaaaaaaUL, lat = bits & 0x5555555555555555UL;
            ulong fill = 0x5555555555555555UL >> shift;
            lon = dLon > 0 ? lon + (fill + 1) : (lon | fill) - (fill + 1);
            lon &= 0xaaaaaaaaaaaaaaaaUL >> shift;
            bits = lon | lat;
        }
        if (dLat != 0)
        {
            ulong lon = bits & 0xaaaaaaaaaaaaaaaaUL, lat = bits & 0x5555555555555555UL;
            ulong fill = 0xaaaaaaaaaaaaaaaaUL >> shift;
            lat = dLat > 0 ? lat + (fill + 1) : (lat | fill) - (fill + 1);
            lat &= 0x5555555555555555UL >> shift;
            bits = lon | lat;
        }
        return new Cell(bits, cell.Step);
    }

    /// <summary>Redis's step estimate for a search radius: coarser near the poles.</summary>
    public static int EstimateStep(double rangeMeters, double lat)
    {
        if (rangeMeters == 0) return 26;
        int step = 1;
        while (rangeMeters < MercatorMax)
        {
            rangeMeters *= 2;
            step++;
        }
        step -= 2;
        if (lat > 66 || lat < -66)
        {
            step--;
            if (lat > 80 || lat < -80) step--;
        }
        return Math.Clamp(step, 1, 26);
    }

    public static double LatDistance(double lat1, double lat2) => EarthRadius * Math.Abs(lat2 * DegToRad - lat1 * DegToRad);

    /// <summary>Redis's haversine distance in meters.</summary>
    public static double Distance(double lon1, double lat1, double lon2, double lat2)
    {
        double lon1r = lon1 * DegToRad, lon2r = lon2 * DegToRad;
        double v = Math.Sin((lon2r - lon1r) / 2);
        if (v == 0.0) return LatDistance(lat1, lat2);
        double lat1r = lat1 * DegToRad, lat2r = lat2 * DegToRad;
        double u = Math.Sin((lat2r - lat1r) / 2);
        double a = u * u + Math.Cos(lat1r) * Math.Cos(lat2r) * v * v;
        return 2.0 * EarthRadius * Math.Asin(Math.Sqrt(a));
    }

    /// <summary>The 32 bits of <paramref name="x"/> at the even positions of the result.</summary>
    private static ulong Spread(uint x)
    {
        ulong v = x;
        v = (v | (v << 16)) & 0x0000FFFF0000FFFFUL;
        v = (v | (v << 8)) & 0x00FF00FF00FF00FFUL;
        v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0FUL;
        v = (v | (v << 2)) & 0x3333333333333333UL;
        v = (v | (v << 1)) & 0x5555555555555555UL;
        return v;
    }

    /// <summary>The even-position bits of <paramref name="v"/> packed into 32 bits (Spread's inverse).</summary>
    private static uint Gather(ulong v)
    {
        v &= 0x5555555555555555UL;
        v = (v | (v >> 1)) & 0x3333333333333333UL;
        v = (v | (v >> 2)) & 0x0F0F0F0F0F0F0F0FUL;
        v = (v | (v >> 4)) & 0x00FF00FF00FF00FFUL;
        v = (v | (v >> 8)) & 0x0000FFFF0000FFFFUL;
        v = (v | (v >> 16)) & 0x00000000FFFFFFFFUL;
        return (uint)v;
    }
}
