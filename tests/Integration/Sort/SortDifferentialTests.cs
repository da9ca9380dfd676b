using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Sort;

/// <summary>
/// SORT and SORT_RO against redis-server, byte for byte: every option on lists, sets (integer-only
/// and string sets) and sorted sets, BY and GET patterns over string keys and hash fields, STORE,
/// LIMIT arithmetic, number parsing and errors.
/// </summary>
/// <remarks>
/// Set members come out in an order Redis does not define (hash order) unless they are sorted, so
/// string sets are only sorted with a total order: numeric or ALPHA on distinct members, or BY
/// weights that are all present and distinct. An integer-only set (an intset in both servers)
/// iterates in ascending order, so BY nosort is compared on it too. ALPHA with BY and a LIMIT is
/// avoided where weights tie: Redis then uses a partial quicksort that leaves ties in an order of
/// its own.
/// </remarks>
public class SortDifferentialTests
{
    [RedisFact]
    public void Sort_ListNumericAndAlpha_MatchRedis() => Differential.AssertSame(
        "RPUSH l 3 1 2 10 -5 2.5 1e1 0x10 inf -inf 3",
        "SORT l",
        "SORT l ASC",
        "SORT l DESC",
        "SORT l ALPHA",
        "SORT l ALPHA DESC",
        "SORT l DESC ASC",
        "SORT l asc desc alpha",
        "SORT_RO l",
        "SORT_RO l DESC ALPHA",
        "RPUSH w b a B A 10 9 ab a",
        "SORT w",
        "SORT w ALPHA",
        "SORT w ALPHA DESC",
        "SORT w ALPHA LIMIT 2 3",
        "SORT_RO w ALPHA LIMIT 2 3 DESC");

    [RedisFact]
    public void Sort_Limit_MatchRedis() => Differential.AssertSame(
        "RPUSH l 5 3 1 4 2",
        "SORT l LIMIT 0 1",
        "SORT l LIMIT 1 2",
        "SORT l LIMIT 1 2 DESC",
        "SORT l LIMIT 4 1",
        "SORT l LIMIT 4 5",
        "SORT l LIMIT 5 1",
        "SORT l LIMIT 6 1",
        "SORT l LIMIT 0 0",
        "SORT l LIMIT 0 -1",
        "SORT l LIMIT 2 -1",
        "SORT l LIMIT 2 -7",
        "SORT l LIMIT -1 2",
        "SORT l LIMIT -9223372036854775808 -9223372036854775808",
        "SORT l LIMIT -9223372036854775808 9223372036854775807",
        "SORT l LIMIT 9223372036854775807 9223372036854775807",
        "SORT l LIMIT 1 9223372036854775807",
        "SORT l LIMIT 2 9223372036854775807",
        "SORT l LIMIT 2 9223372036854775806",
        "SORT l LIMIT 1 1 LIMIT 2 2",
        "SORT l LIMIT 1 2 BY nosort",
        "SORT l LIMIT 1 2 BY nosort DESC",
        "SORT l LIMIT 0 0 BY nosort",
        "SORT l LIMIT 4 9223372036854775807 BY nosort DESC",
        "SORT l LIMIT 2 9223372036854775807 BY nosort",
        "SORT l LIMIT 5 1 BY nosort",
        "SORT l LIMIT 5 1 BY nosort DESC",
        "SORT l LIMIT -3 2 BY nosort DESC",
        "SORT l BY nosort",
        "SORT l BY nosort DESC",
        "SORT l BY nosort ALPHA",
        "SORT missing LIMIT 0 1",
        "SORT missing LIMIT 1 1 BY nosort DESC",
        "SORT l LIMIT a 1",
        "SORT l LIMIT 1 a",
        "SORT l LIMIT 1.5 1",
        "SORT l LIMIT +1 1",
        "SORT l LIMIT -0 1",
        "SORT l LIMIT 1 01",
        "SORT l LIMIT 99999999999999999999 1",
        "SORT l LIMIT 1",
        "SORT l LIMIT",
        "SORT l LIMIT 1 1 FOO",
        "SORT l FOO LIMIT a 1",
        "SORT l LIMIT a 1 FOO");

    [RedisFact]
    public void Sort_NumberParsing_MatchesStrtod()
    {
        // Each list holds one kind of value; an error in any element fails the whole command.
        string[][] values =
        [
            ["\t5", "\n6", "\v7", "\f8", "\r9", " 1", "  -2"],
            ["", "3", "-1"],
            ["5\0abc", "3"],
            ["\0", "1"],
            [".5", "5.", "-.5e1", "1E2", "0X1A", "0x1p3", "0x1.8P1", "-0", "0", "+0", "+4"],
            ["INF", "-Infinity", "+inf", "infinity"],
            ["1e-300", "0x1p-1074", "0x1.9p-1070", "2.2250738585072014e-308", "0e-999999", "0x0p-2000", "1.7976931348623157e308"],
            ["0e99999999999999999999", "00000.0000e5", "0x.8", "1e+2", "1e-2"],
            ["   "], ["1_000"], ["0x"], ["1.5e"], ["1e"], ["nan"], ["-nan"], ["nan(123)"], ["1e400"], ["1e-400"],
            ["4.9e-324"], ["1e-310"], ["2.2250738585072011e-308"], ["1.7976931348623159e308"], ["0x1p1024"],
            ["0x1.01p-1070"], ["1 "], ["1\t"], ["- 1"], ["+-1"], ["0x1p"], ["abc"], ["1,5"], ["١"],
        ];
        var script = new List<string[]>();
        for (int i = 0; i < values.Length; i++)
        {
            script.Add(["RPUSH", "n" + i, .. values[i]]);
            script.Add(["SORT", "n" + i]);
            script.Add(["SORT", "n" + i, "DESC"]);
        }
        Differential.AssertSame(script.ToArray());
    }

    [RedisFact]
    public void Sort_IntegerSet_MatchRedis() => Differential.AssertSame(
        "SADD s 30 -2 7 100 0 -9223372036854775808 9223372036854775807",
        "OBJECT ENCODING s",
        "SORT s",
        "SORT s DESC",
        "SORT s ALPHA",
        "SORT s ALPHA DESC",
        "SORT s LIMIT 1 3",
        "SORT s LIMIT 1 3 DESC",
        "SORT s BY nosort",
        "SORT s BY nosort DESC",
        "SORT s BY nosort LIMIT 2 3",
        "SORT s BY nosort LIMIT 2 3 DESC",
        "SORT_RO s BY nosort LIMIT 5 10",
        "SORT s BY nosort STORE d",
        "LRANGE d 0 -1",
        "SORT s BY nosort DESC STORE d",
        "LRANGE d 0 -1",
        "SORT s BY nosort LIMIT 1 2 STORE d",
        "LRANGE d 0 -1",
        "SORT s BY nosort GET # GET o_*",
        "SORT s STORE d",
        "LRANGE d 0 -1");

    [RedisFact]
    public void Sort_StringSet_MatchRedis() => Differential.AssertSame(
        "SADD s pear apple fig banana Apple 10 9",
        "SORT s",
        "SORT s ALPHA",
        "SORT s ALPHA DESC",
        "SORT s ALPHA LIMIT 2 3",
        "SORT s ALPHA LIMIT 2 3 DESC",
        "SORT_RO s ALPHA LIMIT 0 1",
        "SORT s BY nosort STORE d",
        "LRANGE d 0 -1",
        "SORT s BY nosort DESC LIMIT 1 2 STORE d",
        "LRANGE d 0 -1",
        "MSET w_pear 5 w_apple 3 w_fig 1 w_banana 4 w_Apple 2 w_10 7 w_9 6",
        "SORT s BY w_*",
        "SORT s BY w_* DESC",
        "SORT s BY w_* LIMIT 1 3",
        "SORT s BY w_* ALPHA",
        "SORT s BY w_* ALPHA DESC LIMIT 2 2",
        "SORT s BY w_* GET # GET w_*",
        "SORT s BY w_* STORE d",
        "LRANGE d 0 -1",
        "SADD nums 3 1.5 -2 0x10",
        "SORT nums",
        "SORT nums DESC LIMIT 0 2");

    [RedisFact]
    public void Sort_SortedSet_MatchRedis() => Differential.AssertSame(
        "ZADD z 3 c 1 a 2 b 5 e 4 d 2 bb",
        "OBJECT ENCODING z",
        "SORT z",
        "ZADD n 3 30 1 10 2 20 2 2.5 0 -1",
        "SORT n",
        "OBJECT ENCODING n",
        "SORT n DESC",
        "SORT n LIMIT 1 2",
        "SORT n ALPHA",
        "SORT z ALPHA",
        "SORT z ALPHA DESC",
        "SORT z ALPHA LIMIT 1 3",
        "SORT z BY nosort",
        "SORT z BY nosort DESC",
        "SORT z BY nosort LIMIT 1 2",
        "SORT z BY nosort LIMIT 1 2 DESC",
        "SORT z BY nosort LIMIT 5 10 DESC",
        "SORT z BY nosort LIMIT 6 10 DESC",
        "SORT z BY nosort LIMIT 6 10",
        "SORT z BY nosort LIMIT -1 -1 DESC",
        "SORT z BY nosort LIMIT 0 0",
        "SORT z BY nosort LIMIT 2 9223372036854775807 DESC",
        "SORT_RO z BY nosort LIMIT 3 2 DESC GET # GET w_*",
        "MSET w_a 5 w_b 1 w_c 3 w_d 2 w_e 4 w_bb 6",
        "SORT z BY w_*",
        "SORT z BY w_* GET # GET w_*",
        "SORT z BY w_* DESC LIMIT 1 3",
        "SORT z BY w_* ALPHA STORE d",
        "LRANGE d 0 -1",
        "SORT z BY nosort STORE d",
        "LRANGE d 0 -1",
        "SORT z BY nosort DESC LIMIT 0 0 STORE d",
        "EXISTS d",
        "ZADD small 1 x 2 y",
        "OBJECT ENCODING small",
        "SORT_RO small BY nosort",
        "OBJECT ENCODING small",
        "ZRANGE small 0 -1 WITHSCORES",
        "ZADD small2 1 0 2 1",
        "SORT small2",
        "OBJECT ENCODING small2",
        "ZRANGE small2 0 -1 WITHSCORES",
        "ZADD small3 1 x",
        "SORT_RO small3 STORE d",
        "OBJECT ENCODING small3");

    [RedisFact]
    public void Sort_ByAndGetPatterns_MatchRedis() => Differential.AssertSame(
        "RPUSH l a b c d",
        "MSET w_a 3 w_b 1 w_c 2 o_a A o_b B",
        "HSET h_a f 30 g x",
        "HSET h_b f 10",
        "HSET h_c f 20",
        "SORT l BY w_*",
        "SORT l BY w_* DESC",
        "SORT l BY w_* ALPHA",
        "SORT l BY w_* ALPHA DESC",
        "SORT l BY w_* GET #",
        "SORT l BY w_* GET o_* GET # GET h_*->f",
        "SORT l BY w_* GET o_* GET nostar",
        "SORT l BY h_*->f GET h_*->g",
        "SORT l BY h_*->f DESC LIMIT 0 2",
        "SORT l BY h_*->f DESC LIMIT 1 2 GET #",
        "SORT l BY h_*-> GET h_*->",
        "SORT l BY h_->f*",
        "SORT l BY *->f",
        "SORT l BY w_*->f",
        "SORT l BY nosort GET h_*->f",
        "SORT l BY nosort DESC LIMIT 1 2 GET h_*->f GET #",
        "SORT l GET o_*",
        "SORT l GET o_* ALPHA",
        "SORT l GET * ALPHA",
        "SORT l GET *->f ALPHA",
        "SORT l GET l ALPHA",
        "SORT l GET # GET # ALPHA",
        "SORT l GET #x ALPHA",
        "SORT l GET x# ALPHA",
        "SORT l GET h_*->f->g ALPHA",
        "HSET h_a f->g zz",
        "SORT l GET h_*->f->g ALPHA",
        "SORT l GET h_*->f* ALPHA",
        "SORT l GET h_->f* ALPHA",
        "SET h_->fa Q",
        "SORT l GET h_->f* ALPHA",
        "SORT l GET o_** ALPHA",
        "SET o_a* star",
        "SORT l GET o_** ALPHA",
        "SORT l BY o_* ALPHA",
        "SORT l BY o_*",
        "RPUSH x1 9",
        "SADD x2 9",
        "SET w_x 5",
        "RPUSH lx x",
        "SORT lx BY x*",
        "SORT lx GET x*");

    [RedisFact]
    public void Sort_PatternsWithNulBytes_MatchRedis() => Differential.AssertSame(
        ["RPUSH", "l", "a", "b", "c"],
        ["MSET", "o_a", "A", "o_b", "B"],
        ["HSET", "h_a", "f", "30", "\0", "nulf", "f\0x", "nulfx"],
        ["SORT", "l", "GET", "#\0zz", "ALPHA"],
        ["SORT", "l", "GET", "o_\0*", "ALPHA"],
        ["SET", "o_\0*", "NUL"],
        ["SORT", "l", "GET", "o_\0*", "ALPHA"],
        ["SORT", "l", "GET", "o_*\0x", "ALPHA"],
        ["SET", "o_a\0x", "NULA"],
        ["SORT", "l", "GET", "o_*\0x", "ALPHA"],
        ["SORT", "l", "GET", "h_*\0->f", "ALPHA"],
        ["SORT", "l", "GET", "h_*-\0>f", "ALPHA"],
        ["SORT", "l", "GET", "h_*->\0", "ALPHA"],
        ["SORT", "l", "GET", "h_*->\0x", "ALPHA"],
        ["SORT", "l", "GET", "h_*->f\0x", "ALPHA"],
        ["SORT", "l", "BY", "nosort\0*", "ALPHA"],
        ["SORT", "l", "BY", "nosort\0*", "DESC"],
        ["RPUSH", "nl", "a\0b", "a\0a", "a", "a\0", "b"],
        ["SORT", "nl", "ALPHA"],
        ["SORT", "nl", "ALPHA", "DESC"],
        ["SORT", "nl", "ALPHA", "STORE", "d"],
        ["LRANGE", "d", "0", "-1"],
        ["SORT", "nl", "ALPHA", "DESC", "STORE", "d"],
        ["LRANGE", "d", "0", "-1"],
        ["SORT", "nl", "BY", "w_*", "ALPHA"],
        ["SORT", "nl", "BY", "nosort", "LIMIT", "1", "2", "GET", "#", "GET", "o_*"]);

    [RedisFact]
    public void Sort_AlphaByWithTies_KeepsListOrder() => Differential.AssertSame(
        // No LIMIT: Redis's merge sort keeps tied elements (equal or missing weights) in list order.
        "RPUSH l e d c b a f",
        "MSET w_a x w_c x w_e y",
        "SORT l BY w_* ALPHA",
        "SORT l BY w_* ALPHA DESC",
        "SORT l BY w_* ALPHA GET # GET w_*",
        "SORT l BY w_* ALPHA STORE d",
        "LRANGE d 0 -1",
        "SORT l BY nokey_* ALPHA",
        "SORT l BY nokey_* ALPHA DESC",
        "SORT l BY nokey_*",
        "SORT l BY nokey_* DESC LIMIT 1 3");

    [RedisFact]
    public void Sort_Store_MatchRedis() => Differential.AssertSame(
        "RPUSH l 3 1 2",
        "SET o_1 one",
        "SET dst old EX 1000",
        "SORT l STORE dst",
        "TYPE dst",
        "TTL dst",
        "LRANGE dst 0 -1",
        "SORT l DESC STORE dst",
        "LRANGE dst 0 -1",
        "SORT l GET # GET o_* STORE dst",
        "LRANGE dst 0 -1",
        "SORT l GET o_* STORE dst GET #",
        "LRANGE dst 0 -1",
        "SORT l LIMIT 1 1 STORE dst",
        "LRANGE dst 0 -1",
        "SORT l LIMIT 5 5 STORE dst",
        "EXISTS dst",
        "SORT l LIMIT 0 0 STORE dst",
        "SORT missing STORE l",
        "EXISTS l",
        "RPUSH l 3 1 2",
        "SORT l STORE d1 STORE d2",
        "EXISTS d1 d2",
        "HSET h f v",
        "SORT l STORE h",
        "TYPE h",
        "SADD s c a b",
        "SORT s ALPHA STORE s",
        "TYPE s",
        "LRANGE s 0 -1",
        "SORT l BY nosort STORE l",
        "LRANGE l 0 -1",
        "SORT l BY nosort DESC LIMIT 0 2 STORE l",
        "LRANGE l 0 -1",
        "SET str x",
        "SORT str STORE d3",
        "EXISTS d3",
        "RPUSH bad 1 x",
        "SET d4 keep",
        "SORT bad STORE d4",
        "GET d4",
        "SORT_RO l STORE d5",
        "EXISTS d5",
        "SORT l STORE",
        "SORT l STORE d6 BY",
        "EXISTS d6");

    [RedisFact]
    public void Sort_Errors_MatchRedis() => Differential.AssertSame(
        "SET str x",
        "HSET h f v",
        "RPUSH l 1 2 x",
        "SORT str",
        "SORT str BY nosort",
        "SORT str LIMIT 0 1 ALPHA",
        "SORT_RO str",
        "SORT h",
        "SORT str FOO",
        "SORT str LIMIT a b",
        "SORT_RO str STORE x",
        "SORT_RO l STORE",
        "SORT_RO l LIMIT 0 1",
        "SORT l",
        "SORT l BY nosort",
        "SORT l ALPHA",
        "SORT l GET",
        "SORT l BY",
        "SORT l STORE",
        "SORT l ALPHA BY",
        "SORT l ALPHA FOO",
        "SORT l STORE x FOO",
        "EXISTS x",
        "SORT",
        "SORT_RO",
        "sort l alpha Desc limit 0 2",
        "Sort_Ro l AlPhA");

    [RedisFact]
    public void Sort_CommandIntrospection_MatchRedis() => Differential.AssertSame(
        "COMMAND INFO SORT SORT_RO",
        "COMMAND GETKEYS SORT l",
        "COMMAND GETKEYS SORT l STORE d",
        "COMMAND GETKEYS SORT l BY w_* STORE d",
        "COMMAND GETKEYS SORT l GET # STORE d GET o_*",
        "COMMAND GETKEYS SORT_RO l GET #",
        "COMMAND GETKEYS SORT_RO l GET x*",
        "COMMAND GETKEYS SORT_RO l STORE d",
        "COMMAND GETKEYSANDFLAGS SORT l BY w_* STORE d",
        "COMMAND GETKEYSANDFLAGS SORT l STORE d",
        "COMMAND GETKEYSANDFLAGS SORT_RO l STORE d",
        "COMMAND GETKEYS SORT l STORE d STORE e",
        "COMMAND GETKEYS SORT l FOO STORE e",
        "COMMAND GETKEYS SORT l LIMIT 1 STORE e",
        "COMMAND GETKEYS SORT l STORE");
}
