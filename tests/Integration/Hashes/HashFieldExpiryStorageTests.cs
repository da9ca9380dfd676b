using System.Text;
using RedisClone.Storage;

namespace RedisClone.Tests.Hashes;

/// <summary>
/// Field TTLs in <see cref="RedisHash"/> against a model of Redis's listpackEx order (fields with a
/// TTL first by TTL, a new one before equal times; fields without one after, in insertion order),
/// and the database's index of hashes with field TTLs through every way a key changes.
/// </summary>
public class HashFieldExpiryStorageTests
{
    private static byte[] B(string s) => Encoding.Latin1.GetBytes(s);

    private static string S(ReadOnlySpan<byte> b) => Encoding.Latin1.GetString(b);

    private sealed class Model
    {
        public readonly List<(string Field, string Value, long Ttl)> Entries = [];

        public int IndexOf(string field) => Entries.FindIndex(p => p.Field == field);

        /// <summary>Redis's listpackExAddInternal: before the first entry without a TTL or with one at or after this one.</summary>
        public void Place((string, string, long Ttl) entry)
        {
            if (entry.Ttl == 0)
            {
                Entries.Add(entry);
                return;
            }
            int at = Entries.FindIndex(e => e.Ttl == 0 || e.Ttl >= entry.Ttl);
            if (at < 0) Entries.Add(entry);
            else Entries.Insert(at, entry);
        }
    }

    [Theory]
    [InlineData(1, 1000)]
    [InlineData(2, 1000)]
    [InlineData(3, 12)]
    [InlineData(4, 0)]
    public void RandomOperations_KeepRedisOrderAndTtls(int seed, int maxEntries)
    {
        var random = new Random(seed);
        var hash = new RedisHash();
        var model = new Model();
        bool converted = false;
        for (int step = 0; step < 3000; step++)
        {
            string f = "f" + random.Next(30);
            int at = model.IndexOf(f);
            switch (random.Next(7))
            {
                case 0:
                case 1:
                {
                    // HSET: a new field goes last without a TTL; an existing one loses its TTL (and moves last if it had one).
                    string v = "v" + random.Next(1000);
                    bool added = hash.Set(B(f), B(v), maxEntries, 64);
                    Assert.Equal(at < 0, added);
                    if (at < 0) model.Entries.Add((f, v, 0));
                    else if (model.Entries[at].Ttl == 0) model.Entries[at] = (f, v, 0);
                    else
                    {
                        model.Entries.RemoveAt(at);
                        model.Entries.Add((f, v, 0));
                    }
                    if (model.Entries.Count > maxEntries) converted = true;
                    break;
                }
                case 2:
                {
                    // HINCRBY-style: keeps the TTL and the place.
                    if (at < 0) break;
                    string v = "k" + random.Next(1000);
                    hash.Set(B(f), B(v), maxEntries, 64, keepTtl: true);
                    model.Entries[at] = (f, v, model.Entries[at].Ttl);
                    break;
                }
                case 3:
                case 4:
                {
                    if (at < 0) break;
                    long ttl = random.Next(4) == 0 ? 0 : 1000 + random.Next(20);
                    hash.SetExpiryAt(hash.Find(B(f)), ttl);
                    var e = model.Entries[at];
                    if (ttl == 0 && e.Ttl == 0) break; // no TTL to remove: nothing moves
                    model.Entries.RemoveAt(at);
                    model.Place((e.Field, e.Value, ttl));
                    break;
                }
                case 5:
                {
                    bool deleted = hash.Delete(B(f));
                    Assert.Equal(at >= 0, deleted);
                    if (at >= 0) model.Entries.RemoveAt(at);
                    break;
                }
                case 6:
                {
                    // Drain the expired ones as the active cycle does.
                    long now = 1000 + random.Next(22);
                    int pos;
                    int expected = model.Entries.Count(e => e.Ttl != 0 && e.Ttl < now);
                    Assert.Equal(expected, hash.CountExpired(now));
                    int n = 0;
                    while ((pos = hash.FirstExpiredPosition(now)) >= 0)
                    {
                        string field = S(hash.FieldAt(pos));
                        int m = model.IndexOf(field);
                        Assert.True(model.Entries[m].Ttl != 0 && model.Entries[m].Ttl < now);
                        model.Entries.RemoveAt(m);
                        hash.RemoveAt(pos);
                        n++;
                    }
                    Assert.Equal(expected, n);
                    break;
                }
            }
            Assert.Equal(converted, !hash.IsPacked);
            Check(hash, model, ordered: hash.IsPacked);
            if (step % 500 == 0) Check((RedisHash)hash.DeepCopy(), model, ordered: hash.IsPacked);
        }
    }

    private static void Check(RedisHash hash, Model model, bool ordered)
    {
        Assert.Equal(model.Entries.Count, hash.Count);
        var actual = new List<(string, string, long)>();
        for (int pos = hash.FirstPosition(); pos >= 0; pos = hash.NextPosition(pos))
            actual.Add((S(hash.FieldAt(pos)), S(hash.ValueAt(pos)), hash.ExpiryAt(pos)));
        if (ordered) Assert.Equal(model.Entries, actual);
        else Assert.Equal(model.Entries.OrderBy(e => e.Field), actual.OrderBy(e => e.Item1));
        long min = model.Entries.Where(e => e.Ttl != 0).Select(e => e.Ttl).DefaultIfEmpty(0).Min();
        Assert.Equal(min, hash.MinExpiry);
        Assert.Equal(min != 0, hash.HasFieldTtls);
        Assert.Equal(model.Entries.Count(e => e.Ttl != 0), hash.FieldsWithExpiry().Count);
    }

    [Fact]
    public void Convert_PackedWithTtls_KeepsEveryTtl()
    {
        var hash = new RedisHash();
        for (int i = 0; i < 10; i++) hash.Set(B("f" + i), B("v" + i), 128, 64);
        hash.SetExpiryAt(hash.Find(B("f3")), 5000);
        hash.SetExpiryAt(hash.Find(B("f7")), 4000);
        Assert.Equal(["f7", "f3", "f0"], new[] { 0, 1, 2 }.Select(i => S(hash.FieldAt(hash.Positions()[i]))));
        hash.ConvertToTable();
        Assert.False(hash.IsPacked);
        Assert.Equal(5000, hash.ExpiryAt(hash.Find(B("f3"))));
        Assert.Equal(4000, hash.ExpiryAt(hash.Find(B("f7"))));
        Assert.Equal(0, hash.ExpiryAt(hash.Find(B("f0"))));
        Assert.Equal(4000, hash.MinExpiry);
        hash.SetExpiryAt(hash.Find(B("f7")), 0);
        Assert.Equal(5000, hash.MinExpiry);
        hash.Delete(B("f3"));
        Assert.Equal(0, hash.MinExpiry);
    }

    [Fact]
    public void Table_ManyTtls_HeapGivesSoonestAndCounts()
    {
        var hash = new RedisHash();
        hash.ConvertToTable();
        var random = new Random(7);
        var ttls = new Dictionary<string, long>();
        for (int i = 0; i < 5000; i++)
        {
            string f = "f" + i;
            hash.Set(B(f), B("v"), 0, 64);
            if (random.Next(3) > 0)
            {
                long t = 10_000 + random.Next(1000);
                hash.SetExpiryAt(hash.Find(B(f)), t);
                ttls[f] = t;
            }
        }
        for (int i = 0; i < 2000; i++)
        {
            string f = "f" + random.Next(5000);
            if (random.Next(2) == 0)
            {
                hash.Delete(B(f));
                ttls.Remove(f);
                hash.Set(B(f), B("w"), 0, 64);
            }
            else
            {
                long t = random.Next(4) == 0 ? 0 : 10_000 + random.Next(1000);
                hash.SetExpiryAt(hash.Find(B(f)), t);
                if (t == 0) ttls.Remove(f);
                else ttls[f] = t;
            }
        }
        Assert.Equal(ttls.Values.Min(), hash.MinExpiry);
        Assert.Equal(ttls.Values.Count(t => t < 10_500), hash.CountExpired(10_500));
        long last = 0;
        int removed = 0;
        int pos;
        while ((pos = hash.FirstExpiredPosition(10_500)) >= 0)
        {
            long t = hash.ExpiryAt(pos);
            Assert.True(t >= last);
            last = t;
            hash.RemoveAt(pos);
            removed++;
        }
        Assert.Equal(ttls.Values.Count(t => t < 10_500), removed);
    }

    [Fact]
    public void HashWithoutTtls_SameBytesAsBefore()
    {
        var plain = new RedisHash();
        for (int i = 0; i < 10; i++) plain.Set(B("f" + i), B("v" + i), 128, 64);
        var table = new RedisHash();
        for (int i = 0; i < 300; i++) table.Set(B("f" + i), B("v" + i), 128, 64);
        long packedBytes = plain.AllocatedBytes(), tableBytes = table.AllocatedBytes();
        plain.SetExpiryAt(plain.Find(B("f1")), 123);
        table.SetExpiryAt(table.Find(B("f1")), 123);
        Assert.True(plain.AllocatedBytes() > packedBytes);
        Assert.True(table.AllocatedBytes() > tableBytes);
        // A field with a TTL costs 8 bytes in the packed form, 8 (slot array) + 8 (heap and its index) in the table.
        plain.SetExpiryAt(plain.Find(B("f1")), 0);
        table.SetExpiryAt(table.Find(B("f1")), 0);
        Assert.Equal(tableBytes, table.AllocatedBytes());
    }

    private static RedisHash HashWithTtl(long ttl)
    {
        var hash = new RedisHash();
        hash.Set(B("a"), B("1"), 128, 64);
        hash.Set(B("b"), B("2"), 128, 64);
        hash.SetExpiryAt(hash.Find(B("a")), ttl);
        return hash;
    }

    [Fact]
    public void Database_Index_FollowsAddReplaceRemoveClearSwap()
    {
        var store = new ShardStore(2);
        var db = store[0];
        var other = store[1];
        int s1 = db.Add(B("h1"), HashWithTtl(5000));
        db.Add(B("h2"), HashWithTtl(6000));
        db.Add(B("plain"), new RedisHash());
        Assert.Equal(2, db.HashesWithFieldTtls);
        Assert.Null(db.CheckExpiryIndex());

        // Overwritten by a value without field TTLs.
        db.ReplaceValue(s1, B("str"));
        Assert.Equal(1, db.HashesWithFieldTtls);
        Assert.Null(db.CheckExpiryIndex());

        // RENAME-style: removed and added under another key (another slot).
        int s2 = db.Table.Find(B("h2"));
        var value = db.Table.At(s2).Value;
        db.RemoveAt(s2);
        Assert.Equal(0, db.HashesWithFieldTtls);
        other.Add(B("moved"), value);
        Assert.Equal(1, other.HashesWithFieldTtls);
        Assert.Null(other.CheckExpiryIndex());

        // SWAPDB takes the index along.
        db.SwapWith(other);
        Assert.Equal(1, db.HashesWithFieldTtls);
        Assert.Equal(0, other.HashesWithFieldTtls);
        Assert.Null(db.CheckExpiryIndex());
        Assert.Null(other.CheckExpiryIndex());

        // A sooner TTL given by a command is filed at once.
        int sm = db.Table.Find(B("moved"));
        var moved = (RedisHash)db.Table.At(sm).Value;
        moved.SetExpiryAt(moved.Find(B("b")), 100);
        db.UpdateHashExpiry(sm);
        Assert.Null(db.CheckExpiryIndex());

        db.Clear();
        Assert.Equal(0, db.HashesWithFieldTtls);
        Assert.Null(db.CheckExpiryIndex());
    }

    [Fact]
    public void Database_ActiveExpiry_RemovesFieldsThenKeyWithHooks()
    {
        var store = new ShardStore(1);
        var db = store[0];
        var propagated = new List<string>();
        var events = new List<string>();
        store.FieldExpired = (d, key, field) => propagated.Add($"HDEL {S(key)} {S(field)}");
        store.HashFieldsExpired = (d, key, deleted) => events.Add($"{S(key)} {deleted}");
        var big = new RedisHash();
        for (int i = 0; i < 2500; i++)
        {
            big.Set(B("f" + i), B("v"), 128, 64);
            big.SetExpiryAt(big.Find(B("f" + i)), 1000 + i % 3);
        }
        big.Set(B("keep"), B("v"), 128, 64);
        db.Add(B("big"), big);
        var small = HashWithTtl(1500);
        db.Add(B("small"), small);

        // Quota-bound turns: 1000 fields each until only later ones are left.
        Assert.Equal(1000, db.ExpireFieldsSample(2000, 1000));
        Assert.Equal(1000, db.ExpireFieldsSample(2000, 1000));
        Assert.Equal(501, db.ExpireFieldsSample(2000, 1000));
        Assert.Equal(0, db.ExpireFieldsSample(2000, 1000));
        Assert.Equal(2501, propagated.Count);
        Assert.Equal(2501, store.ExpiredSubkeys);
        Assert.Equal(1, big.Count);
        Assert.Equal(1, small.Count);
        Assert.Equal(0, db.HashesWithFieldTtls);
        Assert.Contains("small False", events);
        Assert.Null(db.CheckExpiryIndex());

        // The last field going takes the key.
        small.SetExpiryAt(small.Find(B("b")), 3000);
        db.UpdateHashExpiry(db.Table.Find(B("small")));
        Assert.Equal(1, db.ExpireFieldsSample(4000, 1000));
        Assert.Equal(-1, db.Table.Find(B("small")));
        Assert.Equal("small True", events[^1]);
        Assert.Null(db.CheckExpiryIndex());
    }
}
