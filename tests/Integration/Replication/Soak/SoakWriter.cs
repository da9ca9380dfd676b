using System.Collections.Concurrent;
using System.Net;
using RedisClone.Tests.Infrastructure;
using static RedisClone.Tests.Replication.Soak.SoakResp;

namespace RedisClone.Tests.Replication.Soak;

/// <summary>
/// Writes streaming into a master on a thread of its own, in pipelines of a few dozen commands,
/// until stopped: every type's writes on the dataset's keys (so on every encoding), TTLs set and
/// removed, keys that expire within milliseconds and are then read (lazy expiry), scripts that write
/// several keys or use RANDOMKEY, TIME and SPOP (non-deterministic: replicated as effects),
/// MULTI/EXEC blocks that switch databases, INCRBYFLOAT, stream consumer-group traffic (XREADGROUP,
/// XCLAIM, XAUTOCLAIM), filler keys that push a master with maxmemory into evicting, and pushes
/// that a <see cref="SoakBlocker"/> is waiting for.
/// </summary>
internal sealed class SoakWriter
{
    private const string MultiKeyScript =
        "redis.call('incr', KEYS[1]); redis.call('rpush', KEYS[2], ARGV[1]); redis.call('hset', KEYS[3], 'f', ARGV[1]); " +
        "redis.call('pexpire', KEYS[2], ARGV[2]); return redis.call('llen', KEYS[2])";

    private const string RandomScript =
        "local k = redis.call('randomkey'); if k then redis.call('set', KEYS[1], k) end; " +
        "local t = redis.call('time'); redis.call('hset', KEYS[2], 'sec', t[1], 'usec', t[2]); " +
        "if redis.call('exists', KEYS[3]) == 1 then redis.call('incr', KEYS[4]) else redis.call('set', KEYS[3], 'back', 'px', ARGV[1]) end; " +
        "redis.call('spop', KEYS[5]); return 1";

    private const string FloatScript =
        "redis.call('incrbyfloat', KEYS[1], ARGV[1]); redis.call('hincrbyfloat', KEYS[2], 'flt', ARGV[1]); " +
        "return redis.call('zincrby', KEYS[3], ARGV[1], 'zz')";

    private const string DumpRestoreScript =
        "local d = redis.call('dump', KEYS[1]); if not d then return 0 end; " +
        "if ARGV[1] == '0' then redis.call('restore', KEYS[2], 0, d) else redis.call('restore', KEYS[2], ARGV[1], d, 'ABSTTL') end; return 1";

    private readonly IPEndPoint _master;
    private readonly SoakDataset _data;
    private readonly Random _rng;
    private readonly string _tag;
    private readonly Thread _thread;
    private volatile bool _stop;
    private Exception? _failure;
    private int _db;
    private long _serial;

    /// <summary>Error replies by their first words (WRONGTYPE and the like are expected: keys change type as the soak renames them).</summary>
    public ConcurrentDictionary<string, int> Errors { get; } = new();

    public long Commands;

    public SoakWriter(IPEndPoint master, SoakDataset data, int seed)
    {
        _master = master;
        _data = data;
        _rng = new Random(seed);
        _tag = "w" + seed;
        _thread = new Thread(Run) { IsBackground = true, Name = "soak-writer-" + seed };
    }

    public void Start() => _thread.Start();

    /// <summary>Stops the writer and waits for its last pipeline's replies; rethrows what it failed with.</summary>
    public void Stop()
    {
        _stop = true;
        if (!_thread.Join(TimeSpan.FromSeconds(120))) throw new TimeoutException("the soak writer did not stop in 120 s");
        if (_failure != null) throw new InvalidOperationException("the soak writer failed", _failure);
    }

    private void Run()
    {
        try
        {
            using var client = new RespClient(_master, 60_000);
            var batch = new List<byte[][]>();
            var replies = new List<object?>();
            while (!_stop)
            {
                batch.Clear();
                for (int n = 0; n < 40; n++) AddOperation(batch);
                replies = PipelineParsed(client, batch);
                Interlocked.Add(ref Commands, batch.Count);
                foreach (var r in replies)
                    if (r is SoakError e) Errors.AddOrUpdate(FirstWords(e.Text), 1, (_, c) => c + 1);
                    else if (r is List<object?> list)
                        foreach (var item in list)
                            if (item is SoakError inner) Errors.AddOrUpdate("in EXEC: " + FirstWords(inner.Text), 1, (_, c) => c + 1);
            }
        }
        catch (Exception ex)
        {
            _failure = ex;
        }
    }

    private static string FirstWords(string text)
    {
        // The kind of error, without the key names some carry ("NOGROUP No such key 'k' or consumer group ...").
        var words = text.Split(' ').TakeWhile(w => !w.Contains('\'')).Take(5);
        return string.Join(' ', words);
    }

    /// <summary>Errors that mean the soak itself sent something wrong (not the expected WRONGTYPE and friends).</summary>
    public IEnumerable<string> UnexpectedErrors()
        => Errors.Keys.Where(e => e.Contains("syntax", StringComparison.OrdinalIgnoreCase)
                                  || e.Contains("unknown", StringComparison.OrdinalIgnoreCase)
                                  || e.Contains("wrong number", StringComparison.OrdinalIgnoreCase)
                                  || e.Contains("OOM", StringComparison.Ordinal)
                                  || e.Contains("READONLY", StringComparison.Ordinal));

    private void Select(List<byte[][]> batch, int db)
    {
        if (_db == db) return;
        batch.Add(Cmd("SELECT", db.ToString()));
        _db = db;
    }

    private string Fresh(string what) => $"soak:{what}:{_tag}:{++_serial}";

    /// <summary>Another dataset key in the same database as <paramref name="i"/>.</summary>
    private int Sibling(int i) => (i + _data.Databases * _rng.Next(1, 50)) % _data.Keys;

    private void AddOperation(List<byte[][]> batch)
    {
        int roll = _rng.Next(100);
        if (roll < 55)
        {
            int i = _rng.Next(_data.Keys);
            Select(batch, _data.DbOf(i));
            AddTypedWrite(batch, i);
            return;
        }
        if (roll < 63) { AddKeyspaceWrite(batch); return; }
        if (roll < 72) { AddExpiring(batch); return; }
        if (roll < 80) { AddFiller(batch); return; }
        if (roll < 86) { AddTransaction(batch); return; }
        if (roll < 94) { AddScript(batch); return; }
        // Pushes the blocker waits for (database 0).
        Select(batch, 0);
        switch (_rng.Next(3))
        {
            case 0: batch.Add(Cmd("RPUSH", $"soak:bq:{_rng.Next(3)}", "job-" + _serial++)); break;
            case 1: batch.Add(Cmd("ZADD", "soak:bz:0", _rng.Next(100).ToString(), "job-" + _serial++)); break;
            default: batch.Add(Cmd("LPUSH", "soak:bq:2", "moved-" + _serial++)); break;
        }
    }

    /// <summary>A write fitting the type key <paramref name="i"/> was loaded with.</summary>
    private void AddTypedWrite(List<byte[][]> batch, int i)
    {
        string k = SoakDataset.Name(i);
        string other = SoakDataset.Name(Sibling(i));
        int r = _rng.Next(8);
        switch (SoakDataset.KindOf(i))
        {
            case SoakKind.StrRaw or SoakKind.StrBig or SoakKind.StrBinary:
                batch.Add(r switch
                {
                    0 => Cmd("APPEND", k, "+app"),
                    1 => Cmd("SETRANGE", k, _rng.Next(0, 40).ToString(), "range"),
                    2 => Cmd("SET", k, "new-" + _serial++, "KEEPTTL"),
                    3 => Cmd("GETSET", k, "gs-" + _serial++),
                    4 => Cmd("GETEX", k, "PX", _rng.Next(500, 5000).ToString()),
                    5 => Cmd("SETNX", k, "nx"),
                    6 => Cmd("MSET", k, "m1", other, "m2"),
                    _ => Cmd("GETDEL", k),
                });
                break;
            case SoakKind.StrInt:
                batch.Add(r switch
                {
                    0 or 1 => Cmd("INCRBY", k, _rng.Next(-1000, 1000).ToString()),
                    2 => Cmd("INCRBYFLOAT", k, (_rng.NextDouble() * 10 - 5).ToString("R")),
                    3 => Cmd("DECR", k),
                    4 => Cmd("SET", k, _rng.Next().ToString(), "PX", _rng.Next(100, 3000).ToString()),
                    5 => Cmd("INCR", k),
                    6 => Cmd("GETEX", k, "PERSIST"),
                    _ => Cmd("SET", k, _rng.Next(-10, 10).ToString(), "KEEPTTL"),
                });
                break;
            case SoakKind.ListSmall or SoakKind.ListBig:
                batch.Add(r switch
                {
                    0 => Cmd("LPUSH", k, "l-" + _serial++, "l2"),
                    1 => Cmd("RPOP", k, _rng.Next(1, 3).ToString()),
                    2 => Cmd("LSET", k, "0", "set-" + _serial++),
                    3 => Cmd("LTRIM", k, "0", _rng.Next(5, 300).ToString()),
                    4 => Cmd("LINSERT", k, "BEFORE", "l2", "ins"),
                    5 => Cmd("LMOVE", k, other, "LEFT", "RIGHT"),
                    6 => Cmd("LREM", k, "1", "l2"),
                    _ => Cmd("RPUSHX", k, new string('x', _rng.Next(1, 100))),
                });
                break;
            case SoakKind.HashSmall or SoakKind.HashBig:
                batch.Add(r switch
                {
                    0 or 1 => Cmd("HSET", k, "f" + _rng.Next(30), "h-" + _serial++),
                    2 => Cmd("HDEL", k, "f" + _rng.Next(30), "field-" + _rng.Next(300)),
                    3 => Cmd("HINCRBY", k, "cnt", _rng.Next(-100, 100).ToString()),
                    4 => Cmd("HINCRBYFLOAT", k, "flt", (_rng.NextDouble() * 3).ToString("R")),
                    5 => Cmd("HSETNX", k, "nx" + _rng.Next(5), "v"),
                    6 => Cmd("HSET", k, "big", new string('h', _rng.Next(60, 200))),
                    _ => Cmd("HMSET", k, "a", "1", "b", "2"),
                });
                break;
            case SoakKind.SetInt or SoakKind.SetSmall or SoakKind.SetBig:
                batch.Add(r switch
                {
                    0 => Cmd("SADD", k, _rng.Next(-1000, 1000).ToString()),
                    1 => Cmd("SADD", k, "s-" + _serial++),
                    2 => Cmd("SREM", k, _rng.Next(-1000, 1000).ToString(), "m1-1"),
                    3 => Cmd("SPOP", k),
                    4 => Cmd("SPOP", k, _rng.Next(1, 4).ToString()),
                    5 => Cmd("SMOVE", k, other, "m0-1"),
                    6 => Cmd("SINTERSTORE", Fresh("inter"), k, other),
                    _ => Cmd("SUNIONSTORE", Fresh("union"), k, other),
                });
                break;
            case SoakKind.ZsetSmall or SoakKind.ZsetBig or SoakKind.Geo:
                batch.Add(r switch
                {
                    0 => Cmd("ZADD", k, _rng.Next(-100, 100).ToString(), "z-" + _serial++),
                    1 => Cmd("ZINCRBY", k, (_rng.NextDouble() * 2).ToString("R"), "z1"),
                    2 => Cmd("ZREM", k, "z2", "place-0"),
                    3 => Cmd("ZPOPMIN", k),
                    4 => Cmd("ZPOPMAX", k, "2"),
                    5 => Cmd("ZRANGESTORE", Fresh("zrs"), k, "0", "5"),
                    6 => Cmd("GEOADD", k, "13.361389", "38.115556", "palermo-" + _rng.Next(5)),
                    _ => Cmd("ZUNIONSTORE", Fresh("zu"), "2", k, other, "WEIGHTS", "1", "2"),
                });
                break;
            case SoakKind.Stream:
                batch.Add(r switch
                {
                    0 or 1 => Cmd("XADD", k, "MAXLEN", "~", "40", "*", "w", "x-" + _serial++),
                    2 => Cmd("XREADGROUP", "GROUP", "g1", "carol", "COUNT", "2", "STREAMS", k, ">"),
                    3 => Cmd("XACK", k, "g1", "2-0", "2-1", "3-0"),
                    4 => Cmd("XCLAIM", k, "g1", "dave", "0", "1-1", "2-0", "2-2"),
                    5 => Cmd("XAUTOCLAIM", k, "g1", "erin", "0", "0-0", "COUNT", "2"),
                    6 => Cmd("XTRIM", k, "MAXLEN", "30"),
                    _ => Cmd("XADD", k, "*", "only", "one"),
                });
                break;
            case SoakKind.HllSparse or SoakKind.HllDense:
                batch.Add(r switch
                {
                    < 4 => Cmd("PFADD", k, "p-" + _serial++, "p-" + _rng.Next(1000)),
                    4 => Cmd("PFCOUNT", k),
                    5 => Cmd("PFMERGE", Fresh("pfm"), k),
                    _ => Cmd("PFADD", k, "again"),
                });
                break;
            case SoakKind.Bitmap:
                batch.Add(r switch
                {
                    < 4 => Cmd("SETBIT", k, _rng.Next(0, 10_000).ToString(), (_rng.Next(2)).ToString()),
                    4 => Cmd("BITFIELD", k, "INCRBY", "i8", "#3", "7", "OVERFLOW", "WRAP"),
                    5 => Cmd("BITOP", "OR", Fresh("bitop"), k, other),
                    _ => Cmd("BITFIELD", k, "SET", "u4", "100", _rng.Next(16).ToString()),
                });
                break;
        }
    }

    /// <summary>DEL, RENAME, COPY, MOVE across databases, TTLs set, removed and set in the past.</summary>
    private void AddKeyspaceWrite(List<byte[][]> batch)
    {
        int i = _rng.Next(_data.Keys);
        string k = SoakDataset.Name(i);
        Select(batch, _data.DbOf(i));
        switch (_rng.Next(10))
        {
            case 0: batch.Add(Cmd("DEL", k)); break;
            case 1: batch.Add(Cmd("UNLINK", k)); break;
            case 2: batch.Add(Cmd("RENAME", k, Fresh("renamed"))); break;
            case 3: batch.Add(Cmd("COPY", k, Fresh("copy"), "DB", _rng.Next(_data.Databases).ToString())); break;
            case 4: batch.Add(Cmd("MOVE", k, _rng.Next(_data.Databases).ToString())); break;
            case 5: batch.Add(Cmd("EXPIRE", k, _rng.Next(1, 6).ToString())); break;
            case 6: batch.Add(Cmd("PERSIST", k)); break;
            case 7: batch.Add(Cmd("PEXPIREAT", k, "1")); break; // in the past: deleted now, a DEL in the stream
            case 8: batch.Add(Cmd("EXPIRE", k, _rng.Next(1000, 100_000).ToString(), "GT")); break;
            default:
                // Rarely a whole database swap (the blocker waits in database 0, not swapped).
                batch.Add(_rng.Next(200) == 0 ? Cmd("SWAPDB", "2", "3") : Cmd("RENAME", k, SoakDataset.Name(Sibling(i))));
                break;
        }
    }

    /// <summary>Keys that live for milliseconds; the read of an older one expires it lazily if the active cycle has not.</summary>
    private void AddExpiring(List<byte[][]> batch)
    {
        Select(batch, _rng.Next(_data.Databases));
        long n = ++_serial;
        batch.Add(Cmd("SET", $"soak:tmp:{_tag}:{n}", "t", "PX", _rng.Next(1, 1500).ToString()));
        batch.Add(Cmd("HSET", $"soak:tmph:{_tag}:{n}", "a", "b"));
        batch.Add(Cmd("PEXPIRE", $"soak:tmph:{_tag}:{n}", _rng.Next(1, 1500).ToString()));
        batch.Add(Cmd("GET", $"soak:tmp:{_tag}:{Math.Max(1, n - _rng.Next(1, 400))}"));
        batch.Add(Cmd("EXISTS", $"soak:tmph:{_tag}:{Math.Max(1, n - _rng.Next(1, 400))}"));
    }

    /// <summary>New keys of about a kilobyte: under maxmemory they make the master evict.</summary>
    private void AddFiller(List<byte[][]> batch)
    {
        Select(batch, _rng.Next(_data.Databases));
        string value = SoakDataset.RandomText(_rng, _rng.Next(500, 1500));
        batch.Add(_rng.Next(3) == 0
            ? Cmd("SET", Fresh("fill"), value, "EX", _rng.Next(2, 30).ToString())
            : Cmd("SET", Fresh("fill"), value));
    }

    /// <summary>A MULTI/EXEC block over several types and two databases.</summary>
    private void AddTransaction(List<byte[][]> batch)
    {
        int i = _rng.Next(_data.Keys);
        int j = _rng.Next(_data.Keys);
        Select(batch, _data.DbOf(i));
        batch.Add(Cmd("MULTI"));
        batch.Add(Cmd("INCRBYFLOAT", $"soak:txf:{_tag}:{_rng.Next(20)}", "1.5"));
        AddTypedWrite(batch, i);
        batch.Add(Cmd("SPOP", SoakDataset.Name(_rng.Next(_data.Keys))));
        batch.Add(Cmd("SET", Fresh("tx"), "v", "PX", _rng.Next(10, 2000).ToString()));
        int db = _data.DbOf(j);
        batch.Add(Cmd("SELECT", db.ToString()));
        AddTypedWrite(batch, j);
        batch.Add(Cmd("EXEC"));
        _db = db;
    }

    private void AddScript(List<byte[][]> batch)
    {
        int i = _rng.Next(_data.Keys);
        Select(batch, _data.DbOf(i));
        long n = ++_serial;
        switch (_rng.Next(6))
        {
            case 3:
                batch.Add(Cmd("FCALL", "soak_touch", "2", $"soak:fcnt:{_tag}:{_rng.Next(20)}", $"soak:fhash:{_tag}:{_rng.Next(20)}",
                    _rng.Next(1, 10).ToString(), _rng.Next(100, 5000).ToString()));
                break;
            case 4:
                // DUMP and RESTORE in one script (propagated as the RESTORE with its payload), with an absolute TTL now and then.
                batch.Add(Cmd("EVAL", DumpRestoreScript, "2", SoakDataset.Name(i), Fresh("restored"),
                    _rng.Next(3) == 0 ? (DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() + _rng.Next(-500, 5000)).ToString() : "0"));
                break;
            case 5:
                {
                    string k = SoakDataset.Name(i), other = SoakDataset.Name(Sibling(i));
                    batch.Add(_rng.Next(4) switch
                    {
                        0 => Cmd("SORT", k, "ALPHA", "LIMIT", "0", "5", "STORE", Fresh("sorted")),
                        1 => Cmd("LMPOP", "2", k, other, "RIGHT", "COUNT", "2"),
                        2 => Cmd("ZMPOP", "2", k, other, "MIN", "COUNT", "2"),
                        _ => Cmd("SETEX", Fresh("setex"), _rng.Next(1, 5).ToString(), "v"),
                    });
                    break;
                }
            case 0:
                batch.Add(Cmd("EVAL", MultiKeyScript, "3", $"soak:scnt:{_tag}:{_rng.Next(50)}", $"soak:slist:{_tag}:{_rng.Next(50)}",
                    $"soak:shash:{_tag}:{_rng.Next(50)}", "s-" + n, _rng.Next(100, 5000).ToString()));
                break;
            case 1:
                batch.Add(Cmd("EVAL", RandomScript, "5", Fresh("srand"), $"soak:stime:{_tag}:{_rng.Next(20)}",
                    $"soak:sexp:{_tag}:{_rng.Next(20)}", $"soak:shit:{_tag}", SoakDataset.Name(i), _rng.Next(50, 1500).ToString()));
                break;
            default:
                batch.Add(Cmd("EVAL", FloatScript, "3", $"soak:sf:{_tag}:{_rng.Next(20)}", $"soak:sfh:{_tag}:{_rng.Next(20)}",
                    $"soak:sfz:{_tag}:{_rng.Next(20)}", (_rng.NextDouble() * 4 - 1).ToString("R")));
                break;
        }
    }
}

/// <summary>A client blocked in BLPOP, BZPOPMIN and BLMOVE (database 0) in turn, served by <see cref="SoakWriter"/>'s pushes.</summary>
internal sealed class SoakBlocker
{
    private readonly IPEndPoint _master;
    private readonly Thread _thread;
    private volatile bool _stop;
    private Exception? _failure;

    public long Served;

    public SoakBlocker(IPEndPoint master)
    {
        _master = master;
        _thread = new Thread(Run) { IsBackground = true, Name = "soak-blocker" };
    }

    public void Start() => _thread.Start();

    public void Stop()
    {
        _stop = true;
        if (!_thread.Join(TimeSpan.FromSeconds(60))) throw new TimeoutException("the soak blocker did not stop in 60 s");
        if (_failure != null) throw new InvalidOperationException("the soak blocker failed", _failure);
    }

    private void Run()
    {
        try
        {
            using var client = new RespClient(_master, 30_000);
            for (int n = 0; !_stop; n++)
            {
                object? reply = Parse(client.Call((n % 3) switch
                {
                    0 => Cmd("BLPOP", "soak:bq:0", "soak:bq:1", "0.5"),
                    1 => Cmd("BZPOPMIN", "soak:bz:0", "0.5"),
                    _ => Cmd("BLMOVE", "soak:bq:2", "soak:bq:done", "LEFT", "RIGHT", "0.5"),
                }).Select(c => (byte)c).ToArray());
                if (reply is SoakError e) throw new InvalidOperationException("blocking command: " + e.Text);
                if (reply != null) Served++;
            }
        }
        catch (Exception ex)
        {
            _failure = ex;
        }
    }
}
