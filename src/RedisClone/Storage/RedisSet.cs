using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using RedisClone.Common;

namespace RedisClone.Storage;

/// <summary>
/// A set value, in one of Redis 7.2's three encodings: "intset" (a sorted array of integers),
/// "listpack" (a packed array of short strings in insertion order) or "hashtable" (a
/// <see cref="MemberTable"/>). Small sets stay compact and convert to the hashtable past the
/// thresholds in <see cref="Limits"/>, by the same rules as Redis, so OBJECT ENCODING reports what
/// Redis would for the same sequence of commands. A set never converts back to a smaller encoding.
/// </summary>
/// <remarks>
/// <para>The intset stores each integer in 2, 4 or 8 bytes, the smallest width that holds all of
/// them, and widens in place (as Redis's intset does), so 10 small integers take 20 bytes. A member
/// belongs in the intset only in string2ll's canonical form: "1" does, "01" and "+1" do not.</para>
/// <para>The listpack holds records of a variable-length length prefix and the bytes; lookups are
/// linear, as in Redis, which is cheap at the default 128 entries of at most 64 bytes.</para>
/// <para>Members are addressed by a <em>position</em> that depends on the encoding (intset index,
/// listpack byte offset, hashtable slot); iteration and random picks go through positions so the
/// commands need not know the encoding.</para>
/// </remarks>
internal sealed class RedisSet : MeteredValue, IRedisValue
{
    /// <summary>The encoding thresholds, read from the configuration per command.</summary>
    /// <param name="IntsetEntries">set-max-intset-entries (Redis caps it at 2^30).</param>
    /// <param name="ListpackEntries">set-max-listpack-entries.</param>
    /// <param name="ListpackValue">set-max-listpack-value: the longest member a listpack holds.</param>
    internal readonly record struct Limits(long IntsetEntries, long ListpackEntries, long ListpackValue)
    {
        /// <summary>Redis's defaults (512, 128, 64).</summary>
        public static Limits Default => new(512, 128, 64);
    }

    private const byte IntsetKind = 0, ListpackKind = 1, HashtableKind = 2;

    /// <summary>Redis's intsetMaxEntries(): set-max-intset-entries is capped at 2^30.</summary>
    private const long IntsetHardLimit = 1 << 30;

    /// <summary>lpSafeToAdd: a listpack never grows past 1 GB.</summary>
    private const long ListpackMaxBytes = 1L << 30;

    /// <summary>Scratch a caller passes for members that must be formatted (integers, inline members).</summary>
    public const int ScratchSize = 24;

    // One field holds the encoding's storage (a byte[] for the intset and the listpack, a
    // MemberTable for the hashtable), and the encoding is not a field of its own: a MemberTable is
    // the hashtable, and _used is negative in the intset. So a small set is a 48-byte object (the
    // smallest the fields of MeteredValue and these three allow) plus one array.
    private object _data = Array.Empty<byte>();
    private int _count;           // intset and listpack: members
    private int _used;            // listpack: bytes in use; intset: minus its bytes per integer (2, 4 or 8)

    /// <summary>The encoding, from the storage: see <see cref="_used"/>.</summary>
    private byte Kind => _data is MemberTable ? HashtableKind : _used < 0 ? IntsetKind : ListpackKind;

    /// <summary>The intset's bytes per integer (2, 4 or 8).</summary>
    private int Width => -_used;

    /// <summary>The intset's integers or the listpack's records (<see cref="Kind"/> says which storage <see cref="_data"/> is).</summary>
    private byte[] Bytes
    {
        get => Unsafe.As<byte[]>(_data);
        set => _data = value;
    }

    /// <summary>The hashtable encoding's table.</summary>
    private MemberTable Table => Unsafe.As<MemberTable>(_data);

    /// <summary>An empty intset (2 bytes per integer) or listpack; a hashtable is made with its <see cref="MemberTable"/> in <see cref="_data"/>.</summary>
    private RedisSet(byte kind) => _used = kind == IntsetKind ? -2 : 0;

    public override long AllocatedBytes()
        => BaseBytes + 16 + (Kind == HashtableKind ? Table.AllocatedBytes() : MemoryMeter.ArrayBytes(Bytes.Length));

    /// <summary>
    /// A new empty set for a key about to receive <paramref name="sizeHint"/> members, the first being
    /// <paramref name="first"/> (Redis's setTypeCreate): an intset when that member is an integer and
    /// the hint fits the intset, else a listpack when the hint fits that, else a hashtable.
    /// </summary>
    public static RedisSet Create(ReadOnlySpan<byte> first, long sizeHint, in Limits limits)
    {
        if (sizeHint <= limits.IntsetEntries && RedisNumbers.TryParseInt64(first, out _))
        {
            var set = new RedisSet(IntsetKind);
            set.Bytes = new byte[2 * (int)Math.Clamp(sizeHint, 1, 64)];
            return set;
        }
        if (sizeHint <= limits.ListpackEntries)
        {
            // Room for that many members as long as the first: exact for the common SADD of similar members.
            long estimate = Math.Min(Math.Max(sizeHint, 1) * (first.Length + 1L), 1 << 16);
            return new RedisSet(ListpackKind) { _data = new byte[estimate] };
        }
        return new RedisSet(HashtableKind) { _data = new MemberTable((int)Math.Min(sizeHint, 1 << 20)) };
    }

    /// <summary>An empty intset: where Redis starts the result of SINTERSTORE, SUNIONSTORE, SDIFFSTORE.</summary>
    public static RedisSet CreateIntset() => new(IntsetKind);

    /// <summary>An empty listpack set.</summary>
    public static RedisSet CreateListpack() => new(ListpackKind);

    public string TypeName => "set";

    public long FreeEffort => Kind == HashtableKind ? Table.Count : 1;

    public string Encoding => Kind switch
    {
        IntsetKind => "intset",
        ListpackKind => "listpack",
        _ => "hashtable",
    };

    public bool IsIntset => Kind == IntsetKind;

    public bool IsHashtable => Kind == HashtableKind;

    /// <summary>The intset's bytes per integer (2, 4 or 8): the widest it ever needed, as Redis's intset.</summary>
    public int IntsetWidth => IsIntset ? Width : 2;

    public int Count => Kind == HashtableKind ? Table.Count : _count;

    public IRedisValue DeepCopy() => new RedisSet(Kind)
    {
        _count = _count,
        _used = _used,
        _data = Kind switch
        {
            IntsetKind => Bytes.AsSpan(0, _count * Width).ToArray(),
            ListpackKind => Bytes.AsSpan(0, _used).ToArray(),
            _ => Table.Clone(),
        },
    };

    /// <summary>Drops the unused capacity of a small encoding (after a set was built in one go).</summary>
    public void TrimExcess()
    {
        int size = Kind switch
        {
            IntsetKind => _count * Width,
            ListpackKind => _used,
            _ => -1,
        };
        if (size >= 0 && size < Bytes.Length) Bytes = Bytes.AsSpan(0, size).ToArray();
    }

    // ---------------------------------------------------------------- membership

    public bool Contains(ReadOnlySpan<byte> member)
    {
        switch (Kind)
        {
            case IntsetKind:
                return RedisNumbers.TryParseInt64(member, out long v) && IntFind(v) >= 0;
            case ListpackKind:
                return ListFind(member) >= 0;
            default:
                return Table.Contains(member);
        }
    }

    /// <summary>
    /// Adds <paramref name="member"/>; false when it was already there. Converts the encoding as
    /// Redis 7.2's setTypeAdd does: an intset past its entry limit becomes a hashtable; an intset
    /// receiving a non-integer becomes a listpack if the result fits the listpack limits, else a
    /// hashtable; a listpack past its limits becomes a hashtable.
    /// </summary>
    public bool Add(ReadOnlySpan<byte> member, in Limits limits)
    {
        switch (Kind)
        {
            case HashtableKind:
                return Table.Add(member);

            case ListpackKind:
                if (ListFind(member) >= 0) return false;
                if (_count < limits.ListpackEntries && member.Length <= limits.ListpackValue
                    && _used + member.Length + 5L <= ListpackMaxBytes)
                {
                    ListAppend(member);
                    return true;
                }
                ToHashtable(_count + 1);
                Table.AddNew(member);
                return true;

            default:
                if (RedisNumbers.TryParseInt64(member, out long v))
                {
                    if (!IntAdd(v)) return false;
                    if (_count > Math.Min(limits.IntsetEntries, IntsetHardLimit)) ToHashtable(_count);
                    return true;
                }
                // Redis checks the widest integer (sign included) against the value limit too, and
                // the listpack's size assuming every integer is as wide.
                int widest = _count == 0 ? 0 : Math.Max(RedisNumbers.DigitCount(IntAt(0)), RedisNumbers.DigitCount(IntAt(_count - 1)));
                if (_count < limits.ListpackEntries && member.Length <= limits.ListpackValue && widest <= limits.ListpackValue
                    && (long)_count * (widest + 1) + member.Length + 5 <= ListpackMaxBytes)
                {
                    IntsetToListpack(member.Length + 5);
                    ListAppend(member);
                }
                else
                {
                    ToHashtable(_count + 1);
                    Table.AddNew(member);
                }
                return true;
        }
    }

    /// <summary>
    /// Before adding <paramref name="sizeHint"/> members to an existing set (SADD's argument count):
    /// converts to a hashtable up front when that many could not fit the current encoding, as
    /// Redis's setTypeMaybeConvert does, even if most of them turn out to be present already.
    /// </summary>
    public void PrepareForAdds(long sizeHint, in Limits limits)
    {
        if ((Kind == ListpackKind && sizeHint > limits.ListpackEntries) || (Kind == IntsetKind && sizeHint > limits.IntsetEntries))
            ToHashtable((int)Math.Min(Math.Max(sizeHint, _count), 1 << 20));
    }

    /// <summary>
    /// Converts a set whose members the caller knows to be all integers into an intset, unless it
    /// already is one or has too many members (Redis's maybeConvertToIntset, used by SINTERSTORE).
    /// </summary>
    public void ConvertToIntsetIfFits(in Limits limits)
    {
        if (Kind == IntsetKind || Count > Math.Min(limits.IntsetEntries, IntsetHardLimit)) return;
        var ints = new RedisSet(IntsetKind);
        ints.Bytes = new byte[2 * Math.Max(Count, 1)];
        Span<byte> scratch = stackalloc byte[ScratchSize];
        int position = 0;
        while (Next(ref position, scratch, out var member))
        {
            RedisNumbers.TryParseInt64(member, out long v);
            ints.IntAdd(v);
        }
        _count = ints._count;
        _data = ints._data;
        _used = ints._used; // the intset's width: the set is an intset from here
    }

    /// <summary>Removes <paramref name="member"/>; false when it was not there. The encoding stays.</summary>
    public bool Remove(ReadOnlySpan<byte> member)
    {
        switch (Kind)
        {
            case IntsetKind:
                if (!RedisNumbers.TryParseInt64(member, out long v)) return false;
                int index = IntFind(v);
                if (index < 0) return false;
                RemoveAt(index);
                return true;
            case ListpackKind:
                int offset = ListFind(member);
                if (offset < 0) return false;
                RemoveAt(offset);
                return true;
            default:
                return Table.Remove(member);
        }
    }

    // ---------------------------------------------------------------- positions

    /// <summary>
    /// The member at or after <paramref name="position"/> (start from 0), advancing it past the
    /// member; false at the end. Intset members and short hashtable members are written into
    /// <paramref name="scratch"/> (<see cref="ScratchSize"/> bytes); others are returned in place,
    /// valid until the set changes.
    /// </summary>
    public bool Next(ref int position, Span<byte> scratch, out ReadOnlySpan<byte> member)
    {
        switch (Kind)
        {
            case IntsetKind:
                if (position >= _count)
                {
                    member = default;
                    return false;
                }
                member = scratch.Slice(0, RedisNumbers.FormatInt64(IntAt(position++), scratch));
                return true;
            case ListpackKind:
                if (position >= _used)
                {
                    member = default;
                    return false;
                }
                member = ListRecord(ref position);
                return true;
            default:
                var table = Table;
                while (position < table.SlotCount && !table.IsUsed(position)) position++;
                if (position >= table.SlotCount)
                {
                    member = default;
                    return false;
                }
                member = table.MemberAt(position++, scratch);
                return true;
        }
    }

    /// <summary>The member at <paramref name="position"/> (see <see cref="Next"/> for the scratch rules).</summary>
    public ReadOnlySpan<byte> MemberAt(int position, Span<byte> scratch)
    {
        switch (Kind)
        {
            case IntsetKind:
                return scratch.Slice(0, RedisNumbers.FormatInt64(IntAt(position), scratch));
            case ListpackKind:
                return ListRecord(ref position);
            default:
                return Table.MemberAt(position, scratch);
        }
    }

    /// <summary>The integer at an intset position (faster than formatting it).</summary>
    public long IntegerAt(int position) => IntAt(position);

    /// <summary>The position of a uniformly random member; the set must not be empty.</summary>
    public int RandomPosition(Random random)
    {
        switch (Kind)
        {
            case IntsetKind:
                return random.Next(_count);
            case ListpackKind:
                int skip = random.Next(_count), offset = 0;
                for (int i = 0; i < skip; i++) offset = ListSkip(offset);
                return offset;
            default:
                return Table.RandomSlot(random);
        }
    }

    /// <summary>
    /// Every member's position, in iteration order, into <paramref name="positions"/> (at least
    /// <see cref="Count"/> long): for picking several distinct random members.
    /// </summary>
    public void AllPositions(Span<int> positions)
    {
        int n = 0;
        switch (Kind)
        {
            case IntsetKind:
                for (int i = 0; i < _count; i++) positions[i] = i;
                break;
            case ListpackKind:
                for (int offset = 0; offset < _used; offset = ListSkip(offset)) positions[n++] = offset;
                break;
            default:
                var table = Table;
                for (int s = 0; s < table.SlotCount; s++)
                    if (table.IsUsed(s)) positions[n++] = s;
                break;
        }
    }

    /// <summary>
    /// Removes the member at <paramref name="position"/>. Other positions stay valid for the
    /// hashtable only; intset indexes and listpack offsets after it shift.
    /// </summary>
    public void RemoveAt(int position)
    {
        switch (Kind)
        {
            case IntsetKind:
                Bytes.AsSpan((position + 1) * Width, (_count - position - 1) * Width).CopyTo(Bytes.AsSpan(position * Width));
                _count--;
                break;
            case ListpackKind:
                int end = ListSkip(position);
                Bytes.AsSpan(end, _used - end).CopyTo(Bytes.AsSpan(position));
                _used -= end - position;
                _count--;
                break;
            default:
                Table.RemoveAt(position);
                break;
        }
    }

    /// <summary>An upper bound of the members' lengths, for bounding the size of a reply.</summary>
    public int MaxMemberLength()
    {
        switch (Kind)
        {
            case IntsetKind:
                return _count == 0 ? 0 : Math.Max(RedisNumbers.DigitCount(IntAt(0)), RedisNumbers.DigitCount(IntAt(_count - 1)));
            case ListpackKind:
                int max = 0;
                for (int offset = 0; offset < _used;)
                    max = Math.Max(max, ListRecord(ref offset).Length);
                return max;
            default:
                return Table.MaxLength;
        }
    }

    // ---------------------------------------------------------------- hashtable scan

    /// <summary>Hashtable encoding only: slots to visit in a full SSCAN.</summary>
    public int SlotCount => Table.SlotCount;

    /// <summary>Hashtable encoding only: whether <paramref name="slot"/> holds a member.</summary>
    public bool IsUsedSlot(int slot) => Table.IsUsed(slot);

    // ---------------------------------------------------------------- intset

    private long IntAt(int index) => Width switch
    {
        2 => BinaryPrimitives.ReadInt16LittleEndian(Bytes.AsSpan(index * 2)),
        4 => BinaryPrimitives.ReadInt32LittleEndian(Bytes.AsSpan(index * 4)),
        _ => BinaryPrimitives.ReadInt64LittleEndian(Bytes.AsSpan(index * 8)),
    };

    private static void WriteInt(Span<byte> at, int width, long value)
    {
        switch (width)
        {
            case 2:
                BinaryPrimitives.WriteInt16LittleEndian(at, (short)value);
                break;
            case 4:
                BinaryPrimitives.WriteInt32LittleEndian(at, (int)value);
                break;
            default:
                BinaryPrimitives.WriteInt64LittleEndian(at, value);
                break;
        }
    }

    private static int WidthOf(long value)
        => value is >= short.MinValue and <= short.MaxValue ? 2 : value is >= int.MinValue and <= int.MaxValue ? 4 : 8;

    /// <summary>Index of <paramref name="value"/>, or the bitwise complement of where it would go.</summary>
    private int IntFind(long value)
    {
        if (WidthOf(value) > Width) return value < 0 ? ~0 : ~_count;
        int lo = 0, hi = _count - 1;
        while (lo <= hi)
        {
            int mid = (int)((uint)(lo + hi) >> 1);
            long m = IntAt(mid);
            if (m < value) lo = mid + 1;
            else if (m > value) hi = mid - 1;
            else return mid;
        }
        return ~lo;
    }

    private bool IntAdd(long value)
    {
        int width = WidthOf(value);
        if (width > Width)
        {
            // Wider than every member: it is smaller or larger than all of them.
            // Same capacity in items: a set built in one SADD was sized for its members already.
            var wider = new byte[Math.Max(_count + 1, Bytes.Length / Width) * width];
            int shift = value < 0 ? 1 : 0;
            for (int i = 0; i < _count; i++) WriteInt(wider.AsSpan((i + shift) * width), width, IntAt(i));
            WriteInt(wider.AsSpan(value < 0 ? 0 : _count * width), width, value);
            Bytes = wider;
            _used = -width;
            _count++;
            return true;
        }
        int index = IntFind(value);
        if (index >= 0) return false;
        index = ~index;
        int w = Width;
        if ((_count + 1) * w > Bytes.Length)
        {
            var grown = new byte[Grown(_count + 1, Bytes.Length / w) * w];
            Bytes.AsSpan(0, _count * w).CopyTo(grown);
            Bytes = grown;
        }
        Bytes.AsSpan(index * w, (_count - index) * w).CopyTo(Bytes.AsSpan((index + 1) * w));
        WriteInt(Bytes.AsSpan(index * w), w, value);
        _count++;
        return true;
    }

    /// <summary>A new capacity for <paramref name="needed"/> items: half again as many, so repeated adds copy O(1) amortized.</summary>
    private static int Grown(int needed, int capacity) => Math.Max(needed, Math.Max(4, capacity + capacity / 2));

    private void IntsetToListpack(int extra)
    {
        int count = _count;
        var ints = Bytes;
        int width = Width;
        int size = extra;
        for (int i = 0; i < count; i++) size += 1 + RedisNumbers.DigitCount(IntAt(i));
        Bytes = new byte[size];
        _used = 0; // the set is a listpack from here
        _count = 0;
        Span<byte> digits = stackalloc byte[ScratchSize];
        for (int i = 0; i < count; i++)
        {
            long v = width switch
            {
                2 => BinaryPrimitives.ReadInt16LittleEndian(ints.AsSpan(i * 2)),
                4 => BinaryPrimitives.ReadInt32LittleEndian(ints.AsSpan(i * 4)),
                _ => BinaryPrimitives.ReadInt64LittleEndian(ints.AsSpan(i * 8)),
            };
            ListAppend(digits.Slice(0, RedisNumbers.FormatInt64(v, digits)));
        }
    }

    // ---------------------------------------------------------------- listpack

    /// <summary>Byte offset of <paramref name="member"/>'s record, or -1.</summary>
    private int ListFind(ReadOnlySpan<byte> member)
    {
        var bytes = Bytes;
        int offset = 0;
        while (offset < _used)
        {
            int start = offset;
            int length = Leb128.Read(bytes, ref offset);
            if (length == member.Length && bytes.AsSpan(offset, length).SequenceEqual(member)) return start;
            offset += length;
        }
        return -1;
    }

    private ReadOnlySpan<byte> ListRecord(scoped ref int offset)
    {
        int length = Leb128.Read(Bytes, ref offset);
        var record = new ReadOnlySpan<byte>(Bytes, offset, length);
        offset += length;
        return record;
    }

    private int ListSkip(int offset)
    {
        int length = Leb128.Read(Bytes, ref offset);
        return offset + length;
    }

    private void ListAppend(ReadOnlySpan<byte> member)
    {
        int size = Leb128.Size(member.Length) + member.Length;
        if (_used + size > Bytes.Length)
        {
            var grown = new byte[Grown(_used + size, Bytes.Length)];
            Bytes.AsSpan(0, _used).CopyTo(grown);
            Bytes = grown;
        }
        int at = _used;
        Leb128.Write(Bytes, ref at, member.Length);
        member.CopyTo(Bytes.AsSpan(at));
        _used = at + member.Length;
        _count++;
    }

    // ---------------------------------------------------------------- hashtable

    private void ToHashtable(int capacity)
    {
        var table = new MemberTable(capacity);
        Span<byte> scratch = stackalloc byte[ScratchSize];
        int position = 0;
        while (Next(ref position, scratch, out var member)) table.AddNew(member);
        _data = table;
        _count = 0;
        _used = 0;
    }
}
