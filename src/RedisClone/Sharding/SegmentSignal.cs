using System.Threading.Tasks.Sources;

namespace RedisClone.Sharding;

/// <summary>
/// A reusable awaitable that completes when every shard has finished its part of a segment, so
/// waiting for shards allocates nothing. Continuations run on the thread pool, never on a shard thread.
/// </summary>
internal sealed class SegmentSignal : IValueTaskSource
{
    private ManualResetValueTaskSourceCore<bool> _core = new() { RunContinuationsAsynchronously = true };
    private int _pending;

    /// <summary>Arms the signal for <paramref name="parts"/> completions and returns the task to await.</summary>
    public ValueTask Arm(int parts)
    {
        _core.Reset();
        Volatile.Write(ref _pending, parts);
        return new ValueTask(this, _core.Version);
    }

    /// <summary>Called by each shard when its part is done.</summary>
    public void PartDone()
    {
        if (Interlocked.Decrement(ref _pending) == 0) _core.SetResult(true);
    }

    public void GetResult(short token) => _core.GetResult(token);

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags)
        => _core.OnCompleted(continuation, state, token, flags);
}
