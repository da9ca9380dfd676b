namespace RedisClone.Cluster;

/// <summary>
/// The cluster node cannot start (nodes.conf locked by another process, corrupt or not writable):
/// the server stops as redis-server exits. <see cref="LogLine"/>: the message is Redis's log line.
/// </summary>
internal sealed class ClusterStartException(string message) : Exception(message)
{
    public bool LogLine { get; init; }
}
