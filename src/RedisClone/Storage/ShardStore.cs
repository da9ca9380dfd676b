namespace RedisClone.Storage;

/// <summary>
/// All data one shard owns: its part of every numbered database, and the shard's counters.
/// Counters are written under the shard's gate and read without it by INFO (a momentarily stale
/// figure is fine there).
/// </summary>
/// <summary>Receives a key that a read did not find (a span: no copy unless an event is published).</summary>
internal delegate void KeyMissHandler(int db, ReadOnlySpan<byte> key);

internal sealed class ShardStore
{
    private readonly Database[] _databases;

    public ShardStore(int databases)
    {
        _databases = new Database[databases];
        for (int i = 0; i < databases; i++) _databases[i] = new Database(this, i);
    }

    public Database this[int index] => _databases[index];

    public int DatabaseCount => _databases.Length;

    /// <summary>Called (under the shard's gate) for every key deleted because it expired: "expired" events.</summary>
    public Action<int, byte[]>? KeyExpired { get; set; }

    /// <summary>Called (under the shard's gate) for every key created: "new" events.</summary>
    public Action<int, byte[]>? KeyAdded { get; set; }

    /// <summary>Called for a read lookup that found no key: "keymiss" events (class m).</summary>
    public KeyMissHandler? KeyMissed { get; set; }

    public long KeyspaceHits;
    public long KeyspaceMisses;
    public long ExpiredKeys;

    /// <summary>SWAPDB: the two numbers exchange their contents on this shard.</summary>
    public void Swap(int a, int b)
    {
        _databases[a].TouchAllWatched(_databases[b]);
        _databases[b].TouchAllWatched(_databases[a]);
        _databases[a].SwapWith(_databases[b]);
    }
}
