using System.Runtime.InteropServices;

namespace RedisClone.Server;

/// <summary>
/// Fits maxclients to the open-files limit (RLIMIT_NOFILE), as Redis's adjustOpenFilesLimit does at
/// start-up and on CONFIG SET maxclients: a client costs one descriptor, so maxclients plus the
/// descriptors the server needs for itself must fit under the limit. When they do not, the soft
/// limit is raised as far as the system allows; if that is still short, maxclients is lowered and
/// Redis's warnings are logged. Without this a server started under <c>ulimit -n 1024</c> runs out
/// of descriptors at about the thousandth client, and the client past that waits unserved instead
/// of being told <c>-ERR max number of clients reached</c>.
/// </summary>
internal static unsafe partial class OpenFilesLimit
{
    /// <summary>
    /// Descriptors kept free on top of those the process holds when it starts serving: Redis's
    /// CONFIG_MIN_RESERVED_FDS (32), for what it opens later. Ours are files the runtime opens on
    /// first use (each assembly loaded later holds two: after redis-benchmark and a round of other
    /// commands an idle server held 12 more than when they were counted, 70 against 58), the socket
    /// of a client over maxclients, accepted to be told so, and the files persistence will open.
    /// </summary>
    public const int Margin = 32;

    /// <summary>
    /// What the process holds before any client, for where /proc/self/fd cannot be read to count
    /// them. Measured on Linux, .NET 10, one event loop: 58 when counted at start-up (most of
    /// them the runtime's: two per loaded assembly, its epoll instances and pipes, standard streams,
    /// /dev/urandom, the diagnostics socket; then the listening socket, our loop's epoll and
    /// eventfd), 70 after a workload; two more per further event loop.
    /// </summary>
    private const int EstimatedOwnDescriptors = 58;

    /// <summary>Redis's fallback when the limit cannot be read.</summary>
    private const long AssumedLimit = 1024;

    /// <summary>
    /// The descriptors the server reserves for itself: those open now (call it when the server is
    /// ready but before it accepts a client: the runtime, its epoll and pipes, our event loops'
    /// epoll and eventfd, the listening sockets) plus <see cref="Margin"/>. Measured rather than
    /// fixed: it grows with the event loops (two each) and differs between runtimes.
    /// </summary>
    public static int MeasureReserved(int eventLoops)
    {
        int? open = CountOpen();
        return (open ?? EstimatedOwnDescriptors + 2 * Math.Max(eventLoops - 1, 0)) + Margin;
    }

    /// <summary>Descriptors open in this process, or null where the system does not list them.</summary>
    public static int? CountOpen()
    {
        foreach (string dir in (ReadOnlySpan<string>)["/proc/self/fd", "/dev/fd"])
        {
            try
            {
                if (Directory.Exists(dir)) return Directory.GetFiles(dir).Length - 1; // less the listing's own
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
            }
        }
        return null;
    }

    /// <summary>
    /// The maxclients the limit allows for <paramref name="maxClients"/> clients and
    /// <paramref name="reserved"/> descriptors of the server's own: <paramref name="maxClients"/>
    /// when the limit is, or could be raised to be, high enough; otherwise less, with Redis's
    /// warnings logged. Below 1 when the limit does not even cover the reserve (logged as Redis does
    /// before it exits).
    /// </summary>
    public static long Fit(long maxClients, int reserved, ServerLog log)
    {
        if (!OperatingSystem.IsLinux() && !OperatingSystem.IsMacOS() && !OperatingSystem.IsFreeBSD())
            return maxClients; // no such limit (Windows: sockets are handles, bounded by memory)
        ulong needed = (ulong)maxClients + (ulong)reserved;
        RLimit limit;
        if (getrlimit(Resource, &limit) == -1)
        {
            log.Warning($"Unable to obtain the current NOFILE limit ({LastError()}), assuming {AssumedLimit} " +
                        "and setting the max clients configuration accordingly.");
            return AssumedLimit - reserved;
        }
        ulong old = limit.Current;
        if (old >= needed) return maxClients;

        // Redis tries the whole need as both soft and hard limit, then 16 descriptors less at a
        // time. An unprivileged process may raise its soft limit up to the hard one only, so after
        // the whole need (which succeeds when the hard limit allows it, or the process may raise
        // that too) we try the hard limit itself, and leave the hard limit as it was, where Redis
        // lowers it to what it took. Some systems refuse less than the hard limit (macOS above
        // OPEN_MAX, or an infinite hard limit): then we halve the distance to the old limit.
        ulong best = needed;
        int error = 0;
        while (best > old)
        {
            var attempt = new RLimit { Current = best, Max = Math.Max(best, limit.Max) };
            if (setrlimit(Resource, &attempt) == 0) break;
            if (error == 0) error = Marshal.GetLastPInvokeError();
            best = best > limit.Max ? limit.Max : best - Math.Max((best - old) / 2, 1);
        }
        if (best < old) best = old;

        if (best >= needed)
        {
            log.Notice($"Increased maximum number of open files to {needed} (it was originally set to {old}).");
            return maxClients;
        }
        long fitted = (long)best - reserved;
        if (fitted < 1)
        {
            log.Warning($"Your current 'ulimit -n' of {old} is not enough for the server to start. " +
                        $"Please increase your open file limit to at least {needed}. Exiting.");
            return fitted;
        }
        log.Warning($"You requested maxclients of {maxClients} requiring at least {needed} max file descriptors.");
        log.Warning($"Server can't set maximum open files to {needed} because of OS error: {Marshal.GetPInvokeErrorMessage(error)}.");
        log.Warning($"Current maximum open files is {best}. maxclients has been reduced to {fitted} to compensate for low ulimit. " +
                    "If you need higher maxclients increase 'ulimit -n'.");
        return fitted;
    }

    private static string LastError() => Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError());

    private static int Resource => OperatingSystem.IsLinux() ? 7 /* RLIMIT_NOFILE */ : 8 /* RLIMIT_NOFILE, BSD and macOS */;

    /// <summary>struct rlimit: rlim_t is 64 bits on the 64-bit systems we run on.</summary>
    [StructLayout(LayoutKind.Sequential)]
    private struct RLimit
    {
        public ulong Current, Max;
    }

    [LibraryImport("libc", SetLastError = true)]
    private static partial int getrlimit(int resource, RLimit* limit);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int setrlimit(int resource, RLimit* limit);
}
