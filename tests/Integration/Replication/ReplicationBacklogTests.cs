using System.Buffers;
using RedisClone.Replication;

namespace RedisClone.Tests.Replication;

/// <summary>
/// The shared replication buffer in-process: offsets as Redis counts them, reads that cross its
/// 64 KB blocks, the history trimmed to repl-backlog-size (at least 16 KB), and cursors that keep
/// the bytes they have not read however small the backlog.
/// </summary>
public class ReplicationBacklogTests
{
    private static byte[] Bytes(int count, int seed)
    {
        var bytes = new byte[count];
        for (int i = 0; i < count; i++) bytes[i] = (byte)(i * 31 + seed);
        return bytes;
    }

    private static byte[] ReadAll(ReplicationBacklog backlog, ReplicationBacklog.Cursor cursor, int max)
    {
        var output = new ArrayBufferWriter<byte>();
        while (backlog.Read(cursor, output, max) > 0) { }
        return output.WrittenSpan.ToArray();
    }

    [Fact]
    public void Append_AcrossBlocks_CursorReadsEverythingInPieces()
    {
        var backlog = new ReplicationBacklog(offset: 100, size: 1 << 20);
        var cursor = backlog.AttachAtEnd(null);
        Assert.Equal(101, cursor.Position);
        var written = new List<byte>();
        for (int i = 0; i < 10; i++)
        {
            var chunk = Bytes(30_000 + i, i);
            written.AddRange(chunk);
            Assert.Equal(100 + written.Count, backlog.Append(chunk));
        }
        Assert.Equal(written.Count, backlog.Pending(cursor));
        Assert.Equal([.. written], ReadAll(backlog, cursor, max: 7_777)); // pieces that straddle blocks
        Assert.Equal(0, backlog.Pending(cursor));
        Assert.Equal(backlog.Offset + 1, cursor.Position);
        Assert.Equal(101, backlog.FirstByteOffset);
        Assert.Equal(written.Count, backlog.HistoryLength);
    }

    [Fact]
    public void SmallBacklog_TrimsHistory_PartialResyncOnlyWithinIt()
    {
        var backlog = new ReplicationBacklog(offset: 0, size: 1000); // below the minimum: 16 KB kept
        backlog.Append(Bytes(200_000, 1));
        Assert.Equal(ReplicationBacklog.MinSize, backlog.HistoryLength);
        Assert.Equal(200_000 - ReplicationBacklog.MinSize + 1, backlog.FirstByteOffset);
        Assert.Null(backlog.Attach(1, null)); // gone: a full sync
        Assert.Null(backlog.Attach(200_002, null)); // not yet written
        var cursor = backlog.Attach(backlog.FirstByteOffset, null);
        Assert.NotNull(cursor);
        Assert.Equal(Bytes(200_000, 1)[^(int)ReplicationBacklog.MinSize..], ReadAll(backlog, cursor!, 4096));
        // Blocks no one needs are freed: a few 64 KB blocks at most, not 200 KB of them.
        Assert.True(backlog.AllocatedBytes <= 2 * 65536 + ReplicationBacklog.MinSize, backlog.AllocatedBytes.ToString());
    }

    [Fact]
    public void Cursor_BehindTheWindow_KeepsItsBytesUntilRead()
    {
        var backlog = new ReplicationBacklog(offset: 0, size: 16 * 1024);
        var slow = backlog.AttachAtEnd(null);
        var data = Bytes(300_000, 7);
        backlog.Append(data);
        // The history is 16 KB, but the slow replica still gets every byte it has not read.
        Assert.Equal(data.Length, backlog.Pending(slow));
        Assert.True(backlog.AllocatedBytes >= data.Length);
        Assert.Equal(data, ReadAll(backlog, slow, 50_000));
        Assert.True(backlog.AllocatedBytes <= 2 * 65536, backlog.AllocatedBytes.ToString());
        // Detached, a cursor holds nothing back.
        backlog.Detach(slow);
        var other = backlog.AttachAtEnd(null);
        backlog.Append(Bytes(200_000, 3));
        backlog.Detach(other);
        backlog.Append(Bytes(10, 3));
        Assert.True(backlog.AllocatedBytes <= 2 * 65536, backlog.AllocatedBytes.ToString());
    }

    [Fact]
    public void Append_WakesEachCursorOnceUntilItReads()
    {
        var backlog = new ReplicationBacklog(offset: 0, size: 1 << 20);
        int wakes = 0;
        var cursor = backlog.AttachAtEnd(() => Interlocked.Increment(ref wakes));
        backlog.Append("a"u8);
        backlog.Append("b"u8);
        Assert.Equal(1, wakes);
        ReadAll(backlog, cursor, 10);
        backlog.Append("c"u8);
        Assert.Equal(2, wakes);
    }

    [Fact]
    public void Size_Shrunk_TrimsAtOnce()
    {
        var backlog = new ReplicationBacklog(offset: 0, size: 1 << 20);
        backlog.Append(Bytes(100_000, 2));
        Assert.Equal(100_000, backlog.HistoryLength);
        backlog.Size = 20_000;
        Assert.Equal(20_000, backlog.HistoryLength);
        Assert.Equal(80_001, backlog.FirstByteOffset);
    }
}
