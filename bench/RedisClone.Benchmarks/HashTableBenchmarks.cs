using System.Text;
using BenchmarkDotNet.Attributes;
using RedisClone.Storage;

namespace RedisClone.Benchmarks;

/// <summary>
/// A hash in its hashtable form (100,000 fields "f:N" → "v:N", the shape bench/memtier/memory.py
/// --type hash --shape big loads), per operation: HGET's lookup, HSET's overwrite of a value with
/// one of the same length and of another length, and a field removed and added back (HDEL + HSET).
/// </summary>
[MemoryDiagnoser]
public class HashTableBenchmarks
{
    private const int Fields = 100_000;
    private const int Ops = 1024;

    private RedisHash _hash = null!;
    private byte[][] _fields = null!;
    private readonly byte[] _same = "v:99999"u8.ToArray(), _longer = "value:999999"u8.ToArray(), _shorter = "v:9"u8.ToArray();

    [GlobalSetup]
    public void Setup()
    {
        _hash = new RedisHash();
        for (int i = 0; i < Fields; i++) _hash.Set(Encoding.ASCII.GetBytes("f:" + i), Encoding.ASCII.GetBytes("v:" + i), 0, 64);
        var random = new Random(1);
        _fields = new byte[Ops][];
        for (int i = 0; i < Ops; i++) _fields[i] = Encoding.ASCII.GetBytes("f:" + random.Next(Fields));
    }

    [Benchmark(OperationsPerInvoke = Ops, Description = "HGET hit")]
    public int Get()
    {
        int n = 0;
        foreach (var f in _fields)
            if (_hash.TryGet(f, out var v)) n += v.Length;
        return n;
    }

    [Benchmark(OperationsPerInvoke = Ops, Description = "HSET same length")]
    public void SetSameLength()
    {
        foreach (var f in _fields) _hash.Set(f, _same, 0, 64);
    }

    [Benchmark(OperationsPerInvoke = Ops, Description = "HSET other length")]
    public void SetOtherLength()
    {
        var fields = _fields;
        for (int i = 0; i < fields.Length; i++) _hash.Set(fields[i], (i & 1) == 0 ? _longer : _shorter, 0, 64);
    }

    [Benchmark(OperationsPerInvoke = Ops, Description = "HDEL + HSET")]
    public void DeleteAndAdd()
    {
        foreach (var f in _fields)
        {
            _hash.Delete(f);
            _hash.Set(f, _same, 0, 64);
        }
    }
}
