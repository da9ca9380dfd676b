namespace RedisClone.Tests.Infrastructure;

/// <summary>The source tree the tests were built from (README, sources, project files).</summary>
public static class Repository
{
    /// <summary>The directory holding RedisClone.sln, found above the test binaries.</summary>
    public static string Root { get; } = Find();

    /// <summary>The text of README.md (line breaks as \n).</summary>
    public static string Readme => File.ReadAllText(Path.Combine(Root, "README.md")).Replace("\r\n", "\n");

    /// <summary>The README's first <c>```csharp</c> block that contains <paramref name="marker"/>, without its fences.</summary>
    public static string ReadmeCSharpBlock(string marker)
    {
        string readme = Readme;
        for (int start = readme.IndexOf("```csharp\n", StringComparison.Ordinal); start >= 0;
             start = readme.IndexOf("```csharp\n", start + 1, StringComparison.Ordinal))
        {
            int body = start + "```csharp\n".Length;
            int end = readme.IndexOf("```", body, StringComparison.Ordinal);
            string block = readme[body..end];
            if (block.Contains(marker, StringComparison.Ordinal)) return block;
        }
        throw new InvalidOperationException($"no csharp block with '{marker}' in README.md");
    }

    private static string Find()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir != null; dir = dir.Parent)
            if (File.Exists(Path.Combine(dir.FullName, "RedisClone.sln"))) return dir.FullName;
        throw new InvalidOperationException("RedisClone.sln not found above " + AppContext.BaseDirectory);
    }
}
