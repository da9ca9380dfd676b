namespace RedisClone.Storage;

/// <summary>What a blocked client waits for at its keys (Redis's BLOCKED_LIST, BLOCKED_ZSET, BLOCKED_STREAM).</summary>
internal enum BlockedOn
{
    /// <summary>BLPOP, BRPOP, BRPOPLPUSH, BLMOVE, BLMPOP: a list.</summary>
    List,
    /// <summary>BZPOPMIN, BZPOPMAX, BZMPOP: a sorted set.</summary>
    SortedSet,
    /// <summary>XREAD and XREADGROUP: entries past an ID, or past a group's last delivered one.</summary>
    Stream,
    /// <summary>WAIT: replicas' acknowledgements of the client's last write (see Replication/ReplicationMaster). No keys.</summary>
    Replicas,
    /// <summary>WAITAOF: the client's last write on disk (<see cref="BlockedClient.Until"/>), and replicas'. No keys.</summary>
    AofSync,
}

/// <summary>
/// A client blocked on keys (BLPOP, XREAD and friends). It is registered in the waiter queue of each
/// of its keys on their shards; the first event that finishes it wins (a write makes it Ready, its
/// timeout, CLIENT UNBLOCK or a disconnect), exactly once, from any thread.
/// </summary>
/// <remarks>
/// A Ready client re-runs its command with the gates of its keys held, so the element is popped (or
/// the entries read) under the same rules as any command, and it may block again if another client
/// took what woke it.
/// </remarks>
internal sealed class BlockedClient
{
    public const int Waiting = 0, Ready = 1, TimedOut = 2, UnblockedTimeout = 3, UnblockedError = 4, Closed = 5;

    /// <summary>The server became a replica (Redis's disconnectAllBlockedClients): an UNBLOCKED error, then the connection closes.</summary>
    public const int UnblockedRoleChange = 6;

    /// <summary>Cluster mode: the slot of its keys moved away or is not served (Redis's clusterRedirectBlockedClientIfNeeded): <see cref="RedirectError"/>.</summary>
    public const int UnblockedRedirect = 7;

    /// <summary>The error a <see cref="UnblockedRedirect"/> replies (-MOVED or -CLUSTERDOWN, without the dash).</summary>
    public string? RedirectError { get; private set; }

    /// <summary>Ends the wait with <paramref name="error"/>; false when something else finished it first.</summary>
    public bool TryRedirect(string error)
    {
        if (Volatile.Read(ref _state) != Waiting) return false;
        RedirectError = error; // written before the state, read after the task completes
        return TryFinish(UnblockedRedirect);
    }

    private TaskCompletionSource<int> _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _state;

    public BlockedClient(int db, byte[][] keys, BlockedOn kind, long timeoutMs)
    {
        Db = db;
        Keys = keys;
        Kind = kind;
        TimeoutMs = timeoutMs;
    }

    /// <summary>
    /// A stream waiter: <paramref name="ids"/>[i] for <paramref name="keys"/>[i] (see
    /// <see cref="StreamIds"/>); <paramref name="group"/> for XREADGROUP; <paramref name="count"/> its
    /// COUNT (0: no limit).
    /// </summary>
    public BlockedClient(int db, byte[][] keys, long timeoutMs, StreamId[] ids, byte[]? group, long count,
        WeakReference<RedisStream>[]? streams = null)
        : this(db, keys, BlockedOn.Stream, timeoutMs)
    {
        StreamIds = ids;
        Group = group;
        Count = count;
        _streams = streams;
    }

    // XREADGROUP: the stream each key held when the client blocked. A stream put in its place
    // (RENAME, SWAPDB) is new data as far as the waiter is concerned, whatever its last ID.
    private readonly WeakReference<RedisStream>[]? _streams;

    public int Db { get; }
    public byte[][] Keys { get; }
    public BlockedOn Kind { get; }

    /// <summary>
    /// Per key, the ID past which an entry must be added for the waiter to wake. XREAD: the ID it
    /// reads after, "$" already resolved to the stream's last ID when the client blocked (Redis 7.2
    /// rewrites the blocked command's "$"), so the command run again on wake-up reads only what was
    /// added after it blocked. XREADGROUP: the stream's last ID when it blocked, so that, as in
    /// Redis where only an XADD wakes it, moving the group back (XGROUP SETID) does not.
    /// </summary>
    public StreamId[]? StreamIds { get; }

    /// <summary>XREADGROUP's group: it waits for entries past the group's last delivered ID, and is woken
    /// (to reply an error) when the key is deleted, changes type or loses the group.</summary>
    public byte[]? Group { get; }

    /// <summary>A stream waiter's COUNT, 0 for no limit: how many of the new entries one XREADGROUP takes.</summary>
    public long Count { get; }

    /// <summary>WAIT, WAITAOF: completes when what it waits for is done (null: only the timeout ends the wait).</summary>
    public Task? Until { get; set; }

    /// <summary>WAIT, WAITAOF: master_repl_offset after the client's last write, which replicas must acknowledge.</summary>
    public long ReplOffset { get; init; }

    /// <summary>WAITAOF: the AOF sequence of the client's last write, for the local count in its reply.</summary>
    public long AofSequence { get; init; }

    /// <summary>0 = block forever.</summary>
    public long TimeoutMs { get; }

    public Task<int> Done => Volatile.Read(ref _done).Task;

    public int State => Volatile.Read(ref _state);

    /// <summary>
    /// True when <paramref name="value"/>, what <paramref name="key"/> now holds (null when missing),
    /// lets the blocked command do something when run again: pop an element, read entries, or
    /// (XREADGROUP) reply the error that the key or group went away.
    /// </summary>
    public bool IsServedBy(ReadOnlySpan<byte> key, object? value)
    {
        switch (Kind)
        {
            case BlockedOn.List:
                return value is RedisList;
            case BlockedOn.SortedSet:
                return value is RedisSortedSet;
        }
        if (Group != null)
        {
            // Deleted, overwritten by another type, or its group destroyed: the command run again
            // replies NOGROUP or WRONGTYPE (Redis 7.2's unblock-on-no-key).
            if (value is not RedisStream stream) return true;
            var group = stream.FindGroup(Group);
            if (group == null) return true;
            if (!HasEntriesAfter(stream, group.LastId)) return false;
            for (int i = 0; i < Keys.Length; i++)
            {
                if (!key.SequenceEqual(Keys[i])) continue;
                bool same = _streams != null && _streams[i].TryGetTarget(out var then) && ReferenceEquals(then, stream);
                if (!same || HasEntriesAfter(stream, StreamIds![i])) return true;
            }
            return false;
        }
        if (value is not RedisStream s) return false;
        for (int i = 0; i < Keys.Length; i++)
            if (key.SequenceEqual(Keys[i]) && HasEntriesAfter(s, StreamIds![i])) return true;
        return false;
    }

    /// <summary>Whether XREAD would serve the stream at once: its last live entry is past <paramref name="id"/>.</summary>
    public static bool HasEntriesAfter(RedisStream stream, StreamId id)
        => stream.Length > 0 && stream.LastId > id && stream.LastLiveId() > id;

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
