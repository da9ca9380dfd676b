using RedisClone.Storage;

namespace RedisClone.Tests.Streams;

/// <summary>
/// <see cref="StreamIdMap{TValue}"/> (the B+tree behind pending entries lists) against a
/// <see cref="SortedDictionary{TKey,TValue}"/> under seeded random inserts and removes: contents,
/// seeks from arbitrary IDs, first and last keys, and the tree's invariants (fill, order, the leaf
/// chain) after every batch, through growth to several levels and shrinkage back to empty.
/// </summary>
public class StreamIdMapTests
{
    private static StreamId RandomId(Random rng, int spread) => new((ulong)rng.Next(spread), (ulong)rng.Next(4));

    private static void AssertSame(SortedDictionary<StreamId, int> model, StreamIdMap<int> map, Random rng, int spread)
    {
        map.Validate();
        Assert.Equal(model.Count, map.Count);
        var all = new List<(StreamId, int)>();
        var c = map.Seek(StreamId.Min);
        while (c.MoveNext()) all.Add((c.Key, c.Value));
        Assert.Equal(model.Select(p => (p.Key, p.Value)), all);
        for (int i = 0; i < 20; i++)
        {
            var from = RandomId(rng, spread);
            var expected = model.Where(p => p.Key >= from).Take(5).Select(p => p.Key).ToList();
            var seek = map.Seek(from);
            var actual = new List<StreamId>();
            while (actual.Count < 5 && seek.MoveNext()) actual.Add(seek.Key);
            Assert.Equal(expected, actual);
            Assert.Equal(model.ContainsKey(from), map.TryGetValue(from, out int v));
            if (model.TryGetValue(from, out int mv)) Assert.Equal(mv, v);
        }
        Assert.Equal(model.Count > 0, map.TryGetFirst(out var first, out _));
        Assert.Equal(model.Count > 0, map.TryGetLast(out var last, out _));
        if (model.Count > 0)
        {
            Assert.Equal(model.Keys.First(), first);
            Assert.Equal(model.Keys.Last(), last);
        }
    }

    [Theory]
    [InlineData(1, 50)]
    [InlineData(2, 2000)]
    [InlineData(3, 100000)]
    public void StreamIdMap_RandomInsertsAndRemoves_MatchSortedDictionary(int seed, int spread)
    {
        var rng = new Random(seed);
        var model = new SortedDictionary<StreamId, int>();
        var map = new StreamIdMap<int>();
        // Grow (mostly inserts), churn, then shrink (mostly removes) to empty.
        foreach (var (steps, insertShare) in new[] { (20000, 0.8), (20000, 0.5), (40000, 0.15) })
        {
            for (int step = 0; step < steps; step++)
            {
                var id = RandomId(rng, spread);
                if (rng.NextDouble() < insertShare)
                {
                    bool added = map.TryAdd(id, step);
                    Assert.Equal(model.TryAdd(id, step), added);
                }
                else
                {
                    Assert.Equal(model.Remove(id), map.Remove(id));
                }
                if (step % 2000 == 0) AssertSame(model, map, rng, spread);
            }
            AssertSame(model, map, rng, spread);
        }
        foreach (var key in model.Keys.ToList())
        {
            Assert.True(map.Remove(key));
            model.Remove(key);
        }
        AssertSame(model, map, rng, spread);
        Assert.Equal(0, map.Count);
    }

    [Fact]
    public void StreamIdMap_SequentialInsertAndRemoveFromBothEnds_StaysBalanced()
    {
        var map = new StreamIdMap<int>();
        for (int i = 0; i < 10000; i++) Assert.True(map.TryAdd(new StreamId((ulong)i, 0), i));
        Assert.False(map.TryAdd(new StreamId(5, 0), -1));
        map.Validate();
        long grown = map.AllocatedBytes;
        for (int i = 0; i < 5000; i++)
        {
            Assert.True(map.Remove(new StreamId((ulong)i, 0)));
            Assert.True(map.Remove(new StreamId((ulong)(9999 - i), 0)));
            if (i % 500 == 0) map.Validate();
        }
        Assert.False(map.Remove(new StreamId(1, 0)));
        map.Validate();
        Assert.Equal(0, map.Count);
        Assert.True(map.AllocatedBytes < grown);
        Assert.False(map.Seek(StreamId.Min).MoveNext());
    }

    /// <summary>
    /// The PEL's usual life: IDs appended in order (the right-edge split keeps nodes full) while
    /// acknowledgements remove older ones at random; the tree stays valid and, built in order, uses
    /// about half the nodes an even split would.
    /// </summary>
    [Fact]
    public void StreamIdMap_AppendsWithRandomAcks_StayValidAndCompact()
    {
        var rng = new Random(7);
        var model = new SortedDictionary<StreamId, int>();
        var map = new StreamIdMap<int>();
        var live = new List<StreamId>();
        for (int i = 1; i <= 60000; i++)
        {
            var id = new StreamId((ulong)i, (ulong)(i % 3));
            Assert.True(map.TryAdd(id, i));
            model.Add(id, i);
            live.Add(id);
            if (rng.Next(3) == 0 && live.Count > 0)
            {
                int at = rng.Next(Math.Min(live.Count, 200));
                Assert.True(map.Remove(live[at]));
                model.Remove(live[at]);
                live.RemoveAt(at);
            }
            if (i % 5000 == 0) AssertSame(model, map, rng, 60000);
        }
        var inOrder = new StreamIdMap<int>();
        for (int i = 0; i < 32 * 1000; i++) inOrder.TryAdd(new StreamId((ulong)i, 0), i);
        inOrder.Validate();
        // 1000 full leaves and their inner nodes: well under the ~2000 leaves of half-full splits.
        Assert.True(inOrder.AllocatedBytes < 1100L * 900, $"{inOrder.AllocatedBytes} bytes");
    }
}
