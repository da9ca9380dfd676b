using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using RedisClone.Network.Epoll;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Network;

/// <summary>Accepts clients on one endpoint (TCP, or a Unix socket) and starts a <see cref="ClientConnection"/> for each.</summary>
/// <remarks>
/// <para>One thread per listener blocks in accept and hands each client to an event loop (or to
/// .NET's socket engine). Accepting never spins: when accept fails for want of resources (EMFILE:
/// the process is out of descriptors; ENFILE: the system is; ENOBUFS, ENOMEM) the connection stays
/// in the kernel's backlog and the thread sleeps before trying again, 10 ms at first, doubling up
/// to 100 ms while the failures last. The clients already connected are served meanwhile by their
/// event loops, and the first attempt after one of them has gone accepts the waiting connection.
/// On Linux a failed attempt allocates nothing (accept4 returns errno; no exception).</para>
/// <para>Why a thread of its own and not an asynchronous accept retried from a timer: with no
/// descriptor left, the runtime cannot start a thread (it needs a pipe for it, and reports
/// OutOfMemoryException, which on the runtime's own threads ends the process), and a timer callback
/// may need a new thread-pool thread. Everything the back-off needs exists before the first
/// failure. (Before, an accept that threw on EMFILE was retried at once: a core spun, and the
/// process aborted with "Out of memory." within seconds.)</para>
/// <para>maxclients is fitted to the open-files limit at start-up (<see cref="OpenFilesLimit"/>),
/// so a client over it is accepted and told <c>-ERR max number of clients reached</c> before the
/// descriptors run out; the back-off covers the rest: descriptors the process opened for other
/// things, or a limit lowered while it runs.</para>
/// </remarks>
internal sealed class Listener
{
    private const int FirstBackoffMs = 10, MaxBackoffMs = 100;

    /// <summary>Redis logs every failed accept; while the failures last, one line in this long is enough.</summary>
    private const long LogIntervalMs = 10_000;

    private readonly RedisServer _server;
    private readonly Socket _socket;
    private readonly Thread _thread;
    private readonly ManualResetEventSlim _stopping = new();
    private long _nextLogAt;
    private int _lastErrno; // accept thread only

    /// <summary>Binds and listens on <paramref name="endPoint"/>; <paramref name="address"/> is the
    /// address as configured, for the error message.</summary>
    /// <exception cref="ListenFailedException">The address cannot be bound (in use, not available).</exception>
    /// <param name="tls">The TLS port: clients handshake first (<see cref="ClientConnection.ServeTlsAsync"/>).</param>
    public Listener(RedisServer server, string address, IPEndPoint endPoint, bool tls = false)
    {
        _server = server;
        Tls = tls;
        _socket = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        string step = "bind";
        try
        {
            Common.SocketSetup.AllowRebindDuringTimeWait(_socket);
            _socket.Bind(endPoint);
            step = "listen";
            _socket.Listen(511); // redis's tcp-backlog default
        }
        catch (SocketException ex)
        {
            _socket.Dispose();
            throw new ListenFailedException(address, endPoint.Port, step, ex) { Tls = tls };
        }
        _local = _socket.LocalEndPoint!;
        _thread = new Thread(AcceptLoop) { IsBackground = true, Name = $"accept-{EndPoint.Port}" };
    }

    /// <summary>
    /// A Unix socket at <paramref name="path"/> (unixsocket), as Redis's connUnixListen makes it:
    /// whatever is at the path is removed first (a file a killed server left behind), and the socket
    /// file gets <paramref name="permissions"/> (unixsocketperm; 0 leaves what the umask gave).
    /// </summary>
    /// <exception cref="ListenFailedException">Redis's reason, e.g. <c>bind: Permission denied</c>.</exception>
    public Listener(RedisServer server, string path, int permissions)
    {
        _server = server;
        // Redis's anetUnixServer: sun_path holds 108 bytes, the last one the terminating zero.
        const int SunPath = 108;
        int length = System.Text.Encoding.UTF8.GetByteCount(path);
        if (length > SunPath - 1)
            throw new ListenFailedException($"unix socket path too long ({length}), must be under {SunPath}");
        try { File.Delete(path); } catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { } // as Redis: don't care
        _socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        string step = "bind";
        try
        {
            _socket.Bind(new UnixDomainSocketEndPoint(path));
            if (permissions != 0 && !OperatingSystem.IsWindows()) File.SetUnixFileMode(path, (UnixFileMode)permissions);
            step = "listen";
            _socket.Listen(511);
        }
        catch (SocketException ex)
        {
            _socket.Dispose();
            throw new ListenFailedException($"{step}: {ex.Message}");
        }
        UnixPath = path;
        _local = new UnixDomainSocketEndPoint(path);
        _thread = new Thread(AcceptLoop) { IsBackground = true, Name = "accept-unix" };
    }

    private readonly EndPoint _local;

    /// <summary>The bound address and port of a TCP listener (not for a Unix socket's).</summary>
    public IPEndPoint EndPoint => (IPEndPoint)_local;

    /// <summary>The socket file's path for a Unix socket listener; null for TCP.</summary>
    public string? UnixPath { get; }

    /// <summary>True for a tls-port listener.</summary>
    public bool Tls { get; }

    public void Start() => _thread.Start();

    /// <summary>Stops accepting and closes the listening socket; the accept thread has ended when this returns.</summary>
    public void Stop()
    {
        if (_stopping.IsSet) return;
        _stopping.Set();
        if (OperatingSystem.IsLinux() && _thread.IsAlive)
        {
            // Closing a descriptor does not wake a thread blocked in accept on it; shutting a listening
            // socket down does (accept fails with EINVAL). The thread is gone before the descriptor
            // is closed, so it never accepts on a number the kernel has given to something else.
            try { _socket.Shutdown(SocketShutdown.Both); } catch (SocketException) { }
            _thread.Join(2000);
        }
        try { _socket.Close(); } catch (ObjectDisposedException) { } // elsewhere this ends a blocked Accept
    }

    private void AcceptLoop()
    {
        int backoffMs = 0;
        while (!_stopping.IsSet)
        {
            var (client, error) = Accept();
            if (client != null)
            {
                backoffMs = 0;
                Admit(client);
                continue;
            }
            if (_stopping.IsSet || error is SocketError.Shutdown or SocketError.OperationAborted) return;
            // That one connection was reset before we took it (ECONNABORTED), or a signal came: go on.
            if (error is SocketError.ConnectionAborted or SocketError.ConnectionReset or SocketError.Interrupted) continue;
            LogFailure(error);
            backoffMs = backoffMs == 0 ? FirstBackoffMs : Math.Min(backoffMs * 2, MaxBackoffMs);
            _stopping.Wait(backoffMs);
        }
    }

    /// <summary>
    /// One blocking accept: the client, or null and why not. Linux: accept4(2) itself, so a failure is
    /// an errno and not an exception; elsewhere .NET's Accept.
    /// </summary>
    private (Socket? Client, SocketError Error) Accept()
    {
        if (!OperatingSystem.IsLinux())
        {
            try
            {
                return (_socket.Accept(), SocketError.Success);
            }
            catch (SocketException e)
            {
                return (null, e.SocketErrorCode);
            }
            catch (ObjectDisposedException)
            {
                return (null, SocketError.OperationAborted);
            }
        }
        int fd;
        unsafe
        {
            fd = Libc.accept4((int)_socket.SafeHandle.DangerousGetHandle(), null, null, Libc.SOCK_CLOEXEC);
        }
        if (fd >= 0) return (new Socket(new SafeSocketHandle(fd, ownsHandle: true)), SocketError.Success);
        _lastErrno = Marshal.GetLastPInvokeError();
        return (null, _lastErrno switch
        {
            Libc.EINTR => SocketError.Interrupted,
            Libc.ECONNABORTED => SocketError.ConnectionAborted,
            Libc.EINVAL or Libc.EBADF => SocketError.Shutdown, // the listener was shut down or closed
            _ => SocketError.SocketError, // EMFILE, ENFILE, ENOBUFS, ENOMEM, EPERM...: back off
        });
    }

    /// <summary>Redis's line, "Accepting client connection: accept: " and strerror; at most one per <see cref="LogIntervalMs"/>.</summary>
    private void LogFailure(SocketError error)
    {
        long now = Environment.TickCount64;
        if (now < _nextLogAt) return;
        _nextLogAt = now + LogIntervalMs;
        string reason = OperatingSystem.IsLinux()
            ? Marshal.GetPInvokeErrorMessage(_lastErrno)
            : new SocketException((int)error).Message;
        _server.Log.Warning($"Accepting client connection: accept: {reason}");
    }


    /// <summary>Redis's connIsLocal for TCP: a peer address in 127.0.0.0/8 or ::1.</summary>
    private static bool IsLoopback(EndPoint? peer)
    {
        if (peer is not IPEndPoint ip) return true; // not TCP (a Unix socket): local
        var address = ip.Address.IsIPv4MappedToIPv6 ? ip.Address.MapToIPv4() : ip.Address;
        return address.AddressFamily == AddressFamily.InterNetwork ? address.GetAddressBytes()[0] == 127 : address.Equals(IPAddress.IPv6Loopback);
    }

    /// <summary>Serves the client, or tells it the server is full (Redis's acceptCommonHandler check) and closes it.</summary>
    private void Admit(Socket client)
    {
        Interlocked.Increment(ref _server.Stats.TotalConnectionsReceived);
        try
        {
            if (_server.Clients.Count >= _server.Options.MaxClients)
            {
                Interlocked.Increment(ref _server.Stats.RejectedConnections);
                client.Send(RespErrors.MaxClients);
                client.Close();
                return;
            }
            if (UnixPath != null)
            {
                // Always local (Redis's connUnixIsLocal): no protected mode, and no TCP options.
                _ = ClientConnection.ServeAsync(_server, client, _local);
                return;
            }
            // Redis's protected mode: with no password on the default user, only loopback peers.
            if (_server.Config.ProtectedMode && _server.Acl.Default.State.NoPass && !IsLoopback(client.RemoteEndPoint))
            {
                Interlocked.Increment(ref _server.Stats.RejectedConnections);
                client.Send(RespErrors.ProtectedMode);
                client.Close();
                return;
            }
            client.NoDelay = true;
            // tcp-keepalive read at each accept: a CONFIG SET applies to the clients that connect after it.
            Common.SocketSetup.KeepAlive(client, _server.Config.TcpKeepAlive);
        }
        catch (SocketException)
        {
            client.Close(); // the peer is already gone; the accept thread goes on
            return;
        }
        if (Tls)
        {
            // The context and tls-auth-clients as they are now: a CONFIG SET applies from the next accept.
            var context = _server.Tls;
            if (context == null)
            {
                client.Close();
                return;
            }
            _ = ClientConnection.ServeTlsAsync(_server, client, context, _server.Config.TlsAuthClients);
            return;
        }
        _ = ClientConnection.ServeAsync(_server, client);
    }
}
