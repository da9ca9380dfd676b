using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace RedisClone.Storage;

/// <summary>
/// A hash table from byte-string keys to values. It takes no locks: it belongs to one shard, and only
/// the thread holding that shard's gate touches it (see Sharding/ShardSet.cs).
/// </summary>
/// <remarks>
/// Laid out like .NET's <c>Dictionary</c> (a bucket array of chain heads over a dense entry array),
/// written here for three things the BCL type does not give: lookups by <c>ReadOnlySpan&lt;byte&gt;</c>
/// without allocating, access to an entry by its slot index, and slot indexes that never move.
/// Growing copies entries to the same indexes and freed slots are only reused, never compacted, so a
/// SCAN cursor that is a slot index visits every key present for the whole scan exactly once, across
/// any number of resizes (Redis gets the same promise from reverse-binary cursors). RANDOMKEY picks
/// random slots; active expiry samples the database's expiry index, which holds slot numbers (valid
/// for as long as their keys live, since slots never move).
/// </remarks>
internal sealed class KeyTable
{
    /// <summary>One key. <see cref="Next"/> &gt;= -1 marks a used slot; free slots hold -3 - nextFree.</summary>
    internal struct Entry : IChainedSlot
    {
        /// <summary>
        /// The key's bytes, followed by the value's when the value is embedded (<see cref="Value"/> is
        /// an <see cref="EmbeddedString"/>). Read the key through <see cref="Key"/>.
        /// </summary>
        public byte[] Bytes;
        /// <summary>The value; an <see cref="EmbeddedString"/> marker when its bytes follow the key's in <see cref="Bytes"/>.</summary>
        public object Value;
        /// <summary>
        /// Hash in the low 30 bits (<see cref="HashMask"/>); bit 30 says the key has a TTL
        /// (<see cref="TtlFlag"/>: its time is in the table's side array); the top bit is a per-value
        /// flag (see <see cref="RawFlag"/>).
        /// </summary>
        public int HashAndFlag;
        public int Next { get; set; }
        public readonly int ChainHash => HashAndFlag & HashMask;

        /// <summary>True when the key has a TTL (<see cref="KeyTable.ExpireAt(int)"/> is not 0).</summary>
        public readonly bool HasTtl => (HashAndFlag & TtlFlag) != 0;

        /// <summary>The key (of a used slot), without an embedded value's bytes.</summary>
        public readonly ReadOnlySpan<byte> Key
        {
            [MethodImpl(MethodImplOptions.AggressiveInlining)]
            get
            {
                object value = Value;
                return value.GetType() == typeof(EmbeddedString)
                    ? new ReadOnlySpan<byte>(Bytes, 0, Unsafe.As<EmbeddedString>(value).KeyLength)
                    : Bytes;
            }
        }

        /// <summary>True when the value is a string embedded after the key in <see cref="Bytes"/>.</summary>
        public readonly bool IsEmbedded => Value.GetType() == typeof(EmbeddedString);

        /// <summary>The key as an array that may be kept: the entry's own, or a copy when a value is embedded after it.</summary>
        public readonly byte[] KeyArray() => IsEmbedded ? Key.ToArray() : Bytes;
    }

    /// <summary>Marks a string written in place (APPEND, SETRANGE): OBJECT ENCODING says "raw".</summary>
    public const int RawFlag = int.MinValue;
    /// <summary>Marks a key with a TTL: its Unix ms time is <c>_expireAt[slot]</c>.</summary>
    public const int TtlFlag = 1 << 30;
    /// <summary>The bits of <see cref="Entry.HashAndFlag"/> that hold the key's hash.</summary>
    public const int HashMask = TtlFlag - 1;

    private SlotChains _chains;
    private Entry[] _entries;
    // LruClock stamp of each slot's last access (OBJECT IDLETIME). A parallel array rather than an
    // Entry field: Entry is exactly 24 bytes and a 4-byte field would pad it to 32.
    private uint[] _access;
    // Each slot's TTL (Unix ms), meaningful where the entry has TtlFlag; null until a key here gets
    // one. Not an Entry field: most keys have none, and 8 bytes in every entry cost 1M small keys
    // 8 MB (issue 30). A key without a TTL pays nothing on lookup (the flag is in the hash word
    // Find already reads); one with a TTL pays one more load.
    private long[]? _expireAt;

    public KeyTable(int capacity = 4, bool indexSlots = false)
    {
        int size = Math.Max(4, (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)capacity));
        _chains = new SlotChains(size);
        _entries = new Entry[size];
        _access = new uint[size];
        if (indexSlots) HashSlots = new SlotIndex(size);
    }

    /// <summary>The keys by cluster hash slot, on a cluster node only (null otherwise: no cost).</summary>
    public SlotIndex? HashSlots { get; }

    public int Count => _chains.Count;

    /// <summary>Bytes per slot: an <see cref="Entry"/>, its access stamp and its bucket.</summary>
    public static readonly int SlotBytes = Unsafe.SizeOf<Entry>() + sizeof(uint) + sizeof(int);

    /// <summary>Bytes of the TTL side array (by capacity; 0 while no key here has had a TTL).</summary>
    public long ExpireArrayBytes => _expireAt == null ? 0 : MemoryMeter.ArrayBytes(_expireAt.Length, sizeof(long));

    /// <summary>Slots allocated (the arrays' length).</summary>
    public int Capacity => _entries.Length;

    /// <summary>Slots to visit in a full scan: [0, SlotCount).</summary>
    public int SlotCount => _chains.HighWater;

    // Random per process, as HashCode's seed is: which keys collide cannot be known from outside.
    private static readonly ulong Seed0 = RandomSeed(), Seed1 = RandomSeed(), Seed2 = RandomSeed();

    /// <summary>
    /// The hash of a key, field or member (31 bits): one or two 64x64-bit multiplies folded to 64
    /// bits (high xor low) per 16 bytes, on seeded input words. It replaced HashCode.AddBytes, which
    /// feeds xxHash32 four bytes at a time through a queue of stack variables.
    /// </summary>
    public static int HashOf(ReadOnlySpan<byte> key)
    {
        ref byte p = ref MemoryMarshal.GetReference(key);
        int n = key.Length;
        ulong a, b, acc = Seed0 ^ (uint)n;
        if (n <= 16)
        {
            if (n >= 8)
            {
                a = Unsafe.ReadUnaligned<ulong>(ref p);
                b = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, n - 8));
            }
            else if (n >= 4)
            {
                a = Unsafe.ReadUnaligned<uint>(ref p);
                b = Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref p, n - 4));
            }
            else
            {
                a = n > 0 ? (ulong)p << 16 | (ulong)Unsafe.Add(ref p, n >> 1) << 8 | Unsafe.Add(ref p, n - 1) : 0;
                b = 0;
            }
        }
        else
        {
            int i = 0;
            for (; n - i > 16; i += 16)
                acc = Fold(Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, i)) ^ Seed1,
                           Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, i + 8)) ^ acc);
            a = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, n - 16));
            b = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref p, n - 8));
        }
        ulong h = Fold(Fold(a ^ Seed1, b ^ acc), Seed2 ^ (uint)n);
        return (int)(h ^ (h >> 32)) & int.MaxValue;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Fold(ulong x, ulong y)
    {
        ulong high = Math.BigMul(x, y, out ulong low);
        return high ^ low;
    }

    private static ulong RandomSeed()
    {
        ulong seed = (ulong)Random.Shared.NextInt64() ^ (ulong)Random.Shared.NextInt64() << 1;
        return seed | 1; // odd: never zero, so a multiply never erases the input
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public ref Entry At(int slot) => ref _entries[slot];

    /// <summary>
    /// Stamps <paramref name="slot"/> as accessed now: its LRU second or its LFU counter, as
    /// <paramref name="access"/> says (nothing for a CLIENT NO-TOUCH client's command).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Touch(int slot, KeyAccess access)
    {
        if (KeyAccess.NoTouch) return;
        _access[slot] = access.Lfu ? access.Accessed(_access[slot]) : LruClock.Now;
    }

    /// <summary>The slot's access stamp: the <see cref="LruClock"/> second of its last access, or its LFU word (see <see cref="KeyAccess"/>).</summary>
    public uint LastAccess(int slot) => _access[slot];

    /// <summary>Sets the slot's access stamp (a new key under LFU, RESTORE FREQ).</summary>
    public void SetStamp(int slot, uint stamp) => _access[slot] = stamp;

    /// <summary>Makes the key at <paramref name="slot"/> look last accessed <paramref name="seconds"/> ago (RESTORE IDLETIME).</summary>
    public void SetIdleSeconds(int slot, long seconds) => _access[slot] = LruClock.Now - (uint)Math.Min(seconds, uint.MaxValue);

    public bool IsUsed(int slot) => _chains.IsUsed(_entries, slot);

    /// <summary>Unix time in ms when the key in <paramref name="slot"/> expires; 0 when it does not.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public long ExpireAt(int slot) => (_entries[slot].HashAndFlag & TtlFlag) != 0 ? _expireAt![slot] : 0;

    /// <summary>
    /// Sets the key in <paramref name="slot"/> to expire at <paramref name="expireAt"/> (Unix ms), or
    /// never with 0. Only <see cref="Database.SetExpire"/> calls it: it keeps the expiry index.
    /// </summary>
    public void SetExpireAt(int slot, long expireAt)
    {
        ref var e = ref _entries[slot];
        if (expireAt == 0)
        {
            e.HashAndFlag &= ~TtlFlag;
            return;
        }
        _expireAt ??= new long[_entries.Length];
        _expireAt[slot] = expireAt;
        e.HashAndFlag |= TtlFlag;
    }

    /// <summary>Slot of <paramref name="key"/>, or -1.</summary>
    public int Find(ReadOnlySpan<byte> key)
    {
        int hash = HashOf(key) & HashMask;
        var entries = _entries;
        int i = _chains.First(hash);
        while (i >= 0)
        {
            ref var e = ref entries[i];
            if ((e.HashAndFlag & HashMask) == hash && key.SequenceEqual(e.Key)) return i;
            i = e.Next;
        }
        return -1;
    }

    /// <summary>
    /// Adds a key known to be absent, without a TTL; returns its slot. A TTL is given afterwards by
    /// <see cref="Database.SetExpire"/>, which keeps the database's expiry index.
    /// </summary>
    public int Add(byte[] key, object value) => Add(key, value, HashOf(key) & HashMask);

    /// <summary>
    /// <see cref="Add(byte[], object)"/> for a key (known to be absent) with a small string value
    /// embedded after it in one array (see <see cref="EmbeddedString"/>; the lengths must fit).
    /// </summary>
    public int AddEmbedded(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        => Add(EmbeddedString.Pack(key, value), EmbeddedString.For(key.Length), HashOf(key) & HashMask);

    private int Add(byte[] bytes, object value, int hash)
    {
        if (_chains.IsFull(_entries.Length)) Grow();
        int slot = _chains.Insert(_entries, hash);
        ref var e = ref _entries[slot];
        e.Bytes = bytes;
        e.Value = value;
        e.HashAndFlag = hash; // no TTL, not raw
        _access[slot] = LruClock.Now;
        HashSlots?.Added(slot, e.Key);
        return slot;
    }

    /// <summary>Removes the key in <paramref name="slot"/>.</summary>
    public void RemoveAt(int slot)
    {
        HashSlots?.Removed(slot, _entries[slot].Key);
        _chains.Remove(_entries, slot);
        ref var e = ref _entries[slot];
        e.Bytes = null!;
        e.Value = null!;
        e.HashAndFlag = 0; // and no TTL
        if (Count == 0) Clear();
    }

    /// <summary>Removes every key.</summary>
    public void Clear()
    {
        HashSlots?.Reset();
        if (_entries.Length > 64)
        {
            _entries = new Entry[4];
            _access = new uint[4];
            _expireAt = null;
            HashSlots?.Resize(4);
        }
        else
        {
            Array.Clear(_entries, 0, _chains.HighWater);
        }
        _chains.Reset(_entries.Length);
    }

    /// <summary>A random used slot, or -1 when empty.</summary>
    public int RandomSlot(Random random) => _chains.RandomSlot(_entries, random);

    /// <summary>
    /// Makes room for <paramref name="count"/> keys in all (loading a file that says how many keys
    /// follow): the table grows once to that size instead of doubling its way there.
    /// </summary>
    public void Reserve(int count)
    {
        if (count <= _entries.Length) return;
        int size = (int)Math.Min(System.Numerics.BitOperations.RoundUpToPowerOf2((uint)count), 1u << 30);
        if (size <= _entries.Length) return;
        CountReplacedArrays();
        Array.Resize(ref _entries, size);
        Array.Resize(ref _access, size);
        if (_expireAt != null) Array.Resize(ref _expireAt, size);
        HashSlots?.Resize(size);
        _chains.Rehash(_entries);
    }

    /// <summary>Tells the memory reclaimer (Common.ReleasedMemory.Resized) about big arrays a resize is about to drop.</summary>
    private void CountReplacedArrays()
    {
        long bytes = (long)_entries.Length * SlotBytes + ExpireArrayBytes;
        if (bytes >= 1 << 20) Common.ReleasedMemory.AddResized(bytes);
    }

    private void Grow()
    {
        int size = _entries.Length * 2;
        CountReplacedArrays();
        Array.Resize(ref _entries, size);
        Array.Resize(ref _access, size);
        if (_expireAt != null) Array.Resize(ref _expireAt, size);
        HashSlots?.Resize(size);
        _chains.Rehash(_entries);
    }
}
