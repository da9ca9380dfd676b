using System.Buffers.Binary;
using System.Runtime.InteropServices;
using KeraLua;

namespace RedisClone.Scripting;

/// <summary>
/// Turns a compiled script's tail calls of library functions (<c>return redis.call(...)</c>,
/// <c>return string.format(...)</c>) into ordinary calls, so an error they raise still names the
/// script's line.
/// </summary>
/// <remarks>
/// <para>
/// Redis's <c>redis.call</c> is a C function: a tail call to it keeps the script's frame, and the
/// error handler finds " script: sha, on @user_script:N.". Ours is a Lua wrapper around a C#
/// primitive (C# must not raise Lua errors), and Lua 5.4 replaces the caller's frame on a tail call
/// to a Lua function: the line would be lost. The compiler always follows OP_TAILCALL with an
/// OP_RETURN of every value from the same register, so OP_CALL with "all results" (C = 0) followed
/// by that OP_RETURN returns exactly what the tail call returned.
/// </para>
/// <para>
/// Only calls of a function read from a table field or a global are rewritten (the wrappers are
/// <c>redis.*</c>, <c>string.format</c>, <c>table.concat</c>, <c>tostring</c>); a script's own local
/// functions keep proper tail calls, so tail recursion still runs in constant stack. The rewrite
/// works on the binary chunk of <c>lua_dump</c> (Lua 5.4's format, checked field by field; an
/// unexpected header leaves the chunk as compiled).
/// </para>
/// </remarks>
internal static class TailCalls
{
    private const int OpGetTabUp = 11;
    private const int OpGetField = 14;
    private const int OpCall = 68;
    private const int OpTailCall = 69;
    private const int OpReturn = 70;

    private const int HeaderSize = 31; // signature, version, format, LUAC_DATA, sizes, LUAC_INT, LUAC_NUM

    /// <summary>
    /// Replaces the function on top of <paramref name="lua"/>'s stack by the same function with its
    /// library tail calls rewritten; leaves it alone when it has none (or the chunk is not understood).
    /// The function must not have been given upvalue values yet (it is reloaded from its dump).
    /// </summary>
    public static void Rewrite(Lua lua, string chunkName)
    {
        var chunk = Dump(lua);
        if (chunk == null || !TryRewrite(chunk)) return;
        if (lua.LoadBuffer(chunk, chunkName, "b") != LuaStatus.OK)
        {
            lua.Pop(1); // the loader's message: keep the function as compiled
            return;
        }
        lua.Remove(-2);
    }

    private static byte[]? Dump(Lua lua)
    {
        var output = new MemoryStream();
        var handle = GCHandle.Alloc(output);
        try
        {
            return lua.Dump(Writer, GCHandle.ToIntPtr(handle), false) == 0 ? output.ToArray() : null;
        }
        finally
        {
            handle.Free();
        }
    }

    private static readonly LuaWriter Writer = static (_, p, size, ud) =>
    {
        var output = (MemoryStream)GCHandle.FromIntPtr(ud).Target!;
        unsafe
        {
            output.Write(new ReadOnlySpan<byte>((void*)p, checked((int)size)));
        }
        return 0;
    };

    /// <summary>Rewrites <paramref name="chunk"/> in place; true when something changed.</summary>
    internal static bool TryRewrite(byte[] chunk)
    {
        if (chunk.Length < HeaderSize + 1 || chunk[0] != 0x1B || chunk[1] != (byte)'L' || chunk[4] != 0x54 || chunk[5] != 0
            || chunk[12] != 4 || chunk[13] != 8 || chunk[14] != 8)
            return false;
        var reader = new ChunkReader(chunk, HeaderSize + 1); // + the main function's upvalue count
        try
        {
            bool changed = RewriteFunction(ref reader);
            return changed && reader.Position == chunk.Length;
        }
        catch (FormatException)
        {
            return false;
        }
    }

    private static bool RewriteFunction(ref ChunkReader reader)
    {
        reader.SkipString(); // source
        reader.ReadSize(); // linedefined
        reader.ReadSize(); // lastlinedefined
        reader.Skip(3); // numparams, is_vararg, maxstacksize
        int codeCount = reader.ReadSize();
        int codeStart = reader.Position;
        reader.Skip(checked(codeCount * 4));
        var constants = ReadConstants(ref reader);
        bool changed = false;
        for (int pc = 0; pc < codeCount; pc++)
        {
            uint instruction = reader.Instruction(codeStart, pc);
            if ((instruction & 0x7F) != OpTailCall) continue;
            uint a = (instruction >> 7) & 0xFF;
            if (!CalleeIsLibraryFunction(ref reader, codeStart, pc, a, constants)) continue;
            if (pc + 1 >= codeCount || (reader.Instruction(codeStart, pc + 1) & 0x7F) != OpReturn) continue;
            // OP_CALL A B C=0: the same function and arguments, every result kept for the OP_RETURN.
            uint call = (instruction & 0x00FF_0000u) | (a << 7) | OpCall;
            reader.SetInstruction(codeStart, pc, call);
            changed = true;
        }
        int upvalues = reader.ReadSize();
        reader.Skip(checked(upvalues * 3));
        int protos = reader.ReadSize();
        for (int i = 0; i < protos; i++) changed |= RewriteFunction(ref reader);
        SkipDebug(ref reader);
        return changed;
    }

    /// <summary>
    /// True when the register holding the called function was last set by a read of a global or a
    /// table field with a string key (arguments are built in the registers above it, so the nearest
    /// earlier instruction targeting that register is the one that loaded the function).
    /// </summary>
    private static bool CalleeIsLibraryFunction(ref ChunkReader reader, int codeStart, int pc, uint a, List<bool> stringConstants)
    {
        for (int i = pc - 1; i >= 0; i--)
        {
            uint instruction = reader.Instruction(codeStart, i);
            uint op = instruction & 0x7F;
            if (DoesNotSetA(op) || ((instruction >> 7) & 0xFF) != a) continue;
            if (op != OpGetField && op != OpGetTabUp) return false;
            int key = (int)(instruction >> 24);
            return key < stringConstants.Count && stringConstants[key];
        }
        return false;
    }

    /// <summary>
    /// Instructions whose A field is not a register they write: stores (A is the table or the
    /// upvalue), metamethod fallbacks, tests and jumps (A is an operand or part of an offset),
    /// SETLIST, and EXTRAARG (a bare argument).
    /// </summary>
    private static bool DoesNotSetA(uint op) => op is 10 or (>= 15 and <= 18) or (>= 46 and <= 48) or (>= 54 and <= 66) or 78 or 82;

    /// <summary>Which constants are strings (a field or global read names its key by one).</summary>
    private static List<bool> ReadConstants(ref ChunkReader reader)
    {
        int count = reader.ReadSize();
        var strings = new List<bool>(count);
        for (int i = 0; i < count; i++)
        {
            byte tag = reader.ReadByte();
            switch (tag)
            {
                case 0x00: case 0x01: case 0x11: // nil, false, true
                    strings.Add(false);
                    break;
                case 0x03: case 0x13: // integer, float
                    reader.Skip(8);
                    strings.Add(false);
                    break;
                case 0x04: case 0x14: // short, long string
                    reader.SkipString();
                    strings.Add(true);
                    break;
                default:
                    throw new FormatException("unknown constant tag");
            }
        }
        return strings;
    }

    private static void SkipDebug(ref ChunkReader reader)
    {
        reader.Skip(reader.ReadSize()); // lineinfo
        int absolute = reader.ReadSize();
        for (int i = 0; i < absolute; i++)
        {
            reader.ReadSize();
            reader.ReadSize();
        }
        int locals = reader.ReadSize();
        for (int i = 0; i < locals; i++)
        {
            reader.SkipString();
            reader.ReadSize();
            reader.ReadSize();
        }
        int upvalueNames = reader.ReadSize();
        for (int i = 0; i < upvalueNames; i++) reader.SkipString();
    }

    /// <summary>A cursor over a 5.4 binary chunk (ldump.c's encoding: sizes as 7-bit groups, most significant first).</summary>
    private struct ChunkReader(byte[] chunk, int position)
    {
        private readonly byte[] _chunk = chunk;

        public int Position { get; private set; } = position;

        public byte ReadByte()
        {
            if (Position >= _chunk.Length) throw new FormatException("truncated chunk");
            return _chunk[Position++];
        }

        public void Skip(int count)
        {
            if (count < 0 || Position + count > _chunk.Length) throw new FormatException("truncated chunk");
            Position += count;
        }

        public int ReadSize()
        {
            long value = 0;
            byte b;
            do
            {
                b = ReadByte();
                value = (value << 7) | (uint)(b & 0x7F);
                if (value > int.MaxValue) throw new FormatException("size out of range");
            }
            while ((b & 0x80) == 0);
            return (int)value;
        }

        /// <summary>A string: its size plus one (0 for none), then its bytes.</summary>
        public void SkipString()
        {
            int size = ReadSize();
            if (size > 0) Skip(size - 1);
        }

        public readonly uint Instruction(int codeStart, int pc)
            => BinaryPrimitives.ReadUInt32LittleEndian(_chunk.AsSpan(codeStart + pc * 4));

        public readonly void SetInstruction(int codeStart, int pc, uint instruction)
            => BinaryPrimitives.WriteUInt32LittleEndian(_chunk.AsSpan(codeStart + pc * 4), instruction);
    }
}
