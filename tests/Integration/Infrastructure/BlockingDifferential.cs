using System.Text;

namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// Runs a scenario that needs several connections (a client blocks, another one writes) against a
/// private redis-server and a private RedisClone, and asserts that both give the same transcript:
/// every reply the scenario records, in order, byte for byte. Both servers are flushed first, so a
/// scenario may use any key, FLUSHALL and SWAPDB.
/// </summary>
/// <remarks>
/// A scenario records what each client reads (<see cref="Run.Read"/>) and waits for a client to be
/// parked with <see cref="Run.Block"/> (the server says so: <see cref="Blocked"/>), never with a
/// sleep, so a write cannot land before the client blocked.
/// </remarks>
public static class BlockingDifferential
{
    private static readonly SemaphoreSlim Gate = new(1, 1);
    private static readonly Lazy<TestServer> Ours = new(() => TestServer.Start(shards: 4));
    private static readonly Lazy<ReferenceRedis> Theirs = new(() =>
        ReferenceRedis.StartOrNull() ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage));

    /// <summary>One run of a scenario on one server: its clients and its transcript.</summary>
    public sealed class Run(RespClient[] clients)
    {
        private readonly StringBuilder _transcript = new();

        public RespClient this[int i] => clients[i];

        public string Transcript => _transcript.ToString();

        /// <summary>Sends a command on client <paramref name="i"/> and records its reply.</summary>
        public string Call(int i, params string[] command) => Record(i, command, clients[i].Call(command));

        /// <summary>Sends a command on client <paramref name="i"/> and waits until the server shows that client blocked.</summary>
        public void Block(int i, params string[] command) => Blocked.Send(clients[i], clients[^1], command);

        /// <summary>Sends without waiting for anything (a command that should block, or not).</summary>
        public void Send(int i, params string[] command) => clients[i].Send(command);

        /// <summary>Reads and records the next reply of client <paramref name="i"/>.</summary>
        public string Read(int i) => Record(i, ["(read)"], clients[i].ReadReply());

        /// <summary>Records that client <paramref name="i"/> got no reply within <paramref name="ms"/>.</summary>
        public void NoReply(int i, int ms = 100) => Record(i, ["(no reply)"], clients[i].TryReadReply(ms) ?? "none");

        /// <summary>Waits until INFO says <paramref name="count"/> clients are blocked.</summary>
        public void WaitBlocked(int count) => Blocked.WaitForCount(clients[^1], count);

        /// <summary>Records <paramref name="reply"/> under <paramref name="label"/> (for commands whose text differs between the servers, as client IDs).</summary>
        public string Record(int i, string label, string reply) => Record(i, [label], reply);

        private string Record(int i, string[] command, string reply)
        {
            _transcript.Append($"[{i}] {string.Join(' ', command)}\n    {Differential.Show(reply)}\n");
            return reply;
        }
    }

    /// <summary>
    /// Runs <paramref name="scenario"/> with <paramref name="clients"/> connections (plus one more,
    /// the last, that watches for blocked clients) on both servers, in RESP <paramref name="protocol"/>.
    /// </summary>
    public static void AssertSame(int clients, Action<Run> scenario, int protocol = 2)
    {
        Gate.Wait();
        try
        {
            string theirs = RunOn(() => Theirs.Value.Connect(), clients, scenario, protocol);
            string ours = RunOn(() => Ours.Value.Connect(), clients, scenario, protocol);
            Assert.True(theirs == ours, $"transcripts differ\n--- redis-server:\n{theirs}\n--- redisclone:\n{ours}");
        }
        finally
        {
            Gate.Release();
        }
    }

    /// <summary>Runs <paramref name="scenario"/> on our server only (what 7.0 cannot show) and returns the transcript.</summary>
    public static string RunOurs(int clients, Action<Run> scenario, int protocol = 2)
    {
        Gate.Wait();
        try
        {
            return RunOn(() => Ours.Value.Connect(), clients, scenario, protocol);
        }
        finally
        {
            Gate.Release();
        }
    }

    private static string RunOn(Func<RespClient> connect, int clients, Action<Run> scenario, int protocol)
    {
        var connections = new RespClient[clients + 1];
        for (int i = 0; i < connections.Length; i++) connections[i] = connect();
        try
        {
            if (protocol == 3)
                foreach (var c in connections) c.Call("HELLO", "3");
            connections[^1].Call("FLUSHALL");
            var run = new Run(connections);
            scenario(run);
            return run.Transcript;
        }
        finally
        {
            foreach (var c in connections) c.Dispose();
            // A scenario may leave a client blocked; its disconnect must free it before the next one.
            using var observer = connect();
            Blocked.WaitForCount(observer, 0);
        }
    }
}
