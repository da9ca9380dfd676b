using RedisClone.Protocol;

namespace RedisClone.Scripting;

/// <summary>The flag names scripts use, and EVAL's shebang line, parsed as Redis 7.2's evalExtractShebangFlags.</summary>
internal static class ScriptShebang
{
    /// <summary>Every flag a script may declare, with its name, in Redis's order.</summary>
    public static readonly (ScriptFlags Flag, string Name)[] Names =
    [
        (ScriptFlags.NoWrites, "no-writes"),
        (ScriptFlags.AllowOom, "allow-oom"),
        (ScriptFlags.AllowStale, "allow-stale"),
        (ScriptFlags.NoCluster, "no-cluster"),
        (ScriptFlags.AllowCrossSlotKeys, "allow-cross-slot-keys"),
    ];

    /// <summary>The flag called <paramref name="name"/> (exact, lower case), or None.</summary>
    public static ScriptFlags Find(ReadOnlySpan<byte> name)
    {
        foreach (var (flag, text) in Names)
            if (name.Length == text.Length && RespErrors.Latin(name) == text) return flag;
        return ScriptFlags.None;
    }

    /// <summary>
    /// A script that declared flags and neither allow-oom nor no-writes is refused when memory is
    /// over maxmemory with nothing to evict (Redis's scriptFlagsToCmdFlags gives it denyoom).
    /// </summary>
    public static bool DeniesOom(ScriptFlags flags)
        => (flags & ScriptFlags.EvalCompat) == 0 && (flags & (ScriptFlags.AllowOom | ScriptFlags.NoWrites)) == 0;

    /// <summary>A script that declared flags without no-writes is a write command (Redis's scriptFlagsToCmdFlags).</summary>
    public static bool MayWrite(ScriptFlags flags) => (flags & (ScriptFlags.EvalCompat | ScriptFlags.NoWrites)) == 0;

    /// <summary>
    /// Reads the shebang of an EVAL script, if it has one: its flags (or
    /// <see cref="ScriptFlags.EvalCompat"/> without one) and the length of the line before its line
    /// feed (the body is compiled from there, so line numbers stay the user's). Null on success, else
    /// Redis's error text.
    /// </summary>
    public static string? Parse(ReadOnlySpan<byte> body, out ScriptFlags flags, out int length)
    {
        flags = ScriptFlags.EvalCompat;
        length = 0;
        if (!body.StartsWith("#!"u8)) return null;
        int end = body.IndexOf((byte)'\n');
        if (end < 0) return "Invalid script shebang";
        length = end;
        var parts = new CommandBuffer();
        parts.BeginCommand();
        int count = InlineSplitter.Split(body[..end], parts);
        if (count <= 0) return "Invalid engine in script shebang";
        parts.EndCommand();
        var engine = parts.Arg(0, 0);
        if (!engine.SequenceEqual("#!lua"u8)) return "Unexpected engine in script shebang: " + RespErrors.Latin(engine);
        flags = ScriptFlags.None;
        for (int j = 1; j < count; j++)
        {
            var part = parts.Arg(0, j);
            if (!part.StartsWith("flags="u8)) return "Unknown lua shebang option: " + RespErrors.Latin(part);
            var list = part[6..];
            if (list.IsEmpty) continue;
            foreach (var range in list.Split((byte)','))
            {
                var name = list[range];
                var flag = Find(name);
                if (flag == ScriptFlags.None) return "Unexpected flag in script shebang: " + RespErrors.Latin(name);
                flags |= flag;
            }
        }
        return null;
    }
}
