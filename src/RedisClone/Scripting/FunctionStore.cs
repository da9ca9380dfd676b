using System.Buffers;
using System.Buffers.Binary;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Scripting;

/// <summary>
/// The server's function libraries (Redis's functionsLibCtx) and the Lua state they run in: load,
/// delete, flush, DUMP and RESTORE as Redis 7.2's functions.c does them. Not thread-safe: callers
/// hold <see cref="Sync"/> (an FCALL holds it while its function runs).
/// </summary>
/// <remarks>
/// Library names are case-sensitive and function names are not (Redis's dict types); both are
/// checked to be letters, digits and underscores, so they are kept as strings. The only engine is
/// LUA. A library loads into the one functions state even when it will not be kept (a failed
/// load, a RESTORE that aborts): what it registered is released from the state's registry.
/// </remarks>
internal sealed class FunctionStore : IDisposable
{
    public const string EngineName = "LUA";

    /// <summary>Redis's RDB_OPCODE_FUNCTION2: a library's code follows as an RDB string.</summary>
    private const byte OpcodeFunction = 245;
    /// <summary>Redis's RDB_OPCODE_FUNCTION_PRE_GA: 7.0's release candidates' format, refused.</summary>
    private const byte OpcodeFunctionPreGa = 246;

    private readonly LuaEngine _lua;
    private Libraries _current = new();

    public FunctionStore(RedisServer server) => _lua = LuaEngine.ForFunctions(server);

    public object Sync => _lua.Sync;

    public IReadOnlyList<FunctionLibrary> All => _current.List;

    public int FunctionCount => _current.FunctionCount;

    /// <summary>The functions' Lua state's memory (used_memory_vm_functions).</summary>
    public long VmBytes => _lua.VmBytes;

    /// <summary>
    /// The libraries' own memory as Redis counts it (used_memory_functions): its empty context (about
    /// 200 bytes), and each library's name and code and each function's name and description with
    /// their records. Read without the lock (INFO).
    /// </summary>
    public long CacheBytes => 200 + Volatile.Read(ref _current).CacheBytes;

    /// <summary>The function of that name (any case), or null.</summary>
    public FunctionInfo? Find(ReadOnlySpan<byte> name)
    {
        Span<char> chars = name.Length <= 256 ? stackalloc char[name.Length] : new char[name.Length];
        for (int i = 0; i < name.Length; i++) chars[i] = (char)name[i];
        return _current.Functions.GetAlternateLookup<ReadOnlySpan<char>>().TryGetValue(chars, out var function) ? function : null;
    }

    /// <summary>Runs a function found by <see cref="Find"/>; see <see cref="LuaEngine.RunFunction"/>.</summary>
    public void Run(FunctionInfo function, ref Commands.CommandContext ctx, int firstKey, int numKeys, bool readOnly)
        => _lua.RunFunction(function.Reference, function.Name, ref ctx, firstKey, numKeys, readOnly,
            (function.Flags & ScriptFlags.AllowOom) != 0, (function.Flags & ScriptFlags.AllowCrossSlotKeys) != 0);

    /// <summary>FUNCTION LOAD: null and the library's name, or Redis's error text (without "ERR ").</summary>
    public string? Load(ReadOnlySpan<byte> code, bool replace, out string name) => Create(_current, code, replace, out name);

    /// <summary>FUNCTION DELETE: false when no library has that name.</summary>
    public bool Delete(string name)
    {
        if (!_current.ByName.TryGetValue(name, out var library)) return false;
        _current.Unlink(library);
        ReleaseAll(library);
        return true;
    }

    /// <summary>FUNCTION FLUSH: every library goes.</summary>
    public void Flush()
    {
        var old = _current;
        _current = new Libraries();
        foreach (var library in old.List) ReleaseAll(library);
    }

    /// <summary>
    /// FUNCTION DUMP: each library as the function opcode and its code as an RDB string, then the
    /// RDB version (2 bytes) and the CRC64 of all before it (8 bytes), both little-endian.
    /// </summary>
    public byte[] Dump()
    {
        var output = new ArrayBufferWriter<byte>(256);
        foreach (var library in _current.List)
        {
            output.GetSpan(1)[0] = OpcodeFunction;
            output.Advance(1);
            RdbString.Write(output, library.Code);
        }
        RdbString.AppendFooter(output, RdbString.FunctionDumpVersion);
        return output.WrittenSpan.ToArray();
    }

    /// <summary>FUNCTION RESTORE: null when restored, else Redis's error text (without "ERR ").</summary>
    public string? Restore(ReadOnlySpan<byte> payload, RestorePolicy policy)
    {
        if (!RdbString.VerifyPayload(payload)) return RespErrors.FunctionPayloadInvalid;
        var restored = new Libraries();
        string? error = null;
        int position = 0;
        // Everything but the last ten bytes (version and checksum) is libraries.
        while (error == null && payload.Length - position > 10)
        {
            byte type = payload[position++];
            if (type == OpcodeFunctionPreGa) error = RespErrors.FunctionPayloadPreGa;
            else if (type != OpcodeFunction) error = RespErrors.FunctionPayloadNotFunction;
            else if (!RdbString.TryRead(payload, ref position, out byte[] code)) error = RespErrors.FunctionPayloadLibrary;
            else error = Create(restored, code, replace: false, out _);
        }
        if (error == null)
        {
            if (policy == RestorePolicy.Flush)
            {
                Flush();
                _current = restored;
                return null;
            }
            error = Join(restored, policy == RestorePolicy.Replace);
            if (error == null) return null;
        }
        foreach (var library in restored.List) ReleaseAll(library);
        return error;
    }

    /// <summary>
    /// Moves every library of <paramref name="restored"/> into the current set (Redis's libraryJoin):
    /// a library name already there aborts unless <paramref name="replace"/>; a function name another
    /// library uses always aborts. On failure the current set is as it was.
    /// </summary>
    private string? Join(Libraries restored, bool replace)
    {
        var replaced = new List<FunctionLibrary>();
        string? error = null;
        foreach (var library in restored.List)
        {
            if (!_current.ByName.TryGetValue(library.Name, out var old)) continue;
            if (!replace)
            {
                error = RespErrors.LibraryExistsOnRestore(library.Name);
                break;
            }
            _current.Unlink(old);
            replaced.Add(old);
        }
        if (error == null)
        {
            foreach (var name in restored.Functions.Keys)
                if (_current.Functions.ContainsKey(name))
                {
                    error = RespErrors.FunctionExists(name);
                    break;
                }
        }
        if (error != null)
        {
            foreach (var old in replaced) _current.Link(old);
            return error;
        }
        foreach (var library in restored.List) _current.Link(library);
        foreach (var old in replaced) ReleaseAll(old);
        return null;
    }

    /// <summary>
    /// Redis's functionsCreateWithLibraryCtx: parses the shebang, compiles and runs the code, and links
    /// the library into <paramref name="set"/> unless a check fails (the set is then as it was).
    /// </summary>
    private string? Create(Libraries set, ReadOnlySpan<byte> code, bool replace, out string name)
    {
        var error = ParseMetadata(code, out name, out string engine, out int body);
        if (error != null) return error;
        if (!IsValidName(name)) return RespErrors.LibraryNameInvalid;
        if (!engine.Equals(EngineName, StringComparison.OrdinalIgnoreCase)) return RespErrors.EngineNotFound(engine);
        set.ByName.TryGetValue(name, out var old);
        if (old != null && !replace) return RespErrors.LibraryExists(name);
        if (old != null) set.Unlink(old);

        var registered = new List<RegisteredFunction>();
        error = _lua.LoadLibrary(code[body..], registered);
        if (error == null && registered.Count == 0) error = RespErrors.LibraryNoFunctions;
        if (error == null)
            foreach (var function in registered)
                if (set.Functions.ContainsKey(function.Name))
                {
                    error = RespErrors.FunctionExists(function.Name);
                    break;
                }
        if (error != null)
        {
            foreach (var function in registered) _lua.Release(function.Reference);
            if (old != null) set.Link(old);
            return error;
        }
        var library = new FunctionLibrary(name, code.ToArray());
        foreach (var function in registered)
            library.Functions.Add(new FunctionInfo(function.Name, function.Description, function.Flags, function.Reference, library));
        set.Link(library);
        if (old != null) ReleaseAll(old);
        return null;
    }

    /// <summary>
    /// Redis's functionExtractLibMetaData: "#!engine name=lib" on the first line, split with the
    /// quoting rules of sdssplitargs. <paramref name="body"/>: where the code after the shebang starts
    /// (at its newline, so line numbers count the shebang).
    /// </summary>
    private static string? ParseMetadata(ReadOnlySpan<byte> code, out string name, out string engine, out int body)
    {
        name = engine = "";
        body = 0;
        if (!code.StartsWith("#!"u8)) return RespErrors.LibraryMetadataMissing;
        int newline = code.IndexOf((byte)'\n');
        if (newline < 0) return RespErrors.LibraryMetadataInvalid;
        var parts = new CommandBuffer();
        parts.BeginCommand();
        int count = InlineSplitter.Split(code[..newline], parts);
        if (count <= 0) return RespErrors.LibraryMetadataInvalid;
        parts.EndCommand();
        engine = RespErrors.Latin(parts.Arg(0, 0)[2..]);
        string? found = null;
        for (int i = 1; i < count; i++)
        {
            var part = parts.Arg(0, i);
            if (part.Length >= 5 && System.Text.Ascii.EqualsIgnoreCase(part[..5], "name="u8))
            {
                if (found != null) return RespErrors.LibraryNameTwice;
                found = RespErrors.Latin(part[5..]);
                continue;
            }
            return RespErrors.LibraryMetadataValue + RespErrors.Latin(part);
        }
        if (found == null) return RespErrors.LibraryNameNotGiven;
        name = found;
        body = newline;
        return null;
    }

    private static bool IsValidName(string name)
    {
        if (name.Length == 0) return false;
        foreach (char c in name)
            if (!char.IsAsciiLetterOrDigit(c) && c != '_') return false;
        return true;
    }

    private void ReleaseAll(FunctionLibrary library)
    {
        foreach (var function in library.Functions) _lua.Release(function.Reference);
    }

    public void Dispose() => _lua.Dispose();

    /// <summary>A set of libraries and the index of their functions by name (any case).</summary>
    private sealed class Libraries
    {
        public readonly List<FunctionLibrary> List = [];
        public readonly Dictionary<string, FunctionLibrary> ByName = new(StringComparer.Ordinal);
        public readonly Dictionary<string, FunctionInfo> Functions = new(StringComparer.OrdinalIgnoreCase);

        /// <summary>Redis counts every function its libraries registered (two differing only in case included).</summary>
        public int FunctionCount;

        /// <summary>What the libraries take, as <see cref="FunctionStore.CacheBytes"/> counts it.</summary>
        public long CacheBytes;

        private static long Bytes(FunctionLibrary library)
        {
            long bytes = 64 + library.Name.Length + library.Code.Length;
            foreach (var function in library.Functions) bytes += 64 + function.Name.Length + (function.Description?.Length ?? 0);
            return bytes;
        }

        public void Link(FunctionLibrary library)
        {
            List.Add(library);
            ByName.Add(library.Name, library);
            foreach (var function in library.Functions) Functions.TryAdd(function.Name, function);
            FunctionCount += library.Functions.Count;
            CacheBytes += Bytes(library);
        }

        public void Unlink(FunctionLibrary library)
        {
            List.Remove(library);
            ByName.Remove(library.Name);
            foreach (var function in library.Functions)
                if (Functions.TryGetValue(function.Name, out var f) && f == function) Functions.Remove(function.Name);
            FunctionCount -= library.Functions.Count;
            CacheBytes -= Bytes(library);
        }
    }
}
