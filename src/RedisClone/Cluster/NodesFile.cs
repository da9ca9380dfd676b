using System.Globalization;
using System.Text;
using RedisClone.Server;
using RedisClone.Cluster.Bus;

namespace RedisClone.Cluster;

/// <summary>
/// nodes.conf: the cluster configuration file in Redis 7.2's format, which is CLUSTER NODES' text
/// plus 7.2's aux fields after the address (<c>,hostname,tls-port=N[,nodename=X],shard-id=ID</c>)
/// and a closing <c>vars currentEpoch N lastVoteEpoch M</c> line. Files written by Redis 7.0 (no aux
/// fields) and older (no <c>@cport</c>) load too.
/// </summary>
/// <remarks>
/// The file is locked for the life of the server as Redis does (an exclusive flock: .NET takes one
/// for <see cref="FileShare.None"/> on Unix), so two servers cannot use one file; it is written as
/// Redis's clusterSaveConfig writes it: a temporary file beside it, fsynced, renamed over it, and
/// the directory fsynced.
/// </remarks>
internal sealed class NodesFile : IDisposable
{
    private FileStream _lock;

    private NodesFile(string path, FileStream lockStream)
    {
        Path = path;
        _lock = lockStream;
    }

    public string Path { get; }

    /// <summary>Redis's clusterLockConfig: opens (creating) and flocks the file, or stops the start.</summary>
    public static NodesFile Lock(string path, ServerLog log)
    {
        FileStream stream;
        try
        {
            stream = new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.ReadWrite);
        }
        catch (IOException ex) when (ex.GetType() == typeof(IOException) && File.Exists(path))
        {
            // .NET's own shared flock on open failed: another process holds the exclusive one.
            throw Locked(path, log);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            log.Warning($"Can't open {path} in order to acquire a lock: {Common.SystemErrors.Describe(ex)}");
            throw new ClusterStartException(ex.Message);
        }
        // flock itself, as Redis: the lock is shared with redis-server's, whatever .NET does for FileShare.
        if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
        {
            int fd = (int)stream.SafeFileHandle.DangerousGetHandle();
            if (Flock(fd, 2 | 4 /* LOCK_EX | LOCK_NB */) == -1)
            {
                int errno = System.Runtime.InteropServices.Marshal.GetLastPInvokeError();
                stream.Dispose();
                if (errno == 11 || errno == 35) throw Locked(path, log); // EWOULDBLOCK (Linux, macOS)
                string reason = System.Runtime.InteropServices.Marshal.GetPInvokeErrorMessage(errno);
                log.Warning($"Impossible to lock {path}: {reason}");
                throw new ClusterStartException(reason);
            }
        }
        return new NodesFile(path, stream);
    }

    private static ClusterStartException Locked(string path, ServerLog log)
    {
        log.Warning($"Sorry, the cluster configuration file {path} is already used by a different Redis Cluster node. Please make sure that different nodes use different cluster configuration files.");
        return new ClusterStartException($"the cluster configuration file {path} is locked by another node");
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "flock", SetLastError = true)]
    private static extern int Flock(int fd, int operation);

    /// <summary>The file's text as it was when locked (read through the locked handle).</summary>
    public string? ReadAll()
    {
        _lock.Position = 0;
        using var reader = new StreamReader(_lock, Encoding.Latin1, false, 4096, leaveOpen: true);
        return reader.ReadToEnd();
    }

    /// <summary>
    /// Writes <paramref name="content"/> over the file atomically (a temporary file renamed over it);
    /// with <paramref name="fsync"/> the file and its directory are fsynced too, as Redis's
    /// clusterSaveConfig(do_fsync). False with the reason on failure.
    /// </summary>
    public bool Save(string content, out string? error, bool fsync = true)
    {
        error = null;
        string tmp = $"{Path}.tmp-{Environment.ProcessId}-{DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()}";
        FileStream? fs = null;
        try
        {
            fs = new FileStream(tmp, FileMode.Create, FileAccess.ReadWrite, FileShare.ReadWrite);
            fs.Write(Encoding.Latin1.GetBytes(content));
            fs.Flush(flushToDisk: fsync);
            // The new file is locked before it takes the name, and its handle becomes the lock: the
            // name stays locked across the rename (the old file's lock goes with the old file).
            if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS()) Flock((int)fs.SafeFileHandle.DangerousGetHandle(), 2 | 4);
            File.Move(tmp, Path, overwrite: true);
            var old = _lock;
            _lock = fs;
            fs = null;
            old.Dispose();
            if (fsync) FsyncDirectory(System.IO.Path.GetDirectoryName(Path)!);
            return true;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            error = Common.SystemErrors.Describe(ex);
            fs?.Dispose();
            try { File.Delete(tmp); } catch (Exception e) when (e is IOException or UnauthorizedAccessException) { }
            return false;
        }
    }

    /// <summary>fsync of a directory, so a rename in it is durable (Redis's fsyncFileDir); best effort.</summary>
    private static void FsyncDirectory(string dir)
    {
        if (!OperatingSystem.IsLinux()) return;
        int fd = Open(dir, 0 /* O_RDONLY */);
        if (fd < 0) return;
        Fsync(fd);
        Close(fd);
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "open", SetLastError = true)]
    private static extern int Open([System.Runtime.InteropServices.MarshalAs(System.Runtime.InteropServices.UnmanagedType.LPUTF8Str)] string path, int flags);

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "fsync", SetLastError = true)]
    private static extern int Fsync(int fd);

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "close", SetLastError = true)]
    private static extern int Close(int fd);

    public void Dispose() => _lock.Dispose();

    // ------------------------------------------------------------------ the text

    private static readonly (NodeFlags Flag, string Name)[] FlagNames =
    [
        (NodeFlags.Myself, "myself"), (NodeFlags.Master, "master"), (NodeFlags.Slave, "slave"), (NodeFlags.PFail, "fail?"),
        (NodeFlags.Fail, "fail"), (NodeFlags.Handshake, "handshake"), (NodeFlags.NoAddr, "noaddr"), (NodeFlags.NoFailover, "nofailover"),
    ];

    /// <summary>Redis's representClusterNodeFlags: the flags comma separated, or "noflags".</summary>
    public static void AppendFlags(StringBuilder sb, NodeFlags flags)
    {
        int start = sb.Length;
        foreach (var (flag, name) in FlagNames)
        {
            if ((flags & flag) == 0) continue;
            if (sb.Length > start) sb.Append(',');
            sb.Append(name);
        }
        if (sb.Length == start) sb.Append("noflags");
    }

    /// <summary>
    /// CLUSTER NODES (<paramref name="forFile"/> false) or nodes.conf (true: aux fields, no nodes in
    /// handshake, and the vars line). <paramref name="tlsPrimary"/>: the TLS port is the one shown
    /// after the address (a TLS client's view; nodes.conf under tls-cluster).
    /// </summary>
    public static string Describe(ClusterState state, bool forFile, bool tlsPrimary)
    {
        var sb = new StringBuilder();
        lock (state.Sync)
        {
            var ranges = state.SlotRanges();
            foreach (var node in state.Nodes)
            {
                if (forFile && (node.Flags & NodeFlags.Handshake) != 0) continue;
                DescribeNode(sb, state, node, forFile, tlsPrimary, ranges);
                sb.Append('\n');
            }
            if (forFile)
                sb.Append("vars currentEpoch ").Append(state.CurrentEpoch.ToString(CultureInfo.InvariantCulture))
                  .Append(" lastVoteEpoch ").Append(state.LastVoteEpoch.ToString(CultureInfo.InvariantCulture)).Append('\n');
        }
        return sb.ToString();
    }

    /// <summary>One node's line (Redis's clusterGenNodeDescription), without the newline.</summary>
    public static void DescribeNode(StringBuilder sb, ClusterState state, ClusterNode node, bool forFile, bool tlsPrimary,
        Dictionary<ClusterNode, List<(int Start, int End)>> ranges)
    {
        var inv = CultureInfo.InvariantCulture;
        sb.Append(node.Id).Append(' ').Append(node.Ip).Append(':').Append((tlsPrimary ? node.TlsPort : node.Port).ToString(inv))
          .Append('@').Append(node.BusPort.ToString(inv));
        if (node.Hostname.Length > 0) sb.Append(',').Append(node.Hostname);
        if (forFile)
        {
            // Redis 7.2's aux fields, in its order (the last index first); the port not shown above.
            if (node.Hostname.Length == 0) sb.Append(',');
            if (tlsPrimary) sb.Append(",tcp-port=").Append(node.Port.ToString(inv));
            else sb.Append(",tls-port=").Append(node.TlsPort.ToString(inv));
            if (node.HumanNodename.Length > 0) sb.Append(",nodename=").Append(node.HumanNodename);
            if (node.ShardId.Length > 0) sb.Append(",shard-id=").Append(node.ShardId);
        }
        sb.Append(' ');
        AppendFlags(sb, node.Flags);
        sb.Append(' ').Append(node.Master != null ? node.Master.Id : "-");
        ulong epoch = node.IsReplica && node.Master != null ? node.Master.ConfigEpoch : node.ConfigEpoch;
        sb.Append(' ').Append(node.PingSent.ToString(inv)).Append(' ').Append(node.PongReceived.ToString(inv))
          .Append(' ').Append(epoch.ToString(inv)).Append(' ')
          .Append(node.LinkConnected || node.IsMyself ? "connected" : "disconnected");
        if (ranges.TryGetValue(node, out var list))
            foreach (var (start, end) in list)
            {
                sb.Append(' ').Append(start.ToString(inv));
                if (end != start) sb.Append('-').Append(end.ToString(inv));
            }
        if (node.IsMyself)
        {
            for (int j = 0; j < ClusterState.Slots; j++)
            {
                if (state.MigratingTo(j) is { } to) sb.Append(" [").Append(j.ToString(inv)).Append("->-").Append(to.Id).Append(']');
                else if (state.ImportingFrom(j) is { } from) sb.Append(" [").Append(j.ToString(inv)).Append("-<-").Append(from.Id).Append(']');
            }
        }
    }

    // ------------------------------------------------------------------ loading

    /// <summary>
    /// Redis's clusterLoadConfig over <paramref name="text"/>: fills <paramref name="state"/>, or
    /// throws (after logging Redis's line) when the file is corrupt.
    /// </summary>
    public static void Load(ClusterState state, string text, bool tlsCluster)
    {
        foreach (string raw in text.Split('\n'))
        {
            string line = raw.TrimEnd('\r');
            if (line.Length == 0) continue;
            string[] argv = line.Split([' ', '\t'], StringSplitOptions.RemoveEmptyEntries);
            if (argv.Length == 0) continue;
            if (argv[0].Equals("vars", StringComparison.OrdinalIgnoreCase))
            {
                if (argv.Length % 2 == 0) Corrupt(line);
                for (int j = 1; j < argv.Length; j += 2)
                {
                    if (argv[j].Equals("currentEpoch", StringComparison.OrdinalIgnoreCase)) state.CurrentEpoch = ParseULong(argv[j + 1]);
                    else if (argv[j].Equals("lastVoteEpoch", StringComparison.OrdinalIgnoreCase)) state.LastVoteEpoch = ParseULong(argv[j + 1]);
                }
                continue;
            }
            if (argv.Length < 8 || !IsNodeId(argv[0])) Corrupt(line);
            var n = state.GetOrAddForLoad(argv[0]);
            string[] aux = argv[1].Split(',');
            n.Hostname = aux.Length > 1 ? aux[1] : "";
            bool tcpAux = false, tlsAux = false;
            for (int i = 2; i < aux.Length; i++)
            {
                int eq = aux[i].IndexOf('=');
                if (eq < 0) Corrupt(line);
                string field = aux[i][..eq], value = aux[i][(eq + 1)..];
                switch (field)
                {
                    case "shard-id":
                        if (!IsNodeId(value)) Corrupt(line);
                        n.ShardId = value;
                        break;
                    case "nodename":
                        n.HumanNodename = value;
                        break;
                    case "tcp-port":
                        n.Port = ParsePort(value, line);
                        tcpAux = true;
                        break;
                    case "tls-port":
                        n.TlsPort = ParsePort(value, line);
                        tlsAux = true;
                        break;
                    default:
                        Corrupt(line);
                        break;
                }
            }
            int colon = aux[0].LastIndexOf(':');
            if (colon < 0) Corrupt(line);
            n.Ip = aux[0][..colon];
            string ports = aux[0][(colon + 1)..];
            int at = ports.IndexOf('@');
            int port = Atoi(at < 0 ? ports : ports[..at]);
            // Redis 7.2: the port after the address is the one no aux field names; with neither
            // (a 7.0 file), the TLS one under tls-cluster.
            if (!tcpAux && (tlsAux || !tlsCluster)) n.Port = port;
            else if (!tlsAux) n.TlsPort = port;
            n.BusPort = at < 0 ? (tlsCluster ? n.TlsPort : n.Port) + 10000 : Atoi(ports[(at + 1)..]);
            foreach (string flag in argv[2].Split(','))
            {
                switch (flag.ToLowerInvariant())
                {
                    case "myself":
                        n.Flags |= NodeFlags.Myself;
                        state.SetMyselfForLoad(n);
                        break;
                    case "master": n.Flags |= NodeFlags.Master; break;
                    case "slave": n.Flags |= NodeFlags.Slave; break;
                    case "fail?": n.Flags |= NodeFlags.PFail; break;
                    case "fail": n.Flags |= NodeFlags.Fail; break;
                    case "handshake": n.Flags |= NodeFlags.Handshake; break;
                    case "noaddr": n.Flags |= NodeFlags.NoAddr; break;
                    case "nofailover": n.Flags |= NodeFlags.NoFailover; break;
                    case "noflags": break;
                    default: Corrupt(line); break;
                }
            }
            if (argv[3] != "-")
            {
                if (!IsNodeId(argv[3])) Corrupt(line);
                var master = state.GetOrAddForLoad(argv[3]);
                if (n.ShardId.Length == 0) n.ShardId = master.ShardId;
                n.Master = master;
                if (!master.Replicas.Contains(n)) master.Replicas.Add(n);
            }
            long now = DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            if (Atoi(argv[4]) != 0) n.PingSent = now;
            if (Atoi(argv[5]) != 0) n.PongReceived = now;
            n.ConfigEpoch = n.IsReplica && n.Master != null ? 0 : ParseULong(argv[6]);
            for (int j = 8; j < argv.Length; j++)
            {
                string a = argv[j];
                if (a[0] == '[')
                {
                    int dash = a.IndexOf('-');
                    if (dash < 0 || a.Length < dash + 3) Corrupt(line);
                    char direction = a[dash + 1];
                    int slot = Atoi(a[1..dash]);
                    if (slot is < 0 or >= ClusterState.Slots) Corrupt(line);
                    int close = a.IndexOf(']', dash);
                    if (close < 0) Corrupt(line);
                    string id = a[(dash + 3)..close];
                    if (!IsNodeId(id)) Corrupt(line);
                    var other = state.GetOrAddForLoad(id);
                    if (direction == '>') state.SetMigrating(slot, other);
                    else state.SetImporting(slot, other);
                    continue;
                }
                int d = a.IndexOf('-');
                int start = Atoi(d < 0 ? a : a[..d]), stop = d < 0 ? start : Atoi(a[(d + 1)..]);
                if (start is < 0 or >= ClusterState.Slots || stop is < 0 or >= ClusterState.Slots) Corrupt(line);
                for (int s = start; s <= stop; s++) state.AddSlot(n, s);
            }
        }
        if (state.Myself == null) Corrupt("");
        // Nodes without a shard id (a file from Redis 7.0) get their master's or a new one.
        foreach (var n in state.Nodes)
            if (n.ShardId.Length == 0) n.ShardId = n.Master is { ShardId.Length: > 0 } m ? m.ShardId : Common.RandomHex.Next40();
        foreach (var n in state.Nodes)
            if (n.Master != null) n.ShardId = n.Master.ShardId;
        ulong max = state.MaxEpoch();
        if (max > state.CurrentEpoch) state.CurrentEpoch = max;
    }

    private static bool IsNodeId(string s) => s.Length == 40;

    private static int ParsePort(string value, string line)
    {
        if (value.Length is < 1 or > 5) Corrupt(line);
        int port = Atoi(value);
        if (port is < 0 or >= 65536) Corrupt(line);
        return port;
    }

    /// <summary>C's atoi: leading digits (with a sign), 0 when none.</summary>
    private static int Atoi(string s)
    {
        int i = 0, sign = 1;
        long v = 0;
        if (i < s.Length && (s[i] == '-' || s[i] == '+')) sign = s[i++] == '-' ? -1 : 1;
        while (i < s.Length && char.IsAsciiDigit(s[i]) && v < int.MaxValue) v = v * 10 + (s[i++] - '0');
        return (int)Math.Clamp(sign * v, int.MinValue, int.MaxValue);
    }

    private static ulong ParseULong(string s)
    {
        ulong v = 0;
        foreach (char c in s)
        {
            if (!char.IsAsciiDigit(c)) break;
            v = unchecked(v * 10 + (ulong)(c - '0'));
        }
        return v;
    }

    [System.Diagnostics.CodeAnalysis.DoesNotReturn]
    private static void Corrupt(string line)
        => throw new ClusterStartException($"Unrecoverable error: corrupted cluster config file \"{line}\".") { LogLine = true };
}
