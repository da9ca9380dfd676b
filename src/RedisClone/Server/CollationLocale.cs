using System.Runtime.InteropServices;

namespace RedisClone.Server;

/// <summary>
/// locale-collate: Redis 7.2 hands the name to setlocale(LC_COLLATE) and refuses it when the C
/// library does not know it ("Invalid locale name"). Here the name is checked the same way and the
/// process's collation locale left as it was: SORT ALPHA compares bytes, as strcoll does in the C
/// and C.UTF-8 locales, whatever the setting (the README says so).
/// </summary>
internal static unsafe partial class CollationLocale
{
    /// <summary>Whether the C library knows <paramref name="name"/> ("" is the environment's locale, always valid).</summary>
    public static bool IsValid(string name)
    {
        if (name.Length == 0 || name is "C" or "POSIX") return true;
        if (!OperatingSystem.IsLinux() || name.Contains('\0')) return false;
        lock (Gate)
        {
            try
            {
                // Query, try, put back: the process keeps its collation.
                nint current = setlocale(LcCollate, null);
                string? saved = current == 0 ? null : Marshal.PtrToStringUTF8(current);
                if (setlocale(LcCollate, name) == 0) return false;
                if (saved != null) setlocale(LcCollate, saved);
                return true;
            }
            catch (Exception ex) when (ex is DllNotFoundException or EntryPointNotFoundException)
            {
                return false;
            }
        }
    }

    private static readonly object Gate = new();

    /// <summary>glibc's LC_COLLATE.</summary>
    private const int LcCollate = 3;

    [LibraryImport("libc", StringMarshalling = StringMarshalling.Utf8)]
    private static partial nint setlocale(int category, string? locale);
}
