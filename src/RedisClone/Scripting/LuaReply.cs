using KeraLua;
using RedisClone.Commands;
using RedisClone.Common;
using RedisClone.Protocol;

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
    /// <summary>Pushes the Lua value of the one RESP2 reply in <paramref name="reply"/>.</summary>
    public static void Push(Lua lua, ReadOnlySpan<byte> reply)
    {
        int consumed = PushOne(lua, reply);
        _ = consumed;
    }

    private static int PushOne(Lua lua, ReadOnlySpan<byte> reply)
    {
        int eol = reply.IndexOf("\r\n"u8);
        var line = reply[1..eol];
        int next = eol + 2;
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
                lua.PushBuffer(reply.Slice(next, (int)length).ToArray());
                return next + (int)length + 2;
            }
            case (byte)'+':
                lua.CreateTable(0, 1);
                lua.PushBuffer(line.ToArray());
                lua.SetField(-2, "ok");
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
            default:
                throw new InvalidOperationException("unexpected reply type in a script: " + (char)reply[0]);
        }
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

    /// <summary>Writes the value on top of the stack as the script's reply (it stays on the stack).</summary>
    public static void Write(Lua lua, ref CommandContext ctx)
    {
        switch (lua.Type(-1))
        {
            case LuaType.String:
                ctx.Reply.Bulk(lua.ToBuffer(-1, false));
                break;
            case LuaType.Boolean:
                if (lua.ToBoolean(-1)) ctx.Reply.Integer(1);
                else ctx.Reply.NullBulk();
                break;
            case LuaType.Number:
                // C's (long long) cast, as Redis: out of range (inf, 2^64) is INT64_MIN on x86-64, where .NET saturates.
                ctx.Reply.Integer(lua.IsInteger(-1) ? lua.ToInteger(-1) : Libraries.LuaLibrary.ToInteger(lua.ToNumber(-1)));
                break;
            case LuaType.Table:
                WriteTable(lua, ref ctx);
                break;
            default:
                ctx.Reply.NullBulk();
                break;
        }
    }

    private static void WriteTable(Lua lua, ref CommandContext ctx)
    {
        lua.PushString("err");
        lua.RawGet(-2);
        bool isError = lua.Type(-1) == LuaType.String;
        lua.Pop(1);
        if (isError)
        {
            string text = LuaEngine.GetStringField(lua, "err") ?? "";
            ctx.Error(LuaEngine.Sanitize(text));
            return;
        }
        lua.PushString("ok");
        lua.RawGet(-2);
        if (lua.Type(-1) == LuaType.String)
        {
            var status = lua.ToBuffer(-1, false);
            lua.Pop(1);
            for (int j = 0; j < status.Length; j++)
                if (status[j] is (byte)'\r' or (byte)'\n') status[j] = (byte)' ';
            ctx.Reply.SimpleString(status);
            return;
        }
        lua.Pop(1);
        int count = 0;
        while (lua.RawGetInteger(-1, count + 1) != LuaType.Nil)
        {
            lua.Pop(1);
            count++;
        }
        lua.Pop(1);
        ctx.Reply.ArrayHeader(count);
        for (int j = 1; j <= count; j++)
        {
            lua.RawGetInteger(-1, j);
            Write(lua, ref ctx);
            lua.Pop(1);
        }
    }
}
