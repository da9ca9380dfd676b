using System.Net;
using System.Net.Sockets;
using System.Text;
using RedisClone.Cluster.Bus;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Cluster.Bus;

/// <summary>
/// Bus links over loopback: framing by totlen (split, coalesced, big messages), what frees a link
/// (bad signature, short or huge totlen, send buffer over cluster-link-sendbuf-limit, a failing
/// handler) and what only drops a message (bad version, wrong length).
/// </summary>
public sealed class BusLinkTests : IDisposable
{
    private readonly RecordingHandler _server = new();
    private readonly RecordingHandler _client = new();
    private readonly BusOptions _options = new();
    private readonly BusListener _listener;
    private readonly List<BusLink> _links = [];

    public BusLinkTests()
    {
        _listener = new BusListener(new IPEndPoint(IPAddress.Loopback, 0), _server, _options);
        _listener.Start();
    }

    public void Dispose()
    {
        _listener.Dispose();
        foreach (var link in _links) link.Close();
        foreach (var (link, _) in _server.Messages) link.Close();
        foreach (var link in _server.Inbound) link.Close();
    }

    private static BusHeader Header(ushort port = 7000) => new()
    {
        Port = port, Cport = (ushort)(port + 10000), Sender = NodeName.Random(), Flags = NodeFlags.Master | NodeFlags.Myself,
    };

    private async Task<BusLink> ConnectAsync()
    {
        var result = await BusLink.ConnectAsync("127.0.0.1", _listener.EndPoint.Port, _client, _options, owner: "me");
        Assert.True(result.Link != null, result.Error);
        _links.Add(result.Link!);
        return result.Link!;
    }

    private Socket RawConnect()
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        socket.Connect(_listener.EndPoint);
        return socket;
    }

    [Fact]
    public async Task Link_EveryType_DeliveredInOrder()
    {
        var link = await ConnectAsync();
        Assert.False(link.Inbound);
        Assert.Equal("me", link.Owner);
        var w = new BusMessageWriter();
        var h = Header();
        var sent = new List<byte[]>();
        w.StartPing(BusMessageType.Meet, h);
        w.AddShardId(NodeName.Random());
        sent.Add(w.Finish().ToArray());
        w.StartPing(BusMessageType.Ping, h);
        w.AddGossip(new GossipEntry { Name = NodeName.Random(), Ip = "127.0.0.1", Port = 1, Cport = 2 });
        sent.Add(w.Finish().ToArray());
        sent.Add(w.Fail(h, NodeName.Random()).ToArray());
        sent.Add(w.Publish(h, false, "c"u8, "m"u8).ToArray());
        sent.Add(w.Publish(h, true, "c"u8, "m"u8).ToArray());
        sent.Add(w.HeaderOnly(BusMessageType.FailoverAuthRequest, h).ToArray());
        sent.Add(w.HeaderOnly(BusMessageType.FailoverAuthAck, h).ToArray());
        sent.Add(w.Update(h, 9, NodeName.Random(), new SlotBitmap().Bytes).ToArray());
        sent.Add(w.HeaderOnly(BusMessageType.MfStart, h).ToArray());
        sent.Add(w.Module(h, 1, 2, "x"u8).ToArray());
        foreach (var m in sent) Assert.True(link.Send(m));

        await Eventually.WaitFor(() => _server.Messages.Count == sent.Count, () => $"{_server.Messages.Count} of {sent.Count} messages arrived");
        var received = _server.Messages.ToArray();
        for (int i = 0; i < sent.Count; i++) Assert.Equal(sent[i], received[i].Bytes);
        var inbound = received[0].Link;
        Assert.True(inbound.Inbound);
        Assert.Null(inbound.Owner);
        Assert.Equal(link.LocalEndPoint, inbound.RemoteEndPoint);

        // And back the other way on the accepted link.
        w.StartPing(BusMessageType.Pong, Header(7001));
        Assert.True(inbound.Send(w.Finish()));
        await Eventually.WaitFor(() => _client.OfType(BusMessageType.Pong).Count == 1, () => "no PONG back");
        Assert.Same(link, _client.Messages.Single().Link);
        Assert.Empty(_server.Invalid);
        Assert.Empty(_server.Closed);
    }

    [Fact]
    public async Task Link_ByteByByteAndCoalesced_FramedByTotlen()
    {
        var w = new BusMessageWriter();
        w.StartPing(BusMessageType.Ping, Header());
        w.AddHostname("split"u8);
        var ping = w.Finish().ToArray();
        var update = w.Update(Header(), 1, NodeName.Random(), new SlotBitmap().Bytes).ToArray();
        using var raw = RawConnect();
        foreach (byte b in ping) raw.Send([b]);
        raw.Send([.. update, .. ping, .. update]);
        await Eventually.WaitFor(() => _server.Messages.Count == 4, () => $"{_server.Messages.Count} of 4 messages");
        var got = _server.Messages.Select(m => m.Bytes).ToArray();
        Assert.Equal(ping, got[0]);
        Assert.Equal(update, got[1]);
        Assert.Equal(ping, got[2]);
        Assert.Equal(update, got[3]);
    }

    [Fact]
    public async Task Link_BigPublish_AssembledAndDelivered()
    {
        var link = await ConnectAsync();
        var payload = new byte[3 * 1024 * 1024 + 17];
        new Random(7).NextBytes(payload);
        var w = new BusMessageWriter();
        Assert.True(link.Send(w.Publish(Header(), false, "big"u8, payload)));
        Assert.True(link.Send(w.HeaderOnly(BusMessageType.MfStart, Header())));
        await Eventually.WaitFor(() => _server.Messages.Count == 2, () => $"{_server.Messages.Count} of 2 messages", seconds: 60);
        Assert.True(BusMessage.TryParse(_server.Messages.First().Bytes, out var m, out _));
        Assert.Equal("big", Encoding.ASCII.GetString(m.PublishChannel));
        Assert.True(m.PublishMessage.SequenceEqual(payload));
    }

    [Theory]
    [InlineData("signature")]
    [InlineData("short-totlen")]
    [InlineData("huge-totlen")]
    public async Task Link_BadFrame_LinkFreed(string what)
    {
        _options.MaxMessageLength = 1 << 20;
        var w = new BusMessageWriter();
        w.StartPing(BusMessageType.Ping, Header());
        var bytes = w.Finish().ToArray();
        switch (what)
        {
            case "signature": bytes[1] = (byte)'X'; break;
            case "short-totlen": System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(bytes.AsSpan(4), 2255); break;
            case "huge-totlen": System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(bytes.AsSpan(4), uint.MaxValue); break;
        }
        using var raw = RawConnect();
        raw.Send(bytes[..8]); // the prefix alone decides
        await Eventually.WaitFor(() => !_server.Closed.IsEmpty, () => "link not freed");
        var expected = what == "huge-totlen" ? BusLinkCloseReason.FrameTooLong : BusLinkCloseReason.BadFrame;
        Assert.Equal(expected, _server.Closed.Single().Reason);
        Assert.Empty(_server.Messages);
        raw.ReceiveTimeout = 10_000;
        Assert.Equal(0, raw.Receive(new byte[16])); // closed by the other side
    }

    [Fact]
    public async Task Link_InvalidMessages_DroppedLinkKept()
    {
        var w = new BusMessageWriter();
        var h = Header();
        var badVersion = w.HeaderOnly(BusMessageType.MfStart, h).ToArray();
        badVersion[9] = 2;
        var wrongLength = new byte[2300];
        w.Fail(h, NodeName.Random()).CopyTo(wrongLength);
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(wrongLength.AsSpan(4), 2300);
        w.StartPing(BusMessageType.Ping, h);
        w.AddShardId(NodeName.Random());
        var truncatedExtensions = w.Finish().ToArray();
        System.Buffers.Binary.BinaryPrimitives.WriteUInt16BigEndian(truncatedExtensions.AsSpan(2214), 500);
        var good = w.HeaderOnly(BusMessageType.FailoverAuthAck, h).ToArray();
        using var raw = RawConnect();
        raw.Send([.. badVersion, .. wrongLength, .. truncatedExtensions, .. good]);
        await Eventually.WaitFor(() => _server.Messages.Count == 1, () => "the good message after the bad ones did not arrive");
        Assert.Equal(good, _server.Messages.Single().Bytes);
        Assert.Equal(
            new[] { (8, BusMessageError.BadVersion), (3, BusMessageError.LengthMismatch), (0, BusMessageError.ExtensionOverflow) },
            _server.Invalid.Select(i => ((int)i.Type, i.Error)).ToArray());
        Assert.Empty(_server.Closed);
    }

    [Fact]
    public async Task Link_PeerNotReading_FreedOverSendBufferLimit()
    {
        _options.SendBufferLimit = 256 * 1024;
        using var raw = RawConnect(); // never reads
        raw.ReceiveBufferSize = 4096;
        await Eventually.WaitFor(() => !_server.Inbound.IsEmpty, () => "not accepted");
        var inbound = _server.Inbound.Single();
        var w = new BusMessageWriter();
        var update = w.Update(Header(), 1, NodeName.Random(), new SlotBitmap().Bytes).ToArray();
        int sent = 0;
        // Bounded: the kernel's buffers hold a few MB at most; 50 MB of sends is far past them.
        while (sent < 12_000 && inbound.Send(update)) sent++;
        Assert.True(sent < 12_000, "the send buffer limit never freed the link");
        Assert.False(inbound.IsOpen);
        Assert.False(inbound.Send(update));
        await Eventually.WaitFor(() => !_server.Closed.IsEmpty, () => "no close reported");
        Assert.Equal(BusLinkCloseReason.SendBufferLimit, _server.Closed.Single().Reason);
    }

    [Fact]
    public async Task Link_HandlerThrows_LinkClosedServerLives()
    {
        _server.OnEach = (_, _) => throw new InvalidOperationException("bug in the state");
        var link = await ConnectAsync();
        var w = new BusMessageWriter();
        Assert.True(link.Send(w.HeaderOnly(BusMessageType.MfStart, Header())));
        await Eventually.WaitFor(() => !_server.Closed.IsEmpty, () => "link not closed");
        Assert.Equal(BusLinkCloseReason.HandlerError, _server.Closed.Single().Reason);
        await Eventually.WaitFor(() => !_client.Closed.IsEmpty, () => "the other side did not see the close");
        Assert.Equal(BusLinkCloseReason.PeerClosed, _client.Closed.Single().Reason);
    }

    [Fact]
    public async Task Link_ClosedLocally_ReportedOnce()
    {
        var link = await ConnectAsync();
        link.Close();
        link.Close();
        await Eventually.WaitFor(() => !_client.Closed.IsEmpty, () => "close not reported");
        Assert.False(link.Send(new byte[2256]));
        await Task.Delay(100);
        Assert.Equal(BusLinkCloseReason.Closed, _client.Closed.Single().Reason);
    }

    [Fact]
    public async Task Link_RefusedByHandler_ClosedWithoutCalls()
    {
        _server.Refuse = true;
        using var raw = RawConnect();
        raw.ReceiveTimeout = 10_000;
        Assert.Equal(0, raw.Receive(new byte[16]));
        await Task.Delay(50);
        Assert.Empty(_server.Closed);
    }

    [Fact]
    public async Task Connect_NothingListening_ReturnsError()
    {
        var port = ReferenceRedis.FreePort();
        var result = await BusLink.ConnectAsync("127.0.0.1", port, _client, _options);
        Assert.Null(result.Link);
        Assert.False(string.IsNullOrEmpty(result.Error));
    }

    [Fact]
    public async Task Link_HugeTotlenFewBytes_BufferGrowsOnlyWithWhatArrived()
    {
        // 400 MB claimed (under the cap), 256 KB sent: the buffer must follow the 256 KB, not the claim.
        var w = new BusMessageWriter();
        var prefix = w.HeaderOnly(BusMessageType.MfStart, Header()).ToArray();
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(prefix.AsSpan(4), 400u * 1024 * 1024);
        using var raw = RawConnect();
        raw.Send(prefix);
        raw.Send(new byte[256 * 1024 - prefix.Length]);
        await Eventually.WaitFor(() => !_server.Inbound.IsEmpty, () => "not accepted");
        var inbound = _server.Inbound.Single();
        await Eventually.WaitFor(() => inbound.ReceiveBufferBytes >= 256 * 1024, () => $"assembled {inbound.ReceiveBufferBytes} bytes");
        Assert.InRange(inbound.ReceiveBufferBytes, 256 * 1024, 1024 * 1024);
        Assert.Empty(_server.Messages);
        Assert.True(inbound.IsOpen);
    }
}
