using System.Text;
using RedisClone.Storage;

namespace RedisClone.Tests.Hashes;

/// <summary>
/// The hashtable form keeps its fields and values in an arena of large chunks rather than one array
/// per field: what it costs per field, and that values rewritten with other lengths, big values with a
/// chunk of their own, removals and the compaction they trigger never lose or mix up a field.
/// </summary>
public class HashTableArenaTests
{
    private static byte[] B(string s) => Encoding.Latin1.GetBytes(s);

    private static string S(ReadOnlySpan<byte> b) => Encoding.Latin1.GetString(b);

    [Fact]
    public void Table_ShortFields_CostAtMost48BytesEach()
    {
        // 4,000 fields "f:N" -> "v:N": a 16-byte slot, a 4-byte bucket and a ~17-byte record each.
        // With an array per field (24 bytes of header, padded to 8) it was about 68 bytes.
        var hash = new RedisHash();
        for (int i = 0; i < 4000; i++) hash.Set(B("f:" + i), B("v:" + i), 0, 64);
        Assert.Equal("hashtable", hash.Encoding);
        Assert.True(hash.AllocatedBytes() / 4000 <= 48, $"{hash.AllocatedBytes() / 4000} bytes per field");
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Table_RewritesRemovalsAndBigValues_AgreeWithModel(int seed)
    {
        var random = new Random(seed);
        var hash = new RedisHash();
        var model = new Dictionary<string, string>();
        string Value()
        {
            int kind = random.Next(20);
            int len = kind == 0 ? 1500 + random.Next(3000) : kind < 5 ? random.Next(200) : random.Next(12);
            return new string((char)('a' + random.Next(26)), len) + random.Next(1000);
        }
        for (int step = 0; step < 20_000; step++)
        {
            string f = "field:" + random.Next(3000);
            switch (random.Next(4))
            {
                case 0:
                case 1:
                {
                    string v = Value();
                    Assert.Equal(!model.ContainsKey(f), hash.Set(B(f), B(v), 0, 64));
                    model[f] = v;
                    break;
                }
                case 2:
                    Assert.Equal(model.Remove(f), hash.Delete(B(f)));
                    break;
                default:
                {
                    int pos = hash.Find(B(f));
                    Assert.Equal(model.ContainsKey(f), pos >= 0);
                    if (pos < 0) break;
                    // A span read before a rewrite of the field with a longer value keeps its bytes.
                    var before = hash.ValueAt(pos);
                    string old = S(before);
                    string v = Value();
                    hash.SetValueAt(pos, B(v), 64);
                    if (v.Length > old.Length) Assert.Equal(model[f], S(before));
                    Assert.Equal(model[f], old);
                    model[f] = v;
                    break;
                }
            }
            if (step % 997 == 0) AssertSame(hash, model);
        }
        AssertSame(hash, model);
        AssertSame((RedisHash)hash.DeepCopy(), model);
        // Everything removed: nothing of the arena's records is still counted.
        foreach (var f in model.Keys.ToList()) Assert.True(hash.Delete(B(f)));
        Assert.Equal(0, hash.Count);
        Assert.Equal(0, hash.DataBytes);
    }

    private static void AssertSame(RedisHash hash, Dictionary<string, string> model)
    {
        Assert.Equal(model.Count, hash.Count);
        var actual = new Dictionary<string, string>();
        for (int pos = hash.FirstPosition(); pos >= 0; pos = hash.NextPosition(pos))
            actual.Add(S(hash.FieldAt(pos)), S(hash.ValueAt(pos)));
        Assert.Equal(model.OrderBy(p => p.Key), actual.OrderBy(p => p.Key));
        foreach (var (f, v) in model)
        {
            Assert.True(hash.TryGet(B(f), out var value));
            Assert.Equal(v, S(value));
        }
    }
}
