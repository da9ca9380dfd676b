using RedisClone.Commands;
using RedisClone.Commands.Acl;
using RedisClone.Protocol;
using RedisClone.Scripting;
using RedisClone.Server;

namespace RedisClone.Execution;

/// <summary>
/// The checks Redis's processCommand makes before a command runs, in its order: unknown command,
/// unknown subcommand, arity, then the client's state (a RESP2 client in subscribe mode may only
/// run the subscribe family, PING, QUIT and RESET), then the server's (a busy script).
/// </summary>
internal static class CommandChecks
{
    /// <summary>What a RESP2 client with subscriptions may run.</summary>
    private static readonly CommandDef[] AllowedWhileSubscribed =
        [Find("subscribe"), Find("unsubscribe"), Find("psubscribe"), Find("punsubscribe"), Find("ssubscribe"),
         Find("sunsubscribe"), Find("ping"), Find("quit"), Find("reset")];

    /// <summary>
    /// On a replica's link (after SYNC/PSYNC) only REPLCONF ACK / GETACK and a repeated SYNC/PSYNC
    /// (ignored) go unanswered; anything else would make Redis 7.2 write a reply there, which it
    /// refuses by closing the link.
    /// </summary>
    public static bool WouldReplyOnReplicaLink(CommandBuffer buffer, int i)
    {
        var name = buffer.Arg(i, 0);
        if (System.Text.Ascii.EqualsIgnoreCase(name, "SYNC"u8) || System.Text.Ascii.EqualsIgnoreCase(name, "PSYNC"u8)) return false;
        if (!System.Text.Ascii.EqualsIgnoreCase(name, "REPLCONF"u8) || buffer.ArgCount(i) < 2) return true;
        var sub = buffer.Arg(i, 1);
        return !System.Text.Ascii.EqualsIgnoreCase(sub, "ACK"u8) && !System.Text.Ascii.EqualsIgnoreCase(sub, "GETACK"u8);
    }

    /// <summary>The row of a command the executor must know by identity.</summary>
    public static CommandDef Find(string name)
        => CommandTable.Instance.Find(System.Text.Encoding.ASCII.GetBytes(name))
           ?? throw new InvalidOperationException($"no '{name}' row in the command table");

    /// <summary>
    /// The command (or subcommand) row for command <paramref name="i"/> of <paramref name="buffer"/>,
    /// or null with the error to reply and the row it counts against (null for an unknown command).
    /// </summary>
    /// <param name="nowMs">The batch's time (Unix ms), for the cluster and ACL checks that need one.</param>
    public static CommandDef? Check(RedisServer server, ClientSession session, CommandBuffer buffer, int i, long nowMs,
        out CommandDef? rejectedDef, out string? error)
    {
        rejectedDef = null;
        error = null;
        int argc = buffer.ArgCount(i);
        var def = server.Commands.Find(buffer.Arg(i, 0));
        if (def == null)
        {
            error = UnknownCommand(buffer, i, argc);
            return null;
        }
        if (def.Subcommands != null && argc >= 2)
        {
            var sub = def.FindSubcommand(buffer.Arg(i, 1));
            if (sub == null)
            {
                rejectedDef = def;
                error = RespErrors.UnknownSubcommand(RespErrors.UpToNul(buffer.Arg(i, 1)), def.Name);
                return null;
            }
            def = sub;
        }
        if (!def.ArityOk(argc))
        {
            rejectedDef = def;
            error = RespErrors.WrongArity(def.FullName);
            return null;
        }
        // A replica's master client obeys: none of the checks below apply to its stream (Redis's
        // obey_client; its commands wait for a busy script's gates instead of getting -BUSY), but
        // maxmemory: with replica-ignore-maxmemory no the replica evicts before its master's commands
        // too, and refuses denyoom ones when nothing could go, as Redis's processCommand does for
        // every client (OutOfMemory is false at once while the replica ignores maxmemory).
        if (session.IsMaster)
        {
            if (server.Config.MaxMemory != 0 && server.ScriptWatchdog.BusyKind == ScriptKind.None
                && server.Evictor.OutOfMemory() && RefusedWhenOom(session, buffer, i, def))
            {
                rejectedDef = def;
                error = RespErrors.Oom;
                return null;
            }
            return def;
        }
        // Authentication and ACLs, as Redis checks them right after arity. One test for the common
        // case: a user with every permission, authenticated or needing no password.
        var user = session.User;
        if (user != null && ((!session.Authenticated && server.Acl.AuthRequired) || !user.State.Unrestricted))
        {
            error = CheckAccess(server, session, user, def, buffer, i, nowMs);
            if (error != null)
            {
                rejectedDef = def;
                return null;
            }
        }
        // Cluster redirections (Redis checks them right after ACLs): one null test when cluster mode is off.
        if (server.Cluster is { } cluster && ClusterRouting.Check(server, cluster, session, buffer, i, def, nowMs) is { } redirect)
        {
            rejectedDef = def;
            error = redirect;
            return null;
        }
        // maxmemory (Redis checks it after auth and ACLs, before the subscribe-mode and loading
        // checks): evict if over the limit; refuse denyoom commands, and in MULTI anything but
        // EXEC/DISCARD/QUIT/RESET, when nothing could be evicted. Not while a busy script runs, as
        // Redis does not evict while re-entered from one. One read when maxmemory is 0.
        if (server.Config.MaxMemory != 0 && server.ScriptWatchdog.BusyKind == ScriptKind.None)
        {
            // Keys evicted now that this client tracks are told before this command's reply, as Redis does.
            bool tracking = server.Tracking.Active;
            if (tracking) PubSub.ClientTracking.BeginChecks(session);
            bool oom;
            try
            {
                oom = server.Evictor.OutOfMemory();
            }
            finally
            {
                if (tracking) PubSub.ClientTracking.EndChecks();
            }
            session.OomAtStart = oom;
            if (oom && RefusedWhenOom(session, buffer, i, def))
            {
                rejectedDef = def;
                error = RespErrors.Oom;
                return null;
            }
        }
        // A failed background save (with stop-writes-on-bgsave-error) or AOF write: Redis refuses
        // write commands and PING with MISCONF until persisting works again (checked after maxmemory,
        // before the subscribe-mode and loading checks, as processCommand does). No replicas obey a
        // master here, so there is no exception for them.
        if (((def.Flags & CommandFlags.Write) != 0 || def == PingDef || def == ExecDef || def == EvalDef)
            && server.WritesDeniedByDiskError() is { } diskError && WritesForDiskCheck(session, buffer, i, def))
        {
            rejectedDef = def;
            error = diskError;
            return null;
        }
        // A read-only replica refuses writes (after MISCONF, before the subscribe-mode check, as
        // processCommand orders them). One volatile read on a master.
        bool replica = server.Replication.IsReplica;
        if (replica && server.Config.ReplicaReadOnly && IsWriteCommand(session, buffer, i, def))
        {
            rejectedDef = def;
            error = RespErrors.ReadOnlyReplica;
            return null;
        }
        // min-replicas-to-write: too few good replicas refuse writes (Redis checks it right after MISCONF).
        if (((def.Flags & CommandFlags.Write) != 0 || def == ExecDef || def == EvalDef)
            && server.WritesDeniedByReplicas() is { } replicasError && def != PingDef && WritesForDiskCheck(session, buffer, i, def))
        {
            rejectedDef = def;
            error = replicasError;
            return null;
        }
        if (session.Protocol == 2 && session.InPubSubMode && Array.IndexOf(AllowedWhileSubscribed, def) < 0)
        {
            rejectedDef = def;
            error = RespErrors.NotAllowedWhileSubscribed(def.FullName);
            return null;
        }
        // replica-serve-stale-data no: while the link with the master is down only the stale-flagged
        // commands (INFO, REPLICAOF, PING...) run; EXEC too, unless it queued another.
        if (replica && !server.Config.ReplicaServeStaleData && !server.Replica.LinkUp && DeniesStale(session, def))
        {
            rejectedDef = def;
            error = RespErrors.MasterDown;
            return null;
        }
        // Loading at start-up: only the ok-loading commands run (Redis checks this before -BUSY).
        if ((def.Flags & CommandFlags.Loading) == 0 && server.Rdb.Loading)
        {
            rejectedDef = def;
            error = RespErrors.Loading;
            return null;
        }
        // A script past busy-reply-threshold: only the allow-busy commands run (AUTH, HELLO, QUIT,
        // RESET, MULTI, DISCARD, WATCH, UNWATCH, SCRIPT KILL, FUNCTION KILL/STATS, SHUTDOWN); the rest,
        // PING and commands inside MULTI included, get -BUSY. One volatile read per command.
        if ((def.Flags & CommandFlags.AllowBusy) == 0 && server.ScriptWatchdog.BusyKind is var busy && busy != ScriptKind.None)
        {
            rejectedDef = def;
            error = ScriptCommands.BusyError(busy);
            return null;
        }
        if (session.IsMonitor && (def.Flags & (CommandFlags.ReadOnly | CommandFlags.Write | CommandFlags.MayReplicate)) != 0)
        {
            // Redis keeps a monitor as a replica, and a replica may not touch the keyspace.
            rejectedDef = def;
            error = RespErrors.ReplicaKeyspace;
            return null;
        }
        return def;
    }

    /// <summary>
    /// NOAUTH for a client that must authenticate first (only the no-auth commands run: AUTH, HELLO,
    /// QUIT, RESET...), then the user's ACL: NOPERM, logged in the ACL log. Null when allowed.
    /// </summary>
    private static string? CheckAccess(RedisServer server, ClientSession session, AclUser user, CommandDef def, CommandBuffer buffer, int i, long nowMs)
    {
        if (!session.Authenticated && server.Acl.AuthRequired && (def.Flags & CommandFlags.NoAuth) == 0)
            return RespErrors.NoAuth;
        var state = user.State;
        if (state.Unrestricted) return null;
        // Redis refuses a no-multi command inside MULTI before it checks the ACL (refused there too).
        if (session.InMulti && (def.Flags & CommandFlags.NoMulti) != 0) return null;
        var result = AclChecks.Check(server, session, state, def, buffer, i, nowMs, out int position);
        if (result == AclResult.Ok) return null;
        AclChecks.Log(server, session, result, session.InMulti ? AclLogContext.Multi : AclLogContext.TopLevel, def, buffer, i, position);
        return "NOPERM " + AclChecks.Message(result, user, def, buffer.Arg(i, position), verbose: false);
    }

    private static readonly CommandDef ExecDef = Find("exec"), DiscardDef = Find("discard"), QuitDef = Find("quit"), ResetDef = Find("reset");
    private static readonly CommandDef EvalDef = Find("eval"), EvalRoDef = Find("eval_ro"), PingDef = Find("ping");

    /// <summary>
    /// Whether MISCONF refuses the command (Redis's is_write_command, and PING): a write command,
    /// PING, EXEC of a transaction that queued a write, or EVAL of a script whose shebang declares
    /// flags without no-writes. EVALSHA and FCALL are checked by their handlers, which know the flags.
    /// </summary>
    private static bool WritesForDiskCheck(ClientSession session, CommandBuffer buffer, int i, CommandDef def)
    {
        if ((def.Flags & CommandFlags.Write) != 0 || def == PingDef) return true;
        if (def == ExecDef)
        {
            if (!session.InMulti || session.QueuedDefs is not { } defs) return false;
            for (int j = 0; j < defs.Count; j++)
                if ((defs[j].Flags & CommandFlags.Write) != 0) return true;
            return false;
        }
        if (buffer.ArgCount(i) < 2 || ScriptShebang.Parse(buffer.Arg(i, 1), out var flags, out _) != null) return false;
        return ScriptShebang.MayWrite(flags);
    }

    /// <summary>
    /// Redis's is_write_command for a read-only replica: a write command, EXEC of a transaction that
    /// queued one, or EVAL of a script whose shebang declares flags without no-writes (scripts without
    /// a shebang are refused at their first write, as Redis's scriptCall does).
    /// </summary>
    private static bool IsWriteCommand(ClientSession session, CommandBuffer buffer, int i, CommandDef def)
        => def != PingDef && WritesForDiskCheck(session, buffer, i, def);

    /// <summary>Redis's is_denystale_command: no stale flag, or EXEC of a transaction that queued a command without it.</summary>
    private static bool DeniesStale(ClientSession session, CommandDef def)
    {
        if ((def.Flags & CommandFlags.Stale) == 0) return true;
        if (def != ExecDef || !session.InMulti || session.QueuedDefs is not { } defs) return false;
        for (int j = 0; j < defs.Count; j++)
            if ((defs[j].Flags & CommandFlags.Stale) == 0) return true;
        return false;
    }

    /// <summary>Whether Redis refuses the command when out of memory (its is_denyoom_command, and MULTI's rule).</summary>
    private static bool RefusedWhenOom(ClientSession session, CommandBuffer buffer, int i, CommandDef def)
    {
        if (session.InMulti && def != ExecDef && def != DiscardDef && def != QuitDef && def != ResetDef) return true;
        if (DeniesOom(def, buffer, i)) return true;
        if (def == ExecDef && session.InMulti && session.QueuedDefs is { } defs)
            for (int j = 0; j < defs.Count; j++)
                if (DeniesOom(defs[j], session.Queued!, j)) return true;
        return false;
    }

    /// <summary>
    /// The denyoom flag, or for EVAL a script whose shebang declares flags without allow-oom or
    /// no-writes (Redis's scriptFlagsToCmdFlags). EVALSHA and FCALL are checked by their handlers,
    /// which know the script's flags (see ScriptCommands and FunctionCommands).
    /// </summary>
    private static bool DeniesOom(CommandDef def, CommandBuffer buffer, int i)
    {
        if ((def.Flags & CommandFlags.DenyOom) != 0) return true;
        if ((def != EvalDef && def != EvalRoDef) || buffer.ArgCount(i) < 2) return false;
        if (ScriptShebang.Parse(buffer.Arg(i, 1), out var flags, out _) != null) return false;
        return ScriptShebang.DeniesOom(flags);
    }

    // Kept out of Check: a lambda capturing the command index there would allocate a closure on
    // every call, not only for unknown commands.
    private static string UnknownCommand(CommandBuffer buffer, int i, int argc)
        => RespErrors.UnknownCommand(RespErrors.UpToNul(buffer.Arg(i, 0)), a => RespErrors.Latin(RespErrors.UpToNul(buffer.Arg(i, a))), argc);
}
