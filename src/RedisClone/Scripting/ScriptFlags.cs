namespace RedisClone.Scripting;

/// <summary>
/// What a script declares about itself: in EVAL's shebang line (<c>#!lua flags=no-writes,allow-oom</c>)
/// or a function's registration. A script without a shebang runs in compatibility mode
/// (<see cref="EvalCompat"/>): it may write, and its other flags do not apply.
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
    EvalCompat = 32,
}
