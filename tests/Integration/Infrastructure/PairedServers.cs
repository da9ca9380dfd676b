using System.Text;
namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// A private redis-server and a private RedisClone started with the same options (a password, users,
/// protected mode...), for tests that change server-wide state or need a private server each. <see cref="Compare"/> runs
/// the same commands on a connection to each and collects the differences.
/// </summary>
internal sealed class PairedServers : IDisposable
{
    private readonly ReferenceRedis _reference;
    private readonly TestServer _ours;

    public PairedServers(params string[] args)
    {
        _reference = ReferenceRedis.StartOrNull(string.Join(' ', args.Select(Quote)))
                     ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        _ours = TestServer.Start(2, args);
    }

    public int ReferencePort => _reference.Port;
    public int OurPort => _ours.Port;

    public RespClient ConnectTheirs() => _reference.Connect();
    public RespClient ConnectOurs() => _ours.Connect();

    private static string Quote(string arg) => arg.Length == 0 || arg.Contains(' ') || arg.Contains('>') || arg.Contains('<') || arg.Contains('~') || arg.Contains('&') || arg.Contains('(') || arg.Contains('*')
        ? "\"" + arg + "\"" : arg;

    /// <summary>Runs each command on both connections; the differences, one block per command (empty when none).</summary>
    public static string Compare(RespClient theirs, RespClient ours, IEnumerable<string[]> script, Func<string, string>? normalizeTheirs = null)
    {
        var failures = new StringBuilder();
        foreach (var cmd in script)
        {
            string expected = theirs.Call(cmd);
            if (normalizeTheirs != null) expected = normalizeTheirs(expected);
            string actual = ours.Call(cmd);
            if (expected != actual)
                failures.AppendLine($"{string.Join(' ', cmd)}\n  redis:      {Differential.Show(expected)}\n  redisclone: {Differential.Show(actual)}");
        }
        return failures.ToString();
    }

    public void Dispose()
    {
        _reference.Dispose();
        _ours.DisposeAsync().AsTask().GetAwaiter().GetResult();
    }
}
