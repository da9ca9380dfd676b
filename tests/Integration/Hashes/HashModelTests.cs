using System.Text;
using RedisClone.Storage;

namespace RedisClone.Tests.Hashes;

/// <summary>
/// <see cref="RedisHash"/> against a simple model (an insertion-ordered list of pairs) under random
/// operation sequences with fixed seeds: contents always agree, the packed form keeps the model's
/// order exactly, and the form changes to the table exactly when Redis's rules say so, never back.
/// </summary>
public class HashModelTests
{
    /// <summary>What the hash should hold: pairs in insertion order, and whether Redis would have converted it.</summary>
    private sealed class Model
    {
        public readonly List<(string Field, string Value)> Pairs = [];
        public bool Converted;

        public int IndexOf(string field) => Pairs.FindIndex(p => p.Field == field);
    }

    private static byte[] B(string s) => Encoding.Latin1.GetBytes(s);

    private static string S(ReadOnlySpan<byte> b) => Encoding.Latin1.GetString(b);

    [Theory]
    [InlineData(1, 8, 10)]
    [InlineData(2, 4, 6)]
    [InlineData(3, 64, 64)]
    [InlineData(4, 0, 64)]
    [InlineData(5, 16, 0)]
    [InlineData(6, 512, 300)]
    public void RandomOperations_AgreeWithModel(int seed, int maxEntries, int maxValue)
    {
        var random = new Random(seed);
        var hash = new RedisHash();
        var model = new Model();
        string RandomString(int maxLen)
        {
            int len = random.Next(maxLen + 1);
            var chars = new char[len];
            for (int i = 0; i < len; i++) chars[i] = (char)random.Next(256);
            return new string(chars);
        }
        string Field() => random.Next(5) == 0 ? RandomString(maxValue + 20) : "f" + random.Next(40);

        for (int step = 0; step < 4000; step++)
        {
            switch (random.Next(6))
            {
                case 0:
                case 1:
                {
                    string f = Field(), v = random.Next(10) == 0 ? RandomString(200) : "v" + random.Next(100000);
                    bool added = hash.Set(B(f), B(v), maxEntries, maxValue);
                    int at = model.IndexOf(f);
                    Assert.Equal(at < 0, added);
                    if (f.Length > maxValue || v.Length > maxValue) model.Converted = true;
                    if (at < 0) model.Pairs.Add((f, v));
                    else model.Pairs[at] = (f, v);
                    if (model.Pairs.Count > maxEntries) model.Converted = true;
                    break;
                }
                case 2:
                {
                    string f = model.Pairs.Count > 0 && random.Next(2) == 0
                        ? model.Pairs[random.Next(model.Pairs.Count)].Field
                        : Field();
                    int at = model.IndexOf(f);
                    Assert.Equal(at >= 0, hash.Delete(B(f)));
                    if (at >= 0) model.Pairs.RemoveAt(at);
                    break;
                }
                case 3:
                {
                    if (model.Pairs.Count == 0) break;
                    var (f, _) = model.Pairs[random.Next(model.Pairs.Count)];
                    string v = random.Next(3) == 0 ? RandomString(maxValue + 5) : random.Next(1000).ToString();
                    int pos = hash.Find(B(f));
                    Assert.True(pos >= 0);
                    hash.SetValueAt(pos, B(v), maxValue);
                    if (v.Length > maxValue || f.Length > maxValue) model.Converted = true;
                    model.Pairs[model.IndexOf(f)] = (f, v);
                    break;
                }
                case 4:
                {
                    string f = Field();
                    int at = model.IndexOf(f);
                    Assert.Equal(at >= 0, hash.TryGet(B(f), out var value));
                    if (at >= 0) Assert.Equal(model.Pairs[at].Value, S(value));
                    break;
                }
                default:
                    if (random.Next(50) == 0)
                    {
                        var copy = (RedisHash)hash.DeepCopy();
                        AssertSame(copy, model);
                        copy.Set(B("only-in-copy"), B("x"), maxEntries, maxValue);
                        Assert.False(hash.Contains(B("only-in-copy")));
                    }
                    break;
            }
            Assert.Equal(model.Converted ? "hashtable" : "listpack", hash.Encoding);
            if (step % 50 == 0) AssertSame(hash, model);
        }
        AssertSame(hash, model);
    }

    private static void AssertSame(RedisHash hash, Model model)
    {
        Assert.Equal(model.Pairs.Count, hash.Count);
        var actual = new List<(string, string)>();
        for (int pos = hash.FirstPosition(); pos >= 0; pos = hash.NextPosition(pos))
            actual.Add((S(hash.FieldAt(pos)), S(hash.ValueAt(pos))));
        if (hash.IsPacked) Assert.Equal(model.Pairs, actual);
        else Assert.Equal(model.Pairs.Order().ToList(), actual.Order().ToList());
        Assert.Equal(hash.Positions().Length, model.Pairs.Count);
        if (model.Pairs.Count > 0)
        {
            var random = new Random(7);
            for (int i = 0; i < 20; i++)
            {
                string f = S(hash.FieldAt(hash.RandomPosition(random)));
                Assert.True(model.IndexOf(f) >= 0);
            }
        }
    }

    [Fact]
    public void Table_ScanSlots_VisitEveryFieldOnceAcrossGrowth()
    {
        var hash = new RedisHash();
        for (int i = 0; i < 100; i++) hash.Set(B("a" + i), B("v"), 0, 64);
        var seen = new List<string>();
        int slot = 0;
        // Walk half, grow the table a lot, delete some not yet visited, walk the rest.
        for (; slot < hash.ScanSlots / 2; slot++)
            if (hash.IsUsedSlot(slot)) seen.Add(S(hash.FieldAt(slot)));
        for (int i = 0; i < 5000; i++) hash.Set(B("b" + i), B("v"), 0, 64);
        for (; slot < hash.ScanSlots; slot++)
            if (hash.IsUsedSlot(slot)) seen.Add(S(hash.FieldAt(slot)));
        Assert.Equal(seen.Count, seen.Distinct().Count());
        for (int i = 0; i < 100; i++) Assert.Contains("a" + i, seen);
    }

    [Fact]
    public void Packed_LargeLengths_RoundTrip()
    {
        var hash = new RedisHash();
        var big = new string('q', 70_000);
        hash.Set(B("f"), B(big), 10, long.MaxValue);
        hash.Set(B(new string('k', 300)), B("v"), 10, long.MaxValue);
        Assert.True(hash.IsPacked);
        Assert.True(hash.TryGet(B("f"), out var v));
        Assert.Equal(big, S(v));
        hash.SetValueAt(hash.Find(B("f")), B("short"), long.MaxValue);
        Assert.True(hash.TryGet(B(new string('k', 300)), out v));
        Assert.Equal("v", S(v));
        Assert.True(hash.TryGet(B("f"), out v));
        Assert.Equal("short", S(v));
    }
}
