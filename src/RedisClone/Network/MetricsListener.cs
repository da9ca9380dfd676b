using System.Net;
using System.Net.Sockets;
using System.Text;
using RedisClone.Server;

namespace RedisClone.Network;

/// <summary>
/// The Prometheus endpoint (<c>--metrics-port</c>, off by default): a minimal HTTP/1.x server on
/// its own socket that answers <c>GET /metrics</c> with <see cref="MetricsText"/>, one request per
/// connection, then closes.
/// </summary>
/// <remarks>
/// A scrape every few seconds needs no web framework: a listening socket, one request line and its
/// headers (at most 8 KB, within 5 s), one response with Content-Length and "Connection: close".
/// Other paths answer 404, other methods 405. It binds 127.0.0.1 unless <c>--metrics-bind</c> says
/// otherwise: the figures are not secret, but an open port should be asked for.
/// </remarks>
internal sealed class MetricsListener : IDisposable
{
    private const int MaxRequestBytes = 8192;
    private static readonly TimeSpan RequestTimeout = TimeSpan.FromSeconds(5);

    private readonly RedisServer _server;
    private readonly Socket _socket;
    private readonly CancellationTokenSource _stopping = new();

    public MetricsListener(RedisServer server, IPEndPoint endPoint)
    {
        _server = server;
        _socket = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            _socket.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
            _socket.Bind(endPoint);
            _socket.Listen(16);
        }
        catch (SocketException ex)
        {
            _socket.Dispose();
            throw new ListenFailedException(endPoint.Address.ToString(), endPoint.Port, "metrics bind", ex);
        }
    }

    /// <summary>The bound endpoint (its port when 0 was asked for).</summary>
    public IPEndPoint EndPoint => (IPEndPoint)_socket.LocalEndPoint!;

    public void Start() => _ = AcceptLoopAsync();

    private async Task AcceptLoopAsync()
    {
        while (!_stopping.IsCancellationRequested)
        {
            Socket client;
            try
            {
                client = await _socket.AcceptAsync(_stopping.Token);
            }
            catch (OperationCanceledException) { return; }
            catch (ObjectDisposedException) { return; }
            catch (SocketException) { continue; }
            _ = ServeAsync(client);
        }
    }

    private async Task ServeAsync(Socket client)
    {
        using var _ = client;
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(_stopping.Token);
        timeout.CancelAfter(RequestTimeout);
        try
        {
            var buffer = new byte[MaxRequestBytes];
            int length = 0, end;
            while ((end = HeaderEnd(buffer.AsSpan(0, length))) < 0)
            {
                if (length == buffer.Length)
                {
                    await SendAsync(client, "431 Request Header Fields Too Large", "text/plain", "request too large\n"u8.ToArray(), true, timeout.Token);
                    return;
                }
                int n = await client.ReceiveAsync(buffer.AsMemory(length), SocketFlags.None, timeout.Token);
                if (n == 0) return;
                length += n;
            }
            string head = Encoding.ASCII.GetString(buffer, 0, end);
            string[] requestLine = head.Split("\r\n", 2)[0].Split(' ');
            if (requestLine.Length != 3 || !requestLine[2].StartsWith("HTTP/1.", StringComparison.Ordinal))
            {
                await SendAsync(client, "400 Bad Request", "text/plain", "bad request\n"u8.ToArray(), true, timeout.Token);
                return;
            }
            string method = requestLine[0], path = requestLine[1];
            int query = path.IndexOf('?');
            if (query >= 0) path = path[..query];
            if (path != "/metrics")
            {
                await SendAsync(client, "404 Not Found", "text/plain", "not found: the metrics are at /metrics\n"u8.ToArray(), method != "HEAD", timeout.Token);
                return;
            }
            if (method != "GET" && method != "HEAD")
            {
                await SendAsync(client, "405 Method Not Allowed", "text/plain", "use GET\n"u8.ToArray(), true, timeout.Token, allow: true);
                return;
            }
            byte[] body = Encoding.UTF8.GetBytes(MetricsText.Build(_server));
            await SendAsync(client, "200 OK", MetricsText.ContentType, body, method == "GET", timeout.Token);
        }
        catch (OperationCanceledException) { }
        catch (SocketException) { }
        catch (ObjectDisposedException) { }
    }

    /// <summary>Where the request's headers end (after the blank line), or -1.</summary>
    private static int HeaderEnd(ReadOnlySpan<byte> data)
    {
        int i = data.IndexOf("\r\n\r\n"u8);
        return i < 0 ? -1 : i + 4;
    }

    private static async Task SendAsync(Socket client, string status, string contentType, byte[] body, bool withBody,
        CancellationToken token, bool allow = false)
    {
        var head = new StringBuilder();
        head.Append("HTTP/1.1 ").Append(status).Append("\r\n")
            .Append("Content-Type: ").Append(contentType).Append("\r\n")
            .Append("Content-Length: ").Append(body.Length).Append("\r\n");
        if (allow) head.Append("Allow: GET, HEAD\r\n");
        head.Append("Connection: close\r\n\r\n");
        await client.SendAsync(Encoding.ASCII.GetBytes(head.ToString()), SocketFlags.None, token);
        if (withBody) await client.SendAsync(body, SocketFlags.None, token);
        client.Shutdown(SocketShutdown.Send);
    }

    public void Dispose()
    {
        _stopping.Cancel();
        _socket.Dispose();
    }
}
