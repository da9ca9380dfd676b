using System.Text;
using RedisClone.Storage;

namespace RedisClone.Tests.Lists;

/// <summary>
/// <see cref="RedisList"/> against a plain <see cref="List{T}"/> under random operation sequences
/// (fixed seeds, bounded): after every step the contents read forwards and backwards must equal the
/// model's, and the listpack/quicklist structure must be sound (byte totals, counts, no empty node).
/// Small fill values force many nodes, splits and merges.
/// </summary>
public class ListPropertyTests
{
    [Theory]
    [InlineData(1, -2)]
    [InlineData(2, 3)]
    [InlineData(3, 1)]
    [InlineData(4, -1)]
    [InlineData(5, 8)]
    [InlineData(6, 0)]
    [InlineData(7, -5)]
    public void RandomOperations_MatchListModel(int seed, int fill)
    {
        var random = new Random(seed);
        var list = new RedisList();
        var model = new List<string>();
        for (int step = 0; step < 3000; step++)
        {
            string op = Apply(random, list, model, fill);
            AssertSame(list, model, $"seed {seed} fill {fill} step {step} after {op}", full: step % 7 == 0);
            if (model.Count > 400) Apply(random, list, model, fill, forceTrim: true);
        }
    }

    [Fact]
    public void Listpack_EveryIntegerWidth_RoundTripsAsText()
    {
        string[] values =
        [
            "0", "1", "127", "128", "-1", "-4096", "4095", "4096", "-4097", "32767", "-32768", "32768", "8388607",
            "-8388608", "8388608", "2147483647", "-2147483648", "2147483648", "9223372036854775807",
            "-9223372036854775808", "-0", "007", "+1", "1 ", "", "9223372036854775808", "abc",
            new string('x', 63), new string('y', 64), new string('z', 4095), new string('w', 4096), new string('v', 20000),
        ];
        var lp = Listpack.New();
        foreach (var v in values) Listpack.Append(ref lp, Encoding.ASCII.GetBytes(v));
        Assert.Equal(values.Length, Listpack.Count(lp));
        int i = 0;
        Span<byte> scratch = stackalloc byte[24];
        for (int p = Listpack.First(lp); p >= 0; p = Listpack.Next(lp, p), i++)
        {
            var text = new byte[Math.Max(24, values[i].Length)];
            int n = Listpack.CopyText(lp, Listpack.Get(lp, p), text);
            Assert.Equal(values[i], Encoding.ASCII.GetString(text, 0, n));
            Assert.True(Listpack.Matches(lp, p, Encoding.ASCII.GetBytes(values[i])));
        }
        i = values.Length - 1;
        for (int p = Listpack.Last(lp); p >= 0; p = Listpack.Prev(lp, p), i--)
            Assert.True(Listpack.Matches(lp, p, Encoding.ASCII.GetBytes(values[i])), values[i]);
        Assert.Equal(-1, i);
    }

    [Fact]
    public void Listpack_Sizes_AreRedisListpackSizes()
    {
        // Header 6 + end 1; "a" = 1+1 data + 1 backlen; 100 = 7-bit int + backlen; 1000 = 13-bit int + backlen;
        // 64 chars = 2-byte header + 64 + 1-byte backlen (66 <= 127); 200 chars = 2 + 200 + 2-byte backlen.
        var lp = Listpack.New();
        Listpack.Append(ref lp, "a"u8);
        Assert.Equal(7 + 3, Listpack.Bytes(lp));
        Listpack.Append(ref lp, "100"u8);
        Assert.Equal(10 + 2, Listpack.Bytes(lp));
        Listpack.Append(ref lp, "1000"u8);
        Assert.Equal(12 + 3, Listpack.Bytes(lp));
        Listpack.Append(ref lp, Encoding.ASCII.GetBytes(new string('x', 64)));
        Assert.Equal(15 + 67, Listpack.Bytes(lp));
        Listpack.Append(ref lp, Encoding.ASCII.GetBytes(new string('x', 200)));
        Assert.Equal(82 + 204, Listpack.Bytes(lp));
    }

    [Theory]
    [InlineData(98, "listpack")]
    [InlineData(99, "quicklist")]
    public void BuiltInOneGo_ConvertsLikeSortStore(int count, string encoding)
    {
        // Redis 7.2's SORT ... STORE of 80-byte elements: 98 fit one default node (8 KB), 99 need two.
        var list = RedisList.NewQuicklist();
        for (int i = 0; i < count; i++) list.PushTail(Encoding.ASCII.GetBytes(i.ToString("D3") + new string('x', 77)));
        list.ConvertIfSmall(-2);
        Assert.Equal(encoding, list.Encoding);
        Assert.Equal(count, list.Count);
    }

    private static string Apply(Random random, RedisList list, List<string> model, int fill, bool forceTrim = false)
    {
        int op = forceTrim ? 99 : random.Next(100);
        if (op < 30)
        {
            bool head = random.Next(2) == 0;
            int n = 1 + random.Next(random.Next(4) == 0 ? 20 : 3);
            var values = Enumerable.Range(0, n).Select(_ => RandomValue(random)).ToList();
            list.PrepareToGrow(fill, values.Sum(v => (long)v.Length), n);
            foreach (var v in values)
            {
                if (head)
                {
                    list.PushHead(Encoding.Latin1.GetBytes(v));
                    model.Insert(0, v);
                }
                else
                {
                    list.PushTail(Encoding.Latin1.GetBytes(v));
                    model.Add(v);
                }
            }
            return head ? "push head" : "push tail";
        }
        if (op < 50)
        {
            if (model.Count == 0) return "pop (empty)";
            bool head = random.Next(2) == 0;
            int n = Math.Min(model.Count, 1 + random.Next(5));
            list.DeleteRange(head ? 0 : model.Count - n, n);
            model.RemoveRange(head ? 0 : model.Count - n, n);
            list.AfterShrink(fill);
            return "pop";
        }
        if (op < 60)
        {
            if (model.Count == 0) return "lset (empty)";
            int index = random.Next(model.Count);
            string v = RandomValue(random);
            list.PrepareToGrow(fill, v.Length, 1);
            Assert.True(list.Replace(random.Next(2) == 0 ? index : index - model.Count, Encoding.Latin1.GetBytes(v)));
            model[index] = v;
            list.AfterShrink(fill);
            Assert.False(list.Replace(model.Count, "x"u8));
            return "lset";
        }
        if (op < 75)
        {
            string pivot = model.Count > 0 && random.Next(4) != 0 ? model[random.Next(model.Count)] : RandomValue(random);
            string v = RandomValue(random);
            bool after = random.Next(2) == 0;
            list.PrepareToGrow(fill, v.Length, 1);
            bool inserted = list.Insert(Encoding.Latin1.GetBytes(pivot), Encoding.Latin1.GetBytes(v), after);
            int at = model.IndexOf(pivot);
            Assert.Equal(at >= 0, inserted);
            if (at >= 0) model.Insert(after ? at + 1 : at, v);
            return "linsert";
        }
        if (op < 88)
        {
            string target = model.Count > 0 && random.Next(3) != 0 ? model[random.Next(model.Count)] : RandomValue(random);
            long limit = random.Next(4);
            bool fromTail = random.Next(2) == 0;
            long removed = list.Remove(Encoding.Latin1.GetBytes(target), limit, fromTail);
            long expected = 0;
            if (!fromTail)
            {
                for (int i = 0; i < model.Count && (limit == 0 || expected < limit);)
                {
                    if (model[i] == target)
                    {
                        model.RemoveAt(i);
                        expected++;
                    }
                    else i++;
                }
            }
            else
            {
                for (int i = model.Count - 1; i >= 0 && (limit == 0 || expected < limit); i--)
                {
                    if (model[i] != target) continue;
                    model.RemoveAt(i);
                    expected++;
                }
            }
            Assert.Equal(expected, removed);
            if (removed > 0 && model.Count > 0) list.AfterShrink(fill);
            return "lrem";
        }
        {
            // LTRIM-like: cut both ends.
            if (model.Count == 0) return "trim (empty)";
            int start = random.Next(Math.Min(model.Count, 40));
            int keep = random.Next(model.Count - start + 1);
            int fromTail = model.Count - start - keep;
            list.DeleteRange(0, start);
            list.DeleteRange(model.Count - start - fromTail, fromTail);
            model.RemoveRange(0, start);
            model.RemoveRange(model.Count - fromTail, fromTail);
            if (model.Count > 0) list.AfterShrink(fill);
            return "trim";
        }
    }

    private static string RandomValue(Random random)
    {
        switch (random.Next(10))
        {
            case 0: return random.Next(128).ToString();
            case 1: return (random.Next(-5000, 5000)).ToString();
            case 2: return random.NextInt64(long.MinValue, long.MaxValue).ToString();
            case 3: return new string((char)('a' + random.Next(3)), random.Next(90));
            case 4: return new string('L', random.Next(200, 5000));
            case 5: return random.Next(2) == 0 ? "" : "-0";
            default: return ((char)('a' + random.Next(6))).ToString() + random.Next(4);
        }
    }

    private static void AssertSame(RedisList list, List<string> model, string where, bool full)
    {
        Assert.True(model.Count == list.Count, $"{where}: count {list.Count}, model {model.Count}");
        CheckStructure(list, where);
        if (model.Count == 0) return;
        Span<byte> scratch = stackalloc byte[24];
        if (!full)
        {
            Assert.True(model[0] == Encoding.Latin1.GetString(list.At(0).Text(scratch)), $"{where}: head");
            Assert.True(model[^1] == Encoding.Latin1.GetString(list.At(model.Count - 1).Text(scratch)), $"{where}: tail");
            int i = model.Count / 3;
            Assert.True(model[i] == Encoding.Latin1.GetString(list.At(i).Text(scratch)), $"{where}: index {i}");
            return;
        }
        var cursor = list.At(0);
        for (int i = 0; i < model.Count; i++)
        {
            Assert.True(cursor.Valid, $"{where}: forward walk ended at {i}");
            Assert.True(model[i] == Encoding.Latin1.GetString(cursor.Text(scratch)), $"{where}: forward element {i}");
            cursor.MoveNext();
        }
        Assert.False(cursor.Valid, $"{where}: forward walk too long");
        cursor = list.At(model.Count - 1);
        for (int i = model.Count - 1; i >= 0; i--)
        {
            Assert.True(cursor.Valid, $"{where}: backward walk ended at {i}");
            Assert.True(model[i] == Encoding.Latin1.GetString(cursor.Text(scratch)), $"{where}: backward element {i}");
            cursor.MovePrev();
        }
        Assert.False(cursor.Valid, $"{where}: backward walk too long");
    }

    private static void CheckStructure(RedisList list, string where)
    {
        long total = 0;
        for (int n = 0; n < list.NodeCount; n++)
        {
            var lp = list.NodeBuffer(n);
            int bytes = Listpack.Bytes(lp);
            Assert.True(bytes <= lp.Length, $"{where}: node {n} claims {bytes} bytes in a {lp.Length}-byte array");
            Assert.True(lp[bytes - 1] == 0xFF, $"{where}: node {n} has no end byte");
            int walked = 0;
            int p = Listpack.First(lp);
            int last = -1;
            for (; p >= 0; p = Listpack.Next(lp, p))
            {
                walked++;
                last = p;
            }
            Assert.True(walked == Listpack.Count(lp), $"{where}: node {n} header count {Listpack.Count(lp)}, walked {walked}");
            Assert.True(last == Listpack.Last(lp), $"{where}: node {n} last entry mismatch");
            if (!list.IsListpack) Assert.True(walked > 0, $"{where}: empty quicklist node {n}");
            total += walked;
        }
        Assert.True(total == list.Count, $"{where}: nodes hold {total}, count says {list.Count}");
    }
}
