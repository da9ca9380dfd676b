namespace RedisClone.Commands;

/// <summary>
/// A client's connection as CLIENT LIST and INFO see it: its socket's descriptor and what its
/// buffers hold right now. Implemented by the network layer (which Commands may not reference);
/// measured only when asked, so serving commands pays nothing for it.
/// </summary>
internal interface IClientBuffers
{
    /// <summary>The socket's file descriptor; -1 when there is none (an in-memory connection).</summary>
    int Fd { get; }

    /// <summary>A snapshot, safe from any thread; fields may be a moment apart for a busy client.</summary>
    ClientBufferUsage Measure();

    /// <summary>
    /// The client has been idle for a while: give back the room its buffers grew to (Redis's
    /// clientsCronResizeQueryBuffer). Any thread; the buffers' owner does it on its own thread.
    /// </summary>
    void TrimIdle() { }

    /// <summary>
    /// The connection became a replica's link: what is sent to it counts as replication output
    /// (total_net_repl_output_bytes), as Redis counts a CLIENT_SLAVE's writes, not as client output.
    /// </summary>
    void CountOutputAsReplication() { }

    /// <summary>Turns TCP_NODELAY off on the socket (repl-disable-tcp-nodelay on a full sync); best effort.</summary>
    void DisableNoDelay() { }
}

/// <summary>
/// What a connection's buffers hold, in Redis's terms. Input: <see cref="QueryBytes"/> received
/// and not yet parsed, <see cref="QueryFree"/> room left in the receive buffer,
/// <see cref="QueryAllocated"/> its size; <see cref="ParseBytes"/> argument bytes the parser holds
/// (commands of the batch being run, or a command still arriving; not the room reserved for an
/// argument whose bytes have not come) in an arena of
/// <see cref="ParseAllocated"/> bytes. Output: the first 16 KB reply block plays Redis's reply buffer
/// (<see cref="ReplyBufferSize"/>, <see cref="ReplyBufferPeak"/>, <see cref="ReplyBufferBytes"/> not
/// yet sent); further blocks are its reply list (<see cref="ReplyBlocks"/>, <see cref="ReplyBlockBytes"/>).
/// </summary>
internal readonly record struct ClientBufferUsage(
    long QueryBytes, long QueryFree, long QueryAllocated,
    long ParseBytes, long ParseAllocated,
    long ReplyBufferSize, long ReplyBufferPeak, long ReplyBufferBytes,
    long ReplyBlocks, long ReplyBlockBytes, bool WritePending)
{
    /// <summary>
    /// Of <see cref="ParseBytes"/>, the received part of an argument still arriving: Redis holds it in
    /// its query buffer (qbuf), the arguments before it in argv (argv-mem).
    /// </summary>
    public long PartialArgBytes { get; init; }

    /// <summary>Every buffer the connection holds, by size (CLIENT LIST's tot-mem without multi-mem).</summary>
    public long AllocatedBytes => QueryAllocated + ParseAllocated + ReplyBufferSize + ReplyBlockBytes;
}
