using System.Net;
using System.Net.Sockets;
using RedisClone.Server;

namespace RedisClone.Network;

/// <summary>Accepts TCP clients on one endpoint and starts a <see cref="ClientConnection"/> for each.</summary>
internal sealed class Listener
{
    private readonly RedisServer _server;
    private readonly Socket _socket;

    public Listener(RedisServer server, IPEndPoint endPoint)
    {
        _server = server;
        _socket = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        _socket.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
        _socket.Bind(endPoint);
        EndPoint = (IPEndPoint)_socket.LocalEndPoint!;
    }

    public IPEndPoint EndPoint { get; }

    public void Start()
    {
        _socket.Listen(511); // redis's tcp-backlog default
        _ = AcceptLoopAsync();
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
                    client.Send("-ERR max number of clients reached\r\n"u8);
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
