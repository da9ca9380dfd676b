using System.Text;
using System.Text.RegularExpressions;

namespace RedisClone.Tests.Infrastructure;

/// <summary>
/// Runs a script of commands against RedisClone (with a <see cref="PropagationRecorder"/> attached)
/// and against a redis-server read through its replication link (<see cref="ReplicaStream"/>), and
/// asserts that both propagate the same commands: what an AOF or a replica would receive.
/// </summary>
/// <remarks>
/// Both servers run with active expiry off, so keys expire only when a command finds them. Scripts
/// run in database 9, flushed first. A line "!sleep N" waits N ms. Unix times in ms (13 digits and
/// more) are compared as "&lt;ms&gt;", as the two servers' clocks differ by the time between calls.
/// </remarks>
internal static class PropagationDifferential
{
    private const string FenceKey = "propagation:fence";
    private static readonly SemaphoreSlim Gate = new(1, 1);
    private static readonly Lazy<Ours> OurServer = new(StartOurs);
    private static readonly Lazy<Theirs> TheirServer = new(StartTheirs);

    private sealed record Ours(TestServer Server, PropagationRecorder Recorder);

    private sealed record Theirs(ReferenceRedis Server, ReplicaStream Stream);

    private static Ours StartOurs()
    {
        var server = TestServer.Start(4, "--enable-debug-command", "yes");
        var recorder = new PropagationRecorder();
        server.Server.PropagationListener = recorder;
        using var c = server.Connect();
        string reply = c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "0");
        if (reply != "+OK\r\n") throw new InvalidOperationException("DEBUG SET-ACTIVE-EXPIRE 0 answered " + reply);
        return new Ours(server, recorder);
    }

    private static Theirs StartTheirs()
    {
        var dir = Directory.CreateTempSubdirectory("redisclone-propagation-").FullName;
        var server = ReferenceRedis.StartOrNull($"--dir {dir} --repl-diskless-sync no --enable-debug-command yes")
            ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        var stream = ReplicaStream.Attach(server.Port);
        using var c = server.Connect();
        string reply = c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "0");
        if (reply != "+OK\r\n") throw new InvalidOperationException("redis-server: DEBUG SET-ACTIVE-EXPIRE 0 answered " + reply);
        return new Theirs(server, stream);
    }

    /// <summary>Each line is one command, arguments separated by spaces.</summary>
    public static void AssertSame(params string[] script)
        => AssertSame(script.Select(Differential.SplitLine).ToArray());

    public static void AssertSame(params string[][] script)
    {
        var (ours, theirs) = Run(script);
        Assert.True(ours.SequenceEqual(theirs),
            $"propagated commands differ from redis-server's replication stream\n  redis:      {string.Join(" | ", theirs)}\n  redisclone: {string.Join(" | ", ours)}");
    }

    /// <summary>
    /// <see cref="AssertSame(string[])"/> command by command, for where we propagate more than
    /// redis-server 7.0 on purpose: command i must propagate what redis-server propagated for it
    /// followed by <paramref name="oursAlso"/>[i] (normalised lines), as one unit (MULTI/EXEC when
    /// that makes more than one command).
    /// </summary>
    public static void AssertSameEach(string[] script, IReadOnlyDictionary<int, string[]> oursAlso)
    {
        var commands = script.Select(Differential.SplitLine).ToArray();
        var theirs = new List<List<string>>();
        var ours = new List<List<string>>();
        Gate.Wait();
        try
        {
            var reference = TheirServer.Value;
            using (var c = reference.Server.Connect())
            {
                c.Call("SELECT", "9");
                c.Call("FLUSHDB");
                Fence(c, reference.Stream);
                foreach (var cmd in commands)
                {
                    Execute(c, cmd);
                    theirs.Add(Fence(c, reference.Stream).Select(Normalise).ToList());
                }
            }
            var pair = OurServer.Value;
            using (var c = pair.Server.Connect())
            {
                c.Call("SELECT", "9");
                c.Call("FLUSHDB");
                pair.Recorder.Take();
                foreach (var cmd in commands)
                {
                    Execute(c, cmd);
                    ours.Add(pair.Recorder.Take().Select(Normalise).ToList());
                }
            }
        }
        finally
        {
            Gate.Release();
        }
        var failures = new StringBuilder();
        for (int i = 0; i < commands.Length; i++)
        {
            var expected = theirs[i];
            if (oursAlso.TryGetValue(i, out var also))
            {
                expected = expected.Where(l => l is not ("MULTI" or "EXEC")).Concat(also).ToList();
                if (expected.Count > 1) expected = ["MULTI", .. expected, "EXEC"];
            }
            if (!ours[i].SequenceEqual(expected))
                failures.AppendLine($"{script[i]}\n  expected:   {string.Join(" | ", expected)}\n  redisclone: {string.Join(" | ", ours[i])}");
        }
        Assert.True(failures.Length == 0, "propagated commands differ from redis-server's replication stream (with our additions)\n" + failures);
    }

    /// <summary>
    /// The same with a second client that blocks: <paramref name="before"/> runs, then
    /// <paramref name="blocking"/> is sent on another connection and waited on until the server shows
    /// it blocked, then <paramref name="after"/> runs (which should wake it) and its reply is read.
    /// What the woken command propagates is compared too.
    /// </summary>
    /// <remarks><paramref name="adjustTheirs"/>, when given, turns redis-server's lines into what we send on purpose.</remarks>
    public static void AssertSameWithWaiter(string[][] before, string[] blocking, string[][] after,
        Func<List<string>, List<string>>? adjustTheirs = null)
    {
        Gate.Wait();
        List<string> ours, theirs;
        try
        {
            var reference = TheirServer.Value;
            using (var c = reference.Server.Connect())
            using (var waiter = reference.Server.Connect())
            {
                c.Call("SELECT", "9");
                c.Call("FLUSHDB");
                Fence(c, reference.Stream);
                RunWithWaiter(c, waiter, before, blocking, after);
                theirs = Fence(c, reference.Stream).Select(Normalise).ToList();
                if (adjustTheirs != null) theirs = adjustTheirs(theirs);
            }
            var pair = OurServer.Value;
            using (var c = pair.Server.Connect())
            using (var waiter = pair.Server.Connect())
            {
                c.Call("SELECT", "9");
                c.Call("FLUSHDB");
                pair.Recorder.Take();
                RunWithWaiter(c, waiter, before, blocking, after);
                ours = pair.Recorder.Take().Select(Normalise).ToList();
            }
        }
        finally
        {
            Gate.Release();
        }
        Assert.True(ours.SequenceEqual(theirs),
            $"propagated commands differ from redis-server's replication stream\n  redis:      {string.Join(" | ", theirs)}\n  redisclone: {string.Join(" | ", ours)}");
    }

    private static void RunWithWaiter(RespClient c, RespClient waiter, string[][] before, string[] blocking, string[][] after)
    {
        waiter.Call("SELECT", "9");
        foreach (var cmd in before) Execute(c, cmd);
        Blocked.Send(waiter, c, blocking);
        foreach (var cmd in after) Execute(c, cmd);
        waiter.ReadReply();
    }

    /// <summary>Runs the script on RedisClone only and returns what it propagated (normalised).</summary>
    public static List<string> Propagated(params string[] script)
        => RunOurs(script.Select(Differential.SplitLine).ToArray());

    private static (List<string> Ours, List<string> Theirs) Run(string[][] script)
    {
        Gate.Wait();
        try
        {
            var reference = TheirServer.Value;
            List<string> theirs;
            using (var c = reference.Server.Connect())
            {
                c.Call("SELECT", "9");
                c.Call("FLUSHDB");
                Fence(c, reference.Stream);
                foreach (var cmd in script) Execute(c, cmd);
                theirs = Fence(c, reference.Stream);
            }
            var ours = RunOursLocked(OurServer.Value, script);
            return (ours, theirs.Select(Normalise).ToList());
        }
        finally
        {
            Gate.Release();
        }
    }

    private static List<string> RunOurs(string[][] script)
    {
        Gate.Wait();
        try
        {
            return RunOursLocked(OurServer.Value, script);
        }
        finally
        {
            Gate.Release();
        }
    }

    private static List<string> RunOursLocked(Ours pair, string[][] script)
    {
        using var c = pair.Server.Connect();
        c.Call("SELECT", "9");
        c.Call("FLUSHDB");
        pair.Recorder.Take();
        foreach (var cmd in script) Execute(c, cmd);
        return pair.Recorder.Take().Select(Normalise).ToList();
    }

    private static void Execute(RespClient c, string[] cmd)
    {
        if (cmd[0] == "!sleep")
        {
            Thread.Sleep(int.Parse(cmd[1]));
            return;
        }
        c.Call(cmd);
    }

    /// <summary>Sends the fence from another connection and returns what the stream carried before it.</summary>
    private static List<string> Fence(RespClient c, ReplicaStream stream)
    {
        c.Call("SET", FenceKey, "1");
        return stream.ReadUntilFence(FenceKey);
    }

    private static string Normalise(string line) => Regex.Replace(line, @"(?<=\s)\d{13,}(?=\s|$)", "<ms>");
}
