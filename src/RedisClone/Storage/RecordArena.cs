using System.Runtime.CompilerServices;

namespace RedisClone.Storage;

/// <summary>
/// The records of a big table (a set's longer members in <see cref="MemberTable"/>, a hash's
/// field-value pairs in its table form) packed into a few large chunks instead of an array each.
/// A record is any run of bytes its owner lays out; it is addressed by a handle, one
/// <c>long</c> holding the chunk's index (bits 32-62) and the record's offset in it (bits 0-31).
/// The sign bit is never set, so an owner may use it as a flag of its own.
/// </summary>
/// <remarks>
/// <para>Placement. Records are appended to the current chunk; when one does not fit, a new chunk
/// of an eighth of the live bytes (rounded up to a power of two, within <see cref="MinChunk"/> and
/// <see cref="MaxChunk"/>) becomes current, so its unused tail stays a small fraction of what the
/// table holds. <see cref="MaxChunk"/> keeps chunks below the large object heap (85,000 bytes): a
/// table of millions of records is many small-heap arrays rather than a few large ones that only a
/// full collection reclaims. A record bigger than the chunk it would go into gets a chunk of exactly
/// its size (however big: a 512 MB member is one array), and small records keep filling the
/// current one.</para>
/// <para>Freeing. Records never move while the table runs: a freed record's bytes are dead until
/// <see cref="NeedsCompaction"/> says they outweigh the live ones; then the owner takes the records
/// out (<see cref="TakeAll"/>) and appends its live ones anew, which keeps freeing amortized O(1).
/// A record with a chunk of its own gives the chunk back as soon as it is freed (its index stays
/// used, empty, until a compaction). Chunks are never written again once given back or replaced, so
/// a span handed out stays valid until its owner changes.</para>
/// <para>Accounting (MEMORY USAGE, maxmemory): <see cref="AllocatedBytes"/> is what the chunks
/// hold by their lengths (capacity, not live bytes: dead bytes and the current chunk's free tail
/// count until compaction gives them back), their array headers, and the array of chunks.</para>
/// <para>A struct held in a field of its owner: no object of its own and no extra indirection on a
/// lookup. Never copy it except through <see cref="Clone"/> and <see cref="TakeAll"/>. The default
/// value is an empty arena.</para>
/// </remarks>
internal struct RecordArena
{
    /// <summary>The smallest shared chunk; a record of at most this many bytes is never in a chunk of its own.</summary>
    public const int MinChunk = 1024;

    /// <summary>The largest shared chunk: 64 KB, below the large object heap's 85,000 bytes.</summary>
    public const int MaxChunk = 1 << 16;

    private byte[][]? _chunks;
    private byte[]? _current;   // the chunk records are appended to, or null before the first
    private int _currentIndex;
    private int _currentUsed;
    private int _chunkCount;
    private int _emptyChunks;   // chunks given back (their indexes are reused only by compaction)
    private long _liveBytes;
    private long _deadBytes;
    private long _chunkBytes;   // all chunks' lengths

    /// <summary>Bytes of the live records.</summary>
    public readonly long LiveBytes => _liveBytes;

    /// <summary>True when dead bytes outweigh the live ones, or most chunks were given back: the owner should compact.</summary>
    public readonly bool NeedsCompaction
        => (_deadBytes > 4096 && _deadBytes > _liveBytes) || (_emptyChunks > 64 && _emptyChunks > _chunkCount / 2);

    /// <summary>The chunk holding the record <paramref name="handle"/> (its sign bit ignored) and the record's offset in it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public readonly byte[] ChunkOf(long handle, out int offset)
    {
        offset = (int)(uint)handle;
        return _chunks![(int)((handle >> 32) & int.MaxValue)];
    }

    /// <summary>
    /// Reserves a record of <paramref name="size"/> bytes, at <paramref name="offset"/> in
    /// <paramref name="chunk"/>, for the caller to write; returns its handle.
    /// </summary>
    public long Allocate(int size, out byte[] chunk, out int offset)
    {
        int index;
        if (_current != null && _current.Length - _currentUsed >= size)
        {
            chunk = _current;
            index = _currentIndex;
            offset = _currentUsed;
            _currentUsed += size;
        }
        else
        {
            long wanted = Math.Clamp(_liveBytes / 8, MinChunk, MaxChunk);
            int chunkSize = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)wanted);
            if (size > chunkSize)
            {
                chunk = new byte[size];
                index = AddChunk(chunk);
            }
            else
            {
                chunk = new byte[chunkSize];
                index = AddChunk(chunk);
                _current = chunk;
                _currentIndex = index;
                _currentUsed = size;
            }
            offset = 0;
        }
        _liveBytes += size;
        return ((long)index << 32) | (uint)offset;
    }

    /// <summary>Copies <paramref name="record"/> in as a new record; returns its handle.</summary>
    public long Append(ReadOnlySpan<byte> record)
    {
        long handle = Allocate(record.Length, out var chunk, out int offset);
        record.CopyTo(chunk.AsSpan(offset));
        return handle;
    }

    /// <summary>A live record was shortened in place by <paramref name="bytes"/>: they are dead now.</summary>
    public void Shrink(int bytes)
    {
        _liveBytes -= bytes;
        _deadBytes += bytes;
    }

    /// <summary>Frees the record <paramref name="handle"/> of <paramref name="size"/> bytes; then see <see cref="NeedsCompaction"/>.</summary>
    public void Release(long handle, int size)
    {
        _liveBytes -= size;
        int index = (int)((handle >> 32) & int.MaxValue);
        var chunk = _chunks![index];
        if (!ReferenceEquals(chunk, _current) && chunk.Length == size)
        {
            // The record had the chunk to itself (a big one): give the chunk back now.
            _chunkBytes -= size;
            _chunks[index] = [];
            _emptyChunks++;
        }
        else _deadBytes += size;
    }

    /// <summary>
    /// Hands every record over to the returned arena and leaves this one empty: to compact, the
    /// owner reads its live records from the returned arena and appends them to this one.
    /// </summary>
    public RecordArena TakeAll()
    {
        var old = this;
        this = default;
        return old;
    }

    /// <summary>An independent copy (every chunk is cloned).</summary>
    public readonly RecordArena Clone()
    {
        var copy = this;
        if (_chunks == null) return copy;
        copy._chunks = new byte[_chunks.Length][];
        for (int i = 0; i < _chunkCount; i++) copy._chunks[i] = _chunks[i].Length == 0 ? [] : (byte[])_chunks[i].Clone();
        copy._current = _current == null ? null : copy._chunks[_currentIndex];
        return copy;
    }

    /// <summary>The chunks by their lengths, with their headers, and the array of them.</summary>
    public readonly long AllocatedBytes()
        => _chunks == null ? 0 : MemoryMeter.ArrayBytes(_chunks.Length, 8) + _chunkBytes + (_chunkCount - _emptyChunks) * (long)MemoryMeter.ArrayHeader;

    private int AddChunk(byte[] chunk)
    {
        if (_chunks == null) _chunks = new byte[4][];
        else if (_chunkCount == _chunks.Length) Array.Resize(ref _chunks, _chunkCount * 2);
        _chunks[_chunkCount] = chunk;
        _chunkBytes += chunk.Length;
        return _chunkCount++;
    }
}
