using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Blocking;

/// <summary>
/// Several clients blocked on one key, in a known order (each is seen blocked before the next one
/// blocks), are served in that order, as redis-server serves them (issue 26: a later BLMPOP could
/// take every element while the first one waited for ever, and after a BRPOPLPUSH whose destination
/// held another type the next waiter was never served).
/// </summary>
public class BlockingOrderTests
{
    /// <summary>
    /// Three waiters; one write serves the first two (the first takes what its COUNT allows), the
    /// third waits until a second write. Several rounds, since a wrong order showed only sometimes.
    /// </summary>
    [RedisTheory]
    [InlineData("BLPOP")]
    [InlineData("BRPOP")]
    [InlineData("BRPOPLPUSH")]
    [InlineData("BLMOVE")]
    [InlineData("BLMPOP")]
    [InlineData("BZPOPMIN")]
    [InlineData("BZPOPMAX")]
    [InlineData("BZMPOP")]
    [InlineData("XREADGROUP")]
    public void BlockedClients_OneWriteForSeveral_ServedInBlockingOrder(string command) => BlockingDifferential.AssertSame(4, r =>
    {
        var (block, first, second) = Scenario(command);
        if (command == "XREADGROUP") r.Call(3, "XGROUP", "CREATE", "k", "g", "$", "MKSTREAM");
        for (int round = 0; round < 5; round++)
        {
            for (int c = 0; c < 3; c++) r.Block(c, block(c));
            foreach (var write in first(round)) r.Call(3, write);
            r.WaitBlocked(1);
            r.Read(0);
            r.Read(1);
            foreach (var write in second(round)) r.Call(3, write);
            r.Read(2);
            r.WaitBlocked(0);
        }
        r.Call(3, "TYPE", "k");
        if (command is "BRPOPLPUSH" or "BLMOVE") r.Call(3, "LRANGE", "dst", "0", "-1");
        if (command == "XREADGROUP") r.Call(3, "XPENDING", "k", "g");
    });

    /// <summary>
    /// The blocking command of waiter c, the write(s) that serve waiters 0 and 1 of a round (the
    /// first taking all its COUNT allows), and the write that serves waiter 2.
    /// </summary>
    private static (Func<int, string[]> Block, Func<int, string[][]> First, Func<int, string[][]> Second) Scenario(string command)
    {
        string[][] Push(int round, params string[] elements) => [["RPUSH", "k", .. elements.Select(e => $"{e}{round}")]];
        string[][] ZAdd(int round, params string[] members) =>
            [["ZADD", "k", .. members.SelectMany((m, j) => new[] { $"{round * 10 + j}", $"{m}{round}" })]];
        string[][] XAdd(int round, int n) =>
            [["MULTI"], .. Enumerable.Range(1, n).Select(j => new[] { "XADD", "k", $"{round + 1}-{j}", "n", $"{j}" }), ["EXEC"]];
        return command switch
        {
            "BLPOP" or "BRPOP" => (_ => [command, "k", "0"], r => Push(r, "a", "b"), r => Push(r, "c")),
            "BRPOPLPUSH" => (_ => [command, "k", "dst", "0"], r => Push(r, "a", "b"), r => Push(r, "c")),
            "BLMOVE" => (_ => [command, "k", "dst", "LEFT", "RIGHT", "0"], r => Push(r, "a", "b"), r => Push(r, "c")),
            "BLMPOP" => (_ => [command, "0", "1", "k", "LEFT", "COUNT", "2"], r => Push(r, "a", "b", "c"), r => Push(r, "d")),
            "BZPOPMIN" or "BZPOPMAX" => (_ => [command, "k", "0"], r => ZAdd(r, "a", "b"), r => ZAdd(r, "c")),
            "BZMPOP" => (_ => [command, "0", "1", "k", "MIN", "COUNT", "2"], r => ZAdd(r, "a", "b", "c"), r => ZAdd(r, "d")),
            "XREADGROUP" => (c => [command, "GROUP", "g", $"c{c}", "COUNT", "1", "BLOCK", "0", "STREAMS", "k", ">"],
                r => XAdd(r, 2), r => [["XADD", "k", $"{r + 1}-9", "n", "9"]]),
            _ => throw new ArgumentException(command),
        };
    }

    /// <summary>
    /// A waiter moving onto a destination of another type gets WRONGTYPE and the element stays; the
    /// next waiter is then served too (WRONGTYPE again for a move, the element for a plain pop).
    /// </summary>
    [RedisFact]
    public void BRPopLPushAndBLMove_WrongTypeDestination_NextWaiterServed() => BlockingDifferential.AssertSame(5, r =>
    {
        r.Call(4, "SET", "dst", "x");
        r.Block(0, "BRPOPLPUSH", "src", "dst", "0");
        r.Block(1, "BLMOVE", "src", "dst", "RIGHT", "LEFT", "0");
        r.Block(2, "BLPOP", "src", "0");
        r.Block(3, "BLPOP", "src", "0");
        r.Call(4, "RPUSH", "src", "e1");
        r.Read(0);
        r.Read(1);
        r.Read(2);
        r.WaitBlocked(1);
        r.Call(4, "RPUSH", "src", "e2");
        r.Read(3);
        r.Call(4, "EXISTS", "src");
        r.Call(4, "GET", "dst");
    });

    /// <summary>
    /// INFO commandstats counts a blocking command once, when it is served, times out or is
    /// unblocked, not also when it blocked (Redis: calls=1 for a BLPOP that waited).
    /// </summary>
    [RedisFact]
    public void BlockedCommands_CountedOnceInCommandStats() => BlockingDifferential.AssertSame(2, r =>
    {
        r.Call(1, "CONFIG", "RESETSTAT");
        r.Block(0, "BLPOP", "k", "0");
        r.Call(1, "RPUSH", "k", "a");
        r.Read(0);
        r.Call(1, "SET", "dst", "x");
        r.Block(0, "BLMOVE", "k", "dst", "LEFT", "LEFT", "0");
        r.Call(1, "RPUSH", "k", "a");
        r.Read(0);
        r.Call(1, "DEL", "k");
        r.Call(0, "BZPOPMIN", "z", "0.01");
        foreach (var cmd in new[] { "blpop", "blmove", "bzpopmin" })
            r.Record(1, "commandstats " + cmd, CommandStat(r[1], cmd));
    });

    /// <summary>
    /// CLIENT UNBLOCK counts the released command once, failed only for ERROR: Redis 7.2's
    /// unblockClientOnTimeout and unblockClientOnError (7.0.15 counted TIMEOUT as failed too).
    /// </summary>
    [Fact]
    public void ClientUnblock_CountsTheCallOnceFailedOnlyForError()
    {
        string transcript = BlockingDifferential.RunOurs(2, r =>
        {
            r[1].Call("CONFIG", "RESETSTAT");
            string id = r[0].Call("CLIENT", "ID").Trim(':', '\r', '\n');
            r.Block(0, "BRPOP", "k", "0");
            r[1].Call("CLIENT", "UNBLOCK", id);
            r.Read(0);
            r.Record(1, "after TIMEOUT", CommandStat(r[1], "brpop"));
            r.Block(0, "BRPOP", "k", "0");
            r[1].Call("CLIENT", "UNBLOCK", id, "ERROR");
            r.Read(0);
            r.Record(1, "after ERROR", CommandStat(r[1], "brpop"));
        });
        Assert.Equal("[0] (read)\n    *-1\\r\\n\n[1] after TIMEOUT\n    calls=1,rejected_calls=0,failed_calls=0\n"
                     + "[0] (read)\n    -UNBLOCKED client unblocked via CLIENT UNBLOCK\\r\\n\n"
                     + "[1] after ERROR\n    calls=2,rejected_calls=0,failed_calls=1\n", transcript);
    }

    /// <summary>cmdstat_NAME's calls, rejected_calls and failed_calls (usec left out: it differs).</summary>
    internal static string CommandStat(RespClient c, string name)
    {
        string info = c.Call("INFO", "commandstats");
        string prefix = $"cmdstat_{name}:";
        int at = info.IndexOf(prefix, StringComparison.Ordinal);
        if (at < 0) return "(none)";
        int end = info.IndexOf('\r', at);
        var fields = info[(at + prefix.Length)..end].Split(',')
            .Where(f => f.StartsWith("calls=") || f.StartsWith("rejected_calls=") || f.StartsWith("failed_calls="));
        return string.Join(",", fields);
    }
}
