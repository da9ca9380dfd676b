using System.Runtime.CompilerServices;
using RedisClone.Protocol;
using RedisClone.Server;
using RedisClone.Storage;

using Ev = RedisClone.Server.Config.ConfigRegistry.KeyspaceEvents;

namespace RedisClone.Commands;

/// <summary>
/// What a handler sees: its arguments (slices of the batch arena), the reply writer, the client and
/// the server. Built on the stack per command; handlers take it by ref.
/// </summary>
internal ref struct CommandContext
{
    private readonly CommandBuffer _buffer;
    private readonly int _command;

    // The one shard all of this command's keys map to, when the dispatcher knows it: saves hashing
    // each key again (CRC16) to find its database. -1 when the keys span shards or are not known.
    private readonly int _shard;

    // 1 in a view made by WithoutArgument1: argument 1 is hidden and the rest move down by one.
    private readonly int _skip;

    public CommandContext(CommandBuffer buffer, int command, RespWriter reply, ClientSession client,
        RedisServer server, long nowMs, int shard = -1, int skip = 0)
    {
        _shard = shard;
        _skip = skip;
        _buffer = buffer;
        _command = command;
        ArgCount = buffer.ArgCount(command) - skip;
        Reply = reply;
        Client = client;
        Server = server;
        DbIndex = client.Db;
        NowMs = nowMs;
    }

    public readonly int ArgCount;
    public readonly RespWriter Reply;
    public readonly ClientSession Client;
    public readonly RedisServer Server;
    /// <summary>The database selected when the command was dispatched.</summary>
    public readonly int DbIndex;
    /// <summary>Unix time in ms, read once per command (Redis caches it per command too).</summary>
    public readonly long NowMs;

    /// <summary>
    /// Redis's checkAlreadyExpired: an expiry time already past (EXPIRE, SET PXAT, GETEX, RESTORE)
    /// deletes the key at once on a master, but not on a replica. There the master's stream says
    /// what happens to it (its DEL, or a PERSIST after a SET PXAT that arrived late): the key is
    /// stored with its past time, and reads hide it meanwhile.
    /// </summary>
    public readonly bool AlreadyExpired(long when) => when <= NowMs && !Server.Replication.IsReplica;

    /// <summary>Set when the handler replied with an error (commandstats' failed_calls).</summary>
    public bool Failed;

    /// <summary>
    /// Set by a write command that left its keys as they were (a SETNX on an existing key): the
    /// dispatcher then does not break WATCHes on them, as Redis only signals real modifications.
    /// </summary>
    public bool Unchanged;

    /// <summary>
    /// Set by a write that changed only some of its keys and told their WATCHers itself (LMPOP pops
    /// from one of the keys it names): the dispatcher then signals none, yet the write propagates.
    /// </summary>
    public bool SignalledItself;

    /// <summary>
    /// The propagation log of the running unit, or null when nobody listens (no AOF, no replica,
    /// no test listener): a handler that rewrites what it propagates builds the rewrite only then.
    /// </summary>
    public readonly PropagationLog? Propagation => PropagationLog.Current;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public readonly ReadOnlySpan<byte> Arg(int index) => _buffer.Arg(_command, index == 0 ? 0 : index + _skip);

    /// <summary>
    /// The same command seen without argument 1, replying into <paramref name="sink"/>: BLMPOP
    /// timeout numkeys ... runs LMPOP's handler on "BLMPOP numkeys ...".
    /// </summary>
    public readonly CommandContext WithoutArgument1(System.Buffers.IBufferWriter<byte> sink)
        => new(_buffer, _command, new RespWriter(sink, Reply.Protocol), Client, Server, NowMs, _shard, _skip + 1);

    /// <summary>The buffer and index of the command as received (FUNCTION STATS shows a running FCALL's).</summary>
    public readonly (CommandBuffer Buffer, int Index) Command => (_buffer, _command);

    /// <summary>True when argument <paramref name="index"/> equals <paramref name="upper"/> ignoring ASCII case.</summary>
    public readonly bool ArgIs(int index, string upper) => System.Text.Ascii.EqualsIgnoreCase(Arg(index), upper);

    public readonly string ArgString(int index) => RespErrors.Latin(Arg(index));

    /// <summary>The database that holds <paramref name="key"/> in the selected database number.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public readonly Database Db(ReadOnlySpan<byte> key)
        => Server.Shards[_shard >= 0 ? _shard : Server.Shards.ShardOf(key)].Store[DbIndex];

    /// <summary>Database number <paramref name="db"/> on the shard that holds <paramref name="key"/>.</summary>
    public readonly Database Db(ReadOnlySpan<byte> key, int db)
        => Server.Shards[_shard >= 0 ? _shard : Server.Shards.ShardOf(key)].Store[db];

    /// <summary>Replies with a preformatted error line (from <see cref="RespErrors"/>).</summary>
    public void Error(ReadOnlySpan<byte> line)
    {
        Failed = true;
        Server.Stats.CountErrorReply(line);
        Reply.Raw(line);
        if (Client.IsMaster) Server.Replica.ErrorToMaster(System.Text.Encoding.Latin1.GetString(line), CommandName());
    }

    /// <summary>Replies "-<paramref name="text"/>"; the text starts with its code (ERR, WRONGTYPE...).</summary>
    public void Error(string text)
    {
        Failed = true;
        Span<byte> head = stackalloc byte[Math.Min(text.Length, 32)];
        for (int i = 0; i < head.Length; i++) head[i] = (byte)text[i];
        Server.Stats.CountErrorReply(head);
        Reply.Error(text);
        if (Client.IsMaster) Server.Replica.ErrorToMaster(text, CommandName());
    }

    public void WrongType() => Error(RespErrors.WrongType);

    /// <summary>The command's name as Redis logs it (lower case; container|subcommand).</summary>
    private readonly string CommandName()
    {
        var def = Server.Commands.Find(Arg(0));
        if (def == null) return "<unknown>";
        if (def.Subcommands != null && _buffer.ArgCount(_command) > 1 && def.FindSubcommand(_buffer.Arg(_command, 1)) is { } sub) return sub.FullName;
        return def.FullName;
    }

    /// <summary>
    /// A keyspace notification for <paramref name="key"/> in the selected database, published when
    /// notify-keyspace-events enables <paramref name="type"/> (a ConfigRegistry.KeyspaceEvents bit).
    /// </summary>
    public readonly void Notify(int type, string evt, ReadOnlySpan<byte> key)
    {
        if ((Server.Config.NotifyKeyspaceEvents & type) != 0) PubSub.KeyspaceNotifier.Notify(Server, type, evt, key, DbIndex);
    }

    /// <summary>
    /// Whether Redis 8.2's "overwritten" or "type_changed" class is on: asked before a write replaces
    /// an existing key's value, while the old value (whose type type_changed needs) is still there.
    /// One flags test, so the hot path pays nothing more.
    /// </summary>
    public readonly bool OverwriteEventsOn
        => (Server.Config.NotifyKeyspaceEvents & (Ev.Overwritten | Ev.TypeChanged)) != 0;

    /// <summary>
    /// Redis 8.2's events for a key that held a value and got a new one (setKey, RESTORE REPLACE,
    /// RENAME and COPY onto it): "overwritten", then "type_changed" when the types differ, in
    /// database <paramref name="db"/> (the selected one when -1).
    /// </summary>
    public readonly void NotifyOverwritten(ReadOnlySpan<byte> key, string oldType, string newType, int db = -1)
    {
        int flags = Server.Config.NotifyKeyspaceEvents;
        int index = db < 0 ? DbIndex : db;
        if ((flags & Ev.Overwritten) != 0)
            PubSub.KeyspaceNotifier.Notify(Server, Ev.Overwritten, "overwritten", key, index);
        if ((flags & Ev.TypeChanged) != 0 && oldType != newType)
            PubSub.KeyspaceNotifier.Notify(Server, Ev.TypeChanged, "type_changed", key, index);
    }

    /// <summary>
    /// Redis's setKey: <paramref name="value"/> becomes the value of <paramref name="key"/> (its TTL
    /// cleared), with <see cref="NotifyOverwritten"/>'s events when the key existed, before the
    /// command sends its own. Returns the key's slot.
    /// </summary>
    public readonly int SetKey(Database db, ReadOnlySpan<byte> key, object value)
    {
        string? oldType = null;
        if (OverwriteEventsOn)
        {
            int old = db.FindLive(key, NowMs);
            if (old >= 0) oldType = ValueTypes.TypeName(db.Table.At(old).Value);
        }
        int slot = db.Set(key, value, 0, NowMs);
        if (oldType != null) NotifyOverwritten(key, oldType, ValueTypes.TypeName(value), db.Index);
        return slot;
    }

    public void Syntax() => Error(RespErrors.Syntax);
}
