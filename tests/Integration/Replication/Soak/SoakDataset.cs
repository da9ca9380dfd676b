using System.Diagnostics;
using System.Text;
using RedisClone.Tests.Infrastructure;
using static RedisClone.Tests.Replication.Soak.SoakResp;

namespace RedisClone.Tests.Replication.Soak;

/// <summary>The kinds of key the soak loads: each type in each of its encodings.</summary>
internal enum SoakKind
{
    StrRaw, StrInt, StrBig, StrBinary,
    ListSmall, ListBig,
    HashSmall, HashBig,
    SetInt, SetSmall, SetBig,
    ZsetSmall, ZsetBig,
    Stream,
    HllSparse, HllDense,
    Bitmap, Geo,
}

/// <summary>
/// A dataset of every type and encoding for the replication soak: key <c>i</c> lives in database
/// <c>i % Databases</c> and is named <c>soak:{kind}:{i}</c>, so a writer knows a key's type from its
/// name. About a third of the keys carry a TTL, a ninth a short one (a few seconds: they expire
/// while the soak runs, actively and lazily). Loaded through pipelines of a few hundred commands.
/// Deterministic for a seed.
/// </summary>
internal sealed class SoakDataset(int keys, int databases = 4, int seed = 27, int shortTtlMaxSeconds = 8)
{
    // Weight of each kind (per 100 keys): mostly small values, a few percent of big encodings
    // (quicklist, hashtable, skiplist, dense HLL, strings of kilobytes).
    private static readonly (SoakKind Kind, int Weight)[] Weights =
    [
        (SoakKind.StrRaw, 14), (SoakKind.StrInt, 8), (SoakKind.StrBig, 1), (SoakKind.StrBinary, 3),
        (SoakKind.ListSmall, 8), (SoakKind.ListBig, 1),
        (SoakKind.HashSmall, 9), (SoakKind.HashBig, 1),
        (SoakKind.SetInt, 6), (SoakKind.SetSmall, 6), (SoakKind.SetBig, 1),
        (SoakKind.ZsetSmall, 8), (SoakKind.ZsetBig, 1),
        (SoakKind.Stream, 5),
        (SoakKind.HllSparse, 5), (SoakKind.HllDense, 1),
        (SoakKind.Bitmap, 6), (SoakKind.Geo, 16),
    ];

    private static readonly SoakKind[] KindTable = Weights.SelectMany(w => Enumerable.Repeat(w.Kind, w.Weight)).ToArray();

    /// <summary>The library the writers FCALL: soak_touch increments a counter and stamps a hash with a list's length.</summary>
    public const string FunctionLibrary =
        "#!lua name=soaklib\n" +
        "redis.register_function('soak_touch', function(keys, args) " +
        "local n = redis.call('incrby', keys[1], args[1]); redis.call('hset', keys[2], 'n', n, 'at', redis.call('time')[1]); " +
        "redis.call('pexpire', keys[2], args[2]); return n end)";

    public int Keys => keys;

    public int Databases => databases;

    public static SoakKind KindOf(int i) => KindTable[(int)((uint)(i * 2654435761u) % (uint)KindTable.Length)];

    public static string Name(int i) => $"soak:{KindOf(i)}:{i}";

    public int DbOf(int i) => i % databases;

    /// <summary>Loads every key; returns the time it took. Fails on any error reply.</summary>
    public TimeSpan Load(RespClient client)
    {
        var sw = Stopwatch.StartNew();
        var rng = new Random(seed);
        for (int db = 0; db < databases; db++)
        {
            var batch = new List<byte[][]> { Cmd("SELECT", db.ToString()) };
            for (int i = db; i < keys; i += databases)
            {
                AddKey(batch, i, rng);
                if (batch.Count >= 400)
                {
                    Send(client, batch);
                    batch.Clear();
                }
            }
            Send(client, batch);
        }
        // A function library: loaded before the sync, it reaches the replica in the RDB; FCALLs write through it.
        Send(client, [Cmd("SELECT", "0"), Cmd("FUNCTION", "LOAD", "REPLACE", FunctionLibrary)]);
        return sw.Elapsed;
    }

    private static void Send(RespClient client, List<byte[][]> batch)
    {
        var replies = PipelineParsed(client, batch);
        for (int i = 0; i < replies.Count; i++)
            if (replies[i] is SoakError e)
                throw new InvalidOperationException($"loading: {Encoding.Latin1.GetString(batch[i][0])} {Encoding.Latin1.GetString(batch[i].Length > 1 ? batch[i][1] : [])}: {e.Text}");
    }

    /// <summary>The commands that create key <paramref name="i"/> (and its TTL).</summary>
    public void AddKey(List<byte[][]> batch, int i, Random rng)
    {
        string k = Name(i);
        switch (KindOf(i))
        {
            case SoakKind.StrRaw:
                batch.Add(Cmd("SET", k, $"value-{i}-{new string('v', rng.Next(0, 60))}"));
                break;
            case SoakKind.StrInt:
                batch.Add(Cmd("SET", k, (rng.NextInt64(-1_000_000_000_000, 1_000_000_000_000) >> rng.Next(0, 40)).ToString()));
                break;
            case SoakKind.StrBig:
                batch.Add(Cmd("SET", k, RandomText(rng, rng.Next(2_000, 20_000))));
                break;
            case SoakKind.StrBinary:
                {
                    var bytes = new byte[rng.Next(1, 300)];
                    rng.NextBytes(bytes);
                    batch.Add([Encoding.Latin1.GetBytes("SET"), Encoding.Latin1.GetBytes(k), bytes]);
                    break;
                }
            case SoakKind.ListSmall:
                batch.Add(Variadic(["RPUSH", k], rng.Next(1, 20), n => rng.Next(3) == 0 ? n.ToString() : $"item-{n}-{rng.Next(1000)}"));
                break;
            case SoakKind.ListBig:
                batch.Add(Variadic(["RPUSH", k], rng.Next(150, 400), n => $"element-{n}-{RandomText(rng, rng.Next(1, 40))}"));
                break;
            case SoakKind.HashSmall:
                batch.Add(Variadic(["HSET", k], rng.Next(1, 15), n => $"f{n}", n => rng.Next(2) == 0 ? rng.Next().ToString() : $"val-{n}"));
                break;
            case SoakKind.HashBig:
                batch.Add(Variadic(["HSET", k], rng.Next(150, 400), n => $"field-{n}", n => RandomText(rng, rng.Next(1, 80))));
                break;
            case SoakKind.SetInt:
                batch.Add(Variadic(["SADD", k], rng.Next(1, 40), _ => rng.Next(-100_000, 100_000).ToString()));
                break;
            case SoakKind.SetSmall:
                batch.Add(Variadic(["SADD", k], rng.Next(1, 40), n => $"m{n}-{rng.Next(100)}"));
                break;
            case SoakKind.SetBig:
                batch.Add(Variadic(["SADD", k], rng.Next(200, 500), n => $"member-{n}-{rng.Next(1_000_000)}"));
                break;
            case SoakKind.ZsetSmall:
                batch.Add(Variadic(["ZADD", k], rng.Next(1, 40), _ => Score(rng), n => $"z{n}"));
                break;
            case SoakKind.ZsetBig:
                batch.Add(Variadic(["ZADD", k], rng.Next(150, 300), _ => Score(rng), n => $"member-{n}-{RandomText(rng, 8)}"));
                break;
            case SoakKind.Stream:
                AddStream(batch, k, rng);
                break;
            case SoakKind.HllSparse:
                batch.Add(Variadic(["PFADD", k], rng.Next(1, 60), n => $"e{n}-{rng.Next()}"));
                break;
            case SoakKind.HllDense:
                batch.Add(Variadic(["PFADD", k], 3000, n => $"e{n}-{rng.Next()}"));
                break;
            case SoakKind.Bitmap:
                batch.Add(Cmd("SETBIT", k, rng.Next(0, 8000).ToString(), "1"));
                batch.Add(Cmd("SETBIT", k, rng.Next(0, 800).ToString(), "1"));
                batch.Add(Cmd("BITFIELD", k, "SET", "u16", $"#{rng.Next(0, 30)}", rng.Next(0, 65536).ToString()));
                break;
            case SoakKind.Geo:
                batch.Add(Variadic(["GEOADD", k], rng.Next(1, 8), _ => (rng.NextDouble() * 358 - 179).ToString("R"),
                    _ => (rng.NextDouble() * 168 - 84).ToString("R"), n => $"place-{n}"));
                break;
        }
        if (i % 3 == 0)
        {
            // A ninth of all keys expire within seconds (during the soak), the rest of those with a TTL much later.
            long ms = i % 9 == 0 ? rng.Next(1_000, shortTtlMaxSeconds * 1000) : rng.NextInt64(1_000_000, 100_000_000);
            batch.Add(Cmd("PEXPIRE", k, ms.ToString()));
        }
    }

    /// <summary>A stream with entries, a deleted one, one or two groups, consumers with pending entries, one acknowledged.</summary>
    private static void AddStream(List<byte[][]> batch, string k, Random rng)
    {
        int entries = rng.Next(3, 25);
        for (int n = 1; n <= entries; n++)
            batch.Add(Cmd("XADD", k, $"{n}-{rng.Next(0, 3)}", "field", $"v{n}", "n", rng.Next(1000).ToString()));
        batch.Add(Cmd("XDEL", k, $"{entries}-0"));
        batch.Add(Cmd("XGROUP", "CREATE", k, "g1", "0"));
        batch.Add(Cmd("XREADGROUP", "GROUP", "g1", "alice", "COUNT", rng.Next(1, 4).ToString(), "STREAMS", k, ">"));
        batch.Add(Cmd("XREADGROUP", "GROUP", "g1", "bob", "COUNT", rng.Next(1, 4).ToString(), "STREAMS", k, ">"));
        batch.Add(Cmd("XACK", k, "g1", "1-0", "1-1", "1-2"));
        if (rng.Next(2) == 0)
        {
            batch.Add(Cmd("XGROUP", "CREATE", k, "g2", "$"));
            batch.Add(Cmd("XGROUP", "CREATECONSUMER", k, "g2", "idle"));
        }
    }

    private static string Score(Random rng) => rng.Next(4) switch
    {
        0 => rng.Next(-1000, 1000).ToString(),
        1 => (rng.NextDouble() * 1e6 - 5e5).ToString("R"),
        2 => (rng.NextDouble() / 7).ToString("R"),
        _ => rng.Next(0, 5).ToString(),
    };

    private static byte[][] Variadic(string[] head, int count, params Func<int, string>[] parts)
    {
        var args = new List<string>(head);
        for (int n = 0; n < count; n++)
            foreach (var part in parts) args.Add(part(n));
        return Cmd([.. args]);
    }

    private const string Alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-";

    public static string RandomText(Random rng, int length)
    {
        var chars = new char[length];
        for (int i = 0; i < length; i++) chars[i] = Alphabet[rng.Next(Alphabet.Length)];
        return new string(chars);
    }
}
