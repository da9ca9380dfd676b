using RedisClone.Storage;

namespace RedisClone.Tests.Streams;

/// <summary>
/// The consumer-group storage under <see cref="RedisStream"/>: group and consumer order (memcmp),
/// the two pending lists kept in step by delivery, reassignment, acknowledgement and consumer
/// deletion, the 7.0 read-counter arithmetic, and COPY's deep copy.
/// </summary>
public class StreamGroupStorageTests
{
    private readonly ref struct Fields(string value) : IStreamFields
    {
        public int PairCount => 1;
        public ReadOnlySpan<byte> Field(int index) => "f"u8;
        public ReadOnlySpan<byte> Value(int index) => System.Text.Encoding.ASCII.GetBytes(value);
    }

    private static RedisStream StreamWith(params ulong[] ms)
    {
        var s = new RedisStream();
        foreach (var m in ms) Assert.Equal(RedisStream.AppendResult.Added, s.Append(new Fields(m.ToString()), new StreamId(m, 0), 4096, 100));
        return s;
    }

    private static StreamId Id(ulong ms) => new(ms, 0);

    [Fact]
    public void Groups_NamesInMemcmpOrder_DuplicateRefused()
    {
        var s = StreamWith(1);
        foreach (var name in new[] { "b", "a", "ab", "B", "\u00ff", "" })
            Assert.NotNull(s.TryCreateGroup(System.Text.Encoding.Latin1.GetBytes(name), StreamId.Min, -1));
        Assert.Null(s.TryCreateGroup("ab"u8, StreamId.Min, -1));
        var names = Enumerable.Range(0, s.GroupCount).Select(i => System.Text.Encoding.Latin1.GetString(s.GroupAt(i).Name));
        Assert.Equal(new[] { "", "B", "a", "ab", "b", "\u00ff" }, names);
        Assert.True(s.DestroyGroup("ab"u8));
        Assert.False(s.DestroyGroup("ab"u8));
        Assert.Null(s.FindGroup("ab"u8));
        Assert.Equal(5, s.GroupCount);
    }

    [Fact]
    public void Deliver_ThenRedeliverToAnother_MovesTheNackAndResetsItsCount()
    {
        var s = StreamWith(1, 2, 3);
        var g = s.TryCreateGroup("g"u8, StreamId.Min, -1)!;
        var alice = g.GetOrCreateConsumer("alice"u8, 100, out bool created);
        Assert.True(created);
        Assert.Equal(-1, alice.ActiveTime);
        Assert.Same(alice, g.GetOrCreateConsumer("alice"u8, 200, out created));
        Assert.False(created);
        var bob = g.GetOrCreateConsumer("bob"u8, 100, out _);
        var nack = g.Deliver(Id(1), alice, 1000);
        nack.Redeliver(1500);
        Assert.Equal(2, nack.DeliveryCount);
        g.Deliver(Id(2), alice, 1000);
        Assert.Equal(1000, alice.ActiveTime);
        var moved = g.Deliver(Id(1), bob, 2000);
        Assert.Same(nack, moved);
        Assert.Equal((1L, 2000L), (moved.DeliveryCount, moved.DeliveryTime));
        Assert.Same(bob, moved.Consumer);
        Assert.Equal(1, alice.Pel.Count);
        Assert.Equal(1, bob.Pel.Count);
        Assert.Equal(2, g.Pel.Count);
        Assert.True(g.Acknowledge(Id(2)));
        Assert.False(g.Acknowledge(Id(2)));
        Assert.Equal(0, alice.Pel.Count);
        Assert.Equal(1, g.DeleteConsumer(bob));
        Assert.Equal(0, g.Pel.Count);
        Assert.Null(g.FindConsumer("bob"u8));
    }

    [Fact]
    public void AdvanceLastId_CountsReadsUntilATombstoneLiesAhead()
    {
        var s = StreamWith(1, 2, 3, 4, 5);
        var g = s.TryCreateGroup("g"u8, StreamId.Min, 0)!;
        Assert.True(g.AdvanceLastId(s, Id(1)));
        Assert.False(g.AdvanceLastId(s, Id(1)));
        Assert.Equal(1, g.EntriesRead);
        Assert.True(s.TryGetLag(g, out long lag));
        Assert.Equal(4, lag);
        Assert.True(s.Delete(Id(4)));
        s.FinishDeletes();
        // A deletion ahead: the counter cannot simply go up; 2 is mid-stream, so it is unknown.
        Assert.True(g.AdvanceLastId(s, Id(2)));
        Assert.Equal(StreamGroup.InvalidEntriesRead, g.EntriesRead);
        Assert.False(s.TryGetLag(g, out _));
        // The last ID's counter is always known.
        Assert.True(g.AdvanceLastId(s, Id(5)));
        Assert.Equal(5, g.EntriesRead);
        Assert.True(s.TryGetLag(g, out lag));
        Assert.Equal(0, lag);
        Assert.Equal(0, new RedisStream().EstimateDistanceFromFirstEverEntry(Id(9)));
        var clean = StreamWith(7, 8, 9);
        Assert.Equal(0, clean.EstimateDistanceFromFirstEverEntry(Id(1)));
        Assert.Equal(1, clean.EstimateDistanceFromFirstEverEntry(Id(7)));
        Assert.Equal(StreamGroup.InvalidEntriesRead, clean.EstimateDistanceFromFirstEverEntry(Id(8)));
        Assert.Equal(StreamGroup.InvalidEntriesRead, clean.EstimateDistanceFromFirstEverEntry(Id(10)));
    }

    [Fact]
    public void DeepCopy_CopiesGroupsConsumersAndSharedNacks()
    {
        var s = StreamWith(1, 2);
        long plain = s.AllocatedBytes();
        var g = s.TryCreateGroup("g"u8, Id(2), 2)!;
        var alice = g.GetOrCreateConsumer("alice"u8, 100, out _);
        g.Deliver(Id(1), alice, 500);
        g.GetOrCreateConsumer("idle"u8, 50, out _);
        long groupBytes = s.AllocatedBytes() - plain;
        Assert.True(groupBytes > 0);
        var copy = (RedisStream)s.DeepCopy();
        Assert.Equal(groupBytes, copy.AllocatedBytes() - ((RedisStream)StreamWith(1, 2).DeepCopy()).AllocatedBytes());
        var cg = copy.FindGroup("g"u8)!;
        Assert.NotSame(g, cg);
        Assert.Equal((Id(2), 2L), (cg.LastId, cg.EntriesRead));
        var ca = cg.FindConsumer("alice"u8)!;
        Assert.NotSame(alice, ca);
        Assert.True(cg.Pel.TryGetValue(Id(1), out var nack));
        Assert.Same(ca, nack.Consumer);
        Assert.True(ca.Pel.TryGetValue(Id(1), out var same));
        Assert.Same(nack, same);
        Assert.Equal(2, cg.Consumers.Count);
        cg.Acknowledge(Id(1));
        Assert.Equal(1, g.Pel.Count);
    }
}
