using System.Text;
using BenchmarkDotNet.Attributes;
using RedisClone.Storage;

namespace RedisClone.Benchmarks;

/// <summary>
/// The keyspace lookup a GET or SET starts with (Database.FindLiveNoTouch: the key table's Find and the
/// expiry check) over 1M keys of 16 bytes holding 32-byte strings, as bench/memtier/memory.py loads
/// them, picked in a scattered order so the table does not sit in the cache. With <see cref="Ttl"/>
/// every key has a TTL (far in the future): the cost of the expiry check on a key that has one.
/// Allocation per lookup must be zero.
/// </summary>
[MemoryDiagnoser]
public class KeyTableBenchmarks
{
    private const int Keys = 1_000_000, Lookups = 4096;
    private Database _db = null!;
    private byte[][] _probe = null!;
    private long _now;

    [Params(false, true)]
    public bool Ttl { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _db = new ShardStore(1)[0];
        _now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        var value = Encoding.ASCII.GetBytes(new string('v', 32));
        for (int i = 0; i < Keys; i++)
            _db.AddString(Encoding.ASCII.GetBytes($"key:{i:D12}"), value, Ttl ? _now + 3_600_000 : 0);
        _probe = new byte[Lookups][];
        for (int i = 0; i < Lookups; i++) _probe[i] = Encoding.ASCII.GetBytes($"key:{(int)((uint)i * 2654435761u % Keys):D12}");
    }

    [Benchmark(OperationsPerInvoke = Lookups, Description = "FindLiveNoTouch, 1M keys")]
    public int Find()
    {
        int sum = 0;
        var probe = _probe;
        for (int i = 0; i < probe.Length; i++) sum += _db.FindLiveNoTouch(probe[i], _now);
        return sum;
    }
}
