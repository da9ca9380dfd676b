using System.Globalization;
using System.Net.Sockets;
using System.Text;
using RedisClone.Commands;
using RedisClone.Common;
using RedisClone.Execution;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Replication;

/// <summary>
/// A replica's link to its master, as Redis's syncWithMaster / readSyncBulkPayload / the master
/// client: connect, handshake (PING, AUTH, REPLCONF listening-port / ip-address / capa, PSYNC),
/// then either a full sync (the RDB payload to a file, the old data flushed, the file loaded) or a
/// partial one (+CONTINUE), then the master's stream applied command by command through the
/// same execution path as any client's, by a client flagged as the master. A failure is retried
/// every second; a lost connection that was streaming is retried at once from the cached master
/// (this server's replication id and offset), which a master that still has the bytes continues.
/// </summary>
/// <remarks>
/// <para>The loop is one task on the thread pool (never an event loop: a full sync waits for every
/// shard's gate). Offsets: every applied byte goes to <see cref="ReplicationState.FeedFromMaster"/>
/// once its command ran, so master_repl_offset is the processed offset and chained replicas get the
/// stream verbatim; a transaction's bytes are fed when its EXEC ran (Redis's reploff does not move
/// inside MULTI), so a link lost mid-transaction resumes before its MULTI.</para>
/// <para>The master's replies are dropped (<see cref="DiscardingWriter"/>); REPLCONF GETACK is
/// answered here with the offset before it, and REPLCONF ACK goes to the master every second.</para>
/// </remarks>
internal sealed class MasterLink
{
    private const int MaxLine = 64 * 1024;

    private readonly RedisServer _server;
    private readonly ReplicaRole _role;
    private readonly string _host;
    private readonly int _port;
    private readonly CancellationTokenSource _stop = new();
    private readonly SemaphoreSlim _writeLock = new(1, 1);
    private Task _completion = Task.CompletedTask;

    // The connection of the current attempt.
    private Socket? _socket;
    private Stream? _stream;
    private ClientSession? _client;

    // Input: [_fed, _parsed) ran, not yet fed (an open MULTI); [_parsed, _end) not parsed yet.
    private byte[] _buffer = new byte[64 * 1024];
    private int _fed, _parsed, _end;
    private bool _inMulti;
    private int _multiStart;
    private readonly CommandBuffer _commands = new();
    private readonly List<(int Offset, int Length)> _args = new(16);

    public MasterLink(RedisServer server, ReplicaRole role, string host, int port)
    {
        _server = server;
        _role = role;
        _host = host;
        _port = port;
        DownSinceMs = 0;
    }

    /// <summary>Where the link is (ROLE, INFO).</summary>
    public LinkState State => (LinkState)Volatile.Read(ref _state);
    private int _state = (int)LinkState.Connect;

    private void SetState(LinkState state) => Volatile.Write(ref _state, (int)state);

    /// <summary>The last time anything came from the master (master_last_io_seconds_ago).</summary>
    public long LastIoMs => Volatile.Read(ref _lastIoMs);
    private long _lastIoMs;

    /// <summary>When the link went down (master_link_down_since_seconds); 0 while it never was up.</summary>
    public long DownSinceMs { get; private set; }

    /// <summary>slave_read_repl_offset: the offset of the last byte read from the master.</summary>
    public long ReadOffset => Volatile.Read(ref _readOffset);
    private long _readOffset;

    /// <summary>The full sync's payload size (-1 when streamed with an EOF mark) and bytes read so far.</summary>
    public long SyncTotalBytes { get; private set; }
    public long SyncReadBytes { get; private set; }

    /// <summary>The master client's selected database while streaming (an RDB save's repl-stream-db).</summary>
    public int? MasterDb => _client?.Db;

    /// <summary>The link applied a stream at some point (its loss caches the master).</summary>
    public bool WasConnected { get; private set; }

    /// <summary>Completes once the link's loop has stopped.</summary>
    public Task Completion => _completion;

    /// <summary>Starts the loop once <paramref name="previous"/> (the link this one replaces) has stopped.</summary>
    public void Start(Task previous) => _completion = Task.Run(() => RunAsync(previous));

    /// <summary>Stops the link: its socket closes; the loop ends (a load in progress finishes first).</summary>
    public void Stop()
    {
        try { _stop.Cancel(); } catch (ObjectDisposedException) { }
        CloseSocket();
    }

    private bool Stopping => _stop.IsCancellationRequested;

    private void CloseSocket()
    {
        try { Volatile.Read(ref _socket)?.Dispose(); } catch (Exception) { }
    }

    private async Task RunAsync(Task previous)
    {
        try { await previous; } catch (Exception) { }
        var log = _server.Log;
        var token = _stop.Token;
        bool reconnect = false;
        bool retryNow = false;
        while (!Stopping && !_server.StoppingToken.IsCancellationRequested)
        {
            if (!retryNow)
            {
                // A failed attempt waits for the next turn of Redis's once-a-second replication cron.
                if (reconnect)
                {
                    try { await Task.Delay(1000, token); } catch (OperationCanceledException) { break; }
                }
                log.Notice($"Connecting to MASTER {_host}:{_port}");
            }
            else
            {
                log.Notice($"Reconnecting to MASTER {_host}:{_port}");
            }
            reconnect = true;
            retryNow = false;
            bool wasStreaming = false;
            try
            {
                wasStreaming = await SessionAsync(token);
            }
            catch (Exception ex) when (ex is not OutOfMemoryException)
            {
                wasStreaming = State == LinkState.Connected;
                if (!Stopping && !wasStreaming && ex is LinkException) log.Warning(ex.Message);
                else if (!Stopping && !wasStreaming && ex is not OperationCanceledException)
                    log.Warning($"Error condition on socket for SYNC: {ex.Message}");
            }
            finally
            {
                EndAttempt(wasStreaming);
            }
            if (wasStreaming && !Stopping)
            {
                log.Warning("Connection with master lost.");
                log.Notice("Caching the disconnected master state.");
                retryNow = true;
            }
        }
        SetState(LinkState.None);
    }

    /// <summary>Closes what the attempt opened and leaves the state at connect.</summary>
    private void EndAttempt(bool wasStreaming)
    {
        CloseSocket();
        try { _stream?.Dispose(); } catch (Exception) { }
        _stream = null;
        Volatile.Write(ref _socket, null);
        if (_client is { } client)
        {
            _server.Clients.TryRemove(client.Id, out _);
            if (wasStreaming && _role.MasterHost != null)
            {
                // Redis's replicationCacheMaster: the data stands at this offset of the master's history.
                _role.CachedStreamDb = client.Db;
                _role.HasCachedMaster = true;
            }
            _client = null;
        }
        if (State == LinkState.Connected || wasStreaming) DownSinceMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
        _fed = _parsed = _end = 0;
        _inMulti = false;
        _commands.Reset();
        SetState(LinkState.Connect);
    }

    /// <summary>A failure Redis reports with a log line of its own, then retries.</summary>
    private sealed class LinkException(string message) : Exception(message);

    private long TimeoutMs => Math.Max(1, _server.Config.Number("repl-timeout")) * 1000;

    private static long NowMs => DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();

    private void Touch() => Volatile.Write(ref _lastIoMs, NowMs);

    /// <summary>One attempt: connect, handshake, sync, stream until the connection ends. True when it streamed.</summary>
    private async Task<bool> SessionAsync(CancellationToken token)
    {
        SetState(LinkState.Connecting);
        Touch();
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        Volatile.Write(ref _socket, socket);
        if (Stopping) throw new OperationCanceledException();
        using (var connectTimeout = CancellationTokenSource.CreateLinkedTokenSource(token))
        {
            connectTimeout.CancelAfter(TimeSpan.FromMilliseconds(TimeoutMs));
            try
            {
                await socket.ConnectAsync(_host, _port, connectTimeout.Token);
            }
            catch (Exception ex) when (ex is SocketException or OperationCanceledException && !token.IsCancellationRequested)
            {
                throw new LinkException(ex is OperationCanceledException ? "Timeout connecting to the MASTER..."
                    : $"Unable to connect to MASTER: {ex.Message}");
            }
        }
        _server.Log.Notice("MASTER <-> REPLICA sync started");
        _server.Log.Notice("Non blocking connect for SYNC fired the event.");
        _stream = new NetworkStream(socket, ownsSocket: false);
        if (_server.Config.TlsSettings().Replication) await StartTlsAsync(token);
        SetState(LinkState.Handshake);
        using var watchdog = CancellationTokenSource.CreateLinkedTokenSource(token);
        var watch = WatchAsync(watchdog.Token);
        try
        {
            await HandshakeAsync(token);
            return await SyncAndStreamAsync(token);
        }
        finally
        {
            watchdog.Cancel();
            try { await watch; } catch (Exception) { }
        }
    }

    /// <summary>tls-replication yes: the link runs over TLS (the server's context: its CAs, its certificate or tls-client-cert-file).</summary>
    private async Task StartTlsAsync(CancellationToken token)
    {
        var tls = _server.Tls ?? throw new LinkException("Failed to configure TLS for the connection to MASTER: no TLS context");
        var client = Network.TlsContext.LoadClientCertificate(_server.Config);
        var ssl = new System.Net.Security.SslStream(_stream!, leaveInnerStreamOpen: false);
        _stream = ssl;
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(token);
        timeout.CancelAfter(TimeSpan.FromMilliseconds(TimeoutMs));
        try
        {
            await ssl.AuthenticateAsClientAsync(tls.ClientOptions(_host, client), timeout.Token);
        }
        catch (Exception ex) when (ex is System.Security.Authentication.AuthenticationException or IOException
                                       or OperationCanceledException && !token.IsCancellationRequested)
        {
            throw new LinkException($"Error condition on socket for SYNC: {ex.Message}");
        }
    }

    /// <summary>
    /// Once a second while the attempt lasts: REPLCONF ACK while streaming, and Redis's cron
    /// timeouts (connecting or handshaking, receiving the payload, or a silent master: repl-timeout).
    /// </summary>
    private async Task WatchAsync(CancellationToken token)
    {
        while (!token.IsCancellationRequested)
        {
            await Task.Delay(1000, token);
            var state = State;
            long silent = NowMs - LastIoMs;
            if (state == LinkState.Connected) await SendAckAsync(token);
            if (_server.Rdb.Loading)
            {
                // Loading the payload: a newline a second tells the master this replica is alive
                // (Redis's replicationSendNewlineToMaster), so a long load is not taken for a timeout.
                if (state == LinkState.Transfer) await WriteAsync(Newline, token);
                continue;
            }
            if (silent <= TimeoutMs) continue;
            _server.Log.Warning(state switch
            {
                LinkState.Connected => "MASTER timeout: no data nor PING received...",
                LinkState.Transfer => "Timeout receiving bulk data from MASTER... If the problem persists try to set the 'repl-timeout' parameter in redis.conf to a larger value.",
                _ => "Timeout connecting to the MASTER...",
            });
            CloseSocket();
            return;
        }
    }

    // ------------------------------------------------------------------ handshake

    private async Task HandshakeAsync(CancellationToken token)
    {
        var log = _server.Log;
        var config = _server.Config;
        await SendAsync(token, "PING");
        string reply = await ReadLineAsync(token);
        // Redis goes on after an authentication error: AUTH comes next.
        if (reply.StartsWith('-') && !reply.StartsWith("-NOAUTH", StringComparison.Ordinal) && !reply.StartsWith("-NOPERM", StringComparison.Ordinal)
            && !reply.StartsWith("-ERR operation not permitted", StringComparison.Ordinal))
            throw new LinkException($"Error reply to PING from master: '{reply}'");
        log.Notice("Master replied to PING, replication can continue...");

        // The rest of the handshake is pipelined, as Redis 7 sends it; the replies are read in order.
        string masterAuth = config.Value("masterauth"), masterUser = config.Value("masteruser");
        bool auth = masterAuth.Length > 0;
        if (auth)
        {
            if (masterUser.Length > 0) await SendAsync(token, "AUTH", masterUser, masterAuth);
            else await SendAsync(token, "AUTH", masterAuth);
        }
        long announcePort = config.Number("replica-announce-port");
        int port = announcePort != 0 ? (int)announcePort
            : config.TlsSettings().Replication && _server.TlsPort != 0 ? _server.TlsPort : _server.Port;
        await SendAsync(token, "REPLCONF", "listening-port", port.ToString(CultureInfo.InvariantCulture));
        string announceIp = config.Value("replica-announce-ip");
        if (announceIp.Length > 0) await SendAsync(token, "REPLCONF", "ip-address", announceIp);
        await SendAsync(token, "REPLCONF", "capa", "eof", "capa", "psync2");
        if (auth)
        {
            reply = await ReadLineAsync(token);
            if (reply.StartsWith('-')) throw new LinkException($"Unable to AUTH to MASTER: {reply}");
        }
        reply = await ReadLineAsync(token);
        if (reply.StartsWith('-')) log.Notice($"(Non critical) Master does not understand REPLCONF listening-port: {reply}");
        if (announceIp.Length > 0)
        {
            reply = await ReadLineAsync(token);
            if (reply.StartsWith('-')) log.Notice($"(Non critical) Master does not understand REPLCONF ip-address: {reply}");
        }
        reply = await ReadLineAsync(token);
        if (reply.StartsWith('-')) log.Notice($"(Non critical) Master does not understand REPLCONF capa: {reply}");
    }

    // ------------------------------------------------------------------ PSYNC and the sync

    private async Task<bool> SyncAndStreamAsync(CancellationToken token)
    {
        var log = _server.Log;
        var repl = _server.Replication;
        string psyncId = "?", psyncOffset = "-1";
        if (_role.HasCachedMaster)
        {
            psyncId = repl.ReplicationId;
            psyncOffset = (repl.Offset + 1).ToString(CultureInfo.InvariantCulture);
            log.Notice($"Trying a partial resynchronization (request {psyncId}:{psyncOffset}).");
        }
        else
        {
            log.Notice("Partial resynchronization not possible (no cached master)");
        }
        // A master handing over its role (FAILOVER) asks its target to take it (PSYNC ... FAILOVER).
        var failover = repl.Failover;
        if (failover.AskTargetToTakeOver) await SendAsync(token, "PSYNC", psyncId, psyncOffset, "FAILOVER");
        else await SendAsync(token, "PSYNC", psyncId, psyncOffset);
        string reply;
        do reply = await ReadLineAsync(token); // the master may send newlines while it prepares
        while (reply.Length == 0);

        if (failover.AskTargetToTakeOver)
            failover.TargetAnswered(reply.StartsWith("+FULLRESYNC", StringComparison.Ordinal) || reply.StartsWith("+CONTINUE", StringComparison.Ordinal));
        int streamDb;
        if (reply.StartsWith("+FULLRESYNC", StringComparison.Ordinal))
        {
            var parts = reply.Split(' ');
            if (parts.Length < 3 || parts[1].Length != 40 || !long.TryParse(parts[2], NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long offset))
                throw new LinkException("Master replied with wrong +FULLRESYNC syntax.");
            log.Notice($"Full resync from master: {parts[1]}:{offset}");
            // Redis's replicationAttachToNewMaster: the cached master and this server's own history
            // (its backlog, which sub-replicas would resume from) are gone.
            _role.HasCachedMaster = false;
            repl.Master.DisconnectAll();
            repl.FreeBacklog();
            streamDb = await FullSyncAsync(parts[1], offset, token);
        }
        else if (reply.StartsWith("+CONTINUE", StringComparison.Ordinal))
        {
            log.Notice("Successful partial resynchronization with master.");
            string newId = reply.Length > "+CONTINUE ".Length ? reply["+CONTINUE ".Length..].Trim() : "";
            if (newId.Length == 40 && newId != repl.ReplicationId)
            {
                repl.FollowNewId(newId);
                log.Notice($"Master replication ID changed to {newId}");
                // Redis: the sub-replicas must learn the new id, with a PSYNC of their own.
                repl.Master.DisconnectAll();
            }
            repl.EnsureBacklog();
            streamDb = _role.CachedStreamDb;
            log.Notice("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
        }
        else if (reply.StartsWith("-NOMASTERLINK", StringComparison.Ordinal) || reply.StartsWith("-LOADING", StringComparison.Ordinal))
        {
            throw new LinkException($"Master is currently unable to PSYNC but should be in the future: {reply}");
        }
        else
        {
            throw new LinkException($"Unexpected reply to PSYNC from master: {reply}");
        }

        StartStreaming(streamDb);
        // The first ACK at once: a master that sent the RDB without a file waits for it before
        // streaming (Redis's repl_start_cmd_stream_on_ack).
        await SendAckAsync(token);
        await StreamAsync(token);
        return true;
    }

    /// <summary>
    /// The full sync's payload: "$len" then that many bytes, or "$EOF:mark" then bytes up to the
    /// 40-byte mark (a diskless master); written to a temporary file in the dir, which replaces the
    /// RDB file and is loaded once the old data is flushed. Returns the stream's database.
    /// </summary>
    private async Task<int> FullSyncAsync(string replicationId, long offset, CancellationToken token)
    {
        var log = _server.Log;
        SetState(LinkState.Transfer);
        SyncReadBytes = 0;
        SyncTotalBytes = -1;
        string header;
        do header = await ReadLineAsync(token); // newlines: the master is still preparing the payload
        while (header.Length == 0);
        if (header.StartsWith('-')) throw new LinkException($"MASTER aborted replication with an error: {header[1..]}");
        if (!header.StartsWith('$')) throw new LinkException($"Bad protocol from MASTER, the first byte is not '$' (we received '{header}'), are you sure the host and port are right?");
        byte[]? mark = null;
        long length = -1;
        // repl-diskless-load: swapdb, or on-empty-db with no data, takes the payload without a file
        // (Redis parses it from the socket; here it is held in memory until complete, so the old
        // data stays served, and kept, until the whole payload has arrived).
        string diskless = _server.Config.Value("repl-diskless-load");
        bool toParser = diskless == "swapdb" || (diskless == "on-empty-db" && IsEmpty());
        string where = toParser ? "to parser" : "to disk";
        if (header.StartsWith("$EOF:", StringComparison.Ordinal) && header.Length == 5 + 40)
        {
            mark = Encoding.ASCII.GetBytes(header[5..]);
            log.Notice($"MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF {where}");
        }
        else if (long.TryParse(header.AsSpan(1), NumberStyles.None, CultureInfo.InvariantCulture, out length))
        {
            SyncTotalBytes = length;
            log.Notice($"MASTER <-> REPLICA sync: receiving {length} bytes from master {where}");
        }
        else
        {
            throw new LinkException($"Bad protocol from MASTER: '{header}'");
        }

        if (toParser)
        {
            using var memory = new MemoryStream();
            await ReceivePayloadAsync(memory, length, mark, token);
            memory.Position = 0;
            return LoadPayload(memory, null, replicationId, offset);
        }
        string dir = _server.Config.Dir;
        string temp = Path.Combine(dir, $"temp-{DateTimeOffset.UtcNow.ToUnixTimeSeconds()}.{Environment.ProcessId}.rdb");
        try
        {
            await using (var file = new FileStream(temp, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 16, useAsync: true))
            {
                await ReceivePayloadAsync(file, length, mark, token);
                file.Flush(flushToDisk: true);
            }
            return LoadPayload(null, temp, replicationId, offset);
        }
        finally
        {
            try { if (File.Exists(temp)) File.Delete(temp); } catch (IOException) { }
        }
    }

    /// <summary>No key in any database (repl-diskless-load on-empty-db).</summary>
    private bool IsEmpty()
    {
        var shards = _server.Shards;
        for (int i = 0; i < shards.Count; i++)
            for (int db = 0; db < shards[i].Store.DatabaseCount; db++)
                if (shards[i].Store[db].Count > 0) return false;
        return true;
    }

    private async Task ReceivePayloadAsync(Stream file, long length, byte[]? mark, CancellationToken token)
    {
        var tail = new byte[40];
        int tailUsed = 0;
        long written = 0;
        while (true)
        {
            if (_end == _parsed) await ReadMoreAsync(token);
            int available = _end - _parsed;
            int take = mark == null ? (int)Math.Min(available, length - written) : available;
            if (take > 0)
            {
                await file.WriteAsync(_buffer.AsMemory(_parsed, take), token);
                if (mark != null) KeepTail(tail, ref tailUsed, _buffer.AsSpan(_parsed, take));
                _parsed += take;
                written += take;
                SyncReadBytes = written;
            }
            _fed = _parsed;
            if (mark == null ? written == length : tailUsed == 40 && tail.AsSpan().SequenceEqual(mark)) break;
            if (_parsed == _end) _fed = _parsed = _end = 0;
        }
        if (mark != null) file.SetLength(written - 40);
        await file.FlushAsync(token);
    }

    /// <summary>Keeps the last 40 bytes written (a diskless payload ends with its mark).</summary>
    private static void KeepTail(byte[] tail, ref int used, ReadOnlySpan<byte> chunk)
    {
        if (chunk.Length >= tail.Length)
        {
            chunk[^tail.Length..].CopyTo(tail);
            used = tail.Length;
            return;
        }
        int keep = Math.Min(used, tail.Length - chunk.Length);
        tail.AsSpan(used - keep, keep).CopyTo(tail);
        chunk.CopyTo(tail.AsSpan(keep));
        used = keep + chunk.Length;
    }

    /// <summary>
    /// Flushes the old data and loads the payload (every gate held; clients get -LOADING meanwhile,
    /// as during start-up loading), then takes the master's history: its id and offset.
    /// </summary>
    private int LoadPayload(MemoryStream? memory, string? temp, string replicationId, long offset)
    {
        var log = _server.Log;
        var rdb = _server.Rdb;
        string target = _server.Config.RdbPath;
        rdb.BeginLoading(memory?.Length ?? new FileInfo(temp!).Length);
        rdb.Loading = true;
        Persistence.RdbLoader.Result result;
        try
        {
            result = _server.WithAllGates(() =>
            {
                log.Notice("MASTER <-> REPLICA sync: Flushing old data");
                EmptyData();
                if (temp != null) File.Move(temp, target, overwrite: true);
                log.Notice("MASTER <-> REPLICA sync: Loading DB in memory");
                Persistence.RdbLoader.Result loaded;
                try
                {
                    loaded = memory != null ? Persistence.RdbLoader.Load(_server, memory, (done, _) => rdb.LoadingProgress(done))
                        : Persistence.RdbLoader.Load(_server, target, (done, _) => rdb.LoadingProgress(done));
                }
                catch (Persistence.RdbLoadException ex)
                {
                    log.Warning($"Failed trying to load the MASTER synchronization DB from disk, check server logs. ({ex.Message} at offset {ex.Offset})");
                    EmptyData(); // part of a payload is no data set of the master's
                    throw new LinkException("MASTER <-> REPLICA sync: load failed");
                }
                rdb.LastLoadKeysLoaded = loaded.KeysLoaded;
                rdb.LastLoadKeysExpired = loaded.KeysExpired;
                log.Notice($"Done loading RDB, keys loaded: {loaded.KeysLoaded}, keys expired: {loaded.KeysExpired}.");
                // After a full sync the master's id and offset are ours; a backlog is kept from here
                // (a replica keeps one whether or not it has replicas, to serve them once promoted).
                _server.Replication.Adopt(replicationId, offset);
                _server.Replication.EnsureBacklog();
                // Redis's restartAOFAfterSync: the AOF starts again from a rewrite of the new data.
                if (_server.AofFiles is { Writer: not null } aof && !aof.TryStartRewrite()) aof.RewriteScheduled = true;
                rdb.Loading = false;
                return loaded;
            });
        }
        finally
        {
            rdb.Loading = false;
        }
        Touch();
        log.Notice("MASTER <-> REPLICA sync: Finished with success");
        return Math.Max(0, result.ReplicationStreamDb);
    }

    /// <summary>Redis's emptyData for a full sync: every database and the function libraries (the caller holds every gate).</summary>
    private void EmptyData()
    {
        var shards = _server.Shards;
        for (int i = 0; i < shards.Count; i++)
        {
            var store = shards[i].Store;
            for (int db = 0; db < store.DatabaseCount; db++) store[db].Clear();
        }
        _server.Functions.Flush();
        _server.Tracking.Flushed();
    }

    // ------------------------------------------------------------------ the stream

    private BatchExecutor? _executor;

    private void StartStreaming(int streamDb)
    {
        var socket = _socket!;
        var client = new ClientSession(_server.NextClientId(), socket.RemoteEndPoint, socket.LocalEndPoint, CloseSocket)
        {
            IsMaster = true,
            Db = streamDb,
            Buffers = new SocketFd((int)socket.SafeHandle.DangerousGetHandle()),
        };
        _client = client;
        _executor = new BatchExecutor(_server, client, new DiscardingWriter(), _stop.Token);
        _server.Clients[client.Id] = client;
        _fed = _parsed;
        Touch();
        WasConnected = true;
        SetState(LinkState.Connected);
    }

    /// <summary>The master client's socket for CLIENT LIST (fd=); its buffers are the link's own.</summary>
    private sealed class SocketFd(int fd) : IClientBuffers
    {
        public int Fd => fd;

        public ClientBufferUsage Measure() => default;
    }

    private async Task StreamAsync(CancellationToken token)
    {
        var client = _client!;
        while (true)
        {
            if (_parsed < _end) await ApplyAsync(token);
            if (client.Killed) throw new LinkException("killed");
            await ReadMoreAsync(token);
            client.LastInteractionMs = LastIoMs;
            Volatile.Write(ref _readOffset, _server.Replication.Offset + (_end - _fed));
        }
    }

    /// <summary>
    /// Runs every complete command in the input, in batches through the master client's executor;
    /// REPLCONF and PING are the link's own (a GETACK is answered with the offset before it).
    /// </summary>
    private async Task ApplyAsync(CancellationToken token)
    {
        int p = _parsed;
        while (true)
        {
            int end = ParseCommand(p);
            if (end < 0) break;
            if (_args.Count == 0)
            {
                p = end; // an empty line or "*0": only bytes
                continue;
            }
            var kind = Classify();
            if (!_inMulti && kind is Kind.ReplConf or Kind.Ping)
            {
                bool getAck = kind == Kind.ReplConf && _args.Count >= 2
                              && Ascii.EqualsIgnoreCase(_buffer.AsSpan(_args[1].Offset, _args[1].Length), "GETACK"u8);
                await RunBatchAsync(p);
                if (getAck) await SendAckAsync(token);
                Feed(end);
                p = end;
                continue;
            }
            _commands.BeginCommand();
            foreach (var (offset, length) in _args) _buffer.AsSpan(offset, length).CopyTo(_commands.AddArg(length));
            _commands.EndCommand();
            if (kind == Kind.Multi)
            {
                _inMulti = true;
                _multiStart = p;
            }
            else if (kind == Kind.ExecOrDiscard)
            {
                _inMulti = false;
            }
            p = end;
        }
        await RunBatchAsync(p);
    }

    private enum Kind { Other, ReplConf, Ping, Multi, ExecOrDiscard }

    /// <summary>What the link must know of the command just parsed.</summary>
    private Kind Classify()
    {
        var name = _buffer.AsSpan(_args[0].Offset, _args[0].Length);
        if (Ascii.EqualsIgnoreCase(name, "REPLCONF"u8)) return Kind.ReplConf;
        if (Ascii.EqualsIgnoreCase(name, "PING"u8)) return Kind.Ping;
        if (Ascii.EqualsIgnoreCase(name, "MULTI"u8)) return Kind.Multi;
        if (Ascii.EqualsIgnoreCase(name, "EXEC"u8) || Ascii.EqualsIgnoreCase(name, "DISCARD"u8)) return Kind.ExecOrDiscard;
        return Kind.Other;
    }

    /// <summary>Runs the commands gathered, then feeds their bytes (up to an open MULTI) to the stream.</summary>
    private async ValueTask RunBatchAsync(int parsedUpTo)
    {
        _parsed = parsedUpTo;
        if (_commands.Count == 0)
        {
            Feed(_inMulti ? _multiStart : parsedUpTo);
            return;
        }
        // Applied and passed on as one step for snapshots (see ReplicaRole.EnterApplyAsync).
        await _role.EnterApplyAsync(_stop.Token);
        try
        {
            bool goOn = await _executor!.ExecuteAsync(_commands, NowMs);
            _executor.EndBatch();
            _commands.Clear();
            if (!goOn) throw new LinkException("the master client was closed");
            Feed(_inMulti ? _multiStart : parsedUpTo);
        }
        finally
        {
            _role.ExitApply();
        }
    }

    private void Feed(int upTo)
    {
        // A link being stopped (REPLICAOF NO ONE, another master) adds nothing to the new history.
        if (upTo > _fed && !Stopping)
        {
            _server.Replication.FeedFromMaster(_buffer.AsSpan(_fed, upTo - _fed));
            _fed = upTo;
        }
        _parsed = Math.Max(_parsed, upTo);
    }

    /// <summary>
    /// One command at <paramref name="p"/>: its arguments' places in <see cref="_args"/> and the
    /// position after it, or -1 when it is not complete yet. The master sends multibulk commands;
    /// an inline line is split on spaces (an empty one is a keepalive newline).
    /// </summary>
    private int ParseCommand(int p)
    {
        _args.Clear();
        var data = _buffer;
        int end = _end;
        if (p >= end) return -1;
        if (data[p] != (byte)'*')
        {
            int nl = Array.IndexOf(data, (byte)'\n', p, end - p);
            if (nl < 0)
            {
                if (end - p > MaxLine) throw new LinkException("Protocol error from master: too big inline request");
                return -1;
            }
            int lineEnd = nl > p && data[nl - 1] == '\r' ? nl - 1 : nl;
            for (int i = p; i < lineEnd;)
            {
                while (i < lineEnd && data[i] == ' ') i++;
                int start = i;
                while (i < lineEnd && data[i] != ' ') i++;
                if (i > start) _args.Add((start, i - start));
            }
            return nl + 1;
        }
        if (!TryNumberLine(data, end, ref p, out long count)) return -1;
        for (long a = 0; a < count; a++)
        {
            if (p >= end) return -1;
            if (data[p] != (byte)'$') throw new LinkException($"Protocol error from master: expected '$', got '{(char)data[p]}'");
            if (!TryNumberLine(data, end, ref p, out long length)) return -1;
            if (length < 0 || length > int.MaxValue - 2) throw new LinkException("Protocol error from master: invalid bulk length");
            if (p + length + 2 > end) return -1; // ReadMoreAsync grows the buffer when it is full
            if (data[p + length] != '\r' || data[p + length + 1] != '\n') throw new LinkException("Protocol error from master: bad bulk string");
            _args.Add((p, (int)length));
            p += (int)length + 2;
        }
        return p;
    }

    /// <summary>A "*N" or "$N" line at <paramref name="p"/> (moved past it); false when not complete yet.</summary>
    private static bool TryNumberLine(byte[] data, int end, ref int p, out long value)
    {
        value = 0;
        int nl = Array.IndexOf(data, (byte)'\n', p, end - p);
        if (nl < 0)
        {
            if (end - p > MaxLine) throw new LinkException("Protocol error from master: too big count");
            return false;
        }
        if (nl - p < 2 || data[nl - 1] != '\r' || !RedisNumbers.TryParseInt64(data.AsSpan(p + 1, nl - 1 - (p + 1)), out value))
            throw new LinkException("Protocol error from master: invalid multibulk length");
        p = nl + 1;
        return true;
    }


    private void Shift(byte[] buffer, int by)
    {
        _buffer = buffer;
        _parsed -= by;
        _end -= by;
        _multiStart -= by;
        _fed = 0;
    }

    // ------------------------------------------------------------------ I/O

    /// <summary>Reads what the master sent after what the buffer holds (at least a byte); compacts or grows the buffer first.</summary>
    private async ValueTask ReadMoreAsync(CancellationToken token)
    {
        if (_end == _buffer.Length)
        {
            if (_fed > 0)
            {
                Buffer.BlockCopy(_buffer, _fed, _buffer, 0, _end - _fed);
                Shift(_buffer, _fed);
            }
            else
            {
                // A command larger than the buffer (or an open MULTI holding it all): it grows.
                var bigger = new byte[_buffer.Length * 2];
                Buffer.BlockCopy(_buffer, 0, bigger, 0, _end);
                _buffer = bigger;
            }
        }
        int n = await _stream!.ReadAsync(_buffer.AsMemory(_end), token);
        if (n == 0) throw new LinkException("Connection with master lost (closed by the master).");
        _server.Stats.NetReplInputBytes.Add(n); // the handshake, the RDB and the stream, as Redis counts them
        _end += n;
        Touch();
    }

    /// <summary>A reply line of the handshake, without its CR LF ("" for a keepalive newline).</summary>
    private async ValueTask<string> ReadLineAsync(CancellationToken token)
    {
        while (true)
        {
            int nl = Array.IndexOf(_buffer, (byte)'\n', _parsed, _end - _parsed);
            if (nl >= 0)
            {
                int lineEnd = nl > _parsed && _buffer[nl - 1] == '\r' ? nl - 1 : nl;
                string line = Encoding.UTF8.GetString(_buffer, _parsed, lineEnd - _parsed);
                _parsed = _fed = nl + 1;
                if (_parsed == _end) _parsed = _fed = _end = 0;
                return line;
            }
            if (_end - _parsed > MaxLine) throw new LinkException("Bad protocol from MASTER: a reply line too long");
            await ReadMoreAsync(token);
        }
    }

    private async ValueTask SendAsync(CancellationToken token, params string[] args)
    {
        var sb = new StringBuilder();
        sb.Append('*').Append(args.Length).Append("\r\n");
        foreach (string a in args)
        {
            int length = Encoding.UTF8.GetByteCount(a);
            sb.Append('$').Append(length).Append("\r\n").Append(a).Append("\r\n");
        }
        await WriteAsync(Encoding.UTF8.GetBytes(sb.ToString()), token);
    }

    /// <summary>
    /// REPLCONF ACK with the offset applied, and with the AOF on FACK with the offset known to be
    /// fsynced there (Redis 7.2's replicationSendAck, for the master's WAITAOF).
    /// </summary>
    private ValueTask SendAckAsync(CancellationToken token)
    {
        string offset = _server.Replication.Offset.ToString(CultureInfo.InvariantCulture);
        long fsynced = FsyncedOffset();
        return fsynced < 0 ? SendAsync(token, "REPLCONF", "ACK", offset)
            : SendAsync(token, "REPLCONF", "ACK", offset, "FACK", fsynced.ToString(CultureInfo.InvariantCulture));
    }

    // The AOF's fsynced offset: a checkpoint (the master client's last AOF unit then, and the offset
    // then) taken at one ACK is known durable at a later one once the AOF's fsync passed its unit.
    private long _fsyncedOffset, _checkpointSequence = -1, _checkpointOffset;

    /// <summary>Redis's fsynced_reploff: -1 without an AOF.</summary>
    private long FsyncedOffset()
    {
        lock (_ackLock) return FsyncedOffsetLocked();
    }

    private readonly object _ackLock = new();

    private long FsyncedOffsetLocked()
    {
        var files = _server.AofFiles;
        var aof = files?.Writer;
        if (aof == null || _client is not { } client) return -1;
        long durable = aof.Durable;
        long offset = _server.Replication.Offset;
        if (files!.InitialRewrite) return _fsyncedOffset; // the data is not all in the AOF yet
        if (client.AofSequence <= durable) _fsyncedOffset = Math.Max(_fsyncedOffset, offset);
        else if (_checkpointSequence >= 0 && _checkpointSequence <= durable) _fsyncedOffset = Math.Max(_fsyncedOffset, _checkpointOffset);
        if (_checkpointSequence < 0 || _checkpointSequence <= durable)
        {
            _checkpointSequence = client.AofSequence;
            _checkpointOffset = offset;
        }
        return _fsyncedOffset;
    }

    private static readonly byte[] Newline = "\n"u8.ToArray();

    private async ValueTask WriteAsync(byte[] bytes, CancellationToken token)
    {
        var stream = _stream ?? throw new LinkException("not connected");
        await _writeLock.WaitAsync(token);
        try
        {
            await stream.WriteAsync(bytes, token);
            await stream.FlushAsync(token);
        }
        finally
        {
            _writeLock.Release();
        }
    }
}
