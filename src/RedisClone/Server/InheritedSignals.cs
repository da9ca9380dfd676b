using System.Runtime.InteropServices;

namespace RedisClone.Server;

/// <summary>
/// Undoes an inherited "ignore SIGINT" before the server's stop handlers are registered.
/// </summary>
/// <remarks>
/// A process started in the background by a shell without job control (<c>nohup server &amp;</c> in
/// a script, some supervisors) begins with SIGINT ignored, and .NET then leaves it ignored: a
/// registration for it is never called. redis-server installs its SIGINT handler whatever it
/// inherited, so SIGINT stops it there too; resetting the disposition to the default first lets the
/// registration in Program take over in the same way. SIGTERM is never ignored this way.
/// </remarks>
internal static unsafe partial class InheritedSignals
{
    private const int SIGINT = 2;
    private static readonly nint SigDfl = 0, SigIgn = 1;

    /// <summary>Sets SIGINT back to its default action if it was inherited as ignored. Call before the runtime's signal registration.</summary>
    public static void ResetIgnoredSigint()
    {
        if (!OperatingSystem.IsLinux() && !OperatingSystem.IsMacOS() && !OperatingSystem.IsFreeBSD()) return;
        // struct sigaction begins with the handler on Linux, macOS and the BSDs; the buffer is larger
        // than the whole struct anywhere (152 bytes on 64-bit glibc). A null action only asks.
        byte* current = stackalloc byte[512];
        if (sigaction(SIGINT, null, current) == 0 && *(nint*)current == SigIgn)
            signal(SIGINT, SigDfl);
    }

    [LibraryImport("libc")]
    private static partial int sigaction(int signum, byte* action, byte* oldAction);

    [LibraryImport("libc")]
    private static partial nint signal(int signum, nint handler);
}
