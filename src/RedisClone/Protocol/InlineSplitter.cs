namespace RedisClone.Protocol;

/// <summary>
/// Splits an inline command line into arguments with the quoting rules of Redis's
/// <c>sdssplitargs</c>: double quotes with <c>\n \r \t \b \a \xHH</c> escapes, single quotes with
/// <c>\'</c>, and a closing quote that must be followed by a space or the end of the line.
/// </summary>
internal static class InlineSplitter
{
    /// <summary>Appends the arguments to <paramref name="commands"/>; returns their count, or -1 for unbalanced quotes.</summary>
    public static int Split(ReadOnlySpan<byte> line, CommandBuffer commands)
    {
        var sink = new BufferSink(commands);
        return Split(line, ref sink);
    }

    /// <summary>The arguments of a configuration line (Latin-1 text, one char per byte), or null for unbalanced quotes.</summary>
    public static List<string>? Split(string line)
    {
        var sink = new ListSink(new List<string>());
        return Split(System.Text.Encoding.Latin1.GetBytes(line), ref sink) < 0 ? null : sink.Args;
    }

    private interface IArgSink
    {
        void Add(ReadOnlySpan<byte> arg);
    }

    private readonly struct BufferSink(CommandBuffer commands) : IArgSink
    {
        public void Add(ReadOnlySpan<byte> arg) => arg.CopyTo(commands.AddArg(arg.Length));
    }

    private readonly struct ListSink(List<string> args) : IArgSink
    {
        public List<string> Args => args;
        public void Add(ReadOnlySpan<byte> arg) => args.Add(System.Text.Encoding.Latin1.GetString(arg));
    }

    private static int Split<TSink>(ReadOnlySpan<byte> line, ref TSink sink) where TSink : struct, IArgSink
    {
        int count = 0;
        int p = 0;
        Span<byte> scratch = line.Length <= 1024 ? stackalloc byte[line.Length] : new byte[line.Length];
        while (true)
        {
            while (p < line.Length && IsSpace(line[p])) p++;
            if (p >= line.Length) return count;

            int len = 0;
            bool inDouble = false, inSingle = false, done = false;
            while (!done)
            {
                if (inDouble)
                {
                    if (p >= line.Length) return -1;
                    byte c = line[p];
                    if (c == '\\' && p + 3 < line.Length && line[p + 1] == 'x' && IsHex(line[p + 2]) && IsHex(line[p + 3]))
                    {
                        scratch[len++] = (byte)(HexValue(line[p + 2]) * 16 + HexValue(line[p + 3]));
                        p += 3;
                    }
                    else if (c == '\\' && p + 1 < line.Length)
                    {
                        p++;
                        scratch[len++] = line[p] switch
                        {
                            (byte)'n' => (byte)'\n',
                            (byte)'r' => (byte)'\r',
                            (byte)'t' => (byte)'\t',
                            (byte)'b' => (byte)'\b',
                            (byte)'a' => (byte)'\a',
                            var other => other,
                        };
                    }
                    else if (c == '"')
                    {
                        if (p + 1 < line.Length && !IsSpace(line[p + 1])) return -1;
                        done = true;
                    }
                    else
                    {
                        scratch[len++] = c;
                    }
                }
                else if (inSingle)
                {
                    if (p >= line.Length) return -1;
                    byte c = line[p];
                    if (c == '\\' && p + 1 < line.Length && line[p + 1] == '\'')
                    {
                        p++;
                        scratch[len++] = (byte)'\'';
                    }
                    else if (c == '\'')
                    {
                        if (p + 1 < line.Length && !IsSpace(line[p + 1])) return -1;
                        done = true;
                    }
                    else
                    {
                        scratch[len++] = c;
                    }
                }
                else
                {
                    if (p >= line.Length) { done = true; break; }
                    byte c = line[p];
                    switch (c)
                    {
                        case (byte)' ': case (byte)'\n': case (byte)'\r': case (byte)'\t': case 0:
                            done = true;
                            break;
                        case (byte)'"': inDouble = true; break;
                        case (byte)'\'': inSingle = true; break;
                        default: scratch[len++] = c; break;
                    }
                }
                if (p < line.Length) p++;
            }
            sink.Add(scratch.Slice(0, len));
            count++;
        }
    }

    /// <summary>C's isspace in the "C" locale.</summary>
    private static bool IsSpace(byte c) => c == ' ' || (c >= '\t' && c <= '\r');

    private static bool IsHex(byte c) => (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');

    private static int HexValue(byte c) => c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}
