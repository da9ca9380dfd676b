using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Lists;

/// <summary>
/// The list family against redis-server, byte for byte: every command, option, edge index and error.
/// OBJECT ENCODING is left out: Debian's 7.0 reports "quicklist" for every list, where Redis 7.2 (what
/// we implement) uses "listpack" for small ones; <see cref="ListEncodingTests"/> covers it. RESP3 nil
/// shapes are in <see cref="ListWireTests"/> (HELLO's reply names the server version, so it cannot
/// be part of a differential script).
/// </summary>
public class ListDifferentialTests
{
    [RedisFact]
    public void Push_AllForms_MatchRedis() => Differential.AssertSame(
        "LPUSH l a b c",
        "RPUSH l d e f",
        "LRANGE l 0 -1",
        "LPUSHX l x y",
        "RPUSHX l z",
        "LPUSHX missing a",
        "RPUSHX missing a b",
        "EXISTS missing",
        "LRANGE l 0 -1",
        "LLEN l",
        "LLEN missing",
        "RPUSH n 1 -1 0 127 128 4095 -4096 4096 32767 32768 8388607 8388608 2147483648 9223372036854775807 -9223372036854775808",
        "RPUSH n -0 007 +1 9223372036854775808 1.5 ''",
        "LRANGE n 0 -1",
        "SET s v",
        "LPUSH s a",
        "RPUSH s a",
        "LPUSHX s a",
        "RPUSHX s a",
        "LLEN s",
        "LPUSH",
        "LPUSH l",
        "RPUSHX l");

    [RedisFact]
    public void Pop_CountsAndShapes_MatchRedis() => Differential.AssertSame(
        "RPUSH l a b c d e 1 2 3",
        "LPOP l",
        "RPOP l",
        "LPOP l 2",
        "RPOP l 2",
        "LPOP l 0",
        "RPOP l 0",
        "LPOP l -1",
        "RPOP l abc",
        "LPOP l 1.5",
        "LPOP l 1 2",
        "RPOP l 1 2 3",
        "LRANGE l 0 -1",
        "RPOP l 100",
        "EXISTS l",
        "LPOP l",
        "LPOP l 0",
        "LPOP l 3",
        "RPOP missing",
        "RPOP missing 2",
        "RPOP missing -2",
        "SET s v",
        "LPOP s",
        "LPOP s 0",
        "RPOP s 2",
        "RPOP s -1",
        "LPOP");

    [RedisFact]
    public void RangeAndIndex_EdgeIndexes_MatchRedis()
    {
        var script = new List<string> { "RPUSH l a b c d e f g" };
        string[] indexes = ["0", "1", "-1", "-7", "-8", "6", "7", "100", "-100", "9223372036854775807", "-9223372036854775808"];
        foreach (var s in indexes)
        {
            script.Add($"LINDEX l {s}");
            foreach (var e in indexes) script.Add($"LRANGE l {s} {e}");
        }
        script.AddRange([
            "LRANGE l a 1", "LRANGE l 1 b", "LRANGE missing a 1", "LRANGE missing 0 -1", "LINDEX l x", "LINDEX missing x",
            "LINDEX l 1.0", "SET s v", "LRANGE s 0 -1", "LRANGE s x 1", "LINDEX s 0", "LINDEX s x",
        ]);
        Differential.AssertSame(script.ToArray());
    }

    [RedisFact]
    public void LSet_IndexesAndErrors_MatchRedis() => Differential.AssertSame(
        "RPUSH l a b c",
        "LSET l 0 x",
        "LSET l -1 y",
        "LSET l 1 12345",
        "LSET l 3 z",
        "LSET l -4 z",
        "LSET l abc z",
        "LRANGE l 0 -1",
        "LSET missing 0 a",
        "LSET missing abc a",
        "SET s v",
        "LSET s 0 a",
        "LSET s abc a",
        "LSET l 9223372036854775807 a",
        "LSET l -9223372036854775808 a");

    [RedisFact]
    public void LInsert_PivotsAndErrors_MatchRedis() => Differential.AssertSame(
        "RPUSH l a b c b",
        "LINSERT l BEFORE b x",
        "LINSERT l after b y",
        "LINSERT l AFTER c z",
        "LINSERT l before a first",
        "LINSERT l AFTER nope q",
        "LINSERT l MIDDLE a q",
        "LRANGE l 0 -1",
        "RPUSH n 1 2 3",
        "LINSERT n AFTER 2 10",
        "LINSERT n BEFORE 02 x",
        "LRANGE n 0 -1",
        "LINSERT missing BEFORE a b",
        "LINSERT missing MIDDLE a b",
        "SET s v",
        "LINSERT s BEFORE a b",
        "LINSERT s MIDDLE a b");

    [RedisFact]
    public void LRem_DirectionsAndCounts_MatchRedis() => Differential.AssertSame(
        "RPUSH l a b a c a d a 1 01 1",
        "LREM l 1 a",
        "LRANGE l 0 -1",
        "LREM l -2 a",
        "LRANGE l 0 -1",
        "LREM l 0 1",
        "LRANGE l 0 -1",
        "LREM l 0 nope",
        "LREM l x a",
        "LREM l -9223372036854775808 a",
        "LRANGE l 0 -1",
        "LREM l 0 b",
        "LREM l 0 c",
        "LREM l 0 d",
        "LREM l 0 01",
        "EXISTS l",
        "LREM missing 0 a",
        "LREM missing x a",
        "SET s v",
        "LREM s 0 a");

    [RedisFact]
    public void LTrim_Ranges_MatchRedis()
    {
        var script = new List<string>();
        string[] bounds = ["0", "1", "-1", "-2", "3", "5", "10", "-10"];
        foreach (var s in bounds)
            foreach (var e in bounds)
            {
                script.Add("DEL l");
                script.Add("RPUSH l a b c d e");
                script.Add($"LTRIM l {s} {e}");
                script.Add("LRANGE l 0 -1");
                script.Add("EXISTS l");
            }
        script.AddRange(["LTRIM missing 0 1", "LTRIM l a 1", "LTRIM l 0 b", "SET s v", "LTRIM s 0 1", "LTRIM s x 1"]);
        Differential.AssertSame(script.ToArray());
    }

    [RedisFact]
    public void LPos_OptionsAndErrors_MatchRedis() => Differential.AssertSame(
        "RPUSH l a b c a b c a 1 2 1",
        "LPOS l a",
        "LPOS l b",
        "LPOS l nope",
        "LPOS l a RANK 2",
        "LPOS l a RANK -1",
        "LPOS l a RANK -3",
        "LPOS l a RANK 4",
        "LPOS l a RANK -4",
        "LPOS l a COUNT 0",
        "LPOS l a COUNT 2",
        "LPOS l a COUNT 2 RANK 2",
        "LPOS l a COUNT 0 RANK -1",
        "LPOS l a COUNT 10 RANK -2",
        "LPOS l a MAXLEN 1",
        "LPOS l a MAXLEN 4 COUNT 0",
        "LPOS l a RANK -1 MAXLEN 2",
        "LPOS l a RANK -1 MAXLEN 1 COUNT 0",
        "LPOS l nope COUNT 0",
        "LPOS l 1 COUNT 0",
        "LPOS l 01 COUNT 0",
        "LPOS l a RANK 0",
        "LPOS l a RANK abc",
        "LPOS l a RANK 9223372036854775807",
        "LPOS l a RANK -9223372036854775807",
        "LPOS l a COUNT -1",
        "LPOS l a COUNT abc",
        "LPOS l a MAXLEN -1",
        "LPOS l a MAXLEN abc",
        "LPOS l a RANK",
        "LPOS l a COUNT",
        "LPOS l a FOO 1",
        "LPOS l a rank 1 count 1 maxlen 0",
        "LPOS l a RANK 0 COUNT -1",
        "LPOS l a COUNT -1 RANK 0",
        "LPOS missing a",
        "LPOS missing a COUNT 1",
        "LPOS missing a RANK 0",
        "SET s v",
        "LPOS s a",
        "LPOS s a COUNT 1",
        "LPOS s a RANK 0");

    [RedisFact]
    public void LMove_AllDirectionsAndErrors_MatchRedis() => Differential.AssertSame(
        "RPUSH a 1 2 3 4",
        "RPUSH b x y",
        "LMOVE a b LEFT LEFT",
        "LMOVE a b LEFT RIGHT",
        "LMOVE a b right left",
        "LMOVE a b RIGHT RIGHT",
        "LRANGE a 0 -1",
        "LRANGE b 0 -1",
        "EXISTS a",
        "LMOVE b b LEFT RIGHT",
        "LMOVE b b RIGHT LEFT",
        "LMOVE b b LEFT LEFT",
        "LRANGE b 0 -1",
        "LMOVE b new RIGHT LEFT",
        "LRANGE new 0 -1",
        "LMOVE missing b LEFT LEFT",
        "LMOVE b b UP LEFT",
        "LMOVE b b LEFT DOWN",
        "LMOVE missing b UP LEFT",
        "SET s v",
        "LMOVE s b LEFT LEFT",
        "LMOVE b s LEFT LEFT",
        "LMOVE missing s LEFT LEFT",
        "LRANGE b 0 -1",
        "RPUSH one only",
        "LMOVE one one LEFT RIGHT",
        "LRANGE one 0 -1",
        "RPOPLPUSH b c",
        "RPOPLPUSH c c",
        "RPOPLPUSH missing c",
        "RPOPLPUSH s c",
        "RPOPLPUSH c s",
        "LRANGE b 0 -1",
        "LRANGE c 0 -1");

    [RedisFact]
    public void LMPop_ArgumentsAndErrors_MatchRedis() => Differential.AssertSame(
        "RPUSH a 1 2 3",
        "RPUSH b x y z",
        "LMPOP 2 missing a LEFT",
        "LMPOP 2 missing a RIGHT COUNT 5",
        "LMPOP 2 a b right count 2",
        "LMPOP 3 missing missing2 b LEFT COUNT 1",
        "LMPOP 1 missing LEFT",
        "LMPOP 0 a LEFT",
        "LMPOP -1 a LEFT",
        "LMPOP abc a LEFT",
        "LMPOP 2 a LEFT",
        "LMPOP 1 a MIDDLE",
        "LMPOP 1 b LEFT COUNT 0",
        "LMPOP 1 b LEFT COUNT -1",
        "LMPOP 1 b LEFT COUNT abc",
        "LMPOP 1 b LEFT COUNT",
        "LMPOP 1 b LEFT COUNT 1 COUNT 1",
        "LMPOP 1 b LEFT FOO",
        "LMPOP 9223372036854775807 b LEFT",
        "LMPOP 1 b",
        "SET s v",
        "LMPOP 2 s b LEFT",
        "LMPOP 2 missing s LEFT",
        "LMPOP 1 b RIGHT COUNT 10",
        "EXISTS b",
        "LMPOP 2 a b LEFT");

    [RedisFact]
    public void BigList_QuicklistOperations_MatchRedis()
    {
        // Enough elements for many quicklist nodes, then edits everywhere.
        var script = new List<string[]>();
        for (int batch = 0; batch < 20; batch++)
        {
            var push = new List<string> { batch % 2 == 0 ? "RPUSH" : "LPUSH", "big" };
            for (int i = 0; i < 100; i++) push.Add($"v{batch}-{i}-" + new string('x', i % 30) + (i % 5 == 0 ? "" : i.ToString()));
            script.Add(push.ToArray());
        }
        string[] more =
        [
            "LLEN big", "LINDEX big 0", "LINDEX big 999", "LINDEX big -1", "LINDEX big 1500", "LRANGE big 995 1010",
            "LRANGE big -5 -1", "LSET big 1000 changed", "LINDEX big 1000", "LINSERT big BEFORE changed before-it",
            "LINSERT big AFTER changed after-it", "LRANGE big 998 1004", "LPOS big changed", "LPOS big v3-4-xxxx4 COUNT 0",
            "LREM big 0 changed", "LREM big 1 v5-10-xxxxxxxxxx10", "LTRIM big 100 -100", "LLEN big", "LRANGE big 0 3",
            "LPOP big 50", "RPOP big 50", "LLEN big", "LMPOP 1 big LEFT COUNT 3", "LMOVE big other RIGHT LEFT",
            "LRANGE big 800 900",
        ];
        foreach (var m in more) script.Add(Differential.SplitLine(m));
        Differential.AssertSame(script.ToArray());
    }

    [RedisFact]
    public void CommandGetKeys_ListCommands_MatchRedis()
    {
        string[] targets =
        [
            "lpush k a b", "rpushx k a", "lpop k 2", "llen k", "lrange k 0 1", "lindex k 0", "lset k 0 v",
            "linsert k before a b", "lrem k 0 a", "ltrim k 0 1", "lpos k a rank 1", "rpoplpush a b", "lmove a b left right",
            "lmpop 2 a b left", "lmpop 1 a right count 3", "lmpop 3 a b c left", "lmpop 0 a left", "lmpop x a left",
            "lmpop 3 a b left", "lmpop 1 a",
        ];
        var script = new List<string[]>();
        foreach (var t in targets)
        {
            script.Add(["COMMAND", "GETKEYS", .. Differential.SplitLine(t)]);
            script.Add(["COMMAND", "GETKEYSANDFLAGS", .. Differential.SplitLine(t)]);
        }
        Differential.AssertSame(script.ToArray());
    }

    [RedisFact]
    public void Arity_EveryCommand_MatchesRedis() => Differential.AssertSame(
        "LLEN", "LLEN a b", "LRANGE a 0", "LINDEX a", "LSET a 0", "LINSERT a BEFORE x", "LREM a 0", "LTRIM a 0",
        "LPOS a", "RPOPLPUSH a", "LMOVE a b LEFT", "LMPOP 1 a", "RPOP", "LPUSHX a");

    [RedisFact]
    public void BinaryElements_RoundTrip_MatchRedis()
    {
        byte[] Bytes(params int[] b) => b.Select(x => (byte)x).ToArray();
        byte[][] Cmd(params object[] parts) => parts.Select(p => p as byte[] ?? Encoding.ASCII.GetBytes((string)p)).ToArray();
        var binary = Bytes(0, 255, 13, 10, 0xF0, 0x80, 0xFF);
        var script = new[]
        {
            Cmd("RPUSH", "b", binary, Bytes(0xFF), Bytes(), Bytes(0)),
            Cmd("LRANGE", "b", "0", "-1"),
            Cmd("LPOS", "b", Bytes(0xFF)),
            Cmd("LREM", "b", "0", Bytes()),
            Cmd("LINSERT", "b", "AFTER", Bytes(0), binary),
            Cmd("LRANGE", "b", "0", "-1"),
        };
        var reference = ReferenceRedis.Shared!;
        using var theirs = reference.Connect();
        using var ours = TestServer.Shared.Connect();
        var key = Encoding.ASCII.GetBytes(TestServer.KeyPrefix("lbin") + "b");
        theirs.Call("DEL"u8.ToArray(), key);
        foreach (var cmd in script)
        {
            cmd[1] = key;
            Assert.Equal(theirs.Call(cmd), ours.Call(cmd));
        }
        theirs.Call("DEL"u8.ToArray(), key);
    }
}
