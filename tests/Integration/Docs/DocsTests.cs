using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Docs;

/// <summary>
/// The README is short and links into docs/: every relative link of the README and of docs/*.md names a
/// file that exists and, with a <c>#fragment</c>, a heading of that file (GitHub's anchors), so moving or
/// renaming a section cannot leave a dangling link behind.
/// </summary>
public sealed partial class DocsTests
{
    [Fact]
    public void Links_RelativeTargets_Exist()
    {
        var broken = new List<string>();
        foreach (string file in MarkdownFiles())
        {
            string text = Repository.Text(file);
            foreach (Match m in LinkPattern().Matches(text))
            {
                string target = m.Groups[1].Value;
                if (target.Contains("://", StringComparison.Ordinal) || target.StartsWith("mailto:", StringComparison.Ordinal)) continue;
                string path = target, anchor = "";
                int hash = target.IndexOf('#');
                if (hash >= 0) (path, anchor) = (target[..hash], target[(hash + 1)..]);
                string resolved = path.Length == 0
                    ? file
                    : Path.GetRelativePath(Repository.Root, Path.GetFullPath(Path.Combine(Repository.Root, Path.GetDirectoryName(file) ?? "", path))).Replace('\\', '/');
                if (!File.Exists(Path.Combine(Repository.Root, resolved)) && !Directory.Exists(Path.Combine(Repository.Root, resolved)))
                    broken.Add($"{file}: {target} (no {resolved})");
                else if (anchor.Length > 0 && !Anchors(Repository.Text(resolved)).Contains(anchor))
                    broken.Add($"{file}: {target} (no heading with anchor #{anchor} in {resolved})");
            }
        }
        Assert.Empty(broken);
    }

    [Fact]
    public void Readme_Commands_LinksTheTableAndTheNotYetList()
    {
        string readme = Repository.Readme;
        Assert.Contains("(docs/commands.md#supported-commands)", readme, StringComparison.Ordinal);
        Assert.Contains("(docs/commands.md#not-yet)", readme, StringComparison.Ordinal);
        string commands = Repository.Text("docs/commands.md");
        Assert.Contains("\n## Supported commands\n\n| family | commands |\n", commands, StringComparison.Ordinal);
        Assert.Contains("\n## Not yet\n", commands, StringComparison.Ordinal);
    }

    [Fact]
    public void Readme_TwoCommands_AreTheOnesCiRuns()
    {
        string readme = Repository.Readme;
        Assert.Contains("dotnet run -c Release --project src/RedisClone ", readme, StringComparison.Ordinal);
        Assert.Contains("\ndotnet test ", readme, StringComparison.Ordinal);
        Assert.Contains("\ndotnet test 2>&1", Repository.Text(".ci/run"), StringComparison.Ordinal);
    }

    private static IEnumerable<string> MarkdownFiles()
        => new[] { "README.md" }.Concat(Directory.GetFiles(Path.Combine(Repository.Root, "docs"), "*.md").Order()
            .Select(f => "docs/" + Path.GetFileName(f)));

    /// <summary>The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as hyphens.</summary>
    private static HashSet<string> Anchors(string markdown)
    {
        var anchors = new HashSet<string>(StringComparer.Ordinal);
        bool fenced = false;
        foreach (string line in markdown.Split('\n'))
        {
            if (line.StartsWith("```", StringComparison.Ordinal)) fenced = !fenced;
            if (fenced || !line.StartsWith('#')) continue;
            string title = line.TrimStart('#').Trim().ToLowerInvariant();
            title = new string(title.Where(c => char.IsLetterOrDigit(c) || c is ' ' or '-' or '_').ToArray());
            anchors.Add(title.Replace(' ', '-'));
        }
        return anchors;
    }

    /// <summary>An inline Markdown link's target: <c>[text](target)</c>.</summary>
    [GeneratedRegex(@"\]\(([^)\s]+)\)")]
    private static partial Regex LinkPattern();
}
