namespace RedisClone.Server;

/// <summary>
/// How a stop goes: SHUTDOWN's options, and the shutdown-on-sigterm / shutdown-on-sigint values
/// (their "default" is no flag). The numbers are Redis's, so the two configs print their flags in
/// Redis's order.
/// </summary>
[Flags]
internal enum ShutdownFlags
{
    None = 0,
    /// <summary>Write the RDB file even without save points.</summary>
    Save = 1,
    /// <summary>Write no RDB file even with save points.</summary>
    NoSave = 2,
    /// <summary>Do not wait for replicas (there are none here: no effect).</summary>
    Now = 4,
    /// <summary>A save or AOF error does not keep the server running.</summary>
    Force = 8,
}
