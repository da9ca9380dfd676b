using System.Net;
using System.Net.Security;
using System.Net.Sockets;

namespace RedisClone.Cluster.Bus;

/// <summary>
/// Accepts connections on the cluster bus port (port + 10000, or cluster-port) for one bind
/// address, as Redis's clusterAcceptHandler: no delay, TCP keepalive, then a link without a node
/// handed to <see cref="IBusHandler.OnInboundLink"/>. A node listens on each of its bind
/// addresses with one listener each.
/// </summary>
/// <remarks>An accept that fails (out of descriptors) is retried after 100 ms, logged at verbose as
/// Redis does, instead of spinning. Under tls-cluster (<see cref="BusOptions.ServerTls"/>) the TLS
/// handshake comes first, off the accept loop, bounded by the connect timeout; a failed one is logged
/// at verbose, as Redis's clusterConnAcceptHandler logs it, and the connection dropped.</remarks>
internal sealed class BusListener : IDisposable
{
    private readonly Socket _socket;
    private readonly IBusHandler _handler;
    private readonly BusOptions _options;
    private readonly CancellationTokenSource _stop = new();
    private Task _loop = Task.CompletedTask;

    /// <summary>Binds and listens; a SocketException says why it could not (the caller reports it as Redis does).</summary>
    public BusListener(IPEndPoint endPoint, IBusHandler handler, BusOptions options)
    {
        _handler = handler;
        _options = options;
        _socket = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            if (endPoint.AddressFamily == AddressFamily.InterNetworkV6) _socket.DualMode = false;
            Common.SocketSetup.AllowRebindDuringTimeWait(_socket);
            _socket.Bind(endPoint);
            _socket.Listen(511);
        }
        catch
        {
            _socket.Dispose();
            throw;
        }
        EndPoint = (IPEndPoint)_socket.LocalEndPoint!;
    }

    /// <summary>The bound address and port.</summary>
    public IPEndPoint EndPoint { get; }

    /// <summary>Completes once the accept loop has stopped.</summary>
    public Task Completion => _loop;

    public void Start() => _loop = Task.Run(AcceptLoopAsync);

    private async Task AcceptLoopAsync()
    {
        var token = _stop.Token;
        while (!token.IsCancellationRequested)
        {
            Socket socket;
            try
            {
                socket = await _socket.AcceptAsync(token).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException)
            {
                break;
            }
            catch (SocketException ex)
            {
                _options.Log?.Invoke(BusLogLevel.Verbose, $"Error accepting cluster node: {ex.Message}");
                try { await Task.Delay(100, token).ConfigureAwait(false); } catch (OperationCanceledException) { break; }
                continue;
            }
            Accept(socket);
        }
    }

    private void Accept(Socket socket)
    {
        try
        {
            socket.NoDelay = true;
            Common.SocketSetup.KeepAlive(socket, _options.KeepAliveSeconds);
        }
        catch (Exception ex) when (ex is SocketException or ObjectDisposedException)
        {
            socket.Dispose();
            return;
        }
        if (_options.ServerTls?.Invoke() is { } tls) _ = AcceptTlsAsync(socket, tls);
        else Hand(socket, null);
    }

    private async Task AcceptTlsAsync(Socket socket, SslServerAuthenticationOptions tls)
    {
        var ssl = new SslStream(new NetworkStream(socket, ownsSocket: false), leaveInnerStreamOpen: false);
        using (var timeout = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token))
        {
            timeout.CancelAfter(_options.ConnectTimeout);
            try
            {
                await ssl.AuthenticateAsServerAsync(tls, timeout.Token).ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is not OutOfMemoryException)
            {
                _options.Log?.Invoke(BusLogLevel.Verbose, $"Error accepting cluster node connection: {ex.Message}");
                await ssl.DisposeAsync().ConfigureAwait(false);
                socket.Dispose();
                return;
            }
        }
        Hand(socket, ssl);
    }

    /// <summary>Makes the link and offers it to the handler.</summary>
    private void Hand(Socket socket, SslStream? ssl)
    {
        BusLink link;
        try
        {
            link = BusLink.Accepted(socket, ssl, _handler, _options);
        }
        catch (Exception ex) when (ex is SocketException or ObjectDisposedException)
        {
            ssl?.Dispose();
            socket.Dispose();
            return;
        }
        if (link.RemoteEndPoint is { } peer)
            _options.Log?.Invoke(BusLogLevel.Verbose, $"Accepting cluster node connection from {peer.Address}:{peer.Port}");
        bool keep;
        try
        {
            keep = _handler.OnInboundLink(link);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            _options.Log?.Invoke(BusLogLevel.Warning, $"Cluster bus handler failed on an accepted link: {ex}");
            keep = false;
        }
        if (keep) link.Start();
        else link.Refuse();
    }

    /// <summary>Stops accepting; links already made stay (their owner closes them).</summary>
    public void Dispose()
    {
        try { _stop.Cancel(); } catch (ObjectDisposedException) { }
        _socket.Dispose();
    }
}
