using RedisClone.Common;
using RedisClone.Protocol;

namespace RedisClone.Commands;

/// <summary>The [MATCH pattern] [COUNT count] options HSCAN, SSCAN and ZSCAN share, parsed as Redis does.</summary>
internal static class ScanArguments
{
    /// <summary>
    /// Reads the options from argument 3 on. Replies Redis's error and returns false when they are
    /// malformed; <paramref name="pattern"/> is null when no MATCH was given or it matches everything.
    /// </summary>
    public static bool TryParse(ref CommandContext ctx, out long count, out byte[]? pattern)
    {
        count = 10;
        pattern = null;
        int patternArg = -1;
        for (int i = 3; i < ctx.ArgCount; i += 2)
        {
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
            else
            {
                ctx.Syntax();
                return false;
            }
        }
        if (patternArg > 0)
        {
            var p = ctx.Arg(patternArg);
            if (!(p.Length == 1 && p[0] == (byte)'*')) pattern = p.ToArray();
        }
        return true;
    }
}
