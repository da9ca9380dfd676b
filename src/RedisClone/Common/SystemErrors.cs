namespace RedisClone.Common;

/// <summary>File errors as Redis reports them: C's strerror text where .NET's exception has one.</summary>
internal static class SystemErrors
{
    /// <summary>"No such file or directory", "Permission denied", or the exception's own message.</summary>
    public static string Describe(Exception ex) => ex switch
    {
        FileNotFoundException or DirectoryNotFoundException => "No such file or directory",
        UnauthorizedAccessException => "Permission denied",
        _ => ex.Message,
    };
}
