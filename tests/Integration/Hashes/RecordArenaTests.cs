using System.Text;
using RedisClone.Storage;

namespace RedisClone.Tests.Hashes;

/// <summary>
/// <see cref="RecordArena"/>, the chunk storage of a big hash's records and a big set's (and sorted
/// set's) members: chunks roll over at the 64 KB cap, a record bigger than the cap gets a chunk of
/// its own that its release gives back, freed bytes come back through compaction, a clone shares
/// nothing, and the two tables built on it keep every element through all of that.
/// </summary>
public class RecordArenaTests
{
    private static byte[] B(string s) => Encoding.Latin1.GetBytes(s);

    private static string S(ReadOnlySpan<byte> b) => Encoding.Latin1.GetString(b);

    private static byte[] Record(int i, int length)
    {
        var r = new byte[length];
        for (int k = 0; k < length; k++) r[k] = (byte)(i * 31 + k);
        return r;
    }

    private static ReadOnlySpan<byte> Read(in RecordArena arena, long handle, int length)
        => arena.ChunkOf(handle, out int offset).AsSpan(offset, length);

    private static int ChunkIndex(long handle) => (int)(handle >> 32);

    [Fact]
    public void Default_IsEmpty()
    {
        var arena = default(RecordArena);
        Assert.Equal(0, arena.LiveBytes);
        Assert.Equal(0, arena.AllocatedBytes());
        Assert.False(arena.NeedsCompaction);
        Assert.Equal(0, arena.Clone().AllocatedBytes());
    }

    [Fact]
    public void Append_PastTheCap_RollsOverIntoChunksOfAtMost64KB()
    {
        // 40,000 records of 100 bytes (4 MB): chunks grow with the live bytes up to the cap, never
        // past it, a record never straddles two chunks, and a new chunk starts at offset 0.
        var arena = new RecordArena();
        var handles = new long[40_000];
        var lengths = new Dictionary<int, int>();
        int lastChunk = -1;
        for (int i = 0; i < handles.Length; i++)
        {
            long h = handles[i] = arena.Append(Record(i, 100));
            var chunk = arena.ChunkOf(h, out int offset);
            Assert.True(h >= 0);
            Assert.True(offset + 100 <= chunk.Length);
            if (ChunkIndex(h) != lastChunk)
            {
                Assert.Equal(lastChunk + 1, ChunkIndex(h));
                Assert.Equal(0, offset);
                lastChunk = ChunkIndex(h);
                lengths[lastChunk] = chunk.Length;
            }
        }
        Assert.All(lengths.Values, l => Assert.InRange(l, RecordArena.MinChunk, RecordArena.MaxChunk));
        Assert.Equal(RecordArena.MaxChunk, lengths[lastChunk]);
        Assert.Equal(lengths.Values.OrderBy(l => l), lengths.OrderBy(p => p.Key).Select(p => p.Value));
        Assert.Equal(40_000L * 100, arena.LiveBytes);
        // What is held beyond the records: the current chunk's tail, the tails of full chunks (under
        // 100 bytes each), their 24-byte headers and the array of them (at most 16 bytes a chunk).
        Assert.True(arena.AllocatedBytes() - arena.LiveBytes < RecordArena.MaxChunk + lengths.Count * 160,
            $"{arena.AllocatedBytes()} allocated for {arena.LiveBytes}");
        for (int i = 0; i < handles.Length; i++) Assert.True(Read(arena, handles[i], 100).SequenceEqual(Record(i, 100)));
    }

    [Fact]
    public void Release_MostRecords_CompactionReusesTheirSpace()
    {
        var arena = new RecordArena();
        var handles = new long[10_000];
        for (int i = 0; i < handles.Length; i++) handles[i] = arena.Append(Record(i, 50));
        long before = arena.AllocatedBytes();
        for (int i = 0; i < 50; i++) arena.Release(handles[i], 50);
        Assert.False(arena.NeedsCompaction); // 2,500 dead bytes: not worth a rewrite
        for (int i = 50; i < handles.Length; i++)
            if (i % 10 != 0) arena.Release(handles[i], 50);
        Assert.True(arena.NeedsCompaction);
        Assert.Equal(995L * 50, arena.LiveBytes);
        Assert.Equal(before, arena.AllocatedBytes()); // dead bytes stay until the rewrite

        var old = arena.TakeAll();
        Assert.Equal(0, arena.AllocatedBytes());
        Assert.Equal(0, arena.LiveBytes);
        for (int i = 50; i < handles.Length; i += 10) handles[i] = arena.Append(Read(old, handles[i], 50));
        Assert.False(arena.NeedsCompaction);
        Assert.Equal(995L * 50, arena.LiveBytes);
        Assert.True(arena.AllocatedBytes() < before / 4, $"{arena.AllocatedBytes()} of {before}");
        for (int i = 50; i < handles.Length; i += 10) Assert.True(Read(arena, handles[i], 50).SequenceEqual(Record(i, 50)));
    }

    [Fact]
    public void Shrink_InPlace_CountsTheTailDead()
    {
        var arena = new RecordArena();
        long h = arena.Append(Record(1, 5000));
        arena.Shrink(4990);
        Assert.Equal(10, arena.LiveBytes);
        Assert.True(arena.NeedsCompaction);
        arena.Release(h, 10);
        Assert.Equal(0, arena.LiveBytes);
    }

    [Fact]
    public void Allocate_RecordBiggerThanTheCap_GetsAChunkOfItsOwnGivenBackOnRelease()
    {
        var arena = new RecordArena();
        long small1 = arena.Append(Record(1, 10));
        long withoutBig = arena.AllocatedBytes();
        const int BigSize = 3 * RecordArena.MaxChunk + 17;
        long big = arena.Allocate(BigSize, out var chunk, out int offset);
        Assert.Equal(BigSize, chunk.Length);
        Assert.Equal(0, offset);
        Record(7, BigSize).CopyTo(chunk, 0);
        // Small records keep filling the shared chunk the big one did not take.
        long small2 = arena.Append(Record(2, 10));
        Assert.Equal(ChunkIndex(small1), ChunkIndex(small2));
        Assert.True(Read(arena, big, BigSize).SequenceEqual(Record(7, BigSize)));
        Assert.Equal(20L + BigSize, arena.LiveBytes);

        var span = Read(arena, big, BigSize);
        arena.Release(big, BigSize);
        Assert.Equal(20, arena.LiveBytes);
        Assert.False(arena.NeedsCompaction); // given back at once, not dead bytes
        Assert.Equal(withoutBig, arena.AllocatedBytes());
        // A span read before the release still reads the record (the chunk is dropped, not reused).
        Assert.True(span.SequenceEqual(Record(7, BigSize)));
        Assert.True(Read(arena, small1, 10).SequenceEqual(Record(1, 10)));
        Assert.True(Read(arena, small2, 10).SequenceEqual(Record(2, 10)));
    }

    [Fact]
    public void Release_ManyOwnChunks_AsksForCompaction()
    {
        var arena = new RecordArena();
        var bigs = new long[70];
        for (int i = 0; i < bigs.Length; i++) bigs[i] = arena.Append(Record(i, RecordArena.MaxChunk + 1));
        for (int i = 0; i < 65; i++) arena.Release(bigs[i], RecordArena.MaxChunk + 1);
        Assert.True(arena.NeedsCompaction); // 65 empty chunk indexes of 70
        var old = arena.TakeAll();
        for (int i = 65; i < bigs.Length; i++) bigs[i] = arena.Append(Read(old, bigs[i], RecordArena.MaxChunk + 1));
        Assert.False(arena.NeedsCompaction);
        for (int i = 65; i < bigs.Length; i++) Assert.True(Read(arena, bigs[i], RecordArena.MaxChunk + 1).SequenceEqual(Record(i, RecordArena.MaxChunk + 1)));
    }

    [Fact]
    public void Clone_SharesNoChunk()
    {
        var arena = new RecordArena();
        long a = arena.Append(B("alpha"));
        long big = arena.Append(Record(3, RecordArena.MaxChunk * 2));
        var clone = arena.Clone();
        Assert.Equal(arena.AllocatedBytes(), clone.AllocatedBytes());

        // Written, released and appended to in the original: the clone keeps its own bytes and counts.
        arena.ChunkOf(a, out int offset)[offset] = (byte)'A';
        arena.Release(big, RecordArena.MaxChunk * 2);
        long fromOriginal = arena.Append(B("one"));
        long fromClone = clone.Append(B("two"));
        Assert.Equal(fromOriginal, fromClone); // the same place in each one's own current chunk
        Assert.Equal("one", S(Read(arena, fromOriginal, 3)));
        Assert.Equal("two", S(Read(clone, fromClone, 3)));
        Assert.Equal("Alpha", S(Read(arena, a, 5)));
        Assert.Equal("alpha", S(Read(clone, a, 5)));
        Assert.True(Read(clone, big, RecordArena.MaxChunk * 2).SequenceEqual(Record(3, RecordArena.MaxChunk * 2)));
        Assert.Equal(8L, arena.LiveBytes);
        Assert.Equal(8L + RecordArena.MaxChunk * 2, clone.LiveBytes);
    }

    [Fact]
    public void MemberTable_ManyMembers_ChunksStayBelowTheLargeObjectHeap()
    {
        // 200,000 arena members (2.6 MB of records) in a table sized for them up front, so the slot
        // array never grows: each step of AllocatedBytes is a new chunk (or the array of them).
        // Before the shared arena, a big set's chunks grew to 1 MB (the large object heap).
        var table = new MemberTable(300_000);
        long last = table.AllocatedBytes(), largestStep = 0;
        for (int i = 0; i < 200_000; i++)
        {
            Assert.True(table.Add(B("member:" + i)));
            long now = table.AllocatedBytes();
            largestStep = Math.Max(largestStep, now - last);
            last = now;
        }
        // A 64 KB chunk and its header, and the array of chunks when it doubles at the same step.
        Assert.InRange(largestStep, RecordArena.MaxChunk, RecordArena.MaxChunk + 4096);
        Assert.True(table.Contains(B("member:0")) && table.Contains(B("member:199999")));
    }

    [Fact]
    public void MemberTable_MemberBiggerThanTheCap_KeptAndItsChunkGivenBack()
    {
        var table = new MemberTable();
        for (int i = 0; i < 1000; i++) table.Add(B("member:" + i));
        var big = new string('q', 5 * RecordArena.MaxChunk);
        long before = table.AllocatedBytes();
        Assert.True(table.Add(B(big)));
        Assert.True(table.AllocatedBytes() >= before + big.Length);
        Span<byte> scratch = stackalloc byte[8];
        Assert.Equal(big, S(table.MemberAt(table.Find(B(big)), scratch)));
        Assert.True(table.Remove(B(big)));
        // Its chunk is given back at once (the array of chunks may have grown by a few slots).
        Assert.InRange(table.AllocatedBytes(), before, before + 256);
        Assert.False(table.Contains(B(big)));
        for (int i = 0; i < 1000; i++) Assert.True(table.Contains(B("member:" + i)));
    }

    [Fact]
    public void HashTable_ValuesBiggerThanTheCap_RewrittenAndRemoved()
    {
        var hash = new RedisHash();
        for (int i = 0; i < 1000; i++) hash.Set(B("f:" + i), B("v:" + i), 0, 64);
        long before = hash.AllocatedBytes();
        var big = new string('x', 3 * RecordArena.MaxChunk);
        var bigger = new string('y', 4 * RecordArena.MaxChunk);
        Assert.True(hash.Set(B("big"), B(big), 0, 64));
        Assert.True(hash.TryGet(B("big"), out var v1) && S(v1) == big);
        var copy = (RedisHash)hash.DeepCopy();
        Assert.False(hash.Set(B("big"), B(bigger), 0, 64));
        Assert.True(hash.TryGet(B("big"), out var v2) && S(v2) == bigger);
        Assert.True(copy.TryGet(B("big"), out var v3) && S(v3) == big);
        Assert.False(hash.Set(B("big"), B("small again"), 0, 64));
        Assert.True(hash.TryGet(B("big"), out var v4) && S(v4) == "small again");
        Assert.True(hash.Delete(B("big")));
        // Both big records had chunks of their own, given back as each died.
        Assert.True(hash.AllocatedBytes() < before + RecordArena.MaxChunk, $"{hash.AllocatedBytes()} after, {before} before");
        for (int i = 0; i < 1000; i++) Assert.True(hash.TryGet(B("f:" + i), out var v) && S(v) == "v:" + i);
        Assert.Equal(1001, copy.Count);
    }
}

/// <summary>MEMORY USAGE's count of a set's member table and a hash's field table: what building an empty one allocates, the object itself included.</summary>
public class MemberTableAccountingTests
{
    [Theory]
    [InlineData(4)]
    [InlineData(1024)]
    public void AllocatedBytes_Empty_IsWhatItsConstructionAllocated(int capacity)
    {
        new MemberTable(capacity); // compiled and its types loaded before the measured one
        long before = GC.GetAllocatedBytesForCurrentThread();
        var table = new MemberTable(capacity);
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(allocated, table.AllocatedBytes());
    }

    [Fact]
    public void HashTableForm_Empty_CountsWhatTheConversionAllocated()
    {
        new RedisHash().ConvertToTable();
        var hash = new RedisHash();
        long packed = hash.AllocatedBytes();
        long before = GC.GetAllocatedBytesForCurrentThread();
        hash.ConvertToTable();
        long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        Assert.Equal(allocated, hash.AllocatedBytes() - packed);
    }
}
