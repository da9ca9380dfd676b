using System.Text;
using RedisClone.Storage;

namespace RedisClone.Tests.Sets;

/// <summary>
/// Property tests: <see cref="RedisSet"/> and <see cref="MemberTable"/> against a
/// <see cref="HashSet{T}"/> under random operation sequences (fixed seeds, bounded), checking
/// contents, counts and the encoding invariants after every step.
/// </summary>
public class SetModelTests
{
    private static byte[] B(string s) => Encoding.Latin1.GetBytes(s);

    private static string S(ReadOnlySpan<byte> b) => Encoding.Latin1.GetString(b);

    /// <summary>Members from a pool mixing canonical integers of every width, non-canonical ones, short and long strings.</summary>
    private static string RandomMember(Random r, int poolSize)
    {
        int n = r.Next(poolSize);
        return r.Next(8) switch
        {
            0 => n.ToString(),
            1 => (-n * 40000L).ToString(),
            2 => ((long)n * 3_000_000_000L).ToString(),
            3 => "0" + n,
            4 => "m" + n,
            5 => new string('x', n % 90) + n,
            6 => n % 7 == 0 ? "" : "-" + n,
            _ => n.ToString(),
        };
    }

    private static List<string> Contents(RedisSet set)
    {
        var list = new List<string>();
        Span<byte> scratch = stackalloc byte[RedisSet.ScratchSize];
        int position = 0;
        while (set.Next(ref position, scratch, out var member)) list.Add(S(member));
        return list;
    }

    private static void CheckInvariants(RedisSet set, HashSet<string> model, RedisSet.Limits limits)
    {
        Assert.Equal(model.Count, set.Count);
        var contents = Contents(set);
        Assert.Equal(model.Count, contents.Count);
        Assert.True(model.SetEquals(contents));
        switch (set.Encoding)
        {
            case "intset":
                Assert.True(set.Count <= limits.IntsetEntries);
                var values = contents.Select(long.Parse).ToList();
                Assert.Equal(values.Order(), values); // ascending
                Assert.All(contents, m => Assert.Equal(long.Parse(m).ToString(), m));
                break;
            case "listpack":
                Assert.True(set.Count <= limits.ListpackEntries);
                Assert.All(contents, m => Assert.True(m.Length <= limits.ListpackValue));
                break;
            default:
                Assert.Equal("hashtable", set.Encoding);
                break;
        }
    }

    [Theory]
    [InlineData(1, 512, 128, 64, 300)]
    [InlineData(2, 8, 6, 10, 40)]
    [InlineData(3, 0, 0, 64, 30)]
    [InlineData(4, 100, 200, 20, 400)]
    [InlineData(5, 2000, 128, 64, 3000)]
    public void RedisSet_RandomOperations_MatchHashSet(int seed, int intsetEntries, int listpackEntries, int listpackValue, int poolSize)
    {
        var limits = new RedisSet.Limits(intsetEntries, listpackEntries, listpackValue);
        var random = new Random(seed);
        Span<byte> scratch = stackalloc byte[RedisSet.ScratchSize];
        for (int round = 0; round < 20; round++)
        {
            string first = RandomMember(random, poolSize);
            var set = RedisSet.Create(B(first), random.Next(1, 20), limits);
            var model = new HashSet<string>();
            string before = set.Encoding;
            for (int step = 0; step < 600; step++)
            {
                string m = RandomMember(random, poolSize);
                switch (random.Next(10))
                {
                    case < 5:
                        Assert.Equal(model.Add(m), set.Add(B(m), limits));
                        break;
                    case < 7:
                        Assert.Equal(model.Remove(m), set.Remove(B(m)));
                        break;
                    case 7:
                        Assert.Equal(model.Contains(m), set.Contains(B(m)));
                        break;
                    case 8 when model.Count > 0:
                        int position = set.RandomPosition(random);
                        string picked = S(set.MemberAt(position, scratch));
                        Assert.Contains(picked, model);
                        set.RemoveAt(position);
                        model.Remove(picked);
                        break;
                    default:
                        set.PrepareForAdds(random.Next(1, 3 * Math.Max(1, listpackEntries)), limits);
                        break;
                }
                // Encodings only ever grow: intset -> listpack -> hashtable.
                string now = set.Encoding;
                Assert.True(Rank(now) >= Rank(before), $"{before} -> {now}");
                before = now;
                if (step % 25 == 0) CheckInvariants(set, model, limits);
            }
            CheckInvariants(set, model, limits);
            var copy = (RedisSet)set.DeepCopy();
            Assert.Equal(set.Encoding, copy.Encoding);
            copy.Add(B("only-in-copy"), limits);
            Assert.False(set.Contains(B("only-in-copy")));
            CheckInvariants(set, model, limits);
        }

        static int Rank(string encoding) => encoding switch { "intset" => 0, "listpack" => 1, _ => 2 };
    }

    [Fact]
    public void RedisSet_IntsetWidths_KeepOrderAcrossUpgrades()
    {
        var limits = RedisSet.Limits.Default;
        var set = RedisSet.CreateIntset();
        long[] values = [5, -5, 40000, -40000, 3_000_000_000, -3_000_000_000, long.MaxValue, long.MinValue, 0, 32767, -32768];
        foreach (var v in values) Assert.True(set.Add(B(v.ToString()), limits));
        foreach (var v in values) Assert.False(set.Add(B(v.ToString()), limits));
        Assert.Equal("intset", set.Encoding);
        Assert.Equal(values.Order().Select(v => v.ToString()), Contents(set));
        Assert.False(set.Remove(B("99999999999999")));
        Assert.True(set.Remove(B(long.MinValue.ToString())));
        Assert.False(set.Contains(B("-0")));
        Assert.True(set.Contains(B("0")));
    }

    [Theory]
    [InlineData(11)]
    [InlineData(12)]
    public void MemberTable_ChurnWithCompaction_MatchesHashSet(int seed)
    {
        var random = new Random(seed);
        var table = new MemberTable();
        var model = new HashSet<string>();
        Span<byte> scratch = stackalloc byte[8];
        for (int step = 0; step < 60_000; step++)
        {
            int n = random.Next(3000);
            string m = (n % 4) switch
            {
                0 => n.ToString(),                             // inline
                1 => "member-" + n,                            // arena
                2 => new string((char)('a' + n % 26), n % 300), // up to 300 bytes
                _ => "k" + (n % 10),
            };
            if (random.Next(3) == 0)
            {
                Assert.Equal(model.Remove(m), table.Remove(B(m)));
            }
            else
            {
                Assert.Equal(model.Add(m), table.Add(B(m)));
            }
            if (step % 5000 == 0)
            {
                // Empty most of it: the arena must compact and lookups still work.
                foreach (var x in model.Where(_ => random.Next(10) != 0).ToList())
                {
                    Assert.True(table.Remove(B(x)));
                    model.Remove(x);
                }
            }
        }
        Assert.Equal(model.Count, table.Count);
        var seen = new List<string>();
        for (int s = 0; s < table.SlotCount; s++)
            if (table.IsUsed(s)) seen.Add(S(table.MemberAt(s, scratch)));
        Assert.True(model.SetEquals(seen));
        Assert.Equal(seen.Count, seen.Distinct().Count());
        Assert.All(model, m => Assert.True(table.Contains(B(m))));
        var clone = table.Clone();
        Assert.True(clone.Remove(B(model.First())));
        Assert.Equal(model.Count, table.Count);
    }

    [Fact]
    public void MemberTable_HugeMembers_GetTheirOwnChunks()
    {
        var table = new MemberTable();
        var big = new string('z', 3 << 20);
        Assert.True(table.Add(B(big)));
        Assert.True(table.Add(B("small-member-1")));
        Assert.True(table.Add(B(big + "!")));
        Assert.True(table.Contains(B(big)));
        Assert.True(table.Remove(B(big)));
        Assert.False(table.Contains(B(big)));
        Assert.True(table.Contains(B(big + "!")));
        Assert.True(table.Contains(B("small-member-1")));
        Assert.True(table.MaxLength >= big.Length);
    }
}
