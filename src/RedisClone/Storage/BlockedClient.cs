namespace RedisClone.Storage;

/// <summary>
/// A client blocked on keys (BLPOP and friends). It is registered in the waiter queue of each of its
/// keys on their shards; the first event that finishes it wins (a push makes it Ready, its timeout,
/// CLIENT UNBLOCK or a disconnect), exactly once, from any thread.
/// </summary>
/// <remarks>
/// A Ready client re-runs its command with the gates of its keys held, so the element is popped
/// under the same rules as any command (and may block again if another client took it first).
/// </remarks>
internal sealed class BlockedClient
{
    public const int Waiting = 0, Ready = 1, TimedOut = 2, UnblockedTimeout = 3, UnblockedError = 4, Closed = 5;

    private TaskCompletionSource<int> _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _state;

    public BlockedClient(int db, byte[][] keys, bool wantsSortedSet, long timeoutMs)
    {
        Db = db;
        Keys = keys;
        WantsSortedSet = wantsSortedSet;
        TimeoutMs = timeoutMs;
    }

    public int Db { get; }
    public byte[][] Keys { get; }

    /// <summary>BZPOPMIN-style waiters want a sorted set at the key, the others a list.</summary>
    public bool WantsSortedSet { get; }

    /// <summary>0 = block forever.</summary>
    public long TimeoutMs { get; }

    public Task<int> Done => Volatile.Read(ref _done).Task;

    public int State => Volatile.Read(ref _state);

    /// <summary>Moves from Waiting to <paramref name="state"/>; false when something else finished it first.</summary>
    public bool TryFinish(int state)
    {
        if (Interlocked.CompareExchange(ref _state, state, Waiting) != Waiting) return false;
        Volatile.Read(ref _done).SetResult(state);
        return true;
    }

    /// <summary>
    /// Back from Ready to Waiting, still in every key's queue: the wake-up found nothing it can
    /// serve by the time the client ran (its keys' gates held by the caller, so no push races it).
    /// </summary>
    public void Rearm()
    {
        Volatile.Write(ref _done, new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously));
        Interlocked.CompareExchange(ref _state, Waiting, Ready);
    }
}
