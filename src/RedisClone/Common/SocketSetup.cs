using System.Net.Sockets;

namespace RedisClone.Common;

/// <summary>The socket options redis-server sets on its listeners and accepted connections, shared by the client port and the cluster bus.</summary>
internal static class SocketSetup
{
    /// <summary>
    /// Plain SO_REUSEADDR, as redis-server sets it: a restarted server can bind while its old
    /// connections sit in TIME_WAIT, but a second server on a port in use fails. .NET's
    /// <c>SocketOptionName.ReuseAddress</c> is not that: on Linux it sets SO_REUSEPORT as well, which
    /// lets two processes bind one port and splits clients between two keyspaces. On Windows
    /// SO_REUSEADDR would allow stealing a bound port, and exclusive binding is already the default.
    /// (.NET's bind on Linux was seen to allow the TIME_WAIT case without this too; setting it says so
    /// here instead of depending on that.)
    /// </summary>
    public static void AllowRebindDuringTimeWait(Socket socket)
    {
        if (OperatingSystem.IsLinux())
            socket.SetRawSocketOption(1 /* SOL_SOCKET */, 2 /* SO_REUSEADDR */, BitConverter.GetBytes(1));
        else if (OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD())
            socket.SetRawSocketOption(0xffff /* SOL_SOCKET */, 4 /* SO_REUSEADDR */, BitConverter.GetBytes(1));
    }

    /// <summary>
    /// Redis's anetKeepAlive: TCP keepalive probes after <paramref name="seconds"/> of silence, then
    /// every third of that (at least one second), three of them before the connection is dropped.
    /// A value the kernel refuses (TCP_KEEPIDLE over 32767 on Linux) leaves the defaults, as Redis
    /// ignores the failure too.
    /// </summary>
    public static void KeepAlive(Socket socket, long seconds)
    {
        if (seconds <= 0) return;
        try
        {
            socket.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.KeepAlive, true);
            socket.SetSocketOption(SocketOptionLevel.Tcp, SocketOptionName.TcpKeepAliveTime, (int)Math.Min(seconds, int.MaxValue));
            socket.SetSocketOption(SocketOptionLevel.Tcp, SocketOptionName.TcpKeepAliveInterval, (int)Math.Max(1, Math.Min(seconds / 3, int.MaxValue)));
            socket.SetSocketOption(SocketOptionLevel.Tcp, SocketOptionName.TcpKeepAliveRetryCount, 3);
        }
        catch (SocketException)
        {
        }
    }
}
