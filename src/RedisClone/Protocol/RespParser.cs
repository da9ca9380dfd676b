using System.Buffers;
using RedisClone.Common;

namespace RedisClone.Protocol;

/// <summary>Outcome of one <see cref="RespParser.Parse"/> call.</summary>
internal enum ParseStatus
{
    /// <summary>The input was used up; more bytes are needed for the next command.</summary>
    NeedMore,
    /// <summary>The batch reached its size limit; run it and call again with the rest.</summary>
    BatchFull,
    /// <summary>The input is malformed; reply <see cref="RespParser.Error"/> and close.</summary>
    Malformed,
}

/// <summary>
/// Parses RESP multibulk commands and inline commands, as Redis's <c>processMultibulkBuffer</c> and
/// <c>processInlineBuffer</c> do, into a <see cref="CommandBuffer"/>.
/// </summary>
/// <remarks>
/// Wire format: <c>*2\r\n$3\r\nGET\r\n$1\r\nk\r\n</c>, or a line of words such as <c>PING\r\n</c>.
/// The parser keeps Redis's per-client state (arguments still expected, bytes of the current bulk
/// still expected), so it consumes every byte it has seen except an unfinished header or inline line.
/// A header line is at most 64 KB (Redis's PROTO_INLINE_MAX_SIZE), so the unconsumed part of the
/// input stays small and a slow 500 MB upload never pins the pipe. Incomplete input is normal
/// (<see cref="ParseStatus.NeedMore"/>); malformed input is a protocol error with Redis's text.
/// </remarks>
internal sealed class RespParser
{
    public const int InlineMaxSize = 64 * 1024;
    public const int MaxCommandsPerBatch = 1024;
    public const int BatchArenaLimit = 4 * 1024 * 1024;

    private long _maxBulkLength = 512L * 1024 * 1024;
    private int _argsRemaining;          // > 0 while inside a multibulk command
    private long _bulkLength = -1;       // -1: the next thing is a "$len" header
    private long _bulkReceived;
    private readonly byte[] _lineScratch = new byte[64];

    /// <summary>The protocol error text (without "-ERR ") after <see cref="ParseStatus.Malformed"/>.</summary>
    public string? Error { get; private set; }

    /// <summary>
    /// The bulk argument still arriving, as the arena holds it: the bytes received into it (a big
    /// one's, taken as they come; a small one's wait in the input until complete) and the room it
    /// takes there (a small one's is reserved whole at its header). (0, 0) when none is. Read by
    /// CLIENT LIST from other threads: a moment old at most.
    /// </summary>
    public (long Received, long Reserved) PendingArgument
    {
        get
        {
            long length = _bulkLength, received = _bulkReceived;
            if (length < 0) return (0, 0);
            return received < 0 ? (0, length) : (received, received);
        }
    }

    /// <summary>Redis's <c>proto-max-bulk-len</c>.</summary>
    public long MaxBulkLength { get => _maxBulkLength; set => _maxBulkLength = value; }

    /// <summary>
    /// The client must still authenticate: as Redis, a multibulk of more than 10 arguments or a bulk
    /// over 16 KB is a protocol error, and commands are parsed one at a time, so an AUTH runs before
    /// the command after it is judged.
    /// </summary>
    public bool Unauthenticated { get; set; }

    private const int UnauthenticatedMaxArgs = 10;
    private const int UnauthenticatedMaxBulk = 16 * 1024;

    /// <summary>
    /// Parses as many commands as <paramref name="reader"/> holds into <paramref name="commands"/>,
    /// advancing the reader past every byte it consumed.
    /// </summary>
    public ParseStatus Parse(ref SequenceReader<byte> reader, CommandBuffer commands)
    {
        while (true)
        {
            if (_argsRemaining == 0)
            {
                if (Unauthenticated)
                {
                    if (commands.Count > 0) return ParseStatus.BatchFull;
                }
                else
                {
                    int parsed = ParseCompleteCommands(reader.UnreadSpan, commands);
                    if (parsed > 0) reader.Advance(parsed);
                }
                if (commands.Count >= MaxCommandsPerBatch || commands.ArenaBytes >= BatchArenaLimit)
                    return ParseStatus.BatchFull;
                if (!reader.TryPeek(out byte first)) return ParseStatus.NeedMore;
                if (first == (byte)'*')
                {
                    var status = ParseMultibulkHeader(ref reader, commands, out bool started);
                    if (status != ParseStatus.BatchFull) return status;
                    if (!started) continue;
                }
                else
                {
                    var status = ParseInline(ref reader, commands);
                    if (status != ParseStatus.BatchFull) return status;
                    continue;
                }
            }

            var argStatus = ParseArguments(ref reader, commands);
            if (argStatus != ParseStatus.BatchFull) return argStatus;
        }
    }

    // BatchFull is used internally as "go on": a header or line was fully handled.
    private ParseStatus ParseMultibulkHeader(ref SequenceReader<byte> reader, CommandBuffer commands, out bool started)
    {
        started = false;
        switch (TryReadHeaderLine(ref reader, out var line))
        {
            case LineResult.TooBig: return Fail(RespErrors.ProtocolTooBigMultibulkCount);
            case LineResult.Incomplete: return ParseStatus.NeedMore;
        }
        if (!RedisNumbers.TryParseInt64(line.Slice(1), out long count) || count > int.MaxValue)
            return Fail(RespErrors.ProtocolInvalidMultibulkLength);
        if (count > UnauthenticatedMaxArgs && Unauthenticated) return Fail(RespErrors.ProtocolUnauthenticatedMultibulk);
        if (count <= 0) return ParseStatus.BatchFull; // "*0" and "*-1" are ignored, as Redis does
        _argsRemaining = (int)count;
        _bulkLength = -1;
        commands.BeginCommand();
        started = true;
        return ParseStatus.BatchFull;
    }

    private ParseStatus ParseArguments(ref SequenceReader<byte> reader, CommandBuffer commands)
    {
        while (_argsRemaining > 0)
        {
            if (_bulkLength < 0)
            {
                if (!reader.TryPeek(out byte b)) return ParseStatus.NeedMore;
                switch (TryReadHeaderLine(ref reader, out var line))
                {
                    case LineResult.TooBig: return Fail(RespErrors.ProtocolTooBigBulkCount);
                    case LineResult.Incomplete: return ParseStatus.NeedMore;
                }
                // Checked only once the whole line is here, as Redis does; the line may be empty ("\r\n").
                if (b != (byte)'$') return Fail(RespErrors.ProtocolExpectedDollar(b));
                if (!RedisNumbers.TryParseInt64(line.Slice(1), out long len) || len < 0 || len > _maxBulkLength)
                    return Fail(RespErrors.ProtocolInvalidBulkLength);
                if (len > UnauthenticatedMaxBulk && Unauthenticated) return Fail(RespErrors.ProtocolUnauthenticatedBulk);
                _bulkLength = len;
                _bulkReceived = 0;
                if (len <= 64 * 1024) commands.AddArg((int)len); else commands.AddGrowingArg(len);
                if (len <= 64 * 1024) _bulkReceived = -1; // marks a pre-sized argument
            }

            if (_bulkReceived < 0)
            {
                // Small bulk: wait until its bytes and the two terminator bytes are all here.
                if (reader.Remaining < _bulkLength + 2) return ParseStatus.NeedMore;
                var dest = LastArgSpan(commands);
                reader.TryCopyTo(dest);
                reader.Advance(_bulkLength + 2); // Redis skips the terminator without checking it
            }
            else
            {
                // Large bulk: take what has arrived so far, so the pipe never holds it whole.
                while (_bulkReceived < _bulkLength)
                {
                    if (reader.End) return ParseStatus.NeedMore;
                    var span = reader.UnreadSpan;
                    int take = (int)Math.Min(span.Length, _bulkLength - _bulkReceived);
                    commands.AppendToLastArg(span.Slice(0, take));
                    reader.Advance(take);
                    _bulkReceived += take;
                }
                if (reader.Remaining < 2) return ParseStatus.NeedMore;
                reader.Advance(2);
            }

            _bulkLength = -1;
            _bulkReceived = 0;
            _argsRemaining--;
        }
        commands.EndCommand();
        return ParseStatus.BatchFull;
    }

    private static Span<byte> LastArgSpan(CommandBuffer commands) => commands.LastArgSpan();

    private enum LineResult { Found, Incomplete, TooBig }

    /// <summary>
    /// Reads a header line ("*3", "$5") as Redis does: up to the first '\r', which must have one more
    /// byte after it (Redis skips that byte as the '\n' without checking it). The line includes its
    /// type byte, if any.
    /// </summary>
    private LineResult TryReadHeaderLine(ref SequenceReader<byte> reader, out ReadOnlySpan<byte> line)
    {
        line = default;
        long end = FindLineEnd(reader, (byte)'\r');
        if (end < 0) return reader.Remaining > InlineMaxSize ? LineResult.TooBig : LineResult.Incomplete;
        if (reader.Remaining < end + 2) return LineResult.Incomplete;
        var unread = reader.UnreadSpan;
        if (unread.Length >= end)
        {
            line = unread.Slice(0, (int)end);
        }
        else
        {
            // A line split across segments is rare; its first bytes are enough, since a number
            // longer than the scratch buffer is invalid anyway.
            int n = (int)Math.Min(end, _lineScratch.Length);
            reader.TryCopyTo(_lineScratch.AsSpan(0, n));
            line = _lineScratch.AsSpan(0, n);
        }
        reader.Advance(end + 2);
        return LineResult.Found;
    }

    /// <summary>
    /// Where the current line ends: the offset of the first <paramref name="delimiter"/>, or -1 while
    /// there is none. Redis finds it with strchr on its query buffer, which stops at a NUL byte, so a
    /// line with a NUL before its end is never seen as complete: it waits until it is too big, and so
    /// does ours. Only the first 64 KB + 1 bytes are searched: a line end further away means that many
    /// bytes came without one, which Redis rejects as too big whenever one of its reads stops there (a
    /// client sending slowly); we reject it always instead of depending on where our reads stop.
    /// </summary>
    private static long FindLineEnd(SequenceReader<byte> reader, byte delimiter)
    {
        const long window = InlineMaxSize + 1;
        long offset = 0;
        while (offset < window && !reader.End)
        {
            var span = reader.UnreadSpan;
            int take = (int)Math.Min(span.Length, window - offset);
            int at = span.Slice(0, take).IndexOfAny(delimiter, (byte)0);
            if (at >= 0) return span[at] == delimiter ? offset + at : -1;
            offset += take;
            reader.Advance(take);
        }
        return -1;
    }

    private ParseStatus ParseInline(ref SequenceReader<byte> reader, CommandBuffer commands)
    {
        long newline = FindLineEnd(reader, (byte)'\n');
        if (newline < 0)
            return reader.Remaining > InlineMaxSize ? Fail(RespErrors.ProtocolTooBigInline) : ParseStatus.NeedMore;
        long lineLength = newline;
        if (lineLength > 0)
        {
            reader.TryPeek(lineLength - 1, out byte last);
            if (last == (byte)'\r') lineLength--;
        }
        if (lineLength == 0)
        {
            reader.Advance(newline + 1);
            return ParseStatus.BatchFull;
        }

        byte[]? rented = null;
        scoped ReadOnlySpan<byte> line;
        var unread = reader.UnreadSpan;
        if (unread.Length >= lineLength)
        {
            line = unread.Slice(0, (int)lineLength);
        }
        else
        {
            var copy = lineLength <= 512
                ? stackalloc byte[(int)lineLength]
                : (rented = BufferPool.Rent((int)lineLength)).AsSpan(0, (int)lineLength);
            reader.TryCopyTo(copy);
            line = copy;
        }
        try
        {
            commands.BeginCommand();
            int argc = InlineSplitter.Split(line, commands);
            if (argc < 0)
            {
                commands.DropOpenCommand();
                return Fail(RespErrors.ProtocolUnbalancedQuotes);
            }
            reader.Advance(newline + 1);
            if (argc == 0)
            {
                commands.DropOpenCommand();
                return ParseStatus.BatchFull;
            }
            commands.EndCommand();
            return ParseStatus.BatchFull;
        }
        finally
        {
            if (rented != null) BufferPool.Return(rented);
        }
    }

    private ParseStatus Fail(string error)
    {
        Error = error;
        return ParseStatus.Malformed;
    }

    /// <summary>
    /// The fast path: parses the complete, ordinary multibulk commands at the start of one contiguous
    /// span (the common case: a read holds whole commands) and returns the bytes they took. It stops
    /// at anything else (an inline command, a command cut by the span's end, a large bulk, anything
    /// malformed or unusual) and leaves it to the general path, which handles every case.
    /// </summary>
    private static int ParseCompleteCommands(ReadOnlySpan<byte> span, CommandBuffer commands)
    {
        int done = 0;
        while (done < span.Length && span[done] == (byte)'*'
               && commands.Count < MaxCommandsPerBatch && commands.ArenaBytes < BatchArenaLimit)
        {
            int p = done + 1;
            if (!TryReadLength(span, ref p, out int argc) || argc == 0) break;
            commands.BeginCommand();
            bool complete = true;
            for (int a = 0; a < argc; a++)
            {
                if (p >= span.Length || span[p] != (byte)'$') { complete = false; break; }
                p++;
                if (!TryReadLength(span, ref p, out int length) || length > 64 * 1024 || span.Length - p < length + 2)
                {
                    complete = false;
                    break;
                }
                span.Slice(p, length).CopyTo(commands.AddArg(length));
                p += length + 2; // Redis skips the terminator without checking it
            }
            if (!complete)
            {
                commands.DropOpenCommand();
                break;
            }
            commands.EndCommand();
            done = p;
        }
        return done;
    }

    /// <summary>
    /// Reads a canonical non-negative length (no sign, no leading zero) ending in '\r' plus one more
    /// byte, as a header line; false for anything else, which the general path then judges.
    /// </summary>
    private static bool TryReadLength(ReadOnlySpan<byte> span, ref int p, out int value)
    {
        value = 0;
        int start = p, i = p;
        while (i < span.Length && i - start < 9) // at most 9 digits: no int overflow
        {
            byte c = span[i];
            if (c == (byte)'\r')
            {
                if (i == start || i + 1 >= span.Length) return false;
                if (span[start] == (byte)'0' && i - start > 1) return false;
                p = i + 2;
                return true;
            }
            if ((uint)(c - '0') > 9) return false;
            value = value * 10 + (c - '0');
            i++;
        }
        return false;
    }
}
