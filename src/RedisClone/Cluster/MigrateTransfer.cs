using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Text;
using RedisClone.Protocol;

namespace RedisClone.Cluster;

/// <summary>
/// The network half of one MIGRATE: sends AUTH (when asked), SELECT (when the connection has another
/// database selected) and the RESTORE commands built from the keys' DUMP payloads in one write, then
/// reads one reply line each, as Redis's migrateCommand does, with its timeout on every connect,
/// write and read. Runs off every event loop and holds no gate: what it needs from the keyspace was
/// copied out before (see Commands/MigrateCommands).
/// </summary>
/// <remarks>
/// Redis's rules, kept here: a connection that fails before any RESTORE was answered is dropped and
/// the whole transfer tried once more on a new one, unless the failure was a timeout; an error line
/// from the target (AUTH's first, then SELECT's, then the first RESTORE's) becomes "-ERR Target
/// instance replied with error: ..." and forgets the selected database; the keys whose RESTORE the
/// target acknowledged are reported in <see cref="Acknowledged"/> (the source deletes those, unless
/// COPY), even when a later reply fails.
/// </remarks>
internal sealed class MigrateTransfer
{
    // Redis's connSyncReadLine reads into a 1024-byte buffer: a longer line is cut there.
    private const int MaxLine = 1023;
    private const int WriteChunk = 64 * 1024;

    public MigrateTransfer(string host, string port, long dbId, long timeoutMs, byte[]? username, byte[]? password,
        byte[] restores, int keyCount)
    {
        Host = host;
        Port = port;
        DbId = dbId;
        TimeoutMs = timeoutMs;
        Username = username;
        Password = password;
        Restores = restores;
        Acknowledged = new bool[keyCount];
    }

    public string Host { get; }
    public string Port { get; }
    public long DbId { get; }
    public long TimeoutMs { get; }
    public byte[]? Username { get; }
    public byte[]? Password { get; }

    /// <summary>The RESTORE commands, one per key, in RESP.</summary>
    public byte[] Restores { get; }

    /// <summary>Per key: the target answered its RESTORE with success.</summary>
    public bool[] Acknowledged { get; }

    /// <summary>The error reply (without its '-'), or null for +OK.</summary>
    public string? Error { get; private set; }

    private MigrateSockets _sockets = null!;

    private const string ConnectError = RespErrors.MigrateConnect;
    private const string WriteError = RespErrors.MigrateWrite;
    private const string ReadError = RespErrors.MigrateRead;
    private const string TargetErrorPrefix = RespErrors.MigrateTargetError;

    /// <summary>Runs the transfer; never throws (every failure ends in <see cref="Error"/>).</summary>
    public async Task RunAsync(MigrateSockets sockets)
    {
        _sockets = sockets;
        try
        {
            await TransferAsync().ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            Error ??= ReadError;
        }
    }

    private async Task TransferAsync()
    {
        string name = Host + ":" + Port;
        bool mayRetry = true;
        while (true)
        {
            var (socket, failure) = await GetSocketAsync(name).ConfigureAwait(false);
            if (failure == ConnectFailure.Refused)
            {
                Error = ConnectError;
                return;
            }

            bool writeError = false, timedOut = failure == ConnectFailure.TimedOut;
            bool select = false;
            if (socket == null)
            {
                // Redis's blocking connect reports success and the error shows on the first write.
                writeError = true;
            }
            else
            {
                select = socket.LastDbId != DbId;
                var (ok, timeout) = await WriteAsync(socket, BuildCommands(select)).ConfigureAwait(false);
                writeError = !ok;
                timedOut = timeout;
            }

            if (!writeError)
            {
                var outcome = await ReadRepliesAsync(socket!, select).ConfigureAwait(false);
                if (outcome == ReadOutcome.Done) return;
                timedOut = outcome == ReadOutcome.TimedOutRetryable;
                if (outcome == ReadOutcome.Failed) return; // error already set, socket dropped
            }

            // socket_err in Redis: drop the connection, retry once unless it was a timeout.
            if (socket != null) _sockets.Discard(socket);
            if (!timedOut && mayRetry)
            {
                mayRetry = false;
                continue;
            }
            Error = writeError ? WriteError : ReadError;
            return;
        }
    }

    private enum ReadOutcome { Done, Failed, Retryable, TimedOutRetryable }

    /// <summary>
    /// Reads AUTH's, SELECT's and each RESTORE's reply line. Done: replied (OK or the target's
    /// error), the connection given back or dropped. Retryable: nothing was answered, the caller
    /// drops the connection and tries again (or reports the read error). Failed: a RESTORE reply
    /// was missing after others arrived; the error is set and the connection dropped.
    /// </summary>
    private async Task<ReadOutcome> ReadRepliesAsync(MigrateSocket socket, bool select)
    {
        string? authReply = null, selectReply = null;
        if (Password != null)
        {
            var (line, timedOut) = await ReadLineAsync(socket).ConfigureAwait(false);
            if (line == null) return timedOut ? ReadOutcome.TimedOutRetryable : ReadOutcome.Retryable;
            authReply = line;
        }
        if (select)
        {
            var (line, timedOut) = await ReadLineAsync(socket).ConfigureAwait(false);
            if (line == null) return timedOut ? ReadOutcome.TimedOutRetryable : ReadOutcome.Retryable;
            selectReply = line;
        }

        bool errorFromTarget = false, socketError = false, readTimedOut = false;
        int j;
        for (j = 0; j < Acknowledged.Length; j++)
        {
            var (line, timedOut) = await ReadLineAsync(socket).ConfigureAwait(false);
            if (line == null)
            {
                socketError = true;
                readTimedOut = timedOut;
                break;
            }
            if (authReply is ['-', ..] || selectReply is ['-', ..] || line is ['-', ..])
            {
                if (!errorFromTarget)
                {
                    socket.LastDbId = -1;
                    string error = authReply is ['-', ..] ? authReply : selectReply is ['-', ..] ? selectReply : line;
                    errorFromTarget = true;
                    Error = TargetErrorPrefix + error[1..];
                }
            }
            else
            {
                Acknowledged[j] = true;
            }
        }

        if (!errorFromTarget && socketError && j == 0)
            return readTimedOut ? ReadOutcome.TimedOutRetryable : ReadOutcome.Retryable;
        if (socketError)
        {
            _sockets.Discard(socket);
            if (!errorFromTarget) Error = ReadError;
            return ReadOutcome.Failed;
        }
        if (!errorFromTarget) socket.LastDbId = DbId;
        _sockets.Return(socket);
        return ReadOutcome.Done;
    }

    private enum ConnectFailure { None, Refused, Failed, TimedOut }

    /// <summary>
    /// The cached connection to the target, or a new one. As Redis's connect: a name that does not
    /// resolve, or a connect that fails at once, is "connecting" (Refused here); a connect refused
    /// or timed out later shows as a failed write (Failed, TimedOut), as Redis's non-blocking connect
    /// returns before the outcome is known.
    /// </summary>
    private async Task<(MigrateSocket? Socket, ConnectFailure Failure)> GetSocketAsync(string name)
    {
        if (_sockets.TryBorrow(name) is { } cached) return (cached, ConnectFailure.None);

        if (!TryParsePort(Port, out int port)) return (null, ConnectFailure.Refused);
        using var cts = Timeout();
        IPAddress[] addresses;
        try
        {
            addresses = IPAddress.TryParse(Host, out var literal)
                ? [literal]
                : await Dns.GetHostAddressesAsync(Host, cts.Token).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is SocketException or ArgumentException or OperationCanceledException)
        {
            return (null, ConnectFailure.Refused);
        }
        if (addresses.Length == 0) return (null, ConnectFailure.Refused);

        var failure = ConnectFailure.Refused;
        foreach (var address in addresses)
        {
            var socket = new Socket(address.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
            try
            {
                await socket.ConnectAsync(new IPEndPoint(address, port), cts.Token).ConfigureAwait(false);
                socket.NoDelay = true;
                var connection = new MigrateSocket(name, socket);
                _sockets.TryAdd(connection); // else this MIGRATE keeps it to itself (see MigrateSockets)
                return (connection, ConnectFailure.None);
            }
            catch (OperationCanceledException)
            {
                socket.Dispose();
                return (null, ConnectFailure.TimedOut);
            }
            catch (SocketException ex)
            {
                socket.Dispose();
                // Refused or reset: Redis's connect had already returned; the write finds the error.
                if (ex.SocketErrorCode is SocketError.ConnectionRefused or SocketError.ConnectionReset or SocketError.TimedOut)
                    failure = ConnectFailure.Failed;
            }
        }
        return (null, failure);
    }

    /// <summary>
    /// The port as Redis reads it (atoi, then the resolver's 16-bit port): leading spaces, a sign,
    /// digits, anything after ignored; a negative port does not resolve.
    /// </summary>
    internal static bool TryParsePort(string text, out int port)
    {
        int i = 0;
        while (i < text.Length && text[i] is ' ' or '\t' or '\n' or '\r' or '\f' or '\v') i++;
        bool negative = false;
        if (i < text.Length && text[i] is '+' or '-') negative = text[i++] == '-';
        long value = 0;
        while (i < text.Length && char.IsAsciiDigit(text[i]) && value < int.MaxValue) value = value * 10 + (text[i++] - '0');
        port = (int)(value & 0xFFFF);
        return !negative || value == 0;
    }

    /// <summary>AUTH and SELECT as needed, then the RESTOREs.</summary>
    private byte[] BuildCommands(bool select)
    {
        if (Password == null && !select) return Restores;
        var output = new ArrayBufferWriter<byte>(Restores.Length + 128);
        var w = new RespWriter(output, 2);
        if (Password != null)
        {
            w.ArrayHeader(Username != null ? 3 : 2);
            w.Bulk("AUTH"u8);
            if (Username != null) w.Bulk(Username);
            w.Bulk(Password);
        }
        if (select)
        {
            w.ArrayHeader(2);
            w.Bulk("SELECT"u8);
            w.Bulk(Encoding.ASCII.GetBytes(DbId.ToString(System.Globalization.CultureInfo.InvariantCulture)));
        }
        output.Write(Restores);
        return output.WrittenSpan.ToArray();
    }

    /// <summary>Writes in 64 KB pieces, each within the timeout, as Redis's syncWrite loop.</summary>
    private async Task<(bool Ok, bool TimedOut)> WriteAsync(MigrateSocket socket, byte[] data)
    {
        for (int pos = 0; pos < data.Length;)
        {
            int count = Math.Min(WriteChunk, data.Length - pos);
            using var cts = Timeout();
            try
            {
                while (count > 0)
                {
                    int sent = await socket.Socket.SendAsync(data.AsMemory(pos, count), SocketFlags.None, cts.Token).ConfigureAwait(false);
                    if (sent <= 0) return (false, false);
                    pos += sent;
                    count -= sent;
                }
            }
            catch (OperationCanceledException)
            {
                return (false, true);
            }
            catch (Exception ex) when (ex is SocketException or ObjectDisposedException)
            {
                return (false, false);
            }
        }
        return (true, false);
    }

    /// <summary>One reply line without its CRLF (cut at 1023 bytes as Redis's), or null on EOF, error or timeout.</summary>
    private async Task<(string? Line, bool TimedOut)> ReadLineAsync(MigrateSocket socket)
    {
        using var cts = Timeout();
        var line = new List<byte>(64);
        try
        {
            while (true)
            {
                while (socket.Start < socket.End)
                {
                    byte b = socket.Buffer[socket.Start++];
                    if (b == '\n')
                    {
                        if (line.Count > 0 && line[^1] == '\r') line.RemoveAt(line.Count - 1);
                        return (Encoding.Latin1.GetString(line.ToArray()), false);
                    }
                    line.Add(b);
                    if (line.Count == MaxLine) return (Encoding.Latin1.GetString(line.ToArray()), false);
                }
                int read = await socket.Socket.ReceiveAsync(socket.Buffer.AsMemory(), SocketFlags.None, cts.Token).ConfigureAwait(false);
                if (read <= 0) return (null, false);
                socket.Start = 0;
                socket.End = read;
            }
        }
        catch (OperationCanceledException)
        {
            return (null, true);
        }
        catch (Exception ex) when (ex is SocketException or ObjectDisposedException)
        {
            return (null, false);
        }
    }

    private CancellationTokenSource Timeout() => new(TimeSpan.FromMilliseconds(Math.Min(TimeoutMs, int.MaxValue)));
}
