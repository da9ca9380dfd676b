using System.Text;
using RedisClone.Server;
using static RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.PubSub;

/// <summary>
/// Keyspace notifications (notify-keyspace-events): an event on a key is published to
/// <c>__keyspace@DB__:KEY</c> (message: the event name) and/or <c>__keyevent@DB__:EVENT</c>
/// (message: the key), as Redis's notifyKeyspaceEvent does, when the event's class is enabled.
/// </summary>
internal static class KeyspaceNotifier
{
    /// <summary>Publishes one event if its class (<paramref name="type"/>, a KeyspaceEvents bit) is enabled.</summary>
    public static void Notify(RedisServer server, int type, string evt, ReadOnlySpan<byte> key, int db)
    {
        int flags = server.Config.NotifyKeyspaceEvents;
        if ((flags & type) == 0) return;
        var evtBytes = Encoding.ASCII.GetBytes(evt);
        if ((flags & Keyspace) != 0)
            server.PubSub.Publish(Channel("__keyspace@", db, key), evtBytes, shard: false);
        if ((flags & Keyevent) != 0)
            server.PubSub.Publish(Channel("__keyevent@", db, evtBytes), key, shard: false);
    }

    private static byte[] Channel(string prefix, int db, ReadOnlySpan<byte> suffix)
    {
        var head = Encoding.ASCII.GetBytes($"{prefix}{db}__:");
        var channel = new byte[head.Length + suffix.Length];
        head.CopyTo(channel, 0);
        suffix.CopyTo(channel.AsSpan(head.Length));
        return channel;
    }
}
