using System.Net.Sockets;

namespace RedisClone.Network;

/// <summary>
/// A listening socket could not be created. The message is redis-server's, e.g.
/// <c>Could not create server TCP listening socket 127.0.0.1:6379: bind: Address already in use</c>
/// or <c>Failed opening Unix socket: bind: Permission denied</c>.
/// </summary>
internal sealed class ListenFailedException : Exception
{
    public ListenFailedException(string address, int port, string step, SocketException inner)
        : base($"Could not create server TCP listening socket {address}:{port}: {step}: {inner.Message}", inner)
    {
        Error = inner.SocketErrorCode;
    }

    /// <summary>The address is not an address nor a name that resolves (Redis: getaddrinfo's message).</summary>
    public ListenFailedException(string address, int port, SocketException inner)
        : base($"Could not create server TCP listening socket {address}:{port}: {inner.Message}", inner)
    {
        Error = inner.SocketErrorCode;
    }

    /// <summary>The Unix socket cannot be made: Redis's <c>Failed opening Unix socket: </c> and the reason.</summary>
    public ListenFailedException(string reason)
        : base($"Failed opening Unix socket: {reason}")
    {
        Unix = true;
    }

    /// <summary>The unixsocket listener failed (Redis logs its one line and exits).</summary>
    public bool Unix { get; }

    /// <summary>Why: <see cref="SocketError.AddressAlreadyInUse"/>, <see cref="SocketError.AddressNotAvailable"/> ...</summary>
    public SocketError Error { get; }

    /// <summary>The tls-port listener failed (Redis names the connection type in its last line).</summary>
    public bool Tls { get; init; }
}
