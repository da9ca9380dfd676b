using System.Buffers;
using System.Text;
using RedisClone.Network.Epoll;

namespace RedisClone.Tests.Wire;

/// <summary>The event loop's input buffer keeps PipeReader's contract for one writer and one reader.</summary>
public sealed class InputBufferTests
{
    private static void Write(InputBuffer buffer, string text, out InputBuffer.WriteState state)
    {
        var memory = buffer.GetWriteMemory(2048);
        int n = Encoding.ASCII.GetBytes(text, memory.Span);
        state = buffer.Commit(n);
    }

    private static string Text(in ReadOnlySequence<byte> sequence) => Encoding.ASCII.GetString(sequence.ToArray());

    [Fact]
    public void ExaminedEverything_NextReadWaitsForNewData()
    {
        var buffer = new InputBuffer(() => { }, () => { }, () => { });
        Write(buffer, "*1\r\n$4\r\nPI", out _);
        Assert.True(buffer.TryRead(out var first));
        buffer.AdvanceTo(first.Buffer.Start, first.Buffer.End); // incomplete: nothing consumed, all examined
        Assert.False(buffer.TryRead(out _));
        Write(buffer, "NG\r\n", out _);
        Assert.True(buffer.TryRead(out var second));
        Assert.Equal("*1\r\n$4\r\nPING\r\n", Text(second.Buffer));
        buffer.AdvanceTo(second.Buffer.End);
        Assert.False(buffer.TryRead(out _));
    }

    [Fact]
    public void EmptyCanceledRead_ThenNewData_AdvancingTheEmptyBufferConsumesNothing()
    {
        var buffer = new InputBuffer(() => { }, () => { }, () => { });
        Write(buffer, "PING\r\n", out _);
        Assert.True(buffer.TryRead(out var first));
        buffer.AdvanceTo(first.Buffer.End);

        buffer.CancelPendingRead(); // a pub/sub wake-up with no input
        Assert.True(buffer.TryRead(out var woken));
        Assert.True(woken.IsCanceled);
        Assert.True(woken.Buffer.IsEmpty);
        Write(buffer, "ECHO\r\n", out _); // arrives before the reader advances past its empty buffer
        buffer.AdvanceTo(woken.Buffer.Start, woken.Buffer.End);

        Assert.True(buffer.TryRead(out var next));
        Assert.Equal("ECHO\r\n", Text(next.Buffer)); // not PING again
    }

    [Fact]
    public async Task WaitingReader_RunsInsideCommit_AndSeesCompletion()
    {
        var buffer = new InputBuffer(() => { }, () => { }, () => { });
        var read = buffer.ReadAsync();
        Assert.False(read.IsCompleted);
        Write(buffer, "abc", out _);
        Assert.True(read.IsCompleted);
        var result = await read;
        Assert.Equal("abc", Text(result.Buffer));
        buffer.AdvanceTo(result.Buffer.End);

        var last = buffer.ReadAsync();
        buffer.CompleteWriter();
        var end = await last;
        Assert.True(end.IsCompleted);
        Assert.True(end.Buffer.IsEmpty);
    }

    [Fact]
    public async Task CancelFromAnotherThread_ResumesTheReaderOnlyWhenTheLoopDeliversIt()
    {
        InputBuffer? buffer = null;
        int wakeRequests = 0;
        buffer = new InputBuffer(() => { }, () => wakeRequests++, () => { });
        var read = buffer.ReadAsync();
        buffer.CancelPendingRead();
        buffer.CancelPendingRead(); // a second push before the loop ran: one wake-up request
        Assert.False(read.IsCompleted); // not resumed on the caller's thread
        Assert.Equal(1, wakeRequests);
        buffer.DeliverCancellation(); // what the event loop does
        var result = await read;
        Assert.True(result.IsCanceled);
        buffer.AdvanceTo(result.Buffer.Start, result.Buffer.End);
        Assert.False(buffer.TryRead(out _));
    }

    [Fact]
    public async Task CancelSoon_AsksThroughTheDeferrableWakeOnce()
    {
        int wakes = 0, soonWakes = 0;
        var buffer = new InputBuffer(() => { }, () => wakes++, () => soonWakes++);
        var read = buffer.ReadAsync();
        buffer.CancelPendingReadSoon();
        buffer.CancelPendingReadSoon(); // already posted: no second request
        buffer.CancelPendingRead();     // nor through the other way
        Assert.False(read.IsCompleted);
        Assert.Equal((0, 1), (wakes, soonWakes));
        buffer.DeliverCancellation();
        var result = await read;
        Assert.True(result.IsCanceled);
    }

    [Fact]
    public void PastPauseThreshold_WriterPausesUntilReaderCatchesUp()
    {
        int resumed = 0;
        var buffer = new InputBuffer(() => resumed++, () => { }, () => { });
        var chunk = new string('x', 16 * 1024);
        InputBuffer.WriteState state = InputBuffer.WriteState.Open;
        int written = 0;
        while (state == InputBuffer.WriteState.Open)
        {
            Write(buffer, chunk, out state);
            written += chunk.Length;
        }
        Assert.Equal(InputBuffer.WriteState.Paused, state);
        Assert.True(written >= InputBuffer.PauseThreshold);

        Assert.True(buffer.TryRead(out var all));
        Assert.Equal(written, all.Buffer.Length);
        Assert.Equal(new string('x', written), Text(all.Buffer)); // segments chained in order
        buffer.AdvanceTo(all.Buffer.GetPosition(written - InputBuffer.ResumeThreshold - 1)); // one byte above the resume threshold
        Assert.Equal(0, resumed);
        Assert.True(buffer.TryRead(out var rest));
        buffer.AdvanceTo(rest.Buffer.GetPosition(2));
        Assert.Equal(1, resumed);
    }

    [Fact]
    public void ConsumedEverything_BufferStartsOver_AndPartialCommandsSurvive()
    {
        var buffer = new InputBuffer(() => { }, () => { }, () => { });
        for (int i = 0; i < 2000; i++) // far more than one 16 KB buffer in total
        {
            Write(buffer, "*1\r\n$4\r\nPI", out _);
            Assert.True(buffer.TryRead(out var half));
            buffer.AdvanceTo(half.Buffer.Start, half.Buffer.End);
            Write(buffer, "NG\r\n", out _);
            Assert.True(buffer.TryRead(out var whole));
            Assert.Equal("*1\r\n$4\r\nPING\r\n", Text(whole.Buffer));
            buffer.AdvanceTo(whole.Buffer.End);
        }
        buffer.TrimIfIdle(() => { });
        Write(buffer, "after trim", out _);
        Assert.True(buffer.TryRead(out var after));
        Assert.Equal("after trim", Text(after.Buffer));
    }
}
