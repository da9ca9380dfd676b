using System.Globalization;
using static RedisClone.Scripting.Libraries.LuaApi;

namespace RedisClone.Scripting.Libraries;

/// <summary>An error one of the script libraries reports: its text is what the script's error() shows.</summary>
internal sealed class LuaLibraryException(string message) : Exception(message)
{
    /// <summary>An error Lua itself raises in Redis (not luaL_error): its text has no "user_script:N: ".</summary>
    public bool Positionless { get; init; }

    /// <summary>For an argument error (luaL_argerror): the argument's number; the message is then only the parenthesised part.</summary>
    public int? Argument { get; init; }
}

/// <summary>
/// What the C# halves of cjson, cmsgpack, bit and struct share: the calling convention with their
/// Lua wrappers, Lua 5.1's argument checks and texts, and numbers as Redis's Lua 5.1 shows them.
/// </summary>
/// <remarks>
/// Convention: a function returns <c>true, results...</c>, or <c>false, message</c> and the wrapper
/// (<see cref="LuaLibrarySource"/>) raises the message at the script's line, as luaL_error does in
/// Redis. A C# callback never raises a Lua error itself (no longjmp over managed frames): deep in a
/// library, errors travel as <see cref="LuaLibraryException"/> up to the entry point, which turns
/// them into <c>false, message</c>.
/// </remarks>
internal static unsafe class LuaLibrary
{
    /// <summary>Lua 5.1's stack limit for one C function (LUAI_MAXCSTACK), which bounds nesting in Redis's libraries.</summary>
    public const int MaxCStack = 8000;

    private static readonly string[] ExponentFormats =
        Enumerable.Range(0, 17).Select(p => "E" + p.ToString(CultureInfo.InvariantCulture)).ToArray();

    /// <summary>
    /// Returns <c>false, message, positionless, argument</c> to the wrapper, which raises the error
    /// at the script's line (no position when <c>positionless</c>). For an argument error the
    /// wrapper writes "bad argument #n to 'name' (message)" itself: the name is the one the caller
    /// used (as Lua 5.1 finds it), '?' when called through pcall. Any other exception (a bug)
    /// becomes a script error too: nothing managed may unwind into Lua's native frames.
    /// </summary>
    public static int Fail(IntPtr l, Exception exception)
    {
        lua_checkstack(l, 4);
        lua_pushboolean(l, 0);
        if (exception is not LuaLibraryException e)
        {
            PushString(l, "internal error: " + exception.Message);
            return 2;
        }
        PushString(l, e.Message);
        lua_pushboolean(l, e.Positionless ? 1 : 0);
        if (e.Argument is not int argument) return 3;
        lua_pushinteger(l, argument);
        return 4;
    }

    /// <summary>
    /// Returns <c>true, n, results</c>: the values from <paramref name="first"/> to the top moved
    /// into a table, for the wrappers of functions with a variable number of results.
    /// </summary>
    public static int ReturnPacked(IntPtr l, int first)
    {
        int count = lua_gettop(l) - first + 1;
        lua_checkstack(l, 4);
        lua_createtable(l, count, 0);
        lua_rotate(l, first, 1);
        for (int k = count; k >= 1; k--) lua_rawseti(l, first, k);
        lua_pushboolean(l, 1);
        lua_pushinteger(l, count);
        lua_pushvalue(l, first);
        return 3;
    }

    /// <summary>luaL_argerror: "bad argument #n to 'name' (extra)", the name filled in by the wrapper.</summary>
    public static LuaLibraryException ArgError(int arg, string function, string extra)
    {
        _ = function; // the wrapper knows the name the script used
        return new LuaLibraryException(extra) { Argument = arg };
    }

    /// <summary>luaL_typerror's text: "bad argument #n to 'name' (number expected, got string)".</summary>
    public static LuaLibraryException TypeError(IntPtr l, int index, int arg, string function, string expected)
        => ArgError(arg, function, $"{expected} expected, got {TypeName(l, index)}");

    /// <summary>luaL_typename as Lua 5.1 names the value at <paramref name="index"/> ("no value" past the top).</summary>
    public static string TypeName(IntPtr l, int index) => lua_type(l, index) switch
    {
        TNone => "no value",
        TNil => "nil",
        TBoolean => "boolean",
        TLightUserData or TUserData => "userdata",
        TNumber => "number",
        TString => "string",
        TTable => "table",
        TFunction => "function",
        _ => "thread",
    };

    /// <summary>lua_isnumber: a number or a string that converts to one.</summary>
    public static bool TryNumber(IntPtr l, int index, out double value)
    {
        int isNumber;
        value = lua_tonumberx(l, index, &isNumber);
        return isNumber != 0;
    }

    /// <summary>luaL_checknumber; <paramref name="arg"/> is the argument's number in error texts.</summary>
    public static double CheckNumber(IntPtr l, int index, int arg, string function)
        => TryNumber(l, index, out double value) ? value : throw TypeError(l, index, arg, function, "number");

    /// <summary>luaL_checkinteger of Lua 5.1: a number, truncated toward zero.</summary>
    public static long CheckInteger(IntPtr l, int index, int arg, string function)
        => ToInteger(CheckNumber(l, index, arg, function));

    /// <summary>C's cast of a double to a 64-bit integer (truncation; out of range gives INT64_MIN as on x86-64).</summary>
    public static long ToInteger(double d)
        => d >= -9223372036854775808.0 && d < 9223372036854775808.0 ? (long)d : long.MinValue;

    /// <summary>
    /// luaL_checklstring of Lua 5.1: a string's bytes, or a number's text (%.14g, written into
    /// <paramref name="scratch"/>, at least 32 bytes); anything else is an argument error.
    /// </summary>
    public static ReadOnlySpan<byte> CheckString(IntPtr l, int index, int arg, string function, Span<byte> scratch)
    {
        int type = lua_type(l, index);
        if (type == TString) return StringAt(l, index);
        if (type == TNumber) return scratch[..FormatNumber(NumberAt(l, index), 14, scratch)];
        throw TypeError(l, index, arg, function, "string");
    }

    /// <summary>
    /// Pushes a number as Redis's Lua 5.1 would hold it (a double), in the form that prints the same
    /// in Lua 5.4: an integral value under 10^14 becomes an integer, so that <c>..</c> writes "1"
    /// and not "1.0"; anything else stays a float (%.14g already shows 1e+14 and 1.5 alike).
    /// </summary>
    public static void PushNumber(IntPtr l, double d)
    {
        if (d == Math.Floor(d) && Math.Abs(d) < 1e14 && !(d == 0 && double.IsNegative(d))) lua_pushinteger(l, (long)d);
        else lua_pushnumber(l, d);
    }

    /// <summary>
    /// Writes <paramref name="value"/> as C's printf("%.<paramref name="precision"/>g") does
    /// (precision 1 to 17): "3", "0.1", "1e+20", "1.2345678901234e+14", "inf", "-nan" is "nan" here
    /// as cjson writes it. Returns the byte count (at most 32).
    /// </summary>
    public static int FormatNumber(double value, int precision, Span<byte> dest)
    {
        if (double.IsNaN(value)) return Write(dest, double.IsNegative(value) ? "-nan"u8 : "nan"u8);
        if (double.IsInfinity(value)) return Write(dest, value < 0 ? "-inf"u8 : "inf"u8);
        // .NET's "E" formatting rounds correctly to the requested digits, as glibc's printf does.
        Span<char> text = stackalloc char[40];
        value.TryFormat(text, out int length, ExponentFormats[precision - 1], CultureInfo.InvariantCulture);
        text = text[..length];
        int pos = 0;
        bool negative = text[0] == '-';
        if (negative) text = text[1..];
        Span<byte> digits = stackalloc byte[17];
        int count = 0;
        int e = 0;
        for (; e < text.Length && text[e] != 'E'; e++)
            if (text[e] != '.') digits[count++] = (byte)text[e];
        int exponent = int.Parse(text[(e + 1)..], NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture);
        int significant = count;
        while (significant > 1 && digits[significant - 1] == (byte)'0') significant--;
        if (negative) dest[pos++] = (byte)'-';
        if (exponent < -4 || exponent >= precision)
        {
            dest[pos++] = digits[0];
            if (significant > 1)
            {
                dest[pos++] = (byte)'.';
                digits[1..significant].CopyTo(dest[pos..]);
                pos += significant - 1;
            }
            dest[pos++] = (byte)'e';
            dest[pos++] = exponent < 0 ? (byte)'-' : (byte)'+';
            int magnitude = Math.Abs(exponent);
            if (magnitude >= 100) dest[pos++] = (byte)('0' + magnitude / 100);
            dest[pos++] = (byte)('0' + magnitude / 10 % 10);
            dest[pos++] = (byte)('0' + magnitude % 10);
        }
        else if (exponent >= 0)
        {
            digits[..(exponent + 1)].CopyTo(dest[pos..]);
            pos += exponent + 1;
            if (significant > exponent + 1)
            {
                dest[pos++] = (byte)'.';
                digits[(exponent + 1)..significant].CopyTo(dest[pos..]);
                pos += significant - exponent - 1;
            }
        }
        else
        {
            dest[pos++] = (byte)'0';
            dest[pos++] = (byte)'.';
            for (int z = -1; z > exponent; z--) dest[pos++] = (byte)'0';
            digits[..significant].CopyTo(dest[pos..]);
            pos += significant;
        }
        return pos;
    }

    private static int Write(Span<byte> dest, ReadOnlySpan<byte> text)
    {
        text.CopyTo(dest);
        return text.Length;
    }
}
