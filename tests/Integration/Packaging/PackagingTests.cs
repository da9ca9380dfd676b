using System.Diagnostics;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using RedisClone.Tests.Infrastructure;
using Xunit.Abstractions;

namespace RedisClone.Tests.Packaging;

/// <summary>
/// The two packages work as docs/packages.md says, as someone who installs them would find: both are
/// packed into a temporary folder, the <c>redisclone-server</c> tool is installed from there and
/// serves, and a fresh xUnit project that references the <c>RedisClone</c> package runs that page's
/// example. Slow (packing, restoring, building: a minute or more each), so they run apart from the
/// other tests (no other test competes with their builds). Every dotnet command is bounded in time;
/// restores of the packed packages go to a private packages folder, so a package of the same version
/// never lands in (or is served stale from) the user's NuGet cache.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class PackagingCollection
{
    public const string Name = "Packaging";
}

/// <summary>Both packages packed once for the packaging tests (on first use: nothing is packed when they are skipped).</summary>
public sealed class PackedPackages : IDisposable
{
    private readonly Lazy<Packed> _packed = new(Pack);

    public Packed Get() => _packed.Value;

    /// <summary>The folder with the packages, the version they carry and the time packing took.</summary>
    public sealed record Packed(string Directory, string Packages, string Version, TimeSpan PackTime)
    {
        /// <summary>The NuGet packages folder for restores of the packed packages (not the user's).</summary>
        public string NuGetPackages => Path.Combine(Directory, "nuget-packages");

        public IReadOnlyDictionary<string, string?> PrivateNuGet => new Dictionary<string, string?> { ["NUGET_PACKAGES"] = NuGetPackages };
    }

    private static Packed Pack()
    {
        string dir = System.IO.Directory.CreateTempSubdirectory("redisclone-packaging-").FullName;
        string packages = Path.Combine(dir, "packages");
        var sw = Stopwatch.StartNew();
        foreach (var project in new[] { "src/RedisClone.Tool/RedisClone.Tool.csproj", "src/RedisClone/RedisClone.csproj" })
        {
            // The repository's own restore (its packages are in the user's cache already); -c Release
            // as the tests' build of the server, so an up-to-date build is reused.
            var (code, output) = DotnetSdk.Run(
                $"pack \"{Path.Combine(Repository.Root, project)}\" -c Release -o \"{packages}\" --disable-build-servers -v minimal",
                dir);
            Assert.True(code == 0, $"dotnet pack {project} failed:\n{output}");
        }
        string library = System.IO.Directory.GetFiles(packages, "RedisClone.*.nupkg").Single();
        string version = Regex.Match(Path.GetFileName(library), @"^RedisClone\.(.+)\.nupkg$").Groups[1].Value;
        Assert.True(File.Exists(Path.Combine(packages, $"redisclone-server.{version}.nupkg")), "both packages carry one version");
        return new Packed(dir, packages, version, sw.Elapsed);
    }

    public void Dispose()
    {
        if (!_packed.IsValueCreated) return;
        try
        {
            System.IO.Directory.Delete(_packed.Value.Directory, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}

[Collection(PackagingCollection.Name)]
public sealed class PackagingTests(PackedPackages packed, ITestOutputHelper output) : IClassFixture<PackedPackages>
{
    [DotnetSdkFact]
    public void ToolPackage_InstalledCommand_ServesAndStops()
    {
        var p = packed.Get();
        output.WriteLine($"dotnet pack (both): {p.PackTime.TotalSeconds:0.0} s");
        string toolDir = Path.Combine(p.Directory, "tool");
        var sw = Stopwatch.StartNew();
        // docs/packages.md's command, with a folder instead of -g.
        var (code, text) = DotnetSdk.Run(
            $"tool install --tool-path \"{toolDir}\" --add-source \"{p.Packages}\" --ignore-failed-sources redisclone-server --version {p.Version}",
            p.Directory, p.PrivateNuGet, timeoutMs: 300_000);
        Assert.True(code == 0, text);
        output.WriteLine($"dotnet tool install: {sw.Elapsed.TotalSeconds:0.0} s");
        string command = Path.Combine(toolDir, "redisclone-server");

        // The version the package carries is the one the server reports.
        var (versionCode, versionLine) = ToolRunner.Run(command, "-v", timeoutMs: 60_000);
        Assert.True(versionCode == 0, versionLine);
        Assert.StartsWith($"Redis server v={p.Version} ", versionLine);

        // The same arguments as `dotnet run --project src/RedisClone`: a configuration file first, then options.
        string conf = Path.Combine(p.Directory, "tool.conf");
        File.WriteAllText(conf, "hz 17\n");
        sw.Restart();
        using var server = ExternalServer.Start(openFiles: 4096, $"--save '' --dir '{p.Directory}'", command: $"'{command}' '{conf}'");
        using (var client = server.Connect())
        {
            Assert.Equal("+PONG\r\n", client.Call("PING"));
            Assert.Equal("*2\r\n$2\r\nhz\r\n$2\r\n17\r\n", client.Call("CONFIG", "GET", "hz"));
            client.Send("SHUTDOWN", "NOSAVE");
        }
        Assert.Equal(0, server.WaitForExit(30_000));
        output.WriteLine($"start, PING, SHUTDOWN: {sw.Elapsed.TotalSeconds:0.0} s");

        // It runs with the server's runtime settings (GC mode, thread pool...), not the SDK's defaults.
        string installed = Directory.GetFiles(toolDir, "redisclone-server.runtimeconfig.json", SearchOption.AllDirectories).Single();
        Assert.Equal(ConfigProperties(Path.Combine(AppContext.BaseDirectory, "RedisClone.runtimeconfig.json")), ConfigProperties(installed));
    }

    [DotnetSdkFact]
    public void LibraryPackage_DocsExample_PassesInAFreshProject()
    {
        var p = packed.Get();
        output.WriteLine($"dotnet pack (both): {p.PackTime.TotalSeconds:0.0} s");
        string project = Path.Combine(p.Directory, "consumer");
        Directory.CreateDirectory(project);
        // Nothing above the temporary folder takes part in the build.
        File.WriteAllText(Path.Combine(project, "Directory.Build.props"), "<Project />\n");
        File.WriteAllText(Path.Combine(project, "Directory.Build.targets"), "<Project />\n");
        // The test packages at the versions this repository's tests use (in the user's cache already,
        // read from there as a fallback folder unless an older RedisClone of this version is in it).
        string testProject = File.ReadAllText(Path.Combine(Repository.Root, "tests", "Integration", "Integration.csproj"));
        string references = string.Concat(
            new[] { "Microsoft.NET.Test.Sdk", "StackExchange.Redis", "xunit", "xunit.runner.visualstudio" }.Select(id =>
                $"    <PackageReference Include=\"{id}\" Version=\"{Regex.Match(testProject, $"Include=\"{Regex.Escape(id)}\" Version=\"([^\"]+)\"").Groups[1].Value}\" />\n"));
        File.WriteAllText(Path.Combine(project, "Consumer.Tests.csproj"), $"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <TargetFramework>net10.0</TargetFramework>
                <ImplicitUsings>enable</ImplicitUsings>
                <Nullable>enable</Nullable>
                <IsPackable>false</IsPackable>
              </PropertyGroup>
              <ItemGroup>
                <PackageReference Include="RedisClone" Version="{p.Version}" />
            {references}  </ItemGroup>
            </Project>

            """);
        string userCache = Environment.GetEnvironmentVariable("NUGET_PACKAGES") is { Length: > 0 } cache
            ? cache
            : Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".nuget", "packages");
        bool useCache = Directory.Exists(userCache) && !Directory.Exists(Path.Combine(userCache, "redisclone", p.Version));
        File.WriteAllText(Path.Combine(project, "nuget.config"), $"""
            <?xml version="1.0" encoding="utf-8"?>
            <configuration>
              <packageSources>
                <add key="redisclone-packed" value="{p.Packages}" />
              </packageSources>
            {(useCache ? $"  <fallbackPackageFolders>\n    <add key=\"user-cache\" value=\"{userCache}\" />\n  </fallbackPackageFolders>\n" : "")}</configuration>

            """);
        File.WriteAllText(Path.Combine(project, "ReadmeExample.cs"), Repository.CSharpBlock("docs/packages.md", "class RedisCloneFixture"));

        var sw = Stopwatch.StartNew();
        var (code, text) = DotnetSdk.Run("test --disable-build-servers -v minimal", project, p.PrivateNuGet, timeoutMs: 900_000);
        output.WriteLine($"dotnet test of the fresh project (restore, build, run): {sw.Elapsed.TotalSeconds:0.0} s");
        Assert.True(code == 0, text);
        Assert.Matches(@"Passed!\s+-\s+Failed:\s+0,\s+Passed:\s+1,", text);
        // The package came from the packed folder, into the private cache.
        Assert.True(Directory.Exists(Path.Combine(p.NuGetPackages, "redisclone", p.Version)), text);
    }

    private static string ConfigProperties(string runtimeConfig)
        => JsonNode.Parse(File.ReadAllText(runtimeConfig))!["runtimeOptions"]!["configProperties"]!.ToJsonString();
}
