using RedisClone.Common;
using RedisClone.Protocol;

namespace RedisClone.Commands;

/// <summary>
/// The cursor and the [MATCH pattern] [COUNT count] [TYPE type] options SCAN, HSCAN, SSCAN and ZSCAN
/// share, parsed as Redis's parseScanCursorOrReply and scanGenericCommand do.
/// </summary>
/// <remarks>
/// Options may come in any order and repeat (the last one wins); COUNT below 1 is a syntax error, a
/// COUNT that is no integer is "value is not an integer"; TYPE is SCAN's alone (HSCAN ... TYPE is a
/// syntax error; NOVALUES is HSCAN's alone since Redis 7.4, and elsewhere has its own error).
/// </remarks>
internal static class ScanArguments
{
    /// <summary>COUNT when none is given.</summary>
    public const long DefaultCount = 10;

    /// <summary>
    /// Reads the cursor at argument <paramref name="index"/>; replies "ERR invalid cursor" and returns
    /// false when it is not one.
    /// </summary>
    public static bool TryReadCursor(ref CommandContext ctx, int index, out ulong cursor)
    {
        if (TryParseCursor(ctx.Arg(index), out cursor)) return true;
        ctx.Error(RespErrors.CursorInvalid);
        return false;
    }

    /// <summary>
    /// A SCAN cursor as C's strtoul reads it (Redis's parseScanCursorOrReply): an optional sign,
    /// decimal digits, nothing after them, no leading space, no overflow. A minus sign wraps
    /// ("-1" is 2^64-1) and the empty string is cursor 0, both quirks Redis shows.
    /// </summary>
    public static bool TryParseCursor(ReadOnlySpan<byte> text, out ulong cursor)
    {
        cursor = 0;
        if (text.IsEmpty) return true;
        int i = 0;
        bool negative = false;
        if (text[0] == (byte)'+' || text[0] == (byte)'-')
        {
            negative = text[0] == (byte)'-';
            i++;
        }
        int digitsStart = i;
        ulong value = 0;
        for (; i < text.Length; i++)
        {
            uint digit = (uint)(text[i] - '0');
            if (digit > 9) return false;
            if (value > (ulong.MaxValue - digit) / 10) return false;
            value = value * 10 + digit;
        }
        if (i == digitsStart) return false; // a lone sign: strtoul consumed nothing
        cursor = negative ? 0 - value : value;
        return true;
    }

    /// <summary>
    /// Reads the options from argument <paramref name="first"/> on; TYPE is accepted only when
    /// <paramref name="allowType"/>. Replies Redis's error and returns false when they are malformed.
    /// <paramref name="patternArg"/> is the index of the MATCH pattern, or -1 when there is none or it
    /// is "*" (matches everything); <paramref name="typeArg"/> likewise for TYPE.
    /// </summary>
    public static bool TryParse(ref CommandContext ctx, int first, bool allowType, out long count, out int patternArg,
        out int typeArg) => TryParse(ref ctx, first, allowType, allowNoValues: false, out count, out patternArg, out typeArg, out _);

    /// <summary>
    /// The options, with Redis 7.4's NOVALUES: a flag HSCAN takes (<paramref name="allowNoValues"/>);
    /// anywhere else it is "NOVALUES option can only be used in HSCAN".
    /// </summary>
    public static bool TryParse(ref CommandContext ctx, int first, bool allowType, bool allowNoValues, out long count,
        out int patternArg, out int typeArg, out bool noValues)
    {
        count = DefaultCount;
        patternArg = -1;
        typeArg = -1;
        noValues = false;
        for (int i = first; i < ctx.ArgCount; i += 2)
        {
            if (ctx.ArgIs(i, "NOVALUES"))
            {
                if (!allowNoValues)
                {
                    ctx.Error(RespErrors.NoValuesOnlyHScan);
                    return false;
                }
                noValues = true;
                i--; // a flag: one argument, not two
                continue;
            }
            bool hasValue = i + 1 < ctx.ArgCount;
            if (ctx.ArgIs(i, "COUNT") && hasValue)
            {
                if (!RedisNumbers.TryParseInt64(ctx.Arg(i + 1), out count))
                {
                    ctx.Error(RespErrors.NotInteger);
                    return false;
                }
                if (count < 1)
                {
                    ctx.Syntax();
                    return false;
                }
            }
            else if (ctx.ArgIs(i, "MATCH") && hasValue)
            {
                patternArg = i + 1;
            }
            else if (allowType && ctx.ArgIs(i, "TYPE") && hasValue)
            {
                typeArg = i + 1;
            }
            else
            {
                ctx.Syntax();
                return false;
            }
        }
        if (patternArg > 0)
        {
            var p = ctx.Arg(patternArg);
            if (p.Length == 1 && p[0] == (byte)'*') patternArg = -1;
        }
        return true;
    }

    /// <summary>
    /// HSCAN, SSCAN and ZSCAN's options (argument 3 on, no TYPE); <paramref name="pattern"/> is a copy
    /// of the MATCH pattern, or null when none was given or it matches everything.
    /// </summary>
    public static bool TryParse(ref CommandContext ctx, out long count, out byte[]? pattern)
        => TryParse(ref ctx, allowNoValues: false, out count, out pattern, out _);

    /// <summary><see cref="TryParse(ref CommandContext, out long, out byte[])"/> with HSCAN's NOVALUES when <paramref name="allowNoValues"/>.</summary>
    public static bool TryParse(ref CommandContext ctx, bool allowNoValues, out long count, out byte[]? pattern, out bool noValues)
    {
        pattern = null;
        if (!TryParse(ref ctx, 3, allowType: false, allowNoValues, out count, out int patternArg, out _, out noValues)) return false;
        if (patternArg > 0) pattern = ctx.Arg(patternArg).ToArray();
        return true;
    }
}
