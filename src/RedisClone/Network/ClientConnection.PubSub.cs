using System.Buffers;
using System.Collections.Concurrent;

namespace RedisClone.Network;

/// <summary>
/// Pub/sub delivery. A publisher (any thread) queues an encoded message here and wakes the read
/// loop by cancelling its pending read; the loop writes queued messages between batches, so
/// messages and replies never interleave mid-reply and each publisher's order is kept. A
/// subscriber that does not read stops draining once its output pipe is full, its queue grows, and
/// it is disconnected at Redis's pubsub output buffer limits (client-output-buffer-limit pubsub,
/// 32 MB hard, 8 MB for 60 s soft, by default) instead of growing server memory without bound.
/// </summary>
internal sealed partial class ClientConnection
{
    private readonly ConcurrentQueue<byte[]> _pushes = new();
    private long _pushBytes;
    private long _softLimitSinceMs = -1;

    int PubSub.ISubscriber.Protocol => Session.Protocol;

    void PubSub.ISubscriber.Push(byte[] message)
    {
        if (Session.Killed) return;
        _pushes.Enqueue(message);
        long queued = Interlocked.Add(ref _pushBytes, message.Length);
        var (hard, soft, seconds) = _server.Config.PubSubOutputLimits;
        if (hard > 0 && queued >= hard) { KillOverLimit(); return; }
        if (soft > 0 && queued >= soft)
        {
            long now = Environment.TickCount64;
            if (_softLimitSinceMs < 0) _softLimitSinceMs = now;
            else if (now - _softLimitSinceMs >= seconds * 1000L) { KillOverLimit(); return; }
        }
        else
        {
            _softLimitSinceMs = -1;
        }
        _inputReader.CancelPendingRead();
    }

    /// <summary>Closes a subscriber over client-output-buffer-limit pubsub, counted in INFO as Redis 7.4 counts it.</summary>
    private void KillOverLimit()
    {
        if (Session.KillForLimit()) Interlocked.Increment(ref _server.Stats.OutputBufferLimitDisconnections);
    }

    // In the queue of pushes, where a shard channel the server dropped is left (see ShardChannelDropped).
    private static readonly byte[] ShardChannelDropMarker = [];
    private readonly ConcurrentQueue<byte[]> _droppedShardChannels = new();

    void PubSub.ISubscriber.ShardChannelDropped(byte[] channel)
    {
        if (Session.Killed) return;
        _droppedShardChannels.Enqueue(channel);
        _pushes.Enqueue(ShardChannelDropMarker);
        _inputReader.CancelPendingRead();
    }

    /// <summary>Writes queued messages into the output, on the connection's own loop.</summary>
    private void DrainPushes()
    {
        while (_pushes.TryDequeue(out var message))
        {
            if (ReferenceEquals(message, ShardChannelDropMarker))
            {
                // The subscription ends here, on the loop that owns the session's sets; a client
                // that left the channel meanwhile (SUNSUBSCRIBE) was told already.
                if (_droppedShardChannels.TryDequeue(out var channel) && Session.Subscriptions(2).Remove(channel))
                {
                    var push = new Protocol.RespWriter(_outputWriter, Session.Protocol);
                    push.PushHeader(3);
                    push.Bulk("sunsubscribe"u8);
                    push.Bulk(channel);
                    push.Integer(Session.ShardSubscriptionCount);
                }
                continue;
            }
            _outputWriter.Write(message);
            Interlocked.Add(ref _pushBytes, -message.Length);
        }
    }
}
