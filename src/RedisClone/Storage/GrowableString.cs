namespace RedisClone.Storage;

/// <summary>
/// A string value edited in place by APPEND or SETRANGE: its bytes are the first <see cref="Length"/>
/// bytes of a buffer with room to spare, so a string built by many appends costs amortised O(1) per
/// append instead of a copy of the whole string each time.
/// </summary>
/// <remarks>
/// <para>
/// The room follows Redis's greedy sdsMakeRoomFor, which both sdscatlen (APPEND) and sdsgrowzero
/// (SETRANGE) use: when a string must reach a length it has no room for, its buffer becomes twice
/// that length while the length is under 1 MB (SDS_MAX_PREALLOC), that length plus 1 MB beyond.
/// A string never shrinks in place: a new value (SET, INCR...) replaces the object.
/// </para>
/// <para>
/// Only strings edited in place take this form; SET keeps storing an exact <c>byte[]</c>, so the hot
/// paths do not change. Readers never test for either class: <see cref="StringValue.TryGet"/> shows
/// both as a span. Its capacity is what the memory meter charges, and only
/// <see cref="Database.GrowString"/> changes it (adjusting the meter at once).
/// </para>
/// </remarks>
internal sealed class GrowableString
{
    /// <summary>SDS_MAX_PREALLOC: above this length a string grows by this much, not by doubling.</summary>
    public const int MaxPrealloc = 1024 * 1024;

    /// <summary>The object itself: header, the buffer reference and the length (padded).</summary>
    private const int ObjectBytes = MemoryMeter.ObjectHeader + 16;

    private byte[] _buffer;
    private int _length;

    /// <summary>
    /// A copy of <paramref name="current"/> lengthened to <paramref name="length"/> bytes (the added
    /// bytes zero), with spare room as if it had just grown to that length.
    /// </summary>
    public GrowableString(ReadOnlySpan<byte> current, int length)
    {
        _buffer = GC.AllocateUninitializedArray<byte>(CapacityFor(length));
        current.CopyTo(_buffer);
        _length = current.Length;
        GrowZero(length);
    }

    /// <summary>The string's length (not its capacity).</summary>
    public int Length => _length;

    /// <summary>Bytes the buffer can hold before it must be reallocated.</summary>
    public int Capacity => _buffer.Length;

    /// <summary>The string's bytes. Valid until the string is next lengthened.</summary>
    public ReadOnlySpan<byte> Span => new(_buffer, 0, _length);

    /// <summary>The string's bytes, to overwrite in place (SETRANGE within its length).</summary>
    public Span<byte> Writable => new(_buffer, 0, _length);

    /// <summary>What the memory meter charges for this value: the object and its whole buffer.</summary>
    public long AllocatedBytes => ObjectBytes + MemoryMeter.ArrayBytes(_buffer.Length);

    /// <summary>
    /// Lengthens the string to <paramref name="length"/> bytes, the added ones zero (Redis's
    /// sdsgrowzero); a shorter length changes nothing. Reallocates only when the buffer has no room,
    /// then by the greedy rule. Callers go through <see cref="Database.GrowString"/>, which re-meters.
    /// </summary>
    public void GrowZero(int length)
    {
        if (length <= _length) return;
        if (length > _buffer.Length)
        {
            var grown = GC.AllocateUninitializedArray<byte>(CapacityFor(length));
            Span.CopyTo(grown);
            _buffer = grown;
        }
        // Bytes past the length are garbage from the uninitialized allocation, never stale string data.
        _buffer.AsSpan(_length, length - _length).Clear();
        _length = length;
    }

    /// <summary>The buffer size for a string that must hold <paramref name="length"/> bytes (greedy sdsMakeRoomFor).</summary>
    public static int CapacityFor(int length)
    {
        long capacity = length < MaxPrealloc ? 2L * length : (long)length + MaxPrealloc;
        return (int)Math.Min(capacity, Array.MaxLength);
    }
}
