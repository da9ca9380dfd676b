using System.Diagnostics;

namespace RedisClone.Tests.Infrastructure;

/// <summary>Runs one of Redis's command-line tools (redis-cli, redis-benchmark) to completion, bounded in time.</summary>
public static class ToolRunner
{
    /// <summary>
    /// Runs <paramref name="tool"/>, feeding <paramref name="stdin"/>; returns its exit code and stdout+stderr.
    /// <paramref name="environment"/> sets variables for it (a null value removes one).
    /// </summary>
    public static (int ExitCode, string Output) Run(string tool, string args, string? stdin = null, int timeoutMs = 120_000,
        string? workingDirectory = null, IReadOnlyDictionary<string, string?>? environment = null)
    {
        var psi = new ProcessStartInfo(tool, args)
        {
            RedirectStandardInput = stdin != null,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? "",
        };
        foreach (var (name, value) in environment ?? new Dictionary<string, string?>())
        {
            if (value == null) psi.Environment.Remove(name);
            else psi.Environment[name] = value;
        }
        using var p = Process.Start(psi)!;
        var stdout = p.StandardOutput.ReadToEndAsync();
        var stderr = p.StandardError.ReadToEndAsync();
        if (stdin != null)
        {
            p.StandardInput.Write(stdin);
            p.StandardInput.Close();
        }
        if (!p.WaitForExit(timeoutMs))
        {
            p.Kill(entireProcessTree: true);
            throw new TimeoutException($"{tool} {args} did not finish in {timeoutMs} ms");
        }
        return (p.ExitCode, stdout.Result + stderr.Result);
    }

    /// <summary>redis-benchmark -q against a RedisClone port; asserts a clean exit with no error replies.</summary>
    public static string Benchmark(int port, string args, int timeoutMs = 120_000)
    {
        var bench = ReferenceRedis.BenchmarkPath;
        Assert.NotNull(bench);
        var (code, output) = Run(bench!, $"-h 127.0.0.1 -p {port} -q {args}", timeoutMs: timeoutMs);
        Assert.True(code == 0, output);
        Assert.DoesNotContain("ERR", output);
        return output;
    }
}
