using BenchmarkDotNet.Running;

namespace RedisClone.Benchmarks;

/// <summary>Runs the benchmarks: <c>dotnet run -c Release --project bench/RedisClone.Benchmarks -- --filter '*'</c>.</summary>
internal static class Program
{
    public static void Main(string[] args) => BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
}
