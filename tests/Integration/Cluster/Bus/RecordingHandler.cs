using System.Collections.Concurrent;
using RedisClone.Cluster.Bus;

namespace RedisClone.Tests.Cluster.Bus;

/// <summary>A bus handler for tests: keeps a copy of every message and event, and can answer messages.</summary>
internal sealed class RecordingHandler : IBusHandler
{
    public readonly ConcurrentQueue<(BusLink Link, byte[] Bytes)> Messages = new();
    public readonly ConcurrentQueue<(BusLink Link, ushort Type, BusMessageError Error)> Invalid = new();
    public readonly ConcurrentQueue<(BusLink Link, BusLinkCloseReason Reason)> Closed = new();
    public readonly ConcurrentQueue<BusLink> Inbound = new();

    /// <summary>Runs on each well-formed message (on the link's loop), after it is recorded.</summary>
    public Action<BusLink, byte[]>? OnEach { get; set; }

    public bool Refuse { get; set; }

    public bool OnInboundLink(BusLink link)
    {
        if (Refuse) return false;
        Inbound.Enqueue(link);
        return true;
    }

    public void OnMessage(BusLink link, in BusMessage message)
    {
        var copy = message.Bytes.ToArray();
        Messages.Enqueue((link, copy));
        OnEach?.Invoke(link, copy);
    }

    public void OnInvalidMessage(BusLink link, ushort type, BusMessageError error) => Invalid.Enqueue((link, type, error));

    public void OnLinkClosed(BusLink link, BusLinkCloseReason reason) => Closed.Enqueue((link, reason));

    /// <summary>The messages received so far whose type is <paramref name="type"/>.</summary>
    public List<byte[]> OfType(BusMessageType type)
    {
        var found = new List<byte[]>();
        foreach (var (_, bytes) in Messages)
            if (BusMessage.TryParse(bytes, out var m, out _) && m.Type == type) found.Add(bytes);
        return found;
    }
}
