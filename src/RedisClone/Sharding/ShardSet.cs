using RedisClone.Common;

namespace RedisClone.Sharding;

/*
 * The threading model
 * ===================
 *
 * Keys are spread over N shards by Redis Cluster's hash slot (CRC16 of the key or of its {hash tag},
 * mod 16384), slot -> shard by slot % N. Each shard owns a ShardStore (its part of every database)
 * that no other code touches unless it holds the shard's *gate*, a lock that is almost never
 * contended. Every shard has a dedicated thread that drains an inbox of work items while holding
 * its gate, and wakes every 100 ms to run the active expiry cycle.
 *
 * A connection runs the commands of one parsed batch in segments (ClientConnection.ExecuteBatchAsync).
 * Its "own thread" below is the event loop thread that received the input (Network/Epoll), or the
 * thread that resumed it after a wait (a shard thread's completion, a timer):
 *
 *  - Keyless commands (PING, SELECT, CLIENT ...) run on the connection's own thread.
 *  - A run of commands that each touch one shard forms a segment. If every shard the segment needs
 *    has a free gate, the connection takes those gates (TryEnter, lowest index first) and runs the
 *    segment itself, with no thread hop: the common case at low load, and every single-key command
 *    sent without pipelining. Otherwise it posts one work item per shard (pipeline squashing: one
 *    hop per shard per segment) and waits for all of them; replies are gathered per shard and
 *    written back in command order.
 *  - A command whose keys span shards (MSET, MGET, DEL, RENAME, COPY, ...) or that needs the whole
 *    keyspace (FLUSHDB, KEYS, SCAN, SWAPDB ...) waits for the segment before it, takes the gates of
 *    every shard it touches, in ascending shard order, blocking, and runs on the connection thread.
 *    While it holds them no other thread can run anything on those shards, so the command is atomic
 *    and isolated: a concurrent MGET (which takes the same gates) never sees half an MSET.
 *
 * Why this cannot deadlock: a thread that may block on a gate while holding another (a multi-shard
 * command) always takes gates in ascending shard index, so no cycle of waiters can form. Every other
 * holder either holds exactly one gate (a shard thread draining its inbox) or acquired all of its
 * gates with TryEnter and never waits while holding them. Work items never block on anything while
 * their shard's gate is held. Per-connection order is kept because a connection has at most one
 * segment in flight and an inbox is FIFO.
 *
 * MULTI/EXEC and blocking commands reuse the same mechanism: EXEC takes the gates of every shard its
 * queued commands touch (a single-shard transaction takes one gate, like a plain segment), and a
 * blocking command registers its waiter on each key's shard under that shard's gate.
 */

/// <summary>The shards, and which shard owns a key.</summary>
internal sealed class ShardSet : IDisposable
{
    private readonly Shard[] _shards;
    private readonly int[] _slotToShard = new int[16384];

    public ShardSet(int count, int databases, Func<int, Storage.ShardStore>? storeFactory = null)
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

    /// <summary>Index of the shard that owns <paramref name="key"/>.</summary>
    public int ShardOf(ReadOnlySpan<byte> key)
        => _shards.Length == 1 ? 0 : _slotToShard[Crc16.HashSlot(key)];

    /// <summary>Takes the gates of the shards in <paramref name="mask"/>, lowest index first, waiting as needed.</summary>
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
