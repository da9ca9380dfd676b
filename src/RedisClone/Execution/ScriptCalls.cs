using System.Buffers;
using RedisClone.Commands;
using RedisClone.Commands.Acl;
using RedisClone.Protocol;
using RedisClone.Scripting;
using RedisClone.Server;

namespace RedisClone.Execution;

/// <summary>
/// redis.call and redis.pcall: the command a script sends is checked as Redis's scriptCall checks it
/// and then run by <see cref="CommandRunner.Run"/>, the call that runs every client's command. The
/// script already holds every gate its command may need (scripts route to all shards). A command
/// refused by these checks counts as a rejected call in commandstats, as Redis counts it (an unknown
/// command counts nowhere).
/// </summary>
internal static class ScriptCalls
{
    /// <summary>Hands the runner to the scripting engine; called once at server start.</summary>
    public static void Install() => LuaEngine.Runner = Run;

    private static void Run(RedisServer server, ClientSession session, CommandBuffer command, IBufferWriter<byte> sink,
        long nowMs, bool readOnly, bool denyOom, ScriptWatchdog watchdog, out string? error)
    {
        error = null;
        int argc = command.ArgCount(0);
        var def = server.Commands.Find(command.Arg(0, 0));
        if (def != null && def.Subcommands != null && argc >= 2) def = def.FindSubcommand(command.Arg(0, 1));
        if (def == null)
        {
            error = "Unknown Redis command called from script";
            return;
        }
        if (!def.ArityOk(argc))
        {
            error = "Wrong number of args calling Redis command from script";
            server.CommandStats.Rejected(def.Id);
            return;
        }
        if ((def.Flags & CommandFlags.NoScript) != 0)
        {
            error = "This Redis command is not allowed from script";
            server.CommandStats.Rejected(def.Id);
            return;
        }
        if (session.User is { } user && !user.State.Unrestricted)
        {
            var result = AclChecks.Check(server, session, user.State, def, command, 0, nowMs, out int position);
            if (result != AclResult.Ok)
            {
                AclChecks.Log(server, session, result, AclLogContext.Lua, def, command, 0, position, session.ScriptCaller);
                error = "ACL failure in script: " + AclChecks.Message(result, user, def, command.Arg(0, position), verbose: false);
                server.CommandStats.Rejected(def.Id);
                return;
            }
        }
        // As Redis, a may-replicate command counts as a write here.
        if (readOnly && (def.Flags & (CommandFlags.Write | CommandFlags.MayReplicate)) != 0)
        {
            error = "Write commands are not allowed from read-only scripts.";
            server.CommandStats.Rejected(def.Id);
            return;
        }
        // A read-only replica: a script's write fails, unless its master runs it (scriptVerifyWriteCommandAllow).
        if ((def.Flags & CommandFlags.Write) != 0 && server.Replication.IsReplica && server.Config.ReplicaReadOnly
            && session.ScriptCaller?.IsMaster != true)
        {
            error = "-" + RespErrors.ReadOnlyReplica;
            return;
        }
        // A write while persisting fails: MISCONF, unless the script already wrote (it cannot be
        // stopped halfway), as Redis's scriptVerifyWriteCommandAllow.
        if ((def.Flags & CommandFlags.Write) != 0 && !watchdog.HasWritten && server.WritesDeniedByDiskError() is { } diskError)
        {
            error = "-" + diskError;
            return;
        }
        // Too few good replicas (min-replicas-to-write): as Redis's scriptVerifyWriteCommandAllow.
        if ((def.Flags & CommandFlags.Write) != 0 && server.WritesDeniedByReplicas() is { } replicasError)
        {
            error = "-" + replicasError;
            return;
        }
        // Out of memory when the script's command was checked: its first denyoom command is refused
        // unless it already wrote (it cannot be stopped halfway), as Redis's scriptVerifyOOM.
        if (denyOom && (def.Flags & CommandFlags.DenyOom) != 0 && !watchdog.HasWritten && server.Config.MaxMemory != 0)
        {
            error = "-" + RespErrors.Oom;
            server.CommandStats.Rejected(def.Id);
            return;
        }
        // A cluster node: the command must be served here, in the script's slot (after the write
        // checks and OOM, as Redis's scriptCall orders them).
        if (server.Cluster is { } cluster && ClusterRouting.CheckScriptCall(server, cluster, session, command, def, nowMs) is { } clusterError)
        {
            error = clusterError;
            return;
        }
        // As Redis, the script counts as having written (SCRIPT KILL refuses it from now on) once a
        // write command passed the checks, whether or not it changes anything. A killed script runs
        // nothing more (its coroutine yields at the next instruction).
        if ((def.Flags & CommandFlags.Write) != 0 ? !watchdog.TryMarkWrite() : watchdog.Killed)
        {
            error = "Script killed by user with SCRIPT KILL...";
            return;
        }
        CommandRunner.Run(server, session, command, 0, def, sink, nowMs);
    }
}
