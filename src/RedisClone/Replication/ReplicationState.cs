using System.Buffers;
using RedisClone.Common;
using RedisClone.Server;
using RedisClone.Storage;

namespace RedisClone.Replication;

/// <summary>
/// The server's replication identity and stream: master_replid and the secondary id with the
/// offset up to which it is valid (PSYNC2), master_repl_offset, and the backlog with the replicas'
/// cursors. As a master it formats what the propagation hook emits into the stream (SELECT when the
/// database changes, MULTI/EXEC around transactions); as a replica the master's stream is appended
/// as received (<see cref="FeedFromMaster"/>) so that chained replicas get it byte for byte.
/// </summary>
/// <remarks>
/// Like Redis, the offset only moves while a backlog exists: it is created when the first replica
/// asks for a sync (or when this server becomes a replica) and freed after <c>repl-backlog-ttl</c>
/// seconds without replicas. Until then nothing listens to the propagation hook for replication,
/// so a server without replicas pays nothing for it.
/// </remarks>
internal sealed class ReplicationState : IPropagationListener
{
    private readonly RedisServer _server;

    /// <summary>Guards the feed: the selected database of the stream and the scratch buffer.</summary>
    private readonly object _feedLock = new();
    private readonly ArrayBufferWriter<byte> _scratch = new(4096);
    private int _selectedDb = -1;
    private long _offsetWithoutBacklog;
    private volatile ReplicationBacklog? _backlog;

    public ReplicationState(RedisServer server)
    {
        _server = server;
        ReplicationId = RandomHex.Next40();
        Master = new ReplicationMaster(server, this);
        Failover = new Failover(server);
    }

    /// <summary>The master side: replicas, syncs, acknowledgements.</summary>
    public ReplicationMaster Master { get; }

    /// <summary>FAILOVER's state.</summary>
    public Failover Failover { get; }

    /// <summary>master_replid.</summary>
    public string ReplicationId { get; private set; }

    /// <summary>master_replid2: the id this server's history had before it changed (all zeros when none).</summary>
    public string ReplicationId2 { get; private set; } = new('0', 40);

    /// <summary>second_repl_offset: the first offset not valid for <see cref="ReplicationId2"/> (-1 when none).</summary>
    public long SecondReplicationOffset { get; private set; } = -1;

    /// <summary>The backlog, or null while there is none (repl_backlog_active:0).</summary>
    public ReplicationBacklog? Backlog => _backlog;

    /// <summary>master_repl_offset.</summary>
    public long Offset => _backlog?.Offset ?? Volatile.Read(ref _offsetWithoutBacklog);

    /// <summary>
    /// True while this server is a replica (REPLICAOF host port): its own writes and the master's
    /// commands it runs are not fed as its stream; the master's bytes are (see <see cref="FeedFromMaster"/>).
    /// </summary>
    public volatile bool IsReplica;

    /// <summary>
    /// master_repl_offset after the last unit this thread appended (0 when none since it was read):
    /// the execution layer moves it into the client's write offset, which WAIT waits for.
    /// </summary>
    [ThreadStatic] public static long ThreadOffset;

    /// <summary>Creates the backlog when there is none (the first replica, or becoming a replica) and starts listening.</summary>
    public ReplicationBacklog EnsureBacklog()
    {
        lock (_feedLock)
        {
            if (_backlog is { } existing) return existing;
            var backlog = new ReplicationBacklog(Volatile.Read(ref _offsetWithoutBacklog), _server.Config.ReplBacklogSize);
            _selectedDb = -1;
            _backlog = backlog;
            _server.ReplicationListener = this;
            return backlog;
        }
    }

    /// <summary>Frees the backlog (repl-backlog-ttl expired with no replicas); the offset stays where it was.</summary>
    public void FreeBacklog()
    {
        Master.DisconnectAll(); // cursors are detached before the blocks go (none left after the ttl)
        lock (_feedLock)
        {
            var backlog = _backlog;
            if (backlog == null) return;
            _server.ReplicationListener = null;
            Volatile.Write(ref _offsetWithoutBacklog, backlog.Offset);
            _backlog = null;
            backlog.Release();
        }
    }

    /// <summary>DEBUG CHANGE-REPL-ID, a master's start-up, or a replica's full sync with a new master: a new id, no secondary one.</summary>
    public void ChangeReplicationId()
    {
        lock (_feedLock)
        {
            ReplicationId = RandomHex.Next40();
            ClearSecondaryLocked();
        }
    }

    /// <summary>Takes the master's id and offset after a full sync (the stream now continues the master's history).</summary>
    public void Adopt(string replicationId, long offset)
    {
        if (_backlog != null) Master.DisconnectAll(); // their cursors are in the backlog replaced
        lock (_feedLock)
        {
            ReplicationId = replicationId;
            ClearSecondaryLocked();
            SetOffsetLocked(offset);
        }
    }

    /// <summary>
    /// A replica becomes a master (REPLICAOF NO ONE, FAILOVER): the old id stays valid up to the
    /// current offset as the secondary one, so its former siblings can still resync partially
    /// (PSYNC2), and a new id starts.
    /// </summary>
    public void ShiftReplicationId()
    {
        lock (_feedLock)
        {
            ReplicationId2 = ReplicationId;
            SecondReplicationOffset = Offset + 1;
            ReplicationId = RandomHex.Next40();
            _selectedDb = -1;
        }
    }

    /// <summary>
    /// A replica's master moved to another history (+CONTINUE with a new id): the old id becomes the
    /// secondary one, valid up to here, and the master's id is taken.
    /// </summary>
    public void FollowNewId(string replicationId)
    {
        lock (_feedLock)
        {
            ReplicationId2 = ReplicationId;
            SecondReplicationOffset = Offset + 1;
            ReplicationId = replicationId;
        }
    }

    public void ClearSecondary()
    {
        lock (_feedLock) ClearSecondaryLocked();
    }

    private void ClearSecondaryLocked()
    {
        ReplicationId2 = new string('0', 40);
        SecondReplicationOffset = -1;
    }

    /// <summary>Moves master_repl_offset (a replica adopting its master's, or loading it from an RDB); the backlog restarts there.</summary>
    public void SetOffset(long offset)
    {
        if (_backlog != null) Master.DisconnectAll(); // their cursors are in the backlog replaced
        lock (_feedLock) SetOffsetLocked(offset);
    }

    private void SetOffsetLocked(long offset)
    {
        Volatile.Write(ref _offsetWithoutBacklog, offset);
        if (_backlog is { } old)
        {
            _backlog = new ReplicationBacklog(offset, _server.Config.ReplBacklogSize);
            old.Release();
        }
        _selectedDb = -1;
    }

    /// <summary>
    /// Redis's rdbPopulateSaveInfo for a master: only with a backlog (a server in a replication
    /// chain) the save records its id, offset and the stream's database (0 when the next write
    /// selects one anyway), so that once restarted from it its replicas can resync partially.
    /// </summary>
    public Persistence.RdbReplicationInfo? MasterSaveInfo()
    {
        lock (_feedLock)
        {
            if (IsReplica || _backlog is not { } backlog) return null;
            return new(_selectedDb == -1 ? 0 : _selectedDb, ReplicationId, backlog.Offset);
        }
    }

    /// <summary>
    /// A master started from an RDB file with replication info (Redis's loadDataFromDisk): that
    /// history becomes the secondary id, valid up to its offset; the offset continues from there
    /// with a backlog, so the replicas of the server that saved it resync partially. The primary
    /// id stays the new one this start made. The keys the load left out because they had expired
    /// go into the stream as DELs (UNLINK with lazyfree-lazy-expire), as Redis's RDBFLAGS_FEED_REPL
    /// load does, so the replicas that still have them drop them too.
    /// </summary>
    public void LoadedAsMaster(string replicationId, long offset, List<(int Db, byte[] Key)>? expired)
    {
        lock (_feedLock)
        {
            ReplicationId2 = replicationId;
            SecondReplicationOffset = offset + 1;
            SetOffsetLocked(offset);
        }
        var backlog = EnsureBacklog();
        if (expired is not { Count: > 0 }) return;
        var command = _server.Config.LazyfreeLazyExpire ? "UNLINK"u8.ToArray() : "DEL"u8.ToArray();
        Span<byte> digits = stackalloc byte[20];
        lock (_feedLock)
        {
            foreach (var (db, key) in expired)
            {
                _scratch.ResetWrittenCount();
                var output = new Protocol.RespWriter(_scratch, 2);
                if (db != _selectedDb)
                {
                    int n = RedisNumbers.FormatInt64(db, digits);
                    output.ArrayHeader(2);
                    output.Bulk("SELECT"u8);
                    output.Bulk(digits[..n]);
                    _selectedDb = db;
                }
                output.ArrayHeader(2);
                output.Bulk(command);
                output.Bulk(key);
                backlog.Append(_scratch.WrittenSpan);
            }
        }
    }

    /// <summary>The next unit fed starts with a SELECT (a new full sync: the replica's database is unknown).</summary>
    public void ForceSelect()
    {
        lock (_feedLock) _selectedDb = -1;
    }

    /// <summary>A PING to the replicas (every repl-ping-replica-period seconds while any is attached).</summary>
    public void FeedPing()
    {
        lock (_feedLock)
        {
            var backlog = _backlog;
            if (backlog == null || IsReplica) return;
            backlog.Append("*1\r\n$4\r\nPING\r\n"u8);
        }
    }

    /// <summary>
    /// REPLCONF GETACK * to the replicas (WAIT asks for acknowledgements), unless the last one sent
    /// ended at <paramref name="lastEnd"/> and nothing came after it. The offset after it, or -1.
    /// </summary>
    public long FeedGetAck(long lastEnd)
    {
        lock (_feedLock)
        {
            var backlog = _backlog;
            if (backlog == null || IsReplica || backlog.Offset == lastEnd) return -1;
            return backlog.Append("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n"u8);
        }
    }

    /// <summary>As a replica: bytes of the master's stream, applied, passed on to chained replicas as they came.</summary>
    public void FeedFromMaster(ReadOnlySpan<byte> bytes)
    {
        lock (_feedLock)
        {
            if (_backlog is { } backlog) backlog.Append(bytes);
            else Volatile.Write(ref _offsetWithoutBacklog, Volatile.Read(ref _offsetWithoutBacklog) + bytes.Length);
        }
    }

    /// <summary>The propagation hook: a unit's commands for replicas, in Redis's format.</summary>
    public void Propagate(PropagatedUnit unit)
    {
        if (IsReplica) return; // a replica passes its master's stream on instead
        lock (_feedLock)
        {
            var backlog = _backlog;
            if (backlog == null) return;
            _scratch.ResetWrittenCount();
            var output = new Protocol.RespWriter(_scratch, 2); // commands are arrays of bulks, as a RESP2 reply
            bool any = false;
            Span<byte> digits = stackalloc byte[20];
            for (int c = 0; c < unit.Count; c++)
            {
                if ((unit.Target(c) & PropagationTarget.Replicas) == 0) continue;
                int db = unit.Db(c);
                if (db != _selectedDb)
                {
                    int n = RedisNumbers.FormatInt64(db, digits);
                    output.ArrayHeader(2);
                    output.Bulk("SELECT"u8);
                    output.Bulk(digits[..n]);
                    _selectedDb = db;
                }
                if (!any && unit.Transaction)
                {
                    output.ArrayHeader(1);
                    output.Bulk("MULTI"u8);
                }
                any = true;
                int argc = unit.ArgCount(c);
                output.ArrayHeader(argc);
                for (int a = 0; a < argc; a++) output.Bulk(unit.Arg(c, a));
            }
            if (!any) return;
            if (unit.Transaction)
            {
                output.ArrayHeader(1);
                output.Bulk("EXEC"u8);
            }
            ThreadOffset = backlog.Append(_scratch.WrittenSpan);
        }
    }
}
