namespace RedisClone.Storage;

/// <summary>
/// A position on a <see cref="RedisList"/> that walks towards the tail or the head, for replies
/// that read a run of elements (LRANGE, LPOP with a count, LPOS). Valid until the list is changed.
/// </summary>
internal struct ListCursor
{
    private readonly RedisList _list;
    private int _node;
    private int _p;

    internal ListCursor(RedisList list, int node, int p)
    {
        _list = list;
        _node = node;
        _p = p;
    }

    /// <summary>False once the walk went past either end.</summary>
    public readonly bool Valid => _p >= 0;

    private readonly byte[] Buffer => _list.NodeBuffer(_node);

    public readonly ListpackValue Value => Listpack.Get(Buffer, _p);

    /// <summary>
    /// The element's bytes: a slice of the list's storage for strings, or the decimal text of an
    /// integer written into <paramref name="scratch"/> (at least 20 bytes).
    /// </summary>
    public readonly ReadOnlySpan<byte> Text(Span<byte> scratch)
    {
        var buffer = Buffer;
        var v = Listpack.Get(buffer, _p);
        if (v.IsInt) return scratch.Slice(0, Common.RedisNumbers.FormatInt64(v.Int, scratch));
        return buffer.AsSpan(v.Start, v.Length);
    }

    /// <summary>True when the element equals <paramref name="value"/> (Redis's lpCompare).</summary>
    public readonly bool Matches(ReadOnlySpan<byte> value) => Listpack.Matches(Buffer, _p, value);

    /// <summary>One step towards the tail.</summary>
    public void MoveNext()
    {
        _p = Listpack.Next(Buffer, _p);
        while (_p < 0 && ++_node < _list.NodeCount) _p = Listpack.First(_list.NodeBuffer(_node));
    }

    /// <summary>One step towards the head.</summary>
    public void MovePrev()
    {
        _p = Listpack.Prev(Buffer, _p);
        while (_p < 0 && --_node >= 0) _p = Listpack.Last(_list.NodeBuffer(_node));
    }
}
