using System.Text;
using BenchmarkDotNet.Attributes;
using RedisClone.Storage;

namespace RedisClone.Benchmarks;

/// <summary>
/// A set in its hashtable form (<see cref="MemberTable"/>: 100,000 members "m:N", the shape
/// bench/memtier/memory.py --type set --shape big loads, each an arena record), per operation:
/// SISMEMBER's lookup, and a member removed and added back (SREM + SADD), which frees and appends
/// arena records and now and then compacts the arena.
/// </summary>
[MemoryDiagnoser]
public class MemberTableBenchmarks
{
    private const int Members = 100_000;
    private const int Ops = 1024;

    private MemberTable _table = null!;
    private byte[][] _members = null!;

    [GlobalSetup]
    public void Setup()
    {
        _table = new MemberTable();
        for (int i = 0; i < Members; i++) _table.Add(Encoding.ASCII.GetBytes("m:" + i));
        var random = new Random(1);
        _members = new byte[Ops][];
        for (int i = 0; i < Ops; i++) _members[i] = Encoding.ASCII.GetBytes("m:" + random.Next(Members));
    }

    [Benchmark(OperationsPerInvoke = Ops, Description = "SISMEMBER hit")]
    public int Contains()
    {
        int n = 0;
        foreach (var m in _members)
            if (_table.Contains(m)) n++;
        return n;
    }

    [Benchmark(OperationsPerInvoke = Ops, Description = "SREM + SADD")]
    public void RemoveAndAdd()
    {
        foreach (var m in _members)
        {
            _table.Remove(m);
            _table.Add(m);
        }
    }
}
