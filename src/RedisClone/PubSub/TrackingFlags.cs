namespace RedisClone.PubSub;

/// <summary>A client's CLIENT TRACKING state (Redis's CLIENT_TRACKING_* flags).</summary>
[Flags]
internal enum TrackingFlags
{
    None = 0,
    On = 1 << 0,
    Bcast = 1 << 1,
    OptIn = 1 << 2,
    OptOut = 1 << 3,
    /// <summary>CLIENT CACHING YES (OPTIN) or NO (OPTOUT) was given for the next command.</summary>
    Caching = 1 << 4,
    NoLoop = 1 << 5,
    /// <summary>The client it redirects to is gone (CLIENT LIST flag R).</summary>
    BrokenRedirect = 1 << 6,
}
