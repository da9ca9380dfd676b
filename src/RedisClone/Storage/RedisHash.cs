using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace RedisClone.Storage;

/// <summary>
/// A hash value: field → value, both byte strings. Small hashes are one packed byte array (Redis's
/// "listpack" encoding); past the thresholds they become a hash table ("hashtable"), never back.
/// </summary>
/// <remarks>
/// <para><b>Packed.</b> Fields and values alternate in one array, each as a LEB128 length followed
/// by its bytes, in insertion order (an update keeps the field's place, a new field goes last), so
/// HGETALL lists a small hash exactly as Redis's listpack does. Lookups are linear, as in Redis;
/// the thresholds keep them short.</para>
/// <para><b>Table.</b> An open hash with chains over a dense slot array, like <see cref="KeyTable"/>
/// but 16 bytes a slot: each field and its value are one record in an arena of large chunks, so a
/// field costs no object at all. Slots never move (freed ones are reused, never compacted), so
/// an HSCAN cursor is a slot index and sees every field present for the whole scan exactly once;
/// the price is that a table keeps its peak slot count after mass deletion.</para>
/// <para>Positions (<see cref="FirstPosition"/>, <see cref="FieldAt"/>...) are byte offsets in the
/// packed form and slot indexes in the table; they are valid until the hash is next modified.</para>
/// <para><b>Field expiry</b> (Redis 7.4's hash-field TTLs, Unix ms, 0 = none). A hash that never had
/// one is laid out exactly as above and pays nothing. The packed form switches, at the first TTL, to
/// Redis's listpackEx layout: each entry gains 8 bytes after its value, and entries are kept ordered
/// as Redis keeps them (fields with a TTL first, by TTL, a new one going before any with the same
/// time; fields without one after, in insertion order; a TTL set, changed or removed moves its field
/// to its new place), so HGETALL and HSCAN list a small hash in Redis's order and the soonest TTL is
/// the first entry's. The table form keeps the TTLs in an array beside its slots (8 bytes a slot,
/// allocated at the first TTL and dropped with the last) and a min-heap of the slots that have one
/// (8 bytes more each), so the soonest TTL is O(1) and setting or removing one O(log n).</para>
/// <para>A field whose TTL has passed (<see cref="IsExpired"/>: strictly before now, as Redis's
/// hashTypeIsExpired) is still stored until a command or the active cycle removes it
/// (<see cref="FirstExpiredPosition"/>, <see cref="RemoveAt"/>): callers decide what is visible.</para>
/// </remarks>
internal sealed class RedisHash : MeteredValue, IRedisValue
{
    /// <summary>Redis's listpack size cap (lpSafeToAdd): a packed hash that would grow past it converts.</summary>
    private const int MaxPackBytes = 1 << 30;

    // One field holds the storage, the packed bytes or the table, so that a small hash is a 48-byte
    // object (the smallest MeteredValue's two fields and these three allow) plus its array. Pack and
    // Table read it as the one or the other (null when it is not that one).
    private object? _data;
    private int _packUsed;
    // The packed form's field count; its sign bit set means entries carry a TTL (listpackEx), so a
    // hash without TTLs is no bigger than before they existed. ++ and -- keep the bit.
    private int _packCount;

    /// <summary>The packed form's bytes; null in the table form (and while empty).</summary>
    private byte[]? Pack
    {
        get => _data as byte[];
        set => _data = value;
    }

    /// <summary>The table form; null in the packed form.</summary>
    private FieldTable? Table
    {
        get => _data as FieldTable;
        set => _data = value;
    }

    private const int TtlBytes = sizeof(long);

    public RedisHash()
    {
    }

    private RedisHash(RedisHash other)
    {
        if (other.Table != null)
        {
            Table = other.Table.Clone();
        }
        else if (other.Pack != null)
        {
            Pack = other.Pack.AsSpan(0, other._packUsed).ToArray();
            _packUsed = other._packUsed;
            _packCount = other._packCount;
        }
    }

    /// <summary>True while packed entries carry a TTL (Redis's OBJ_ENCODING_LISTPACK_EX).</summary>
    private bool PackHasTtl => _packCount < 0;

    private int PackCount => _packCount & int.MaxValue;

    public string TypeName => "hash";

    public string Encoding => Table == null ? "listpack" : "hashtable";

    public long FreeEffort => Table == null ? 1 : Count;

    public IRedisValue DeepCopy() => new RedisHash(this);

    /// <summary>True while the hash is in the packed (listpack) form.</summary>
    public bool IsPacked => Table == null;

    /// <summary>Fields stored, logically expired ones included (Redis's hashTypeLength(o, 0): what HLEN says).</summary>
    public int Count => Table?.Count ?? PackCount;

    /// <summary>Bytes of field and value data held (for bounding replies built from random picks).</summary>
    public long DataBytes => Table?.DataBytes ?? _packUsed;

    public override long AllocatedBytes()
        => BaseBytes + 16 + (Pack != null ? MemoryMeter.ArrayBytes(Pack.Length) : 0) + (Table?.AllocatedBytes() ?? 0);

    // ---------------------------------------------------------------- reads

    /// <summary>The value of <paramref name="field"/>; false when the field is absent.</summary>
    public bool TryGet(ReadOnlySpan<byte> field, out ReadOnlySpan<byte> value)
    {
        int pos = Find(field);
        if (pos < 0)
        {
            value = default;
            return false;
        }
        value = ValueAt(pos);
        return true;
    }

    /// <summary><see cref="TryGet"/> that treats a field whose TTL passed as absent (without removing it).</summary>
    public bool TryGetLive(ReadOnlySpan<byte> field, long nowMs, out ReadOnlySpan<byte> value)
    {
        int pos = Find(field);
        if (pos < 0 || IsExpiredAt(pos, nowMs))
        {
            value = default;
            return false;
        }
        value = ValueAt(pos);
        return true;
    }

    public bool Contains(ReadOnlySpan<byte> field) => Find(field) >= 0;

    /// <summary>The position of <paramref name="field"/>, or -1.</summary>
    public int Find(ReadOnlySpan<byte> field)
    {
        if (Table != null) return Table.Find(field);
        var pack = Pack;
        int ttl = PackHasTtl ? TtlBytes : 0;
        int pos = 0;
        while (pos < _packUsed)
        {
            int next = ReadString(pack!, pos, out int start, out int len);
            if (len == field.Length && pack.AsSpan(start, len).SequenceEqual(field)) return pos;
            pos = SkipString(pack!, next) + ttl;
        }
        return -1;
    }

    /// <summary>The first position, or -1 when empty; then <see cref="NextPosition"/>.</summary>
    public int FirstPosition() => NextPosition(-1);

    /// <summary>The position after <paramref name="pos"/> (-1 for the first), or -1 at the end.</summary>
    public int NextPosition(int pos)
    {
        if (Table != null)
        {
            for (int s = pos + 1; s < Table.SlotCount; s++)
                if (Table.IsUsed(s)) return s;
            return -1;
        }
        if (pos < 0) return _packUsed > 0 ? 0 : -1;
        int next = EntryEnd(pos);
        return next < _packUsed ? next : -1;
    }

    public ReadOnlySpan<byte> FieldAt(int pos)
    {
        if (Table != null) return Table.FieldAt(pos);
        ReadString(Pack!, pos, out int start, out int len);
        return Pack.AsSpan(start, len);
    }

    public ReadOnlySpan<byte> ValueAt(int pos)
    {
        if (Table != null) return Table.ValueAt(pos);
        int valuePos = SkipString(Pack!, pos);
        ReadString(Pack!, valuePos, out int start, out int len);
        return Pack.AsSpan(start, len);
    }

    /// <summary>Every position, in iteration order.</summary>
    public int[] Positions()
    {
        var result = new int[Count];
        int n = 0;
        for (int pos = FirstPosition(); pos >= 0; pos = NextPosition(pos)) result[n++] = pos;
        return result;
    }

    /// <summary>
    /// True when <see cref="RandomPosition"/> is cheap (a dense table); otherwise callers drawing many
    /// times should take <see cref="Positions"/> once and draw from it.
    /// </summary>
    public bool HasCheapRandom => Table != null && Table.Count * 4 >= Table.SlotCount;

    /// <summary>A random position (the hash must not be empty): uniform while <see cref="HasCheapRandom"/>, nearly so otherwise.</summary>
    public int RandomPosition(Random random)
    {
        if (Table != null) return Table.RandomSlot(random);
        int skip = random.Next(PackCount);
        int pos = 0;
        for (int i = 0; i < skip; i++) pos = EntryEnd(pos);
        return pos;
    }

    // ---------------------------------------------------------------- scanning the table form

    /// <summary>Slots to visit for a cursor walk: [0, ScanSlots). Zero in the packed form.</summary>
    public int ScanSlots => Table?.SlotCount ?? 0;

    /// <summary>True when table slot <paramref name="slot"/> holds a field.</summary>
    public bool IsUsedSlot(int slot) => Table != null && Table.IsUsed(slot);

    // ---------------------------------------------------------------- writes

    /// <summary>
    /// Converts to the table form now when a write's longest string (<paramref name="longest"/>) is
    /// over <paramref name="maxValue"/>, or its <paramref name="addedBytes"/> would push the packed form
    /// past its size cap: Redis checks all of a write's arguments before applying any of them.
    /// </summary>
    public void ConvertIfTooLong(int longest, long maxValue, long addedBytes)
    {
        if (Table != null) return;
        if (longest > maxValue || _packUsed + addedBytes > MaxPackBytes) ConvertToTable();
    }

    /// <summary>
    /// Makes room in the packed form for <paramref name="encodedBytes"/> more (strings with their
    /// length prefixes, see <see cref="EncodedLength"/>), so a multi-pair write allocates once, at
    /// about its exact size, instead of growing pair by pair.
    /// </summary>
    public void ReservePacked(long encodedBytes)
    {
        if (Table != null || _packUsed + encodedBytes > MaxPackBytes) return;
        int size = (int)((_packUsed + encodedBytes + 7) & ~7L);
        if (Pack != null && Pack.Length >= size) return;
        var bigger = new byte[size];
        if (Pack != null) Pack.AsSpan(0, _packUsed).CopyTo(bigger);
        Pack = bigger;
    }

    /// <summary>Bytes a string of <paramref name="length"/> bytes takes in the packed form.</summary>
    public static long EncodedLength(int length) => Leb128.Size(length) + (long)length;

    /// <summary>
    /// Sets <paramref name="field"/> to <paramref name="value"/>; true when the field is new. Converts
    /// to the table form when a string is longer than <paramref name="maxValue"/> bytes or the count
    /// passes <paramref name="maxEntries"/> (hash-max-listpack-value / -entries). An existing field
    /// loses its TTL unless <paramref name="keepTtl"/> (Redis's hashTypeSet and HASH_SET_KEEP_TTL);
    /// a new one has none.
    /// </summary>
    public bool Set(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value, long maxEntries, long maxValue, bool keepTtl = false)
    {
        if (Table == null && (field.Length > maxValue || value.Length > maxValue)) ConvertToTable();
        if (Table != null)
        {
            int hash = KeyTable.HashOf(field);
            int slot = Table.Find(field, hash);
            if (slot >= 0)
            {
                Table.SetValue(slot, value);
                if (!keepTtl) Table.SetTtl(slot, 0);
                return false;
            }
            Table.Add(field, value, hash);
            return true;
        }

        int pos = Find(field);
        if (pos >= 0)
        {
            ReplaceString(SkipString(Pack!, pos), value);
            if (!keepTtl && PackHasTtl && PackedTtlAt(pos) != 0) MovePacked(pos, 0);
            return false;
        }
        AppendPair(field, value);
        if (PackCount > maxEntries) ConvertToTable();
        return true;
    }

    /// <summary>
    /// Overwrites the value at <paramref name="pos"/> (from <see cref="Find"/>), converting when the
    /// value or the field is over <paramref name="maxValue"/> (the limit may have been lowered since
    /// the field was stored; Redis checks both on every set). The field keeps its TTL (HINCRBY and
    /// HINCRBYFLOAT set with Redis's HASH_SET_KEEP_TTL).
    /// </summary>
    public void SetValueAt(int pos, ReadOnlySpan<byte> value, long maxValue)
    {
        if (Table == null && (value.Length > maxValue || FieldAt(pos).Length > maxValue))
        {
            // The position is an offset into the packed form: find the field again after converting.
            var field = FieldAt(pos).ToArray();
            ConvertToTable();
            pos = Table!.Find(field);
        }
        if (Table != null) Table.SetValue(pos, value);
        else ReplaceString(SkipString(Pack!, pos), value);
    }

    /// <summary>Removes <paramref name="field"/>; false when it was absent.</summary>
    public bool Delete(ReadOnlySpan<byte> field)
    {
        int pos = Find(field);
        if (pos < 0) return false;
        RemoveAt(pos);
        return true;
    }

    /// <summary>Removes the field at <paramref name="pos"/> (other positions of the packed form move).</summary>
    public void RemoveAt(int pos)
    {
        if (Table != null)
        {
            Table.RemoveAt(pos);
            return;
        }
        int end = EntryEnd(pos);
        Pack.AsSpan(end, _packUsed - end).CopyTo(Pack.AsSpan(pos));
        _packUsed -= end - pos;
        _packCount--;
        if (PackCount == 0) _packCount = 0; // an emptied packed hash forgets its TTL layout
        ShrinkPackIfSparse();
    }

    // ---------------------------------------------------------------- field expiry

    /// <summary>True when some field has a TTL (Redis's hashTypeIsFieldsWithExpire).</summary>
    public bool HasFieldTtls => MinExpiry != 0;

    /// <summary>The soonest field TTL (Unix ms), 0 when no field has one. O(1).</summary>
    public long MinExpiry
    {
        get
        {
            if (Table != null) return Table.MinTtl;
            return PackHasTtl && _packUsed > 0 ? PackedTtlAt(0) : 0;
        }
    }

    /// <summary>The TTL (Unix ms) of the field at <paramref name="pos"/>, 0 when it has none.</summary>
    public long ExpiryAt(int pos) => Table != null ? Table.TtlAt(pos) : PackHasTtl ? PackedTtlAt(pos) : 0;

    /// <summary>Redis's expiry test for a field TTL: set, and strictly before <paramref name="nowMs"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool IsExpired(long expireAt, long nowMs) => expireAt != 0 && expireAt < nowMs;

    /// <summary>True when the field at <paramref name="pos"/> has a TTL before <paramref name="nowMs"/>.</summary>
    public bool IsExpiredAt(int pos, long nowMs) => IsExpired(ExpiryAt(pos), nowMs);

    /// <summary>
    /// Sets the TTL of the field at <paramref name="pos"/> to <paramref name="expireAt"/> (Unix ms, &gt; 0),
    /// or removes it with 0. In the packed form the entry moves to its place in TTL order, so every
    /// position is invalid afterwards.
    /// </summary>
    public void SetExpiryAt(int pos, long expireAt)
    {
        if (Table != null)
        {
            Table.SetTtl(pos, expireAt);
            return;
        }
        if (expireAt == 0 && (!PackHasTtl || PackedTtlAt(pos) == 0)) return; // no TTL to remove: nothing moves
        if (!PackHasTtl)
        {
            // Entries widen: find the field again in the new layout.
            var field = FieldAt(pos).ToArray();
            EnablePackedTtls();
            pos = Find(field);
        }
        MovePacked(pos, expireAt);
    }

    /// <summary>
    /// Expired fields beyond the soonest TTL's count (Redis's hashTypeLength(o, 1) subtracts these):
    /// the fields with a TTL before <paramref name="nowMs"/>. O(expired).
    /// </summary>
    public int CountExpired(long nowMs)
    {
        if (Table != null) return Table.CountTtlsBefore(nowMs);
        if (!PackHasTtl) return 0;
        int n = 0;
        for (int pos = FirstPosition(); pos >= 0; pos = NextPosition(pos))
        {
            if (!IsExpired(PackedTtlAt(pos), nowMs)) break; // ordered by TTL: the rest are later or none
            n++;
        }
        return n;
    }

    /// <summary>
    /// The position of the field with the soonest TTL when that TTL is before <paramref name="nowMs"/>,
    /// else -1: remove it with <see cref="RemoveAt"/> and ask again to drain every expired field.
    /// </summary>
    public int FirstExpiredPosition(long nowMs)
    {
        long min = MinExpiry;
        if (!IsExpired(min, nowMs)) return -1;
        return Table != null ? Table.MinTtlSlot : 0;
    }

    /// <summary>
    /// Every field with a TTL and its TTL, in the packed form's order or the table's slot order (for
    /// AOF rewrite, RDB and DUMP writers).
    /// </summary>
    public List<(int Position, long ExpireAt)> FieldsWithExpiry()
    {
        var result = new List<(int, long)>();
        if (!HasFieldTtls) return result;
        for (int pos = FirstPosition(); pos >= 0; pos = NextPosition(pos))
        {
            long at = ExpiryAt(pos);
            if (at != 0) result.Add((pos, at));
        }
        return result;
    }

    /// <summary>Switches the packed form to entries with a TTL (all none), keeping their order.</summary>
    private void EnablePackedTtls()
    {
        var old = Pack;
        int used = _packUsed, count = PackCount;
        var fresh = new byte[(used + count * TtlBytes + 7) & ~7];
        int pos = 0, at = 0;
        while (pos < used)
        {
            int end = SkipString(old!, SkipString(old!, pos));
            old.AsSpan(pos, end - pos).CopyTo(fresh.AsSpan(at));
            at += end - pos;
            BinaryPrimitives.WriteInt64LittleEndian(fresh.AsSpan(at), 0);
            at += TtlBytes;
            pos = end;
        }
        Pack = fresh;
        _packUsed = at;
        _packCount = count | int.MinValue;
    }

    /// <summary>
    /// Takes the packed entry at <paramref name="pos"/> out and puts it back with TTL
    /// <paramref name="expireAt"/> where Redis's listpackExAddInternal would: before the first entry
    /// without a TTL or with one at or after <paramref name="expireAt"/>; at the end when 0.
    /// </summary>
    private void MovePacked(int pos, long expireAt)
    {
        int end = EntryEnd(pos);
        var entry = Pack.AsSpan(pos, end - pos).ToArray();
        BinaryPrimitives.WriteInt64LittleEndian(entry.AsSpan(entry.Length - TtlBytes), expireAt);
        Pack.AsSpan(end, _packUsed - end).CopyTo(Pack.AsSpan(pos));
        _packUsed -= entry.Length;
        int at = _packUsed;
        if (expireAt != 0)
        {
            for (int p = 0; p < _packUsed; p = EntryEnd(p))
            {
                long t = PackedTtlAt(p);
                if (t == 0 || t >= expireAt)
                {
                    at = p;
                    break;
                }
            }
        }
        Pack.AsSpan(at, _packUsed - at).CopyTo(Pack.AsSpan(at + entry.Length));
        entry.CopyTo(Pack.AsSpan(at));
        _packUsed += entry.Length;
    }

    /// <summary>The byte after the packed entry at <paramref name="pos"/> (field, value, and TTL when the layout has them).</summary>
    private int EntryEnd(int pos) => SkipString(Pack!, SkipString(Pack!, pos)) + (PackHasTtl ? TtlBytes : 0);

    private long PackedTtlAt(int pos) => BinaryPrimitives.ReadInt64LittleEndian(Pack.AsSpan(EntryEnd(pos) - TtlBytes));

    /// <summary>Switches to the table form, keeping the packed order as the slot order.</summary>
    public void ConvertToTable()
    {
        if (Table != null) return;
        var table = new FieldTable(PackCount);
        var pack = Pack;
        bool ttls = PackHasTtl;
        int pos = 0;
        while (pos < _packUsed)
        {
            int valuePos = ReadString(pack!, pos, out int fStart, out int fLen);
            pos = ReadString(pack!, valuePos, out int vStart, out int vLen);
            int slot = table.Add(pack.AsSpan(fStart, fLen), pack.AsSpan(vStart, vLen));
            if (!ttls) continue;
            long at = BinaryPrimitives.ReadInt64LittleEndian(pack.AsSpan(pos));
            pos += TtlBytes;
            if (at != 0) table.SetTtl(slot, at);
        }
        Table = table; // the packed bytes go with it
        _packUsed = 0;
        _packCount = 0;
    }

    // ---------------------------------------------------------------- packed form

    private void AppendPair(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value)
    {
        int ttl = PackHasTtl ? TtlBytes : 0;
        int need = Leb128.Size(field.Length) + field.Length + Leb128.Size(value.Length) + value.Length + ttl;
        EnsurePack(_packUsed + need);
        int pos = WriteString(Pack!, _packUsed, field);
        _packUsed = WriteString(Pack!, pos, value);
        if (ttl != 0)
        {
            BinaryPrimitives.WriteInt64LittleEndian(Pack.AsSpan(_packUsed), 0);
            _packUsed += ttl;
        }
        _packCount++;
    }

    /// <summary>Replaces the string at <paramref name="pos"/>, moving the bytes after it when its size changes.</summary>
    private void ReplaceString(int pos, ReadOnlySpan<byte> value)
    {
        int oldEnd = SkipString(Pack!, pos);
        int newSize = Leb128.Size(value.Length) + value.Length;
        int delta = newSize - (oldEnd - pos);
        if (delta > 0) EnsurePack(_packUsed + delta);
        var pack = Pack!;
        if (delta != 0) pack.AsSpan(oldEnd, _packUsed - oldEnd).CopyTo(pack.AsSpan(oldEnd + delta));
        WriteString(pack, pos, value);
        _packUsed += delta;
        if (delta < 0) ShrinkPackIfSparse();
    }

    private void EnsurePack(int size)
    {
        if (Pack != null && Pack.Length >= size) return;
        // A quarter of headroom: incremental HSETs stay amortized O(1) copies per byte while a hash
        // written in one command (the common case) gets an array of nearly its exact size.
        int current = Pack?.Length ?? 0;
        long grown = Math.Max(size, current + current / 4);
        grown = (grown + 7) & ~7L;
        var bigger = new byte[Math.Min(grown, Array.MaxLength)];
        if (Pack != null) Pack.AsSpan(0, _packUsed).CopyTo(bigger);
        Pack = bigger;
    }

    private void ShrinkPackIfSparse()
    {
        if (Pack == null || Pack.Length <= 64 || _packUsed * 2 >= Pack.Length) return;
        Pack = Pack.AsSpan(0, _packUsed).ToArray();
    }

    /// <summary>Reads the length prefix at <paramref name="pos"/>; returns the position after the string.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int ReadString(byte[] pack, int pos, out int start, out int length)
    {
        int len = Leb128.Read(pack, ref pos);
        start = pos;
        length = len;
        return pos + len;
    }

    private static int SkipString(byte[] pack, int pos) => ReadString(pack, pos, out _, out _);

    private static int WriteString(byte[] pack, int pos, ReadOnlySpan<byte> s)
    {
        Leb128.Write(pack, ref pos, s.Length);
        s.CopyTo(pack.AsSpan(pos));
        return pos + s.Length;
    }

    // ---------------------------------------------------------------- table form

    /// <summary>
    /// The table form: chains over a dense slot array whose indexes never move. Each used slot points
    /// at one record, [LEB128 field length][field][LEB128 value length][value], in a
    /// <see cref="RecordArena"/> (as <see cref="MemberTable"/>'s members), so a field costs its 16-byte slot, its bucket and
    /// its bytes, with no object of its own: 24 bytes of array header and up to 7 of padding less per
    /// field than an array per slot, and millions of fields are a handful of arrays to the collector.
    /// </summary>
    /// <remarks>
    /// A value rewritten with the same length, or a shorter one in a shared chunk, is overwritten in
    /// place (a shorter one leaves dead bytes behind it); otherwise the field's record is appended
    /// anew and the old one is dead bytes. Once dead bytes outweigh live ones the live
    /// records are copied into fresh chunks (slot indexes do not change), which keeps updates and
    /// removal amortized O(1). A record too big for the current chunk gets a chunk of its own, dropped
    /// as soon as that record dies. Spans handed out stay valid until the table changes, as before:
    /// chunks are only appended to, and compaction writes new ones (see <see cref="RecordArena"/>).
    /// </remarks>
    private sealed class FieldTable
    {
        /// <summary>A slot: <see cref="Next"/> &gt;= -1 marks it used; free slots hold -3 - nextFree.</summary>
        private struct Slot : IChainedSlot
        {
            /// <summary>The record's <see cref="RecordArena"/> handle.</summary>
            public long Data;
            public int Hash;
            public int Next { get; set; }
            public readonly int ChainHash => Hash;
        }

        private SlotChains _chains;
        private Slot[] _slots;
        private RecordArena _arena;
        // Field TTLs: null until a field gets one, dropped when the last goes.
        private TtlHeap? _ttls;

        public FieldTable(int capacity)
        {
            int size = Math.Max(4, (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Max(capacity, 1)));
            _chains = new SlotChains(size);
            _slots = new Slot[size];
        }

        private FieldTable(FieldTable other)
        {
            _chains = other._chains.Clone();
            _slots = (Slot[])other._slots.Clone();
            _arena = other._arena.Clone();
            _ttls = other._ttls?.Clone();
        }

        public FieldTable Clone() => new(this);

        public long TtlAt(int slot) => _ttls?.At[slot] ?? 0;

        public long MinTtl => _ttls is { Count: > 0 } t ? t.At[t.Heap[0]] : 0;

        public int MinTtlSlot => _ttls is { Count: > 0 } t ? t.Heap[0] : -1;

        public int CountTtlsBefore(long nowMs) => _ttls?.CountBefore(nowMs) ?? 0;

        /// <summary>Sets (or with 0 removes) the TTL of the field in <paramref name="slot"/>.</summary>
        public void SetTtl(int slot, long expireAt)
        {
            if (_ttls == null)
            {
                if (expireAt == 0) return;
                _ttls = new TtlHeap(_slots.Length);
            }
            _ttls.Set(slot, expireAt);
            if (_ttls.Count == 0) _ttls = null;
        }

        public int Count => _chains.Count;

        public int SlotCount => _chains.HighWater;

        public long DataBytes => _arena.LiveBytes;

        /// <summary>
        /// This object (its fields, the arena's among them, about 96 bytes), its slot and bucket
        /// arrays, the arena (chunks by their lengths, with their headers) and the field TTLs.
        /// </summary>
        public long AllocatedBytes()
            => MemoryMeter.ObjectHeader + 96 + MemoryMeter.ArrayBytes(_slots.Length, 16) + MemoryMeter.ArrayBytes(_slots.Length, 4)
               + _arena.AllocatedBytes() + (_ttls?.AllocatedBytes() ?? 0);

        public bool IsUsed(int slot) => _chains.IsUsed(_slots, slot);

        public ReadOnlySpan<byte> FieldAt(int slot)
        {
            var chunk = ChunkOf(_slots[slot].Data, out int offset);
            ReadString(chunk, offset, out int start, out int len);
            return new ReadOnlySpan<byte>(chunk, start, len);
        }

        public ReadOnlySpan<byte> ValueAt(int slot)
        {
            var chunk = ChunkOf(_slots[slot].Data, out int offset);
            ReadString(chunk, SkipString(chunk, offset), out int start, out int len);
            return new ReadOnlySpan<byte>(chunk, start, len);
        }

        public int Find(ReadOnlySpan<byte> field) => Find(field, KeyTable.HashOf(field));

        public int Find(ReadOnlySpan<byte> field, int hash)
        {
            var slots = _slots;
            int i = _chains.First(hash);
            while (i >= 0)
            {
                ref var s = ref slots[i];
                if (s.Hash == hash)
                {
                    var chunk = ChunkOf(s.Data, out int offset);
                    ReadString(chunk, offset, out int start, out int len);
                    if (new ReadOnlySpan<byte>(chunk, start, len).SequenceEqual(field)) return i;
                }
                i = s.Next;
            }
            return -1;
        }

        /// <summary>Adds a field known to be absent; returns its slot.</summary>
        public int Add(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value) => Add(field, value, KeyTable.HashOf(field));

        /// <summary>Adds a field known to be absent, whose <see cref="KeyTable.HashOf"/> is <paramref name="hash"/>; returns its slot.</summary>
        public int Add(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value, int hash)
        {
            if (_chains.IsFull(_slots.Length)) Grow();
            long data = Append(field, value);
            int slot = _chains.Insert(_slots, hash);
            ref var s = ref _slots[slot];
            s.Data = data;
            s.Hash = hash;
            return slot;
        }

        public void SetValue(int slot, ReadOnlySpan<byte> value)
        {
            ref var s = ref _slots[slot];
            var chunk = ChunkOf(s.Data, out int offset);
            int valuePos = SkipString(chunk, offset);
            ReadString(chunk, valuePos, out int start, out int len);
            if (len == value.Length)
            {
                value.CopyTo(chunk.AsSpan(start));
                return;
            }
            if (value.Length < len && start + len - offset <= RecordArena.MinChunk)
            {
                // Shorter, in a shared chunk (a record of its own chunk is over MinChunk bytes): written in
                // place, its tail becomes dead bytes. Saves an append (and the compaction it leads to).
                int end = WriteString(chunk, valuePos, value);
                _arena.Shrink(start + len - end);
                if (_arena.NeedsCompaction) CompactArena();
                return;
            }
            ReadString(chunk, offset, out int fieldStart, out int fieldLen);
            long old = s.Data;
            // Append reads the field from the old record, which stays intact until Release.
            s.Data = Append(new ReadOnlySpan<byte>(chunk, fieldStart, fieldLen), value);
            Release(old, start + len - offset);
        }

        public void RemoveAt(int slot)
        {
            if (_ttls != null) SetTtl(slot, 0);
            _chains.Remove(_slots, slot);
            ref var s = ref _slots[slot];
            long data = s.Data;
            s.Data = 0;
            s.Hash = 0;
            var chunk = ChunkOf(data, out int offset);
            Release(data, SkipString(chunk, SkipString(chunk, offset)) - offset);
        }

        /// <summary>A random used slot, or -1 when empty.</summary>
        public int RandomSlot(Random random) => _chains.RandomSlot(_slots, random);

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private byte[] ChunkOf(long data, out int offset) => _arena.ChunkOf(data, out offset);

        /// <summary>Copies a record of <paramref name="field"/> and <paramref name="value"/> into the arena; returns its reference.</summary>
        private long Append(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value)
        {
            long wide = Leb128.Size(field.Length) + (long)field.Length + Leb128.Size(value.Length) + value.Length;
            if (wide > Array.MaxLength) throw new OutOfMemoryException(); // a field and a value are each at most 512 MB
            long data = _arena.Allocate((int)wide, out var chunk, out int offset);
            WriteString(chunk, WriteString(chunk, offset, field), value);
            return data;
        }

        /// <summary>Marks the record at <paramref name="data"/> (<paramref name="size"/> bytes) dead.</summary>
        private void Release(long data, int size)
        {
            _arena.Release(data, size);
            if (_arena.NeedsCompaction) CompactArena();
        }

        /// <summary>Rewrites the live records into fresh chunks; slots keep their indexes.</summary>
        private void CompactArena()
        {
            var old = _arena.TakeAll();
            for (int slot = 0; slot < _chains.HighWater; slot++)
            {
                ref var s = ref _slots[slot];
                if (s.Next < -1) continue;
                var chunk = old.ChunkOf(s.Data, out int offset);
                int end = SkipString(chunk, SkipString(chunk, offset));
                s.Data = _arena.Append(new ReadOnlySpan<byte>(chunk, offset, end - offset));
            }
        }

        private void Grow()
        {
            Array.Resize(ref _slots, _slots.Length * 2);
            _chains.Rehash(_slots);
            _ttls?.Resize(_slots.Length);
        }
    }

    /// <summary>
    /// The table form's field TTLs: a TTL per slot (0 = none) and a binary min-heap of the slots that
    /// have one, each slot knowing its heap index, so the soonest is O(1) and a change O(log n).
    /// </summary>
    private sealed class TtlHeap
    {
        public long[] At;
        public int[] Heap;
        public int Count;
        private int[] _index; // heap index of each slot with a TTL

        public TtlHeap(int slots)
        {
            At = new long[slots];
            _index = new int[slots];
            Heap = new int[8];
        }

        private TtlHeap(TtlHeap other)
        {
            At = (long[])other.At.Clone();
            _index = (int[])other._index.Clone();
            Heap = (int[])other.Heap.Clone();
            Count = other.Count;
        }

        public TtlHeap Clone() => new(this);

        public long AllocatedBytes()
            => MemoryMeter.ObjectHeader + 24 + MemoryMeter.ArrayBytes(At.Length, 8) + MemoryMeter.ArrayBytes(_index.Length, 4)
               + MemoryMeter.ArrayBytes(Heap.Length, 4);

        public void Resize(int slots)
        {
            Array.Resize(ref At, slots);
            Array.Resize(ref _index, slots);
        }

        public void Set(int slot, long expireAt)
        {
            long old = At[slot];
            if (old == expireAt) return;
            At[slot] = expireAt;
            if (old == 0)
            {
                if (Count == Heap.Length) Array.Resize(ref Heap, Heap.Length * 2);
                Heap[Count] = slot;
                _index[slot] = Count;
                Count++;
                Up(Count - 1);
                return;
            }
            int i = _index[slot];
            if (expireAt == 0)
            {
                int last = Heap[--Count];
                if (i != Count)
                {
                    Heap[i] = last;
                    _index[last] = i;
                    Down(i);
                    Up(_index[last]);
                }
                if (Heap.Length > 64 && Count < Heap.Length / 4) Array.Resize(ref Heap, Heap.Length / 2);
                return;
            }
            if (expireAt < old) Up(i);
            else Down(i);
        }

        /// <summary>How many TTLs are set and before <paramref name="nowMs"/>: walks only the heap's expired top.</summary>
        public int CountBefore(long nowMs)
        {
            if (Count == 0 || At[Heap[0]] >= nowMs) return 0;
            int n = 0;
            var pending = new Stack<int>();
            pending.Push(0);
            while (pending.Count > 0)
            {
                int i = pending.Pop();
                if (i >= Count || At[Heap[i]] >= nowMs) continue;
                n++;
                pending.Push(2 * i + 1);
                pending.Push(2 * i + 2);
            }
            return n;
        }

        private void Up(int i)
        {
            int slot = Heap[i];
            long at = At[slot];
            while (i > 0)
            {
                int parent = (i - 1) / 2;
                int p = Heap[parent];
                if (At[p] <= at) break;
                Heap[i] = p;
                _index[p] = i;
                i = parent;
            }
            Heap[i] = slot;
            _index[slot] = i;
        }

        private void Down(int i)
        {
            int slot = Heap[i];
            long at = At[slot];
            while (true)
            {
                int child = 2 * i + 1;
                if (child >= Count) break;
                if (child + 1 < Count && At[Heap[child + 1]] < At[Heap[child]]) child++;
                int c = Heap[child];
                if (At[c] >= at) break;
                Heap[i] = c;
                _index[c] = i;
                i = child;
            }
            Heap[i] = slot;
            _index[slot] = i;
        }
    }
}
