using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Keys;

/// <summary>
/// Helpers for keyspace tests: decoding the raw replies <see cref="RespClient"/> returns, walking a
/// whole SCAN, and pipelining many commands.
/// </summary>
internal static class KeyReplies
{
    /// <summary>Decodes one reply: string (bulk or simple), long, null, or List&lt;object?&gt;; errors throw.</summary>
    public static object? Parse(string raw)
    {
        int pos = 0;
        var value = ParseAt(raw, ref pos);
        Assert.Equal(raw.Length, pos);
        return value;
    }

    /// <summary>The elements of an array reply of bulk strings (KEYS).</summary>
    public static List<string> Strings(string raw)
        => ((List<object?>)Parse(raw)!).Select(o => (string)o!).ToList();

    /// <summary>Runs SCAN from cursor 0 to the end; returns every key met, with repeats, and the call count.</summary>
    public static (List<string> Keys, int Calls) ScanAll(RespClient c, params string[] options)
    {
        var keys = new List<string>();
        string cursor = "0";
        int calls = 0;
        do
        {
            string raw = c.Call(["SCAN", cursor, .. options]);
            var reply = (List<object?>)Parse(raw)!;
            cursor = (string)reply[0]!;
            keys.AddRange(((List<object?>)reply[1]!).Select(o => (string)o!));
            calls++;
            Assert.True(calls < 1_000_000, "SCAN did not finish");
        } while (cursor != "0");
        return (keys, calls);
    }

    /// <summary>Asserts a TTL reply a few seconds at most below <paramref name="set"/> (slow machines lose time between calls).</summary>
    public static void AssertTtl(long set, string reply)
    {
        Assert.StartsWith(":", reply);
        Assert.InRange(long.Parse(reply[1..^2]), set - 5, set);
    }

    /// <summary>Sends every command in one write and returns the replies in order.</summary>
    public static List<string> Pipeline(RespClient c, IEnumerable<string[]> commands)
    {
        var batch = new MemoryStream();
        int n = 0;
        foreach (var cmd in commands)
        {
            batch.Write(RespClient.Encode(cmd));
            n++;
        }
        c.SendRaw(batch.ToArray());
        var replies = new List<string>(n);
        for (int i = 0; i < n; i++) replies.Add(c.ReadReply());
        return replies;
    }

    private static object? ParseAt(string raw, ref int pos)
    {
        int end = raw.IndexOf("\r\n", pos, StringComparison.Ordinal);
        char type = raw[pos];
        string line = raw.Substring(pos + 1, end - pos - 1);
        pos = end + 2;
        switch (type)
        {
            case '+':
                return line;
            case '-':
                throw new InvalidOperationException("error reply: " + line);
            case ':':
                return long.Parse(line);
            case '_':
                return null;
            case '$':
                {
                    int n = int.Parse(line);
                    if (n < 0) return null;
                    string s = raw.Substring(pos, n);
                    pos += n + 2;
                    return s;
                }
            case '*':
            case '~':
                {
                    int n = int.Parse(line);
                    if (n < 0) return null;
                    var list = new List<object?>(n);
                    for (int i = 0; i < n; i++) list.Add(ParseAt(raw, ref pos));
                    return list;
                }
            default:
                throw new InvalidDataException($"unexpected reply type {type}: {raw}");
        }
    }
}
