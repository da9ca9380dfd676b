using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using RedisClone.Commands;
using RedisClone.Common;
using RedisClone.Execution;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Network;

/// <summary>
/// One client: a socket between two pipes, and the read loop that parses every complete command in
/// the input, hands the batch to its <see cref="BatchExecutor"/> (which writes the replies in order),
/// flushes only when the input is drained, and delivers pub/sub pushes between batches.
/// </summary>
/// <remarks>
/// Backpressure: while the client does not read its replies the output's flush stays pending (the
/// socket's buffer is full, or the output pipe is past its threshold), so this loop stops reading;
/// the input pipe in turn pauses the receiving side, and TCP pushes back on the client. Memory per
/// client stays bounded by the input threshold plus the replies of one batch.
/// </remarks>
internal sealed partial class ClientConnection : PubSub.ISubscriber, IClientBuffers
{
    private const int FlushThreshold = 64 * 1024;

    private readonly RedisServer _server;
    private readonly PipeReader _inputReader;
    private readonly PipeWriter _outputWriter;
    private readonly RespParser _parser = new();
    private readonly CommandBuffer _commands = new();
    private readonly BatchExecutor _executor;
    private readonly IClientBuffers? _transportBuffers;
    private readonly Func<ValueTask>? _finishSending;

    /// <summary>A connection over any duplex pipe (a socket's, or an in-memory one in benchmarks).</summary>
    /// <param name="finishSending">Called once the replies are flushed: ends the sending side when everything is
    /// sent (TCP FIN; for TLS close_notify first), reading on; see <see cref="DrainAsync"/>.</param>
    public ClientConnection(RedisServer server, IDuplexPipe transport, EndPoint? remote, EndPoint? local, Action close,
        CancellationToken closed = default, Func<ValueTask>? finishSending = null)
    {
        _server = server;
        _inputReader = transport.Input;
        _outputWriter = transport.Output;
        _finishSending = finishSending;
        Session = new ClientSession(server.NextClientId(), remote, local, close);
        Session.Subscriber = this;
        Session.WakeReader = _inputReader.CancelPendingRead;
        Session.WakeReaderSoon = _inputReader is Epoll.InputBuffer input ? input.CancelPendingReadSoon : _inputReader.CancelPendingRead;
        server.Acl.SetDefaultAuth(Session);
        _transportBuffers = transport as IClientBuffers;
        Session.Buffers = this;
        _commands.GrowthObserver = server.Stats.RecentMaxInput;
        _executor = new BatchExecutor(server, Session, _outputWriter, closed);
        _parser.MaxBulkLength = server.Config.ProtoMaxBulkLen;
    }

    public ClientSession Session { get; }

    public int Fd => _transportBuffers?.Fd ?? -1;

    public void CountOutputAsReplication() => _transportBuffers?.CountOutputAsReplication();

    public void DisableNoDelay() => _transportBuffers?.DisableNoDelay();

    /// <summary>The transport's buffers plus the parser's arena (a command still arriving, or the batch being run).</summary>
    public ClientBufferUsage Measure()
    {
        var usage = _transportBuffers?.Measure() ?? default;
        var (received, reserved) = _parser.PendingArgument;
        return usage with
        {
            ParseBytes = Math.Max(0, _commands.ArenaBytes - reserved + received),
            PartialArgBytes = received,
            ParseAllocated = _commands.ArenaCapacity,
        };
    }

    /// <summary>Slack an idle client's arena may keep (Redis resizes an idle query buffer with more than 4 KB free).</summary>
    private const int IdleArenaSlack = 4096;

    /// <summary>Set by <see cref="TrimIdle"/> (any thread), acted on by the read loop when the wake-up reaches it.</summary>
    private volatile bool _trimRequested;

    /// <summary>
    /// Asks the read loop to give the parse arena's room back (the server's cron, for a client idle
    /// for more than 2 seconds): it is woken as for a pub/sub message and trims on its own thread.
    /// Nothing to do, or a client on its way out: nothing happens.
    /// </summary>
    public void TrimIdle()
    {
        if (_commands.ArenaFree <= IdleArenaSlack || Session.Killed || Session.CloseAfterReply || Session.Draining ||
            Session.Blocked != null) return;
        _trimRequested = true;
        _inputReader.CancelPendingRead();
    }

    /// <summary>Serves a client until it disconnects or is killed.</summary>
    /// <param name="unixSocket">A Unix socket client: the listener's path, which CLIENT LIST shows
    /// as both its addresses (as Redis, whose peers on a Unix socket have no name of their own).</param>
    public static Task ServeAsync(RedisServer server, Socket socket, EndPoint? unixSocket = null)
    {
        var remote = unixSocket ?? socket.RemoteEndPoint;
        var local = unixSocket ?? socket.LocalEndPoint;
        if (server.EventLoops is { } loops) return ServeOnLoopAsync(server, socket, loops.Next(), remote, local);
        return ServeOnPipelinesAsync(server, PipelinesTransport.ForSocket(socket, server.Stats), remote, local);
    }

    /// <summary>Linux: the socket is driven by one of the server's epoll event loops.</summary>
    private static async Task ServeOnLoopAsync(RedisServer server, Socket socket, Epoll.EventLoop loop, EndPoint? remote, EndPoint? local)
    {
        var transport = new Epoll.EpollTransport(socket, loop, server.Stats);
        var connection = new ClientConnection(server, transport, remote, local, transport.Close,
            transport.Closed, transport.FinishSendingAsync);
        server.Clients[connection.Session.Id] = connection.Session;
        try
        {
            var loopTask = connection.ProcessLoopAsync();
            transport.Start();
            await loopTask;
        }
        catch (Exception)
        {
        }
        finally
        {
            // The socket first: ending the session may wait for a busy shard's gate.
            transport.Release();
            await connection.EndSessionAsync();
        }
    }

    /// <summary>Elsewhere, with <c>--transport sockets</c>, and for TLS: serves a client through <see cref="PipelinesTransport"/> until it ends; then the socket (and the TLS stream) go.</summary>
    private static async Task ServeOnPipelinesAsync(RedisServer server, PipelinesTransport transport, EndPoint? remote, EndPoint? local)
    {
        var connection = new ClientConnection(server, transport, remote, local, transport.Close, transport.Closed,
            transport.FinishSendingAsync);
        connection.Session.Tls = transport.IsTls;
        server.Clients[connection.Session.Id] = connection.Session;
        try
        {
            await connection.ProcessLoopAsync();
        }
        catch (Exception)
        {
            transport.Close();
        }
        finally
        {
            // A killed client's replies are dropped; any other's are sent before the socket goes.
            if (connection.Session.Killed) transport.Close();
            await transport.DisposeAsync();
            await connection.EndSessionAsync();
        }
    }

    /// <summary>How long a client on the TLS port has to finish its handshake before it is dropped.</summary>
    private static readonly TimeSpan HandshakeTimeout = TimeSpan.FromSeconds(10);

    /// <summary>
    /// A client of the TLS port: the handshake with the context current at accept (a CONFIG SET of
    /// the certificates applies to connections made after it), then the same reading, parsing and
    /// replying as any client, through Pipelines.Sockets.Unofficial's stream pipes over an SslStream. A failed handshake closes the socket, logged at verbose level as Redis logs it.
    /// </summary>
    public static async Task ServeTlsAsync(RedisServer server, Socket socket, TlsContext context, TlsClientAuth auth)
    {
        var ssl = new System.Net.Security.SslStream(new NetworkStream(socket, ownsSocket: false), leaveInnerStreamOpen: false);
        var remote = socket.RemoteEndPoint;
        var local = socket.LocalEndPoint;
        try
        {
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(server.StoppingToken);
            timeout.CancelAfter(HandshakeTimeout);
            await ssl.AuthenticateAsServerAsync(context.Options(auth), timeout.Token);
        }
        catch (Exception ex)
        {
            server.Log.Write(ServerLog.Level.Verbose,
                $"Error accepting a client connection: {ex.Message} (addr={ClientSession.FormatEndPoint(remote)} laddr={ClientSession.FormatEndPoint(local)})");
            await ssl.DisposeAsync();
            socket.Dispose();
            return;
        }
        await ServeOnPipelinesAsync(server, PipelinesTransport.ForTls(socket, ssl, server.Stats), remote, local);
    }

    /// <summary>Drops what the client held on the server: watches, subscriptions, its CLIENT LIST entry.</summary>
    private async ValueTask EndSessionAsync()
    {
        try { await _executor.EndAsync(); } catch (Exception) { }
        if (Session.ReplicaLink is { } replica)
        {
            if (replica.Attached) _server.Replication.Master.Remove(replica);
            else replica.Close();
        }
        PubSubCommands.UnsubscribeEverything(_server.PubSub, Session);
        ConnectionCommands.StopMonitoring(_server, Session);
        _server.Tracking.Disable(Session);
        _server.Clients.TryRemove(Session.Id, out _);
        _server.ClientEviction.Remove(Session);
        // What the client held in parsed commands and a MULTI queue is garbage now (its socket
        // buffers were counted as they went back, see Common/BufferPool).
        Common.ReleasedMemory.Add(_commands.AllocatedBytes + (Session.Queued?.AllocatedBytes ?? 0) + 8L * (Session.QueuedDefs?.Capacity ?? 0));
    }

    /// <summary>Reads, parses and runs commands until the input ends, the client quits or is killed.</summary>
    public async Task ProcessLoopAsync()
    {
        var input = _inputReader;
        var output = _outputWriter;
        try
        {
            while (true)
            {
                if (_trimRequested)
                {
                    _trimRequested = false;
                    _commands.TrimIdle(); // between batches: the last one was cleared
                }
                if (!_pushes.IsEmpty) DrainPushes();
                // A replica: its sync's lines, its RDB and the replication stream (see Replication/ReplicaLink).
                if (Session.ReplicaLink is { HasWork: true } replica && !await replica.PumpAsync(output)) break;
                if (!input.TryRead(out var result))
                {
                    if (output.UnflushedBytes > 0)
                    {
                        await _executor.WaitForAofAsync();
                        var flushed = await output.FlushAsync();
                        if (flushed.IsCompleted || flushed.IsCanceled) break;
                    }
                    _executor.FlushedMidBatch = false;
                    result = await input.ReadAsync();
                }
                // A canceled read is a wake-up for queued pub/sub messages (see Push); it may carry data too.
                if (Session.Killed) break;
                if (Session.Draining)
                {
                    input.AdvanceTo(result.Buffer.Start); // nothing of it runs now (see DrainAsync)
                    break;
                }

                var buffer = result.Buffer;
                // Redis's lastinteraction (CLIENT LIST idle=, the timeout parameter): any read counts,
                // a command still arriving included.
                long nowMs = buffer.IsEmpty ? 0 : ServerClock.UnixMsNow(out _);
                if (nowMs != 0) Session.LastInteractionMs = nowMs;
                if (OverQueryBufferLimit(buffer.Length)) break;
                var status = Parse(buffer, out var consumed);
                if (status == ParseStatus.BatchFull) input.AdvanceTo(consumed);
                else input.AdvanceTo(consumed, buffer.End);
                _server.ClientEviction.Update(Session);
                if (Session.Killed) break;

                if (_commands.Count > 0)
                {
                    _executor.LastClock = 0;
                    bool goOn = await _executor.ExecuteAsync(_commands, nowMs);
                    _executor.EndBatch();
                    _commands.Clear();
                    // A reply written counts too (Redis updates it on every write): a client that
                    // was blocked for longer than timeout is not closed as soon as it is served.
                    // The last command's end when the batch ended with a timed segment (no clock read).
                    long last = _executor.LastClock;
                    Session.LastInteractionMs = last != 0 ? ServerClock.UnixMs(last) : ServerClock.UnixMsNow(out _);
                    if (!goOn) break;
                    _server.ClientEviction.Update(Session);
                }
                // A QUIT earlier in the batch wins: Redis stops reading at it, so it never sees the error.
                bool protocolError = status == ParseStatus.Malformed && !Session.CloseAfterReply && !Session.Killed;
                if (protocolError)
                {
                    // Under CLIENT REPLY OFF/SKIP Redis drops this reply like any other.
                    if (Session.ReplyMode == ReplyMode.On)
                        new RespWriter(output, Session.Protocol).Error(RespErrors.Err(_parser.Error!));
                    _server.Stats.CountError("ERR");
                }
                if (protocolError || Session.CloseAfterReply || Session.Killed)
                {
                    if (!Session.Killed && output.UnflushedBytes == 0 && !_executor.FlushedMidBatch) await DiscardInputAsync(input);
                    break;
                }
                if (result.IsCompleted && status != ParseStatus.BatchFull) break;
                if (output.UnflushedBytes > FlushThreshold)
                {
                    _executor.FlushedMidBatch = true;
                    await _executor.WaitForAofAsync();
                    var flushed = await output.FlushAsync();
                    if (flushed.IsCompleted || flushed.IsCanceled) break;
                }
            }
        }
        finally
        {
            try
            {
                await _executor.WaitForAofAsync();
                await output.FlushAsync();
                if (Session.Draining && !Session.Killed) await DrainAsync(input);
            }
            catch (Exception) { }
            await output.CompleteAsync();
            await input.CompleteAsync();
        }
    }

    /// <summary>
    /// Redis closes a client that asked for it (QUIT, a protocol error) once its replies are written;
    /// when CLIENT REPLY OFF/SKIP left nothing to write since it last went idle, it never does, and it
    /// ignores everything the client sends from then on. We behave the same on the wire, but drop the
    /// input instead of keeping it.
    /// </summary>
    private async Task DiscardInputAsync(PipeReader input)
    {
        while (!Session.Killed)
        {
            var result = await input.ReadAsync();
            input.AdvanceTo(result.Buffer.End);
            if (result.IsCompleted || result.IsCanceled) return;
        }
    }

    /// <summary>
    /// The server stops: the replies are sent, so the sending side ends (FIN; over TLS close_notify
    /// first) and what the client still sends is read and dropped until it closes, or until the
    /// server's stop gives up on it (<see cref="ClientSession.Kill"/>). Closing a socket with unread
    /// input would reset the connection, and a reset drops replies the client has not received yet.
    /// Every transport that serves sockets passes its way to end the sending side; an in-memory
    /// connection has none and simply ends.
    /// </summary>
    private async Task DrainAsync(PipeReader input)
    {
        if (_finishSending == null) return;
        await _finishSending();
        // A client that keeps its connection and sends nothing (an idle pooled one) is not waited
        // for: once nothing has come for a while, nothing is unread and closing sends no reset.
        using var quiet = new Timer(static state => ((PipeReader)state!).CancelPendingRead(), input, Timeout.Infinite, Timeout.Infinite);
        long lastData = Environment.TickCount64;
        while (!Session.Killed)
        {
            quiet.Change(DrainQuietMs, Timeout.Infinite);
            var result = await input.ReadAsync();
            if (!result.Buffer.IsEmpty) lastData = Environment.TickCount64;
            input.AdvanceTo(result.Buffer.End);
            if (result.IsCompleted) return;
            if (result.IsCanceled && Environment.TickCount64 - lastData >= DrainQuietMs) return;
        }
    }

    /// <summary>How long a draining connection may receive nothing before it closes (see <see cref="DrainAsync"/>).</summary>
    private const int DrainQuietMs = 100;

    /// <summary>
    /// client-query-buffer-limit, checked on every read as Redis does: what the client holds in
    /// commands not yet run (input not yet parsed, a command still arriving, and its MULTI queue,
    /// counted as Redis 7.4 counts it: the queued arguments' bytes plus a pointer each) over the limit
    /// closes it, with nothing more written and a line in the log. Redis 7.2 checked the query buffer
    /// only, so a MULTI queue could grow without bound (its OOM check applied only under maxmemory).
    /// </summary>
    private bool OverQueryBufferLimit(long unparsed)
    {
        long held = unparsed + _commands.ArenaBytes + Session.MultiMemoryBytes;
        if (held <= _server.Config.QueryBufferLimit) return false;
        _server.Log.Warning($"Closing client that reached max query buffer length: id={Session.Id} addr={Session.Address} " +
                            $"laddr={Session.LocalAddress} name={Session.Name} multi={(Session.InMulti ? Session.QueuedDefs?.Count ?? 0 : -1)} " +
                            $"qbuf={unparsed + _commands.ArenaBytes} multi-mem={Session.MultiMemoryBytes}");
        if (Session.KillForLimit()) Interlocked.Increment(ref _server.Stats.QueryBufferLimitDisconnections);
        return true;
    }

    private ParseStatus Parse(in ReadOnlySequence<byte> buffer, out SequencePosition consumed)
    {
        var reader = new SequenceReader<byte>(buffer);
        _parser.Unauthenticated = !Session.Authenticated && _server.Acl.AuthRequired;
        var status = _parser.Parse(ref reader, _commands);
        consumed = reader.Position;
        return status;
    }

}
