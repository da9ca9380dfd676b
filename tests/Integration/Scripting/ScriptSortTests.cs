using RedisClone.Tests.Infrastructure;
using static RedisClone.Tests.Scripting.FunctionDifferential;

namespace RedisClone.Tests.Scripting;

/// <summary>
/// SORT with a constant BY (no '*': nothing to sort by) keeps a list's or sorted set's own order,
/// but a set has none, so inside a script (EVAL or FCALL) Redis 7.0 and 7.2 still sort the set's
/// elements by their bytes, as they do for STORE, to give every server the same answer.
/// </summary>
public class ScriptSortTests
{
    private const string SortBy = "return redis.call('sort', KEYS[1], 'by', 'nokey', unpack(ARGV))";

    [RedisFact]
    public void Sort_ConstantByInScript_SortsSetsAsRedis() => AssertSame(
        ["SADD", "s", "c", "a", "b", "10", "2", "B"],
        ["SADD", "ints", "30", "4", "100", "-1"],
        ["RPUSH", "l", "c", "a", "b"],
        ["ZADD", "z", "1", "c", "2", "a", "3", "b"],
        ["EVAL", SortBy, "1", "s"],
        ["EVAL", SortBy, "1", "s", "desc"],
        ["EVAL", SortBy, "1", "s", "limit", "1", "3"],
        ["EVAL", SortBy, "1", "s", "alpha"],
        ["EVAL", SortBy, "1", "s", "get", "#", "get", "x*"],
        ["EVAL", SortBy, "1", "ints"],
        ["EVAL", SortBy, "1", "l"],
        ["EVAL", SortBy, "1", "l", "desc"],
        ["EVAL", SortBy, "1", "z"],
        ["EVAL", SortBy, "1", "z", "desc", "limit", "1", "5"],
        ["EVAL", SortBy, "1", "nosuch"],
        ["EVAL", "return redis.call('sort_ro', KEYS[1], 'by', 'nokey')", "1", "s"],
        ["EVAL", SortBy, "1", "s", "store", "dst"],
        ["LRANGE", "dst", "0", "-1"],
        Load("sorts", "redis.register_function('sortset', function(keys, args) return redis.call('sort', keys[1], 'by', 'nokey', unpack(args)) end)"),
        ["FCALL", "sortset", "1", "s"],
        ["FCALL", "sortset", "1", "s", "desc"],
        ["FCALL", "sortset", "1", "l"],
        ["PING"]);
}
