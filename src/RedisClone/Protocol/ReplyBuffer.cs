using System.Buffers;

namespace RedisClone.Protocol;

/// <summary>
/// A reusable in-memory reply sink: a shard writes the replies of its part of a batch here, and the
/// connection copies them out in command order.
/// </summary>
internal sealed class ReplyBuffer : IBufferWriter<byte>
{
    private byte[] _buffer;
    private int _written;

    public ReplyBuffer(int capacity = 1024) => _buffer = new byte[capacity];

    public int Written => _written;

    public ReadOnlySpan<byte> Slice(int start, int end) => new(_buffer, start, end - start);

    public void Clear()
    {
        _written = 0;
        if (_buffer.Length > 1 << 20)
        {
            Common.ReleasedMemory.Add(_buffer.Length);
            _buffer = new byte[1024];
        }
    }

    public void Advance(int count) => _written += count;

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        Ensure(sizeHint);
        return _buffer.AsMemory(_written);
    }

    public Span<byte> GetSpan(int sizeHint = 0)
    {
        Ensure(sizeHint);
        return _buffer.AsSpan(_written);
    }

    private void Ensure(int sizeHint)
    {
        if (sizeHint < 1) sizeHint = 1;
        if (_buffer.Length - _written >= sizeHint) return;
        long want = Math.Max((long)_buffer.Length * 2, (long)_written + sizeHint);
        if (want > Array.MaxLength) want = Array.MaxLength;
        Array.Resize(ref _buffer, (int)want);
    }
}

/// <summary>A sink that drops everything (CLIENT REPLY OFF/SKIP).</summary>
internal sealed class NullBufferWriter : IBufferWriter<byte>
{
    public static readonly NullBufferWriter Instance = new();
    private byte[] _scratch = new byte[4096];

    public void Advance(int count) { }

    public Memory<byte> GetMemory(int sizeHint = 0) => Scratch(sizeHint);

    public Span<byte> GetSpan(int sizeHint = 0) => Scratch(sizeHint).Span;

    private Memory<byte> Scratch(int sizeHint)
    {
        // Shared across threads: contents are never read, so races on it do not matter.
        var s = _scratch;
        if (s.Length < sizeHint) _scratch = s = new byte[sizeHint];
        return s;
    }
}
