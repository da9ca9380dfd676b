using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// Input that nests without end — a table that holds itself, a chain 9000 tables deep, JSON or
/// MessagePack thousands of levels deep — against redis-server, byte for byte, with a PING after
/// each so a server that died shows. RedisClone runs as a process of its own here: a .NET stack
/// overflow cannot be caught, and in the test host it would end the whole test run.
/// </summary>
/// <remarks>
/// Redis bounds all of it with Lua 5.1's stack (8000 slots): a script's reply answers "-ERR
/// reached lua stack limit" where the next value no longer fits, cjson stops at its depth limits,
/// cmsgpack packs tables nested 16 deep as nil and unpacks until the stack is full. Maps and sets
/// here have one entry each: Lua 5.1 and our Lua 5.4 walk a table's hash part in different orders.
/// </remarks>
public sealed class ScriptNestingTests
{
    private static string[] Eval(string script) => ["EVAL", script, "0"];

    /// <summary>Runs each command on a private redis-server and a RedisClone process and compares every reply.</summary>
    private static void AssertSame(int protocol, IEnumerable<string[]> commands)
    {
        using var reference = ReferenceRedis.StartOrNull() ?? throw new InvalidOperationException(ReferenceRedis.MissingMessage);
        using var server = ExternalServer.Start(4096, "--shards 2 --save ''");
        using var theirs = reference.Connect();
        using var ours = server.Connect(timeoutMs: 60_000);
        if (protocol == 3)
        {
            theirs.Call("HELLO", "3");
            ours.Call("HELLO", "3");
        }
        var failures = new StringBuilder();
        foreach (var command in commands)
        {
            string expected = theirs.Call(command);
            string actual;
            try
            {
                actual = ours.Call(command);
            }
            catch (Exception e) when (e is EndOfStreamException or System.Net.Sockets.SocketException)
            {
                Assert.Fail($"the server died on {Show(command)}: {e.Message}\n{Tail(server.Output, 3000)}");
                return;
            }
            if (expected != actual) failures.Append($"{Show(command)}\n  redis: {Tail(expected, 300)}\n  ours:  {Tail(actual, 300)}\n");
            Assert.Equal("+PONG\r\n", ours.Call("PING"));
        }
        Assert.False(server.HasExited);
        Assert.True(failures.Length == 0, failures.ToString());
    }

    private static string Show(string[] command) => string.Join(' ', command.Select(a => a.Length > 300 ? a[..300] + "..." : a));

    private static string Tail(string text, int max)
        => text.Length <= max ? text : $"[{text.Length} bytes] {text[..(max / 2)]}...{text[^(max / 2)..]}";

    /// <summary>What Redis answers for replies that nest past its Lua stack, in RESP2 and RESP3.</summary>
    public static readonly TheoryData<int> Protocols = new() { 2, 3 };

    [RedisTheory]
    [MemberData(nameof(Protocols))]
    public void Eval_TableHoldingItself_AnswersLuaStackLimitAsRedis(int protocol)
        => AssertSame(protocol,
        [
            Eval("local a = {}; a[1] = a; return a"),
            Eval("local a = {}; a[1] = a; return {a, 5}"),
            Eval("local t = {} local r = t for i = 1, 9000 do local n = {} t[1] = n t = n end return r"),
            Eval("local t = {}; t.map = {k = t}; return t"),
            Eval("local t = {}; t.map = {}; t.map[t] = 1; return t"),
            Eval("local t = {}; t.set = {}; t.set[t] = true; return t"),
            Eval("local t = {}; local m = {}; m.map = {k = t}; t[1] = m; return t"),
            Eval("local a = {}; a[1] = a; a[2] = {ok = 'x'}; return a"),
            Eval("local a = {}; a[1] = a; a[2] = {err = 'x'}; return a"),
            Eval("local a = {}; a[1] = a; a[2] = {double = 1.5}; return a"),
            Eval("local a = {}; a[1] = a; a[2] = true; return a"),
            Eval("local a = {}; a[1] = a; a[2] = {big_number = '123'}; return a"),
            Eval("local a = {}; a[1] = a; a[2] = {verbatim_string = {format = 'txt', string = 'hi'}}; return a"),
            Eval("redis.setresp(3); local a = {}; a[1] = a; a[2] = true; return a"),
            Eval("local a = {}; a[1] = a; return redis.pcall('ping', a)"),
            ["FUNCTION", "LOAD", "REPLACE", "#!lua name=nesting\nredis.register_function('itself', function() local a = {} a[1] = a return a end)"],
            ["FCALL", "itself", "0"],
            ["CONFIG", "RESETSTAT"],
            Eval("local a = {}; a[1] = a; return {a, a}"),
            ["INFO", "errorstats"],
        ]);

    /// <summary>
    /// Random chains of arrays, maps (the chain in a value or in a key) and sets, up to 9000 deep,
    /// ending in a scalar or in a reference back into the chain, returned as they are or through
    /// cjson and cmsgpack; and JSON and MessagePack texts thousands of levels deep, decoded. Seeded:
    /// a failure names the script that failed.
    /// </summary>
    [RedisTheory]
    [MemberData(nameof(Protocols))]
    public void Eval_RandomDeepNesting_ServerStaysUpAndMatchesRedis(int protocol)
        => AssertSame(protocol, RandomScripts(new Random(26 + protocol), 60).Select(Eval));

    private static IEnumerable<string> RandomScripts(Random random, int count)
    {
        for (int i = 0; i < count; i++)
        {
            int depth = random.Next(4) switch { 0 => random.Next(1, 20), 1 => random.Next(20, 2000), 2 => random.Next(2600, 2700), _ => random.Next(7990, 9001) };
            switch (random.Next(6))
            {
                case 0:
                case 1:
                case 2:
                {
                    var kinds = new string(Enumerable.Range(0, random.Next(1, 6)).Select(_ => "aabmks"[random.Next(6)]).ToArray());
                    string end = random.Next(3) switch { 0 => "'leaf'", 1 => "42", _ => $"nodes[{random.Next(1, depth + 1)}]" };
                    string result = random.Next(4) switch
                    {
                        0 => "cjson.encode(nodes[1])",
                        1 => "cmsgpack.pack(nodes[1])",
                        _ => "nodes[1]",
                    };
                    yield return Chain(kinds, depth, end, result);
                    break;
                }
                case 3:
                    yield return random.Next(2) == 0
                        ? $"return cjson.decode(string.rep('[', {depth}) .. '1' .. string.rep(']', {depth}))"
                        : $"return cjson.decode(string.rep('{{\"a\":', {depth}) .. '1' .. string.rep('}}', {depth}))";
                    break;
                case 4:
                    // 0x91: an array of one; 0x81 0xa1 'k': a map of one under "k".
                    yield return random.Next(2) == 0
                        ? $"return cmsgpack.unpack(string.rep('\\145', {depth}) .. '\\1')"
                        : $"return cmsgpack.unpack(string.rep('\\129\\161k', {depth}) .. '\\1')";
                    break;
                default:
                    yield return $"local t = {{}} local r = t for i = 1, {depth} do local n = {{}} t[1] = n t = n end "
                        + (random.Next(2) == 0 ? "return cjson.decode(cjson.encode(r))" : "return cmsgpack.unpack(cmsgpack.pack(r))");
                    break;
            }
        }
    }

    /// <summary>
    /// A script that links <paramref name="depth"/> tables into a chain, each by the next letter of
    /// <paramref name="kinds"/> (a: t[1] = next; b: t = {7, next}; m: t.map = {k = next};
    /// k: t.map = {[next] = 1}; s: t.set = {[next] = true}), the last one to <paramref name="end"/>.
    /// </summary>
    private static string Chain(string kinds, int depth, string end, string result) =>
        $"local kinds, n = '{kinds}', {depth} local nodes = {{}} for i = 1, n do nodes[i] = {{}} end "
        + $"for i = 1, n do local c, t = kinds:byte((i - 1) % #kinds + 1), nodes[i] local x if i < n then x = nodes[i + 1] else x = {end} end "
        + "if c == 97 then t[1] = x elseif c == 98 then t[1] = 7 t[2] = x elseif c == 109 then t.map = {k = x} "
        + "elseif c == 107 then t.map = {} t.map[x] = 1 else t.set = {} t.set[x] = true end end "
        + $"return {result}";
}
