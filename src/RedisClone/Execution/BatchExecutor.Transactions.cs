using System.Buffers;
using RedisClone.Commands;
using RedisClone.Protocol;

namespace RedisClone.Execution;

/// <summary>
/// MULTI/EXEC. Between MULTI and EXEC, commands are checked as usual (unknown command, arity: an
/// error flags the transaction, and EXEC answers EXECABORT) and copied out of the batch arena into
/// the session's queue. EXEC takes the gates of every shard its queued commands and watched keys map
/// to, like any multi-shard command (see the essay in Sharding/ShardSet.cs), checks WATCH, runs the
/// queue and releases them: no other client observes a state between two queued commands. A
/// transaction on one shard takes one gate.
/// </summary>
internal sealed partial class BatchExecutor
{
    private static readonly CommandDef ExecDef = CommandChecks.Find("exec");
    private static readonly CommandDef[] Control =
        [CommandChecks.Find("exec"), CommandChecks.Find("discard"), CommandChecks.Find("multi"),
         CommandChecks.Find("watch"), CommandChecks.Find("quit"), CommandChecks.Find("reset")];

    /// <summary>Commands that forget the client's WATCHes, so they need the watched keys' gates.</summary>
    private static bool DropsWatches(CommandDef def) => def == DiscardDef || def == UnwatchDef || def == ResetDef;

    // By row, not by handler delegate (see CommandRunner: a delegate comparison may call into the runtime).
    private static readonly CommandDef DiscardDef = CommandChecks.Find("discard"), UnwatchDef = CommandChecks.Find("unwatch"),
        ResetDef = CommandChecks.Find("reset");

    /// <summary>How a command runs while a transaction is open (null: as usual).</summary>
    private Kind? ClassifyInTransaction(CommandDef def)
    {
        if (def == ExecDef) return Kind.Exec;
        if (!Session.InMulti || Array.IndexOf(Control, def) >= 0) return null;
        if ((def.Flags & CommandFlags.NoMulti) != 0)
        {
            _rejectedDef = def;
            _rejectedError = RespErrors.NotAllowedInMulti;
            return Kind.Rejected;
        }
        return Kind.Queue;
    }

    /// <summary>
    /// Copies command <paramref name="i"/> into the transaction's queue and replies +QUEUED. As in
    /// Redis, a transaction already bound to fail (EXECABORT, or a watched key changed) stores nothing
    /// more: no sense holding memory for commands that will never run.
    /// </summary>
    private void QueueCommand(int i, IBufferWriter<byte> output)
    {
        // Redis's processCommand keeps the tracking table in bounds before queueing too.
        if (_server.Tracking.Active) _server.Tracking.BeforeCommand(Session, output);
        if (!Session.MultiDirty && !Session.WatchDirty)
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
        }
        var mode = Session.ReplyMode;
        if (mode == ReplyMode.On) output.Write(Resp.Queued);
        else if (mode == ReplyMode.Skip) Session.ReplyMode = ReplyMode.On;
    }

    /// <summary>
    /// A command for the queue in a slot being migrated or imported, with its keys' gates held: as
    /// Redis's processCommand, keys gone from a migrating slot answer -ASK (some of them -TRYAGAIN)
    /// and flag the transaction, so EXEC answers EXECABORT; otherwise it is queued.
    /// </summary>
    private void QueueCheckedLocked(int i, IBufferWriter<byte> target)
    {
        var session = Session;
        var def = _defs[i]!;
        session.ClusterRecheck = false;
        if (ClusterRouting.Recheck(_server, session, _commands, i, def, _nowMs, session.ClusterRecheckAsking) is not { } error)
        {
            QueueCommand(i, target);
            return;
        }
        session.MultiDirty = true;
        _server.CommandStats.Rejected(def.Id);
        _server.Stats.CountError(error[..error.IndexOf(' ')]);
        if (session.ReplyMode == ReplyMode.On) new RespWriter(target, session.Protocol).Error(error);
        else if (session.ReplyMode == ReplyMode.Skip) session.ReplyMode = ReplyMode.On;
    }

    /// <summary>EXEC: EXECABORT, nil (a watched key changed), or every queued command's reply.</summary>
    private ValueTask ExecTransactionAsync(int i)
    {
        var session = Session;
        if (!session.InMulti)
        {
            RunDirect(i); // "EXEC without MULTI"
            return ValueTask.CompletedTask;
        }
        ulong mask = TransactionCommands.WatchMask(session);
        bool script = false;
        if (!session.MultiDirty)
        {
            var queue = session.Queued!;
            var defs = session.QueuedDefs!;
            for (int j = 0; j < defs.Count; j++)
            {
                mask |= KeyRouting.ShardMask(_server, session, queue, j, defs[j], _nowMs);
                // MIGRATE inside EXEC waits on the network with the gates held: never on an event loop.
                script |= defs[j].Routing == Routing.Script || defs[j] == MigrateDef;
            }
        }
        // A transaction with a script (or a MIGRATE) in it runs on a shard thread, as the script alone would.
        return script ? PostLockedAsync(mask, LockedAction.Exec, i) : RunLockedAsync(mask, LockedAction.Exec, i);
    }

    /// <summary>
    /// ClusterRouting's second step for EXEC, with the gates of every queued key held: -ASK when the
    /// keys left the migrating slot, -TRYAGAIN when some did; the transaction is then discarded and
    /// the redirection is EXEC's reply, as Redis's processCommand does (discardTransaction). True
    /// when it redirected.
    /// </summary>
    private bool ExecRedirected(int exec, IBufferWriter<byte> target)
    {
        var session = Session;
        session.ClusterRecheck = false;
        if (ClusterRouting.Recheck(_server, session, _commands, exec, ExecDef, _nowMs, session.ClusterRecheckAsking) is not { } error) return false;
        _server.CommandStats.Rejected(ExecDef.Id);
        _server.Stats.CountError(error[..error.IndexOf(' ')]);
        if (session.ReplyMode == ReplyMode.On) new RespWriter(target, session.Protocol).Error(error);
        if (session.ReplyMode == ReplyMode.Skip) session.ReplyMode = ReplyMode.On;
        session.EndMulti();
        TransactionCommands.UnwatchAll(_server, session);
        return true;
    }

    /// <summary>
    /// A queued command the user may no longer run: Redis's NOPERM for a transaction, naming the
    /// reason, in its place among the replies; logged in the ACL log as "multi".
    /// </summary>
    private bool ExecDenied(ClientSession session, Commands.Acl.AclUser user, Protocol.CommandBuffer queue, int j, CommandDef def, RespWriter reply)
    {
        var result = Commands.Acl.AclChecks.Check(_server, session, user.State, def, queue, j, _nowMs, out int position);
        if (result == Commands.Acl.AclResult.Ok) return false;
        Commands.Acl.AclChecks.Log(_server, session, result, Commands.Acl.AclLogContext.Multi, def, queue, j, position);
        string reason = result switch
        {
            Commands.Acl.AclResult.DeniedCommand => "no permission to execute the command or subcommand",
            Commands.Acl.AclResult.DeniedKey => "no permission to touch the specified keys",
            Commands.Acl.AclResult.DeniedChannel => "no permission to access one of the channels used as arguments",
            _ => "no permission",
        };
        _server.Stats.CountError("NOPERM");
        reply.Error(RespErrors.NoPermExec + reason);
        return true;
    }

    /// <summary>
    /// The transaction itself (EXEC is command <paramref name="exec"/> of the batch), with the gates of
    /// its keys and watched keys held. MONITOR sees each queued command as it runs, then EXEC.
    /// </summary>
    private void ExecLocked(int exec, IBufferWriter<byte> target)
    {
        var session = Session;
        // A transaction in a slot being migrated or imported: which of its keys exist now decides
        // whether it runs here, as for one command (ClusterRouting's second step). A dirty one is
        // aborted anyway, and its keys' gates are not held.
        if (session.ClusterRecheck)
        {
            if (session.MultiDirty) session.ClusterRecheck = false;
            else if (ExecRedirected(exec, target)) return;
        }
        var mode = session.ReplyMode;
        IBufferWriter<byte> sink = mode == ReplyMode.On ? target : NullBufferWriter.Instance;
        // Evictions from the tracking table go ahead of EXEC's reply, never inside its array.
        if (_server.Tracking.Active) _server.Tracking.BeforeCommand(session, sink);
        if (mode == ReplyMode.Skip) session.ReplyMode = ReplyMode.On;
        var reply = new RespWriter(sink, session.Protocol);

        if (session.MultiDirty)
        {
            reply.Raw(RespErrors.ExecAbort);
            _server.Stats.CountError("EXECABORT");
            _server.CommandStats.Record(ExecDef.Id, -1, failed: true);
            session.EndMulti();
            TransactionCommands.UnwatchAll(_server, session);
            if (_server.Monitors.Active) CommandRunner.FeedMonitors(_server, session, _commands, exec, ExecDef);
            return;
        }

        var queue = session.Queued!;
        var defs = session.QueuedDefs!;
        if (TransactionCommands.WatchBroken(_server, session, _nowMs))
        {
            reply.NullArray();
        }
        else
        {
            reply.ArrayHeader(defs.Count);
            session.InExec = true;
            // One propagation unit for the whole queue: its writes go out as MULTI ... EXEC when
            // there are several, alone when there is one, not at all when there are none (as Redis 7).
            var listener = _server.PropagationListener;
            var log = listener != null ? Storage.PropagationLog.Enter(listener) : null;
            bool propagated = false;
            try
            {
                for (int j = 0; j < defs.Count; j++)
                {
                    // ACLs are checked again at EXEC, as Redis does: the rules may have changed since queueing.
                    if (session.User is { } user && !user.State.Unrestricted && ExecDenied(session, user, queue, j, defs[j], reply)) continue;
                    CommandRunner.Run(_server, session, queue, j, defs[j], sink, _nowMs);
                }
            }
            finally
            {
                session.InExec = false;
                propagated = log?.Exit() == true;
            }
            // A WAIT or WAITAOF after EXEC waits for the transaction's writes.
            if (propagated) CommandRunner.NotePropagated(session);
            // Invalidations the transaction caused for this client follow EXEC's reply, as in Redis.
            if (_server.Tracking.Active || session.TrackingPending is { Count: > 0 }) _server.Tracking.FlushAfter(session, sink);
        }
        TransactionCommands.UnwatchAll(_server, session);
        session.EndMulti();
        _server.CommandStats.Record(ExecDef.Id, -1, failed: false);
        if (_server.Monitors.Active) CommandRunner.FeedMonitors(_server, session, _commands, exec, ExecDef);
    }
}
