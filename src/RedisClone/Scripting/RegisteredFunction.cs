namespace RedisClone.Scripting;

/// <summary>A function a library registered while it loaded: its callback is kept in the state's registry.</summary>
internal readonly record struct RegisteredFunction(string Name, byte[]? Description, ScriptFlags Flags, int Reference);
