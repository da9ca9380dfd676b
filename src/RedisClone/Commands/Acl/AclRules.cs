using System.Text;

namespace RedisClone.Commands.Acl;

/// <summary>Splitting ACL rule text: sdssplitargs-style quoting, and selectors spread over several arguments.</summary>
internal static class AclRules
{
    /// <summary>
    /// Joins a selector written across several arguments ("(+get", "~key)") into one, as Redis
    /// lets ACL SETUSER and user directives do. Null when a '(' is never closed, with the index of the
    /// argument that opened it.
    /// </summary>
    public static List<string>? MergeSelectors(IReadOnlyList<string> rules, out int unmatched)
    {
        unmatched = -1;
        var merged = new List<string>(rules.Count);
        StringBuilder? selector = null;
        int openedAt = -1;
        for (int j = 0; j < rules.Count; j++)
        {
            var op = rules[j];
            if (openedAt < 0 && op.Length > 0 && op[0] == '(' && op[^1] != ')')
            {
                selector = new StringBuilder(op);
                openedAt = j;
                continue;
            }
            if (openedAt >= 0)
            {
                selector!.Append(' ').Append(op);
                if (op.Length > 0 && op[^1] == ')')
                {
                    merged.Add(selector.ToString());
                    openedAt = -1;
                }
                continue;
            }
            merged.Add(op);
        }
        if (openedAt >= 0)
        {
            unmatched = openedAt;
            return null;
        }
        return merged;
    }

    /// <summary>Splits a line into arguments with sdssplitargs's quoting; null for unbalanced quotes.</summary>
    public static List<string>? SplitArgs(string line)
    {
        var buffer = new Protocol.CommandBuffer();
        buffer.BeginCommand();
        int count = Protocol.InlineSplitter.Split(Encoding.Latin1.GetBytes(line), buffer);
        if (count < 0) return null;
        buffer.EndCommand();
        var args = new List<string>(count);
        for (int a = 0; a < count; a++) args.Add(Encoding.Latin1.GetString(buffer.Arg(0, a)));
        return args;
    }
}
