using System.Text;
using RedisClone.Storage;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Strings;

/// <summary>
/// Reads and plants entries directly in a test server's keyspace (database 0), holding the key's
/// shard gate as the dispatcher would: lets tests see what the wire cannot (array reuse, the raw
/// flag, expiry times) and store values of types that have no commands yet.
/// </summary>
internal static class KeyspacePeek
{
    /// <summary>A value of a type the string commands do not know, standing in for a list or hash.</summary>
    internal sealed class ForeignValue;

    public static T Read<T>(TestServer server, string key, Func<KeyTable.Entry?, T> read)
    {
        var bytes = Encoding.UTF8.GetBytes(key);
        var shard = server.Server.Shards[server.Server.Shards.ShardOf(bytes)];
        lock (shard.Gate)
        {
            var db = shard.Store[0];
            int slot = db.Table.Find(bytes);
            return read(slot < 0 ? null : db.Table.At(slot));
        }
    }

    /// <summary>
    /// The object holding the value: for a string embedded with its key (Storage/EmbeddedString), the
    /// entry's array, which is what an in-place overwrite reuses; otherwise the value itself.
    /// </summary>
    public static object? Value(TestServer server, string key)
        => Read(server, key, e => e is { } x ? (x.IsEmbedded ? x.Bytes : x.Value) : null);

    /// <summary>True when the key's string value is embedded after the key in one array.</summary>
    public static bool IsEmbedded(TestServer server, string key) => Read(server, key, e => e is { IsEmbedded: true });

    public static long ExpireAt(TestServer server, string key)
    {
        var bytes = Encoding.UTF8.GetBytes(key);
        var shard = server.Server.Shards[server.Server.Shards.ShardOf(bytes)];
        lock (shard.Gate)
        {
            var table = shard.Store[0].Table;
            int slot = table.Find(bytes);
            return slot < 0 ? -1 : table.ExpireAt(slot);
        }
    }

    public static bool IsRaw(TestServer server, string key)
        => Read(server, key, e => e is { } x && (x.HashAndFlag & KeyTable.RawFlag) != 0);

    /// <summary>Stores a value of a non-string type under <paramref name="key"/>.</summary>
    public static void PlantForeign(TestServer server, string key)
    {
        var bytes = Encoding.UTF8.GetBytes(key);
        var shard = server.Server.Shards[server.Server.Shards.ShardOf(bytes)];
        lock (shard.Gate)
        {
            var db = shard.Store[0];
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            if (db.FindLive(bytes, now) >= 0) db.Delete(bytes, now);
            db.Add(bytes, new ForeignValue());
        }
    }

    /// <summary>Keys that land on <paramref name="count"/> different shards of <paramref name="server"/>.</summary>
    public static string[] KeysOnDistinctShards(TestServer server, string prefix, int count)
    {
        var keys = new List<string>();
        var seen = new HashSet<int>();
        for (int i = 0; keys.Count < count; i++)
        {
            string k = prefix + i;
            if (seen.Add(server.Server.Shards.ShardOf(Encoding.UTF8.GetBytes(k)))) keys.Add(k);
        }
        return keys.ToArray();
    }
}
