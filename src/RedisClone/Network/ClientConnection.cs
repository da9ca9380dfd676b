using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using System.Numerics;
using System.Runtime.CompilerServices;
using RedisClone.Commands;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Network;

/// <summary>
/// One client: a socket between two pipes, and the read loop that parses every complete command in
/// the input, runs them (see the threading essay in Sharding/ShardSet.cs), writes the replies in
/// order, and flushes only when the input is drained.
/// </summary>
/// <remarks>
/// Backpressure: while the client does not read its replies the output's flush stays pending (the
/// socket's buffer is full, or the output pipe is past its threshold), so this loop stops reading;
/// the input pipe in turn pauses the receiving side, and TCP pushes back on the client. Memory per
/// client stays bounded by the input threshold plus the replies of one batch.
/// </remarks>
internal sealed partial class ClientConnection : PubSub.ISubscriber
{
    private const int FlushThreshold = 64 * 1024;
    private const int GateSpins = 20;

    private readonly RedisServer _server;
    private readonly PipeReader _inputReader;
    private readonly PipeWriter _outputWriter;
    private readonly RespParser _parser = new();
    private readonly CommandBuffer _commands = new();
    private readonly ShardBatchWork?[] _work;

    // Per command of the current batch.
    private CommandDef?[] _defs = new CommandDef?[64];
    private int[] _shardOf = new int[64];
    private int[] _replyStart = new int[64];
    private int[] _replyEnd = new int[64];
    private long _nowMs;
    private int _sampleCounter;
    private readonly CancellationToken _closed;

    // True when replies were flushed mid-read (past the threshold) since the loop last went idle:
    // Redis would have them queued, which is what decides whether it closes (see DiscardInputAsync).
    private bool _flushedSinceIdle;

    // The error of the command Classify just rejected: replied in order, after earlier commands.
    private CommandDef? _rejectedDef;
    private string? _rejectedError;

    /// <summary>A connection over any duplex pipe (a socket's, or an in-memory one in benchmarks).</summary>
    public ClientConnection(RedisServer server, IDuplexPipe transport, EndPoint? remote, EndPoint? local, Action close,
        CancellationToken closed = default)
    {
        _closed = closed;
        _server = server;
        _inputReader = transport.Input;
        _outputWriter = transport.Output;
        _work = new ShardBatchWork?[server.Shards.Count];
        Session = new ClientSession(server.NextClientId(), remote, local, close);
        Session.Subscriber = this;
        _parser.MaxBulkLength = server.Config.ProtoMaxBulkLen;
    }

    public ClientSession Session { get; }

    internal SegmentSignal Signal { get; } = new();

    /// <summary>Serves a TCP client until it disconnects or is killed.</summary>
    public static Task ServeAsync(RedisServer server, Socket socket)
    {
        if (server.EventLoops is { } loops) return ServeOnLoopAsync(server, socket, loops.Next());
        return ServeOnSocketAsync(server, socket);
    }

    /// <summary>Linux: the socket is driven by one of the server's epoll event loops.</summary>
    private static async Task ServeOnLoopAsync(RedisServer server, Socket socket, Epoll.EventLoop loop)
    {
        var transport = new Epoll.EpollTransport(socket, loop, server.Stats);
        var connection = new ClientConnection(server, transport, socket.RemoteEndPoint, socket.LocalEndPoint, transport.Close,
            transport.Closed);
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
            transport.Release();
            connection.EndSession();
        }
    }

    /// <summary>Elsewhere: .NET's asynchronous socket operations between two pipes.</summary>
    private static async Task ServeOnSocketAsync(RedisServer server, Socket socket)
    {
        var transport = new SocketTransport(socket, server.Stats);
        var connection = new ClientConnection(server, transport, socket.RemoteEndPoint, socket.LocalEndPoint, transport.Close,
            transport.Closed);
        server.Clients[connection.Session.Id] = connection.Session;
        try
        {
            var io = transport.RunAsync();
            await connection.ProcessLoopAsync();
            await io;
        }
        catch (Exception)
        {
            transport.Close();
        }
        finally
        {
            connection.EndSession();
            socket.Dispose();
        }
    }

    /// <summary>Drops what the client held on the server: watches, subscriptions, its CLIENT LIST entry.</summary>
    private void EndSession()
    {
        TransactionCommands.UnwatchAll(_server, Session, gatesHeld: false);
        PubSubCommands.UnsubscribeEverything(_server.PubSub, Session);
        _server.Clients.TryRemove(Session.Id, out _);
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
                if (!_pushes.IsEmpty) DrainPushes();
                if (!input.TryRead(out var result))
                {
                    if (output.UnflushedBytes > 0)
                    {
                        var flushed = await output.FlushAsync();
                        if (flushed.IsCompleted || flushed.IsCanceled) break;
                    }
                    _flushedSinceIdle = false;
                    result = await input.ReadAsync();
                }
                // A canceled read is a wake-up for queued pub/sub messages (see Push); it may carry data too.
                if (Session.Killed) break;

                var buffer = result.Buffer;
                var status = Parse(buffer, out var consumed);
                if (status == ParseStatus.BatchFull) input.AdvanceTo(consumed);
                else input.AdvanceTo(consumed, buffer.End);

                if (_commands.Count > 0)
                {
                    _nowMs = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
                    Session.LastInteractionMs = _nowMs;
                    await ExecuteBatchAsync();
                    _commands.Clear();
                }
                // A QUIT earlier in the batch wins: Redis stops reading at it, so it never sees the error.
                bool protocolError = status == ParseStatus.Malformed && !Session.CloseAfterReply && !Session.Killed;
                if (protocolError)
                {
                    // Under CLIENT REPLY OFF/SKIP Redis drops this reply like any other.
                    if (Session.ReplyMode == ReplyMode.On)
                        new RespWriter(output, Session.Protocol).Error("ERR " + _parser.Error);
                    _server.Stats.CountError("ERR");
                }
                if (protocolError || Session.CloseAfterReply || Session.Killed)
                {
                    if (!Session.Killed && output.UnflushedBytes == 0 && !_flushedSinceIdle) await DiscardInputAsync(input);
                    break;
                }
                if (result.IsCompleted && status != ParseStatus.BatchFull) break;
                if (output.UnflushedBytes > FlushThreshold)
                {
                    _flushedSinceIdle = true;
                    var flushed = await output.FlushAsync();
                    if (flushed.IsCompleted || flushed.IsCanceled) break;
                }
            }
        }
        finally
        {
            try { await output.FlushAsync(); } catch (Exception) { }
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

    private ParseStatus Parse(in ReadOnlySequence<byte> buffer, out SequencePosition consumed)
    {
        var reader = new SequenceReader<byte>(buffer);
        var status = _parser.Parse(ref reader, _commands);
        consumed = reader.Position;
        return status;
    }

    private enum Kind { Segment, Direct, Locked, Rejected, Queue, Exec }

    /// <summary>Runs the parsed batch: segments of single-shard commands, and the rest one by one.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask ExecuteBatchAsync()
    {
        int n = _commands.Count;
        EnsureCapacity(n);
        var output = _outputWriter;
        int segStart = 0, segCount = 0;
        ulong segMask = 0;
        for (int i = 0; i < n; i++)
        {
            var kind = Classify(i, out ulong mask);
            if (kind == Kind.Segment)
            {
                if (segCount == 0) segStart = i;
                segCount++;
                segMask |= mask;
                continue;
            }
            if (segCount > 0)
            {
                await RunSegmentAsync(segStart, segCount, segMask);
                segCount = 0;
                segMask = 0;
            }
            if (kind == Kind.Direct) RunDirect(i);
            else if (kind == Kind.Queue) QueueCommand(i);
            else if (kind == Kind.Exec) ExecTransaction(i);
            else if (kind == Kind.Rejected) Reject(_rejectedDef, _rejectedError!);
            else if (kind == Kind.Locked)
            {
                _server.Shards.EnterAll(mask);
                try { RunDirect(i); }
                finally { _server.Shards.ExitAll(mask); }
                if (Session.Blocked != null && !await WaitWhileBlockedAsync(i, mask)) return;
            }
            if (Session.CloseAfterReply || Session.Killed) return;
            if (output.UnflushedBytes > FlushThreshold)
            {
                _flushedSinceIdle = true;
                var flushed = await output.FlushAsync();
                if (flushed.IsCompleted || flushed.IsCanceled) return;
            }
        }
        if (segCount > 0) await RunSegmentAsync(segStart, segCount, segMask);
    }

    /// <summary>
    /// Looks the command up and checks it as Redis's processCommand does (unknown command, unknown
    /// subcommand, arity), keeping the error of a rejected one for <see cref="ExecuteBatchAsync"/> to
    /// reply once the commands before it have replied; then decides how it runs.
    /// </summary>
    private Kind Classify(int i, out ulong mask)
    {
        mask = 0;
        int argc = _commands.ArgCount(i);
        var name = _commands.Arg(i, 0);
        var def = _server.Commands.Find(name);
        _defs[i] = null;
        if (def == null)
        {
            return RejectUnknown(i, argc);
        }
        if (def.Subcommands != null && argc >= 2)
        {
            var sub = def.FindSubcommand(_commands.Arg(i, 1));
            if (sub == null)
            {
                return Rejected(def, RespErrors.UnknownSubcommand(UpToNul(_commands.Arg(i, 1)), def.Name));
            }
            def = sub;
        }
        if (!def.ArityOk(argc))
        {
            return Rejected(def, RespErrors.WrongArity(def.FullName));
        }
        _defs[i] = def;
        Session.LastCommand = def.FullName;
        if (Session.Protocol == 2 && Session.InPubSubMode && Array.IndexOf(AllowedWhileSubscribed, def) < 0)
            return Rejected(def, $"ERR Can't execute '{def.FullName}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context");
        if ((Session.InMulti || def == ExecDef) && ClassifyInTransaction(def) is { } txKind) return txKind;

        switch (def.Routing)
        {
            case Routing.Connection:
                return Kind.Direct;
            case Routing.AllShards:
                mask = _server.Shards.AllMask;
                return Kind.Locked;
        }

        mask = KeyMask(_commands, i, def);
        if (mask == 0) return Kind.Direct;
        if ((def.Flags & CommandFlags.Blocking) != 0) return Kind.Locked; // may park the connection: never in a segment
        if (BitOperations.PopCount(mask) == 1 && Session.ReplyMode == ReplyMode.On)
        {
            _shardOf[i] = BitOperations.TrailingZeroCount(mask);
            return Kind.Segment;
        }
        return Kind.Locked;
    }

    /// <summary>The shards the keys of command <paramref name="i"/> of <paramref name="buffer"/> map to.</summary>
    [SkipLocalsInit]
    private ulong KeyMask(CommandBuffer buffer, int i, CommandDef def)
    {
        var shards = _server.Shards;
        if (def.Routing == Routing.AllShards) return shards.AllMask;
        if (def.Routing == Routing.Connection) return 0;
        if (shards.Count == 1) return 1;
        ulong mask = 0;
        if (def.Keys == null)
        {
            // Fixed positions (nearly every command): no position list needed.
            int argc = buffer.ArgCount(i);
            int last = def.LastKey < 0 ? argc + def.LastKey : Math.Min(def.LastKey, argc - 1);
            for (int k = def.FirstKey; k > 0 && k <= last; k += def.Step)
                mask |= 1UL << shards.ShardOf(buffer.Arg(i, k));
            return mask;
        }
        Span<int> positions = stackalloc int[256];
        int count = KeyPositions(buffer, i, def, positions);
        if (count > positions.Length) return shards.AllMask; // more keys than we index: take every gate
        for (int k = 0; k < count; k++) mask |= 1UL << shards.ShardOf(buffer.Arg(i, positions[k]));
        return mask;
    }

    /// <summary>Argument indexes of the command's keys; a count above the span's length means "more than fit".</summary>
    private int KeyPositions(CommandBuffer buffer, int i, CommandDef def, Span<int> positions)
    {
        if (def.Keys != null)
        {
            var ctx = new CommandContext(buffer, i, new RespWriter(NullBufferWriter.Instance, Session.Protocol), Session, _server, _nowMs);
            return def.Keys(ref ctx, positions);
        }
        int argc = buffer.ArgCount(i);
        int last = def.LastKey < 0 ? argc + def.LastKey : Math.Min(def.LastKey, argc - 1);
        int n = 0;
        for (int k = def.FirstKey; k > 0 && k <= last; k += def.Step)
        {
            if (n < positions.Length) positions[n] = k;
            n++;
        }
        return n;
    }

    // Kept out of Classify: a lambda capturing the command index there would allocate a closure on
    // every call, not only for unknown commands.
    private Kind RejectUnknown(int i, int argc)
        => Rejected(null, RespErrors.UnknownCommand(UpToNul(_commands.Arg(i, 0)), a => RespErrors.Latin(UpToNul(_commands.Arg(i, a))), argc));

    /// <summary>Redis prints user arguments into these errors with %s, which stops at a NUL byte.</summary>
    private static ReadOnlySpan<byte> UpToNul(ReadOnlySpan<byte> text)
    {
        int nul = text.IndexOf((byte)0);
        return nul < 0 ? text : text.Slice(0, nul);
    }

    private Kind Rejected(CommandDef? def, string error)
    {
        _rejectedDef = def;
        _rejectedError = error;
        return Kind.Rejected;
    }

    private void Reject(CommandDef? def, string error)
    {
        if (Session.InMulti) Session.MultiDirty = true;
        if (def != null) _server.CommandStats.Rejected(def.Id);
        _server.Stats.CountError("ERR");
        if (Session.ReplyMode == ReplyMode.On) new RespWriter(_outputWriter, Session.Protocol).Error(error);
        if (Session.ReplyMode == ReplyMode.Skip) Session.ReplyMode = ReplyMode.On;
    }


    /// <summary>Runs command <paramref name="i"/> on this thread, replying into the output (or nowhere, per CLIENT REPLY).</summary>
    private void RunDirect(int i)
    {
        var mode = Session.ReplyMode;
        // CLIENT REPLY and RESET turn replies back on before answering, so Redis sends their +OK/+RESET
        // even in OFF/SKIP mode; they write nothing themselves when they leave replies off.
        IBufferWriter<byte> sink = mode == ReplyMode.On || _defs[i]!.Handler == ConnectionCommands.ClientReply ||
                                   _defs[i]!.Handler == ConnectionCommands.Reset
            ? _outputWriter : NullBufferWriter.Instance;
        Run(_commands, i, _defs[i]!, sink);
        // SKIP drops the reply of the command after CLIENT REPLY SKIP, not its own (there is none).
        if (Session.ReplyMode == ReplyMode.SkipNext) Session.ReplyMode = ReplyMode.Skip;
        else if (mode == ReplyMode.Skip && Session.ReplyMode == ReplyMode.Skip) Session.ReplyMode = ReplyMode.On;
    }

    /// <summary>Called by <see cref="ShardBatchWork"/> on a shard thread.</summary>
    internal void RunOnShard(int i, ReplyBuffer replies)
    {
        _replyStart[i] = replies.Written;
        Run(_commands, i, _defs[i]!, replies, _shardOf[i]);
        _replyEnd[i] = replies.Written;
    }

    /// <summary>Runs one command and counts it; one in <see cref="CommandStats.SampleEvery"/> is timed.</summary>
    private void Run(CommandBuffer buffer, int i, CommandDef def, IBufferWriter<byte> sink, int shard = -1)
    {
        // Shard threads run commands of one connection concurrently: the counter is only a
        // sampling pattern, so a lost increment does not matter.
        bool timed = (++_sampleCounter & (CommandStats.SampleEvery - 1)) == 0;
        long start = timed ? Stopwatch.GetTimestamp() : 0;
        var ctx = new CommandContext(buffer, i, new RespWriter(sink, Session.Protocol), Session, _server, _nowMs, shard);
        try
        {
            def.Handler(ref ctx);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            ctx.Error("ERR " + ex.Message);
        }
        _server.CommandStats.Record(def.Id, timed ? Stopwatch.GetTimestamp() - start : -1, ctx.Failed);
        if ((def.Flags & CommandFlags.Write) != 0 && !ctx.Failed && !ctx.Unchanged
            && (Volatile.Read(ref _server.WatchedKeyCount) > 0 || Volatile.Read(ref _server.BlockedClientCount) > 0))
            SignalWatchers(buffer, i, def, ctx.DbIndex);
    }

    /// <summary>
    /// Runs commands [start, start+count), each bound to one shard. Without contention the connection
    /// takes the shards' gates and runs them itself; otherwise one work item per shard is posted and
    /// the replies are copied back in command order.
    /// </summary>
    private ValueTask RunSegmentAsync(int start, int count, ulong mask)
    {
        var shards = _server.Shards;
        // Gates are held for a segment at a time (microseconds) and never across a wait, so a short
        // spin usually wins them; posting costs two thread wake-ups (the shard's and ours).
        bool entered = shards.TryEnterAll(mask);
        for (int spin = 0; !entered && spin < GateSpins; spin++)
        {
            Thread.SpinWait(30);
            entered = shards.TryEnterAll(mask);
        }
        if (entered)
        {
            try
            {
                for (int i = start; i < start + count; i++) Run(_commands, i, _defs[i]!, _outputWriter, _shardOf[i]);
            }
            finally
            {
                shards.ExitAll(mask);
            }
            return ValueTask.CompletedTask;
        }
        return PostSegmentAsync(start, count, mask);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask PostSegmentAsync(int start, int count, ulong mask)
    {
        var shards = _server.Shards;
        for (ulong m = mask; m != 0; m &= m - 1)
        {
            int s = BitOperations.TrailingZeroCount(m);
            (_work[s] ??= new ShardBatchWork(this)).Begin();
        }
        for (int i = start; i < start + count; i++) _work[_shardOf[i]]!.Add(i);

        var done = Signal.Arm(BitOperations.PopCount(mask));
        for (ulong m = mask; m != 0; m &= m - 1)
        {
            int s = BitOperations.TrailingZeroCount(m);
            shards[s].Post(_work[s]!);
        }
        await done;

        var writer = new RespWriter(_outputWriter, Session.Protocol);
        for (int i = start; i < start + count; i++)
            writer.Raw(_work[_shardOf[i]]!.Replies.Slice(_replyStart[i], _replyEnd[i]));
    }

    private void EnsureCapacity(int n)
    {
        if (_defs.Length >= n) return;
        int size = (int)BitOperations.RoundUpToPowerOf2((uint)n);
        _defs = new CommandDef?[size];
        _shardOf = new int[size];
        _replyStart = new int[size];
        _replyEnd = new int[size];
    }
}
