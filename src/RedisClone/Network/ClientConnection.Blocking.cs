using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Storage;

namespace RedisClone.Network;

/// <summary>
/// Parking a connection on a blocking command. The command registered a <see cref="BlockedClient"/>
/// on each of its keys (under their gates) and replied nothing; the batch pauses here, with the
/// replies before it flushed and the commands after it still waiting in the arena. A write to one of
/// the keys makes the oldest waiters Ready (as many as there are elements); a Ready connection takes
/// the gates again and re-runs the command, which pops atomically like any command, or blocks again
/// if another client was faster. Timeout, CLIENT UNBLOCK and disconnect end the wait too; whichever
/// comes first wins (one compare-and-swap), so a client is served at most once per wake-up.
/// </summary>
internal sealed partial class ClientConnection
{
    private long _blockDeadlineMs;

    /// <summary>Waits out the blocking command <paramref name="i"/>; false when the connection is gone.</summary>
    private async ValueTask<bool> WaitWhileBlockedAsync(int i, ulong mask)
    {
        var shards = _server.Shards;
        while (Session.Blocked is { } blocked)
        {
            int state;
            {
                if (_blockDeadlineMs == 0 && blocked.TimeoutMs > 0) _blockDeadlineMs = _nowMs + blocked.TimeoutMs;
                var flushed = await _outputWriter.FlushAsync();
                if (flushed.IsCompleted || flushed.IsCanceled) blocked.TryFinish(BlockedClient.Closed);

                var waits = new List<Task>(3) { blocked.Done };
                if (_blockDeadlineMs > 0)
                    waits.Add(Task.Delay(TimeSpan.FromMilliseconds(Math.Max(1, _blockDeadlineMs - Now()))));
                if (_closed.CanBeCanceled) waits.Add(Task.Delay(Timeout.Infinite, _closed));
                await Task.WhenAny(waits);
                if (!blocked.Done.IsCompleted)
                    blocked.TryFinish(_closed.IsCancellationRequested ? BlockedClient.Closed : BlockedClient.TimedOut);
                state = await blocked.Done;
            }

            Unregister(blocked);
            Interlocked.Decrement(ref _server.BlockedClientCount);
            Session.Blocked = null;
            _nowMs = Now();
            switch (state)
            {
                case BlockedClient.Ready when _closed.IsCancellationRequested:
                    // Woken, but the client is already gone: leave the element and pass the wake-up on.
                    WakeOthers(blocked);
                    _blockDeadlineMs = 0;
                    return false;
                case BlockedClient.Ready:
                    shards.EnterAll(mask);
                    try { RunDirect(i); }
                    finally { shards.ExitAll(mask); }
                    continue; // served, or blocked again when another client took the element first
                case BlockedClient.Closed:
                    _blockDeadlineMs = 0;
                    return false;
                case BlockedClient.UnblockedError:
                    WriteBlockedReply(i, error: true);
                    break;
                default: // timed out, or CLIENT UNBLOCK ... TIMEOUT
                    WriteBlockedReply(i, error: false);
                    break;
            }
        }
        _blockDeadlineMs = 0;
        return true;
    }

    /// <summary>Removes the waiter from every key's queue (it may still be queued on keys that did not wake it).</summary>
    private void Unregister(BlockedClient blocked)
    {
        var shards = _server.Shards;
        ulong keysMask = 0;
        foreach (var key in blocked.Keys) keysMask |= 1UL << shards.ShardOf(key);
        shards.EnterAll(keysMask);
        try
        {
            foreach (var key in blocked.Keys) shards[shards.ShardOf(key)].Store[blocked.Db].Unblock(key, blocked);
        }
        finally
        {
            shards.ExitAll(keysMask);
        }
    }

    /// <summary>Offers the keys' elements to the remaining waiters (after a woken client turned out to be gone).</summary>
    private void WakeOthers(BlockedClient blocked)
    {
        var shards = _server.Shards;
        ulong keysMask = 0;
        foreach (var key in blocked.Keys) keysMask |= 1UL << shards.ShardOf(key);
        shards.EnterAll(keysMask);
        try
        {
            foreach (var key in blocked.Keys) shards[shards.ShardOf(key)].Store[blocked.Db].WakeBlocked(key);
        }
        finally
        {
            shards.ExitAll(keysMask);
        }
    }

    /// <summary>The reply to a wait that ended without an element: nil of the command's shape, or UNBLOCKED.</summary>
    private void WriteBlockedReply(int i, bool error)
    {
        if (Session.ReplyMode != ReplyMode.On) return;
        var reply = new RespWriter(_outputWriter, Session.Protocol);
        if (error)
        {
            reply.Error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
            _server.Stats.CountError("UNBLOCKED");
            return;
        }
        reply.NullArray(); // Redis times every blocking command out with a null array, BLMOVE included
    }

    private static long Now() => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
}
