namespace RedisClone.Common;

/// <summary>File errors as Redis reports them: C's strerror text where .NET's exception has one.</summary>
internal static class SystemErrors
{
    /// <summary>"No such file or directory", "Permission denied", or the exception's own message.</summary>
    public static string Describe(Exception ex) => ex switch
    {
        FileNotFoundException or DirectoryNotFoundException => "No such file or directory",
        UnauthorizedAccessException => "Permission denied",
        // On Unix .NET keeps the errno of other I/O errors (ENOSPC, EIO, ENOTDIR...) as the HResult.
        IOException { HResult: > 0 and < 4096 } io when !OperatingSystem.IsWindows()
            => System.Runtime.InteropServices.Marshal.GetPInvokeErrorMessage(io.HResult),
        _ => ex.Message,
    };
}
