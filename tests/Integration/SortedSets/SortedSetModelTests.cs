using System.Text;
using RedisClone.Storage;

namespace RedisClone.Tests.SortedSets;

/// <summary>
/// <see cref="RedisSortedSet"/> against a simple model (a <see cref="SortedSet{T}"/> of (score, member)
/// plus a dictionary) under seeded random operation sequences, in both encodings and across the
/// conversion: the order, ranks, scores, ranges and removals must agree after every step.
/// </summary>
public class SortedSetModelTests
{
    private sealed class KeyOrder : IComparer<(double Score, string Member)>
    {
        public static readonly KeyOrder Instance = new();

        public int Compare((double Score, string Member) x, (double Score, string Member) y)
        {
            if (x.Score < y.Score) return -1;
            if (x.Score > y.Score) return 1;
            // Members here are ASCII, where ordinal order is byte order.
            return string.CompareOrdinal(x.Member, y.Member);
        }
    }

    /// <summary>The model: what a sorted set must hold.</summary>
    private sealed class Model
    {
        public readonly SortedSet<(double Score, string Member)> Order = new(KeyOrder.Instance);
        public readonly Dictionary<string, double> Scores = new();

        public List<(double Score, string Member)> List() => Order.ToList();

        public void Set(string member, double score)
        {
            if (Scores.TryGetValue(member, out double old)) Order.Remove((old, member));
            Scores[member] = score;
            Order.Add((score, member));
        }

        public void Remove(string member)
        {
            if (!Scores.Remove(member, out double old)) return;
            Order.Remove((old, member));
        }
    }

    private static byte[] B(string s) => Encoding.Latin1.GetBytes(s);

    private static string S(ReadOnlySpan<byte> b) => Encoding.Latin1.GetString(b);

    private static List<(double, string)> Forward(RedisSortedSet z)
    {
        var result = new List<(double, string)>();
        Span<byte> scratch = stackalloc byte[RedisSortedSet.ScratchSize];
        for (var c = z.First; c.IsValid; z.MoveNext(ref c)) result.Add((z.ScoreAt(c), S(z.MemberAt(c, scratch))));
        return result;
    }

    private static List<(double, string)> Backward(RedisSortedSet z)
    {
        var result = new List<(double, string)>();
        Span<byte> scratch = stackalloc byte[RedisSortedSet.ScratchSize];
        for (var c = z.Last; c.IsValid; z.MovePrevious(ref c)) result.Add((z.ScoreAt(c), S(z.MemberAt(c, scratch))));
        result.Reverse();
        return result;
    }

    /// <summary>Scores with ties (small integers) and zeros of both signs; -0 reads back as 0 from a listpack.</summary>
    private static double Norm(double score, RedisSortedSet z) => z.IsListpack && score == 0 ? 0 : score;

    private static void AssertSameAsModel(RedisSortedSet z, Model model, string where)
    {
        var expected = model.List();
        var forward = Forward(z);
        Assert.True(expected.Count == z.Count, $"{where}: count {z.Count}, model {expected.Count}");
        Assert.True(expected.Count == forward.Count, $"{where}: walked {forward.Count}, model {expected.Count}");
        for (int i = 0; i < expected.Count; i++)
        {
            Assert.True(expected[i].Member == forward[i].Item2, $"{where}: member at rank {i} is {forward[i].Item2}, model {expected[i].Member}");
            Assert.True(expected[i].Score.Equals(forward[i].Item1) || (expected[i].Score == 0 && forward[i].Item1 == 0),
                $"{where}: score at rank {i}");
        }
        Assert.Equal(forward, Backward(z));
    }

    private static void Run(int seed, int steps, int members, RedisSortedSet.Limits limits, bool startWithIndex)
    {
        var r = new Random(seed);
        var model = new Model();
        var z = RedisSortedSet.Create(startWithIndex ? new byte[100] : B("m"), limits);
        if (startWithIndex) Assert.False(z.IsListpack);
        string M() => "m" + r.Next(members);
        double Score() => r.Next(10) switch
        {
            0 => -0.0,
            1 => double.PositiveInfinity,
            2 => r.NextDouble() * 100 - 50,
            _ => r.Next(-20, 20),
        };
        Span<byte> scratch = stackalloc byte[RedisSortedSet.ScratchSize];
        for (int step = 0; step < steps; step++)
        {
            int op = r.Next(100);
            string m = M();
            if (op < 40)
            {
                double score = Score();
                var flags = (RedisSortedSet.AddFlags)(new[] { 0, 0, 0, 1, 2, 4, 8, 16, 16 | 4 }[r.Next(9)]);
                bool exists = model.Scores.TryGetValue(m, out double current);
                var outcome = z.Add(B(m), score, flags, limits, out double newScore);
                double target = (flags & RedisSortedSet.AddFlags.Incr) != 0 && exists ? current + score : score;
                if (double.IsNaN(target))
                {
                    Assert.Equal(RedisSortedSet.AddOutcome.NotANumber, outcome);
                    continue;
                }
                bool skip = exists
                    ? (flags & RedisSortedSet.AddFlags.Nx) != 0 || ((flags & RedisSortedSet.AddFlags.Gt) != 0 && target <= current)
                        || ((flags & RedisSortedSet.AddFlags.Lt) != 0 && target >= current)
                    : (flags & RedisSortedSet.AddFlags.Xx) != 0;
                if (skip)
                {
                    Assert.Equal(RedisSortedSet.AddOutcome.Skipped, outcome);
                    continue;
                }
                Assert.Equal(target, newScore);
                if (!exists)
                {
                    Assert.Equal(RedisSortedSet.AddOutcome.Added, outcome);
                    model.Set(m, Norm(target, z));
                }
                else if (target == current)
                {
                    Assert.Equal(RedisSortedSet.AddOutcome.Unchanged, outcome);
                }
                else
                {
                    Assert.Equal(RedisSortedSet.AddOutcome.Updated, outcome);
                    model.Set(m, Norm(target, z));
                }
            }
            else if (op < 55)
            {
                Assert.Equal(model.Scores.ContainsKey(m), z.Remove(B(m)));
                model.Remove(m);
            }
            else if (op < 65)
            {
                var list = model.List();
                int expected = list.FindIndex(e => e.Member == m);
                bool reverse = r.Next(2) == 0;
                long rank = z.Rank(B(m), reverse, out double score);
                Assert.Equal(expected < 0 ? -1 : reverse ? list.Count - 1 - expected : expected, rank);
                if (expected >= 0) Assert.Equal(list[expected].Score, score);
                Assert.Equal(expected >= 0, z.TryGetScore(B(m), out _));
            }
            else if (op < 75)
            {
                double a = r.Next(-25, 25), b = r.Next(-25, 25);
                var range = new ScoreRange(a, r.Next(2) == 0, b, r.Next(2) == 0);
                var list = model.List();
                var inRange = list.Select((e, i) => (e, i)).Where(x => !range.BelowMin(x.e.Score, default) && !range.AboveMax(x.e.Score, default)).ToList();
                Assert.Equal(inRange.Count, z.CountInRange(range));
                bool found = z.FirstInRange(range, out var c, out long rank);
                Assert.Equal(inRange.Count > 0, found);
                if (found)
                {
                    Assert.Equal(inRange[0].i, rank);
                    Assert.Equal(inRange[0].e.Member, S(z.MemberAt(c, scratch)));
                    Assert.True(z.LastInRange(range, out c, out rank));
                    Assert.Equal(inRange[^1].i, rank);
                    Assert.Equal(inRange[^1].e.Member, S(z.MemberAt(c, scratch)));
                }
                if (r.Next(4) == 0)
                {
                    Assert.Equal(inRange.Count, z.RemoveRange(range));
                    foreach (var x in inRange) model.Remove(x.e.Member);
                }
            }
            else if (op < 80)
            {
                int count = model.Scores.Count;
                if (count == 0) continue;
                long start = r.Next(count), n = r.Next(1, Math.Min(count - (int)start, 300) + 1);
                var list = model.List();
                z.RemoveRankRange(start, n);
                for (long i = start; i < start + n; i++) model.Remove(list[(int)i].Member);
            }
            else if (op < 90)
            {
                var list = model.List();
                if (list.Count == 0) continue;
                long rank = r.Next(list.Count);
                var c = z.AtRank(rank);
                Assert.Equal(list[(int)rank].Member, S(z.MemberAt(c, scratch)));
                var pick = z.Random(r);
                Assert.True(model.Scores.ContainsKey(S(z.MemberAt(pick, scratch))));
            }
            else if (op < 92)
            {
                var copy = (RedisSortedSet)z.DeepCopy();
                Assert.Equal(Forward(z), Forward(copy));
                Assert.Equal(z.Encoding, copy.Encoding);
                copy.Add(B("only-in-copy"), 1, RedisSortedSet.AddFlags.None, limits, out _);
                Assert.False(z.Contains(B("only-in-copy")));
            }
            else
            {
                AssertSameAsModel(z, model, $"seed {seed} step {step}");
            }
        }
        AssertSameAsModel(z, model, $"seed {seed} end");
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void DefaultLimits_ListpackThenSkiplist_MatchesModel(int seed)
        => Run(seed, 6000, 400, RedisSortedSet.Limits.Default, startWithIndex: false);

    [Theory]
    [InlineData(4)]
    [InlineData(5)]
    public void ListpackOnly_MatchesModel(int seed)
        => Run(seed, 4000, 150, new RedisSortedSet.Limits(100_000, 64), startWithIndex: false);

    [Theory]
    [InlineData(6)]
    [InlineData(7)]
    [InlineData(8)]
    public void SkiplistOnly_LargeSets_MatchesModel(int seed)
        => Run(seed, 40_000, 20_000, new RedisSortedSet.Limits(0, 64), startWithIndex: true);

    [Fact]
    public void Index_GrowsAndShrinksThroughManyLevels_StaysOrdered()
    {
        var limits = new RedisSortedSet.Limits(0, 64);
        var z = RedisSortedSet.Create(B("x"), limits);
        var model = new Model();
        var r = new Random(42);
        // 100k members make a tree three levels deep; then most of them go, in ranges and one by one.
        for (int i = 0; i < 100_000; i++)
        {
            string m = "k" + i.ToString("D7");
            double score = r.Next(1000);
            z.Add(B(m), score, RedisSortedSet.AddFlags.None, limits, out _);
            model.Set(m, score);
        }
        AssertSameAsModel(z, model, "after inserts");
        for (int i = 0; i < 30_000; i++)
        {
            string m = "k" + r.Next(100_000).ToString("D7");
            double score = r.Next(1000);
            z.Add(B(m), score, RedisSortedSet.AddFlags.Incr, limits, out double sum);
            model.Set(m, sum);
        }
        AssertSameAsModel(z, model, "after increments");
        var list = model.List();
        z.RemoveRankRange(1000, 50_000);
        foreach (var e in list.Skip(1000).Take(50_000)) model.Remove(e.Member);
        AssertSameAsModel(z, model, "after a range removal");
        foreach (var e in model.List().Where((_, i) => i % 3 != 0))
        {
            Assert.True(z.Remove(B(e.Member)));
            model.Remove(e.Member);
        }
        AssertSameAsModel(z, model, "after removals");
        for (long rank = 0; rank < z.Count; rank += 997)
        {
            Assert.Equal(model.List()[(int)rank].Member, S(z.MemberAt(z.AtRank(rank), new byte[8])));
            Assert.Equal(rank, z.Rank(B(model.List()[(int)rank].Member), false, out _));
        }
    }

    [Fact]
    public void Listpack_NegativeZeroStoredAsZero_SkiplistKeepsIt()
    {
        var limits = RedisSortedSet.Limits.Default;
        var pack = RedisSortedSet.Create(B("a"), limits);
        pack.Add(B("a"), -0.0, RedisSortedSet.AddFlags.None, limits, out double reply);
        Assert.True(double.IsNegative(reply));
        pack.TryGetScore(B("a"), out double stored);
        Assert.False(double.IsNegative(stored));

        var index = RedisSortedSet.Create(B("a"), new RedisSortedSet.Limits(0, 64));
        index.Add(B("a"), -0.0, RedisSortedSet.AddFlags.None, limits, out _);
        index.TryGetScore(B("a"), out stored);
        Assert.True(double.IsNegative(stored));
    }

    [Fact]
    public void Conversion_OnEntriesAndValueLimits_OneWay()
    {
        var limits = new RedisSortedSet.Limits(4, 8);
        var z = RedisSortedSet.Create(B("a"), limits);
        for (int i = 0; i < 4; i++) z.Add(B("m" + i), i, RedisSortedSet.AddFlags.None, limits, out _);
        Assert.Equal("listpack", z.Encoding);
        z.Add(B("m0"), 10, RedisSortedSet.AddFlags.None, limits, out _);
        Assert.Equal("listpack", z.Encoding);
        z.Add(B("m4"), 4, RedisSortedSet.AddFlags.None, limits, out _);
        Assert.Equal("skiplist", z.Encoding);
        z.Remove(B("m4"));
        z.Remove(B("m3"));
        Assert.Equal("skiplist", z.Encoding);

        var y = RedisSortedSet.Create(B("a"), limits);
        y.Add(B("123456789"), 1, RedisSortedSet.AddFlags.None, limits, out _);
        Assert.Equal("skiplist", y.Encoding);
        Assert.Equal("skiplist", RedisSortedSet.Create(B("123456789"), limits).Encoding);
    }
}
