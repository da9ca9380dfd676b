using System.Buffers;
using RedisClone.Commands;
using RedisClone.Protocol;

namespace RedisClone.Network;

/// <summary>
/// MULTI/EXEC in the dispatcher. Between MULTI and EXEC, commands are checked as usual (unknown
/// command, arity: an error flags the transaction, and EXEC answers EXECABORT) and copied out of
/// the batch arena into the session's queue. EXEC takes the gates of every shard its queued
/// commands and watched keys map to, in ascending order like any multi-shard command (see the
/// essay in Sharding/ShardSet.cs), checks WATCH, runs the queue and releases them: no other client
/// observes a state between two queued commands. A transaction on one shard takes one gate.
/// </summary>
internal sealed partial class ClientConnection
{
    private static readonly CommandDef ExecDef = Find("exec");
    private static readonly CommandDef[] Control =
        [Find("exec"), Find("discard"), Find("multi"), Find("watch"), Find("quit"), Find("reset")];

    private static CommandDef Find(string name)
        => CommandTable.Instance.Find(System.Text.Encoding.ASCII.GetBytes(name))
           ?? throw new InvalidOperationException($"no '{name}' row in the command table");

    /// <summary>How a command runs while a transaction is open (null: as usual).</summary>
    private Kind? ClassifyInTransaction(CommandDef def)
    {
        if (def == ExecDef) return Kind.Exec;
        if (!Session.InMulti || Array.IndexOf(Control, def) >= 0) return null;
        if ((def.Flags & CommandFlags.NoMulti) != 0)
            return Rejected(def, "ERR Command not allowed inside a transaction");
        return Kind.Queue;
    }

    /// <summary>Copies command <paramref name="i"/> into the transaction's queue and replies +QUEUED.</summary>
    private void QueueCommand(int i)
    {
        var queue = Session.Queued!;
        queue.BeginCommand();
        int argc = _commands.ArgCount(i);
        for (int a = 0; a < argc; a++)
        {
            var arg = _commands.Arg(i, a);
            arg.CopyTo(queue.AddArg(arg.Length));
        }
        queue.EndCommand();
        Session.QueuedDefs!.Add(_defs[i]!);
        var mode = Session.ReplyMode;
        if (mode == ReplyMode.On) _outputWriter.Write(Resp.Queued);
        else if (mode == ReplyMode.Skip) Session.ReplyMode = ReplyMode.On;
    }

    /// <summary>EXEC: EXECABORT, nil (a watched key changed), or every queued command's reply.</summary>
    private void ExecTransaction(int i)
    {
        var session = Session;
        if (!session.InMulti)
        {
            RunDirect(i); // "EXEC without MULTI"
            return;
        }
        var mode = session.ReplyMode;
        IBufferWriter<byte> sink = mode == ReplyMode.On ? _outputWriter : NullBufferWriter.Instance;
        if (mode == ReplyMode.Skip) session.ReplyMode = ReplyMode.On;
        var reply = new RespWriter(sink, session.Protocol);

        if (session.MultiDirty)
        {
            reply.Error("EXECABORT Transaction discarded because of previous errors.");
            _server.Stats.CountError("EXECABORT");
            _server.CommandStats.Record(ExecDef.Id, -1, failed: true);
            session.EndMulti();
            TransactionCommands.UnwatchAll(_server, session, gatesHeld: false);
            return;
        }

        var queue = session.Queued!;
        var defs = session.QueuedDefs!;
        ulong mask = TransactionCommands.WatchMask(session);
        for (int j = 0; j < defs.Count; j++) mask |= KeyMask(queue, j, defs[j]);

        var shards = _server.Shards;
        shards.EnterAll(mask);
        try
        {
            if (TransactionCommands.WatchBroken(_server, session, _nowMs))
            {
                reply.NullArray();
            }
            else
            {
                reply.ArrayHeader(defs.Count);
                session.InExec = true;
                try
                {
                    for (int j = 0; j < defs.Count; j++) Run(queue, j, defs[j], sink);
                }
                finally
                {
                    session.InExec = false;
                }
            }
            TransactionCommands.UnwatchAll(_server, session, gatesHeld: true);
        }
        finally
        {
            shards.ExitAll(mask);
        }
        session.EndMulti();
        _server.CommandStats.Record(ExecDef.Id, -1, failed: false);
    }

    /// <summary>After a write: tells the watchers of the command's keys (Redis's signalModifiedKey).</summary>
    [System.Runtime.CompilerServices.SkipLocalsInit]
    /// <remarks>
    /// Keys the command only reads (its key specs say RO, e.g. SINTERSTORE's sources, SORT's input
    /// with STORE) are left alone, as Redis signals only the keys it modifies. Runs only while some
    /// client watches something, so the argument copy it needs is no hot-path cost.
    /// </remarks>
    private void SignalWatchers(CommandBuffer buffer, int i, CommandDef def, int db)
    {
        int argc = buffer.ArgCount(i);
        var args = new byte[argc][];
        for (int a = 0; a < argc; a++) args[a] = buffer.Arg(i, a).ToArray();
        var keys = new List<(int Position, KeySpecFlags Flags)>();
        if (!CommandMetadata.TryGetKeysFromSpecs(def, args, keys))
        {
            keys.Clear();
            Span<int> positions = stackalloc int[256];
            int n = Math.Min(KeyPositions(buffer, i, def, positions), positions.Length);
            for (int k = 0; k < n; k++) keys.Add((positions[k], KeySpecFlags.RW));
        }
        var shards = _server.Shards;
        foreach (var (position, flags) in keys)
        {
            if ((flags & KeySpecFlags.RO) != 0) continue;
            var key = args[position];
            var database = shards[shards.ShardOf(key)].Store[db];
            if (database.HasWatchers) database.SignalModified(key);
            if (database.HasBlocked) database.WakeBlocked(key);
        }
    }
}
