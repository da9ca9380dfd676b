using System.Buffers;
using System.Text;
using RedisClone.Protocol;

namespace RedisClone.Tests.Protocol;

/// <summary>What a <see cref="CommandBuffer"/> keeps after a big batch or a big argument.</summary>
public class CommandBufferMemoryTests
{
    [Fact]
    public void Clear_AfterManyCommands_GivesIndexesBack()
    {
        var buffer = new CommandBuffer();
        for (int i = 0; i < 100_000; i++)
        {
            buffer.BeginCommand();
            "SET"u8.CopyTo(buffer.AddArg(3));
            "k"u8.CopyTo(buffer.AddArg(1));
            "v"u8.CopyTo(buffer.AddArg(1));
            buffer.EndCommand();
        }
        Assert.True(buffer.AllocatedBytes > 2_000_000);
        buffer.Clear();
        // The arena (500 KB here) is kept up to 1 MB; the indexes (5 MB for 300,000 arguments) are not.
        Assert.True(buffer.AllocatedBytes < 1 << 20, $"kept {buffer.AllocatedBytes} bytes after the batch");
    }

    [Fact]
    public void Parse_BigBulk_ArenaGrowsNoLargerThanTheArgument()
    {
        const int size = 3_000_000; // doubling alone from 4 KB ends at 4 MB
        var parser = new RespParser();
        var buffer = new CommandBuffer();
        var header = Encoding.ASCII.GetBytes($"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n${size}\r\n");
        var reader = new SequenceReader<byte>(new ReadOnlySequence<byte>(header));
        Assert.Equal(ParseStatus.NeedMore, Drain(parser, buffer, ref reader));
        var chunk = new byte[16 * 1024];
        for (int sent = 0; sent < size; sent += chunk.Length)
        {
            var piece = new ReadOnlySequence<byte>(chunk, 0, Math.Min(chunk.Length, size - sent));
            var r = new SequenceReader<byte>(piece);
            Drain(parser, buffer, ref r);
            Assert.True(buffer.ArenaCapacity < size + 64 * 1024, $"arena grew to {buffer.ArenaCapacity} for a {size}-byte argument");
        }
        var end = new SequenceReader<byte>(new ReadOnlySequence<byte>("\r\n"u8.ToArray()));
        Drain(parser, buffer, ref end);
        Assert.Equal(1, buffer.Count);
        Assert.Equal(size, buffer.Arg(0, 2).Length);
        buffer.Clear();
        Assert.True(buffer.ArenaCapacity <= 1 << 20, $"kept {buffer.ArenaCapacity} bytes after the command ran");
    }

    private static ParseStatus Drain(RespParser parser, CommandBuffer buffer, ref SequenceReader<byte> reader)
    {
        ParseStatus status;
        do status = parser.Parse(ref reader, buffer);
        while (status == ParseStatus.BatchFull && !reader.End);
        return status;
    }
}
