using System.Buffers;
using System.Buffers.Binary;
using System.IO.Pipelines;
using System.Net;
using System.Net.Security;
using System.Security.Authentication;
using System.Net.Sockets;
using Pipelines.Sockets.Unofficial;

namespace RedisClone.Cluster.Bus;

/// <summary>
/// One TCP connection of the cluster bus (Redis's clusterLink): outgoing to a node's bus port
/// (<see cref="ConnectAsync"/>) or accepted by <see cref="BusListener"/>. It frames what arrives
/// by totlen and hands each message to the <see cref="IBusHandler"/>, and queues what the node
/// sends.
/// </summary>
/// <remarks>
/// <para>Receiving, as Redis's clusterReadHandler: the first 8 bytes (signature and totlen) are
/// checked before the rest is read; a wrong signature or a totlen shorter than a header frees the
/// link; a message that fails the content checks is dropped and the link stays. A message up to 64
/// KB waits in the receive pipe until whole, and is handed over in place when it sits in one
/// segment (copied into a pooled buffer otherwise). A bigger one (a PUBLISH of a big payload) is
/// moved out of the pipe as it arrives into a buffer that grows with the bytes received, as
/// Redis's rcvbuf does, never sized from the claimed totlen, and dropped once handled; totlen
/// above <see cref="BusOptions.MaxMessageLength"/> frees the link. The pipe pauses the socket at
/// 1 MB, so a peer that floods a slow handler is held back by TCP.</para>
/// <para>Sending: <see cref="Send"/> copies the message into the send pipe from any thread; the
/// socket's send loop writes it. The bytes queued and not yet sent are the link's send buffer;
/// over cluster-link-sendbuf-limit the link is freed (Redis checks this in its cron; here each
/// send does).</para>
/// <para>TLS (tls-cluster): the same pipes over an <see cref="SslStream"/> whose handshake is done
/// before the link exists (<see cref="BusOptions.ClientTls"/> for outgoing links, the listener's
/// <see cref="BusOptions.ServerTls"/> for accepted ones); the send buffer then counts plaintext.</para>
/// <para>Not here yet: Redis's bind_source_addr for outgoing links.</para>
/// </remarks>
internal sealed class BusLink
{
    private const int Segment = 16 * 1024;

    /// <summary>Messages up to this size wait in the receive pipe until whole; bigger ones are assembled in a buffer of their own.</summary>
    private const int AssembleAbove = 64 * 1024;

    private static readonly PipeOptions ReceiveOptions = new(
        pauseWriterThreshold: 1 << 20, resumeWriterThreshold: 1 << 19,
        readerScheduler: PipeScheduler.ThreadPool, writerScheduler: PipeScheduler.ThreadPool,
        minimumSegmentSize: Segment, useSynchronizationContext: false);

    // No pause: a send never waits. What piles up is measured against cluster-link-sendbuf-limit instead.
    private static readonly PipeOptions SendOptions = new(
        pauseWriterThreshold: 0, resumeWriterThreshold: 0,
        readerScheduler: PipeScheduler.ThreadPool, writerScheduler: PipeScheduler.Inline,
        minimumSegmentSize: Segment, useSynchronizationContext: false);

    private readonly Socket _socket;
    private readonly IMeasuredDuplexPipe _connection; // a SocketConnection, or the stream pipes over _ssl
    private readonly SslStream? _ssl;
    private readonly IBusHandler _handler;
    private readonly BusOptions _options;
    private readonly Lock _sendLock = new();
    private long _queued; // bytes handed to the send pipe (under _sendLock)
    private bool _closed; // under _sendLock
    private BusLinkCloseReason? _closeReason; // set by Close, under _sendLock
    private object? _owner;
    private int _started;

    // A big message being assembled (receive loop only).
    private byte[]? _assembly;
    private int _assembled;
    private uint _assemblyTotal;

    private BusLink(Socket socket, SslStream? ssl, bool inbound, IBusHandler handler, BusOptions options)
    {
        _socket = socket;
        _ssl = ssl;
        _handler = handler;
        _options = options;
        Inbound = inbound;
        CreatedAtMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        RemoteEndPoint = Plain(socket.RemoteEndPoint as IPEndPoint);
        LocalEndPoint = Plain(socket.LocalEndPoint as IPEndPoint);
        _connection = ssl == null
            ? SocketConnection.Create(socket, SendOptions, ReceiveOptions)
            : (IMeasuredDuplexPipe)StreamConnection.GetDuplex(ssl, SendOptions, ReceiveOptions);
    }

    /// <summary>True when the link runs over TLS (tls-cluster).</summary>
    public bool IsTls => _ssl != null;

    /// <summary>An IPv4 address as such, not mapped into IPv6 (an outgoing socket is dual-mode): the text Redis would show.</summary>
    private static IPEndPoint? Plain(IPEndPoint? endPoint)
        => endPoint is { Address.IsIPv4MappedToIPv6: true } ? new IPEndPoint(endPoint.Address.MapToIPv4(), endPoint.Port) : endPoint;

    /// <summary>Accepted from a peer (Redis's link->inbound); false for a link this node opened.</summary>
    public bool Inbound { get; }

    /// <summary>When the link was made, Unix milliseconds (CLUSTER LINKS create-time).</summary>
    public long CreatedAtMs { get; }

    /// <summary>The peer's address: what Redis takes as a node's ip when its myip is empty.</summary>
    public IPEndPoint? RemoteEndPoint { get; }

    /// <summary>This side's address: Redis learns its own ip from the socket a MEET arrived on.</summary>
    public IPEndPoint? LocalEndPoint { get; }

    /// <summary>What the state attaches to the link (Redis's link->node); any thread.</summary>
    public object? Owner
    {
        get => Volatile.Read(ref _owner);
        set => Volatile.Write(ref _owner, value);
    }

    /// <summary>Bytes queued and not yet sent (CLUSTER LINKS send-buffer-used; the cluster-link-sendbuf-limit measure).</summary>
    public long SendQueueBytes
    {
        get
        {
            lock (_sendLock) return _closed ? 0 : Math.Max(0, _queued - _connection.TotalBytesSent);
        }
    }

    /// <summary>
    /// The buffer a big message is being assembled in (0 when none): with <see cref="SendQueueBytes"/>,
    /// what the link holds for INFO's mem_cluster_links (Redis counts its rcvbuf there). It grows with
    /// the bytes received, never with what a peer's totlen claims.
    /// </summary>
    public long ReceiveBufferBytes => Volatile.Read(ref _assembly)?.Length ?? 0;

    /// <summary>False once the link is closing or closed.</summary>
    public bool IsOpen
    {
        get
        {
            lock (_sendLock) return !_closed;
        }
    }

    /// <summary>
    /// Connects to a node's bus port. The link's receive loop starts with <paramref name="owner"/>
    /// already attached, so the first message cannot find it unowned. On failure, the reason.
    /// </summary>
    public static async Task<BusConnectResult> ConnectAsync(string host, int port, IBusHandler handler, BusOptions options,
        object? owner = null, CancellationToken cancellationToken = default)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        using (var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken))
        {
            timeout.CancelAfter(options.ConnectTimeout);
            try
            {
                await socket.ConnectAsync(host, port, timeout.Token).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is SocketException or OperationCanceledException or ArgumentException)
            {
                socket.Dispose();
                return new BusConnectResult(null, ex is OperationCanceledException ? "Connection timed out" : ex.Message);
            }
        }
        SslStream? ssl = null;
        if (options.ClientTls?.Invoke(host) is { } tls)
        {
            ssl = new SslStream(new NetworkStream(socket, ownsSocket: false), leaveInnerStreamOpen: false);
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            timeout.CancelAfter(options.ConnectTimeout);
            try
            {
                await ssl.AuthenticateAsClientAsync(tls, timeout.Token).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is AuthenticationException or IOException or OperationCanceledException)
            {
                await ssl.DisposeAsync().ConfigureAwait(false);
                socket.Dispose();
                return new BusConnectResult(null, ex is OperationCanceledException ? "TLS handshake timed out" : ex.Message);
            }
        }
        var link = new BusLink(socket, ssl, inbound: false, handler, options) { Owner = owner };
        link.Start();
        return new BusConnectResult(link, null);
    }

    /// <summary>An accepted connection (<see cref="BusListener"/>), its TLS handshake done when <paramref name="ssl"/> is given; not started until the handler took it.</summary>
    internal static BusLink Accepted(Socket socket, SslStream? ssl, IBusHandler handler, BusOptions options)
        => new(socket, ssl, inbound: true, handler, options);

    /// <summary>Starts the receive loop (once).</summary>
    internal void Start()
    {
        if (Interlocked.Exchange(ref _started, 1) == 0) _ = Task.Run(ReceiveLoopAsync);
    }

    /// <summary>An accepted connection the handler refused: closed without any call.</summary>
    internal void Refuse()
    {
        lock (_sendLock) _closed = true;
        try { _socket.Shutdown(SocketShutdown.Both); } catch (Exception) { }
        Dispose();
    }

    private void Dispose()
    {
        (_connection as IDisposable)?.Dispose();
        _ssl?.Dispose();
        _socket.Dispose();
    }

    /// <summary>
    /// Queues a whole message (see <see cref="BusMessageWriter"/>) for sending; any thread. False
    /// when the link is closed, or was just closed because its send buffer went over the limit.
    /// </summary>
    public bool Send(ReadOnlySpan<byte> message)
    {
        long pending;
        ValueTask<FlushResult> flush;
        lock (_sendLock)
        {
            if (_closed) return false;
            _connection.Output.Write(message);
            _queued += message.Length;
            flush = _connection.Output.FlushAsync();
            pending = _queued - _connection.TotalBytesSent;
        }
        if (flush.IsCompletedSuccessfully) _ = flush.Result;
        else _ = ObserveAsync(flush); // the pipe never pauses, so only a failed send loop gets here
        long limit = _options.SendBufferLimit;
        if (limit > 0 && pending > limit)
        {
            Close(BusLinkCloseReason.SendBufferLimit);
            return false;
        }
        return true;
    }

    private static async Task ObserveAsync(ValueTask<FlushResult> flush)
    {
        try { await flush.ConfigureAwait(false); } catch (Exception) { }
    }

    /// <summary>Closes the link (Redis's freeClusterLink); <see cref="IBusHandler.OnLinkClosed"/> follows from the receive loop.</summary>
    public void Close() => Close(BusLinkCloseReason.Closed);

    private void Close(BusLinkCloseReason reason)
    {
        lock (_sendLock)
        {
            if (_closed) return;
            _closed = true;
            _closeReason = reason;
        }
        try { _socket.Shutdown(SocketShutdown.Both); } catch (Exception) { }
        // Wakes a receive loop waiting for bytes that will not come.
        try { _connection.Input.CancelPendingRead(); } catch (Exception) { }
    }

    private async Task ReceiveLoopAsync()
    {
        var reason = BusLinkCloseReason.PeerClosed;
        var input = _connection.Input;
        try
        {
            while (true)
            {
                var result = await input.ReadAsync().ConfigureAwait(false);
                var buffer = result.Buffer;
                var outcome = Consume(ref buffer);
                if (outcome != null)
                {
                    reason = outcome.Value;
                    break;
                }
                input.AdvanceTo(buffer.Start, buffer.End);
                if (result.IsCompleted || result.IsCanceled) break;
            }
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            reason = BusLinkCloseReason.IoError;
            Log(BusLogLevel.Debug, $"I/O error reading from node link: {ex.Message}");
        }
        lock (_sendLock)
        {
            _closed = true;
            if (_closeReason is { } requested) reason = requested;
        }
        try { _socket.Shutdown(SocketShutdown.Both); } catch (Exception) { }
        try { input.Complete(); } catch (Exception) { }
        try { _connection.Output.Complete(); } catch (Exception) { }
        Dispose();
        _assembly = null;
        try
        {
            _handler.OnLinkClosed(this, reason);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            Log(BusLogLevel.Warning, $"Cluster bus handler failed on a closed link: {ex}");
        }
    }

    /// <summary>
    /// Handles every whole message at the start of <paramref name="buffer"/>, leaving it at the first
    /// byte not consumed. Null to read on; otherwise the reason the link must go.
    /// </summary>
    private BusLinkCloseReason? Consume(ref ReadOnlySequence<byte> buffer)
    {
        while (true)
        {
            if (_assembly != null)
            {
                long take = Math.Min(_assemblyTotal - (long)_assembled, buffer.Length);
                GrowAssembly(_assembled + (int)take);
                buffer.Slice(0, take).CopyTo(_assembly.AsSpan(_assembled));
                _assembled += (int)take;
                buffer = buffer.Slice(take);
                if (_assembled < _assemblyTotal) return null;
                var whole = _assembly;
                _assembly = null; // given back to the GC once handled, as Redis shrinks its rcvbuf
                var r = Process(whole.AsSpan(0, _assembled));
                if (r != null) return r;
                continue;
            }
            var status = BusFrame.ReadPrefix(buffer, _options.MaxMessageLength, out uint totlen);
            if (status == BusFrameStatus.NeedMore) return null;
            if (status == BusFrameStatus.BadSignatureOrLength)
            {
                Log(BusLogLevel.Warning, RemoteEndPoint is { } peer
                    ? $"Bad message length or signature received on the Cluster bus from {peer.Address}:{peer.Port}"
                    : "Bad message length or signature received on the Cluster bus.");
                return BusLinkCloseReason.BadFrame;
            }
            if (status == BusFrameStatus.TooLong)
            {
                Log(BusLogLevel.Warning, $"Cluster bus message of {totlen} bytes over the limit of {_options.MaxMessageLength} from {RemoteEndPoint}");
                return BusLinkCloseReason.FrameTooLong;
            }
            if (buffer.Length >= totlen)
            {
                var frame = buffer.Slice(0, totlen);
                BusLinkCloseReason? r;
                if (frame.IsSingleSegment)
                {
                    r = Process(frame.FirstSpan);
                }
                else
                {
                    var scratch = ArrayPool<byte>.Shared.Rent((int)totlen);
                    frame.CopyTo(scratch);
                    r = Process(scratch.AsSpan(0, (int)totlen));
                    ArrayPool<byte>.Shared.Return(scratch);
                }
                buffer = buffer.Slice(totlen);
                if (r != null) return r;
                continue;
            }
            if (totlen <= AssembleAbove) return null;
            _assemblyTotal = totlen;
            _assembled = 0;
            _assembly = new byte[(int)Math.Min(totlen, Math.Max(AssembleAbove, buffer.Length))];
        }
    }

    /// <summary>Grows the assembly buffer to hold <paramref name="needed"/> bytes: doubling below 1 MB, by 1 MB above (Redis's rcvbuf), never past totlen.</summary>
    private void GrowAssembly(int needed)
    {
        if (needed <= _assembly!.Length) return;
        long size = needed < (1 << 20) ? (long)needed * 2 : needed + (1L << 20);
        var bigger = new byte[(int)Math.Min(size, _assemblyTotal)];
        _assembly.AsSpan(0, _assembled).CopyTo(bigger);
        _assembly = bigger;
    }

    private BusLinkCloseReason? Process(ReadOnlySpan<byte> bytes)
    {
        try
        {
            if (!BusMessage.TryParse(bytes, out var message, out var error))
            {
                ushort type = BinaryPrimitives.ReadUInt16BigEndian(bytes[BusLayout.TypeOffset..]);
                if (error != BusMessageError.BadVersion) // Redis drops those silently
                    Log(BusLogLevel.Warning, $"Received invalid {BusMessage.TypeName(type)} packet of length {bytes.Length} ({error})");
                _handler.OnInvalidMessage(this, type, error);
                return null;
            }
            _handler.OnMessage(this, in message);
            return null;
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            Log(BusLogLevel.Warning, $"Cluster bus handler failed, closing the link with {RemoteEndPoint}: {ex}");
            return BusLinkCloseReason.HandlerError;
        }
    }

    private void Log(BusLogLevel level, string text) => _options.Log?.Invoke(level, text);

    public override string ToString() => $"{(Inbound ? "from" : "to")} {RemoteEndPoint}";
}
