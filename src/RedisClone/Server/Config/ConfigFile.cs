using RedisClone.Common;
using RedisClone.Protocol;

namespace RedisClone.Server.Config;

/// <summary>One directive: its words (the name lower-cased) and the line it came from, for errors.</summary>
internal readonly record struct ConfigDirective(string[] Args, int Line, string Text)
{
    public string Name => Args[0];
}

/// <summary>
/// A configuration that cannot be used. With a line, start-up reports it the way redis-server does
/// (the line number, the line, the reason); without one, the reason alone (a file that cannot be opened).
/// </summary>
internal sealed class ConfigFileException(string message, int line = 0, string? text = null) : ArgumentException(message)
{
    public int Line { get; } = line;
    public string? Text { get; } = text;

    /// <summary>True for an error redis-server reports as a log line, not under the fatal-config banner.</summary>
    public bool LogLine { get; init; }
}

/// <summary>
/// Reads redis.conf syntax: one directive per line, <c>#</c> comments and blank lines skipped, words
/// split with the quoting rules of Redis's inline commands (double quotes with escapes, single
/// quotes), the directive's name case-insensitive, and <c>include path</c> read in place (a path with
/// <c>*</c>, <c>?</c> or <c>[</c> in its last part names every file it matches, in name order, and
/// may match none). Values are not checked here: <see cref="ConfigRegistry.SetDirective"/> does that
/// in order, so that a later line overrides an earlier one as in Redis.
/// </summary>
internal static class ConfigFile
{
    /// <summary>Includes nest at most this deep (Redis has no limit and recurses until it crashes).</summary>
    private const int MaxIncludeDepth = 16;

    /// <summary>Appends the directives of <paramref name="text"/> to <paramref name="into"/>.</summary>
    public static void Parse(string text, List<ConfigDirective> into) => Parse(text, into, 0);

    /// <summary>The text of a file given as the configuration (the first argument, or an include).</summary>
    public static string ReadFile(string path)
    {
        if (Directory.Exists(path))
            throw new ConfigFileException($"Fatal error, can't open config file '{path}': Is a directory") { LogLine = true };
        try
        {
            return File.ReadAllText(path, System.Text.Encoding.Latin1);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new ConfigFileException($"Fatal error, can't open config file '{path}': {SystemErrors.Describe(ex)}") { LogLine = true };
        }
    }

    private static void Parse(string text, List<ConfigDirective> into, int depth)
    {
        string[] lines = text.Split('\n');
        for (int i = 0; i < lines.Length; i++)
        {
            string line = lines[i].Trim(' ', '\t', '\r', '\n');
            if (line.Length == 0 || line[0] == '#') continue;
            var args = InlineSplitter.Split(line)
                       ?? throw new ConfigFileException("Unbalanced quotes in configuration line", i + 1, line);
            if (args.Count == 0) continue;
            args[0] = args[0].ToLowerInvariant();
            if (args[0] == "include" && args.Count == 2)
            {
                if (depth >= MaxIncludeDepth)
                    throw new ConfigFileException($"Includes nested more than {MaxIncludeDepth} deep", i + 1, line);
                foreach (string path in IncludedFiles(args[1]))
                    Parse(ReadFile(path), into, depth + 1);
                continue;
            }
            into.Add(new ConfigDirective(args.ToArray(), i + 1, line));
        }
    }

    /// <summary>The files an include names: the path itself, or the matches of a pattern in its last part.</summary>
    private static IEnumerable<string> IncludedFiles(string path)
    {
        if (path.IndexOfAny(['*', '?', '[']) < 0) return [path];
        string directory = Path.GetDirectoryName(path) is { Length: > 0 } d ? d : ".";
        byte[] pattern = System.Text.Encoding.Latin1.GetBytes(Path.GetFileName(path));
        if (!Directory.Exists(directory)) return [];
        var matches = Directory.GetFiles(directory)
            .Where(f => GlobMatcher.IsMatch(pattern, System.Text.Encoding.Latin1.GetBytes(Path.GetFileName(f)), nocase: false))
            .Select(f => Path.Combine(Path.GetDirectoryName(path) ?? "", Path.GetFileName(f)))
            .ToList();
        matches.Sort(StringComparer.Ordinal);
        return matches;
    }

    /// <summary>
    /// A word as redis.conf quotes it (Redis's sdscatrepr): in double quotes, with <c>\\</c>,
    /// <c>\"</c>, <c>\n \r \t \a \b</c> and <c>\xHH</c> for other unprintable bytes.
    /// </summary>
    public static string Repr(string word)
    {
        var sb = new System.Text.StringBuilder(word.Length + 2).Append('"');
        foreach (char c in word)
        {
            switch (c)
            {
                case '\\': sb.Append("\\\\"); break;
                case '"': sb.Append("\\\""); break;
                case '\n': sb.Append("\\n"); break;
                case '\r': sb.Append("\\r"); break;
                case '\t': sb.Append("\\t"); break;
                case '\a': sb.Append("\\a"); break;
                case '\b': sb.Append("\\b"); break;
                default:
                    if (c >= 0x20 && c < 0x7f) sb.Append(c);
                    else sb.Append("\\x").Append(((int)c & 0xff).ToString("x2"));
                    break;
            }
        }
        return sb.Append('"').ToString();
    }

    /// <summary>
    /// CONFIG REWRITE: writes the server's configuration file anew (a temporary file in the same
    /// directory, fsynced, then renamed over it). Returns null, or the reason it failed.
    /// </summary>
    public static string? Rewrite(RedisServer server)
    {
        string path = server.Options.ConfigFile!;
        string tmp = $"{path}.{Path.GetRandomFileName().Replace(".", "")[..6]}";
        try
        {
            string old = File.Exists(path) ? File.ReadAllText(path, System.Text.Encoding.Latin1) : "";
            // With an aclfile the users live there (and the file's user lines go); else one line per user.
            IReadOnlyList<string>? users = server.Config.AclFile.Length > 0
                ? null
                : server.Acl.Describe().Split('\n', StringSplitOptions.RemoveEmptyEntries);
            string text = server.Config.Rewrite(old, users, ServerOptions.OwnDirectives);
            using (var file = new FileStream(tmp, FileMode.CreateNew, FileAccess.Write))
            {
                var bytes = System.Text.Encoding.Latin1.GetBytes(text);
                file.Write(bytes);
                file.Flush(flushToDisk: true);
            }
            if (!OperatingSystem.IsWindows())
                File.SetUnixFileMode(tmp, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead | UnixFileMode.OtherRead);
            File.Move(tmp, path, overwrite: true);
            return null;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            try { File.Delete(tmp); } catch (Exception e) when (e is IOException or UnauthorizedAccessException) { }
            return SystemErrors.Describe(ex);
        }
    }

}
