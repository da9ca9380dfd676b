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
/// but 16 bytes a slot: each field and its value share one array (length prefix, field, value), so
/// a field costs one object, not two. Slots never move (freed ones are reused, never compacted), so
/// an HSCAN cursor is a slot index and sees every field present for the whole scan exactly once;
/// the price is that a table keeps its peak slot count after mass deletion.</para>
/// <para>Positions (<see cref="FirstPosition"/>, <see cref="FieldAt"/>...) are byte offsets in the
/// packed form and slot indexes in the table; they are valid until the hash is next modified.</para>
/// </remarks>
internal sealed class RedisHash : MeteredValue, IRedisValue
{
    /// <summary>Redis's listpack size cap (lpSafeToAdd): a packed hash that would grow past it converts.</summary>
    private const int MaxPackBytes = 1 << 30;

    private byte[]? _pack;
    private int _packUsed;
    private int _packCount;
    private FieldTable? _table;

    public RedisHash()
    {
    }

    private RedisHash(RedisHash other)
    {
        if (other._table != null)
        {
            _table = other._table.Clone();
        }
        else if (other._pack != null)
        {
            _pack = other._pack.AsSpan(0, other._packUsed).ToArray();
            _packUsed = other._packUsed;
            _packCount = other._packCount;
        }
    }

    public string TypeName => "hash";

    public string Encoding => _table == null ? "listpack" : "hashtable";

    public long FreeEffort => _table == null ? 1 : Count;

    public IRedisValue DeepCopy() => new RedisHash(this);

    /// <summary>True while the hash is in the packed (listpack) form.</summary>
    public bool IsPacked => _table == null;

    public int Count => _table?.Count ?? _packCount;

    /// <summary>Bytes of field and value data held (for bounding replies built from random picks).</summary>
    public long DataBytes => _table?.DataBytes ?? _packUsed;

    public override long AllocatedBytes()
        => BaseBytes + 24 + (_pack != null ? MemoryMeter.ArrayBytes(_pack.Length) : 0) + (_table?.AllocatedBytes() ?? 0);

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

    public bool Contains(ReadOnlySpan<byte> field) => Find(field) >= 0;

    /// <summary>The position of <paramref name="field"/>, or -1.</summary>
    public int Find(ReadOnlySpan<byte> field)
    {
        if (_table != null) return _table.Find(field);
        var pack = _pack;
        int pos = 0;
        while (pos < _packUsed)
        {
            int next = ReadString(pack!, pos, out int start, out int len);
            if (len == field.Length && pack.AsSpan(start, len).SequenceEqual(field)) return pos;
            pos = SkipString(pack!, next);
        }
        return -1;
    }

    /// <summary>The first position, or -1 when empty; then <see cref="NextPosition"/>.</summary>
    public int FirstPosition() => NextPosition(-1);

    /// <summary>The position after <paramref name="pos"/> (-1 for the first), or -1 at the end.</summary>
    public int NextPosition(int pos)
    {
        if (_table != null)
        {
            for (int s = pos + 1; s < _table.SlotCount; s++)
                if (_table.IsUsed(s)) return s;
            return -1;
        }
        if (pos < 0) return _packUsed > 0 ? 0 : -1;
        int next = SkipString(_pack!, SkipString(_pack!, pos));
        return next < _packUsed ? next : -1;
    }

    public ReadOnlySpan<byte> FieldAt(int pos)
    {
        if (_table != null) return _table.FieldAt(pos);
        ReadString(_pack!, pos, out int start, out int len);
        return _pack.AsSpan(start, len);
    }

    public ReadOnlySpan<byte> ValueAt(int pos)
    {
        if (_table != null) return _table.ValueAt(pos);
        int valuePos = SkipString(_pack!, pos);
        ReadString(_pack!, valuePos, out int start, out int len);
        return _pack.AsSpan(start, len);
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
    public bool HasCheapRandom => _table != null && _table.Count * 4 >= _table.SlotCount;

    /// <summary>A random position (the hash must not be empty): uniform while <see cref="HasCheapRandom"/>, nearly so otherwise.</summary>
    public int RandomPosition(Random random)
    {
        if (_table != null) return _table.RandomSlot(random);
        int skip = random.Next(_packCount);
        int pos = 0;
        for (int i = 0; i < skip; i++) pos = SkipString(_pack!, SkipString(_pack!, pos));
        return pos;
    }

    // ---------------------------------------------------------------- scanning the table form

    /// <summary>Slots to visit for a cursor walk: [0, ScanSlots). Zero in the packed form.</summary>
    public int ScanSlots => _table?.SlotCount ?? 0;

    /// <summary>True when table slot <paramref name="slot"/> holds a field.</summary>
    public bool IsUsedSlot(int slot) => _table != null && _table.IsUsed(slot);

    // ---------------------------------------------------------------- writes

    /// <summary>
    /// Converts to the table form now when a write's longest string (<paramref name="longest"/>) is
    /// over <paramref name="maxValue"/>, or its <paramref name="addedBytes"/> would push the packed form
    /// past its size cap: Redis checks all of a write's arguments before applying any of them.
    /// </summary>
    public void ConvertIfTooLong(int longest, long maxValue, long addedBytes)
    {
        if (_table != null) return;
        if (longest > maxValue || _packUsed + addedBytes > MaxPackBytes) ConvertToTable();
    }

    /// <summary>
    /// Makes room in the packed form for <paramref name="encodedBytes"/> more (strings with their
    /// length prefixes, see <see cref="EncodedLength"/>), so a multi-pair write allocates once, at
    /// about its exact size, instead of growing pair by pair.
    /// </summary>
    public void ReservePacked(long encodedBytes)
    {
        if (_table != null || _packUsed + encodedBytes > MaxPackBytes) return;
        int size = (int)((_packUsed + encodedBytes + 7) & ~7L);
        if (_pack != null && _pack.Length >= size) return;
        var bigger = new byte[size];
        if (_pack != null) _pack.AsSpan(0, _packUsed).CopyTo(bigger);
        _pack = bigger;
    }

    /// <summary>Bytes a string of <paramref name="length"/> bytes takes in the packed form.</summary>
    public static long EncodedLength(int length) => VarLen(length) + (long)length;

    /// <summary>
    /// Sets <paramref name="field"/> to <paramref name="value"/>; true when the field is new. Converts
    /// to the table form when a string is longer than <paramref name="maxValue"/> bytes or the count
    /// passes <paramref name="maxEntries"/> (hash-max-listpack-value / -entries).
    /// </summary>
    public bool Set(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value, long maxEntries, long maxValue)
    {
        if (_table == null && (field.Length > maxValue || value.Length > maxValue)) ConvertToTable();
        if (_table != null)
        {
            int hash = KeyTable.HashOf(field);
            int slot = _table.Find(field, hash);
            if (slot >= 0)
            {
                _table.SetValue(slot, value);
                return false;
            }
            _table.Add(field, value, hash);
            return true;
        }

        int pos = Find(field);
        if (pos >= 0)
        {
            ReplaceString(SkipString(_pack!, pos), value);
            return false;
        }
        AppendPair(field, value);
        if (_packCount > maxEntries) ConvertToTable();
        return true;
    }

    /// <summary>
    /// Overwrites the value at <paramref name="pos"/> (from <see cref="Find"/>), converting when the
    /// value or the field is over <paramref name="maxValue"/> (the limit may have been lowered since
    /// the field was stored; Redis checks both on every set).
    /// </summary>
    public void SetValueAt(int pos, ReadOnlySpan<byte> value, long maxValue)
    {
        if (_table == null && (value.Length > maxValue || FieldAt(pos).Length > maxValue))
        {
            // The position is an offset into the packed form: find the field again after converting.
            var field = FieldAt(pos).ToArray();
            ConvertToTable();
            pos = _table!.Find(field);
        }
        if (_table != null) _table.SetValue(pos, value);
        else ReplaceString(SkipString(_pack!, pos), value);
    }

    /// <summary>Removes <paramref name="field"/>; false when it was absent.</summary>
    public bool Delete(ReadOnlySpan<byte> field)
    {
        if (_table != null)
        {
            int slot = _table.Find(field);
            if (slot < 0) return false;
            _table.RemoveAt(slot);
            return true;
        }
        int pos = Find(field);
        if (pos < 0) return false;
        int end = SkipString(_pack!, SkipString(_pack!, pos));
        _pack.AsSpan(end, _packUsed - end).CopyTo(_pack.AsSpan(pos));
        _packUsed -= end - pos;
        _packCount--;
        ShrinkPackIfSparse();
        return true;
    }

    /// <summary>Switches to the table form, keeping the packed order as the slot order.</summary>
    public void ConvertToTable()
    {
        if (_table != null) return;
        var table = new FieldTable(_packCount);
        var pack = _pack;
        int pos = 0;
        while (pos < _packUsed)
        {
            int valuePos = ReadString(pack!, pos, out int fStart, out int fLen);
            pos = ReadString(pack!, valuePos, out int vStart, out int vLen);
            table.Add(pack.AsSpan(fStart, fLen), pack.AsSpan(vStart, vLen));
        }
        _table = table;
        _pack = null;
        _packUsed = 0;
        _packCount = 0;
    }

    // ---------------------------------------------------------------- packed form

    private void AppendPair(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value)
    {
        int need = VarLen(field.Length) + field.Length + VarLen(value.Length) + value.Length;
        EnsurePack(_packUsed + need);
        int pos = WriteString(_pack!, _packUsed, field);
        _packUsed = WriteString(_pack!, pos, value);
        _packCount++;
    }

    /// <summary>Replaces the string at <paramref name="pos"/>, moving the bytes after it when its size changes.</summary>
    private void ReplaceString(int pos, ReadOnlySpan<byte> value)
    {
        int oldEnd = SkipString(_pack!, pos);
        int newSize = VarLen(value.Length) + value.Length;
        int delta = newSize - (oldEnd - pos);
        if (delta > 0) EnsurePack(_packUsed + delta);
        var pack = _pack!;
        if (delta != 0) pack.AsSpan(oldEnd, _packUsed - oldEnd).CopyTo(pack.AsSpan(oldEnd + delta));
        WriteString(pack, pos, value);
        _packUsed += delta;
        if (delta < 0) ShrinkPackIfSparse();
    }

    private void EnsurePack(int size)
    {
        if (_pack != null && _pack.Length >= size) return;
        // A quarter of headroom: incremental HSETs stay amortized O(1) copies per byte while a hash
        // written in one command (the common case) gets an array of nearly its exact size.
        int current = _pack?.Length ?? 0;
        long grown = Math.Max(size, current + current / 4);
        grown = (grown + 7) & ~7L;
        var bigger = new byte[Math.Min(grown, Array.MaxLength)];
        if (_pack != null) _pack.AsSpan(0, _packUsed).CopyTo(bigger);
        _pack = bigger;
    }

    private void ShrinkPackIfSparse()
    {
        if (_pack == null || _pack.Length <= 64 || _packUsed * 2 >= _pack.Length) return;
        _pack = _pack.AsSpan(0, _packUsed).ToArray();
    }

    /// <summary>Reads the length prefix at <paramref name="pos"/>; returns the position after the string.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int ReadString(byte[] pack, int pos, out int start, out int length)
    {
        int len = 0, shift = 0;
        byte b;
        do
        {
            b = pack[pos++];
            len |= (b & 0x7F) << shift;
            shift += 7;
        } while (b >= 0x80);
        start = pos;
        length = len;
        return pos + len;
    }

    private static int SkipString(byte[] pack, int pos) => ReadString(pack, pos, out _, out _);

    private static int WriteString(byte[] pack, int pos, ReadOnlySpan<byte> s)
    {
        pos = WriteVarLen(pack, pos, s.Length);
        s.CopyTo(pack.AsSpan(pos));
        return pos + s.Length;
    }

    internal static int VarLen(int length)
    {
        int n = 1;
        while (length >= 0x80)
        {
            length >>= 7;
            n++;
        }
        return n;
    }

    private static int WriteVarLen(Span<byte> dest, int pos, int length)
    {
        uint v = (uint)length;
        while (v >= 0x80)
        {
            dest[pos++] = (byte)(v | 0x80);
            v >>= 7;
        }
        dest[pos++] = (byte)v;
        return pos;
    }

    // ---------------------------------------------------------------- table form

    /// <summary>
    /// The table form: chains over a dense slot array whose indexes never move. Each used slot holds
    /// one array laid out as [LEB128 field length][field][value].
    /// </summary>
    private sealed class FieldTable
    {
        /// <summary>A slot: <see cref="Next"/> &gt;= -1 marks it used; free slots hold -3 - nextFree.</summary>
        private struct Slot : IChainedSlot
        {
            public byte[]? Data;
            public int Hash;
            public int Next { get; set; }
            public readonly int ChainHash => Hash;
        }

        private SlotChains _chains;
        private Slot[] _slots;
        private long _dataBytes;

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
            for (int i = 0; i < _chains.HighWater; i++)
                if (_slots[i].Data is { } d) _slots[i].Data = (byte[])d.Clone();
            _dataBytes = other._dataBytes;
        }

        public FieldTable Clone() => new(this);

        public int Count => _chains.Count;

        public int SlotCount => _chains.HighWater;

        public long DataBytes => _dataBytes;

        /// <summary>This object, its slot and bucket arrays, and each slot's field-and-value array (headers and padding estimated).</summary>
        public long AllocatedBytes()
            => MemoryMeter.ObjectHeader + 40 + MemoryMeter.ArrayBytes(_slots.Length, 16) + MemoryMeter.ArrayBytes(_slots.Length, 4)
               + _dataBytes + Count * (MemoryMeter.ArrayHeader + 4L);

        public bool IsUsed(int slot) => _chains.IsUsed(_slots, slot);

        public ReadOnlySpan<byte> FieldAt(int slot)
        {
            var data = _slots[slot].Data!;
            ReadString(data, 0, out int start, out int len);
            return data.AsSpan(start, len);
        }

        public ReadOnlySpan<byte> ValueAt(int slot)
        {
            var data = _slots[slot].Data!;
            int end = SkipString(data, 0);
            return data.AsSpan(end);
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
                    ReadString(s.Data!, 0, out int start, out int len);
                    if (s.Data.AsSpan(start, len).SequenceEqual(field)) return i;
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
            int slot = _chains.Insert(_slots, hash);
            ref var s = ref _slots[slot];
            s.Data = Compose(field, value);
            s.Hash = hash;
            _dataBytes += s.Data.Length;
            return slot;
        }

        public void SetValue(int slot, ReadOnlySpan<byte> value)
        {
            ref var s = ref _slots[slot];
            var data = s.Data!;
            int valueStart = SkipString(data, 0);
            if (data.Length - valueStart == value.Length)
            {
                value.CopyTo(data.AsSpan(valueStart));
                return;
            }
            ReadString(data, 0, out int start, out int len);
            var fresh = Compose(data.AsSpan(start, len), value);
            _dataBytes += fresh.Length - data.Length;
            s.Data = fresh;
        }

        public void RemoveAt(int slot)
        {
            _chains.Remove(_slots, slot);
            ref var s = ref _slots[slot];
            _dataBytes -= s.Data!.Length;
            s.Data = null;
            s.Hash = 0;
        }

        /// <summary>A random used slot, or -1 when empty.</summary>
        public int RandomSlot(Random random) => _chains.RandomSlot(_slots, random);

        private static byte[] Compose(ReadOnlySpan<byte> field, ReadOnlySpan<byte> value)
        {
            var data = new byte[VarLen(field.Length) + field.Length + value.Length];
            int pos = WriteString(data, 0, field);
            value.CopyTo(data.AsSpan(pos));
            return data;
        }

        private void Grow()
        {
            Array.Resize(ref _slots, _slots.Length * 2);
            _chains.Rehash(_slots);
        }
    }
}
