using System.Text.RegularExpressions;

namespace RedisClone.Tests.Architecture;

/// <summary>
/// Dependencies between the server's folders point one way: Network → Execution → {Commands,
/// Scripting, Sharding, PubSub, Persistence, Cluster} → {Storage, Protocol} → Common. (A script's redis.call runs through
/// Execution's CommandRunner: Execution hands Scripting the runner as a delegate.) This reads every source file's
/// <c>using RedisClone.X</c> directives and fully qualified <c>RedisClone.X.</c> names and fails on
/// one that points up. Server is the composition root (it owns the listeners, shards and
/// configuration, and commands read its configuration and counters): it may use any folder, and
/// any folder above Storage/Protocol may use it.
/// </summary>
public sealed class LayeringTests
{
    private static readonly Dictionary<string, int> Rank = new()
    {
        ["Common"] = 0,
        ["Storage"] = 1,
        ["Protocol"] = 1,
        ["Commands"] = 2,
        ["Scripting"] = 2,
        ["Sharding"] = 2,
        ["PubSub"] = 2,
        ["Persistence"] = 2,
        ["Cluster"] = 2,
        ["Execution"] = 3,
        ["Network"] = 4,
    };

    private static readonly Regex Reference = new(@"(?:using\s+RedisClone\.|\bRedisClone\.)([A-Z][A-Za-z]*)\b", RegexOptions.Compiled);

    [Fact]
    public void Sources_ReferenceOnlyLowerLayers()
    {
        var src = Path.Combine(Infrastructure.Repository.Root, "src", "RedisClone");
        var violations = new List<string>();
        int files = 0;
        foreach (var file in Directory.EnumerateFiles(src, "*.cs", SearchOption.AllDirectories))
        {
            var relative = Path.GetRelativePath(src, file);
            if (relative.StartsWith("bin") || relative.StartsWith("obj")) continue;
            var folder = relative.Split(Path.DirectorySeparatorChar)[0];
            if (!Rank.TryGetValue(folder, out int own)) continue; // Program.cs, Server/: the composition root
            files++;
            int lineNumber = 0;
            foreach (var line in File.ReadLines(file))
            {
                lineNumber++;
                var trimmed = line.TrimStart();
                if (trimmed.StartsWith("//") || trimmed.StartsWith("///") || trimmed.StartsWith("*")) continue;
                foreach (Match m in Reference.Matches(line))
                {
                    var target = m.Groups[1].Value;
                    bool upward = target == "Server" ? own < 2
                        : Rank.TryGetValue(target, out int rank) && rank > own;
                    if (upward) violations.Add($"{relative}:{lineNumber}: {folder} uses {target}: {trimmed}");
                }
            }
        }
        Assert.True(files > 50, $"only {files} source files found under {src}");
        Assert.True(violations.Count == 0, "upward dependencies:\n" + string.Join("\n", violations));
    }

    [Fact]
    public void Checker_FindsAnUpwardReference()
    {
        Assert.Matches(Reference, "using RedisClone.Network;");
        Assert.Equal("Execution", Reference.Match("var x = new RedisClone.Execution.BatchExecutor();").Groups[1].Value);
    }
}
