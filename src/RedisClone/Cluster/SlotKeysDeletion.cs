using RedisClone.Server;
using RedisClone.Sharding;

namespace RedisClone.Cluster;

/// <summary>
/// Redis's delKeysInSlot, for the slots a master lost to another node while it still held keys in
/// them (a higher-epoch claim or UPDATE on the bus): each key is deleted, WATCH and tracking are
/// told, and the deletion goes to the AOF and replicas as a DEL (UNLINK under
/// lazyfree-lazy-server-del), one unit per key as Redis propagates it.
/// </summary>
/// <remarks>
/// The bus applies the claim holding the cluster lock, which a CLUSTER command may wait for while it
/// holds the gates; so the deletion is posted to each slot's shard and runs there under its gate,
/// never waited for by the bus.
/// </remarks>
internal sealed class SlotKeysDeletion : ShardWork
{
    private readonly RedisServer _server;
    private readonly List<int> _slots;

    private SlotKeysDeletion(RedisServer server, List<int> slots)
    {
        _server = server;
        _slots = slots;
    }

    /// <summary>Posts the deletion of the keys of <paramref name="slots"/> to their shards.</summary>
    public static void Post(RedisServer server, IEnumerable<int> slots)
    {
        var shards = server.Shards;
        var byShard = new Dictionary<int, List<int>>();
        foreach (int slot in slots)
        {
            int s = shards.ShardOfSlot(slot);
            if (!byShard.TryGetValue(s, out var list)) byShard[s] = list = new List<int>();
            list.Add(slot);
        }
        foreach (var (s, list) in byShard) shards[s].Post(new SlotKeysDeletion(server, list));
    }

    public override void Execute(Shard shard)
    {
        var db = shard.Store[0];
        var index = db.Table.HashSlots;
        if (index == null) return;
        bool unlink = _server.Config.LazyfreeLazyServerDel;
        long deleted = 0;
        foreach (int slot in _slots)
        {
            // Bounded by the keys the slot held when the work began: no key can be added meanwhile (the gate is held).
            for (int left = index.Count(slot); left > 0 && index.Count(slot) > 0; left--)
            {
                int at = index.First(slot);
                byte[] key = db.Table.At(at).Key.ToArray();
                if (db.HasWatchers) db.SignalModified(key);
                db.RemoveAt(at);
                _server.PropagateDeleted(0, key, unlink);
                deleted++;
            }
        }
        if (deleted > 0) _server.Log.Write(ServerLog.Level.Verbose, $"Deleted {deleted} keys of slots another node took.");
    }
}
