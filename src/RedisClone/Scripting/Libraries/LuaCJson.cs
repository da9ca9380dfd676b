using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using static RedisClone.Scripting.Libraries.LuaApi;
using static RedisClone.Scripting.Libraries.LuaLibrary;

namespace RedisClone.Scripting.Libraries;

/// <summary>
/// The C# half of the <c>cjson</c> library Redis loads into scripts (lua-cjson 2.1.0 as Redis
/// bundles it): encode and decode with the same output, the same error texts and the same limits,
/// and the configuration functions. Each cjson table (the global one and every cjson.new()) owns a
/// <see cref="Config"/> kept in a Lua userdata that its Lua wrappers pass as the first argument.
/// </summary>
/// <remarks>
/// encode_keep_buffer is accepted and reported as Redis does, but only changes memory use there:
/// here every encode writes into a pooled buffer either way.
/// </remarks>
internal static unsafe class LuaCJson
{
    public static readonly KeraLua.LuaFunction NewConfigFunction = NewConfig;
    public static readonly KeraLua.LuaFunction EncodeFunction = Encode;
    public static readonly KeraLua.LuaFunction DecodeFunction = Decode;
    public static readonly KeraLua.LuaFunction ConfigureFunction = Configure;

    /// <summary>One cjson table's settings (json_config_t), with Redis's defaults.</summary>
    [StructLayout(LayoutKind.Sequential)]
    private struct Config
    {
        public int SparseConvert, SparseRatio, SparseSafe;
        public int EncodeMaxDepth, EncodeInvalidNumbers, EncodeNumberPrecision, EncodeKeepBuffer;
        public int DecodeInvalidNumbers, DecodeMaxDepth;
    }

    private static readonly string[] TokenNames =
    [
        "T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING", "T_NUMBER", "T_BOOLEAN",
        "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN",
    ];

    private enum Token
    {
        ObjBegin, ObjEnd, ArrBegin, ArrEnd, String, Number, Boolean, Null, Colon, Comma, End, Whitespace, Error, Unknown,
    }

    /// <summary>How each byte is escaped in a JSON string (null: as itself).</summary>
    private static readonly byte[]?[] Escapes = BuildEscapes();

    private static byte[]?[] BuildEscapes()
    {
        var table = new byte[]?[256];
        for (int c = 0; c < 0x20; c++) table[c] = System.Text.Encoding.ASCII.GetBytes($"\\u{c:x4}");
        table['\b'] = "\\b"u8.ToArray();
        table['\t'] = "\\t"u8.ToArray();
        table['\n'] = "\\n"u8.ToArray();
        table['\f'] = "\\f"u8.ToArray();
        table['\r'] = "\\r"u8.ToArray();
        table['"'] = "\\\""u8.ToArray();
        table['\\'] = "\\\\"u8.ToArray();
        table['/'] = "\\/"u8.ToArray();
        table[0x7f] = "\\u007f"u8.ToArray();
        return table;
    }

    /// <summary>__cjson_config() → a new configuration userdata with the defaults.</summary>
    private static int NewConfig(IntPtr l)
    {
        var cfg = (Config*)lua_newuserdatauv(l, (nuint)sizeof(Config), 0);
        *cfg = new Config
        {
            SparseConvert = 0, SparseRatio = 2, SparseSafe = 10,
            EncodeMaxDepth = 1000, DecodeMaxDepth = 1000,
            EncodeInvalidNumbers = 0, DecodeInvalidNumbers = 1,
            EncodeKeepBuffer = 1, EncodeNumberPrecision = 14,
        };
        return 1;
    }

    // ===== encode =====

    /// <summary>__cjson_encode(cfg, value) → true, json | false, message.</summary>
    private static int Encode(IntPtr l)
    {
        var cfg = (Config*)lua_touserdata(l, 1);
        var json = new LuaSink();
        try
        {
            if (lua_gettop(l) != 2) throw ArgError(1, "encode", "expected 1 argument");
            AppendValue(l, cfg, 0, ref json, 1);
            lua_pushboolean(l, 1);
            PushBytes(l, json.Written);
            return 2;
        }
        catch (Exception e)
        {
            lua_settop(l, 2);
            return Fail(l, e);
        }
        finally
        {
            json.Dispose();
        }
    }

    /// <summary>
    /// Appends the value on top of the stack. <paramref name="slots"/> counts the stack slots Redis's
    /// encoder would be using at this point (Lua 5.1 gives a C function 8000): nesting ends there too.
    /// </summary>
    private static void AppendValue(IntPtr l, Config* cfg, int depth, ref LuaSink json, int slots)
    {
        switch (lua_type(l, -1))
        {
            case TString:
                AppendString(ref json, StringAt(l, -1));
                break;
            case TNumber:
                AppendNumber(l, cfg, ref json, -1);
                break;
            case TBoolean:
                json.Add(lua_toboolean(l, -1) != 0 ? "true"u8 : "false"u8);
                break;
            case TTable:
                depth++;
                if (depth > cfg->EncodeMaxDepth || slots + 3 > MaxCStack || !RuntimeHelpers.TryEnsureSufficientExecutionStack())
                    throw new LuaLibraryException($"Cannot serialise, excessive nesting ({depth})");
                lua_checkstack(l, 3);
                int length = ArrayLength(l, cfg);
                if (length > 0) AppendArray(l, cfg, depth, ref json, length, slots);
                else AppendObject(l, cfg, depth, ref json, slots);
                break;
            case TNil:
                json.Add("null"u8);
                break;
            case TLightUserData when lua_touserdata(l, -1) == IntPtr.Zero:
                json.Add("null"u8); // cjson.null
                break;
            default:
                throw new LuaLibraryException($"Cannot serialise {TypeName(l, -1)}: type not supported");
        }
    }

    /// <summary>
    /// lua_array_length: the array size when every key is a positive integer (and the array is not
    /// excessively sparse), else -1 for an object. An empty table is 0, which encodes as {}.
    /// </summary>
    private static int ArrayLength(IntPtr l, Config* cfg)
    {
        int max = 0, items = 0;
        lua_pushnil(l);
        while (lua_next(l, -2) != 0)
        {
            double k;
            if (lua_type(l, -2) == TNumber && (k = NumberAt(l, -2)) != 0 && Math.Floor(k) == k && k >= 1)
            {
                // C converts the double to an int here; out of range that gives INT_MIN on x86-64.
                if (k > max) max = k <= int.MaxValue ? (int)k : int.MinValue;
                items++;
                Pop(l, 1);
                continue;
            }
            Pop(l, 2);
            return -1;
        }
        if (cfg->SparseRatio > 0 && max > unchecked(items * cfg->SparseRatio) && max > cfg->SparseSafe)
        {
            if (cfg->SparseConvert == 0) throw new LuaLibraryException("Cannot serialise table: excessively sparse array");
            return -1;
        }
        return max;
    }

    private static void AppendArray(IntPtr l, Config* cfg, int depth, ref LuaSink json, int length, int slots)
    {
        json.Add((byte)'[');
        for (int i = 1; i <= length; i++)
        {
            if (i > 1) json.Add((byte)',');
            lua_rawgeti(l, -1, i);
            AppendValue(l, cfg, depth, ref json, slots + 1);
            Pop(l, 1);
        }
        json.Add((byte)']');
    }

    private static void AppendObject(IntPtr l, Config* cfg, int depth, ref LuaSink json, int slots)
    {
        json.Add((byte)'{');
        bool comma = false;
        lua_pushnil(l);
        while (lua_next(l, -2) != 0)
        {
            if (comma) json.Add((byte)',');
            else comma = true;
            int keyType = lua_type(l, -2);
            if (keyType == TNumber)
            {
                json.Add((byte)'"');
                AppendNumber(l, cfg, ref json, -2);
                json.Add("\":"u8);
            }
            else if (keyType == TString)
            {
                AppendString(ref json, StringAt(l, -2));
                json.Add((byte)':');
            }
            else
            {
                throw new LuaLibraryException($"Cannot serialise {TypeName(l, -2)}: table key must be a number or string");
            }
            AppendValue(l, cfg, depth, ref json, slots + 2);
            Pop(l, 1);
        }
        json.Add((byte)'}');
    }

    private static void AppendNumber(IntPtr l, Config* cfg, ref LuaSink json, int index)
    {
        double number = NumberAt(l, index);
        bool invalid = double.IsNaN(number) || double.IsInfinity(number);
        if (cfg->EncodeInvalidNumbers == 0)
        {
            if (invalid) throw new LuaLibraryException("Cannot serialise number: must not be NaN or Inf");
        }
        else if (cfg->EncodeInvalidNumbers == 1)
        {
            if (double.IsNaN(number))
            {
                json.Add("nan"u8);
                return;
            }
        }
        else if (invalid)
        {
            json.Add("null"u8);
            return;
        }
        json.Advance(FormatNumber(number, cfg->EncodeNumberPrecision, json.Reserve(32)));
    }

    private static void AppendString(ref LuaSink json, ReadOnlySpan<byte> s)
    {
        json.Add((byte)'"');
        int start = 0;
        for (int i = 0; i < s.Length; i++)
        {
            var escape = Escapes[s[i]];
            if (escape == null) continue;
            json.Add(s[start..i]);
            json.Add(escape);
            start = i + 1;
        }
        json.Add(s[start..]);
        json.Add((byte)'"');
    }

    // ===== decode =====

    /// <summary>The parse state: the text (up to its first NUL byte), position, depth; past the end reads as NUL.</summary>
    private ref struct Parser
    {
        public ReadOnlySpan<byte> Data;
        public int Pos;
        public int Depth;
        public Config* Cfg;
        public Span<byte> Tmp;

        public readonly byte At(int i) => (uint)i < (uint)Data.Length ? Data[i] : (byte)0;
    }

    private ref struct TokenValue
    {
        public Token Type;
        public int Index;
        public string? Error;
        public double Number;
        public bool Boolean;
        public ReadOnlySpan<byte> String;
    }

    /// <summary>__cjson_decode(cfg, text) → true, value | false, message.</summary>
    private static int Decode(IntPtr l)
    {
        var cfg = (Config*)lua_touserdata(l, 1);
        byte[]? rented = null;
        try
        {
            if (lua_gettop(l) != 2) throw ArgError(1, "decode", "expected 1 argument");
            // A number argument is decoded from its text (rare: a heap scratch keeps the parser's spans simple).
            var data = CheckString(l, 2, 1, "decode", lua_type(l, 2) == TNumber ? new byte[32] : default);
            if (data.Length >= 2 && (data[0] == 0 || data[1] == 0))
                throw new LuaLibraryException("JSON parser does not support UTF-16 or UTF-32");
            // The parser reads a C string: a NUL byte ends the text as its end does.
            int nul = data.IndexOf((byte)0);
            if (nul >= 0) data = data[..nul];
            rented = Common.BufferPool.Rent(Math.Max(data.Length, 16));
            var json = new Parser { Data = data, Cfg = cfg, Tmp = rented };
            lua_pushboolean(l, 1);
            var token = new TokenValue();
            NextToken(ref json, ref token);
            ProcessValue(l, ref json, ref token, 1);
            NextToken(ref json, ref token);
            if (token.Type != Token.End) throw ParseError(ref json, "the end", ref token);
            return 2;
        }
        catch (Exception e)
        {
            lua_settop(l, 2);
            return Fail(l, e);
        }
        finally
        {
            if (rented != null) Common.BufferPool.Return(rented);
        }
    }

    private static LuaLibraryException ParseError(ref Parser json, string expected, ref TokenValue token)
    {
        string found = token.Type == Token.Error ? token.Error! : TokenNames[(int)token.Type];
        return new LuaLibraryException($"Expected {expected} but found {found} at character {token.Index + 1}");
    }

    /// <summary>One level deeper: <paramref name="slots"/> as Redis's lua_checkstack against Lua 5.1's limit.</summary>
    private static void Descend(IntPtr l, ref Parser json, int used, int slots)
    {
        json.Depth++;
        if (json.Depth <= json.Cfg->DecodeMaxDepth && used + slots <= MaxCStack && RuntimeHelpers.TryEnsureSufficientExecutionStack())
        {
            lua_checkstack(l, slots);
            return;
        }
        throw new LuaLibraryException($"Found too many nested data structures ({json.Depth}) at character {json.Pos}");
    }

    /// <summary>Pushes the value <paramref name="token"/> starts; <paramref name="used"/> is the 5.1 stack slots in use.</summary>
    private static void ProcessValue(IntPtr l, ref Parser json, ref TokenValue token, int used)
    {
        switch (token.Type)
        {
            case Token.String:
                PushBytes(l, token.String);
                break;
            case Token.Number:
                PushNumber(l, token.Number);
                break;
            case Token.Boolean:
                lua_pushboolean(l, token.Boolean ? 1 : 0);
                break;
            case Token.ObjBegin:
                ParseObject(l, ref json, used);
                break;
            case Token.ArrBegin:
                ParseArray(l, ref json, used);
                break;
            case Token.Null:
                lua_pushlightuserdata(l, IntPtr.Zero);
                break;
            default:
                throw ParseError(ref json, "value", ref token);
        }
    }

    private static void ParseObject(IntPtr l, ref Parser json, int used)
    {
        Descend(l, ref json, used, 3);
        lua_createtable(l, 0, 0);
        var token = new TokenValue();
        NextToken(ref json, ref token);
        if (token.Type == Token.ObjEnd)
        {
            json.Depth--;
            return;
        }
        while (true)
        {
            if (token.Type != Token.String) throw ParseError(ref json, "object key string", ref token);
            PushBytes(l, token.String);
            NextToken(ref json, ref token);
            if (token.Type != Token.Colon) throw ParseError(ref json, "colon", ref token);
            NextToken(ref json, ref token);
            ProcessValue(l, ref json, ref token, used + 2);
            lua_rawset(l, -3);
            NextToken(ref json, ref token);
            if (token.Type == Token.ObjEnd)
            {
                json.Depth--;
                return;
            }
            if (token.Type != Token.Comma) throw ParseError(ref json, "comma or object end", ref token);
            NextToken(ref json, ref token);
        }
    }

    private static void ParseArray(IntPtr l, ref Parser json, int used)
    {
        Descend(l, ref json, used, 2);
        lua_createtable(l, 0, 0);
        var token = new TokenValue();
        NextToken(ref json, ref token);
        if (token.Type == Token.ArrEnd)
        {
            json.Depth--;
            return;
        }
        for (long i = 1; ; i++)
        {
            ProcessValue(l, ref json, ref token, used + 1);
            lua_rawseti(l, -2, i);
            NextToken(ref json, ref token);
            if (token.Type == Token.ArrEnd)
            {
                json.Depth--;
                return;
            }
            if (token.Type != Token.Comma) throw ParseError(ref json, "comma or array end", ref token);
            NextToken(ref json, ref token);
        }
    }

    private static void SetError(ref Parser json, ref TokenValue token, string error)
    {
        token.Type = Token.Error;
        token.Index = json.Pos;
        token.Error = error;
    }

    private static void NextToken(ref Parser json, ref TokenValue token)
    {
        byte ch;
        while ((ch = json.At(json.Pos)) is (byte)' ' or (byte)'\t' or (byte)'\n' or (byte)'\r') json.Pos++;
        token.Index = json.Pos;
        switch (ch)
        {
            case 0: token.Type = Token.End; return;
            case (byte)'{': token.Type = Token.ObjBegin; json.Pos++; return;
            case (byte)'}': token.Type = Token.ObjEnd; json.Pos++; return;
            case (byte)'[': token.Type = Token.ArrBegin; json.Pos++; return;
            case (byte)']': token.Type = Token.ArrEnd; json.Pos++; return;
            case (byte)',': token.Type = Token.Comma; json.Pos++; return;
            case (byte)':': token.Type = Token.Colon; json.Pos++; return;
            case (byte)'"': NextString(ref json, ref token); return;
            case (byte)'-' or (>= (byte)'0' and <= (byte)'9'):
                if (json.Cfg->DecodeInvalidNumbers == 0 && IsInvalidNumber(ref json))
                {
                    SetError(ref json, ref token, "invalid number");
                    return;
                }
                NextNumber(ref json, ref token);
                return;
            case (byte)'f' or (byte)'i' or (byte)'I' or (byte)'n' or (byte)'N' or (byte)'t' or (byte)'+':
                var rest = json.Data[json.Pos..];
                if (rest.StartsWith("true"u8))
                {
                    token.Type = Token.Boolean;
                    token.Boolean = true;
                    json.Pos += 4;
                }
                else if (rest.StartsWith("false"u8))
                {
                    token.Type = Token.Boolean;
                    token.Boolean = false;
                    json.Pos += 5;
                }
                else if (rest.StartsWith("null"u8))
                {
                    token.Type = Token.Null;
                    json.Pos += 4;
                }
                else if (json.Cfg->DecodeInvalidNumbers != 0 && IsInvalidNumber(ref json))
                {
                    NextNumber(ref json, ref token);
                }
                else
                {
                    SetError(ref json, ref token, "invalid token");
                }
                return;
            default:
                SetError(ref json, ref token, "invalid token");
                return;
        }
    }

    private static void NextString(ref Parser json, ref TokenValue token)
    {
        json.Pos++;
        int start = json.Pos;
        // Fast path: no escape before the closing quote, the bytes are pushed from the text itself.
        int plain = json.Data[start..].IndexOfAny((byte)'"', (byte)'\\', (byte)0);
        if (plain >= 0 && json.Data[start + plain] == (byte)'"')
        {
            token.Type = Token.String;
            token.String = json.Data.Slice(start, plain);
            json.Pos = start + plain + 1;
            return;
        }
        int length = 0;
        byte ch;
        while ((ch = json.At(json.Pos)) != (byte)'"')
        {
            if (ch == 0)
            {
                SetError(ref json, ref token, "unexpected end of string");
                return;
            }
            if (ch == (byte)'\\')
            {
                byte escaped = json.At(json.Pos + 1);
                switch (escaped)
                {
                    case (byte)'"' or (byte)'\\' or (byte)'/': ch = escaped; break;
                    case (byte)'b': ch = (byte)'\b'; break;
                    case (byte)'t': ch = (byte)'\t'; break;
                    case (byte)'n': ch = (byte)'\n'; break;
                    case (byte)'f': ch = (byte)'\f'; break;
                    case (byte)'r': ch = (byte)'\r'; break;
                    case (byte)'u':
                        int written = UnicodeEscape(ref json, json.Tmp[length..]);
                        if (written > 0)
                        {
                            length += written;
                            continue;
                        }
                        SetError(ref json, ref token, "invalid unicode escape code");
                        return;
                    default:
                        SetError(ref json, ref token, "invalid escape code");
                        return;
                }
                json.Pos++;
            }
            json.Tmp[length++] = ch;
            json.Pos++;
        }
        json.Pos++;
        token.Type = Token.String;
        token.String = json.Tmp[..length];
    }

    private static int HexDigit(byte c) => c switch
    {
        >= (byte)'0' and <= (byte)'9' => c - '0',
        _ when (c | 0x20) is >= 'a' and <= 'f' => 10 + (c | 0x20) - 'a',
        _ => -1,
    };

    private static int Hex4(ref Parser json, int at)
    {
        int value = 0;
        for (int i = 0; i < 4; i++)
        {
            int d = HexDigit(json.At(at + i));
            if (d < 0) return -1;
            value = (value << 4) | d;
        }
        return value;
    }

    /// <summary>\uXXXX (or a surrogate pair) at the position, as UTF-8 into <paramref name="dest"/>; 0 when invalid.</summary>
    private static int UnicodeEscape(ref Parser json, Span<byte> dest)
    {
        int codepoint = Hex4(ref json, json.Pos + 2);
        if (codepoint < 0) return 0;
        int escapeLength = 6;
        if ((codepoint & 0xF800) == 0xD800)
        {
            if ((codepoint & 0x400) != 0) return 0;
            if (json.At(json.Pos + 6) != (byte)'\\' || json.At(json.Pos + 7) != (byte)'u') return 0;
            int low = Hex4(ref json, json.Pos + 8);
            if (low < 0 || (low & 0xFC00) != 0xDC00) return 0;
            codepoint = (((codepoint & 0x3FF) << 10) | (low & 0x3FF)) + 0x10000;
            escapeLength = 12;
        }
        int n;
        if (codepoint <= 0x7F)
        {
            dest[0] = (byte)codepoint;
            n = 1;
        }
        else if (codepoint <= 0x7FF)
        {
            dest[0] = (byte)((codepoint >> 6) | 0xC0);
            dest[1] = (byte)((codepoint & 0x3F) | 0x80);
            n = 2;
        }
        else if (codepoint <= 0xFFFF)
        {
            dest[0] = (byte)((codepoint >> 12) | 0xE0);
            dest[1] = (byte)(((codepoint >> 6) & 0x3F) | 0x80);
            dest[2] = (byte)((codepoint & 0x3F) | 0x80);
            n = 3;
        }
        else
        {
            dest[0] = (byte)((codepoint >> 18) | 0xF0);
            dest[1] = (byte)(((codepoint >> 12) & 0x3F) | 0x80);
            dest[2] = (byte)(((codepoint >> 6) & 0x3F) | 0x80);
            dest[3] = (byte)((codepoint & 0x3F) | 0x80);
            n = 4;
        }
        json.Pos += escapeLength;
        return n;
    }

    /// <summary>Text strtod accepts but strict JSON does not: a '+', hex, leading zeros, inf, nan.</summary>
    private static bool IsInvalidNumber(ref Parser json)
    {
        int p = json.Pos;
        if (json.At(p) == (byte)'+') return true;
        if (json.At(p) == (byte)'-') p++;
        byte c = json.At(p);
        if (c == (byte)'0')
        {
            byte c2 = json.At(p + 1);
            return (c2 | 0x20) == 'x' || c2 is >= (byte)'0' and <= (byte)'9';
        }
        if (c <= (byte)'9') return false;
        var rest = json.Data[Math.Min(p, json.Data.Length)..];
        return StartsWithIgnoreCase(rest, "inf"u8) || StartsWithIgnoreCase(rest, "nan"u8);
    }

    private static bool StartsWithIgnoreCase(ReadOnlySpan<byte> s, ReadOnlySpan<byte> lower)
    {
        if (s.Length < lower.Length) return false;
        for (int i = 0; i < lower.Length; i++)
            if ((s[i] | 0x20) != lower[i]) return false;
        return true;
    }

    private static void NextNumber(ref Parser json, ref TokenValue token)
    {
        int consumed = Strtod.Parse(json.Data[json.Pos..], out double value);
        token.Type = Token.Number;
        if (consumed == 0)
        {
            SetError(ref json, ref token, "invalid number");
            return;
        }
        token.Number = value;
        json.Pos += consumed;
    }

    // ===== configuration =====

    private static readonly string[] OptionNames =
    [
        "", "encode_sparse_array", "encode_max_depth", "decode_max_depth", "encode_number_precision",
        "encode_keep_buffer", "encode_invalid_numbers", "decode_invalid_numbers",
    ];

    private static readonly string[] OnOff = ["off", "on"];
    private static readonly string[] OnOffNull = ["off", "on", "null"];

    /// <summary>__cjson_configure(cfg, option, args...): the option functions, by number (see OptionNames).</summary>
    private static int Configure(IntPtr l)
    {
        var cfg = (Config*)lua_touserdata(l, 1);
        int option = (int)IntegerAt(l, 2);
        string name = OptionNames[option];
        const int first = 3; // the script's argument #1
        try
        {
            int args = option == 1 ? 3 : 1;
            if (lua_gettop(l) - 2 > args) throw ArgError(args + 1, name, "found too many arguments");
            lua_settop(l, 2 + args); // pad with nil
            lua_pushboolean(l, 1);
            switch (option)
            {
                case 1:
                    EnumOption(l, first, 1, name, ref cfg->SparseConvert, OnOff);
                    IntegerOption(l, first + 1, 2, name, ref cfg->SparseRatio, 0, int.MaxValue);
                    IntegerOption(l, first + 2, 3, name, ref cfg->SparseSafe, 0, int.MaxValue);
                    return 4;
                case 2:
                    IntegerOption(l, first, 1, name, ref cfg->EncodeMaxDepth, 1, int.MaxValue);
                    break;
                case 3:
                    IntegerOption(l, first, 1, name, ref cfg->DecodeMaxDepth, 1, int.MaxValue);
                    break;
                case 4:
                    IntegerOption(l, first, 1, name, ref cfg->EncodeNumberPrecision, 1, 14);
                    break;
                case 5:
                    EnumOption(l, first, 1, name, ref cfg->EncodeKeepBuffer, OnOff);
                    break;
                case 6:
                    EnumOption(l, first, 1, name, ref cfg->EncodeInvalidNumbers, OnOffNull);
                    break;
                default:
                    EnumOption(l, first, 1, name, ref cfg->DecodeInvalidNumbers, OnOff);
                    break;
            }
            return 2;
        }
        catch (Exception e)
        {
            return Fail(l, e);
        }
    }

    /// <summary>json_integer_option: a range error names argument #1 whichever argument it was, as Redis's.</summary>
    private static void IntegerOption(IntPtr l, int index, int arg, string name, ref int setting, int min, int max)
    {
        if (lua_type(l, index) != TNil)
        {
            int value = unchecked((int)CheckInteger(l, index, arg, name));
            if (value < min || value > max)
                throw ArgError(1, name, $"expected integer between {min} and {max}");
            setting = value;
        }
        lua_pushinteger(l, setting);
    }

    /// <summary>json_enum_option: a boolean, or one of the option names; reported as a boolean when it is off/on.</summary>
    private static void EnumOption(IntPtr l, int index, int arg, string name, ref int setting, string[] options)
    {
        int type = lua_type(l, index);
        if (type == TBoolean)
        {
            setting = lua_toboolean(l, index);
        }
        else if (type != TNil)
        {
            Span<byte> scratch = stackalloc byte[32];
            var text = CheckString(l, index, arg, name, scratch);
            int found = -1;
            for (int i = 0; i < options.Length && found < 0; i++)
                if (System.Text.Ascii.Equals(text, options[i])) found = i;
            if (found < 0)
                throw ArgError(arg, name, $"invalid option '{System.Text.Encoding.Latin1.GetString(text)}'");
            setting = found;
        }
        if (setting is 0 or 1) lua_pushboolean(l, setting);
        else PushString(l, options[setting]);
    }
}
