using System.Runtime.CompilerServices;

namespace RedisClone.Protocol;

/// <summary>Position of one argument inside <see cref="CommandBuffer"/>'s arena.</summary>
internal readonly record struct ArgSlice(int Offset, int Length);

/// <summary>
/// The commands parsed from one read: every argument's bytes copied once into a reused arena, plus
/// an index of (first argument, argument count) per command. Copying decouples the commands from
/// the pipe's buffer, so the reader can advance before shards run them, and lets the parser consume
/// a partially received bulk string instead of holding it in the pipe (which would stall the pipe's
/// pause threshold on values larger than the threshold).
/// </summary>
internal sealed class CommandBuffer
{
    /// <summary>An arena grown past this is given back after the batch that needed it.</summary>
    private const int ArenaKeep = 1 << 20;

    /// <summary>Argument and command indexes grown past this many entries are given back likewise.</summary>
    private const int IndexKeep = 4096;

    /// <summary>The sizes a connection starts with, and goes back to once idle (<see cref="TrimIdle"/>).</summary>
    private const int InitialArena = 4096, InitialArgs = 64, InitialCommands = 16;

    private byte[] _arena = new byte[InitialArena];
    private int _used;
    private ArgSlice[] _args = new ArgSlice[InitialArgs];
    private int _argCount;
    private (int FirstArg, int ArgCount)[] _commands = new (int, int)[InitialCommands];
    private int _commandCount;

    /// <summary>Arguments of the command still being received (after the last complete one).</summary>
    private int _openFirstArg = -1;

    /// <summary>Bytes still to come of the big argument being received (its room is reserved).</summary>
    private long _growingRemaining;

    public int Count => _commandCount;

    public int ArgCount(int command) => _commands[command].ArgCount;

    public ReadOnlySpan<byte> Arg(int command, int index)
    {
        var slice = _args[_commands[command].FirstArg + index];
        return new ReadOnlySpan<byte>(_arena, slice.Offset, slice.Length);
    }

    /// <summary>Bytes of all arguments held right now (complete commands and the open one).</summary>
    public int ArenaBytes => _used;

    /// <summary>Arguments held right now (complete commands and the open one).</summary>
    public int TotalArgs => _argCount;

    /// <summary>The arena's size (for CLIENT LIST's tot-mem; read racily from other threads).</summary>
    public int ArenaCapacity => _arena.Length;

    /// <summary>Told the arena's new size whenever it grows (INFO's client_recent_max_input_buffer).</summary>
    public Common.RecentPeak? GrowthObserver { get; set; }

    /// <summary>Starts a command whose arguments are appended next.</summary>
    public void BeginCommand() => _openFirstArg = _argCount;

    /// <summary>Reserves room for an argument of <paramref name="length"/> bytes and returns it.</summary>
    public Span<byte> AddArg(int length)
    {
        EnsureArena(length);
        if (_argCount == _args.Length) Array.Resize(ref _args, _args.Length * 2);
        _args[_argCount++] = new ArgSlice(_used, length);
        var span = new Span<byte>(_arena, _used, length);
        _used += length;
        return span;
    }

    /// <summary>
    /// Starts a bulk argument of <paramref name="length"/> bytes that arrive in pieces through
    /// <see cref="AppendToLastArg"/>. Nothing is reserved for bytes that have not arrived (a client
    /// may claim 512 MB and send nothing), but the arena grows no larger than the argument needs:
    /// doubling alone took a 512 MB value's arena to 1 GB.
    /// </summary>
    public void AddGrowingArg(long length)
    {
        if (_argCount == _args.Length) Array.Resize(ref _args, _args.Length * 2);
        _args[_argCount++] = new ArgSlice(_used, 0);
        _growingRemaining = length;
    }

    /// <summary>Appends bytes to the last argument (the bulk string being received).</summary>
    public void AppendToLastArg(ReadOnlySpan<byte> bytes)
    {
        EnsureArena(bytes.Length);
        bytes.CopyTo(new Span<byte>(_arena, _used, bytes.Length));
        _used += bytes.Length;
        _growingRemaining = Math.Max(0, _growingRemaining - bytes.Length);
        ref var last = ref _args[_argCount - 1];
        last = new ArgSlice(last.Offset, last.Length + bytes.Length);
    }

    /// <summary>The bytes of the last argument added.</summary>
    public Span<byte> LastArgSpan()
    {
        var a = _args[_argCount - 1];
        return new Span<byte>(_arena, a.Offset, a.Length);
    }

    /// <summary>Abandons the open command and its arguments (an empty or rejected inline line).</summary>
    public void DropOpenCommand()
    {
        if (_openFirstArg < 0) return;
        if (_argCount > _openFirstArg) _used = _args[_openFirstArg].Offset;
        _argCount = _openFirstArg;
        _openFirstArg = -1;
        _growingRemaining = 0;
    }

    /// <summary>Closes the open command: it becomes visible to the dispatcher.</summary>
    public void EndCommand()
    {
        if (_commandCount == _commands.Length) Array.Resize(ref _commands, _commands.Length * 2);
        _commands[_commandCount++] = (_openFirstArg, _argCount - _openFirstArg);
        _openFirstArg = -1;
        _growingRemaining = 0;
    }

    /// <summary>
    /// Forgets the complete commands after they ran. The open command, if any, moves to the front
    /// of the arena so its partial arguments survive into the next read.
    /// </summary>
    public void Clear()
    {
        _commandCount = 0;
        if (_openFirstArg < 0)
        {
            _argCount = 0;
            _used = 0;
        }
        else
        {
            int keepArgs = _argCount - _openFirstArg;
            int arenaStart = keepArgs > 0 ? _args[_openFirstArg].Offset : _used;
            int keepBytes = _used - arenaStart;
            if (arenaStart > 0 && keepBytes > 0) Buffer.BlockCopy(_arena, arenaStart, _arena, 0, keepBytes);
            for (int i = 0; i < keepArgs; i++)
            {
                var a = _args[_openFirstArg + i];
                _args[i] = new ArgSlice(a.Offset - arenaStart, a.Length);
            }
            _argCount = keepArgs;
            _used = keepBytes;
            _openFirstArg = 0;
        }
        // An arena grown for a big argument still arriving is kept for the rest of it.
        if (_openFirstArg < 0) _growingRemaining = 0;
        if (_arena.Length > ArenaKeep && _used + _growingRemaining < ArenaKeep / 2)
        {
            var smaller = new byte[ArenaKeep / 2];
            Buffer.BlockCopy(_arena, 0, smaller, 0, _used);
            Common.ReleasedMemory.Add(_arena.Length);
            _arena = smaller;
        }
        if (_args.Length > IndexKeep && _argCount < IndexKeep / 2)
        {
            var smaller = new ArgSlice[IndexKeep / 2];
            Array.Copy(_args, smaller, _argCount);
            Common.ReleasedMemory.Add(_args.Length * 8L);
            _args = smaller;
        }
        if (_commands.Length > IndexKeep) _commands = new (int, int)[InitialCommands];
    }

    /// <summary>
    /// An idle client's arena and indexes back to their first sizes, or to what a command still
    /// arriving holds: Redis's clientsCronResizeQueryBuffer gives an idle client's query buffer its
    /// free space back, so a client that once sent a big value does not keep its room while it sits
    /// idle. Only between batches (no complete command held); the caller is the connection's loop.
    /// </summary>
    public void TrimIdle()
    {
        if (_commandCount != 0) return;
        int size = Math.Max(InitialArena, _used);
        if (_arena.Length > size)
        {
            var smaller = new byte[size];
            Buffer.BlockCopy(_arena, 0, smaller, 0, _used);
            _arena = smaller;
        }
        if (_args.Length > InitialArgs && _argCount <= InitialArgs)
        {
            var smaller = new ArgSlice[InitialArgs];
            Array.Copy(_args, smaller, _argCount);
            _args = smaller;
        }
        if (_commands.Length > InitialCommands) _commands = new (int, int)[InitialCommands];
    }

    /// <summary>Room the arena has beyond what it holds (read racily from other threads: a hint).</summary>
    public int ArenaFree => _arena.Length - _used;

    /// <summary>Bytes of every array held (the arena and the indexes), for tests and accounting.</summary>
    public long AllocatedBytes => _arena.Length + _args.Length * 8L + _commands.Length * 8L;

    /// <summary>Drops everything, including a partially received command.</summary>
    public void Reset()
    {
        _openFirstArg = -1;
        Clear();
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void EnsureArena(int extra)
    {
        if (_arena.Length - _used < extra) GrowArena(extra);
    }

    private void GrowArena(int extra)
    {
        long want = Math.Max((long)_arena.Length * 2, (long)_used + extra);
        // A big argument arriving: no further than its end, plus room for a few small arguments
        // after it (SET key value EX 10).
        if (_growingRemaining > 0) want = Math.Max(_used + extra, Math.Min(want, _used + _growingRemaining + 4096));
        if (want > Array.MaxLength) want = Array.MaxLength;
        // Uninitialized: the bytes past _used are always written before they are read.
        var bigger = GC.AllocateUninitializedArray<byte>((int)want);
        Buffer.BlockCopy(_arena, 0, bigger, 0, _used);
        if (_arena.Length > ArenaKeep) Common.ReleasedMemory.Add(_arena.Length);
        _arena = bigger;
        GrowthObserver?.Observe(want);
    }
}
