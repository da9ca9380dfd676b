using static RedisClone.Scripting.Libraries.LuaApi;
using static RedisClone.Scripting.Libraries.LuaLibrary;

namespace RedisClone.Scripting.Libraries;

/// <summary>
/// The C# half of the <c>bit</c> library Redis loads into scripts (LuaBitOp 1.0.2): 32-bit
/// operations whose results are signed 32-bit integers, with LuaBitOp's number normalisation
/// (round half to even, then the low 32 bits: 2^32 + 5 is 5, 2.5 is 2).
/// </summary>
internal static class LuaBit
{
    public static readonly KeraLua.LuaFunction Function = Run;

    /// <summary>The operations, as the wrappers number them.</summary>
    private static readonly string[] Names =
        ["", "tobit", "bnot", "band", "bor", "bxor", "lshift", "rshift", "arshift", "rol", "ror", "bswap", "tohex"];

    /// <summary>__bit(op, ...) → true, result | false, message. Argument #n of the script is at index n + 1.</summary>
    private static int Run(IntPtr l)
    {
        int op = (int)IntegerAt(l, 1);
        string name = Names[op];
        try
        {
            uint b = Arg(l, 1, name);
            switch (op)
            {
                case 1:
                    break;
                case 2:
                    b = ~b;
                    break;
                case 3 or 4 or 5:
                    // LuaBitOp reads the other arguments from the last one down.
                    for (int i = lua_gettop(l) - 1; i > 1; i--)
                    {
                        uint v = Arg(l, i, name);
                        b = op == 3 ? b & v : op == 4 ? b | v : b ^ v;
                    }
                    break;
                case 11:
                    b = (b >> 24) | ((b >> 8) & 0xff00) | ((b & 0xff00) << 8) | (b << 24);
                    break;
                case 12:
                    return ToHex(l, b);
                default:
                    int n = (int)(Arg(l, 2, name) & 31);
                    b = op switch
                    {
                        6 => b << n,
                        7 => b >> n,
                        8 => (uint)((int)b >> n),
                        9 => (b << n) | (b >> (32 - n)),
                        _ => (b << (32 - n)) | (b >> n),
                    };
                    break;
            }
            lua_pushboolean(l, 1);
            lua_pushinteger(l, (int)b);
            return 2;
        }
        catch (Exception e)
        {
            return Fail(l, e);
        }
    }

    /// <summary>
    /// barg: the number plus 2^52 + 2^51, whose low 32 mantissa bits are the value rounded to an
    /// integer modulo 2^32. A non-number (Lua 5.1's lua_tonumber gives 0) is a type error.
    /// </summary>
    private static uint Arg(IntPtr l, int arg, string name)
    {
        bool isNumber = TryNumber(l, arg + 1, out double n);
        uint b = (uint)BitConverter.DoubleToInt64Bits((isNumber ? n : 0) + 6755399441055744.0);
        if (b == 0 && !isNumber) throw TypeError(l, arg + 1, arg, name, "number");
        return b;
    }

    /// <summary>bit.tohex(x [, n]): n hex digits (8 by default, at most 8), upper case when n is negative.</summary>
    private static int ToHex(IntPtr l, uint b)
    {
        int n = lua_type(l, 3) == TNone ? 8 : (int)Arg(l, 2, "tohex");
        if (n == int.MinValue) n = int.MinValue + 1;
        ReadOnlySpan<byte> digits = "0123456789abcdef"u8;
        if (n < 0)
        {
            n = -n;
            digits = "0123456789ABCDEF"u8;
        }
        if (n > 8) n = 8;
        Span<byte> text = stackalloc byte[8];
        for (int i = n; --i >= 0;)
        {
            text[i] = digits[(int)(b & 15)];
            b >>= 4;
        }
        lua_pushboolean(l, 1);
        PushBytes(l, text[..n]);
        return 2;
    }
}
