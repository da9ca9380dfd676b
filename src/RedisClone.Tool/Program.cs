namespace RedisClone.Tool;

/// <summary>
/// The <c>redisclone-server</c> command: hands its arguments to the server's own entry point, so
/// the tool and <c>dotnet run --project src/RedisClone</c> are the same program.
/// </summary>
internal static class Program
{
    public static Task<int> Main(string[] args) => global::RedisClone.Program.Main(args);
}
