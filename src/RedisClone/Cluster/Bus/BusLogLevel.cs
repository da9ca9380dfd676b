namespace RedisClone.Cluster.Bus;

/// <summary>Redis's log levels, for the bus's log lines (the server maps them onto its log).</summary>
internal enum BusLogLevel
{
    Debug,
    Verbose,
    Notice,
    Warning,
}
