using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace RedisClone.Storage;

/// <summary>
/// A hash set of byte strings: the "hashtable" encoding of a set (Redis's dict of sds members).
/// Owned by one shard thread at a time, like every stored value.
/// </summary>
/// <remarks>
/// <para>Memory is the reason this is not a <c>HashSet&lt;byte[]&gt;</c>. Each slot is 16 bytes:
/// the member itself when it is at most 7 bytes (most integers and short tags), else a reference
/// into an arena of length-prefixed records held in a few large chunks; plus the hash and the chain
/// link. There is no object per member, so a member costs its slot, its bucket and its bytes, and
/// the garbage collector sees a handful of arrays instead of millions of small ones.</para>
/// <para>Like <see cref="KeyTable"/>, slots never move: growing keeps every member at its index and
/// freed slots are only reused, so an SSCAN cursor that is a slot index returns every member present
/// for the whole scan exactly once. Removed records leave dead bytes in the arena; once they
/// outweigh the live ones the arena is rewritten (slot indexes do not change), which keeps removal
/// amortized O(1).</para>
/// </remarks>
internal sealed class MemberTable
{
    /// <summary>One slot. <see cref="Next"/> &gt;= -1 marks a used slot; free slots hold -3 - nextFree.</summary>
    private struct Entry
    {
        /// <summary>
        /// Inline (sign bit clear): the bytes in bits 0-55, the length in bits 56-62. Arena (sign bit
        /// set): the chunk index in bits 32-62 and the record's offset in bits 0-31.
        /// </summary>
        public long Data;
        public int Hash;
        public int Next;
    }

    private const int InlineMax = 7;
    private const long ArenaFlag = long.MinValue;
    private const int MinChunk = 1024;
    private const int MaxChunk = 1 << 20;

    private int[] _buckets;   // 1-based slot index of each chain head; 0 = empty
    private Entry[] _entries;
    private int _highWater;   // slots ever used: [0, _highWater)
    private int _freeList = -1;
    private int _freeCount;

    private byte[][] _chunks = [];
    private int _chunkCount;
    private int _current = -1;  // the chunk small records are appended to
    private int _currentUsed;
    private long _liveBytes;
    private long _deadBytes;
    private int _maxLength;

    public MemberTable(int capacity = 4)
    {
        int size = Math.Max(4, (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Clamp(capacity, 1, 1 << 30)));
        _buckets = new int[size];
        _entries = new Entry[size];
    }

    private MemberTable(MemberTable other)
    {
        _buckets = (int[])other._buckets.Clone();
        _entries = (Entry[])other._entries.Clone();
        _highWater = other._highWater;
        _freeList = other._freeList;
        _freeCount = other._freeCount;
        _chunks = new byte[other._chunks.Length][];
        for (int i = 0; i < other._chunkCount; i++) _chunks[i] = (byte[])other._chunks[i].Clone();
        _chunkCount = other._chunkCount;
        _current = other._current;
        _currentUsed = other._currentUsed;
        _liveBytes = other._liveBytes;
        _deadBytes = other._deadBytes;
        _maxLength = other._maxLength;
    }

    public int Count => _highWater - _freeCount;

    /// <summary>Slots to visit in a full scan: [0, SlotCount).</summary>
    public int SlotCount => _highWater;

    /// <summary>An upper bound of the members' lengths (the longest ever added), for sizing replies.</summary>
    public int MaxLength => _maxLength;

    public bool IsUsed(int slot) => (uint)slot < (uint)_highWater && _entries[slot].Next >= -1;

    /// <summary>An independent copy.</summary>
    public MemberTable Clone() => new(this);

    public bool Contains(ReadOnlySpan<byte> member) => Find(member) >= 0;

    /// <summary>Slot of <paramref name="member"/>, or -1.</summary>
    public int Find(ReadOnlySpan<byte> member) => Find(member, KeyTable.HashOf(member));

    private int Find(ReadOnlySpan<byte> member, int hash)
    {
        var entries = _entries;
        int i = _buckets[hash & (_buckets.Length - 1)] - 1;
        if (member.Length <= InlineMax)
        {
            long packed = Pack(member);
            while (i >= 0)
            {
                ref var e = ref entries[i];
                if (e.Data == packed && e.Hash == hash) return i;
                i = e.Next;
            }
            return -1;
        }
        while (i >= 0)
        {
            ref var e = ref entries[i];
            if (e.Hash == hash && e.Data < 0 && Record(e.Data).SequenceEqual(member)) return i;
            i = e.Next;
        }
        return -1;
    }

    /// <summary>Adds <paramref name="member"/>; false when it was already there.</summary>
    public bool Add(ReadOnlySpan<byte> member)
    {
        int hash = KeyTable.HashOf(member);
        if (Find(member, hash) >= 0) return false;
        AddNew(member, hash);
        return true;
    }

    /// <summary>Adds a member known to be absent; returns its slot.</summary>
    public int AddNew(ReadOnlySpan<byte> member) => AddNew(member, KeyTable.HashOf(member));

    private int AddNew(ReadOnlySpan<byte> member, int hash)
    {
        long data = member.Length <= InlineMax ? Pack(member) : Append(member);
        if (member.Length > _maxLength) _maxLength = member.Length;
        int slot;
        if (_freeCount > 0)
        {
            slot = _freeList;
            _freeList = -3 - _entries[slot].Next;
            _freeCount--;
        }
        else
        {
            if (_highWater == _entries.Length) Grow();
            slot = _highWater++;
        }
        ref int bucket = ref _buckets[hash & (_buckets.Length - 1)];
        ref var e = ref _entries[slot];
        e.Data = data;
        e.Hash = hash;
        e.Next = bucket - 1;
        bucket = slot + 1;
        return slot;
    }

    /// <summary>Removes <paramref name="member"/>; false when it was not there.</summary>
    public bool Remove(ReadOnlySpan<byte> member)
    {
        int slot = Find(member);
        if (slot < 0) return false;
        RemoveAt(slot);
        return true;
    }

    /// <summary>Removes the member in <paramref name="slot"/>.</summary>
    public void RemoveAt(int slot)
    {
        ref var e = ref _entries[slot];
        ref int bucket = ref _buckets[e.Hash & (_buckets.Length - 1)];
        int i = bucket - 1, prev = -1;
        while (i != slot)
        {
            prev = i;
            i = _entries[i].Next;
        }
        if (prev < 0) bucket = e.Next + 1;
        else _entries[prev].Next = e.Next;
        if (e.Data < 0)
        {
            int size = RecordSize(e.Data);
            _liveBytes -= size;
            _deadBytes += size;
        }
        e.Data = 0;
        e.Hash = 0;
        e.Next = -3 - _freeList;
        _freeList = slot;
        _freeCount++;
        if (_deadBytes > 4096 && _deadBytes > _liveBytes) CompactArena();
    }

    /// <summary>
    /// The member in <paramref name="slot"/>. An inline member is copied into <paramref name="scratch"/>
    /// (at least 8 bytes); an arena member is returned in place, valid until the table changes.
    /// </summary>
    public ReadOnlySpan<byte> MemberAt(int slot, Span<byte> scratch)
    {
        long data = _entries[slot].Data;
        if (data < 0) return Record(data);
        BinaryPrimitives.WriteInt64LittleEndian(scratch, data & 0x00FF_FFFF_FFFF_FFFF);
        return scratch.Slice(0, (int)(data >>> 56));
    }

    /// <summary>A random used slot, or -1 when empty.</summary>
    public int RandomSlot(Random random)
    {
        int count = Count;
        if (count == 0) return -1;
        // Rejection sampling is uniform; it is bounded for tables that removals left sparse (slots
        // never move, so the table cannot shrink under a running SSCAN), where a walk from a random
        // start takes over: slightly biased towards members after long gaps, never slow.
        int tries = count * 8L >= _highWater ? int.MaxValue : 32;
        for (int t = 0; t < tries; t++)
        {
            int s = random.Next(_highWater);
            if (_entries[s].Next >= -1) return s;
        }
        int start = random.Next(_highWater);
        for (int k = 0; k < _highWater; k++)
        {
            int s = start + k;
            if (s >= _highWater) s -= _highWater;
            if (_entries[s].Next >= -1) return s;
        }
        return -1;
    }

    /// <summary>Bytes held, for memory accounting: slots, buckets and arena chunks.</summary>
    public long AllocatedBytes()
    {
        long n = _entries.Length * (long)Unsafe.SizeOf<Entry>() + _buckets.Length * 4L;
        for (int i = 0; i < _chunkCount; i++) n += _chunks[i].Length;
        return n;
    }

    // ---------------------------------------------------------------- inline members

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static long Pack(ReadOnlySpan<byte> member)
    {
        Span<byte> eight = stackalloc byte[8];
        eight.Clear();
        member.CopyTo(eight);
        return (BinaryPrimitives.ReadInt64LittleEndian(eight) & 0x00FF_FFFF_FFFF_FFFF) | ((long)member.Length << 56);
    }

    // ---------------------------------------------------------------- the arena

    /// <summary>The bytes of the arena record that <paramref name="data"/> points at.</summary>
    private ReadOnlySpan<byte> Record(long data)
    {
        var chunk = _chunks[(int)((data >> 32) & int.MaxValue)];
        int offset = (int)(uint)data;
        int length = ReadLength(chunk, ref offset);
        return new ReadOnlySpan<byte>(chunk, offset, length);
    }

    private int RecordSize(long data)
    {
        var chunk = _chunks[(int)((data >> 32) & int.MaxValue)];
        int offset = (int)(uint)data, start = offset;
        int length = ReadLength(chunk, ref offset);
        return offset - start + length;
    }

    /// <summary>Copies <paramref name="member"/> into the arena as a length-prefixed record; returns its reference.</summary>
    private long Append(ReadOnlySpan<byte> member)
    {
        int size = LengthSize(member.Length) + member.Length;
        int chunkIndex;
        int offset;
        if (_current >= 0 && _chunks[_current].Length - _currentUsed >= size)
        {
            chunkIndex = _current;
            offset = _currentUsed;
            _currentUsed += size;
        }
        else
        {
            // Chunks grow with the set (an eighth of the live bytes, within bounds), so the unused
            // tail of the current chunk stays a small fraction of what the set holds.
            long wanted = Math.Clamp(_liveBytes / 8, MinChunk, MaxChunk);
            int chunkSize = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)wanted);
            if (size > chunkSize)
            {
                // A large member gets a chunk of its own; small records keep filling the current one.
                chunkIndex = AddChunk(new byte[size]);
                offset = 0;
            }
            else
            {
                chunkIndex = AddChunk(new byte[chunkSize]);
                _current = chunkIndex;
                offset = 0;
                _currentUsed = size;
            }
        }
        var chunk = _chunks[chunkIndex];
        int at = offset;
        WriteLength(chunk, ref at, member.Length);
        member.CopyTo(chunk.AsSpan(at));
        _liveBytes += size;
        return ArenaFlag | ((long)chunkIndex << 32) | (uint)offset;
    }

    private int AddChunk(byte[] chunk)
    {
        if (_chunkCount == _chunks.Length) Array.Resize(ref _chunks, Math.Max(4, _chunkCount * 2));
        _chunks[_chunkCount] = chunk;
        return _chunkCount++;
    }

    /// <summary>Rewrites the live records into fresh chunks; slots keep their indexes.</summary>
    private void CompactArena()
    {
        var oldChunks = _chunks;
        _chunks = [];
        _chunkCount = 0;
        _current = -1;
        _currentUsed = 0;
        _liveBytes = 0;
        _deadBytes = 0;
        for (int slot = 0; slot < _highWater; slot++)
        {
            ref var e = ref _entries[slot];
            if (e.Next < -1 || e.Data >= 0) continue;
            var chunk = oldChunks[(int)((e.Data >> 32) & int.MaxValue)];
            int offset = (int)(uint)e.Data;
            int length = ReadLength(chunk, ref offset);
            e.Data = Append(new ReadOnlySpan<byte>(chunk, offset, length));
        }
    }

    private static int LengthSize(int length) => length < 0x80 ? 1 : length < 0x4000 ? 2 : length < 0x200000 ? 3 : length < 0x10000000 ? 4 : 5;

    private static void WriteLength(byte[] chunk, ref int at, int length)
    {
        uint v = (uint)length;
        while (v >= 0x80)
        {
            chunk[at++] = (byte)(v | 0x80);
            v >>= 7;
        }
        chunk[at++] = (byte)v;
    }

    private static int ReadLength(byte[] chunk, ref int at)
    {
        int result = 0, shift = 0;
        while (true)
        {
            byte b = chunk[at++];
            result |= (b & 0x7F) << shift;
            if (b < 0x80) return result;
            shift += 7;
        }
    }

    private void Grow()
    {
        int size = _entries.Length * 2;
        Array.Resize(ref _entries, size);
        var buckets = new int[size];
        for (int i = 0; i < _highWater; i++)
        {
            ref var e = ref _entries[i];
            if (e.Next < -1) continue;
            ref int bucket = ref buckets[e.Hash & (size - 1)];
            e.Next = bucket - 1;
            bucket = i + 1;
        }
        _buckets = buckets;
    }
}
