namespace RedisClone.Server;

/// <summary>The open-files limit leaves no descriptor for a client (logged already); the server exits with status 1 as Redis does.</summary>
internal sealed class OpenFilesLimitException : Exception
{
    public OpenFilesLimitException() : base("the open-files limit is not enough for the server to start")
    {
    }
}
