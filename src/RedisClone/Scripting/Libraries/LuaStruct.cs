using System.Buffers.Binary;
using static RedisClone.Scripting.Libraries.LuaApi;
using static RedisClone.Scripting.Libraries.LuaLibrary;

namespace RedisClone.Scripting.Libraries;

/// <summary>
/// The C# half of the <c>struct</c> library Redis loads into scripts (Roberto Ierusalimschy's
/// lua_struct.c as Redis 7.2 bundles it): pack, unpack and size over the format letters
/// <c>&lt; &gt; ! x b B h H l L T i I f d c s</c> and space, for Redis's x86-64 build (native little
/// endian, long and size_t of 8 bytes, int of 4, alignment up to 8), with its errors.
/// </summary>
internal static class LuaStruct
{
    public static readonly KeraLua.LuaFunction Function = Run;

    private const int MaxIntSize = 32;
    private const int MaxAlign = 8;

    private struct Header
    {
        public bool Little;
        public int Align;
    }

    /// <summary>
    /// __struct(op, ...): op 1 pack, 2 unpack, 3 size → true, result (unpack: true, n, {results})
    /// | false, message.... Argument #n is at index n + 1.
    /// </summary>
    private static int Run(IntPtr l)
    {
        int op = (int)IntegerAt(l, 1);
        try
        {
            return op switch { 1 => Pack(l), 2 => Unpack(l), _ => Size(l) };
        }
        catch (Exception e)
        {
            return Fail(l, e);
        }
    }

    /// <summary>The format: luaL_checkstring, up to a NUL byte as C reads it.</summary>
    private static ReadOnlySpan<byte> Format(IntPtr l, string name)
    {
        var fmt = CheckString(l, 2, 1, name, lua_type(l, 2) == TNumber ? new byte[32] : default);
        int nul = fmt.IndexOf((byte)0);
        return nul < 0 ? fmt : fmt[..nul];
    }

    private static int GetNum(ReadOnlySpan<byte> fmt, ref int i, int defaultValue)
    {
        if (i >= fmt.Length || !char.IsAsciiDigit((char)fmt[i])) return defaultValue;
        int a = 0;
        do
        {
            int digit = fmt[i] - '0';
            if (a > int.MaxValue / 10 || a * 10 > int.MaxValue - digit) throw new LuaLibraryException("integral size overflow");
            a = a * 10 + digit;
            i++;
        } while (i < fmt.Length && char.IsAsciiDigit((char)fmt[i]));
        return a;
    }

    private static int OptSize(byte opt, ReadOnlySpan<byte> fmt, ref int i)
    {
        switch (opt)
        {
            case (byte)'B' or (byte)'b' or (byte)'x': return 1;
            case (byte)'H' or (byte)'h': return 2;
            case (byte)'L' or (byte)'l' or (byte)'T' or (byte)'d': return 8;
            case (byte)'f': return 4;
            case (byte)'c': return GetNum(fmt, ref i, 1);
            case (byte)'i' or (byte)'I':
                int size = GetNum(fmt, ref i, 4);
                if (size > MaxIntSize) throw new LuaLibraryException($"integral size {size} is larger than limit of {MaxIntSize}");
                return size;
            default: return 0;
        }
    }

    private static long ToAlign(long length, Header h, byte opt, long size)
    {
        if (size == 0 || opt == (byte)'c') return 0;
        if (size > h.Align) size = h.Align;
        return (size - (length & (size - 1))) & (size - 1);
    }

    private static void ControlOptions(byte opt, ReadOnlySpan<byte> fmt, ref int i, ref Header h, string name)
    {
        switch (opt)
        {
            case (byte)' ': return;
            case (byte)'>': h.Little = false; return;
            case (byte)'<': h.Little = true; return;
            case (byte)'!':
                int a = GetNum(fmt, ref i, MaxAlign);
                if (a <= 0 || (a & (a - 1)) != 0) throw new LuaLibraryException($"alignment {a} is not a power of 2");
                h.Align = a;
                return;
            default:
                throw ArgError(1, name, $"invalid format option '{(char)opt}'");
        }
    }

    /// <summary>
    /// Redis's b_pack pushes a nil after the arguments, so the first missing one reads as nil and
    /// the rest as no value; <paramref name="arg"/> is the script's argument number.
    /// </summary>
    private static LuaLibraryException MissingOrWrong(IntPtr l, int arg, string expected)
    {
        int args = lua_gettop(l) - 1;
        string got = arg == args + 1 ? "nil" : arg > args ? "no value" : TypeName(l, arg + 1);
        return ArgError(arg, "pack", $"{expected} expected, got {got}");
    }

    private static double PackNumber(IntPtr l, int arg)
        => arg + 1 <= lua_gettop(l) && TryNumber(l, arg + 1, out double n) ? n : throw MissingOrWrong(l, arg, "number");

    private static int Pack(IntPtr l)
    {
        var fmt = Format(l, "pack");
        var h = new Header { Little = true, Align = 1 };
        int arg = 2;
        long total = 0;
        var b = new LuaSink();
        try
        {
            Span<byte> scratch = stackalloc byte[32];
            for (int i = 0; i < fmt.Length;)
            {
                byte opt = fmt[i++];
                long size = OptSize(opt, fmt, ref i);
                long align = ToAlign(total, h, opt, size);
                total += align;
                for (; align > 0; align--) b.Add(0);
                switch (opt)
                {
                    case (byte)'b' or (byte)'B' or (byte)'h' or (byte)'H' or (byte)'l' or (byte)'L' or (byte)'T' or (byte)'i' or (byte)'I':
                        PutInteger(ref b, PackNumber(l, arg++), h.Little, (int)size);
                        break;
                    case (byte)'x':
                        b.Add(0);
                        break;
                    case (byte)'f':
                    {
                        var dest = b.Reserve(4);
                        float f = (float)PackNumber(l, arg++);
                        if (h.Little) BinaryPrimitives.WriteSingleLittleEndian(dest, f);
                        else BinaryPrimitives.WriteSingleBigEndian(dest, f);
                        b.Advance(4);
                        break;
                    }
                    case (byte)'d':
                    {
                        var dest = b.Reserve(8);
                        double d = PackNumber(l, arg++);
                        if (h.Little) BinaryPrimitives.WriteDoubleLittleEndian(dest, d);
                        else BinaryPrimitives.WriteDoubleBigEndian(dest, d);
                        b.Advance(8);
                        break;
                    }
                    case (byte)'c' or (byte)'s':
                    {
                        int type = arg + 1 <= lua_gettop(l) ? lua_type(l, arg + 1) : TNone;
                        if (type is not (TString or TNumber)) throw MissingOrWrong(l, arg, "string");
                        var s = CheckString(l, arg + 1, arg, "pack", scratch);
                        arg++;
                        if (size == 0) size = s.Length;
                        // Redis checks after moving to the next argument, so the error names that one.
                        if (s.Length < size) throw ArgError(arg, "pack", "string too short");
                        b.Add(s[..(int)size]);
                        if (opt == (byte)'s')
                        {
                            b.Add(0);
                            size++;
                        }
                        break;
                    }
                    default:
                        ControlOptions(opt, fmt, ref i, ref h, "pack");
                        break;
                }
                total += size;
            }
            lua_pushboolean(l, 1);
            PushBytes(l, b.Written);
            return 2;
        }
        finally
        {
            b.Dispose();
        }
    }

    /// <summary>putinteger: C's conversion of the double to a 64-bit unsigned value, then <paramref name="size"/> bytes of it.</summary>
    private static void PutInteger(ref LuaSink b, double n, bool little, int size)
    {
        ulong value = n < 0 ? (ulong)ToInteger(n) : n < 18446744073709551616.0 ? (ulong)n : 0;
        var dest = b.Reserve(size);
        for (int k = 0; k < size; k++)
        {
            dest[little ? k : size - 1 - k] = (byte)value;
            value >>= 8;
        }
        b.Advance(size);
    }

    private static int Unpack(IntPtr l)
    {
        var fmt = Format(l, "unpack");
        var data = CheckString(l, 3, 2, "unpack", lua_type(l, 3) == TNumber ? new byte[32] : default);
        long start = lua_type(l, 4) <= TNil ? 1 : CheckInteger(l, 4, 3, "unpack");
        ulong pos = (ulong)start; // size_t in C: a negative offset passes the check below
        if (pos == 0) throw ArgError(3, "unpack", "offset must be 1 or greater");
        pos--;
        int args = lua_gettop(l) - 1;
        ulong ld = (ulong)data.Length;
        var h = new Header { Little = true, Align = 1 };
        int n = 0;
        int first = lua_gettop(l) + 1;
        for (int i = 0; i < fmt.Length;)
        {
            byte opt = fmt[i++];
            ulong size = (ulong)OptSize(opt, fmt, ref i);
            pos += (ulong)ToAlign((long)pos, h, opt, (long)size);
            if (!(size <= ld && pos <= ld - size)) throw ArgError(2, "unpack", "data string too short");
            if (args + n + 2 > MaxCStack) throw new LuaLibraryException("stack overflow (too many results)");
            lua_checkstack(l, 2);
            switch (opt)
            {
                case (byte)'b' or (byte)'B' or (byte)'h' or (byte)'H' or (byte)'l' or (byte)'L' or (byte)'T' or (byte)'i' or (byte)'I':
                    PushNumber(l, GetInteger(data.Slice((int)pos, (int)size), h.Little, opt is >= (byte)'a' and <= (byte)'z'));
                    n++;
                    break;
                case (byte)'x':
                    break;
                case (byte)'f':
                {
                    var bytes = data.Slice((int)pos, 4);
                    PushNumber(l, h.Little ? BinaryPrimitives.ReadSingleLittleEndian(bytes) : BinaryPrimitives.ReadSingleBigEndian(bytes));
                    n++;
                    break;
                }
                case (byte)'d':
                {
                    var bytes = data.Slice((int)pos, 8);
                    PushNumber(l, h.Little ? BinaryPrimitives.ReadDoubleLittleEndian(bytes) : BinaryPrimitives.ReadDoubleBigEndian(bytes));
                    n++;
                    break;
                }
                case (byte)'c':
                    if (size == 0)
                    {
                        if (n == 0 || !TryNumber(l, -1, out double previous)) throw new LuaLibraryException("format 'c0' needs a previous size");
                        size = previous <= 0 ? 0 : previous >= ulong.MaxValue ? ulong.MaxValue : (ulong)previous;
                        Pop(l, 1);
                        n--;
                        if (!(size <= ld && pos <= ld - size)) throw ArgError(2, "unpack", "data string too short");
                    }
                    PushBytes(l, data.Slice((int)pos, (int)size));
                    n++;
                    break;
                case (byte)'s':
                {
                    int nul = data[(int)pos..].IndexOf((byte)0);
                    if (nul < 0) throw new LuaLibraryException("unfinished string in data");
                    size = (ulong)nul + 1;
                    PushBytes(l, data.Slice((int)pos, nul));
                    n++;
                    break;
                }
                default:
                    ControlOptions(opt, fmt, ref i, ref h, "unpack");
                    break;
            }
            pos += size;
        }
        lua_pushinteger(l, (long)pos + 1);
        return ReturnPacked(l, first);
    }

    /// <summary>getinteger: the bytes as an unsigned 64-bit value (the first ones shifted out past 8), sign-extended when signed.</summary>
    private static double GetInteger(ReadOnlySpan<byte> bytes, bool little, bool signed)
    {
        ulong value = 0;
        int size = bytes.Length;
        for (int k = 0; k < size; k++)
            value = (value << 8) | bytes[little ? size - 1 - k : k];
        if (!signed) return value;
        ulong mask = ulong.MaxValue << ((size * 8 - 1) & 63); // x86 takes the shift count modulo 64
        if ((value & mask) != 0) value |= mask;
        return (long)value;
    }

    private static int Size(IntPtr l)
    {
        var fmt = Format(l, "size");
        var h = new Header { Little = true, Align = 1 };
        long pos = 0;
        for (int i = 0; i < fmt.Length;)
        {
            byte opt = fmt[i++];
            long size = OptSize(opt, fmt, ref i);
            pos += ToAlign(pos, h, opt, size);
            if (opt == (byte)'s') throw ArgError(1, "size", "option 's' has no fixed size");
            if (opt == (byte)'c' && size == 0) throw ArgError(1, "size", "option 'c0' has no fixed size");
            if (!char.IsAsciiLetterOrDigit((char)opt)) ControlOptions(opt, fmt, ref i, ref h, "size");
            pos += size;
        }
        lua_pushboolean(l, 1);
        lua_pushinteger(l, pos);
        return 2;
    }
}
