using System.Buffers;
using System.Text;
using RedisClone.Common;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Common;

/// <summary>
/// LZF and RDB strings: round trips, malformed input, and byte-for-byte equality with what
/// redis-server writes (a string key's DUMP payload is the type byte, the RDB string, the version
/// and the CRC64).
/// </summary>
public class LzfTests
{
    private static byte[] Compress(byte[] input, int budget)
    {
        var output = new byte[budget];
        int n = Lzf.Compress(input, output);
        return n == 0 ? [] : output[..n];
    }

    private static byte[] Decompress(byte[] compressed, int length)
    {
        var output = new byte[length];
        Assert.Equal(length, Lzf.Decompress(compressed, output));
        return output;
    }

    public static TheoryData<string> Samples() => new()
    {
        "hello hello hello hello hello hello world world world",
        new string('a', 1000),
        string.Concat(Enumerable.Range(0, 600).Select(i => (char)('a' + i * 7 % 26))),
        string.Concat(Enumerable.Range(0, 3000).Select(i => (i * i % 251).ToString())),
        "#!lua name=mylib\nredis.register_function('f', function(keys, args) return redis.call('get', keys[1]) end)\n",
    };

    [Theory]
    [MemberData(nameof(Samples))]
    public void Compress_ThenDecompress_GivesInputBack(string text)
    {
        var input = Encoding.ASCII.GetBytes(text);
        var compressed = Compress(input, input.Length + 64);
        Assert.NotEmpty(compressed);
        Assert.Equal(input, Decompress(compressed, input.Length));
    }

    [Fact]
    public void Compress_RandomData_RoundTripsOrDeclines()
    {
        var random = new Random(1);
        for (int round = 0; round < 200; round++)
        {
            var input = new byte[random.Next(1, 5000)];
            // Mix random bytes with repeats so both literals and back references occur.
            for (int i = 0; i < input.Length; i++)
                input[i] = i > 10 && random.Next(3) == 0 ? input[i - random.Next(1, 10)] : (byte)random.Next(4);
            var compressed = Compress(input, input.Length * 2 + 16);
            Assert.Equal(input, Decompress(compressed, input.Length));
        }
    }

    [Fact]
    public void Compress_OutputTooSmall_ReturnsZero()
    {
        var input = new byte[100];
        new Random(3).NextBytes(input);
        Assert.Equal(0, Lzf.Compress(input, new byte[96]));
    }

    [Theory]
    [InlineData(new byte[] { 5, (byte)'a' })]            // literal run longer than the input
    [InlineData(new byte[] { 0x20 })]                    // back reference without its offset byte
    [InlineData(new byte[] { 0, (byte)'a', 0x20, 5 })]   // back reference before the output's start
    public void Decompress_Malformed_ReturnsMinusOne(byte[] input)
        => Assert.Equal(-1, Lzf.Decompress(input, new byte[64]));

    [Fact]
    public void Decompress_OutputTooSmall_ReturnsMinusOne()
    {
        var input = Encoding.ASCII.GetBytes(new string('z', 100));
        var compressed = Compress(input, 100);
        Assert.Equal(-1, Lzf.Decompress(compressed, new byte[99]));
    }

    [Fact]
    public void Compress_DoesNotAllocateAfterFirstUse()
    {
        var input = Encoding.ASCII.GetBytes(new string('q', 2000) + "tail");
        var output = new byte[2000];
        Lzf.Compress(input, output);
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 50; i++) Lzf.Compress(input, output);
        Assert.Equal(before, GC.GetAllocatedBytesForCurrentThread());
    }

    /// <summary>redis-server 7.0's DUMP of the string "hello hello hello hello hello hello world world world".</summary>
    [Fact]
    public void RdbString_KnownDumpPayload_IsRedisBytes()
    {
        byte[] expected = Latin("\x00\xc3\x17\x35\x06hello h\xe0\x14\x05\x04world\xe0\x01\x05\x01ld\n\x00=k,_\xad\x19\x8e\x0f");
        Assert.Equal(expected, DumpPayload(Encoding.ASCII.GetBytes("hello hello hello hello hello hello world world world"), 10));
    }

    [Fact]
    public void RdbString_WriteThenRead_GivesValueBack()
    {
        foreach (var text in new[] { "", "x", "12", "-129", "70000", "-2147483649", "007", new string('a', 70), new string('b', 20000) })
        {
            var output = new ArrayBufferWriter<byte>();
            RdbString.Write(output, Encoding.ASCII.GetBytes(text));
            int position = 0;
            Assert.True(RdbString.TryRead(output.WrittenSpan, ref position, out var value));
            Assert.Equal(text, Encoding.ASCII.GetString(value));
            Assert.Equal(output.WrittenCount, position);
        }
    }

    [Fact]
    public void RdbString_CutShort_IsRefused()
    {
        var output = new ArrayBufferWriter<byte>();
        RdbString.Write(output, Encoding.ASCII.GetBytes(new string('c', 300) + "end"));
        for (int n = 0; n < output.WrittenCount; n++)
        {
            int position = 0;
            Assert.False(RdbString.TryRead(output.WrittenSpan[..n], ref position, out _));
        }
    }

    /// <summary>Strings of many shapes DUMPed by redis-server: our RDB string, version 10 and CRC64 give the same bytes.</summary>
    [RedisFact]
    public void RdbString_ManyValues_SameBytesAsRedisDump()
    {
        using var c = ReferenceRedis.Shared!.Connect();
        var random = new Random(11);
        var values = new List<byte[]>();
        foreach (string sample in Samples()) values.Add(Encoding.ASCII.GetBytes(sample));
        for (int i = 0; i < 40; i++)
        {
            var value = new byte[random.Next(15, 3000)];
            for (int j = 0; j < value.Length; j++)
                value[j] = j > 5 && random.Next(2) == 0 ? value[j - random.Next(1, 6)] : (byte)random.Next(256);
            values.Add(value);
        }
        values.Add(Encoding.ASCII.GetBytes("12345"));
        values.Add(Encoding.ASCII.GetBytes("short"));
        for (int i = 0; i < values.Count; i++)
        {
            string key = $"lzf:dump:{i}";
            Assert.Equal("+OK\r\n", c.Call([Encoding.ASCII.GetBytes("SET"), Encoding.ASCII.GetBytes(key), values[i]]));
            string reply = c.Call("DUMP", key);
            var payload = Latin(reply[(reply.IndexOf("\r\n", StringComparison.Ordinal) + 2)..^2]);
            Assert.True(payload.AsSpan().SequenceEqual(DumpPayload(values[i], 10)), $"value {i} ({values[i].Length} bytes) differs from redis-server's DUMP");
            c.Call("DEL", key);
        }
    }

    private static byte[] DumpPayload(byte[] value, ushort version)
    {
        var output = new ArrayBufferWriter<byte>();
        output.Write(new byte[] { 0 }); // string type
        RdbString.Write(output, value);
        output.Write(new[] { (byte)version, (byte)(version >> 8) });
        ulong crc = Crc64.Compute(output.WrittenSpan);
        output.Write(BitConverter.GetBytes(crc).AsSpan());
        return output.WrittenSpan.ToArray();
    }

    private static byte[] Latin(string s) => Encoding.Latin1.GetBytes(s);
}
