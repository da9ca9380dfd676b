namespace RedisClone.Scripting;

/// <summary>
/// The flags a function can carry (redis.register_function's flags), in Redis's order; the same bits
/// as <see cref="FunctionBootstrap"/>'s known_flags, which computes them.
/// </summary>
[Flags]
internal enum ScriptFlags
{
    None = 0,
    NoWrites = 1,
    AllowOom = 2,
    AllowStale = 4,
    NoCluster = 8,
    AllowCrossSlotKeys = 16,
}
