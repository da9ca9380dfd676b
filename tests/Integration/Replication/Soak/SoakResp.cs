using System.Text;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.Replication.Soak;

/// <summary>An error reply (-ERR ..., -WRONGTYPE ...), kept apart from a simple string.</summary>
internal sealed record SoakError(string Text);

/// <summary>
/// The soak's view of RESP: pipelining (a batch of commands written at once, then every reply
/// read) and replies parsed into plain values: a simple or bulk string as a Latin-1 string (every
/// byte kept), an integer as long, a nil as null, an array as a list, an error as <see cref="SoakError"/>.
/// </summary>
internal static class SoakResp
{
    /// <summary>Sends every command in one write and reads their replies, in order, as raw bytes.</summary>
    public static List<byte[]> Pipeline(RespClient client, IReadOnlyList<byte[][]> commands)
    {
        var replies = new List<byte[]>(commands.Count);
        if (commands.Count == 0) return replies;
        var buffer = new MemoryStream();
        foreach (var command in commands) buffer.Write(RespClient.Encode(command));
        client.SendRaw(buffer.ToArray());
        for (int i = 0; i < commands.Count; i++) replies.Add(client.ReadReplyBytes());
        return replies;
    }

    /// <summary>The same, with the replies parsed.</summary>
    public static List<object?> PipelineParsed(RespClient client, IReadOnlyList<byte[][]> commands)
        => Pipeline(client, commands).Select(Parse).ToList();

    public static byte[][] Cmd(params string[] args) => args.Select(a => Encoding.Latin1.GetBytes(a)).ToArray();

    public static object? Parse(byte[] reply)
    {
        int pos = 0;
        return ParseValue(reply, ref pos, 0);
    }

    // Recursion bounded by the replies the soak asks for (XINFO STREAM FULL nests five deep).
    private static object? ParseValue(byte[] b, ref int pos, int depth)
    {
        if (depth > 32) throw new InvalidDataException("reply nested too deep");
        char kind = (char)b[pos];
        string line = ReadLine(b, ref pos)[1..];
        switch (kind)
        {
            case '+': return line;
            case '-': return new SoakError(line);
            case ':': return long.Parse(line);
            case '_': return null;
            case '$':
            case '=':
                {
                    int n = int.Parse(line);
                    if (n < 0) return null;
                    string s = Encoding.Latin1.GetString(b, pos, n);
                    pos += n + 2;
                    return s;
                }
            case '*':
            case '~':
            case '>':
                {
                    int n = int.Parse(line);
                    if (n < 0) return null;
                    var list = new List<object?>(n);
                    for (int i = 0; i < n; i++) list.Add(ParseValue(b, ref pos, depth + 1));
                    return list;
                }
            default:
                throw new InvalidDataException($"unexpected reply type '{kind}'");
        }
    }

    private static string ReadLine(byte[] b, ref int pos)
    {
        int start = pos;
        while (!(b[pos] == '\r' && b[pos + 1] == '\n')) pos++;
        string line = Encoding.Latin1.GetString(b, start, pos - start);
        pos += 2;
        return line;
    }

    /// <summary>A parsed reply written out compactly (for comparisons and messages).</summary>
    public static string Format(object? value)
    {
        var sb = new StringBuilder();
        Format(sb, value, 0);
        return sb.ToString();
    }

    private static void Format(StringBuilder sb, object? value, int depth)
    {
        switch (value)
        {
            case null: sb.Append("(nil)"); break;
            case string s: sb.Append('"').Append(s).Append('"'); break;
            case long n: sb.Append(n); break;
            case SoakError e: sb.Append("(error ").Append(e.Text).Append(')'); break;
            case List<object?> list:
                sb.Append('[');
                for (int i = 0; i < list.Count; i++)
                {
                    if (i > 0) sb.Append(',');
                    if (depth < 32) Format(sb, list[i], depth + 1);
                }
                sb.Append(']');
                break;
            default: sb.Append(value); break;
        }
    }
}
