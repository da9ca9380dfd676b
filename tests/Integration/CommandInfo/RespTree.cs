using System.Buffers;
using System.Text;
using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Tests.Infrastructure;

namespace RedisClone.Tests.CommandInfo;

/// <summary>
/// A raw RESP reply split into a tree that keeps each node's exact bytes, so tests can compare
/// replies part by part (and ignore the order of the parts Redis emits in hash-table order).
/// </summary>
internal sealed class RespTree
{
    public required char Type;
    /// <summary>The exact bytes of this node, header and children included (Latin-1).</summary>
    public required string Raw;
    /// <summary>The text of a simple, bulk or verbatim string; the number of an integer.</summary>
    public string? Text;
    public List<RespTree> Children = [];

    public bool IsNull => Type == '_' || Raw is "$-1\r\n" or "*-1\r\n";

    public static RespTree Parse(string raw)
    {
        int pos = 0;
        var node = ParseAt(raw, ref pos);
        if (pos != raw.Length) throw new InvalidDataException("trailing bytes after the reply");
        return node;
    }

    /// <summary>Pairs of a map (RESP3) or of a flat key/value array (RESP2).</summary>
    public List<(string Key, RespTree Value)> Pairs()
    {
        var pairs = new List<(string, RespTree)>();
        for (int i = 0; i + 1 < Children.Count; i += 2) pairs.Add((Children[i].Text!, Children[i + 1]));
        return pairs;
    }

    private static RespTree ParseAt(string raw, ref int pos)
    {
        int start = pos;
        int eol = raw.IndexOf("\r\n", pos, StringComparison.Ordinal);
        char type = raw[pos];
        string line = raw.Substring(pos + 1, eol - pos - 1);
        pos = eol + 2;
        var node = new RespTree { Type = type, Raw = "" };
        switch (type)
        {
            case '$' or '=' or '!':
                int len = int.Parse(line);
                if (len >= 0)
                {
                    node.Text = raw.Substring(pos, len);
                    pos += len + 2;
                }
                break;
            case '*' or '~' or '>' or '%' or '|':
                int n = int.Parse(line);
                if (type is '%' or '|') n *= 2;
                for (int i = 0; i < n; i++) node.Children.Add(ParseAt(raw, ref pos));
                break;
            default:
                node.Text = line;
                break;
        }
        node.Raw = raw.Substring(start, pos - start);
        return node;
    }
}

/// <summary>Runs a command straight through its handler, in RESP2 or RESP3, without a connection.</summary>
internal static class InProcess
{
    public static string Call(int protocol, params string[] args)
    {
        var server = TestServer.Shared.Server;
        var buffer = new CommandBuffer();
        buffer.BeginCommand();
        foreach (var a in args)
        {
            var bytes = Encoding.UTF8.GetBytes(a);
            bytes.CopyTo(buffer.AddArg(bytes.Length));
        }
        buffer.EndCommand();
        var def = server.Commands.Find(buffer.Arg(0, 0)) ?? throw new ArgumentException("unknown command");
        if (def.Subcommands != null && args.Length > 1) def = def.FindSubcommand(buffer.Arg(0, 1)) ?? throw new ArgumentException("unknown subcommand");
        var output = new ArrayBufferWriter<byte>();
        var session = new ClientSession(0, null, null, () => { }) { Protocol = protocol };
        var ctx = new CommandContext(buffer, 0, new RespWriter(output, protocol), session, server,
            DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());
        def.Handler(ref ctx);
        return Encoding.Latin1.GetString(output.WrittenSpan);
    }
}
