using RedisClone.Common;

namespace RedisClone.Scripting.Libraries;

/// <summary>
/// A growable byte buffer from the pool, for building one library result (a JSON text, a
/// MessagePack stream, a struct): rented on first use, returned by <see cref="Dispose"/>.
/// </summary>
internal struct LuaSink : IDisposable
{
    private byte[]? _buffer;
    private int _length;

    public readonly ReadOnlySpan<byte> Written => _buffer.AsSpan(0, _length);

    /// <summary>Room for <paramref name="count"/> more bytes; advance with <see cref="Advance"/>.</summary>
    public Span<byte> Reserve(int count)
    {
        if (_buffer == null || _buffer.Length - _length < count) Grow(count);
        return _buffer.AsSpan(_length);
    }

    public void Advance(int count) => _length += count;

    public void Add(byte b)
    {
        if (_buffer == null || _length == _buffer.Length) Grow(1);
        _buffer![_length++] = b;
    }

    public void Add(ReadOnlySpan<byte> bytes)
    {
        bytes.CopyTo(Reserve(bytes.Length));
        _length += bytes.Length;
    }

    private void Grow(int count)
    {
        long wanted = Math.Max((long)_length + count, Math.Max(256, (_buffer?.Length ?? 0) * 2L));
        if (wanted > Array.MaxLength) throw new LuaLibraryException("not enough memory");
        var next = BufferPool.Rent((int)wanted);
        if (_buffer != null)
        {
            _buffer.AsSpan(0, _length).CopyTo(next);
            BufferPool.Return(_buffer);
        }
        _buffer = next;
    }

    public void Dispose()
    {
        if (_buffer != null) BufferPool.Return(_buffer);
        _buffer = null;
        _length = 0;
    }
}
