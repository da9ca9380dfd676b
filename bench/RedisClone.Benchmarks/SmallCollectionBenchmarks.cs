using System.Text;
using BenchmarkDotNet.Attributes;
using RedisClone.Storage;

namespace RedisClone.Benchmarks;

/// <summary>
/// Small hashes and sets in their compact encodings (the shapes of bench/memtier/memory.py --shape
/// small: 15 fields "f:N" → "v:N", 15 integers, 15 short members), per operation: one built as
/// HSET/SADD builds it from one command (reserve, add each, trim), a lookup that hits, and HSET's
/// overwrite of a value. Issue 30: the value objects' fields shrank, so every access reads the
/// encoding from the storage's type.
/// </summary>
[MemoryDiagnoser]
public class SmallCollectionBenchmarks
{
    private const int Elements = 15;

    private byte[][] _fields = null!, _values = null!, _ints = null!, _members = null!;
    private long _encoded;
    private RedisHash _hash = null!;
    private RedisSet _intset = null!, _listpack = null!;
    private readonly byte[] _newValue = "v:77"u8.ToArray();

    [GlobalSetup]
    public void Setup()
    {
        _fields = Enumerable.Range(0, Elements).Select(i => Encoding.ASCII.GetBytes("f:" + i)).ToArray();
        _values = Enumerable.Range(0, Elements).Select(i => Encoding.ASCII.GetBytes("v:" + i)).ToArray();
        _ints = Enumerable.Range(0, Elements).Select(i => Encoding.ASCII.GetBytes((i * 7).ToString())).ToArray();
        _members = Enumerable.Range(0, Elements).Select(i => Encoding.ASCII.GetBytes("m:" + i)).ToArray();
        foreach (var f in _fields) _encoded += RedisHash.EncodedLength(f.Length);
        foreach (var v in _values) _encoded += RedisHash.EncodedLength(v.Length);
        _hash = NewHash();
        _intset = BuildSet(_ints);
        _listpack = BuildSet(_members);
    }

    [Benchmark(Description = "HSET 15 fields (new key)")]
    public object BuildHash() => NewHash();

    private RedisHash NewHash()
    {
        var hash = new RedisHash();
        hash.ReservePacked(_encoded);
        for (int i = 0; i < Elements; i++) hash.Set(_fields[i], _values[i], 128, 64);
        return hash;
    }

    [Benchmark(OperationsPerInvoke = Elements, Description = "HGET hit (15 fields)")]
    public int HashGet()
    {
        int n = 0;
        foreach (var f in _fields)
            if (_hash.TryGet(f, out var v)) n += v.Length;
        return n;
    }

    [Benchmark(OperationsPerInvoke = Elements, Description = "HSET overwrite (15 fields)")]
    public void HashOverwrite()
    {
        foreach (var f in _fields) _hash.Set(f, _newValue, 128, 64);
    }

    [Benchmark(Description = "SADD 15 integers (new key)")]
    public object BuildIntset() => BuildSet(_ints);

    [Benchmark(Description = "SADD 15 members (new key)")]
    public object BuildListpack() => BuildSet(_members);

    [Benchmark(OperationsPerInvoke = Elements, Description = "SISMEMBER hit (intset of 15)")]
    public int IntsetContains()
    {
        int n = 0;
        foreach (var m in _ints)
            if (_intset.Contains(m)) n++;
        return n;
    }

    [Benchmark(OperationsPerInvoke = Elements, Description = "SISMEMBER hit (listpack of 15)")]
    public int ListpackContains()
    {
        int n = 0;
        foreach (var m in _members)
            if (_listpack.Contains(m)) n++;
        return n;
    }

    private static RedisSet BuildSet(byte[][] members)
    {
        var limits = RedisSet.Limits.Default;
        var set = RedisSet.Create(members[0], members.Length, limits);
        foreach (var m in members) set.Add(m, limits);
        set.TrimExcess();
        return set;
    }
}
