using System.Buffers;
using System.Buffers.Binary;
using RedisClone.Common;
using RedisClone.Storage;

namespace RedisClone.Persistence;

/// <summary>
/// Writes one stored value as an RDB value (its type byte, then its body), the way Redis 7.0's
/// rdbSaveObjectType and rdbSaveObject write it, for DUMP payloads and RDB files.
/// </summary>
/// <remarks>
/// <para>Small hashes and sorted sets are written as Redis's listpack blobs and lists as a quicklist
/// of listpacks, so a value reads back in the same compact encoding on either server. The stored
/// forms here are not always Redis's bytes (hashes and sorted sets keep their own packed layouts),
/// so those listpacks are built on the fly; list and stream nodes already are Redis's listpacks and
/// are written as they are.</para>
/// <para>Sets that are not intsets are written as plain sets (type 2), whatever their encoding
/// here: the listpack set type (20) exists only from RDB version 11, which Redis 7.0 refuses.</para>
/// </remarks>
internal static class RdbValueWriter
{
    /// <summary>
    /// Writes the value of <paramref name="entry"/> (its type byte, then, in an RDB file, the key when
    /// <paramref name="withKey"/>, then its body); false for a value of no known type.
    /// </summary>
    public static bool Write(IBufferWriter<byte> output, in KeyTable.Entry entry, bool compress, bool withKey = false)
    {
        ReadOnlySpan<byte> key = withKey ? entry.Key : default;
        if (StringValue.TryGet(in entry, out var bytes))
        {
            WriteType(output, RdbType.String, key, withKey, compress);
            RdbString.Write(output, bytes, compress);
            return true;
        }
        switch (entry.Value)
        {
            case long integer:
                WriteType(output, RdbType.String, key, withKey, compress);
                Span<byte> text = stackalloc byte[20];
                RdbString.Write(output, text[..RedisNumbers.FormatInt64(integer, text)], compress);
                return true;
            case RedisList list:
                WriteList(output, list, compress, key, withKey);
                return true;
            case RedisSet set:
                WriteSet(output, set, compress, key, withKey);
                return true;
            case RedisSortedSet zset:
                WriteSortedSet(output, zset, compress, key, withKey);
                return true;
            case RedisHash hash:
                WriteHash(output, hash, compress, key, withKey);
                return true;
            case RedisStream stream:
                WriteStream(output, stream, compress, key, withKey);
                return true;
            default:
                return false;
        }
    }

    /// <summary>The type byte, and in an RDB file the key after it.</summary>
    private static void WriteType(IBufferWriter<byte> output, byte type, ReadOnlySpan<byte> key, bool withKey, bool compress)
    {
        output.GetSpan(1)[0] = type;
        output.Advance(1);
        if (withKey) RdbString.Write(output, key, compress);
    }

    private static void WriteLength(IBufferWriter<byte> output, long length) => RdbString.WriteLength(output, (ulong)length);

    private static void WriteList(IBufferWriter<byte> output, RedisList list, bool compress, ReadOnlySpan<byte> key, bool withKey)
    {
        WriteType(output, RdbType.ListQuicklist2, key, withKey, compress);
        int packs = list.PackCount;
        WriteLength(output, packs);
        for (int i = 0; i < packs; i++)
        {
            var lp = list.PackAt(i);
            WriteLength(output, RdbType.ContainerPacked);
            RdbString.Write(output, lp.AsSpan(0, Listpack.Bytes(lp)), compress);
        }
    }

    private static void WriteSet(IBufferWriter<byte> output, RedisSet set, bool compress, ReadOnlySpan<byte> key, bool withKey)
    {
        Span<byte> scratch = stackalloc byte[RedisSet.ScratchSize];
        int count = set.Count;
        if (set.IsIntset)
        {
            // Redis's intset: encoding (bytes per integer) and length, both 32-bit little-endian,
            // then the integers in ascending order, little-endian at that width.
            int width = set.IntsetWidth;
            var blob = new byte[8 + count * width];
            BinaryPrimitives.WriteUInt32LittleEndian(blob, (uint)width);
            BinaryPrimitives.WriteUInt32LittleEndian(blob.AsSpan(4), (uint)count);
            for (int i = 0; i < count; i++)
            {
                long v = set.IntegerAt(i);
                var at = blob.AsSpan(8 + i * width);
                if (width == 2) BinaryPrimitives.WriteInt16LittleEndian(at, (short)v);
                else if (width == 4) BinaryPrimitives.WriteInt32LittleEndian(at, (int)v);
                else BinaryPrimitives.WriteInt64LittleEndian(at, v);
            }
            WriteType(output, RdbType.SetIntset, key, withKey, compress);
            RdbString.Write(output, blob, compress);
            return;
        }
        WriteType(output, RdbType.Set, key, withKey, compress);
        WriteLength(output, count);
        int position = 0;
        while (set.Next(ref position, scratch, out var member)) RdbString.Write(output, member, compress);
    }

    private static void WriteSortedSet(IBufferWriter<byte> output, RedisSortedSet zset, bool compress, ReadOnlySpan<byte> key, bool withKey)
    {
        Span<byte> scratch = stackalloc byte[RedisSortedSet.ScratchSize];
        if (zset.IsListpack)
        {
            // Member then score, in order; a score is the text Redis's d2string makes of it.
            var lp = Listpack.New();
            Span<byte> score = stackalloc byte[32];
            var c = zset.First;
            if (c.IsValid)
            {
                do
                {
                    Listpack.Append(ref lp, zset.MemberAt(c, scratch));
                    Listpack.Append(ref lp, score[..FormatScore(zset.ScoreAt(c), score)]);
                } while (zset.MoveNext(ref c));
            }
            WriteType(output, RdbType.ZsetListpack, key, withKey, compress);
            RdbString.Write(output, lp.AsSpan(0, Listpack.Bytes(lp)), compress);
            return;
        }
        // Greatest first, as Redis saves its skiplist from the tail, scores as binary doubles.
        WriteType(output, RdbType.Zset2, key, withKey, compress);
        WriteLength(output, zset.Count);
        var last = zset.Last;
        if (!last.IsValid) return;
        do
        {
            RdbString.Write(output, zset.MemberAt(last, scratch), compress);
            BinaryPrimitives.WriteDoubleLittleEndian(output.GetSpan(8), zset.ScoreAt(last));
            output.Advance(8);
        } while (zset.MovePrevious(ref last));
    }

    /// <summary>
    /// Redis 7.2's d2string, the text a sorted set listpack holds for a score: an integral value
    /// within 64 bits as an integer, anything else in the shortest form that reads back the same.
    /// </summary>
    internal static int FormatScore(double score, Span<byte> dest)
    {
        if (score == 0) return RedisNumbers.FormatDoubleShortest(score, dest);
        if (score > -9.2233720368547758E18 && score < 9.2233720368547758E18 && score == Math.Floor(score))
            return RedisNumbers.FormatInt64((long)score, dest);
        return RedisNumbers.FormatDoubleShortest(score, dest);
    }

    private static void WriteHash(IBufferWriter<byte> output, RedisHash hash, bool compress, ReadOnlySpan<byte> key, bool withKey)
    {
        // A hash with field TTLs takes Redis 7.4+'s types (24, 25), with the soonest TTL first; one
        // without keeps the types every Redis reads, so its files still load on 7.0.
        bool ttls = hash.HasFieldTtls;
        long minExpire = hash.MinExpiry;
        if (hash.IsPacked)
        {
            var lp = Listpack.New();
            Span<byte> digits = stackalloc byte[20];
            for (int p = hash.FirstPosition(); p >= 0; p = hash.NextPosition(p))
            {
                Listpack.Append(ref lp, hash.FieldAt(p));
                Listpack.Append(ref lp, hash.ValueAt(p));
                if (ttls) Listpack.Append(ref lp, digits[..RedisNumbers.FormatInt64(hash.ExpiryAt(p), digits)]);
            }
            WriteType(output, ttls ? RdbType.HashListpackEx : RdbType.HashListpack, key, withKey, compress);
            if (ttls) WriteMilliseconds(output, minExpire);
            RdbString.Write(output, lp.AsSpan(0, Listpack.Bytes(lp)), compress);
            return;
        }
        WriteType(output, ttls ? RdbType.HashMetadata : RdbType.Hash, key, withKey, compress);
        if (ttls) WriteMilliseconds(output, minExpire);
        WriteLength(output, hash.Count);
        for (int p = hash.FirstPosition(); p >= 0; p = hash.NextPosition(p))
        {
            if (ttls)
            {
                long at = hash.ExpiryAt(p);
                WriteLength(output, at == 0 ? 0 : at - minExpire + 1);
            }
            RdbString.Write(output, hash.FieldAt(p), compress);
            RdbString.Write(output, hash.ValueAt(p), compress);
        }
    }

    private static void WriteMilliseconds(IBufferWriter<byte> output, long ms)
    {
        BinaryPrimitives.WriteInt64LittleEndian(output.GetSpan(8), ms);
        output.Advance(8);
    }

    private static void WriteStream(IBufferWriter<byte> output, RedisStream stream, bool compress, ReadOnlySpan<byte> key, bool withKey)
    {
        WriteType(output, RdbType.StreamListpacks2, key, withKey, compress);
        int nodes = stream.NodeCount;
        WriteLength(output, nodes);
        Span<byte> nodeKey = stackalloc byte[16];
        for (int i = 0; i < nodes; i++)
        {
            var master = stream.NodeMaster(i);
            BinaryPrimitives.WriteUInt64BigEndian(nodeKey, master.Ms);
            BinaryPrimitives.WriteUInt64BigEndian(nodeKey[8..], master.Seq);
            RdbString.Write(output, nodeKey, compress);
            RdbString.Write(output, stream.NodeListpack(i), compress);
        }
        WriteLength(output, stream.Length);
        WriteId(output, stream.LastId);
        WriteId(output, stream.FirstId);
        WriteId(output, stream.MaxDeletedId);
        WriteLength(output, stream.EntriesAdded);
        // Consumer groups in name order: last ID, entries-read (-1 as its 64-bit pattern, as Redis
        // writes it), the pending entries (raw big-endian ID, delivery time, delivery count), then
        // the consumers with their seen time and the IDs they own. Type 19 has no active time:
        // a 7.2 server reading it takes the seen time for it.
        WriteLength(output, stream.GroupCount);
        Span<byte> raw = stackalloc byte[16];
        for (int g = 0; g < stream.GroupCount; g++)
        {
            var group = stream.GroupAt(g);
            RdbString.Write(output, group.Name, compress);
            WriteId(output, group.LastId);
            RdbString.WriteLength(output, unchecked((ulong)group.EntriesRead));
            WriteLength(output, group.Pel.Count);
            for (var c = group.Pel.Seek(StreamId.Min); c.MoveNext();)
            {
                WriteRawId(output, c.Key, raw);
                BinaryPrimitives.WriteInt64LittleEndian(output.GetSpan(8), c.Value.DeliveryTime);
                output.Advance(8);
                WriteLength(output, c.Value.DeliveryCount);
            }
            WriteLength(output, group.Consumers.Count);
            for (int i = 0; i < group.Consumers.Count; i++)
            {
                var consumer = group.Consumers.ItemAt(i);
                RdbString.Write(output, consumer.Name, compress);
                BinaryPrimitives.WriteInt64LittleEndian(output.GetSpan(8), consumer.SeenTime);
                output.Advance(8);
                WriteLength(output, consumer.Pel.Count);
                for (var c = consumer.Pel.Seek(StreamId.Min); c.MoveNext();) WriteRawId(output, c.Key, raw);
            }
        }
    }

    private static void WriteRawId(IBufferWriter<byte> output, StreamId id, Span<byte> raw)
    {
        BinaryPrimitives.WriteUInt64BigEndian(raw, id.Ms);
        BinaryPrimitives.WriteUInt64BigEndian(raw[8..], id.Seq);
        output.Write(raw);
    }

    private static void WriteId(IBufferWriter<byte> output, StreamId id)
    {
        RdbString.WriteLength(output, id.Ms);
        RdbString.WriteLength(output, id.Seq);
    }
}
