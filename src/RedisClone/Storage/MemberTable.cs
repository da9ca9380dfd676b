using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace RedisClone.Storage;

/// <summary>
/// A hash set of byte strings: the "hashtable" encoding of a set (Redis's dict of sds members).
/// Owned by one shard thread at a time, like every stored value.
/// </summary>
/// <remarks>
/// <para>Memory is the reason this is not a <c>HashSet&lt;byte[]&gt;</c>. Each slot is 16 bytes:
/// the member itself when it is at most 7 bytes (most integers and short tags), else the handle of
/// a length-prefixed record ([LEB128 length][bytes]) in a <see cref="RecordArena"/> (a few chunks of
/// at most 64 KB; a member bigger than that has a chunk of its own); plus the hash and the chain
/// link. There is no object per member, so a member costs its slot, its bucket and its bytes, and
/// the garbage collector sees a handful of arrays instead of millions of small ones.</para>
/// <para>Like <see cref="KeyTable"/>, slots never move: growing keeps every member at its index and
/// freed slots are only reused, so an SSCAN cursor that is a slot index returns every member present
/// for the whole scan exactly once. Removed records leave dead bytes in the arena; once they
/// outweigh the live ones the arena is rewritten (slot indexes do not change), which keeps removal
/// amortized O(1). A removed member with a chunk of its own gives the chunk back at once.</para>
/// </remarks>
internal sealed class MemberTable
{
    /// <summary>One slot. <see cref="Next"/> &gt;= -1 marks a used slot; free slots hold -3 - nextFree.</summary>
    private struct Entry : IChainedSlot
    {
        /// <summary>
        /// Inline (sign bit clear): the bytes in bits 0-55, the length in bits 56-62. Arena (sign bit
        /// set): the <see cref="RecordArena"/> handle in bits 0-62.
        /// </summary>
        public long Data;
        public int Hash;
        public int Next { get; set; }
        public readonly int ChainHash => Hash;
    }

    private const int InlineMax = 7;
    private const long ArenaFlag = long.MinValue;

    private SlotChains _chains;
    private Entry[] _entries;

    private RecordArena _arena;
    private int _maxLength;

    public MemberTable(int capacity = 4)
    {
        int size = Math.Max(4, (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Clamp(capacity, 1, 1 << 30)));
        _chains = new SlotChains(size);
        _entries = new Entry[size];
    }

    private MemberTable(MemberTable other)
    {
        _chains = other._chains.Clone();
        _entries = (Entry[])other._entries.Clone();
        _arena = other._arena.Clone();
        _maxLength = other._maxLength;
    }

    public int Count => _chains.Count;

    /// <summary>Slots to visit in a full scan: [0, SlotCount).</summary>
    public int SlotCount => _chains.HighWater;

    /// <summary>An upper bound of the members' lengths (the longest ever added), for sizing replies.</summary>
    public int MaxLength => _maxLength;

    public bool IsUsed(int slot) => _chains.IsUsed(_entries, slot);

    /// <summary>An independent copy.</summary>
    public MemberTable Clone() => new(this);

    public bool Contains(ReadOnlySpan<byte> member) => Find(member) >= 0;

    /// <summary>Slot of <paramref name="member"/>, or -1.</summary>
    public int Find(ReadOnlySpan<byte> member) => Find(member, KeyTable.HashOf(member));

    private int Find(ReadOnlySpan<byte> member, int hash)
    {
        var entries = _entries;
        int i = _chains.First(hash);
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
        if (_chains.IsFull(_entries.Length)) Grow();
        int slot = _chains.Insert(_entries, hash);
        ref var e = ref _entries[slot];
        e.Data = data;
        e.Hash = hash;
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
        _chains.Remove(_entries, slot);
        ref var e = ref _entries[slot];
        long data = e.Data;
        e.Data = 0;
        e.Hash = 0;
        if (data < 0)
        {
            _arena.Release(data, RecordSize(_arena, data));
            if (_arena.NeedsCompaction) CompactArena();
        }
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
    public int RandomSlot(Random random) => _chains.RandomSlot(_entries, random);

    /// <summary>
    /// Bytes held, for memory accounting: this object (its fields, the arena's and the chains' among
    /// them: 96 bytes on x64, MemberTableAccountingTests), the slot and bucket arrays, and the arena (chunks by their lengths,
    /// with their array headers).
    /// </summary>
    public long AllocatedBytes()
        => MemoryMeter.ObjectHeader + 96
           + MemoryMeter.ArrayBytes(_entries.Length, Unsafe.SizeOf<Entry>()) + MemoryMeter.ArrayBytes(_entries.Length, 4)
           + _arena.AllocatedBytes();

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
        var chunk = _arena.ChunkOf(data, out int offset);
        int length = Leb128.Read(chunk, ref offset);
        return new ReadOnlySpan<byte>(chunk, offset, length);
    }

    /// <summary>The whole record's size, length prefix included.</summary>
    private static int RecordSize(in RecordArena arena, long data)
    {
        var chunk = arena.ChunkOf(data, out int offset);
        int start = offset;
        int length = Leb128.Read(chunk, ref offset);
        return offset - start + length;
    }

    /// <summary>Copies <paramref name="member"/> into the arena as a length-prefixed record; returns its reference.</summary>
    private long Append(ReadOnlySpan<byte> member)
    {
        long handle = _arena.Allocate(Leb128.Size(member.Length) + member.Length, out var chunk, out int at);
        Leb128.Write(chunk, ref at, member.Length);
        member.CopyTo(chunk.AsSpan(at));
        return ArenaFlag | handle;
    }

    /// <summary>Rewrites the live records into fresh chunks; slots keep their indexes.</summary>
    private void CompactArena()
    {
        var old = _arena.TakeAll();
        for (int slot = 0; slot < _chains.HighWater; slot++)
        {
            ref var e = ref _entries[slot];
            if (e.Next < -1 || e.Data >= 0) continue;
            var chunk = old.ChunkOf(e.Data, out int offset);
            e.Data = ArenaFlag | _arena.Append(new ReadOnlySpan<byte>(chunk, offset, RecordSize(old, e.Data)));
        }
    }

    private void Grow()
    {
        Array.Resize(ref _entries, _entries.Length * 2);
        _chains.Rehash(_entries);
    }
}
