namespace RedisClone.Cluster.Bus;

/// <summary>An outgoing connection attempt: the link, or why there is none (Redis logs it at verbose and retries from its cron).</summary>
internal readonly record struct BusConnectResult(BusLink? Link, string? Error);
