using System.Runtime.CompilerServices;
using RedisClone.Cluster;
using RedisClone.Commands;
using RedisClone.Common;
using RedisClone.Protocol;
using RedisClone.Server;

namespace RedisClone.Execution;

/// <summary>
/// Redis's getNodeByQuery and clusterRedirectClient: on a cluster node, before a command with keys
/// runs, whether this node serves it, or the error that sends the client elsewhere (-MOVED, -ASK,
/// -TRYAGAIN, -CROSSSLOT, -CLUSTERDOWN). Called by <see cref="CommandChecks"/> only when cluster
/// mode is on (one null test otherwise).
/// </summary>
/// <remarks>
/// Two steps, because whether a key exists may only be asked holding its shard's gate, and the
/// checks run on an event loop before any gate is taken. The first step (<see cref="Check"/>) reads
/// the slot table without locks and answers every case that depends on slots alone. Only when the
/// slot is being migrated or imported does the answer depend on which keys exist (ASK for a missing
/// key, TRYAGAIN for a multi-key command with some missing): then the session is marked, the
/// command runs alone with its gates (see BatchExecutor.Classify), and the second step
/// (<see cref="Recheck"/>) looks at the keys before the handler runs.
/// </remarks>
internal static class ClusterRouting
{
    private static readonly CommandDef ExecDef = CommandChecks.Find("exec"), AskingDef = CommandChecks.Find("asking");
    private static readonly CommandDef MigrateDef = CommandChecks.Find("migrate");
    private static readonly CommandDef SSubscribeDef = CommandChecks.Find("ssubscribe"), SUnsubscribeDef = CommandChecks.Find("sunsubscribe"),
        SPublishDef = CommandChecks.Find("spublish");

    private enum Redirect { None, CrossSlot, Unstable, DownState, DownReadOnly, DownUnbound, Moved, Ask }

    /// <summary>
    /// The first step: null when the command may run here (perhaps pending <see cref="Recheck"/>),
    /// else the error to reply. Also ends the ASKING flag's one command.
    /// </summary>
    public static string? Check(RedisServer server, ClusterState cluster, ClientSession session, CommandBuffer buffer, int i, CommandDef def, long nowMs)
    {
        session.ClusterRecheck = false;
        session.ClusterSlot = -1;
        bool asking = (session.ClusterFlags & ClientClusterFlags.Asking) != 0;
        // ASKING holds for one command, or for the transaction it was sent in (cleared by EXEC).
        if (asking && def != AskingDef && (!session.InMulti || def == ExecDef)) session.ClusterFlags &= ~ClientClusterFlags.Asking;
        if (session.IsMaster) return null;
        if (def.KeySpecs.Length == 0 && def.KeyFinder == null && (def.Flags & CommandFlags.MovableKeys) == 0 && def != ExecDef) return null;
        var result = Decide(server, cluster, session, buffer, i, def, nowMs, asking, keysKnown: false, out int slot, out var node);
        if (result == Redirect.None) session.ClusterSlot = slot;
        return result == Redirect.None ? null : Format(server, session, result, slot, node);
    }

    /// <summary>
    /// Redis 7.2's scriptVerifyClusterState: a command a script calls (on <paramref name="script"/>,
    /// the script's client) must be served here, with the caller's ASKING and READONLY, and keep to
    /// one slot with the script's declared keys unless it allows cross-slot keys. Null when it may
    /// run, else the error text for the script (without "ERR "). Every gate is held (scripts take all).
    /// </summary>
    public static string? CheckScriptCall(RedisServer server, ClusterState cluster, ClientSession script, CommandBuffer buffer, CommandDef def, long nowMs)
    {
        var caller = script.ScriptCaller;
        if (caller == null || caller.IsMaster) return null;
        script.ClusterFlags = caller.ClusterFlags;
        bool asking = (caller.ClusterFlags & ClientClusterFlags.Asking) != 0;
        var result = Decide(server, cluster, script, buffer, 0, def, nowMs, asking, keysKnown: true, out int slot, out _);
        script.ClusterRecheck = false;
        switch (result)
        {
            case Redirect.None: break;
            case Redirect.DownReadOnly: return RespErrors.ScriptClusterDownReadOnly[4..];
            case Redirect.DownState: return RespErrors.ScriptClusterDown[4..];
            case Redirect.CrossSlot: return RespErrors.ScriptCrossSlot(def.FullName)[4..];
            default: return RespErrors.ScriptNonLocalKey[4..];
        }
        if (slot != -1 && !script.ClusterCrossSlotAllowed)
        {
            if (caller.ClusterSlot == -1) caller.ClusterSlot = slot;
            else if (caller.ClusterSlot != slot) return RespErrors.ScriptUndeclaredCrossSlot[4..];
        }
        return null;
    }

    /// <summary>
    /// The second step, with the command's gates held: the decision again, now counting the keys
    /// that exist. Null when the command runs here.
    /// </summary>
    public static string? Recheck(RedisServer server, ClientSession session, CommandBuffer buffer, int i, CommandDef def, long nowMs, bool asking)
    {
        if (server.Cluster is not { } cluster) return null;
        var result = Decide(server, cluster, session, buffer, i, def, nowMs, asking, keysKnown: true, out int slot, out var node);
        return result == Redirect.None ? null : Format(server, session, result, slot, node);
    }

    [SkipLocalsInit]
    private static Redirect Decide(RedisServer server, ClusterState cluster, ClientSession session, CommandBuffer buffer, int i,
        CommandDef def, long nowMs, bool asking, bool keysKnown, out int slot, out ClusterNode? node)
    {
        slot = -1;
        node = null;
        var me = cluster.Myself;
        bool migrating = false, importing = false, multipleKeys = false, inFlight = false;
        int missing = 0, existing = 0;
        ReadOnlySpan<byte> firstKey = default;
        bool pubsubShard = def == SSubscribeDef || def == SUnsubscribeDef || def == SPublishDef;
        bool write = (def.Flags & CommandFlags.Write) != 0;
        Span<int> positions = stackalloc int[64];
        CommandBuffer commands = buffer;
        int from = i, to = i + 1;
        if (def == ExecDef)
        {
            if (!session.InMulti || session.Queued is not { } queued || session.QueuedDefs is not { } defs) return Redirect.None;
            commands = queued;
            from = 0;
            to = defs.Count;
            foreach (var d in defs) write |= (d.Flags & CommandFlags.Write) != 0;
        }
        for (int c = from; c < to; c++)
        {
            var cdef = def == ExecDef ? session.QueuedDefs![c] : def;
            int n = KeyRouting.Positions(server, session, commands, c, cdef, nowMs, positions);
            Span<int> keys = positions;
            if (n > positions.Length)
            {
                keys = new int[n];
                n = Math.Min(n, KeyRouting.Positions(server, session, commands, c, cdef, nowMs, keys));
            }
            for (int k = 0; k < n; k++)
            {
                var key = commands.Arg(c, keys[k]);
                int thisSlot = Crc16.HashSlot(key);
                if (slot < 0)
                {
                    firstKey = key;
                    slot = thisSlot;
                    node = cluster.Owner(slot);
                    if (node == null) return Redirect.DownUnbound;
                    if (node == me && cluster.MigratingTo(slot) != null) migrating = true;
                    else if (cluster.ImportingFrom(slot) != null) importing = true;
                }
                else
                {
                    if (slot != thisSlot) return Redirect.CrossSlot;
                    if (importing && !multipleKeys && !key.SequenceEqual(firstKey)) multipleKeys = true;
                }
                if ((migrating || importing) && !pubsubShard && keysKnown)
                {
                    if (Exists(server, key, nowMs))
                    {
                        existing++;
                        // A write to a key a MIGRATE has sent and not yet deleted (see ClusterState.MigrationStarted).
                        if (migrating && write && def != MigrateDef && session.ScriptCaller == null && cluster.MigrationInFlight(key)) inFlight = true;
                    }
                    else missing++;
                }
            }
        }
        if (node == null) return Redirect.None; // no key at all
        if (!cluster.StateOk)
        {
            if (pubsubShard)
            {
                if (server.Config.Value("cluster-allow-pubsubshard-when-down") != "yes") return Redirect.DownState;
            }
            else if (server.Config.Value("cluster-allow-reads-when-down") != "yes") return Redirect.DownState;
            else if (write) return Redirect.DownReadOnly;
        }
        if ((migrating || importing) && def == MigrateDef) return Redirect.None;
        if ((migrating || importing) && !pubsubShard && !keysKnown)
        {
            // The answer depends on which keys exist: decided again with the gates held (for EXEC,
            // over the whole queue, by the transaction itself: BatchExecutor's ExecLocked).
            session.ClusterRecheck = true;
            session.ClusterRecheckAsking = asking;
            if (migrating || asking || (def.Flags & CommandFlags.Asking) != 0) return Redirect.None;
        }
        if (inFlight) return Redirect.Unstable;
        if (migrating && missing > 0)
        {
            if (existing > 0) return Redirect.Unstable;
            node = cluster.MigratingTo(slot);
            return node == null ? Redirect.None : Redirect.Ask;
        }
        if (importing && (asking || (def.Flags & CommandFlags.Asking) != 0))
            return multipleKeys && missing > 0 ? Redirect.Unstable : Redirect.None;
        // A READONLY client (or a shard channel) reads from a replica of the slot's master.
        if (((session.ClusterFlags & ClientClusterFlags.ReadOnly) != 0 || pubsubShard) && !write && me.IsReplica && me.Master == node)
            return Redirect.None;
        return node != me ? Redirect.Moved : Redirect.None;
    }

    /// <summary>Whether <paramref name="key"/> exists in database 0 (Redis's lookup with NOTOUCH, NOSTATS, NONOTIFY, NOEXPIRE).</summary>
    private static bool Exists(RedisServer server, ReadOnlySpan<byte> key, long nowMs)
    {
        var table = server.Shards[server.Shards.ShardOf(key)].Store[0].Table;
        int at = table.Find(key);
        if (at < 0) return false;
        long expireAt = table.ExpireAt(at);
        return expireAt == 0 || expireAt > nowMs;
    }

    private static string Format(RedisServer server, ClientSession session, Redirect result, int slot, ClusterNode? node) => result switch
    {
        Redirect.CrossSlot => RespErrors.CrossSlot,
        Redirect.Unstable => RespErrors.TryAgain,
        Redirect.DownState => RespErrors.ClusterDown,
        Redirect.DownReadOnly => RespErrors.ClusterDownReadOnly,
        Redirect.DownUnbound => RespErrors.ClusterDownUnbound,
        _ => $"{(result == Redirect.Ask ? "ASK" : "MOVED")} {slot} {ClusterCommands.PreferredEndpoint(server, node!)}:{ClusterCommands.ClientPort(session, node!)}",
    };
}
