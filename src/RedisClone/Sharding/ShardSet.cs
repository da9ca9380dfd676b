using RedisClone.Common;

namespace RedisClone.Sharding;

/*
 * The threading model
 * ===================
 *
 * Keys are spread over N shards by Redis Cluster's hash slot (CRC16 of the key or of its {hash tag},
 * mod 16384), slot -> shard by slot % N. Each shard owns a ShardStore (its part of every database).
 * The rule: a shard's data is touched only by the thread that holds the shard's *gate* (a lock that
 * is almost never contended). Every shard has a dedicated thread that drains an inbox of work items
 * while holding its gate, and wakes every 100 ms to run the active expiry cycle.
 *
 * A connection's BatchExecutor (Execution/) runs the commands of one parsed batch. It runs on the
 * event loop thread that received the input (Network/Epoll), or on the thread pool thread that
 * resumed it after a wait (a shard's completion, a timer). That thread never waits for a gate:
 *
 *  - Keyless commands (PING, SELECT, CLIENT ...) run on it, holding no gate.
 *  - A run of commands that each touch one shard forms a segment. If every gate the segment needs
 *    can be taken at once (TryEnter, lowest index first, with a short spin), the executor runs the
 *    segment itself, with no thread hop: the common case at low load, and every single-key command
 *    sent without pipelining. Otherwise it posts one work item per shard (pipeline squashing: one
 *    hop per shard per segment) and awaits all of them; replies are gathered per shard and written
 *    back in command order.
 *  - Everything else that needs gates: a command whose keys span shards (MSET, MGET, DEL, RENAME,
 *    COPY ...), one that needs the whole keyspace (FLUSHDB, KEYS, SCAN, SWAPDB ...), a blocking
 *    command, EXEC, a woken blocked command running again, and the WATCH and waiter bookkeeping of
 *    DISCARD, UNWATCH, RESET and a closing connection. The executor tries to take every gate at
 *    once as above; if it cannot, it posts the action to the lowest shard of its mask and awaits it.
 *    That shard's thread, which holds its own gate while draining its inbox, takes the other gates
 *    in ascending shard order, waiting as needed, runs the action into a reply buffer, and releases
 *    them. While one thread holds all those gates no other thread can run anything on those shards,
 *    so the command is atomic and isolated: a concurrent MGET never sees half an MSET.
 *
 * Why this cannot deadlock: the only threads that ever wait for a gate are shard threads, and a
 * shard thread holding gate i waits only for gates above i (it runs actions whose lowest shard is
 * its own, taking the rest in ascending order), so no cycle of waiters can form. Every other holder
 * (an executor on an event loop or the thread pool) acquired all of its gates with TryEnter and
 * never waits while holding them. Work items never block on anything else while gates are held.
 * Per-connection order is kept because a connection has at most one segment or action in flight
 * and an inbox is FIFO.
 *
 * What this does not promise: a slow command (DEBUG SLEEP, KEYS on a large keyspace) that found its
 * gates free runs on the event loop thread and holds up that loop's other clients for its duration,
 * as it would hold up a whole Redis. Scripts are the exception (Routing.Script): they are always
 * posted, so a script that runs for seconds holds the gates but no loop, and the loops answer other
 * clients -BUSY once it passes busy-reply-threshold (Scripting/ScriptWatchdog.cs).
 */

/// <summary>The shards, and which shard owns a key.</summary>
internal sealed class ShardSet : IDisposable
{
    private readonly Shard[] _shards;
    private readonly int[] _slotToShard = new int[16384];

    public ShardSet(int count, int databases)
    {
        _shards = new Shard[count];
        for (int i = 0; i < count; i++) _shards[i] = new Shard(i, new Storage.ShardStore(databases));
        for (int slot = 0; slot < _slotToShard.Length; slot++) _slotToShard[slot] = slot % count;
    }

    public int Count => _shards.Length;

    public Shard this[int index] => _shards[index];

    public void Start()
    {
        foreach (var s in _shards) s.Start();
    }

    /// <summary>Index of the shard that owns the keys of cluster hash slot <paramref name="slot"/>.</summary>
    public int ShardOfSlot(int slot) => _slotToShard[slot];

    /// <summary>Index of the shard that owns <paramref name="key"/>.</summary>
    public int ShardOf(ReadOnlySpan<byte> key)
        => _shards.Length == 1 ? 0 : _slotToShard[Crc16.HashSlot(key)];

    /// <summary>
    /// Takes the gates of the shards in <paramref name="mask"/>, lowest index first, waiting as
    /// needed. Only a shard thread whose own shard is the lowest in the mask may call this (see the
    /// essay above); everyone else uses <see cref="TryEnterAll"/>.
    /// </summary>
    public void EnterAll(ulong mask)
    {
        for (int i = 0; i < _shards.Length; i++)
            if ((mask & (1UL << i)) != 0) _shards[i].Gate.Enter();
    }

    /// <summary>Takes all the gates in <paramref name="mask"/> without waiting, or none of them.</summary>
    public bool TryEnterAll(ulong mask)
    {
        for (int i = 0; i < _shards.Length; i++)
        {
            if ((mask & (1UL << i)) == 0) continue;
            if (_shards[i].Gate.TryEnter()) continue;
            for (int j = i - 1; j >= 0; j--)
                if ((mask & (1UL << j)) != 0) _shards[j].Gate.Exit();
            return false;
        }
        return true;
    }

    public void ExitAll(ulong mask)
    {
        for (int i = _shards.Length - 1; i >= 0; i--)
            if ((mask & (1UL << i)) != 0) _shards[i].Gate.Exit();
    }

    public ulong AllMask => _shards.Length == 64 ? ulong.MaxValue : (1UL << _shards.Length) - 1;

    public void Dispose()
    {
        foreach (var s in _shards) s.Dispose();
    }
}
