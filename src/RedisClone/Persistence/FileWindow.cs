using RedisClone.Common;

namespace RedisClone.Persistence;

/// <summary>
/// The bytes of a file being loaded (an RDB file, an AOF file): a window that grows while one item
/// (an opcode and its data, a key and its value, a command) does not fit, so files of any size
/// load with memory for their largest item only, not for the whole file.
/// </summary>
internal sealed class FileWindow(Stream stream)
{
    private byte[] _buffer = new byte[1 << 20];
    private int _start, _end;

    /// <summary>The file offset of the window's first byte.</summary>
    public long Offset { get; private set; }

    public bool Eof { get; private set; }

    /// <summary>The bytes read and not consumed yet.</summary>
    public ReadOnlySpan<byte> Span => _buffer.AsSpan(_start, _end - _start);

    /// <summary>The same bytes as an array and a range (for parsers that index an array).</summary>
    public byte[] Buffer => _buffer;
    public int Start => _start;
    public int End => _end;

    /// <summary>Reads more (moving what is left to the front, growing when full); false at the end of the file.</summary>
    public bool Fill()
    {
        if (Eof) return false;
        if (_start > 0)
        {
            Array.Copy(_buffer, _start, _buffer, 0, _end - _start);
            _end -= _start;
            _start = 0;
        }
        if (_end == _buffer.Length)
        {
            if (_buffer.Length >= Array.MaxLength) return false;
            Array.Resize(ref _buffer, (int)Math.Min((long)_buffer.Length * 2, Array.MaxLength));
        }
        int n = stream.Read(_buffer, _end, _buffer.Length - _end);
        if (n == 0)
        {
            Eof = true;
            return false;
        }
        _end += n;
        return true;
    }

    /// <summary>The first <paramref name="count"/> bytes are done with.</summary>
    public void Consume(int count)
    {
        _start += count;
        Offset += count;
    }

    /// <summary>The first <paramref name="count"/> bytes are done with, and the checksum takes them in.</summary>
    public void Consume(int count, ref ulong crc)
    {
        crc = Crc64.Update(crc, _buffer.AsSpan(_start, count));
        Consume(count);
    }
}
