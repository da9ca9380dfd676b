using System.Text;
using RedisClone.Storage;

namespace RedisClone.Tests.Server;

/// <summary>
/// What a small hash, set or sorted set costs besides its packed bytes (the shapes of
/// bench/memtier/memory.py --shape small: 15 short fields or members): one object of at most 56
/// bytes (header, the memory meter's two fields, the encoding's) and one array. On 100,000 keys
/// every 8 bytes here is 0.5 B per element.
/// </summary>
public class CollectionOverheadTests
{
    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);

    private const long ObjectMax = 56;

    [Fact]
    public void SmallIntset_ObjectAndArray_AtMost56BytesBesidesItsIntegers()
    {
        var set = RedisSet.Create(B("1"), 15, RedisSet.Limits.Default);
        for (int i = 0; i < 15; i++) set.Add(B((i * 7 + 1).ToString()), RedisSet.Limits.Default);
        set.TrimExcess();
        Assert.Equal("intset", set.Encoding);
        Assert.True(set.AllocatedBytes() <= ObjectMax + MemoryMeter.ArrayBytes(15 * 2), $"{set.AllocatedBytes()} bytes");
    }

    [Fact]
    public void EmptyHash_Object_AtMost56Bytes()
    {
        var hash = new RedisHash();
        Assert.True(hash.AllocatedBytes() <= ObjectMax, $"{hash.AllocatedBytes()} bytes");
        for (int i = 0; i < 15; i++) hash.Set(B("f:" + i), B("v:" + i), 128, 64);
        Assert.Equal("listpack", hash.Encoding);
    }

    [Fact]
    public void EmptySortedSet_ObjectAndArray_AtMost56BytesBesidesItsEntries()
    {
        var zset = RedisSortedSet.Create(B("m:0"), RedisSortedSet.Limits.Default);
        for (int i = 0; i < 15; i++) zset.Add(B("m:" + i), i, RedisSortedSet.AddFlags.None, RedisSortedSet.Limits.Default, out _);
        Assert.Equal("listpack", zset.Encoding);
        var empty = RedisSortedSet.Create(B("m:0"), RedisSortedSet.Limits.Default);
        Assert.True(empty.AllocatedBytes() <= ObjectMax + MemoryMeter.ArrayBytes(0), $"{empty.AllocatedBytes()} bytes");
    }

    [Fact]
    public void EmptySet_Object_Is48BytesAsCharged()
    {
        // The encoding lives in the storage's type and _used's sign, not in fields of its own: the
        // smallest object MeteredValue's two fields and the storage, count and length allow.
        var sets = new RedisSet[100];
        sets[0] = RedisSet.CreateIntset(); // compiled before counting
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < sets.Length; i++) sets[i] = RedisSet.CreateIntset();
        long perObject = (GC.GetAllocatedBytesForCurrentThread() - before) / sets.Length;
        Assert.Equal(48, perObject);
        // Its estimate is that object and its (shared, empty) array's size.
        Assert.Equal(perObject + MemoryMeter.ArrayBytes(0), sets[0].AllocatedBytes());
        GC.KeepAlive(sets);
    }

    [Fact]
    public void EmptyHash_Object_Is48BytesAsCharged()
    {
        // The packed bytes and the table share one field.
        var hashes = new RedisHash[100];
        hashes[0] = new RedisHash(); // compiled before counting
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < hashes.Length; i++) hashes[i] = new RedisHash();
        long perObject = (GC.GetAllocatedBytesForCurrentThread() - before) / hashes.Length;
        Assert.Equal(48, perObject);
        Assert.Equal(perObject, hashes[0].AllocatedBytes());
        GC.KeepAlive(hashes);
    }

    [Fact]
    public void SmallHash_ConvertedToTable_KeepsFieldsAndDropsPackedBytes()
    {
        // The table replaces the packed bytes in the one field: nothing of the packed form may be read after.
        var hash = new RedisHash();
        for (int i = 0; i < 20; i++) hash.Set(B("f:" + i), B("v:" + i), 128, 64);
        Assert.Equal("listpack", hash.Encoding);
        long packed = hash.AllocatedBytes();
        hash.Set(B("f:long"), B(new string('x', 65)), 128, 64);
        Assert.Equal("hashtable", hash.Encoding);
        Assert.Equal(21, hash.Count);
        for (int i = 0; i < 20; i++)
        {
            Assert.True(hash.TryGet(B("f:" + i), out var v));
            Assert.Equal("v:" + i, Encoding.ASCII.GetString(v));
        }
        Assert.True(hash.AllocatedBytes() > packed);
        var copy = (RedisHash)hash.DeepCopy();
        Assert.Equal(21, copy.Count);
        Assert.Equal("hashtable", copy.Encoding);
    }
}
