namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// The .NET SDK as a developer runs it (dotnet pack, tool install, test), for the packaging tests:
/// each command bounded in time, without telemetry or first-run text, and without the MSBuild
/// variables the test host inherited from the <c>dotnet test</c> that started it.
/// </summary>
public static class DotnetSdk
{
    /// <summary>The dotnet host that runs these tests (DOTNET_HOST_PATH), else the one on PATH.</summary>
    public static string Host { get; } =
        Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } path && File.Exists(path) ? path : "dotnet";

    private static readonly Lazy<string?> Unusable = new(() =>
    {
        try
        {
            var (code, output) = ToolRunner.Run(Host, "--version", timeoutMs: 60_000);
            string version = output.Trim();
            if (code != 0) return $"the .NET SDK is not usable (`{Host} --version` exited with {code}: {version})";
            return int.TryParse(version.Split('.')[0], out int major) && major >= 10
                ? null
                : $"the .NET SDK found ({version}) is older than 10, which the packages need";
        }
        catch (Exception ex) when (ex is System.ComponentModel.Win32Exception or TimeoutException)
        {
            return $"the .NET SDK is not usable ({Host}: {ex.Message})";
        }
    });

    /// <summary>Why the SDK cannot be used, or null when it can.</summary>
    public static string? Problem => Unusable.Value;

    /// <summary>Runs <c>dotnet <paramref name="args"/></c> in <paramref name="workingDirectory"/> with <paramref name="environment"/> added.</summary>
    public static (int ExitCode, string Output) Run(string args, string workingDirectory,
        IReadOnlyDictionary<string, string?>? environment = null, int timeoutMs = 600_000)
    {
        var env = new Dictionary<string, string?>
        {
            ["DOTNET_NOLOGO"] = "1",
            ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1",
            ["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1",
        };
        foreach (var name in Environment.GetEnvironmentVariables().Keys.Cast<string>())
            if (name.StartsWith("MSBuild", StringComparison.OrdinalIgnoreCase)) env[name] = null;
        foreach (var (name, value) in environment ?? new Dictionary<string, string?>()) env[name] = value;
        return ToolRunner.Run(Host, args, timeoutMs: timeoutMs, workingDirectory: workingDirectory, environment: env);
    }
}

/// <summary>A fact that is skipped, with the reason, when no usable .NET 10 SDK is found.</summary>
public sealed class DotnetSdkFactAttribute : FactAttribute
{
    public DotnetSdkFactAttribute()
    {
        if (DotnetSdk.Problem is { } problem) Skip = problem;
    }
}
