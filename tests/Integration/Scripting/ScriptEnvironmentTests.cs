using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// The parts of the scripting environment beyond plain RESP2: redis.setresp and the RESP3
/// conversions both ways, redis.set_repl, redis.acl_check_cmd, EVAL's shebang flags and the
/// rand48 math.random, compared byte for byte with redis-server.
/// </summary>
public sealed class ScriptEnvironmentTests
{
    private static string[] Eval(string script, params string[] rest) => ["EVAL", script, .. rest];

    private static string[] EvalRo(string script, params string[] rest) => ["EVAL_RO", script, .. rest];

    [Fact]
    public void SetResp_Arguments_AsRedis()
        => Differential.AssertSame(
            Eval("redis.setresp() return 1", "0"),
            Eval("redis.setresp(4) return 1", "0"),
            Eval("redis.setresp(1) return 1", "0"),
            Eval("redis.setresp('x') return 1", "0"),
            Eval("redis.setresp(2, 3) return 1", "0"),
            Eval("redis.setresp(3) return 1", "0"),
            Eval("redis.setresp('3') return 1", "0"),
            ["PING"]);

    /// <summary>
    /// Redis 7.2 raises the error table itself (7.0 raised its text, so a pcall saw a string), and
    /// fixed set_repl's argument-count message (7.0 says "requires two arguments"): checked here
    /// against 7.2's texts, not the 7.0 reference server.
    /// </summary>
    [Fact]
    public void SetReplAndSetResp_ErrorsAs72()
    {
        using var c = TestServer.Shared.Connect();
        Assert.Equal("-ERR RESP version must be 2 or 3.\r\n", c.Call("EVAL", "local ok, err = pcall(redis.setresp, 9) return err", "0"));
        Assert.Equal("$5\r\ntable\r\n", c.Call("EVAL", "local ok, err = pcall(redis.set_repl, 9) return type(err)", "0"));
        Assert.StartsWith("-ERR redis.set_repl() requires one argument. script: ", c.Call("EVAL", "redis.set_repl() return 1", "0"));
        Assert.StartsWith("-ERR redis.set_repl() requires one argument. script: ", c.Call("EVAL", "redis.set_repl(1, 2) return 1", "0"));
    }

    [Fact]
    public void SetResp3_CommandRepliesBecomeLuaValues_AsRedis()
        => Differential.AssertSame(
            ["HSET", "h", "f", "v"],
            ["SADD", "s", "m"],
            ["ZADD", "z", "1.5", "a"],
            Eval("redis.setresp(3) local r = redis.call('HGETALL', KEYS[1]) return {type(r), r.map.f}", "1", "h"),
            Eval("redis.setresp(3) local r = redis.call('SMEMBERS', KEYS[1]) return {type(r.set), tostring(r.set.m)}", "1", "s"),
            Eval("redis.setresp(3) local r = redis.call('ZSCORE', KEYS[1], 'a') return {type(r), tostring(r.double * 2)}", "1", "z"),
            Eval("redis.setresp(3) return type(redis.call('GET', 'nokey'))", "0"),
            Eval("redis.setresp(2) return type(redis.call('GET', 'nokey'))", "0"),
            Eval("redis.setresp(3) local r = redis.call('HGETALL', KEYS[1]) return r", "1", "h"),
            Eval("redis.setresp(3) return redis.call('ZSCORE', KEYS[1], 'a')", "1", "z"),
            Eval("redis.setresp(3) return redis.call('SMEMBERS', KEYS[1])", "1", "s"),
            Eval("redis.setresp(3) return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')", "1", "z"),
            Eval("redis.setresp(3) local r = redis.pcall('INCR', KEYS[1]) return r.err", "1", "h"),
            ["PING"]);

    [Fact]
    public void Resp3Tables_BecomeReplies_InResp2()
        => Differential.AssertSame(ReturnsOfResp3Tables());

    [Fact]
    public void Resp3Tables_BecomeReplies_InResp3()
        => Differential.AssertSameResp3(ReturnsOfResp3Tables());

    private static string[][] ReturnsOfResp3Tables() =>
    [
        Eval("return {map={a=1}}", "0"),
        Eval("return {map={}}", "0"),
        Eval("return {set={x=true}}", "0"),
        Eval("return {double=3.5}", "0"),
        Eval("return {double=1e300}", "0"),
        Eval("return {double=-0.25}", "0"),
        Eval("return {big_number='123456789012345678901234567890'}", "0"),
        Eval("return {big_number='12\\r\\n34'}", "0"),
        Eval("return {verbatim_string={format='txt', string='hello'}}", "0"),
        Eval("return {verbatim_string={format='mkd', string='a\\r\\nb'}}", "0"),
        Eval("return {verbatim_string={format='txt'}}", "0"),
        Eval("return {double='x'}", "0"),
        Eval("return {map={a={set={b=true}}}}", "0"),
        Eval("return {1, {double=2.5}, {map={k='v'}}}", "0"),
        Eval("return true", "0"),
        Eval("return false", "0"),
        Eval("return nil", "0"),
        Eval("redis.setresp(3) return true", "0"),
        Eval("redis.setresp(3) return false", "0"),
        Eval("redis.setresp(3) return nil", "0"),
        Eval("redis.setresp(3) return {true, false}", "0"),
        ["PING"],
    ];

    [Fact]
    public void SetRepl_Arguments_AsRedis()
        => Differential.AssertSame(
            Eval("return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}", "0"),
            Eval("redis.set_repl(4) return 1", "0"),
            Eval("redis.set_repl(-1) return 1", "0"),
            Eval("redis.set_repl(redis.REPL_NONE) return 1", "0"),
            Eval("redis.set_repl(redis.REPL_ALL) return 1", "0"),
            ["PING"]);

    [RedisFact]
    public void SetRepl_None_KeepsWritesFromTheReplicationStream()
        => PropagationDifferential.AssertSame(
            Eval("redis.call('SET', 'a', '1') redis.set_repl(redis.REPL_NONE) redis.call('SET', 'b', '2') redis.set_repl(redis.REPL_ALL) redis.call('SET', 'c', '3') return 1", "0"),
            Eval("redis.set_repl(redis.REPL_NONE) redis.call('SET', 'd', '4') return 1", "0"),
            Eval("redis.call('SET', 'e', '5') return 1", "0"),
            Eval("redis.set_repl(redis.REPL_AOF) redis.call('SET', 'f', '6') return 1", "0"));

    [Fact]
    public void AclCheckCmd_AsRedis()
        => Differential.AssertSame(
            Eval("return redis.acl_check_cmd('GET', 'k')", "0"),
            Eval("return redis.acl_check_cmd('set', 'k', 'v')", "0"),
            Eval("return redis.acl_check_cmd('CONFIG', 'GET', 'x')", "0"),
            Eval("return redis.acl_check_cmd('NOSUCH')", "0"),
            Eval("return redis.acl_check_cmd()", "0"),
            Eval("return redis.acl_check_cmd({})", "0"),
            ["PING"]);

    [Fact]
    public void Shebang_FlagsAndErrors_AsRedis()
        => Differential.AssertSame(
            Eval("#!lua\nreturn 1", "0"),
            Eval("#!lua", "0"),
            Eval("#!python\nreturn 1", "0"),
            Eval("#!lua foo=bar\nreturn 1", "0"),
            Eval("#!lua flags=bad\nreturn 1", "0"),
            Eval("#!lua flags=no-writes,\nreturn 1", "0"),
            Eval("#!lua flags=\nreturn 2", "0"),
            Eval("#!lua \"flags=no-writes\"\nreturn 3", "0"),
            Eval("#!lua \"flags=no-writes\nreturn 3", "0"),
            Eval("#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 4", "0"),
            Eval("#!lua flags=no-writes\nreturn redis.call('SET', KEYS[1], 'v')", "1", "k"),
            Eval("#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])", "1", "k"),
            Eval("#!lua\nreturn redis.call('SET', KEYS[1], 'v')", "1", "k"),
            EvalRo("#!lua\nreturn 1", "0"),
            EvalRo("#!lua flags=no-writes\nreturn 1", "0"),
            EvalRo("#!lua flags=no-writes\nreturn redis.call('SET', KEYS[1], 'v')", "1", "k"),
            Eval("#!lua\n\nreturn nil + 1", "0"),
            ["SCRIPT", "LOAD", "#!lua flags=nope\nreturn 1"],
            ["SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 5"],
            ["EVALSHA_RO", "b6ff0ab0b5cbbb41bd7cdcbb3ac0e9e6f0a1fd1d", "0"],
            ["PING"]);

    [Fact]
    public void MathRandom_Rand48Sequence_AsRedis()
        => Differential.AssertSame(
            Eval("math.randomseed(42) return {math.random(100), math.random(1, 6), tostring(math.random()), math.random(5, 5)}", "0"),
            Eval("math.randomseed(-7) local t = {} for i = 1, 5 do t[i] = math.random(1000000) end return t", "0"),
            Eval("math.randomseed('12') return math.random(10)", "0"),
            Eval("math.randomseed(3.9) return math.random(10)", "0"),
            Eval("return math.random(0)", "0"),
            Eval("return math.random(5, 1)", "0"),
            Eval("return math.random(1, 2, 3)", "0"),
            Eval("return math.random('x')", "0"),
            Eval("return math.random(nil)", "0"),
            Eval("math.randomseed()", "0"),
            ["PING"]);
}
