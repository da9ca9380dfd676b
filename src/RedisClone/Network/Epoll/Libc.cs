using System.Runtime.InteropServices;

namespace RedisClone.Network.Epoll;

/// <summary>The Linux system calls the event loops make themselves (epoll and eventfd; data moves through Socket).</summary>
internal static unsafe partial class Libc
{
    public const int EINTR = 4, EAGAIN = 11;
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
