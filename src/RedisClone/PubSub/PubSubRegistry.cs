using RedisClone.Common;
using RedisClone.Storage;

namespace RedisClone.PubSub;

/// <summary>Who receives messages: a connection that can take a push from any thread.</summary>
internal interface ISubscriber
{
    /// <summary>The subscriber's protocol (2 or 3): messages are encoded for it.</summary>
    int Protocol { get; }

    /// <summary>Queues an encoded message for delivery; never blocks. Called under the registry lock.</summary>
    void Push(byte[] message);

    /// <summary>
    /// The server dropped the subscriber's shard channel (its slot was lost): after the messages
    /// queued before, the subscriber leaves it and is told with a sunsubscribe push. Never blocks;
    /// called under the registry lock.
    /// </summary>
    void ShardChannelDropped(byte[] channel);
}

/// <summary>
/// Channels, patterns and shard channels with their subscribers, outside the keyspace (pub/sub
/// does not belong to any shard). One lock guards the maps: PUBLISH looks up receivers and queues
/// the message to each of them while holding it, so every subscriber sees one publisher's messages
/// in the order they were published. Delivery itself happens on each subscriber's own connection.
/// </summary>
internal sealed class PubSubRegistry
{
    private readonly object _lock = new();
    private const int ScratchLimit = 16 * 1024; // larger messages get a buffer of their own, not kept
    private readonly Protocol.ReplyBuffer _scratch = new(256); // encodes messages up to ScratchLimit, under _lock
    private readonly Dictionary<byte[], List<ISubscriber>> _channels = new(ByteArrayComparer.Instance);
    private readonly Dictionary<byte[], List<ISubscriber>> _shardChannels = new(ByteArrayComparer.Instance);
    private readonly List<(byte[] Pattern, ISubscriber Subscriber)> _patterns = new();
    // How many clients subscribe to each pattern: NUMPAT counts patterns, not subscriptions.
    private readonly Dictionary<byte[], int> _patternSubscribers = new(ByteArrayComparer.Instance);
    // Shard channels per hash slot, so that a lost slot with none costs one read (cluster mode only).
    private int[]? _shardChannelsPerSlot;

    /// <summary>
    /// Number of distinct patterns some client subscribes to (PUBSUB NUMPAT, INFO's pubsub_patterns):
    /// Redis 7 counts its pattern dictionary, so two clients on one pattern count once.
    /// </summary>
    public int PatternCount
    {
        get { lock (_lock) return _patternSubscribers.Count; }
    }

    public int ChannelCount
    {
        get { lock (_lock) return _channels.Count; }
    }

    public int ShardChannelCount
    {
        get { lock (_lock) return _shardChannels.Count; }
    }

    public void Subscribe(byte[] channel, ISubscriber s, bool shard)
    {
        var map = shard ? _shardChannels : _channels;
        lock (_lock)
        {
            if (!map.TryGetValue(channel, out var list))
            {
                map[channel] = list = new List<ISubscriber>(1);
                if (shard) (_shardChannelsPerSlot ??= new int[16384])[Crc16.HashSlot(channel)]++;
            }
            list.Add(s);
        }
    }

    public void Unsubscribe(byte[] channel, ISubscriber s, bool shard)
    {
        var map = shard ? _shardChannels : _channels;
        lock (_lock)
        {
            if (!map.TryGetValue(channel, out var list)) return;
            list.Remove(s);
            if (list.Count == 0)
            {
                map.Remove(channel);
                if (shard && _shardChannelsPerSlot != null) _shardChannelsPerSlot[Crc16.HashSlot(channel)]--;
            }
        }
    }

    /// <summary>
    /// Redis 7.2's removeChannelsInSlot (a cluster node lost <paramref name="slot"/>): every shard
    /// channel of the slot is dropped, in channel order, each subscriber told (see
    /// <see cref="ISubscriber.ShardChannelDropped"/>).
    /// </summary>
    public void UnsubscribeShardSlot(int slot)
    {
        lock (_lock)
        {
            if (_shardChannelsPerSlot == null || _shardChannelsPerSlot[slot] == 0) return;
            var channels = new List<byte[]>();
            foreach (var channel in _shardChannels.Keys)
                if (Crc16.HashSlot(channel) == slot) channels.Add(channel);
            channels.Sort((a, b) => a.AsSpan().SequenceCompareTo(b));
            foreach (var channel in channels)
            {
                var list = _shardChannels[channel];
                _shardChannels.Remove(channel);
                foreach (var s in list) s.ShardChannelDropped(channel);
            }
            _shardChannelsPerSlot[slot] = 0;
        }
    }

    public void PSubscribe(byte[] pattern, ISubscriber s)
    {
        lock (_lock)
        {
            _patterns.Add((pattern, s));
            _patternSubscribers[pattern] = _patternSubscribers.GetValueOrDefault(pattern) + 1;
        }
    }

    public void PUnsubscribe(byte[] pattern, ISubscriber s)
    {
        lock (_lock)
        {
            int i = _patterns.FindIndex(p => p.Subscriber == s && p.Pattern.AsSpan().SequenceEqual(pattern));
            if (i < 0) return;
            _patterns.RemoveAt(i);
            int left = _patternSubscribers[pattern] - 1;
            if (left == 0) _patternSubscribers.Remove(pattern);
            else _patternSubscribers[pattern] = left;
        }
    }

    /// <summary>Publishes on behalf of the server (keyspace notifications): every receiver's message is queued.</summary>
    public int Publish(ReadOnlySpan<byte> channel, ReadOnlySpan<byte> message, bool shard)
    {
        List<byte[]>? none = null;
        return Publish(channel, message, shard, null, ref none);
    }

    /// <summary>
    /// PUBLISH / SPUBLISH: queues the message to every receiver; returns how many there were. The
    /// messages for <paramref name="self"/> (the publishing connection, when it is subscribed too)
    /// are not queued but handed back in <paramref name="toSelf"/>, for the caller to write right
    /// after its reply, where Redis 7.2 puts them.
    /// </summary>
    public int Publish(ReadOnlySpan<byte> channel, ReadOnlySpan<byte> message, bool shard,
        ISubscriber? self, ref List<byte[]>? toSelf)
    {
        int receivers = 0;
        byte[]? resp2 = null, resp3 = null;
        lock (_lock)
        {
            var map = shard ? _shardChannels : _channels;
            if (map.GetAlternateLookup<ReadOnlySpan<byte>>().TryGetValue(channel, out var list))
            {
                foreach (var s in list)
                {
                    var encoded = s.Protocol == 3
                        ? resp3 ??= Encode(_scratch, 3, shard ? "smessage"u8 : "message"u8, default, channel, message)
                        : resp2 ??= Encode(_scratch, 2, shard ? "smessage"u8 : "message"u8, default, channel, message);
                    if (s == self) (toSelf ??= []).Add(encoded);
                    else s.Push(encoded);
                    receivers++;
                }
            }
            if (!shard)
            {
                foreach (var (pattern, s) in _patterns)
                {
                    if (!GlobMatcher.IsMatch(pattern, channel)) continue;
                    var encoded = Encode(_scratch, s.Protocol, "pmessage"u8, pattern, channel, message);
                    if (s == self) (toSelf ??= []).Add(encoded);
                    else s.Push(encoded);
                    receivers++;
                }
            }
        }
        return receivers;
    }

    /// <summary>PUBSUB CHANNELS / SHARDCHANNELS [pattern]: active channels (with at least one subscriber).</summary>
    public List<byte[]> Channels(ReadOnlySpan<byte> pattern, bool all, bool shard)
    {
        var result = new List<byte[]>();
        lock (_lock)
        {
            foreach (var channel in (shard ? _shardChannels : _channels).Keys)
                if (all || GlobMatcher.IsMatch(pattern, channel)) result.Add(channel);
        }
        return result;
    }

    /// <summary>PUBSUB NUMSUB / SHARDNUMSUB: subscribers of one channel.</summary>
    public int SubscriberCount(ReadOnlySpan<byte> channel, bool shard)
    {
        lock (_lock)
        {
            return (shard ? _shardChannels : _channels).GetAlternateLookup<ReadOnlySpan<byte>>()
                .TryGetValue(channel, out var list) ? list.Count : 0;
        }
    }

    /// <summary>
    /// A message as a RESP2 array or a RESP3 push: [kind, (pattern,) channel, payload], written into
    /// <paramref name="scratch"/> (the registry's, reused under the lock) and copied out once; a
    /// message too large for it gets a buffer of its own, so one large PUBLISH is not held on to.
    /// </summary>
    private static byte[] Encode(Protocol.ReplyBuffer scratch, int protocol, ReadOnlySpan<byte> kind, ReadOnlySpan<byte> pattern,
        ReadOnlySpan<byte> channel, ReadOnlySpan<byte> message)
    {
        long size = 64L + pattern.Length + channel.Length + message.Length;
        var buffer = size <= ScratchLimit ? scratch : new Protocol.ReplyBuffer((int)Math.Min(size, Array.MaxLength));
        buffer.Clear();
        var w = new Protocol.RespWriter(buffer, protocol);
        bool withPattern = kind.SequenceEqual("pmessage"u8);
        w.PushHeader(withPattern ? 4 : 3);
        w.Bulk(kind);
        if (withPattern) w.Bulk(pattern);
        w.Bulk(channel);
        w.Bulk(message);
        return buffer.Slice(0, buffer.Written).ToArray();
    }
}
