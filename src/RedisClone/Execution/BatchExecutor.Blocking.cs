using System.Buffers;
using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Storage;

namespace RedisClone.Execution;

/// <summary>
/// Parking a connection on a blocking command. The command registered a <see cref="BlockedClient"/>
/// on each of its keys (under their gates) and replied nothing; the batch pauses here, with the
/// replies before it flushed and the commands after it still waiting in the arena. A write to one of
/// the keys makes the oldest waiters Ready (as many as there are elements); a Ready connection takes
/// the gates again and, if one of its keys still holds the type it waits for, leaves the queues and
/// re-runs the command, which pops atomically like any command; if not (the key was popped by
/// another client, deleted, or replaced by another type within the same transaction), it stays
/// blocked in its place, as Redis does. Timeout, CLIENT UNBLOCK and disconnect end the wait too;
/// whichever comes first wins (one compare-and-swap), so a client is served at most once per wake-up.
/// </summary>
internal sealed partial class BatchExecutor
{
    /// <summary>
    /// Waits out the blocking command <paramref name="i"/> (which needs the gates in
    /// <paramref name="mask"/>); false when the connection is gone, in which case nothing after the
    /// command may run.
    /// </summary>
    private async ValueTask<bool> WaitWhileBlockedAsync(int i, ulong mask)
    {
        try
        {
            return await WaitWhileBlockedCoreAsync(i, mask);
        }
        finally
        {
            Interlocked.Exchange(ref Session.Executing, 1);
        }
    }

    private async ValueTask<bool> WaitWhileBlockedCoreAsync(int i, ulong mask)
    {
        long deadlineMs = 0;
        while (Session.Blocked is { } blocked)
        {
            // Waiting is not running: a stop need not wait for this client (see ClientSession.Executing).
            Volatile.Write(ref Session.Executing, 0);
            if (deadlineMs == 0 && blocked.TimeoutMs > 0) deadlineMs = _nowMs + blocked.TimeoutMs;
            await WaitForAofAsync();
            var flushed = await _output.FlushAsync();
            if (flushed.IsCompleted || flushed.IsCanceled) blocked.TryFinish(BlockedClient.Closed);

            var waits = new List<Task>(4) { blocked.Done };
            if (blocked.Until is { } until) waits.Add(until);
            // A timer runs at most MaxDelayMs (about 24 days); a longer timeout (XREAD BLOCK takes
            // any millisecond count) waits in steps.
            if (deadlineMs > 0)
                waits.Add(Task.Delay(TimeSpan.FromMilliseconds(Math.Clamp(deadlineMs - Now(), 1, MaxDelayMs))));
            if (_closed.CanBeCanceled) waits.Add(Task.Delay(Timeout.Infinite, _closed));
            await Task.WhenAny(waits);
            if (!blocked.Done.IsCompleted)
            {
                if (blocked.Until is { IsCompleted: true }) blocked.TryFinish(BlockedClient.Ready);
                else if (_closed.IsCancellationRequested) blocked.TryFinish(BlockedClient.Closed);
                else if (deadlineMs > 0 && Now() >= deadlineMs) blocked.TryFinish(BlockedClient.TimedOut);
                else continue;
            }
            int state = await blocked.Done;
            Interlocked.Exchange(ref Session.Executing, 1);
            _nowMs = Now();
            if (blocked.Kind is BlockedOn.Replicas or BlockedOn.AofSync)
            {
                await RunLockedAsync(0, LockedAction.Unregister, -1);
                if (state == BlockedClient.Closed || _closed.IsCancellationRequested) return false;
                if (state is BlockedClient.UnblockedError or BlockedClient.UnblockedRoleChange)
                    WriteBlockedReply(error: true, roleChange: state == BlockedClient.UnblockedRoleChange);
                else WriteWaitReply(blocked);
                continue;
            }

            // Once the server stops (its hold is on), a woken client is not served: its final save
            // may already be written, and the element stays for it, as the client is never answered.
            if (state == BlockedClient.Ready && !_closed.IsCancellationRequested && !_server.Pause.Stopping)
            {
                // Served (the command ran again: replied, or blocked anew if it found nothing after
                // all) or, when no key holds what it waits for, back to waiting in its place.
                await RunLockedAsync(mask, LockedAction.BlockedWake, i);
                continue;
            }

            // Woken, but the client is already gone: leave the element and pass the wake-up on.
            bool passOn = state == BlockedClient.Ready;
            await RunLockedAsync(KeysMask(blocked), passOn ? LockedAction.UnregisterPassOn : LockedAction.Unregister, -1);
            switch (state)
            {
                case BlockedClient.Ready:
                case BlockedClient.Closed:
                    return false;
                case BlockedClient.UnblockedError:
                case BlockedClient.UnblockedRoleChange:
                    WriteBlockedReply(error: true, roleChange: state == BlockedClient.UnblockedRoleChange);
                    _server.CommandStats.Record(_defs[i]!.Id, -1, failed: true);
                    break;
                case BlockedClient.UnblockedRedirect:
                    if (Session.ReplyMode == ReplyMode.On) new RespWriter(_output, Session.Protocol).Error(blocked.RedirectError!);
                    _server.Stats.CountError(blocked.RedirectError!.StartsWith("MOVED", StringComparison.Ordinal) ? "MOVED" : "CLUSTERDOWN");
                    _server.CommandStats.Record(_defs[i]!.Id, -1, failed: true);
                    break;
                default: // timed out, or CLIENT UNBLOCK ... TIMEOUT
                    WriteBlockedReply(error: false);
                    // Its call, not counted when it blocked (CommandRunner.Run), as Redis 7.2's updateStatsOnUnblock.
                    _server.CommandStats.Record(_defs[i]!.Id, -1, failed: false);
                    break;
            }
        }
        return true;
    }

    private const long MaxDelayMs = int.MaxValue;

    private ulong KeysMask(BlockedClient blocked)
    {
        var shards = _server.Shards;
        ulong mask = 0;
        foreach (var key in blocked.Keys) mask |= 1UL << shards.ShardOf(key);
        return mask;
    }

    /// <summary>A Ready waiter, with the command's gates held: re-run the command, or wait on in place.</summary>
    private void BlockedWakeLocked(int i, IBufferWriter<byte> target)
    {
        var blocked = Session.Blocked!;
        if (!AnyKeyServes(blocked))
        {
            // Nothing here for it, so nothing for those behind it either (same keys, same kind):
            // passing on would only wake them to find nothing too.
            blocked.Rearm();
            return;
        }
        UnregisterLocked(passOn: false);
        Session.Resuming = blocked;
        try
        {
            RunWithReplyMode(i, target, monitor: false); // MONITOR saw it when it blocked
        }
        finally
        {
            Session.Resuming = null;
        }
        // Waiters behind this one were held back while it was Ready (Database.WakeBlocked): what
        // its command left (all of it when it failed, as BLMOVE onto a key of another type does)
        // goes to the next in line. Not to this client itself should its command have blocked
        // again: it found nothing, and waking it would only repeat that.
        PassOn(blocked, Session.Blocked);
    }

    /// <summary>Offers the waiter's keys to the waiters queued on them (their gates are held), <paramref name="skip"/> aside.</summary>
    private void PassOn(BlockedClient blocked, BlockedClient? skip = null)
    {
        var shards = _server.Shards;
        foreach (var key in blocked.Keys)
        {
            var db = shards[shards.ShardOf(key)].Store[blocked.Db];
            if (db.HasBlocked) db.WakeBlocked(key, skip);
        }
    }

    /// <summary>
    /// True when one of the waiter's keys lets its command do something now (see
    /// <see cref="BlockedClient.IsServedBy"/>): holds a list or sorted set, stream entries past the
    /// ID waited on, or, for XREADGROUP, is gone or changed so that the command replies an error.
    /// </summary>
    private bool AnyKeyServes(BlockedClient blocked)
    {
        var shards = _server.Shards;
        foreach (var key in blocked.Keys)
        {
            var db = shards[shards.ShardOf(key)].Store[blocked.Db];
            int slot = db.FindLiveNoTouch(key, _nowMs);
            if (blocked.IsServedBy(key, slot < 0 ? null : db.Table.At(slot).Value)) return true;
        }
        return false;
    }

    /// <summary>
    /// Removes the waiter from every key's queue (it may still be queued on keys that did not wake
    /// it); with <paramref name="passOn"/>, offers the keys' elements to the remaining waiters (a
    /// woken client turned out to be gone).
    /// </summary>
    private void UnregisterLocked(bool passOn)
    {
        if (Session.Blocked is not { } blocked) return;
        var shards = _server.Shards;
        foreach (var key in blocked.Keys) shards[shards.ShardOf(key)].Store[blocked.Db].Unblock(key, blocked);
        Interlocked.Decrement(ref _server.BlockedClientCount);
        Session.Blocked = null;
        if (passOn) PassOn(blocked);
    }

    /// <summary>The reply to a wait that ended without an element: nil of the command's shape, or UNBLOCKED.</summary>
    private void WriteBlockedReply(bool error, bool roleChange = false)
    {
        // Became a replica: the error, then the connection closes (Redis's CLIENT_CLOSE_AFTER_REPLY).
        if (roleChange) Session.CloseAfterReply = true;
        if (Session.ReplyMode != ReplyMode.On) return;
        var reply = new RespWriter(_output, Session.Protocol);
        if (error)
        {
            reply.Raw(roleChange ? RespErrors.UnblockedRoleChange : RespErrors.Unblocked);
            _server.Stats.CountError("UNBLOCKED");
            return;
        }
        reply.NullArray(); // Redis times every blocking command out with a null array, BLMOVE included
    }

    /// <summary>
    /// The end of a WAIT (the count of replicas that acknowledged) or WAITAOF ([whether the write is
    /// on disk locally, replicas with it in their AOF]), however it ended short of CLIENT UNBLOCK ERROR.
    /// </summary>
    private void WriteWaitReply(BlockedClient blocked)
    {
        if (Session.ReplyMode != ReplyMode.On) return;
        var reply = new RespWriter(_output, Session.Protocol);
        var master = _server.Replication.Master;
        if (blocked.Kind == BlockedOn.Replicas)
        {
            reply.Integer(master.CountAcks(blocked.ReplOffset));
            return;
        }
        var aof = _server.Aof;
        reply.ArrayHeader(2);
        reply.Integer(aof != null && aof.Durable >= blocked.AofSequence ? 1 : 0);
        reply.Integer(master.CountAcks(blocked.ReplOffset, aof: true));
    }

    private static long Now() => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
}
