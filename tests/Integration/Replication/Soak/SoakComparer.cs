using System.Diagnostics;
using System.Net;
using System.Text;
using RedisClone.Tests.Infrastructure;
using static RedisClone.Tests.Replication.Soak.SoakResp;

namespace RedisClone.Tests.Replication.Soak;

/// <summary>What a comparison found: keys compared, keys that differ (the first few described), keys that were expiring.</summary>
internal sealed class SoakComparison
{
    public long Compared;
    public long Mismatches;
    public long Expiring;
    public TimeSpan Elapsed;
    public readonly List<string> Examples = [];

    public override string ToString()
        => $"{Compared} keys compared in {Elapsed.TotalSeconds:F1} s, {Mismatches} mismatches, {Expiring} expiring as compared"
           + (Examples.Count > 0 ? ":\n" + string.Join("\n", Examples) : "");
}

/// <summary>
/// Compares two servers key by key: every database's keys (SCAN on both sides), and for each key
/// its type, its expiry (PEXPIRETIME: both have one or neither, equal to <c>ttlToleranceMs</c>) and
/// its content read per type (strings byte for byte, lists in order, hashes and sets as sorted
/// sets of fields and members, sorted sets with their scores, streams' entries and their
/// XINFO STREAM FULL: ids, counters, groups, each group's PEL and consumers). A key present on one
/// side only while the other side's copy expires within <c>expiringWindowMs</c> counts as expiring,
/// not as a mismatch (it was read just before and just after its expiry); so does a key with the same
/// type and expiry on both sides, within that window, whose contents differ (a GET that came after
/// the expiry on one side).
/// </summary>
internal static class SoakComparer
{
    private const int BatchSize = 500;

    public static SoakComparison Compare(IPEndPoint master, IPEndPoint replica, int databases,
        int maxExamples = 20, long ttlToleranceMs = 0, long expiringWindowMs = 3000)
    {
        var sw = Stopwatch.StartNew();
        var result = new SoakComparison();
        using var a = new RespClient(master, 60_000);
        using var b = new RespClient(replica, 60_000);
        for (int db = 0; db < databases; db++)
        {
            a.Call("SELECT", db.ToString());
            b.Call("SELECT", db.ToString());
            var keys = new SortedSet<string>(StringComparer.Ordinal);
            var scans = new[] { Task.Run(() => Scan(a)), Task.Run(() => Scan(b)) };
            Task.WaitAll(scans);
            keys.UnionWith(scans[0].Result);
            keys.UnionWith(scans[1].Result);
            foreach (var chunk in keys.Chunk(BatchSize))
            {
                var sides = new[] { Task.Run(() => Read(a, chunk)), Task.Run(() => Read(b, chunk)) };
                Task.WaitAll(sides);
                long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
                for (int n = 0; n < chunk.Length; n++)
                {
                    result.Compared++;
                    var x = sides[0].Result[n];
                    var y = sides[1].Result[n];
                    if (Same(x, y, ttlToleranceMs)) continue;
                    // Read just before and just after its expiry: gone on one side, or (its type read
                    // before, its content after) empty on one side with the same expiry on both.
                    if ((x.Type == "none" && Expires(y, now, expiringWindowMs)) || (y.Type == "none" && Expires(x, now, expiringWindowMs))
                        || (x.Type == y.Type && x.ExpireAt == y.ExpireAt && Expires(x, now, expiringWindowMs)))
                    {
                        result.Expiring++;
                        continue;
                    }
                    result.Mismatches++;
                    if (result.Examples.Count < maxExamples)
                        result.Examples.Add($"db{db} {Printable(chunk[n])}:\n  master:  {x.Describe(y)}\n  replica: {y.Describe(x)}");
                }
            }
        }
        result.Elapsed = sw.Elapsed;
        return result;
    }

    private static bool Expires(KeyState s, long now, long window) => s.ExpireAt > 0 && s.ExpireAt <= now + window;

    private static bool Same(KeyState x, KeyState y, long tolerance)
        => x.Type == y.Type && x.Content == y.Content
           && (x.ExpireAt < 0 ? x.ExpireAt == y.ExpireAt : y.ExpireAt >= 0 && Math.Abs(x.ExpireAt - y.ExpireAt) <= tolerance);

    /// <summary>Every key of the selected database (SCAN to its end; keys as Latin-1 strings).</summary>
    private static HashSet<string> Scan(RespClient c)
    {
        var keys = new HashSet<string>(StringComparer.Ordinal);
        string cursor = "0";
        for (int rounds = 0; rounds < 10_000_000; rounds++)
        {
            var reply = (List<object?>)Parse(c.Call(Cmd("SCAN", cursor, "COUNT", "1000")).Select(ch => (byte)ch).ToArray())!;
            cursor = (string)reply[0]!;
            foreach (var k in (List<object?>)reply[1]!) keys.Add((string)k!);
            if (cursor == "0") break;
        }
        return keys;
    }

    private sealed record KeyState(string Type, long ExpireAt, string Content)
    {
        /// <summary>Type, expiry and the content from a little before where it first differs from <paramref name="other"/>'s.</summary>
        public string Describe(KeyState other)
        {
            int first = 0;
            while (first < Content.Length && first < other.Content.Length && Content[first] == other.Content[first]) first++;
            int from = Math.Max(0, first - 60);
            string part = Content.Substring(from, Math.Min(400, Content.Length - from));
            return $"type={Type} pexpiretime={ExpireAt} content({Content.Length} chars, from {from})={(from > 0 ? "..." : "")}{Printable(part)}{(from + part.Length < Content.Length ? "..." : "")}";
        }
    }

    /// <summary>Reads each key's type, expiry and content: one pipeline for the types, one for the rest.</summary>
    private static KeyState[] Read(RespClient c, string[] keys)
    {
        var first = new List<byte[][]>(keys.Length);
        foreach (var k in keys) first.Add(Cmd("TYPE", k));
        var types = PipelineParsed(c, first).Select(t => t as string ?? Format(t)).ToArray();
        var second = new List<byte[][]>();
        var plan = new int[keys.Length]; // commands per key in the second pipeline
        for (int n = 0; n < keys.Length; n++)
        {
            string k = keys[n];
            int before = second.Count;
            second.Add(Cmd("PEXPIRETIME", k));
            switch (types[n])
            {
                case "string": second.Add(Cmd("GET", k)); break;
                case "list": second.Add(Cmd("LRANGE", k, "0", "-1")); break;
                case "hash": second.Add(Cmd("HGETALL", k)); break;
                case "set": second.Add(Cmd("SMEMBERS", k)); break;
                case "zset": second.Add(Cmd("ZRANGE", k, "0", "-1", "WITHSCORES")); break;
                case "stream":
                    second.Add(Cmd("XRANGE", k, "-", "+"));
                    second.Add(Cmd("XINFO", "STREAM", k, "FULL", "COUNT", "0"));
                    break;
            }
            plan[n] = second.Count - before;
        }
        var replies = PipelineParsed(c, second);
        var states = new KeyState[keys.Length];
        int at = 0;
        for (int n = 0; n < keys.Length; n++)
        {
            long expireAt = replies[at] is long e ? e : -3;
            var parts = replies.GetRange(at + 1, plan[n] - 1);
            at += plan[n];
            // A key gone between the two pipelines (expired) reads as missing.
            string type = expireAt == -2 ? "none" : types[n];
            states[n] = new KeyState(type, expireAt == -2 ? -2 : expireAt, type == "none" ? "" : Canonical(types[n], parts));
        }
        return states;
    }

    private static string Canonical(string type, List<object?> parts)
    {
        switch (type)
        {
            case "hash":
                {
                    if (parts[0] is not List<object?> flat) return Format(parts[0]);
                    var pairs = new List<string>();
                    for (int i = 0; i + 1 < flat.Count; i += 2) pairs.Add(Format(flat[i]) + "=" + Format(flat[i + 1]));
                    pairs.Sort(StringComparer.Ordinal);
                    return string.Join(",", pairs);
                }
            case "set":
                {
                    if (parts[0] is not List<object?> members) return Format(parts[0]);
                    var sorted = members.Select(Format).ToList();
                    sorted.Sort(StringComparer.Ordinal);
                    return string.Join(",", sorted);
                }
            case "stream":
                return Format(parts[0]) + " " + StreamInfo(parts[1]);
            default:
                return string.Join(" ", parts.Select(Format));
        }
    }

    /// <summary>
    /// XINFO STREAM FULL without what legitimately differs between a master and its replica, in
    /// Redis 7.0 and 7.2 as here: the consumers' seen-time and active-time (the time a replica
    /// applied the stream); a group's entries-read and lag (XREADGROUP propagates XCLAIMs that
    /// carry the last ID but not the read counter, fixed only in Redis 7.4, redis/redis#12898); and
    /// consumers without pending entries (one that XREADGROUP, XCLAIM or XAUTOCLAIM created
    /// without delivering anything is not propagated, unless under NOACK). The entries are
    /// compared by XRANGE.
    /// </summary>
    private static string StreamInfo(object? reply)
    {
        if (reply is not List<object?> flat) return Format(reply);
        var info = AsMap(flat);
        var sb = new StringBuilder();
        foreach (var field in new[] { "length", "last-generated-id", "max-deleted-entry-id", "entries-added", "recorded-first-entry-id" })
            sb.Append(field).Append('=').Append(Format(info.GetValueOrDefault(field))).Append(' ');
        if (info.GetValueOrDefault("groups") is List<object?> groups)
        {
            foreach (var g in groups.OfType<List<object?>>().Select(AsMap).OrderBy(g => Format(g.GetValueOrDefault("name")), StringComparer.Ordinal))
            {
                sb.Append("{group ");
                foreach (var field in new[] { "name", "last-delivered-id", "pel-count", "pending" })
                    sb.Append(field).Append('=').Append(Format(g.GetValueOrDefault(field))).Append(' ');
                if (g.GetValueOrDefault("consumers") is List<object?> consumers)
                    foreach (var consumer in consumers.OfType<List<object?>>().Select(AsMap)
                                 .Where(x => x.GetValueOrDefault("pel-count") is not 0L)
                                 .OrderBy(x => Format(x.GetValueOrDefault("name")), StringComparer.Ordinal))
                        sb.Append("{consumer name=").Append(Format(consumer.GetValueOrDefault("name")))
                          .Append(" pel-count=").Append(Format(consumer.GetValueOrDefault("pel-count")))
                          .Append(" pending=").Append(Format(consumer.GetValueOrDefault("pending"))).Append('}');
                sb.Append('}');
            }
        }
        return sb.ToString();
    }

    private static Dictionary<string, object?> AsMap(List<object?> flat)
    {
        var map = new Dictionary<string, object?>(StringComparer.Ordinal);
        for (int i = 0; i + 1 < flat.Count; i += 2) map[flat[i] as string ?? Format(flat[i])] = flat[i + 1];
        return map;
    }

    /// <summary>Bytes outside printable ASCII as \xNN, so a message shows binary values.</summary>
    private static string Printable(string s)
    {
        var sb = new StringBuilder(s.Length);
        foreach (char ch in s)
            if (ch is >= ' ' and < (char)127) sb.Append(ch);
            else sb.Append("\\x").Append(((int)ch).ToString("x2"));
        return sb.ToString();
    }
}
