using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using static RedisClone.Scripting.Libraries.LuaApi;
using static RedisClone.Scripting.Libraries.LuaLibrary;

namespace RedisClone.Scripting.Libraries;

/// <summary>
/// The C# half of the <c>cmsgpack</c> library Redis loads into scripts (lua-cmsgpack 0.4.0): pack
/// chooses the same encodings Redis's does (the smallest integer form, float 32 when the number
/// survives the round trip, str8/16/32, arrays for tables keyed 1..n, tables nested 16 deep become
/// nil), and unpack, unpack_one and unpack_limit read them back with the same errors.
/// </summary>
internal static unsafe class LuaCMsgPack
{
    public static readonly KeraLua.LuaFunction PackFunction = Pack;
    public static readonly KeraLua.LuaFunction UnpackFunction = Unpack;

    /// <summary>LUACMSGPACK_MAX_NESTING: deeper tables are packed as nil (so cycles end).</summary>
    private const int MaxNesting = 16;

    private const string TooManyValues = "too many return values at once; use unpack_one or unpack_limit instead.";

    // ===== pack =====

    /// <summary>__cmsgpack_pack(...) → true, bytes | false, message.</summary>
    private static int Pack(IntPtr l)
    {
        int count = lua_gettop(l);
        if (count == 0) return Fail(l, ArgError(0, "pack", "MessagePack pack needs input."));
        var buffer = new LuaSink();
        try
        {
            lua_checkstack(l, 4);
            for (int i = 1; i <= count; i++)
            {
                lua_pushvalue(l, i);
                EncodeValue(l, ref buffer, 0);
                Pop(l, 1);
            }
            lua_pushboolean(l, 1);
            PushBytes(l, buffer.Written);
            return 2;
        }
        catch (Exception e)
        {
            return Fail(l, e);
        }
        finally
        {
            buffer.Dispose();
        }
    }

    /// <summary>Encodes the value on top of the stack (left there).</summary>
    private static void EncodeValue(IntPtr l, ref LuaSink buffer, int level)
    {
        int type = lua_type(l, -1);
        if (type == TTable && level == MaxNesting) type = TNil;
        switch (type)
        {
            case TString:
                EncodeBytes(ref buffer, StringAt(l, -1));
                break;
            case TBoolean:
                buffer.Add(lua_toboolean(l, -1) != 0 ? (byte)0xc3 : (byte)0xc2);
                break;
            case TNumber:
                EncodeNumber(ref buffer, NumberAt(l, -1));
                break;
            case TTable:
                lua_checkstack(l, 3);
                int length = ArrayLength(l);
                if (length >= 0) EncodeArray(l, ref buffer, level, length);
                else EncodeMap(l, ref buffer, level);
                break;
            default:
                buffer.Add(0xc0);
                break;
        }
    }

    private static void EncodeBytes(ref LuaSink buffer, ReadOnlySpan<byte> s)
    {
        var header = buffer.Reserve(5);
        int n;
        if (s.Length < 32)
        {
            header[0] = (byte)(0xa0 | s.Length);
            n = 1;
        }
        else if (s.Length <= 0xff)
        {
            header[0] = 0xd9;
            header[1] = (byte)s.Length;
            n = 2;
        }
        else if (s.Length <= 0xffff)
        {
            header[0] = 0xda;
            BinaryPrimitives.WriteUInt16BigEndian(header[1..], (ushort)s.Length);
            n = 3;
        }
        else
        {
            header[0] = 0xdb;
            BinaryPrimitives.WriteUInt32BigEndian(header[1..], (uint)s.Length);
            n = 5;
        }
        buffer.Advance(n);
        buffer.Add(s);
    }

    /// <summary>Lua 5.1 holds doubles: an integral one in int64 range is packed as an integer, else float 32 when exact, else float 64.</summary>
    private static void EncodeNumber(ref LuaSink buffer, double d)
    {
        if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && Math.Floor(d) == d)
        {
            EncodeInteger(ref buffer, (long)d);
            return;
        }
        var b = buffer.Reserve(9);
        float f = (float)d;
        if ((double)f == d)
        {
            b[0] = 0xca;
            BinaryPrimitives.WriteSingleBigEndian(b[1..], f);
            buffer.Advance(5);
        }
        else
        {
            b[0] = 0xcb;
            BinaryPrimitives.WriteDoubleBigEndian(b[1..], d);
            buffer.Advance(9);
        }
    }

    private static void EncodeInteger(ref LuaSink buffer, long n)
    {
        var b = buffer.Reserve(9);
        int length;
        if (n >= 0)
        {
            if (n <= 127) { b[0] = (byte)n; length = 1; }
            else if (n <= 0xff) { b[0] = 0xcc; b[1] = (byte)n; length = 2; }
            else if (n <= 0xffff) { b[0] = 0xcd; BinaryPrimitives.WriteUInt16BigEndian(b[1..], (ushort)n); length = 3; }
            else if (n <= 0xffffffffL) { b[0] = 0xce; BinaryPrimitives.WriteUInt32BigEndian(b[1..], (uint)n); length = 5; }
            else { b[0] = 0xcf; BinaryPrimitives.WriteUInt64BigEndian(b[1..], (ulong)n); length = 9; }
        }
        else
        {
            if (n >= -32) { b[0] = (byte)(sbyte)n; length = 1; }
            else if (n >= -128) { b[0] = 0xd0; b[1] = (byte)(sbyte)n; length = 2; }
            else if (n >= -32768) { b[0] = 0xd1; BinaryPrimitives.WriteInt16BigEndian(b[1..], (short)n); length = 3; }
            else if (n >= -2147483648L) { b[0] = 0xd2; BinaryPrimitives.WriteInt32BigEndian(b[1..], (int)n); length = 5; }
            else { b[0] = 0xd3; BinaryPrimitives.WriteInt64BigEndian(b[1..], n); length = 9; }
        }
        buffer.Advance(length);
    }

    /// <summary>
    /// table_is_an_array: the element count when the keys are exactly 1..n (as C ints), else -1
    /// (a map). An empty table is an empty array.
    /// </summary>
    private static int ArrayLength(IntPtr l)
    {
        int count = 0, max = 0;
        bool array = true;
        lua_pushnil(l);
        while (lua_next(l, -2) != 0)
        {
            Pop(l, 1);
            double n;
            if (lua_type(l, -1) != TNumber || (n = NumberAt(l, -1)) <= 0 || !(n <= int.MaxValue && (int)n == n))
            {
                Pop(l, 1);
                array = false;
                break;
            }
            if (n > max) max = (int)n;
            count++;
        }
        return array && max == count ? count : -1;
    }

    private static void EncodeArray(IntPtr l, ref LuaSink buffer, int level, int length)
    {
        EncodeHeader(ref buffer, length, 0x90, 0xdc);
        for (int j = 1; j <= length; j++)
        {
            lua_rawgeti(l, -1, j);
            EncodeValue(l, ref buffer, level + 1);
            Pop(l, 1);
        }
    }

    private static void EncodeMap(IntPtr l, ref LuaSink buffer, int level)
    {
        int count = 0;
        lua_pushnil(l);
        while (lua_next(l, -2) != 0)
        {
            Pop(l, 1);
            count++;
        }
        EncodeHeader(ref buffer, count, 0x80, 0xde);
        lua_pushnil(l);
        while (lua_next(l, -2) != 0)
        {
            lua_pushvalue(l, -2);
            EncodeValue(l, ref buffer, level + 1); // the key
            Pop(l, 1);
            EncodeValue(l, ref buffer, level + 1); // the value
            Pop(l, 1);
        }
    }

    /// <summary>fixarray/fixmap (up to 15), 16-bit or 32-bit count; <paramref name="code16"/> + 1 is the 32-bit form.</summary>
    private static void EncodeHeader(ref LuaSink buffer, int count, byte fix, byte code16)
    {
        var b = buffer.Reserve(5);
        if (count <= 15)
        {
            b[0] = (byte)(fix | count);
            buffer.Advance(1);
        }
        else if (count <= 65535)
        {
            b[0] = code16;
            BinaryPrimitives.WriteUInt16BigEndian(b[1..], (ushort)count);
            buffer.Advance(3);
        }
        else
        {
            b[0] = (byte)(code16 + 1);
            BinaryPrimitives.WriteUInt32BigEndian(b[1..], (uint)count);
            buffer.Advance(5);
        }
    }

    // ===== unpack =====

    private enum CursorError { None, Eof, BadFormat }

    private ref struct Cursor
    {
        public ReadOnlySpan<byte> Data;
        public int Pos;
        public CursorError Error;

        public readonly long Left => Data.Length - Pos;

        /// <summary>mp_cur_need: false (and the EOF error) when fewer than <paramref name="n"/> bytes are left.</summary>
        public bool Need(long n)
        {
            if (Left >= n) return true;
            Error = CursorError.Eof;
            return false;
        }
    }

    /// <summary>
    /// __cmsgpack_unpack(mode, s, ...): mode 0 is unpack(s), 1 unpack_one(s [, offset]), 2
    /// unpack_limit(s, limit [, offset]) → true, n, {[next offset,] values...} | false, message....
    /// </summary>
    private static int Unpack(IntPtr l)
    {
        int mode = (int)IntegerAt(l, 1);
        string name = mode switch { 0 => "unpack", 1 => "unpack_one", _ => "unpack_limit" };
        try
        {
            long limit = 0, offset = 0;
            if (mode == 1)
            {
                offset = OptInteger(l, 3, 2, name);
                limit = 1;
            }
            else if (mode == 2)
            {
                limit = CheckInteger(l, 3, 2, name);
                offset = OptInteger(l, 4, 3, name);
            }
            if (mode != 0) lua_settop(l, 2);
            var data = CheckString(l, 2, 1, name, lua_type(l, 2) == TNumber ? new byte[32] : default);
            if (offset < 0 || limit < 0)
                throw new LuaLibraryException($"Invalid request to unpack with offset of {unchecked((int)offset)} and limit of {data.Length}.");
            if (offset > data.Length)
                throw new LuaLibraryException($"Start offset {unchecked((int)offset)} greater than input length {data.Length}.");
            bool all = limit == 0 && offset == 0;
            if (all) limit = int.MaxValue;
            int top = lua_gettop(l);
            lua_checkstack(l, 3);
            if (!all) lua_pushnil(l); // the next offset's slot
            var cursor = new Cursor { Data = data, Pos = (int)offset };
            int count = 0;
            // Redis counts stack slots from its C function's one argument (Lua 5.1 allows 8000).
            for (; cursor.Left > 0 && count < limit; count++)
            {
                Decode(l, ref cursor, 1 + count);
                if (cursor.Error == CursorError.Eof) throw new LuaLibraryException("Missing bytes in input.");
                if (cursor.Error == CursorError.BadFormat) throw new LuaLibraryException("Bad data format in input.");
            }
            if (!all)
            {
                lua_pushinteger(l, cursor.Left == 0 ? -1 : cursor.Pos);
                lua_copy(l, -1, top + 1);
                Pop(l, 1);
            }
            return ReturnPacked(l, top + 1);
        }
        catch (Exception e)
        {
            return Fail(l, e);
        }
    }

    /// <summary>luaL_optinteger: nil or absent is 0.</summary>
    private static long OptInteger(IntPtr l, int index, int arg, string name)
        => lua_type(l, index) <= TNil ? 0 : CheckInteger(l, index, arg, name);

    /// <summary>
    /// Pushes the next value, or sets the cursor's error. <paramref name="used"/>: stack slots Redis
    /// would be using, so the same nesting and value counts hit Lua 5.1's limit.
    /// </summary>
    private static void Decode(IntPtr l, ref Cursor c, int used)
    {
        if (!c.Need(1)) return;
        if (used + 1 > MaxCStack || !RuntimeHelpers.TryEnsureSufficientExecutionStack())
            throw new LuaLibraryException($"stack overflow ({TooManyValues})");
        lua_checkstack(l, 3);
        var p = c.Data[c.Pos..];
        switch (p[0])
        {
            case 0xcc:
                if (!c.Need(2)) return;
                lua_pushinteger(l, p[1]);
                c.Pos += 2;
                break;
            case 0xd0:
                if (!c.Need(2)) return;
                lua_pushinteger(l, (sbyte)p[1]);
                c.Pos += 2;
                break;
            case 0xcd:
                if (!c.Need(3)) return;
                lua_pushinteger(l, BinaryPrimitives.ReadUInt16BigEndian(p[1..]));
                c.Pos += 3;
                break;
            case 0xd1:
                if (!c.Need(3)) return;
                lua_pushinteger(l, BinaryPrimitives.ReadInt16BigEndian(p[1..]));
                c.Pos += 3;
                break;
            case 0xce:
                if (!c.Need(5)) return;
                lua_pushinteger(l, BinaryPrimitives.ReadUInt32BigEndian(p[1..]));
                c.Pos += 5;
                break;
            case 0xd2:
                if (!c.Need(5)) return;
                lua_pushinteger(l, BinaryPrimitives.ReadInt32BigEndian(p[1..]));
                c.Pos += 5;
                break;
            case 0xcf:
                if (!c.Need(9)) return;
                // Redis's 64-bit build pushes it through lua_pushinteger (signed): 2^64-1 reads as -1.
                PushNumber(l, (long)BinaryPrimitives.ReadUInt64BigEndian(p[1..]));
                c.Pos += 9;
                break;
            case 0xd3:
                if (!c.Need(9)) return;
                PushNumber(l, BinaryPrimitives.ReadInt64BigEndian(p[1..]));
                c.Pos += 9;
                break;
            case 0xc0:
                lua_pushnil(l);
                c.Pos += 1;
                break;
            case 0xc3:
                lua_pushboolean(l, 1);
                c.Pos += 1;
                break;
            case 0xc2:
                lua_pushboolean(l, 0);
                c.Pos += 1;
                break;
            case 0xca:
                if (!c.Need(5)) return;
                PushNumber(l, BinaryPrimitives.ReadSingleBigEndian(p[1..]));
                c.Pos += 5;
                break;
            case 0xcb:
                if (!c.Need(9)) return;
                PushNumber(l, BinaryPrimitives.ReadDoubleBigEndian(p[1..]));
                c.Pos += 9;
                break;
            case 0xd9:
                if (!c.Need(2)) return;
                PushRaw(l, ref c, 2, p[1]);
                break;
            case 0xda:
                if (!c.Need(3)) return;
                PushRaw(l, ref c, 3, BinaryPrimitives.ReadUInt16BigEndian(p[1..]));
                break;
            case 0xdb:
                if (!c.Need(5)) return;
                PushRaw(l, ref c, 5, BinaryPrimitives.ReadUInt32BigEndian(p[1..]));
                break;
            case 0xdc:
                if (!c.Need(3)) return;
                c.Pos += 3;
                DecodeArray(l, ref c, BinaryPrimitives.ReadUInt16BigEndian(p[1..]), used);
                break;
            case 0xdd:
                if (!c.Need(5)) return;
                c.Pos += 5;
                DecodeArray(l, ref c, BinaryPrimitives.ReadUInt32BigEndian(p[1..]), used);
                break;
            case 0xde:
                if (!c.Need(3)) return;
                c.Pos += 3;
                DecodeMap(l, ref c, BinaryPrimitives.ReadUInt16BigEndian(p[1..]), used);
                break;
            case 0xdf:
                if (!c.Need(5)) return;
                c.Pos += 5;
                DecodeMap(l, ref c, BinaryPrimitives.ReadUInt32BigEndian(p[1..]), used);
                break;
            default:
                byte b = p[0];
                if ((b & 0x80) == 0)
                {
                    lua_pushinteger(l, b);
                    c.Pos += 1;
                }
                else if ((b & 0xe0) == 0xe0)
                {
                    lua_pushinteger(l, (sbyte)b);
                    c.Pos += 1;
                }
                else if ((b & 0xe0) == 0xa0)
                {
                    PushRaw(l, ref c, 1, (uint)(b & 0x1f));
                }
                else if ((b & 0xf0) == 0x90)
                {
                    c.Pos += 1;
                    DecodeArray(l, ref c, (uint)(b & 0xf), used);
                }
                else if ((b & 0xf0) == 0x80)
                {
                    c.Pos += 1;
                    DecodeMap(l, ref c, (uint)(b & 0xf), used);
                }
                else
                {
                    c.Error = CursorError.BadFormat;
                }
                break;
        }
    }

    /// <summary>A string of <paramref name="length"/> bytes after a header of <paramref name="header"/> bytes.</summary>
    private static void PushRaw(IntPtr l, ref Cursor c, int header, uint length)
    {
        if (!c.Need(header + (long)length)) return;
        PushBytes(l, c.Data.Slice(c.Pos + header, (int)length));
        c.Pos += header + (int)length;
    }

    private static void DecodeArray(IntPtr l, ref Cursor c, uint length, int used)
    {
        lua_createtable(l, 0, 0);
        if (used + 2 > MaxCStack) throw new LuaLibraryException("stack overflow (in function mp_decode_to_lua_array)");
        for (long index = 1; index <= length; index++)
        {
            lua_pushinteger(l, index);
            Decode(l, ref c, used + 2);
            if (c.Error != CursorError.None) return;
            SetField(l);
        }
    }

    private static void DecodeMap(IntPtr l, ref Cursor c, uint length, int used)
    {
        lua_createtable(l, 0, 0);
        for (long i = 0; i < length; i++)
        {
            Decode(l, ref c, used + 1); // the key
            if (c.Error != CursorError.None) return;
            Decode(l, ref c, used + 2); // the value
            if (c.Error != CursorError.None) return;
            SetField(l);
        }
    }

    /// <summary>t[k] = v for the table under k and v, as lua_settable on a fresh table: a nil value sets nothing; a nil or NaN key is an error in Lua.</summary>
    private static void SetField(IntPtr l)
    {
        int keyType = lua_type(l, -2);
        if (keyType == TNil || (keyType == TNumber && double.IsNaN(NumberAt(l, -2))))
        {
            Pop(l, 2);
            // Raised by Lua itself in Redis (not luaL_error), so without the script's "user_script:N: ".
            throw new LuaLibraryException(keyType == TNil ? "table index is nil" : "table index is NaN") { Positionless = true };
        }
        lua_rawset(l, -3);
    }
}
