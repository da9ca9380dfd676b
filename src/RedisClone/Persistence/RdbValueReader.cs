using System.Buffers.Binary;
using RedisClone.Common;
using RedisClone.Storage;

namespace RedisClone.Persistence;

/// <summary>
/// Reads one RDB value body (after its type byte) into a stored value: every type and encoding a
/// Redis 7.2 or older server writes (strings; lists as quicklists of listpacks or ziplists, or the
/// old linked and ziplist forms; sets as intsets, listpacks or plain; sorted sets as listpacks,
/// ziplists or with text or binary scores; hashes as listpacks, ziplists, zipmaps or plain;
/// streams of all three versions with their consumer groups).
/// </summary>
/// <remarks>
/// <para>The input is untrusted: lengths are checked against what is left before anything is
/// allocated, blobs are validated whole (<see cref="PackedFormats"/>), and duplicates, empty
/// values and inconsistent counts are refused as Redis refuses them. The result is built with the
/// same encoding rules as commands use, under the limits of the moment (<see cref="Limits"/>), so
/// OBJECT ENCODING afterwards is what the data would have by command.</para>
/// <para>On failure <see cref="Reason"/> says why, for a log line; RESTORE answers "Bad data
/// format" whatever it is.</para>
/// </remarks>
internal static class RdbValueReader
{
    /// <summary>The encoding limits that decide how loaded values are stored.</summary>
    internal readonly record struct Limits(
        long HashEntries, long HashValue,
        RedisSet.Limits Set,
        RedisSortedSet.Limits Zset,
        long ListFill);

    /// <summary>Why the last read failed (one thread reads at a time per caller; a log line, not an API).</summary>
    [ThreadStatic] public static string? Reason;

    /// <summary>Reads a value of <paramref name="type"/> at <paramref name="position"/>; null when malformed.</summary>
    public static object? Read(ReadOnlySpan<byte> input, ref int position, byte type, in Limits limits)
    {
        Reason = null;
        try
        {
            return type switch
            {
                RdbType.String => ReadString(input, ref position),
                RdbType.List => ReadPlainList(input, ref position, limits),
                RdbType.ListZiplist => ReadZiplistList(input, ref position, limits),
                RdbType.ListQuicklist or RdbType.ListQuicklist2 => ReadQuicklist(input, ref position, type, limits),
                RdbType.Set => ReadPlainSet(input, ref position, limits),
                RdbType.SetIntset => ReadIntset(input, ref position, limits),
                RdbType.SetListpack => ReadListpackSet(input, ref position, limits),
                RdbType.Zset or RdbType.Zset2 => ReadPlainZset(input, ref position, binary: type == RdbType.Zset2, limits),
                RdbType.ZsetZiplist or RdbType.ZsetListpack => ReadPackedZset(input, ref position, ziplist: type == RdbType.ZsetZiplist, limits),
                RdbType.Hash => ReadPlainHash(input, ref position, limits),
                RdbType.HashZipmap or RdbType.HashZiplist or RdbType.HashListpack => ReadPackedHash(input, ref position, type, limits),
                RdbType.HashMetadata or RdbType.HashMetadataPreGa => ReadHashWithTtls(input, ref position, type, limits),
                RdbType.HashListpackEx or RdbType.HashListpackExPreGa => ReadPackedHashWithTtls(input, ref position, type, limits),
                RdbType.StreamListpacks or RdbType.StreamListpacks2 or RdbType.StreamListpacks3 => ReadStream(input, ref position, type),
                RdbType.ModulePreGa or RdbType.Module2 => Fail("a module value (no modules are loaded)"),
                _ => Fail($"unknown value type {type}"),
            };
        }
        catch (OutOfMemoryException)
        {
            return Fail("a length too large to allocate");
        }
        finally
        {
            // What an unusually large value needed is not kept for the thread's next read.
            if (t_scratch0?.Length > KeptScratchBytes) t_scratch0 = null;
            if (t_scratch1?.Length > KeptScratchBytes) t_scratch1 = null;
            if (t_elements?.Capacity > KeptElements) t_elements = null;
            if (t_integers?.Capacity > KeptElements) t_integers = null;
        }
    }

    // Scratch space for the strings a value is read through without being kept (an integer's
    // text, an LZF-compressed member or blob) and the lists packed blobs are parsed into: one of
    // each per thread, so reading a value allocates only what the value keeps. Two scratch arrays:
    // a hash reads a field and its value before storing them.
    [ThreadStatic] private static byte[]? t_scratch0, t_scratch1;
    [ThreadStatic] private static List<PackedFormats.Element>? t_elements;
    [ThreadStatic] private static List<long>? t_integers;
    private const int KeptScratchBytes = 64 * 1024, KeptElements = 4096;

    private static List<PackedFormats.Element> Elements() => t_elements ??= new List<PackedFormats.Element>(64);

    private static bool Refuse(string reason)
    {
        Reason ??= reason;
        return false;
    }

    private static object? Fail(string reason)
    {
        Reason ??= reason;
        return null;
    }

    // ---------------------------------------------------------------- primitives

    private static bool TryLength(ReadOnlySpan<byte> input, ref int position, out long length)
    {
        length = 0;
        if (!RdbString.TryReadLength(input, ref position, out ulong raw, out bool encoded) || encoded)
        {
            Reason ??= "a malformed length";
            return false;
        }
        if (raw > long.MaxValue)
        {
            Reason ??= "a length out of range";
            return false;
        }
        length = (long)raw;
        return true;
    }

    /// <summary>A length that counts elements each taking at least one byte of what is left.</summary>
    private static bool TryCount(ReadOnlySpan<byte> input, ref int position, out int count)
    {
        count = 0;
        if (!TryLength(input, ref position, out long length)) return false;
        if (length > input.Length - position)
        {
            Reason ??= "a count larger than the data";
            return false;
        }
        count = (int)length;
        return true;
    }

    private static bool TryString(ReadOnlySpan<byte> input, ref int position, out byte[] value)
    {
        if (RdbString.TryRead(input, ref position, out value)) return true;
        Reason ??= "a malformed string";
        return false;
    }

    private static object? ReadString(ReadOnlySpan<byte> input, ref int position)
        => TryString(input, ref position, out var value) ? value : null;

    /// <summary>A string read without being kept: valid until the next read into the same scratch array.</summary>
    private static bool TrySpan(ReadOnlySpan<byte> input, scoped ref int position, ref byte[]? scratch, out ReadOnlySpan<byte> value)
    {
        var buffer = scratch ??= new byte[256];
        bool ok = RdbString.TryReadSpan(input, ref position, ref buffer, out value);
        scratch = buffer;
        if (!ok) Reason ??= "a malformed string";
        return ok;
    }

    private static bool TryUInt64(ReadOnlySpan<byte> input, ref int position, out ulong value)
    {
        value = 0;
        if (RdbString.TryReadLength(input, ref position, out value, out bool encoded) && !encoded) return true;
        Reason ??= "a malformed number";
        return false;
    }

    // ---------------------------------------------------------------- lists

    private static object? ReadPlainList(ReadOnlySpan<byte> input, ref int position, in Limits limits)
    {
        if (!TryCount(input, ref position, out int count)) return null;
        if (count == 0) return Fail("an empty list");
        var list = RedisList.NewQuicklist();
        for (int i = 0; i < count; i++)
        {
            if (!TrySpan(input, ref position, ref t_scratch0, out var element)) return null;
            list.PushTail(element);
        }
        list.ConvertIfSmall(limits.ListFill);
        return list;
    }

    private static object? ReadZiplistList(ReadOnlySpan<byte> input, ref int position, in Limits limits)
    {
        if (!TrySpan(input, ref position, ref t_scratch0, out var blob)) return null;
        var elements = Elements();
        if (!PackedFormats.TryReadZiplist(blob, elements)) return Fail("a malformed ziplist");
        if (elements.Count == 0) return Fail("an empty list");
        var list = RedisList.NewQuicklist();
        Span<byte> scratch = stackalloc byte[20];
        foreach (var e in elements) list.PushTail(e.Text(blob, scratch));
        list.ConvertIfSmall(limits.ListFill);
        return list;
    }

    private static object? ReadQuicklist(ReadOnlySpan<byte> input, ref int position, byte type, in Limits limits)
    {
        if (!TryCount(input, ref position, out int nodes)) return null;
        if (nodes == 0) return Fail("an empty list");
        var list = RedisList.NewQuicklist();
        var elements = Elements();
        Span<byte> scratch = stackalloc byte[20];
        for (int n = 0; n < nodes; n++)
        {
            long container = RdbType.ContainerPacked;
            if (type == RdbType.ListQuicklist2)
            {
                if (!TryLength(input, ref position, out container)) return null;
                if (container != RdbType.ContainerPacked && container != RdbType.ContainerPlain)
                    return Fail("a quicklist node of unknown container");
            }
            if (!TrySpan(input, ref position, ref t_scratch0, out var blob)) return null;
            if (container == RdbType.ContainerPlain)
            {
                list.PushTail(blob);
                continue;
            }
            bool valid = type == RdbType.ListQuicklist2
                ? PackedFormats.TryReadListpack(blob, elements)
                : PackedFormats.TryReadZiplist(blob, elements);
            if (!valid) return Fail("a malformed list node");
            // Redis skips empty nodes (older versions could save them).
            foreach (var e in elements) list.PushTail(e.Text(blob, scratch));
        }
        if (list.Count == 0) return Fail("an empty list");
        list.ConvertIfSmall(limits.ListFill);
        return list;
    }

    // ---------------------------------------------------------------- sets

    private static object? ReadPlainSet(ReadOnlySpan<byte> input, ref int position, in Limits limits)
    {
        if (!TryCount(input, ref position, out int count)) return null;
        if (count == 0) return Fail("an empty set");
        RedisSet? set = null;
        for (int i = 0; i < count; i++)
        {
            if (!TrySpan(input, ref position, ref t_scratch0, out var member)) return null;
            set ??= RedisSet.Create(member, count, limits.Set);
            if (!set.Add(member, limits.Set)) return Fail("a duplicate set member");
        }
        return set;
    }

    private static object? ReadIntset(ReadOnlySpan<byte> input, ref int position, in Limits limits)
    {
        if (!TrySpan(input, ref position, ref t_scratch0, out var blob)) return null;
        var values = t_integers ??= new List<long>(64);
        values.Clear();
        if (!PackedFormats.TryReadIntset(blob, values)) return Fail("a malformed intset");
        if (values.Count == 0) return Fail("an empty set");
        var set = RedisSet.CreateIntset();
        Span<byte> text = stackalloc byte[20];
        foreach (long v in values) set.Add(text[..RedisNumbers.FormatInt64(v, text)], limits.Set);
        return set;
    }

    private static object? ReadListpackSet(ReadOnlySpan<byte> input, ref int position, in Limits limits)
    {
        if (!TrySpan(input, ref position, ref t_scratch0, out var blob)) return null;
        var elements = Elements();
        if (!PackedFormats.TryReadListpack(blob, elements)) return Fail("a malformed listpack");
        if (elements.Count == 0) return Fail("an empty set");
        var set = RedisSet.CreateListpack();
        Span<byte> scratch = stackalloc byte[20];
        foreach (var e in elements)
            if (!set.Add(e.Text(blob, scratch), limits.Set)) return Fail("a duplicate set member");
        return set;
    }

    // ---------------------------------------------------------------- sorted sets

    private static object? ReadPlainZset(ReadOnlySpan<byte> input, ref int position, bool binary, in Limits limits)
    {
        if (!TryCount(input, ref position, out int count)) return null;
        if (count == 0) return Fail("an empty sorted set");
        var index = new SortedSetIndex(Math.Min(count, 1 << 16));
        for (int i = 0; i < count; i++)
        {
            if (!TrySpan(input, ref position, ref t_scratch0, out var member)) return null;
            double score;
            if (binary)
            {
                if (position + 8 > input.Length) return Fail("a truncated score");
                score = BinaryPrimitives.ReadDoubleLittleEndian(input[position..]);
                position += 8;
            }
            else if (!TryTextScore(input, ref position, out score)) return null;
            if (double.IsNaN(score)) return Fail("a NaN score");
            if (index.Find(member) >= 0) return Fail("a duplicate sorted set member");
            index.Insert(member, score);
        }
        return RedisSortedSet.FromIndex(index, limits.Zset);
    }

    /// <summary>RDB's old text score: a length byte (253 nan, 254 +inf, 255 -inf) then that many characters.</summary>
    private static bool TryTextScore(ReadOnlySpan<byte> input, ref int position, out double score)
    {
        score = 0;
        if (position >= input.Length)
        {
            Reason ??= "a truncated score";
            return false;
        }
        int length = input[position++];
        switch (length)
        {
            case 253: score = double.NaN; return true;
            case 254: score = double.PositiveInfinity; return true;
            case 255: score = double.NegativeInfinity; return true;
        }
        if (position + length > input.Length || !RedisNumbers.TryParseDouble(input.Slice(position, length), out score))
        {
            Reason ??= "a malformed score";
            return false;
        }
        position += length;
        return true;
    }

    private static object? ReadPackedZset(ReadOnlySpan<byte> input, ref int position, bool ziplist, in Limits limits)
    {
        if (!TrySpan(input, ref position, ref t_scratch0, out var blob)) return null;
        var elements = Elements();
        bool valid = ziplist ? PackedFormats.TryReadZiplist(blob, elements) : PackedFormats.TryReadListpack(blob, elements);
        if (!valid || elements.Count % 2 != 0) return Fail("a malformed sorted set blob");
        if (elements.Count == 0) return Fail("an empty sorted set");
        var index = new SortedSetIndex(elements.Count / 2);
        Span<byte> scratch = stackalloc byte[20];
        for (int i = 0; i < elements.Count; i += 2)
        {
            var member = elements[i].Text(blob, scratch);
            var s = elements[i + 1];
            double score;
            if (s.IsInt) score = s.Int;
            else if (!RedisNumbers.TryParseDouble(blob.Slice(s.Start, s.Length), out score) || double.IsNaN(score))
                return Fail("a malformed score");
            if (index.Find(member) >= 0) return Fail("a duplicate sorted set member");
            index.Insert(member, score);
        }
        // Redis keeps a loaded listpack as it is unless it has too many entries (long members stay).
        var zsetLimits = limits.Zset with { ListpackValue = long.MaxValue };
        return RedisSortedSet.FromIndex(index, zsetLimits);
    }

    // ---------------------------------------------------------------- hashes

    private static object? ReadPlainHash(ReadOnlySpan<byte> input, ref int position, in Limits limits)
    {
        if (!TryCount(input, ref position, out int count)) return null;
        if (count == 0) return Fail("an empty hash");
        var hash = new RedisHash();
        if (count > limits.HashEntries) hash.ConvertToTable();
        for (int i = 0; i < count; i++)
        {
            if (!TrySpan(input, ref position, ref t_scratch0, out var field)) return null;
            if (!TrySpan(input, ref position, ref t_scratch1, out var value)) return null;
            if (!hash.Set(field, value, limits.HashEntries, limits.HashValue)) return Fail("a duplicate hash field");
        }
        return hash;
    }

    private static object? ReadPackedHash(ReadOnlySpan<byte> input, ref int position, byte type, in Limits limits)
    {
        if (!TrySpan(input, ref position, ref t_scratch0, out var blob)) return null;
        var elements = Elements();
        bool valid = type switch
        {
            RdbType.HashZipmap => PackedFormats.TryReadZipmap(blob, elements),
            RdbType.HashZiplist => PackedFormats.TryReadZiplist(blob, elements),
            _ => PackedFormats.TryReadListpack(blob, elements),
        };
        if (!valid || elements.Count % 2 != 0) return Fail("a malformed hash blob");
        if (elements.Count == 0) return Fail("an empty hash");
        var hash = new RedisHash();
        Span<byte> fieldScratch = stackalloc byte[20];
        Span<byte> valueScratch = stackalloc byte[20];
        if (elements.Count / 2 > limits.HashEntries)
        {
            hash.ConvertToTable();
        }
        else
        {
            // The packed form's array at its final size at once, not grown pair by pair.
            long encoded = 0;
            foreach (var e in elements) encoded += RedisHash.EncodedLength(e.Text(blob, fieldScratch).Length);
            hash.ReservePacked(encoded);
        }
        for (int i = 0; i < elements.Count; i += 2)
        {
            var field = elements[i].Text(blob, fieldScratch);
            var value = elements[i + 1].Text(blob, valueScratch);
            if (!hash.Set(field, value, limits.HashEntries, limits.HashValue)) return Fail("a duplicate hash field");
        }
        return hash;
    }

    /// <summary>The latest field TTL Redis stores (EB_EXPIRE_TIME_MAX, 2^48 - 1 ms).</summary>
    private const long MaxFieldExpiry = (1L << 48) - 1;

    /// <summary>
    /// Types 24 and 22: per field a TTL (a length; in 24 relative to the soonest TTL written first,
    /// 0 for none, in 22 absolute), the field and the value. As Redis's loader, a field's TTL is set
    /// as it is read, so a small hash takes its fields in Redis's TTL order.
    /// </summary>
    private static object? ReadHashWithTtls(ReadOnlySpan<byte> input, ref int position, byte type, in Limits limits)
    {
        long minExpire = 0;
        if (type == RdbType.HashMetadata)
        {
            if (input.Length - position < 8) return Fail("a truncated hash minimum TTL");
            minExpire = BinaryPrimitives.ReadInt64LittleEndian(input[position..]);
            position += 8;
            if (minExpire < 0 || minExpire > MaxFieldExpiry + 1) return Fail("an invalid hash minimum TTL");
        }
        if (!TryCount(input, ref position, out int count)) return null;
        if (count == 0) return Fail("an empty hash");
        var hash = new RedisHash();
        if (count > limits.HashEntries) hash.ConvertToTable();
        for (int i = 0; i < count; i++)
        {
            if (!TryUInt64(input, ref position, out ulong ttl)) return null;
            ulong expireAt = type == RdbType.HashMetadata && ttl != 0 ? ttl + (ulong)minExpire - 1 : ttl;
            if (ttl > MaxFieldExpiry + 1 || expireAt > MaxFieldExpiry) return Fail("an invalid hash field TTL");
            if (!TrySpan(input, ref position, ref t_scratch0, out var field)) return null;
            if (!TrySpan(input, ref position, ref t_scratch1, out var value)) return null;
            if (!hash.Set(field, value, limits.HashEntries, limits.HashValue)) return Fail("a duplicate hash field");
            if (expireAt != 0) hash.SetExpiryAt(hash.Find(field), (long)expireAt);
        }
        return hash;
    }

    /// <summary>
    /// Types 25 and 23: (in 25, the soonest TTL as 8 bytes, then) a listpack of field-value-TTL
    /// triplets, TTL 0 for none, kept in the blob's order (Redis keeps the blob as it is).
    /// </summary>
    private static object? ReadPackedHashWithTtls(ReadOnlySpan<byte> input, ref int position, byte type, in Limits limits)
    {
        if (type == RdbType.HashListpackEx)
        {
            // The soonest TTL: written for readers that keep the blob on disk; not needed here.
            if (input.Length - position < 8) return Fail("a truncated hash minimum TTL");
            position += 8;
        }
        if (!TrySpan(input, ref position, ref t_scratch0, out var blob)) return null;
        var elements = Elements();
        if (!PackedFormats.TryReadListpack(blob, elements) || elements.Count % 3 != 0) return Fail("a malformed hash blob");
        if (elements.Count == 0) return Fail("an empty hash");
        int fields = elements.Count / 3;
        for (int i = 2; i < elements.Count; i += 3)
        {
            var ttl = elements[i];
            if (!ttl.IsInt || ttl.Int < 0 || ttl.Int > MaxFieldExpiry) return Fail("an invalid hash field TTL");
        }
        var hash = new RedisHash();
        Span<byte> fieldScratch = stackalloc byte[20];
        Span<byte> valueScratch = stackalloc byte[20];
        if (fields > limits.HashEntries) hash.ConvertToTable();
        for (int i = 0; i < elements.Count; i += 3)
        {
            var field = elements[i].Text(blob, fieldScratch);
            var value = elements[i + 1].Text(blob, valueScratch);
            if (!hash.Set(field, value, limits.HashEntries, limits.HashValue)) return Fail("a duplicate hash field");
        }
        // TTLs last to first: giving a field its TTL moves it before the first field with a TTL
        // as late or none (Redis's rule), so going backwards rebuilds the blob's order exactly,
        // fields with equal TTLs included.
        for (int i = elements.Count - 3; i >= 0; i -= 3)
        {
            if (elements[i + 2].Int == 0) continue;
            hash.SetExpiryAt(hash.Find(elements[i].Text(blob, fieldScratch)), elements[i + 2].Int);
        }
        return hash;
    }

    // ---------------------------------------------------------------- streams

    private static object? ReadStream(ReadOnlySpan<byte> input, ref int position, byte type)
    {
        if (!TryCount(input, ref position, out int nodes)) return null;
        var stream = new RedisStream();
        var elements = Elements();
        StreamId previous = StreamId.Min;
        bool any = false;
        long live = 0;
        for (int n = 0; n < nodes; n++)
        {
            if (!TryString(input, ref position, out var key)) return null;
            if (key.Length != 16) return Fail("a stream node key that is not an ID");
            var master = new StreamId(BinaryPrimitives.ReadUInt64BigEndian(key), BinaryPrimitives.ReadUInt64BigEndian(key.AsSpan(8)));
            if (!TryString(input, ref position, out var lp)) return null;
            if (!PackedFormats.TryReadListpack(lp, elements)) return Fail("a malformed stream listpack");
            if (elements.Count == 0) return Fail("an empty stream listpack");
            if (!TryValidateNode(lp, elements, master, ref previous, ref any, out long nodeLive)) return Fail("a malformed stream node");
            live += nodeLive;
            stream.LoadNode(master, lp);
        }
        if (!TryLength(input, ref position, out long length)) return null;
        if (!TryUInt64(input, ref position, out ulong lastMs) || !TryUInt64(input, ref position, out ulong lastSeq)) return null;
        var lastId = new StreamId(lastMs, lastSeq);
        StreamId firstId = StreamId.Min, maxDeleted = StreamId.Min;
        long entriesAdded = length;
        if (type >= RdbType.StreamListpacks2)
        {
            if (!TryUInt64(input, ref position, out ulong ms) || !TryUInt64(input, ref position, out ulong seq)) return null;
            firstId = new StreamId(ms, seq);
            if (!TryUInt64(input, ref position, out ms) || !TryUInt64(input, ref position, out seq)) return null;
            maxDeleted = new StreamId(ms, seq);
            if (!TryLength(input, ref position, out entriesAdded)) return null;
        }
        if (length != live) return Fail("a stream length that does not match its entries");
        if (any && previous > lastId) return Fail("a stream entry above the stream's last ID");
        if (type < RdbType.StreamListpacks2)
        {
            // Version 1 streams do not record these: the first live entry's ID, and entries-added
            // taken as the length (what Redis assumes).
            stream.SetLoadedState(length, lastId, StreamId.Min, StreamId.Min, length);
            stream.FinishDeletes();
        }
        else
        {
            stream.SetLoadedState(length, lastId, firstId, maxDeleted, entriesAdded);
        }
        if (!TryCount(input, ref position, out int groups)) return null;
        for (int g = 0; g < groups; g++)
            if (!TryReadGroup(input, ref position, type, stream)) return null;
        return stream;
    }

    /// <summary>
    /// One consumer group: name, last ID, entries-read (types 19 and 21; estimated for older ones),
    /// its pending entries, its consumers (with the active time from type 21 on, else the seen time)
    /// and the IDs each owns, which must be pending in the group; at the end every pending entry
    /// must have an owner, or a later XPENDING or XCLAIM would meet a half-made entry.
    /// </summary>
    private static bool TryReadGroup(ReadOnlySpan<byte> input, ref int position, byte type, RedisStream stream)
    {
        if (!TryString(input, ref position, out var name)) return false;
        if (!TryUInt64(input, ref position, out ulong ms) || !TryUInt64(input, ref position, out ulong seq)) return false;
        var lastId = new StreamId(ms, seq);
        long entriesRead;
        if (type >= RdbType.StreamListpacks2)
        {
            if (!TryUInt64(input, ref position, out ulong raw)) return false;
            entriesRead = unchecked((long)raw);
        }
        else
        {
            entriesRead = stream.EstimateDistanceFromFirstEverEntry(lastId);
        }
        var group = stream.TryCreateGroup(name, lastId, entriesRead);
        if (group == null) return Refuse("a duplicated consumer group name");
        if (!TryCount(input, ref position, out int pending)) return false;
        for (int i = 0; i < pending; i++)
        {
            if (!TryRawId(input, ref position, out var id)) return false;
            if (position + 8 > input.Length) return Refuse("a truncated delivery time");
            long deliveryTime = BinaryPrimitives.ReadInt64LittleEndian(input[position..]);
            position += 8;
            if (!TryLength(input, ref position, out long deliveryCount)) return false;
            if (!group.Pel.TryAdd(id, new StreamNack(null, deliveryTime, deliveryCount)))
                return Refuse("a duplicated pending entry in a consumer group");
        }
        if (!TryCount(input, ref position, out int consumers)) return false;
        for (int c = 0; c < consumers; c++)
        {
            if (!TryString(input, ref position, out var consumerName)) return false;
            if (position + 8 > input.Length) return Refuse("a truncated seen time");
            long seenTime = BinaryPrimitives.ReadInt64LittleEndian(input[position..]);
            position += 8;
            long activeTime = seenTime;
            if (type >= RdbType.StreamListpacks3)
            {
                if (position + 8 > input.Length) return Refuse("a truncated active time");
                activeTime = BinaryPrimitives.ReadInt64LittleEndian(input[position..]);
                position += 8;
            }
            var consumer = new StreamConsumer(consumerName, seenTime) { ActiveTime = activeTime };
            if (!group.Consumers.TryAdd(consumerName, consumer)) return Refuse("a duplicated consumer");
            if (!TryCount(input, ref position, out int owned)) return false;
            for (int i = 0; i < owned; i++)
            {
                if (!TryRawId(input, ref position, out var id)) return false;
                if (!group.Pel.TryGetValue(id, out var nack)) return Refuse("a consumer entry not in the group's pending list");
                if (nack.Consumer != null || !consumer.Pel.TryAdd(id, nack)) return Refuse("a pending entry owned twice");
                nack.Consumer = consumer;
            }
        }
        for (var cursor = group.Pel.Seek(StreamId.Min); cursor.MoveNext();)
            if (cursor.Value.Consumer == null) return Refuse("a pending entry with no consumer");
        return true;
    }

    private static bool TryRawId(ReadOnlySpan<byte> input, ref int position, out StreamId id)
    {
        id = default;
        if (position + 16 > input.Length) return Refuse("a truncated stream ID");
        id = new StreamId(BinaryPrimitives.ReadUInt64BigEndian(input[position..]), BinaryPrimitives.ReadUInt64BigEndian(input[(position + 8)..]));
        position += 16;
        return true;
    }

    private const int FlagDeleted = 1, FlagSameFields = 2;

    /// <summary>
    /// Checks a node's listpack is a stream node: the master entry (live and deleted counts, the
    /// master fields, a 0), then entries of flags, ID differences, fields or values per the
    /// SAMEFIELDS flag, and an element count matching its length; IDs strictly ascending, above
    /// the previous node's and not below the master's; the counts matching the entries.
    /// </summary>
    private static bool TryValidateNode(byte[] lp, List<PackedFormats.Element> e, StreamId master,
        ref StreamId previous, ref bool any, out long liveCount)
    {
        liveCount = 0;
        int i = 0;
        bool Int(out long v)
        {
            v = 0;
            if (i >= e.Count || !e[i].IsInt) return false;
            v = e[i++].Int;
            return true;
        }
        if (any && master <= previous) return false;
        if (!Int(out long live) || !Int(out long deleted) || !Int(out long masterFields)) return false;
        if (live < 0 || deleted < 0 || masterFields < 0 || masterFields > e.Count) return false;
        i += (int)masterFields;
        if (!Int(out long terminator) || terminator != 0) return false;
        long seenLive = 0, seenDeleted = 0;
        while (i < e.Count)
        {
            if (!Int(out long flags) || (flags & ~(FlagDeleted | FlagSameFields)) != 0) return false;
            if (!Int(out long msDiff) || !Int(out long seqDiff)) return false;
            var id = new StreamId(master.Ms + unchecked((ulong)msDiff), master.Seq + unchecked((ulong)seqDiff));
            if (id < master || (any && id <= previous)) return false;
            previous = id;
            any = true;
            long elements;
            if ((flags & FlagSameFields) != 0)
            {
                elements = masterFields;
            }
            else
            {
                if (!Int(out long fields) || fields < 0 || fields > e.Count) return false;
                elements = fields * 2;
            }
            if (elements > e.Count - i) return false;
            i += (int)elements;
            long expectedCount = (flags & FlagSameFields) != 0 ? masterFields + 3 : elements + 4;
            if (!Int(out long lpCount) || lpCount != expectedCount) return false;
            if ((flags & FlagDeleted) != 0) seenDeleted++;
            else seenLive++;
        }
        if (seenLive != live || seenDeleted != deleted) return false;
        liveCount = live;
        return true;
    }
}
