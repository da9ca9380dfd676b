using KeraLua;
using RedisClone.Commands;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Scripting.Libraries;

namespace RedisClone.Scripting;

/// <summary>
/// The two conversions between replies and Lua values, as Redis 7.2's script_lua.c makes them in
/// RESP2: a command's reply becomes a Lua value for redis.call (integer → number, bulk → string, nil
/// → false, array → table, status → {ok=...}, error → {err=...}), and a script's return value
/// becomes the client's reply (number → integer, truncated; string → bulk; true → 1; false and nil
/// → nil; table → array up to its first nil, or {ok=...} → status, {err=...} → error).
/// </summary>
internal static class LuaReply
{
    /// <summary>Pushes the Lua value of the one reply (RESP2, or RESP3 after redis.setresp(3)) in <paramref name="reply"/>.</summary>
    public static void Push(Lua lua, ReadOnlySpan<byte> reply)
    {
        int consumed = PushOne(lua, reply);
        _ = consumed;
    }

    /// <summary>
    /// Pushes one reply's value and returns its length (RESP3 types as Redis 7.2's
    /// redisProtocolToLuaType: map → {map={...}}, set → {set={member=true}}, null → nil, boolean →
    /// boolean, double → {double=n}, big number → {big_number=s}, verbatim →
    /// {verbatim_string={format=f, string=s}}; an attribute is skipped).
    /// </summary>
    private static int PushOne(Lua lua, ReadOnlySpan<byte> reply)
    {
        // Recursive, but only as deep as a command's reply nests (a handful of levels: no command
        // nests what a client sends); the guard keeps a bug there a script error, not a dead server.
        System.Runtime.CompilerServices.RuntimeHelpers.EnsureSufficientExecutionStack();
        int eol = reply.IndexOf("\r\n"u8);
        var line = reply[1..eol];
        int next = eol + 2;
        lua.CheckStack(4);
        switch (reply[0])
        {
            case (byte)':':
                RedisNumbers.TryParseInt64(line, out long integer);
                lua.PushInteger(integer);
                return next;
            case (byte)'$':
            {
                RedisNumbers.TryParseInt64(line, out long length);
                if (length < 0)
                {
                    lua.PushBoolean(false);
                    return next;
                }
                LuaApi.PushBytes(lua.Handle, reply.Slice(next, (int)length));
                return next + (int)length + 2;
            }
            case (byte)'+':
                lua.CreateTable(0, 1);
                SetField(lua, "ok"u8, line);
                return next;
            case (byte)'-':
                PushErrorTable(lua, RespErrors.Latin(reply[..eol]));
                return next;
            case (byte)'*':
            {
                RedisNumbers.TryParseInt64(line, out long count);
                if (count < 0)
                {
                    lua.PushBoolean(false);
                    return next;
                }
                lua.CreateTable((int)count, 0);
                for (int j = 1; j <= count; j++)
                {
                    next += PushOne(lua, reply[next..]);
                    lua.RawSetInteger(-2, j);
                }
                return next;
            }
            case (byte)'%':
            case (byte)'~':
            {
                bool map = reply[0] == (byte)'%';
                RedisNumbers.TryParseInt64(line, out long count);
                lua.CreateTable(0, 1);
                lua.CreateTable(0, (int)count);
                for (long j = 0; j < count; j++)
                {
                    next += PushOne(lua, reply[next..]);
                    if (map) next += PushOne(lua, reply[next..]);
                    else lua.PushBoolean(true);
                    lua.SetTable(-3);
                }
                lua.SetField(-2, map ? "map" : "set");
                return next;
            }
            case (byte)'_':
                lua.PushNil();
                return next;
            case (byte)'#':
                lua.PushBoolean(line.Length == 1 && line[0] == (byte)'t');
                return next;
            case (byte)',':
                lua.CreateTable(0, 1);
                lua.PushNumber(ParseDouble(line));
                lua.SetField(-2, "double");
                return next;
            case (byte)'(':
                lua.CreateTable(0, 1);
                SetField(lua, "big_number"u8, line);
                return next;
            case (byte)'=':
            {
                RedisNumbers.TryParseInt64(line, out long length);
                var body = reply.Slice(next, (int)length);
                lua.CreateTable(0, 1);
                LuaApi.PushBytes(lua.Handle, "verbatim_string"u8);
                lua.CreateTable(0, 2);
                SetField(lua, "string"u8, body[4..]);
                SetField(lua, "format"u8, body[..3]);
                lua.RawSet(-3);
                return next + (int)length + 2;
            }
            case (byte)'|':
            {
                // Attributes are not shown to scripts: skip the pairs, then push the reply they decorate.
                RedisNumbers.TryParseInt64(line, out long pairs);
                for (long j = 0; j < pairs * 2; j++)
                {
                    next += PushOne(lua, reply[next..]);
                    lua.Pop(1);
                }
                return next + PushOne(lua, reply[next..]);
            }
            default:
                throw new InvalidOperationException("unexpected reply type in a script: " + (char)reply[0]);
        }
    }

    /// <summary>A RESP3 double's text ("1.5", "inf", "-inf", "nan").</summary>
    private static double ParseDouble(ReadOnlySpan<byte> text)
    {
        if (text.SequenceEqual("inf"u8)) return double.PositiveInfinity;
        if (text.SequenceEqual("-inf"u8)) return double.NegativeInfinity;
        if (text.SequenceEqual("nan"u8) || text.SequenceEqual("-nan"u8)) return double.NaN;
        return double.Parse(RespErrors.Latin(text), System.Globalization.CultureInfo.InvariantCulture);
    }

    /// <summary>
    /// {err="CODE msg"} from "-CODE msg" (or "ERR msg" from a text without a code), as Redis's
    /// luaPushErrorBuff: the code is the first word; CR/LF around the message are trimmed.
    /// </summary>
    public static void PushErrorTable(Lua lua, string error)
    {
        string code = "ERR", message = error;
        if (error.StartsWith('-'))
        {
            int space = error.IndexOf(' ');
            if (space < 0) message = error[1..];
            else
            {
                code = error[1..space];
                message = error[(space + 1)..];
            }
        }
        message = message.Trim('\r', '\n');
        lua.CreateTable(0, 1);
        lua.PushString(code + " " + message);
        lua.SetField(-2, "err");
    }

    /// <summary>
    /// Lua 5.1's stack limit for C code (LUAI_MAXCSTACK). Redis's luaReplyToRedisReply asks
    /// lua_checkstack for 4 more slots before each value it converts, and answers "reached lua
    /// stack limit" for that value when they are not there: that is what bounds a script's reply.
    /// </summary>
    private const int MaxCStack = Libraries.LuaLibrary.MaxCStack;

    /// <summary>
    /// Slots on Redis's Lua stack when the conversion starts: the error handler and the returned
    /// value (measured against redis-server 7.0: a table that holds itself answers 7995 levels of
    /// "*1" before the error, for EVAL and FCALL alike).
    /// </summary>
    private const int RootSlots = 2;

    /// <summary>The kind of aggregate a <see cref="Frame"/> is walking.</summary>
    private enum FrameKind : byte { Array, Map, Set }

    /// <summary>
    /// One aggregate being written: its kind, the slots Redis's stack would hold with its table on
    /// top, and where it is (the next array index, or whether a map's key or value comes next).
    /// </summary>
    private struct Frame
    {
        public FrameKind Kind;
        public bool ValueNext;
        public int Slots;
        public int Next;
        public int Count;
    }

    /// <summary>The walk's frames, kept per thread so a reply allocates nothing once warm (dropped again after a deep one).</summary>
    [ThreadStatic]
    private static Frame[]? _frames;

    /// <summary>
    /// Writes the value on top of the stack as the script's reply (it stays on the stack), in the
    /// caller's protocol. <paramref name="scriptResp3"/>: the script chose RESP3 with redis.setresp,
    /// which makes a boolean a RESP3 boolean (Redis 7.2's luaReplyToRedisReply looks at the script's
    /// protocol there, the caller's everywhere else).
    /// </summary>
    /// <remarks>
    /// Redis converts recursively and stops where Lua 5.1's stack ends (about 8000 slots: a table
    /// that holds itself is 7995 arrays and an error). Our Lua (5.4) has a stack a hundred times
    /// deeper and a .NET stack overflow cannot be caught, so the walk is a loop over an explicit
    /// stack of <see cref="Frame"/>s that counts Redis's slots and ends where Redis ends, byte for
    /// byte, on any thread's stack.
    /// </remarks>
    public static void Write(Lua lua, ref CommandContext ctx, bool scriptResp3)
    {
        lua.PushCopy(-1);
        var frames = _frames ??= new Frame[16];
        int depth = 0;
        if (Begin(lua, ref ctx, scriptResp3, RootSlots, ref frames, ref depth))
        {
            while (depth > 0)
            {
                ref var f = ref frames[depth - 1];
                switch (f.Kind)
                {
                    case FrameKind.Array:
                        // Stack: table. Each element is converted with one slot more, as Redis's lua_rawget pushes it.
                        if (f.Next > f.Count)
                        {
                            lua.Pop(1);
                            depth--;
                            continue;
                        }
                        lua.RawGetInteger(-1, f.Next++);
                        Begin(lua, ref ctx, scriptResp3, f.Slots + 1, ref frames, ref depth);
                        break;
                    case FrameKind.Map when f.ValueNext:
                        // Stack: table, map, key, value: the value is converted where Redis converts it, 3 slots up.
                        f.ValueNext = false;
                        Begin(lua, ref ctx, scriptResp3, f.Slots + 3, ref frames, ref depth);
                        break;
                    default:
                        // Stack: table, map or set, previous key (nil first).
                        if (!lua.Next(-2))
                        {
                            lua.Pop(2);
                            depth--;
                            continue;
                        }
                        if (f.Kind == FrameKind.Set) lua.Pop(1); // the member's value is not shown
                        else f.ValueNext = true;
                        // A copy of the key is converted (a map's 4 slots up, a set's 3), so lua_next keeps the original.
                        lua.PushCopy(-2 + (f.Kind == FrameKind.Set ? 1 : 0));
                        Begin(lua, ref ctx, scriptResp3, f.Slots + (f.Kind == FrameKind.Set ? 3 : 4), ref frames, ref depth);
                        break;
                }
                // Begin either finished the value (popped) or made it the top frame, walked next.
            }
        }
        if (frames.Length > 256) _frames = null;
    }

    /// <summary>
    /// Starts converting the value on top of the stack, which Redis would hold at stack height
    /// <paramref name="slots"/>. A scalar, a status, an error and the like are written and popped
    /// (false). An array, a map or a set gets its header written and a frame pushed that owns the
    /// value from there (true).
    /// </summary>
    private static bool Begin(Lua lua, ref CommandContext ctx, bool scriptResp3, int slots, ref Frame[] frames, ref int depth)
    {
        if (slots + 4 > MaxCStack)
        {
            ctx.Error(RespErrors.LuaStackLimit);
            lua.Pop(1);
            return false;
        }
        // Our own stack holds at most three slots per level (table, map, key) plus what a check pushes.
        if (!lua.CheckStack(8)) throw new InvalidOperationException("the Lua stack cannot grow for a script's reply");
        switch (lua.Type(-1))
        {
            case LuaType.String:
                ctx.Reply.Bulk(LuaApi.StringAt(lua.Handle, -1));
                break;
            case LuaType.Boolean:
                if (scriptResp3) ctx.Reply.Boolean(lua.ToBoolean(-1));
                else if (lua.ToBoolean(-1)) ctx.Reply.Integer(1);
                else ctx.Reply.NullBulk();
                break;
            case LuaType.Number:
                // C's (long long) cast, as Redis: out of range (inf, 2^64) is INT64_MIN on x86-64, where .NET saturates.
                ctx.Reply.Integer(lua.IsInteger(-1) ? lua.ToInteger(-1) : Libraries.LuaLibrary.ToInteger(lua.ToNumber(-1)));
                break;
            case LuaType.Table:
                if (BeginTable(lua, ref ctx, slots, ref frames, ref depth)) return true;
                break;
            default:
                ctx.Reply.NullBulk();
                break;
        }
        lua.Pop(1);
        return false;
    }

    /// <summary>
    /// A table: {err=...}, {ok=...}, {double=...}, {big_number=...} and {verbatim_string=...} are
    /// written (false, the table left for the caller to pop); {map=...}, {set=...} and arrays start
    /// a frame (true).
    /// </summary>
    private static bool BeginTable(Lua lua, ref CommandContext ctx, int slots, ref Frame[] frames, ref int depth)
    {
        if (RawField(lua, "err") == LuaType.String)
        {
            lua.Pop(1);
            string text = LuaEngine.GetStringField(lua, "err") ?? "";
            ctx.Error(LuaEngine.Sanitize(text));
            return false;
        }
        lua.Pop(1);
        if (RawField(lua, "ok") == LuaType.String)
        {
            var status = LuaApi.StringAt(lua.Handle, -1);
            if (status.IndexOfAny((byte)'\r', (byte)'\n') < 0) ctx.Reply.SimpleString(status);
            else
            {
                var copy = status.ToArray();
                SpacesForLineBreaks(copy);
                ctx.Reply.SimpleString(copy);
            }
            lua.Pop(1);
            return false;
        }
        lua.Pop(1);
        if (RawField(lua, "double") == LuaType.Number)
        {
            ctx.Reply.Double(lua.ToNumber(-1));
            lua.Pop(1);
            return false;
        }
        lua.Pop(1);
        if (RawField(lua, "big_number") == LuaType.String)
        {
            var digits = lua.ToBuffer(-1, false);
            lua.Pop(1);
            SpacesForLineBreaks(digits);
            ctx.Reply.BigNumber(digits);
            return false;
        }
        lua.Pop(1);
        if (RawField(lua, "verbatim_string") == LuaType.Table)
        {
            if (RawField(lua, "format") == LuaType.String)
            {
                lua.PushString("string");
                if (lua.RawGet(-3) == LuaType.String) // the verbatim table, under its format
                {
                    var text = lua.ToBuffer(-1, false);
                    var format = lua.ToBuffer(-2, false);
                    lua.Pop(3);
                    WriteVerbatim(ref ctx, format, text);
                    return false;
                }
                lua.Pop(1);
            }
            lua.Pop(1);
        }
        lua.Pop(1);
        if (BeginPairs(lua, ref ctx, "map", FrameKind.Map, slots, ref frames, ref depth)) return true;
        if (BeginPairs(lua, ref ctx, "set", FrameKind.Set, slots, ref frames, ref depth)) return true;
        int count = 0;
        while (lua.RawGetInteger(-1, count + 1) != LuaType.Nil)
        {
            lua.Pop(1);
            count++;
        }
        lua.Pop(1);
        ctx.Reply.ArrayHeader(count);
        Push(ref frames, ref depth, new Frame { Kind = FrameKind.Array, Slots = slots, Next = 1, Count = count });
        return true;
    }

    /// <summary>
    /// {map=t} or {set=t}: writes the header and pushes the frame that walks t (true), the stack
    /// then holding the table, t and the nil the walk starts from; false when the field is no table.
    /// </summary>
    private static bool BeginPairs(Lua lua, ref CommandContext ctx, string field, FrameKind kind, int slots, ref Frame[] frames, ref int depth)
    {
        if (RawField(lua, field) != LuaType.Table)
        {
            lua.Pop(1);
            return false;
        }
        int pairs = CountPairs(lua);
        if (kind == FrameKind.Map) ctx.Reply.MapHeader(pairs);
        else ctx.Reply.SetHeader(pairs);
        lua.PushNil();
        Push(ref frames, ref depth, new Frame { Kind = kind, Slots = slots });
        return true;
    }

    private static void Push(ref Frame[] frames, ref int depth, Frame frame)
    {
        if (depth == frames.Length)
        {
            Array.Resize(ref frames, frames.Length * 2);
            _frames = frames;
        }
        frames[depth++] = frame;
    }

    /// <summary>The number of pairs in the table on top.</summary>
    private static int CountPairs(Lua lua)
    {
        int count = 0;
        lua.PushNil();
        while (lua.Next(-2))
        {
            lua.Pop(1);
            count++;
        }
        return count;
    }

    /// <summary>Pushes t[name] (raw) of the table on top; returns its type.</summary>
    private static LuaType RawField(Lua lua, string name)
    {
        Span<byte> bytes = stackalloc byte[name.Length];
        System.Text.Encoding.ASCII.GetBytes(name, bytes);
        LuaApi.PushBytes(lua.Handle, bytes);
        return lua.RawGet(-2);
    }

    /// <summary>t[name] = value (raw, both strings) on the table on top.</summary>
    private static void SetField(Lua lua, ReadOnlySpan<byte> name, ReadOnlySpan<byte> value)
    {
        LuaApi.PushBytes(lua.Handle, name);
        LuaApi.PushBytes(lua.Handle, value);
        lua.RawSet(-3);
    }

    /// <summary>Redis's addReplyVerbatim: "=len\r\nfmt:text" in RESP3 (the format padded or cut to 3 bytes), the text as a bulk in RESP2.</summary>
    private static void WriteVerbatim(ref CommandContext ctx, ReadOnlySpan<byte> format, ReadOnlySpan<byte> text)
    {
        if (!ctx.Reply.IsResp3)
        {
            ctx.Reply.Bulk(text);
            return;
        }
        Span<byte> head = stackalloc byte[4];
        head.Fill((byte)' ');
        format[..Math.Min(3, format.Length)].CopyTo(head);
        head[3] = (byte)':';
        ctx.Reply.VerbatimHeader(text.Length + 4);
        ctx.Reply.Raw(head);
        ctx.Reply.Raw(text);
        ctx.Reply.Raw("\r\n"u8);
    }

    private static void SpacesForLineBreaks(byte[] text)
    {
        for (int j = 0; j < text.Length; j++)
            if (text[j] is (byte)'\r' or (byte)'\n') text[j] = (byte)' ';
    }
}
