namespace RedisClone.Server;

/// <summary>Server-wide counters for INFO stats; updated with Interlocked, read racily.</summary>
internal sealed class ServerStats
{
    public long TotalConnectionsReceived;
    public long RejectedConnections;
    /// <summary>Bytes received from and sent to clients: added to on every receive and send, so striped.</summary>
    public readonly Common.StripedCounter NetInputBytes = new(), NetOutputBytes = new();
    /// <summary>
    /// Replication traffic, which Redis keeps out of the two above: bytes read from our master
    /// (total_net_repl_input_bytes) and written to our replicas (total_net_repl_output_bytes).
    /// </summary>
    public readonly Common.StripedCounter NetReplInputBytes = new(), NetReplOutputBytes = new();
    /// <summary>
    /// Socket reads and writes that moved data (total_reads_processed, total_writes_processed), and
    /// those done by an event loop other than the first (io_threaded_*: Redis's I/O threads).
    /// </summary>
    public readonly Common.StripedCounter ReadsProcessed = new(), WritesProcessed = new(),
        ThreadedReadsProcessed = new(), ThreadedWritesProcessed = new();
    /// <summary>
    /// The largest client input buffer (receive blocks, parse arena) and reply list seen in the last
    /// seconds, for INFO's client_recent_max_*: the transports report them when a buffer grows.
    /// </summary>
    public readonly Common.RecentPeak RecentMaxInput = new(), RecentMaxOutput = new();
    public long TotalErrorReplies;
    public long UnexpectedErrorReplies;
    /// <summary>
    /// lazyfreed_objects: values Redis would have freed on its lazyfree thread (UNLINK and the
    /// lazyfree-lazy-* deletes of a value whose free effort is over 64, every key of an async flush).
    /// Here the GC frees everything; the count tells clients the same story Redis's does.
    /// </summary>
    public long LazyFreedObjects;
    /// <summary>Redis 7.4's client_query_buffer_limit_disconnections: clients closed over client-query-buffer-limit.</summary>
    public long QueryBufferLimitDisconnections;
    /// <summary>Redis 7.4's client_output_buffer_limit_disconnections: clients closed over client-output-buffer-limit (any class).</summary>
    public long OutputBufferLimitDisconnections;
    public readonly Dictionary<string, long> ErrorCounts = new();

    public void CountError(string code)
    {
        Interlocked.Increment(ref TotalErrorReplies);
        lock (ErrorCounts)
        {
            ErrorCounts.TryGetValue(code, out long n);
            ErrorCounts[code] = n + 1;
        }
    }

    /// <summary>
    /// Counts an error reply by its code, as Redis's errorstats does: the first word of the line
    /// (looked for within its first 32 bytes, the leading '-' included), or ERR when there is none.
    /// At most 128 distinct codes are tracked, as in Redis.
    /// </summary>
    public void CountErrorReply(ReadOnlySpan<byte> line)
    {
        if (line.Length > 0 && line[0] == (byte)'-') line = line.Slice(1);
        int space = line.Slice(0, Math.Min(line.Length, 31)).IndexOf((byte)' ');
        Span<char> code = stackalloc char[space < 0 ? 3 : space];
        if (space < 0) "ERR".CopyTo(code);
        else for (int i = 0; i < space; i++) code[i] = (char)line[i];
        Interlocked.Increment(ref TotalErrorReplies);
        lock (ErrorCounts)
        {
            var lookup = ErrorCounts.GetAlternateLookup<ReadOnlySpan<char>>();
            if (lookup.TryGetValue(code, out long n)) lookup[code] = n + 1;
            else if (ErrorCounts.Count < 128) ErrorCounts[new string(code)] = 1;
        }
    }

    public void Reset()
    {
        TotalConnectionsReceived = 0;
        RejectedConnections = 0;
        NetInputBytes.Reset();
        NetOutputBytes.Reset();
        NetReplInputBytes.Reset();
        NetReplOutputBytes.Reset();
        ReadsProcessed.Reset();
        WritesProcessed.Reset();
        ThreadedReadsProcessed.Reset();
        ThreadedWritesProcessed.Reset();
        TotalErrorReplies = 0;
        UnexpectedErrorReplies = 0;
        LazyFreedObjects = 0;
        Interlocked.Exchange(ref QueryBufferLimitDisconnections, 0);
        Interlocked.Exchange(ref OutputBufferLimitDisconnections, 0);
        lock (ErrorCounts) ErrorCounts.Clear();
    }
}
