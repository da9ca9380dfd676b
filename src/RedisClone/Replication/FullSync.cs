using System.Text;
using RedisClone.Common;
using RedisClone.Persistence;

namespace RedisClone.Replication;

/// <summary>
/// One snapshot serving the replicas that wait for a full sync: at its instant (every gate held)
/// each replica's cursor is attached at master_repl_offset and +FULLRESYNC is queued with that
/// offset, so the RDB plus the stream from there is exactly the dataset. Disk-based: the RDB file
/// is written as a BGSAVE (and counts as one), then each replica is sent "$len\r\n" and the file.
/// Diskless: the snapshot is written to all of them at once as "$EOF:mark\r\n", the RDB, and the
/// mark; the slowest replica paces the save (a bounded queue each), so memory does not grow.
/// </summary>
internal sealed class FullSync : IReplicationSave
{
    /// <summary>Bytes queued for one replica before the diskless saver waits for it.</summary>
    private const long QueueLimit = 4 * 1024 * 1024;

    private readonly ReplicationMaster _master;
    private readonly List<ReplicaLink> _links;
    private readonly Fanout? _fanout;
    private readonly byte[] _eofMark;

    public FullSync(ReplicationMaster master, List<ReplicaLink> links, bool socket)
    {
        _master = master;
        _links = links;
        Socket = socket;
        _eofMark = Encoding.ASCII.GetBytes(RandomHex.Next40());
        if (socket) _fanout = new Fanout(this);
        var first = links[0];
        ExcludeData = first.ExcludeData;
        ExcludeFunctions = first.ExcludeFunctions;
        RdbOnly = first.RdbOnly;
    }

    public bool Socket { get; }
    public bool ExcludeData { get; }
    public bool ExcludeFunctions { get; }
    public bool RdbOnly { get; }

    /// <summary>master_repl_offset at the instant.</summary>
    public long Offset { get; private set; }

    /// <summary>The instant is taken and the file not yet complete: a disk sync another replica may join.</summary>
    public bool Joinable { get; private set; }

    public Stream? Target => _fanout;

    public List<ReplicaLink> Links
    {
        get
        {
            lock (_links) return [.. _links];
        }
    }

    public void AtInstant(RdbSnapshot snapshot)
    {
        var state = _master.State;
        var backlog = state.EnsureBacklog();
        Offset = state.Offset;
        // A master: the replicas' databases are unknown, the stream after the instant starts with
        // a SELECT (repl-stream-db 0). A replica passes its master's stream on as it came, without
        // a SELECT of its own: the RDB names the database that stream has selected (Redis's
        // rdbPopulateSaveInfo takes the master client's), and the sub-replica's stream starts there.
        state.ForceSelect();
        int streamDb = state.IsReplica ? _master.Server.Replica.Link?.MasterDb ?? 0 : 0;
        snapshot.ReplicationInfo = new RdbReplicationInfo(streamDb, state.ReplicationId, Offset);
        snapshot.ExcludeData = ExcludeData;
        snapshot.ExcludeFunctions = ExcludeFunctions;
        lock (_links)
        {
            foreach (var link in _links) Setup(link, backlog);
            Joinable = !Socket;
        }
        if (_fanout != null)
        {
            byte[] preamble = Encoding.ASCII.GetBytes("$EOF:" + Encoding.ASCII.GetString(_eofMark) + "\r\n");
            foreach (var link in Links) link.Enqueue(preamble);
        }
    }

    private void Setup(ReplicaLink link, ReplicationBacklog backlog)
    {
        link.Sync = this;
        link.InitialOffset = Offset;
        // A link closed meanwhile gets no cursor (AttachCursor); its sync goes on for the others.
        if (!link.RdbOnly) link.AttachCursor(backlog, Offset + 1);
        link.State = ReplicaState.WaitBgsaveEnd;
        link.LastRdbWriteMs = Environment.TickCount64;
        if (!link.PrePsync) link.Enqueue($"+FULLRESYNC {_master.State.ReplicationId} {Offset}\r\n");
    }

    /// <summary>
    /// A replica asking while this disk-based sync's file is being written joins it (Redis's "Waiting
    /// for end of BGSAVE for SYNC"): its cursor starts where the others' did. False when it cannot.
    /// </summary>
    public bool TryJoin(ReplicaLink link)
    {
        lock (_links)
        {
            if (!Joinable || link.ExcludeData != ExcludeData || link.ExcludeFunctions != ExcludeFunctions) return false;
            if (!link.RdbOnly && RdbOnly) return false;
            if (!link.CapaEof && _links.Exists(l => l.CapaEof) && Socket) return false;
            var backlog = _master.State.Backlog;
            if (backlog == null) return false;
            if (!link.RdbOnly && !link.AttachCursor(backlog, Offset + 1)) return false;
            link.Sync = this;
            link.InitialOffset = Offset;
            link.State = ReplicaState.WaitBgsaveEnd;
            if (!link.PrePsync) link.Enqueue($"+FULLRESYNC {_master.State.ReplicationId} {Offset}\r\n");
            _links.Add(link);
            return true;
        }
    }

    public void Completed(bool ok)
    {
        List<ReplicaLink> links;
        lock (_links)
        {
            Joinable = false;
            links = [.. _links];
        }
        if (!ok)
        {
            foreach (var link in links)
            {
                if (link.Closed) continue;
                _master.Log.Warning(Socket ? "SYNC failed. BGSAVE failed" : "SYNC failed. BGSAVE child returned an error");
                link.Session.Kill();
            }
            _master.SyncEnded();
            return;
        }
        if (Socket)
        {
            foreach (var link in links)
            {
                if (link.Closed) continue;
                link.EnqueueThen(_eofMark, () => _master.RdbSent(link, socket: true));
            }
        }
        else
        {
            string path = _master.Server.Config.RdbPath;
            foreach (var link in links)
            {
                if (link.Closed) continue;
                FileStream file;
                try
                {
                    file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1);
                }
                catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
                {
                    _master.Log.Warning($"SYNC failed. Can't open/stat DB after BGSAVE: {SystemErrors.Describe(ex)}");
                    link.Session.Kill();
                    continue;
                }
                link.State = ReplicaState.SendBulk;
                link.Enqueue($"${file.Length}\r\n");
                link.EnqueueFile(file);
                link.EnqueueAction(() => _master.RdbSent(link, socket: false));
            }
        }
        _master.SyncEnded();
    }

    /// <summary>The diskless RDB's way out: chunks of it queued to every replica of the sync still connected.</summary>
    private sealed class Fanout(FullSync owner) : Stream
    {
        private const int ChunkSize = 64 * 1024;
        private readonly byte[] _chunk = new byte[ChunkSize];
        private int _used;

        public override void Write(ReadOnlySpan<byte> buffer)
        {
            while (!buffer.IsEmpty)
            {
                int n = Math.Min(ChunkSize - _used, buffer.Length);
                buffer[..n].CopyTo(_chunk.AsSpan(_used));
                _used += n;
                buffer = buffer[n..];
                if (_used == ChunkSize) Publish();
            }
        }

        public override void Write(byte[] buffer, int offset, int count) => Write(buffer.AsSpan(offset, count));

        public override void Flush() => Publish();

        private void Publish()
        {
            if (_used == 0) return;
            byte[] chunk = _chunk.AsSpan(0, _used).ToArray();
            _used = 0;
            var links = owner.Links;
            int alive = 0;
            foreach (var link in links)
            {
                if (link.Closed) continue;
                link.Enqueue(chunk);
                alive++;
            }
            foreach (var link in links)
                if (!link.Closed) link.WaitForRoom(QueueLimit);
            if (alive == 0 || links.TrueForAll(l => l.Closed))
            {
                owner._master.Log.Warning("Diskless rdb transfer, last replica dropped, killing fork child.");
                throw new IOException("every replica of the transfer is gone");
            }
        }

        public override bool CanRead => false;
        public override bool CanSeek => false;
        public override bool CanWrite => true;
        public override long Length => throw new NotSupportedException();
        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }
        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();
        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();
        public override void SetLength(long value) => throw new NotSupportedException();
    }
}
