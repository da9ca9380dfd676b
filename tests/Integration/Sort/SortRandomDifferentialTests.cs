using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Sort;

/// <summary>
/// Random SORT commands (fixed seeds, bounded) against redis-server: random lists, sets and sorted
/// sets, weights and objects in string keys and hash fields (some missing, some not numbers), and
/// random combinations of BY, GET, LIMIT, ASC/DESC, ALPHA and STORE.
/// </summary>
/// <remarks>
/// Only commands whose reply Redis defines are generated: where ties could appear in an order Redis
/// leaves to its hash table (set and sorted-set members) or to its partial quicksort (ALPHA with
/// BY and LIMIT), the BY pattern is "u_*", whose values are present and distinct for every element.
/// Unsorted sets (BY nosort without STORE) are only read when they hold integers alone.
/// </remarks>
public class SortRandomDifferentialTests
{
    private static readonly string[] Words = ["apple", "Apple", "pear", "fig", "b", "a", "ab", "zz", "10x", "-", "é"];

    [RedisFact]
    public void Sort_RandomCommands_MatchRedis()
    {
        for (int seed = 1; seed <= 20; seed++) Differential.AssertSame(Script(new Random(seed)).ToArray());
    }

    private static string Element(Random r, bool numeric)
    {
        if (numeric || r.Next(3) > 0)
        {
            return r.Next(4) switch
            {
                0 => r.Next(-50, 50).ToString(),
                1 => (r.Next(-500, 500) / 10.0).ToString(System.Globalization.CultureInfo.InvariantCulture),
                2 => r.Next(0, 5).ToString(),
                _ => r.NextInt64(long.MinValue, long.MaxValue).ToString(),
            };
        }
        return Words[r.Next(Words.Length)];
    }

    private static List<string[]> Script(Random r)
    {
        var script = new List<string[]>();
        var all = new HashSet<string>();

        var list = new List<string>();
        bool numericList = r.Next(2) == 0;
        for (int i = r.Next(0, 25); i > 0; i--) list.Add(Element(r, numericList));
        if (list.Count > 0) script.Add(["RPUSH", "l", .. list]);

        bool intSet = r.Next(2) == 0;
        var set = new HashSet<string>();
        for (int i = r.Next(1, 20); i > 0; i--) set.Add(intSet ? r.Next(-100, 100).ToString() : Element(r, false));
        script.Add(["SADD", "s", .. set]);

        var zset = new HashSet<string>();
        var zadd = new List<string> { "ZADD", "z" };
        for (int i = r.Next(1, 20); i > 0; i--)
        {
            var m = Element(r, r.Next(2) == 0);
            if (!zset.Add(m)) continue;
            zadd.Add(r.Next(-3, 3).ToString());
            zadd.Add(m);
        }
        script.Add(zadd.ToArray());

        all.UnionWith(list);
        all.UnionWith(set);
        all.UnionWith(zset);
        // Distinct weights for every element: "u_*" never ties. The others are partial or mixed.
        var order = all.OrderBy(_ => r.Next()).ToList();
        for (int i = 0; i < order.Count; i++)
        {
            var e = order[i];
            script.Add(["SET", "u_" + e, i.ToString("D3")]);
            if (r.Next(4) > 0) script.Add(["SET", "w_" + e, r.Next(60) == 0 ? "heavy" : r.Next(-5, 5).ToString()]);
            if (r.Next(3) > 0) script.Add(["SET", "o_" + e, "obj-" + e]);
            if (r.Next(3) > 0) script.Add(["HSET", "h_" + e, "f", r.Next(-5, 5).ToString(), "g", "g-" + e]);
        }

        for (int n = 0; n < 50; n++)
        {
            string key = r.Next(4) switch { 0 or 1 => "l", 2 => "s", _ => "z" };
            bool ordered = key != "s";
            bool sortRo = r.Next(4) == 0;
            var cmd = new List<string> { sortRo ? "SORT_RO" : "SORT", key };
            var options = new List<string[]>();
            bool alpha = r.Next(2) == 0, limit = r.Next(2) == 0, store = !sortRo && r.Next(4) == 0;
            string? by = r.Next(3) switch
            {
                0 => null,
                1 => "nosort",
                _ => r.Next(3) switch { 0 => "w_*", 1 => "h_*->f", _ => "u_*" },
            };
            if (by == "nosort" && key == "s" && !intSet && !store) by = null;
            if (by != null && by != "nosort" && alpha && (limit || !ordered || key == "z")) by = "u_*";
            if (by != null) options.Add(["BY", by]);
            if (limit) options.Add(["LIMIT", r.Next(-2, 8).ToString(), r.Next(-2, 8).ToString()]);
            for (int g = r.Next(-2, 3); g > 0; g--)
                options.Add(["GET", r.Next(4) switch { 0 => "#", 1 => "o_*", 2 => "h_*->g", _ => "nostar" }]);
            if (r.Next(2) == 0) options.Add([r.Next(2) == 0 ? "DESC" : "ASC"]);
            if (alpha) options.Add(["ALPHA"]);
            if (store) options.Add(["STORE", "dst"]);
            foreach (var option in options.OrderBy(_ => r.Next())) cmd.AddRange(option);
            script.Add(cmd.ToArray());
            if (store) script.Add(["LRANGE", "dst", "0", "-1"]);
        }
        return script;
    }
}
