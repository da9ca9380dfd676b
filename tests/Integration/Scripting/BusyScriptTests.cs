using System.Diagnostics;
using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// A script that runs past busy-reply-threshold: what other clients get (-BUSY, or the allow-busy
/// commands' replies), SCRIPT KILL, UNKILLABLE, SHUTDOWN NOSAVE, and the state afterwards. Each test
/// starts its own servers (ours with one event loop, so a script holding a loop would show; both with
/// a 100 ms threshold): a busy server would fail every other test sharing it.
/// </summary>
public class BusyScriptTests
{
    private const string Threshold = "100";
    private const string Spin = "while true do end";
    private const string BusyEval = "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n";
    private const string Unkillable =
        "-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n";

    private static TestServer StartOurs() => TestServer.Start(2, "--io-threads", "1", "--busy-reply-threshold", Threshold);

    private static ReferenceRedis StartTheirs()
        => ReferenceRedis.StartOrNull("--lua-time-limit " + Threshold) ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);

    private const string BusyFunction = "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n";

    /// <summary>Sends PING until the server answers BUSY (it answers PONG until the script passes the threshold).</summary>
    private static void WaitUntilBusy(Func<RespClient> connect, string busy = BusyEval)
    {
        using var probe = connect();
        var sw = Stopwatch.StartNew();
        while (probe.Call("PING") != busy)
        {
            Assert.True(sw.ElapsedMilliseconds < 5000, "the script never became busy");
            Thread.Sleep(10);
        }
    }

    /// <summary>
    /// Starts <paramref name="script"/> on a connection of its own, waits until it is busy, then sends
    /// each of <paramref name="during"/> on a new connection, then SCRIPT KILL; returns every reply
    /// in order, the script caller's included, then those of <paramref name="after"/>.
    /// </summary>
    private static List<string> BusyScenario(Func<RespClient> connect, string script, string[][] during, string[][] after)
    {
        var replies = new List<string>();
        using var caller = connect();
        caller.Call("SCRIPT", "LOAD", "return 'cached'");
        caller.Send("EVAL", script, "0");
        WaitUntilBusy(connect);
        using (var other = connect())
        {
            foreach (var cmd in during) replies.Add(string.Join(' ', cmd) + " -> " + other.Call(cmd));
            replies.Add("SCRIPT KILL -> " + other.Call("SCRIPT", "KILL"));
        }
        replies.Add("caller -> " + caller.ReadReply());
        using var later = connect();
        foreach (var cmd in after) replies.Add(string.Join(' ', cmd) + " -> " + later.Call(cmd));
        return replies;
    }

    private static void AssertSameAsRedis(string script, string[][] during, string[][] after)
    {
        List<string> theirs, ours;
        using (var reference = StartTheirs()) theirs = BusyScenario(reference.Connect, script, during, after);
        var server = StartOurs();
        try
        {
            ours = BusyScenario(server.Connect, script, during, after);
        }
        finally
        {
            server.DisposeAsync().AsTask().Wait();
        }
        var failures = new StringBuilder();
        for (int i = 0; i < Math.Max(theirs.Count, ours.Count); i++)
        {
            string t = i < theirs.Count ? theirs[i] : "(none)", o = i < ours.Count ? ours[i] : "(none)";
            if (t != o) failures.AppendLine($"  redis:      {Differential.Show(t)}\n  redisclone: {Differential.Show(o)}");
        }
        Assert.True(failures.Length == 0, "replies differ from redis-server:\n" + failures);
    }

    [RedisFact]
    public void Eval_BusyScript_OtherClientsGetBusyUntilKilled()
        => AssertSameAsRedis(Spin,
            during:
            [
                ["GET", "a"], ["PING"], ["SET", "a", "1"], ["CLIENT", "SETNAME", "x"], ["SCRIPT", "LOAD", "return 2"],
                ["EVAL", "return 1", "0"], ["SHUTDOWN"], ["SHUTDOWN", "SAVE"],
                // MULTI runs; a command inside gets BUSY (flagging the transaction); EXEC is refused with
                // the reason and ends the transaction.
                ["MULTI"], ["GET", "a"], ["EXEC"], ["DISCARD"], ["UNWATCH"],
                ["AUTH", "nopass"],
            ],
            after:
            [
                ["SCRIPT", "KILL"], ["PING"], ["GET", "a"], ["EVAL", "return 'again'", "0"],
                ["SCRIPT", "EXISTS", "a4fd8ae0e6ad3a1b95cb4b76d9c6d4db8fa0d41c", LuaSha("return 'cached'")],
                ["EVALSHA", LuaSha("return 'cached'"), "0"],
            ]);

    [RedisFact]
    public void ScriptKill_PcallAroundTheLoop_CannotSwallowTheKill()
        => AssertSameAsRedis("while true do pcall(function() while true do end end) end",
            during: [["GET", "a"]],
            after: [["EVAL", "return pcall(function() return 1 end)", "0"]]);

    /// <summary>The kill waits while the script is inside a sort comparator (it cannot yield there), then ends it.</summary>
    [RedisFact]
    public void ScriptKill_ScriptInsideSortComparator_KilledOnceOutOfIt()
        => AssertSameAsRedis(
            "local t = {} for i = 1, 200 do t[i] = i end while true do table.sort(t, function(a, b) return a > b end) end",
            during: [["PING"]],
            after: [["PING"]]);

    [RedisFact]
    public void Eval_ScriptYieldsItself_FailsAs51()
        => Differential.AssertSame(
            ["EVAL", "coroutine.yield(1)", "0"],
            ["EVAL", "local ok, e = pcall(coroutine.yield, 1) return {tostring(ok), e}", "0"],
            ["EVAL", "return coroutine.wrap(function() coroutine.yield(5) end)()", "0"],
            ["EVAL", "local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) return b * 2 end) " +
                     "local _, x = coroutine.resume(co, 1) local _, y = coroutine.resume(co, 10) return {x, y}", "0"],
            ["EVAL", "return coroutine.wrap(function() error('x') end)()", "0"],
            ["EVAL", "return coroutine.wrap(function() error({err='tbl'}) end)()", "0"],
            ["EVAL", "local f = coroutine.wrap(function() return 1 end) f() return f()", "0"],
            ["EVAL", "local co = coroutine.create(function() error('in') end) return {coroutine.resume(co)}", "0"],
            ["EVAL", "return coroutine.wrap(function(...) return select('#', ...) end)(1, nil, 3)", "0"],
            ["PING"]);

    [RedisFact]
    public void ScriptKill_NoScriptRunning_NotBusy()
        => Differential.AssertSame(["SCRIPT", "KILL"], ["SCRIPT", "KILL", "extra"], ["PING"]);

    [RedisFact]
    public void Exec_RejectedInsideMulti_AbortsTheTransaction()
        => Differential.AssertSame(["MULTI"], ["SET", "k", "v"], ["EXEC", "extra"], ["EXEC"], ["GET", "k"], ["PING"]);

    /// <summary>
    /// A script that wrote cannot be killed (UNKILLABLE); only SHUTDOWN NOSAVE ends it, as in Redis
    /// (plain SHUTDOWN is refused with BUSY). Both servers stop and close the caller's connection.
    /// </summary>
    [RedisFact]
    public async Task ShutdownNoSave_BusyScriptThatWrote_StopsTheServer()
    {
        const string script = "redis.call('SET', 'written', '1') while true do end";
        List<string> theirs;
        using (var reference = StartTheirs()) theirs = Unkillable_ThenShutdown(reference.Connect, script);
        var server = StartOurs();
        List<string> ours;
        try
        {
            ours = Unkillable_ThenShutdown(server.Connect, script);
        }
        finally
        {
            await server.DisposeAsync();
        }
        Assert.Equal(theirs, ours);
        Assert.Equal(["SCRIPT KILL -> " + Unkillable, "SHUTDOWN -> " + BusyEval, "closed: True", "caller closed: True", "refused: True"], ours);
    }

    private static List<string> Unkillable_ThenShutdown(Func<RespClient> connect, string script)
    {
        var replies = new List<string>();
        using var caller = connect();
        caller.Send("EVAL", script, "0");
        WaitUntilBusy(connect);
        using var other = connect();
        replies.Add("SCRIPT KILL -> " + other.Call("SCRIPT", "KILL"));
        replies.Add("SHUTDOWN -> " + other.Call("SHUTDOWN"));
        other.Send("SHUTDOWN", "NOSAVE");
        replies.Add("closed: " + other.IsClosedByServer());
        replies.Add("caller closed: " + caller.IsClosedByServer());
        bool refused = false;
        var sw = Stopwatch.StartNew();
        while (!refused && sw.ElapsedMilliseconds < 5000)
        {
            try
            {
                using var late = connect();
                late.Call("PING");
                Thread.Sleep(20);
            }
            catch (Exception)
            {
                refused = true;
            }
        }
        replies.Add("refused: " + refused);
        return replies;
    }

    /// <summary>
    /// Redis reads a SCRIPT KILL only once the script is busy: one sent earlier waits for the
    /// threshold and then kills; against a script that ends in time it answers NOTBUSY.
    /// </summary>
    [Fact]
    public async Task ScriptKill_SentBeforeTheThreshold_WaitsForIt()
    {
        var server = TestServer.Start(2, "--io-threads", "1", "--busy-reply-threshold", "300");
        try
        {
            using var caller = server.Connect();
            using var killer = server.Connect();
            caller.Send("EVAL", Spin, "0");
            // Until the server runs it (a fixed sleep let the kill arrive first on a loaded machine).
            var watchdog = server.Server.ScriptWatchdog;
            await Eventually.WaitFor(() => watchdog.RunningKind == RedisClone.Scripting.ScriptKind.Eval, () => "the script never started");
            // How long it had run, read before the clock below starts: their sum when the kill is
            // answered is at most the script's run time by then, which must have reached 300 ms.
            long ranMs = watchdog.RunningScript?.ElapsedMs ?? 0;
            var sw = Stopwatch.StartNew();
            Assert.Equal("+OK\r\n", killer.Call("SCRIPT", "KILL"));
            // Some room for the moment between the two readings (a loaded machine may pause there):
            // a kill answered at once would show little more than ranMs, which is far below 200
            // whenever the kill was sent early (sent late, the check proves nothing and holds).
            Assert.InRange(ranMs + sw.ElapsedMilliseconds, 200, 10_000);
            Assert.StartsWith("-ERR Script killed by user with SCRIPT KILL... script: ", caller.ReadReply());

            // A script of some tens of ms (well under the threshold, even on a loaded machine; Redis
            // 7.2 had no os.clock to time it with; a loop count keeps it the same on both) is not killed: the kill waits for its end.
            Assert.Equal("+OK\r\n", killer.Call("CONFIG", "SET", "busy-reply-threshold", "5000"));
            caller.Send("EVAL", "local n = 0 for i = 1, 5000000 do n = n + i end return 'done'", "0");
            Thread.Sleep(30);
            Assert.Equal("-NOTBUSY No scripts in execution right now.\r\n", killer.Call("SCRIPT", "KILL"));
            Assert.Equal("$4\r\ndone\r\n", caller.ReadReply());
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    /// <summary>A script holds every gate but no event loop: a client on the same (only) loop is answered while it runs.</summary>
    [Fact]
    public async Task Eval_BusyScript_ClientConnectedMeanwhileIsAnswered()
    {
        var server = StartOurs();
        try
        {
            using var caller = server.Connect();
            caller.Send("EVAL", Spin, "0");
            WaitUntilBusy(server.Connect);
            using var late = server.Connect();
            Assert.Equal(BusyEval, late.Call("PING"));
            Assert.Equal("+OK\r\n", late.Call("MULTI"));
            Assert.Equal(BusyEval, late.Call("GET", "a"));
            using (var killer = server.Connect()) Assert.Equal("+OK\r\n", killer.Call("SCRIPT", "KILL"));
            Assert.StartsWith("-ERR Script killed by user", caller.ReadReply());
            Assert.Equal("-EXECABORT Transaction discarded because of previous errors.\r\n", late.Call("EXEC"));
            Assert.Equal("+PONG\r\n", late.Call("PING"));
            Assert.Equal(":1\r\n", caller.Call("EVAL", "return 1", "0"));
        }
        finally
        {
            await server.DisposeAsync();
        }
    }

    /// <summary>Pipelined scripts run together on a shard thread, in posts bounded by their replies' size: all replied, in order.</summary>
    [Fact]
    public void Eval_PipelinedScriptsWithLargeReplies_RepliedInOrder()
    {
        using var c = TestServer.Shared.Connect();
        var batch = new List<byte>();
        for (int i = 0; i < 40; i++)
            batch.AddRange(RespClient.Encode("EVAL", "return string.rep(ARGV[1], 10000)", "0", (i % 10).ToString()));
        batch.AddRange(RespClient.Encode("PING"));
        c.SendRaw(batch.ToArray());
        for (int i = 0; i < 40; i++) Assert.Equal("$10000\r\n" + new string((char)('0' + i % 10), 10000) + "\r\n", c.ReadReply());
        Assert.Equal("+PONG\r\n", c.ReadReply());
    }

    private static string LuaSha(string body) => Convert.ToHexStringLower(System.Security.Cryptography.SHA1.HashData(Encoding.UTF8.GetBytes(body)));

    /// <summary>
    /// A busy function: the FUNCTION variant of BUSY, SCRIPT KILL refused with it, FUNCTION STATS
    /// naming the running function and its command, FUNCTION KILL, and the caller's error.
    /// </summary>
    [RedisFact]
    public void FunctionBusy_StatsAndKill_AsRedis()
    {
        static List<string> Scenario(Func<RespClient> connect)
        {
            var replies = new List<string>();
            using var caller = connect();
            caller.Call("FUNCTION", "FLUSH");
            caller.Call("FUNCTION", "LOAD", "#!lua name=spinlib\nredis.register_function('spin', function(keys, args) while true do end end)");
            caller.Send("FCALL", "spin", "1", "busy:k", "arg1");
            WaitUntilBusy(connect, BusyFunction);
            using (var other = connect())
            {
                replies.Add("GET -> " + other.Call("GET", "busy:k"));
                replies.Add("SCRIPT KILL -> " + other.Call("SCRIPT", "KILL"));
                string stats = other.Call("FUNCTION", "STATS");
                replies.Add("FUNCTION STATS -> " + System.Text.RegularExpressions.Regex.Replace(stats, @"(\$11\r\nduration_ms\r\n):\d+", "$1:N"));
                replies.Add("FUNCTION KILL -> " + other.Call("FUNCTION", "KILL"));
            }
            replies.Add("caller -> " + caller.ReadReply());
            using var later = connect();
            replies.Add("FUNCTION KILL -> " + later.Call("FUNCTION", "KILL"));
            replies.Add("FUNCTION STATS -> " + later.Call("FUNCTION", "STATS"));
            replies.Add("FUNCTION FLUSH -> " + later.Call("FUNCTION", "FLUSH"));
            return replies;
        }
        List<string> theirs, ours;
        using (var reference = StartTheirs()) theirs = Scenario(reference.Connect);
        var server = StartOurs();
        try
        {
            ours = Scenario(server.Connect);
        }
        finally
        {
            server.DisposeAsync().AsTask().Wait();
        }
        Assert.Equal(theirs, ours);
    }

    /// <summary>While an EVAL script is busy, FUNCTION STATS and FUNCTION KILL answer the EVAL BUSY text.</summary>
    [RedisFact]
    public void FunctionStatsAndKill_DuringBusyEval_AsRedis()
        => AssertSameAsRedis(Spin, during: [["FUNCTION", "STATS"], ["FUNCTION", "KILL"]], after: [["FUNCTION", "STATS"]]);

    /// <summary>
    /// SCRIPT LOAD/EXISTS/FLUSH and FUNCTION LOAD/LIST/DUMP/... take the cache's lock, which a running
    /// script holds: sent before the script is busy, they must not hold the one event loop (every
    /// client here is on it) while they wait, so another client's PING is still answered.
    /// </summary>
    [Theory]
    [InlineData("SCRIPT", "LOAD", "return 1")]
    [InlineData("SCRIPT", "EXISTS", "0000000000000000000000000000000000000000")]
    [InlineData("SCRIPT", "FLUSH")]
    [InlineData("FUNCTION", "LIST")]
    [InlineData("FUNCTION", "DUMP")]
    [InlineData("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)")]
    public async Task CacheCommand_SentWhileAScriptRuns_LoopKeepsAnswering(params string[] command)
    {
        // The default threshold (5 s), so the command arrives while the script runs but is not busy yet.
        await using var server = TestServer.Start(2, "--io-threads", "1");
        using var caller = server.Connect();
        using var waiter = server.Connect();
        using var other = server.Connect();
        Assert.Equal("+PONG\r\n", other.Call("PING"));
        // FUNCTION's subcommands wait for the function store's lock, which a running function holds;
        // SCRIPT's for the script cache's, which an EVAL holds.
        bool function = command[0] == "FUNCTION";
        if (function)
        {
            Assert.Equal("$7\r\nspinlib\r\n", other.Call("FUNCTION", "LOAD", "#!lua name=spinlib\nredis.register_function('spin', function() " + Spin + " end)"));
            caller.Send("FCALL", "spin", "0");
        }
        else caller.Send("EVAL", Spin, "0");
        var sw = Stopwatch.StartNew();
        while (server.Server.ScriptWatchdog.RunningKind == RedisClone.Scripting.ScriptKind.None)
        {
            Assert.True(sw.ElapsedMilliseconds < 10_000, "the script never started");
            Thread.Sleep(5);
        }
        waiter.Send(command);
        // The same event loop answers (PONG, or BUSY once the threshold has passed).
        Assert.Contains(other.Call("PING"), new[] { "+PONG\r\n", BusyEval, BusyFunction });
        Assert.Equal("+OK\r\n", other.Call(function ? "FUNCTION" : "SCRIPT", "KILL"));
        Assert.StartsWith("-ERR Script killed by user", caller.ReadReply());
        Assert.NotEmpty(waiter.ReadReply()); // its own reply, once the script is gone (BUSY if it came late)
    }
}
