using System.Net;
using System.Net.Sockets;
using System.Text;

namespace RedisClone.Tests.Clients;

/// <summary>
/// A loopback TCP relay in front of a server that can run an action at one precise moment: just
/// before it forwards a client's MULTI. StackExchange.Redis sends WATCH and its condition checks,
/// waits for their replies, then sends MULTI ... EXEC; the action lands in that gap, as another
/// client's write between WATCH and EXEC would, so a transaction can be made to abort on purpose.
/// </summary>
internal sealed class BeforeMultiRelay : IDisposable
{
    private static readonly byte[] Multi = Encoding.ASCII.GetBytes("*1\r\n$5\r\nMULTI\r\n");

    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly int _target;
    private readonly CancellationTokenSource _stop = new();
    private Func<Task>? _beforeNextMulti;

    public BeforeMultiRelay(int targetPort)
    {
        _target = targetPort;
        _listener.Start();
        _ = AcceptLoop();
    }

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    /// <summary>Runs <paramref name="action"/> (once) before the next MULTI any client sends is forwarded.</summary>
    public void BeforeNextMulti(Func<Task> action) => Volatile.Write(ref _beforeNextMulti, action);

    private async Task AcceptLoop()
    {
        try
        {
            while (!_stop.IsCancellationRequested)
            {
                var client = await _listener.AcceptTcpClientAsync(_stop.Token);
                var server = new TcpClient();
                await server.ConnectAsync(IPAddress.Loopback, _target, _stop.Token);
                _ = ToServer(client.GetStream(), server.GetStream()).ContinueWith(_ => { client.Dispose(); server.Dispose(); });
                _ = Pump(server.GetStream(), client.GetStream()).ContinueWith(_ => { client.Dispose(); server.Dispose(); });
            }
        }
        catch (Exception e) when (e is OperationCanceledException or ObjectDisposedException or SocketException)
        {
        }
    }

    private async Task Pump(Stream from, Stream to)
    {
        var buffer = new byte[16 * 1024];
        int n;
        while ((n = await from.ReadAsync(buffer, _stop.Token)) > 0) await to.WriteAsync(buffer.AsMemory(0, n), _stop.Token);
    }

    /// <summary>
    /// Forwards what the client sends, holding back a tail that could be the start of a MULTI split
    /// across two reads (a complete command never ends that way, so nothing is held for long).
    /// </summary>
    private async Task ToServer(Stream from, Stream to)
    {
        var pending = new List<byte>();
        var buffer = new byte[16 * 1024];
        int n;
        while ((n = await from.ReadAsync(buffer, _stop.Token)) > 0)
        {
            pending.AddRange(buffer.AsSpan(0, n));
            byte[] data = [.. pending];
            pending.Clear();
            int at = data.AsSpan().IndexOf(Multi);
            var action = at >= 0 ? Interlocked.Exchange(ref _beforeNextMulti, null) : null;
            if (action != null)
            {
                await to.WriteAsync(data.AsMemory(0, at), _stop.Token);
                await action();
                await to.WriteAsync(data.AsMemory(at), _stop.Token);
                continue;
            }
            int keep = HeldBack(data);
            await to.WriteAsync(data.AsMemory(0, data.Length - keep), _stop.Token);
            pending.AddRange(data.AsSpan(data.Length - keep));
        }
    }

    private static int HeldBack(byte[] data)
    {
        for (int len = Math.Min(Multi.Length - 1, data.Length); len > 0; len--)
            if (data.AsSpan(data.Length - len).SequenceEqual(Multi.AsSpan(0, len))) return len;
        return 0;
    }

    public void Dispose()
    {
        _stop.Cancel();
        _listener.Stop();
    }
}
