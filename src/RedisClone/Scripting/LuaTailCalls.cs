using System.Buffers;
using KeraLua;

namespace RedisClone.Scripting;

/// <summary>
/// Recompiles a loaded chunk with its tail calls turned into plain calls followed by the return
/// that already follows them, so a script's frame stays on the stack while the callee runs.
/// </summary>
/// <remarks>
/// Why: in Redis, redis.call, cjson.encode and the other library functions are C functions, and a
/// Lua 5.1 tail call to a C function keeps the caller's frame, so "return cjson.decode(x)" that
/// fails still reports "user_script:1:" and the script's line. Here those functions are Lua
/// wrappers around C# (a C# callback must not raise a Lua error), and a Lua 5.4 tail call to a Lua
/// function drops the caller's frame. The cost: a Lua function that recurses through tail calls
/// uses stack per level (Lua 5.4 allows about a million slots).
/// The rewrite works on the binary chunk (lua_dump): TAILCALL A B C k becomes CALL A B 0 (all
/// results), and the RETURN A 0 after it returns them. Anything unexpected in the chunk leaves the
/// function as it was.
/// </remarks>
internal static class LuaTailCalls
{
    private const int OpCall = 68, OpTailCall = 69, OpReturn = 70;

    private static readonly LuaWriter Writer = Write;

    [ThreadStatic] private static ArrayBufferWriter<byte>? _dump;

    /// <summary>Replaces the Lua function on top of the stack by its rewritten copy; false (nothing changed) if it could not.</summary>
    public static bool Rewrite(Lua lua)
    {
        var dump = _dump ??= new ArrayBufferWriter<byte>();
        dump.ResetWrittenCount();
        if (lua.Dump(Writer, IntPtr.Zero, false) != 0) return false;
        byte[] chunk = dump.WrittenSpan.ToArray();
        if (dump.Capacity > 1 << 20) _dump = null; // do not keep a big script's buffer
        int changed;
        try
        {
            var reader = new ChunkReader(chunk);
            reader.Header();
            changed = reader.Function();
            if (reader.Pos != chunk.Length) return false;
        }
        catch (Exception e) when (e is IndexOutOfRangeException or ArgumentOutOfRangeException or InvalidDataException or OverflowException)
        {
            return false;
        }
        if (changed == 0) return true;
        if (lua.LoadBuffer(chunk, "=tailcalls", "b") != LuaStatus.OK)
        {
            lua.Pop(1);
            return false;
        }
        lua.Remove(-2);
        return true;
    }

    private static int Write(IntPtr state, IntPtr p, UIntPtr size, IntPtr ud)
    {
        var span = _dump!.GetSpan((int)size);
        unsafe
        {
            new ReadOnlySpan<byte>((void*)p, (int)size).CopyTo(span);
        }
        _dump.Advance((int)size);
        return 0;
    }

    /// <summary>Walks Lua 5.4's binary chunk layout (ldump.c), patching code arrays in place.</summary>
    private ref struct ChunkReader(byte[] chunk)
    {
        private readonly byte[] _chunk = chunk;
        public int Pos;

        public void Header()
        {
            ReadOnlySpan<byte> expected = [0x1b, (byte)'L', (byte)'u', (byte)'a', 0x54, 0, 0x19, 0x93, (byte)'\r', (byte)'\n', 0x1a, (byte)'\n', 4, 8, 8];
            if (!_chunk.AsSpan(0, expected.Length).SequenceEqual(expected)) throw new InvalidDataException();
            Pos = expected.Length + 8 + 8 + 1; // LUAC_INT, LUAC_NUM, the main function's upvalue count
        }

        private long Size()
        {
            long x = 0;
            byte b;
            do
            {
                b = _chunk[Pos++];
                x = (x << 7) | (uint)(b & 0x7f);
                if (x > int.MaxValue) throw new InvalidDataException();
            } while ((b & 0x80) == 0);
            return x;
        }

        private void SkipString()
        {
            long size = Size();
            if (size > 0) Pos = checked(Pos + (int)(size - 1));
        }

        /// <summary>One function and its nested ones; returns how many tail calls were rewritten.</summary>
        public int Function()
        {
            int changed = 0;
            SkipString(); // source
            Size(); // linedefined
            Size(); // lastlinedefined
            Pos += 3; // numparams, is_vararg, maxstacksize
            int code = (int)Size();
            int start = Pos;
            Pos = checked(Pos + code * 4);
            if (Pos > _chunk.Length) throw new InvalidDataException();
            for (int i = 0; i + 1 < code; i++)
            {
                var at = _chunk.AsSpan(start + i * 4, 4);
                uint instruction = BitConverter.ToUInt32(at);
                uint next = BitConverter.ToUInt32(_chunk.AsSpan(start + (i + 1) * 4, 4));
                if ((instruction & 0x7f) != OpTailCall || (next & 0x7f) != OpReturn) continue;
                // CALL keeps A and B; C = 0 (all results), k cleared (RETURN closes upvalues itself).
                instruction = (instruction & 0x00FF7F80u) | OpCall;
                BitConverter.TryWriteBytes(at, instruction);
                changed++;
            }
            long constants = Size();
            for (long k = 0; k < constants; k++)
            {
                byte tag = _chunk[Pos++];
                switch (tag)
                {
                    case 0x00 or 0x01 or 0x11: break; // nil, false, true
                    case 0x03 or 0x13: Pos += 8; break; // integer, float
                    case 0x04 or 0x14: SkipString(); break;
                    default: throw new InvalidDataException();
                }
            }
            long upvalues = Size();
            Pos = checked(Pos + (int)upvalues * 3);
            long protos = Size();
            for (long p = 0; p < protos; p++) changed += Function();
            long lineInfo = Size();
            Pos = checked(Pos + (int)lineInfo);
            long absLineInfo = Size();
            for (long a = 0; a < absLineInfo; a++)
            {
                Size();
                Size();
            }
            long locals = Size();
            for (long v = 0; v < locals; v++)
            {
                SkipString();
                Size();
                Size();
            }
            long upvalueNames = Size();
            for (long u = 0; u < upvalueNames; u++) SkipString();
            return changed;
        }
    }
}
