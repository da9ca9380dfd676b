namespace RedisClone.Tests.Infrastructure;

/// <summary>The source tree the tests were built from (README, sources, project files).</summary>
public static class Repository
{
    /// <summary>The directory holding RedisClone.sln, found above the test binaries.</summary>
    public static string Root { get; } = Find();

    private static string Find()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir != null; dir = dir.Parent)
            if (File.Exists(Path.Combine(dir.FullName, "RedisClone.sln"))) return dir.FullName;
        throw new InvalidOperationException("RedisClone.sln not found above " + AppContext.BaseDirectory);
    }
}
