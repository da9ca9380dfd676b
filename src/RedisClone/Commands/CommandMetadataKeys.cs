namespace RedisClone.Commands;

/// <summary>Finding a command's keys from its key specs, as COMMAND GETKEYS and GETKEYSANDFLAGS report them.</summary>
internal static partial class CommandMetadata
{
    /// <summary>True when the command has keys at all: a key finder, or a key spec that is not "not_key".</summary>
    public static bool HasKeys(CommandDef def)
    {
        if (def.KeyFinder != null) return true;
        foreach (var spec in Of(def).KeySpecs)
            if ((spec.Flags & KeySpecFlags.NotKey) == 0) return true;
        return false;
    }

    /// <summary>
    /// Adds the positions and flags of the keys in <paramref name="args"/> (args[0] is the command
    /// name) to <paramref name="keys"/>, walking the key specs as Redis does. Returns false when a
    /// spec cannot be followed (an unknown or incomplete spec, a bad key count, positions past the end):
    /// the caller then asks the command's own key finder, if it has one. Specs whose flags vary with
    /// the arguments go through the entry's flags hook.
    /// </summary>
    public static bool TryGetKeysFromSpecs(CommandDef def, byte[][] args, List<(int Position, KeySpecFlags Flags)> keys)
    {
        var meta = Of(def);
        bool anyKey = false, variable = false;
        foreach (var spec in meta.KeySpecs)
        {
            anyKey |= (spec.Flags & KeySpecFlags.NotKey) == 0;
            variable |= (spec.Flags & KeySpecFlags.VariableFlags) != 0;
        }
        // Like Redis, variable flags are only trusted when something computes them.
        if (!anyKey || (variable && meta.VarFlags == null)) return false;

        int argc = args.Length;
        foreach (var spec in meta.KeySpecs)
        {
            if ((spec.Flags & KeySpecFlags.NotKey) != 0) continue;
            int first;
            switch (spec.Begin)
            {
                case BeginSearch.Index:
                    first = spec.Index;
                    break;
                case BeginSearch.Keyword:
                    first = FindKeyword(args, spec);
                    // A missing keyword only means this role has no key in this call.
                    if (first == 0) continue;
                    break;
                default:
                    return Invalid(keys);
            }

            int last, step;
            switch (spec.Find)
            {
                case FindKeys.Range:
                    step = spec.KeyStep;
                    if (spec.LastKeyOrNumIdx >= 0) last = first + spec.LastKeyOrNumIdx;
                    else if (spec.Limit == 0) last = argc + spec.LastKeyOrNumIdx;
                    else last = first + ((argc - first) / spec.Limit + spec.LastKeyOrNumIdx);
                    break;
                case FindKeys.KeyNum:
                    step = spec.KeyStep;
                    int countAt = first + spec.LastKeyOrNumIdx;
                    if (countAt >= argc || !Common.RedisNumbers.TryParseInt64(args[countAt], out long count) || count < 0)
                        return Invalid(keys);
                    first += spec.FirstKey;
                    last = first + (int)Math.Min(count, int.MaxValue / 2) - 1;
                    break;
                default:
                    return Invalid(keys);
            }

            if (last >= argc || last < first || first >= argc) return Invalid(keys);
            for (int i = first; i <= last; i += step)
            {
                var flags = spec.Flags;
                if ((flags & KeySpecFlags.VariableFlags) != 0) flags = meta.VarFlags!(args, i, flags);
                keys.Add((i, flags));
            }
            if ((spec.Flags & KeySpecFlags.Incomplete) != 0) return Invalid(keys);
        }
        return true;
    }

    /// <summary>The index after the spec's keyword (searched from its start, backwards if negative), or 0.</summary>
    private static int FindKeyword(byte[][] args, KeySpec spec)
    {
        int argc = args.Length;
        int start = spec.Index > 0 ? spec.Index : argc + spec.Index;
        int end = spec.Index > 0 ? argc - 1 : 1;
        for (int i = start; ; i = start <= end ? i + 1 : i - 1)
        {
            // Redis stops before testing the end position: a keyword there could not be followed by a key.
            if (i == end || i >= argc || i < 1) return 0;
            if (System.Text.Ascii.EqualsIgnoreCase(args[i], spec.Keyword!)) return i + 1;
        }
    }

    private static bool Invalid(List<(int, KeySpecFlags)> keys)
    {
        keys.Clear();
        return false;
    }
}
