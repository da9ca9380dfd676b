using RedisClone.Tests.Infrastructure;
using static RedisClone.Tests.Scripting.FunctionDifferential;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// Redis 7 makes a script's globals and every library table read-only: assigning, rawset,
/// setmetatable, table.insert and the strings' metatable all fail with "Attempt to modify a
/// readonly table", in EVAL scripts, in functions when FCALL runs them, and while FUNCTION LOAD runs a
/// library's code. Compared byte for byte with redis-server.
/// </summary>
public class ScriptReadonlyTableTests
{
    private static readonly string[] Writes =
    [
        "redis = 1", "cjson.encode = nil", "string.x = 1", "redis.call = nil", "redis.x = 1", "_G.redis = 1", "x = 1", "_G.x = 1",
        "KEYS = 1", "bit.band = 1", "struct.x = 1", "cmsgpack.x = 1", "math.x = 1", "table.x = 1", "debug = 1", "_G = 1",
        "rawset(redis, 'x', 1)", "rawset(_G, 'x', 1)", "rawset(string, 'x', 1)", "setmetatable(redis, nil)", "setmetatable(_G, nil)",
        "table.insert(redis, 1)", "table.insert(_G, 1)", "getmetatable('').__index = nil", "getmetatable('').__index.x = 1",
        "local t = getmetatable(_G); t.__index = nil", "getmetatable(redis).__newindex = nil",
        "for k in pairs(string) do string[k] = nil end", "local s = string; s.upper = nil", "redis.REPL_ALL = 5",
        "return loadstring('x = 1')()", "return select(2, pcall(rawset, redis, 'x', 1))",
        "return select(2, pcall(function() redis.x = 1 end))",
        "local t = {} setmetatable(t, {__index = redis}) t.x = 1 return t.x",
    ];

    [RedisFact]
    public void Eval_WriteToReadonlyTable_RefusedAsRedis()
        => AssertSame(Writes.Select(w => new[] { "EVAL", w, "0" }).Append(["PING"]).ToArray());

    [RedisFact]
    public void Fcall_WriteToReadonlyTable_RefusedAsRedis()
    {
        var script = new List<string[]>();
        for (int i = 0; i < Writes.Length; i++)
        {
            script.Add(LoadReplace("ro", $"redis.register_function('f', function()\n{Writes[i]}\nend)"));
            script.Add(["FCALL", "f", "0"]);
        }
        script.Add(["PING"]);
        AssertSame(script.ToArray());
    }

    [RedisFact]
    public void FunctionLoad_WriteToReadonlyTableAtLoad_RefusedAsRedis()
        => AssertSame(new[] { "redis = 1", "x = 1", "redis.call = nil", "redis.register_function = nil", "redis.log = nil", "local r = redis; r.x = 1" }
            .Select(w => LoadReplace("atload", w + "\nredis.register_function('f', function() return 1 end)"))
            .Append(["FUNCTION", "LIST"]).ToArray());
}
