using System.Buffers;
using System.Text;
using RedisClone.Commands;
using RedisClone.Persistence;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Execution;

/// <summary>
/// Loads the AOF at start-up (Redis's loadAppendOnlyFiles): the base file (an RDB preamble, or
/// commands), then each incremental file in the manifest's order, commands run through the same
/// <see cref="CommandRunner"/> as clients' by a client of its own, before anything is served.
/// </summary>
/// <remarks>
/// A transaction (MULTI ... EXEC) runs when its EXEC is read. The last file may end in the middle
/// of a command or a transaction (the server died while writing): with <c>aof-load-truncated
/// yes</c> the file is cut back to its last complete command (before an unfinished MULTI) with a
/// warning, as Redis does; otherwise, and for damage anywhere else, loading stops with the file's
/// name and the offset.
/// </remarks>
internal static class AofReplay
{
    /// <summary>What a load found.</summary>
    internal readonly record struct Result(bool Existed, long Commands, long Keys);

    /// <summary>Loads the AOF directory of <paramref name="server"/>; Existed is false when there is no AOF yet.</summary>
    public static Result Load(RedisServer server, string directory, string appendFilename, out AofManifest manifest)
    {
        string manifestPath = Path.Combine(directory, AofManifest.ManifestName(appendFilename));
        if (!File.Exists(manifestPath))
        {
            manifest = new AofManifest();
            return new Result(false, 0, 0);
        }
        manifest = AofManifest.Load(manifestPath);
        var files = new List<AofManifest.Entry>();
        if (manifest.Base != null) files.Add(manifest.Base);
        files.AddRange(manifest.Incremental);
        long commands = 0;
        var session = new ClientSession(-1, null, null, static () => { }, address: "aof") { IsAofClient = true };
        // Each file's first bytes, to tell an RDB preamble from commands (one buffer for every file:
        // a stackalloc inside the loop would grow the stack with each file).
        Span<byte> head = stackalloc byte[5];
        for (int f = 0; f < files.Count; f++)
        {
            var entry = files[f];
            string path = Path.Combine(directory, entry.Name);
            if (!File.Exists(path))
            {
                // Redis tolerates a missing last incremental file that is empty on creation; any other is fatal.
                if (f == files.Count - 1 && entry.Type == 'i') continue;
                throw new RdbLoadException($"The AOF file {entry.Name} doesn't exist", 0);
            }
            bool rdb;
            using (var probe = File.OpenRead(path))
            {
                rdb = probe.ReadAtLeast(head, 5, throwOnEndOfStream: false) == 5 && head.SequenceEqual("REDIS"u8);
            }
            if (rdb)
            {
                server.Log.Notice($"Reading RDB base file on AOF loading...");
                try
                {
                    RdbLoader.Load(server, path);
                }
                catch (RdbLoadException ex)
                {
                    throw new RdbLoadException($"{entry.Name}: {ex.Message}", ex.Offset);
                }
                continue;
            }
            bool last = f == files.Count - 1;
            commands += Replay(server, session, path, entry.Name, last);
            server.Log.Notice($"DB loaded from {(entry.Type == 'b' ? "base" : "incr")} file {entry.Name}");
        }
        long keys = 0;
        for (int s = 0; s < server.Shards.Count; s++)
            for (int db = 0; db < server.Shards[s].Store.DatabaseCount; db++) keys += server.Shards[s].Store[db].Count;
        return new Result(true, commands, keys);
    }

    /// <summary>
    /// Runs the commands of one AOF file, read a window at a time (a command that does not fit
    /// grows the window), so a file of any size loads with memory for its largest command only.
    /// </summary>
    private static long Replay(RedisServer server, ClientSession session, string path, string name, bool last)
    {
        var buffer = new CommandBuffer();
        var sink = new ArrayBufferWriter<byte>(256);
        var queued = new List<byte[][]>();
        bool inMulti = false;
        long validUpTo = 0, validBeforeMulti = 0, count = 0;
        using (var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 16))
        {
            var window = new FileWindow(file);
            while (true)
            {
                if (window.Start == window.End && !window.Fill()) break;
                if (window.Buffer[window.Start] == (byte)'#')
                {
                    // An annotation (aof-timestamp-enabled's #TS:seconds): skipped, as Redis does.
                    int newline = Array.IndexOf(window.Buffer, (byte)'\n', window.Start, window.End - window.Start);
                    if (newline < 0)
                    {
                        if (window.Fill()) continue;
                        break;
                    }
                    window.Consume(newline + 1 - window.Start);
                    if (!inMulti) validUpTo = window.Offset;
                    continue;
                }
                int position = window.Start;
                long at = window.Offset;
                var status = TryParse(window.Buffer, window.End, ref position, out var args);
                if (status == Parsed.Truncated)
                {
                    if (window.Fill()) continue;
                    if (!last || !server.Config.AofLoadTruncated)
                        throw new RdbLoadException($"Unexpected end of file reading the append only file {name}", at);
                    long cut = inMulti ? validBeforeMulti : validUpTo;
                    file.Dispose();
                    server.Log.Warning($"!!! Warning: short read while loading the AOF file {name}!!!");
                    server.Log.Warning($"!!! Truncating the AOF {name} at offset {cut} !!!");
                    using (var truncate = new FileStream(path, FileMode.Open, FileAccess.Write)) truncate.SetLength(cut);
                    server.Log.Warning($"AOF {name} loaded anyway because aof-load-truncated is enabled");
                    return count;
                }
                if (status == Parsed.Bad)
                    throw new RdbLoadException($"Bad file format reading the append only file {name}", at);
                window.Consume(position - window.Start);
                if (args.Length == 1 && Ascii(args[0], "MULTI"))
                {
                    inMulti = true;
                    validBeforeMulti = at;
                    queued.Clear();
                }
                else if (args.Length == 1 && Ascii(args[0], "EXEC") && inMulti)
                {
                    foreach (var cmd in queued) Run(server, session, buffer, sink, cmd, name, at);
                    count += queued.Count;
                    queued.Clear();
                    inMulti = false;
                }
                else if (inMulti)
                {
                    queued.Add(args);
                }
                else
                {
                    Run(server, session, buffer, sink, args, name, at);
                    count++;
                }
                if (!inMulti) validUpTo = window.Offset;
            }
        }
        if (inMulti)
        {
            // The file ends inside a transaction: what it did is lost, as after a short read.
            if (!last || !server.Config.AofLoadTruncated)
                throw new RdbLoadException($"Unexpected end of file reading the append only file {name}", validBeforeMulti);
            server.Log.Warning($"Revert incomplete MULTI/EXEC transaction in AOF file {name}");
            using var file = new FileStream(path, FileMode.Open, FileAccess.Write);
            file.SetLength(validBeforeMulti);
        }
        return count;
    }

    private static bool Ascii(byte[] arg, string upper) => System.Text.Ascii.EqualsIgnoreCase(arg, upper);

    private static void Run(RedisServer server, ClientSession session, CommandBuffer buffer, ArrayBufferWriter<byte> sink,
        byte[][] args, string name, long offset)
    {
        buffer.Clear();
        buffer.BeginCommand();
        foreach (var a in args) a.CopyTo(buffer.AddArg(a.Length));
        buffer.EndCommand();
        var def = server.Commands.Find(buffer.Arg(0, 0));
        if (def != null && def.Subcommands != null && args.Length >= 2) def = def.FindSubcommand(buffer.Arg(0, 1));
        if (def == null)
            throw new RdbLoadException($"Unknown command '{Encoding.UTF8.GetString(args[0])}' reading the append only file {name}", offset);
        sink.ResetWrittenCount();
        CommandRunner.Run(server, session, buffer, 0, def, sink, DateTimeOffset.UtcNow.ToUnixTimeMilliseconds(), monitor: false);
        if (sink.WrittenCount > 0 && sink.WrittenSpan[0] == (byte)'-') UnexpectedError(server, sink.WrittenSpan, def.FullName, name, offset);
    }

    /// <summary>
    /// A command of the AOF answered with an error: logged and counted (INFO unexpected_error_replies)
    /// as Redis's afterErrorReply does for its AOF-loading client; with propagation-error-behavior
    /// panic the load stops there, where Redis panics.
    /// </summary>
    private static void UnexpectedError(RedisServer server, ReadOnlySpan<byte> reply, string command, string name, long offset)
    {
        var text = reply[1..];
        if (text.EndsWith("\r\n"u8)) text = text[..^2];
        if (text.Length > 4096) text = text[..4096];
        server.Log.Warning($"== CRITICAL == This server is sending an error to its AOF-loading-client: '{Encoding.UTF8.GetString(text)}' " +
                           $"after processing the command '{command}'");
        Interlocked.Increment(ref server.Stats.UnexpectedErrorReplies);
        if (server.Config.Value("propagation-error-behavior") == "panic")
            throw new RdbLoadException($"This server panicked sending an error to its AOF-loading-client after processing the command '{command}' " +
                                       $"(reading the append only file {name})", offset);
    }

    private enum Parsed { Ok, Truncated, Bad }

    /// <summary>One "*N" command of "$len" bulks, as Redis writes the AOF; inline commands are not AOF.</summary>
    private static Parsed TryParse(byte[] data, int end, ref int position, out byte[][] args)
    {
        args = [];
        int p = position;
        if (data[p] != (byte)'*') return Parsed.Bad;
        if (!TryLine(data, end, ref p, out long count)) return p >= end ? Parsed.Truncated : Parsed.Bad;
        if (count < 1 || count > 1 << 20) return Parsed.Bad;
        var result = new byte[count][];
        for (int i = 0; i < count; i++)
        {
            if (p >= end) return Parsed.Truncated;
            if (data[p] != (byte)'$') return Parsed.Bad;
            if (!TryLine(data, end, ref p, out long length)) return p >= end ? Parsed.Truncated : Parsed.Bad;
            if (length < 0 || length > int.MaxValue) return Parsed.Bad;
            if (p + length + 2 > end) return Parsed.Truncated;
            if (data[p + length] != '\r' || data[p + length + 1] != '\n') return Parsed.Bad;
            result[i] = data.AsSpan(p, (int)length).ToArray();
            p += (int)length + 2;
        }
        args = result;
        position = p;
        return Parsed.Ok;
    }

    /// <summary>A "*123\r\n" or "$123\r\n" line after its marker; false when it is cut short or not a number.</summary>
    private static bool TryLine(byte[] data, int end, ref int p, out long value)
    {
        value = 0;
        int i = p + 1;
        int digits = 0;
        while (i < end && data[i] != '\r')
        {
            if (data[i] < '0' || data[i] > '9' || ++digits > 18)
            {
                p = i;
                return false;
            }
            value = value * 10 + (data[i] - '0');
            i++;
        }
        if (i + 1 >= end)
        {
            p = end;
            return false;
        }
        if (data[i + 1] != '\n' || digits == 0)
        {
            p = i;
            return false;
        }
        p = i + 2;
        return true;
    }
}
