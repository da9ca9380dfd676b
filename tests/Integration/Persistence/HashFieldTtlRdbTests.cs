using System.Buffers;
using System.Buffers.Binary;
using System.Text;
using RedisClone.Common;
using RedisClone.Persistence;
using RedisClone.Storage;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Persistence;

/// <summary>
/// Hashes with field TTLs in RDB files and DUMP payloads, in Redis 7.4+'s layouts (rdb.c):
/// RDB_TYPE_HASH_LISTPACK_EX (25: the soonest TTL as 8 bytes, then a listpack of field-value-TTL
/// triplets ordered by TTL), RDB_TYPE_HASH_METADATA (24: the soonest TTL, the count, then per field a
/// TTL relative to the soonest plus one, 0 for none, the field and the value), and the 7.4 release
/// candidates' types 22 and 23 on load. Such data is written as RDB version 12; anything else keeps
/// version 10, which redis-server 7.0 loads.
/// </summary>
public class HashFieldTtlRdbTests
{
    private static byte[] B(string s) => Encoding.Latin1.GetBytes(s);

    private static string S(ReadOnlySpan<byte> b) => Encoding.Latin1.GetString(b);

    private static readonly RdbValueReader.Limits Limits =
        new(128, 64, new RedisSet.Limits(512, 128, 64), new RedisSortedSet.Limits(128, 64), -2);

    private const long T0 = 1_900_000_000_000; // 2030: far enough ahead that nothing expires during a test

    private static byte[] Serialize(RedisHash hash)
    {
        var output = new ArrayBufferWriter<byte>();
        var entry = new KeyTable.Entry { Bytes = B("k"), Value = hash };
        Assert.True(RdbValueWriter.Write(output, in entry, compress: false));
        return output.WrittenSpan.ToArray();
    }

    private static RedisHash Deserialize(byte[] bytes)
    {
        int position = 1;
        var value = RdbValueReader.Read(bytes, ref position, bytes[0], Limits);
        Assert.True(value != null, RdbValueReader.Reason);
        Assert.Equal(bytes.Length, position);
        return Assert.IsType<RedisHash>(value);
    }

    /// <summary>Field, value and TTL in the hash's iteration order.</summary>
    private static List<(string Field, string Value, long Ttl)> Contents(RedisHash hash)
    {
        var list = new List<(string, string, long)>();
        for (int p = hash.FirstPosition(); p >= 0; p = hash.NextPosition(p))
            list.Add((S(hash.FieldAt(p)), S(hash.ValueAt(p)), hash.ExpiryAt(p)));
        return list;
    }

    private static RedisHash Build(bool table, params (string Field, string Value, long Ttl)[] entries)
    {
        var hash = new RedisHash();
        if (table) hash.ConvertToTable();
        foreach (var (f, v, _) in entries) hash.Set(B(f), B(v), 128, 64);
        foreach (var (f, _, ttl) in entries)
            if (ttl != 0) hash.SetExpiryAt(hash.Find(B(f)), ttl);
        return hash;
    }

    private static byte[] Listpack(params string[] items)
    {
        var lp = RedisClone.Storage.Listpack.New();
        foreach (var item in items) RedisClone.Storage.Listpack.Append(ref lp, B(item));
        return lp.AsSpan(0, RedisClone.Storage.Listpack.Bytes(lp)).ToArray();
    }

    private static void Millis(ArrayBufferWriter<byte> output, long ms)
    {
        BinaryPrimitives.WriteInt64LittleEndian(output.GetSpan(8), ms);
        output.Advance(8);
    }

    private static void Byte(ArrayBufferWriter<byte> output, byte b)
    {
        output.GetSpan(1)[0] = b;
        output.Advance(1);
    }

    [Fact]
    public void Packed_WithTtls_WrittenAsListpackExInTtlOrder()
    {
        var hash = Build(false, ("a", "1", 0), ("b", "2", T0 + 500), ("c", "3", T0 + 100), ("d", "4", 0));
        var expected = new ArrayBufferWriter<byte>();
        Byte(expected, 25);
        Millis(expected, T0 + 100);
        RdbString.Write(expected, Listpack("c", "3", (T0 + 100).ToString(), "b", "2", (T0 + 500).ToString(), "a", "1", "0", "d", "4", "0"), compress: false);
        Assert.Equal(expected.WrittenSpan.ToArray(), Serialize(hash));
    }

    [Fact]
    public void Table_WithTtls_WrittenAsMetadataWithRelativeTtls()
    {
        var hash = Build(true, ("a", "1", 0), ("b", "2", T0 + 500), ("c", "3", T0 + 100));
        var expected = new ArrayBufferWriter<byte>();
        Byte(expected, 24);
        Millis(expected, T0 + 100);
        RdbString.WriteLength(expected, 3);
        foreach (var (f, v, ttl) in Contents(hash))
        {
            RdbString.WriteLength(expected, ttl == 0 ? 0UL : (ulong)(ttl - (T0 + 100) + 1));
            RdbString.Write(expected, B(f), compress: false);
            RdbString.Write(expected, B(v), compress: false);
        }
        Assert.Equal(expected.WrittenSpan.ToArray(), Serialize(hash));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void WithoutTtls_PlainHashTypes(bool table)
    {
        var bytes = Serialize(Build(table, ("a", "1", 0), ("b", "2", 0)));
        Assert.Equal(table ? RdbType.Hash : RdbType.HashListpack, bytes[0]);
        Assert.Equal(RdbType.WriteVersion, RdbType.VersionFor(Build(table, ("a", "1", 0))));
        Assert.Equal(12, RdbType.VersionFor(Build(table, ("a", "1", T0))));
    }

    [Theory]
    [InlineData(1, false)]
    [InlineData(2, false)]
    [InlineData(3, true)]
    [InlineData(4, true)]
    public void RoundTrip_KeepsOrderTtlsAndEncoding(int seed, bool table)
    {
        var random = new Random(seed);
        for (int round = 0; round < 50; round++)
        {
            int n = 1 + random.Next(table ? 300 : 60);
            var entries = new (string, string, long)[n];
            for (int i = 0; i < n; i++)
            {
                // Few distinct TTLs, so equal ones are common: their order must survive too.
                long ttl = random.Next(3) == 0 ? 0 : T0 + random.Next(5) * 1000;
                entries[i] = ("f" + i, "v" + random.Next(1000), ttl);
            }
            var hash = Build(table && n > 0, entries);
            var loaded = Deserialize(Serialize(hash));
            // As Redis's loader: a type-24 hash within hash-max-listpack-entries loads packed.
            Assert.Equal(hash.IsPacked || n <= Limits.HashEntries, loaded.IsPacked);
            if (hash.IsPacked) Assert.Equal(Contents(hash), Contents(loaded));
            else Assert.Equal(Contents(hash).OrderBy(e => e.Field), Contents(loaded).OrderBy(e => e.Field));
            Assert.Equal(hash.MinExpiry, loaded.MinExpiry);
            if (hash.IsPacked == loaded.IsPacked) Assert.Equal(Serialize(hash), Serialize(loaded));
        }
    }

    [Fact]
    public void ListpackEx_TooManyFields_LoadsAsTable()
    {
        var items = new List<string>();
        for (int i = 0; i < 200; i++) items.AddRange(["f" + i, "v", i % 2 == 0 ? (T0 + i).ToString() : "0"]);
        var payload = new ArrayBufferWriter<byte>();
        Byte(payload, 25);
        Millis(payload, T0);
        RdbString.Write(payload, Listpack(items.ToArray()), compress: false);
        var hash = Deserialize(payload.WrittenSpan.ToArray());
        Assert.False(hash.IsPacked);
        Assert.Equal(200, hash.Count);
        Assert.Equal(T0, hash.MinExpiry);
        Assert.Equal(T0 + 10, hash.ExpiryAt(hash.Find(B("f10"))));
        Assert.Equal(0, hash.ExpiryAt(hash.Find(B("f11"))));
    }

    [Fact]
    public void PreGaTypes_AbsoluteTtls_Load()
    {
        // 22: per field an absolute TTL (a length), the field, the value; no soonest TTL first.
        var plain = new ArrayBufferWriter<byte>();
        Byte(plain, 22);
        RdbString.WriteLength(plain, 2);
        RdbString.WriteLength(plain, (ulong)(T0 + 7));
        RdbString.Write(plain, B("x"), compress: false);
        RdbString.Write(plain, B("1"), compress: false);
        RdbString.WriteLength(plain, 0);
        RdbString.Write(plain, B("y"), compress: false);
        RdbString.Write(plain, B("2"), compress: false);
        var hash = Deserialize(plain.WrittenSpan.ToArray());
        Assert.Equal([("x", "1", T0 + 7), ("y", "2", 0L)], Contents(hash));

        // 23: the triplet listpack alone.
        var packed = new ArrayBufferWriter<byte>();
        Byte(packed, 23);
        RdbString.Write(packed, Listpack("x", "1", (T0 + 7).ToString(), "y", "2", "0"), compress: false);
        Assert.Equal([("x", "1", T0 + 7), ("y", "2", 0L)], Contents(Deserialize(packed.WrittenSpan.ToArray())));
    }

    public static TheoryData<string, byte[]> Malformed()
    {
        var data = new TheoryData<string, byte[]>();
        void Add(string name, Action<ArrayBufferWriter<byte>> build)
        {
            var w = new ArrayBufferWriter<byte>();
            build(w);
            data.Add(name, w.WrittenSpan.ToArray());
        }
        Add("ttl past 2^48", w => { Byte(w, 25); Millis(w, T0); RdbString.Write(w, Listpack("a", "1", (1L << 48).ToString()), false); });
        Add("ttl not an integer", w => { Byte(w, 25); Millis(w, T0); RdbString.Write(w, Listpack("a", "1", "soon"), false); });
        Add("negative ttl", w => { Byte(w, 25); Millis(w, T0); RdbString.Write(w, Listpack("a", "1", "-5"), false); });
        Add("pairs, not triplets", w => { Byte(w, 25); Millis(w, T0); RdbString.Write(w, Listpack("a", "1", "0", "b"), false); });
        Add("duplicate field", w => { Byte(w, 25); Millis(w, T0); RdbString.Write(w, Listpack("a", "1", "0", "a", "2", "0"), false); });
        Add("empty listpack", w => { Byte(w, 25); Millis(w, T0); RdbString.Write(w, Listpack(), false); });
        Add("no soonest ttl", w => { Byte(w, 25); Byte(w, 1); });
        Add("soonest ttl out of range", w => { Byte(w, 24); Millis(w, -1); RdbString.WriteLength(w, 0); });
        Add("relative ttl past 2^48", w =>
        {
            Byte(w, 24);
            Millis(w, T0);
            RdbString.WriteLength(w, 1);
            RdbString.WriteLength(w, 1UL << 48);
            RdbString.Write(w, B("a"), false);
            RdbString.Write(w, B("1"), false);
        });
        Add("metadata duplicate field", w =>
        {
            Byte(w, 24);
            Millis(w, T0);
            RdbString.WriteLength(w, 2);
            for (int i = 0; i < 2; i++)
            {
                RdbString.WriteLength(w, 1);
                RdbString.Write(w, B("a"), false);
                RdbString.Write(w, B("1"), false);
            }
        });
        Add("metadata empty", w => { Byte(w, 24); Millis(w, T0); RdbString.WriteLength(w, 0); });
        Add("metadata truncated", w => { Byte(w, 24); Millis(w, T0); RdbString.WriteLength(w, 2); RdbString.WriteLength(w, 0); });
        return data;
    }

    [Theory]
    [MemberData(nameof(Malformed))]
    public void Malformed_Refused(string name, byte[] bytes)
    {
        int position = 1;
        Assert.True(RdbValueReader.Read(bytes, ref position, bytes[0], Limits) == null, name);
    }

    // ---------------------------------------------------------------- through the server

    /// <summary>A bulk reply's bytes.</summary>
    private static byte[] CallBulk(RespClient c, params byte[][] args)
    {
        c.SendRaw(RespClient.Encode(args));
        var reply = c.ReadReplyBytes();
        Assert.Equal((byte)'$', reply[0]);
        int eol = Array.IndexOf(reply, (byte)'\n');
        return reply[(eol + 1)..^2];
    }

    private static byte[] Payload(Action<ArrayBufferWriter<byte>> body, int version = 12)
    {
        var w = new ArrayBufferWriter<byte>();
        body(w);
        RdbString.AppendFooter(w, version);
        return w.WrittenSpan.ToArray();
    }

    private static byte[] ListpackExPayload(int version = 12) => Payload(w =>
    {
        Byte(w, 25);
        Millis(w, T0 + 1);
        RdbString.Write(w, Listpack("x", "1", (T0 + 1).ToString(), "y", "2", (T0 + 1).ToString(), "z", "3", (T0 + 9).ToString(), "plain", "4", "0"), false);
    }, version);

    [Fact]
    public async Task Restore_ListpackExPayload_DumpGivesSameBytes()
    {
        await using var server = TestServer.Start(2, "--rdbcompression", "no"); // DUMP's blob as built here
        using var c = server.Connect();
        var payload = ListpackExPayload();
        Assert.Equal("+OK\r\n", c.Call([B("RESTORE"), B("h"), B("0"), payload]));
        Assert.Equal("*8\r\n$1\r\nx\r\n$1\r\n1\r\n$1\r\ny\r\n$1\r\n2\r\n$1\r\nz\r\n$1\r\n3\r\n$5\r\nplain\r\n$1\r\n4\r\n", c.Call("HGETALL", "h"));
        Assert.Equal("$8\r\nlistpack\r\n", c.Call("OBJECT", "ENCODING", "h"));
        var dumped = CallBulk(c, [B("DUMP"), B("h")]);
        Assert.Equal(payload, dumped);

        // A newer payload version than 12 is refused as Redis refuses one newer than its own.
        Assert.Equal("-ERR DUMP payload version or checksum are wrong\r\n", c.Call([B("RESTORE"), B("h2"), B("0"), ListpackExPayload(13)]));
        // A plain hash's payload keeps version 10.
        c.Call("HSET", "plain", "a", "1");
        var plain = CallBulk(c, [B("DUMP"), B("plain")]);
        Assert.Equal(10, BinaryPrimitives.ReadUInt16LittleEndian(plain.AsSpan(plain.Length - 10)));
    }

    [Fact]
    public async Task Save_WithFieldTtls_Version12AndReloadsSame()
    {
        string dir = RdbFileTests.NewDir();
        var payload = ListpackExPayload();
        var table = Payload(w =>
        {
            Byte(w, 24);
            Millis(w, T0);
            RdbString.WriteLength(w, 600); // past the default hash-max-listpack-entries (512)
            for (int i = 0; i < 600; i++)
            {
                RdbString.WriteLength(w, i % 3 == 0 ? 0UL : (ulong)i);
                RdbString.Write(w, B("f" + i), false);
                RdbString.Write(w, B("v" + i), false);
            }
        });
        byte[] dumpedTable;
        await using (var server = TestServer.Start(2, "--dir", dir, "--rdbcompression", "no"))
        {
            using var c = server.Connect();
            c.Call("SET", "s", "1");
            Assert.Equal("+OK\r\n", c.Call("SAVE"));
            Assert.Equal("REDIS0010", Encoding.ASCII.GetString(File.ReadAllBytes(Path.Combine(dir, "dump.rdb")), 0, 9));

            Assert.Equal("+OK\r\n", c.Call([B("RESTORE"), B("h"), B("0"), payload]));
            Assert.Equal("+OK\r\n", c.Call([B("RESTORE"), B("t"), B("0"), table]));
            Assert.Equal("$9\r\nhashtable\r\n", c.Call("OBJECT", "ENCODING", "t"));
            dumpedTable = CallBulk(c, [B("DUMP"), B("t")]);
            Assert.Equal("+OK\r\n", c.Call("SAVE"));
            Assert.Equal("REDIS0012", Encoding.ASCII.GetString(File.ReadAllBytes(Path.Combine(dir, "dump.rdb")), 0, 9));
        }
        await using (var server = TestServer.Start(4, "--dir", dir, "--rdbcompression", "no"))
        {
            using var c = server.Connect();
            Assert.Equal(payload, CallBulk(c, [B("DUMP"), B("h")]));
            Assert.Equal(dumpedTable, CallBulk(c, [B("DUMP"), B("t")]));
            Assert.Equal("$1\r\n1\r\n", c.Call("GET", "s"));
        }
    }

    [Fact]
    public async Task Load_Redis8FileWithSlotInfo_Loads()
    {
        // REDIS0012, SELECTDB 0, RESIZEDB, Redis 8's SLOT_INFO opcode (244: slot, keys, keys with
        // a TTL), a listpack-ex hash, EOF and a zero checksum (not checked).
        string dir = RdbFileTests.NewDir();
        var file = new ArrayBufferWriter<byte>();
        file.Write("REDIS0012"u8);
        Byte(file, 254);
        RdbString.WriteLength(file, 0);
        Byte(file, 251);
        RdbString.WriteLength(file, 1);
        RdbString.WriteLength(file, 0);
        Byte(file, 244);
        RdbString.WriteLength(file, 12539);
        RdbString.WriteLength(file, 1);
        RdbString.WriteLength(file, 0);
        Byte(file, 25);
        RdbString.Write(file, B("h"), false);
        Millis(file, T0);
        RdbString.Write(file, Listpack("a", "1", T0.ToString(), "b", "2", "0"), false);
        Byte(file, 255);
        file.Write(new byte[8]);
        File.WriteAllBytes(Path.Combine(dir, "dump.rdb"), file.WrittenSpan.ToArray());

        await using var server = TestServer.Start(2, "--dir", dir);
        using var c = server.Connect();
        Assert.Equal("*4\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n", c.Call("HGETALL", "h"));
        var dumped = CallBulk(c, [B("DUMP"), B("h")]);
        Assert.Equal(25, dumped[0]);
        Assert.Equal(T0, BinaryPrimitives.ReadInt64LittleEndian(dumped.AsSpan(1)));
    }

    // ---------------------------------------------------------------- with the commands

    private static string Hpexpiretime(RespClient c, string key, params string[] fields)
        => c.Call(["HPEXPIRETIME", key, "FIELDS", fields.Length.ToString(), .. fields]);

    [Fact]
    public async Task Dump_HashWithTtls_RestoresWithSameTtlsAndOrder()
    {
        await using var server = TestServer.Start(2);
        using var c = server.Connect();
        c.Call("HSET", "h", "a", "1", "b", "2", "c", "3");
        c.Call("HPEXPIREAT", "h", (T0 + 50).ToString(), "FIELDS", "1", "c");
        c.Call("HPEXPIREAT", "h", (T0 + 10).ToString(), "FIELDS", "1", "b");
        var payload = CallBulk(c, [B("DUMP"), B("h")]);
        Assert.Equal(25, payload[0]);
        Assert.Equal(12, BinaryPrimitives.ReadUInt16LittleEndian(payload.AsSpan(payload.Length - 10)));
        Assert.Equal("+OK\r\n", c.Call([B("RESTORE"), B("h2"), B("0"), payload]));
        Assert.Equal(c.Call("HGETALL", "h"), c.Call("HGETALL", "h2"));
        Assert.Equal($"*3\r\n:-1\r\n:{T0 + 10}\r\n:{T0 + 50}\r\n", Hpexpiretime(c, "h2", "a", "b", "c"));

        // After HPERSIST of every TTL the payload is a plain hash's again, version 10.
        c.Call("HPERSIST", "h", "FIELDS", "2", "b", "c");
        var plain = CallBulk(c, [B("DUMP"), B("h")]);
        Assert.Equal(RdbType.HashListpack, plain[0]);
        Assert.Equal(10, BinaryPrimitives.ReadUInt16LittleEndian(plain.AsSpan(plain.Length - 10)));
    }

    [Fact]
    public async Task Dump_ExpiredFieldsNotYetRemoved_LeftOut()
    {
        await using var server = TestServer.Start(1, "--enable-debug-command", "yes");
        using var c = server.Connect();
        Assert.Equal("+OK\r\n", c.Call("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
        c.Call("HSET", "h", "keep", "1", "gone", "2");
        c.Call("HSET", "all", "x", "1");
        long past = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() + 30;
        c.Call("HPEXPIREAT", "h", past.ToString(), "FIELDS", "1", "gone");
        c.Call("HPEXPIREAT", "all", past.ToString(), "FIELDS", "1", "x");
        Eventually.Wait(() => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() > past + 5, () => "time passes");
        Assert.Equal(":2\r\n", c.Call("HLEN", "h")); // still stored: no read removed it
        var payload = CallBulk(c, [B("DUMP"), B("h")]);
        Assert.Equal(10, BinaryPrimitives.ReadUInt16LittleEndian(payload.AsSpan(payload.Length - 10)));
        Assert.Equal("+OK\r\n", c.Call([B("RESTORE"), B("copy"), B("0"), payload]));
        Assert.Equal("*2\r\n$4\r\nkeep\r\n$1\r\n1\r\n", c.Call("HGETALL", "copy"));
        Assert.Equal(":1\r\n", c.Call("HLEN", "copy"));
        Assert.Equal("$-1\r\n", c.Call("DUMP", "all")); // no field left: as a missing key
    }

    [Fact]
    public async Task Aof_FieldTtls_SurviveReplayAndRewrite()
    {
        string dir = RdbFileTests.NewDir();
        string[] args = ["--dir", dir, "--appendonly", "yes"];
        await using (var server = TestServer.Start(2, args))
        {
            using var c = server.Connect();
            c.Call("HSET", "small", "a", "1", "b", "2");
            c.Call("HPEXPIREAT", "small", (T0 + 5).ToString(), "FIELDS", "1", "b");
            c.Call("HSET", "big", "f0", "0");
            for (int i = 1; i < 600; i++) c.Call("HSET", "big", "f" + i, i.ToString());
            c.Call("HEXPIREAT", "big", (T0 / 1000 + 9).ToString(), "FIELDS", "2", "f1", "f599");
        }
        await using (var server = TestServer.Start(2, args))
        {
            using var c = server.Connect();
            Assert.Equal($"*2\r\n:-1\r\n:{T0 + 5}\r\n", Hpexpiretime(c, "small", "a", "b"));
            Assert.Equal($"*3\r\n:{T0 / 1000 * 1000 + 9000}\r\n:-1\r\n:{T0 / 1000 * 1000 + 9000}\r\n", Hpexpiretime(c, "big", "f1", "f2", "f599"));
            Assert.Equal("+Background append only file rewriting started\r\n", c.Call("BGREWRITEAOF"));
            Eventually.Wait(() => c.Call("INFO", "persistence").Contains("aof_rewrite_in_progress:0"), () => "rewrite done", 30);
            Eventually.Wait(() => c.Call("INFO", "persistence").Contains("aof_rewrite_scheduled:0"), () => "rewrite done", 30);
        }
        string aofDir = Path.Combine(dir, "appendonlydir");
        var baseFile = Directory.GetFiles(aofDir, "*.base.rdb").Single();
        Assert.StartsWith("REDIS0012", File.ReadAllText(baseFile, Encoding.Latin1));
        await using (var server = TestServer.Start(4, args))
        {
            using var c = server.Connect();
            Assert.Equal($"*2\r\n:-1\r\n:{T0 + 5}\r\n", Hpexpiretime(c, "small", "a", "b"));
            Assert.Equal($"*3\r\n:{T0 / 1000 * 1000 + 9000}\r\n:-1\r\n:{T0 / 1000 * 1000 + 9000}\r\n", Hpexpiretime(c, "big", "f1", "f2", "f599"));
            Assert.Equal(":600\r\n", c.Call("HLEN", "big"));
        }
    }

    [Fact]
    public async Task FullSync_FieldTtls_ReachTheReplica()
    {
        await using var master = TestServer.Start(2, "--repl-diskless-sync-delay", "0");
        await using var replica = TestServer.Start(2);
        using var m = master.Connect();
        using var r = replica.Connect();
        m.Call("HSET", "h", "a", "1", "b", "2");
        m.Call("HPEXPIREAT", "h", (T0 + 3).ToString(), "FIELDS", "1", "a");
        Assert.Equal("+OK\r\n", r.Call("REPLICAOF", "127.0.0.1", master.Port.ToString()));
        Eventually.Wait(() => r.Call("EXISTS", "h") == ":1\r\n", () => r.Call("INFO", "replication"), 20);
        Assert.Equal($"*2\r\n:{T0 + 3}\r\n:-1\r\n", Hpexpiretime(r, "h", "a", "b"));
        Assert.Equal(m.Call("HGETALL", "h"), r.Call("HGETALL", "h"));
    }
}
