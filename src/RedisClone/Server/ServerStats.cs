namespace RedisClone.Server;

/// <summary>Server-wide counters for INFO stats; updated with Interlocked, read racily.</summary>
internal sealed class ServerStats
{
    public long TotalConnectionsReceived;
    public long TotalCommandsProcessed;
    public long RejectedConnections;
    public long NetInputBytes;
    public long NetOutputBytes;
    public long TotalErrorReplies;
    public long UnexpectedErrorReplies;
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

    public void Reset()
    {
        TotalConnectionsReceived = 0;
        TotalCommandsProcessed = 0;
        RejectedConnections = 0;
        NetInputBytes = 0;
        NetOutputBytes = 0;
        TotalErrorReplies = 0;
        UnexpectedErrorReplies = 0;
        lock (ErrorCounts) ErrorCounts.Clear();
    }
}
