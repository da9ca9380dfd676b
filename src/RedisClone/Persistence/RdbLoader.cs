using System.Buffers.Binary;
using System.Text;
using RedisClone.Common;
using RedisClone.Server;
using RedisClone.Storage;

namespace RedisClone.Persistence;

/// <summary>A file that cannot be loaded: what is wrong and at which byte.</summary>
internal sealed class RdbLoadException(string message, long offset) : Exception(message)
{
    public long Offset { get; } = offset;
}

/// <summary>
/// Loads an RDB file (versions 1 to 11: whatever Redis up to 7.2 writes) into the server's
/// databases: aux fields, function libraries, databases, expiry times (keys already expired are
/// skipped, as a master does), idle times and frequencies, module aux fields (skipped, with a log
/// line: no modules are loaded here), and the checksum at the end. Anything malformed or truncated
/// stops the load with the file's offset; the caller decides what that means (start-up exits).
/// </summary>
internal static class RdbLoader
{
    /// <summary>What a load did.</summary>
    internal readonly record struct Result(long KeysLoaded, long KeysExpired, int Version);

    /// <summary>
    /// Loads <paramref name="path"/> into <paramref name="server"/>, whose databases should be empty;
    /// the caller holds every gate (or nothing runs yet). Throws <see cref="RdbLoadException"/>.
    /// </summary>
    public static Result Load(RedisServer server, string path, Action<long, long>? progress = null, bool merge = false)
    {
        byte[] data;
        try
        {
            data = File.ReadAllBytes(path);
        }
        catch (IOException ex)
        {
            throw new RdbLoadException($"cannot read the file: {ex.Message}", 0);
        }
        return Load(server, data, progress, merge);
    }

    /// <summary>Loads an RDB image; with <paramref name="merge"/> a key that exists is replaced (DEBUG RELOAD MERGE).</summary>
    public static Result Load(RedisServer server, ReadOnlySpan<byte> data, Action<long, long>? progress = null, bool merge = false)
    {
        if (data.Length < 9 || !data[..5].SequenceEqual("REDIS"u8))
            throw new RdbLoadException("Wrong signature trying to load DB from file", 0);
        if (!int.TryParse(Encoding.ASCII.GetString(data.Slice(5, 4)), System.Globalization.NumberStyles.None, null, out int version)
            || version < 1 || version > RdbType.ReadVersion)
            throw new RdbLoadException($"Can't handle RDB format version {Encoding.ASCII.GetString(data.Slice(5, 4))}", 5);

        var config = server.Config;
        var limits = Commands.DumpCommands.LoadLimits(config);
        var shards = server.Shards;
        int databases = server.Options.Databases;
        long nowMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        int position = 9, db = 0;
        long expireAt = 0, loaded = 0, expired = 0, nextProgress = 1 << 20;

        while (true)
        {
            if (position >= data.Length) throw Truncated(position);
            int at = position;
            byte type = data[position++];
            switch (type)
            {
                case RdbOutput.OpcodeExpireTime:
                    Need(data, position, 4);
                    expireAt = BinaryPrimitives.ReadInt32LittleEndian(data[position..]) * 1000L;
                    position += 4;
                    continue;
                case RdbOutput.OpcodeExpireTimeMs:
                    Need(data, position, 8);
                    expireAt = BinaryPrimitives.ReadInt64LittleEndian(data[position..]);
                    position += 8;
                    continue;
                case RdbOutput.OpcodeFreq:
                    Need(data, position, 1);
                    position++;
                    continue;
                case RdbOutput.OpcodeIdle:
                    ReadLength(data, ref position);
                    continue;
                case RdbOutput.OpcodeEof:
                    break;
                case RdbOutput.OpcodeSelectDb:
                {
                    long n = ReadLength(data, ref position);
                    if (n >= databases)
                        throw new RdbLoadException($"FATAL: Data file was created with a Redis server configured to handle more than {databases} databases. Exiting", at);
                    db = (int)n;
                    continue;
                }
                case RdbOutput.OpcodeResizeDb:
                    ReadLength(data, ref position);
                    ReadLength(data, ref position);
                    continue;
                case RdbOutput.OpcodeAux:
                {
                    byte[] key = ReadString(data, ref position);
                    byte[] value = ReadString(data, ref position);
                    if (key.AsSpan().SequenceEqual("redis-ver"u8))
                        server.Log.Notice($"Loading RDB produced by version {Encoding.UTF8.GetString(value)}");
                    continue;
                }
                case RdbOutput.OpcodeModuleAux:
                    SkipModuleAux(server, data, ref position, at);
                    continue;
                case 246:
                    throw new RdbLoadException("Pre-release function format not supported.", at);
                case RdbOutput.OpcodeFunction:
                {
                    byte[] code = ReadString(data, ref position);
                    string? error = server.Functions.Load(code, replace: merge, out _);
                    if (error != null) throw new RdbLoadException($"Failed loading library: {error}", at);
                    continue;
                }
                default:
                {
                    byte[] key = ReadString(data, ref position);
                    object? value = RdbValueReader.Read(data, ref position, type, limits);
                    if (value == null)
                        throw new RdbLoadException($"Bad value for key '{Encoding.UTF8.GetString(key)}': {RdbValueReader.Reason ?? "malformed"}", at);
                    long keyExpire = expireAt;
                    expireAt = 0;
                    if (keyExpire != 0 && keyExpire < nowMs)
                    {
                        expired++;
                        continue;
                    }
                    var database = shards[shards.ShardOf(key)].Store[db];
                    int existing = database.Table.Find(key);
                    if (existing >= 0)
                    {
                        if (!merge) throw new RdbLoadException($"RDB has duplicated key '{Encoding.UTF8.GetString(key)}' in DB {db}", at);
                        database.RemoveAt(existing);
                    }
                    if (value is byte[] bytes) database.AddString(key, bytes, keyExpire);
                    else database.Add(key, value, keyExpire);
                    loaded++;
                    if (progress != null && position >= nextProgress)
                    {
                        progress(position, data.Length);
                        nextProgress = position + (1L << 24);
                    }
                    continue;
                }
            }
            break; // EOF
        }

        if (version >= 5)
        {
            Need(data, position, 8);
            ulong stored = BinaryPrimitives.ReadUInt64LittleEndian(data[position..]);
            if (config.RdbChecksum && stored != 0)
            {
                ulong computed = Crc64.Compute(data[..position]);
                if (computed != stored)
                    throw new RdbLoadException($"Wrong RDB checksum expected: ({stored:x}) got: ({computed:x}). Aborting now.", position);
            }
        }
        return new Result(loaded, expired, version);
    }

    /// <summary>
    /// A module's aux field: its module ID, when it was written, then the module's values (opcodes
    /// for integers, floats, doubles and strings) up to their end marker. Nothing here can use it.
    /// </summary>
    private static void SkipModuleAux(RedisServer server, ReadOnlySpan<byte> data, ref int position, int at)
    {
        ulong moduleId = (ulong)ReadLength(data, ref position);
        long whenOpcode = ReadLength(data, ref position);
        ReadLength(data, ref position); // when
        if (whenOpcode != 2) throw new RdbLoadException("bad when_opcode in a module aux field", at);
        while (true)
        {
            long opcode = ReadLength(data, ref position);
            switch (opcode)
            {
                case 0: // EOF
                    server.Log.Warning($"Skipping the aux data of module '{ModuleName(moduleId)}' in the RDB file: no modules are loaded");
                    return;
                case 1:
                case 2:
                    ReadLength(data, ref position);
                    break;
                case 3:
                    Need(data, position, 4);
                    position += 4;
                    break;
                case 4:
                    Need(data, position, 8);
                    position += 8;
                    break;
                case 5:
                    ReadString(data, ref position);
                    break;
                default:
                    throw new RdbLoadException($"Unknown module value opcode {opcode} in a module aux field", position);
            }
        }
    }

    /// <summary>A module type's name from its 64-bit ID: nine characters of a 64-symbol alphabet, then a 10-bit version.</summary>
    private static string ModuleName(ulong id)
    {
        const string Symbols = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        var name = new char[9];
        ulong rest = id >> 10;
        for (int i = 8; i >= 0; i--)
        {
            name[i] = Symbols[(int)(rest & 63)];
            rest >>= 6;
        }
        return new string(name);
    }

    private static RdbLoadException Truncated(long offset)
        => new("Short read or OOM loading DB. Unrecoverable error, aborting now.", offset);

    private static void Need(ReadOnlySpan<byte> data, int position, int count)
    {
        if (position + count > data.Length) throw Truncated(position);
    }

    private static long ReadLength(ReadOnlySpan<byte> data, ref int position)
    {
        int at = position;
        if (!RdbString.TryReadLength(data, ref position, out ulong length, out bool encoded) || encoded || length > long.MaxValue)
            throw position >= data.Length ? Truncated(at) : new RdbLoadException("Unknown length encoding in rdbLoadLen()", at);
        return (long)length;
    }

    private static byte[] ReadString(ReadOnlySpan<byte> data, ref int position)
    {
        int at = position;
        if (!RdbString.TryRead(data, ref position, out byte[] value))
            throw new RdbLoadException("Short read or bad string encoding loading DB", at);
        return value;
    }
}
