using System.Buffers.Binary;
using System.Security.Cryptography;
using RedisClone.Common;

namespace RedisClone.Storage;

/// <summary>
/// The 20-byte fingerprints DEBUG DIGEST and DEBUG DIGEST-VALUE print, computed as Redis computes
/// them so that the same data gives the same hex on either server.
/// </summary>
/// <remarks>
/// Two SHA1-based steps build everything. <see cref="Xor"/> folds SHA1(data) into a digest with
/// XOR, so the order of the folded items does not matter: set members, hash fields and sorted set
/// members are folded this way, and so are whole keys into the dataset's digest. <see cref="Mix"/>
/// does the same and then replaces the digest by its own SHA1, so order matters and "ab","c"
/// differs from "a","bc": a key's name, its type, a string's bytes and list elements are mixed.
/// A value's digest is: its Redis type number (4 bytes, big-endian) mixed, then its contents,
/// then "!!expire!!" folded in when the key has a TTL (the time itself is not part of it).
/// Integers are digested as their decimal text, as Redis decodes its integer encodings first, and
/// sorted set scores as Redis 7.2 prints them (<see cref="RedisNumbers.FormatDoubleShortest"/>).
/// </remarks>
internal static class ValueDigest
{
    public const int Size = 20;

    // Redis's object type numbers (OBJ_STRING ... OBJ_HASH), part of every value's digest.
    private const uint StringType = 0, ListType = 1, SetType = 2, SortedSetType = 3, HashType = 4, StreamType = 6;

    /// <summary>Digest ^= SHA1(data).</summary>
    public static void Xor(Span<byte> digest, ReadOnlySpan<byte> data)
    {
        Span<byte> hash = stackalloc byte[Size];
        SHA1.HashData(data, hash);
        for (int i = 0; i < Size; i++) digest[i] ^= hash[i];
    }

    /// <summary>Digest = SHA1(digest ^ SHA1(data)): order-sensitive.</summary>
    public static void Mix(Span<byte> digest, ReadOnlySpan<byte> data)
    {
        Xor(digest, data);
        Span<byte> copy = stackalloc byte[Size];
        digest.Slice(0, Size).CopyTo(copy);
        SHA1.HashData(copy, digest);
    }

    /// <summary>Mixes a database number or type number in as Redis does: 4 bytes, network order.</summary>
    public static void MixNumber(Span<byte> digest, uint number)
    {
        Span<byte> bytes = stackalloc byte[4];
        BinaryPrimitives.WriteUInt32BigEndian(bytes, number);
        Mix(digest, bytes);
    }

    /// <summary>
    /// Adds one value's digest to <paramref name="digest"/> (which it does not clear first): what
    /// DEBUG DIGEST-VALUE prints for a key, and what follows the key's name in DEBUG DIGEST.
    /// </summary>
    public static void AddValue(Span<byte> digest, in KeyTable.Entry entry)
    {
        Span<byte> scratch = stackalloc byte[32];
        Span<byte> element = stackalloc byte[Size];
        object value = entry.Value;
        switch (value)
        {
            case EmbeddedString or byte[] or GrowableString:
                StringValue.TryGet(in entry, out var bytes);
                MixNumber(digest, StringType);
                Mix(digest, bytes);
                break;
            case long n:
                MixNumber(digest, StringType);
                Mix(digest, scratch.Slice(0, RedisNumbers.FormatInt64(n, scratch)));
                break;
            case RedisList list:
                MixNumber(digest, ListType);
                if (list.Count == 0) break;
                // Head to tail: the order is part of a list.
                for (var cursor = list.At(0); cursor.Valid; cursor.MoveNext()) Mix(digest, cursor.Text(scratch));
                break;
            case RedisSet set:
            {
                MixNumber(digest, SetType);
                int position = 0;
                Span<byte> memberScratch = stackalloc byte[RedisSet.ScratchSize];
                while (set.Next(ref position, memberScratch, out var member)) Xor(digest, member);
                break;
            }
            case RedisSortedSet zset:
            {
                MixNumber(digest, SortedSetType);
                if (zset.Count == 0) break;
                Span<byte> memberScratch = stackalloc byte[RedisSortedSet.ScratchSize];
                var cursor = zset.First;
                do
                {
                    element.Clear();
                    Mix(element, zset.MemberAt(cursor, memberScratch));
                    Mix(element, scratch.Slice(0, RedisNumbers.FormatDoubleShortest(zset.ScoreAt(cursor), scratch)));
                    Xor(digest, element);
                } while (zset.MoveNext(ref cursor));
                break;
            }
            case RedisHash hash:
                MixNumber(digest, HashType);
                for (int pos = hash.FirstPosition(); pos >= 0; pos = hash.NextPosition(pos))
                {
                    element.Clear();
                    Mix(element, hash.FieldAt(pos));
                    Mix(element, hash.ValueAt(pos));
                    Xor(digest, element);
                }
                break;
            case RedisStream stream:
            {
                // Entry by entry, oldest first: "ms.seq" (a dot, as Redis writes it here), then each field and value.
                MixNumber(digest, StreamType);
                Span<byte> id = stackalloc byte[StreamId.MaxTextLength];
                var cursor = stream.Seek(StreamId.Min, StreamId.Max, reverse: false);
                while (stream.MoveNext(ref cursor))
                {
                    int n = cursor.Id.Format(id);
                    id[id.Slice(0, n).IndexOf((byte)'-')] = (byte)'.';
                    Mix(digest, id.Slice(0, n));
                    for (long f = 0; f < cursor.FieldCount; f++)
                    {
                        RedisStream.NextPair(ref cursor, out var field, out var fieldValue);
                        Mix(digest, ElementText(cursor.Lp, field, scratch));
                        Mix(digest, ElementText(cursor.Lp, fieldValue, scratch));
                    }
                }
                break;
            }
            default:
                throw new InvalidOperationException($"no digest for a value of type {value.GetType().Name}");
        }
        if (entry.HasTtl) Xor(digest, "!!expire!!"u8);
    }

    private static ReadOnlySpan<byte> ElementText(byte[] lp, ListpackValue v, Span<byte> scratch)
        => v.IsInt ? scratch.Slice(0, RedisNumbers.FormatInt64(v.Int, scratch)) : lp.AsSpan(v.Start, v.Length);

    /// <summary>One key's share of the dataset digest: its name mixed, then its value.</summary>
    public static void AddKey(Span<byte> digest, in KeyTable.Entry entry)
    {
        Mix(digest, entry.Key);
        AddValue(digest, in entry);
    }
}
