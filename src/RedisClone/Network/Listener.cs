using System.Net;
using System.Net.Sockets;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Network;

/// <summary>Accepts TCP clients on one endpoint and starts a <see cref="ClientConnection"/> for each.</summary>
internal sealed class Listener
{
    private readonly RedisServer _server;
    private readonly Socket _socket;

    /// <summary>Binds and listens on <paramref name="endPoint"/>; <paramref name="address"/> is the
    /// address as configured, for the error message.</summary>
    /// <exception cref="ListenFailedException">The address cannot be bound (in use, not available).</exception>
    public Listener(RedisServer server, string address, IPEndPoint endPoint)
    {
        _server = server;
        _socket = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        string step = "bind";
        try
        {
            AllowRebindDuringTimeWait(_socket);
            _socket.Bind(endPoint);
            step = "listen";
            _socket.Listen(511); // redis's tcp-backlog default
        }
        catch (SocketException ex)
        {
            _socket.Dispose();
            throw new ListenFailedException(address, endPoint.Port, step, ex);
        }
        EndPoint = (IPEndPoint)_socket.LocalEndPoint!;
    }

    public IPEndPoint EndPoint { get; }

    public void Start() => _ = AcceptLoopAsync();

    /// <summary>
    /// Plain SO_REUSEADDR, as redis-server sets it: a restarted server can bind while its old
    /// connections sit in TIME_WAIT, but a second server on a port in use fails. .NET's
    /// <c>SocketOptionName.ReuseAddress</c> is not that: on Linux it sets SO_REUSEPORT as well, which
    /// lets two processes bind one port and splits clients between two keyspaces. On Windows
    /// SO_REUSEADDR would allow stealing a bound port, and exclusive binding is already the default.
    /// (.NET's bind on Linux was seen to allow the TIME_WAIT case without this too; setting it says so
    /// here instead of depending on that.)
    /// </summary>
    private static void AllowRebindDuringTimeWait(Socket socket)
    {
        if (OperatingSystem.IsLinux())
            socket.SetRawSocketOption(1 /* SOL_SOCKET */, 2 /* SO_REUSEADDR */, BitConverter.GetBytes(1));
        else if (OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD())
            socket.SetRawSocketOption(0xffff /* SOL_SOCKET */, 4 /* SO_REUSEADDR */, BitConverter.GetBytes(1));
    }

    public void Stop()
    {
        try { _socket.Close(); } catch (ObjectDisposedException) { }
    }

    private async Task AcceptLoopAsync()
    {
        while (!_server.StoppingToken.IsCancellationRequested)
        {
            Socket client;
            try
            {
                client = await _socket.AcceptAsync(_server.StoppingToken);
            }
            catch (Exception) when (_server.StoppingToken.IsCancellationRequested)
            {
                return;
            }
            catch (SocketException)
            {
                continue;
            }
            catch (ObjectDisposedException)
            {
                return;
            }
            Interlocked.Increment(ref _server.Stats.TotalConnectionsReceived);
            if (_server.Clients.Count >= _server.Options.MaxClients)
            {
                Interlocked.Increment(ref _server.Stats.RejectedConnections);
                try
                {
                    client.Send(RespErrors.MaxClients);
                    client.Close();
                }
                catch (SocketException) { }
                continue;
            }
            client.NoDelay = true;
            _ = ClientConnection.ServeAsync(_server, client);
        }
    }
}
