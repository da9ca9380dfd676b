namespace RedisClone.Scripting;

/// <summary>A function a library registered, with the registry reference of its Lua callback.</summary>
internal sealed class FunctionInfo(string name, byte[]? description, ScriptFlags flags, int reference, FunctionLibrary library)
{
    public string Name { get; } = name;
    /// <summary>Its description's bytes as given (any encoding), or null.</summary>
    public byte[]? Description { get; } = description;
    public ScriptFlags Flags { get; } = flags;
    public int Reference { get; } = reference;
    public FunctionLibrary Library { get; } = library;
}
