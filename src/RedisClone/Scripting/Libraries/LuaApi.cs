using System.Runtime.InteropServices;

namespace RedisClone.Scripting.Libraries;

/// <summary>
/// The few Lua C API calls the script libraries make, bound directly to KeraLua's native Lua 5.4
/// (liblua54) on the raw state pointer: no wrapper object per call, and strings read and pushed as
/// spans (KeraLua's ToBuffer/PushBuffer copy through a new byte[] each time).
/// </summary>
/// <remarks>None of these raises a Lua error for the uses here (raw access, no metamethods).</remarks>
internal static unsafe partial class LuaApi
{
    private const string Lib = "lua54";

    public const int TNone = -1, TNil = 0, TBoolean = 1, TLightUserData = 2, TNumber = 3, TString = 4,
        TTable = 5, TFunction = 6, TUserData = 7, TThread = 8;

    [LibraryImport(Lib)] public static partial int lua_gettop(IntPtr l);
    [LibraryImport(Lib)] public static partial void lua_settop(IntPtr l, int index);
    [LibraryImport(Lib)] public static partial int lua_type(IntPtr l, int index);
    [LibraryImport(Lib)] public static partial int lua_checkstack(IntPtr l, int n);
    [LibraryImport(Lib)] public static partial void lua_rotate(IntPtr l, int index, int n);
    [LibraryImport(Lib)] public static partial void lua_pushvalue(IntPtr l, int index);
    [LibraryImport(Lib)] public static partial void lua_copy(IntPtr l, int from, int to);
    [LibraryImport(Lib)] public static partial double lua_tonumberx(IntPtr l, int index, int* isNumber);
    [LibraryImport(Lib)] public static partial int lua_isinteger(IntPtr l, int index);
    [LibraryImport(Lib)] public static partial long lua_tointegerx(IntPtr l, int index, int* isNumber);
    [LibraryImport(Lib)] public static partial int lua_toboolean(IntPtr l, int index);
    [LibraryImport(Lib)] public static partial byte* lua_tolstring(IntPtr l, int index, nuint* length);
    [LibraryImport(Lib)] public static partial IntPtr lua_touserdata(IntPtr l, int index);
    [LibraryImport(Lib)] public static partial ulong lua_rawlen(IntPtr l, int index);
    [LibraryImport(Lib)] public static partial void lua_pushnil(IntPtr l);
    [LibraryImport(Lib)] public static partial void lua_pushnumber(IntPtr l, double n);
    [LibraryImport(Lib)] public static partial void lua_pushinteger(IntPtr l, long n);
    [LibraryImport(Lib)] public static partial void lua_pushboolean(IntPtr l, int b);
    [LibraryImport(Lib)] public static partial byte* lua_pushlstring(IntPtr l, byte* s, nuint length);
    [LibraryImport(Lib)] public static partial void lua_pushlightuserdata(IntPtr l, IntPtr p);
    [LibraryImport(Lib)] public static partial void lua_createtable(IntPtr l, int arrayCount, int recordCount);
    [LibraryImport(Lib)] public static partial int lua_next(IntPtr l, int index);
    [LibraryImport(Lib)] public static partial int lua_rawgeti(IntPtr l, int index, long n);
    [LibraryImport(Lib)] public static partial void lua_rawseti(IntPtr l, int index, long n);
    [LibraryImport(Lib)] public static partial void lua_rawset(IntPtr l, int index);
    [LibraryImport(Lib)] public static partial IntPtr lua_newuserdatauv(IntPtr l, nuint size, int userValues);

    public static void Pop(IntPtr l, int n) => lua_settop(l, -n - 1);

    public static void PushBytes(IntPtr l, ReadOnlySpan<byte> bytes)
    {
        fixed (byte* p = bytes) lua_pushlstring(l, p, (nuint)bytes.Length);
    }

    public static void PushString(IntPtr l, string text)
    {
        int max = System.Text.Encoding.UTF8.GetMaxByteCount(text.Length);
        Span<byte> buffer = max <= 512 ? stackalloc byte[512] : new byte[max];
        int n = System.Text.Encoding.UTF8.GetBytes(text, buffer);
        PushBytes(l, buffer[..n]);
    }

    /// <summary>The bytes of the string at <paramref name="index"/> (it must be a string: numbers would be converted in place).</summary>
    public static ReadOnlySpan<byte> StringAt(IntPtr l, int index)
    {
        nuint length;
        byte* p = lua_tolstring(l, index, &length);
        return new ReadOnlySpan<byte>(p, checked((int)length));
    }

    public static double NumberAt(IntPtr l, int index) => lua_tonumberx(l, index, null);

    public static long IntegerAt(IntPtr l, int index) => lua_tointegerx(l, index, null);
}
