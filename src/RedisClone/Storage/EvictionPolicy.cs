namespace RedisClone.Storage;

/// <summary>maxmemory-policy: which keys go, and how candidates are ranked, when used memory passes maxmemory.</summary>
internal enum EvictionPolicy
{
    NoEviction,
    AllKeysLru,
    VolatileLru,
    AllKeysLfu,
    VolatileLfu,
    AllKeysRandom,
    VolatileRandom,
    VolatileTtl,
}

/// <summary>Reading <see cref="EvictionPolicy"/>.</summary>
internal static class EvictionPolicies
{
    /// <summary>The policy named as CONFIG SET spells it (case-insensitively); noeviction for anything else.</summary>
    public static EvictionPolicy Parse(string name) => name.ToLowerInvariant() switch
    {
        "allkeys-lru" => EvictionPolicy.AllKeysLru,
        "volatile-lru" => EvictionPolicy.VolatileLru,
        "allkeys-lfu" => EvictionPolicy.AllKeysLfu,
        "volatile-lfu" => EvictionPolicy.VolatileLfu,
        "allkeys-random" => EvictionPolicy.AllKeysRandom,
        "volatile-random" => EvictionPolicy.VolatileRandom,
        "volatile-ttl" => EvictionPolicy.VolatileTtl,
        _ => EvictionPolicy.NoEviction,
    };

    /// <summary>Only keys with a TTL may be evicted.</summary>
    public static bool VolatileOnly(this EvictionPolicy policy)
        => policy is EvictionPolicy.VolatileLru or EvictionPolicy.VolatileLfu or EvictionPolicy.VolatileRandom or EvictionPolicy.VolatileTtl;

    /// <summary>Keys keep an LFU counter instead of an access time.</summary>
    public static bool IsLfu(this EvictionPolicy policy) => policy is EvictionPolicy.AllKeysLfu or EvictionPolicy.VolatileLfu;

    /// <summary>A random key goes (no ranking, no pool).</summary>
    public static bool IsRandom(this EvictionPolicy policy) => policy is EvictionPolicy.AllKeysRandom or EvictionPolicy.VolatileRandom;
}
