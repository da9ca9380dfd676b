using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Bitmaps;

/// <summary>SETBIT, GETBIT, BITCOUNT and BITPOS against redis-server, byte for byte, errors included.</summary>
public sealed class BitmapDifferentialTests
{
    [Fact]
    public void SetBitGetBit_GrowthAndErrors_AsRedis()
        => Differential.AssertSame(
            "SETBIT b 7 1", "GET b", "SETBIT b 7 1", "SETBIT b 7 0", "GETBIT b 7", "SETBIT b 100 1", "STRLEN b", "GET b",
            "GETBIT b 100", "GETBIT b 101", "GETBIT b 99999999", "GETBIT missing 3", "OBJECT ENCODING b",
            "SET s A", "SETBIT s 6 1", "GET s", "SET n 10", "GETBIT n 2", "GETBIT n 3", "SETBIT n 7 1", "GET n",
            "SETBIT b -1 1", "SETBIT b x 1", "SETBIT b 1.5 1", "SETBIT b 4294967296 1", "SETBIT b 0 2", "SETBIT b 0 -1",
            "SETBIT b 0 x", "SETBIT b 0 01", "GETBIT b -1", "GETBIT b abc", "GETBIT b 4294967296",
            "LPUSH l a", "SETBIT l 0 1", "GETBIT l 0", "SETBIT l -1 1",
            "SETBIT b 0", "GETBIT b", "SETBIT", "PING");

    [Fact]
    public void BitCount_RangesUnitsAndErrors_AsRedis()
        => Differential.AssertSame(
            "SET s foobar", "BITCOUNT s", "BITCOUNT s 0 0", "BITCOUNT s 1 1", "BITCOUNT s 1 1 BYTE", "BITCOUNT s 5 30 BIT",
            "BITCOUNT s 0 -1", "BITCOUNT s -2 -1", "BITCOUNT s -1 -2", "BITCOUNT s -1 -2 FOO", "BITCOUNT s 2 1",
            "BITCOUNT s -100 100", "BITCOUNT s 0 -100", "BITCOUNT s 0 47 bit", "BITCOUNT s 3 3 BIT", "BITCOUNT s -5 -3 BIT",
            "BITCOUNT s 0", "BITCOUNT s 0 1 2", "BITCOUNT s 0 1 BYTE x", "BITCOUNT s a 1", "BITCOUNT s 0 b", "BITCOUNT s 0 1 WORD",
            "BITCOUNT missing", "BITCOUNT missing 0", "BITCOUNT missing a b", "SET n 12345", "BITCOUNT n", "BITCOUNT n 1 2 BIT",
            "SET e \"\"", "BITCOUNT e", "BITCOUNT e 0 -1 BIT",
            "LPUSH l a", "BITCOUNT l", "BITCOUNT", "PING");

    [Fact]
    public void BitPos_SubtleRules_AsRedis()
        => Differential.AssertSame(
            ["SET", "ones", "\u00ff\u00ff\u00ff"], ["SET", "zeros", "\0\0\0"], ["SET", "mix", "\u00ff\u00f0\0"],
            ["BITPOS", "ones", "0"], ["BITPOS", "ones", "1"], ["BITPOS", "ones", "0", "0"], ["BITPOS", "ones", "0", "0", "-1"],
            ["BITPOS", "ones", "0", "1", "2", "BYTE"], ["BITPOS", "ones", "0", "3", "20", "BIT"], ["BITPOS", "ones", "0", "3", "BIT"],
            ["BITPOS", "zeros", "1"], ["BITPOS", "zeros", "0"], ["BITPOS", "zeros", "1", "1"], ["BITPOS", "zeros", "0", "10", "-1", "BIT"],
            ["BITPOS", "mix", "0"], ["BITPOS", "mix", "1", "1"], ["BITPOS", "mix", "0", "1"], ["BITPOS", "mix", "1", "12", "-1", "BIT"],
            ["BITPOS", "mix", "0", "2", "11", "BIT"], ["BITPOS", "mix", "0", "2", "12", "BIT"], ["BITPOS", "mix", "1", "3", "3", "bit"],
            ["BITPOS", "mix", "1", "-1"], ["BITPOS", "mix", "1", "-100", "-50"], ["BITPOS", "mix", "0", "5", "2"],
            ["BITPOS", "mix", "1", "1", "0", "BIT"], ["BITPOS", "mix", "0", "23", "23", "BIT"],
            ["BITPOS", "missing", "0"], ["BITPOS", "missing", "1"], ["BITPOS", "missing", "1", "x"],
            ["BITPOS", "mix", "2"], ["BITPOS", "mix", "x"], ["BITPOS", "mix", "-1"], ["BITPOS", "mix", "1", "x"],
            ["BITPOS", "mix", "1", "0", "y"], ["BITPOS", "mix", "1", "0", "1", "WORD"], ["BITPOS", "mix", "1", "0", "1", "BIT", "x"],
            ["BITPOS", "mix", "1", "x", "1", "WORD"],
            ["SET", "e", ""], ["BITPOS", "e", "0"], ["BITPOS", "e", "1"],
            ["LPUSH", "l", "a"], ["BITPOS", "l", "1"], ["BITPOS", "l"], ["PING"]);

    [Fact]
    public void BitOp_OperationsLengthsAndErrors_AsRedis()
        => Differential.AssertSame(
            ["SET", "{b}1", "foobar"], ["SET", "{b}2", "abc"], ["SET", "{b}3", "\u00ff\u0001"],
            ["BITOP", "AND", "{b}d", "{b}1", "{b}2"], ["GET", "{b}d"], ["OBJECT", "ENCODING", "{b}d"],
            ["BITOP", "OR", "{b}d", "{b}1", "{b}2", "{b}3"], ["GET", "{b}d"],
            ["BITOP", "xor", "{b}d", "{b}1", "{b}2", "{b}3"], ["GET", "{b}d"],
            ["BITOP", "NOT", "{b}d", "{b}2"], ["GET", "{b}d"],
            ["BITOP", "AND", "{b}d", "{b}1", "missing"], ["GET", "{b}d"],
            ["BITOP", "OR", "{b}d", "missing", "{b}2"], ["GET", "{b}d"],
            ["BITOP", "AND", "{b}d", "{b}1"], ["GET", "{b}d"],
            ["EXPIRE", "{b}d", "100"], ["BITOP", "OR", "{b}d", "{b}2"], ["TTL", "{b}d"],
            ["BITOP", "OR", "{b}d", "missing", "missing2"], ["EXISTS", "{b}d"],
            ["BITOP", "OR", "{b}d", "missing"], ["EXISTS", "{b}d"],
            ["LPUSH", "{b}l", "x"], ["BITOP", "OR", "{b}l", "{b}1"], ["TYPE", "{b}l"],
            ["BITOP", "OR", "{b}d", "{b}l"], ["BITOP", "OR", "{b}d", "{b}1", "{b}l"],
            ["BITOP", "NOT", "{b}d", "{b}1", "{b}2"], ["BITOP", "NOT", "{b}d", "missing"], ["EXISTS", "{b}d"],
            ["BITOP", "NAND", "{b}d", "{b}1"], ["BITOP", "AND", "{b}d"], ["BITOP", "AND"],
            ["SET", "{b}n", "12"], ["BITOP", "OR", "{b}d", "{b}n", "{b}2"], ["GET", "{b}d"],
            ["PING"]);

    /// <summary>BITOP across keys on different shards (no hash tags): one atomic step, the same bytes as redis-server.</summary>
    [Fact]
    public void BitOp_KeysOnManyShards_AsRedis()
    {
        var script = new List<string[]>();
        var random = new Random(99);
        for (int k = 0; k < 6; k++)
        {
            var bytes = new char[random.Next(0, 30)];
            for (int i = 0; i < bytes.Length; i++) bytes[i] = (char)random.Next(128);
            script.Add(["SET", "src" + k, new string(bytes)]);
        }
        foreach (var op in new[] { "AND", "OR", "XOR" })
        {
            script.Add(["BITOP", op, "dest", "src0", "src1", "src2", "src3", "src4", "src5"]);
            script.Add(["GET", "dest"]);
            script.Add(["BITCOUNT", "dest"]);
        }
        script.Add(["BITOP", "NOT", "dest", "src3"]);
        script.Add(["GET", "dest"]);
        Differential.AssertSame(script.ToArray());
    }

    [Fact]
    public void BitField_OperationsOverflowAndErrors_AsRedis()
        => Differential.AssertSame(
            "BITFIELD f SET u8 0 255 GET u8 0 GET i8 0 GET u4 4 GET i4 4", "GET f",
            "BITFIELD f INCRBY u8 0 1 INCRBY i8 0 1", "BITFIELD f OVERFLOW SAT INCRBY u8 0 300 INCRBY i8 8 -300",
            "BITFIELD f OVERFLOW FAIL INCRBY u8 0 1 GET u8 0 INCRBY u2 100 5 GET u2 100", "STRLEN f",
            "BITFIELD f OVERFLOW WRAP SET i8 #2 200 GET i8 #2 GET u8 16 SET u3 #1 -1 GET u3 3",
            "BITFIELD f OVERFLOW SAT SET u8 0 -1 GET u8 0 SET i8 0 -1000 GET i8 0 OVERFLOW fail SET i8 0 128 SET u8 0 256",
            "BITFIELD f SET i64 0 -1 GET i64 0 GET u63 0 GET u63 1 INCRBY i64 0 9223372036854775807 INCRBY i64 0 2",
            "BITFIELD f OVERFLOW SAT INCRBY i64 0 9223372036854775807 INCRBY i64 0 9223372036854775807 INCRBY i64 0 -9223372036854775808",
            "BITFIELD f OVERFLOW WRAP INCRBY u63 0 9223372036854775807 INCRBY u63 0 5 SET u1 7 3",
            "BITFIELD f GET u8 1000 GET i16 #5000", "BITFIELD missing GET u8 0 GET i5 3", "EXISTS missing",
            "BITFIELD f", "BITFIELD missing", "BITFIELD f SET u8 0 7 SET u8 0 7", "BITFIELD f SET u8 0 7",
            "BITFIELD n SET u8 #3 1", "GET n", "SET s 12", "BITFIELD s GET u8 0 SET u8 8 65", "GET s",
            "BITFIELD f GET u64 0", "BITFIELD f GET i65 0", "BITFIELD f GET i0 0", "BITFIELD f GET x8 0", "BITFIELD f GET u 0",
            "BITFIELD f GET i08 0", "BITFIELD f GET u8 -1", "BITFIELD f GET u8 #-1", "BITFIELD f GET u8 x", "BITFIELD f GET u8 4294967296",
            "BITFIELD f SET u8 0 x", "BITFIELD f INCRBY u8 0 1.5", "BITFIELD f OVERFLOW WHAT GET u8 0", "BITFIELD f OVERFLOW",
            "BITFIELD f GET u8", "BITFIELD f SET u8 0", "BITFIELD f FOO u8 0", "BITFIELD f GET u8 0 BAR",
            "BITFIELD f SET u8 0 1 GET x8 0", "GET f",
            "BITFIELD_RO f GET u8 0 GET i4 4", "BITFIELD_RO f OVERFLOW SAT GET u8 0", "BITFIELD_RO f SET u8 0 1",
            "BITFIELD_RO f INCRBY u8 0 1 GET x 0", "BITFIELD_RO missing GET u8 0", "BITFIELD_RO f",
            "LPUSH l a", "BITFIELD l GET u8 0", "BITFIELD l SET u8 0 1", "BITFIELD l", "BITFIELD_RO l GET u8 0",
            "COMMAND GETKEYSANDFLAGS BITFIELD f GET u8 0", "COMMAND GETKEYSANDFLAGS BITFIELD f GET u8 0 SET u8 0 1",
            "COMMAND GETKEYSANDFLAGS BITFIELD f OVERFLOW SAT GET u8 0", "COMMAND GETKEYSANDFLAGS BITFIELD f BAD",
            "BITFIELD", "BITFIELD_RO", "PING");

    /// <summary>Random BITFIELD operations of every width, signedness and overflow mode against redis-server.</summary>
    [Fact]
    public void BitField_RandomOperations_AsRedis()
    {
        var random = new Random(4321);
        var script = new List<string[]>();
        string[] overflows = ["WRAP", "SAT", "FAIL"];
        for (int round = 0; round < 60; round++)
        {
            var cmd = new List<string> { "BITFIELD", "rf" + (round % 4) };
            int ops = random.Next(1, 6);
            for (int o = 0; o < ops; o++)
            {
                bool signed = random.Next(2) == 0;
                int bits = signed ? random.Next(1, 65) : random.Next(1, 64);
                string type = (signed ? "i" : "u") + bits;
                string offset = random.Next(4) == 0 ? "#" + random.Next(0, 6) : random.Next(0, 200).ToString();
                long value = random.Next(3) switch
                {
                    0 => random.NextInt64(long.MinValue, long.MaxValue),
                    1 => random.NextInt64(-1000, 1000),
                    _ => random.NextInt64(0, 1L << Math.Min(bits, 62)),
                };
                switch (random.Next(4))
                {
                    case 0: cmd.AddRange(["GET", type, offset]); break;
                    case 1: cmd.AddRange(["SET", type, offset, value.ToString()]); break;
                    case 2: cmd.AddRange(["INCRBY", type, offset, value.ToString()]); break;
                    default: cmd.AddRange(["OVERFLOW", overflows[random.Next(3)]]); break;
                }
            }
            script.Add(cmd.ToArray());
            if (round % 10 == 9) script.Add(["GET", "rf" + (round % 4)]);
        }
        Differential.AssertSame(script.ToArray());
    }

    /// <summary>Random bitmaps and ranges: BITCOUNT and BITPOS must agree with redis-server on every one.</summary>
    [Fact]
    public void BitCountBitPos_RandomRanges_AsRedis()
    {
        var random = new Random(1234);
        var script = new List<string[]>();
        for (int k = 0; k < 8; k++)
        {
            string key = "r" + k;
            int length = random.Next(1, 40);
            var bytes = new char[length];
            for (int i = 0; i < length; i++)
                bytes[i] = (char)(random.Next(4) switch { 0 => 0, 1 => 255, _ => random.Next(256) });
            script.Add(["SET", key, new string(bytes)]);
            for (int q = 0; q < 25; q++)
            {
                string unit = random.Next(3) switch { 0 => "BYTE", 1 => "BIT", _ => "" };
                int scale = unit == "BIT" ? 8 : 1;
                string start = random.Next(-length * scale - 2, length * scale + 2).ToString();
                string end = random.Next(-length * scale - 2, length * scale + 2).ToString();
                string bit = random.Next(2).ToString();
                script.Add(unit == "" ? ["BITCOUNT", key, start, end] : ["BITCOUNT", key, start, end, unit]);
                script.Add(unit == "" ? ["BITPOS", key, bit, start, end] : ["BITPOS", key, bit, start, end, unit]);
                script.Add(["BITPOS", key, bit, start]);
            }
            script.Add(["SETBIT", key, random.Next(0, 400).ToString(), random.Next(2).ToString()]);
            script.Add(["BITCOUNT", key]);
            script.Add(["BITPOS", key, "0"]);
            script.Add(["BITPOS", key, "1"]);
        }
        Differential.AssertSame(script.ToArray());
    }
}

/// <summary>What SETBIT propagates: as Redis 7.2, only a SETBIT that changed something (7.0 propagated every one).</summary>
public sealed class BitmapPropagationTests
{
    [Fact]
    public void SetBit_UnchangedBit_PropagatesNothing()
    {
        var lines = PropagationDifferential.Propagated("SETBIT b 7 1", "SETBIT b 7 1", "SETBIT b 7 0", "SETBIT b 3 0", "SETBIT b 20 0", "SETBIT b 20 0");
        Assert.Equal(["9 SETBIT b 7 1", "9 SETBIT b 7 0", "9 SETBIT b 20 0"], lines);
    }
}

/// <summary>SETBIT's keyspace notification, for bits that change (what Redis 7.0 and 7.2 agree on).</summary>
public sealed class BitmapNotificationTests
{
    [RedisFact]
    public void SetBit_EmitsSetbitEvent_AsRedis()
        => KeyspaceEvents.AssertSameOnPrivateServers(
            [["SETBIT", "nb", "3", "1"], ["SETBIT", "nb", "100", "0"], ["SETBIT", "nb", "3", "0"], ["GETBIT", "nb", "3"], ["BITCOUNT", "nb"]]);
}
