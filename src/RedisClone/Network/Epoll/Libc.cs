using System.Net.Sockets;
using System.Runtime.InteropServices;

namespace RedisClone.Network.Epoll;

/// <summary>
/// The Linux system calls the network layer makes itself: epoll, eventfd and recv/send on client
/// sockets for the event loops, accept4 for the listener.
/// </summary>
internal static unsafe partial class Libc
{
    public const int EINTR = 4, EBADF = 9, EAGAIN = 11, EINVAL = 22, ECONNABORTED = 103;
    public const int SOCK_CLOEXEC = 0x80000;
    public const int EPOLL_CTL_ADD = 1, EPOLL_CTL_DEL = 2;
    public const uint EPOLLIN = 0x001, EPOLLOUT = 0x004, EPOLLERR = 0x008, EPOLLHUP = 0x010, EPOLLRDHUP = 0x2000;
    public const uint EPOLLET = 1u << 31;
    public const int EPOLL_CLOEXEC = 0x80000, EFD_CLOEXEC = 0x80000, EFD_NONBLOCK = 0x800;

    /// <summary>
    /// struct epoll_event is packed on x86-64 (12 bytes, data at offset 4) and naturally aligned
    /// elsewhere (16 bytes, data at offset 8).
    /// </summary>
    public static readonly int EventSize = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? 12 : 16;

    public static readonly int EventDataOffset = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? 4 : 8;

    [LibraryImport("libc", SetLastError = true)]
    public static partial int epoll_create1(int flags);

    [LibraryImport("libc", SetLastError = true)]
    public static partial int epoll_ctl(int epfd, int op, int fd, byte* ev);

    [LibraryImport("libc", SetLastError = true)]
    public static partial int epoll_wait(int epfd, byte* events, int maxEvents, int timeout);

    [LibraryImport("libc", SetLastError = true)]
    public static partial int eventfd(uint initval, int flags);

    [LibraryImport("libc", SetLastError = true)]
    public static partial nint read(int fd, byte* buf, nint count);

    [LibraryImport("libc", SetLastError = true)]
    public static partial nint write(int fd, byte* buf, nint count);

    [LibraryImport("libc", SetLastError = true)]
    public static partial int close(int fd);

    [LibraryImport("libc", SetLastError = true)]
    public static partial int accept4(int fd, byte* address, int* addressLength, int flags);

    // recvfrom(2)/sendto(2) numbers where we know them; elsewhere data moves through Socket.
    private static readonly nint SysRecvFrom = RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 => 45, Architecture.Arm64 => 207, _ => -1,
    };

    private static readonly nint SysSendTo = RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 => 44, Architecture.Arm64 => 206, _ => -1,
    };

    private const int MSG_NOSIGNAL = 0x4000;

    /// <summary>True when <see cref="Receive"/> and <see cref="Send"/> make the system call themselves.</summary>
    public static bool DirectSocketCalls => SysRecvFrom >= 0;

    // glibc's syscall(2) wrapper: the integer arguments go in registers as for any function, and
    // unlike recv/send it is not a cancellation point (no pthread cancel bookkeeping around it).
    [LibraryImport("libc", EntryPoint = "syscall", SetLastError = true)]
    private static partial nint syscall(nint number, nint a1, nint a2, nint a3, nint a4, nint a5, nint a6);

    /// <summary>
    /// One recv(2) on a non-blocking socket: bytes received (0 at end of stream), or -1 with
    /// <paramref name="error"/> set. The caller keeps the descriptor open for the call.
    /// </summary>
    public static int Receive(int fd, Span<byte> buffer, out SocketError error)
    {
        fixed (byte* p = buffer)
        {
            nint n = syscall(SysRecvFrom, fd, (nint)p, buffer.Length, 0, 0, 0);
            error = n >= 0 ? SocketError.Success : ErrorOf(Marshal.GetLastPInvokeError());
            return (int)n;
        }
    }

    /// <summary>One send(2) on a non-blocking socket: bytes sent, or -1 with <paramref name="error"/> set.</summary>
    public static int Send(int fd, ReadOnlySpan<byte> buffer, out SocketError error)
    {
        fixed (byte* p = buffer)
        {
            nint n = syscall(SysSendTo, fd, (nint)p, buffer.Length, MSG_NOSIGNAL, 0, 0);
            error = n >= 0 ? SocketError.Success : ErrorOf(Marshal.GetLastPInvokeError());
            return (int)n;
        }
    }

    // Only the transient errors matter to the callers; anything else ends the connection.
    private static SocketError ErrorOf(int errno) => errno switch
    {
        EAGAIN => SocketError.WouldBlock,
        EINTR => SocketError.Interrupted,
        _ => SocketError.ConnectionReset,
    };

    /// <summary>Registers <paramref name="fd"/> with <paramref name="token"/> as its event data.</summary>
    public static int Add(int epfd, int fd, uint events, ulong token)
    {
        byte* ev = stackalloc byte[16];
        *(uint*)ev = events;
        *(ulong*)(ev + EventDataOffset) = token;
        return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, ev);
    }

    public static int Remove(int epfd, int fd)
    {
        byte* ev = stackalloc byte[16];
        return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, ev);
    }
}
