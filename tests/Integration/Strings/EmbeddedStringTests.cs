using System.Text;
using RedisClone.Storage;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Strings;

/// <summary>
/// Small strings embedded after their key in one array (Storage/EmbeddedString): every path that
/// reads, replaces, grows, renames, copies, moves, expires or lists such a key sees the key and the
/// value as they are, and the memory meter charges the one array.
/// </summary>
public class EmbeddedStringTests
{
    private static TestServer Server => TestServer.Shared;

    [Fact]
    public void Set_SmallValue_EmbeddedAndReadByEveryStringReader()
    {
        using var c = Server.Connect();
        var k = TestServer.KeyPrefix("embed") + "k";
        Assert.Equal("+OK\r\n", c.Call("SET", k, "hello"));
        Assert.True(KeyspacePeek.IsEmbedded(Server, k));
        Assert.Equal("$5\r\nhello\r\n", c.Call("GET", k));
        Assert.Equal("*2\r\n$5\r\nhello\r\n$-1\r\n", c.Call("MGET", k, k + "-missing"));
        Assert.Equal(":5\r\n", c.Call("STRLEN", k));
        Assert.Equal("$3\r\nell\r\n", c.Call("GETRANGE", k, "1", "3"));
        Assert.Equal("+string\r\n", c.Call("TYPE", k));
        Assert.Equal("$6\r\nembstr\r\n", c.Call("OBJECT", "ENCODING", k));
        Assert.Equal(":1\r\n", c.Call("EXISTS", k));
        Assert.Equal("$5\r\nhello\r\n", c.Call("SET", k, "world", "GET"));
        Assert.Equal("$5\r\nworld\r\n", c.Call("GETEX", k));

        // SET over it: the same length in place (same array), another length a new embedded array,
        // a large value its own array, a small one embedded again.
        var array = KeyspacePeek.Value(Server, k);
        Assert.Equal("+OK\r\n", c.Call("SET", k, "WORLD"));
        Assert.Same(array, KeyspacePeek.Value(Server, k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "hi"));
        Assert.True(KeyspacePeek.IsEmbedded(Server, k));
        Assert.Equal("$2\r\nhi\r\n", c.Call("GET", k));
        string big = new('b', 45);
        Assert.Equal("+OK\r\n", c.Call("SET", k, big));
        Assert.False(KeyspacePeek.IsEmbedded(Server, k));
        Assert.Equal($"$45\r\n{big}\r\n", c.Call("GET", k));
        Assert.Equal("$3\r\nraw\r\n", c.Call("OBJECT", "ENCODING", k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "12"));
        Assert.True(KeyspacePeek.IsEmbedded(Server, k));
        Assert.Equal("$3\r\nint\r\n", c.Call("OBJECT", "ENCODING", k));

        // INCR rewrites in place, or re-embeds when the digit count changes.
        Assert.Equal(":13\r\n", c.Call("INCR", k));
        Assert.Equal(":100\r\n", c.Call("INCRBY", k, "87"));
        Assert.True(KeyspacePeek.IsEmbedded(Server, k));
        Assert.Equal("$3\r\n100\r\n", c.Call("GET", k));
        Assert.Equal("$3\r\nint\r\n", c.Call("OBJECT", "ENCODING", k));
        Assert.Equal("$5\r\n100.5\r\n", c.Call("INCRBYFLOAT", k, "0.5"));

        // SETRANGE within the string writes in place (raw), APPEND grows it out of the array.
        Assert.Equal(":5\r\n", c.Call("SETRANGE", k, "0", "9"));
        Assert.True(KeyspacePeek.IsEmbedded(Server, k));
        Assert.Equal("$5\r\n900.5\r\n", c.Call("GET", k));
        Assert.Equal("$3\r\nraw\r\n", c.Call("OBJECT", "ENCODING", k));
        Assert.Equal(":8\r\n", c.Call("APPEND", k, "abc"));
        Assert.IsType<GrowableString>(KeyspacePeek.Value(Server, k));
        Assert.Equal("$8\r\n900.5abc\r\n", c.Call("GET", k));
        Assert.Equal($"*1\r\n${Encoding.UTF8.GetByteCount(k)}\r\n{k}\r\n", c.Call("KEYS", k));
        Assert.Equal("+OK\r\n", c.Call("SET", k, "x"));
        Assert.True(KeyspacePeek.IsEmbedded(Server, k));
        Assert.Equal("$1\r\nx\r\n", c.Call("GETDEL", k));
        Assert.Equal(":0\r\n", c.Call("EXISTS", k));
    }

    [Fact]
    public void RenameCopyMove_EmbeddedString_KeyAndValueAndTtlFollow()
    {
        using var c = Server.Connect();
        var p = "{" + TestServer.KeyPrefix("embedmv") + "}";
        Assert.Equal("+OK\r\n", c.Call("SET", p + "a", "value-a", "EX", "1000"));
        Assert.Equal("+OK\r\n", c.Call("RENAME", p + "a", p + "renamed"));
        Assert.True(KeyspacePeek.IsEmbedded(Server, p + "renamed"));
        Assert.Equal("$7\r\nvalue-a\r\n", c.Call("GET", p + "renamed"));
        Assert.InRange(long.Parse(c.Call("TTL", p + "renamed").Trim(':', '\r', '\n')), 990, 1000);
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "a"));

        Assert.Equal(":1\r\n", c.Call("COPY", p + "renamed", p + "copy"));
        Assert.True(KeyspacePeek.IsEmbedded(Server, p + "copy"));
        Assert.NotSame(KeyspacePeek.Value(Server, p + "renamed"), KeyspacePeek.Value(Server, p + "copy"));
        Assert.Equal(":7\r\n", c.Call("SETRANGE", p + "copy", "0", "V"));
        Assert.Equal("$7\r\nvalue-a\r\n", c.Call("GET", p + "renamed"));
        Assert.Equal("$7\r\nValue-a\r\n", c.Call("GET", p + "copy"));
        Assert.Equal("$6\r\nembstr\r\n", c.Call("OBJECT", "ENCODING", p + "renamed"));
        Assert.Equal("$3\r\nraw\r\n", c.Call("OBJECT", "ENCODING", p + "copy"));

        // A destination key too long to embed takes the value in an array of its own.
        string longKey = p + new string('L', 200);
        Assert.Equal("+OK\r\n", c.Call("RENAME", p + "copy", longKey));
        Assert.False(KeyspacePeek.IsEmbedded(Server, longKey));
        Assert.Equal("$7\r\nValue-a\r\n", c.Call("GET", longKey));
        Assert.Equal("$3\r\nraw\r\n", c.Call("OBJECT", "ENCODING", longKey));
        Assert.Equal("+OK\r\n", c.Call("SET", longKey, "value-a", "EX", "1000"));
        Assert.Equal(c.Call("DEBUG", "DIGEST-VALUE", p + "renamed"), c.Call("DEBUG", "DIGEST-VALUE", longKey));

        Assert.Equal(":1\r\n", c.Call("MOVE", p + "renamed", "1"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "renamed"));
        Assert.Equal("+OK\r\n", c.Call("SELECT", "1"));
        Assert.Equal("$7\r\nvalue-a\r\n", c.Call("GET", p + "renamed"));
        Assert.Equal("$6\r\nembstr\r\n", c.Call("OBJECT", "ENCODING", p + "renamed"));
        Assert.Equal(":1\r\n", c.Call("DEL", p + "renamed"));
    }

    [Fact]
    public async Task ScanKeysRandomKeyAndExpiry_EmbeddedStrings_NamesWithoutValueBytes()
    {
        using var c = Server.Connect();
        var p = TestServer.KeyPrefix("embedscan");
        var names = Enumerable.Range(0, 20).Select(i => p + i).ToArray();
        foreach (var n in names) Assert.Equal("+OK\r\n", c.Call("SET", n, "v" + n));
        Assert.All(names, n => Assert.True(KeyspacePeek.IsEmbedded(Server, n)));

        var keys = ParseBulks(c.Call("KEYS", p + "*"));
        Assert.Equal(names.OrderBy(n => n, StringComparer.Ordinal), keys.OrderBy(n => n, StringComparer.Ordinal));

        var scanned = new List<string>();
        string cursor = "0";
        do
        {
            var reply = c.Call("SCAN", cursor, "MATCH", p + "*", "COUNT", "1000", "TYPE", "string");
            var lines = reply.Split("\r\n");
            cursor = lines[2];
            scanned.AddRange(ParseBulks(string.Join("\r\n", lines.Skip(3))));
        } while (cursor != "0");
        Assert.Equal(names.OrderBy(n => n, StringComparer.Ordinal), scanned.OrderBy(n => n, StringComparer.Ordinal));

        // Lazy and active expiry delete an embedded key by its name alone.
        Assert.Equal("+OK\r\n", c.Call("SET", p + "lazy", "soon", "PX", "30"));
        Assert.Equal("+OK\r\n", c.Call("SET", p + "active", "soon", "PX", "30"));
        await Task.Delay(300);
        Assert.Equal("$-1\r\n", c.Call("GET", p + "lazy"));
        Assert.Equal(":0\r\n", c.Call("EXISTS", p + "active"));
        Assert.Equal(names.Length, ParseBulks(c.Call("KEYS", p + "*")).Count);
    }

    [Fact]
    public void Meter_EmbeddedStringThroughEveryChange_ChargesTheOneArrayAndReturnsToZero()
    {
        var store = new ShardStore(2);
        var db = store[0];
        var key = "some-key"u8;
        int slot = db.AddString(key, "small"u8);
        Assert.True(db.Table.At(slot).IsEmbedded);
        Assert.Equal(MemoryMeter.ArrayBytes(key.Length + 5), db.DatasetBytes);
        Assert.True(db.Table.At(slot).Key.SequenceEqual(key));

        db.ReplaceString(slot, "other"u8);   // in place
        Assert.Equal(MemoryMeter.ArrayBytes(key.Length + 5), db.DatasetBytes);
        db.ReplaceString(slot, "longer value"u8);   // new embedded array
        Assert.Equal(MemoryMeter.ArrayBytes(key.Length + 12), db.DatasetBytes);
        var big = new byte[100];
        db.ReplaceString(slot, big);   // key and value apart
        Assert.False(db.Table.At(slot).IsEmbedded);
        Assert.Equal(MemoryMeter.ArrayBytes(key.Length) + MemoryMeter.ArrayBytes(100), db.DatasetBytes);
        db.ReplaceString(slot, "1"u8);   // embedded again
        Assert.Equal(MemoryMeter.ArrayBytes(key.Length + 1), db.DatasetBytes);
        var grown = db.GrowString(slot, 10);   // APPEND: the key gets its own array
        Assert.Equal(MemoryMeter.ArrayBytes(key.Length) + grown.AllocatedBytes, db.DatasetBytes);
        Assert.True(db.Table.At(slot).Key.SequenceEqual(key));
        db.ReplaceString(slot, "x"u8);
        Assert.Equal(MemoryMeter.ArrayBytes(key.Length + 1), db.DatasetBytes);
        db.ReplaceValue(slot, new KeyspacePeek.ForeignValue());   // another type over it
        Assert.False(db.Table.At(slot).IsEmbedded);
        Assert.True(db.Table.At(slot).Key.SequenceEqual(key));
        Assert.Equal(db.Table.Find(key), slot);
        db.RemoveAt(slot);
        Assert.Equal(0, db.DatasetBytes);

        slot = db.AddString(key, "again"u8, expireAt: DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() - 1);
        Assert.Equal(-1, db.FindLive(key, DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()));
        Assert.Equal(0, db.DatasetBytes);
        Assert.Null(db.CheckExpiryIndex());
    }

    private static List<string> ParseBulks(string reply)
    {
        var result = new List<string>();
        var lines = reply.Split("\r\n");
        for (int i = 0; i < lines.Length; i++)
            if (lines[i].StartsWith('$') && lines[i] != "$-1") result.Add(lines[++i]);
        return result;
    }
}
