using System.IO.Pipelines;

namespace RedisClone.Replication;

/// <summary>
/// Where the master client's replies go: nowhere. A replica answers its master only to REPLCONF
/// GETACK, which the link handles itself (see <see cref="MasterLink"/>); Redis likewise drops every
/// other reply to its master. One reused buffer, so replies cost no allocation.
/// </summary>
internal sealed class DiscardingWriter : PipeWriter
{
    private byte[] _buffer = new byte[4096];

    public override void Advance(int bytes)
    {
    }

    public override Memory<byte> GetMemory(int sizeHint = 0)
    {
        if (sizeHint > _buffer.Length) _buffer = new byte[Math.Max(sizeHint, _buffer.Length * 2)];
        return _buffer;
    }

    public override Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;

    public override bool CanGetUnflushedBytes => true;

    public override long UnflushedBytes => 0;

    public override void CancelPendingFlush()
    {
    }

    public override void Complete(Exception? exception = null)
    {
    }

    public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
        => new(new FlushResult(isCanceled: false, isCompleted: false));
}
