namespace RedisClone.Tests.Infrastructure;

/// <summary>The source tree the tests were built from (README, docs, sources, project files).</summary>
public static class Repository
{
    /// <summary>The directory holding RedisClone.sln, found above the test binaries.</summary>
    public static string Root { get; } = Find();

    /// <summary>The text of README.md (line breaks as \n).</summary>
    public static string Readme => Text("README.md");

    /// <summary>The text of a file of the repository, by its path from the root (line breaks as \n).</summary>
    public static string Text(string path) => File.ReadAllText(Path.Combine(Root, path)).Replace("\r\n", "\n");

    /// <summary>
    /// The first <c>```csharp</c> block of the Markdown file at <paramref name="path"/> (from the root, e.g.
    /// <c>docs/packages.md</c>) that contains <paramref name="marker"/>, without its fences.
    /// </summary>
    public static string CSharpBlock(string path, string marker)
    {
        string text = Text(path);
        for (int start = text.IndexOf("```csharp\n", StringComparison.Ordinal); start >= 0;
             start = text.IndexOf("```csharp\n", start + 1, StringComparison.Ordinal))
        {
            int body = start + "```csharp\n".Length;
            int end = text.IndexOf("```", body, StringComparison.Ordinal);
            string block = text[body..end];
            if (block.Contains(marker, StringComparison.Ordinal)) return block;
        }
        throw new InvalidOperationException($"no csharp block with '{marker}' in {path}");
    }

    private static string Find()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir != null; dir = dir.Parent)
            if (File.Exists(Path.Combine(dir.FullName, "RedisClone.sln"))) return dir.FullName;
        throw new InvalidOperationException("RedisClone.sln not found above " + AppContext.BaseDirectory);
    }
}
