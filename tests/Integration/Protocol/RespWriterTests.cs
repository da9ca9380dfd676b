using System.Buffers;
using RedisClone.Protocol;

namespace RedisClone.Tests.Protocol;

/// <summary>The reply writer's text lines: one byte per char, whatever the text holds.</summary>
public sealed class RespWriterTests
{
    /// <summary>Hands out spans of exactly the size asked for, as a full pipe segment may: a write past it throws.</summary>
    private sealed class ExactWriter : IBufferWriter<byte>
    {
        private byte[] _data = [];
        private int _written;

        public byte[] Written => _data[.._written];

        public void Advance(int count) => _written += count;

        public Memory<byte> GetMemory(int sizeHint = 0)
        {
            Array.Resize(ref _data, _written + Math.Max(sizeHint, 1));
            return _data.AsMemory(_written);
        }

        public Span<byte> GetSpan(int sizeHint = 0) => GetMemory(sizeHint).Span;
    }

    [Theory]
    [InlineData("ERR a\u2026b", "-ERR a?b\r\n")]
    [InlineData("ERR \u00bd\u00e9\u0100\r\nx", "-ERR \u00bd\u00e9?  x\r\n")]
    [InlineData("ERR \U0001F600", "-ERR ??\r\n")]
    public void Error_CharsPastLatin1_OneQuestionMarkEach(string text, string expected)
    {
        // An exception's message went through here: a char whose best fit is several bytes wrote
        // past the span and the exception it threw ended the server.
        var output = new ExactWriter();
        new RespWriter(output, 2).Error(text);
        Assert.Equal(expected, System.Text.Encoding.Latin1.GetString(output.Written));
    }
}
