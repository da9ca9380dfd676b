using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Bitmaps;

/// <summary>
/// BITOP's operations of Redis 8.2 (no reference server here has them): DIFF (X and not any Y),
/// DIFF1 (any Y and not X), ANDOR (X and any Y), ONE (exactly one source), checked against a bit by
/// bit model over random strings of different lengths, missing keys included, and their errors.
/// </summary>
public sealed class BitOpRedis82Tests
{
    private static byte[] B(string s) => System.Text.Encoding.Latin1.GetBytes(s);

    /// <summary>The documented meaning, bit by bit: shorter sources read as zeros.</summary>
    private static byte[] Model(string op, byte[][] sources)
    {
        int length = sources.Max(s => s.Length);
        var result = new byte[length];
        for (int bit = 0; bit < length * 8; bit++)
        {
            bool Bit(byte[] s) => bit / 8 < s.Length && (s[bit / 8] & (0x80 >> (bit % 8))) != 0;
            bool x = Bit(sources[0]);
            bool y = sources.Skip(1).Any(Bit);
            bool set = op switch
            {
                "DIFF" => x && !y,
                "DIFF1" => !x && y,
                "ANDOR" => x && y,
                _ => sources.Count(Bit) == 1,
            };
            if (set) result[bit / 8] |= (byte)(0x80 >> (bit % 8));
        }
        return result;
    }

    [Theory]
    [InlineData("DIFF")]
    [InlineData("DIFF1")]
    [InlineData("ANDOR")]
    [InlineData("ONE")]
    public async Task BitOp_Redis82Operations_MatchTheirMeaningOverRandomStrings(string op)
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        var random = new Random(op.GetHashCode());
        for (int round = 0; round < 40; round++)
        {
            int count = random.Next(op == "ONE" ? 1 : 2, 6);
            var sources = new byte[count][];
            var args = new List<byte[]> { B("BITOP"), B(round % 2 == 0 ? op : op.ToLowerInvariant()), B("{t}dest") };
            for (int i = 0; i < count; i++)
            {
                // Lengths across the word size, some keys missing (read as empty strings).
                sources[i] = random.Next(6) == 0 ? [] : new byte[random.Next(0, 70)];
                random.NextBytes(sources[i]);
                string key = $"{{t}}src{i}";
                if (sources[i].Length == 0) c.Call("DEL", key);
                else Assert.Equal("+OK\r\n", c.Call(B("SET"), B(key), sources[i]));
                args.Add(B(key));
            }
            var expected = Model(op, sources);
            Assert.Equal($":{expected.Length}\r\n", c.Call(args.ToArray()));
            if (expected.Length == 0) Assert.Equal(":0\r\n", c.Call("EXISTS", "{t}dest"));
            else Assert.Equal($"${expected.Length}\r\n{System.Text.Encoding.Latin1.GetString(expected)}\r\n", c.Call("GET", "{t}dest"));
        }
    }

    [Fact]
    public async Task BitOp_Redis82Operations_ErrorsAndEdges()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call(B("SET"), B("{t}a"), [0xf0]));
        Assert.Equal("+OK\r\n", c.Call(B("SET"), B("{t}b"), [0x0f]));
        foreach (string op in new[] { "DIFF", "diff1", "AndOr" })
            Assert.Equal($"-ERR BITOP {op.ToUpperInvariant()} must be called with at least two source keys.\r\n",
                c.Call("BITOP", op, "{t}d", "{t}a"));
        // ONE takes a single source: the result is that source.
        Assert.Equal(":1\r\n", c.Call("BITOP", "ONE", "{t}d", "{t}a"));
        Assert.Equal("$1\r\n\u00f0\r\n", c.Call("GET", "{t}d"));
        Assert.Equal("-ERR syntax error\r\n", c.Call("BITOP", "DIFF2", "{t}d", "{t}a", "{t}b"));
        // A source of another type: WRONGTYPE, and the destination is left alone.
        Assert.Equal(":1\r\n", c.Call("LPUSH", "{t}l", "x"));
        Assert.Equal("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", c.Call("BITOP", "ANDOR", "{t}d", "{t}a", "{t}l"));
        Assert.Equal("$1\r\n\u00f0\r\n", c.Call("GET", "{t}d"));
        // Every source missing: the destination is deleted and the size is 0.
        Assert.Equal(":0\r\n", c.Call("BITOP", "DIFF1", "{t}d", "{t}none1", "{t}none2"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", "{t}d"));
        // X missing: DIFF is all zeros as long as the longest source, DIFF1 is Y.
        Assert.Equal(":1\r\n", c.Call("BITOP", "DIFF", "{t}d", "{t}none", "{t}b"));
        Assert.Equal("$1\r\n\0\r\n", c.Call("GET", "{t}d"));
        Assert.Equal(":1\r\n", c.Call("BITOP", "DIFF1", "{t}d", "{t}none", "{t}b"));
        Assert.Equal("$1\r\n\u000f\r\n", c.Call("GET", "{t}d"));
    }
}
