using System.Buffers;
using System.Buffers.Binary;
using System.Text;
using RedisClone.Common;
using RedisClone.Storage;

namespace RedisClone.Persistence;

/// <summary>
/// An RDB file being written: to a temporary file beside the target, with a running CRC64, then
/// fsynced and renamed over the target, so a reader never sees a half-written file; or to any
/// stream (a diskless full sync's replicas), where the checksum ends it and nothing is renamed.
/// </summary>
/// <remarks>
/// The layout is Redis's (version 10, or 12 when a hash has field TTLs): "REDIS0010", aux fields, function libraries, then per
/// database a SELECTDB opcode and its keys, EOF and the checksum. A database's keys may come in
/// several runs, each after its own SELECTDB (a background save writes keys as it reaches them and
/// keys about to change as they change); Redis's loader and redis-check-rdb take that.
/// </remarks>
internal sealed class RdbOutput : IDisposable
{
    public const byte OpcodeSlotInfo = 244, OpcodeFunction = 245, OpcodeModuleAux = 247, OpcodeIdle = 248, OpcodeFreq = 249, OpcodeAux = 250,
        OpcodeResizeDb = 251, OpcodeExpireTimeMs = 252, OpcodeExpireTime = 253, OpcodeSelectDb = 254, OpcodeEof = 255;

    private readonly Stream _file;
    private readonly string? _tempPath, _finalPath;
    private readonly bool _checksum;
    private long _written;
    private ulong _crc;
    private int _currentDb = -1;
    private bool _done;

    public RdbOutput(string finalPath, bool checksum)
    {
        _finalPath = finalPath;
        _tempPath = Path.Combine(Path.GetDirectoryName(Path.GetFullPath(finalPath)) ?? ".", $"temp-{Environment.ProcessId}-{Guid.NewGuid():N}.rdb");
        _checksum = checksum;
        try
        {
            _file = new FileStream(_tempPath, FileMode.CreateNew, FileAccess.Write, FileShare.None, 1 << 16);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new RdbSaveException(
                $"Failed opening the temp RDB file {Path.GetFileName(_tempPath)} (in server root dir {Path.GetDirectoryName(_tempPath)}) for saving: {SystemErrors.Describe(ex)}", ex);
        }
    }

    /// <summary>An RDB written to <paramref name="stream"/> as it is produced (the caller owns the stream).</summary>
    public RdbOutput(Stream stream, bool checksum)
    {
        _file = stream;
        _checksum = checksum;
    }

    /// <summary>Bytes written so far.</summary>
    public long Length => _written;

    public void Write(ReadOnlySpan<byte> bytes)
    {
        if (_checksum) _crc = Crc64.Update(_crc, bytes);
        _file.Write(bytes);
        _written += bytes.Length;
    }

    private ulong _resized; // databases whose RESIZEDB is written (bit per database below 64)

    /// <summary>
    /// Keys that follow belong to database <paramref name="db"/>: a SELECTDB unless already there.
    /// The first time, a RESIZEDB follows it with the database's key and TTL counts (as Redis
    /// writes them), so a loader sizes its tables once instead of growing them key by key.
    /// </summary>
    public void EnsureDb(int db, long keys = -1, long expires = 0)
    {
        if (_currentDb == db) return;
        Span<byte> buffer = stackalloc byte[32];
        int n = 0;
        buffer[n++] = OpcodeSelectDb;
        n += RdbString.FormatLength(buffer[n..], (ulong)db);
        if (keys >= 0 && db < 64 && (_resized & (1UL << db)) == 0)
        {
            _resized |= 1UL << db;
            buffer[n++] = OpcodeResizeDb;
            n += RdbString.FormatLength(buffer[n..], (ulong)keys);
            n += RdbString.FormatLength(buffer[n..], (ulong)expires);
        }
        Write(buffer[..n]);
        _currentDb = db;
    }

    /// <summary>Raw records that start with their own SELECTDB for <paramref name="db"/>.</summary>
    public void WriteRecords(int db, ReadOnlySpan<byte> records)
    {
        Write(records);
        _currentDb = db;
    }

    public static void WriteSelectDb(IBufferWriter<byte> output, int db)
    {
        output.GetSpan(1)[0] = OpcodeSelectDb;
        output.Advance(1);
        RdbString.WriteLength(output, (ulong)db);
    }

    /// <summary>
    /// The header and the aux fields Redis 7 writes (version, word size, creation time, memory,
    /// aof-base); for replication also repl-stream-db, repl-id and repl-offset, where Redis puts them.
    /// </summary>
    public void WriteHeader(string version, long usedMemory, RdbReplicationInfo? replication = null, int rdbVersion = RdbType.WriteVersion)
    {
        var buffer = new ArrayBufferWriter<byte>(128);
        buffer.Write(Encoding.ASCII.GetBytes($"REDIS{rdbVersion:D4}"));
        var inv = System.Globalization.CultureInfo.InvariantCulture;
        Aux(buffer, "redis-ver", version);
        Aux(buffer, "redis-bits", "64");
        Aux(buffer, "ctime", DateTimeOffset.UtcNow.ToUnixTimeSeconds().ToString(inv));
        Aux(buffer, "used-mem", usedMemory.ToString(inv));
        if (replication is { } r)
        {
            Aux(buffer, "repl-stream-db", r.StreamDb.ToString(inv));
            Aux(buffer, "repl-id", r.ReplicationId);
            Aux(buffer, "repl-offset", r.Offset.ToString(inv));
        }
        Aux(buffer, "aof-base", "0");
        Write(buffer.WrittenSpan);
    }

    private static void Aux(ArrayBufferWriter<byte> buffer, string key, string value)
    {
        buffer.GetSpan(1)[0] = OpcodeAux;
        buffer.Advance(1);
        RdbString.Write(buffer, Encoding.ASCII.GetBytes(key));
        RdbString.Write(buffer, Encoding.UTF8.GetBytes(value));
    }

    /// <summary>A function library: the FUNCTION2 opcode and its code.</summary>
    public void WriteFunction(byte[] code, bool compress)
    {
        var buffer = new ArrayBufferWriter<byte>(code.Length + 16);
        buffer.GetSpan(1)[0] = OpcodeFunction;
        buffer.Advance(1);
        RdbString.Write(buffer, code, compress);
        Write(buffer.WrittenSpan);
    }

    /// <summary>
    /// One key as an RDB file holds it: its expiry time (<paramref name="expireAt"/>, 0 for none), its idle time when the eviction policy is
    /// LRU (<paramref name="idleSeconds"/> not negative), its LFU counter when it is LFU
    /// (<paramref name="frequency"/> not negative), the value's type, the key, the value.
    /// </summary>
    public static void WriteKey(IBufferWriter<byte> output, in KeyTable.Entry entry, long expireAt, long idleSeconds, bool compress, int frequency = -1)
    {
        if (expireAt != 0)
        {
            var span = output.GetSpan(9);
            span[0] = OpcodeExpireTimeMs;
            BinaryPrimitives.WriteInt64LittleEndian(span[1..], expireAt);
            output.Advance(9);
        }
        if (idleSeconds >= 0)
        {
            output.GetSpan(1)[0] = OpcodeIdle;
            output.Advance(1);
            RdbString.WriteLength(output, (ulong)idleSeconds);
        }
        if (frequency >= 0)
        {
            var span = output.GetSpan(2);
            span[0] = OpcodeFreq;
            span[1] = (byte)frequency;
            output.Advance(2);
        }
        RdbValueWriter.Write(output, in entry, compress, withKey: true);
    }

    /// <summary>EOF, the checksum (0 when rdbchecksum is off), fsync, and the rename over the target.</summary>
    public void Commit()
    {
        Span<byte> end = stackalloc byte[9];
        end[0] = OpcodeEof;
        if (_checksum) _crc = Crc64.Update(_crc, end[..1]);
        BinaryPrimitives.WriteUInt64LittleEndian(end[1..], _checksum ? _crc : 0);
        _file.Write(end);
        _written += end.Length;
        if (_finalPath == null)
        {
            _file.Flush();
            _done = true;
            return;
        }
        ((FileStream)_file).Flush(flushToDisk: true);
        _file.Dispose();
        try
        {
            File.Move(_tempPath!, _finalPath, overwrite: true);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new RdbSaveException(
                $"Error moving temp DB file {Path.GetFileName(_tempPath)} on the final destination {Path.GetFileName(_finalPath)} (in server root dir {Path.GetDirectoryName(_finalPath)}): {SystemErrors.Describe(ex)}", ex);
        }
        _done = true;
    }

    /// <summary>
    /// Deletes this process's temporary RDB files in <paramref name="directory"/> (a save cut short by
    /// a forced exit, as Redis removes its temp-pid.rdb). Best effort: the process is about to end.
    /// </summary>
    public static void RemoveTempFiles(string directory)
    {
        try
        {
            foreach (string file in Directory.EnumerateFiles(directory, $"temp-{Environment.ProcessId}-*.rdb"))
            {
                try { File.Delete(file); } catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { }
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException) { }
    }

    public void Dispose()
    {
        if (_tempPath == null) return; // a stream's owner disposes it
        _file.Dispose();
        if (!_done)
        {
            try { File.Delete(_tempPath); } catch (IOException) { }
        }
    }
}

/// <summary>The aux fields an RDB made for replication carries: the stream's database, the replication id and offset at its instant.</summary>
internal readonly record struct RdbReplicationInfo(int StreamDb, string ReplicationId, long Offset);
