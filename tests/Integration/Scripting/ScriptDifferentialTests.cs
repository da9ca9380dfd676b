using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// EVAL, EVALSHA and SCRIPT against redis-server, byte for byte: how a script's return value becomes
/// a reply, how a command's reply becomes a Lua value, errors, and the script cache.
/// </summary>
public class ScriptDifferentialTests
{
    private static string[] Eval(string script, params string[] rest) => ["EVAL", script, .. rest];

    [Fact]
    public void Eval_ReturnValues_ConvertAsRedis()
        => Differential.AssertSame(
            Eval("return 1", "0"),
            Eval("return 3.7", "0"),
            Eval("return -3.7", "0"),
            Eval("return 10/2", "0"),
            Eval("return 'hello'", "0"),
            Eval("return true", "0"),
            Eval("return false", "0"),
            Eval("return nil", "0"),
            Eval("return {1, 'two', 3.5, {4, 5}}", "0"),
            Eval("return {1, 2, nil, 4}", "0"),
            Eval("return {}", "0"),
            Eval("return {ok='fine'}", "0"),
            Eval("return {err='My Error'}", "0"),
            Eval("return redis.status_reply('STATUS')", "0"),
            Eval("return redis.error_reply('MYERR something')", "0"),
            Eval("return redis.error_reply('plain')", "0"),
            Eval("return {1, {err='inner'}, 3}", "0"),
            Eval("return KEYS[1] .. ARGV[1] .. #KEYS .. #ARGV", "2", "k1", "k2", "a1", "a2", "a3"),
            ["PING"]);

    [Fact]
    public void Eval_RedisCall_RunsCommands()
        => Differential.AssertSame(
            Eval("return redis.call('SET', KEYS[1], ARGV[1])", "1", "s:k", "v1"),
            Eval("return redis.call('GET', KEYS[1])", "1", "s:k"),
            Eval("return redis.call('GET', 'nokey')", "0"),
            Eval("redis.call('SET', KEYS[1], 10) return redis.call('INCR', KEYS[1])", "1", "s:n"),
            Eval("return redis.call('INCRBY', KEYS[1], 5)", "1", "s:n"),
            ["GET", "s:n"],
            Eval("redis.call('RPUSH', KEYS[1], 'a', 'b', 'c') return redis.call('LRANGE', KEYS[1], 0, -1)", "1", "s:l"),
            Eval("return redis.call('SET', KEYS[1], 'x')", "1", "s:s"),
            Eval("return type(redis.call('GET', 'missing'))", "0"),
            Eval("return redis.call('PING')", "0"),
            Eval("return redis.call('SET', KEYS[1], 3.0)", "1", "s:f"),
            ["GET", "s:f"],
            Eval("return redis.call('SET', KEYS[1], 2.5)", "1", "s:f2"),
            ["GET", "s:f2"],
            ["PING"]);

    [Fact]
    public void Eval_Errors_AsRedis()
        => Differential.AssertSame(
            ["SET", "e:str", "abc"],
            Eval("local r = redis.call('INCR', KEYS[1]) return r", "1", "e:str"),
            Eval("local r = redis.pcall('INCR', KEYS[1]) return r", "1", "e:str"),
            Eval("local r = redis.pcall('INCR', KEYS[1]) return type(r) .. ':' .. r.err", "1", "e:str"),
            Eval("redis.call('LPUSH', KEYS[1], 'x') return 1", "1", "e:str"),
            Eval("redis.call('NOSUCHCOMMAND') return 1", "0"),
            Eval("return redis.pcall('NOSUCHCOMMAND')", "0"),
            Eval("local r = redis.call('GET') return r", "0"),
            Eval("local r = redis.call() return r", "0"),
            Eval("local r = redis.call('GET', {}) return r", "0"),
            Eval("error('boom')", "0"),
            Eval("error({err='custom error'})", "0"),
            Eval("return nil + 1", "0"),
            Eval("return 1 +", "0"),
            ["PING"]);

    /// <summary>
    /// "return redis.call(...)" is a tail call; Redis's redis.call is a C function, which keeps the
    /// script's frame, so the error names the script's line. Ours is a Lua wrapper: the compiled
    /// script's library tail calls are rewritten into plain calls (TailCalls) to keep that line.
    /// </summary>
    [Fact]
    public void Eval_ErrorsInTailPosition_CarryScriptLine()
        => Differential.AssertSame(
            ["SET", "e:str", "abc"],
            Eval("return redis.call('INCR', KEYS[1])", "1", "e:str"),
            Eval("local x = 1\nif x == 1 then\n  return redis.call('INCR', KEYS[1])\nend", "1", "e:str"),
            Eval("local function f(k) return redis.call('INCR', k) end\nreturn f(KEYS[1])", "1", "e:str"),
            Eval("return redis.call('NOSUCHCOMMAND')", "0"),
            Eval("return redis.sha1hex()", "0"),
            Eval("return redis.log()", "0"),
            Eval("return string.format('%d', 'x')", "0"),
            Eval("return table.concat({}, 1, 2, 3)", "0"),
            Eval("return table.concat({1, {}, 3})", "0"),
            Eval("return cjson.decode('[1,')", "0"),
            Eval("return redis.pcall('INCR', KEYS[1])", "1", "e:str"),
            Eval("return redis.call('GET', KEYS[1])", "1", "e:str"),
            Eval("local t = {redis.call('GET', KEYS[1]), 'b'} return unpack(t)", "1", "e:str"),
            Eval("local function count(n, acc) if n == 0 then return acc end return count(n - 1, acc + 1) end\nreturn count(300000, 0)", "0"),
            ["PING"]);

    [Fact]
    public void Eval_Loadstring_SeesProtectedGlobals()
        => Differential.AssertSame(
            Eval("return loadstring('return 1 + 1')()", "0"),
            Eval("local f = loadstring('x = 5') local ok, err = pcall(f) return {tostring(ok), err}", "0"),
            Eval("local f = loadstring('return nosuchglobal') local ok, err = pcall(f) return {tostring(ok), err}", "0"),
            Eval("return loadstring('return ...', 'named')(7)", "0"),
            Eval("local f, err = loadstring('return +') return err", "0"),
            ["PING"]);

    [Fact]
    public void Eval_LibrariesAndGlobals_AreReadOnly()
        => Differential.AssertSame(
            Eval("string.foo = 1 return 1", "0"),
            Eval("redis.call = nil return 1", "0"),
            Eval("math.pi = 3 return 1", "0"),
            Eval("table.insert = nil return 1", "0"),
            // "os.clock = nil": Redis 7.4's os table is read-only too (7.0 has no os): see ScriptOsClockTests.
            Eval("return rawget(_G, 'nosuch')", "0"),
            Eval("local n = 0 for k in next, string do n = n + 1 end return n > 5", "0"),
            Eval("coroutine.x = 1 return 1", "0"),
            Eval("_G.x = 1 return 1", "0"),
            Eval("_G['redis'].x = 1 return 1", "0"),
            Eval("local ok, err = pcall(function() string.x = 1 end) return err", "0"),
            Eval("return type(_G.string.format)", "0"),
            Eval("local n = 0 for k, v in pairs(math) do n = n + 1 end return n > 10", "0"),
            Eval("local n = 0 for k, v in pairs(redis) do n = n + 1 end return n > 10", "0"),
            Eval("local n = 0 for k, v in pairs(cjson) do n = n + 1 end return n > 5", "0"),
            Eval("return {getmetatable(cjson) == nil, getmetatable(bit) == nil}", "0"),
            Eval("cjson.encode = nil return 1", "0"),
            Eval("rawset(struct, 'x', 1) return 1", "0"),
            Eval("return string.format('%s-%s', 'a', 'b') .. ('x'):upper() .. #'abc'", "0"),
            Eval("local t = {} table.insert(t, 'v') rawset(t, 'k', 1) return {t[1], t.k}", "0"),
            ["PING"]);

    /// <summary>
    /// Redis's fix for CVE-2025-46818 (in the 7.0 and 7.2 security releases) took getfenv, setfenv
    /// and newproxy away from scripts and made the strings' metatable read-only.
    /// </summary>
    [Fact]
    public void Eval_MetatablesAndEnvironments_AreGuarded()
        => Differential.AssertSame(
            Eval("return getfenv()", "0"),
            Eval("local function f() end setfenv(f, {}) return 1", "0"),
            Eval("return newproxy()", "0"),
            Eval("return getmetatable('').__index == string", "0"),
            Eval("return getmetatable('') == getmetatable('x')", "0"),
            Eval("local m = getmetatable('') return rawget(m, '__index') == string", "0"),
            Eval("return type(getmetatable(''))", "0"),
            Eval("return getmetatable('').__metatable", "0"),
            Eval("setmetatable(getmetatable(''), nil) return 1", "0"),
            Eval("getmetatable('').__add = 1 return 1", "0"),
            Eval("getmetatable('').__index = {} return 1", "0"),
            Eval("rawset(string, 'x', 1) return 1", "0"),
            Eval("rawset(_G, 'x', 1) return 1", "0"),
            Eval("setmetatable(string, {}) return 1", "0"),
            Eval("setmetatable(_G, {}) return 1", "0"),
            Eval("return getmetatable(_G) == nil", "0"),
            Eval("return getmetatable(string) == nil", "0"),
            Eval("table.insert(string, 1) return 1", "0"),
            Eval("local t = setmetatable({}, {__index = function(_, k) return k .. '!' end}) return t.x", "0"),
            Eval("return ('abc'):upper() .. string.rep('x', 2)", "0"),
            ["PING"]);

    /// <summary>A script never blocks: blocking commands answer at once (nil when there is nothing), and leave no waiter behind.</summary>
    [Fact]
    public void Eval_BlockingCommands_AnswerAtOnce()
        => Differential.AssertSame(
            Eval("return redis.call('BLPOP', KEYS[1], 0)", "1", "bl"),
            Eval("return redis.call('BRPOP', KEYS[1], 0)", "1", "bl"),
            Eval("return redis.call('BLMPOP', 0, 1, KEYS[1], 'LEFT')", "1", "bl"),
            Eval("return redis.call('BRPOPLPUSH', KEYS[1], 'other', 0)", "1", "bl"),
            Eval("return redis.call('BLMOVE', KEYS[1], 'other', 'LEFT', 'RIGHT', 0)", "1", "bl"),
            Eval("return redis.call('BZPOPMIN', KEYS[1], 0)", "1", "bz"),
            Eval("return redis.call('BZMPOP', 0, 1, KEYS[1], 'MIN')", "1", "bz"),
            ["LPUSH", "bl", "a", "b"],
            ["ZADD", "bz", "1", "m"],
            ["LLEN", "bl"],
            ["ZCARD", "bz"],
            Eval("return redis.call('BLMPOP', 0, 1, KEYS[1], 'LEFT')", "1", "bl"),
            Eval("return redis.call('BLPOP', KEYS[1], 0)", "1", "bl"),
            Eval("return redis.call('BZPOPMIN', KEYS[1], 0)", "1", "bz"),
            ["EXISTS", "bl", "bz"],
            ["PING"]);

    /// <summary>Runtime errors worded as Lua 5.1 words them (5.4 puts the variable after the value).</summary>
    [Fact]
    public void Eval_RuntimeErrors_WordedAsLua51()
        => Differential.AssertSame(
            Eval("local t = nil return t.x", "0"),
            Eval("local t = {} return t.a.b", "0"),
            Eval("return nosuch.x", "0"),
            Eval("local n return n + 1", "0"),
            Eval("local s return 'a' .. s", "0"),
            Eval("local t = {} t.f()", "0"),
            Eval("local t = {} t:m()", "0"),
            Eval("local x = {} return #x.y", "0"),
            Eval("local a, b = {}, 1 return a < b", "0"),
            Eval("return redis.nosuch()", "0"),
            Eval("local ok, e = pcall(function() local t = nil return t.x end) return type(e)", "0"),
            ["PING"]);

    [Fact]
    public void Eval_NumKeys_Errors()
        => Differential.AssertSame(
            Eval("return 1", "2", "a"),
            Eval("return 1", "-1"),
            Eval("return 1", "x"),
            ["EVAL", "return 1"],
            ["EVAL"],
            ["EVALSHA", "abc"],
            ["PING"]);

    [Fact]
    public void EvalSha_AfterScriptLoad_RunsTheScript()
        => Differential.AssertSame(
            ["SCRIPT", "FLUSH"],
            ["EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"],
            ["EVALSHA", "short", "0"],
            ["SCRIPT", "LOAD", "return 'loaded ' .. ARGV[1]"],
            ["SCRIPT", "EXISTS", LuaSha("return 'loaded ' .. ARGV[1]"), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"],
            ["EVALSHA", LuaSha("return 'loaded ' .. ARGV[1]"), "0", "x"],
            ["EVALSHA", LuaSha("return 'loaded ' .. ARGV[1]").ToUpperInvariant(), "0", "y"],
            Eval("return 'by eval'", "0"),
            ["SCRIPT", "EXISTS", LuaSha("return 'by eval'")],
            ["SCRIPT", "FLUSH", "ASYNC"],
            ["SCRIPT", "EXISTS", LuaSha("return 'by eval'")],
            ["EVALSHA", LuaSha("return 'loaded ' .. ARGV[1]"), "0", "x"],
            ["SCRIPT", "FLUSH", "SYNC"],
            ["SCRIPT", "FLUSH", "BAD"],
            ["SCRIPT", "LOAD", "return +"],
            ["SCRIPT", "LOAD"],
            ["SCRIPT", "EXISTS"],
            ["SCRIPT", "HELP", "x"],
            ["SCRIPT", "NOPE"],
            ["PING"]);

    [Fact]
    public void Eval_RedisLibrary_Functions()
        => Differential.AssertSame(
            Eval("return redis.sha1hex('')", "0"),
            Eval("return redis.sha1hex('abc')", "0"),
            Eval("return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}", "0"),
            Eval("redis.log(redis.LOG_WARNING, 'from a test') return 1", "0"),
            Eval("return unpack({1, 2, 3})", "0"),
            Eval("return table.getn({1, 2, 3})", "0"),
            Eval("return math.pow(2, 10)", "0"),
            Eval("return loadstring('return 7')()", "0"),
            // No os here: Redis 7.4 adds one with os.clock only (see ScriptOsClockTests).
            Eval("local names = {'print', 'debug', 'io', 'require', 'loadfile', 'dofile', 'utf8', 'rawlen', 'string', 'math', 'table', 'coroutine', 'pcall', 'gcinfo', 'tostring', 'select'} " +
                 "local out = {} for i, n in ipairs(names) do out[i] = n .. '=' .. type(rawget(_G, n)) end return out", "0"),
            Eval("return {type(redis.replicate_commands), redis.replicate_commands(), redis.breakpoint()}", "0"),
            Eval("return type(redis.REDIS_VERSION) .. type(redis.REDIS_VERSION_NUM)", "0"),
            Eval("return {tostring(10/2), tostring(3/2), tostring(100000000000000), tostring(-0.0), tostring('s'), tostring(nil), tostring(true)}", "0"),
            // Apart: Lua 5.1 shares one constant for 0 and -0.0 in a chunk, so 1/0 there gives -inf.
            Eval("return {tostring(1/0), tostring(-1/0)}", "0"),
            Eval("return table.concat({1, 2.5, 3.0, 'x', 10/2}, ',')", "0"),
            Eval("return table.concat({1, 2, 3}, '-', 2, 3)", "0"),
            Eval("return table.concat({})", "0"),
            // An error raised by the wrapped table.concat, called outside tail position.
            Eval("local s = table.concat({1, {}, 3}) return s", "0"),
            Eval("return {string.format('%d', 3.7), string.format('%d|%5.1f|%s|%x', -3.7, 2.25, 10/2, 255), string.format('%%d %s', 'x'), string.format('%s', 'plain')}", "0"),
            Eval("local s = string.format('%d', 'x') return s", "0"),
            Eval("return tostring(redis.call('INCRBY', KEYS[1], 5))", "1", "num:k"),
            ["PING"]);

    [Fact]
    public void Eval_Globals_AreProtected()
        => Differential.AssertSame(
            Eval("return nosuchglobal", "0"),
            Eval("local x = nosuchglobal return 1", "0"),
            Eval("newglobal = 1 return 1", "0"),
            Eval("return type(redis) .. type(KEYS) .. type(string.format)", "0"),
            Eval("local ok, e = pcall(function() return nosuchglobal end) return tostring(ok)", "0"),
            ["PING"]);

    [Fact]
    public void EvalRo_RefusesWrites_AllowsReads()
        => Differential.AssertSame(
            ["SET", "ro:k", "v"],
            ["EVAL_RO", "return redis.call('GET', KEYS[1])", "1", "ro:k"],
            ["EVAL_RO", "redis.call('SET', KEYS[1], 'x') return 1", "1", "ro:k"],
            ["EVAL_RO", "local r = redis.pcall('DEL', KEYS[1]) return r", "1", "ro:k"],
            ["GET", "ro:k"],
            ["SCRIPT", "LOAD", "return redis.call('GET', KEYS[1])"],
            ["EVALSHA_RO", LuaSha("return redis.call('GET', KEYS[1])"), "1", "ro:k"],
            ["EVALSHA_RO", "0000000000000000000000000000000000000000", "0"],
            ["EVAL_RO", "return 1", "-1"],
            ["EVAL_RO", "return 1"],
            ["PING"]);

    [Fact]
    public void Eval_InMultiAndCommandGetKeys_AsRedis()
        => Differential.AssertSame(
            ["MULTI"],
            Eval("return redis.call('INCR', KEYS[1])", "1", "tx:n"),
            Eval("return redis.call('INCR', KEYS[1])", "1", "tx:n"),
            ["GET", "tx:n"],
            ["EXEC"],
            ["COMMAND", "GETKEYS", "EVAL", "return 1", "2", "k1", "k2", "a1"],
            ["COMMAND", "GETKEYS", "EVALSHA", "abc", "1", "k1"],
            ["COMMAND", "GETKEYS", "EVAL_RO", "return 1", "1", "k1", "a1"],
            ["COMMAND", "GETKEYS", "EVAL", "return 1", "0"],
            ["COMMAND", "GETKEYSANDFLAGS", "EVAL", "return 1", "1", "k1"],
            ["COMMAND", "GETKEYS", "EVAL", "return 1", "5", "k1"],
            ["PING"]);

    private static string LuaSha(string body)
        => Convert.ToHexStringLower(System.Security.Cryptography.SHA1.HashData(System.Text.Encoding.UTF8.GetBytes(body)));
}
